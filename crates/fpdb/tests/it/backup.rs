//! Backups: `Db::backup` from a writable and a read-only handle equals the
//! database; taken while a thread or another process writes, it holds
//! every write acknowledged before it began and nothing half-written (the
//! ids it holds are a prefix of the writes); a process killed at any point
//! of a backup leaves either no backup or a whole one
//! (`FPDB_BACKUP_KILL_ROUNDS` kills, default 20).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fpdb::{BackupMethod, Db, Error, Fingerprint, OpenOptions};
use fpdb_testkit::{assert_equals_model, assert_verifies, clustered_documents, export, Model, Rng};

const CHILD_DB: &str = "FPDB_BACKUP_CHILD_DB";
const CHILD_DEST: &str = "FPDB_BACKUP_CHILD_DEST";
const CHILD_READ_ONLY: &str = "FPDB_BACKUP_CHILD_READ_ONLY";

/// A database of 20,000 clustered documents, some removed, some changes
/// still in the delta; returns what it holds.
fn filled(path: &Path) -> Model {
    let mut rng = Rng::new(11);
    let documents = clustered_documents(&mut rng, 20_000);
    let db = OpenOptions::new()
        .create_new(fpdb_testkit::small_options())
        .delta_limit(4_096)
        .open(path)
        .unwrap();
    db.insert_batch(&documents[..15_000]).unwrap();
    db.merge().unwrap();
    db.insert_batch(&documents[15_000..]).unwrap();
    let removed: Vec<&str> = documents
        .iter()
        .step_by(7)
        .map(|(id, _)| id.as_str())
        .collect();
    db.remove_batch(&removed).unwrap();
    export(&db)
}

#[test]
fn a_backup_from_either_handle_equals_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let model = filled(&path);
    let mut rng = Rng::new(5);

    let db = Db::open(&path).unwrap();
    let backup = db.backup(dir.path().join("linked")).unwrap();
    assert_eq!(backup.method, BackupMethod::Checkpoint);
    assert!(backup.bytes > 0);
    drop(db);

    let reader = OpenOptions::new().read_only(true).open(&path).unwrap();
    let copied = reader.backup(dir.path().join("copied")).unwrap();
    assert_eq!(copied.method, BackupMethod::Copy);
    drop(reader);

    for name in ["linked", "copied"] {
        let path = dir.path().join(name);
        assert!(!dir.path().join(format!("{name}.tmp")).exists());
        let restored = Db::open(&path).unwrap();
        assert_equals_model(&restored, &model, 2_000, &mut rng);
        // A backup is a database of its own: it takes writes.
        restored.insert("after-restore", Fingerprint(1)).unwrap();
        assert_eq!(restored.get("after-restore").unwrap(), Some(Fingerprint(1)));
    }
    // Backing up changed nothing in the original.
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 500, &mut rng);
}

#[test]
fn a_destination_that_exists_is_refused_and_only_a_leftover_staging_dir_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let model = filled(&path);
    let db = Db::open(&path).unwrap();

    let existing = dir.path().join("existing");
    std::fs::create_dir(&existing).unwrap();
    assert!(matches!(
        db.backup(&existing),
        Err(Error::AlreadyExists { path }) if path == existing
    ));

    // A staging directory holding something that is not a database's is
    // not taken for a leftover.
    let dest = dir.path().join("b1");
    let staging = dir.path().join("b1.tmp");
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(staging.join("notes.txt"), "mine").unwrap();
    assert!(matches!(
        db.backup(&dest),
        Err(Error::AlreadyExists { path }) if path == staging
    ));
    assert_eq!(std::fs::read(staging.join("notes.txt")).unwrap(), b"mine");
    assert!(!dest.exists());

    // One that looks like an interrupted backup is.
    let dest = dir.path().join("b2");
    let staging = dir.path().join("b2.tmp");
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(staging.join("000012.sst"), "torn").unwrap();
    std::fs::write(staging.join("MANIFEST-000005"), "torn").unwrap();
    db.backup(&dest).unwrap();
    assert!(!staging.exists());
    drop(db);
    assert_eq!(export(&Db::open(&dest).unwrap()), model);
}

/// Inserts `doc-0`, `doc-1`, … one write each until told to stop,
/// counting the acknowledged ones; merges happen on the way (small
/// delta limit).
fn spawn_writer(
    db: Arc<Db>,
    acknowledged: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut i = 0u64;
        while !stop.load(Ordering::Relaxed) {
            db.insert(&format!("doc-{i}"), fpdb_testkit::spread(i))
                .unwrap();
            i += 1;
            acknowledged.store(i, Ordering::SeqCst);
        }
    })
}

