//! Batch queries, the paper's batch mode.
//!
//! One query probes about one block per table. A batch of a million
//! queries would probe four million blocks at random, decoding the same
//! ones over and over. Instead, per table, the batch is sorted under the
//! table's permutation and merged against the table in one sequential
//! pass: each block the batch needs is read (in key order: through one
//! RocksDB iterator when the batch needs most blocks, else by MultiGets of
//! [`READ_AHEAD_BLOCKS`]) and decoded once, and every query sharing its
//! prefix is checked against it. Small batches still probe: below
//! [`MERGE_BATCH_THRESHOLD`] queries sorting and the pass cost more than
//! they save.

use std::collections::VecDeque;
use std::ops::Range;

use fpdb_codec::engine::{self, RangeReader};
use fpdb_codec::{
    BlockDecoder, BlockDirectory, ChecksumPolicy, DirectoryCursor, HuffmanCode, Table,
};
use fpdb_parallel::{cores, in_parallel};
use fpdb_simhash::Fingerprint;

use crate::added_keys::keys_within;
use crate::block_fetch::{block_damage, decode_read, fill_rocksdb_cache, kept_range, Need};
use crate::error::{Error, Result};
use crate::query::{query, Match};
use crate::radix;
use crate::store::{BlockCursor, Family, IdScanner, Store, FP_IDS_BLOCK_BYTES};
use crate::tables::{State, Tables};

/// Batches of at least this many queries are merged against the tables
/// rather than probed one by one ([`BatchStrategy::Auto`]); measured in
/// docs/BENCHMARKS.md ("Batch queries"): at 10M stored, with every block
/// kept in memory, probing is up to 15 % faster from 100 to 100,000
/// queries, but in a fresh `fpdb query` (blocks read from the store)
/// 1,000 queries take 34 ms merged against 43 ms probed, 10,000 take
/// 110–150 ms against 210 ms: the walk reads its blocks in sorted batches.
pub(crate) const MERGE_BATCH_THRESHOLD: usize = 1_000;

/// How [`crate::Db::query_batch_with`] answers a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchStrategy {
    /// Merge when the batch has at least 1,000 queries (measured
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
    tables.check_radius(k)?;
    // A merge walks each table once along its shared prefixes: it answers
    // up to the tables' k. Wider radii are probed query by query.
    let merge = match strategy {
        BatchStrategy::Auto => fps.len() >= MERGE_BATCH_THRESHOLD && k <= tables.k,
        BatchStrategy::Probe => false,
        BatchStrategy::Merge => {
            tables.check_k(k)?;
            true
        }
    };
    // Parallel work under the read lock runs on fpdb's own pool, not
    // rayon's global one (see `fpdb_parallel`).
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

/// The ids of every fingerprint hit, sorted by fingerprint
/// ([`read_sorted`]).
fn ids_of_sorted(store: &Store, hits: &[Hit]) -> Result<Vec<IdsOf>> {
    let wanted: Vec<Fingerprint> = hits.iter().map(|&(_, fp, _)| fp).collect();
    read_sorted(store, wanted, |scanner, fp| scanner.ids_of(fp))
}

