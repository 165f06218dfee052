//! The RocksDB database, with the `fp_ids` iterators kept between reads.
//!
//! A query that finds a fingerprint reads its ids with a RocksDB iterator,
//! and creating one costs more than using it: it builds a child iterator
//! for every memtable and SST level. So iterators are not dropped after a
//! read but pooled here, beside the database they borrow, and refreshed
//! (cheap while no flush or compaction changed the family's files) before
//! their next use, so a read always sees every write before it.

use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use rocksdb::DB;
use self_cell::self_cell;

use super::ids::IdScanner;
use crate::error::Result;

/// Scanners kept for reuse. Each pins the files and memtables it last saw
/// until it is refreshed or dropped, so only a few are kept.
struct IdleScanners<'db> {
    scanners: Mutex<Vec<IdScanner<'db>>>,
    /// False for a read-only handle: its view never changes (and RocksDB
    /// refuses to refresh its iterators).
    refresh: bool,
}

/// Scanners kept beyond this many are dropped (more than the threads that
/// usually query one database at once).
const MAX_IDLE_SCANNERS: usize = 32;

self_cell!(
    /// The database and the idle scanners borrowing it.
    pub(crate) struct Handle {
        owner: DB,
        #[not_covariant]
        dependent: IdleScanners,
    }
);

impl Handle {
    pub(crate) fn from_db(db: DB, read_only: bool) -> Handle {
        Handle::new(db, |_| IdleScanners {
            scanners: Mutex::new(Vec::new()),
            refresh: !read_only,
        })
    }

    /// Runs `read` with a scanner of `fp_ids` that sees every write made
    /// before this call.
    pub(crate) fn with_id_scanner<R>(
        &self,
        read: impl FnOnce(&mut IdScanner<'_>) -> Result<R>,
    ) -> Result<R> {
        self.with_dependent(|db, idle| {
            let kept = idle
                .scanners
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            let mut scanner = match kept {
                Some(mut scanner) => {
                    if idle.refresh {
                        scanner.refresh()?;
                    }
                    scanner
                }
                None => IdScanner::new(db, true)?,
            };
            let result = read(&mut scanner);
            let mut scanners = idle.scanners.lock().unwrap_or_else(PoisonError::into_inner);
            if scanners.len() < MAX_IDLE_SCANNERS {
                scanners.push(scanner);
            }
            result
        })
    }

    /// Runs `read` with a new scanner of `fp_ids` whose reads leave
    /// RocksDB's cache as it was.
    pub(crate) fn with_uncached_id_scanner<R>(
        &self,
        read: impl FnOnce(&mut IdScanner<'_>) -> Result<R>,
    ) -> Result<R> {
        self.with_dependent(|db, _| read(&mut IdScanner::new(db, false)?))
    }

    /// Drops the idle scanners, releasing the files and memtables they pin.
    pub(crate) fn drop_idle_scanners(&self) {
        self.with_dependent(|_, idle| {
            idle.scanners
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        });
    }
}

impl Deref for Handle {
    type Target = DB;

    fn deref(&self) -> &DB {
        self.borrow_owner()
    }
}
