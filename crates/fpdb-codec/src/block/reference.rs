//! A slow, obviously-correct encoder and decoder built on `bitvec`, one bit
//! at a time. It defines the format the fast paths must match bit for bit;
//! tests and fuzzers compare the two.

use std::collections::HashMap;

use bitvec::prelude::{BitVec, Msb0};

use super::header::{seal_block, BlockHeader};
use crate::error::CodecError;
use crate::huffman::HuffmanCode;

const WHAT: &str = "block";

fn push_bits(bits: &mut BitVec<u8, Msb0>, value: u64, width: u32) {
    for shift in (0..width).rev() {
        bits.push((value >> shift) & 1 == 1);
    }
}

/// Encodes strictly ascending `keys` as one block, bit by bit.
pub fn encode_block_reference(code: &HuffmanCode, keys: &[u64]) -> Result<Vec<u8>, CodecError> {
    let Some((&first, rest)) = keys.split_first() else {
        return Err(CodecError::EmptyBlock);
    };
    let mut bits: BitVec<u8, Msb0> = BitVec::new();
    push_bits(&mut bits, first, 64);
    let mut previous = first;
    for (index, &key) in (1..).zip(rest) {
        if key <= previous {
            return Err(CodecError::NotStrictlyAscending { index });
        }
        // Find h by scanning bits, not by leading_zeros (there is one:
        // the key is above its predecessor).
        let Some((h, (word, length))) = (0..64u32)
            .find(|&bit| (previous >> (63 - bit)) & 1 != (key >> (63 - bit)) & 1)
            .and_then(|h| Some((h, code.code_word(h)?)))
        else {
            return Err(CodecError::NotStrictlyAscending { index });
        };
        push_bits(&mut bits, u64::from(word), length);
        for bit in h + 1..64 {
            bits.push((key >> (63 - bit)) & 1 == 1);
        }
        previous = key;
    }
    let count =
        u16::try_from(keys.len()).map_err(|_| CodecError::BlockTooLarge { keys: keys.len() })?;
    Ok(seal_block(count, bits.len(), bits.as_raw_slice()))
}

/// Decodes a whole block bit by bit, matching code words against a map of
/// every `(length, code word)` pair. Verifies the checksum.
pub fn decode_block_reference(code: &HuffmanCode, block: &[u8]) -> Result<Vec<u64>, CodecError> {
    let (header, payload) = BlockHeader::parse(block)?;
    header.verify(payload)?;
    let words: HashMap<(u32, u32), u32> = (0..64u32)
        .filter_map(|h| code.code_word(h).map(|(word, length)| ((length, word), h)))
        .collect();
    let all_bits: &bitvec::slice::BitSlice<u8, Msb0> = bitvec::slice::BitSlice::from_slice(payload);
    let (bits, padding) = all_bits.split_at(header.payload_bits(payload.len()).min(all_bits.len()));
    if padding.any() {
        return Err(CodecError::corrupt(WHAT, "padding bits are not zero"));
    }
    let mut cursor = bits.iter().by_vals();
    let mut take = |width: u32| -> Result<u64, CodecError> {
        let mut value = 0u64;
        for _ in 0..width {
            let bit = cursor
                .next()
                .ok_or_else(|| CodecError::corrupt(WHAT, "payload ends inside a key"))?;
            value = (value << 1) | u64::from(bit);
        }
        Ok(value)
    };
    let first = take(64)?;
    let mut keys = vec![first];
    let mut previous = first;
    for _ in 1..header.count {
        let (mut word, mut length) = (0u32, 0u32);
        let h = loop {
            word = (word << 1) | u32::from(take(1)? == 1);
            length += 1;
            if let Some(&h) = words.get(&(length, word)) {
                break h;
            }
            if length > 64 {
                return Err(CodecError::corrupt(WHAT, "no code word matches"));
            }
        };
        let residual = take(63 - h)?;
        // h is the first differing bit: the predecessor must have a 0 there.
        if (previous >> (63 - h)) & 1 == 1 {
            return Err(CodecError::corrupt(
                WHAT,
                "predecessor already has bit h set",
            ));
        }
        let top = if h == 0 {
            0
        } else {
            previous >> (64 - h) << (64 - h)
        };
        let key = top | (1u64 << (63 - h)) | residual;
        keys.push(key);
        previous = key;
    }
    if take(1).is_ok() {
        return Err(CodecError::corrupt(WHAT, "bits left after the last key"));
    }
    Ok(keys)
}
