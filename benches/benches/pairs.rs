//! All near-duplicate pairs at k = 3: `fpdb::dedup` over a corpus in
//! memory, and `Db::near_pairs` inside a database, each against a
//! brute-force all-pairs scan of a smaller set in the same run.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench pairs
//! FPDB_PAIRS_BENCH_N=200000 cargo bench -p fpdb-benches --bench pairs
//! ```
//!
//! N random fingerprints (default 1,000,000). Both paths run on one thread:
//! `fpdb::dedup` never spawns threads, and `Db::near_pairs` scans the
//! tables one after another on the caller's thread.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fpdb::dedup;
use fpdb::{Db, Fingerprint, Options};
use fpdb_benches::rng::Rng;

const K: u32 = 3;

/// Size of the set the brute-force baseline compares all pairs of.
const BRUTE_N: usize = 20_000;

fn n() -> usize {
    fpdb_benches::env_usize("FPDB_PAIRS_BENCH_N", 1_000_000)
}

fn brute_force_pairs(fps: &[Fingerprint], k: u32) -> usize {
    let mut count = 0;
    for (i, a) in fps.iter().enumerate() {
        count += fps[i + 1..].iter().filter(|b| a.distance(**b) <= k).count();
    }
    count
}

/// `n` random fingerprints, then every tenth replaced by a copy of an
/// earlier one with 0 to 3 bits flipped, so there are pairs to report.
fn planted(n: usize, rng: &mut Rng) -> Vec<Fingerprint> {
    let mut fps: Vec<Fingerprint> = (0..n).map(|_| Fingerprint(rng.next_u64())).collect();
    for i in (10..n).step_by(10) {
        let mut fp = fps[rng.below(i)].0;
        for _ in 0..rng.below(4) {
            fp ^= 1 << rng.below(64);
        }
        fps[i] = Fingerprint(fp);
    }
    fps
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    println!("{what}: {:.3} s", started.elapsed().as_secs_f64());
    out
}

fn pairs(c: &mut Criterion) {
    let n = n();
    let mut rng = Rng::new(11);
    let random: Vec<Fingerprint> = (0..n).map(|_| Fingerprint(rng.next_u64())).collect();
    let with_pairs = planted(n, &mut rng);
    let small = &with_pairs[..BRUTE_N.min(n)];

    // Exactness on the small set before timing anything.
    assert_eq!(
        dedup::near_pairs(small, K).unwrap().len(),
        brute_force_pairs(small, K)
    );
    let found = timed(
        &format!("dedup::near_pairs random n={n} k={K} (single run)"),
        || dedup::near_pairs(&random, K).unwrap().len(),
    );
    println!("  {found} pairs");
    let found = timed(
        &format!("dedup::near_pairs planted n={n} k={K} (single run)"),
        || dedup::near_pairs(&with_pairs, K).unwrap().len(),
    );
    println!("  {found} pairs");

    let mut group = c.benchmark_group("pairs");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function(format!("dedup_near_pairs_random_n{n}_k{K}"), |b| {
        b.iter(|| black_box(dedup::near_pairs(&random, K).unwrap()))
    });
    group.bench_function(format!("dedup_near_pairs_planted_n{n}_k{K}"), |b| {
        b.iter(|| black_box(dedup::near_pairs(&with_pairs, K).unwrap()))
    });
    group.bench_function(format!("dedup_near_pairs_n{}_k{K}", small.len()), |b| {
        b.iter(|| black_box(dedup::near_pairs(small, K).unwrap()))
    });
    group.bench_function(
        format!("brute_force_all_pairs_n{}_k{K}", small.len()),
        |b| b.iter(|| black_box(brute_force_pairs(small, K))),
    );

    // A database of the planted set, built online and compacted.
    let dir = tempfile::tempdir().unwrap();
    let options = Options::default().expected_size(n as u64);
    let db = Db::create(dir.path().join("db"), options).unwrap();
    let built = Instant::now();
    for (chunk_index, chunk) in with_pairs.chunks(10_000).enumerate() {
        let batch: Vec<(String, Fingerprint)> = chunk
            .iter()
            .enumerate()
            .map(|(i, &fp)| (format!("doc-{}", chunk_index * 10_000 + i), fp))
            .collect();
        db.insert_batch(&batch).unwrap();
    }
    db.compact().unwrap();
    println!(
        "built {} with {} ({} tables) in {:.1} s",
        db.path().display(),
        db.design_name(),
        db.table_count(),
        built.elapsed().as_secs_f64()
    );
    let pairs = timed(&format!("Db::near_pairs n={n} k={K} (single run)"), || {
        db.near_pairs(K).unwrap()
    });
    let id_pairs: usize = pairs.iter().map(|p| p.id_pairs().len()).sum();
    println!("  {} fingerprint pairs, {id_pairs} id pairs", pairs.len());
    assert_eq!(id_pairs, dedup::near_pairs(&with_pairs, K).unwrap().len());
    group.bench_function(format!("db_near_pairs_n{n}_k{K}"), |b| {
        b.iter(|| black_box(db.near_pairs(K).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, pairs);
criterion_main!(benches);
