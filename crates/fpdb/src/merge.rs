//! Merging the delta into the compressed tables (with the writer lock
//! held).
//!
//! Per table, [`fpdb_codec::plan_merge`] decides which blocks the changes
//! touch and how they are re-encoded with the table's code (the rules are
//! in FORMAT.md); this module reads the old blocks for it (kept copy, else
//! RocksDB) and carries the plan out. All tables' block changes, the new
//! directories and the cleared delta go into one RocksDB `WriteBatch`, so
//! a crash leaves either the state before the merge or the state after
//! it. Tables merge in parallel (on fpdb's own pool, `fpdb_parallel`), and
//! the blocks a merge writes stay in memory for the queries (and the
//! merge) after it.

use fpdb_codec::{plan_merge, BlockDirectory, BlockEncoder, MergePlan, PlannedBlock};
use fpdb_parallel::in_parallel;

use crate::block_cache::{BlockCache, KeptBlock};
use crate::block_fetch::{fetch, Need};
use crate::delta::Delta;
use crate::error::{Error, Result};
use crate::store::{Counter, Family, Key, Record, Store, RECORD_OVERHEAD};
use crate::tables::{State, Tables, WriterGuard};

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
        .map(|merge| {
            let plan = &merge.plan;
            plan.deleted().len() * (8 + RECORD_OVERHEAD)
                + plan
                    .new_blocks()
                    .map(|block| 8 + block.bytes().len() + RECORD_OVERHEAD)
                    .sum::<usize>()
                + merge.directory.len() * 8
        })
        .sum();
    let mut batch = store.write_set(capacity);
    for (table, merge) in merges.iter().enumerate() {
        // Deletes first: a new block may take an old block's last key.
        for &last_key in merge.plan.deleted() {
            batch.delete(Key::Block { table, last_key })?;
        }
        for block in merge.plan.new_blocks() {
            batch.put(Record::Block {
                table,
                last_key: block.last_key(),
                bytes: block.bytes(),
            })?;
        }
    }
    for (table, merge) in merges.iter().enumerate() {
        batch.put(Record::Directory {
            table,
            bytes: &merge.directory.to_bytes(),
        })?;
        batch.put(Record::Counter(Counter::TableBytes(table), merge.bytes))?;
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
    let bytes = state
        .table_bytes
        .get(index)
        .copied()
        .ok_or_else(|| Error::corrupt(format!("byte count of table {index}"), "missing"))?;
    let code = tables.code(index)?;
    let encoder = BlockEncoder::new(code, tables.block_bytes)
        .cut_at_groups(tables.table(index)?.prefix_bits());
    let mut kept = Vec::new();
    let mut kept_bytes = 0;
    let mut scratch = Vec::new();
    let plan = plan_merge(
        directory,
        add,
        remove,
        &encoder,
        |block, keys| {
            keys.clear();
            let need = Need::Whole;
            let fetched = fetch(
                store,
                state,
                code,
                (index, block),
                need,
                &mut scratch,
                &mut |key| {
                    keys.push(key);
                },
            )?;
            Ok::<_, Error>(fetched.bytes)
        },
        |position, block, keys| {
            if kept_bytes + block.bytes().len() <= keep_budget {
                kept_bytes += block.bytes().len();
                kept.push((position, KeptBlock::new(block.bytes(), keys, code)));
            }
        },
    )?;
    // Unchanged blocks keep their bytes in memory if they were kept.
    for (position, planned) in plan.blocks().iter().enumerate() {
        if let PlannedBlock::Unchanged(old) = *planned {
            if let Some(block) = state.blocks.get(index, old) {
                kept.push((position, block.clone()));
            }
        }
    }
    let directory = plan.directory().map_err(|e| {
        Error::corrupt(
            format!("directory of table {index} after merge"),
            e.to_string(),
        )
    })?;
    Ok(TableMerge {
        directory,
        bytes: bytes.saturating_sub(plan.bytes_removed()) + plan.bytes_added(),
        plan,
        kept,
    })
}

/// What merging the delta into one table produced.
struct TableMerge {
    directory: BlockDirectory,
    bytes: u64,
    /// The table's block deletes and puts.
    plan: MergePlan,
    /// Blocks to keep in memory, by their index in the new directory.
    kept: Vec<(usize, KeptBlock)>,
}
