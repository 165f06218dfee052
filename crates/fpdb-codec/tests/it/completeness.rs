//! Every design the crate produces finds every pair within its `k`.
//!
//! Two fingerprints `x` and `x ^ e` agree on the top `p` bits of table `t`
//! exactly when the top `p` bits of `permute_t(e)` are zero (permutations
//! are linear over XOR). So a design is complete for `k` iff for every error
//! pattern `e` of at most `k` bits some table leaves `permute_t(e)`'s prefix
//! zero.

use fpdb_codec::{TableDesign, MAX_K, MAX_RADIUS};

/// Every design reachable through the public constructors we ship: the
/// family behind `auto` and table-count names, `auto` at every size, the
/// paper's names, and a few explicit uneven splits.
fn designs_for(k: u32) -> Vec<TableDesign> {
    let mut designs = TableDesign::family(k).unwrap();
    for log_n in 0..64 {
        designs.push(TableDesign::auto(k, 1u64 << log_n).unwrap());
    }
    for name in ["4x16", "10", "16", "20", "2x32", "8x8", "split-4-4-4"] {
        if let Ok(design) = TableDesign::from_name(k, name) {
            designs.push(design);
        }
    }
    for widths in [
        &[11u32, 11, 11, 11, 10, 10][..],
        &[20, 20, 24],
        &[1, 63],
        &[8, 8, 8, 8, 8, 8, 8, 7, 1],
        &[40, 4, 4, 4, 4, 4, 4],
    ] {
        if let Ok(design) = TableDesign::split(k, widths) {
            designs.push(design);
        }
    }
    designs.sort_by_key(|design| design.name());
    designs.dedup();
    designs
}

fn table_catches(design: &TableDesign, error: u64) -> bool {
    design
        .tables()
        .iter()
        .any(|table| table.permutation().permute(error) & table.prefix_mask() == 0)
}

/// Calls `visit` with every 64-bit pattern of exactly `weight` set bits.
fn for_each_pattern(weight: u32, visit: &mut impl FnMut(u64)) {
    fn recurse(from: u32, left: u32, pattern: u64, visit: &mut impl FnMut(u64)) {
        if left == 0 {
            visit(pattern);
            return;
        }
        for bit in from..=64 - left {
            recurse(bit + 1, left - 1, pattern | (1u64 << bit), visit);
        }
    }
    recurse(0, weight, 0, visit);
}

#[test]
fn every_error_pattern_up_to_three_bits_is_caught() {
    for k in 1..=3 {
        for design in designs_for(k) {
            let mut checked = 0u64;
            for weight in 0..=k {
                for_each_pattern(weight, &mut |error| {
                    assert!(
                        table_catches(&design, error),
                        "{design} misses error pattern {error:#018x}"
                    );
                    checked += 1;
                });
            }
            // 1 + C(64,1) + … + C(64,k) patterns, all of them.
            let expected: u64 = [1, 64, 2016, 41664].iter().take(k as usize + 1).sum();
            assert_eq!(checked, expected);
        }
    }
}

/// Bits that lie in exactly the same set of table prefixes behave alike;
/// these "atoms" partition the 64 bits.
fn atoms(design: &TableDesign) -> Vec<u64> {
    let mut atoms: Vec<(Vec<bool>, u64)> = Vec::new();
    for bit in 0..64 {
        let mask = 1u64 << bit;
        let signature: Vec<bool> = design
            .tables()
            .iter()
            .map(|table| table.original_prefix_mask() & mask != 0)
            .collect();
        match atoms.iter_mut().find(|(known, _)| *known == signature) {
            Some((_, bits)) => *bits |= mask,
            None => atoms.push((signature, mask)),
        }
    }
    atoms.into_iter().map(|(_, bits)| bits).collect()
}

/// Whether at most `budget` atoms can touch every table's prefix (a set of
/// dirty atoms no table avoids): a bounded search tree for hitting sets,
/// branching on the atoms of the first prefix not yet touched.
fn some_hitting_set(prefixes: &[u64], chosen: u64, budget: u32) -> bool {
    let Some(&untouched) = prefixes.iter().find(|&&prefix| prefix & chosen == 0) else {
        return true;
    };
    if budget == 0 {
        return false;
    }
    let mut rest = untouched;
    while rest != 0 {
        let atom = rest & rest.wrapping_neg();
        rest &= rest - 1;
        if some_hitting_set(prefixes, chosen | atom, budget - 1) {
            return true;
        }
    }
    false
}

/// Exact for every `k`: an error of at most `k` bits dirties at most `k`
/// atoms, and any `k` atoms can be dirtied with `k` bits, so the design is
/// complete iff no `k` atoms touch every table's prefix.
#[test]
fn no_k_atoms_touch_every_prefix_for_any_k() {
    for k in 0..=MAX_K {
        for design in designs_for(k) {
            let atoms = atoms(&design);
            let prefixes: Vec<u64> = design
                .tables()
                .iter()
                .map(|table| {
                    atoms
                        .iter()
                        .enumerate()
                        .filter(|(_, &bits)| bits & table.original_prefix_mask() != 0)
                        .fold(0u64, |set, (index, _)| set | (1u64 << index))
                })
                .collect();
            assert!(
                !some_hitting_set(&prefixes, 0, k),
                "{design}: some {k} atoms touch every table"
            );
            // And the design is not trivially complete for k + 1 blocks
            // everywhere: removing the budget limit must find a hitting set,
            // which shows the search can fail.
            assert!(some_hitting_set(&prefixes, 0, 64));
        }
    }
}

