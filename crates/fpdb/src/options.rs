//! What a database is created with.

use fpdb_codec::{DesignChoice, DEFAULT_BLOCK_BYTES};
use fpdb_simhash::SimhashOptions;

/// The default largest distance answered: the paper's k = 3.
pub const DEFAULT_K: u32 = 3;

/// Options fixed when a database is created (kept in its manifest).
#[derive(Debug, Clone)]
pub struct Options {
    /// Largest Hamming distance queries may ask for (0..=7).
    pub k: u32,
    /// About how many distinct fingerprints the database will hold; picks
    /// the table design when `design` is `Auto`.
    pub expected_size: u64,
    /// The permuted tables: `Auto` or a name (`4x16`, `10`, `16`, …).
    pub design: DesignChoice,
    /// Target size of a compressed block in bytes.
    pub block_bytes: usize,
    /// How text becomes fingerprints in `insert_text` / `query_text`.
    pub simhash: SimhashOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            k: DEFAULT_K,
            expected_size: 1 << 24,
            design: DesignChoice::Auto,
            block_bytes: DEFAULT_BLOCK_BYTES,
            simhash: SimhashOptions::default(),
        }
    }
}

/// Options for one open database handle (not stored).
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    /// fsync the write-ahead log before each write returns. Without it a
    /// write survives a process crash but not a power failure.
    pub sync: bool,
    /// Merge the delta into the tables once it holds this many changed
    /// fingerprints, or 1/8 of the set if that is more (see
    /// [`OpenOptions::merge_threshold`]).
    pub delta_limit: usize,
    /// Table blocks kept in memory once read, in bytes (still compressed:
    /// about 6 bytes per fingerprint per table, plus 64 bytes per block
    /// for its sync points). 0 reads every block through RocksDB's own
    /// cache.
    pub block_cache_bytes: usize,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            sync: false,
            delta_limit: 65_536,
            block_cache_bytes: 1 << 30,
        }
    }
}

impl OpenOptions {
    /// The delta size that triggers a merge in a set of `fingerprints`.
    ///
    /// A merge rewrites every block a change lands in. Once the delta is
    /// small against the set, nearly every change lands in its own block,
    /// so a fixed limit makes each insert rewrite about one block per table
    /// (at 10M fingerprints: 4 KiB written per 8-byte insert). Growing the
    /// limit with the set keeps that to one block per ~20 changes, for
    /// 1/8 of the set held in memory (8-byte keys in sorted buckets, per
    /// table). At 1/16, a 10M online build spent 41 of its 108 seconds
    /// merging; 1/8 halves the number of merges.
    pub fn merge_threshold(&self, fingerprints: u64) -> usize {
        let share = usize::try_from(fingerprints / DELTA_SHARE).unwrap_or(usize::MAX);
        self.delta_limit.max(share)
    }
}

/// The delta may grow to 1/`DELTA_SHARE` of the set before a merge.
const DELTA_SHARE: u64 = 8;
