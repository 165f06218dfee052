//! One query probed where an edit most likely moved it: in each table,
//! the prefixes reached by flipping the query's weakest prefix bits
//! first, the bits whose simhash vote was closest to zero, which a small
//! edit flips most easily (Sood and Loguinov, CIKM 2011).
//!
//! A flip set costs the sum of its bits' vote sizes; each table probes
//! its `budget` cheapest sets ([`cheapest_flips`]), the empty set (the
//! query's own prefix) first. Unlike an exact radius, what is reached
//! depends on the query's votes, not only on the distance: every stored
//! fingerprint within `radius` whose prefix, in some table, differs from
//! the query's by one of that table's flip sets. Each is reported once,
//! by the first such table.

use fpdb_fingerprint::{Fingerprint, WeakBits, QUARTERS};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::source::BlockSource;
use super::wide_probe::scan_prefixes;
use crate::design::TableDesign;

/// The `budget` cheapest subsets of `bits` (each a single-bit mask with
/// its cost), as the XOR of their masks, cheapest first (ties in the
/// order `bits` sorts to), the empty set first.
///
/// Best-first over subsets written as increasing index lists into the
/// bits sorted by cost: a set whose last index is i begets the set with
/// i replaced by i + 1 and the set with i + 1 added, so each subset is
/// reached exactly once and never before a cheaper one.
pub fn cheapest_flips(bits: &[(u64, u64)], budget: usize) -> Vec<u64> {
    let mut sorted = bits.to_vec();
    sorted.sort_unstable_by_key(|&(mask, cost)| (cost, mask));
    let mut flips = Vec::with_capacity(budget);
    if budget == 0 {
        return flips;
    }
    flips.push(0);
    let mut heap = BinaryHeap::new();
    if let Some(&(mask, cost)) = sorted.first() {
        heap.push(Reverse((cost, mask, 0usize)));
    }
    while flips.len() < budget {
        let Some(Reverse((cost, set, last))) = heap.pop() else {
            break;
        };
        flips.push(set);
        if let (Some(&(last_mask, last_cost)), Some(&(next_mask, next_cost))) =
            (sorted.get(last), sorted.get(last + 1))
        {
            let shifted = (set ^ last_mask) | next_mask;
            heap.push(Reverse((cost - last_cost + next_cost, shifted, last + 1)));
            heap.push(Reverse((cost + next_cost, set | next_mask, last + 1)));
        }
    }
    flips
}

/// Each table's flip sets for a query whose bit `i` (0 the most
/// significant) has vote size `vote_sizes[i]`: masks over the original
/// fingerprint's bits, sorted (for [`reaching_table`]).
pub fn table_flips(design: &TableDesign, vote_sizes: &[u64; 64], budget: usize) -> Vec<Vec<u64>> {
    design
        .tables()
        .iter()
        .map(|table| {
            let prefix = table.original_prefix_mask();
            let bits: Vec<(u64, u64)> = vote_sizes
                .iter()
                .enumerate()
                .map(|(i, &cost)| (1u64 << (63 - i), cost))
                .filter(|&(mask, _)| prefix & mask != 0)
                .collect();
            let mut flips = cheapest_flips(&bits, budget);
            flips.sort_unstable();
            flips
        })
        .collect()
}

/// Each table's flip sets for a query with weak bits `weak`: in a table
/// keyed by one quarter of the fingerprint, every subset of at most
/// `flips` of the weak bits in that quarter; in any other table, none. So
/// [`probe_flips`] with them reaches exactly the stored fingerprints
/// [`WeakBits::reaches`] says the query reaches. `None` when some quarter keys no table (the
/// design cannot probe weak bits: split-4 at k = 3 can).
pub fn weak_bit_flips(design: &TableDesign, weak: WeakBits, flips: u32) -> Option<Vec<Vec<u64>>> {
    if !probes_weak_bits(design) {
        return None;
    }
    Some(
        design
            .tables()
            .iter()
            .map(|table| {
                let prefix = table.original_prefix_mask();
                if !QUARTERS.contains(&prefix) {
                    return Vec::new();
                }
                let mut sets: Vec<u64> = weak.subsets_in(prefix, flips).collect();
                sets.sort_unstable();
                sets
            })
            .collect(),
    )
}

/// Whether each quarter of the fingerprint is some table's whole prefix,
/// so that weak bits can be probed ([`weak_bit_flips`]).
pub fn probes_weak_bits(design: &TableDesign) -> bool {
    QUARTERS.iter().all(|quarter| {
        design
            .tables()
            .iter()
            .any(|table| table.original_prefix_mask() == *quarter)
    })
}

/// The first table whose flip sets reach `stored` from `query`.
pub fn reaching_table(design: &TableDesign, flips: &[Vec<u64>], xor: u64) -> Option<usize> {
    design.tables().iter().zip(flips).position(|(table, sets)| {
        sets.binary_search(&(xor & table.original_prefix_mask()))
            .is_ok()
    })
}

/// Appends to `out` every key of `source` within `radius` of `query` that
/// some table's flip set reaches (`flips`, from [`table_flips`]), as
/// (fingerprint, distance), each once.
pub fn probe_flips<S: BlockSource>(
    design: &TableDesign,
    source: &mut S,
    query: Fingerprint,
    flips: &[Vec<u64>],
    radius: u32,
    out: &mut Vec<(Fingerprint, u32)>,
) -> Result<(), S::Error> {
    for ((index, table), sets) in design.tables().iter().enumerate().zip(flips) {
        let permutation = table.permutation();
        scan_prefixes(
            design,
            source,
            (index, query, radius),
            sets.iter().map(|&set| permutation.permute(query.0 ^ set)),
            out,
            |xor| reaching_table(design, flips, xor) == Some(index),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_sets_come_cheapest_first_each_once() {
        let bits: Vec<(u64, u64)> = (0..16u64)
            .map(|i| (1 << (40 + i), (i * 37) % 16 + 1))
            .collect();
        let cost = |set: u64| -> u64 {
            bits.iter()
                .filter(|&&(mask, _)| set & mask != 0)
                .map(|&(_, c)| c)
                .sum()
        };
        let flips = cheapest_flips(&bits, 300);
        assert_eq!(flips.len(), 300);
        assert_eq!(flips[0], 0);
        let mut unique = flips.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 300, "each set once");
        assert!(flips.windows(2).all(|w| cost(w[0]) <= cost(w[1])));
        // Nothing left out is cheaper than the dearest set taken.
        let dearest = cost(flips[299]);
        let cheaper = (0..1u64 << 16)
            .map(|s| s << 40)
            .filter(|&s| cost(s) < dearest)
            .count();
        assert!(
            cheaper <= 300,
            "{cheaper} sets are cheaper than the last taken"
        );
        // Fewer subsets than the budget: all of them.
        assert_eq!(cheapest_flips(&bits[..3], 100).len(), 8);
        assert!(cheapest_flips(&bits, 0).is_empty());
        assert_eq!(cheapest_flips(&[], 5), [0]);
    }
}
