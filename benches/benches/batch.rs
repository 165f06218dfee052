//! Batch queries against a bulk-loaded database of N fingerprints (k = 3,
//! auto design): one probe per query (`BatchStrategy::Probe`, parallel)
//! against the merged pass (`BatchStrategy::Merge`), for growing batch
//! sizes, to find the crossover that `MERGE_BATCH_THRESHOLD` is set to.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench batch
//! FPDB_BATCH_BENCH_N=1000000 FPDB_BATCH_SIZES=1000,10000 cargo bench -p fpdb-benches --bench batch
//! ```
//!
//! Queries are half stored fingerprints with 0–3 bits flipped, half random.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use fpdb::{BatchStrategy, BulkOptions, Db, Fingerprint, Options};
use fpdb_benches::rng::Rng;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn batch(c: &mut Criterion) {
    let n: usize = env_or("FPDB_BATCH_BENCH_N", 10_000_000);
    let sizes: Vec<usize> = std::env::var("FPDB_BATCH_SIZES")
        .unwrap_or_else(|_| "1000,3000,10000,30000,100000,1000000".into())
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let mut rng = Rng::new(21);
    let stored: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let dir = tempfile::tempdir().unwrap();
    let options = Options::default().expected_size(n as u64);
    let mut db = Db::create(dir.path().join("db"), options).unwrap();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    for (i, &fp) in stored.iter().enumerate() {
        loader.add(&i.to_string(), Fingerprint(fp)).unwrap();
    }
    loader.finish().unwrap();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let queries: Vec<Fingerprint> = (0..largest)
        .map(|i| {
            if i % 2 == 0 {
                let mut fp = stored[rng.below(n)];
                for _ in 0..rng.below(4) {
                    fp ^= 1 << rng.below(64);
                }
                Fingerprint(fp)
            } else {
                Fingerprint(rng.next_u64())
            }
        })
        .collect();

    let mut group = c.benchmark_group(format!("batch_{n}"));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for &size in &sizes {
        let batch = &queries[..size];
        group.throughput(Throughput::Elements(size as u64));
        for (name, strategy) in [
            ("probe", BatchStrategy::Probe),
            ("merge", BatchStrategy::Merge),
        ] {
            group.bench_with_input(BenchmarkId::new(name, size), &batch, |b, batch| {
                b.iter_custom(|iterations| {
                    let started = Instant::now();
                    for _ in 0..iterations {
                        let answers = db.query_batch_with(batch, 3, strategy).unwrap();
                        assert_eq!(answers.len(), batch.len());
                    }
                    started.elapsed()
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
