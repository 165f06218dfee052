//! The bulk load's scratch directory.

use std::path::PathBuf;

use crate::error::{Error, Result};

/// A scratch directory removed when dropped.
#[derive(Debug)]
pub(super) struct WorkDir {
    pub path: PathBuf,
}

impl WorkDir {
    pub fn create(path: PathBuf) -> Result<WorkDir> {
        // A directory left by a killed load holds nothing worth keeping.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(WorkDir { path })
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
