//! Backups: a consistent copy of a database in a new directory, taken
//! while writers keep writing.

use std::path::{Path, PathBuf};

use crate::error::Result;
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
pub(crate) fn backup(store: &Store, dest: &Path) -> Result<Backup> {
    let method = store.backup(dest)?;
    Ok(Backup {
        path: dest.into(),
        method,
        bytes: directory_bytes(dest)?,
    })
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
