//! Repair and verify by path, for each kind of damage to a database of
//! 100,000 documents: `Db::verify_at` names the damage, also when the
//! database does not open; `Db::repair` rebuilds it from the copies that
//! survived, after which it verifies clean and equals the model (queries
//! compared with brute force); what could not be restored is reported. A
//! repair killed at any moment leaves the damaged or the repaired
//! database, and the next repair finishes the job
//! (`FPDB_REPAIR_KILL_ROUNDS` kills, default 8).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fpdb::{Db, Error, Fingerprint, VerifyReport};
use fpdb_testkit::{assert_equals_model, export, Model, Rng};

use crate::common::Fixture;

const CHILD_DB: &str = "FPDB_REPAIR_CHILD_DB";

/// A database of 100,000 documents made the way crawlers make them: a bulk
/// load, online inserts merged into the blocks, more still in the delta,
/// removals.
fn fixture() -> Fixture {
    let options = fpdb_testkit::small_options();
    let mut rng = Rng::new(23);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 100_000);
    let (dir, path, mut db) = fpdb_testkit::create_temp_db(options);
    fpdb_testkit::bulk_load(&mut db, documents[..90_000].iter().cloned());
    db.insert_batch(&documents[90_000..98_000]).unwrap();
    db.merge().unwrap();
    db.insert_batch(&documents[98_000..]).unwrap();
    let mut model: Model = documents.iter().cloned().collect();
    for (id, _) in documents.iter().step_by(101) {
        db.remove(id).unwrap();
        model.remove(id);
    }
    db.flush().unwrap();
    Fixture::closed(dir, path, db, model)
}

impl Fixture {
    /// The largest live file of column family `cf`.
    fn file_of(&self, cf: &str) -> String {
        self.files
            .iter()
            .filter(|(family, _)| family == cf)
            .map(|(_, file)| file.clone())
            .max_by_key(|file| std::fs::metadata(self.path.join(file)).unwrap().len())
            .unwrap_or_else(|| panic!("no file of {cf}: {:?}", self.files))
    }

    /// The newest live file of column family `cf`.
    fn newest_file_of(&self, cf: &str) -> String {
        self.files
            .iter()
            .filter(|(family, _)| family == cf)
            .map(|(_, file)| file.clone())
            .max()
            .unwrap_or_else(|| panic!("no file of {cf}: {:?}", self.files))
    }
}

/// Flips 64 bytes in the middle of `file`: a data block's checksum fails.
fn flip_middle(file: &Path) {
    flip(file, 64);
}

/// Flips `count` bytes from the middle of `file`.
fn flip(file: &Path, count: usize) {
    let mut bytes = std::fs::read(file).unwrap();
    let middle = bytes.len() / 2;
    for byte in &mut bytes[middle..middle + count] {
        *byte ^= 0xff;
    }
    std::fs::write(file, bytes).unwrap();
}

fn report_text(report: &VerifyReport) -> String {
    report
        .problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts that verify names `expected` in the damaged database, repair
/// restores every document, and the result verifies clean and equals the
/// model; returns the repair's report.
fn assert_repaired(
    fixture: &Fixture,
    damage: impl Fn(&Path),
    expected: &str,
) -> fpdb::RepairReport {
    let (_dir, path) = fixture.copy();
    damage(&path);
    let before = Db::verify_at(&path).unwrap();
    assert!(!before.is_clean(), "{expected}: not noticed");
    let text = report_text(&before);
    assert!(text.contains(expected), "{expected} not named in:\n{text}");
    let report = Db::repair(&path).unwrap();
    assert!(!report.damage.is_empty());
    assert!(
        report.lost_fingerprints.is_empty(),
        "{expected}: {report:?}"
    );
    assert_eq!(report.documents, fixture.model.len() as u64);
    assert!(report.damaged_copy.as_ref().unwrap().exists());
    assert!(Db::verify_at(&path).unwrap().is_clean());
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &fixture.model, 3_000, &mut Rng::new(3));
    report
}

