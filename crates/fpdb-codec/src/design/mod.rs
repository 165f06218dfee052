//! Table designs: which permutations to keep so that every pair of
//! fingerprints within distance `k` shares a sorted prefix in some table.
//!
//! Pigeonhole: split the 64 bits into `m > k` blocks. Two fingerprints that
//! differ in at most `k` bits differ in at most `k` blocks, so at least
//! `m - k` blocks agree. Keeping one table per choice of `m - k` blocks, with
//! those blocks permuted to the top, guarantees that the pair has equal top
//! `p` bits in at least one table, where `p` is the total width of the chosen
//! blocks. A second level splits the bits left over after the first choice
//! into `m₂ > k` blocks again (the at most `k` differing bits all sit in those
//! leftovers) and chooses `m₂ - k` of them, which lengthens the prefix at the
//! cost of multiplying the table count: `tables = Π C(mᵢ, k)`.
//!
//! Parts split the errors instead of the agreement: cut the 64 bits into
//! `P ≤ k` even parts, and some part holds at most `k' = ⌊k / P⌋` of the
//! differing bits; split each part into `B > k'` blocks and keep one table
//! per part and choice of `B - k'` blocks (`tables = P × C(B, k')`). At
//! `k = 3`, `parts-2-B` has `2B` tables with prefixes of `32 (B - 1) / B`
//! bits: 6 tables of 21-22 bits where the block designs jump from 4 of 16
//! to 10 of 25-26.
//!
//! For `k = 3` the paper's four designs are, by name:
//!
//! | name | tables | blocks | prefix bits |
//! | --- | --- | --- | --- |
//! | `split-4` (alias `4x16`, `4`) | 4 | 16,16,16,16 choose 1 | 16 |
//! | `split-5` (alias `10`) | 10 | 13,13,13,13,12 choose 2 | 25–26 |
//! | `split-4-4` (alias `16`) | 16 | 4×16 choose 1, then 4×12 choose 1 | 28 |
//! | `split-6` (alias `20`) | 20 | 11,11,11,11,10,10 choose 3 | 31–33 |
//!
//! and of parts (below), which the paper does not have:
//!
//! | name | tables | blocks | prefix bits |
//! | --- | --- | --- | --- |
//! | `parts-2-3` (alias `6`) | 6 | 2 parts of 11,11,10 choose 2 | 21–22 |
//! | `parts-2-4` (alias `8`) | 8 | 2 parts of 8,8,8,8 choose 3 | 24 |
//!
//! See [`TableDesign::auto`] for the rule that picks one from the expected
//! number of fingerprints.

mod auto;
mod bytes;
mod name;
mod radius;

pub use auto::{AUTO_CANDIDATES_PER_PROBE, AUTO_MAX_TABLES};
pub use bytes::DESIGN_FORMAT_VERSION;
pub use name::DesignChoice;
pub use radius::MAX_RADIUS;

use crate::error::DesignError;
use crate::permutation::{BitRange, Permutation};

/// Largest supported Hamming distance.
pub const MAX_K: u32 = 7;

/// Most tables a design may have (the serialized count is a `u16`, and each
/// table is a full copy of the fingerprint set).
pub const MAX_TABLES: usize = 4096;

/// One sorted copy of the fingerprint set: a permutation and the number of
/// leading permuted bits that a query must match exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    permutation: Permutation,
    prefix_bits: u32,
    /// The prefix bits, as positions of the *original* fingerprint.
    original_prefix_mask: u64,
}

impl Table {
    /// A table whose prefix is exactly the ranges its permutation moves up.
    pub fn new(permutation: Permutation) -> Self {
        let prefix_bits = permutation
            .ranges()
            .iter()
            .map(|range| u32::from(range.len))
            .sum();
        let original_prefix_mask = permutation
            .ranges()
            .iter()
            .fold(0, |mask, range| mask | range.mask());
        Table {
            permutation,
            prefix_bits,
            original_prefix_mask,
        }
    }

    /// The table's permutation.
    pub fn permutation(&self) -> &Permutation {
        &self.permutation
    }

