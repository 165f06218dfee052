//! Merging the delta into the compressed tables (with the writer lock
//! held).
//!
//! Per table, each changed key is routed to the block that holds (or would
//! hold) it: the first block whose last key is ≥ the key, or the last block
//! for keys beyond every block. Only those blocks are decoded, changed and
//! re-encoded with the table's code; a block that grows past the target
//! size is split by the encoder, one that empties is deleted. All tables'
//! block changes, the new directories and the cleared delta go into one
//! RocksDB `WriteBatch`, so a crash leaves either the state before the
//! merge or the state after it. Tables merge in parallel (on fpdb's own
//! pool, `parallel.rs`), and the blocks a merge writes stay in memory for
//! the queries (and the merge) after it.

use fpdb_codec::{BlockDirectory, BlockEncoder, EncodedBlock};

use crate::block_cache::{BlockCache, KeptBlock};
use crate::delta::Delta;
use crate::error::{Error, Result};
use crate::parallel::in_parallel;
use crate::store::keys::{block_key, directory_key, table_bytes_key};
use crate::store::{Family, Store, RECORD_OVERHEAD};
use crate::tables::{State, Tables, WriterGuard};

/// Changes routed to one block: keys to add and keys to remove, sorted.
#[derive(Default)]
struct BlockChanges {
    add: Vec<u64>,
    remove: Vec<u64>,
}

/// Merges every pending change of the delta into the tables, in one
/// synced write.
pub(crate) fn merge(store: &Store, tables: &Tables, _writer: &WriterGuard<'_>) -> Result<()> {
    let (added, removed) = {
        let state = tables.read();
        (
            state
                .delta
                .added_fingerprints(&tables.design)
                .collect::<Vec<_>>(),
            state.delta.removed_fingerprints().collect::<Vec<_>>(),
        )
    };
    if added.is_empty() && removed.is_empty() {
        return Ok(());
    }
    // Tables merge independently, so they merge in parallel (a merge
    // holds the writer lock: its time is every writer's).
    let count = tables.design.tables().len();
    let keep_budget = tables.block_cache_bytes / count.max(1);
    let merges = {
        let state = tables.read();
        let state = &*state;
        in_parallel(count, |index| {
            let permutation = tables.table(index)?.permutation();
            let mut add: Vec<u64> = added.iter().map(|f| permutation.permute(f.0)).collect();
            let mut remove: Vec<u64> = removed.iter().map(|f| permutation.permute(f.0)).collect();
            add.sort_unstable();
            remove.sort_unstable();
            merge_table(store, tables, state, index, &add, &remove, keep_budget)
        })
        .into_iter()
        .collect::<Result<Vec<TableMerge>>>()?
    };
    // Sized up front: a merge at 10M fingerprints writes about 250 MB,
    // which a growing batch would copy over and over.
    let capacity: usize = merges
            .iter()
            .flat_map(|merge| &merge.writes)
            .map(|write| match write {
                BlockWrite::Delete(_) => 8,
                BlockWrite::Put(block) => 8 + block.bytes().len(),
            } + RECORD_OVERHEAD)
            .sum::<usize>()
            + merges.iter().map(|merge| merge.directory.len() * 8).sum::<usize>();
    let mut batch = store.write_set(capacity);
    for (index, merge) in merges.iter().enumerate() {
        let family = Family::Table(index);
        for write in &merge.writes {
            match *write {
                BlockWrite::Delete(last_key) => batch.delete(family, block_key(last_key))?,
                BlockWrite::Put(ref block) => {
                    batch.put(family, block_key(block.last_key()), block.bytes())?
                }
            }
        }
    }
    for (index, merge) in merges.iter().enumerate() {
        batch.put(
            Family::Meta,
            directory_key(index),
            merge.directory.to_bytes(),
        )?;
        batch.put(
            Family::Meta,
            table_bytes_key(index),
            merge.bytes.to_be_bytes(),
        )?;
    }
    // Under the writer lock the `delta` family holds exactly the delta
    // being merged: clear it with one range deletion. A delete per
    // fingerprint (1.25M at 10M) cost a memtable insert each, and left
    // tombstones that every open had to step over until compaction.
    batch.clear(Family::Delta)?;
    let table_bytes: Vec<u64> = merges.iter().map(|merge| merge.bytes).collect();
    let (directories, kept): (Vec<BlockDirectory>, Vec<_>) = merges
        .into_iter()
        .map(|merge| (merge.directory, merge.kept))
        .unzip();
    // The new blocks are in hand: keep them, so queries after a merge
    // (and the next merge) need not read them back from RocksDB.
    let blocks = BlockCache::new(&directories, tables.block_cache_bytes);
    for (index, table_kept) in kept.into_iter().enumerate() {
        for (block, block_kept) in table_kept {
            blocks.insert(index, block, block_kept);
        }
    }
    // The merge rewrites blocks that took many writes to fill: make it
    // durable whatever the per-write setting.
    let mut state = tables.write();
    store.write_synced(batch)?;
    state.blocks = blocks;
    state.directories = directories;
    state.table_bytes = table_bytes;
    // A fresh delta, its buckets sized for the next merge's threshold.
    state.delta = Delta::new(&tables.design, tables.merge_threshold(state.fingerprints));
    Ok(())
}

