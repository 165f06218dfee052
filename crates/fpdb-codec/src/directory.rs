//! The block directory: each block's last key, to find the blocks that can
//! hold a key range with one binary search.
//!
//! Blocks of a table partition its key space in order: block `j` holds keys
//! in `(last[j-1], last[j]]`. So the blocks that may hold a key in
//! `[lo, hi]` run from the first block whose last key is `≥ lo` to the first
//! whose last key is `≥ hi`. The byte form is a frame (`crate::format`) of
//! kind `Directory`, version 2, around the last keys, 8 bytes each,
//! big-endian, strictly ascending; version 1 (database format 1) was the
//! bare keys.

use std::ops::Range;

use crate::block::EncodedBlock;
use crate::error::CodecError;
use crate::format::{decode_frame, encode_frame, Kind};

/// Version of the directory byte format (1: bare keys, database format 1).
pub const DIRECTORY_FORMAT_VERSION: u8 = 2;

const WHAT: &str = Kind::Directory.name();

/// Blocks per group of the in-memory summary.
pub(crate) const GROUP: usize = 16;

/// Sorted last keys of a table's blocks (8 bytes per block on disk; in
/// memory 8.5, with a summary of every 16th key).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockDirectory {
    last_keys: Vec<u64>,
    /// The last key of every group of [`GROUP`] blocks. Binary search runs
    /// over this small array, which stays cached across queries, and then
    /// within one group (two cache lines), instead of taking a cache miss
    /// at each of the last levels of a search over all blocks.
    group_last_keys: Vec<u64>,
    /// The last key of every [`GROUP`] entries of `group_last_keys`: small
    /// enough to stay in cache for all tables, so a probe's search misses
    /// the cache at most once in the summary (see
    /// [`BlockDirectory::summary_segment`]).
    segment_last_keys: Vec<u64>,
}

impl BlockDirectory {
    /// A directory over blocks with these last keys, which must be strictly
    /// ascending.
    pub fn new(last_keys: Vec<u64>) -> Result<Self, CodecError> {
        if let Some(position) = last_keys.windows(2).position(|pair| match pair {
            [a, b] => a >= b,
            _ => false,
        }) {
            return Err(CodecError::corrupt(
                WHAT,
                format!("last key of block {} does not ascend", position + 1),
            ));
        }
        let group_last_keys: Vec<u64> = last_keys
            .chunks(GROUP)
            .filter_map(|group| group.last().copied())
            .collect();
        let segment_last_keys = group_last_keys
            .chunks(GROUP)
            .filter_map(|segment: &[u64]| segment.last().copied())
            .collect();
        Ok(BlockDirectory {
            last_keys,
            group_last_keys,
            segment_last_keys,
        })
    }

    /// The directory of blocks cut from one table, in order.
    pub fn from_blocks(blocks: &[EncodedBlock]) -> Result<Self, CodecError> {
        Self::new(blocks.iter().map(EncodedBlock::last_key).collect())
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.last_keys.len()
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.last_keys.is_empty()
    }

    /// The last key of every block.
    pub fn last_keys(&self) -> &[u64] {
        &self.last_keys
    }

    /// The blocks that can hold keys in `[lo, hi]` (usually one). Empty if
    /// `lo > hi` or every key is below `lo`.
    #[inline]
    pub fn locate(&self, lo: u64, hi: u64) -> Range<usize> {
        if lo > hi {
            return 0..0;
        }
        self.locate_in_group(self.group_for(lo), lo, hi)
    }

    /// The group of blocks (16 of them) whose last keys `locate(lo, _)`
    /// searches: the first step of [`BlockDirectory::locate`], on the small
    /// summary that stays cached. Probes over several tables take this
    /// step for all tables first, then [`BlockDirectory::touch_group`],
    /// then [`BlockDirectory::locate_in_group`], so that the tables' cache
    /// misses overlap instead of adding up.
    #[inline]
    pub fn group_for(&self, lo: u64) -> usize {
        self.group_last_keys.partition_point(|&last| last < lo)
    }

    /// Reads the first last key of group `group`, so that its cache line is
    /// on its way before [`BlockDirectory::locate_in_group`] needs it
    /// (fold the result into something the optimiser cannot drop, such
    /// as `std::hint::black_box`).
    #[inline]
    pub fn touch_group(&self, group: usize) -> u64 {
        // A group past the end has no line to load; any value will do, as
        // the result only feeds `black_box`.
        self.last_keys
            .get(group.saturating_mul(GROUP))
            .copied()
            .unwrap_or(0)
    }

    /// The top of the summary: the last key of every [`GROUP`] groups.
    #[inline]
    pub(crate) fn summary_top(&self) -> &[u64] {
        &self.segment_last_keys
    }

    /// The group last keys of summary segment `segment` (an index into
    /// [`BlockDirectory::summary_top`]): at most [`GROUP`] keys, two cache
    /// lines loaded in parallel.
    #[inline]
    pub(crate) fn summary_segment(&self, segment: usize) -> &[u64] {
        // The segment just past the last one is where a search for a `lo`
        // above every key ends: it holds no group, and its group index
        // (past the last group) then locates no block.
        self.group_last_keys
            .chunks(GROUP)
            .nth(segment)
            .unwrap_or_default()
    }

