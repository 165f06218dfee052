//! Damaged databases: flipped bytes in RocksDB's files and in fpdb's own
//! values, truncated files, deleted files. Opening, querying and verifying
//! must each either give the right answer or a typed error (or a verify
//! problem) naming what is damaged; never a panic, never a wrong answer
//! presented as right.

use std::path::Path;

use fpdb::{Db, Error, Problem};
use fpdb_testkit::{brute_force, ids_by_fingerprint, Model, Rng};

use crate::common::Fixture;

/// A healthy database to damage copies of: merged blocks, a delta of
/// inserts and removes.
fn fixture() -> Fixture {
    let options = fpdb_testkit::small_options().block_bytes(256);
    let (dir, path, db) = fpdb_testkit::create_temp_db(options);
    let mut rng = Rng::new(7);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 3000);
    let mut model: Model = documents.iter().cloned().collect();
    db.insert_batch(&documents[..2700]).unwrap();
    db.merge().unwrap();
    db.insert_batch(&documents[2700..]).unwrap();
    for (id, _) in documents.iter().step_by(97) {
        db.remove(id).unwrap();
        model.remove(id);
    }
    fpdb_testkit::assert_verifies(&db);
    Fixture::closed(dir, path, db, model)
}

/// What fpdb should call the data in column family `cf`.
fn cf_meaning(cf: &str) -> String {
    match cf.strip_prefix("table-") {
        Some(index) => format!("table {}", index.parse::<usize>().unwrap()),
        None => cf.to_string(),
    }
}

/// Opens, queries and verifies the damaged database at `path`; asserts
/// every answer given is right; returns every error and problem reported
/// (empty when the damage went unnoticed).
fn exercise(path: &Path, model: &Model) -> Vec<String> {
    let db = match Db::open(path) {
        Ok(db) => db,
        Err(error) => return vec![error.to_string()],
    };
    let mut reported = Vec::new();
    let by_fp = ids_by_fingerprint(model);
    for &fp in by_fp.keys() {
        match db.query(fp, 3) {
            Ok(matches) => assert_eq!(matches, brute_force(&by_fp, fp, 3), "query {fp}"),
            Err(error) => reported.push(error.to_string()),
        }
    }
    for (id, fp) in model.iter().step_by(7) {
        match db.get(id) {
            Ok(found) => assert_eq!(found, Some(*fp), "get {id}"),
            Err(error) => reported.push(error.to_string()),
        }
    }
    match db
        .export()
        .map(|rows| rows.collect::<Result<Model, Error>>())
    {
        Ok(Ok(exported)) => assert_eq!(&exported, model, "export"),
        Ok(Err(error)) | Err(error) => reported.push(error.to_string()),
    }
    match db.verify() {
        Ok(report) => reported.extend(report.problems.iter().map(ToString::to_string)),
        Err(error) => reported.push(error.to_string()),
    }
    reported
}

fn assert_named(reported: &[String], names: &[&str], damage: &str) {
    assert!(!reported.is_empty(), "{damage}: not noticed");
    assert!(
        reported
            .iter()
            .any(|message| names.iter().any(|name| message.contains(name))),
        "{damage}: no report names any of {names:?}: {reported:?}"
    );
}

#[test]
fn flipped_bytes_in_any_sst_file_are_noticed_and_named() {
    let fixture = fixture();
    assert!(fixture.files.len() >= 5, "{:?}", fixture.files);
    let mut unnoticed = 0;
    for (cf, file) in &fixture.files {
        let size = std::fs::metadata(fixture.path.join(file)).unwrap().len() as usize;
        // A data block near the start, the middle, and the index, filter
        // and footer near the end.
        for at in [size / 8, size / 2, size - 200, size - 20] {
            let (_copy, path) = fixture.copy();
            let mut bytes = std::fs::read(path.join(file)).unwrap();
            bytes[at] ^= 0x40;
            std::fs::write(path.join(file), &bytes).unwrap();
            let reported = exercise(&path, &fixture.model);
            if reported.is_empty() {
                // Every answer was right (`exercise` checked them): the
                // byte is in data no read needs. RocksDB reads without a
                // bloom filter block that fails its checksum (filters only
                // save reads), and that is where these land (seen: the
                // filter of a small `meta` file).
                eprintln!("unnoticed, every answer right: byte {at} of {file} ({cf})");
                unnoticed += 1;
                continue;
            }
            assert_named(
                &reported,
                &[file, &cf_meaning(cf)],
                &format!("byte {at} of {file} ({cf})"),
            );
        }
    }
    assert!(
        unnoticed <= fixture.files.len() / 4,
        "{unnoticed} flips went unnoticed"
    );
}

#[test]
fn truncated_sst_files_are_noticed_and_named() {
    let fixture = fixture();
    for (cf, file) in &fixture.files {
        let (_copy, path) = fixture.copy();
        let size = std::fs::metadata(path.join(file)).unwrap().len();
        let handle = std::fs::OpenOptions::new()
            .write(true)
            .open(path.join(file))
            .unwrap();
        handle.set_len(size / 2).unwrap();
        drop(handle);
        let reported = exercise(&path, &fixture.model);
        assert_named(
            &reported,
            &[file, &cf_meaning(cf)],
            &format!("{file} ({cf}) truncated"),
        );
    }
}

