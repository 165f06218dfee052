//! A fresh process answering 10,000 queries under the recommended
//! two-stage rule, or at the paper's k = 3 on bare fingerprints: what
//! `fpdb query` of a batch costs, measured as a whole process opens and
//! answers a database in the page cache (the `confirm` bench's "fresh"
//! figures read databases it has just bulk loaded, whose files the SST
//! writer dropped from the page cache, so they measure reads from disk).
//!
//! ```text
//! fresh_find DIR N                  # build DIR/signed-N and DIR/bare-N once
//! fresh_find DIR N signed batch     # open, answer 10,000 as a batch, print
//! fresh_find DIR N bare batch       # the same at k = 3, bare fingerprints
//! fresh_find DIR N signed one-by-one
//! fresh_find DIR N signed warm      # then percentiles of 2,048 single calls, warm
//! ```
//!
//! The documents are the `confirm` bench's kind: random fingerprints, the
//! recommended signature over 60 random feature hashes, the recommended
//! rule's weak bits a quarter from random vote sizes, ids `doc0`…; document `i` is made from
//! seed `i`, so queries can be made without the corpus. Queries: stored
//! documents with 0 to 12 bits of the fingerprint flipped and up to all
//! features replaced. Alternate the runs being compared: one run on this
//! machine says little.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::path::Path;
use std::time::{Duration, Instant};

use fpdb::simhash::{Signature, WeakBits};
use fpdb::{BatchStrategy, BulkOptions, Confirmation, Db, Document, Fingerprint, Options};
use fpdb_benches::rng::Rng;

const FEATURES: usize = 60;
const QUERIES: usize = 10_000;
const MAX_FLIPS: usize = 12;
/// Single calls timed warm.
const WARM_QUERIES: usize = 2_048;

/// Document `i`: its fingerprint, feature hashes and weak bits.
fn item(i: usize) -> (u64, Vec<u64>, WeakBits) {
    let mut rng = Rng::new(1_000 + i as u64);
    let fp = rng.next_u64();
    let features = (0..FEATURES).map(|_| rng.next_u64()).collect();
    let sizes: [u64; 64] = std::array::from_fn(|_| rng.next_u64() % 1000);
    let per_quarter = Confirmation::recommended().weak_bits();
    (fp, features, WeakBits::of_vote_sizes(&sizes, per_quarter))
}

fn document(fp: u64, features: &[u64], weak: WeakBits) -> Document {
    let layout = Confirmation::recommended().layout();
    Document {
        fingerprint: Fingerprint(fp),
        signature: Some(Signature::from_feature_hashes(layout, features).unwrap()),
        shingles: u32::try_from(features.len() - 1).unwrap(),
        weak_bits: Some(weak),
    }
}

fn build(path: &Path, n: usize, signed: bool) {
    let confirmation = signed.then(Confirmation::recommended);
    let options = Options::default()
        .expected_size(n as u64)
        .confirmation(confirmation);
    let mut db = Db::create(path, options).unwrap();
    let started = Instant::now();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    for i in 0..n {
        let (fp, features, weak) = item(i);
        let id = format!("doc{i}");
        if signed {
            loader
                .add_document(&id, &document(fp, &features, weak))
                .unwrap();
        } else {
            loader.add(&id, Fingerprint(fp)).unwrap();
        }
    }
    loader.finish().unwrap();
    println!(
        "{}: {n} documents loaded in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
}

fn queries(n: usize) -> Vec<Document> {
    let mut rng = Rng::new(11);
    (0..QUERIES)
        .map(|_| {
            let (mut fp, mut features, weak) = item(rng.below(n));
            for _ in 0..rng.below(MAX_FLIPS + 1) {
                fp ^= 1 << rng.below(64);
            }
            for feature in features.iter_mut().take(rng.below(FEATURES)) {
                *feature = rng.next_u64();
            }
            document(fp, &features, weak)
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, n, rest @ ..] = args.as_slice() else {
        panic!("usage: fresh_find DIR N [signed|bare batch|one-by-one]");
    };
    let n: usize = n.parse().unwrap();
    let signed_path = Path::new(dir).join(format!("signed-{n}"));
    let bare_path = Path::new(dir).join(format!("bare-{n}"));
    let [kind, how] = rest else {
        for (path, signed) in [(&signed_path, true), (&bare_path, false)] {
            if !path.exists() {
                build(path, n, signed);
            }
        }
        return;
    };
    let queries = queries(n);
    if how == "warm" {
        warm(&signed_path, &bare_path, kind, &queries);
        return;
    }
    let strategy = match how.as_str() {
        "batch" => BatchStrategy::Merge,
        "one-by-one" => BatchStrategy::Probe,
        other => panic!("unknown way {other}: batch, one-by-one or warm"),
    };
    let started = Instant::now();
    let (found, opened) = match kind.as_str() {
        "signed" => {
            let db = Db::open(&signed_path).unwrap();
            let opened = started.elapsed();
            let rule = db.match_rule(db.k());
            let answers = db.find_batch_with(&queries, &rule, strategy).unwrap();
            (answers.iter().map(Vec::len).sum::<usize>(), opened)
        }
        "bare" => {
            let db = Db::open(&bare_path).unwrap();
            let opened = started.elapsed();
            let fps: Vec<Fingerprint> = queries.iter().map(|q| q.fingerprint).collect();
            let answers = db.query_batch_with(&fps, db.k(), strategy).unwrap();
            (answers.iter().map(Vec::len).sum::<usize>(), opened)
        }
        other => panic!("unknown kind {other}: signed or bare"),
    };
    let answered = started.elapsed() - opened;
    println!(
        "{kind} {how}: open {:.1} ms, {QUERIES} queries {:.1} µs a query, {found} found",
        opened.as_secs_f64() * 1e3,
        answered.as_secs_f64() * 1e6 / QUERIES as f64
    );
}

/// Single calls once every block the queries read was read twice (so
/// kept in memory): p50, p90 and p99 of the first [`WARM_QUERIES`], the
/// third time they are asked.
fn warm(signed_path: &Path, bare_path: &Path, kind: &str, queries: &[Document]) {
    let signed = kind == "signed";
    let db = Db::open(if signed { signed_path } else { bare_path }).unwrap();
    let rule = db.match_rule(db.k());
    let fps: Vec<Fingerprint> = queries.iter().map(|q| q.fingerprint).collect();
    let ask = |i: usize| {
        if signed {
            std::hint::black_box(db.find(&queries[i], &rule).unwrap());
        } else {
            std::hint::black_box(db.query(fps[i], db.k()).unwrap());
        }
    };
    for _ in 0..2 {
        (0..queries.len()).for_each(ask);
    }
    let mut took: Vec<Duration> = (0..WARM_QUERIES)
        .map(|i| {
            let started = Instant::now();
            ask(i);
            started.elapsed()
        })
        .collect();
    took.sort_unstable();
    let at = |share: f64| took[((took.len() - 1) as f64 * share) as usize];
    println!(
        "{kind} warm: p50 {:.1?} p90 {:.1?} p99 {:.1?}",
        at(0.5),
        at(0.9),
        at(0.99)
    );
}
