//! Work split over the cores with scoped threads (no pool: the readers run
//! inside callers that may have their own).

use fpdb_simhash::{Fingerprint, Simhasher};

use crate::{Payload, Record};

/// The cores this process may use, asked once: the answer reads cgroup
/// files, and lines are parsed a read at a time (a co-process's every
/// line).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `each` of `items`, in order, the items split evenly over the cores.
pub(crate) fn on_every_core<T: Sync, U: Send>(
    items: &[T],
    each: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let threads = cores();
    if items.len() < 2 || threads == 1 {
        return items.iter().map(&each).collect();
    }
    let per_thread = items.len().div_ceil(threads);
    let each = &each;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(per_thread)
            .map(|part| scope.spawn(move || part.iter().map(each).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| match w.join() {
                Ok(done) => done,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// Fingerprints of `records` under `simhasher`, texts hashed on all cores.
pub fn fingerprints(simhasher: &Simhasher, records: &[Record]) -> Vec<Fingerprint> {
    let texts = records
        .iter()
        .filter(|r| matches!(r.payload, Payload::Text(_)))
        .count();
    if texts < 64 {
        return records.iter().map(|r| r.fingerprint(simhasher)).collect();
    }
    on_every_core(records, |r| r.fingerprint(simhasher))
}
