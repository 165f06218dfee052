//! What a query costs when it probes the prefixes its weakest bits reach
//! (`MemIndex::query_flips`, a budget of flip sets per table) against the
//! exact radii that probe the same tables (`MemIndex::query`: radius 3,
//! the design's k, one prefix per table; 7 and 11, 17 and 137), and a
//! popcount scan of every fingerprint in the same run.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench flip_probes                 # 10M
//! FPDB_FLIP_BENCH_N=1000000 cargo bench -p fpdb-benches --bench flip_probes
//! ```
//!
//! The index is the default design for 10M at k = 3 (`split-4`: 4 tables
//! of 16-bit prefixes), 1 KiB blocks, in memory. Queries are stored
//! fingerprints with 0 to 8 bits flipped; each query's vote sizes are
//! random (which bits are weak does not change what a probe costs).
//! Criterion's mean per query, and 20,000 single queries' percentiles.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use fpdb_codec::{MemIndex, TableDesign, DEFAULT_BLOCK_BYTES};
use fpdb_rng::Rng;
use fpdb_simhash::Fingerprint;

/// The radius adaptive probes keep candidates within.
const FLIP_RADIUS: u32 = 12;
const BUDGETS: [usize; 5] = [1, 2, 4, 8, 17];
const EXACT_RADII: [u32; 3] = [3, 7, 11];

/// A query and its vote sizes.
struct Query {
    fingerprint: Fingerprint,
    vote_sizes: [u64; 64],
}

fn queries(stored: &[Fingerprint], count: usize, rng: &mut Rng) -> Vec<Query> {
    (0..count)
        .map(|_| {
            let mut fingerprint = rng.pick(stored).copied().unwrap_or_default();
            for _ in 0..rng.below(9) {
                fingerprint.0 ^= 1 << rng.below(64);
            }
            let mut vote_sizes = [0u64; 64];
            for size in &mut vote_sizes {
                *size = rng.next_u64() % 10_000;
            }
            Query {
                fingerprint,
                vote_sizes,
            }
        })
        .collect()
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted.get(index).copied().unwrap_or_default()
}

/// Criterion's mean and single-query percentiles of `answer`.
fn measure(
    criterion: &mut Criterion,
    name: &str,
    queries: &[Query],
    answer: impl Fn(&Query) -> usize,
) {
    let mut group = criterion.benchmark_group("flip_probes");
    group.throughput(Throughput::Elements(1));
    let mut cycle = queries.iter().cycle();
    group.bench_function(BenchmarkId::from_parameter(name), |b| {
        b.iter(|| black_box(cycle.next().map(&answer)))
    });
    group.finish();
    let mut latencies = Vec::with_capacity(queries.len());
    let mut found = 0;
    for query in queries {
        let start = Instant::now();
        found += answer(query);
        latencies.push(start.elapsed());
    }
    latencies.sort_unstable();
    println!(
        "{name}: p50 {:?} p90 {:?} p99 {:?} ({found} found over {} queries)",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        queries.len()
    );
}

fn main() {
    let n: usize = std::env::var("FPDB_FLIP_BENCH_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000_000);
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let mut rng = Rng::new(0xf11b);
    let stored: Vec<Fingerprint> = (0..n).map(|_| Fingerprint(rng.next_u64())).collect();
    let design = TableDesign::auto(3, n as u64).expect("auto design");
    let start = Instant::now();
    let index = MemIndex::build(design, &stored, DEFAULT_BLOCK_BYTES).expect("builds");
    println!(
        "built {} over {n} fingerprints in {:.1} s",
        index.design(),
        start.elapsed().as_secs_f64()
    );
    let queries = queries(&stored, 20_000, &mut rng);
    for radius in EXACT_RADII {
        measure(
            &mut criterion,
            &format!("exact radius {radius}"),
            &queries,
            |q| index.query(q.fingerprint, radius).expect("queries").len(),
        );
    }
    for budget in BUDGETS {
        let name = format!("{budget} flips per table, radius {FLIP_RADIUS}");
        measure(&mut criterion, &name, &queries, |q| {
            index
                .query_flips(q.fingerprint, &q.vote_sizes, budget, FLIP_RADIUS)
                .expect("queries")
                .len()
        });
    }
    // The baseline: every fingerprint compared, at the widest radius.
    let raw: Vec<u64> = stored.iter().map(|fp| fp.0).collect();
    measure(
        &mut criterion,
        "popcount scan, radius 12",
        queries.get(..200).unwrap_or(&queries),
        |q| {
            raw.iter()
                .filter(|&&fp| (fp ^ q.fingerprint.0).count_ones() <= FLIP_RADIUS)
                .count()
        },
    );
    criterion.final_summary();
}
