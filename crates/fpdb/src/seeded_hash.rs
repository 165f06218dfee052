//! A fast, seeded hasher for the write path's hash maps.
//!
//! A write batch keeps several maps keyed by document id and fingerprint,
//! and the delta a set of removed fingerprints; the standard SipHash showed
//! as a few percent of a 10M-fingerprint online build. Ids and
//! fingerprints come from crawled pages, i.e. from anyone, so the hash
//! stays keyed: strings go through XXH3 with a per-process random seed, and
//! integers through a seeded folded multiply.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// A `HashMap` with [`SeededState`].
pub(crate) type FastMap<K, V> = HashMap<K, V, SeededState>;
/// A `HashSet` with [`SeededState`].
pub(crate) type FastSet<T> = HashSet<T, SeededState>;

/// Builds [`SeededHasher`]s that share one random seed per process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SeededState {
    seed: u64,
}

impl Default for SeededState {
    fn default() -> Self {
        static SEED: OnceLock<u64> = OnceLock::new();
        let seed = *SEED.get_or_init(|| RandomState::new().hash_one(0x5eed_u64));
        SeededState { seed }
    }
}

impl BuildHasher for SeededState {
    type Hasher = SeededHasher;

    fn build_hasher(&self) -> SeededHasher {
        SeededHasher { state: self.seed }
    }
}

/// The hasher of [`SeededState`].
#[derive(Debug, Clone)]
pub(crate) struct SeededHasher {
    state: u64,
}

/// An odd constant with well-spread bits (the golden ratio's fraction).
const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;

/// Multiplies into 128 bits and folds the halves: every input bit reaches
/// every output bit.
#[inline]
#[expect(
    clippy::cast_possible_truncation,
    reason = "taking the low half of the product is the point"
)]
fn fold_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

impl Hasher for SeededHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.state = xxh3_64_with_seed(bytes, self.state);
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.state = fold_multiply(self.state ^ n, MULTIPLIER);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // One more round, so that the last word written is mixed into the
        // high bits that hashbrown uses for its control bytes.
        fold_multiply(self.state, MULTIPLIER ^ 0xff51_afd7_ed55_8ccd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash_of(value: impl Hash) -> u64 {
        SeededState::default().hash_one(value)
    }

    #[test]
    fn equal_values_hash_equal_and_neighbours_differ() {
        assert_eq!(
            hash_of("https://example.com/1"),
            hash_of("https://example.com/1")
        );
        assert_ne!(
            hash_of("https://example.com/1"),
            hash_of("https://example.com/2")
        );
        assert_eq!(hash_of(42u64), hash_of(42u64));
        assert_ne!(hash_of(42u64), hash_of(43u64));
        // A string and its prefix with the next byte moved into a new
        // string hash apart (str's Hash writes a terminator).
        assert_ne!(hash_of(("ab", "c")), hash_of(("a", "bc")));
    }

    #[test]
    fn low_and_high_bits_both_vary() {
        // hashbrown indexes buckets with low bits and tags entries with
        // the top 7: sequential keys must spread over both.
        let hashes: Vec<u64> = (0u64..4096).map(hash_of).collect();
        let low: FastSet<u64> = hashes.iter().map(|h| h & 0xfff).collect();
        let high: FastSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert!(low.len() > 2400, "{} distinct low 12-bit values", low.len());
        assert_eq!(high.len(), 128);
    }
}
