//! How long operations say how far they are: through a [`Progress`] the
//! caller hands in (the `fpdb` command draws bars with it); the library
//! itself never prints.

/// Told by a long operation ([`crate::Db::verify_with_progress`] and the
/// like) what it is doing and how much of it is done. Called from the
/// operation's threads, so it takes `&self`.
pub trait Progress: Sync {
    /// A phase begins: `name` says what its steps are (`blocks`, `ids`),
    /// `total` how many there are, when known beforehand (a counter the
    /// database keeps: a damaged database may hold more or fewer).
    fn phase(&self, name: &str, total: Option<u64>);
    /// `steps` more steps of the current phase are done.
    fn advance(&self, steps: u64);
}

/// No progress wanted.
impl Progress for () {
    fn phase(&self, _name: &str, _total: Option<u64>) {}
    fn advance(&self, _steps: u64) {}
}

/// Steps counted one at a time and told in batches, so a scan of millions
/// of entries does not call the [`Progress`] for each; the rest is told
/// when dropped.
pub(crate) struct Steps<'a> {
    progress: &'a dyn Progress,
    pending: u64,
}

/// Steps told at once.
const BATCH: u64 = 4096;

impl<'a> Steps<'a> {
    pub(crate) fn new(progress: &'a dyn Progress) -> Self {
        Steps {
            progress,
            pending: 0,
        }
    }

    pub(crate) fn step(&mut self) {
        self.pending += 1;
        if self.pending == BATCH {
            self.progress.advance(BATCH);
            self.pending = 0;
        }
    }
}

impl Drop for Steps<'_> {
    fn drop(&mut self) {
        if self.pending > 0 {
            self.progress.advance(self.pending);
        }
    }
}