    /// `p`: how many leading bits of a permuted key a probe matches.
    pub fn prefix_bits(&self) -> u32 {
        self.prefix_bits
    }

    /// Mask of the top `p` bits of a *permuted* key.
    pub fn prefix_mask(&self) -> u64 {
        top_bits_mask(self.prefix_bits)
    }

    /// Mask of the *original* fingerprint bits that form the prefix.
    pub fn original_prefix_mask(&self) -> u64 {
        self.original_prefix_mask
    }

    /// Whether two fingerprints land in the same prefix group of this table,
    /// computed from their XOR without permuting.
    #[inline]
    pub fn shares_prefix(&self, xor: u64) -> bool {
        xor & self.original_prefix_mask == 0
    }

    /// The inclusive range `[lo, hi]` of permuted keys that share the
    /// prefix of `permuted`.
    #[inline]
    pub fn prefix_range(&self, permuted: u64) -> (u64, u64) {
        let mask = self.prefix_mask();
        (permuted & mask, permuted | !mask)
    }
}

/// How a design's blocks were chosen; this determines its name and is
/// what [`TableDesign::to_bytes`] records to rebuild it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DesignShape {
    /// One entry per level: the number of blocks that level splits its bits
    /// into, as evenly as possible (wider blocks first).
    Levels(Vec<u32>),
    /// One level with explicit block widths, most significant block first.
    Widths(Vec<u32>),
    /// `parts` even parts, some part within `⌊k / parts⌋` differing bits,
    /// each split evenly into `blocks` blocks (see the module docs).
    Parts {
        /// Even parts of the 64 bits, `2 ≤ parts ≤ k`.
        parts: u32,
        /// Even blocks of each part, more than `⌊k / parts⌋`.
        blocks: u32,
    },
}

/// A set of tables that finds every pair within distance `k`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDesign {
    k: u32,
    shape: DesignShape,
    tables: Vec<Table>,
    /// [`TableDesign::prefix_errors`] of each radius, once asked.
    prefix_errors: radius::PrefixErrors,
}

impl TableDesign {
    /// Evenly split levels: `levels[i]` blocks at level `i`, each level
    /// choosing `levels[i] - k` agreeing blocks. `levels(3, &[4, 4])` is the
    /// paper's 16-table design; `levels(0, &[1])` is the single identity table
    /// for exact matches.
    pub fn levels(k: u32, levels: &[u32]) -> Result<Self, DesignError> {
        Self::from_shape(k, DesignShape::Levels(levels.to_vec()))
    }

    /// One level with explicit block widths (positive, adding up to 64),
    /// choosing `widths.len() - k` agreeing blocks. An even split is
    /// normalised to the equivalent [`TableDesign::levels`] design.
    pub fn split(k: u32, widths: &[u32]) -> Result<Self, DesignError> {
        let Some(blocks) = valid_width_count(widths) else {
            return Err(DesignError::BadWidths {
                widths: widths.to_vec(),
            });
        };
        if even_widths(64, blocks) == widths {
            return Self::levels(k, &[blocks]);
        }
        Self::from_shape(k, DesignShape::Widths(widths.to_vec()))
    }

    /// `parts` even parts of the 64 bits, each split evenly into `blocks`
    /// blocks: one table per part and choice of `blocks - ⌊k / parts⌋`
    /// agreeing blocks. `2 ≤ parts ≤ k`, so that a part holds at most
    /// `⌊k / parts⌋ ≥ 1` differing bits (with none, a block design does
    /// better); `parts(3, 2, 3)` is 6 tables of 21-22 bits.
    pub fn parts(k: u32, parts: u32, blocks: u32) -> Result<Self, DesignError> {
        Self::from_shape(k, DesignShape::Parts { parts, blocks })
    }

    /// Builds the tables of a shape. Explicit widths follow the rule of
    /// [`TableDesign::split`] (positive, adding up to 64).
    pub fn from_shape(k: u32, shape: DesignShape) -> Result<Self, DesignError> {
        if k > MAX_K {
            return Err(DesignError::KTooLarge { k, max: MAX_K });
        }
        let tables = match &shape {
            DesignShape::Parts { parts, blocks } => parts_tables(k, *parts, *blocks)?,
            DesignShape::Levels(levels) => block_tables(k, BlockShape::Levels(levels))?,
            DesignShape::Widths(widths) => block_tables(k, BlockShape::Widths(widths))?,
        };
        Ok(TableDesign {
            k,
            shape,
            tables,
            prefix_errors: radius::PrefixErrors::default(),
        })
    }

