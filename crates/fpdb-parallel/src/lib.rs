//! fpdb's one parallel map, for the database's work under its locks and
//! for the readers of its inputs: results come back in order, and a caller
//! blocks until all are done.
//!
//! Not on rayon's global pool: a rayon worker waiting for its subtasks may
//! run other queued jobs meanwhile, such as the caller's own next query or
//! write when the caller works from a rayon loop. Under the writer lock (a
//! merge), that write would wait for the lock its own thread holds. Under
//! the state's read lock (a batch query), a nested query takes the read
//! lock again, and std's `RwLock` makes that wait behind any queued
//! writer, which waits for the first read lock: a deadlock either way.
//!
//! So the work runs on fpdb's own rayon pool, whose workers run nothing
//! but this work (which takes none of those locks), while the caller
//! blocks. A caller that is itself a worker of some other rayon pool would
//! run that pool's jobs while it waits, so it uses scoped threads, which
//! run nothing else, instead. (Fresh threads for every call cost more: a
//! batch of 100 queries took 265 µs on them against 197 µs on a pool.)
//! The readers take no lock either, so they share the pool.
#![warn(missing_docs)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

/// `work(0..count)`, in order, in parallel (on the caller's thread when
/// there is one item or one core).
pub fn in_parallel<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = cores().min(count);
    if threads <= 1 {
        return (0..count).map(work).collect();
    }
    match pool() {
        Some(pool)
            if rayon::current_thread_index().is_none() || pool.current_thread_index().is_some() =>
        {
            pool.install(|| (0..count).into_par_iter().map(&work).collect())
        }
        _ => on_scoped_threads(threads, count, work),
    }
}

/// `each` of `items`, in order, in parallel (as [`in_parallel`]).
pub fn map<T: Sync, U: Send>(items: &[T], each: impl Fn(&T) -> U + Sync) -> Vec<U> {
    #[expect(
        clippy::indexing_slicing,
        reason = "in_parallel calls work with indexes below the count it is given"
    )]
    in_parallel(items.len(), |index| each(&items[index]))
}

/// fpdb's worker pool, one thread per core, built on first use (`None` if
/// the threads could not be started, or in a process forked from the one
/// that started them).
fn pool() -> Option<&'static rayon::ThreadPool> {
    /// The pool and the process whose threads run it.
    static POOL: OnceLock<Option<(rayon::ThreadPool, u32)>> = OnceLock::new();
    let (pool, owner) = POOL
        .get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(cores())
                .thread_name(|index| format!("fpdb-worker-{index}"))
                .build()
                .ok()
                .map(|pool| (pool, std::process::id()))
        })
        .as_ref()?;
    // A forked child (how Python's `multiprocessing` starts workers on
    // Linux) inherits the pool but none of its threads: work sent there
    // would wait forever, so the child works on scoped threads.
    (*owner == std::process::id()).then_some(pool)
}

/// `work(0..count)`, in order, on `threads` scoped threads.
fn on_scoped_threads<T: Send>(
    threads: usize,
    count: usize,
    work: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
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

/// The cores this process may use, asked once: std reads the cgroup's
/// CPU quota files on every call (tens of microseconds, measured as most
/// of a one-query batch).
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

#[cfg(test)]
mod tests {
    use super::{in_parallel, map, on_scoped_threads};

    fn slow_square(i: usize) -> usize {
        // Each item takes a while, so the threads interleave.
        std::thread::sleep(std::time::Duration::from_micros(300));
        i * i
    }

    #[test]
    fn parallel_work_comes_back_in_order() {
        let squares: Vec<usize> = (0..37).map(|i| i * i).collect();
        assert_eq!(in_parallel(37, slow_square), squares);
        assert_eq!(on_scoped_threads(2, 37, slow_square), squares);
        assert!(in_parallel(0, |i| i).is_empty());
        let items: Vec<usize> = (0..37).collect();
        assert_eq!(map(&items, |&i| slow_square(i)), squares);
        // From a worker of another rayon pool: the scoped-thread path.
        let foreign = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(foreign.install(|| in_parallel(37, slow_square)), squares);
    }
}
