//! Radii wider than a design's `k`, without more tables.
//!
//! A design for `k` guarantees that a pair within `k` agrees on the whole
//! prefix of some table. A pair within a wider radius `r` still agrees on
//! *most* of some table's prefix: with `e` the least number of differing
//! bits any table's prefix must tolerate, probing every prefix within `e`
//! bits of the query's (multi-index hashing) finds every pair within `r`.
//!
//! `e` never exceeds `r - k`: drop any `r - k` of the differing bits, the
//! `k` left miss some table's prefix entirely, so that prefix holds at
//! most the `r - k` dropped. It is often far lower: under `split-4` (four
//! 16-bit prefixes that share no bit) seven differing bits leave some
//! prefix with at most one, since `4 × 2 > 7`. [`TableDesign::prefix_errors`]
//! finds the least `e` by letting an adversary place the `r` bits.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::TableDesign;

/// The widest radius a query may ask for.
pub const MAX_RADIUS: u32 = 16;

/// Placements of the differing bits the exact search tries before it
/// settles for the bound `r - k` (a few milliseconds, once per design and
/// radius: designs whose prefixes share bits in many ways, such as two
/// levels of blocks, end there).
const SEARCH_BUDGET: u64 = 200_000;

/// A design's [`TableDesign::prefix_errors`] per radius, each worked out
/// once (a search can take milliseconds; a query must not). Two designs
/// with the same tables are equal whatever either has cached.
#[derive(Debug, Clone, Default)]
pub(super) struct PrefixErrors([OnceLock<u32>; MAX_RADIUS as usize + 1]);

impl PartialEq for PrefixErrors {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PrefixErrors {}

impl TableDesign {
    /// The least `e` such that every pair of fingerprints within `radius`
    /// bits differs in at most `e` bits of some table's prefix; 0 up to
    /// the design's `k`. Exact for the designs fpdb picks; for designs
    /// whose prefixes overlap in too many ways to search, the bound
    /// `radius - k` (still complete, with more probes). Worked out once per
    /// design and radius.
    pub fn prefix_errors(&self, radius: u32) -> u32 {
        let bound = radius.saturating_sub(self.k());
        if bound == 0 {
            return 0;
        }
        let search = || {
            let atoms = self.prefix_atoms();
            worst_least_errors(&atoms, self.tables().len(), radius, bound).unwrap_or(bound)
        };
        match usize::try_from(radius)
            .ok()
            .and_then(|radius| self.prefix_errors.0.get(radius))
        {
            Some(cell) => *cell.get_or_init(search),
            None => search(),
        }
    }

    /// Index of the first table whose prefix two fingerprints with this
    /// XOR differ in at most `errors` bits of: the table that reports the
    /// pair when a query probes prefixes within `errors` bits. With
    /// `errors = 0` it is [`TableDesign::first_table_sharing`].
    #[inline]
    pub fn first_table_within(&self, xor: u64, errors: u32) -> Option<usize> {
        self.tables()
            .iter()
            .position(|table| (xor & table.original_prefix_mask()).count_ones() <= errors)
    }

    /// The fingerprint's bits grouped by the set of tables whose prefix
    /// holds them (bits in no prefix left out): (bits in the group, the
    /// tables).
    fn prefix_atoms(&self) -> Vec<(u32, Vec<usize>)> {
        let mut atoms: BTreeMap<Vec<usize>, u32> = BTreeMap::new();
        for bit in 0..64 {
            let tables: Vec<usize> = self
                .tables()
                .iter()
                .enumerate()
                .filter(|(_, table)| table.original_prefix_mask() >> bit & 1 == 1)
                .map(|(index, _)| index)
                .collect();
            if !tables.is_empty() {
                *atoms.entry(tables).or_default() += 1;
            }
        }
        // Larger groups first: the worst placements come early, and the
        // search prunes more.
        let mut atoms: Vec<(u32, Vec<usize>)> = atoms
            .into_iter()
            .map(|(tables, bits)| (bits, tables))
            .collect();
        atoms.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        atoms
    }
}

/// Over every way of placing `radius` differing bits in the atoms, the
/// largest "fewest differing bits in any table's prefix", at most `bound`
/// (a value known to be reachable no higher); `None` when the search
/// would exceed [`SEARCH_BUDGET`].
fn worst_least_errors(
    atoms: &[(u32, Vec<usize>)],
    tables: usize,
    radius: u32,
    bound: u32,
) -> Option<u32> {
    let mut search = Search {
        atoms,
        per_table: vec![0; tables],
        visited: 0,
        worst: 0,
        bound,
    };
    search.place(0, radius).then_some(search.worst.min(bound))
}

struct Search<'a> {
    atoms: &'a [(u32, Vec<usize>)],
    /// Differing bits in each table's prefix so far.
    per_table: Vec<u32>,
    visited: u64,
    worst: u32,
    /// The search stops once `worst` reaches it.
    bound: u32,
}

