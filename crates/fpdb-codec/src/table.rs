//! One encoded table: its code book, its blocks laid out back to back, and
//! its block directory.

use crate::block::{BlockDecoder, BlockEncoder, ChecksumPolicy};
use crate::directory::BlockDirectory;
use crate::error::CodecError;
use crate::huffman::HuffmanCode;

/// A sorted key set encoded as blocks, kept in one contiguous buffer.
#[derive(Debug, Clone)]
pub struct EncodedTable {
    code: HuffmanCode,
    bytes: Vec<u8>,
    /// `block_starts[j]..block_starts[j + 1]` are block `j`'s bytes.
    block_starts: Vec<usize>,
    directory: BlockDirectory,
    key_count: usize,
}

impl EncodedTable {
    /// Encodes strictly ascending keys with a code built from their own
    /// histogram of `h`, in blocks of about `target_block_bytes`.
    pub fn build(sorted_keys: &[u64], target_block_bytes: usize) -> Result<Self, CodecError> {
        let code = HuffmanCode::for_sorted_keys(sorted_keys);
        let blocks = BlockEncoder::new(&code, target_block_bytes).encode_table(sorted_keys)?;
        let directory = BlockDirectory::from_blocks(&blocks)?;
        let total: usize = blocks.iter().map(|block| block.bytes().len()).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut block_starts = Vec::with_capacity(blocks.len() + 1);
        for block in &blocks {
            block_starts.push(bytes.len());
            bytes.extend_from_slice(block.bytes());
        }
        block_starts.push(bytes.len());
        Ok(EncodedTable {
            code,
            bytes,
            block_starts,
            directory,
            key_count: sorted_keys.len(),
        })
    }

    /// The table's code book.
    pub fn code(&self) -> &HuffmanCode {
        &self.code
    }

    /// The table's block directory.
    pub fn directory(&self) -> &BlockDirectory {
        &self.directory
    }

    /// Number of keys.
    pub fn key_count(&self) -> usize {
        self.key_count
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.directory.len()
    }

    /// Bytes of all blocks, headers included.
    pub fn encoded_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The bytes of block `index`.
    pub fn block(&self, index: usize) -> Option<&[u8]> {
        let start = *self.block_starts.get(index)?;
        let end = *self.block_starts.get(index + 1)?;
        self.bytes.get(start..end)
    }

    /// Every block's bytes, in key order.
    pub fn blocks(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.block_count()).filter_map(|index| self.block(index))
    }

    /// A decoder for this table's blocks that trusts them (they were built
    /// in this process).
    pub fn decoder(&self) -> BlockDecoder<'_> {
        BlockDecoder::new(&self.code, ChecksumPolicy::Skip)
    }

    /// All keys, decoded block by block (for tests and scans).
    pub fn decode_all(&self) -> Result<Vec<u64>, CodecError> {
        let decoder = self.decoder();
        let mut keys = Vec::with_capacity(self.key_count);
        let mut buffer = Vec::new();
        for block in self.blocks() {
            decoder.decode(block, &mut buffer)?;
            keys.extend_from_slice(&buffer);
        }
        Ok(keys)
    }
}
