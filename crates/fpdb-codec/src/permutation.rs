//! Bit permutations that bring chosen bit blocks of a fingerprint to the top.
//!
//! Bits are numbered from the most significant: bit 0 is the top bit of the
//! `u64`. A [`Permutation`] takes a list of disjoint [`BitRange`]s of the
//! original value, places them at the top in the order given, and lets the
//! remaining bits follow in their original order. Sorting permuted values then
//! groups fingerprints that agree on the chosen blocks.
//!
//! Speed matters (every query permutes once per table, and every candidate is
//! permuted back), so the permutation is compiled into a handful of
//! `(mask, rotation)` moves: all source bits that travel the same distance
//! share one move, so `permute` is `OR` over `(x & mask).rotate_left(r)`.
//! Rotation handles moves up and down alike because no block wraps around.

use crate::error::DesignError;

/// A contiguous run of bits of the original fingerprint, counted from the
/// most significant bit (bit 0) downwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BitRange {
    /// First bit (0 = most significant).
    pub start: u8,
    /// Number of bits, at least 1.
    pub len: u8,
}

impl BitRange {
    /// The range `start .. start + len`.
    pub const fn new(start: u8, len: u8) -> Self {
        BitRange { start, len }
    }

    /// One past the last bit.
    pub const fn end(self) -> u32 {
        self.start as u32 + self.len as u32
    }

    /// The range as a mask over the `u64` (bit 0 is `1 << 63`).
    pub const fn mask(self) -> u64 {
        if self.len == 0 {
            return 0;
        }
        let ones = if self.len >= 64 {
            u64::MAX
        } else {
            (1u64 << self.len) - 1
        };
        ones << (64 - self.end())
    }
}

/// One step of a compiled permutation: source bits under `source_mask`
/// rotate left by `rotation` to land under `destination_mask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Move {
    source_mask: u64,
    destination_mask: u64,
    rotation: u32,
}

/// A bit permutation moving chosen bit ranges to the top (see module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    /// The ranges brought to the top, in destination order.
    ranges: Vec<BitRange>,
    /// `destinations[b]` = where original bit `b` goes (both MSB-indexed).
    destinations: [u8; 64],
    moves: Vec<Move>,
}

impl Permutation {
    /// The identity permutation (no range moved).
    pub fn identity() -> Self {
        // An empty range list is always valid.
        match Self::moving_to_top(&[]) {
            Ok(permutation) => permutation,
            Err(_) => unreachable!("the empty range list is valid"),
        }
    }

    /// Moves `ranges` (disjoint, non-empty, within 0..64) to the top in the
    /// given order; the other bits follow in original order.
    pub fn moving_to_top(ranges: &[BitRange]) -> Result<Self, DesignError> {
        let mut taken = 0u64;
        for range in ranges {
            if range.len == 0 || range.end() > 64 {
                return Err(DesignError::BadRanges {
                    reason: format!("range {range:?} is empty or beyond bit 63"),
                });
            }
            if taken & range.mask() != 0 {
                return Err(DesignError::BadRanges {
                    reason: format!("range {range:?} overlaps an earlier one"),
                });
            }
            taken |= range.mask();
        }
        let mut destinations = [0u8; 64];
        let rest = (0u8..64).filter(|&bit| taken & bit_mask(bit) == 0);
        let chosen = ranges.iter().flat_map(|r| r.start..r.start + r.len);
        for (destination, source) in (0u8..).zip(chosen.chain(rest)) {
            if let Some(slot) = destinations.get_mut(usize::from(source)) {
                *slot = destination;
            }
        }
        Ok(Permutation {
            ranges: ranges.to_vec(),
            moves: compile_moves(&destinations),
            destinations,
        })
    }

    /// The ranges moved to the top, in destination order.
    pub fn ranges(&self) -> &[BitRange] {
        &self.ranges
    }

    /// Where original bit `bit` (0 = MSB) lands; `None` if `bit >= 64`.
    pub fn destination_of(&self, bit: u32) -> Option<u32> {
        self.destinations
            .get(bit as usize)
            .map(|&dest| u32::from(dest))
    }

    /// Number of `(mask, rotation)` steps `permute` takes.
    pub fn move_count(&self) -> usize {
        self.moves.len()
    }

    /// Applies the permutation.
    #[inline]
    pub fn permute(&self, value: u64) -> u64 {
        self.moves.iter().fold(0, |acc, step| {
            acc | (value & step.source_mask).rotate_left(step.rotation)
        })
    }

    /// Undoes [`Permutation::permute`].
    #[inline]
    pub fn inverse(&self, value: u64) -> u64 {
        self.moves.iter().fold(0, |acc, step| {
            acc | (value & step.destination_mask).rotate_right(step.rotation)
        })
    }
}

/// The mask of MSB-indexed bit `bit`.
pub(crate) const fn bit_mask(bit: u8) -> u64 {
    1u64 << (63 - bit)
}

