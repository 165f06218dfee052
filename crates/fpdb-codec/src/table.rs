//! One encoded table: its code book, its blocks laid out back to back, and
//! its block directory.
//!
//! In memory each block also gets a [`BlockInfo`]: where its bytes are, and
//! its [`SyncPoints`], so that a probe can start decoding near its range
//! instead of at the block's first key. None of this is part of the byte
//! format; it is rebuilt from the keys.

use crate::block::decoder::for_each_in_payload_range;
use crate::block::{
    BlockDecoder, BlockEncoder, BlockHeader, ChecksumPolicy, EncodedBlock, SyncPoints,
};
use crate::directory::BlockDirectory;
use crate::error::CodecError;
use crate::huffman::HuffmanCode;

const WHAT: &str = "table";

/// Blocks per [`GroupNode`]; the directory's summary has one key per group.
const GROUP: usize = crate::directory::GROUP;

/// The last keys and infos of [`GROUP`] consecutive blocks. Unused slots
/// of the last node hold `u64::MAX` (never below a lower bound).
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(align(64))]
struct GroupNode {
    last_keys: [u64; GROUP],
    infos: [BlockInfo; GROUP],
}

impl GroupNode {
    fn build(last_keys: &[u64], infos: Vec<BlockInfo>) -> Vec<GroupNode> {
        let empty = BlockInfo {
            start: 0,
            len: 0,
            sync: SyncPoints::NONE,
        };
        last_keys
            .chunks(GROUP)
            .zip(infos.chunks(GROUP))
            .map(|(keys, infos)| {
                let mut node = GroupNode {
                    last_keys: [u64::MAX; GROUP],
                    infos: [empty; GROUP],
                };
                for (slot, key) in node.last_keys.iter_mut().zip(keys) {
                    *slot = *key;
                }
                for (slot, info) in node.infos.iter_mut().zip(infos) {
                    *slot = *info;
                }
                node
            })
            .collect()
    }
}

/// Where a block's bytes are and where decoding may start inside it; one
/// cache line, so finding both costs one miss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(align(64))]
pub(crate) struct BlockInfo {
    /// Byte offset of the block in the table's buffer.
    start: usize,
    /// Length of the block in bytes.
    len: u32,
    sync: SyncPoints,
}

impl BlockInfo {
    /// The info of a block holding `keys`, encoded with `code`. A block
    /// longer than `u32::MAX` bytes (far beyond [`MAX_BLOCK_KEYS`] keys)
    /// is an error rather than a length that would hide the block.
    ///
    /// [`MAX_BLOCK_KEYS`]: crate::MAX_BLOCK_KEYS
    fn new(
        start: usize,
        block: &EncodedBlock,
        keys: &[u64],
        code: &HuffmanCode,
    ) -> Result<Self, CodecError> {
        Ok(BlockInfo {
            start,
            len: u32::try_from(block.bytes().len())
                .map_err(|_| CodecError::BlockTooLarge { keys: keys.len() })?,
            sync: SyncPoints::for_block_keys(keys, code),
        })
    }

    /// Reads what [`SyncPoints::start_for`] will read (to start the load;
    /// the info is one cache line, so any of its fields will do).
    #[inline]
    pub(crate) fn touch(&self, lo: u64) -> u64 {
        u64::from(self.len) ^ u64::from(self.sync.first_below(lo))
    }
}

/// A sorted key set encoded as blocks, kept in one contiguous buffer.
#[derive(Debug, Clone)]
pub struct EncodedTable {
    code: HuffmanCode,
    bytes: Vec<u8>,
    /// Block `j`'s last key and [`BlockInfo`] are in `groups[j / GROUP]`,
    /// grouped like the directory's summary so that a probe's in-group
    /// search and the block info it picks share one page.
    groups: Vec<GroupNode>,
    directory: BlockDirectory,
    key_count: usize,
}

impl EncodedTable {
    /// Encodes strictly ascending keys with a code built from their own
    /// histogram of `h`, in blocks of about `target_block_bytes`.
    pub fn build(sorted_keys: &[u64], target_block_bytes: usize) -> Result<Self, CodecError> {
        Self::build_cut(sorted_keys, target_block_bytes, None)
    }

    /// [`EncodedTable::build`] for a table whose queries take prefixes of
    /// `prefix_bits` bits: blocks are cut where prefix groups start
    /// ([`BlockEncoder::cut_at_groups`]).
    pub fn build_in_groups(
        sorted_keys: &[u64],
        target_block_bytes: usize,
        prefix_bits: u32,
    ) -> Result<Self, CodecError> {
        Self::build_cut(sorted_keys, target_block_bytes, Some(prefix_bits))
    }