/// `read` of every fingerprint of `wanted`, sorted by fingerprint: each
/// fingerprint read once, in key order, through one iterator per
/// thread (creating a RocksDB iterator per match cost more than the
/// lookups). Only ids under prefixes an earlier batch read fill RocksDB's
/// cache ([`PrefixesRead`](crate::store::PrefixesRead)).
pub(crate) fn read_sorted<T: Send>(
    store: &Store,
    mut wanted: Vec<Fingerprint>,
    read: impl Fn(&mut IdScanner<'_>, Fingerprint) -> Result<T> + Sync,
) -> Result<Vec<(Fingerprint, T)>> {
    wanted.sort_unstable();
    wanted.dedup();
    // The rule of the tables' read-ahead, counting RocksDB's blocks by
    // their uncompressed size: compressed ones take fewer bytes, so this
    // counts fewer blocks than there are and reads ahead a little sooner.
    let id_blocks = store.live_sst_bytes(Family::FpToIds) / FP_IDS_BLOCK_BYTES as u64;
    if (wanted.len() as u64).saturating_mul(READ_AHEAD_SHARE as u64) >= id_blocks {
        store.read_ahead(Family::FpToIds);
    }
    let chunk = wanted.len().div_ceil(cores()).max(1);
    let chunks: Vec<&[Fingerprint]> = wanted.chunks(chunk).collect();
    let found: Vec<Result<Vec<(Fingerprint, T)>>> = in_parallel(chunks.len(), |part| {
        let chunk = chunks
            .get(part)
            .copied()
            .ok_or_else(|| out_of_range(part))?;
        store.with_id_scanners(|cached, uncached| {
            chunk
                .iter()
                .map(|&fp| {
                    // Prefixes are recorded only after every lookup, so a
                    // prefix's fingerprints in this batch share a scanner.
                    let value = if store.prefixes_read().contains(fp) {
                        read(cached, fp)?
                    } else {
                        read(uncached, fp)?
                    };
                    Ok((fp, value))
                })
                .collect()
        })
    });
    let mut all = Vec::with_capacity(wanted.len());
    for part in found {
        all.extend(part?);
    }
    for &fp in &wanted {
        store.prefixes_read().insert(fp);
    }
    Ok(all)
}

/// Every hit of the batch in table `index`: the codec's sorted walk
/// ([`engine::walk_table`]) over the table's blocks in order, each needed
/// block decoded once ([`TableReader`]).
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
    let queries: Vec<(u64, u32)> = (0u32..)
        .zip(fps)
        .map(|(i, fp)| (permutation.permute(fp.0), i))
        .collect();
    walk_live(
        store,
        tables,
        state,
        index,
        queries,
        |queries, reader, hit| {
            engine::walk_table(&tables.design, index, k, queries, fps, reader, &mut { hit })
        },
    )
}

/// Every hit in table `index` of the batch's probes of its flip sets
/// (`flips[i]` for query `i`, [`engine::weak_bit_flips`]) within `radius`:
/// the probes sorted and walked against the table in one pass
/// ([`engine::walk_table_flips`]), as [`join_table`] walks queries.
pub(crate) fn join_table_flips(
    store: &Store,
    tables: &Tables,
    state: &State,
    index: usize,
    (fps, flips): (&[Fingerprint], &[Vec<Vec<u64>>]),
    radius: u32,
) -> Result<Vec<Hit>> {
    let probes = engine::flip_probes(&tables.design, index, fps, flips);
    walk_live(
        store,
        tables,
        state,
        index,
        probes,
        |probes, reader, hit| {
            engine::walk_table_flips(
                &tables.design,
                index,
                radius,
                probes,
                fps,
                flips,
                reader,
                &mut { hit },
            )
        },
    )
}

/// Sorts `probes` (permuted keys with their query numbers), then `walk`s
/// them against table `index` through a [`TableReader`], keeping the hits
/// whose fingerprint the delta has not removed.
fn walk_live(
    store: &Store,
    tables: &Tables,
    state: &State,
    index: usize,
    mut probes: Vec<(u64, u32)>,
    walk: impl FnOnce(
        &[(u64, u32)],
        &mut TableReader<'_>,
        &mut dyn FnMut(u32, Fingerprint, u32),
    ) -> Result<()>,
) -> Result<Vec<Hit>> {
    radix::sort_by_key(&mut probes, &mut Vec::new(), |&(q, _)| q, |_| ());
    let mut reader = TableReader::for_walk(store, tables, state, index, &probes)?;
    let mut hits = Vec::new();
    walk(&probes, &mut reader, &mut |number, stored, distance| {
        if !state.delta.is_removed(stored) {
            hits.push((number, stored, distance));
        }
    })?;
    Ok(hits)
}

