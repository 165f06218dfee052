//! What the two stages cost: `Db::find` on a database confirming every
//! candidate within 12 bits, and on one confirming those each document's
//! weak bits reach (probed in the tables keyed by quarters) with the
//! shared-shingle gate, against `Db::query` at the database's k and a
//! brute-force scan of the fingerprints.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench confirm                              # N = 1,000,000
//! FPDB_CONFIRM_BENCH_N=10000000 cargo bench -p fpdb-benches --bench confirm
//! ```
//!
//! N documents with random fingerprints, weak bits and signatures (the
//! recommended layout over 60 random feature hashes each) are bulk loaded
//! into each database. Queries: stored documents, their fingerprints with
//! 0 to 12 bits flipped and up to all their features replaced. Printed:
//! the percentiles of single calls, warm (third pass), for each rule, and
//! the criterion means.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fpdb::simhash::Signature;
use fpdb::simhash::WeakBits;
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

/// N random documents: fingerprints, features and weak bits (five a
/// quarter, from random vote sizes).
struct Corpus {
    fingerprints: Vec<u64>,
    features: Vec<Vec<u64>>,
    weak: Vec<WeakBits>,
}

impl Corpus {
    fn new(rng: &mut Rng, n: usize) -> Corpus {
        let features = (0..n)
            .map(|_| (0..FEATURES).map(|_| rng.next_u64()).collect())
            .collect();
        let fingerprints = (0..n).map(|_| rng.next_u64()).collect();
        let weak = (0..n)
            .map(|_| {
                let sizes: [u64; 64] = std::array::from_fn(|_| rng.next_u64() % 1000);
                WeakBits::of_vote_sizes(&sizes, 5)
            })
            .collect();
        Corpus {
            fingerprints,
            features,
            weak,
        }
    }

    fn document(&self, fp: u64, features: &[u64], i: usize) -> Document {
        Document {
            fingerprint: Fingerprint(fp),
            signature: Some(signature(features)),
            shingles: u32::try_from(features.len() - 1).unwrap(),
            weak_bits: Some(self.weak[i]),
        }
    }
}

/// A database of `corpus` under `confirmation`, bulk loaded.
fn load(dir: &std::path::Path, corpus: &Corpus, confirmation: Confirmation) -> Db {
    let n = corpus.fingerprints.len();
    let options = Options::default()
        .expected_size(n as u64)
        .confirmation(Some(confirmation));
    let path = dir.join("db");
    let mut db = Db::create(&path, options).unwrap();
    let started = Instant::now();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    for (i, (&fp, features)) in corpus.fingerprints.iter().zip(&corpus.features).enumerate() {
        loader
            .add_document(
                &format!("https://example.com/{i}"),
                &corpus.document(fp, features, i),
            )
            .unwrap();
    }
    loader.finish().unwrap();
    println!(
        "bulk loaded {n} signed documents into {} in {:.1} s",
        db.design_name(),
        started.elapsed().as_secs_f64()
    );
    drop(db);
    Db::open(&path).unwrap()
}

fn confirm(c: &mut Criterion) {
    let n = n();
    let mut rng = Rng::new(11);
    let corpus = Corpus::new(&mut rng, n);
    let radius = Confirmation::signatures_alone().radius();
    let queries: Vec<Document> = (0..2048)
        .map(|_| {
            let i = rng.below(n);
            let mut fp = corpus.fingerprints[i];
            for _ in 0..rng.below(radius as usize + 1) {
                fp ^= 1 << rng.below(64);
            }
            let mut edited = corpus.features[i].clone();
            for feature in edited.iter_mut().take(rng.below(FEATURES)) {
                *feature = rng.next_u64();
            }
            corpus.document(fp, &edited, i)
        })
        .collect();
    let fps: Vec<Fingerprint> = queries.iter().map(|q| q.fingerprint).collect();
    let rules = [
        (
            "every candidate within 12 bits, theta 0.50",
            Confirmation::signatures_alone(),
        ),
        (
            "weak bits (5 a quarter), theta 0.45, shared >= 7",
            Confirmation::recommended(),
        ),
    ];
    let mut group = c.benchmark_group(format!("confirm_n{n}"));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for (name, confirmation) in rules {
        let dir = tempfile::tempdir().unwrap();
        let db = load(dir.path(), &corpus, confirmation);
        let rule = db.match_rule(db.k());
        let confirmed: usize = queries
            .iter()
            .map(|q| db.find(q, &rule).unwrap().len())
            .sum();
        println!(
            "{name}: {} queries, {confirmed} confirmed matches",
            queries.len()
        );
        for _ in 0..2 {
            find_percentiles(&db, &queries, &rule);
        }
        println!(
            "Db::find ({name}) n={n}, warm: {}",
            find_percentiles(&db, &queries, &rule)
        );
        println!(
            "Db::query k={} n={n}, warm: {}",
            db.k(),
            latency::percentiles(&db, &fps, db.k())
        );
        let mut next = 0usize;
        group.bench_function(format!("db_find ({name})"), |b| {
            b.iter(|| {
                let q = &queries[next % queries.len()];
                next += 1;
                db.find(q, &rule).unwrap()
            })
        });
    }
    let mut next = 0usize;
    group.bench_function(format!("brute_force_scan_r{radius}"), |b| {
        b.iter(|| {
            let q = fps[next % fps.len()];
            next += 1;
            latency::brute_force_count(&corpus.fingerprints, q, radius)
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
