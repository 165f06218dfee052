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

use fpdb_codec::{within_distance, BlockDecoder, ChecksumPolicy, Table};
use fpdb_simhash::Fingerprint;

use crate::db::{Match, State};
use crate::keys::block_key;
use crate::parallel::{cores, in_parallel};
use crate::radix;
use crate::{Db, Error, Result};

/// Batches of at least this many queries are merged against the tables
/// rather than probed one by one ([`BatchStrategy::Auto`]); measured in
/// docs/BENCHMARKS.md ("Batch queries").
pub const MERGE_BATCH_THRESHOLD: usize = 10_000;

/// How [`Db::query_batch_with`] answers a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BatchStrategy {
    /// Merge when the batch has at least [`MERGE_BATCH_THRESHOLD`]
    /// queries, probe otherwise.
    #[default]
    Auto,
    /// One [`Db::query`] per fingerprint, in parallel.
    Probe,
    /// Sort the batch per table and merge it against the table.
    Merge,
}

/// A match found for query number `query`.
type Hit = (u32, Fingerprint, u32);

/// A fingerprint and its ids.
type IdsOf = (Fingerprint, Vec<String>);

impl Db {
    /// [`Db::query`] for many fingerprints; answers in input order. Large
    /// batches are merged against the tables in one pass per table
    /// ([`BatchStrategy::Auto`]).
    pub fn query_batch(&self, fps: &[Fingerprint], k: u32) -> Result<Vec<Vec<Match>>> {
        self.query_batch_with(fps, k, BatchStrategy::Auto)
    }

