//! A document's weak bits: in each quarter of its fingerprint, the bits
//! whose simhash vote was closest to zero, which a small edit flips most
//! easily (after Sood and Loguinov, CIKM 2011). Two documents whose
//! fingerprints differ, in some quarter, only inside one document's weak
//! bits are within that document's reach: a query finds them by probing
//! the subsets of its weak bits in a table keyed by that quarter.

/// The fingerprint's four 16-bit quarters, most significant first.
pub const QUARTERS: [u64; 4] = [
    0xffff_0000_0000_0000,
    0x0000_ffff_0000_0000,
    0x0000_0000_ffff_0000,
    0x0000_0000_0000_ffff,
];

/// The most weak bits a quarter may have (so at most 256 probes a table).
pub const MAX_WEAK_BITS_PER_QUARTER: u32 = 8;

/// A cap on the weak bits a reach flips that caps nothing: every subset
/// of a quarter's weak bits.
pub const EVERY_SUBSET: u32 = MAX_WEAK_BITS_PER_QUARTER;

/// A mask of a fingerprint's weak bits, some in each quarter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WeakBits(pub u64);

impl WeakBits {
    /// The `per_quarter` bits of each quarter with the smallest vote size
    /// (`vote_sizes[i]` for bit `i`, 0 the most significant), ties to the
    /// more significant bit. `per_quarter` is capped at
    /// [`MAX_WEAK_BITS_PER_QUARTER`].
    pub fn of_vote_sizes(vote_sizes: &[u64; 64], per_quarter: u32) -> WeakBits {
        let per_quarter = per_quarter.min(MAX_WEAK_BITS_PER_QUARTER) as usize;
        let mut mask = 0u64;
        for quarter in vote_sizes.chunks_exact(16).enumerate() {
            let (index, sizes) = quarter;
            let mut bits: Vec<usize> = (0..16).collect();
            bits.sort_by_key(|&bit| (sizes.get(bit).copied().unwrap_or(u64::MAX), bit));
            for &bit in bits.iter().take(per_quarter) {
                mask |= 1u64 << (63 - (index * 16 + bit));
            }
        }
        WeakBits(mask)
    }

    /// Whether a fingerprint `xor` away (the XOR of the two) is within
    /// reach: in some quarter every differing bit is a weak bit, and at
    /// most `flips` of them differ ([`EVERY_SUBSET`] for any number).
    /// Anything within 3 bits is, since one quarter then differs nowhere.
    pub fn reaches(self, xor: u64, flips: u32) -> bool {
        QUARTERS.iter().any(|&quarter| {
            let differing = xor & quarter;
            differing & !self.0 == 0 && differing.count_ones() <= flips
        })
    }

    /// Every subset of at most `flips` of the weak bits inside `quarter`
    /// (a mask, one of [`QUARTERS`]; [`EVERY_SUBSET`] for all of them), in
    /// descending order, the empty one last: the flips that take a
    /// fingerprint's quarter to the quarters it reaches.
    pub fn subsets_in(self, quarter: u64, flips: u32) -> impl Iterator<Item = u64> {
        let bits = self.0 & quarter;
        let mut next = Some(bits);
        std::iter::from_fn(move || {
            let subset = next?;
            next = (subset != 0).then(|| (subset - 1) & bits);
            Some(subset)
        })
        .filter(move |subset| subset.count_ones() <= flips)
    }

