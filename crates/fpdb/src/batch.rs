//! Batch queries, the paper's batch mode.
//!
//! One query probes about one block per table. A batch of a million
//! queries would probe four million blocks at random, decoding the same
//! ones over and over. Instead, per table, the batch is sorted under the
//! table's permutation and merged against the table in one sequential
//! pass: each block the batch needs is read (through a RocksDB iterator,
//! in key order) and decoded once, and every query sharing its prefix is
//! checked against it. Small batches still probe: sorting and the pass
//! cost more than they save below [`MERGE_BATCH_THRESHOLD`] queries.

use fpdb_codec::{BlockDecoder, ChecksumPolicy, Table, TableMatcher};
use fpdb_simhash::Fingerprint;

use crate::error::{Error, Result};
use crate::parallel::{cores, in_parallel};
use crate::query::{query, Match};
use crate::radix;
use crate::store::Store;
use crate::tables::{block_damage, State, Tables};

/// Batches of at least this many queries are merged against the tables
/// rather than probed one by one ([`BatchStrategy::Auto`]); measured in
/// docs/BENCHMARKS.md ("Batch queries").
pub(crate) const MERGE_BATCH_THRESHOLD: usize = 10_000;

/// How [`crate::Db::query_batch_with`] answers a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchStrategy {
    /// Merge when the batch has at least 10,000 queries (measured
    /// crossover, docs/BENCHMARKS.md), probe otherwise.
    #[default]
    Auto,
    /// One [`crate::Db::query`] per fingerprint, in parallel.
    Probe,
    /// Sort the batch per table and merge it against the table.
    Merge,
}

/// A match found for query number `query`.
type Hit = (u32, Fingerprint, u32);

/// A fingerprint and its ids.
type IdsOf = (Fingerprint, Vec<String>);

/// Answers for `fps` in input order; every strategy gives the same.
pub(crate) fn query_batch(
    store: &Store,
    tables: &Tables,
    fps: &[Fingerprint],
    k: u32,
    strategy: BatchStrategy,
) -> Result<Vec<Vec<Match>>> {
    tables.check_k(k)?;
    let merge = match strategy {
        BatchStrategy::Auto => fps.len() >= MERGE_BATCH_THRESHOLD,
        BatchStrategy::Probe => false,
        BatchStrategy::Merge => true,
    };
    // Parallel work under the read lock runs on fpdb's own pool, not
    // rayon's global one (see `parallel.rs`).
    let state = tables.read();
    if !merge {
        return in_parallel(fps.len(), |index| {
            let fp = fps.get(index).copied().ok_or_else(|| out_of_range(index))?;
            query(store, tables, &state, fp, k)
        })
        .into_iter()
        .collect();
    }
    if u32::try_from(fps.len()).is_err() {
        return Err(Error::LimitExceeded {
            what: format!(
                "a merged batch of {} queries (at most 2^32 - 1); split it",
                fps.len()
            ),
        });
    }
    let per_table: Vec<Result<Vec<Hit>>> = in_parallel(tables.design.tables().len(), |index| {
        join_table(store, tables, &state, index, fps, k)
    });
    let mut hits: Vec<Hit> = Vec::new();
    for table_hits in per_table {
        hits.extend(table_hits?);
    }
    radix::sort_by_key(
        &mut hits,
        &mut Vec::new(),
        |&(query, _, _)| u64::from(query) << 32,
        |&(_, fp, distance)| (distance, fp),
    );
    drop(state);
    let ids = ids_of_sorted(store, &hits)?;
    let mut answers: Vec<Vec<Match>> = vec![Vec::new(); fps.len()];
    for (query, fingerprint, distance) in hits {
        let Ok(at) = ids.binary_search_by_key(&fingerprint, |(fp, _)| *fp) else {
            continue;
        };
        let ids = ids
            .get(at)
            .map(|(_, ids)| ids.clone())
            .ok_or_else(|| out_of_range(at))?;
        // A fingerprint whose last id is being removed right now has no
        // ids: it is already gone (as in `Db::query`).
        if let (false, Some(answer)) = (ids.is_empty(), answers.get_mut(query as usize)) {
            answer.push(Match {
                fingerprint,
                distance,
                ids,
            });
        }
    }
    Ok(answers)
}

