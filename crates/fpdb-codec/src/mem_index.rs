//! An in-memory index built from the design, the block codec and the
//! directories: the reference for what the persistent store must answer.

use fpdb_fingerprint::{Fingerprint, WeakBits};

use std::ops::Range;

use crate::design::{TableDesign, MAX_RADIUS};
use crate::directory::BlockDirectory;
use crate::engine::{self, BlockSource, PairScan, RangeReader};
use crate::error::CodecError;
use crate::prefix_bitmap::PrefixBitmap;
use crate::table::EncodedTable;

/// One query's answer: (stored fingerprint, distance), nearest first.
type Answer = Vec<(Fingerprint, u32)>;

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
            let encoded = EncodedTable::build_in_groups(&keys, block_bytes, table.prefix_bits())?;
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
    /// first). `buffer` is only cleared: keys are compared as they are
    /// decoded, from the block's sync point nearest the probe's range (the
    /// parameter stays for compatibility).
    pub fn query_with(
        &self,
        query: Fingerprint,
        k: u32,
        buffer: &mut Vec<u64>,
        out: &mut Vec<(Fingerprint, u32)>,
    ) -> Result<(), CodecError> {
        out.clear();
        buffer.clear();
        let mut source = MemSource {
            tables: &self.tables,
            presence: &self.presence,
        };
        engine::probe(&self.design, &mut source, query, k, out)?;
        out.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
        Ok(())
    }

    /// Every stored fingerprint within `radius` of `query` that one of
    /// `budget` flip sets per table reaches, the query's weakest bits
    /// flipped first (`vote_sizes[i]`: the size of bit i's simhash vote,
    /// bit 0 the most significant; [`engine::probe_flips`]), sorted by
    /// distance then fingerprint.
    pub fn query_flips(
        &self,
        query: Fingerprint,
        vote_sizes: &[u64; 64],
        budget: usize,
        radius: u32,
    ) -> Result<Vec<(Fingerprint, u32)>, CodecError> {
        let flips = engine::table_flips(&self.design, vote_sizes, budget);
        self.probe_flips(query, &flips, radius)
    }

    /// The stored fingerprints within `radius` that a query with weak
    /// bits `weak`, at most `flips` of them flipped in a quarter, reaches
    /// ([`WeakBits::reaches`], probed by [`engine::weak_bit_flips`]),
    /// sorted by distance then fingerprint; `None` when the design cannot
    /// probe weak bits.
    pub fn query_weak_bits(
        &self,
        query: Fingerprint,
        weak: WeakBits,
        flips: u32,
        radius: u32,
    ) -> Result<Option<Vec<(Fingerprint, u32)>>, CodecError> {
        let Some(flips) = engine::weak_bit_flips(&self.design, weak, flips) else {
            return Ok(None);
        };
        self.probe_flips(query, &flips, radius).map(Some)
    }

    /// [`MemIndex::query_weak_bits`] for a batch, query `i` with weak bits
    /// `weak[i]`, in input order: per table, every query's probes sorted
    /// and walked against the table in one pass
    /// ([`engine::walk_table_flips`]). `None` where the design has no
    /// quarter tables.
    pub fn query_weak_bits_batch(
        &self,
        fps: &[Fingerprint],
        weak: &[WeakBits],
        flips: u32,
        radius: u32,
    ) -> Result<Option<Vec<Answer>>, CodecError> {
        if fps.len() != weak.len() || u32::try_from(fps.len()).is_err() {
            return Err(CodecError::corrupt(
                "batch",
                format!("{} queries with {} weak-bit masks", fps.len(), weak.len()),
            ));
        }
        let Some(flips) = weak
            .iter()
            .map(|&weak| engine::weak_bit_flips(&self.design, weak, flips))
            .collect::<Option<Vec<_>>>()
        else {
            return Ok(None);
        };
        let mut answers = vec![Vec::new(); fps.len()];
        for (index, encoded) in self.tables.iter().enumerate() {
            let mut probes = engine::flip_probes(&self.design, index, fps, &flips);
            probes.sort_unstable();
            let mut reader = MemReader { table: encoded };
            engine::walk_table_flips(
                &self.design,
                index,
                radius,
                &probes,
                fps,
                &flips,
                &mut reader,
                &mut |number, stored, distance| {
                    if let Some(answer) = answers.get_mut(number as usize) {
                        answer.push((stored, distance));
                    }
                },
            )?;
        }
        for answer in &mut answers {
            answer.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
        }
        Ok(Some(answers))
    }

    /// What each table's flip sets `flips` reach within `radius` of
    /// `query` ([`engine::probe_flips`]), sorted by distance then
    /// fingerprint.
    fn probe_flips(
        &self,
        query: Fingerprint,
        flips: &[Vec<u64>],
        radius: u32,
    ) -> Result<Vec<(Fingerprint, u32)>, CodecError> {
        let mut source = MemSource {
            tables: &self.tables,
            presence: &self.presence,
        };
        let mut out = Vec::new();
        engine::probe_flips(&self.design, &mut source, query, flips, radius, &mut out)?;
        out.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
        Ok(out)
    }

    /// Answers for a batch of queries, in input order, each as
    /// [`MemIndex::query`] gives it: the paper's batch mode. Per table the
    /// batch is sorted under the table's permutation and walked against
    /// the table in one pass ([`engine::walk_table`]), so each block is
    /// decoded once however many queries want it.
    pub fn query_batch(
        &self,
        fps: &[Fingerprint],
        k: u32,
    ) -> Result<Vec<Vec<(Fingerprint, u32)>>, CodecError> {
        self.check_k(k)?;
        let mut answers = vec![Vec::new(); fps.len()];
        // Query numbers are u32 in the walk: a longer batch goes in parts.
        const PART: usize = 1 << 31;
        for (part, answers) in fps.chunks(PART).zip(answers.chunks_mut(PART)) {
            for (index, (table, encoded)) in
                self.design.tables().iter().zip(&self.tables).enumerate()
            {
                let queries = engine::sorted_queries(table, part);
                let mut reader = MemReader { table: encoded };
                engine::walk_table(
                    &self.design,
                    index,
                    k,
                    &queries,
                    part,
                    &mut reader,
                    &mut |number, stored, distance| {
                        if let Some(answer) = answers.get_mut(number as usize) {
                            answer.push((stored, distance));
                        }
                    },
                )?;
            }
        }
        for answer in &mut answers {
            answer.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
        }
        Ok(answers)
    }

    /// Every unordered pair of distinct stored fingerprints within distance
    /// `k`, exactly once, as `(smaller, larger, distance)` sorted by
    /// `(smaller, larger)`.
    ///
    /// Each table is scanned linearly; keys with equal prefixes form runs,
    /// and only pairs inside a run are compared. A pair is reported by the
    /// lowest-index table in which it shares the prefix (a mask test on the
    /// XOR), so no set of seen pairs is kept.
    ///
    /// Past the design's `k` (up to [`MAX_RADIUS`]), each table's keys are
    /// decoded into memory and runs with prefixes a few bits apart are
    /// compared too ([`engine::wide_pairs_in_table`]).
    pub fn near_pairs(&self, k: u32) -> Result<Vec<(Fingerprint, Fingerprint, u32)>, CodecError> {
        if k > MAX_RADIUS {
            return Err(CodecError::RadiusTooLarge {
                radius: k,
                max: MAX_RADIUS,
            });
        }
        let mut pairs = Vec::new();
        if k > self.design.k() {
            let mut keys = Vec::with_capacity(self.distinct);
            for (table_index, encoded) in self.tables.iter().enumerate() {
                keys.clear();
                encoded.for_each_block(|block| keys.extend_from_slice(block))?;
                engine::wide_pairs_in_table(&self.design, table_index, &keys, k, &mut pairs)?;
            }
            pairs.sort_unstable();
            return Ok(pairs);
        }
        for (table_index, encoded) in self.tables.iter().enumerate() {
            let mut scan = PairScan::new(&self.design, table_index, k, &mut pairs)?;
            encoded.for_each_block(|keys| keys.iter().for_each(|&key| scan.push(key)))?;
            scan.finish();
        }
        pairs.sort_unstable();
        Ok(pairs)
    }
}

