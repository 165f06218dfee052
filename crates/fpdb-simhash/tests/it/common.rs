//! What the modules share: the repository's data, and golden vectors read
//! or blessed.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The repository's `data/` directory. Cargo sets this crate's directory
/// when it runs the binary; the compile-time value can name another
/// checkout when a shared target directory hands over a binary built there.
pub fn data_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../../data")
}

/// The golden vectors stored in `path`, one JSON line each. With
/// `FPDB_BLESS_GOLDEN` set, writes what `compute` gives there instead and
/// returns `None`: an intended change, said in its commit.
pub fn golden_vectors<T: Serialize + DeserializeOwned>(
    path: &Path,
    compute: impl FnOnce() -> Vec<T>,
) -> Option<Vec<T>> {
    if std::env::var_os("FPDB_BLESS_GOLDEN").is_some() {
        let lines: Vec<String> = compute()
            .iter()
            .map(|v| serde_json::to_string(v).unwrap())
            .collect();
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
        return None;
    }
    let content = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}; bless with FPDB_BLESS_GOLDEN=1", path.display()));
    Some(
        content
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect(),
    )
}
