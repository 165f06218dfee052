//! What the two stages cost: `Db::find` on a database confirming every
//! candidate within 12 bits, and on one confirming those each document's
//! weak bits reach (probed in the tables keyed by quarters) with the
//! shared-shingle gate, against `Db::query` at the database's k and a
//! brute-force scan of the fingerprints.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench confirm                              # N = 1,000,000
//! FPDB_CONFIRM_BENCH_N=10000000 cargo bench -p fpdb-benches --bench confirm
//! FPDB_CONFIRM_BENCH_WEAK_BITS=4 cargo bench -p fpdb-benches --bench confirm   # 4 a quarter, not the recommended 6
//! ```
//!
//! N documents with random fingerprints, weak bits and signatures (the
//! recommended layout over 60 random feature hashes each) are bulk loaded
//! into each database, and their bare fingerprints into a database of the
//! paper's k = 3, the baseline. Queries: stored documents, their
//! fingerprints with 0 to 12 bits flipped and up to all their features
//! replaced. Printed, for each database: its bytes on disk per document;
//! 10,000 queries just after it is opened (the blocks not yet kept in
//! memory, the files in the page cache: a fresh process's work without
//! its start), one by one on both cores and as a batch
//! (`query_batch_with` and `find_batch_with`, probing and merging); the
//! same 10,000 warm (each block they read already read twice); the
//! percentiles of single calls, warm (third pass); and the criterion
//! means.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fpdb::simhash::Signature;
use fpdb::simhash::WeakBits;
use fpdb::{BatchStrategy, BulkOptions, Confirmation, Db, Document, Fingerprint, Options};
use fpdb_benches::latency;
use fpdb_benches::rng::Rng;

const FEATURES: usize = 60;
/// Queries answered just after a database is opened.
const FRESH_QUERIES: usize = 10_000;
/// Queries timed one by one, warm.
const WARM_QUERIES: usize = 2048;

fn n() -> usize {
    fpdb_benches::env_usize("FPDB_CONFIRM_BENCH_N", 1_000_000)
}

/// Weak bits a quarter, of the documents and of the weak-bit rule (the
/// recommended rule's 5 unless asked otherwise).
fn weak_bits() -> u32 {
    u32::try_from(fpdb_benches::env_usize(
        "FPDB_CONFIRM_BENCH_WEAK_BITS",
        Confirmation::recommended().weak_bits() as usize,
    ))
    .unwrap()
}

fn signature(features: &[u64]) -> Signature {
    let layout = Confirmation::recommended().layout();
    Signature::from_feature_hashes(layout, features).unwrap()
}

/// N random documents: fingerprints, features and weak bits
/// (`per_quarter` a quarter, from random vote sizes).
struct Corpus {
    fingerprints: Vec<u64>,
    features: Vec<Vec<u64>>,
    weak: Vec<WeakBits>,
}