#[test]
fn each_kind_of_damage_is_named_then_repaired_from_the_other_copies() {
    let fixture = fixture();
    let sst = |cf: &'static str| {
        let file = fixture.file_of(cf);
        (file.clone(), move |path: &Path| {
            flip_middle(&path.join(&file))
        })
    };
    // A table's file: the table is rebuilt from the ids.
    let (file, damage) = sst("table-002");
    assert_repaired(&fixture, damage, &file);
    // One half of the id map: restored from the other half.
    let (file, damage) = sst("id_fp");
    let report = assert_repaired(&fixture, damage, &file);
    assert!(report.restored_from_fp_ids > 0, "{report:?}");
    let (file, damage) = sst("fp_ids");
    let report = assert_repaired(&fixture, damage, &file);
    assert!(report.restored_from_id_fp > 0, "{report:?}");
    // RocksDB's CURRENT (garbage, or gone) and OPTIONS files.
    assert_repaired(
        &fixture,
        |path| std::fs::write(path.join("CURRENT"), "garbage\n").unwrap(),
        "CURRENT",
    );
    assert_repaired(
        &fixture,
        |path| std::fs::remove_file(path.join("CURRENT")).unwrap(),
        "CURRENT",
    );
    assert_repaired(
        &fixture,
        |path| {
            let options = std::fs::read_dir(path)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|file| file.to_string_lossy().contains("OPTIONS-"))
                .max()
                .unwrap();
            std::fs::write(options, "[Version]\ngarbage\n").unwrap();
        },
        "OPTIONS",
    );
}

#[test]
fn ids_lost_from_both_halves_of_the_id_map_are_reported_and_the_rest_restored() {
    let fixture = fixture();
    let (_dir, path) = fixture.copy();
    // 64 KiB of each: some documents lose both their entries.
    flip(&path.join(fixture.file_of("id_fp")), 64 << 10);
    flip(&path.join(fixture.file_of("fp_ids")), 64 << 10);
    let report = Db::repair(&path).unwrap();
    assert!(report.unreadable.len() >= 2, "{report:?}");
    assert!(!report.lost_fingerprints.is_empty(), "{report:?}");
    let db = Db::open(&path).unwrap();
    let restored = export(&db);
    assert!(restored.len() < fixture.model.len());
    // Everything restored is right, and every fingerprint of the model is
    // either still there or reported lost.
    for (id, fp) in &restored {
        assert_eq!(fixture.model.get(id), Some(fp), "id {id}");
    }
    let kept: std::collections::BTreeSet<Fingerprint> = restored.values().copied().collect();
    for fp in fixture.model.values() {
        assert!(
            kept.contains(fp) || report.lost_fingerprints.contains(fp),
            "fingerprint {fp} neither kept nor reported lost"
        );
    }
    assert_equals_model(&db, &restored, 2_000, &mut Rng::new(4));
}

#[test]
fn a_read_only_handle_refuses_a_database_it_cannot_read_whole() {
    // A RocksDB secondary instance would open these, reading an earlier
    // state without a word; with no writer live, readers open strictly.
    let fixture = fixture();
    let (_dir, path) = fixture.copy();
    let file = path.join(fixture.file_of("fp_ids"));
    let mut bytes = std::fs::read(&file).unwrap();
    let end = bytes.len();
    for byte in &mut bytes[end - 200..end - 136] {
        *byte ^= 0xff;
    }
    std::fs::write(&file, bytes).unwrap();
    let reader = fpdb::OpenOptions::new().read_only(true).open(&path);
    assert!(matches!(reader, Err(Error::Corrupt { .. })), "{reader:?}");
    let (_dir, path) = fixture.copy();
    std::fs::remove_file(path.join(fixture.file_of("id_fp"))).unwrap();
    let reader = fpdb::OpenOptions::new().read_only(true).open(&path);
    assert!(reader.is_err(), "{reader:?}");
}

