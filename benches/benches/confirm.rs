//! What the second stage costs: `Db::find` on a confirming database (the
//! candidates within the retrieval radius, each confirmed by comparing
//! signatures read with its ids) against `Db::query` at the same radius
//! (the first stage alone: the same candidates and their ids) and at the
//! database's k, beside a brute-force scan of the fingerprints.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench confirm                              # N = 1,000,000
//! FPDB_CONFIRM_BENCH_N=10000000 cargo bench -p fpdb-benches --bench confirm
//! ```
//!
//! N documents with random fingerprints and signatures (the recommended
//! layout over 60 random feature hashes each) are bulk loaded into a
//! database with the recommended confirmation (radius 12, resemblance ≥
//! 0.5). Queries: stored documents, their fingerprints with 0 to 12 bits
//! flipped and half their features replaced, so that each finds its
//! document within the radius and about half are confirmed. Printed: the
//! percentiles of single calls, warm (third pass), for each way, and the
//! criterion means.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fpdb::simhash::Signature;
use fpdb::{BulkOptions, Confirmation, Db, Document, Fingerprint, Options};
use fpdb_benches::latency;
use fpdb_benches::rng::Rng;

const FEATURES: usize = 60;

fn n() -> usize {
    fpdb_benches::env_usize("FPDB_CONFIRM_BENCH_N", 1_000_000)
}

fn signature(features: &[u64]) -> Signature {
    let layout = Confirmation::recommended().layout();
    Signature::from_feature_hashes(layout, features).unwrap()
}

fn confirm(c: &mut Criterion) {
    let n = n();
    let mut rng = Rng::new(11);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let confirmation = Confirmation::recommended();
    let radius = confirmation.radius();
    let options = Options::default()
        .expected_size(n as u64)
        .confirmation(Some(confirmation));
    let mut db = Db::create(&path, options).unwrap();
    let features: Vec<Vec<u64>> = (0..n)
        .map(|_| (0..FEATURES).map(|_| rng.next_u64()).collect())
        .collect();
    let stored: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    let started = Instant::now();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    for (i, (&fp, features)) in stored.iter().zip(&features).enumerate() {
        let document = Document {
            fingerprint: Fingerprint(fp),
            signature: Some(signature(features)),
            weak_bits: None,
        };
        loader
            .add_document(&format!("https://example.com/{i}"), &document)
            .unwrap();
    }
    loader.finish().unwrap();
    println!(
        "bulk loaded {n} signed documents into {} in {:.1} s",
        db.design_name(),
        started.elapsed().as_secs_f64()
    );
    drop(db);

    let db = Db::open(&path).unwrap();
    let rule = db.match_rule(db.k());
    let queries: Vec<Document> = (0..2048)
        .map(|_| {
            let i = rng.below(n);
            let mut fp = stored[i];
            for _ in 0..rng.below(radius as usize + 1) {
                fp ^= 1 << rng.below(64);
            }
            let mut edited = features[i].clone();
            for feature in edited.iter_mut().take(rng.below(FEATURES)) {
                *feature = rng.next_u64();
            }
            Document {
                fingerprint: Fingerprint(fp),
                signature: Some(signature(&edited)),
                weak_bits: None,
            }
        })
        .collect();
    let fps: Vec<Fingerprint> = queries.iter().map(|q| q.fingerprint).collect();
    let confirmed: usize = queries
        .iter()
        .map(|q| db.find(q, &rule).unwrap().len())
        .sum();
    println!(
        "{} queries: {confirmed} confirmed matches, {} candidates within {radius} bits",
        queries.len(),
        fps.iter()
            .map(|&fp| db.query(fp, radius).unwrap().len())
            .sum::<usize>()
    );
    for _ in 0..2 {
        find_percentiles(&db, &queries, &rule);
        latency::percentiles(&db, &fps, radius);
    }
    println!(
        "Db::find (two stages, radius {radius}) n={n}, warm: {}",
        find_percentiles(&db, &queries, &rule)
    );
    println!(
        "Db::query radius={radius} (first stage alone) n={n}, warm: {}",
        latency::percentiles(&db, &fps, radius)
    );
    println!(
        "Db::query k={} n={n}, warm: {}",
        db.k(),
        latency::percentiles(&db, &fps, db.k())
    );

    let mut group = c.benchmark_group(format!("confirm_n{n}"));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    let mut next = 0usize;
    group.bench_function("db_find_two_stages", |b| {
        b.iter(|| {
            let q = &queries[next % queries.len()];
            next += 1;
            db.find(q, &rule).unwrap()
        })
    });
    group.bench_function(format!("db_query_r{radius}"), |b| {
        b.iter(|| {
            let q = fps[next % fps.len()];
            next += 1;
            db.query(q, radius).unwrap()
        })
    });
    group.bench_function(format!("brute_force_scan_r{radius}"), |b| {
        b.iter(|| {
            let q = fps[next % fps.len()];
            next += 1;
            latency::brute_force_count(&stored, q, radius)
        })
    });
    group.finish();
}

/// p50, p90 and p99 of single `find` calls.
fn find_percentiles(db: &Db, queries: &[Document], rule: &fpdb::MatchRule) -> String {
    let mut latencies: Vec<Duration> = queries
        .iter()
        .map(|q| {
            let started = Instant::now();
            black_box(db.find(q, rule).unwrap());
            started.elapsed()
        })
        .collect();
    latencies.sort();
    let at = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    format!("p50 {:?} p90 {:?} p99 {:?}", at(0.5), at(0.9), at(0.99))
}

criterion_group!(benches, confirm);
criterion_main!(benches);
