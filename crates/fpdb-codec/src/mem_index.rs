//! An in-memory index built from the design, the block codec and the
//! directories: the reference for what the persistent store must answer.

use fpdb_fingerprint::Fingerprint;

use crate::design::{Table, TableDesign};
use crate::error::CodecError;
use crate::match_rule::TableMatcher;
use crate::prefix_bitmap::PrefixBitmap;
use crate::prefix_runs;
use crate::table::EncodedTable;

/// Tables probed together by [`MemIndex::query_with`].
const PROBE_BATCH: usize = 16;

/// One table's probe while a batch is in flight.
#[derive(Debug, Clone, Default)]
struct Probe {
    permuted: u64,
    lo: u64,
    hi: u64,
    group: usize,
    blocks: std::ops::Range<usize>,
}

/// Up to [`PROBE_BATCH`] consecutive tables, from design table
/// `first_table` on: the design's tables, their encodings and prefix
/// bitmaps, index for index.
#[derive(Debug, Clone, Copy)]
struct Batch<'a> {
    first_table: usize,
    tables: &'a [Table],
    encoded: &'a [EncodedTable],
    presence: &'a [Option<PrefixBitmap>],
}

/// Every table of a design, encoded in memory.
#[derive(Debug, Clone)]
pub struct MemIndex {
    design: TableDesign,
    tables: Vec<EncodedTable>,
    /// Per table, a bit per prefix where that pays (sparse prefixes).
    presence: Vec<Option<PrefixBitmap>>,
    distinct: usize,
}

impl MemIndex {
    /// Permutes, sorts and de-duplicates `fingerprints` once per table of
    /// `design` and encodes each table in blocks of about `block_bytes`.
    /// A table whose prefixes are mostly empty also gets a bit per prefix
    /// (see [`MemIndex::prefix_bitmap_bytes`]), so that probes finding no
    /// key with their prefix stop before the directory.
    pub fn build(
        design: TableDesign,
        fingerprints: &[Fingerprint],
        block_bytes: usize,
    ) -> Result<Self, CodecError> {
        let mut keys: Vec<u64> = Vec::with_capacity(fingerprints.len());
        let mut tables = Vec::with_capacity(design.tables().len());
        let mut presence = Vec::with_capacity(design.tables().len());
        let mut distinct = 0;
        for table in design.tables() {
            let permutation = table.permutation();
            keys.clear();
            keys.extend(fingerprints.iter().map(|fp| permutation.permute(fp.0)));
            keys.sort_unstable();
            keys.dedup();
            distinct = keys.len();
            let encoded = EncodedTable::build(&keys, block_bytes)?;
            presence.push(PrefixBitmap::build(
                &keys,
                table.prefix_bits(),
                encoded.encoded_bytes(),
            ));
            tables.push(encoded);
        }
        Ok(MemIndex {
            design,
            tables,
            presence,
            distinct,
        })
    }

    /// The design the tables follow.
    pub fn design(&self) -> &TableDesign {
        &self.design
    }

    /// The encoded tables, one per design table.
    pub fn tables(&self) -> &[EncodedTable] {
        &self.tables
    }

    /// Number of distinct fingerprints.
    pub fn len(&self) -> usize {
        self.distinct
    }

    /// Whether the index holds no fingerprint.
    pub fn is_empty(&self) -> bool {
        self.distinct == 0
    }

    /// Bytes of all blocks of all tables.
    pub fn encoded_bytes(&self) -> usize {
        self.tables.iter().map(EncodedTable::encoded_bytes).sum()
    }

    /// Bytes of the tables' prefix bitmaps (kept only for tables whose
    /// prefixes are mostly empty, and at most a sixth of their blocks).
    pub fn prefix_bitmap_bytes(&self) -> usize {
        self.presence
            .iter()
            .flatten()
            .map(PrefixBitmap::bytes)
            .sum()
    }

    fn check_k(&self, k: u32) -> Result<(), CodecError> {
        if k > self.design.k() {
            return Err(CodecError::DistanceTooLarge {
                k,
                max: self.design.k(),
            });
        }
        Ok(())
    }

    /// Every stored fingerprint within distance `k` of `query`, with its
    /// distance, sorted by distance then fingerprint. `k` may not exceed the
    /// design's.
    pub fn query(&self, query: Fingerprint, k: u32) -> Result<Vec<(Fingerprint, u32)>, CodecError> {
        let mut buffer = Vec::new();
        let mut out = Vec::new();
        self.query_with(query, k, &mut buffer, &mut out)?;
        Ok(out)
    }