/// One encoded table as a sorted batch walk reads it.
struct MemReader<'a> {
    table: &'a EncodedTable,
}

impl RangeReader for MemReader<'_> {
    type Error = CodecError;

    fn keys_in(&mut self, lo: u64, hi: u64, out: &mut Vec<u64>) -> Result<(), CodecError> {
        let blocks = self.table.directory().locate(lo, hi);
        self.table
            .for_each_in_range(blocks, lo, hi, &mut |key| out.push(key))
    }
}

/// The encoded tables as the engine reads them.
struct MemSource<'a> {
    tables: &'a [EncodedTable],
    /// Per table, a bit per prefix where that pays.
    presence: &'a [Option<PrefixBitmap>],
}

impl BlockSource for MemSource<'_> {
    type Error = CodecError;

    #[inline]
    fn directory(&self, table: usize) -> Option<&BlockDirectory> {
        self.tables.get(table).map(EncodedTable::directory)
    }

    #[inline]
    fn may_hold_prefix(&self, table: usize, permuted: u64) -> bool {
        // No bitmap (or no such table: `directory` reports that) means
        // "maybe".
        self.presence
            .get(table)
            .and_then(Option::as_ref)
            .is_none_or(|bitmap| bitmap.has_prefix_of(permuted))
    }

    #[inline]
    fn touch_group(&self, table: usize, group: usize) -> u64 {
        self.tables
            .get(table)
            .map_or(0, |encoded| encoded.touch_group(group))
    }

    #[inline]
    fn locate_in_group(&self, table: usize, group: usize, lo: u64, hi: u64) -> Range<usize> {
        self.tables
            .get(table)
            .map_or(0..0, |encoded| encoded.locate_in_group(group, lo, hi))
    }

    #[inline]
    fn touch_block(&self, table: usize, block: usize, lo: u64) -> u64 {
        self.tables
            .get(table)
            .and_then(|encoded| encoded.info(block))
            .map_or(0, |info| info.touch(lo))
    }

    /// Only the lines where decoding starts, without branching on the
    /// block: loading the whole range, as the database does, measured
    /// slower here on most designs (docs/BENCHMARKS.md).
    #[inline]
    fn touch_bytes(&self, table: usize, block: usize, lo: u64, _hi: u64) -> u64 {
        self.tables
            .get(table)
            .map_or(0, |encoded| encoded.touch_start(block, lo))
    }

    #[inline]
    fn for_each_in_range<F: FnMut(u64)>(
        &mut self,
        table: usize,
        blocks: Range<usize>,
        lo: u64,
        hi: u64,
        visit: &mut F,
    ) -> Result<(), CodecError> {
        if blocks.is_empty() {
            return Ok(());
        }
        let encoded = self.tables.get(table).ok_or(CodecError::NoSuchTable {
            table,
            tables: self.tables.len(),
        })?;
        encoded.for_each_in_range(blocks, lo, hi, visit)
    }
}
