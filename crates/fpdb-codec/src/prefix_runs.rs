//! The tables of a design as the keys of a distributed sort, for engines
//! that shuffle rows between machines (Spark) instead of keeping sorted
//! tables.
//!
//! Each fingerprint becomes one row per table, keyed by `(table, prefix)`
//! ([`PrefixRuns::prefix`]). Once an engine has brought equal keys into
//! one partition, the kernels here sort a partition's rows so that each
//! *run* of equal keys holds every fingerprint sharing that table's
//! prefix, and find the pairs within `k` inside each run. A pair is reported only by the
//! first table in which it shares the prefix (the [`TableMatcher`] rule),
//! so the union over all runs holds each pair exactly once and no global
//! de-duplication is needed.
//!
//! Rows may repeat (several documents share a fingerprint): each distinct
//! row is searched once, and [`PrefixRuns::pairs_in_rows`] returns the
//! fingerprints it was given more than once. [`PrefixRuns::bucket`] names
//! a key's shuffle bucket, so an engine can ship rows packed by bucket
//! instead of one by one.
//!
//! A run is compared pair by pair while it is small; a long run (many
//! fingerprints on one prefix) is split further on the bits below the
//! prefix ([`crate::run_split`]), so its cost grows about as `n log n`,
//! not as the square of its length.
//!
//! ```
//! use fpdb_codec::{PrefixRuns, TableDesign};
//! use fpdb_fingerprint::Fingerprint;
//!
//! let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16")?, 3)?;
//! let (a, b) = (Fingerprint(0xabcd_0000_0000_0000), Fingerprint(0xabcd_0000_0000_0007));
//! // Both share the first table's prefix (the top 16 bits)…
//! assert_eq!(runs.prefix(0, a)?, 0xabcd);
//! assert_eq!(runs.prefix(0, b)?, 0xabcd);
//! // …and that table reports them; the others stay silent.
//! let mut pairs = Vec::new();
//! runs.pairs_in_run(0, &[a, b], &mut pairs)?;
//! assert_eq!(pairs, [(a, b, 3)]);
//! pairs.clear();
//! runs.pairs_in_run(1, &[a, b], &mut pairs)?;
//! assert!(pairs.is_empty());
//! # Ok::<(), fpdb_codec::CodecError>(())
//! ```

use std::num::NonZeroU32;

use fpdb_fingerprint::Fingerprint;

use crate::design::TableDesign;
use crate::error::CodecError;
use crate::match_rule::TableMatcher;
use crate::run_split;

/// Pairs `(smaller, larger, distance)` of distinct fingerprints.
pub type FingerprintPairs = Vec<(Fingerprint, Fingerprint, u32)>;

/// A design's tables as sort keys, at distance `k`.
#[derive(Debug, Clone)]
pub struct PrefixRuns {
    design: TableDesign,
    k: u32,
}

impl PrefixRuns {
    /// Runs of `design`'s tables at distance `k` (at most the design's).
    pub fn new(design: TableDesign, k: u32) -> Result<Self, CodecError> {
        if k > design.k() {
            return Err(CodecError::DistanceTooLarge { k, max: design.k() });
        }
        Ok(PrefixRuns { design, k })
    }

    /// The design the keys follow.
    pub fn design(&self) -> &TableDesign {
        &self.design
    }

    /// The distance pairs are found within.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// `fp`'s key in table `table`: the top `p` bits of its permutation,
    /// as an integer below `2^p` (0 for a table without a prefix).
    pub fn prefix(&self, table: usize, fp: Fingerprint) -> Result<u64, CodecError> {
        let design_table = self.table(table)?;
        let permuted = design_table.permutation().permute(fp.0);
        Ok(permuted
            .checked_shr(64 - design_table.prefix_bits())
            .unwrap_or(0))
    }