/// Merges sorted permuted `add` and `remove` keys into table `index`.
/// Keeps in memory (within about `keep_budget` bytes) the blocks it
/// writes and the unchanged blocks that were kept already.
fn merge_table(
    store: &Store,
    tables: &Tables,
    state: &State,
    index: usize,
    add: &[u64],
    remove: &[u64],
    keep_budget: usize,
) -> Result<TableMerge> {
    let directory = state.directory(index)?;
    let mut bytes = state
        .table_bytes
        .get(index)
        .copied()
        .ok_or_else(|| Error::corrupt(format!("byte count of table {index}"), "missing"))?;
    let last_keys = directory.last_keys();
    let changed = route_changes(last_keys, add, remove);
    let code = tables.code(index)?;
    let encoder = BlockEncoder::new(code, tables.block_bytes);
    let mut new_last_keys: Vec<u64> = Vec::with_capacity(last_keys.len() + changed.len());
    let mut writes = Vec::new();
    let mut kept = Vec::new();
    let mut kept_bytes = 0;
    // Unchanged blocks keep their keys and, if kept, their bytes.
    let copy_unchanged = |blocks: std::ops::Range<usize>,
                          new_last_keys: &mut Vec<u64>,
                          kept: &mut Vec<(usize, KeptBlock)>| {
        for old in blocks {
            if let Some(&last_key) = last_keys.get(old) {
                if let Some(block) = state.blocks.get(index, old) {
                    kept.push((new_last_keys.len(), block.clone()));
                }
                new_last_keys.push(last_key);
            }
        }
    };
    let mut copied_up_to = 0;
    let mut keys = Vec::new();
    let mut merged = Vec::new();
    for run in consecutive_runs(&changed) {
        let Some(&(first_block, _)) = run.first() else {
            continue;
        };
        copy_unchanged(copied_up_to..first_block, &mut new_last_keys, &mut kept);
        merged.clear();
        for (block, changes) in run {
            let block = *block;
            copied_up_to = block + 1;
            keys.clear();
            if let Some(&last_key) = last_keys.get(block) {
                let old_len =
                    tables.decode_block(store, state, (index, block), &mut keys, false)?;
                bytes = bytes.saturating_sub(old_len as u64);
                writes.push(BlockWrite::Delete(last_key));
            }
            merged.extend(merge_sorted(&keys, &changes.add, &changes.remove));
        }
        let encoded = if run.len() == 1 {
            split_evenly(&encoder, &merged, tables.block_bytes)?
        } else {
            // Several neighbouring blocks changed (at large deltas, all
            // of them): cut their keys afresh into full blocks, as a
            // bulk load does, instead of leaving each half-full block
            // of its last split. Fewer, fuller blocks mean fewer block
            // visits per query.
            encoder.encode_table(&merged)?
        };
        let mut rest = merged.as_slice();
        for block in encoded {
            let (block_keys, tail) = rest.split_at((block.count() as usize).min(rest.len()));
            rest = tail;
            bytes += block.bytes().len() as u64;
            if kept_bytes + block.bytes().len() <= keep_budget {
                kept_bytes += block.bytes().len();
                kept.push((
                    new_last_keys.len(),
                    KeptBlock::new(block.bytes(), block_keys, code),
                ));
            }
            new_last_keys.push(block.last_key());
            writes.push(BlockWrite::Put(block));
        }
    }
    copy_unchanged(copied_up_to..last_keys.len(), &mut new_last_keys, &mut kept);
    let directory = BlockDirectory::new(new_last_keys).map_err(|e| {
        Error::corrupt(
            format!("directory of table {index} after merge"),
            e.to_string(),
        )
    })?;
    Ok(TableMerge {
        directory,
        bytes,
        writes,
        kept,
    })
}