    /// The distance every table set is complete for.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// How the blocks were chosen.
    pub fn shape(&self) -> &DesignShape {
        &self.shape
    }

    /// The tables, in the order their data is stored.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The shortest prefix of any table: it bounds the worst probe.
    pub fn min_prefix_bits(&self) -> u32 {
        // Every built design has at least one table; 0 would only describe
        // a design without tables (no prefix at all), never a wrong table.
        self.tables
            .iter()
            .map(Table::prefix_bits)
            .min()
            .unwrap_or(0)
    }

    /// The longest prefix of any table.
    pub fn max_prefix_bits(&self) -> u32 {
        // As in `min_prefix_bits`: 0 only for no tables.
        self.tables
            .iter()
            .map(Table::prefix_bits)
            .max()
            .unwrap_or(0)
    }

    /// Expected keys sharing a query's prefix in the worst table, for `n`
    /// uniformly random fingerprints: `n / 2^p_min`.
    pub fn expected_candidates_per_probe(&self, n: u64) -> f64 {
        #[expect(clippy::cast_possible_wrap, reason = "a prefix has at most 64 bits")]
        let prefix_bits = self.min_prefix_bits() as i32;
        n as f64 / 2f64.powi(prefix_bits)
    }

    /// Index of the first (lowest-index) table in which two fingerprints
    /// with this XOR share the prefix. Reporting a pair only from that table
    /// deduplicates results across tables without a hash set.
    #[inline]
    pub fn first_table_sharing(&self, xor: u64) -> Option<usize> {
        self.tables
            .iter()
            .position(|table| table.shares_prefix(xor))
    }
}

/// The number of explicit block widths, if they are positive and add up
/// to 64 (summed in `u64`, so huge widths cannot overflow the sum).
fn valid_width_count(widths: &[u32]) -> Option<u32> {
    let sum: u64 = widths.iter().map(|&width| u64::from(width)).sum();
    if sum != 64 || widths.contains(&0) {
        return None;
    }
    u32::try_from(widths.len()).ok()
}

/// Mask of the top `bits` bits.
pub(crate) const fn top_bits_mask(bits: u32) -> u64 {
    if bits == 0 {
        0
    } else if bits >= 64 {
        u64::MAX
    } else {
        !(u64::MAX >> bits)
    }
}

/// Widths of `blocks` near-equal blocks over `bits` bits, wider first.
pub(crate) fn even_widths(bits: u32, blocks: u32) -> Vec<u32> {
    if blocks == 0 {
        return Vec::new();
    }
    let base = bits / blocks;
    let wider = bits % blocks;
    (0..blocks).map(|i| base + u32::from(i < wider)).collect()
}

/// Tables of a design with these blocks per level: `Π C(mᵢ, k)`,
/// saturating (a stored shape may list many large levels).
pub(crate) fn table_count(levels: &[u32], k: u32) -> u128 {
    levels.iter().fold(1, |tables, &m| {
        tables.saturating_mul(binomial(u64::from(m), u64::from(k)))
    })
}

/// `C(n, r)`, saturating far above any table limit.
pub(crate) fn binomial(n: u64, r: u64) -> u128 {
    if r > n {
        return 0;
    }
    let r = r.min(n - r);
    let mut result: u128 = 1;
    for i in 0..r {
        result = result.saturating_mul(u128::from(n - i)) / u128::from(i + 1);
    }
    result
}