#[test]
fn a_torn_log_tail_is_named_and_repair_keeps_the_writes_before_it() {
    let fixture = fixture();
    let (_live, live_path) = fixture.copy();
    let db = Db::open(&live_path).unwrap();
    let mut model = fixture.model.clone();
    let mut before_last = model.clone();
    for batch in 0..10u64 {
        before_last = model.clone();
        let documents: Vec<(String, Fingerprint)> = (0..100)
            .map(|i| {
                (
                    format!("late-{batch}-{i}"),
                    Fingerprint(batch * 1_000_003 + i),
                )
            })
            .collect();
        db.insert_batch(&documents).unwrap();
        model.extend(documents);
    }
    // What a crash leaves: the log holds the writes; nothing is flushed.
    let (_dir, path) = fpdb_testkit::temp_copy(&live_path);
    std::mem::forget(db);
    let log = std::fs::read_dir(&path)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|file| file.extension().is_some_and(|ext| ext == "log"))
        .max_by_key(|file| std::fs::metadata(file).unwrap().len())
        .unwrap();
    let length = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(length - 10)
        .unwrap();
    let before = report_text(&Db::verify_at(&path).unwrap());
    assert!(before.contains("write-ahead log"), "{before}");
    let report = Db::repair(&path).unwrap();
    assert!(!report.damage.is_empty());
    assert!(Db::verify_at(&path).unwrap().is_clean());
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &before_last, 2_000, &mut Rng::new(6));
}

#[test]
fn a_reused_log_ending_in_an_older_logs_bytes_verifies_clean_after_a_crash() {
    let (_live, live_path, db) = fpdb_testkit::create_temp_db(fpdb_testkit::small_options());
    // The writer's background work done (so that the copy below is what a
    // kill would leave), its new log begun over an old one, and a short
    // write in it: the newest log is mostly the old log's bytes.
    let mut model = fpdb_testkit::fill_logs_for_reuse(&db);
    db.insert("last", Fingerprint(5)).unwrap();
    model.insert("last".into(), Fingerprint(5));
    let (_dir, path) = fpdb_testkit::temp_copy(&live_path);
    std::mem::forget(db);
    let (_, length) = fpdb_testkit::newest_log(&path);
    assert!(length > 1 << 20, "the newest log was not a reused one");
    let report = Db::verify_at(&path).unwrap();
    assert!(report.is_clean(), "{}", report_text(&report));
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 200, &mut Rng::new(8));
}

#[test]
fn a_missing_file_is_named_and_restored_from_the_other_copies() {
    let fixture = fixture();
    let missing = |file: String| {
        (file.clone(), move |path: &Path| {
            std::fs::remove_file(path.join(&file)).unwrap()
        })
    };
    // A table's file: the table is rebuilt from the ids.
    let (file, damage) = missing(fixture.file_of("table-001"));
    let report = assert_repaired(&fixture, damage, &file);
    assert!(!report.partial && report.stale_entries == 0, "{report:?}");
    // The bulk load's file of each half of the id map: restored from the
    // other half.
    let (file, damage) = missing(fixture.file_of("id_fp"));
    let report = assert_repaired(&fixture, damage, &file);
    assert!(report.restored_from_fp_ids > 10_000, "{report:?}");
    assert!(report.left_out.iter().any(|left| left.contains("(id_fp)")));
    let (file, damage) = missing(fixture.file_of("fp_ids"));
    let report = assert_repaired(&fixture, damage, &file);
    assert!(report.restored_from_id_fp > 10_000, "{report:?}");
    // The newest file of id_fp holds the last inserts and the removals:
    // the bulk load's older file still holds the removed documents, and
    // only fp_ids, which lost nothing, says they are gone.
    let (file, damage) = missing(fixture.newest_file_of("id_fp"));
    let report = assert_repaired(&fixture, damage, &file);
    assert!(report.stale_entries > 0, "{report:?}");
    assert!(!report.partial, "{report:?}");
}