#[test]
fn a_column_familys_deleted_files_are_noticed_and_named() {
    let fixture = fixture();
    let mut families: Vec<&str> = fixture.files.iter().map(|(cf, _)| cf.as_str()).collect();
    families.sort_unstable();
    families.dedup();
    for family in families {
        let (_copy, path) = fixture.copy();
        let files: Vec<&str> = fixture
            .files
            .iter()
            .filter(|(cf, _)| cf == family)
            .map(|(_, file)| file.as_str())
            .collect();
        for file in &files {
            std::fs::remove_file(path.join(file)).unwrap();
        }
        let reported = exercise(&path, &fixture.model);
        let mut names = files.clone();
        let meaning = cf_meaning(family);
        names.push(&meaning);
        assert_named(&reported, &names, &format!("files of {family} deleted"));
    }
}

#[test]
fn damaged_rocksdb_manifest_and_current_files_are_noticed() {
    let fixture = fixture();
    let manifest_file = std::fs::read_dir(&fixture.path)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|name| name.starts_with("MANIFEST-"))
        .unwrap();
    let size = std::fs::metadata(fixture.path.join(&manifest_file))
        .unwrap()
        .len() as usize;
    for at in [10, size / 2, size - 10] {
        let (_copy, path) = fixture.copy();
        let mut bytes = std::fs::read(path.join(&manifest_file)).unwrap();
        bytes[at] ^= 0x40;
        std::fs::write(path.join(&manifest_file), &bytes).unwrap();
        let reported = exercise(&path, &fixture.model);
        assert_named(
            &reported,
            &[&manifest_file, "MANIFEST"],
            &format!("byte {at} of {manifest_file}"),
        );
    }
    let (_copy, path) = fixture.copy();
    std::fs::write(path.join("CURRENT"), "MANIFEST-999999\n").unwrap();
    let reported = exercise(&path, &fixture.model);
    assert_named(
        &reported,
        &["MANIFEST-999999"],
        "CURRENT names a missing file",
    );
}

/// Rewrites one value of `family` through RocksDB itself (so RocksDB's own
/// checksums are valid and only fpdb's checks can notice).
fn damage_value(path: &Path, family: &str, key: Option<&[u8]>, damage: impl Fn(&mut Vec<u8>)) {
    let rocks = fpdb_testkit::open_raw(path);
    let cf = rocks.cf_handle(family).unwrap();
    let (key, value) = match key {
        Some(key) => (key.to_vec(), rocks.get_cf(cf, key).unwrap().unwrap()),
        None => {
            let (key, value) = rocks
                .iterator_cf(cf, rocksdb::IteratorMode::Start)
                .nth(1)
                .unwrap()
                .unwrap();
            (key.to_vec(), value.to_vec())
        }
    };
    let mut value = value;
    damage(&mut value);
    rocks.put_cf(cf, key, value).unwrap();
}

#[test]
fn a_damaged_block_is_named_by_verify_and_queries_never_answer_wrong() {
    let fixture = fixture();
    for table in 0..4 {
        for byte in [0, 5, 12, 40] {
            let (_copy, path) = fixture.copy();
            damage_value(&path, &format!("table-{table:03}"), None, |block| {
                let at = byte.min(block.len() - 1);
                block[at] ^= 0x08;
            });
            let reported = exercise(&path, &fixture.model);
            assert_named(
                &reported,
                &[&format!("table {table}, block")],
                &format!("byte {byte} of a block of table {table}"),
            );
            let db = Db::open(&path).unwrap();
            let report = db.verify().unwrap();
            assert!(report.problems.iter().any(|problem| matches!(
                problem,
                Problem::Block { table: t, block: Some(_), .. } if *t == table
            )));
        }
    }
}

#[test]
fn a_damaged_manifest_value_fails_open_naming_the_manifest() {
    let fixture = fixture();
    for byte in [0, 9, 20, 40] {
        let (_copy, path) = fixture.copy();
        damage_value(&path, "meta", Some(b"manifest"), |manifest| {
            manifest[byte] ^= 0x01;
        });
        match Db::open(&path) {
            Err(Error::Corrupt { what, .. }) => assert_eq!(what, "manifest"),
            other => panic!("byte {byte}: {other:?}"),
        }
        match fpdb::OpenOptions::new().read_only(true).open(&path) {
            Err(Error::Corrupt { what, .. }) => assert_eq!(what, "manifest"),
            other => panic!("byte {byte}, read-only: {other:?}"),
        }
    }
    let (_copy, path) = fixture.copy();
    damage_value(&path, "meta", Some(b"manifest"), |manifest| {
        manifest.truncate(manifest.len() / 2);
    });
    assert!(matches!(
        Db::open(&path),
        Err(Error::Corrupt { what, .. }) if what == "manifest"
    ));
}

#[test]
fn damaged_directories_and_ids_are_named() {
    let fixture = fixture();
    let (_copy, path) = fixture.copy();
    damage_value(&path, "meta", Some(b"dir/002"), |directory| {
        directory.truncate(directory.len() - 3);
    });
    match Db::open(&path) {
        Err(Error::Corrupt { what, .. }) => assert!(what.contains("table 2"), "{what}"),
        other => panic!("{other:?}"),
    }
    let (_copy, path) = fixture.copy();
    damage_value(&path, "id_fp", None, |fingerprint| fingerprint.push(0));
    let reported = exercise(&path, &fixture.model);
    assert_named(&reported, &["id "], "an id's fingerprint of 9 bytes");
}
