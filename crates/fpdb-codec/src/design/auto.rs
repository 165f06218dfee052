//! The family of designs fpdb considers, and the rule that picks one.

use super::{table_count, DesignShape, TableDesign};
use crate::error::DesignError;

/// Most tables [`TableDesign::auto`] and table-count names consider: each
/// table is a full copy of the set, so more is rarely worth it.
pub const AUTO_MAX_TABLES: usize = 256;

/// The probe budget of [`TableDesign::auto`]: the most keys a query may
/// expect to share its prefix in the worst table. A default 1 KiB block
/// holds about 1024 × 8 / 48 ≈ 170 keys at the ≤ 48 bits per key the codec
/// reaches at 2^20 keys, so within this budget a probe decodes about one
/// block.
pub const AUTO_CANDIDATES_PER_PROBE: f64 = 170.0;

impl TableDesign {
    /// Every design of one or two evenly split levels, or of parts, with at
    /// most [`AUTO_MAX_TABLES`] tables, ordered by table count, then by
    /// longer shortest prefix, then by fewer levels (parts count two). For `k = 0` it is only the
    /// identity design `split-1` (more blocks would all be chosen anyway).
    pub fn family(k: u32) -> Result<Vec<TableDesign>, DesignError> {
        if k > super::MAX_K {
            return Err(DesignError::KTooLarge {
                k,
                max: super::MAX_K,
            });
        }
        if k == 0 {
            return Ok(vec![TableDesign::levels(0, &[1])?]);
        }
        let fits = |shape: &[u32]| table_count(shape, k) <= AUTO_MAX_TABLES as u128;
        let mut shapes: Vec<Vec<u32>> = Vec::new();
        for first in k + 1..=64 {
            if !fits(&[first]) {
                break;
            }
            shapes.push(vec![first]);
            for second in k + 1..=64 {
                if !fits(&[first, second]) {
                    break;
                }
                shapes.push(vec![first, second]);
            }
        }
        let mut family = Vec::new();
        for levels in shapes {
            // A second level needs enough leftover bits; skip shapes that
            // cannot be built rather than failing the whole family.
            if let Ok(design) = TableDesign::from_shape(k, DesignShape::Levels(levels)) {
                family.push(design);
            }
        }
        for parts in 2..=k {
            for blocks in k / parts + 1..=64 {
                match TableDesign::parts(k, parts, blocks) {
                    Ok(design) if design.tables().len() <= AUTO_MAX_TABLES => family.push(design),
                    _ => break,
                }
            }
        }
        // Block designs first among equals, so that table-count names keep
        // meaning what they did before parts; a parts design with the same
        // tables as a block design (`parts-2-2` is `split-4` at k = 3) is
        // left out.
        family.sort_by_key(|design| {
            (
                design.tables().len(),
                std::cmp::Reverse(design.min_prefix_bits()),
                level_count(design),
                matches!(design.shape(), DesignShape::Parts { .. }),
            )
        });
        let mut distinct: Vec<TableDesign> = Vec::with_capacity(family.len());
        for design in family {
            if !distinct.iter().any(|kept| kept.tables() == design.tables()) {
                distinct.push(design);
            }
        }
        Ok(distinct)
    }

    /// Picks a design for about `expected_n` fingerprints: the one with the
    /// fewest tables (earliest in [`TableDesign::family`]) whose worst-table
    /// expected candidates per probe, `expected_n / 2^p_min`, is at most
    /// [`AUTO_CANDIDATES_PER_PROBE`]. If no design in the family meets the
    /// budget (large `k` with huge `n`), the one with the longest shortest
    /// prefix, fewest tables first.
    ///
    /// For `k = 3` this gives (checked by a test, and printed by
    /// `cargo test -p fpdb-codec auto_designs_for_k3 -- --nocapture`):
    ///
    /// | N | design | tables | p_min | expected candidates / probe |
    /// | --- | --- | --- | --- | --- |
    /// | 2^20 | `split-4` | 4 | 16 | 16 |
    /// | 2^24 | `parts-2-3` | 6 | 21 | 8 |
    /// | 2^30 | `parts-2-4` | 8 | 24 | 64 |
    /// | 2^34 | `parts-2-7` | 14 | 27 | 128 |
    pub fn auto(k: u32, expected_n: u64) -> Result<TableDesign, DesignError> {
        Self::auto_with_budget(k, expected_n, AUTO_CANDIDATES_PER_PROBE)
    }

    /// [`TableDesign::auto`] with an explicit candidates-per-probe budget.
    pub fn auto_with_budget(
        k: u32,
        expected_n: u64,
        candidates_per_probe: f64,
    ) -> Result<TableDesign, DesignError> {
        let family = Self::family(k)?;
        let within_budget = family.iter().position(|design| {
            design.expected_candidates_per_probe(expected_n) <= candidates_per_probe
        });
        let index = within_budget.or_else(|| {
            // Longest shortest prefix; `max_by_key` keeps the last maximum,
            // so walk backwards to prefer fewer tables.
            family
                .iter()
                .enumerate()
                .rev()
                .max_by_key(|(_, design)| design.min_prefix_bits())
                .map(|(index, _)| index)
        });
        index
            .and_then(|index| family.into_iter().nth(index))
            .ok_or(DesignError::UnknownName {
                name: "auto".to_owned(),
                k,
                hint: "no design available".to_owned(),
            })
    }
}

fn level_count(design: &TableDesign) -> usize {
    match design.shape() {
        DesignShape::Levels(levels) => levels.len(),
        DesignShape::Widths(_) => 1,
        DesignShape::Parts { .. } => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_designs_for_k3() {
        let mut rows = Vec::new();
        for log_n in [20u32, 24, 30, 34] {
            let n = 1u64 << log_n;
            let design = TableDesign::auto(3, n).unwrap();
            let expected = design.expected_candidates_per_probe(n);
            println!(
                "| 2^{log_n} | `{}` | {} | {} | {} |",
                design.name(),
                design.tables().len(),
                design.min_prefix_bits(),
                expected
            );
            // The rule: within budget, and no design with fewer tables is.
            assert!(expected <= AUTO_CANDIDATES_PER_PROBE);
            for other in TableDesign::family(3).unwrap() {
                if other.tables().len() < design.tables().len() {
                    assert!(other.expected_candidates_per_probe(n) > AUTO_CANDIDATES_PER_PROBE);
                }
            }
            rows.push((design.name(), design.tables().len()));
        }
        // Matches the table in the rustdoc of `auto`.
        let names: Vec<_> = rows.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["split-4", "parts-2-3", "parts-2-4", "parts-2-7"]);
    }

    #[test]
    fn auto_works_for_every_k_and_size() {
        for k in 0..=super::super::MAX_K {
            let mut previous_tables = 0;
            for log_n in [0u32, 10, 16, 20, 24, 30, 34, 40, 63] {
                let design = TableDesign::auto(k, 1u64 << log_n).unwrap();
                assert_eq!(design.k(), k);
                assert!(design.tables().len() <= AUTO_MAX_TABLES);
                // More fingerprints never pick fewer tables.
                assert!(
                    design.tables().len() >= previous_tables,
                    "k={k} n=2^{log_n}"
                );
                previous_tables = design.tables().len();
            }
        }
        assert!(TableDesign::auto(8, 1).is_err());
    }

    #[test]
    fn family_is_sorted_and_within_limits() {
        for k in 0..=super::super::MAX_K {
            let family = TableDesign::family(k).unwrap();
            assert!(!family.is_empty());
            assert!(family
                .windows(2)
                .all(|pair| pair[0].tables().len() <= pair[1].tables().len()));
        }
    }
}