    /// [`MemIndex::query`] reusing an output vector (which is cleared
    /// first). `buffer` is only cleared: keys are now compared as they are
    /// decoded, from the block's sync point nearest the probe's range (the
    /// parameter stays for compatibility).
    pub fn query_with(
        &self,
        query: Fingerprint,
        k: u32,
        buffer: &mut Vec<u64>,
        out: &mut Vec<(Fingerprint, u32)>,
    ) -> Result<(), CodecError> {
        self.check_k(k)?;
        out.clear();
        // `buffer` is not needed: keys are filtered as they are decoded.
        buffer.clear();
        // Tables are probed in batches, one step at a time across the
        // batch: each step is a dependent cache miss per table (directory
        // group, block info, block bytes), and taking it for all tables of
        // the batch before the next lets those misses overlap.
        // `build` made one encoded table and one presence entry per design
        // table, so the three chunk alike.
        let batches = self
            .design
            .tables()
            .chunks(PROBE_BATCH)
            .zip(self.tables.chunks(PROBE_BATCH))
            .zip(self.presence.chunks(PROBE_BATCH));
        for (number, ((tables, encoded), presence)) in batches.enumerate() {
            let batch = Batch {
                first_table: number * PROBE_BATCH,
                tables,
                encoded,
                presence,
            };
            self.probe_batch(batch, query, k, out)?;
        }
        out.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
        Ok(())
    }

