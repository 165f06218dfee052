//! The pure codec of fpdb: everything about how fingerprints are laid out,
//! compressed and searched, with no I/O.
//!
//! Finding every stored 64-bit fingerprint within Hamming distance `k` of a
//! query follows Manku, Jain and Das Sarma, "Detecting Near-Duplicates for
//! Web Crawling" (WWW 2007):
//!
//! - A [`TableDesign`] keeps several copies ("tables") of the fingerprint
//!   set, each under a [`Permutation`] that moves a chosen group of `p`
//!   bits to the top. By the pigeonhole principle every pair within `k`
//!   agrees on the top `p` permuted bits in at least one table, so a query
//!   only looks at keys sharing its prefix in each table.
//! - Each table is sorted and cut into ~1 KiB blocks. Consecutive sorted
//!   keys share many leading bits, so a key is stored as the Huffman-coded
//!   position `h` of its first differing bit plus the `63 - h` bits below
//!   ([`block`], [`HuffmanCode`]): about `64 - log2(N) + 3` bits per key.
//! - A [`BlockDirectory`] of each block's last key finds the one block a
//!   prefix lives in.
//! - [`MemIndex`] puts the three together in memory; it is the reference
//!   the persistent store is checked against.
//!
//! ```
//! use fpdb_codec::{MemIndex, TableDesign, DEFAULT_BLOCK_BYTES};
//! use fpdb_fingerprint::Fingerprint;
//!
//! let design = TableDesign::from_name(3, "4x16")?; // 4 tables, p = 16
//! let stored = [
//!     Fingerprint(0x0123_4567_89ab_cdef),
//!     Fingerprint(0x0123_4567_89ab_cdef ^ 0b101), // distance 2
//!     Fingerprint(0xfedc_ba98_7654_3210),
//! ];
//! let index = MemIndex::build(design, &stored, DEFAULT_BLOCK_BYTES)?;
//!
//! // Sorted by distance, then fingerprint.
//! let hits = index.query(Fingerprint(0x0123_4567_89ab_cdef ^ 0x80), 3)?;
//! assert_eq!(hits, vec![(stored[0], 1), (stored[1], 3)]);
//!
//! // Each near pair once, smaller fingerprint first.
//! let pairs = index.near_pairs(3)?;
//! assert_eq!(pairs, vec![(stored[1], stored[0], 2)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]
// Numeric conversions say how they stay in range: `From` where lossless,
// `try_from` with an error where a value can be out of range, or an
// `#[expect]` with the reason the value fits (the hot loops keep their
// plain casts that way).
#![warn(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::cast_lossless
)]

mod bits;
pub mod block;
pub mod dedup;
mod design;
mod directory;
mod distance;
pub mod engine;
mod error;
pub mod format;
mod huffman;
pub mod manifest;
mod match_rule;
mod mem_index;
mod merge_plan;
mod permutation;
mod prefix_bitmap;
pub mod prefix_runs;
mod reach_pairs;
mod run_split;
mod stats;
mod table;
mod union_find;

pub use block::{
    block_first_key, seal_block, BlockDecoder, BlockEncoder, BlockHeader, ChecksumPolicy,
    EncodedBlock, SyncPoints, BLOCK_FORMAT_VERSION, DEFAULT_BLOCK_BYTES, MAX_BLOCK_KEYS,
    SYNC_POINTS,
};
pub use design::DESIGN_FORMAT_VERSION;
pub use design::{
    DesignChoice, DesignShape, Table, TableDesign, AUTO_CANDIDATES_PER_PROBE, AUTO_MAX_TABLES,
    MAX_K, MAX_RADIUS, MAX_TABLES,
};
pub use directory::{BlockDirectory, DirectoryCursor, DIRECTORY_FORMAT_VERSION};
pub use distance::{for_each_within, within_distance};
pub use engine::{wide_pairs_in_table, BlockSource, PairScan};
pub use error::{CodecError, DesignError};
pub use huffman::{
    h_histogram, HuffmanCode, CODE_BOOK_BYTES, CODE_BOOK_VERSION, LUT_BITS, MAX_CODE_LEN, SYMBOLS,
};
pub use match_rule::TableMatcher;
pub use mem_index::MemIndex;
pub use merge_plan::{plan_merge, MergePlan, PlannedBlock, MAX_RUN_BLOCKS};
pub use permutation::{BitRange, Permutation};
pub use prefix_runs::PrefixRuns;
pub use reach_pairs::reach_pairs;
pub use stats::bits_per_fingerprint;
pub use table::EncodedTable;