    /// [`Db::query_batch`] with an explicit strategy. Every strategy gives
    /// the same answers.
    pub fn query_batch_with(
        &self,
        fps: &[Fingerprint],
        k: u32,
        strategy: BatchStrategy,
    ) -> Result<Vec<Vec<Match>>> {
        self.check_k(k)?;
        let merge = match strategy {
            BatchStrategy::Auto => fps.len() >= MERGE_BATCH_THRESHOLD,
            BatchStrategy::Probe => false,
            BatchStrategy::Merge => true,
        };
        // Parallel work under the read lock runs on fpdb's own pool, not
        // rayon's global one (see `parallel.rs`).
        let state = self.read_state();
        if !merge {
            return in_parallel(fps.len(), |index| {
                let fp = fps.get(index).copied().unwrap_or_default();
                self.query_locked(&state, fp, k)
            })
            .into_iter()
            .collect();
        }
        if u32::try_from(fps.len()).is_err() {
            return Err(Error::Options(
                "a merged batch holds at most 2^32 - 1 queries; split it".into(),
            ));
        }
        let tables = self.design.tables();
        let per_table: Vec<Result<Vec<Hit>>> = in_parallel(tables.len(), |index| {
            let table = tables
                .get(index)
                .ok_or_else(|| Error::corrupt(format!("design of table {index}"), "missing"))?;
            self.join_table(&state, index, table, fps, k)
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
        let ids = self.ids_of_sorted(&hits)?;
        let mut answers: Vec<Vec<Match>> = vec![Vec::new(); fps.len()];
        for (query, fingerprint, distance) in hits {
            let Ok(at) = ids.binary_search_by_key(&fingerprint, |(fp, _)| *fp) else {
                continue;
            };
            let ids = ids.get(at).map(|(_, ids)| ids.clone()).unwrap_or_default();
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

    /// The ids of every fingerprint hit, sorted by fingerprint: each
    /// fingerprint looked up once, in key order, through one iterator per
    /// thread (creating a RocksDB iterator per match cost more than the
    /// lookups).
    fn ids_of_sorted(&self, hits: &[Hit]) -> Result<Vec<IdsOf>> {
        let mut wanted: Vec<Fingerprint> = hits.iter().map(|&(_, fp, _)| fp).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let chunk = wanted.len().div_ceil(cores()).max(1);
        let chunks: Vec<&[Fingerprint]> = wanted.chunks(chunk).collect();
        let found: Vec<Result<Vec<IdsOf>>> = in_parallel(chunks.len(), |part| {
            let chunk = chunks.get(part).copied().unwrap_or_default();
            self.rocks.with_id_scanner(|scanner| {
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
        &self,
        state: &State,
        index: usize,
        table: &Table,
        fps: &[Fingerprint],
        k: u32,
    ) -> Result<Vec<Hit>> {
        let permutation = table.permutation();
        let mut queries: Vec<(u64, u32)> = (0u32..)
            .zip(fps)
            .map(|(i, fp)| (permutation.permute(fp.0), i))
            .collect();
        radix::sort_by_key(&mut queries, &mut Vec::new(), |&(q, _)| q, |_| ());

        let directory = state
            .directories
            .get(index)
            .ok_or_else(|| Error::corrupt(format!("directory of table {index}"), "missing"))?;
        let code = self
            .codes
            .get(index)
            .ok_or_else(|| Error::corrupt(format!("code book of table {index}"), "missing"))?;
        let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
        let trusted = BlockDecoder::new(code, ChecksumPolicy::Skip);
        // A batch that needs most blocks reads the table front to back
        // with one iterator; a sparse one fetches its blocks by key (a
        // RocksDB seek costs several point lookups).
        let dense = queries.len().saturating_mul(self.design.tables().len()) >= directory.len();
        let family = self.table_cf(index)?;
        let mut scan = dense.then(|| {
            let mut iterator = self.rocks.raw_iterator_cf(family);
            iterator.seek_to_first();
            iterator
        });
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
                    let last_key = directory.last_keys().get(block).copied().unwrap_or(0);
                    let damaged = |reason: String| {
                        Error::corrupt(format!("table {index}, block {block}"), reason)
                    };
                    match scan.as_mut() {
                        Some(blocks) => {
                            let wanted = block_key(last_key);
                            while blocks.valid()
                                && blocks.key().is_some_and(|key| key < &wanted[..])
                            {
                                blocks.next();
                            }
                            blocks.status()?;
                            let bytes = match (blocks.key(), blocks.value()) {
                                (Some(key), Some(value)) if key == &wanted[..] => value,
                                _ => return Err(damaged("missing from the store".into())),
                            };
                            decoder
                                .decode(bytes, &mut keys)
                                .map_err(|e| damaged(e.to_string()))?;
                        }
                        None => match state.blocks.get(index, block) {
                            // Kept blocks passed their checksum when read.
                            Some(kept) => trusted
                                .decode(&kept.bytes, &mut keys)
                                .map_err(|e| damaged(e.to_string()))?,
                            None => {
                                let bytes = self.read_block(index, block, last_key)?;
                                decoder
                                    .decode(&bytes, &mut keys)
                                    .map_err(|e| damaged(e.to_string()))?;
                                state.blocks.keep(index, block, &bytes, &keys, code);
                            }
                        },
                    }
                    decoded = Some(block);
                }
                candidates.extend(keys.iter().copied().filter(|key| (lo..=hi).contains(key)));
            }
            candidates.extend(state.delta.added_in(index, lo, hi));

            for &(query, number) in group {
                let fp = fps.get(number as usize).copied().unwrap_or_default();
                for &key in &candidates {
                    let xor = key ^ query;
                    if !within_distance(xor, k) {
                        continue;
                    }
                    let distance = xor.count_ones();
                    let stored = Fingerprint(permutation.inverse(key));
                    // Reported by the first table sharing a prefix only,
                    // as in `Db::query`.
                    if self.design.first_table_sharing(stored.0 ^ fp.0) == Some(index)
                        && !state.delta.is_removed(stored)
                    {
                        hits.push((number, stored, distance));
                    }
                }
            }
        }
        Ok(hits)
    }
}