    fn build_cut(
        sorted_keys: &[u64],
        target_block_bytes: usize,
        group_bits: Option<u32>,
    ) -> Result<Self, CodecError> {
        let code = HuffmanCode::for_sorted_keys(sorted_keys);
        let mut encoder = BlockEncoder::new(&code, target_block_bytes);
        if let Some(prefix_bits) = group_bits {
            encoder = encoder.cut_at_groups(prefix_bits);
        }
        let blocks = encoder.encode_table(sorted_keys)?;
        let directory = BlockDirectory::from_blocks(&blocks)?;
        let total: usize = blocks.iter().map(|block| block.bytes().len()).sum();
        let mut bytes = Vec::with_capacity(total);
        let mut infos = Vec::with_capacity(blocks.len());
        // The blocks hold the keys in order: each takes the next `count`.
        let mut rest = sorted_keys;
        for block in &blocks {
            let Some((keys, tail)) = rest.split_at_checked(block.count() as usize) else {
                return Err(CodecError::corrupt(
                    WHAT,
                    "the encoder's blocks hold more keys than it was given",
                ));
            };
            rest = tail;
            infos.push(BlockInfo::new(bytes.len(), block, keys, &code)?);
            bytes.extend_from_slice(block.bytes());
        }
        Ok(EncodedTable {
            code,
            bytes,
            groups: GroupNode::build(directory.last_keys(), infos),
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
        self.info(index).and_then(|info| self.block_bytes(info))
    }

    #[inline]
    fn block_bytes(&self, info: &BlockInfo) -> Option<&[u8]> {
        self.bytes
            .get(info.start..info.start.checked_add(info.len as usize)?)
    }

    /// The in-memory facts about block `index` (for probes).
    #[inline]
    pub(crate) fn info(&self, index: usize) -> Option<&BlockInfo> {
        self.groups.get(index / GROUP)?.infos.get(index % GROUP)
    }

    /// The first last key of group `group` (to start loading its node).
    #[inline]
    pub(crate) fn touch_group(&self, group: usize) -> u64 {
        // A group past the end has no node to load; any value will do, as
        // the result only feeds `black_box`.
        self.groups
            .get(group)
            .and_then(|node| node.last_keys.first())
            .copied()
            .unwrap_or(0)
    }

    /// [`BlockDirectory::locate`] finishing in the group node `group`
    /// (from [`BlockDirectory::group_for`]); requires `lo ≤ hi`.
    #[inline]
    pub(crate) fn locate_in_group(&self, group: usize, lo: u64, hi: u64) -> std::ops::Range<usize> {
        let blocks = self.block_count();
        let Some(node) = self.groups.get(group) else {
            return blocks..blocks;
        };
        let in_group = node.last_keys.iter().filter(|&&last| last < lo).count();
        let start = group * GROUP + in_group;
        if start >= blocks {
            return blocks..blocks;
        }
        // Usually the range ends in this block; otherwise walk on (every
        // block passed must be decoded anyway).
        let mut end = start;
        while end + 1 < blocks && self.last_key(end) < hi {
            end += 1;
        }
        self.directory.without_block_past(start..end + 1, hi)
    }

    /// The last key of block `index`, which must be below `block_count()`.
    #[inline]
    #[expect(
        clippy::indexing_slicing,
        reason = "index < block_count() ≤ groups.len() × GROUP (one node per GROUP blocks), and index % GROUP < GROUP"
    )]
    fn last_key(&self, index: usize) -> u64 {
        debug_assert!(index < self.block_count());
        self.groups[index / GROUP].last_keys[index % GROUP]
    }

    /// Reads the header of block `index` and the byte where a probe for
    /// `lo` starts decoding (to start loading their lines).
    #[inline]
    pub(crate) fn touch_start(&self, index: usize, lo: u64) -> u64 {
        let Some(info) = self.info(index) else {
            return 0;
        };
        // Branch-free on the info's contents: a mispredicted branch on data
        // still in flight would hold back the loads of the tables after it.
        let start = info.start;
        let byte = info.sync.start_byte(lo);
        // Only loads matter here (the result feeds `black_box`): a byte
        // past the buffer has no line to load and reads as 0.
        let header = self.bytes.get(start).copied().unwrap_or(0);
        // The decode from there reads about two lines more.
        let at = start.wrapping_add(BlockHeader::LEN + byte);
        let mut touched = u64::from(header);
        for line in 0..3 {
            let byte = self.bytes.get(at.wrapping_add(64 * line)).copied();
            touched ^= u64::from(byte.unwrap_or(0));
        }
        touched
    }

