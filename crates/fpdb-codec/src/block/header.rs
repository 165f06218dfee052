//! The 8-byte header in front of every encoded block.
//!
//! ```text
//! offset  size  field (integers big-endian)
//! 0       1     format version = 1
//! 1       2     count: keys in the block, 1..=65535
//! 3       1     padding: zero bits after the last key in the last
//!               payload byte, 0..=7
//! 4       4     checksum: low 32 bits of xxh3-64 of the payload, seeded
//!               with xxh3-64 of header bytes 0..4
//! 8       …     payload: the rest of the block
//! ```
//!
//! The payload's bit length is `8 × (block length − 8) − padding`. The header
//! is small on purpose: at ~170 keys per 1 KiB block every header byte costs
//! 0.05 bits per key, so blocks are not framed like the other structures
//! (`crate::format`; a frame would add 10 bytes) — their length is the
//! stored value's — but their version and checksum go through the same
//! checks and errors. It is validated before any key is decoded so that the
//! decoder's work and allocation are bounded by the block's length: every
//! key after the first takes at least one bit, so
//! `count − 1 ≤ payload bits − 64`.

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::bits::low_u32;
use crate::error::CodecError;
use crate::format::{check, Kind};

/// Version of the block format written by this build.
pub const BLOCK_FORMAT_VERSION: u8 = 1;

/// Most keys one block can hold (the count is a `u16`).
pub const MAX_BLOCK_KEYS: usize = u16::MAX as usize;

const WHAT: &str = Kind::Block.name();

/// A parsed block header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockHeader {
    /// Number of keys in the block.
    pub count: u16,
    /// Zero bits padding the payload's last byte.
    pub padding: u8,
    /// Stored checksum over the payload (see the module docs).
    pub checksum: u32,
}

impl BlockHeader {
    /// Size of the header in bytes.
    pub const LEN: usize = 8;

    /// A header for `payload`, with its checksum computed.
    pub fn for_payload(count: u16, padding: u8, payload: &[u8]) -> BlockHeader {
        BlockHeader {
            count,
            padding,
            checksum: checksum(count, padding, payload),
        }
    }

    /// Appends the 8 header bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&prefix_bytes(self.count, self.padding));
        out.extend_from_slice(&self.checksum.to_be_bytes());
    }

    /// Bit length of a payload of `payload_bytes` bytes under this header.
    pub fn payload_bits(&self, payload_bytes: usize) -> usize {
        (payload_bytes * 8).saturating_sub(usize::from(self.padding))
    }

    /// Splits a block into its header and payload, checking everything the
    /// header promises about the payload except the checksum and that the
    /// padding bits are zero (full decodes check both).
    pub fn parse(block: &[u8]) -> Result<(BlockHeader, &[u8]), CodecError> {
        let Some(&version) = block.first() else {
            return Err(CodecError::Truncated {
                what: WHAT,
                needed: BlockHeader::LEN,
                found: 0,
            });
        };
        check::version(Kind::Block, version, &[BLOCK_FORMAT_VERSION])?;
        let Some((&[_, count_high, count_low, padding, c0, c1, c2, c3], payload)) =
            block.split_first_chunk::<{ BlockHeader::LEN }>()
        else {
            return Err(CodecError::Truncated {
                what: WHAT,
                needed: BlockHeader::LEN,
                found: block.len(),
            });
        };
        let header = BlockHeader {
            count: u16::from_be_bytes([count_high, count_low]),
            padding,
            checksum: u32::from_be_bytes([c0, c1, c2, c3]),
        };
        if header.count == 0 {
            return Err(CodecError::corrupt(WHAT, "count is zero"));
        }
        if header.padding > 7 {
            return Err(CodecError::corrupt(WHAT, format!("{padding} padding bits")));
        }
        let payload_bits = header.payload_bits(payload.len());
        if payload_bits < 64 {
            return Err(CodecError::corrupt(
                WHAT,
                "payload shorter than the first key",
            ));
        }
        if usize::from(header.count) - 1 > payload_bits - 64 {
            return Err(CodecError::corrupt(
                WHAT,
                format!(
                    "{} keys cannot fit in {payload_bits} payload bits",
                    header.count
                ),
            ));
        }
        // The padding bits' being zero is checked by full decodes: reading
        // the last byte here would cost a cache miss on every probe.
        Ok((header, payload))
    }

    /// Compares the stored checksum with the payload's.
    pub fn verify(&self, payload: &[u8]) -> Result<(), CodecError> {
        let computed = checksum(self.count, self.padding, payload);
        check::checksum(Kind::Block, u64::from(self.checksum), u64::from(computed))
    }
}

/// Wraps an arbitrary payload of `payload_bits` bits (the bytes beyond them
/// are dropped) in a header with a matching checksum. The encoder uses it,
/// and so do fuzzers, to get past the checksum and exercise the decoder on
/// garbage payloads.
pub fn seal_block(count: u16, payload_bits: usize, payload: &[u8]) -> Vec<u8> {
    // The bytes holding `payload_bits`, or all of a shorter payload.
    #[expect(
        clippy::indexing_slicing,
        reason = "the end is capped at the payload's length"
    )]
    let payload = &payload[..payload_bits.div_ceil(8).min(payload.len())];
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a count of padding bits is below 8"
    )]
    let padding = ((8 - payload_bits % 8) % 8) as u8;
    let mut block = Vec::with_capacity(BlockHeader::LEN + payload.len());
    BlockHeader::for_payload(count, padding, payload).write(&mut block);
    block.extend_from_slice(payload);
    block
}

fn prefix_bytes(count: u16, padding: u8) -> [u8; 4] {
    let [count_high, count_low] = count.to_be_bytes();
    [BLOCK_FORMAT_VERSION, count_high, count_low, padding]
}

fn checksum(count: u16, padding: u8, payload: &[u8]) -> u32 {
    let seed = xxh3_64(&prefix_bytes(count, padding));
    low_u32(xxh3_64_with_seed(payload, seed))
}
