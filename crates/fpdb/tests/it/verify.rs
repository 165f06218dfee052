//! `Db::verify` passes healthy databases and names the damage in broken
//! ones. Damage is done with a raw RocksDB handle on the closed database,
//! using the column family layout of docs/FORMAT.md.

use std::path::{Path, PathBuf};

use fpdb::{Db, Fingerprint, Options, Problem};
use fpdb_testkit::{block_keys, open_raw};

/// A database with several blocks per table, merged, with removals and a
/// pending delta on top.
fn populated() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let options = Options::default().block_bytes(128);
    let db = Db::create(&path, options).unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let documents: Vec<(String, Fingerprint)> = (0..3000)
        .map(|i| (format!("doc-{i}"), Fingerprint(next())))
        .collect();
    db.insert_batch(&documents).unwrap();
    // Several ids on one fingerprint.
    db.insert("copy-of-0", documents[0].1).unwrap();
    db.merge().unwrap();
    for (id, _) in documents.iter().step_by(7) {
        db.remove(id).unwrap();
    }
    db.merge().unwrap();
    // Left pending in the delta: adds and removes.
    db.insert("late", Fingerprint(next())).unwrap();
    db.remove("doc-1").unwrap();
    drop(db);
    (dir, path)
}

/// The fingerprint stored for `id`, read through a short-lived handle.
fn fingerprint_of(path: &Path, id: &str) -> Fingerprint {
    Db::open(path).unwrap().get(id).unwrap().unwrap()
}

/// An `fp_ids` key: the fingerprint, big-endian, then the id.
fn fp_ids_key(fp: u64, id: &str) -> Vec<u8> {
    let mut key = fp.to_be_bytes().to_vec();
    key.extend_from_slice(id.as_bytes());
    key
}

fn verify(path: &Path) -> fpdb::VerifyReport {
    Db::open(path).unwrap().verify().unwrap()
}

#[test]
fn a_healthy_database_verifies_clean() {
    let (_dir, path) = populated();
    let db = Db::open(&path).unwrap();
    let report = db.verify().unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    let stats = db.stats();
    assert_eq!(report.fingerprints, stats.fingerprints);
    assert_eq!(report.ids, stats.ids);
    assert_eq!(report.tables, stats.tables.len());
    let blocks: usize = stats.tables.iter().map(|t| t.blocks).sum();
    assert_eq!(report.blocks, blocks as u64);
    assert!(blocks > 2 * stats.tables.len(), "several blocks per table");
    // And after the delta is merged, read-only.
    db.compact().unwrap();
    drop(db);
    let report = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap()
        .verify()
        .unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
}

#[test]
fn an_empty_database_verifies_clean() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    let report = db.verify().unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    assert_eq!((report.fingerprints, report.ids, report.blocks), (0, 0, 0));
}

#[test]
fn a_garbage_block_is_named() {
    let (_dir, path) = populated();
    let key = {
        let rocks = open_raw(&path);
        let key = block_keys(&rocks, 1)[2];
        let table = rocks.cf_handle("table-001").unwrap();
        let mut value = rocks.get_cf(table, key).unwrap().unwrap();
        let middle = value.len() / 2;
        value[middle] ^= 0x5a;
        rocks.put_cf(table, key, value).unwrap();
        u64::from_be_bytes(key)
    };
    let report = verify(&path);
    assert!(!report.is_clean());
    assert!(
        report.problems.iter().any(|p| matches!(
            p,
            Problem::Block { table: 1, block: Some(2), key: k, .. } if *k == key
        )),
        "{:?}",
        report.problems
    );
    // Only table 1 is damaged.
    assert!(report.problems.iter().all(|p| matches!(
        p,
        Problem::Block { table: 1, .. } | Problem::Table { table: 1, .. }
    )));
}

#[test]
fn a_dropped_block_is_named() {
    let (_dir, path) = populated();
    let key = {
        let rocks = open_raw(&path);
        let key = block_keys(&rocks, 0)[0];
        rocks
            .delete_cf(rocks.cf_handle("table-000").unwrap(), key)
            .unwrap();
        u64::from_be_bytes(key)
    };
    let report = verify(&path);
    assert!(
        report.problems.iter().any(|p| matches!(
            p,
            Problem::Block { table: 0, block: Some(0), key: k, reason } if *k == key && reason.contains("missing")
        )),
        "{:?}",
        report.problems
    );
}

#[test]
fn a_block_missing_from_the_directory_is_named() {
    let (_dir, path) = populated();
    {
        let rocks = open_raw(&path);
        let meta = rocks.cf_handle("meta").unwrap();
        let mut keys = block_keys(&rocks, 2);
        keys.remove(1);
        let keys = keys.into_iter().map(u64::from_be_bytes).collect();
        let directory = fpdb_codec::BlockDirectory::new(keys).unwrap();
        rocks.put_cf(meta, "dir/002", directory.to_bytes()).unwrap();
    }
    let report = verify(&path);
    assert!(
        report.problems.iter().any(|p| matches!(
            p,
            Problem::Block { table: 2, block: None, reason, .. } if reason.contains("not listed")
        )),
        "{:?}",
        report.problems
    );
}

