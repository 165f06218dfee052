//! A consistent copy of a database a live writer in another process keeps
//! changing, taken from its files.
//!
//! A reader cannot stop the writer deleting files, and a RocksDB secondary
//! instance that loses that race opens at an older point it can still read
//! (empty, at worst) without saying so. So the copy is taken from the
//! files themselves: table files linked (a link keeps them after the
//! writer deletes them), then the MANIFEST, CURRENT and the logs copied.
//! RocksDB deletes a table file or a log only after the MANIFEST records
//! that it is no longer needed, so if the MANIFEST is unchanged from
//! before the first link to after the last log was copied, the copy holds
//! every file that MANIFEST names and every log it still needs: every
//! write acknowledged before the copy began is in it. Otherwise (a flush
//! or compaction finished meanwhile) the copy is taken again.

use std::path::Path;
use std::time::Duration;

use rocksdb::DB;

use super::db_files::{self, manifest_state, DbFile, ManifestState, Vanished};
use super::error::{io, storage};
use super::families;
use crate::error::{Error, Result};

/// Copies taken before giving up on a writer that never pauses between
/// flushes and compactions for as long as a copy takes.
const ATTEMPTS: u32 = 50;

/// Copies the database in `path`, with `tables` tables, into `staging`
/// (created; emptied first if it exists), and opens the copy once, which
/// replays the copied logs into its own table files.
pub(super) fn copy_live(path: &Path, staging: &Path, tables: usize) -> Result<()> {
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(u64::from(attempt.min(20))));
        }
        if staging.exists() {
            std::fs::remove_dir_all(staging).map_err(io(staging))?;
        }
        std::fs::create_dir_all(staging).map_err(io(staging))?;
        // A MANIFEST replaced meanwhile may be gone: try again.
        let before = match manifest_state(path) {
            Ok(state) => state,
            Err(_) if attempt + 1 < ATTEMPTS => continue,
            Err(error) => return Err(error),
        };
        copy_files(path, staging, &before)?;
        if manifest_state(path).ok().as_ref() == Some(&before) {
            return open_once(staging, tables);
        }
    }
    Err(Error::Storage {
        what: format!("copying {}", path.display()),
        message: format!("the writer changed its MANIFEST during each of {ATTEMPTS} copies"),
    })
}

/// Links the table files, then copies the MANIFEST `state` names (and a
/// CURRENT naming it), the small files and the logs, in that order.
fn copy_files(path: &Path, staging: &Path, state: &ManifestState) -> Result<()> {
    let files = db_files::list(path)?;
    let in_order = [
        DbFile::Immutable,
        DbFile::Manifest,
        DbFile::Small,
        DbFile::Log,
    ];
    for kind in in_order {
        for (name, _) in files.iter().filter(|(_, of)| *of == kind) {
            let wanted = match kind {
                DbFile::Manifest => *name == state.name,
                // Written below, naming the MANIFEST copied.
                DbFile::Small => name != "CURRENT",
                DbFile::Immutable | DbFile::Log => true,
            };
            if wanted {
                db_files::link_or_copy(path, staging, name, kind, Vanished::Skip)?;
            }
        }
        if kind == DbFile::Manifest {
            let current = staging.join("CURRENT");
            std::fs::write(&current, format!("{}\n", state.name)).map_err(io(&current))?;
        }
    }
    Ok(())
}

/// Opens the copy as a database of its own: RocksDB replays the copied
/// logs (up to a record the writer was still writing) and fails if a file
/// the MANIFEST names is missing.
fn open_once(staging: &Path, tables: usize) -> Result<()> {
    let options = rocksdb::Options::default();
    let copy = DB::open_cf_descriptors(&options, staging, families::descriptors(tables)).map_err(
        storage(|| format!("opening the copy in {}", staging.display())),
    )?;
    drop(copy);
    Ok(())
}
