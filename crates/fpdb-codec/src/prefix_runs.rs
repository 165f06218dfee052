//! The tables of a design as the keys of a distributed sort, for engines
//! that shuffle rows between machines (Spark) instead of keeping sorted
//! tables.
//!
//! Each fingerprint becomes one row per table, keyed by `(table, prefix)`
//! ([`PrefixRuns::prefix`]). Once an engine has brought equal keys
//! together and sorted them, each *run* of equal keys holds every
//! fingerprint that shares that table's prefix, and the kernels here find
//! the pairs within `k` inside one run. A pair is reported only by the
//! first table in which it shares the prefix (the [`TableMatcher`] rule),
//! so the union over all runs holds each pair exactly once and no global
//! de-duplication is needed.
//!
//! A run is compared pair by pair while it is small; a large run (many
//! fingerprints on one prefix) is split further by an in-memory index of
//! its own ([`MemIndex`], a design picked for the run's size), so its cost
//! grows far slower than the square of its length.
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

use std::collections::HashSet;

use fpdb_fingerprint::Fingerprint;

use crate::block::DEFAULT_BLOCK_BYTES;
use crate::design::TableDesign;
use crate::error::CodecError;
use crate::match_rule::TableMatcher;
use crate::mem_index::MemIndex;

/// Runs longer than this are split by an index of their own instead of
/// being compared pair by pair (at this length both cost about the same).
pub const LARGE_RUN: usize = 2048;

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
        if run.len() <= LARGE_RUN {
            let permutation = matcher.permutation();
            let keys: Vec<u64> = run.iter().map(|fp| permutation.permute(fp.0)).collect();
            let mut rest = keys.as_slice();
            while let Some((&a, tail)) = rest.split_first() {
                out.extend(tail.iter().filter_map(|&b| matcher.pair(a, b)));
                rest = tail;
            }
            return Ok(());
        }
        let index = self.run_index(run)?;
        out.extend(
            index
                .near_pairs(self.k)?
                .into_iter()
                .filter(|&(a, b, _)| self.design.first_table_sharing(a.0 ^ b.0) == Some(table)),
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
        if queries.len().saturating_mul(stored.len()) <= LARGE_RUN * LARGE_RUN {
            let permutation = matcher.permutation();
            for &query in queries {
                let permuted = permutation.permute(query.0);
                for &candidate in stored {
                    let key = permutation.permute(candidate.0);
                    if let Some((found, distance)) = matcher.probe(key, permuted, query) {
                        out.push((query, found, distance));
                    }
                }
            }
            return Ok(());
        }
        // Index the smaller side and probe it with the larger one.
        let (indexed, probes, probes_are_queries) = if queries.len() <= stored.len() {
            (queries, stored, false)
        } else {
            (stored, queries, true)
        };
        let index = self.run_index(indexed)?;
        let mut found = Vec::new();
        let mut buffer = Vec::new();
        for &probe in probes {
            index.query_with(probe, self.k, &mut buffer, &mut found)?;
            for &(hit, distance) in &found {
                if self.design.first_table_sharing(hit.0 ^ probe.0) != Some(table) {
                    continue;
                }
                out.push(if probes_are_queries {
                    (probe, hit, distance)
                } else {
                    (hit, probe, distance)
                });
            }
        }
        Ok(())
    }

    /// The pairs within `k` among rows sorted by `(table, prefix)`, each
    /// row a table index and a fingerprint, every `(table, fingerprint)`
    /// at most once. Appends each pair of the complete runs to `out`;
    /// with `more_follow`, the last run may continue in rows not given
    /// yet, so it is left alone. Returns how many rows were consumed (the
    /// last run starts there; all rows without `more_follow`).
    pub fn pairs_in_sorted(
        &self,
        rows: &[(usize, Fingerprint)],
        more_follow: bool,
        out: &mut FingerprintPairs,
    ) -> Result<usize, CodecError> {
        let mut run = Vec::new();
        let mut start = 0;
        for_each_run(self, rows, None, more_follow, |table, run_rows, first| {
            run.clear();
            run.extend(run_rows.iter().map(|&(_, fp)| fp));
            start = first + run_rows.len();
            self.pairs_in_run(table, &run, out)
        })?;
        Ok(start)
    }

    /// [`PrefixRuns::pairs_in_sorted`] for rows that each belong to the
    /// query side (`true`) or the stored side: the matches between the
    /// sides, as `(query, stored, distance)`.
    pub fn matches_in_sorted(
        &self,
        rows: &[(usize, Fingerprint)],
        is_query: &[bool],
        more_follow: bool,
        out: &mut FingerprintPairs,
    ) -> Result<usize, CodecError> {
        if is_query.len() != rows.len() {
            return Err(CodecError::corrupt(
                "sorted rows",
                format!("{} rows but {} side flags", rows.len(), is_query.len()),
            ));
        }
        let (mut queries, mut stored) = (Vec::new(), Vec::new());
        let mut start = 0;
        for_each_run(
            self,
            rows,
            Some(is_query),
            more_follow,
            |table, run_rows, first| {
                queries.clear();
                stored.clear();
                let sides = is_query.get(first..first + run_rows.len()).unwrap_or(&[]);
                for (&(_, fp), &query) in run_rows.iter().zip(sides) {
                    if query {
                        queries.push(fp);
                    } else {
                        stored.push(fp);
                    }
                }
                start = first + run_rows.len();
                self.matches_in_run(table, &queries, &stored, out)
            },
        )?;
        Ok(start)
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

    /// An in-memory index of one large run, with a design for its size.
    fn run_index(&self, run: &[Fingerprint]) -> Result<MemIndex, CodecError> {
        let design = TableDesign::auto(self.k, run.len() as u64)?;
        MemIndex::build(design, run, DEFAULT_BLOCK_BYTES)
    }
}

