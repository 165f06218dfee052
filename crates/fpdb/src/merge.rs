//! Merging the delta into the compressed tables.
//!
//! Per table, each changed key is routed to the block that holds (or would
//! hold) it: the first block whose last key is ≥ the key, or the last block
//! for keys beyond every block. Only those blocks are decoded, changed and
//! re-encoded with the table's code; a block that grows past the target
//! size is split by the encoder, one that empties is deleted. All tables'
//! block changes, the new directories and the cleared delta go into one
//! RocksDB `WriteBatch`, so a crash leaves either the state before the
//! merge or the state after it.

use std::collections::BTreeMap;

use fpdb_codec::{BlockDecoder, BlockDirectory, BlockEncoder, ChecksumPolicy};
use rocksdb::WriteBatch;

use crate::block_cache::BlockCache;
use crate::delta::Delta;
use crate::db::table_bytes_key;
use crate::keys::{self, block_key, directory_key};
use crate::{Db, Error, Result};

/// Changes routed to one block: keys to add and keys to remove, sorted.
#[derive(Default)]
struct BlockChanges {
    add: Vec<u64>,
    remove: Vec<u64>,
}

impl Db {
    /// Merges every pending change into the tables now (it also happens by
    /// itself when the delta reaches `OpenOptions::delta_limit`).
    pub fn merge(&self) -> Result<()> {
        let _writer = self.lock_writer()?;
        self.merge_locked()
    }

    /// Merges the delta, then compacts RocksDB's files.
    pub fn compact(&self) -> Result<()> {
        self.merge()?;
        for family in self.families() {
            self.rocks
                .compact_range_cf(family, None::<&[u8]>, None::<&[u8]>);
        }
        // Idle scanners still pin the files compaction replaced.
        self.rocks.drop_idle_scanners();
        Ok(())
    }

    pub(crate) fn merge_locked(&self) -> Result<()> {
        let (added, removed) = {
            let state = self.read_state();
            (
                state
                    .delta
                    .added_fingerprints(&self.design)
                    .collect::<Vec<_>>(),
                state.delta.removed_fingerprints().collect::<Vec<_>>(),
            )
        };
        if added.is_empty() && removed.is_empty() {
            return Ok(());
        }
        let mut batch = WriteBatch::default();
        let mut directories = Vec::with_capacity(self.design.tables().len());
        let mut table_bytes = Vec::with_capacity(self.design.tables().len());
        {
            let state = self.read_state();
            for (index, table) in self.design.tables().iter().enumerate() {
                let permutation = table.permutation();
                let mut add: Vec<u64> = added.iter().map(|f| permutation.permute(f.0)).collect();
                let mut remove: Vec<u64> =
                    removed.iter().map(|f| permutation.permute(f.0)).collect();
                add.sort_unstable();
                remove.sort_unstable();
                let directory = state.directories.get(index).ok_or_else(|| {
                    Error::corrupt(format!("directory of table {index}"), "missing")
                })?;
                let bytes = state.table_bytes.get(index).copied().unwrap_or(0);
                let (new_directory, new_bytes) =
                    self.merge_table(index, directory, bytes, &add, &remove, &mut batch)?;
                batch.put_cf(
                    self.cf(keys::META)?,
                    directory_key(index),
                    new_directory.to_bytes(),
                );
                batch.put_cf(
                    self.cf(keys::META)?,
                    table_bytes_key(index),
                    new_bytes.to_be_bytes(),
                );
                directories.push(new_directory);
                table_bytes.push(new_bytes);
            }
        }
        let delta_cf = self.cf(keys::DELTA)?;
        for fp in added.iter().chain(&removed) {
            batch.delete_cf(delta_cf, fp.0.to_be_bytes());
        }
        // The merge rewrites blocks that took many writes to fill: make it
        // durable whatever the per-write setting.
        let mut options = rocksdb::WriteOptions::default();
        options.set_sync(true);
        let mut state = self.write_state();
        self.rocks.write_opt(batch, &options)?;
        state.blocks = BlockCache::new(&directories, self.open_options.block_cache_bytes);
        state.directories = directories;
        state.table_bytes = table_bytes;
        // A fresh delta, its buckets sized for the next merge's threshold.
        state.delta = Delta::new(
            &self.design,
            self.open_options.merge_threshold(state.fingerprints),
        );
        Ok(())
    }

