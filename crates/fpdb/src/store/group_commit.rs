//! Group commit: many writers, one log sync.
//!
//! A handle opened with `sync` must not return from a write before the
//! write-ahead log holding it is on disk. Syncing inside the writer lock
//! would allow one sync per write. Instead a write is applied to the log
//! unsynced under the lock, takes a ticket (its place in the log), and
//! waits for a sync outside the lock ("early lock release"): the first
//! waiter syncs everything written so far while the others wait, and the
//! writes that queued meanwhile share the next sync.
//!
//! The log is sequential, so a sync that covers a write covers every write
//! before it: an answer that depended on an earlier, still unsynced write
//! (a check-and-insert that saw another client's page) is acknowledged
//! only once that write is durable too.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use crate::error::Result;

/// The writes applied to the log and how far it is synced.
#[derive(Debug, Default)]
pub(crate) struct GroupCommit {
    /// Writes applied to the log so far, counted under the writer lock
    /// after each write returned, so in log order.
    written: AtomicU64,
    synced: Mutex<Synced>,
    sync_done: Condvar,
}

#[derive(Debug, Default)]
struct Synced {
    /// Every write with a ticket up to this one is durable.
    through: u64,
    /// A thread is syncing the log now.
    in_progress: bool,
}

impl GroupCommit {
    /// Counts one write just applied to the log.
    pub fn count_write(&self) {
        self.written.fetch_add(1, Ordering::SeqCst);
    }

    /// The ticket of everything written so far: to be taken with the
    /// writer lock held, after the caller's own write (if any).
    pub fn ticket(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }

    /// Returns once every write up to `ticket` is durable, calling `sync`
    /// (which must sync the whole log) when no other thread is. A failed
    /// sync is this thread's error; the threads waiting on it try again
    /// themselves.
    pub fn wait_durable(&self, ticket: u64, sync: impl Fn() -> Result<()>) -> Result<()> {
        let mut synced = self.synced.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if synced.through >= ticket {
                return Ok(());
            }
            if synced.in_progress {
                synced = self
                    .sync_done
                    .wait(synced)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            }
            synced.in_progress = true;
            // Everything counted now has been applied to the log, so the
            // sync below covers it.
            let target = self.written.load(Ordering::SeqCst);
            drop(synced);
            let result = sync();
            synced = self.synced.lock().unwrap_or_else(PoisonError::into_inner);
            synced.in_progress = false;
            if result.is_ok() {
                synced.through = synced.through.max(target);
            }
            self.sync_done.notify_all();
            result?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    #[test]
    fn a_ticket_already_synced_needs_no_sync() {
        let group = GroupCommit::default();
        let syncs = AtomicUsize::new(0);
        group.count_write();
        let ticket = group.ticket();
        let sync = || {
            syncs.fetch_add(1, Ordering::SeqCst);
            Ok(())
        };
        group.wait_durable(ticket, sync).unwrap();
        group.wait_durable(ticket, sync).unwrap();
        assert_eq!(syncs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn writers_waiting_during_a_sync_share_the_next_one() {
        let group = Arc::new(GroupCommit::default());
        let syncs = Arc::new(AtomicUsize::new(0));
        let writers = 8;
        let barrier = Arc::new(std::sync::Barrier::new(writers));
        let threads: Vec<_> = (0..writers)
            .map(|_| {
                let (group, syncs, barrier) = (group.clone(), syncs.clone(), barrier.clone());
                std::thread::spawn(move || {
                    group.count_write();
                    let ticket = group.ticket();
                    barrier.wait();
                    group
                        .wait_durable(ticket, || {
                            syncs.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Ok(())
                        })
                        .unwrap();
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        // Every write was counted before any sync began, so the first sync
        // covered them all.
        assert_eq!(syncs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_failed_sync_is_retried_by_the_next_waiter() {
        let group = GroupCommit::default();
        group.count_write();
        let ticket = group.ticket();
        let failing = || {
            Err(crate::error::Error::Storage {
                what: "the log".into(),
                message: "disk full".into(),
            })
        };
        assert!(group.wait_durable(ticket, failing).is_err());
        let syncs = AtomicUsize::new(0);
        group
            .wait_durable(ticket, || {
                syncs.fetch_add(1, Ordering::SeqCst);
                Ok(())
            })
            .unwrap();
        assert_eq!(syncs.load(Ordering::SeqCst), 1);
    }
}
