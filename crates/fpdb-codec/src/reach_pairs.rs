//! The pairs of a corpus that weak bits reach: every pair within a radius
//! where the earlier document's weak bits reach the later one
//! ([`WeakBits::reaches`]), found as a query probing its weak bits finds
//! them, by looking up, per quarter, the fingerprints whose quarter is the
//! document's with a subset of its weak bits flipped.

use fpdb_fingerprint::{Fingerprint, WeakBits, QUARTERS};

use crate::dedup::DocPair;

/// Every pair `a < b` of positions within `radius` whose fingerprints
/// differ, in some quarter, only in at most `flips` of `weak[a]`'s bits
/// (documents without weak bits reach nothing, but are reached), each
/// once, sorted by `(a, b)`.
pub fn reach_pairs(
    fingerprints: &[Fingerprint],
    weak: &[Option<WeakBits>],
    radius: u32,
    flips: u32,
) -> Vec<DocPair> {
    let mut pairs = Vec::new();
    for (index, &quarter) in QUARTERS.iter().enumerate() {
        let shift = 48 - 16 * index;
        let key = |fp: Fingerprint| (fp.0 & quarter) >> shift;
        // Positions sorted by this quarter's bits.
        let mut by_quarter: Vec<(u64, usize)> = fingerprints
            .iter()
            .enumerate()
            .map(|(position, &fp)| (key(fp), position))
            .collect();
        by_quarter.sort_unstable();
        for (a, (&fp, weak)) in fingerprints.iter().zip(weak).enumerate() {
            let Some(weak) = weak else { continue };
            for subset in weak.subsets_in(quarter, flips) {
                let wanted = key(Fingerprint(fp.0 ^ subset));
                let start = by_quarter.partition_point(|&(k, _)| k < wanted);
                let equal = by_quarter.get(start..).unwrap_or_default();
                for &(_, b) in equal.iter().take_while(|&&(k, _)| k == wanted) {
                    let distance = fingerprints
                        .get(b)
                        .map_or(u32::MAX, |other| fp.distance(*other));
                    if b > a && distance <= radius {
                        pairs.push(DocPair { a, b, distance });
                    }
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_pairs_equal_brute_force() {
        let mut rng = fpdb_testkit::Rng::new(0x9e37);
        let mut next = move || rng.next_u64();
        let bases: Vec<u64> = (0..6).map(|_| next()).collect();
        let fingerprints: Vec<Fingerprint> = (0..300)
            .map(|i| {
                let base = bases[i % bases.len()];
                // A few bits flipped, more often in the top quarters.
                let noise = next() & next() & next() & next();
                Fingerprint(base ^ noise)
            })
            .collect();
        let weak: Vec<Option<WeakBits>> = (0..fingerprints.len())
            .map(|i| (i % 7 != 0).then(|| WeakBits(next() & next())))
            .collect();
        for flips in [0, 1, 2, fpdb_fingerprint::EVERY_SUBSET] {
            for radius in [0, 3, 8, 12, 20, 64] {
                let mut expected = Vec::new();
                for a in 0..fingerprints.len() {
                    for b in a + 1..fingerprints.len() {
                        let xor = fingerprints[a].0 ^ fingerprints[b].0;
                        let distance = xor.count_ones();
                        if distance <= radius && weak[a].is_some_and(|w| w.reaches(xor, flips)) {
                            expected.push(DocPair { a, b, distance });
                        }
                    }
                }
                assert!(radius < 8 || !expected.is_empty());
                assert_eq!(
                    reach_pairs(&fingerprints, &weak, radius, flips),
                    expected,
                    "radius {radius}, flips {flips}"
                );
            }
        }
    }
}
