//! Read-only handles: RocksDB's read-only mode when no writer is live,
//! else secondary instances, each with a private directory in the
//! system's temporary directory. A reader killed before it could remove
//! its directory leaves it behind; the next reader that opens removes
//! such orphans (each directory holds a lock file its owner keeps locked
//! while it lives).

use std::fs::File;
use std::path::Path;

use rocksdb::DB;

use super::db_files::{manifest_state, ManifestState};
use super::error::{io, storage};
use super::families::{db_options, reader_descriptors};
use super::lock::writer_is_live;
use super::wal::copy_live_logs;
use crate::error::{Error, Result};

/// A live writer's logs holding up to this many bytes of records are
/// replayed by a reader that opens (so it sees every acknowledged write);
/// longer ones are skipped.
const REPLAYED_LOG_LIMIT: u64 = 1 << 20;

/// What a reader's private directory is named after, in the temporary
/// directory.
const DIR_PREFIX: &str = "fpdb-reader-";

/// The lock file inside it, locked by its owner for its whole life.
const OWNER_LOCK: &str = "owner.lock";

/// A reader's private directory: removed when dropped; its lock released
/// when the process ends however it ends.
#[derive(Debug)]
pub(crate) struct ReaderDir {
    dir: tempfile::TempDir,
    _owner: File,
}

impl ReaderDir {
    /// Creates the directory and locks its lock file before the file is
    /// visible under its name (created under another name, locked, then
    /// renamed), so a sweeping reader never takes a starting one for an
    /// orphan.
    fn create() -> Result<ReaderDir> {
        let temp = std::env::temp_dir();
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            .tempdir()
            .map_err(io(&temp))?;
        let staged = dir.path().join("owner.lock.new");
        let owner = File::create(&staged).map_err(io(&staged))?;
        owner.try_lock().map_err(|error| Error::Io {
            path: staged.clone(),
            source: error.into(),
        })?;
        std::fs::rename(&staged, dir.path().join(OWNER_LOCK)).map_err(io(&staged))?;
        Ok(ReaderDir { dir, _owner: owner })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Removes the directories of readers that died without removing them:
/// those whose lock file can be locked. Best effort: a directory that
/// cannot be read or removed is left.
fn remove_orphaned_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(DIR_PREFIX) {
            continue;
        }
        let dir = entry.path();
        let Ok(lock) = File::open(dir.join(OWNER_LOCK)) else {
            continue;
        };
        if lock.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Opens a read-only handle. With no live writer, in RocksDB's read-only
/// mode, which opens every file the database lists and fails on one it
/// cannot read, as a writable open does. Beside a live writer, as a
/// RocksDB secondary instance ([`open_following`]): read-only mode lists
/// the writer's write-ahead logs and then fails when the writer deletes
/// one in between ("No such file or directory: while stat a file for
/// size: …log"). Either sees the database as of its open.
pub(super) fn open_reader(
    path: &Path,
    families: &[String],
    replay_log: bool,
) -> Result<(DB, Option<ReaderDir>)> {
    if !writer_is_live(path)? {
        let mut options = db_options();
        options.set_max_open_files(-1);
        match DB::open_cf_descriptors_read_only(&options, path, reader_descriptors(families), false)
        {
            Ok(db) => return Ok((db, None)),
            // A writer that started meanwhile deleted a log: follow it.
            Err(error) if error.kind() == rocksdb::ErrorKind::IOError && writer_is_live(path)? => {}
            Err(error) => {
                return Err(storage(|| {
                    format!("opening {} for reading", path.display())
                })(error))
            }
        }
    }
    let (db, dir) = open_following(path, families, !replay_log)?;
    Ok((db, Some(dir)))
}

/// Opens a RocksDB secondary instance, made to follow a live primary.
/// With `skip_long_log`, it skips a live writer's log longer than
/// [`REPLAYED_LOG_LIMIT`] and sees the writer's last flush.
///
/// A secondary instance tolerates table files it cannot read or find: it
/// falls back, family by family, to the last state whose files it can
/// read. Beside a live writer, whose own open read every file, that is
/// what lets it race the writer's deletions; for a damaged database it is
/// how a salvage reads whatever is left ([`super::Salvage`]).
pub(super) fn open_following(
    path: &Path,
    families: &[String],
    skip_long_log: bool,
) -> Result<(DB, ReaderDir)> {
    remove_orphaned_dirs();
    let dir = ReaderDir::create()?;
    let mut options = db_options();
    // Secondary instances must keep every table file open.
    options.set_max_open_files(-1);
    // The logs a secondary instance replays are copies in its own
    // directory, each cut where its records end, made once it has read
    // the MANIFEST (`replay_live_logs`): RocksDB's reader of them loops
    // forever on a reused log's older records (a writer writes new logs
    // over old ones, `WRITER_RECYCLED_LOGS`).
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).map_err(io(&logs))?;
    options.set_wal_dir(&logs);
    let limit = (skip_long_log && writer_is_live(path)?).then_some(REPLAYED_LOG_LIMIT);
    // The open reads the writer's MANIFEST, then opens every file it
    // lists; a compaction finishing in between deletes some ("No such file
    // or directory"). Each attempt reads the MANIFEST afresh.
    let (db, before) = retry_races(
        path,
        || format!("opening {} for reading", path.display()),
        || {
            let before = manifest_state(path).ok();
            DB::open_cf_descriptors_as_secondary(
                &options,
                path,
                dir.path(),
                reader_descriptors(families),
            )
            .map(|db| (db, before))
        },
    )?;
    replay_live_logs(&db, path, &logs, limit)?;
    catch_up(&db, path, before)?;
    Ok((db, dir))
}

/// `step` (an open or a catch-up of a secondary instance beside the
/// writer at `path`), retried while it fails with an I/O error and the
/// writer is live: it lost a race with the writer deleting files. Up to
/// [`OPEN_RETRIES`] times, waiting 1, 2, … ms in between; `what` names
/// the step in the error that ends it.
fn retry_races<T>(
    path: &Path,
    what: impl Fn() -> String,
    mut step: impl FnMut() -> std::result::Result<T, rocksdb::Error>,
) -> Result<T> {
    let mut attempt = 0;
    loop {
        match step() {
            Ok(done) => return Ok(done),
            Err(error)
                if error.kind() == rocksdb::ErrorKind::IOError
                    && attempt < OPEN_RETRIES
                    && writer_is_live(path)? =>
            {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(attempt.into()));
            }
            Err(error) => return Err(storage(&what)(error)),
        }
    }
}

