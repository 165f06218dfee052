//! Query latency of a `Db`, shared by the store benches: the probe mix and
//! percentiles over single timed queries (the targets are percentiles, and
//! criterion reports means).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use fpdb::{Db, Fingerprint, Options};

use crate::rng::Rng;

/// The store benches' start: `n` random fingerprints from `rng`, and a
/// new, empty database at `path` sized for them (`design`, e.g. `auto`;
/// k = 3).
pub fn new_store(path: &Path, n: usize, design: &str, rng: &mut Rng) -> (Db, Vec<u64>) {
    let stored: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let options = Options::default()
        .expected_size(n as u64)
        .design(design.parse().unwrap());
    (Db::create(path, options).unwrap(), stored)
}

/// `count` probes: every other one a stored fingerprint with 0–3 bits
/// flipped (it finds at least that fingerprint at k = 3), the rest random
/// (at 10M stored they almost never find anything).
pub fn probes(stored: &[u64], rng: &mut Rng, count: usize) -> Vec<Fingerprint> {
    (0..count)
        .map(|i| {
            if i % 2 == 0 {
                let mut fp = stored[rng.below(stored.len())];
                for _ in 0..rng.below(4) {
                    fp ^= 1 << rng.below(64);
                }
                Fingerprint(fp)
            } else {
                Fingerprint(rng.next_u64())
            }
        })
        .collect()
}

/// `count` stored fingerprints, each with 0 to `max_bits` random bits
/// flipped: queries that find at least the one they came from at radius
/// `max_bits`.
pub fn near_probes(stored: &[u64], rng: &mut Rng, count: usize, max_bits: u32) -> Vec<Fingerprint> {
    (0..count)
        .map(|_| {
            let mut fp = stored[rng.below(stored.len())];
            for _ in 0..rng.below(max_bits as usize + 1) {
                fp ^= 1 << rng.below(64);
            }
            Fingerprint(fp)
        })
        .collect()
}

/// Times each probe once: p50, p90 and p99 over all, and the p50 of the
/// queries that found something (they read ids from RocksDB) and of those
/// that found nothing, as one line.
pub fn percentiles(db: &Db, probes: &[Fingerprint], k: u32) -> String {
    let mut latencies = Vec::with_capacity(probes.len());
    let mut with_matches = Vec::new();
    let mut without = Vec::new();
    for &q in probes {
        let started = Instant::now();
        let found = black_box(db.query(q, k).unwrap());
        let elapsed = started.elapsed();
        latencies.push(elapsed);
        if found.is_empty() {
            without.push(elapsed);
        } else {
            with_matches.push(elapsed);
        }
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v.get(v.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or_default()
    };
    let (found, none) = (with_matches.len(), without.len());
    let (found_p50, none_p50) = (median(with_matches), median(without));
    latencies.sort();
    let at = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    format!(
        "p50 {:?} p90 {:?} p99 {:?} (p50 of the {found} with matches {found_p50:?}, of the {none} without {none_p50:?})",
        at(0.5),
        at(0.9),
        at(0.99)
    )
}

/// The brute-force baseline: how many of `stored` lie within `k` of
/// `query`, by a linear popcount scan.
pub fn brute_force_count(stored: &[u64], query: Fingerprint, k: u32) -> usize {
    stored
        .iter()
        .filter(|&&fp| (fp ^ query.0).count_ones() <= k)
        .count()
}
