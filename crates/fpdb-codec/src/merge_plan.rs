//! Planning a merge of sorted changes into an encoded table: which old
//! blocks stay, which are deleted, and the blocks written in their place.
//!
//! Each changed key goes to the block that holds (or would hold) it: the
//! first block whose last key is ≥ the key, or the last block for keys
//! beyond every block. Only those blocks are decoded and re-encoded, in
//! runs of up to [`MAX_RUN_BLOCKS`] neighbours:
//!
//! - a lone changed block that outgrows the target size is split evenly
//!   (as many blocks as a greedy cut needs), so each keeps room to grow;
//! - a longer run is cut afresh into full blocks, as a bulk load cuts them,
//!   leaving at most one part-full block per run;
//! - a block whose keys are all removed is deleted and not replaced.
//!
//! Unchanged blocks keep their bytes. The plan reads old blocks through a
//! caller's function and writes nothing: the store executes it on RocksDB,
//! tests against an [`EncodedTable`](crate::EncodedTable) rebuilt from
//! scratch.

use crate::block::{BlockEncoder, EncodedBlock};
use crate::directory::BlockDirectory;
use crate::error::CodecError;

const WHAT: &str = "merge plan";

/// Most neighbouring changed blocks re-cut together: the cut leaves at most
/// one part-full block per run, and a run's keys are in memory at once.
pub const MAX_RUN_BLOCKS: usize = 64;

/// One block of a table after a merge, in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlannedBlock {
    /// The old block at this index of the old directory, unchanged: its
    /// bytes and last key stay as they are.
    Unchanged(usize),
    /// A block to write (its keys run from its first to its last key).
    New(EncodedBlock),
}

/// What merging changes into one table does: the table's blocks after the
/// merge, and the old blocks it deletes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergePlan {
    blocks: Vec<PlannedBlock>,
    last_keys: Vec<u64>,
    first_keys: Vec<u64>,
    deleted: Vec<u64>,
    bytes_removed: u64,
}

impl MergePlan {
    /// The table's blocks after the merge, in key order (the new
    /// directory's positions).
    pub fn blocks(&self) -> &[PlannedBlock] {
        &self.blocks
    }

    /// The new directory: each block's last key, strictly ascending.
    pub fn last_keys(&self) -> &[u64] {
        &self.last_keys
    }

    /// The new directory's first keys: a new block's own, an unchanged
    /// one's as the old directory had it.
    pub fn first_keys(&self) -> &[u64] {
        &self.first_keys
    }

    /// The table's directory after the merge.
    pub fn directory(&self) -> Result<BlockDirectory, CodecError> {
        BlockDirectory::with_first_keys(self.last_keys.clone(), self.first_keys.clone())
    }

    /// Last keys of the old blocks the merge rewrote or emptied, ascending:
    /// the blocks to delete (before writing the new ones, which may reuse
    /// a last key).
    pub fn deleted(&self) -> &[u64] {
        &self.deleted
    }

    /// Bytes of the deleted blocks, as the block reader reported them.
    pub fn bytes_removed(&self) -> u64 {
        self.bytes_removed
    }

    /// Bytes of the new blocks.
    pub fn bytes_added(&self) -> u64 {
        self.new_blocks()
            .map(|block| block.bytes().len() as u64)
            .sum()
    }

    /// The new blocks, in key order.
    pub fn new_blocks(&self) -> impl Iterator<Item = &EncodedBlock> + '_ {
        self.blocks.iter().filter_map(|block| match block {
            PlannedBlock::New(block) => Some(block),
            PlannedBlock::Unchanged(_) => None,
        })
    }

    /// Appends blocks `old` of directory `directory` unchanged.
    fn keep(&mut self, directory: &BlockDirectory, old: std::ops::Range<usize>) {
        let keys = directory.last_keys().iter().zip(directory.first_keys());
        for (index, (&last_key, &first_key)) in keys.enumerate().skip(old.start).take(old.len()) {
            self.blocks.push(PlannedBlock::Unchanged(index));
            self.last_keys.push(last_key);
            self.first_keys.push(first_key);
        }
    }
}

