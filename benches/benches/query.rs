//! `Db::query` latency on a bulk-loaded database, without the store bench's
//! long online build: a quick loop for query work.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench query                                # N = 10,000,000
//! FPDB_QUERY_BENCH_N=1000000 cargo bench -p fpdb-benches --bench query
//! FPDB_QUERY_BENCH_DESIGN=split-5 cargo bench -p fpdb-benches --bench query
//! FPDB_QUERY_BENCH_RADII=3,5,7,9,11 cargo bench -p fpdb-benches --bench query
//! ```
//!
//! N random fingerprints with URL-like ids are bulk loaded (a few seconds
//! at 10M, where the store bench spends minutes inserting); then the
//! store bench's probe mix (half stored fingerprints with 0–3 bits flipped,
//! half random) is timed at k = 3: criterion means for `Db::query` and a
//! brute-force scan of the same fingerprints, then percentiles of single
//! queries, first, second (fpdb keeps a block from its second read) and
//! third pass, with fpdb's block cache. The design is the auto one unless
//! `FPDB_QUERY_BENCH_DESIGN` names another. A bulk-loaded
//! database has fuller blocks, per-table codes and fewer RocksDB files
//! than one built online, so its numbers differ from the store bench's.
//!
//! Then the cost of radii past the database's k (its tables' neighbouring
//! prefixes are probed): for each radius in `FPDB_QUERY_BENCH_RADII`
//! (default 3 to 12), the percentiles of a warm third pass over stored
//! fingerprints with 0 to `radius` bits flipped, and the criterion mean
//! beside the brute-force scan at the same radius.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fpdb::{BulkOptions, Db, Fingerprint};
use fpdb_benches::latency;
use fpdb_benches::rng::Rng;

const K: u32 = 3;

fn n() -> usize {
    fpdb_benches::env_usize("FPDB_QUERY_BENCH_N", 10_000_000)
}

fn query(c: &mut Criterion) {
    let n = n();
    let mut rng = Rng::new(7);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let design = std::env::var("FPDB_QUERY_BENCH_DESIGN").unwrap_or_else(|_| "auto".into());
    let (mut db, stored) = latency::new_store(&path, n, &design, &mut rng);
    let started = Instant::now();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    for (i, &fp) in stored.iter().enumerate() {
        loader
            .add(&format!("https://example.com/{i}"), Fingerprint(fp))
            .unwrap();
    }
    loader.finish().unwrap();
    println!(
        "bulk loaded {n} fingerprints into {} in {:.1} s",
        db.design_name(),
        started.elapsed().as_secs_f64()
    );
    drop(db);

    let db = Db::open(&path).unwrap();
    let probes = latency::probes(&stored, &mut rng, 4096);
    let first = latency::percentiles(&db, &probes, K);
    let second = latency::percentiles(&db, &probes, K);
    let third = latency::percentiles(&db, &probes, K);
    println!(
        "Db::query k={K} n={n}, bulk loaded, {} queries: first pass {first}; second pass {second}; third pass {third}",
        probes.len()
    );

    let mut group = c.benchmark_group(format!("query_bulk_loaded_n{n}"));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    let mut next = 0usize;
    group.bench_function("brute_force_scan", |b| {
        b.iter(|| {
            let q = probes[next % probes.len()];
            next += 1;
            latency::brute_force_count(&stored, q, K)
        })
    });
    group.bench_function("db_query_k3", |b| {
        b.iter(|| {
            let q = probes[next % probes.len()];
            next += 1;
            db.query(q, K).unwrap()
        })
    });
    group.finish();

    let mut group = c.benchmark_group(format!("query_radius_n{n}"));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for radius in radii() {
        let near = latency::near_probes(&stored, &mut rng, 1024, radius);
        for _ in 0..2 {
            latency::percentiles(&db, &near, radius);
        }
        println!(
            "Db::query radius={radius} (prefix errors {}) n={n}, warm, {} stored fingerprints with 0-{radius} bits flipped: {}",
            db.prefix_errors(radius),
            near.len(),
            latency::percentiles(&db, &near, radius)
        );
        group.bench_function(format!("brute_force_scan_r{radius}"), |b| {
            b.iter(|| {
                let q = near[next % near.len()];
                next += 1;
                latency::brute_force_count(&stored, q, radius)
            })
        });
        group.bench_function(format!("db_query_r{radius}"), |b| {
            b.iter(|| {
                let q = near[next % near.len()];
                next += 1;
                db.query(q, radius).unwrap()
            })
        });
    }
    group.finish();
}

/// The radii of the radius curve (`FPDB_QUERY_BENCH_RADII`, comma
/// separated; 3 to 12 by default).
fn radii() -> Vec<u32> {
    match std::env::var("FPDB_QUERY_BENCH_RADII") {
        Ok(list) => list
            .split(',')
            .map(|radius| radius.trim().parse().unwrap())
            .collect(),
        Err(_) => (3..=12).collect(),
    }
}

criterion_group!(benches, query);
criterion_main!(benches);
