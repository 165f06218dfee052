//! Encoding sorted keys into blocks.
//!
//! In a block the first key is written whole (64 bits). Each further key is
//! written as the Huffman code word of `h`, the index (from the MSB) of the
//! first bit where it differs from its predecessor, followed by its
//! `63 - h` bits below position `h`. Bit `h` itself is 1 (keys ascend), and
//! the bits above it equal the predecessor's, so neither is stored.

use super::header::{BlockHeader, MAX_BLOCK_KEYS};
use crate::bits::BitWriter;
use crate::error::CodecError;
use crate::huffman::HuffmanCode;

/// Default target size of an encoded block, header included.
pub const DEFAULT_BLOCK_BYTES: usize = 1024;

/// One encoded block and what a directory needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedBlock {
    bytes: Vec<u8>,
    first_key: u64,
    last_key: u64,
    count: u32,
}

impl EncodedBlock {
    /// Header and payload.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Takes the bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Smallest key.
    pub fn first_key(&self) -> u64 {
        self.first_key
    }

    /// Largest key.
    pub fn last_key(&self) -> u64 {
        self.last_key
    }

    /// Number of keys.
    pub fn count(&self) -> u32 {
        self.count
    }
}

/// Encodes strictly ascending keys with one table's Huffman code.
#[derive(Debug, Clone, Copy)]
pub struct BlockEncoder<'c> {
    code: &'c HuffmanCode,
    target_block_bytes: usize,
    /// Prefix bits of the table's queries: blocks are cut where a prefix
    /// group starts (see [`BlockEncoder::cut_at_groups`]).
    group_bits: Option<u32>,
}

/// Bits a key costs after its predecessor: code word, its length and the
/// residual's length; `None` unless the key is above its predecessor (only
/// then has it a first differing bit `h < 64` to code).
#[inline]
fn key_cost(code: &HuffmanCode, previous: u64, key: u64) -> Option<(u32, u32, u32)> {
    if key <= previous {
        return None;
    }
    let h = (previous ^ key).leading_zeros();
    let (word, length) = code.code_word(h)?;
    Some((word, length, 63 - h))
}

/// A block under construction.
struct OpenBlock {
    writer: BitWriter,
    first_key: u64,
    last_key: u64,
    count: u32,
    /// The last key of the block that starts a prefix group (not its
    /// first key): where the block can be cut back to.
    group_start: Option<GroupStart>,
}

/// Where a prefix group starts inside an open block.
#[derive(Debug, Clone, Copy)]
struct GroupStart {
    /// The key's index in the table's keys.
    index: usize,
    /// Payload bits and keys before it, and the key before it.
    bits: u64,
    count: u32,
    last_key: u64,
}

impl OpenBlock {
    fn start(key: u64, capacity: usize) -> Self {
        let mut writer = BitWriter::with_capacity(capacity);
        writer.write(key, 64);
        OpenBlock {
            writer,
            first_key: key,
            last_key: key,
            count: 1,
            group_start: None,
        }
    }

    #[inline]
    fn append(&mut self, key: u64, word: u32, length: u32, residual_bits: u32) {
        self.writer.write(u64::from(word), length);
        let residual = if residual_bits == 0 {
            0
        } else {
            key & (u64::MAX >> (64 - residual_bits))
        };
        self.writer.write(residual, residual_bits);
        self.last_key = key;
        self.count += 1;
    }

    fn seal(self) -> Result<EncodedBlock, CodecError> {
        let (bits, count, last_key) = (self.writer.bit_len(), self.count, self.last_key);
        self.seal_first(bits, count, last_key)
    }

    /// Seals the block's keys before `group`, dropping the rest.
    fn seal_before(self, group: GroupStart) -> Result<EncodedBlock, CodecError> {
        self.seal_first(group.bits, group.count, group.last_key)
    }

    /// Seals the first `count` keys, which take `bits` payload bits and
    /// end with `last_key`.
    fn seal_first(self, bits: u64, count: u32, last_key: u64) -> Result<EncodedBlock, CodecError> {
        let too_large = || CodecError::BlockTooLarge {
            keys: count as usize,
        };
        let count16 = u16::try_from(count).map_err(|_| too_large())?;
        let payload_bits = usize::try_from(bits).map_err(|_| too_large())?;
        let mut payload = self.writer.finish();
        payload.truncate(payload_bits.div_ceil(8));
        // The padding after the last kept key must be zero bits.
        if let (Some(last), 1..) = (payload.last_mut(), payload_bits % 8) {
            *last &= 0xff << (8 - payload_bits % 8);
        }
        Ok(EncodedBlock {
            bytes: super::header::seal_block(count16, payload_bits, &payload),
            first_key: self.first_key,
            last_key,
            count,
        })
    }
}

