//! Blocks of Huffman-coded, prefix-compressed sorted keys.
//!
//! A table (sorted, de-duplicated permuted fingerprints) is cut into blocks
//! of about 1 KiB. See [`encoder`] for the key encoding, [`header`] for the
//! byte layout of a block and [`decoder`] for the fast decoder;
//! [`reference`](mod@reference) is a slow bit-by-bit version of both that defines the
//! format.

pub mod decoder;
pub mod encoder;
pub mod header;
pub mod reference;
mod sync;

pub use decoder::{block_first_key, BlockDecoder, ChecksumPolicy};
pub use encoder::{BlockEncoder, EncodedBlock, DEFAULT_BLOCK_BYTES};
pub use header::{seal_block, BlockHeader, BLOCK_FORMAT_VERSION, MAX_BLOCK_KEYS};
pub use sync::{SyncPoints, SYNC_POINTS};