#[test]
fn random_error_patterns_up_to_seven_bits_are_caught() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for k in 4..=MAX_K {
        for design in designs_for(k) {
            for _ in 0..3000 {
                let mut error = 0u64;
                let weight = 1 + next() % u64::from(k);
                while u64::from(error.count_ones()) < weight {
                    error |= 1u64 << (next() % 64);
                }
                // Clustered errors stress block boundaries: shift a short burst.
                let burst = (next() & ((1u64 << k) - 1)).rotate_left((next() % 64) as u32);
                for pattern in [error, burst] {
                    assert!(
                        table_catches(&design, pattern),
                        "{design} misses {pattern:#018x}"
                    );
                }
            }
        }
    }
}

/// Past a design's k, a query probes every prefix within
/// `prefix_errors(radius)` bits of its own: every error pattern of that
/// many bits (spread out or in a burst) must leave some table's prefix
/// within them, and the count never exceeds `radius - k`.
#[test]
fn wide_radii_leave_some_prefix_within_its_errors() {
    let mut state = 0x5851_F42D_4C95_7F2Du64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for k in 1..=3 {
        for design in designs_for(k) {
            for radius in k + 1..=MAX_RADIUS {
                let errors = design.prefix_errors(radius);
                assert!(errors <= radius - k, "{design}, radius {radius}: {errors}");
                for _ in 0..300 {
                    let mut spread = 0u64;
                    while spread.count_ones() < radius {
                        spread |= 1u64 << (next() % 64);
                    }
                    let burst = (u64::MAX >> (64 - radius)).rotate_left((next() % 64) as u32);
                    for pattern in [spread, burst] {
                        assert!(
                            design.first_table_within(pattern, errors).is_some(),
                            "{design}, radius {radius}, errors {errors}: {pattern:#018x}"
                        );
                    }
                }
            }
        }
    }
}

/// The pigeonhole structure itself: in a one-level design of `m` blocks,
/// every table's prefix is a union of exactly `m - k` whole blocks, and the
/// tables enumerate each such choice once.
#[test]
fn one_level_designs_choose_every_block_subset_once() {
    for k in 1..=MAX_K {
        for design in designs_for(k) {
            let tables = design.tables();
            let shape = design.shape().clone();
            let widths: Vec<u32> = match shape {
                fpdb_codec::DesignShape::Widths(widths) => widths,
                fpdb_codec::DesignShape::Levels(levels) if levels.len() == 1 => {
                    let m = levels[0];
                    (0..m).map(|i| 64 / m + u32::from(i < 64 % m)).collect()
                }
                fpdb_codec::DesignShape::Levels(_) | fpdb_codec::DesignShape::Parts { .. } => {
                    continue
                }
            };
            let mut block_masks = Vec::new();
            let mut start = 0;
            for width in &widths {
                let ones = if *width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                block_masks.push(ones << (64 - start - width));
                start += width;
            }
            let mut seen = std::collections::HashSet::new();
            for table in tables {
                let prefix = table.original_prefix_mask();
                let chosen: Vec<usize> = (0..block_masks.len())
                    .filter(|&b| prefix & block_masks[b] != 0)
                    .collect();
                for &b in &chosen {
                    assert_eq!(
                        prefix & block_masks[b],
                        block_masks[b],
                        "{design}: partial block"
                    );
                }
                assert_eq!(chosen.len(), widths.len() - k as usize, "{design}");
                assert!(seen.insert(chosen), "{design}: a block choice repeats");
            }
        }
    }
}

/// The checks above can fail: a design built for `k` is not complete for
/// `k + 1`, and both the pattern test and the hitting-set search say so.
#[test]
fn checkers_detect_an_incomplete_design() {
    for (k, design) in [
        (3, TableDesign::levels(3, &[4]).unwrap()),
        (2, TableDesign::levels(2, &[3, 3]).unwrap()),
    ] {
        let mut missed = 0u64;
        for_each_pattern(k + 1, &mut |error| {
            missed += u64::from(!table_catches(&design, error))
        });
        assert!(missed > 0, "{design} unexpectedly complete for k + 1");
        let atoms = atoms(&design);
        let prefixes: Vec<u64> = design
            .tables()
            .iter()
            .map(|table| {
                atoms
                    .iter()
                    .enumerate()
                    .filter(|(_, &bits)| bits & table.original_prefix_mask() != 0)
                    .fold(0u64, |set, (index, _)| set | (1u64 << index))
            })
            .collect();
        assert!(some_hitting_set(&prefixes, 0, k + 1));
    }
}
