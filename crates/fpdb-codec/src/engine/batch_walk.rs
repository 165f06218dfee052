//! The paper's batch mode for one table: the batch, sorted under the
//! table's permutation, is walked against the table in key order. Queries
//! sharing a prefix share its candidates, so each block the batch needs
//! is read once, however many queries want it.

use fpdb_fingerprint::Fingerprint;

use super::flip_probe::reaching_table;
use crate::design::{Table, TableDesign};
use crate::distance::for_each_within;
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

/// Every probe of a batch in table `table`: for query number `i`, its
/// fingerprint with each of its flip sets in that table (`flips[i][table]`,
/// from [`super::weak_bit_flips`]) under the table's permutation, with
/// `i`; unsorted (sort them before [`walk_table_flips`]).
pub fn flip_probes(
    design: &TableDesign,
    table: usize,
    fps: &[Fingerprint],
    flips: &[Vec<Vec<u64>>],
) -> Vec<(u64, u32)> {
    let Some(shape) = design.tables().get(table) else {
        return Vec::new();
    };
    let permutation = shape.permutation();
    (0u32..)
        .zip(fps.iter().zip(flips))
        .flat_map(|(number, (fp, sets))| {
            sets.get(table)
                .into_iter()
                .flatten()
                .map(move |&set| (permutation.permute(fp.0 ^ set), number))
        })
        .collect()
}

/// [`super::probe_flips`] for a batch, in one pass over table `table`:
/// walks sorted `probes` (from [`flip_probes`]; numbers index `fps` and
/// `flips`) against the table and calls `hit(number, stored, distance)`
/// for every key within `radius` of query `number` that this table is
/// the first to reach by the query's flip sets ([`reaching_table`]), so
/// each match is reported once over the tables.
#[expect(
    clippy::too_many_arguments,
    reason = "walk_table's arguments and the flip sets; a struct would only name them again"
)]
pub fn walk_table_flips<R: RangeReader>(
    design: &TableDesign,
    table: usize,
    radius: u32,
    probes: &[(u64, u32)],
    fps: &[Fingerprint],
    flips: &[Vec<Vec<u64>>],
    reader: &mut R,
    hit: &mut impl FnMut(u32, Fingerprint, u32),
) -> Result<(), R::Error> {
    let tables = design.tables().len();
    let shape = design
        .tables()
        .get(table)
        .ok_or(CodecError::NoSuchTable { table, tables })?;
    let permutation = shape.permutation();
    let mut candidates = Vec::new();
    for (lo, hi, group) in prefix_groups(shape, probes) {
        candidates.clear();
        reader.keys_in(lo, hi, &mut candidates)?;
        for &(_, number) in group {
            let missing =
                || CodecError::corrupt("batch", format!("query {number} of {}", fps.len()));
            let fp = fps.get(number as usize).copied().ok_or_else(missing)?;
            let sets = flips.get(number as usize).ok_or_else(missing)?;
            let permuted = permutation.permute(fp.0);
            for_each_within(&candidates, permuted, radius, |key| {
                let stored = permutation.inverse(key);
                if reaching_table(design, sets, stored ^ fp.0) == Some(table) {
                    hit(number, Fingerprint(stored), (key ^ permuted).count_ones());
                }
            });
        }
    }
    Ok(())
}
