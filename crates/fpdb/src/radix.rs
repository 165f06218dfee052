//! Sorting millions of 64-bit keys (tables at load time, batches of
//! queries): a radix sort on the top bits, then a comparison sort of
//! each small bucket.
//!
//! A comparison sort of 10M keys takes ~0.7 s and eight LSD radix passes
//! still touch every key eight times; sorting on the top ~16 bits leaves
//! buckets of ~150 keys (for uniformly spread keys, which permuted
//! simhash fingerprints are) that sort in cache. Those bits are
//! scattered in two stable passes of at most 8 bits, the lower half
//! first: a pass writes to at most 256 places at once, which the caches
//! and the TLB hold, where one pass over 2^16 buckets wrote each key to
//! a page of its own (about twice the time at 100M keys).

/// Keys per bucket the scatter aims for.
const BUCKET_KEYS: usize = 64;
/// Most top bits sorted on (a 512 KiB count table at 2^16).
const MAX_BITS: u32 = 16;
/// Most bits one scatter pass sorts on.
const PASS_BITS: u32 = 8;

/// Sorts `items` by `(key, tie)`; items equal in both may come in any
/// order. `scratch` is reused between calls: one of the same length as
/// `items` costs no allocation and no page faults.
pub(crate) fn sort_by_key<'a, T: Copy + Default, K: Ord + 'a>(
    items: &mut Vec<T>,
    scratch: &mut Vec<T>,
    key: impl Fn(&T) -> u64,
    tie: impl Fn(&T) -> K + 'a,
) {
    // Ties are looked at only for equal keys (they may be costly to get).
    let compare = |a: &T, b: &T| key(a).cmp(&key(b)).then_with(|| tie(a).cmp(&tie(b)));
    let n = items.len();
    if n <= BUCKET_KEYS * 4 {
        items.sort_unstable_by(compare);
        return;
    }
    let bits = (usize::BITS - (n / BUCKET_KEYS).leading_zeros()).clamp(1, MAX_BITS);
    let shift = 64 - bits;
    // A key's top `bits` bits (at most MAX_BITS): its bucket.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "at most MAX_BITS bits are left after the shift"
    )]
    let bucket = |item: &T| (key(item) >> shift) as usize;
    let mut counts = vec![0usize; 1 << bits];
    for item in items.iter() {
        if let Some(count) = counts.get_mut(bucket(item)) {
            *count += 1;
        }
    }
    // Every slot is written by the scatter below, so a scratch reused at
    // the same length need not be cleared first.
    if scratch.len() != n {
        scratch.clear();
        scratch.resize(n, T::default());
    }
    if bits <= PASS_BITS {
        scatter(items, scratch, &counts, bucket);
        std::mem::swap(items, scratch);
    } else {
        // The lower half of the bucket bits, then (stably) the upper half.
        let low_bits = bits / 2;
        let low_mask = (1 << low_bits) - 1;
        let mut low = vec![0usize; 1 << low_bits];
        let mut high = vec![0usize; 1 << (bits - low_bits)];
        for (b, &count) in counts.iter().enumerate() {
            if let Some(c) = low.get_mut(b & low_mask) {
                *c += count;
            }
            if let Some(c) = high.get_mut(b >> low_bits) {
                *c += count;
            }
        }
        scatter(items, scratch, &low, |item| bucket(item) & low_mask);
        scatter(scratch, items, &high, |item| bucket(item) >> low_bits);
    }
    let mut start = 0;
    for &count in &counts {
        if let Some(bucket) = items.get_mut(start..start + count) {
            bucket.sort_unstable_by(compare);
        }
        start += count;
    }
}

/// Moves `from` into `to` stably by `digit`, whose values are the
/// indices of `counts` (how many items have each).
fn scatter<T: Copy>(from: &[T], to: &mut [T], counts: &[usize], digit: impl Fn(&T) -> usize) {
    // Counts to starts: a running sum (digit 0 starts at 0).
    let mut next: Vec<usize> = counts
        .iter()
        .scan(0, |total, &count| {
            let start = *total;
            *total += count;
            Some(start)
        })
        .collect();
    for item in from {
        if let Some(slot) = next.get_mut(digit(item)) {
            if let Some(target) = to.get_mut(*slot) {
                *target = *item;
            }
            *slot += 1;
        }
    }
}

/// Sorts plain keys ascending.
pub(crate) fn sort_u64(keys: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    sort_by_key(keys, scratch, |&k| k, |_| ());
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Enough keys for the scatter's two passes (more than 2^8 buckets),
    /// clustered so that some buckets are empty and others large, with
    /// ties broken by the second key.
    #[test]
    fn two_scatter_passes_sort_like_the_standard_library() {
        for n in [16_384usize, 70_001, 5_000_000] {
            let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
            let mut items: Vec<(u64, u32)> = (0..n)
                .map(|i| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // A third of the keys in one narrow range of the top bits.
                    let key = if i % 3 == 0 {
                        state >> 20 | 0x7a5 << 52
                    } else {
                        state
                    };
                    (key & !0xff, (state >> 40) as u32 % 7)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_unstable();
            let mut scratch = vec![(1, 1); n / 2];
            sort_by_key(&mut items, &mut scratch, |&(k, _)| k, |&(_, t)| t);
            assert_eq!(items, expected, "{n} items");
        }
    }

    proptest! {
        #[test]
        fn sorts_like_the_standard_library(mut keys in proptest::collection::vec(any::<u64>(), 0..3000)) {
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort_u64(&mut keys, &mut Vec::new());
            prop_assert_eq!(keys, expected);
        }

        #[test]
        fn a_reused_scratch_of_any_length_and_contents_sorts_alike(
            keys in proptest::collection::vec(any::<u64>(), 0..3000),
            stale in proptest::collection::vec(any::<u64>(), 0..4000),
        ) {
            let mut expected = keys.clone();
            expected.sort_unstable();
            let mut scratch = stale;
            let mut sorted = keys.clone();
            sort_u64(&mut sorted, &mut scratch);
            prop_assert_eq!(&sorted, &expected);
            // Once more with the scratch left by the first sort, now of
            // the same length.
            let mut again = keys;
            sort_u64(&mut again, &mut scratch);
            prop_assert_eq!(again, expected);
        }

        #[test]
        fn breaks_ties_by_the_second_key(pairs in proptest::collection::vec((0u64..4, 0u32..100), 0..3000)) {
            let mut items = pairs.clone();
            let mut expected = pairs;
            expected.sort();
            sort_by_key(&mut items, &mut Vec::new(), |&(k, _)| k << 62, |&(_, t)| t);
            prop_assert_eq!(items, expected);
        }
    }
}
