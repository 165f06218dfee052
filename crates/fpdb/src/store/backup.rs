//! Consistent copies of a database into a new directory.
//!
//! Every fpdb write is one RocksDB write batch, so any point in RocksDB's
//! sequence is a consistent fpdb state: a copy only has to be a copy of
//! one such point. A writable handle asks RocksDB for a checkpoint (its
//! files hard-linked when the destination is on the same file system,
//! the memtables flushed first); a read-only handle, which cannot stop a
//! writer in another process deleting files, links and copies the files
//! themselves while the MANIFEST stands still ([`super::live_copy`]).
//! Either
//! way the copy is built in `<dest>.tmp` and renamed into place, so a
//! process killed meanwhile leaves no half backup at `dest`.

use std::path::Path;

use rocksdb::checkpoint::Checkpoint;

use super::db_files::DbFile;
use super::error::{io, storage};
use super::live_copy::copy_live;
use super::paths::{parent_dir, sibling};
use super::Store;
use crate::error::{Error, Result};

/// How a backup was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BackupMethod {
    /// A RocksDB checkpoint of a writable handle: table files hard-linked
    /// (copied across file systems), the rest copied.
    Checkpoint,
    /// A read-only handle's copy of the database's files: table files
    /// hard-linked (copied across file systems), the rest copied.
    Copy,
}

impl Store {
    /// Writes a consistent copy of the database to `dest`, holding at
    /// least what this handle sees and every write acknowledged before
    /// the call. `dest` must not exist (its parent is created if
    /// missing). A leftover `<dest>.tmp` of an interrupted backup is
    /// removed first; anything else there is [`Error::AlreadyExists`].
    /// A read-only handle's copy is put in place only if `accept` says
    /// so of the staged copy; `None` when it does not (nothing is left).
    pub fn backup(
        &self,
        dest: &Path,
        accept: impl Fn(&Path) -> Result<bool>,
    ) -> Result<Option<BackupMethod>> {
        if dest.exists() {
            return Err(Error::AlreadyExists { path: dest.into() });
        }
        let parent = parent_dir(dest);
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        // RocksDB's checkpoints stage in the same place.
        let staging = sibling(dest, "tmp");
        remove_staging(&staging)?;
        if self.is_read_only() {
            copy_live(self.path(), &staging, self.tables)?;
            if !accept(&staging)? {
                remove_staging(&staging)?;
                return Ok(None);
            }
            sync_tree(&staging)?;
            std::fs::rename(&staging, dest).map_err(io(&staging))?;
            sync_parent(dest)?;
            Ok(Some(BackupMethod::Copy))
        } else {
            // RocksDB stages in `<dest>.tmp` too, flushes every family at
            // once (atomic flush) and renames when done.
            Checkpoint::new(self.db())
                .and_then(|checkpoint| checkpoint.create_checkpoint(dest))
                .map_err(storage(|| format!("checkpoint into {}", dest.display())))?;
            Ok(Some(BackupMethod::Checkpoint))
        }
    }
}

/// Removes a staging directory left by an interrupted backup. Only one
/// that holds nothing but a database's files is taken for such a leftover.
fn remove_staging(staging: &Path) -> Result<()> {
    let entries = match std::fs::read_dir(staging) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(_) => {
            return Err(Error::AlreadyExists {
                path: staging.into(),
            })
        }
    };
    for entry in entries {
        let entry = entry.map_err(io(staging))?;
        let name = entry.file_name();
        if !is_database_file(&name.to_string_lossy()) {
            return Err(Error::AlreadyExists {
                path: staging.into(),
            });
        }
    }
    std::fs::remove_dir_all(staging).map_err(io(staging))
}

/// The names RocksDB uses (its files, lock, info logs and temporary
/// files), and `ingest`, the scratch directory earlier versions staged
/// a read-only handle's copy in.
fn is_database_file(name: &str) -> bool {
    DbFile::of(name).is_some()
        || name == "LOCK"
        || name == "ingest"
        || name.starts_with("LOG")
        || name.ends_with(".dbtmp")
        || name.ends_with(".tmp")
}

/// fsyncs the files directly in `dir` and `dir` itself, so that the
/// rename publishes durable files.
fn sync_tree(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let path = entry.map_err(io(dir))?.path();
        if path.is_file() {
            std::fs::File::open(&path)
                .and_then(|file| file.sync_all())
                .map_err(io(&path))?;
        }
    }
    std::fs::File::open(dir)
        .and_then(|file| file.sync_all())
        .map_err(io(dir))
}

/// fsyncs the directory holding `path`, so a rename into it is durable.
fn sync_parent(path: &Path) -> Result<()> {
    let parent = parent_dir(path);
    std::fs::File::open(parent)
        .and_then(|file| file.sync_all())
        .map_err(io(parent))
}