/// Plans merging sorted permuted `add` and `remove` keys into the table
/// with directory `directory`, encoding with `encoder` (the table's code
/// and target block size).
///
/// `add` must be strictly ascending (a key twice would not encode);
/// `remove` ascending. Adding a key already stored keeps it once; removing
/// an absent key changes nothing but still rewrites its block; a key in
/// both is removed.
///
/// `read_block(index, keys)` replaces `keys` with old block `index`'s keys
/// and returns its size in bytes (the store reads its cache or RocksDB,
/// tests their memory). `new_block(position, block, keys)` sees each new
/// block with its keys while they are in hand, e.g. to keep it in a cache
/// with its sync points; `position` is its index in the new directory.
pub fn plan_merge<E: From<CodecError>>(
    directory: &BlockDirectory,
    add: &[u64],
    remove: &[u64],
    encoder: &BlockEncoder<'_>,
    mut read_block: impl FnMut(usize, &mut Vec<u64>) -> Result<usize, E>,
    mut new_block: impl FnMut(usize, &EncodedBlock, &[u64]),
) -> Result<MergePlan, E> {
    let last_keys = directory.last_keys();
    let changed = route_changes(last_keys, add, remove);
    let capacity = last_keys.len() + changed.len();
    let mut plan = MergePlan {
        blocks: Vec::with_capacity(capacity),
        last_keys: Vec::with_capacity(capacity),
        first_keys: Vec::with_capacity(capacity),
        ..MergePlan::default()
    };
    let mut kept_up_to = 0;
    let (mut keys, mut merged) = (Vec::new(), Vec::new());
    for run in consecutive_runs(&changed) {
        let Some(first) = run.first() else {
            continue;
        };
        plan.keep(directory, kept_up_to..first.block);
        merged.clear();
        for change in run {
            kept_up_to = change.block + 1;
            keys.clear();
            // An empty table has no block 0 to read: its adds start one.
            if let Some(&last_key) = last_keys.get(change.block) {
                let bytes = read_block(change.block, &mut keys)?;
                plan.bytes_removed += bytes as u64;
                plan.deleted.push(last_key);
            }
            merge_sorted(&keys, change.add, change.remove, &mut merged);
        }
        let encoded = if run.len() == 1 {
            split_evenly(encoder, &merged)?
        } else {
            // Several neighbouring blocks changed (at large deltas, all of
            // them): cut their keys afresh into full blocks instead of
            // leaving each half-full from its last split. Fewer, fuller
            // blocks mean fewer block visits per query.
            encoder.encode_table(&merged)?
        };
        let mut rest = merged.as_slice();
        for block in encoded {
            let Some((block_keys, tail)) = rest.split_at_checked(block.count() as usize) else {
                return Err(CodecError::corrupt(
                    WHAT,
                    "the encoder's blocks hold more keys than it was given",
                )
                .into());
            };
            rest = tail;
            new_block(plan.blocks.len(), &block, block_keys);
            plan.last_keys.push(block.last_key());
            plan.first_keys.push(block.first_key());
            plan.blocks.push(PlannedBlock::New(block));
        }
    }
    plan.keep(directory, kept_up_to..last_keys.len());
    Ok(plan)
}

/// The changes routed to one block: sub-slices of the sorted `add` and
/// `remove` keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BlockChanges<'k> {
    block: usize,
    add: &'k [u64],
    remove: &'k [u64],
}