    /// The rest of [`BlockDirectory::locate`] after
    /// [`BlockDirectory::group_for`]; requires `lo ≤ hi`.
    #[inline]
    pub fn locate_in_group(&self, group: usize, lo: u64, hi: u64) -> Range<usize> {
        let blocks = self.last_keys.len();
        // A group past the last one (every last key is below `lo`) holds
        // no block.
        let Some(rest) = self.last_keys.get(group.saturating_mul(GROUP)..) else {
            return blocks..blocks;
        };
        #[expect(
            clippy::indexing_slicing,
            reason = "the group's end is capped at `rest.len()`, and partition_point returns at most the group's length"
        )]
        let tail = &rest[rest[..rest.len().min(GROUP)].partition_point(|&last| last < lo)..];
        let start = blocks - tail.len();
        // The first block from `start` on whose last key reaches `hi`; a
        // linear walk, since every block it passes must be decoded anyway.
        // If none does, the range runs to the last block (which holds the
        // largest keys); an empty tail gives the empty `blocks..blocks`.
        let end = tail
            .iter()
            .position(|&last| last >= hi)
            .map_or(blocks, |reaching| start + reaching + 1);
        start..end
    }

    /// The last keys, 8 bytes each, big-endian, in a frame.
    pub fn to_bytes(&self) -> Vec<u8> {
        let keys: Vec<u8> = self
            .last_keys
            .iter()
            .flat_map(|key| key.to_be_bytes())
            .collect();
        encode_frame(Kind::Directory, DIRECTORY_FORMAT_VERSION, &keys)
    }

    /// Parses [`BlockDirectory::to_bytes`] output.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CodecError> {
        let (_, keys) = decode_frame(bytes, Kind::Directory, &[DIRECTORY_FORMAT_VERSION])?;
        Self::from_v1_bytes(keys)
    }

    /// Parses a directory of database format 1: the bare keys (which are
    /// also the payload of a framed one).
    pub fn from_v1_bytes(bytes: &[u8]) -> Result<Self, CodecError> {
        let (chunks, rest) = bytes.as_chunks::<8>();
        if !rest.is_empty() {
            return Err(CodecError::corrupt(
                WHAT,
                format!("{} bytes of keys is not a multiple of 8", bytes.len()),
            ));
        }
        Self::new(
            chunks
                .iter()
                .map(|chunk| u64::from_be_bytes(*chunk))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn locate_finds_exactly_the_blocks_that_overlap(
            mut lasts in proptest::collection::vec(any::<u64>(), 1..100),
            lo in any::<u64>(),
            width in any::<u64>(),
        ) {
            lasts.sort_unstable();
            lasts.dedup();
            let directory = BlockDirectory::new(lasts.clone()).unwrap();
            let hi = lo.saturating_add(width >> (width % 64));
            let found = directory.locate(lo, hi);
            // Brute force: block j covers (last[j-1], last[j]].
            let expected: Vec<usize> = (0..lasts.len())
                .filter(|&j| {
                    let start = if j == 0 { 0 } else { lasts[j - 1] + 1 };
                    start <= hi && lasts[j] >= lo
                })
                .collect();
            prop_assert_eq!(found.collect::<Vec<_>>(), expected);
        }

        #[test]
        fn bytes_round_trip(mut lasts in proptest::collection::vec(any::<u64>(), 0..40)) {
            lasts.sort_unstable();
            lasts.dedup();
            let directory = BlockDirectory::new(lasts).unwrap();
            let bytes = directory.to_bytes();
            prop_assert_eq!(bytes.len(), directory.len() * 8 + crate::format::FRAME_OVERHEAD);
            prop_assert_eq!(&BlockDirectory::from_bytes(&bytes).unwrap(), &directory);
            let keys: Vec<u8> = directory.last_keys().iter().flat_map(|key| key.to_be_bytes()).collect();
            prop_assert_eq!(BlockDirectory::from_v1_bytes(&keys).unwrap(), directory);
        }
    }

    #[test]
    fn damaged_bytes_are_errors() {
        let directory = BlockDirectory::new(vec![1, 5, 9]).unwrap();
        let bytes = directory.to_bytes();
        for len in 0..bytes.len() {
            assert!(matches!(
                BlockDirectory::from_bytes(&bytes[..len]),
                Err(CodecError::Truncated { what: WHAT, .. })
            ));
        }
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(BlockDirectory::from_bytes(&flipped).is_err(), "bit {bit}");
        }
        let keys = &bytes[10..34];
        assert!(BlockDirectory::from_v1_bytes(&keys[..23]).is_err());
        let mut swapped = keys.to_vec();
        swapped.rotate_left(8);
        assert!(BlockDirectory::from_v1_bytes(&swapped).is_err());
        let framed = encode_frame(Kind::Directory, DIRECTORY_FORMAT_VERSION, &swapped);
        assert!(matches!(
            BlockDirectory::from_bytes(&framed),
            Err(CodecError::Corrupt { what: WHAT, .. })
        ));
        assert!(BlockDirectory::new(vec![3, 3]).is_err());
        assert_eq!(BlockDirectory::from_v1_bytes(&[]).unwrap().len(), 0);
        let empty = BlockDirectory::default().to_bytes();
        assert_eq!(BlockDirectory::from_bytes(&empty).unwrap().len(), 0);
        // A frame of another structure is named as such.
        let code = crate::HuffmanCode::uniform().to_bytes();
        assert!(matches!(
            BlockDirectory::from_bytes(&code),
            Err(CodecError::WrongKind { what: WHAT, .. })
        ));
    }

    #[test]
    fn inverted_range_is_empty() {
        let directory = BlockDirectory::new(vec![10, 20]).unwrap();
        assert!(directory.locate(15, 5).is_empty());
        assert!(directory.locate(21, 30).is_empty());
        assert_eq!(directory.locate(0, 10), 0..1);
        assert_eq!(directory.locate(11, 11), 1..2);
    }
}
