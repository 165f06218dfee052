//! The Hamming-distance test a query makes on every decoded key.

/// Whether `xor` (two fingerprints XORed, in any bit order) has at most `k`
/// bits set, i.e. whether they lie within distance `k`.
///
/// Clearing the lowest set bit `k` times leaves zero exactly then. The
/// build targets x86-64's baseline, which has no popcount instruction, and
/// the test runs once per decoded key: two instructions per bit of `k`
/// cost less there than a software popcount.
#[inline(always)]
pub fn within_distance(xor: u64, k: u32) -> bool {
    let mut rest = xor;
    for _ in 0..k {
        rest &= rest.wrapping_sub(1);
    }
    rest == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges() {
        assert!(within_distance(0, 0));
        assert!(!within_distance(1, 0));
        assert!(within_distance(u64::MAX, 64));
        assert!(!within_distance(u64::MAX, 63));
        assert!(within_distance(0b1011, 3));
        assert!(!within_distance(0b1011, 2));
    }

    proptest! {
        #[test]
        fn agrees_with_popcount(xor in any::<u64>(), sparse in any::<u64>(), k in 0u32..=8) {
            // Sparse values (an AND of three random words) have few bits
            // set, so both answers occur.
            let sparse = xor & sparse & sparse.rotate_left(17);
            for value in [xor, sparse] {
                prop_assert_eq!(within_distance(value, k), value.count_ones() <= k);
            }
        }
    }
}