/// One table's keys as a sorted walk reads them: through a cursor over
/// the whole table (dense), or block by block (kept blocks from memory,
/// others read ahead in sorted batches); plus the delta's added keys.
struct TableReader<'a> {
    store: &'a Store,
    state: &'a State,
    table: usize,
    code: &'a HuffmanCode,
    directory: &'a BlockDirectory,
    /// Finds the blocks of the walk's ranges, which come in ascending
    /// order.
    blocks: DirectoryCursor<'a>,
    scan: Option<BlockCursor<'a>>,
    ahead: ReadAhead,
    /// The block whose keys are in `keys` (dense walks).
    decoded: Option<usize>,
    keys: Vec<u64>,
}

impl<'a> TableReader<'a> {
    /// A reader for a walk of sorted `queries` (permuted keys, from which
    /// the prefixes it will ask for follow) against table `index`.
    fn for_walk(
        store: &'a Store,
        tables: &'a Tables,
        state: &'a State,
        index: usize,
        queries: &[(u64, u32)],
    ) -> Result<Self> {
        let table: &Table = tables.table(index)?;
        let directory = state.directory(index)?;
        let code = tables.code(index)?;
        // A batch that needs most blocks reads the table front to back
        // with one cursor; a sparse one reads its blocks by key, many at a
        // time (a RocksDB seek costs several point lookups).
        let dense = queries.len().saturating_mul(tables.design.tables().len()) >= directory.len();
        let scan = if dense {
            Some(store.block_cursor(index)?)
        } else {
            None
        };
        let mut ahead = ReadAhead::default();
        if !dense {
            let mut cursor = directory.cursor();
            for (lo, hi, _) in engine::prefix_groups(table, queries) {
                for block in cursor.locate(lo, hi) {
                    let last_key = directory
                        .last_keys()
                        .get(block)
                        .copied()
                        .ok_or_else(|| out_of_range(block))?;
                    ahead.want(state, index, block, last_key, hi);
                }
            }
        }
        if ahead.wanted.len().saturating_mul(READ_AHEAD_SHARE) >= directory.len() {
            // Read one by one from a cold page cache, this many blocks would
            // cost more than reading the whole table in order.
            store.read_ahead(Family::Table(index));
        }
        Ok(TableReader {
            store,
            state,
            table: index,
            code,
            directory,
            blocks: directory.cursor(),
            scan,
            ahead,
            decoded: None,
            keys: Vec::new(),
        })
    }
}

impl RangeReader for TableReader<'_> {
    type Error = Error;

    fn keys_in(&mut self, lo: u64, hi: u64, candidates: &mut Vec<u64>) -> Result<()> {
        let table = self.table;
        for block in self.blocks.locate(lo, hi) {
            let Some(cursor) = self.scan.as_mut() else {
                if let Some(kept) = self.state.blocks.get(table, block) {
                    // As a single query reads it.
                    kept_range(kept, self.code, (table, block), lo, hi, &mut |key| {
                        candidates.push(key);
                    })?;
                } else {
                    // Read ahead with the blocks around it (decoded by the
                    // same policy as a single query's, `decode_read`), its
                    // keys held until a later block is asked for.
                    let block_keys =
                        self.ahead
                            .keys_of(self.store, self.state, (table, self.code), block)?;
                    candidates.extend_from_slice(keys_within(block_keys, lo, hi));
                }
                continue;
            };
            if self.decoded != Some(block) {
                let last_key = self
                    .directory
                    .last_keys()
                    .get(block)
                    .copied()
                    .ok_or_else(|| out_of_range(block))?;
                let bytes = cursor.advance_to(last_key)?;
                BlockDecoder::new(self.code, ChecksumPolicy::Verify)
                    .decode(bytes, &mut self.keys)
                    .map_err(|e| block_damage(table, block, &e))?;
                self.decoded = Some(block);
            }
            candidates.extend_from_slice(keys_within(&self.keys, lo, hi));
        }
        candidates.extend(self.state.delta.added_in(table, lo, hi));
        Ok(())
    }
}