    /// The mask's 8 bytes, big-endian, as stored.
    pub fn to_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Reads [`WeakBits::to_bytes`].
    pub fn from_bytes(bytes: [u8; 8]) -> WeakBits {
        WeakBits(u64::from_be_bytes(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_quarter_keeps_its_smallest_votes() {
        let mut sizes = [100u64; 64];
        for (bit, size) in [(2, 1), (5, 2), (9, 3), (60, 0), (61, 0), (63, 1)] {
            sizes[bit] = size;
        }
        let weak = WeakBits::of_vote_sizes(&sizes, 3);
        let bit = |i: u32| 1u64 << (63 - i);
        assert_eq!(weak.0 & QUARTERS[0], bit(2) | bit(5) | bit(9));
        assert_eq!(weak.0 & QUARTERS[3], bit(60) | bit(61) | bit(63));
        // Ties in the middle quarters go to the more significant bits.
        assert_eq!(weak.0 & QUARTERS[1], bit(16) | bit(17) | bit(18));
        assert_eq!(weak.0.count_ones(), 12);
        assert_eq!(WeakBits::of_vote_sizes(&sizes, 99).0.count_ones(), 32);
        assert_eq!(WeakBits::from_bytes(weak.to_bytes()), weak);
    }

    #[test]
    fn reach_is_a_quarter_differing_only_in_weak_bits() {
        let bit = |i: u32| 1u64 << (63 - i);
        let weak = WeakBits(bit(2) | bit(9) | bit(11) | bit(20));
        let elsewhere = bit(40) | bit(50) | bit(60);
        let every = EVERY_SUBSET;
        assert!(weak.reaches(0, every));
        assert!(
            weak.reaches(elsewhere, every),
            "quarters 0 and 1 differ nowhere"
        );
        assert!(weak.reaches(
            bit(2) | bit(9) | bit(17) | bit(40) | bit(50) | bit(60),
            every
        ));
        assert!(!weak.reaches(bit(3) | bit(17) | elsewhere, every));
        assert!(weak.reaches(bit(20) | bit(3) | elsewhere, every));
        // At most two flipped: three weak bits of one quarter do not reach.
        let three = bit(2) | bit(9) | bit(11) | bit(17) | elsewhere;
        assert!(weak.reaches(three, every));
        assert!(weak.reaches(three, 3));
        assert!(!weak.reaches(three, 2));
        assert!(weak.reaches(bit(2) | bit(11) | bit(17) | elsewhere, 2));
        assert!(weak.reaches(elsewhere, 0), "a quarter differing nowhere");
        assert!(!weak.reaches(bit(2) | bit(17) | elsewhere, 0));
    }

    #[test]
    fn subsets_in_a_quarter_are_each_flip_once() {
        let bit = |i: u32| 1u64 << (63 - i);
        let weak = WeakBits(bit(2) | bit(9) | bit(11) | bit(20));
        let mut subsets: Vec<u64> = weak.subsets_in(QUARTERS[0], EVERY_SUBSET).collect();
        assert_eq!(subsets.len(), 8);
        assert_eq!(subsets.first(), Some(&(bit(2) | bit(9) | bit(11))));
        assert_eq!(subsets.last(), Some(&0));
        subsets.sort_unstable();
        subsets.dedup();
        assert_eq!(subsets.len(), 8);
        assert!(subsets
            .iter()
            .all(|&s| s & !(bit(2) | bit(9) | bit(11)) == 0));
        assert_eq!(
            weak.subsets_in(QUARTERS[2], EVERY_SUBSET)
                .collect::<Vec<_>>(),
            [0]
        );
        // Capped: the subsets of at most that many bits, nothing else.
        let capped: Vec<u64> = weak.subsets_in(QUARTERS[0], 1).collect();
        assert_eq!(capped, [bit(2), bit(9), bit(11), 0]);
        assert_eq!(weak.subsets_in(QUARTERS[0], 2).count(), 7);
        // Each capped subset reaches under the same cap.
        for subset in weak.subsets_in(QUARTERS[0], 2) {
            assert!(weak.reaches(subset | elsewhere_of(0), 2));
        }
    }

    /// A difference in every quarter but `keep`'s, outside any weak bit.
    fn elsewhere_of(keep: usize) -> u64 {
        QUARTERS
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != keep)
            .map(|(_, q)| q & 0x8000_8000_8000_8000)
            .fold(0, |a, b| a | b)
    }
}