/// The tables of [`TableDesign::parts`]: part by part, each choice of
/// agreeing blocks in [`Subsets`] order, its bits in original order.
fn parts_tables(k: u32, parts: u32, blocks: u32) -> Result<Vec<Table>, DesignError> {
    if parts < 2 || parts > k {
        return Err(DesignError::BadLevel {
            level: 0,
            blocks: parts as usize,
            bits: 64,
            k,
        });
    }
    let part_errors = k / parts;
    let part_widths = even_widths(64, parts);
    let narrowest = part_widths.last().copied().unwrap_or(0);
    if blocks <= part_errors || blocks > narrowest {
        return Err(DesignError::BadLevel {
            level: 1,
            blocks: blocks as usize,
            bits: narrowest,
            k: part_errors,
        });
    }
    let tables =
        u128::from(parts).saturating_mul(binomial(u64::from(blocks), u64::from(part_errors)));
    if tables > MAX_TABLES as u128 {
        return Err(DesignError::TooManyTables {
            tables,
            max: MAX_TABLES,
        });
    }
    let mut out = Vec::new();
    let mut start = 0u8;
    for width in part_widths {
        let mut block_bits: Vec<Vec<u8>> = Vec::new();
        for block_width in even_widths(width, blocks) {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "the parts' widths add up to 64"
            )]
            let end = start + block_width as u8;
            block_bits.push((start..end).collect());
            start = end;
        }
        for subset in Subsets::new(block_bits.len(), (blocks - part_errors) as usize) {
            let chosen: Vec<u8> = subset
                .iter()
                .filter_map(|&index| block_bits.get(index))
                .flatten()
                .copied()
                .collect();
            out.push(Table::new(Permutation::moving_to_top(&bits_to_ranges(
                &chosen,
            ))?));
        }
    }
    Ok(out)
}

/// The shapes whose tables are chosen block by block: levels of even
/// blocks, or one level of explicit widths.
#[derive(Clone, Copy)]
enum BlockShape<'a> {
    Levels(&'a [u32]),
    Widths(&'a [u32]),
}

/// The tables of a block shape: every choice of agreeing blocks, level by
/// level.
fn block_tables(k: u32, shape: BlockShape<'_>) -> Result<Vec<Table>, DesignError> {
    let counts: Vec<u32> = match shape {
        BlockShape::Levels(levels) => levels.to_vec(),
        BlockShape::Widths(widths) => match valid_width_count(widths) {
            Some(blocks) => vec![blocks],
            None => {
                return Err(DesignError::BadWidths {
                    widths: widths.to_vec(),
                })
            }
        },
    };
    if counts.is_empty() {
        return Err(DesignError::BadLevel {
            level: 0,
            blocks: 0,
            bits: 64,
            k,
        });
    }
    let tables = table_count(&counts, k);
    if tables > MAX_TABLES as u128 {
        return Err(DesignError::TooManyTables {
            tables,
            max: MAX_TABLES,
        });
    }
    let all_bits: Vec<u8> = (0..64).collect();
    let mut chosen_lists = Vec::new();
    expand_levels(k, shape, 0, &all_bits, &mut Vec::new(), &mut chosen_lists)?;
    chosen_lists
        .iter()
        .map(|chosen| Permutation::moving_to_top(&bits_to_ranges(chosen)).map(Table::new))
        .collect()
}

/// Recursively lists, for every table, the original bits of its prefix in
/// destination order: level by level, each level's chosen blocks in
/// original order.
fn expand_levels(
    k: u32,
    shape: BlockShape<'_>,
    level: usize,
    remaining: &[u8],
    chosen: &mut Vec<u8>,
    out: &mut Vec<Vec<u8>>,
) -> Result<(), DesignError> {
    let widths = match shape {
        BlockShape::Levels(levels) => match levels.get(level) {
            None => {
                out.push(chosen.clone());
                return Ok(());
            }
            Some(&blocks) => {
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "`remaining` is a subset of the 64 bit positions"
                )]
                let bits = remaining.len() as u32;
                if blocks <= k || blocks > bits {
                    return Err(DesignError::BadLevel {
                        level,
                        blocks: blocks as usize,
                        bits,
                        k,
                    });
                }
                even_widths(bits, blocks)
            }
        },
        BlockShape::Widths(widths) => {
            if level > 0 {
                out.push(chosen.clone());
                return Ok(());
            }
            if widths.len() <= k as usize {
                return Err(DesignError::BadLevel {
                    level,
                    blocks: widths.len(),
                    bits: 64,
                    k,
                });
            }
            widths.to_vec()
        }
    };
    let mut blocks: Vec<&[u8]> = Vec::with_capacity(widths.len());
    let mut rest = remaining;
    for &width in &widths {
        // Explicit widths come from callers and from stored designs: ones
        // that run past the bits left are an error, not a panic.
        let Some((block, tail)) = usize::try_from(width)
            .ok()
            .and_then(|width| rest.split_at_checked(width))
        else {
            return Err(DesignError::BadWidths {
                widths: widths.clone(),
            });
        };
        blocks.push(block);
        rest = tail;
    }
    let agreeing = blocks.len() - k as usize;
    for subset in Subsets::new(blocks.len(), agreeing) {
        let mark = chosen.len();
        let mut leftover = Vec::with_capacity(remaining.len());
        for (index, block) in blocks.iter().enumerate() {
            if subset.contains(&index) {
                chosen.extend_from_slice(block);
            } else {
                leftover.extend_from_slice(block);
            }
        }
        expand_levels(k, shape, level + 1, &leftover, chosen, out)?;
        chosen.truncate(mark);
    }
    Ok(())
}