/// A directory whose first key of a block is above the block's smallest
/// key would make queries skip the keys below it: verify names the block.
#[test]
fn a_first_key_above_its_block_is_named() {
    let (_dir, path) = populated();
    {
        let rocks = open_raw(&path);
        let meta = rocks.cf_handle("meta").unwrap();
        let bytes = rocks.get_cf(meta, "dir/001").unwrap().unwrap();
        let old = fpdb_codec::BlockDirectory::from_bytes(&bytes).unwrap();
        let mut firsts = old.first_keys().to_vec();
        // Block 3's recorded first key becomes its last key: still inside
        // the block, so the directory parses, but above its other keys.
        firsts[3] = old.last_keys()[3];
        let damaged =
            fpdb_codec::BlockDirectory::with_first_keys(old.last_keys().to_vec(), firsts).unwrap();
        rocks.put_cf(meta, "dir/001", damaged.to_bytes()).unwrap();
    }
    let report = verify(&path);
    assert!(
        report.problems.iter().any(|p| matches!(
            p,
            Problem::Block { table: 1, block: Some(3), reason, .. } if reason.contains("queries would skip it")
        )),
        "{:?}",
        report.problems
    );
}

#[test]
fn a_deleted_fp_ids_entry_names_the_id() {
    let (_dir, path) = populated();
    let fp = fingerprint_of(&path, "doc-2");
    {
        let rocks = open_raw(&path);
        rocks
            .delete_cf(
                rocks.cf_handle("fp_ids").unwrap(),
                fp_ids_key(fp.0, "doc-2"),
            )
            .unwrap();
    }
    let report = verify(&path);
    assert!(
        report
            .problems
            .iter()
            .any(|p| matches!(p, Problem::Id { id, .. } if id == "doc-2")),
        "{:?}",
        report.problems
    );
    // doc-2 was its fingerprint's only id.
    assert!(report
        .problems
        .iter()
        .any(|p| matches!(p, Problem::Fingerprint { fingerprint, .. } if *fingerprint == fp)));
}

#[test]
fn a_wrong_counter_is_named() {
    let (_dir, path) = populated();
    {
        let rocks = open_raw(&path);
        rocks
            .put_cf(
                rocks.cf_handle("meta").unwrap(),
                "count/ids",
                7u64.to_be_bytes(),
            )
            .unwrap();
    }
    let report = verify(&path);
    assert!(report.problems.iter().any(|p| matches!(
        p,
        Problem::Counter {
            name: "ids",
            stored: 7,
            ..
        }
    )));
}

#[test]
fn a_deleted_id_fp_entry_names_the_id() {
    let (_dir, path) = populated();
    {
        let rocks = open_raw(&path);
        rocks
            .delete_cf(rocks.cf_handle("id_fp").unwrap(), "copy-of-0")
            .unwrap();
    }
    let report = verify(&path);
    assert!(
        report.problems.iter().any(
            |p| matches!(p, Problem::Id { id, reason } if id == "copy-of-0" && reason.contains("missing from id_fp"))
        ),
        "{:?}",
        report.problems
    );
    assert!(report
        .problems
        .iter()
        .any(|p| matches!(p, Problem::Counter { name: "ids", .. })));
}

/// Both families complete and the same size, one pair different: only the
/// pairs' digests tell, and the id is then named.
#[test]
fn an_id_mapped_to_another_fingerprint_is_named() {
    let (_dir, path) = populated();
    let fp = fingerprint_of(&path, "doc-3");
    {
        let rocks = open_raw(&path);
        rocks
            .put_cf(
                rocks.cf_handle("id_fp").unwrap(),
                "doc-3",
                (fp.0 ^ 1).to_be_bytes(),
            )
            .unwrap();
    }
    let report = verify(&path);
    assert!(
        report.problems.iter().any(
            |p| matches!(p, Problem::Id { id, reason } if id == "doc-3" && reason.contains("id_fp holds another"))
        ),
        "{:?}",
        report.problems
    );
}

/// An `fp_ids` entry moved under another fingerprint, counts unchanged.
#[test]
fn an_fp_ids_entry_under_another_fingerprint_is_named() {
    let (_dir, path) = populated();
    let fp = fingerprint_of(&path, "doc-4");
    {
        let rocks = open_raw(&path);
        let fp_ids = rocks.cf_handle("fp_ids").unwrap();
        rocks.delete_cf(fp_ids, fp_ids_key(fp.0, "doc-4")).unwrap();
        rocks
            .put_cf(fp_ids, fp_ids_key(fp.0 ^ 2, "doc-4"), [])
            .unwrap();
    }
    let report = verify(&path);
    assert!(
        report.problems.iter().any(
            |p| matches!(p, Problem::Id { id, reason } if id == "doc-4" && reason.contains("id_fp holds another"))
        ),
        "{:?}",
        report.problems
    );
    assert!(report.problems.iter().any(
        |p| matches!(p, Problem::Id { id, reason } if id == "doc-4" && reason.contains("no entry in fp_ids"))
    ));
}
