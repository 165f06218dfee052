//! The Hamming-distance test a query makes on every decoded key.

/// The largest `k` tested by clearing bits one by one; past it, a
/// software popcount (a dozen independent instructions) costs less.
const CLEARING_MAX_K: u32 = 4;

/// Whether `xor` (two fingerprints XORed, in any bit order) has at most `k`
/// bits set, i.e. whether they lie within distance `k`.
///
/// The build targets x86-64's baseline, which has no popcount instruction,
/// and the test runs once per decoded key. Up to [`CLEARING_MAX_K`],
/// clearing the lowest set bit `k` times leaves zero exactly then: two
/// instructions per bit of `k`, fewer than a software popcount. At the
/// wide radii of two-stage matching (12 to 16 bits) those instructions
/// form a chain twice as slow as the popcount (`benches/benches/distance.rs`).
#[inline(always)]
pub fn within_distance(xor: u64, k: u32) -> bool {
    if k > CLEARING_MAX_K {
        return xor.count_ones() <= k;
    }
    let mut rest = xor;
    for _ in 0..k {
        rest &= rest.wrapping_sub(1);
    }
    rest == 0
}

/// Keys [`for_each_within`] tests at a time.
const LANES: usize = 8;

/// Calls `each(key)` for every key of `keys` within distance `k` of
/// `query`, in order. A batch walk compares each probe with the ~150 keys
/// of its prefix; testing eight at a time into a bit mask lets the
/// compiler use vector popcounts, twice as fast as a test and a branch
/// per key at radius 14 (`benches/benches/distance.rs`).
pub fn for_each_within(keys: &[u64], query: u64, k: u32, mut each: impl FnMut(u64)) {
    let mut chunks = keys.chunks_exact(LANES);
    for chunk in &mut chunks {
        let mut near = 0u32;
        for (lane, &key) in chunk.iter().enumerate() {
            near |= u32::from((key ^ query).count_ones() <= k) << lane;
        }
        while near != 0 {
            if let Some(&key) = chunk.get(near.trailing_zeros() as usize) {
                each(key);
            }
            near &= near - 1;
        }
    }
    for &key in chunks.remainder() {
        if within_distance(key ^ query, k) {
            each(key);
        }
    }
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
        fn agrees_with_popcount(xor in any::<u64>(), sparse in any::<u64>(), k in 0u32..=20) {
            // Sparse values (an AND of three random words) have few bits
            // set, so both answers occur.
            let sparse = xor & sparse & sparse.rotate_left(17);
            for value in [xor, sparse] {
                prop_assert_eq!(within_distance(value, k), value.count_ones() <= k);
            }
        }

        #[test]
        fn for_each_within_finds_what_a_filter_finds(
            keys in proptest::collection::vec(any::<u64>(), 0..40),
            query in any::<u64>(),
            near in proptest::collection::vec((0usize..40, any::<u64>()), 0..10),
            k in 0u32..=64,
        ) {
            // Some keys made near the query, so both answers occur.
            let mut keys = keys;
            for (at, noise) in near {
                if let Some(key) = keys.get_mut(at) {
                    *key = query ^ (noise & noise.rotate_left(23) & noise.rotate_left(41));
                }
            }
            let mut found = Vec::new();
            for_each_within(&keys, query, k, |key| found.push(key));
            let expected: Vec<u64> = keys
                .iter()
                .copied()
                .filter(|key| (key ^ query).count_ones() <= k)
                .collect();
            prop_assert_eq!(found, expected);
        }
    }
}
