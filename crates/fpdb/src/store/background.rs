//! RocksDB's background threads belong to the process that started them.
//!
//! A writable open starts RocksDB's flush and compaction threads (once
//! per process, shared by every handle). A process forked afterwards
//! inherits RocksDB's record of those threads but not the threads, so its
//! flushes never run and its handle hangs when it closes. Such an open is
//! refused with a typed error instead.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The process whose writable open started RocksDB's background threads.
static WRITER_PROCESS: OnceLock<u32> = OnceLock::new();

/// Claims RocksDB's background threads for a writable open in this
/// process: refused in a process forked from one that claimed them.
pub(super) fn claim_for_writing() -> Result<()> {
    let here = std::process::id();
    let parent = *WRITER_PROCESS.get_or_init(|| here);
    if parent == here {
        Ok(())
    } else {
        Err(Error::ForkedWriter { parent })
    }
}
