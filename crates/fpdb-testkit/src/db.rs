//! The helpers that need a database (the `db` feature): the brute-force
//! answer, the checks that a database equals its model, and temporary
//! databases.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fpdb::{BulkOptions, BulkSummary, Db, DesignChoice, Fingerprint, Match, Options};
use tempfile::TempDir;

use crate::{ids_by_fingerprint, Model, Rng};

/// Every (id, fingerprint) the database holds.
pub fn export(db: &Db) -> Model {
    db.export().unwrap().map(Result::unwrap).collect()
}

/// The answer a correct database gives: a brute-force scan of the model
/// (as [`ids_by_fingerprint`] gives it): every stored fingerprint within
/// `k`, nearest first, with its ids in byte order.
pub fn brute_force(
    by_fp: &BTreeMap<Fingerprint, Vec<String>>,
    fp: Fingerprint,
    k: u32,
) -> Vec<Match> {
    let mut matches: Vec<Match> = by_fp
        .iter()
        .filter_map(|(&stored, ids)| {
            let distance = stored.distance(fp);
            (distance <= k).then(|| Match {
                fingerprint: stored,
                distance,
                ids: ids.clone(),
            })
        })
        .collect();
    matches.sort_by_key(|m| (m.distance, m.fingerprint));
    matches
}

/// Asserts that `db` holds exactly `model`: its export, its counters, and
/// the answers to queries at every stored fingerprint (up to `probes` of
/// them, plus as many random neighbours) at distance 0, at the database's
/// k and four bits past it, compared with a brute-force scan.
pub fn assert_equals_model(db: &Db, model: &Model, probes: usize, rng: &mut Rng) {
    assert_verifies(db);
    assert_eq!(&export(db), model, "export differs from the model");
    let stats = db.stats();
    let by_fp = ids_by_fingerprint(model);
    assert_eq!(stats.ids, model.len() as u64, "id counter");
    assert_eq!(
        stats.fingerprints,
        by_fp.len() as u64,
        "fingerprint counter"
    );
    let mut queries: Vec<Fingerprint> = by_fp.keys().copied().take(probes).collect();
    let stored = queries.clone();
    for fp in stored {
        queries.push(rng.near(fp, u64::from(db.k()) + 5));
    }
    queries.push(Fingerprint(rng.next_u64()));
    for fp in queries {
        for k in [0, db.k(), db.k() + 4] {
            assert_eq!(
                db.query(fp, k).unwrap(),
                brute_force(&by_fp, fp, k),
                "query {fp} at k = {k}"
            );
        }
    }
}

/// Asserts that `Db::verify` finds nothing wrong.
pub fn assert_verifies(db: &Db) {
    let report = db.verify().unwrap();
    assert!(
        report.is_clean(),
        "verify found problems: {}",
        report
            .problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    );
}

/// Options for small test databases: k = 3, the 4x16 design, 512-byte
/// blocks (many blocks, so merges and scans cross block boundaries).
pub fn small_options() -> Options {
    Options::default()
        .k(3)
        .expected_size(100_000)
        .design(DesignChoice::Named("4x16".into()))
        .block_bytes(512)
}

/// A new database created with `options` at `db` in a fresh temporary
/// directory (removed when the `TempDir` is dropped; drop the `Db` first).
pub fn create_temp_db(options: Options) -> (TempDir, PathBuf, Db) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::create(&path, options).unwrap();
    (dir, path, db)
}

/// Bulk-loads `documents` into `db` (default [`BulkOptions`]).
pub fn bulk_load(
    db: &mut Db,
    documents: impl IntoIterator<Item = (String, Fingerprint)>,
) -> BulkSummary {
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    loader.add_all(documents).unwrap();
    loader.finish().unwrap()
}

/// (column family, file name) of every live SST file of the closed
/// database in `path`, as RocksDB lists them.
pub fn live_files(path: &Path) -> Vec<(String, String)> {
    let names = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).unwrap();
    let rocks =
        rocksdb::DB::open_cf_for_read_only(&rocksdb::Options::default(), path, names, false)
            .unwrap();
    rocks
        .live_files()
        .unwrap()
        .into_iter()
        .map(|f| {
            (
                f.column_family_name,
                f.name.trim_start_matches('/').to_string(),
            )
        })
        .collect()
}

/// Flips 64 bytes in the middle of a table's SST file of the closed
/// database in `path`: damage a repair rebuilds from the id map.
pub fn damage_a_table_file(path: &Path) {
    let (_, file) = live_files(path)
        .into_iter()
        .find(|(family, _)| family.starts_with("table-"))
        .expect("a table file");
    let file = path.join(file);
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    for byte in &mut bytes[middle..middle + 64] {
        *byte ^= 0xff;
    }
    std::fs::write(&file, bytes).unwrap();
}
