//! Parallel work for code that holds one of the database's locks.
//!
//! Not on rayon's pool: a rayon worker waiting for its subtasks may run
//! other queued jobs meanwhile, such as the caller's own next query or
//! write when the caller works from a rayon loop. Under the writer lock
//! (a merge), that write would wait for the lock its own thread holds.
//! Under the state's read lock (a batch query), a nested query takes the
//! read lock again, and std's `RwLock` makes that wait behind any queued
//! writer, which waits for the first read lock: a deadlock either way.
//! Scoped threads run nothing else.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `work(0..count)`, in order, on up to one scoped thread per core (on
/// the caller's thread when there is one item or one core).
pub(crate) fn in_parallel<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(count);
    if threads <= 1 {
        return (0..count).map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= count {
                            return done;
                        }
                        done.push((index, work(index)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::in_parallel;

    #[test]
    fn parallel_work_comes_back_in_order() {
        // Each item takes a while, so the threads interleave.
        let squares = in_parallel(37, |i| {
            std::thread::sleep(std::time::Duration::from_micros(300));
            i * i
        });
        assert_eq!(squares, (0..37).map(|i| i * i).collect::<Vec<_>>());
        assert!(in_parallel(0, |i| i).is_empty());
    }
}
