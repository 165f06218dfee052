//! Progress reports of a bulk load, from whichever thread makes progress.

use std::sync::{Mutex, MutexGuard, PoisonError};

use super::options::{BulkPhase, BulkProgress};

/// The callback of [`BulkLoader::set_progress`](super::BulkLoader::set_progress).
pub(super) type ProgressFn<'db> = Box<dyn FnMut(&BulkProgress) + Send + 'db>;

/// Reports tables written from whichever thread wrote them.
pub(super) struct Ticker<'db> {
    state: Mutex<(u64, Option<ProgressFn<'db>>)>,
    documents: u64,
    total: u64,
}

impl<'db> Ticker<'db> {
    pub fn new(progress: Option<ProgressFn<'db>>, documents: u64, tables: usize) -> Self {
        let ticker = Ticker {
            state: Mutex::new((0, progress)),
            documents,
            total: tables as u64,
        };
        ticker.report(&mut ticker.lock());
        ticker
    }

    fn lock(&self) -> MutexGuard<'_, (u64, Option<ProgressFn<'db>>)> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn report(&self, state: &mut (u64, Option<ProgressFn<'db>>)) {
        let (done, progress) = state;
        if let Some(report) = progress.as_mut() {
            report(&BulkProgress {
                phase: BulkPhase::Writing,
                documents: self.documents,
                done: *done,
                total: self.total,
            });
        }
    }

    pub fn tick(&self) {
        let mut state = self.lock();
        state.0 += 1;
        self.report(&mut state);
    }

    pub fn into_progress(self) -> Option<ProgressFn<'db>> {
        self.state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .1
    }
}
