//! Names beside a database or a backup: staging directories, scratch
//! copies, the damaged copy a repair keeps.

use std::path::{Path, PathBuf};

/// `<path>.<suffix>`, beside `path` (on its file system, so a rename
/// between the two is atomic).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

/// The directory holding `path` (`.` for a bare name).
pub(crate) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}