    /// Which of `buckets` shuffle buckets `fp`'s key in table `table`
    /// belongs to: equal keys, equal buckets; distinct keys spread evenly
    /// (a multiplicative hash of table and prefix).
    pub fn bucket(
        &self,
        table: usize,
        fp: Fingerprint,
        buckets: NonZeroU32,
    ) -> Result<u32, CodecError> {
        let prefix = self.prefix(table, fp)?;
        // A table index `prefix` accepted fits in 64 bits.
        let table = u64::try_from(table).unwrap_or(u64::MAX);
        let key = prefix ^ table.rotate_right(8);
        let spread = key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
        let bucket = spread % u64::from(buckets.get());
        // Below `buckets`, a u32.
        Ok(u32::try_from(bucket).unwrap_or(0))
    }

    /// Appends to `out` the pairs within `k` among `run` (distinct
    /// fingerprints that all share table `table`'s prefix) that this table
    /// reports: each once, smaller fingerprint first.
    pub fn pairs_in_run(
        &self,
        table: usize,
        run: &[Fingerprint],
        out: &mut FingerprintPairs,
    ) -> Result<(), CodecError> {
        let matcher = self.matcher(table)?;
        let permutation = matcher.permutation();
        let keys: Vec<u64> = run.iter().map(|fp| permutation.permute(fp.0)).collect();
        pairs_among_keys(
            &matcher,
            self.table(table)?.prefix_bits(),
            &keys,
            self.k,
            out,
        );
        Ok(())
    }

    /// Appends to `out` the matches within `k` between `queries` and
    /// `stored` (each distinct; all share table `table`'s prefix) that this
    /// table reports, as `(query, stored, distance)`.
    pub fn matches_in_run(
        &self,
        table: usize,
        queries: &[Fingerprint],
        stored: &[Fingerprint],
        out: &mut FingerprintPairs,
    ) -> Result<(), CodecError> {
        let matcher = self.matcher(table)?;
        let permutation = matcher.permutation();
        let fps: Vec<Fingerprint> = queries.iter().chain(stored).copied().collect();
        let keys: Vec<u64> = fps.iter().map(|fp| permutation.permute(fp.0)).collect();
        let sides: Vec<bool> = (0..fps.len()).map(|i| i < queries.len()).collect();
        let (packed, bits) = self.without_prefix(table, &keys)?;
        run_split::pairs_within(&packed, Some(&sides), bits, self.k, &mut |i, j, _| {
            let (query, candidate) = if i < queries.len() { (i, j) } else { (j, i) };
            if let (Some(&fp), Some(&key), Some(&permuted)) =
                (fps.get(query), keys.get(candidate), keys.get(query))
            {
                if let Some((found, distance)) = matcher.probe(key, permuted, fp) {
                    out.push((fp, found, distance));
                }
            }
        });
        Ok(())
    }

    /// Permuted keys with the table's prefix (shared by a whole run)
    /// shifted out, and how many bits are left.
    fn without_prefix(&self, table: usize, keys: &[u64]) -> Result<(Vec<u64>, u32), CodecError> {
        let prefix_bits = self.table(table)?.prefix_bits();
        let packed = keys
            .iter()
            .map(|key| key.checked_shl(prefix_bits).unwrap_or(0))
            .collect();
        Ok((packed, 64 - prefix_bits))
    }

    /// The pairs within `k` among `rows` (in any order), each a table
    /// index and a fingerprint: the rows are sorted by `(table, prefix)`
    /// and each run is searched. Appends each pair of distinct
    /// fingerprints to `out`, smaller fingerprint first, and returns the
    /// fingerprints given more than once for table 0 (shared by several
    /// documents: pairs at distance 0), each once.
    pub fn pairs_in_rows(
        &self,
        rows: &[(usize, Fingerprint)],
        out: &mut FingerprintPairs,
    ) -> Result<Vec<Fingerprint>, CodecError> {
        let (keyed, repeated) = self.sorted(rows.iter().map(|&(table, fp)| (table, fp, false)))?;
        let mut run = Vec::new();
        for_each_run(&keyed, |table, rows| {
            run.clear();
            run.extend(rows.iter().map(|row| row.fp));
            self.pairs_in_run(table, &run, out)
        })?;
        Ok(repeated)
    }

