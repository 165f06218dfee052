//! RocksDB's threads belong to the process that started them.
//!
//! Opening a database starts threads of RocksDB's own, shared by every
//! later handle of the process (flushes, compactions, periodic tasks). A
//! process forked afterwards inherits RocksDB's record of those threads
//! but not the threads: a writable handle there hangs when it flushes or
//! closes (seen even when the parent had opened databases only to read).
//! Such an open is refused with a typed error instead; reading works.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The process that first opened a database.
static FIRST_OPENER: OnceLock<u32> = OnceLock::new();

/// Notes that this process opens a database.
pub(super) fn opening() {
    FIRST_OPENER.get_or_init(std::process::id);
}

/// [`opening`] for writing: refused in a process forked from one that had
/// opened a database.
pub(super) fn opening_for_writing() -> Result<()> {
    let here = std::process::id();
    let parent = *FIRST_OPENER.get_or_init(|| here);
    if parent == here {
        Ok(())
    } else {
        Err(Error::ForkedWriter { parent })
    }
}
