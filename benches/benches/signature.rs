//! The confirming signature's cost: each slot's minimum hash over a
//! text's shingles (`slot_minima`, 64 slots under the recommended
//! layout), against the same minima computed slot hash by slot hash
//! (`slot_hash` of every shingle, the definition the library's loop
//! must equal), over the shingles of an article of about 1,300 Chinese
//! characters (700 word features).
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
use fpdb_benches::rng::Rng;
use fpdb_simhash::{shingle_hash, slot_hash, slot_minima, SignatureLayout};

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
}

criterion_group!(benches, signature);
criterion_main!(benches);