impl Corpus {
    fn new(rng: &mut Rng, n: usize, per_quarter: u32) -> Corpus {
        let features = (0..n)
            .map(|_| (0..FEATURES).map(|_| rng.next_u64()).collect())
            .collect();
        let fingerprints = (0..n).map(|_| rng.next_u64()).collect();
        let weak = (0..n)
            .map(|_| {
                let sizes: [u64; 64] = std::array::from_fn(|_| rng.next_u64() % 1000);
                WeakBits::of_vote_sizes(&sizes, per_quarter)
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

/// A database of `corpus` under `confirmation` (bare fingerprints when
/// `None`), bulk loaded, and its path.
fn load(dir: &Path, corpus: &Corpus, confirmation: Option<Confirmation>) -> std::path::PathBuf {
    let n = corpus.fingerprints.len();
    let signed = confirmation.is_some();
    let options = Options::default()
        .expected_size(n as u64)
        .confirmation(confirmation);
    let path = dir.join("db");
    let mut db = Db::create(&path, options).unwrap();
    let started = Instant::now();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    for (i, (&fp, features)) in corpus.fingerprints.iter().zip(&corpus.features).enumerate() {
        let id = format!("doc{i}");
        if signed {
            loader
                .add_document(&id, &corpus.document(fp, features, i))
                .unwrap();
        } else {
            loader.add(&id, Fingerprint(fp)).unwrap();
        }
    }
    loader.finish().unwrap();
    drop(db);
    println!(
        "bulk loaded {n} {} documents in {:.1} s: {:.1} bytes per document on disk",
        if signed { "signed" } else { "bare" },
        started.elapsed().as_secs_f64(),
        bytes_on_disk(&path) as f64 / n as f64
    );
    path
}

/// The bytes of every file under `path`.
fn bytes_on_disk(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                bytes_on_disk(&entry.path())
            } else {
                meta.len()
            }
        })
        .sum()
}

/// Opens the database at `path` and times `answer`, which answers
/// `queries` queries and returns how many matches it found: a fresh
/// process's work, less its start.
fn fresh(path: &Path, name: &str, queries: usize, answer: impl Fn(&Db) -> usize) -> Db {
    let started = Instant::now();
    let db = Db::open(path).unwrap();
    let opened = started.elapsed();
    let found = answer(&db);
    let all = started.elapsed();
    println!(
        "fresh open, {name} ({}): open {:.1} ms, {queries} queries in {:.1} ms ({:.1} µs a query), {found} found",
        db.design_name(),
        opened.as_secs_f64() * 1e3,
        all.as_secs_f64() * 1e3,
        (all - opened).as_secs_f64() * 1e6 / queries as f64
    );
    db
}

fn confirm(c: &mut Criterion) {
    let n = n();
    let mut rng = Rng::new(11);
    let per_quarter = weak_bits();
    let corpus = Corpus::new(&mut rng, n, per_quarter);
    let radius = Confirmation::signatures_alone().radius();
    let all_queries: Vec<Document> = (0..FRESH_QUERIES)
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
    let all_fps: Vec<Fingerprint> = all_queries.iter().map(|q| q.fingerprint).collect();
    let baseline = tempfile::tempdir().unwrap();
    let path = load(baseline.path(), &corpus, None);
    for (name, strategy) in [
        ("one by one", BatchStrategy::Probe),
        ("as a batch", BatchStrategy::Merge),
    ] {
        fresh(
            &path,
            &format!("Db::query k=3, bare, {name}"),
            FRESH_QUERIES,
            |db| {
                let answers = db.query_batch_with(&all_fps, 3, strategy).unwrap();
                answers.iter().map(Vec::len).sum()
            },
        );
    }
    drop(baseline);
    let (queries, fps) = (&all_queries[..WARM_QUERIES], &all_fps[..WARM_QUERIES]);
    let rules = [
        (
            "every candidate within 12 bits, theta 0.50".to_string(),
            Confirmation::signatures_alone(),
        ),
        (
            format!("weak bits ({per_quarter} a quarter), theta 0.45, shared >= 7"),
            Confirmation::recommended()
                .with_weak_bits(per_quarter)
                .unwrap(),
        ),
    ];
    let mut group = c.benchmark_group(format!("confirm_n{n}"));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for (name, confirmation) in rules {
        let dir = tempfile::tempdir().unwrap();
        let path = load(dir.path(), &corpus, Some(confirmation));
        let mut opened = None;
        for (how, strategy) in [
            ("one by one", BatchStrategy::Probe),
            ("as a batch", BatchStrategy::Merge),
        ] {
            // One handle at a time: a database has one writer.
            drop(opened.take());
            opened = Some(fresh(
                &path,
                &format!("Db::find ({name}), {how}"),
                FRESH_QUERIES,
                |db| {
                    let rule = db.match_rule(db.k());
                    let answers = db.find_batch_with(&all_queries, &rule, strategy).unwrap();
                    answers.iter().map(Vec::len).sum()
                },
            ));
        }
        let db = opened.unwrap();
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
            find_percentiles(&db, queries, &rule);
        }
        println!(
            "Db::find ({name}) n={n}, warm: {}",
            find_percentiles(&db, queries, &rule)
        );
        println!(
            "Db::query k={} n={n}, warm: {}",
            db.k(),
            latency::percentiles(&db, fps, db.k())
        );
        // Every block of the 10,000 read twice, so kept.
        db.find_batch_with(&all_queries, &rule, BatchStrategy::Probe)
            .unwrap();
        for (how, strategy) in [
            ("one by one", BatchStrategy::Probe),
            ("as a batch", BatchStrategy::Merge),
        ] {
            let started = Instant::now();
            let answers = db.find_batch_with(&all_queries, &rule, strategy).unwrap();
            println!(
                "Db::find_batch ({name}) n={n}, warm, {FRESH_QUERIES} {how}: {:.1} µs a query, {} found",
                started.elapsed().as_secs_f64() * 1e6 / FRESH_QUERIES as f64,
                answers.iter().map(Vec::len).sum::<usize>()
            );
        }
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
