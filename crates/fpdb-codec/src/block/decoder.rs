//! Decoding blocks: the hot path of every query.
//!
//! Each key costs one 128-bit window load at the current bit position, one
//! table lookup for the code word of `h` (see [`HuffmanCode`]), and a few
//! shifts to splice the residual under the predecessor's top `h` bits. The
//! header is validated first, so the loop runs at most `count` times and
//! writes into a vector no larger than the block could describe; a position
//! past the payload or a key that does not ascend stops decoding with
//! [`CodecError::Corrupt`].

use super::header::BlockHeader;
use crate::bits::{bytes_at, read_bits};
use crate::error::CodecError;
use crate::huffman::HuffmanCode;
use crate::huffman::{entry_advance, entry_from, entry_h, entry_length};
use crate::LUT_BITS;

const WHAT: &str = "block";

/// Whether decoding verifies the block checksum first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChecksumPolicy {
    /// Hash the payload and compare (for bytes read from storage).
    #[default]
    Verify,
    /// Trust the bytes (for blocks this process built and kept in memory,
    /// or storage that checksums on its own). Decoding stays panic-free and
    /// bounded; only silent corruption may go unnoticed.
    Skip,
}

/// Decodes blocks encoded with one table's code.
#[derive(Debug, Clone, Copy)]
pub struct BlockDecoder<'c> {
    code: &'c HuffmanCode,
    checksums: ChecksumPolicy,
}

impl<'c> BlockDecoder<'c> {
    /// A decoder for blocks encoded with `code`.
    pub fn new(code: &'c HuffmanCode, checksums: ChecksumPolicy) -> Self {
        BlockDecoder { code, checksums }
    }

    /// Replaces the contents of `out` with all keys of the block.
    pub fn decode(&self, block: &[u8], out: &mut Vec<u64>) -> Result<(), CodecError> {
        self.decode_until(block, u64::MAX, out)
    }

    /// Replaces the contents of `out` with the block's keys up to and
    /// including `upper`, stopping at the first key above it (the rest of
    /// the payload is not decoded).
    pub fn decode_until(
        &self,
        block: &[u8],
        upper: u64,
        out: &mut Vec<u64>,
    ) -> Result<(), CodecError> {
        out.clear();
        let (header, payload) = BlockHeader::parse(block)?;
        if self.checksums == ChecksumPolicy::Verify {
            header.verify(payload)?;
        }
        let result = decode_payload(
            self.code,
            payload,
            header.payload_bits(payload.len()),
            usize::from(header.count),
            upper,
            out,
        );
        if result.is_err() {
            out.clear();
        }
        result
    }
}

/// The first key of a block, read without decoding the rest.
pub fn block_first_key(block: &[u8]) -> Result<u64, CodecError> {
    let (_, payload) = BlockHeader::parse(block)?;
    Ok(read_bits(payload, 0, 64))
}

/// Decodes a validated payload: `count ≥ 1` keys in exactly
/// `payload_bits ≥ 64` bits, with `count - 1 ≤ payload_bits - 64`.
///
/// The loop is bound by one dependency chain: a key's start depends on the
/// previous key's code word. To keep memory loads off that chain, the next
/// code word is peeked out of the 16 bytes already loaded for the current
/// key (a key spans at most 24 + 63 bits, so the next key's first
/// [`LUT_BITS`](crate::LUT_BITS) bits lie within them) while the load for
/// the next key proceeds in parallel.
fn decode_payload(
    code: &HuffmanCode,
    payload: &[u8],
    payload_bits: usize,
    count: usize,
    upper: u64,
    out: &mut Vec<u64>,
) -> Result<(), CodecError> {
    let first = read_bits(payload, 0, 64);
    if first > upper {
        return Ok(());
    }
    // `count` is bounded by the payload length (header check), so this
    // reservation is bounded by the input.
    out.reserve(count);
    out.push(first);
    let mut previous = first;
    let mut position = 64usize;
    // 16 bytes from the current key's byte; the key starts at bit
    // `position & 7` of them.
    let mut loaded = bytes_at(payload, position >> 3);
    let mut peek = (loaded >> (128 - LUT_BITS)) as usize;
    let mut stopped_early = false;
    let lookup = code.lookup_table();
    for _ in 1..count {
        let offset = (position & 7) as u32;
        // `peek` has LUT_BITS bits, so this never falls back.
        let mut entry = lookup.get(peek).copied().unwrap_or(0);
        if entry == 0 {
            let Some((length, h)) = code.decode_long(loaded << offset) else {
                return Err(CodecError::corrupt(WHAT, "no code word matches"));
            };
            entry = entry_from(length, h);
        }
        let advance = entry_advance(entry);
        // The next key starts `offset + advance ≤ 7 + 87` bits into
        // `loaded`, leaving ≥ 34 bits to peek at.
        peek = ((loaded << (offset + advance)) >> (128 - LUT_BITS)) as usize;
        // The residual starts `offset + length ≤ 7 + 24` bits into `loaded`
        // and is at most 63 bits long, so the 64 bits from there hold it.
        // Plain u64 funnel shifts: cheaper than u128 shifts, and written so
        // no shift amount reaches 64.
        let residual_start = offset + entry_length(entry);
        let residual_bits = 63 - entry_h(entry);
        let (high, low) = ((loaded >> 64) as u64, loaded as u64);
        let from_start = (high << residual_start) | ((low >> 1) >> (63 - residual_start));
        let residual = (from_start >> 1) >> (63 - residual_bits);
        position += advance as usize;
        loaded = bytes_at(payload, position >> 3);

        // `h` is where the key first differs from its predecessor, so the
        // predecessor's bit h must be 0 and the key's 1. A set bit means a
        // corrupt (or non-canonical) stream; checking it also guarantees
        // that keys ascend.
        let above = previous >> residual_bits;
        let key = ((above | 1) << residual_bits) | residual;
        if (position > payload_bits) | (above & 1 != 0) {
            return Err(corrupt_at(out.len(), position, payload_bits));
        }
        if key > upper {
            stopped_early = true;
            break;
        }
        out.push(key);
        previous = key;
    }
    if !stopped_early {
        if position != payload_bits {
            return Err(CodecError::corrupt(
                WHAT,
                format!("keys end at bit {position} of a {payload_bits}-bit payload"),
            ));
        }
        // Checked here rather than in the header: an early-stopping query
        // should not touch the block's last cache line.
        let padding = (payload.len() * 8 - payload_bits) as u32;
        let last = payload.last().copied().unwrap_or(0);
        if u32::from(last) & ((1u32 << padding) - 1) != 0 {
            return Err(CodecError::corrupt(WHAT, "padding bits are not zero"));
        }
    }
    Ok(())
}

#[cold]
fn corrupt_at(index: usize, position: usize, payload_bits: usize) -> CodecError {
    if position > payload_bits {
        CodecError::corrupt(WHAT, format!("key {index} runs past the payload end"))
    } else {
        CodecError::corrupt(
            WHAT,
            format!("key {index}: its predecessor already has bit h set"),
        )
    }
}
