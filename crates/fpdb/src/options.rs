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
    /// fingerprints.
    pub delta_limit: usize,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            sync: false,
            delta_limit: 65_536,
        }
    }
}