/// Copies the logs the secondary instance `db` needs into its log
/// directory `logs` and replays them: those from the oldest log its
/// MANIFEST still needs (the writer keeps a flushed one to reuse, and
/// counting its records would skip every replay). With `limit`, logs
/// holding more bytes of records are skipped: the reader sees the
/// writer's last flush. Replaying a log that is being written cost
/// seconds and hundreds of MB per open; the writer flushes every family
/// at once (atomic flush), so that state is consistent, and at least
/// every WRITER_WAL_LIMIT bytes of log, so it is never far behind.
fn replay_live_logs(db: &DB, path: &Path, logs: &Path, limit: Option<u64>) -> Result<()> {
    let first = db
        .property_int_value("rocksdb.min-log-number-to-keep")
        .map_err(storage(|| format!("reading {}", path.display())))?
        .unwrap_or(0);
    if copy_live_logs(path, logs, first, limit)? {
        try_catch_up(db, path)?;
    }
    Ok(())
}

/// One catch-up of the secondary instance `db` with the writer at `path`,
/// retried as an open is when it loses a race with the writer: a
/// compaction can delete a file the MANIFEST's newest edits list before
/// the catch-up opens it ("No such file or directory: While open a file
/// for random read"). Each attempt reads the MANIFEST's edits afresh.
fn try_catch_up(db: &DB, path: &Path) -> Result<()> {
    retry_races(
        path,
        || format!("following {}", path.display()),
        || db.try_catch_up_with_primary(),
    )
}

/// Brings a secondary instance opened while the MANIFEST was `before` up
/// to the latest state. An open (or a catch-up) that races a compaction's
/// deletions can fall back silently to the last state whose files it can
/// still read, once an empty one. The writer deletes a file only after
/// its MANIFEST says so, so a catch-up during which the MANIFEST stood
/// still reached the latest state (the files of the state it had are held
/// open). No state is read when CURRENT cannot be (a damaged database's
/// salvage): nothing changes there.
fn catch_up(db: &DB, path: &Path, before: Option<ManifestState>) -> Result<()> {
    let Some(mut state) = before else {
        return Ok(());
    };
    for _ in 0..CATCH_UPS {
        // A MANIFEST replaced meanwhile may be gone: a change too.
        let now = manifest_state(path).ok();
        if now.as_ref() == Some(&state) {
            return Ok(());
        }
        try_catch_up(db, path)?;
        if let Some(now) = now {
            state = now;
        }
    }
    Err(Error::Storage {
        what: format!("opening {} for reading", path.display()),
        message: format!("the writer changed its MANIFEST during each of {CATCH_UPS} catch-ups"),
    })
}

/// How many times a reader catches up with a writer whose MANIFEST changed
/// meanwhile before it gives up.
const CATCH_UPS: u32 = 100;

/// How many times a reader retries an open (or a catch-up) that lost a
/// race with the writer deleting files, waiting 1, 2, … ms in between.
const OPEN_RETRIES: u8 = 20;