/// Asserts that the database at `path` holds exactly `doc-0 … doc-(m-1)`
/// for some m ≥ `at_least`, verifies clean and answers queries like the
/// model of that prefix; returns m.
fn assert_holds_a_prefix(path: &Path, at_least: u64) -> u64 {
    let db = Db::open(path).unwrap();
    assert_verifies(&db);
    let held = export(&db);
    let m = held.len() as u64;
    assert!(
        m >= at_least,
        "the backup holds {m} writes, {at_least} were acknowledged before it began"
    );
    let prefix: Model = (0..m)
        .map(|i| (format!("doc-{i}"), fpdb_testkit::spread(i)))
        .collect();
    assert_eq!(held, prefix, "the backup is not a prefix of the writes");
    assert_equals_model(&db, &prefix, 300, &mut Rng::new(m));
    m
}

/// Takes `rounds` backups of a database that a thread keeps writing to,
/// `spacing` writes apart, each with `take(database, destination)`, and
/// checks that each holds a prefix of the writes covering every write
/// acknowledged before it began.
fn backups_beside_a_writer(rounds: u64, spacing: u64, take: impl Fn(&Db, &Path, &Path)) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Arc::new(
        OpenOptions::new()
            .create_new(fpdb_testkit::small_options())
            .delta_limit(2_000)
            .open(&path)
            .unwrap(),
    );
    let acknowledged = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = spawn_writer(db.clone(), acknowledged.clone(), stop.clone());
    let mut last = 0;
    for round in 0..rounds {
        // Let the writer get past a merge or two between backups.
        while acknowledged.load(Ordering::SeqCst) < last + spacing {
            std::thread::sleep(Duration::from_millis(2));
        }
        let before = acknowledged.load(Ordering::SeqCst);
        let dest = dir.path().join(format!("backup-{round}"));
        take(&db, &path, &dest);
        last = assert_holds_a_prefix(&dest, before);
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    drop(db);
}

#[test]
fn a_backup_taken_while_a_thread_writes_holds_every_acknowledged_write() {
    // Through the writer's own handle: a checkpoint.
    backups_beside_a_writer(4, 3_000, |db, _, dest| {
        db.backup(dest).unwrap();
    });
}

/// The other process of the tests below: backs up the database at
/// `$FPDB_BACKUP_CHILD_DB` to `$FPDB_BACKUP_CHILD_DEST`, through a
/// read-only handle that replays the writer's log when
/// `$FPDB_BACKUP_CHILD_READ_ONLY` is set.
#[test]
#[ignore = "the child process of the backup tests; does nothing alone"]
fn backup_child() {
    let (Ok(path), Ok(dest)) = (std::env::var(CHILD_DB), std::env::var(CHILD_DEST)) else {
        return;
    };
    let db = if std::env::var_os(CHILD_READ_ONLY).is_some() {
        OpenOptions::new()
            .read_only(true)
            .replay_log(true)
            .open(&path)
            .unwrap()
    } else {
        Db::open(&path).unwrap()
    };
    println!("RESULT opened");
    db.backup(&dest).unwrap();
    println!("RESULT backed up");
}

fn backup_command(path: &Path, dest: &Path, read_only: bool) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "backup::backup_child",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_DB, path)
        .env(CHILD_DEST, dest)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if read_only {
        command.env(CHILD_READ_ONLY, "1");
    }
    command
}

#[test]
fn a_backup_by_another_process_while_this_one_writes_holds_every_acknowledged_write() {
    // A read-only handle replaying the writer's log: a copy.
    backups_beside_a_writer(3, 5_000, |_, path, dest| {
        let output = backup_command(path, dest, true).output().unwrap();
        assert!(output.status.success(), "{output:?}");
    });
}

#[test]
fn a_backup_killed_at_any_point_leaves_no_backup_or_a_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let model = filled(&path);
    let mut rng = Rng::new(17);
    // Where the kills landed: before the backup began, while it was
    // staged, after it was in place.
    let mut outcomes = [0u32; 3];
    for round in 0..fpdb_testkit::env_rounds("FPDB_BACKUP_KILL_ROUNDS", 20) {
        let dest = dir.path().join(format!("backup-{round}"));
        let read_only = round % 2 == 1;
        let mut child = backup_command(&path, &dest, read_only).spawn().unwrap();
        // Kill somewhere between opening and finishing (a backup of this
        // database takes tens of milliseconds).
        let delay = Duration::from_millis(rng.below(120));
        let started = Instant::now();
        while started.elapsed() < delay && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = child.kill();
        child.wait().unwrap();
        let staged = Path::new(&format!("{}.tmp", dest.display())).exists();
        if dest.exists() {
            outcomes[2] += 1;
        } else {
            outcomes[usize::from(staged)] += 1;
            // The next backup to the same place cleans up and succeeds.
            let output = backup_command(&path, &dest, read_only).output().unwrap();
            assert!(output.status.success(), "{output:?}");
        }
        assert!(!Path::new(&format!("{}.tmp", dest.display())).exists());
        assert_eq!(export(&Db::open(&dest).unwrap()), model, "round {round}");
    }
    eprintln!(
        "kills before a backup began: {}, while staged: {}, after: {}",
        outcomes[0], outcomes[1], outcomes[2]
    );
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 500, &mut rng);
}