/// Groups source bits by how far they travel; one move per distance.
fn compile_moves(destinations: &[u8; 64]) -> Vec<Move> {
    let mut masks_by_rotation = [0u64; 64];
    for (source, &destination) in (0u8..).zip(destinations.iter()) {
        // Moving towards bit 0 (the MSB) is a left rotation.
        let rotation = (u32::from(source) + 64 - u32::from(destination)) % 64;
        if let Some(mask) = masks_by_rotation.get_mut(rotation as usize) {
            *mask |= bit_mask(source);
        }
    }
    (0u32..)
        .zip(masks_by_rotation)
        .filter(|&(_, mask)| mask != 0)
        .map(|(rotation, source_mask)| Move {
            source_mask,
            destination_mask: source_mask.rotate_left(rotation),
            rotation,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit-by-bit definition, independent of the compiled moves.
    fn permute_reference(permutation: &Permutation, value: u64) -> u64 {
        let mut out = 0u64;
        for bit in 0u8..64 {
            if value & bit_mask(bit) != 0 {
                let destination = permutation.destination_of(u32::from(bit)).unwrap();
                out |= bit_mask(u8::try_from(destination).unwrap());
            }
        }
        out
    }

    /// Random disjoint ranges in random order.
    fn arbitrary_ranges() -> impl Strategy<Value = Vec<BitRange>> {
        (
            proptest::collection::vec(1u8..=16, 0..8),
            any::<u64>(),
            any::<u64>(),
        )
            .prop_map(|(lengths, gaps, order)| {
                let mut ranges = Vec::new();
                let mut cursor = 0u32;
                for (i, len) in lengths.into_iter().enumerate() {
                    let gap = ((gaps >> (i * 3)) & 7) as u32;
                    let start = cursor + gap;
                    if start + u32::from(len) > 64 {
                        break;
                    }
                    ranges.push(BitRange::new(u8::try_from(start).unwrap(), len));
                    cursor = start + u32::from(len);
                }
                // Shuffle deterministically from `order`.
                let mut state = order | 1;
                for i in (1..ranges.len()).rev() {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ranges.swap(i, usize::try_from(state % (i as u64 + 1)).unwrap());
                }
                ranges
            })
    }

    proptest! {
        #[test]
        fn permute_matches_reference_and_inverts(ranges in arbitrary_ranges(), values in proptest::collection::vec(any::<u64>(), 1..50)) {
            let permutation = Permutation::moving_to_top(&ranges).unwrap();
            for value in values {
                let permuted = permutation.permute(value);
                prop_assert_eq!(permuted, permute_reference(&permutation, value));
                prop_assert_eq!(permutation.inverse(permuted), value);
                prop_assert_eq!(permuted.count_ones(), value.count_ones());
            }
        }

        #[test]
        fn destinations_are_a_bijection_with_ranges_on_top(ranges in arbitrary_ranges()) {
            let permutation = Permutation::moving_to_top(&ranges).unwrap();
            let mut seen = 0u64;
            for bit in 0..64 {
                seen |= 1u64 << permutation.destination_of(bit).unwrap();
            }
            prop_assert_eq!(seen, u64::MAX);
            let mut next = 0;
            for range in &ranges {
                for bit in range.start..range.start + range.len {
                    prop_assert_eq!(permutation.destination_of(u32::from(bit)), Some(next));
                    next += 1;
                }
            }
        }
    }

    #[test]
    fn single_bits_land_where_the_ranges_say() {
        let permutation =
            Permutation::moving_to_top(&[BitRange::new(48, 16), BitRange::new(0, 4)]).unwrap();
        // Bit 48 goes to the top, bit 0 follows the 16 moved bits.
        assert_eq!(permutation.permute(bit_mask(48)), bit_mask(0));
        assert_eq!(permutation.permute(bit_mask(0)), bit_mask(16));
        // Bit 4 is the first unmoved bit: it follows both ranges.
        assert_eq!(permutation.permute(bit_mask(4)), bit_mask(20));
        assert_eq!(permutation.permute(bit_mask(47)), bit_mask(63));
    }

    #[test]
    fn identity_is_one_move_and_does_nothing() {
        let identity = Permutation::identity();
        assert_eq!(identity.move_count(), 1);
        assert_eq!(
            identity.permute(0x0123_4567_89ab_cdef),
            0x0123_4567_89ab_cdef
        );
    }

    #[test]
    fn invalid_ranges_are_rejected() {
        assert!(Permutation::moving_to_top(&[BitRange::new(60, 5)]).is_err());
        assert!(Permutation::moving_to_top(&[BitRange::new(3, 0)]).is_err());
        assert!(Permutation::moving_to_top(&[BitRange::new(0, 10), BitRange::new(9, 2)]).is_err());
    }

    #[test]
    fn moves_with_equal_distance_are_merged() {
        // Four 16-bit blocks, the third moved up: the first two shift down by
        // the same 16 bits, so three moves in all.
        let permutation = Permutation::moving_to_top(&[BitRange::new(32, 16)]).unwrap();
        assert_eq!(permutation.move_count(), 3);
    }
}