#[test]
fn a_damaged_manifest_of_a_bulk_loaded_database_is_repaired_from_every_file() {
    let fixture = fixture();
    let damage_manifest = |path: &Path| {
        let manifest = std::fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|file| file.to_string_lossy().contains("MANIFEST-"))
            .unwrap();
        flip_middle(&manifest);
    };
    // RocksDB's repairer rebuilds the MANIFEST but cannot place the bulk
    // load's files (they record no column family): repair places them by
    // what they hold, behind every later write.
    let report = assert_repaired(&fixture, damage_manifest, "does not open");
    let placed = report.placed_by_content.join("\n");
    assert!(
        placed.contains(": id_fp") && placed.contains(": fp_ids"),
        "{report:?}"
    );
    assert!(!report.partial && report.stale_entries == 0, "{report:?}");

    // A file whose content names no family is not guessed at: repair
    // refuses and changes nothing.
    let (_dir, path) = fixture.copy();
    damage_manifest(&path);
    let sst_options = rocksdb::Options::default();
    let mut writer = rocksdb::SstFileWriter::create(&sst_options);
    writer.open(path.join("999999.sst")).unwrap();
    writer.put(b"an id", 7u64.to_be_bytes()).unwrap();
    writer.put(b"another id", b"").unwrap();
    writer.finish().unwrap();
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&path)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|file| !file.to_string_lossy().contains("LOG"))
        .map(|file| (file.clone(), std::fs::read(&file).unwrap()))
        .collect();
    match Db::repair(&path) {
        Err(Error::Corrupt { what, reason }) => {
            assert_eq!(what, "MANIFEST");
            assert!(reason.contains("999999.sst"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    for (file, bytes) in before {
        assert_eq!(std::fs::read(&file).unwrap(), bytes, "{}", file.display());
    }
}

#[test]
fn a_healthy_database_needs_no_repair_and_a_writer_locks_repair_out() {
    let fixture = fixture();
    let (_dir, path) = fixture.copy();
    let report = Db::repair(&path).unwrap();
    assert!(report.damage.is_empty() && report.damaged_copy.is_none());
    let db = Db::open(&path).unwrap();
    flip_middle(&path.join(fixture.file_of("table-000")));
    assert!(matches!(Db::repair(&path), Err(Error::Locked { .. })));
    drop(db);
}

/// The repairing process of the test below.
#[test]
#[ignore = "the child process of a_repair_killed_at_any_point_leaves_either_database"]
fn repair_child() {
    let Ok(path) = std::env::var(CHILD_DB) else {
        return;
    };
    Db::repair(&path).unwrap();
}

#[test]
fn a_repair_killed_at_any_point_leaves_either_database() {
    let fixture = fixture();
    let table = fixture.file_of("table-003");
    let mut rng = Rng::new(31);
    let mut outcomes = [0u32; 2];
    for round in 0..fpdb_testkit::env_rounds("FPDB_REPAIR_KILL_ROUNDS", 8) {
        let (_dir, path) = fixture.copy();
        flip_middle(&path.join(&table));
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "repair::repair_child",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env(CHILD_DB, &path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let delay = Duration::from_millis(rng.below(1_500));
        let started = Instant::now();
        while started.elapsed() < delay && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill();
        child.wait().unwrap();
        // Either the damaged database or the repaired one.
        let repaired = Db::verify_at(&path).unwrap().is_clean();
        outcomes[usize::from(repaired)] += 1;
        if !repaired {
            let report = Db::repair(&path).unwrap();
            assert!(!report.damage.is_empty(), "round {round}");
        }
        let db = Db::open(&path).unwrap();
        assert_equals_model(&db, &fixture.model, 300, &mut Rng::new(round));
    }
    eprintln!(
        "killed while damaged: {}, after the switch: {}",
        outcomes[0], outcomes[1]
    );
}
