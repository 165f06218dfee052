//! The block directory: each block's last and first key, to find the
//! blocks that hold a key range with one binary search.
//!
//! Blocks of a table partition its key space in order: block `j` holds keys
//! in `[first[j], last[j]]`, with `last[j-1] < first[j]`. So the blocks
//! that may hold a key in `[lo, hi]` run from the first block whose last
//! key is `≥ lo` to the first whose last key is `≥ hi`, less that one if
//! its first key is above `hi`: a table's blocks are cut where a prefix
//! group starts, so a query's group usually ends its block, and without the
//! first keys every query would also read the next block for nothing.
//!
//! A first key may be a lower bound of the block's smallest key, down to
//! `last[j-1] + 1` (directories of database formats 1 and 2, which stored
//! only last keys, read that way): a looser bound only reads a block more.
//! The byte form is a frame (`crate::format`) of kind `Directory`,
//! version 3, around the last keys then the first keys, 8 bytes each,
//! big-endian; version 2 was the last keys alone, and version 1
//! (database format 1) the bare last keys.

use std::ops::Range;

use crate::block::EncodedBlock;
use crate::error::CodecError;
use crate::format::{decode_frame, encode_frame, Kind};

/// Version of the directory byte format (1: bare last keys, database
/// format 1; 2: framed last keys, database format 2).
pub const DIRECTORY_FORMAT_VERSION: u8 = 3;

/// The framed version that held last keys only (database format 2).
const LAST_KEYS_ONLY_VERSION: u8 = 2;

const WHAT: &str = Kind::Directory.name();

/// Blocks per group of the in-memory summary.
pub(crate) const GROUP: usize = 16;

