//! How many stored fingerprints a query's weak bits reach within each
//! radius, on N random fingerprints: what a weak-bit query reads from
//! `fp_ids` and judges besides its true matches (each such read costs a
//! lookup, which is why the radius is not free under weak bits).
//!
//! Usage: `weak_bit_reach [N]` (default 10,000,000): random stored
//! fingerprints in the split-4 design (`MemIndex`), 2,000 random queries
//! with the recommended rule's weak bits a quarter from random vote sizes
//! (and its cap on how many of them a reach flips), at radii 12, 14 and
//! 16.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench code: a broken setup should panic loudly"
)]

use fpdb::simhash::WeakBits;
use fpdb::{Confirmation, Fingerprint};
use fpdb_benches::rng::Rng;
use fpdb_codec::{MemIndex, TableDesign, DEFAULT_BLOCK_BYTES};

const QUERIES: usize = 2_000;

fn main() {
    let n = fpdb_benches::env_usize("FPDB_REACH_N", 10_000_000);
    let n = std::env::args()
        .nth(1)
        .map_or(n, |arg| arg.parse().unwrap());
    let mut rng = Rng::new(7);
    let mut stored: Vec<Fingerprint> = (0..n).map(|_| Fingerprint(rng.next_u64())).collect();
    stored.sort_unstable();
    stored.dedup();
    let index = MemIndex::build(
        TableDesign::levels(3, &[4]).unwrap(),
        &stored,
        DEFAULT_BLOCK_BYTES,
    )
    .unwrap();
    let rule = Confirmation::recommended();
    for radius in [12, 14, 16] {
        let mut reached = 0;
        for _ in 0..QUERIES {
            let sizes: [u64; 64] = std::array::from_fn(|_| rng.next_u64() % 1000);
            let weak = WeakBits::of_vote_sizes(&sizes, rule.weak_bits());
            let query = Fingerprint(rng.next_u64());
            reached += index
                .query_weak_bits(query, weak, rule.weak_flips(), radius)
                .unwrap()
                .unwrap()
                .len();
        }
        println!(
            "N = {n}, radius {radius}: {:.1} stored fingerprints reached a random query",
            reached as f64 / QUERIES as f64
        );
    }
}
