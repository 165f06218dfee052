//! Merging the delta into the compressed tables, planned without the
//! writer lock.
//!
//! Per table, [`fpdb_codec::plan_merge`] decides which blocks the changes
//! touch and how they are re-encoded with the table's code (the rules are
//! in FORMAT.md); this module reads the old blocks for it (kept copy, else
//! RocksDB) and carries the plan out. A merge runs in two steps:
//!
//! 1. It takes a snapshot of the delta and plans every table from it
//!    (in parallel on fpdb's own pool, or on the calling thread alone for
//!    a merge beside other work: [`Planning`]) while writes go on: they change
//!    only the delta, never the blocks the plan reads, and each
//!    fingerprint whose delta entry they change is noted in
//!    `State::touched`.
//! 2. It takes the writer lock and writes, in one synced RocksDB
//!    `WriteBatch`, the block changes, the new directories and the delta
//!    the writes left: the `delta` family cleared, then the entries of the
//!    touched fingerprints that the merged tables still differ from the
//!    set in ([`residual`]).
//!
//! On disk the delta is always relative to the tables beside it: before
//! the batch, the old tables and every write's entry; after it, the new
//! tables and what is left. A crash leaves one or the other. The blocks a
//! merge writes stay in memory for the queries (and the merge) after it.

use std::sync::Arc;

use fpdb_codec::{plan_merge, BlockDirectory, BlockEncoder, MergePlan, PlannedBlock};
use fpdb_parallel::in_parallel;
use fpdb_simhash::Fingerprint;

use crate::block_cache::{BlockCache, KeptBlock};
use crate::block_fetch::{fetch, Need};
use crate::delta::Delta;
use crate::error::{Error, Result};
use crate::seeded_hash::FastSet;
use crate::store::{Counter, DeltaEntry, Family, Key, Record, Store, RECORD_OVERHEAD};
use crate::tables::{State, Tables};

/// Where a merge plans its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Planning {
    /// On fpdb's pool, every core: the caller is waiting for the merge.
    Parallel,
    /// On the calling thread alone: a thread that merges beside other work
    /// (a server's writes and queries), which should take one core at the
    /// most.
    OnThisThread,
}

/// Merges every pending change of the delta into the tables, waiting for a
/// merge that is running to finish first.
pub(crate) fn merge(store: &Store, tables: &Tables, planning: Planning) -> Result<()> {
    let _merging = tables.lock_merging();
    merge_locked(store, tables, planning)
}

/// [`merge`] unless another merge is running (which takes the changes
/// this one would have).
pub(crate) fn merge_unless_running(store: &Store, tables: &Tables) -> Result<()> {
    match tables.try_lock_merging() {
        Some(_merging) => merge_locked(store, tables, Planning::Parallel),
        None => Ok(()),
    }
}

/// A fingerprint's entry in a delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    None,
    Added,
    Removed,
}

/// The entry `fp` needs against the merged tables, from its entry in the
/// merged snapshot (`merged`) and its entry now against the old tables
/// (`now`). The merged tables hold `fp` exactly when the old ones did and
/// the snapshot did not remove it, or the snapshot added it; so an entry
/// the snapshot had is undone by a later write (the entry goes) or kept
/// (it is in the tables now), and an entry it did not have is what the
/// writes made.
fn residual(merged: Entry, now: Entry) -> Entry {
    match (merged, now) {
        (Entry::None, now) => now,
        (Entry::Added, Entry::Added) | (Entry::Removed, Entry::Removed) => Entry::None,
        (Entry::Added, _) => Entry::Removed,
        (Entry::Removed, _) => Entry::Added,
    }
}