    /// Probes the tables of `batch` for `query`.
    fn probe_batch(
        &self,
        batch: Batch<'_>,
        query: Fingerprint,
        k: u32,
        out: &mut Vec<(Fingerprint, u32)>,
    ) -> Result<(), CodecError> {
        let Some(filler) = batch.encoded.first() else {
            return Ok(());
        };
        let mut probes: [Probe; PROBE_BATCH] = std::array::from_fn(|_| Probe::default());
        // Step 0: permute; tables whose prefix bitmap says no key has the
        // query's prefix drop out (one load each, instead of the
        // directory's and the block's misses). The rest are probed below,
        // under their index in the batch (`offsets`).
        let mut offsets = [0usize; PROBE_BATCH];
        // Slots past `count` keep a filler and are never read.
        let mut encoded_kept = [filler; PROBE_BATCH];
        let mut count = 0;
        let tables = batch.tables.iter().zip(batch.encoded).zip(batch.presence);
        for (offset, ((table, encoded), presence)) in tables.enumerate() {
            // An empty table holds no key in any range (and its directory
            // summary, searched below, would be empty).
            if encoded.block_count() == 0 {
                continue;
            }
            let permuted = table.permutation().permute(query.0);
            let present = presence
                .as_ref()
                .is_none_or(|bitmap| bitmap.has_prefix_of(permuted));
            if !present {
                continue;
            }
            let (lo, hi) = table.prefix_range(permuted);
            if let (Some(probe), Some(at), Some(kept_encoded)) = (
                probes.get_mut(count),
                offsets.get_mut(count),
                encoded_kept.get_mut(count),
            ) {
                *probe = Probe {
                    permuted,
                    lo,
                    hi,
                    group: 0,
                    blocks: 0..0,
                };
                *at = offset;
                *kept_encoded = encoded;
                count += 1;
            }
        }
        #[expect(
            clippy::indexing_slicing,
            reason = "count grows once per table of the batch, which has at most PROBE_BATCH"
        )]
        let encoded = &encoded_kept[..count];
        // Step 1: find each table's directory group. The binary searches
        // over the summaries run in lockstep, one level for every table
        // before the next level, so their cache misses overlap instead of
        // forming one long chain per table.
        let mut searches = [(0usize, 0usize); PROBE_BATCH];
        let mut summaries: [&[u64]; PROBE_BATCH] = [&[]; PROBE_BATCH];
        for ((summary, search), encoded) in
            summaries.iter_mut().zip(searches.iter_mut()).zip(encoded)
        {
            *summary = encoded.directory().summary_top();
            *search = (0, summary.len());
        }
        let mut lows = [0u64; PROBE_BATCH];
        for (low, probe) in lows.iter_mut().zip(&probes) {
            *low = probe.lo;
        }
        loop {
            let mut searching = false;
            for ((&low, (base, size)), summary) in lows
                .iter()
                .zip(searches.iter_mut())
                .zip(&summaries)
                .take(count)
            {
                let half = *size / 2;
                // Every step keeps `base + size ≤ summary.len()` and
                // `size ≥ 1` (from `size = len ≥ 1`: empty tables are not
                // probed), so `base + half < summary.len()`.
                #[expect(
                    clippy::indexing_slicing,
                    reason = "base + half < base + size ≤ summary.len() (see above)"
                )]
                let last = summary[*base + half];
                // Select without branching on the loaded key.
                *base += half * usize::from(last < low);
                *size -= half;
                searching |= half > 0;
            }
            if !searching {
                break;
            }
        }
        // The segment of the summary to look in: the first whose last key
        // is not below `lo`. Then count the group keys below `lo` in it
        // (no branches on the keys, whose lines arrive in parallel).
        let mut segments = [0usize; PROBE_BATCH];
        for ((segment, &(base, size)), (summary, &low)) in segments
            .iter_mut()
            .zip(&searches)
            .zip(summaries.iter().zip(&lows))
            .take(count)
        {
            #[expect(
                clippy::indexing_slicing,
                reason = "the search ends with base < base + size ≤ summary.len() (size ≥ 1)"
            )]
            let last = summary[base];
            *segment = base + usize::from(size == 1 && last < low);
        }
        let mut touched = 0u64;
        for ((probe, &segment), encoded) in probes.iter_mut().zip(&segments).zip(encoded) {
            let keys = encoded.directory().summary_segment(segment);
            let below = keys.iter().filter(|&&last| last < probe.lo).count();
            probe.group = segment * crate::directory::GROUP + below;
            touched ^= encoded.touch_group(probe.group);
        }
        // Step 2: search the group; touch the first block's info line.
        for (probe, encoded) in probes.iter_mut().zip(encoded) {
            probe.blocks = encoded.locate_in_group(probe.group, probe.lo, probe.hi);
            if let Some(info) = encoded.info(probe.blocks.start) {
                touched ^= info.touch(probe.lo);
            }
        }
        // Step 3: touch the bytes where decoding will start.
        for (probe, encoded) in probes.iter().zip(encoded) {
            touched ^= encoded.touch_start(probe.blocks.start, probe.lo);
        }
        std::hint::black_box(touched);
        // Step 4: decode and compare.
        for ((probe, &offset), encoded) in probes.iter().zip(&offsets).zip(encoded) {
            let table_index = batch.first_table + offset;
            let Some(matcher) = TableMatcher::new(&self.design, table_index, k) else {
                continue;
            };
            let permuted_query = probe.permuted;
            encoded.for_each_in_range(probe.blocks.clone(), probe.lo, probe.hi, &mut |key| {
                if let Some(hit) = matcher.probe(key, permuted_query, query) {
                    out.push(hit);
                }
            })?;
        }
        Ok(())
    }

    /// Every unordered pair of distinct stored fingerprints within distance
    /// `k`, exactly once, as `(smaller, larger, distance)` sorted by
    /// `(smaller, larger)`.
    ///
    /// Each table is scanned linearly; keys with equal prefixes form runs,
    /// and only pairs inside a run are compared. A pair is reported by the
    /// lowest-index table in which it shares the prefix (a mask test on the
    /// XOR), so no set of seen pairs is kept.
    pub fn near_pairs(&self, k: u32) -> Result<Vec<(Fingerprint, Fingerprint, u32)>, CodecError> {
        self.check_k(k)?;
        let mut pairs = Vec::new();
        let mut run: Vec<u64> = Vec::new();
        for (table_index, (table, encoded)) in
            self.design.tables().iter().zip(&self.tables).enumerate()
        {
            let prefix_mask = table.prefix_mask();
            run.clear();
            encoded.for_each_block(|keys| {
                for &key in keys {
                    if run
                        .first()
                        .is_some_and(|&head| (head ^ key) & prefix_mask != 0)
                    {
                        self.pairs_in_run(table_index, &run, k, &mut pairs);
                        run.clear();
                    }
                    run.push(key);
                }
            })?;
            self.pairs_in_run(table_index, &run, k, &mut pairs);
        }
        pairs.sort_unstable();
        Ok(pairs)
    }

    /// Pairs within `k` among permuted keys sharing one prefix in table
    /// `table_index` (long runs are split on their remaining bits rather
    /// than compared pair by pair).
    fn pairs_in_run(
        &self,
        table_index: usize,
        run: &[u64],
        k: u32,
        pairs: &mut Vec<(Fingerprint, Fingerprint, u32)>,
    ) {
        let (Some(matcher), Some(table)) = (
            TableMatcher::new(&self.design, table_index, k),
            self.design.tables().get(table_index),
        ) else {
            return;
        };
        prefix_runs::pairs_among_keys(&matcher, table.prefix_bits(), run, k, pairs);
    }
}