impl<'c> BlockEncoder<'c> {
    /// An encoder cutting blocks of at most `target_block_bytes` (header
    /// included). A block always holds at least one key, so targets below
    /// 16 bytes (header plus one key) give one key per block. A block is also
    /// cut at [`MAX_BLOCK_KEYS`] keys.
    pub fn new(code: &'c HuffmanCode, target_block_bytes: usize) -> Self {
        BlockEncoder {
            code,
            target_block_bytes,
            group_bits: None,
        }
    }

    /// Makes [`BlockEncoder::encode_table`] cut a full block back to
    /// where its last prefix group of `prefix_bits` bits starts, when the
    /// block keeps at least half its size: a query's candidates are one
    /// prefix group, so it then reads one block instead of two (a group of
    /// a 10M table is ~150 keys and a 1 KiB block ~180, so cut by size
    /// alone most groups span two blocks).
    #[must_use]
    pub fn cut_at_groups(mut self, prefix_bits: u32) -> Self {
        self.group_bits = (1..64).contains(&prefix_bits).then_some(prefix_bits);
        self
    }

    /// The code keys are encoded with.
    pub fn code(&self) -> &'c HuffmanCode {
        self.code
    }

    /// The size in bytes, header included, that blocks are cut to.
    pub fn target_block_bytes(&self) -> usize {
        self.target_block_bytes
    }

    /// Cuts a whole table into blocks of about the target size.
    pub fn encode_table(&self, keys: &[u64]) -> Result<Vec<EncodedBlock>, CodecError> {
        let capacity = self.target_block_bytes.min(1 << 20);
        let payload_budget_bits =
            (self.target_block_bytes.saturating_sub(BlockHeader::LEN) as u64) * 8;
        let mut blocks = Vec::new();
        let Some(&first) = keys.first() else {
            return Ok(blocks);
        };
        let mut open = OpenBlock::start(first, capacity);
        let mut index = 1;
        while let Some(&key) = keys.get(index) {
            let Some((word, length, residual_bits)) = key_cost(self.code, open.last_key, key)
            else {
                return Err(CodecError::NotStrictlyAscending { index });
            };
            let bits = open.writer.bit_len() + u64::from(length + residual_bits);
            // Whole bytes count: the payload is padded to a byte boundary.
            if bits.div_ceil(8) * 8 > payload_budget_bits || open.count as usize >= MAX_BLOCK_KEYS {
                match open.group_start {
                    Some(group) if group.bits * 2 >= payload_budget_bits => {
                        // The next block starts with the group; its keys
                        // after the first are appended again.
                        #[expect(
                            clippy::indexing_slicing,
                            reason = "a group starts at a key already read: group.index < index"
                        )]
                        let restart = keys[group.index];
                        let full =
                            std::mem::replace(&mut open, OpenBlock::start(restart, capacity));
                        blocks.push(full.seal_before(group)?);
                        index = group.index + 1;
                    }
                    _ => {
                        let full = std::mem::replace(&mut open, OpenBlock::start(key, capacity));
                        blocks.push(full.seal()?);
                        index += 1;
                    }
                }
                continue;
            }
            if let Some(prefix_bits) = self.group_bits {
                if (open.last_key ^ key) >> (64 - prefix_bits) != 0 {
                    open.group_start = Some(GroupStart {
                        index,
                        bits: open.writer.bit_len(),
                        count: open.count,
                        last_key: open.last_key,
                    });
                }
            }
            open.append(key, word, length, residual_bits);
            index += 1;
        }
        blocks.push(open.seal()?);
        Ok(blocks)
    }

    /// Encodes all `keys` as one block, whatever its size (for re-encoding
    /// a single block after a merge), up to [`MAX_BLOCK_KEYS`] keys.
    pub fn encode_block(&self, keys: &[u64]) -> Result<EncodedBlock, CodecError> {
        let Some((&first, rest)) = keys.split_first() else {
            return Err(CodecError::EmptyBlock);
        };
        if keys.len() > MAX_BLOCK_KEYS {
            return Err(CodecError::BlockTooLarge { keys: keys.len() });
        }
        let mut open = OpenBlock::start(first, 8 + rest.len() * 8);
        for (index, &key) in (1..).zip(rest) {
            let Some((word, length, residual_bits)) = key_cost(self.code, open.last_key, key)
            else {
                return Err(CodecError::NotStrictlyAscending { index });
            };
            open.append(key, word, length, residual_bits);
        }
        open.seal()
    }
}
