//! The distance test a probe makes on every key it decodes, over a
//! prefix's ~150 keys (one 1 KiB block at 10M), at the paper's k = 3 and
//! the two-stage retrieval radius 14: clearing the lowest set bit k times
//! (how every radius was tested before radii past 4 were counted), a
//! popcount per key (`within_distance`), and eight keys at a time into a
//! mask (`for_each_within`, what batch walks and wide and flip probes
//! use).
//!
//! ```text
//! cargo bench -p fpdb-benches --bench distance
//! ```
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fpdb_benches::rng::Rng;
use fpdb_codec::{for_each_within, within_distance};

/// Keys of one prefix at 10M under split-4.
const KEYS: usize = 150;
const QUERIES: usize = 1024;

/// The test before: clear the lowest set bit `k` times (inlined as
/// `within_distance` is).
#[inline(always)]
fn within_by_clearing(xor: u64, k: u32) -> bool {
    let mut rest = xor;
    for _ in 0..k {
        rest &= rest.wrapping_sub(1);
    }
    rest == 0
}

fn distance(c: &mut Criterion) {
    let mut rng = Rng::new(3);
    let keys: Vec<u64> = (0..KEYS).map(|_| rng.next_u64()).collect();
    // Queries near some key, so some tests pass.
    let queries: Vec<u64> = (0..QUERIES)
        .map(|_| keys[rng.below(KEYS)] ^ (rng.next_u64() & rng.next_u64() & rng.next_u64()))
        .collect();
    let mut group = c.benchmark_group(format!("distance_test_{KEYS}_keys"));
    group.throughput(Throughput::Elements((KEYS * QUERIES) as u64));
    for k in [3u32, 14] {
        let found = |test: &dyn Fn(u64, u32, &mut Vec<u64>)| {
            let mut out = Vec::new();
            for &query in &queries {
                test(query, k, &mut out);
            }
            out.len()
        };
        let by_clearing = |query: u64, k: u32, out: &mut Vec<u64>| {
            for &key in &keys {
                if within_by_clearing(black_box(key) ^ query, k) {
                    out.push(key);
                }
            }
        };
        let per_key = |query: u64, k: u32, out: &mut Vec<u64>| {
            for &key in &keys {
                if within_distance(black_box(key) ^ query, k) {
                    out.push(key);
                }
            }
        };
        let eight_at_a_time = |query: u64, k: u32, out: &mut Vec<u64>| {
            for_each_within(black_box(&keys), query, k, |key| out.push(key));
        };
        // All three find the same keys.
        assert_eq!(found(&by_clearing), found(&per_key));
        assert_eq!(found(&per_key), found(&eight_at_a_time));
        group.bench_function(BenchmarkId::new("clearing bits", k), |b| {
            b.iter(|| found(&by_clearing))
        });
        group.bench_function(BenchmarkId::new("within_distance", k), |b| {
            b.iter(|| found(&per_key))
        });
        group.bench_function(BenchmarkId::new("for_each_within", k), |b| {
            b.iter(|| found(&eight_at_a_time))
        });
    }
    group.finish();
}

criterion_group!(benches, distance);
criterion_main!(benches);