/// Merges a list of bit positions into maximal runs of consecutive bits.
fn bits_to_ranges(bits: &[u8]) -> Vec<BitRange> {
    let mut ranges: Vec<BitRange> = Vec::new();
    for &bit in bits {
        match ranges.last_mut() {
            Some(last) if last.end() == u32::from(bit) => last.len += 1,
            _ => ranges.push(BitRange::new(bit, 1)),
        }
    }
    ranges
}

/// Lexicographic `r`-subsets of `0..n`.
struct Subsets {
    n: usize,
    current: Option<Vec<usize>>,
}

impl Subsets {
    fn new(n: usize, r: usize) -> Self {
        Subsets {
            n,
            current: (r <= n).then(|| (0..r).collect()),
        }
    }
}

impl Iterator for Subsets {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let result = self.current.clone()?;
        let r = result.len();
        // Find the rightmost position that can still move right (position
        // `i` goes up to `n - r + i`; `r ≤ n` while `current` is `Some`),
        // together with its value, so no index is looked up twice.
        let movable = result
            .iter()
            .enumerate()
            .rev()
            .find(|&(i, &value)| value < self.n - r + i)
            .map(|(i, &value)| (i, value));
        self.current = movable.map(|(i, value)| {
            let mut next = result.clone();
            for (offset, slot) in next.iter_mut().skip(i).enumerate() {
                *slot = value + 1 + offset;
            }
            next
        });
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_enumerate_binomial_many_in_order() {
        let all: Vec<_> = Subsets::new(5, 2).collect();
        assert_eq!(all.len(), 10);
        assert_eq!(all.first().unwrap(), &vec![0, 1]);
        assert_eq!(all.last().unwrap(), &vec![3, 4]);
        assert!(all.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(Subsets::new(3, 0).count(), 1);
        assert_eq!(Subsets::new(3, 3).count(), 1);
    }

    #[test]
    fn paper_designs_have_the_paper_table_counts_and_prefixes() {
        let four = TableDesign::levels(3, &[4]).unwrap();
        assert_eq!((four.tables().len(), four.min_prefix_bits()), (4, 16));
        let ten = TableDesign::levels(3, &[5]).unwrap();
        assert_eq!(ten.tables().len(), 10);
        assert_eq!((ten.min_prefix_bits(), ten.max_prefix_bits()), (25, 26));
        let sixteen = TableDesign::levels(3, &[4, 4]).unwrap();
        assert_eq!(sixteen.tables().len(), 16);
        assert_eq!(
            (sixteen.min_prefix_bits(), sixteen.max_prefix_bits()),
            (28, 28)
        );
        let twenty = TableDesign::levels(3, &[6]).unwrap();
        assert_eq!(twenty.tables().len(), 20);
        assert_eq!(
            (twenty.min_prefix_bits(), twenty.max_prefix_bits()),
            (31, 33)
        );
    }

    #[test]
    fn parts_designs_have_their_table_counts_and_prefixes() {
        let six = TableDesign::parts(3, 2, 3).unwrap();
        assert_eq!(six.tables().len(), 6);
        assert_eq!((six.min_prefix_bits(), six.max_prefix_bits()), (21, 22));
        // The first part's tables hold only bits of the first half.
        for (index, table) in six.tables().iter().enumerate() {
            let half = if index < 3 {
                0xffff_ffff_0000_0000
            } else {
                0xffff_ffff
            };
            assert_eq!(table.original_prefix_mask() & !half, 0, "table {index}");
        }
        let eight = TableDesign::parts(3, 2, 4).unwrap();
        assert_eq!((eight.tables().len(), eight.min_prefix_bits()), (8, 24));
        let k4 = TableDesign::parts(4, 2, 5).unwrap();
        assert_eq!((k4.tables().len(), k4.min_prefix_bits()), (20, 18));
        // Parts must leave each at least one error and at most k; blocks
        // must outnumber a part's errors and fit its bits.
        for (k, parts, blocks) in [(3, 1, 3), (3, 4, 3), (3, 2, 1), (3, 2, 33), (1, 2, 3)] {
            assert!(
                TableDesign::parts(k, parts, blocks).is_err(),
                "{k} {parts} {blocks}"
            );
        }
    }

    #[test]
    fn exact_match_design_is_one_identity_table() {
        let exact = TableDesign::levels(0, &[1]).unwrap();
        assert_eq!(exact.tables().len(), 1);
        let table = &exact.tables()[0];
        assert_eq!(table.prefix_bits(), 64);
        assert_eq!(table.permutation().permute(0xdead_beef), 0xdead_beef);
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(TableDesign::levels(3, &[3]).is_err());
        assert!(TableDesign::levels(8, &[9]).is_err());
        assert!(TableDesign::levels(3, &[]).is_err());
        assert!(TableDesign::levels(7, &[40]).is_err());
        assert!(TableDesign::split(1, &[32, 31]).is_err());
        assert!(TableDesign::split(1, &[64, 0]).is_err());
        // A sum that overflows u32 is not 64 (and no overflow panic).
        assert!(TableDesign::split(1, &[u32::MAX, 65]).is_err());
        assert!(TableDesign::from_name(1, "widths-4294967295-65").is_err());
        assert!(TableDesign::levels(0, &[1, 1]).is_err());
        // So many tables that their count overflows u128: too many, not an
        // overflow panic.
        assert!(matches!(
            TableDesign::levels(3, &[64; 9]),
            Err(DesignError::TooManyTables {
                tables: u128::MAX,
                ..
            })
        ));
        // Explicit widths past 64 bits (or short of them, or zero), given
        // directly as a shape (as a stored design does), are an error
        // rather than a panic.
        for widths in [vec![30, 50], vec![100], vec![64, 1], vec![0, 64], vec![40]] {
            assert_eq!(
                TableDesign::from_shape(0, DesignShape::Widths(widths.clone())),
                Err(DesignError::BadWidths { widths })
            );
        }
    }

    #[test]
    fn even_explicit_widths_normalise_to_levels() {
        let split = TableDesign::split(3, &[16, 16, 16, 16]).unwrap();
        assert_eq!(split, TableDesign::levels(3, &[4]).unwrap());
        let uneven = TableDesign::split(1, &[40, 24]).unwrap();
        assert_eq!(uneven.shape(), &DesignShape::Widths(vec![40, 24]));
        assert_eq!(uneven.min_prefix_bits(), 24);
    }

    #[test]
    fn prefix_range_covers_exactly_the_shared_prefix() {
        let design = TableDesign::levels(3, &[4, 4]).unwrap();
        for table in design.tables() {
            let (lo, hi) = table.prefix_range(0x0123_4567_89ab_cdef);
            assert_eq!(lo & table.prefix_mask(), hi & table.prefix_mask());
            assert_eq!((hi - lo).count_ones(), 64 - table.prefix_bits());
            assert_eq!(
                table.original_prefix_mask().count_ones(),
                table.prefix_bits()
            );
        }
    }
}