/// The last and first keys of a table's blocks (16 bytes per block on
/// disk; in memory 16.5, with a summary of every 16th last key).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockDirectory {
    last_keys: Vec<u64>,
    /// Each block's first key, or a lower bound of it above the previous
    /// block's last key.
    first_keys: Vec<u64>,
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
    /// ascending, and no first keys known: each block's first key is taken
    /// to be one above the previous block's last.
    pub fn new(last_keys: Vec<u64>) -> Result<Self, CodecError> {
        let first_keys = lower_bounds(&last_keys);
        Self::with_first_keys(last_keys, first_keys)
    }

    /// A directory over blocks with these last keys, strictly ascending,
    /// and these first keys (or lower bounds of them), each at most its
    /// block's last key and above the previous block's.
    pub fn with_first_keys(last_keys: Vec<u64>, first_keys: Vec<u64>) -> Result<Self, CodecError> {
        if first_keys.len() != last_keys.len() {
            return Err(CodecError::corrupt(
                WHAT,
                format!(
                    "{} first keys for {} blocks",
                    first_keys.len(),
                    last_keys.len()
                ),
            ));
        }
        let mut previous_last: Option<u64> = None;
        for (block, (&first, &last)) in first_keys.iter().zip(&last_keys).enumerate() {
            if previous_last.is_some_and(|previous| previous >= last) {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("last key of block {block} does not ascend"),
                ));
            }
            if first > last || previous_last.is_some_and(|previous| first <= previous) {
                return Err(CodecError::corrupt(
                    WHAT,
                    format!("first key of block {block} is outside the block"),
                ));
            }
            previous_last = Some(last);
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
            first_keys,
            group_last_keys,
            segment_last_keys,
        })
    }

    /// The directory of blocks cut from one table, in order.
    pub fn from_blocks(blocks: &[EncodedBlock]) -> Result<Self, CodecError> {
        Self::with_first_keys(
            blocks.iter().map(EncodedBlock::last_key).collect(),
            blocks.iter().map(EncodedBlock::first_key).collect(),
        )
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

    /// The first key of every block, or a lower bound of it.
    pub fn first_keys(&self) -> &[u64] {
        &self.first_keys
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
        self.blocks_from(blocks - tail.len(), hi)
    }

    /// The blocks from `start` (the first whose last key reaches the
    /// range's low end) that can hold keys up to `hi`.
    #[inline]
    fn blocks_from(&self, start: usize, hi: u64) -> Range<usize> {
        let blocks = self.last_keys.len();
        let tail = self.last_keys.get(start..).unwrap_or_default();
        // The first block from `start` on whose last key reaches `hi`; a
        // linear walk, since every block it passes must be decoded anyway.
        // If none does, the range runs to the last block (which holds the
        // largest keys); an empty tail gives the empty `blocks..blocks`.
        let end = tail
            .iter()
            .position(|&last| last >= hi)
            .map_or(blocks, |reaching| start + reaching + 1);
        self.without_block_past(start.min(blocks)..end, hi)
    }

    /// A [`DirectoryCursor`] at the first block.
    pub fn cursor(&self) -> DirectoryCursor<'_> {
        DirectoryCursor {
            directory: self,
            start: 0,
        }
    }

    /// `blocks`, found by last keys for a range ending at `hi`, less its
    /// last block if that one starts above `hi` (it holds nothing of the
    /// range).
    #[inline]
    pub(crate) fn without_block_past(&self, blocks: Range<usize>, hi: u64) -> Range<usize> {
        let Range { start, end } = blocks;
        match end
            .checked_sub(1)
            .and_then(|last| self.first_keys.get(last))
        {
            Some(&first) if end > start && first > hi => start..end - 1,
            _ => start..end,
        }
    }

    /// The last keys then the first keys, 8 bytes each, big-endian, in a
    /// frame.
    pub fn to_bytes(&self) -> Vec<u8> {
        let keys: Vec<u8> = self
            .last_keys
            .iter()
            .chain(&self.first_keys)
            .flat_map(|key| key.to_be_bytes())
            .collect();
        encode_frame(Kind::Directory, DIRECTORY_FORMAT_VERSION, &keys)
    }

    /// Parses [`BlockDirectory::to_bytes`] output, or a directory of
    /// database format 2 (last keys only).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CodecError> {
        let (version, payload) = decode_frame(
            bytes,
            Kind::Directory,
            &[DIRECTORY_FORMAT_VERSION, LAST_KEYS_ONLY_VERSION],
        )?;
        if version == LAST_KEYS_ONLY_VERSION {
            return Self::from_v1_bytes(payload);
        }
        if payload.len() % 16 != 0 {
            return Err(CodecError::corrupt(
                WHAT,
                format!(
                    "{} bytes of keys is not a last and a first key per block",
                    payload.len()
                ),
            ));
        }
        let (last_keys, first_keys) = payload.split_at(payload.len() / 2);
        Self::with_first_keys(be_keys(last_keys)?, be_keys(first_keys)?)
    }

    /// Parses a directory of database format 1: the bare last keys (which
    /// are also the payload of a format-2 frame).
    pub fn from_v1_bytes(bytes: &[u8]) -> Result<Self, CodecError> {
        Self::new(be_keys(bytes)?)
    }
}

/// [`BlockDirectory::locate`] for ranges asked in ascending order of their
/// low ends, as a sorted batch asks them: each search starts where the
/// last one ended and gallops forward, so it reads a few neighbouring
/// keys instead of taking a binary search's cache misses over the whole
/// directory (at 100M a table's is 9 MB). A range below the last one
/// starts over from the first block.
#[derive(Debug, Clone)]
pub struct DirectoryCursor<'a> {
    directory: &'a BlockDirectory,
    /// The first block whose last key reaches the last range's low end.
    start: usize,
}

impl DirectoryCursor<'_> {
    /// The blocks that can hold keys in `[lo, hi]`, as
    /// [`BlockDirectory::locate`] gives them.
    pub fn locate(&mut self, lo: u64, hi: u64) -> Range<usize> {
        if lo > hi {
            return 0..0;
        }
        let keys = self.directory.last_keys();
        let before = self.start.checked_sub(1).and_then(|block| keys.get(block));
        if before.is_some_and(|&last| last >= lo) {
            // A range below the last one.
            self.start = 0;
        }
        // Every block before `low` ends below `lo`; steps double until one
        // reaches it, then a binary search within the last step.
        let mut low = self.start;
        let mut step = 1;
        while let Some(&last) = keys.get(low + step - 1) {
            if last >= lo {
                break;
            }
            low += step;
            step *= 2;
        }
        let high = (low + step).min(keys.len());
        let within = keys.get(low..high).unwrap_or_default();
        self.start = low + within.partition_point(|&last| last < lo);
        self.directory.blocks_from(self.start, hi)
    }
}

