//! The simhash vote: each feature's hash adds its weight to the bits it has
//! set and subtracts it from the bits it has clear.

use crate::{Fingerprint, WeakBits};

/// `SPREAD[b]` has one byte per bit of `b`: byte i (most significant first)
/// is bit i of `b` (most significant first), 0 or 1. Adding `SPREAD` of a
/// hash's byte to a `u64` counts eight bits at once in eight byte lanes.
#[expect(clippy::indexing_slicing, reason = "b < 256 indexes a 256-entry table")]
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut lanes = 0u64;
        let mut i = 0;
        while i < 8 {
            let bit = ((b >> (7 - i)) & 1) as u64;
            lanes |= bit << (56 - 8 * i);
            i += 1;
        }
        table[b] = lanes;
        b += 1;
    }
    table
};

/// Byte lanes overflow after 255 additions, so they are emptied by then.
const LANE_CAPACITY: u32 = 255;

/// `MASKS[b][i]` is all ones when bit i of `b` (most significant first) is
/// set, else 0: a weight masked by it is what that bit gains.
#[expect(
    clippy::indexing_slicing,
    reason = "b < 256 and i < 8 index their tables"
)]
const MASKS: [[u32; 8]; 256] = {
    let mut table = [[0u32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            if (b >> (7 - i)) & 1 == 1 {
                table[b][i] = u32::MAX;
            }
            i += 1;
        }
        b += 1;
    }
    table
};

/// Per-bit sums of signed feature weights.
///
/// Stored as "weight of features with the bit set" plus one running total,
/// so the signed sum is `2 * set - total`. Unit weights (term counts) take
/// a fast path that counts eight bits per table lookup in byte lanes and
/// empties the lanes into `set` every 255 features. Weights that fit 32
/// bits (learned weights, at most 97,665) add into 32-bit sums through
/// bit masks, without a branch or a 64-bit multiply per bit, and are
/// emptied into `set` before the sums could overflow. Both are tested to
/// agree with the general path.
#[derive(Debug, Clone)]
pub(crate) struct BitVotes {
    set: [i64; 64],
    total: i64,
    lanes: [u64; 8],
    in_lanes: u32,
    narrow: [u32; 64],
    /// The weight added to `narrow` since it was last emptied: no sum there
    /// is larger.
    in_narrow: u64,
}

impl Default for BitVotes {
    fn default() -> Self {
        BitVotes {
            set: [0; 64],
            total: 0,
            lanes: [0; 8],
            in_lanes: 0,
            narrow: [0; 64],
            in_narrow: 0,
        }
    }
}

impl BitVotes {
    /// Adds a feature with hash `hash` and weight `weight` (> 0).
    #[inline]
    pub(crate) fn add(&mut self, hash: u64, weight: i64) {
        if weight == 1 {
            return self.add_one(hash);
        }
        match u32::try_from(weight) {
            Ok(narrow) => self.add_narrow(hash, narrow),
            Err(_) => self.add_wide(hash, weight),
        }
    }

    /// Adds a feature of any weight, bit by bit.
    fn add_wide(&mut self, hash: u64, weight: i64) {
        for (bit, sum) in self.set.iter_mut().enumerate() {
            // Bit 0 of the array is the most significant bit of the hash.
            let is_set = i64::from(((hash >> (63 - bit)) & 1) == 1);
            *sum += is_set * weight;
        }
        self.total += weight;
    }

    /// Adds a feature of weight 1.
    #[inline]
    #[expect(clippy::indexing_slicing, reason = "a u8 indexes a 256-entry table")]
    fn add_one(&mut self, hash: u64) {
        for (byte, lane) in hash.to_be_bytes().iter().zip(&mut self.lanes) {
            *lane += SPREAD[usize::from(*byte)];
        }
        self.total += 1;
        self.in_lanes += 1;
        if self.in_lanes == LANE_CAPACITY {
            self.empty_lanes();
        }
    }

    /// Adds a feature whose weight fits 32 bits.
    #[inline]
    #[expect(clippy::indexing_slicing, reason = "a u8 indexes a 256-entry table")]
    fn add_narrow(&mut self, hash: u64, weight: u32) {
        if self.in_narrow + u64::from(weight) > u64::from(u32::MAX) {
            self.empty_narrow();
        }
        for (byte, sums) in hash
            .to_be_bytes()
            .iter()
            .zip(self.narrow.chunks_exact_mut(8))
        {
            for (sum, mask) in sums.iter_mut().zip(&MASKS[usize::from(*byte)]) {
                *sum += weight & mask;
            }
        }
        self.in_narrow += u64::from(weight);
        self.total += i64::from(weight);
    }

    fn empty_narrow(&mut self) {
        for (sum, narrow) in self.set.iter_mut().zip(&mut self.narrow) {
            *sum += i64::from(*narrow);
            *narrow = 0;
        }
        self.in_narrow = 0;
    }