fn merge_locked(store: &Store, tables: &Tables, planning: Planning) -> Result<()> {
    // The snapshot: the delta's changes and what the plan reads. Writes
    // change only the delta and the counters, so the directories and kept
    // blocks stay the tables' until this merge replaces them.
    let (snapshot, mut added, mut removed) = {
        let mut state = tables.write();
        if state.delta.len() == 0 {
            return Ok(());
        }
        state.touched = Some(FastSet::default());
        let snapshot = State {
            directories: state.directories.clone(),
            blocks: Arc::clone(&state.blocks),
            table_bytes: state.table_bytes.clone(),
            delta: Delta::new(&tables.design, 0),
            touched: None,
            fingerprints: state.fingerprints,
            ids: state.ids,
        };
        (
            snapshot,
            state
                .delta
                .added_fingerprints(&tables.design)
                .collect::<Vec<_>>(),
            state.delta.removed_fingerprints().collect::<Vec<_>>(),
        )
    };
    // A merge that fails before it takes the writer lock leaves the delta
    // as it is, and stops noting what writes touch.
    let planned = plan(store, tables, &snapshot, (&added, &removed), planning)
        .and_then(|merges| Ok((block_changes(store, &merges)?, merges)));
    let (mut batch, merges) = match planned {
        Ok(planned) => planned,
        Err(error) => {
            tables.write().touched = None;
            return Err(error);
        }
    };
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
    added.sort_unstable();
    removed.sort_unstable();
    let merged_entry = |fp: Fingerprint| {
        if added.binary_search(&fp).is_ok() {
            Entry::Added
        } else if removed.binary_search(&fp).is_ok() {
            Entry::Removed
        } else {
            Entry::None
        }
    };

    let _writer = tables.lock_writer(store).inspect_err(|_| {
        tables.write().touched = None;
    })?;
    // Queries wait while the blocks change under the directories they
    // read.
    let mut state = tables.write();
    let touched = state.touched.take().unwrap_or_default();
    let mut delta = Delta::new(&tables.design, tables.merge_threshold(state.fingerprints));
    // Under the writer lock the `delta` family holds exactly the
    // snapshot and what the writes since changed: clear it with one range
    // deletion and put back what is left. A delete per fingerprint (1.25M
    // at 10M) cost a memtable insert each, and left tombstones that every
    // open had to step over until compaction.
    batch.clear(Family::Delta)?;
    for fp in touched {
        let now = if state.delta.is_added(&tables.design, fp) {
            Entry::Added
        } else if state.delta.is_removed(fp) {
            Entry::Removed
        } else {
            Entry::None
        };
        match residual(merged_entry(fp), now) {
            Entry::None => {}
            Entry::Added => {
                batch.put(Record::Delta(DeltaEntry::Added(fp)))?;
                delta.add(&tables.design, fp);
            }
            Entry::Removed => {
                batch.put(Record::Delta(DeltaEntry::Removed(fp)))?;
                delta.remove(fp);
            }
        }
    }
    // The merge rewrites blocks that took many writes to fill: make it
    // durable whatever the per-write setting.
    store.write_synced(batch)?;
    state.blocks = Arc::new(blocks);
    state.directories = directories;
    state.table_bytes = table_bytes;
    state.delta = delta;
    Ok(())
}

/// Each table's merge of the snapshot's `added` and `removed`.
fn plan(
    store: &Store,
    tables: &Tables,
    snapshot: &State,
    (added, removed): (&[Fingerprint], &[Fingerprint]),
    planning: Planning,
) -> Result<Vec<TableMerge>> {
    let count = tables.design.tables().len();
    let keep_budget = tables.block_cache_bytes / count.max(1);
    let table = |index: usize| {
        let permutation = tables.table(index)?.permutation();
        let mut add: Vec<u64> = added.iter().map(|f| permutation.permute(f.0)).collect();
        let mut remove: Vec<u64> = removed.iter().map(|f| permutation.permute(f.0)).collect();
        add.sort_unstable();
        remove.sort_unstable();
        merge_table(store, tables, snapshot, index, &add, &remove, keep_budget)
    };
    match planning {
        Planning::Parallel => in_parallel(count, table).into_iter().collect(),
        Planning::OnThisThread => (0..count).map(table).collect(),
    }
}

/// Every table's block deletes and puts, new directory and byte count, in
/// one batch sized up front: a merge at 10M fingerprints writes about
/// 250 MB, which a growing batch would copy over and over.
fn block_changes<'s>(
    store: &'s Store,
    merges: &[TableMerge],
) -> Result<crate::store::WriteSet<'s>> {
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
    Ok(batch)
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