/// Routes sorted `add` and `remove` keys to the blocks of a table with
/// these `last_keys`: each key to the first block whose last key is ≥ it,
/// or the last block for keys beyond every block (block 0 of an empty
/// table). Returns the changed blocks in order. Keys and blocks both
/// ascend, so each block's keys are one slice of each list: no copy, and
/// one search per changed block rather than per key.
fn route_changes<'k>(
    last_keys: &[u64],
    add: &'k [u64],
    remove: &'k [u64],
) -> Vec<BlockChanges<'k>> {
    let last_block = last_keys.len().saturating_sub(1);
    let mut changed = Vec::new();
    let (mut add, mut remove) = (add, remove);
    // Blocks before this one have had their changes. Routing never goes
    // back, and stepping past each routed block ends the loop by the last
    // block at the latest, which takes every key left.
    let mut unrouted = 0;
    loop {
        let next = match (add.first(), remove.first()) {
            (Some(&a), Some(&r)) => a.min(r),
            (Some(&key), None) | (None, Some(&key)) => key,
            (None, None) => break,
        };
        let block = last_keys
            .partition_point(|&last| last < next)
            .max(unrouted)
            .min(last_block);
        unrouted = block + 1;
        // The last block takes every key left, beyond it too.
        let split = |keys: &'k [u64]| match last_keys.get(block) {
            Some(&last) if block < last_block => {
                keys.split_at(keys.partition_point(|&key| key <= last))
            }
            _ => (keys, &[][..]),
        };
        let ((block_add, add_rest), (block_remove, remove_rest)) = (split(add), split(remove));
        changed.push(BlockChanges {
            block,
            add: block_add,
            remove: block_remove,
        });
        (add, remove) = (add_rest, remove_rest);
    }
    changed
}

/// `changed` (sorted by block) cut into runs of consecutive blocks, each
/// at most [`MAX_RUN_BLOCKS`] long.
fn consecutive_runs<'c, 'k>(
    changed: &'c [BlockChanges<'k>],
) -> impl Iterator<Item = &'c [BlockChanges<'k>]> {
    let mut rest = changed;
    std::iter::from_fn(move || {
        let first = rest.first()?.block;
        let length = rest
            .iter()
            .enumerate()
            .take(MAX_RUN_BLOCKS)
            .take_while(|&(offset, change)| change.block == first + offset)
            .count();
        let (run, tail) = rest.split_at(length);
        rest = tail;
        Some(run)
    })
}

/// Encodes a lone block's merged keys as blocks of about equal size.
///
/// Filling blocks greedily would leave a full block and a small remainder
/// each time a block overflows, so every merge would add a fragment and
/// blocks would shrink toward a few keys each (seen at 10M fingerprints:
/// 11 keys per block). Splitting evenly, like a B-tree, leaves every new
/// block with room to grow. Falls back to the greedy cut when an even share
/// does not fit (keys cost different numbers of bits).
fn split_evenly(encoder: &BlockEncoder<'_>, keys: &[u64]) -> Result<Vec<EncodedBlock>, CodecError> {
    let greedy = encoder.encode_table(keys)?;
    if greedy.len() <= 1 {
        return Ok(greedy);
    }
    let share = keys.len().div_ceil(greedy.len());
    let even = keys
        .chunks(share)
        .map(|chunk| encoder.encode_block(chunk))
        .collect::<Result<Vec<_>, _>>()?;
    if even
        .iter()
        .all(|block| block.bytes().len() <= encoder.target_block_bytes())
    {
        Ok(even)
    } else {
        Ok(greedy)
    }
}