    /// [`PrefixRuns::pairs_in_rows`] for rows that each belong to the
    /// query side (`true`) or the stored side: the matches between the
    /// sides, as `(query, stored, distance)`, each once however often its
    /// rows repeat. A fingerprint may be on both sides.
    pub fn matches_in_rows(
        &self,
        rows: &[(usize, Fingerprint, bool)],
        out: &mut FingerprintPairs,
    ) -> Result<(), CodecError> {
        let (keyed, _) = self.sorted(rows.iter().copied())?;
        let (mut queries, mut stored) = (Vec::new(), Vec::new());
        for_each_run(&keyed, |table, rows| {
            queries.clear();
            stored.clear();
            for row in rows {
                if row.is_query {
                    queries.push(row.fp);
                } else {
                    stored.push(row.fp);
                }
            }
            self.matches_in_run(table, &queries, &stored, out)
        })
    }

    /// Rows keyed by `(table, prefix)`, sorted (sides and fingerprints
    /// last, so that a repeated row sits next to its twins) and made
    /// distinct; with the fingerprints repeated in table 0.
    fn sorted(
        &self,
        rows: impl ExactSizeIterator<Item = (usize, Fingerprint, bool)>,
    ) -> Result<(Vec<KeyedRow>, Vec<Fingerprint>), CodecError> {
        let mut keyed = Vec::with_capacity(rows.len());
        for (table, fp, is_query) in rows {
            keyed.push(KeyedRow {
                table,
                prefix: self.prefix(table, fp)?,
                is_query,
                fp,
            });
        }
        keyed.sort_unstable();
        let mut repeated = Vec::new();
        keyed.dedup_by(|row, kept| {
            let twin = row == kept;
            if twin && row.table == 0 && repeated.last() != Some(&row.fp) {
                repeated.push(row.fp);
            }
            twin
        });
        Ok((keyed, repeated))
    }

    fn table(&self, table: usize) -> Result<&crate::design::Table, CodecError> {
        self.design
            .tables()
            .get(table)
            .ok_or(CodecError::NoSuchTable {
                table,
                tables: self.design.tables().len(),
            })
    }

    fn matcher(&self, table: usize) -> Result<TableMatcher<'_>, CodecError> {
        TableMatcher::new(&self.design, table, self.k).ok_or(CodecError::NoSuchTable {
            table,
            tables: self.design.tables().len(),
        })
    }
}

/// Appends to `out` the pairs within `k` that `matcher`'s table reports
/// among `keys` (distinct keys permuted by that table, all sharing its
/// top `prefix_bits` bits): pair by pair while the run is short, split on
/// the remaining bits when it is long. Permutations keep distances, so
/// only the pairs found are mapped back to fingerprints.
pub(crate) fn pairs_among_keys(
    matcher: &TableMatcher<'_>,
    prefix_bits: u32,
    keys: &[u64],
    k: u32,
    out: &mut FingerprintPairs,
) {
    let packed: Vec<u64> = keys
        .iter()
        .map(|key| key.checked_shl(prefix_bits).unwrap_or(0))
        .collect();
    run_split::pairs_within(&packed, None, 64 - prefix_bits, k, &mut |i, j, _| {
        if let (Some(&a), Some(&b)) = (keys.get(i), keys.get(j)) {
            out.extend(matcher.pair(a, b));
        }
    });
}

/// One row of a distributed sort, ordered by its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct KeyedRow {
    table: usize,
    prefix: u64,
    is_query: bool,
    fp: Fingerprint,
}

