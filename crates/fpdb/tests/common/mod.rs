//! Helpers shared by the reliability tests: a seeded generator, a
//! brute-force model of the database and the check that a database equals
//! it.
#![allow(dead_code, reason = "each test crate uses part of the shared helpers")]

use std::collections::BTreeMap;

use fpdb::{Db, DesignChoice, Fingerprint, Match, Options};

/// What a database should hold: document id → fingerprint.
pub type Model = BTreeMap<String, Fingerprint>;

/// SplitMix64: small, seedable, good enough to pick operations.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// `fp` with up to `max_bits` random bits flipped.
    pub fn near(&mut self, fp: Fingerprint, max_bits: u64) -> Fingerprint {
        let mut out = fp.0;
        for _ in 0..self.below(max_bits + 1) {
            out ^= 1 << self.below(64);
        }
        Fingerprint(out)
    }
}

/// Every (id, fingerprint) the database holds.
pub fn export(db: &Db) -> Model {
    db.export().unwrap().map(Result::unwrap).collect()
}

/// The ids of each fingerprint of `model`, in byte order.
pub fn ids_by_fingerprint(model: &Model) -> BTreeMap<Fingerprint, Vec<String>> {
    let mut by_fp: BTreeMap<Fingerprint, Vec<String>> = BTreeMap::new();
    for (id, fp) in model {
        by_fp.entry(*fp).or_default().push(id.clone());
    }
    by_fp
}

/// The answer a correct database gives: a brute-force scan of the model
/// (as [`ids_by_fingerprint`] gives it).
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
/// them, plus as many random neighbours) at distance 0 and at the
/// database's k, compared with a brute-force scan.
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
        queries.push(rng.near(fp, u64::from(db.k()) + 1));
    }
    queries.push(Fingerprint(rng.next_u64()));
    for fp in queries {
        for k in [0, db.k()] {
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

/// Copies the flat directory `from` (a RocksDB database) to `to`.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A copy of the closed database in `path`, in a new temporary directory
/// (kept while the `TempDir` lives).
pub fn temp_copy(path: &std::path::Path) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("db");
    copy_dir(path, &copy);
    (dir, copy)
}

/// `count` documents whose fingerprints cluster around 64 centres, some
/// sharing a fingerprint.
pub fn clustered_documents(rng: &mut Rng, count: usize) -> Vec<(String, Fingerprint)> {
    let centres: Vec<Fingerprint> = (0..64).map(|_| Fingerprint(rng.next_u64())).collect();
    (0..count)
        .map(|i| {
            let centre = centres[rng.below(centres.len() as u64) as usize];
            let fp = if rng.chance(30) {
                centre
            } else {
                rng.near(centre, 4)
            };
            (format!("doc-{i}"), fp)
        })
        .collect()
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

/// (column family, file name) of every live SST file of the closed
/// database in `path`, as RocksDB lists them.
pub fn live_files(path: &std::path::Path) -> Vec<(String, String)> {
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

/// The number in environment variable `name`, else `default` (knobs that
/// `make soak` turns up).
pub fn env_rounds(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}
