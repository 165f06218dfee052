//! Consistent copies of a database into a new directory.
//!
//! Every fpdb write is one RocksDB write batch, so any point in RocksDB's
//! sequence is a consistent fpdb state: a copy only has to be a copy of
//! one such point. A writable handle asks RocksDB for a checkpoint (its
//! files hard-linked when the destination is on the same file system,
//! the memtables flushed first); a read-only handle, a secondary instance
//! that cannot stop the writer deleting files, copies its view family by
//! family into SST files and ingests them into a new database. Either
//! way the copy is built in `<dest>.tmp` and renamed into place, so a
//! process killed meanwhile leaves no half backup at `dest`.

use std::path::Path;

use rocksdb::checkpoint::Checkpoint;
use rocksdb::{IngestExternalFileOptions, DB};

use super::error::{io, storage};
use super::families::{self, family_handle};
use super::paths::{parent_dir, sibling};
use super::sst::SstFile;
use super::Store;
use crate::error::{Error, Result};

/// How a backup was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BackupMethod {
    /// A RocksDB checkpoint of a writable handle: table files hard-linked
    /// (copied across file systems), the rest copied.
    Checkpoint,
    /// A read-only handle's view, copied entry by entry into new files.
    Copy,
}

/// The scratch directory for SST files inside the staging directory.
const INGEST_DIR: &str = "ingest";

impl Store {
    /// Writes a consistent copy of what this handle sees to `dest`, which
    /// must not exist (its parent is created if missing). A leftover `<dest>.tmp` of an interrupted backup is
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
            self.copy_into(&staging)?;
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

    /// Creates a database with this one's families in `staging` and
    /// ingests a copy of every family. A secondary instance's view changes
    /// only when it is told to catch up, which fpdb never does, so the
    /// families are read at one point.
    fn copy_into(&self, staging: &Path) -> Result<()> {
        let scratch = staging.join(INGEST_DIR);
        std::fs::create_dir_all(&scratch).map_err(io(&scratch))?;
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let copy = DB::open_cf_descriptors(&options, staging, families::descriptors(self.tables))
            .map_err(storage(|| format!("creating {}", staging.display())))?;
        for family in families::all_families(self.tables) {
            let file = SstFile::new(&scratch, family, 0).write_bytes(|put| {
                for entry in self.entries(family)? {
                    let (key, value) = entry?;
                    put(&key, &value)?;
                }
                Ok(())
            })?;
            let Some(file) = file else { continue };
            let handle = family_handle(&copy, family)?;
            let mut ingest = IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            copy.ingest_external_file_cf_opts(handle, &ingest, vec![file])
                .map_err(storage(|| {
                    format!("ingesting the copy of {}", family.name())
                }))?;
        }
        drop(copy);
        std::fs::remove_dir_all(&scratch).map_err(io(&scratch))
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

/// The names RocksDB and a backup's scratch directory use.
fn is_database_file(name: &str) -> bool {
    const PREFIXES: [&str; 5] = ["MANIFEST-", "OPTIONS-", "LOG", "CURRENT", "IDENTITY"];
    const SUFFIXES: [&str; 5] = [".sst", ".log", ".blob", ".dbtmp", ".tmp"];
    name == "LOCK"
        || name == INGEST_DIR
        || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
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