/// Calls `each(table, rows)` for every run of equal `(table, prefix)` in
/// sorted `rows`.
fn for_each_run(
    rows: &[KeyedRow],
    mut each: impl FnMut(usize, &[KeyedRow]) -> Result<(), CodecError>,
) -> Result<(), CodecError> {
    for run in rows.chunk_by(|a, b| (a.table, a.prefix) == (b.table, b.prefix)) {
        if let Some(first) = run.first() {
            each(first.table, run)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_pairs(fps: &[Fingerprint], k: u32) -> FingerprintPairs {
        let mut pairs = Vec::new();
        for (i, &a) in fps.iter().enumerate() {
            for &b in &fps[i + 1..] {
                let distance = (a.0 ^ b.0).count_ones();
                if distance <= k {
                    pairs.push((a.min(b), a.max(b), distance));
                }
            }
        }
        pairs.sort_unstable();
        pairs
    }

    /// Fingerprints in clusters of near neighbours, plus 0 and all ones.
    fn clustered(seed: u64, clusters: usize, per_cluster: usize) -> Vec<Fingerprint> {
        let mut state = seed;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut fps = vec![Fingerprint(0), Fingerprint(u64::MAX), Fingerprint(0b101)];
        for _ in 0..clusters {
            let base = next();
            fps.push(Fingerprint(base));
            for _ in 0..per_cluster {
                let flips = next() % 5;
                let mut fp = base;
                for _ in 0..flips {
                    fp ^= 1 << (next() % 64);
                }
                fps.push(Fingerprint(fp));
            }
        }
        fps.sort_unstable();
        fps.dedup();
        fps
    }

    /// Every fingerprint once per table, in a scrambled order (engines
    /// shuffle rows between machines).
    fn rows(runs: &PrefixRuns, fps: &[Fingerprint]) -> Vec<(usize, Fingerprint)> {
        let mut rows: Vec<(usize, Fingerprint)> = (0..runs.design().tables().len())
            .flat_map(|table| fps.iter().map(move |&fp| (table, fp)))
            .collect();
        rows.sort_unstable_by_key(|&(table, fp)| (fp.0.wrapping_mul(0x9e37_79b9_7f4a_7c15), table));
        rows
    }

    #[test]
    fn rows_in_any_order_give_every_pair_within_k_once() {
        for name in ["4x16", "10", "16"] {
            let runs = PrefixRuns::new(TableDesign::from_name(3, name).unwrap(), 3).unwrap();
            let fps = clustered(7, 40, 6);
            let mut pairs = Vec::new();
            runs.pairs_in_rows(&rows(&runs, &fps), &mut pairs).unwrap();
            pairs.sort_unstable();
            assert_eq!(pairs, brute_pairs(&fps, 3), "{name}");
        }
    }

    #[test]
    fn rows_split_across_calls_by_key_lose_nothing() {
        // An engine sends each (table, prefix) to one partition; the
        // union of the partitions' pairs is the whole answer.
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let fps = clustered(11, 30, 5);
        let mut partitions = vec![Vec::new(); 5];
        for (table, fp) in rows(&runs, &fps) {
            let key = (table as u64) << 32 | runs.prefix(table, fp).unwrap();
            partitions[(key % 5) as usize].push((table, fp));
        }
        let mut pairs = Vec::new();
        for partition in &partitions {
            runs.pairs_in_rows(partition, &mut pairs).unwrap();
        }
        pairs.sort_unstable();
        assert_eq!(pairs, brute_pairs(&fps, 3));
    }

    #[test]
    fn a_long_run_is_split_on_its_remaining_bits_and_stays_exact() {
        // Every fingerprint shares the top 16 bits, so table 0 of split-4
        // holds one run far above what is compared pair by pair.
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let fps: Vec<Fingerprint> = clustered(3, 900, 4)
            .into_iter()
            .map(|fp| Fingerprint(fp.0 & 0x0000_ffff_ffff_ffff))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert!(fps.len() > 10 * run_split::PAIRWISE_MAX);
        let mut pairs = Vec::new();
        runs.pairs_in_rows(&rows(&runs, &fps), &mut pairs).unwrap();
        pairs.sort_unstable();
        assert_eq!(pairs, brute_pairs(&fps, 3));
    }

    #[test]
    fn matches_between_sides_equal_brute_force_for_small_and_large_runs() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        // All ones keeps every fingerprint; the mask puts all of them on
        // one prefix of table 0, a long run.
        for mask in [u64::MAX, 0x0000_ffff_ffff_ffff] {
            let distinct = |fps: Vec<Fingerprint>| -> Vec<Fingerprint> {
                let set: std::collections::BTreeSet<_> =
                    fps.into_iter().map(|fp| Fingerprint(fp.0 & mask)).collect();
                set.into_iter().collect()
            };
            let stored = distinct(clustered(5, 1500, 3));
            // Every third stored fingerprint (exact matches) and a near copy.
            let queries = distinct(
                stored
                    .iter()
                    .step_by(3)
                    .flat_map(|fp| [*fp, Fingerprint(fp.0 ^ 0b110)])
                    .collect(),
            );
            let mut all: Vec<(usize, Fingerprint, bool)> = Vec::new();
            for (side, fps) in [(false, &stored), (true, &queries)] {
                all.extend(
                    rows(&runs, fps)
                        .into_iter()
                        .map(|(table, fp)| (table, fp, side)),
                );
            }
            let mut found = Vec::new();
            runs.matches_in_rows(&all, &mut found).unwrap();
            found.sort_unstable();
            let mut expected = Vec::new();
            for &query in &queries {
                for &candidate in &stored {
                    let distance = (query.0 ^ candidate.0).count_ones();
                    if distance <= 3 {
                        expected.push((query, candidate, distance));
                    }
                }
            }
            expected.sort_unstable();
            assert!(expected.len() > queries.len() / 2);
            assert_eq!(found, expected);
        }
    }

    #[test]
    fn repeated_rows_are_searched_once_and_reported() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let fps = clustered(13, 30, 5);
        // Every fingerprint three times (three documents each), and 0 and
        // 5 once more in table 0 only: copies, not new pairs.
        let mut copies: Vec<(usize, Fingerprint)> =
            (0..3).flat_map(|_| rows(&runs, &fps)).collect();
        copies.extend([(0, Fingerprint(0)), (0, Fingerprint(5))]);
        let mut pairs = Vec::new();
        let repeated = runs.pairs_in_rows(&copies, &mut pairs).unwrap();
        pairs.sort_unstable();
        assert_eq!(pairs, brute_pairs(&fps, 3));
        let mut expected = fps.clone();
        expected.sort_unstable();
        let mut repeated = repeated;
        repeated.sort_unstable();
        assert_eq!(repeated, expected);
        // Each row once: nothing repeated.
        let mut pairs_once = Vec::new();
        let with_five = [
            (0, Fingerprint(5)),
            (1, Fingerprint(5)),
            (0, Fingerprint(7)),
        ];
        assert!(runs
            .pairs_in_rows(&with_five, &mut pairs_once)
            .unwrap()
            .is_empty());
        // A fingerprint on both sides matches itself, once.
        let both_sides = [
            (0, Fingerprint(5), true),
            (0, Fingerprint(5), false),
            (0, Fingerprint(5), false),
        ];
        let mut found = Vec::new();
        runs.matches_in_rows(&both_sides, &mut found).unwrap();
        assert_eq!(found, [(Fingerprint(5), Fingerprint(5), 0)]);
    }

    #[test]
    fn buckets_follow_keys_and_spread() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let buckets = NonZeroU32::new(8).unwrap();
        let fps = clustered(17, 400, 2);
        let mut sizes = [0usize; 8];
        for (table, fp) in rows(&runs, &fps) {
            let bucket = runs.bucket(table, fp, buckets).unwrap();
            // Same key, same bucket: the top 16 bits of table 0's key.
            if table == 0 {
                let twin = Fingerprint(fp.0 & 0xffff_0000_0000_0000);
                assert_eq!(runs.bucket(0, twin, buckets).unwrap(), bucket);
            }
            sizes[bucket as usize] += 1;
        }
        let mean = sizes.iter().sum::<usize>() / sizes.len();
        assert!(
            sizes.iter().all(|&size| size > mean / 2 && size < mean * 2),
            "{sizes:?}"
        );
        assert!(runs.bucket(4, Fingerprint(0), buckets).is_err());
    }

    #[test]
    fn bad_tables_and_distances_are_errors_not_wrong_answers() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        assert!(matches!(
            runs.prefix(4, Fingerprint(0)),
            Err(CodecError::NoSuchTable {
                table: 4,
                tables: 4
            })
        ));
        assert!(runs
            .pairs_in_rows(&[(4, Fingerprint(0))], &mut Vec::new())
            .is_err());
        assert!(PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 4).is_err());
    }
}
