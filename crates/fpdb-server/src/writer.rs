//! Single check-and-inserts from every connection, handed to one writer
//! thread that gives the library each group waiting
//! (`Db::check_and_insert_group`): one hold of the writer lock, one
//! write, one log sync and one thread hand-off per group rather than per
//! request.
//! Requests that arrive while a group is being written and synced wait
//! together, so the busier the server, the larger its groups.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};
use std::time::Duration;

use fpdb::{Checked, Db, Fingerprint};
use tokio::sync::{mpsc, oneshot};

use crate::error::ApiError;
use crate::merger::{self, Merger};
use crate::metrics::Metrics;

/// Most requests given to the library at once: bounds how long one group
/// holds the writer lock.
const MAX_GROUP: usize = 1024;

/// One check-and-insert waiting for its group.
struct Pending {
    id: String,
    fp: Fingerprint,
    k: u32,
    answer: oneshot::Sender<Result<Checked, ApiError>>,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending").field("id", &self.id).finish()
    }
}

/// Where handlers queue their check-and-inserts.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    queue: mpsc::UnboundedSender<Pending>,
}

impl Writer {
    /// Starts the writer thread. It holds the database only while it
    /// writes a group (so the database closes with the server's last
    /// handle), and ends when every `Writer` is dropped.
    /// The merge thread (`merger.rs`) starts with it, and is woken after
    /// a group that leaves the delta due.
    pub fn start(db: &Arc<Db>, metrics: Arc<Metrics>) -> std::io::Result<Self> {
        Self::start_polling(db, metrics, merger::POLL)
    }

    /// [`Writer::start`] with a merge thread that looks every `poll`
    /// when not woken.
    fn start_polling(db: &Arc<Db>, metrics: Arc<Metrics>, poll: Duration) -> std::io::Result<Self> {
        let (queue, waiting) = mpsc::unbounded_channel();
        let merger = if db.is_read_only() {
            None
        } else {
            Some(Merger::start(db, poll)?)
        };
        let db = Arc::downgrade(db);
        std::thread::Builder::new()
            .name("fpdb-writer".into())
            .spawn(move || write_groups(&db, &metrics, merger.as_ref(), waiting))?;
        Ok(Writer { queue })
    }

    /// `id` checked and stored with `fp` in the next group; answered once
    /// the group is durable.
    pub async fn check_and_insert(
        &self,
        id: String,
        fp: Fingerprint,
        k: u32,
    ) -> Result<Checked, ApiError> {
        let (answer, answered) = oneshot::channel();
        self.queue
            .send(Pending { id, fp, k, answer })
            .map_err(|_| ApiError::internal("the writer has stopped"))?;
        answered
            .await
            .map_err(|_| ApiError::internal("the writer stopped before answering"))?
    }
}

fn write_groups(
    db: &Weak<Db>,
    metrics: &Metrics,
    merger: Option<&Merger>,
    mut waiting: mpsc::UnboundedReceiver<Pending>,
) {
    while let Some(first) = waiting.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match waiting.try_recv() {
                Ok(pending) => group.push(pending),
                Err(_) => break,
            }
        }
        metrics.write_group(group.len());
        match db.upgrade() {
            // A panic drops the group's answer senders, so its requests
            // get a 500, and the thread goes on with the next group.
            Some(db) => {
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| write_group(&db, group)));
                // Woken only when there is a merge to do: a wake per group
                // was about 2,000 context switches a second at 30,000
                // requests/s, on the cores the requests need.
                if let Some(merger) = merger.filter(|_| db.merge_due()) {
                    merger.wake();
                }
            }
            None => {
                let error = ApiError::internal("the server is stopping");
                for pending in group {
                    let _ = pending.answer.send(Err(error.clone()));
                }
            }
        }
    }
}

/// Writes one group and answers each of its requests.
fn write_group(db: &Db, group: Vec<Pending>) {
    let requests: Vec<(&str, Fingerprint, u32)> = group
        .iter()
        .map(|pending| (pending.id.as_str(), pending.fp, pending.k))
        .collect();
    let answers = db.check_and_insert_group(&requests);
    drop(requests);
    match answers {
        Ok(answers) => {
            for (pending, answer) in group.into_iter().zip(answers) {
                let _ = pending.answer.send(answer.map_err(ApiError::from));
            }
        }
        Err(error) => {
            let error = ApiError::from(error);
            for pending in group {
                let _ = pending.answer.send(Err(error.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    #[test]
    fn the_group_that_leaves_the_delta_due_wakes_the_merge() {
        let dir = tempfile::tempdir().unwrap();
        let db = fpdb::OpenOptions::new()
            .create_new(fpdb_testkit::small_options())
            .delta_limit(64)
            .open(dir.path().join("db"))
            .unwrap();
        let db = Arc::new(db);
        // A merge thread that never looks by itself: only a wake merges.
        let poll = Duration::from_secs(3_600);
        let writer = Writer::start_polling(&db, Arc::new(Metrics::default()), poll).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for i in 0..100u64 {
            let fp = Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            runtime
                .block_on(writer.check_and_insert(format!("doc{i}"), fp, 3))
                .unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while db.stats().delta_added >= 64 {
            assert!(Instant::now() < deadline, "the delta was never merged");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(db.stats().fingerprints, 100);
    }
}