impl Search<'_> {
    /// Places up to `left` more bits in atoms `next..`; false when over
    /// budget. Leaving bits unplaced is allowed: a placement with fewer
    /// bits is never worse for the finder, so the maximum is unchanged.
    fn place(&mut self, next: usize, left: u32) -> bool {
        self.visited += 1;
        if self.visited > SEARCH_BUDGET {
            return false;
        }
        // Even if every bit left went into every table, no placement
        // below this node beats the worst found: prune it.
        let least = self.per_table.iter().copied().min().unwrap_or(0);
        if self.worst >= self.bound || least + left <= self.worst {
            return true;
        }
        let Some((bits, tables)) = self.atoms.get(next) else {
            self.worst = self.worst.max(least);
            return true;
        };
        // Most bits first: the worst placements are found early, so the
        // pruning above cuts more.
        for count in (0..=left.min(*bits)).rev() {
            for &table in tables {
                if let Some(errors) = self.per_table.get_mut(table) {
                    *errors += count;
                }
            }
            let within = self.place(next + 1, left - count);
            for &table in tables {
                if let Some(errors) = self.per_table.get_mut(table) {
                    *errors -= count;
                }
            }
            if !within {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least `e` by brute force over every set of `radius` bit
    /// positions among `bits` chosen positions (the rest of the word kept
    /// equal), for small cases.
    fn brute_force(design: &TableDesign, radius: u32) -> u32 {
        fn worst(design: &TableDesign, xor: u64, from: u32, left: u32) -> u32 {
            let least = design
                .tables()
                .iter()
                .map(|table| (xor & table.original_prefix_mask()).count_ones())
                .min()
                .unwrap_or(0);
            if left == 0 {
                return least;
            }
            (from..64)
                .map(|bit| worst(design, xor | 1 << bit, bit + 1, left - 1))
                .max()
                .unwrap_or(least)
        }
        worst(design, 0, 0, radius)
    }

    #[test]
    fn split_designs_need_few_prefix_errors() {
        let split4 = TableDesign::from_name(3, "split-4").unwrap();
        // Four disjoint 16-bit prefixes: the fewest is ⌊r / 4⌋.
        for radius in 0..=MAX_RADIUS {
            let expected = if radius <= 3 { 0 } else { radius / 4 };
            assert_eq!(split4.prefix_errors(radius), expected, "radius {radius}");
        }
        let split5 = TableDesign::from_name(3, "split-5").unwrap();
        assert_eq!(split5.prefix_errors(3), 0);
        // Five blocks, prefixes of two: 2,2,1,1,1 differing bits leave two
        // in the best prefix, and three in every prefix would take eight.
        assert_eq!(split5.prefix_errors(7), 2);
    }

    #[test]
    fn the_search_agrees_with_brute_force() {
        for (k, name) in [
            (3, "split-4"),
            (3, "split-5"),
            (2, "split-3"),
            (1, "split-2"),
        ] {
            let design = TableDesign::from_name(k, name).unwrap();
            for radius in 0..=5 {
                assert_eq!(
                    design.prefix_errors(radius),
                    brute_force(&design, radius).min(radius.saturating_sub(k)),
                    "{name}, radius {radius}"
                );
            }
        }
    }

    #[test]
    fn every_pair_within_the_radius_has_a_table_within_the_errors() {
        let design = TableDesign::from_name(3, "split-4-4").unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for radius in 4..=10 {
            let errors = design.prefix_errors(radius);
            assert!(errors <= radius - 3);
            for _ in 0..2000 {
                let mut xor = 0u64;
                while xor.count_ones() < radius {
                    xor |= 1 << (next() % 64);
                }
                assert!(
                    design.first_table_within(xor, errors).is_some(),
                    "radius {radius}, xor {xor:016x}"
                );
            }
        }
    }
}
