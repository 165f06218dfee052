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

/// Inserts documents with 1000-byte ids into `db` until its writer has
/// filled logs past its 8 MiB cap several times, then flushes: the
/// writer's next log is written over an old one (RocksDB's reused logs).
/// Returns what it inserted.
pub fn fill_logs_for_reuse(db: &Db) -> Model {
    let mut written = Model::new();
    for round in 0..8u64 {
        let documents: Vec<(String, Fingerprint)> = (0..1_500u64)
            .map(|i| {
                let n = round * 1_500 + i;
                (
                    format!("{n:01000}"),
                    Fingerprint(n.wrapping_mul(0x9e37_79b9)),
                )
            })
            .collect();
        db.insert_batch(&documents).unwrap();
        written.extend(documents);
    }
    db.flush().unwrap();
    written
}

/// The newest write-ahead log file of the database in `path`, and its
/// length: a reused log keeps the length of the log it held before.
pub fn newest_log(path: &Path) -> (PathBuf, u64) {
    let newest = std::fs::read_dir(path)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|file| file.extension().is_some_and(|ext| ext == "log"))
        .max()
        .unwrap();
    let length = std::fs::metadata(&newest).unwrap().len();
    (newest, length)
}

/// Bulk-loads `documents` into `db` (default [`BulkOptions`]).
pub fn bulk_load<S: AsRef<str>>(
    db: &mut Db,
    documents: impl IntoIterator<Item = (S, Fingerprint)>,
) -> BulkSummary {
    bulk_load_within(db, documents, BulkOptions::default().memory_bytes)
}

/// Bulk-loads `documents` into `db` within `memory_bytes`.
pub fn bulk_load_within<S: AsRef<str>>(
    db: &mut Db,
    documents: impl IntoIterator<Item = (S, Fingerprint)>,
    memory_bytes: usize,
) -> BulkSummary {
    let options = BulkOptions::default().memory_bytes(memory_bytes);
    let mut loader = db.bulk_loader(options).unwrap();
    loader.add_all(documents).unwrap();
    loader.finish().unwrap()
}

/// Every column family of the closed database in `path`, opened through
/// RocksDB itself: to read or damage what fpdb wrote, below fpdb's own
/// checks (RocksDB's checksums stay valid for what is written through it).
pub fn open_raw(path: &Path) -> rocksdb::DB {
    let names = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).unwrap();
    rocksdb::DB::open_cf(&rocksdb::Options::default(), path, names).unwrap()
}

/// [`open_raw`], read-only: the files stay exactly as they are.
pub fn open_raw_read_only(path: &Path) -> rocksdb::DB {
    let names = rocksdb::DB::list_cf(&rocksdb::Options::default(), path).unwrap();
    rocksdb::DB::open_cf_for_read_only(&rocksdb::Options::default(), path, names, false).unwrap()
}

/// The key of each block of table `index` in its column family
/// (`table-NNN`), in order: each block's last fingerprint, big-endian, as
/// the table's directory in `meta` (`dir/NNN`) lists them.
pub fn block_keys(rocks: &rocksdb::DB, index: usize) -> Vec<[u8; 8]> {
    let meta = rocks.cf_handle("meta").unwrap();
    let bytes = rocks
        .get_cf(meta, format!("dir/{index:03}"))
        .unwrap()
        .unwrap();
    fpdb_codec::BlockDirectory::from_bytes(&bytes)
        .unwrap()
        .last_keys()
        .iter()
        .map(|key| key.to_be_bytes())
        .collect()
}

/// (column family, file name) of every live SST file of the closed
/// database in `path`, as RocksDB lists them.
pub fn live_files(path: &Path) -> Vec<(String, String)> {
    open_raw_read_only(path)
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
    crate::flip_64_bytes_in_the_middle(&path.join(file));
}