    /// Passes every key in `[lo, hi]` of blocks `blocks` to `visit`,
    /// decoding the first block from its last sync point below `lo`.
    /// Trusts the blocks (built in this process) but stays panic-free.
    #[inline]
    pub(crate) fn for_each_in_range(
        &self,
        blocks: std::ops::Range<usize>,
        lo: u64,
        hi: u64,
        visit: &mut impl FnMut(u64),
    ) -> Result<(), CodecError> {
        for block_index in blocks.clone() {
            // Both exist for a range from `locate_in_group`; skipping a
            // block would silently drop its keys from the answer.
            let Some(info) = self.info(block_index) else {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("block {block_index} of {}", self.block_count()),
                ));
            };
            let Some(block) = self.block_bytes(info) else {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("block {block_index} lies outside the table's bytes"),
                ));
            };
            let (header, payload) = BlockHeader::parse(block)?;
            let sync = if block_index == blocks.start {
                info.sync.start_for(lo)
            } else {
                None
            };
            let past_hi = for_each_in_payload_range(
                &self.code,
                payload,
                header.payload_bits(payload.len()),
                usize::from(header.count),
                sync,
                lo,
                hi,
                visit,
            )?;
            if past_hi {
                return Ok(());
            }
        }
        Ok(())
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

    /// Passes each block's keys to `visit`, in key order. Blocks are
    /// decoded two at a time ([`BlockDecoder::decode_two`]), which scans a
    /// table faster than one by one.
    pub fn for_each_block(&self, mut visit: impl FnMut(&[u64])) -> Result<(), CodecError> {
        let decoder = self.decoder();
        let (mut first, mut second) = (Vec::new(), Vec::new());
        let mut blocks = self.blocks();
        loop {
            match (blocks.next(), blocks.next()) {
                (Some(one), Some(two)) => {
                    let [one_decoded, two_decoded] =
                        decoder.decode_two([one, two], [&mut first, &mut second]);
                    one_decoded?;
                    visit(&first);
                    two_decoded?;
                    visit(&second);
                }
                (Some(last), None) => {
                    decoder.decode(last, &mut first)?;
                    visit(&first);
                    return Ok(());
                }
                _ => return Ok(()),
            }
        }
    }

    /// All keys, decoded block by block (for tests and scans).
    pub fn decode_all(&self) -> Result<Vec<u64>, CodecError> {
        let mut keys = Vec::with_capacity(self.key_count);
        self.for_each_block(|block| keys.extend_from_slice(block))?;
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Keys spread uniformly or packed under a shared prefix (long runs of
    /// large `h`), sorted and unique.
    fn key_sets() -> impl Strategy<Value = Vec<u64>> {
        (
            proptest::collection::vec(any::<u64>(), 1..3000),
            any::<u64>(),
            0u32..64,
        )
            .prop_map(|(mut keys, base, free_bits)| {
                if free_bits < 40 {
                    let mask = (1u64 << free_bits).wrapping_sub(1);
                    for key in keys.iter_mut() {
                        *key = (base & !mask) | (*key & mask);
                    }
                }
                keys.sort_unstable();
                keys.dedup();
                keys
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The probe path (directory groups, sync points, fused decode)
        /// finds exactly the keys in range, like a filter over all keys.
        #[test]
        fn ranges_from_sync_points_match_a_scan(
            keys in key_sets(),
            block_bytes in prop_oneof![Just(1024usize), Just(256), 16usize..2000],
            bounds in proptest::collection::vec((any::<u64>(), 0u32..64, any::<prop::sample::Index>()), 1..40),
        ) {
            let table = EncodedTable::build(&keys, block_bytes).unwrap();
            prop_assert_eq!(table.decode_all().unwrap(), keys.clone());
            for (random, width, pick) in bounds {
                // Ranges around stored keys and anywhere.
                let lo = if random % 2 == 0 { keys[pick.index(keys.len())] } else { random };
                let lo = lo & !((1u64 << width) - 1);
                let hi = lo | ((1u64 << width) - 1);
                let directory = table.directory();
                let blocks = if directory.is_empty() {
                    0..0
                } else {
                    let group = directory.group_for(lo);
                    let via_group = table.locate_in_group(group, lo, hi);
                    prop_assert_eq!(via_group.clone(), directory.locate(lo, hi));
                    via_group
                };
                let mut found = Vec::new();
                table.for_each_in_range(blocks, lo, hi, &mut |key| found.push(key)).unwrap();
                let expected: Vec<u64> =
                    keys.iter().copied().filter(|&key| key >= lo && key <= hi).collect();
                prop_assert_eq!(found, expected, "lo {:#x} hi {:#x}", lo, hi);
            }
        }
    }

    #[test]
    fn sync_points_point_at_the_next_key() {
        let mut state = 7u64;
        let mut keys: Vec<u64> = (0..5000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let table = EncodedTable::build(&keys, DEFAULT_BLOCK_BYTES_FOR_TESTS).unwrap();
        let mut first = 0;
        for index in 0..table.block_count() {
            let info = table.info(index).unwrap();
            let block = table.block(index).unwrap();
            let (header, _) = BlockHeader::parse(block).unwrap();
            let count = usize::from(header.count);
            for slot in 0..crate::block::SYNC_POINTS {
                if info.sync.keys[slot] == u64::MAX {
                    continue;
                }
                let at = usize::from(info.sync.indexes[slot]);
                assert_eq!(info.sync.keys[slot], keys[first + at]);
                // Decoding from the sync point gives the rest of the block.
                let mut rest = Vec::new();
                table
                    .for_each_in_range(
                        index..index + 1,
                        keys[first + at] + 1,
                        u64::MAX,
                        &mut |key| rest.push(key),
                    )
                    .unwrap();
                assert_eq!(rest, keys[first + at + 1..first + count]);
            }
            first += count;
        }
    }

    const DEFAULT_BLOCK_BYTES_FOR_TESTS: usize = crate::DEFAULT_BLOCK_BYTES;
}