/// Big-endian 8-byte keys.
fn be_keys(bytes: &[u8]) -> Result<Vec<u64>, CodecError> {
    let (chunks, rest) = bytes.as_chunks::<8>();
    if !rest.is_empty() {
        return Err(CodecError::corrupt(
            WHAT,
            format!("{} bytes of keys is not a multiple of 8", bytes.len()),
        ));
    }
    Ok(chunks
        .iter()
        .map(|chunk| u64::from_be_bytes(*chunk))
        .collect())
}

/// The loosest first keys blocks with these last keys can have: one above
/// the previous block's last key (0 for the first block).
fn lower_bounds(last_keys: &[u64]) -> Vec<u64> {
    std::iter::once(0)
        .chain(last_keys.iter().map(|&last| last.saturating_add(1)))
        .take(last_keys.len())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Sorted distinct `keys` cut into blocks of `sizes` keys each (cycled):
    /// each block's first and last key.
    fn blocks_of(keys: &[u64], sizes: &[usize]) -> (Vec<u64>, Vec<u64>) {
        let (mut firsts, mut lasts) = (Vec::new(), Vec::new());
        let mut rest = keys;
        for &size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (block, tail) = rest.split_at(size.clamp(1, rest.len()));
            firsts.push(block[0]);
            lasts.push(block[block.len() - 1]);
            rest = tail;
        }
        (lasts, firsts)
    }

    proptest! {
        #[test]
        fn locate_finds_exactly_the_blocks_that_overlap(
            mut keys in proptest::collection::vec(any::<u64>(), 1..300),
            sizes in proptest::collection::vec(1usize..8, 1..10),
            lo in any::<u64>(),
            width in any::<u64>(),
        ) {
            keys.sort_unstable();
            keys.dedup();
            let (lasts, firsts) = blocks_of(&keys, &sizes);
            let hi = lo.saturating_add(width >> (width % 64));
            // With first keys, a block is located when its span [first,
            // last] meets [lo, hi]; with last keys only, when (last[j-1],
            // last[j]] does.
            let exact = BlockDirectory::with_first_keys(lasts.clone(), firsts.clone()).unwrap();
            let loose = BlockDirectory::new(lasts.clone()).unwrap();
            for (directory, starts) in [(&exact, firsts.clone()), (&loose, lower_bounds(&lasts))] {
                let expected: Vec<usize> = (0..lasts.len())
                    .filter(|&j| starts[j] <= hi && lasts[j] >= lo)
                    .collect();
                let found: Vec<usize> = directory.locate(lo, hi).collect();
                prop_assert_eq!(&found, &expected);
                // So every stored key in the range is in a located block.
                for &key in keys.iter().filter(|&&key| (lo..=hi).contains(&key)) {
                    let holder = lasts.partition_point(|&last| last < key);
                    prop_assert!(found.contains(&holder));
                }
            }
        }

        #[test]
        fn bytes_round_trip(
            mut keys in proptest::collection::vec(any::<u64>(), 0..120),
            sizes in proptest::collection::vec(1usize..5, 1..6),
        ) {
            keys.sort_unstable();
            keys.dedup();
            let (lasts, firsts) = blocks_of(&keys, &sizes);
            let directory = BlockDirectory::with_first_keys(lasts.clone(), firsts).unwrap();
            let bytes = directory.to_bytes();
            prop_assert_eq!(bytes.len(), directory.len() * 16 + crate::format::FRAME_OVERHEAD);
            prop_assert_eq!(&BlockDirectory::from_bytes(&bytes).unwrap(), &directory);
            // Formats 1 and 2 stored the last keys alone: their first keys
            // read as the loosest bounds.
            let last_bytes: Vec<u8> = lasts.iter().flat_map(|key| key.to_be_bytes()).collect();
            let loose = BlockDirectory::new(lasts).unwrap();
            prop_assert_eq!(&BlockDirectory::from_v1_bytes(&last_bytes).unwrap(), &loose);
            let v2 = encode_frame(Kind::Directory, LAST_KEYS_ONLY_VERSION, &last_bytes);
            prop_assert_eq!(&BlockDirectory::from_bytes(&v2).unwrap(), &loose);
        }
    }

    #[test]
    fn damaged_bytes_are_errors() {
        let directory = BlockDirectory::with_first_keys(vec![1, 5, 9], vec![0, 4, 6]).unwrap();
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
        // Well framed but wrong inside: an odd number of keys, last keys
        // out of order, a first key outside its block.
        for payload in [
            keys.to_vec(),
            [&swapped[..], &bytes[34..58]].concat(),
            [
                keys,
                &[
                    0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 7,
                ][..],
            ]
            .concat(),
        ] {
            let framed = encode_frame(Kind::Directory, DIRECTORY_FORMAT_VERSION, &payload);
            assert!(matches!(
                BlockDirectory::from_bytes(&framed),
                Err(CodecError::Corrupt { what: WHAT, .. })
            ));
        }
        assert!(BlockDirectory::new(vec![3, 3]).is_err());
        assert!(BlockDirectory::with_first_keys(vec![3, 8], vec![0]).is_err());
        assert!(BlockDirectory::with_first_keys(vec![3, 8], vec![4, 5]).is_err());
        assert!(BlockDirectory::with_first_keys(vec![3, 8], vec![0, 3]).is_err());
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

    #[test]
    fn a_block_starting_past_the_range_is_not_read() {
        // Block 1 holds 15..=20: a range ending before 15 needs block 0
        // alone, or nothing.
        let directory = BlockDirectory::with_first_keys(vec![10, 20], vec![5, 15]).unwrap();
        assert_eq!(directory.locate(0, 14), 0..1);
        assert_eq!(directory.locate(0, 4), 0..0);
        assert!(directory.locate(11, 14).is_empty());
        assert_eq!(directory.locate(11, 15), 1..2);
        assert_eq!(directory.locate(8, 30), 0..2);
        // Without first keys the same ranges read block 1 too.
        let loose = BlockDirectory::new(vec![10, 20]).unwrap();
        assert_eq!(loose.locate(0, 14), 0..2);
    }

    proptest! {
        /// A cursor finds exactly the blocks `locate` finds, for ranges
        /// asked in any order (ascending ones are what it is made for).
        #[test]
        fn a_cursor_locates_as_locate_does(
            mut keys in proptest::collection::vec(any::<u64>(), 1..300),
            sizes in proptest::collection::vec(1usize..20, 1..10),
            mut ranges in proptest::collection::vec((any::<u64>(), 0u64..1 << 60), 1..60),
            sorted in any::<bool>(),
        ) {
            keys.sort_unstable();
            keys.dedup();
            let (lasts, firsts) = blocks_of(&keys, &sizes);
            let directory = BlockDirectory::with_first_keys(lasts, firsts).unwrap();
            // Ranges near the stored keys as well as anywhere.
            for (i, range) in ranges.iter_mut().enumerate() {
                if i % 2 == 0 {
                    range.0 = keys[usize::try_from(range.0 % keys.len() as u64).unwrap()];
                }
            }
            if sorted {
                ranges.sort_unstable();
            }
            let mut cursor = directory.cursor();
            for (lo, width) in ranges {
                let hi = lo.saturating_add(width);
                prop_assert_eq!(cursor.locate(lo, hi), directory.locate(lo, hi), "[{}, {}]", lo, hi);
                prop_assert_eq!(cursor.locate(hi, lo), directory.locate(hi, lo));
            }
        }
    }
}