    /// Writes table `index`'s changed blocks into `batch`; returns its new
    /// directory and byte count.
    fn merge_table(
        &self,
        index: usize,
        directory: &BlockDirectory,
        mut bytes: u64,
        add: &[u64],
        remove: &[u64],
        batch: &mut WriteBatch,
    ) -> Result<(BlockDirectory, u64)> {
        let last_keys = directory.last_keys();
        let route = |key: u64| {
            last_keys
                .partition_point(|&last| last < key)
                .min(last_keys.len().saturating_sub(1))
        };
        let mut per_block: BTreeMap<usize, BlockChanges> = BTreeMap::new();
        for &key in add {
            per_block.entry(route(key)).or_default().add.push(key);
        }
        for &key in remove {
            per_block.entry(route(key)).or_default().remove.push(key);
        }
        let code = self
            .codes
            .get(index)
            .ok_or_else(|| Error::corrupt(format!("code book of table {index}"), "missing"))?;
        let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
        let encoder = BlockEncoder::new(code, self.block_bytes);
        let cf = self.table_cf(index)?;
        let mut new_last_keys: Vec<u64> = Vec::with_capacity(last_keys.len() + per_block.len());
        let mut copied_up_to = 0;
        let mut keys = Vec::new();
        let mut merged = Vec::new();
        let changed: Vec<(usize, BlockChanges)> = per_block.into_iter().collect();
        for run in consecutive_runs(&changed) {
            let Some(&(first_block, _)) = run.first() else {
                continue;
            };
            if let Some(unchanged) = last_keys.get(copied_up_to..first_block) {
                new_last_keys.extend_from_slice(unchanged);
            }
            merged.clear();
            for (block, changes) in run {
                let block = *block;
                copied_up_to = block + 1;
                keys.clear();
                if let Some(&last_key) = last_keys.get(block) {
                    let old = self.read_block(index, block, last_key)?;
                    decoder.decode(&old, &mut keys).map_err(|e| {
                        Error::corrupt(format!("table {index}, block {block}"), e.to_string())
                    })?;
                    bytes = bytes.saturating_sub(old.len() as u64);
                    batch.delete_cf(cf, block_key(last_key));
                }
                merged.extend(merge_sorted(&keys, &changes.add, &changes.remove));
            }
            let encoded = if run.len() == 1 {
                split_evenly(&encoder, &merged, self.block_bytes)?
            } else {
                // Several neighbouring blocks changed (at large deltas, all
                // of them): cut their keys afresh into full blocks, as a
                // bulk load does, instead of leaving each half-full block
                // of its last split. Fewer, fuller blocks mean fewer block
                // visits per query.
                encoder.encode_table(&merged)?
            };
            for block in encoded {
                bytes += block.bytes().len() as u64;
                new_last_keys.push(block.last_key());
                batch.put_cf(cf, block_key(block.last_key()), block.bytes());
            }
        }
        if let Some(rest) = last_keys.get(copied_up_to..) {
            new_last_keys.extend_from_slice(rest);
        }
        let directory = BlockDirectory::new(new_last_keys).map_err(|e| {
            Error::corrupt(
                format!("directory of table {index} after merge"),
                e.to_string(),
            )
        })?;
        Ok((directory, bytes))
    }
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

    #[test]
    fn merges_adds_and_removes() {
        assert_eq!(merge_sorted(&[1, 3, 5], &[2, 3, 6], &[5]), [1, 2, 3, 6]);
        assert_eq!(merge_sorted(&[], &[4], &[]), [4]);
        assert!(merge_sorted(&[7], &[], &[7]).is_empty());
    }
}
