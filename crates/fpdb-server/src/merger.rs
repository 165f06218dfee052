//! Merges the delta on a thread of its own. The database would merge in
//! the write that fills the delta, and the server writes every
//! check-and-insert on one thread: its groups would wait for the merge.
//! Here writes never merge (`Db::set_merge_on_write`); this thread looks
//! whenever the writer thread has written a group that left the delta
//! due, and every [`POLL`] for the other writes, and merges. The
//! merge plans without the writer lock, so writers wait only while it
//! writes its batch; it plans on this thread alone, at the lowest
//! priority, so that on a small machine it takes CPU from the requests
//! only when they leave some (docs/BENCHMARKS.md, the serve section).

use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use fpdb::Db;

/// How often the thread looks without being woken.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// Wakes the merge thread.
#[derive(Debug, Clone)]
pub(crate) struct Merger {
    wake: SyncSender<()>,
}

impl Merger {
    /// Turns off merging in writes and starts the thread, which holds the
    /// database only while it looks or merges, and ends with the last
    /// `Merger` or the database.
    /// It looks every `poll` without being woken.
    pub fn start(db: &Arc<Db>, poll: Duration) -> std::io::Result<Self> {
        db.set_merge_on_write(false);
        let (wake, woken) = sync_channel(1);
        let db = Arc::downgrade(db);
        std::thread::Builder::new()
            .name("fpdb-merger".into())
            .spawn(move || merge_when_due(&db, &woken, poll))?;
        Ok(Merger { wake })
    }

    /// Asks the thread to look now; a wake already waiting covers it.
    pub fn wake(&self) {
        let _ = self.wake.try_send(());
    }
}

fn merge_when_due(db: &Weak<Db>, woken: &Receiver<()>, poll: Duration) {
    lowest_priority();
    loop {
        match woken.recv_timeout(poll) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(db) = db.upgrade() else { return };
        if !db.merge_due() {
            continue;
        }
        let started = Instant::now();
        match db.merge_on_this_thread() {
            Ok(()) => tracing::debug!(
                seconds = started.elapsed().as_secs_f64(),
                "merged the delta"
            ),
            Err(error) => tracing::error!(%error, "merging the delta"),
        }
    }
}

/// Lowers this thread's priority as far as it goes (nice 19); on failure
/// the thread merges at the normal priority.
fn lowest_priority() {
    let thread = rustix::thread::gettid();
    if let Err(error) = rustix::process::setpriority_process(Some(thread), 19) {
        tracing::debug!(%error, "cannot lower the merge thread's priority");
    }
}