    fn empty_lanes(&mut self) {
        for (lane, sums) in self.lanes.iter_mut().zip(self.set.chunks_exact_mut(8)) {
            for (count, sum) in lane.to_be_bytes().iter().zip(sums) {
                *sum += i64::from(*count);
            }
            *lane = 0;
        }
        self.in_lanes = 0;
    }

    /// Bit i of the fingerprint is 1 exactly when the signed sum is strictly
    /// positive. A zero sum (a tie, or no features at all) gives 0, so empty
    /// text has the fingerprint 0.
    pub(crate) fn fingerprint(&mut self) -> Fingerprint {
        self.empty_lanes();
        self.empty_narrow();
        let mut value = 0u64;
        for sum in self.set {
            let signed = 2 * sum - self.total;
            value = (value << 1) | u64::from(signed > 0);
        }
        Fingerprint(value)
    }

    /// Each bit's fingerprint and how far its signed sum is from a tie:
    /// the smaller, the more easily an edit flips the bit.
    pub(crate) fn fingerprint_and_weak_bits(
        &mut self,
        per_quarter: u32,
    ) -> (Fingerprint, WeakBits) {
        let fingerprint = self.fingerprint();
        let mut sizes = [0u64; 64];
        for (size, sum) in sizes.iter_mut().zip(self.set) {
            *size = (2 * sum - self.total).unsigned_abs();
        }
        (fingerprint, WeakBits::of_vote_sizes(&sizes, per_quarter))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain definition, one bit at a time.
    fn reference(features: &[(u64, i64)]) -> Fingerprint {
        let mut value = 0u64;
        for bit in 0..64 {
            let sum: i64 = features
                .iter()
                .map(|&(h, w)| if (h >> (63 - bit)) & 1 == 1 { w } else { -w })
                .sum();
            value = (value << 1) | u64::from(sum > 0);
        }
        Fingerprint(value)
    }

    #[test]
    fn weak_bits_are_the_closest_votes() {
        let mut votes = BitVotes::default();
        votes.add(u64::MAX, 3);
        // Bits 5 and 40 are won by 1, every other bit by 5.
        votes.add(!((1 << 58) | (1 << 23)), 2);
        let (fingerprint, weak) = votes.fingerprint_and_weak_bits(1);
        assert_eq!(fingerprint, Fingerprint(u64::MAX));
        assert_eq!(weak.0 & (1 << 58), 1 << 58);
        assert_eq!(weak.0 & (1 << 23), 1 << 23);
        assert_eq!(weak.0.count_ones(), 4);
    }

    #[test]
    fn empty_votes_give_zero() {
        assert_eq!(BitVotes::default().fingerprint(), Fingerprint(0));
    }

    #[test]
    fn one_feature_gives_its_hash() {
        for weight in [1, 3] {
            let mut votes = BitVotes::default();
            votes.add(0xdead_beef_0123_4567, weight);
            assert_eq!(votes.fingerprint(), Fingerprint(0xdead_beef_0123_4567));
        }
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

    #[test]
    fn narrow_weights_agree_with_the_definition() {
        let mut state = 0x0fed_cba9_8765_4321u64;
        // Learned weights (up to 97,665), weights that empty the 32-bit
        // sums every few features, and weights past 32 bits, mixed.
        for (count, most) in [
            (1usize, 97_665u64),
            (1000, 97_665),
            (50_000, 97_665),
            (300, 1 << 31),
            (300, 1 << 40),
        ] {
            let mut features = Vec::with_capacity(count);
            let mut votes = BitVotes::default();
            for i in 0..count {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let hash = state ^ (state >> 17) | 0x8000_0000_0000_0001;
                let weight = if i % 5 == 0 {
                    1
                } else {
                    1 + (state >> 7) % most
                };
                let weight = i64::try_from(weight).unwrap();
                features.push((hash, weight));
                votes.add(hash, weight);
            }
            let mut wide = BitVotes::default();
            for &(hash, weight) in &features {
                wide.add_wide(hash, weight);
            }
            assert_eq!(
                votes.fingerprint(),
                reference(&features),
                "{count} features"
            );
            assert_eq!(
                votes.clone().fingerprint_and_weak_bits(5),
                wide.fingerprint_and_weak_bits(5),
                "{count} features, weak bits"
            );
        }
    }

    #[test]
    fn fast_unit_path_agrees_with_the_definition() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for count in [1usize, 2, 254, 255, 256, 511, 1000, 3000] {
            let mut features = Vec::with_capacity(count);
            let mut votes = BitVotes::default();
            for i in 0..count {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Biased hashes, so that sums are far from ties in some bits
                // and close in others; every third feature is heavier.
                let hash = state ^ (state >> 17) | 0x8000_0000_0000_0001;
                let weight = if i % 3 == 0 { 2 } else { 1 };
                features.push((hash, weight));
                votes.add(hash, weight);
            }
            assert_eq!(
                votes.fingerprint(),
                reference(&features),
                "{count} features"
            );
        }
    }
}
