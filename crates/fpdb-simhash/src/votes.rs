//! The simhash vote: each feature's hash adds its weight to the bits it has
//! set and subtracts it from the bits it has clear.

use crate::Fingerprint;

/// Per-bit sums of signed feature weights.
///
/// Stored as "weight of features with the bit set" plus one running total,
/// so adding a feature is one masked add per bit, which the compiler turns
/// into vector code; the signed sum is `2 * set - total`.
#[derive(Debug, Clone)]
pub(crate) struct BitVotes {
    set: [i64; 64],
    total: i64,
}

impl Default for BitVotes {
    fn default() -> Self {
        BitVotes {
            set: [0; 64],
            total: 0,
        }
    }
}

impl BitVotes {
    /// Adds a feature with hash `hash` and weight `weight` (> 0).
    #[inline]
    pub(crate) fn add(&mut self, hash: u64, weight: i64) {
        for (bit, sum) in self.set.iter_mut().enumerate() {
            // Bit 0 of the array is the most significant bit of the hash.
            let is_set = ((hash >> (63 - bit)) & 1) as i64;
            *sum += is_set * weight;
        }
        self.total += weight;
    }

    /// Bit i of the fingerprint is 1 exactly when the signed sum is strictly
    /// positive. A zero sum (a tie, or no features at all) gives 0, so empty
    /// text has the fingerprint 0.
    pub(crate) fn fingerprint(&self) -> Fingerprint {
        let mut value = 0u64;
        for sum in self.set {
            let signed = 2 * sum - self.total;
            value = (value << 1) | u64::from(signed > 0);
        }
        Fingerprint(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_votes_give_zero() {
        assert_eq!(BitVotes::default().fingerprint(), Fingerprint(0));
    }

    #[test]
    fn one_feature_gives_its_hash() {
        let mut votes = BitVotes::default();
        votes.add(0xdead_beef_0123_4567, 3);
        assert_eq!(votes.fingerprint(), Fingerprint(0xdead_beef_0123_4567));
    }

    #[test]
    fn heavier_feature_wins_and_ties_give_zero() {
        let mut votes = BitVotes::default();
        votes.add(u64::MAX, 2);
        votes.add(0, 1);
        assert_eq!(votes.fingerprint(), Fingerprint(u64::MAX));
        votes.add(0, 1);
        assert_eq!(votes.fingerprint(), Fingerprint(0), "a tie is a 0 bit");
    }
}
