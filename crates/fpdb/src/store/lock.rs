//! The database's writer lock: a writable handle holds an exclusive lock
//! on `fpdb.lock`, so a second writer is told [`Error::Locked`] by fpdb
//! itself rather than by reading RocksDB's message; readers probe it to
//! tell whether a writer is live.

use std::fs::File;
use std::path::Path;

use crate::error::{Error, Result};

/// The lock file inside the database directory.
const LOCK_FILE: &str = "fpdb.lock";

/// Whether a writer holds the database's lock now: a shared lock is
/// refused while it does (taken and dropped at once; [`take_lock`] waits
/// out such a probe).
pub(super) fn writer_is_live(path: &Path) -> Result<bool> {
    let lock_path = path.join(LOCK_FILE);
    let file = match File::open(&lock_path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(Error::Io {
                path: lock_path,
                source,
            })
        }
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(false),
        Err(std::fs::TryLockError::WouldBlock) => Ok(true),
        Err(std::fs::TryLockError::Error(source)) => Err(Error::Io {
            path: lock_path,
            source,
        }),
    }
}

/// Takes the database's writer lock, or says who has it.
pub(crate) fn take_lock(path: &Path) -> Result<File> {
    let lock_path = path.join(LOCK_FILE);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|source| Error::Io {
            path: lock_path.clone(),
            source,
        })?;
    // A reader's probe (`writer_is_live`) holds the lock for microseconds:
    // wait that out rather than report a second writer.
    for attempt in 0..=LOCK_RETRIES {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if attempt < LOCK_RETRIES => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(std::fs::TryLockError::WouldBlock) => break,
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(Error::Io {
                    path: lock_path,
                    source,
                })
            }
        }
    }
    Err(Error::Locked { path: path.into() })
}

/// How many times a writer retries a lock held by someone else, 5 ms apart.
const LOCK_RETRIES: u32 = 10;
