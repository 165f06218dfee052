//! The files of a RocksDB database directory, and copying them: table
//! files (which RocksDB never changes once written) are hard-linked where
//! the file system allows, the files RocksDB appends to or rewrites are
//! copied.

use std::path::Path;

use super::error::io;
use crate::error::Result;

/// What a file of a database directory is to RocksDB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DbFile {
    /// A table or blob file: written once, never changed.
    Immutable,
    /// A write-ahead log, appended to while the database is open.
    Log,
    /// A MANIFEST, appended to with every flush and compaction.
    Manifest,
    /// CURRENT, IDENTITY or an OPTIONS file: small, rewritten whole.
    Small,
}

impl DbFile {
    /// What the file named `name` is, `None` for files RocksDB does not
    /// need to open the database (its info logs, fpdb's own files).
    pub(super) fn of(name: &str) -> Option<DbFile> {
        if name.ends_with(".sst") || name.ends_with(".blob") {
            Some(DbFile::Immutable)
        } else if name.ends_with(".log") {
            Some(DbFile::Log)
        } else if name.starts_with("MANIFEST-") {
            Some(DbFile::Manifest)
        } else if name == "CURRENT" || name == "IDENTITY" || name.starts_with("OPTIONS-") {
            Some(DbFile::Small)
        } else {
            None
        }
    }
}

/// Whether a copy of a file found missing counts as done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Vanished {
    /// A live writer deletes files at any time: the caller checks the
    /// copy as a whole.
    Skip,
    /// Nothing else touches the directory: a missing file is an error.
    Fail,
}

/// Links (immutable files) or copies the file `name` of `from` into `to`.
pub(super) fn link_or_copy(
    from: &Path,
    to: &Path,
    name: &str,
    kind: DbFile,
    vanished: Vanished,
) -> Result<()> {
    let source = from.join(name);
    let target = to.join(name);
    if kind == DbFile::Immutable && std::fs::hard_link(&source, &target).is_ok() {
        return Ok(());
    }
    match std::fs::copy(&source, &target) {
        Ok(_) => Ok(()),
        Err(error)
            if vanished == Vanished::Skip && error.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(())
        }
        Err(error) => Err(io(&source)(error)),
    }
}

/// The names of the files directly in `dir` that RocksDB needs, with
/// what they are.
pub(super) fn list(dir: &Path) -> Result<Vec<(String, DbFile)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(kind) = DbFile::of(&name) else {
            continue;
        };
        // A file deleted since the listing has no type: not a directory.
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        files.push((name, kind));
    }
    Ok(files)
}

/// Which MANIFEST a database's CURRENT names and how long it is: changed
/// by every flush, compaction and ingestion, and before RocksDB deletes
/// any file it no longer needs.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ManifestState {
    pub name: String,
    pub bytes: u64,
}

/// The MANIFEST state of the database in `path`.
pub(super) fn manifest_state(path: &Path) -> Result<ManifestState> {
    let current = path.join("CURRENT");
    let name = std::fs::read_to_string(&current).map_err(io(&current))?;
    let name = name.trim_end().to_owned();
    let manifest = path.join(&name);
    let bytes = std::fs::metadata(&manifest).map_err(io(&manifest))?.len();
    Ok(ManifestState { name, bytes })
}
