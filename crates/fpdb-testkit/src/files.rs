//! Temporary directories and copies of databases.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// Copies the flat directory `from` (a RocksDB database) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A copy of the closed database in `path`, in a new temporary directory
/// (kept while the `TempDir` lives).
pub fn temp_copy(path: &Path) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("db");
    copy_dir(path, &copy);
    (dir, copy)
}

/// A temporary directory in memory (`/dev/shm`) when the machine has one,
/// else an ordinary one: RocksDB syncs files on create and merge, and
/// thousands of small cases would spend their time waiting for the disk.
/// Its name starts with `prefix`.
pub fn memory_temp_dir(prefix: &str) -> TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::Builder::new().prefix(prefix).tempdir_in(shm) {
            return dir;
        }
    }
    tempfile::tempdir().unwrap()
}

/// The number in environment variable `name`, else `default` (knobs that
/// `make soak` turns up).
pub fn env_rounds(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}
