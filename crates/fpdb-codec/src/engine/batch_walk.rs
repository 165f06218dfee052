//! The paper's batch mode for one table: the batch, sorted under the
//! table's permutation, is walked against the table in key order. Queries
//! sharing a prefix share its candidates, so each block the batch needs
//! is read once, however many queries want it.

use fpdb_fingerprint::Fingerprint;

use crate::design::{Table, TableDesign};
use crate::error::CodecError;
use crate::match_rule::TableMatcher;

/// Where a batch walk reads one table's keys.
pub trait RangeReader {
    /// What reading can fail with.
    type Error: From<CodecError>;

    /// Appends to `out` every key of the table in `[lo, hi]`. Ranges come
    /// in ascending order and do not overlap, so a reader may walk its
    /// blocks forward only.
    fn keys_in(&mut self, lo: u64, hi: u64, out: &mut Vec<u64>) -> Result<(), Self::Error>;
}

/// The batch's queries under table `table`'s permutation, with their
/// numbers, sorted.
pub(crate) fn sorted_queries(table: &Table, fps: &[Fingerprint]) -> Vec<(u64, u32)> {
    let permutation = table.permutation();
    let mut queries: Vec<(u64, u32)> = (0u32..)
        .zip(fps)
        .map(|(number, fp)| (permutation.permute(fp.0), number))
        .collect();
    queries.sort_unstable();
    queries
}

/// Sorted (permuted query, number) pairs cut into runs sharing a prefix
/// of `table`: each run with its prefix's key range `(lo, hi)`.
pub fn prefix_groups<'q>(
    table: &'q Table,
    queries: &'q [(u64, u32)],
) -> impl Iterator<Item = (u64, u64, &'q [(u64, u32)])> + 'q {
    let mut rest = queries;
    std::iter::from_fn(move || {
        let &(first, _) = rest.first()?;
        let (lo, hi) = table.prefix_range(first);
        let (group, tail) = rest.split_at(rest.partition_point(|&(q, _)| q <= hi));
        rest = tail;
        Some((lo, hi, group))
    })
}

/// Walks sorted `queries` (from [`sorted_queries`]; numbers index `fps`)
/// against table `table` of `design` and calls `hit(number, stored,
/// distance)` for every match within `k` this table reports (the first
/// table in which the two share the prefix).
pub fn walk_table<R: RangeReader>(
    design: &TableDesign,
    table: usize,
    k: u32,
    queries: &[(u64, u32)],
    fps: &[Fingerprint],
    reader: &mut R,
    hit: &mut impl FnMut(u32, Fingerprint, u32),
) -> Result<(), R::Error> {
    let tables = design.tables().len();
    let no_table = || CodecError::NoSuchTable { table, tables };
    if k > design.k() {
        return Err(CodecError::DistanceTooLarge { k, max: design.k() }.into());
    }
    let shape = design.tables().get(table).ok_or_else(no_table)?;
    let matcher = TableMatcher::new(design, table, k).ok_or_else(no_table)?;
    let mut candidates = Vec::new();
    for (lo, hi, group) in prefix_groups(shape, queries) {
        candidates.clear();
        reader.keys_in(lo, hi, &mut candidates)?;
        for &(permuted, number) in group {
            let fp = fps.get(number as usize).copied().ok_or_else(|| {
                CodecError::corrupt("batch", format!("query {number} of {}", fps.len()))
            })?;
            for &key in &candidates {
                if let Some((stored, distance)) = matcher.probe(key, permuted, fp) {
                    hit(number, stored, distance);
                }
            }
        }
    }
    Ok(())
}
