//! The hash of a feature (a word, a shingle): what each feature votes
//! with, and how the stop-word table and the tokenizer recognise a word
//! without hashing it twice.

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Seed of the xxh3-64 hash of each feature's UTF-8 bytes. Part of the
/// fingerprint definition: changing it changes every fingerprint.
pub const FEATURE_HASH_SEED: u64 = 0x6670_6462_5f73_6831; // "fpdb_sh1"

/// The 64-bit hash of one feature.
#[inline]
pub fn hash_feature(feature: &str) -> u64 {
    xxh3_64_with_seed(feature.as_bytes(), FEATURE_HASH_SEED)
}
