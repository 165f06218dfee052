//! Long operations tell a `Progress` how far they are: each phase's steps
//! add up to the total it announced, on a database whose counters are
//! right.

use std::sync::Mutex;

use fpdb::{Db, Fingerprint, Options, Progress};

/// Every phase with its announced total and the steps told for it.
#[derive(Default)]
struct Recorded(Mutex<Vec<(String, Option<u64>, u64)>>);

impl Progress for Recorded {
    fn phase(&self, name: &str, total: Option<u64>) {
        self.0.lock().unwrap().push((name.to_string(), total, 0));
    }

    fn advance(&self, steps: u64) {
        let mut phases = self.0.lock().unwrap();
        phases.last_mut().expect("a step before any phase").2 += steps;
    }
}

impl Recorded {
    fn phases(&self) -> Vec<(String, Option<u64>, u64)> {
        self.0.lock().unwrap().clone()
    }
}

/// A merged database of 20,000 ids over several blocks per table, with a
/// pending change on top.
fn populated() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::create(&path, Options::default().block_bytes(256)).unwrap();
    let documents = fpdb_testkit::spread_documents("doc-", 20_000);
    db.insert_batch(&documents).unwrap();
    db.merge().unwrap();
    db.insert("late", Fingerprint(42)).unwrap();
    drop(db);
    (dir, path)
}

#[test]
fn verify_counts_every_block_and_every_id_entry() {
    let (_dir, path) = populated();
    let db = Db::open(&path).unwrap();
    let blocks: u64 = db.stats().tables.iter().map(|t| t.blocks as u64).sum();
    assert!(blocks > 100, "{blocks} blocks");
    let recorded = Recorded::default();
    let report = db.verify_with_progress(&recorded).unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    assert_eq!(report.blocks, blocks);
    assert_eq!(
        recorded.phases(),
        [
            ("blocks".to_string(), Some(blocks), blocks),
            ("ids".to_string(), Some(2 * 20_001), 2 * 20_001),
        ]
    );
    drop(db);
    let at_path = Recorded::default();
    Db::verify_at_with_progress(&path, &at_path).unwrap();
    assert_eq!(at_path.phases(), recorded.phases());
}

#[test]
fn near_pairs_counts_every_block_then_finds_the_ids() {
    let (_dir, path) = populated();
    let db = Db::open(&path).unwrap();
    let blocks: u64 = db.stats().tables.iter().map(|t| t.blocks as u64).sum();
    let recorded = Recorded::default();
    let pairs = db.near_pairs_with_progress(3, &recorded).unwrap();
    assert_eq!(pairs, db.near_pairs(3).unwrap());
    assert_eq!(
        recorded.phases(),
        [
            ("blocks".to_string(), Some(blocks), blocks),
            ("ids of the pairs".to_string(), None, 0),
        ]
    );
}

#[test]
fn repair_of_a_healthy_database_only_checks() {
    let (_dir, path) = populated();
    let recorded = Recorded::default();
    let report = Db::repair_with_progress(&path, &recorded).unwrap();
    assert!(report.damage.is_empty());
    let names: Vec<String> = recorded.phases().into_iter().map(|p| p.0).collect();
    assert_eq!(names, ["blocks", "ids"]);
}

#[test]
fn backup_says_it_copies_and_checks_a_read_only_copy() {
    let (dir, path) = populated();
    let db = Db::open(&path).unwrap();
    let recorded = Recorded::default();
    db.backup_with_progress(dir.path().join("checkpoint"), &recorded)
        .unwrap();
    assert_eq!(recorded.phases(), [("copying".to_string(), None, 0)]);
    drop(db);
    // A read-only handle's copy is written anew and checked before it is
    // put in place.
    let reader = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    let recorded = Recorded::default();
    reader
        .backup_with_progress(dir.path().join("copy"), &recorded)
        .unwrap();
    let phases = recorded.phases();
    let names: Vec<&str> = phases.iter().map(|phase| phase.0.as_str()).collect();
    assert_eq!(names, ["copying", "blocks", "ids"]);
    assert_eq!(phases[2], ("ids".to_string(), Some(2 * 20_001), 2 * 20_001));
}
