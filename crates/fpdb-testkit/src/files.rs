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

/// Replaces `golden` with a copy of the closed database in `path`, keeping
/// only what opening needs: no info logs, no lock files, no OPTIONS files
/// (fpdb passes its options on open; RocksDB writes a new one).
pub fn bless_golden_copy(path: &Path, golden: &Path) {
    let _ = std::fs::remove_dir_all(golden);
    copy_dir(path, golden);
    for entry in std::fs::read_dir(golden).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.starts_with("LOG")
            || name == "LOCK"
            || name == "fpdb.lock"
            || name.starts_with("OPTIONS-")
        {
            std::fs::remove_file(golden.join(name)).unwrap();
        }
    }
}

/// The repository's root directory. Cargo sets `CARGO_MANIFEST_DIR` to the
/// crate under test (two levels down, `crates/NAME` or `tools/NAME`) when
/// it runs a test; the compile-time value, the testkit's own directory, is
/// the fallback. The run-time one matters when a shared target directory
/// hands over a binary built in another checkout.
pub fn repo_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../..")
}

/// Flips 64 bytes in the middle of `file`: damage in the middle of what a
/// checksum covers.
pub fn flip_64_bytes_in_the_middle(file: &Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let middle = bytes.len() / 2;
    for byte in &mut bytes[middle..middle + 64] {
        *byte ^= 0xff;
    }
    std::fs::write(file, bytes).unwrap();
}

/// Damages the largest SST file of the closed database in `dir` (a table's
/// blocks, in a loaded database) and returns its file name.
pub fn damage_the_largest_file(dir: &Path) -> String {
    let largest = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sst"))
        .max_by_key(|path| std::fs::metadata(path).unwrap().len())
        .unwrap();
    flip_64_bytes_in_the_middle(&largest);
    largest.file_name().unwrap().to_string_lossy().into_owned()
}

/// The paragraphs of the repository's articles (`data/text/*.txt`, by file
/// name) longer than `min_chars` characters, each named `p<file>-<line>`.
pub fn article_paragraphs(min_chars: usize) -> Vec<(String, String)> {
    let dir = repo_dir().join("data/text");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for (f, path) in files.iter().enumerate() {
        let content = std::fs::read_to_string(path).unwrap();
        let long = content.lines().filter(|l| l.chars().count() > min_chars);
        for (p, line) in long.enumerate() {
            out.push((format!("p{f}-{p}"), line.to_string()));
        }
    }
    out
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
