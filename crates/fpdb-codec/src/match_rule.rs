//! The one match rule every probe, batch walk and pair scan applies to
//! the keys of one table, in memory ([`crate::MemIndex`]) and in the store
//! alike.
//!
//! Keys are compared permuted (a bit permutation keeps the popcount of an
//! XOR, so only matches are mapped back), and a match is reported only by
//! the **first table in which the two fingerprints share the prefix**
//! ([`TableDesign::first_table_sharing`]): every match is found in at
//! least one table, and reported by exactly one, so no answer needs
//! de-duplicating.

use fpdb_fingerprint::Fingerprint;

use crate::design::TableDesign;
use crate::distance::within_distance;
use crate::permutation::Permutation;

/// The match rule for table `index` of a design, at distance `k`.
#[derive(Debug, Clone, Copy)]
pub struct TableMatcher<'a> {
    design: &'a TableDesign,
    permutation: &'a Permutation,
    index: usize,
    k: u32,
}

impl<'a> TableMatcher<'a> {
    /// The rule for table `index` of `design`; `None` when the design has
    /// no such table.
    pub fn new(design: &'a TableDesign, index: usize, k: u32) -> Option<Self> {
        let permutation = design.tables().get(index)?.permutation();
        Some(TableMatcher {
            design,
            permutation,
            index,
            k,
        })
    }

    /// The table's permutation.
    pub fn permutation(&self) -> &'a Permutation {
        self.permutation
    }

    /// A stored `key` of this table against a query (`permuted` is the
    /// query under this table's permutation): the stored fingerprint and
    /// its distance when it is within `k` and this table reports it.
    #[inline(always)]
    pub fn probe(&self, key: u64, permuted: u64, query: Fingerprint) -> Option<(Fingerprint, u32)> {
        let xor = key ^ permuted;
        if !within_distance(xor, self.k) {
            return None;
        }
        let stored = self.permutation.inverse(key);
        (self.design.first_table_sharing(stored ^ query.0) == Some(self.index))
            .then_some((Fingerprint(stored), xor.count_ones()))
    }

    /// Two stored keys of this table: the pair (smaller fingerprint first)
    /// and its distance when they are within `k` and this table reports
    /// them.
    #[inline(always)]
    pub fn pair(&self, a: u64, b: u64) -> Option<(Fingerprint, Fingerprint, u32)> {
        let xor = a ^ b;
        if !within_distance(xor, self.k) {
            return None;
        }
        if self
            .design
            .first_table_sharing(self.permutation.inverse(xor))
            != Some(self.index)
        {
            return None;
        }
        let (x, y) = (self.permutation.inverse(a), self.permutation.inverse(b));
        Some((
            Fingerprint(x.min(y)),
            Fingerprint(x.max(y)),
            xor.count_ones(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over every pair of a small set, each pair within k is reported by
    /// exactly one table, by `probe` and by `pair` alike, and nothing
    /// farther is.
    #[test]
    fn each_near_pair_is_reported_by_exactly_one_table() {
        let design = TableDesign::from_name(3, "4x16").unwrap();
        let base = 0x0123_4567_89ab_cdefu64;
        let fps: Vec<u64> = [
            0u64,
            1,
            0b11,
            0b111,
            0b1111,
            1 << 63,
            (1 << 40) | 1,
            u64::MAX,
        ]
        .iter()
        .map(|flip| base ^ flip)
        .collect();
        for &a in &fps {
            for &b in &fps {
                let distance = (a ^ b).count_ones();
                let mut by_probe = 0;
                let mut by_pair = 0;
                for index in 0..design.tables().len() {
                    let matcher = TableMatcher::new(&design, index, 3).unwrap();
                    let p = matcher.permutation();
                    let (pa, pb) = (p.permute(a), p.permute(b));
                    // Only keys sharing the prefix are ever compared.
                    if !design.tables()[index].shares_prefix(a ^ b) {
                        continue;
                    }
                    if let Some((found, d)) = matcher.probe(pb, pa, Fingerprint(a)) {
                        assert_eq!((found, d), (Fingerprint(b), distance));
                        by_probe += 1;
                    }
                    if let Some((x, y, d)) = matcher.pair(pa, pb) {
                        assert_eq!((x.0, y.0, d), (a.min(b), a.max(b), distance));
                        by_pair += 1;
                    }
                }
                let expected = usize::from(distance <= 3);
                assert_eq!((by_probe, by_pair), (expected, expected), "{a:x} {b:x}");
            }
        }
        assert!(TableMatcher::new(&design, 4, 3).is_none());
    }
}