/// Appends `(keys ∪ add) \ remove` to `out`; all sorted, so the appended
/// keys are sorted and distinct (if `add` is).
fn merge_sorted(keys: &[u64], add: &[u64], remove: &[u64], out: &mut Vec<u64>) {
    out.reserve(keys.len() + add.len());
    let (mut keys, mut add) = (keys.iter().peekable(), add.iter().peekable());
    loop {
        let next = match (keys.peek(), add.peek()) {
            (Some(&&a), Some(&&b)) if a == b => {
                add.next();
                keys.next();
                a
            }
            (Some(&&a), Some(&&b)) if a < b => {
                keys.next();
                a
            }
            (Some(&&a), None) => {
                keys.next();
                a
            }
            (_, Some(&&b)) => {
                add.next();
                b
            }
            (None, None) => break,
        };
        if remove.binary_search(&next).is_err() {
            out.push(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BlockDecoder, ChecksumPolicy, HuffmanCode};

    #[test]
    fn overflowing_blocks_split_evenly_and_fit() {
        let code = HuffmanCode::uniform();
        let encoder = BlockEncoder::new(&code, 256);
        let mut keys: Vec<u64> = (0..100u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 1)
            .collect();
        keys.sort_unstable();
        let greedy = encoder.encode_table(&keys).unwrap();
        let even = split_evenly(&encoder, &keys).unwrap();
        assert_eq!(even.len(), greedy.len());
        assert!(even.iter().all(|b| b.bytes().len() <= 256));
        let counts: Vec<u32> = even.iter().map(|b| b.count()).collect();
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(max - min <= 1, "uneven split {counts:?}");
        let decoder = BlockDecoder::new(&code, ChecksumPolicy::Verify);
        let all: Vec<u64> = even
            .iter()
            .flat_map(|b| {
                let mut out = Vec::new();
                decoder.decode(b.bytes(), &mut out).unwrap();
                out
            })
            .collect();
        assert_eq!(all, keys);
    }

    #[test]
    fn changed_blocks_group_into_bounded_runs_of_neighbours() {
        let changed: Vec<BlockChanges<'_>> = [0, 1, 2, 5, 7, 8]
            .into_iter()
            .chain(10..10 + MAX_RUN_BLOCKS + 3)
            .map(|block| BlockChanges {
                block,
                add: &[],
                remove: &[],
            })
            .collect();
        let runs: Vec<Vec<usize>> = consecutive_runs(&changed)
            .map(|run| run.iter().map(|change| change.block).collect())
            .collect();
        let long: Vec<usize> = (10..10 + MAX_RUN_BLOCKS).collect();
        let tail: Vec<usize> = (10 + MAX_RUN_BLOCKS..10 + MAX_RUN_BLOCKS + 3).collect();
        assert_eq!(runs, vec![vec![0, 1, 2], vec![5], vec![7, 8], long, tail]);
    }

    type AddsAndRemoves = (Vec<u64>, Vec<u64>);

    proptest::proptest! {
        #[test]
        fn routing_matches_a_search_per_key(
            // A small key space, so keys often equal a block's last key
            // or lie beyond the last block.
            mut last_keys in proptest::collection::vec(0u64..300, 0..40),
            mut add in proptest::collection::vec(0u64..320, 0..200),
            mut remove in proptest::collection::vec(0u64..320, 0..200),
        ) {
            last_keys.sort_unstable();
            last_keys.dedup();
            add.sort_unstable();
            remove.sort_unstable();
            let route = |key: u64| {
                last_keys
                    .partition_point(|&last| last < key)
                    .min(last_keys.len().saturating_sub(1))
            };
            let mut expected: std::collections::BTreeMap<usize, AddsAndRemoves> =
                std::collections::BTreeMap::new();
            for &key in &add {
                expected.entry(route(key)).or_default().0.push(key);
            }
            for &key in &remove {
                expected.entry(route(key)).or_default().1.push(key);
            }
            let routed: Vec<(usize, AddsAndRemoves)> = route_changes(&last_keys, &add, &remove)
                .into_iter()
                .map(|change| (change.block, (change.add.to_vec(), change.remove.to_vec())))
                .collect();
            proptest::prop_assert_eq!(routed, expected.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn merges_adds_and_removes() {
        let merged = |keys: &[u64], add: &[u64], remove: &[u64]| {
            let mut out = vec![0];
            merge_sorted(keys, add, remove, &mut out);
            out
        };
        assert_eq!(merged(&[1, 3, 5], &[2, 3, 6], &[5]), [0, 1, 2, 3, 6]);
        assert_eq!(merged(&[], &[4], &[]), [0, 4]);
        assert_eq!(merged(&[7], &[], &[7]), [0]);
        assert_eq!(merged(&[7], &[7], &[7]), [0]);
    }
}
