//! What signing a text costs beyond its fingerprint: each slot's minimum
//! hash over its shingles (`slot_minima`, 64 slots under the recommended
//! layout), against the same minima computed slot hash by slot hash
//! (`slot_hash` of every shingle, the definition the library's loop
//! must equal), over the shingles of an article of about 1,300 Chinese
//! characters (700 word features); and the share of digits that decides
//! whether numbers are among its features (`digit_permille`), against
//! the standard library's character classes, over the articles of
//! data/text. And the fingerprint under learned weights, made from the
//! same features (`LearnedIdf::fingerprint`), against its per-bit sums
//! written out.
//!
//! ```text
//! cargo bench -p fpdb-benches --bench signature
//! ```
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fpdb_benches::articles::{article_paragraphs, default_articles_dir};
use fpdb_benches::rng::Rng;
use fpdb_simhash::{
    digit_permille, shingle_hash, slot_hash, slot_minima, Fingerprint, LearnedIdf, SignatureLayout,
};

/// Word features of an article of about 1,300 Chinese characters.
const FEATURES: usize = 700;

/// The minima by their definition: every slot's hash of every shingle.
fn by_definition(layout: SignatureLayout, features: &[u64]) -> Vec<u64> {
    let mut minima = vec![u64::MAX; usize::from(layout.hashes())];
    let width = usize::from(layout.shingle()).min(features.len());
    for window in features.windows(width) {
        let shingle = shingle_hash(window);
        for (slot, minimum) in (0u16..).zip(minima.iter_mut()) {
            *minimum = (*minimum).min(slot_hash(slot, shingle));
        }
    }
    minima
}

/// Digits per thousand letters and digits, by the standard library's
/// character classes.
fn permille_by_std(text: &str) -> u16 {
    let (mut digits, mut alphanumeric) = (0u64, 0u64);
    for c in text.chars() {
        if c.is_numeric() {
            digits += 1;
            alphanumeric += 1;
        } else if c.is_alphanumeric() {
            alphanumeric += 1;
        }
    }
    u16::try_from((digits * 1000).checked_div(alphanumeric).unwrap_or(0)).unwrap()
}

/// The fingerprint under learned weights as the library made it before:
/// each weight found by a binary search of the whole table, and per bit
/// the weight of the features that set it (a 64-bit multiply by 0 or 1),
/// against the total.
fn learned_by_definition(table: &[(u64, u32)], features: &[u64]) -> Fingerprint {
    let (mut set, mut total) = ([0i64; 64], 0i64);
    for &hash in features {
        let weight = table
            .binary_search_by_key(&hash, |entry| entry.0)
            .map_or(0, |i| i64::from(table[i].1));
        for (bit, sum) in set.iter_mut().enumerate() {
            let is_set = i64::from(((hash >> (63 - bit)) & 1) == 1);
            *sum += is_set * weight;
        }
        total += weight;
    }
    Fingerprint(set.iter().fold(0, |value, &sum| {
        (value << 1) | u64::from(2 * sum - total > 0)
    }))
}

fn signature(c: &mut Criterion) {
    let mut rng = Rng::new(5);
    let features: Vec<u64> = (0..FEATURES).map(|_| rng.next_u64()).collect();
    let layout = SignatureLayout::RECOMMENDED;
    assert_eq!(
        slot_minima(layout, &features).unwrap(),
        by_definition(layout, &features)
    );
    let mut group = c.benchmark_group(format!("slot_minima_{FEATURES}_features"));
    group.throughput(Throughput::Elements(FEATURES as u64));
    group.bench_function("by_definition", |b| {
        b.iter(|| by_definition(layout, black_box(&features)));
    });
    group.bench_function("slot_minima", |b| {
        b.iter(|| slot_minima(layout, black_box(&features)).unwrap());
    });
    group.finish();

    // A crawl of 2,000 documents drawn from a vocabulary of 100,000
    // words (the news articles' table holds 112,913), the features' own
    // among them, so that most have weights.
    let vocabulary: Vec<u64> = (0..100_000).map(|_| rng.next_u64()).collect();
    let crawl: Vec<Vec<u64>> = (0..2_000)
        .map(|_| {
            (0..300)
                .map(|_| vocabulary[rng.below(vocabulary.len())])
                .collect()
        })
        .collect();
    let idf = LearnedIdf::learn(crawl.iter().map(Vec::as_slice));
    let words: Vec<u64> = (0..FEATURES)
        .map(|_| vocabulary[rng.below(vocabulary.len())])
        .collect();
    let table: Vec<(u64, u32)> = idf.entries().collect();
    assert_eq!(
        idf.fingerprint(&words),
        learned_by_definition(&table, &words)
    );
    let mut group = c.benchmark_group(format!("learned_fingerprint_{FEATURES}_features"));
    group.throughput(Throughput::Elements(FEATURES as u64));
    group.bench_function("by_definition", |b| {
        b.iter(|| learned_by_definition(&table, black_box(&words)));
    });
    group.bench_function("learned_fingerprint", |b| {
        b.iter(|| idf.fingerprint(black_box(&words)));
    });
    group.finish();

    let texts = article_paragraphs(&default_articles_dir(), 50, 2000).unwrap();
    for text in &texts {
        assert_eq!(digit_permille(text), permille_by_std(text));
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut group = c.benchmark_group("digit_permille_data_text");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("by_std", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| u64::from(permille_by_std(black_box(t))))
                .sum::<u64>()
        });
    });
    group.bench_function("digit_permille", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| u64::from(digit_permille(black_box(t))))
                .sum::<u64>()
        });
    });
    group.finish();
}

criterion_group!(benches, signature);
criterion_main!(benches);
