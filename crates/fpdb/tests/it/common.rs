//! What the modules share: a closed database to damage copies of.

use std::path::PathBuf;

use fpdb::Db;
use fpdb_testkit::Model;
use tempfile::TempDir;

/// A healthy, closed database, what it holds, and the column family of
/// each of its live files; each test damages a fresh copy.
pub struct Fixture {
    _dir: TempDir,
    pub path: PathBuf,
    pub model: Model,
    /// (column family, file name) of every live SST file.
    pub files: Vec<(String, String)>,
}

impl Fixture {
    /// Closes `db`, made at `path` inside `dir` and holding `model`, and
    /// lists its files.
    pub fn closed(dir: TempDir, path: PathBuf, db: Db, model: Model) -> Fixture {
        drop(db);
        let files = fpdb_testkit::live_files(&path);
        Fixture {
            _dir: dir,
            path,
            model,
            files,
        }
    }

    /// A fresh copy of the database to damage.
    pub fn copy(&self) -> (TempDir, PathBuf) {
        fpdb_testkit::temp_copy(&self.path)
    }
}