/// A sparse walk that wants at least 1 / `READ_AHEAD_SHARE` of a table's
/// blocks has the kernel read the table's files ahead
/// ([`Store::read_ahead`]). Cold, at 10M: 35 µs a block read at random
/// against 0.6 µs a block read in order, so reading ahead wins from about
/// 1/60 of the blocks; warm, the advice costs about 15 ns a block of the
/// table against 3 µs a block the walk reads, so at 1/16 it costs at most
/// 8 % of a warm walk and saves 3/4 of a cold one.
const READ_AHEAD_SHARE: usize = 16;

/// Blocks read from the store per MultiGet by a sparse walk: enough to
/// share RocksDB's index searches and data blocks, few enough that the
/// decoded keys stay in the CPU's cache.
const READ_AHEAD_BLOCKS: usize = 64;

/// A block a sorted walk will read from the store.
struct Wanted {
    block: usize,
    last_key: u64,
    /// The highest key any query wants from it: a block that is not kept
    /// is decoded only that far.
    hi: u64,
}

/// The blocks of one table a sorted walk will read from the store (not
/// kept in memory), read [`READ_AHEAD_BLOCKS`] at a time and decoded.
#[derive(Default)]
struct ReadAhead {
    /// Ascending by block.
    wanted: Vec<Wanted>,
    /// How many of `wanted` have been read.
    read: usize,
    /// The blocks of the last read and where their keys are in `keys`.
    ready: VecDeque<(usize, Range<usize>)>,
    keys: Vec<u64>,
    scratch: Vec<u64>,
}

impl ReadAhead {
    /// Adds block `block` (whose last key is `last_key`) for a query range
    /// ending at `hi`, unless it is kept; blocks come in ascending order.
    fn want(&mut self, state: &State, table: usize, block: usize, last_key: u64, hi: u64) {
        match self.wanted.last_mut() {
            Some(last) if last.block == block => last.hi = last.hi.max(hi),
            _ if state.blocks.get(table, block).is_some() => {}
            _ => self.wanted.push(Wanted {
                block,
                last_key,
                hi,
            }),
        }
    }

    /// The keys of block `block` (up to its `hi` at least), reading the
    /// next blocks when it is not among those read; blocks are asked for
    /// in ascending order.
    fn keys_of(
        &mut self,
        store: &Store,
        state: &State,
        (table, code): (usize, &HuffmanCode),
        block: usize,
    ) -> Result<&[u64]> {
        loop {
            while self.ready.front().is_some_and(|&(b, _)| b < block) {
                self.ready.pop_front();
            }
            match self.ready.front() {
                Some((b, range)) if *b == block => {
                    return self
                        .keys
                        .get(range.clone())
                        .ok_or_else(|| out_of_range(block));
                }
                Some(_) => return Err(out_of_range(block)),
                None if self.read >= self.wanted.len() => return Err(out_of_range(block)),
                None => self.read_more(store, state, (table, code))?,
            }
        }
    }

    /// Reads and decodes the next [`READ_AHEAD_BLOCKS`] wanted blocks: a
    /// block the cache admits whole, to keep it, others up to their `hi`.
    fn read_more(
        &mut self,
        store: &Store,
        state: &State,
        (table, code): (usize, &HuffmanCode),
    ) -> Result<()> {
        let end = self.wanted.len().min(self.read + READ_AHEAD_BLOCKS);
        let batch = self
            .wanted
            .get(self.read..end)
            .ok_or_else(|| out_of_range(end))?;
        self.read = end;
        let last_keys: Vec<u64> = batch.iter().map(|wanted| wanted.last_key).collect();
        self.keys.clear();
        let Self {
            ready,
            keys,
            scratch,
            ..
        } = self;
        store.blocks(
            table,
            &last_keys,
            fill_rocksdb_cache(state),
            |position, bytes| {
                let wanted = batch.get(position).ok_or_else(|| out_of_range(position))?;
                let block = wanted.block;
                // Every key up to `hi`: the block's keys serve each range
                // the walk asks of it.
                let need = Need::Range {
                    lo: 0,
                    hi: wanted.hi,
                };
                decode_read(state, code, (table, block), bytes, need, scratch)?;
                let start = keys.len();
                keys.extend_from_slice(scratch);
                ready.push_back((block, start..keys.len()));
                Ok(())
            },
        )
    }
}