/// An index the code just computed that is out of range: a bug, reported
/// rather than answered with a default.
fn out_of_range(index: usize) -> Error {
    Error::corrupt("batch query", format!("index {index} out of range"))
}

/// The ids of every fingerprint hit, sorted by fingerprint: each
/// fingerprint looked up once, in key order, through one iterator per
/// thread (creating a RocksDB iterator per match cost more than the
/// lookups).
fn ids_of_sorted(store: &Store, hits: &[Hit]) -> Result<Vec<IdsOf>> {
    let mut wanted: Vec<Fingerprint> = hits.iter().map(|&(_, fp, _)| fp).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let chunk = wanted.len().div_ceil(cores()).max(1);
    let chunks: Vec<&[Fingerprint]> = wanted.chunks(chunk).collect();
    let found: Vec<Result<Vec<IdsOf>>> = in_parallel(chunks.len(), |part| {
        let chunk = chunks
            .get(part)
            .copied()
            .ok_or_else(|| out_of_range(part))?;
        store.with_id_scanner(|scanner| {
            chunk
                .iter()
                .map(|&fp| Ok((fp, scanner.ids_of(fp)?)))
                .collect()
        })
    });
    let mut all = Vec::with_capacity(wanted.len());
    for part in found {
        all.extend(part?);
    }
    Ok(all)
}

/// Every hit of the batch in table `index`: the sorted batch walks the
/// table's blocks in order, each needed block decoded once.
fn join_table(
    store: &Store,
    tables: &Tables,
    state: &State,
    index: usize,
    fps: &[Fingerprint],
    k: u32,
) -> Result<Vec<Hit>> {
    let table: &Table = tables.table(index)?;
    let permutation = table.permutation();
    let matcher = TableMatcher::new(&tables.design, index, k).ok_or_else(|| out_of_range(index))?;
    let mut queries: Vec<(u64, u32)> = (0u32..)
        .zip(fps)
        .map(|(i, fp)| (permutation.permute(fp.0), i))
        .collect();
    radix::sort_by_key(&mut queries, &mut Vec::new(), |&(q, _)| q, |_| ());

    let directory = state.directory(index)?;
    let decoder = BlockDecoder::new(tables.code(index)?, ChecksumPolicy::Verify);
    // A batch that needs most blocks reads the table front to back
    // with one cursor; a sparse one fetches its blocks by key (a
    // RocksDB seek costs several point lookups).
    let dense = queries.len().saturating_mul(tables.design.tables().len()) >= directory.len();
    let mut scan = if dense {
        Some(store.block_cursor(index)?)
    } else {
        None
    };
    let mut decoded: Option<usize> = None;
    let mut keys = Vec::new();
    let mut candidates = Vec::new();
    let mut hits = Vec::new();

    let mut rest = queries.as_slice();
    while let Some(&(first, _)) = rest.first() {
        let (lo, hi) = table.prefix_range(first);
        // Every query in [lo, hi] shares this prefix and its candidates.
        let group_len = rest.partition_point(|&(q, _)| q <= hi);
        let (group, tail) = rest.split_at(group_len);
        rest = tail;

        candidates.clear();
        for block in directory.locate(lo, hi) {
            if decoded != Some(block) {
                match scan.as_mut() {
                    Some(blocks) => {
                        let last_key = directory
                            .last_keys()
                            .get(block)
                            .copied()
                            .ok_or_else(|| out_of_range(block))?;
                        let bytes = blocks.advance_to(last_key)?;
                        decoder
                            .decode(bytes, &mut keys)
                            .map_err(|e| block_damage(index, block, &e))?;
                    }
                    None => {
                        tables.decode_block(store, state, (index, block), &mut keys, true)?;
                    }
                }
                decoded = Some(block);
            }
            candidates.extend(keys.iter().copied().filter(|key| (lo..=hi).contains(key)));
        }
        candidates.extend(state.delta.added_in(index, lo, hi));

        for &(query, number) in group {
            let fp = fps
                .get(number as usize)
                .copied()
                .ok_or_else(|| out_of_range(number as usize))?;
            for &key in &candidates {
                if let Some((stored, distance)) = matcher.probe(key, query, fp) {
                    if !state.delta.is_removed(stored) {
                        hits.push((number, stored, distance));
                    }
                }
            }
        }
    }
    Ok(hits)
}