/// Calls `each(table, rows of the run, index of its first row)` for every
/// run of equal `(table, prefix)` in `rows`, in order, except the last when
/// `more_follow`. Rows out of order would split a run and lose its pairs,
/// so they are an error, as is a fingerprint repeated within a run (on the
/// same side, when rows have sides).
fn for_each_run(
    runs: &PrefixRuns,
    rows: &[(usize, Fingerprint)],
    sides: Option<&[bool]>,
    more_follow: bool,
    mut each: impl FnMut(usize, &[(usize, Fingerprint)], usize) -> Result<(), CodecError>,
) -> Result<(), CodecError> {
    let mut keys = Vec::with_capacity(rows.len());
    for &(table, fp) in rows {
        keys.push((table, runs.prefix(table, fp)?));
    }
    let mut seen_in_run: HashSet<(Fingerprint, bool)> = HashSet::new();
    let mut first = 0;
    for index in 0..=rows.len() {
        let (Some(&key), Some(&(_, fp))) = (keys.get(index), rows.get(index)) else {
            break;
        };
        let Some(&run_key) = keys.get(first) else {
            break;
        };
        if key != run_key {
            if key < run_key {
                return Err(CodecError::corrupt(
                    "sorted rows",
                    format!(
                        "row {index} is keyed before the row above it; sort by (table, prefix)"
                    ),
                ));
            }
            let (table, _) = run_key;
            each(table, rows.get(first..index).unwrap_or(&[]), first)?;
            seen_in_run.clear();
            first = index;
        }
        let side = sides
            .and_then(|sides| sides.get(index))
            .copied()
            .unwrap_or(false);
        if !seen_in_run.insert((fp, side)) {
            return Err(CodecError::corrupt(
                "sorted rows",
                format!(
                    "row {index} repeats fingerprint {fp} in its run; give each fingerprint once"
                ),
            ));
        }
    }
    if !more_follow {
        if let (Some(&(table, _)), Some(last)) = (keys.get(first), rows.get(first..)) {
            each(table, last, first)?;
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

    /// Rows of every table sorted by (table, prefix), as an engine would.
    fn sorted_rows(runs: &PrefixRuns, fps: &[Fingerprint]) -> Vec<(usize, Fingerprint)> {
        let mut keyed: Vec<((usize, u64), Fingerprint)> = (0..runs.design().tables().len())
            .flat_map(|table| fps.iter().map(move |&fp| (table, fp)))
            .map(|(table, fp)| ((table, runs.prefix(table, fp).unwrap()), fp))
            .collect();
        keyed.sort_unstable();
        keyed
            .into_iter()
            .map(|((table, _), fp)| (table, fp))
            .collect()
    }

    #[test]
    fn sorted_rows_give_every_pair_within_k_once() {
        for name in ["4x16", "10", "16"] {
            let runs = PrefixRuns::new(TableDesign::from_name(3, name).unwrap(), 3).unwrap();
            let fps = clustered(7, 40, 6);
            let mut pairs = Vec::new();
            let used = runs
                .pairs_in_sorted(&sorted_rows(&runs, &fps), false, &mut pairs)
                .unwrap();
            assert_eq!(used, fps.len() * runs.design().tables().len());
            pairs.sort_unstable();
            assert_eq!(pairs, brute_pairs(&fps, 3), "{name}");
        }
    }

    #[test]
    fn rows_fed_in_pieces_carry_the_open_run_over() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let fps = clustered(11, 30, 5);
        let rows = sorted_rows(&runs, &fps);
        let mut pairs = Vec::new();
        let mut carry: Vec<(usize, Fingerprint)> = Vec::new();
        for piece in rows.chunks(7) {
            carry.extend_from_slice(piece);
            let used = runs.pairs_in_sorted(&carry, true, &mut pairs).unwrap();
            carry.drain(..used);
        }
        runs.pairs_in_sorted(&carry, false, &mut pairs).unwrap();
        pairs.sort_unstable();
        assert_eq!(pairs, brute_pairs(&fps, 3));
    }

    #[test]
    fn a_large_run_is_split_by_its_own_index_and_stays_exact() {
        // Every fingerprint shares the top 16 bits, so table 0 of split-4
        // holds one run far above LARGE_RUN.
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let fps: Vec<Fingerprint> = clustered(3, 900, 4)
            .into_iter()
            .map(|fp| Fingerprint(fp.0 & 0x0000_ffff_ffff_ffff))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert!(fps.len() > LARGE_RUN);
        let mut pairs = Vec::new();
        runs.pairs_in_sorted(&sorted_rows(&runs, &fps), false, &mut pairs)
            .unwrap();
        pairs.sort_unstable();
        assert_eq!(pairs, brute_pairs(&fps, 3));
    }

    #[test]
    fn matches_between_sides_equal_brute_force_for_small_and_large_runs() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        // All ones keeps every fingerprint; the mask puts all of them on
        // one prefix of table 0, a run far above LARGE_RUN.
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
            let mut keyed: Vec<((usize, u64), bool, Fingerprint)> = Vec::new();
            for table in 0..4 {
                for (side, fps) in [(false, &stored), (true, &queries)] {
                    for &fp in fps {
                        keyed.push(((table, runs.prefix(table, fp).unwrap()), side, fp));
                    }
                }
            }
            keyed.sort_unstable();
            let rows: Vec<(usize, Fingerprint)> = keyed
                .iter()
                .map(|&((table, _), _, fp)| (table, fp))
                .collect();
            let sides: Vec<bool> = keyed.iter().map(|&(_, side, _)| side).collect();
            let mut found = Vec::new();
            runs.matches_in_sorted(&rows, &sides, false, &mut found)
                .unwrap();
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
    fn unsorted_rows_and_bad_tables_are_errors_not_lost_pairs() {
        let runs = PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 3).unwrap();
        let rows = [(1, Fingerprint(0)), (0, Fingerprint(1))];
        assert!(runs.pairs_in_sorted(&rows, false, &mut Vec::new()).is_err());
        let repeated = [(0, Fingerprint(5)), (0, Fingerprint(5))];
        assert!(runs
            .pairs_in_sorted(&repeated, false, &mut Vec::new())
            .is_err());
        assert!(matches!(
            runs.prefix(4, Fingerprint(0)),
            Err(CodecError::NoSuchTable {
                table: 4,
                tables: 4
            })
        ));
        assert!(PrefixRuns::new(TableDesign::from_name(3, "4x16").unwrap(), 4).is_err());
    }
}