/// What merging the delta into one table produced.
struct TableMerge {
    directory: BlockDirectory,
    bytes: u64,
    /// The table's block writes, in order.
    writes: Vec<BlockWrite>,
    /// Blocks to keep in memory, by their index in the new directory.
    kept: Vec<(usize, KeptBlock)>,
}

/// One change to a table's column family.
enum BlockWrite {
    /// Delete the block with this last key.
    Delete(u64),
    /// Put a new block under its last key.
    Put(EncodedBlock),
}

/// Routes sorted `add` and `remove` keys to the blocks of a table with
/// these `last_keys`: each key to the first block whose last key is ≥ it,
/// or the last block for keys beyond every block. Returns the changed
/// blocks in order. Both key lists and the blocks ascend, so one pass
/// walks them together (a merge touches every block once the delta
/// outgrows the block count: no search or map per key).
fn route_changes(last_keys: &[u64], add: &[u64], remove: &[u64]) -> Vec<(usize, BlockChanges)> {
    let last_block = last_keys.len().saturating_sub(1);
    let mut changed: Vec<(usize, BlockChanges)> = Vec::new();
    let mut block = 0;
    let (mut adds, mut removes) = (add.iter().peekable(), remove.iter().peekable());
    loop {
        let (key, is_add) = match (adds.peek(), removes.peek()) {
            (Some(&&a), Some(&&r)) if a <= r => (a, true),
            (_, Some(&&r)) => (r, false),
            (Some(&&a), None) => (a, true),
            (None, None) => break,
        };
        if is_add {
            adds.next();
        } else {
            removes.next();
        }
        while block < last_block && last_keys.get(block).is_some_and(|&last| last < key) {
            block += 1;
        }
        if changed.last().is_none_or(|&(last, _)| last != block) {
            changed.push((block, BlockChanges::default()));
        }
        if let Some((_, changes)) = changed.last_mut() {
            if is_add {
                changes.add.push(key);
            } else {
                changes.remove.push(key);
            }
        }
    }
    changed
}

/// Most neighbouring changed blocks re-cut together: the cut leaves at most
/// one part-full block per run.
const MAX_RUN_BLOCKS: usize = 64;

/// `changed` (sorted by block) cut into runs of consecutive blocks, each
/// at most [`MAX_RUN_BLOCKS`] long.
fn consecutive_runs<T>(changed: &[(usize, T)]) -> impl Iterator<Item = &[(usize, T)]> {
    let mut rest = changed;
    std::iter::from_fn(move || {
        let (&(first, _), _) = rest.split_first()?;
        let length = rest
            .iter()
            .enumerate()
            .take(MAX_RUN_BLOCKS)
            .take_while(|&(offset, &(block, _))| block == first + offset)
            .count();
        let (run, tail) = rest.split_at(length);
        rest = tail;
        Some(run)
    })
}

