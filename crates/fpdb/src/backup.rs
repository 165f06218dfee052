//! Backups: a consistent copy of a database in a new directory, taken
//! while writers keep writing.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::inspect::verify_at;
use crate::progress::Progress;
pub use crate::store::BackupMethod;
use crate::store::{io, Store};

/// What [`crate::Db::backup`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Backup {
    /// The backup's directory.
    pub path: PathBuf,
    /// How it was made.
    pub method: BackupMethod,
    /// The size of its files (hard-linked files count in full, though
    /// they share their blocks with the database's).
    pub bytes: u64,
}

/// Backs `store` up to `dest` (see [`crate::Db::backup`]).
pub(crate) fn backup(store: &Store, dest: &Path, progress: &dyn Progress) -> Result<Backup> {
    let method = checked(store, dest, progress)?;
    Ok(Backup {
        path: dest.into(),
        method,
        bytes: directory_bytes(dest)?,
    })
}

/// Copies a read-only backup takes before it gives up.
const COPY_ATTEMPTS: u32 = 4;

/// The backup, a read-only handle's copy verified before it is put in
/// place: a copy RocksDB opens can still be one fpdb finds inconsistent
/// (a file changed under the copy in a way the copy's own checks missed),
/// and such a copy is dropped and taken again.
fn checked(store: &Store, dest: &Path, progress: &dyn Progress) -> Result<BackupMethod> {
    let accept = |staged: &Path| Ok(verify_at(staged, progress)?.is_clean());
    for _ in 0..COPY_ATTEMPTS {
        progress.phase("copying", None);
        if let Some(method) = store.backup(dest, accept)? {
            return Ok(method);
        }
    }
    Err(Error::corrupt(
        format!("the backup copy of {}", store.path().display()),
        format!(
            "{COPY_ATTEMPTS} copies of the database were inconsistent; nothing was left at {}",
            dest.display()
        ),
    ))
}

/// The size of the files directly in `dir`.
fn directory_bytes(dir: &Path) -> Result<u64> {
    let mut bytes = 0;
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let metadata = entry.map_err(io(dir))?.metadata().map_err(io(dir))?;
        if metadata.is_file() {
            bytes += metadata.len();
        }
    }
    Ok(bytes)
}
