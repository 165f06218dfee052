//! An in-memory index built from the design, the block codec and the
//! directories: the reference for what the persistent store must answer.

use fpdb_simhash::Fingerprint;

use crate::design::TableDesign;
use crate::error::CodecError;
use crate::table::EncodedTable;

/// Every table of a design, encoded in memory.
#[derive(Debug, Clone)]
pub struct MemIndex {
    design: TableDesign,
    tables: Vec<EncodedTable>,
    distinct: usize,
}

impl MemIndex {
    /// Permutes, sorts and de-duplicates `fingerprints` once per table of
    /// `design` and encodes each table in blocks of about `block_bytes`.
    pub fn build(
        design: TableDesign,
        fingerprints: &[Fingerprint],
        block_bytes: usize,
    ) -> Result<Self, CodecError> {
        let mut keys: Vec<u64> = Vec::with_capacity(fingerprints.len());
        let mut tables = Vec::with_capacity(design.tables().len());
        let mut distinct = 0;
        for table in design.tables() {
            let permutation = table.permutation();
            keys.clear();
            keys.extend(fingerprints.iter().map(|fp| permutation.permute(fp.0)));
            keys.sort_unstable();
            keys.dedup();
            distinct = keys.len();
            tables.push(EncodedTable::build(&keys, block_bytes)?);
        }
        Ok(MemIndex {
            design,
            tables,
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

    /// [`MemIndex::query`] reusing a decode buffer and an output vector
    /// (which is cleared first).
    pub fn query_with(
        &self,
        query: Fingerprint,
        k: u32,
        buffer: &mut Vec<u64>,
        out: &mut Vec<(Fingerprint, u32)>,
    ) -> Result<(), CodecError> {
        self.check_k(k)?;
        out.clear();
        for (table_index, (table, encoded)) in
            self.design.tables().iter().zip(&self.tables).enumerate()
        {
            let permutation = table.permutation();
            let permuted_query = permutation.permute(query.0);
            let (lo, hi) = table.prefix_range(permuted_query);
            let decoder = encoded.decoder();
            for block_index in encoded.directory().locate(lo, hi) {
                let Some(block) = encoded.block(block_index) else {
                    continue;
                };
                decoder.decode_until(block, hi, buffer)?;
                let start = buffer.partition_point(|&key| key < lo);
                for &key in buffer.get(start..).unwrap_or(&[]) {
                    // A bit permutation preserves the popcount of an XOR,
                    // so only matches are mapped back.
                    let distance = (key ^ permuted_query).count_ones();
                    if distance > k {
                        continue;
                    }
                    let candidate = permutation.inverse(key);
                    // Report from the first table sharing the prefix only,
                    // so results need no de-duplication.
                    if self.design.first_table_sharing(candidate ^ query.0) == Some(table_index) {
                        out.push((Fingerprint(candidate), distance));
                    }
                }
            }
        }
        out.sort_unstable_by_key(|&(fp, distance)| (distance, fp));
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
        let mut buffer = Vec::new();
        let mut run: Vec<u64> = Vec::new();
        for (table_index, (table, encoded)) in
            self.design.tables().iter().zip(&self.tables).enumerate()
        {
            let prefix_mask = table.prefix_mask();
            let decoder = encoded.decoder();
            run.clear();
            for block in encoded.blocks() {
                decoder.decode(block, &mut buffer)?;
                for &key in buffer.iter() {
                    if run
                        .first()
                        .is_some_and(|&head| (head ^ key) & prefix_mask != 0)
                    {
                        self.pairs_in_run(table_index, &run, k, &mut pairs);
                        run.clear();
                    }
                    run.push(key);
                }
            }
            self.pairs_in_run(table_index, &run, k, &mut pairs);
        }
        pairs.sort_unstable();
        Ok(pairs)
    }

    /// Pairs within `k` among permuted keys sharing one prefix in table
    /// `table_index`. Permutations preserve popcount and XOR, so distances
    /// are computed on permuted keys and only matches are mapped back.
    fn pairs_in_run(
        &self,
        table_index: usize,
        run: &[u64],
        k: u32,
        pairs: &mut Vec<(Fingerprint, Fingerprint, u32)>,
    ) {
        let Some(table) = self.design.tables().get(table_index) else {
            return;
        };
        let permutation = table.permutation();
        let mut rest = run;
        while let Some((&a, tail)) = rest.split_first() {
            for &b in tail {
                let distance = (a ^ b).count_ones();
                if distance <= k {
                    let xor = permutation.inverse(a ^ b);
                    if self.design.first_table_sharing(xor) == Some(table_index) {
                        let (x, y) = (permutation.inverse(a), permutation.inverse(b));
                        pairs.push((Fingerprint(x.min(y)), Fingerprint(x.max(y)), distance));
                    }
                }
            }
            rest = tail;
        }
    }
}