/// Encodes a merged run as blocks of about equal size.
///
/// Filling blocks greedily would leave a full block and a small remainder
/// each time a block overflows, so every merge would add a fragment and
/// blocks would shrink toward a few keys each (seen at 10M fingerprints:
/// 11 keys per block). Splitting evenly, like a B-tree, leaves every new
/// block with room to grow. Falls back to the greedy cut when an even share
/// does not fit (keys cost different numbers of bits).
fn split_evenly(
    encoder: &BlockEncoder<'_>,
    keys: &[u64],
    block_bytes: usize,
) -> Result<Vec<fpdb_codec::EncodedBlock>> {
    let greedy = encoder.encode_table(keys)?;
    if greedy.len() <= 1 {
        return Ok(greedy);
    }
    let share = keys.len().div_ceil(greedy.len());
    let even = keys
        .chunks(share)
        .map(|chunk| encoder.encode_block(chunk))
        .collect::<Result<Vec<_>, _>>()?;
    if even.iter().all(|block| block.bytes().len() <= block_bytes) {
        Ok(even)
    } else {
        Ok(greedy)
    }
}

/// `(keys ∪ add) \ remove`, all sorted; the result is sorted and distinct.
fn merge_sorted(keys: &[u64], add: &[u64], remove: &[u64]) -> Vec<u64> {
    let mut merged = Vec::with_capacity(keys.len() + add.len());
    let (mut i, mut j) = (0, 0);
    while i < keys.len() || j < add.len() {
        let next = match (keys.get(i), add.get(j)) {
            (Some(&a), Some(&b)) if a == b => {
                i += 1;
                j += 1;
                a
            }
            (Some(&a), Some(&b)) if a < b => {
                i += 1;
                a
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (_, Some(&b)) => {
                j += 1;
                b
            }
            (None, None) => break,
        };
        if remove.binary_search(&next).is_err() {
            merged.push(next);
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::merge_sorted;

    #[test]
    fn overflowing_runs_split_evenly_and_fit() {
        let code = fpdb_codec::HuffmanCode::uniform();
        let encoder = fpdb_codec::BlockEncoder::new(&code, 256);
        let keys: Vec<u64> = (0..100u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 1)
            .collect();
        let mut keys = keys;
        keys.sort_unstable();
        let greedy = encoder.encode_table(&keys).unwrap();
        let even = super::split_evenly(&encoder, &keys, 256).unwrap();
        assert_eq!(even.len(), greedy.len());
        assert!(even.iter().all(|b| b.bytes().len() <= 256));
        let counts: Vec<u32> = even.iter().map(|b| b.count()).collect();
        let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
        assert!(max - min <= 1, "uneven split {counts:?}");
        let all: Vec<u64> = even
            .iter()
            .flat_map(|b| {
                let mut out = Vec::new();
                fpdb_codec::BlockDecoder::new(&code, fpdb_codec::ChecksumPolicy::Verify)
                    .decode(b.bytes(), &mut out)
                    .unwrap();
                out
            })
            .collect();
        assert_eq!(all, keys);
    }

    #[test]
    fn changed_blocks_group_into_bounded_runs_of_neighbours() {
        let changed: Vec<(usize, ())> = [0, 1, 2, 5, 7, 8]
            .into_iter()
            .chain(10..10 + super::MAX_RUN_BLOCKS + 3)
            .map(|block| (block, ()))
            .collect();
        let runs: Vec<Vec<usize>> = super::consecutive_runs(&changed)
            .map(|run| run.iter().map(|&(block, _)| block).collect())
            .collect();
        let long: Vec<usize> = (10..10 + super::MAX_RUN_BLOCKS).collect();
        let tail: Vec<usize> =
            (10 + super::MAX_RUN_BLOCKS..10 + super::MAX_RUN_BLOCKS + 3).collect();
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
            let routed: Vec<(usize, AddsAndRemoves)> =
                super::route_changes(&last_keys, &add, &remove)
                    .into_iter()
                    .map(|(block, changes)| (block, (changes.add, changes.remove)))
                    .collect();
            proptest::prop_assert_eq!(routed, expected.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn merges_adds_and_removes() {
        assert_eq!(merge_sorted(&[1, 3, 5], &[2, 3, 6], &[5]), [1, 2, 3, 6]);
        assert_eq!(merge_sorted(&[], &[4], &[]), [4]);
        assert!(merge_sorted(&[7], &[], &[7]).is_empty());
    }
}
