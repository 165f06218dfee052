//! Pairs within `k` inside one long run of keys that already agree on
//! some leading bits, found by splitting the bits that still vary into
//! `k + 1` blocks, recursively: the paper's second level of tables, built
//! for one run instead of for the whole set.
//!
//! Two keys within `k` differ in at most `k` of the `k + 1` blocks, so
//! they agree on at least one; grouping the run by each block in turn and
//! comparing only keys in one group finds every pair, and a pair is
//! reported only by the first block it agrees on. Inside each group that
//! block's bits are dropped and the rest split again, until a group is
//! small enough to compare pair by pair. Each level costs `k + 1` sorts
//! and divides groups of random keys by `2^(bits / (k + 1))`, so a run of
//! `n` keys costs about `n log n` where comparing all pairs costs `n²`.

use crate::distance::within_distance;

/// Groups at most this long are compared pair by pair.
pub const PAIRWISE_MAX: usize = 96;

/// Calls `found(i, j, distance)` for every pair of positions in `packed`
/// whose keys differ in at most `k` bits, each pair once with `i < j`
/// not guaranteed. Only the top `bits` bits of each key may vary (the
/// rest are equal, e.g. zero). With `sides`, only pairs of one `true` and
/// one `false` position are reported.
pub fn pairs_within(
    packed: &[u64],
    sides: Option<&[bool]>,
    bits: u32,
    k: u32,
    found: &mut dyn FnMut(usize, usize, u32),
) {
    let blocks = k + 1;
    if packed.len() <= PAIRWISE_MAX || bits < blocks {
        pairwise(packed, sides, k, found);
        return;
    }
    let mut masks = Vec::with_capacity(blocks as usize);
    let mut start = 0;
    for block in 0..blocks {
        let width = bits / blocks + u32::from(block < bits % blocks);
        masks.push((start, width, range_mask(start, width)));
        start += width;
    }
    let mut order: Vec<usize> = (0..packed.len()).collect();
    let (mut group_packed, mut group_sides) = (Vec::new(), Vec::new());
    for (block, &(start, width, mask)) in masks.iter().enumerate() {
        let key = |&position: &usize| packed.get(position).map_or(0, |key| key & mask);
        order.sort_unstable_by_key(key);
        let earlier = masks.get(..block).unwrap_or(&[]);
        for group in order.chunk_by(|a, b| key(a) == key(b)) {
            if group.len() < 2 {
                continue;
            }
            group_packed.clear();
            group_packed.extend(
                group
                    .iter()
                    .map(|&i| without_range(packed.get(i).copied().unwrap_or(0), start, width)),
            );
            if let Some(sides) = sides {
                group_sides.clear();
                group_sides.extend(
                    group
                        .iter()
                        .map(|&i| sides.get(i).copied().unwrap_or(false)),
                );
            }
            let inner_sides = sides.map(|_| group_sides.as_slice());
            pairs_within(
                &group_packed,
                inner_sides,
                bits - width,
                k,
                &mut |x: usize, y: usize, distance: u32| {
                    let (Some(&i), Some(&j)) = (group.get(x), group.get(y)) else {
                        return;
                    };
                    let xor =
                        packed.get(i).copied().unwrap_or(0) ^ packed.get(j).copied().unwrap_or(0);
                    // Reported by an earlier block already.
                    if earlier.iter().any(|&(_, _, mask)| xor & mask == 0) {
                        return;
                    }
                    found(i, j, distance);
                },
            );
        }
    }
}

fn pairwise(
    packed: &[u64],
    sides: Option<&[bool]>,
    k: u32,
    found: &mut dyn FnMut(usize, usize, u32),
) {
    for (i, &a) in packed.iter().enumerate() {
        for (j, &b) in packed.iter().enumerate().skip(i + 1) {
            let xor = a ^ b;
            if !within_distance(xor, k) {
                continue;
            }
            if let Some(sides) = sides {
                if sides.get(i) == sides.get(j) {
                    continue;
                }
            }
            found(i, j, xor.count_ones());
        }
    }
}

/// The bits `start .. start + width` counted from the top.
fn range_mask(start: u32, width: u32) -> u64 {
    let ones = u64::MAX.checked_shr(64 - width).unwrap_or(0);
    ones.checked_shl(64 - start - width).unwrap_or(0)
}

/// `packed` with the bits `start .. start + width` removed and the lower
/// bits moved up to close the gap (zeros come in at the bottom).
fn without_range(packed: u64, start: u32, width: u32) -> u64 {
    let upper = packed & !u64::MAX.checked_shr(start).unwrap_or(0);
    let lower = packed.checked_shl(start + width).unwrap_or(0);
    upper | lower.checked_shr(start).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(keys: &[u64], sides: Option<&[bool]>, k: u32) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        pairwise(keys, sides, k, &mut |i, j, d| out.push((i, j, d)));
        out.sort_unstable();
        out
    }

    fn split(keys: &[u64], sides: Option<&[bool]>, bits: u32, k: u32) -> Vec<(usize, usize, u32)> {
        let mut out = Vec::new();
        pairs_within(keys, sides, bits, k, &mut |i, j, d| {
            out.push((i.min(j), i.max(j), d))
        });
        out.sort_unstable();
        out
    }

    /// Keys near a few bases, only the top `bits` bits varying.
    fn keys(seed: u64, count: usize, bits: u32) -> Vec<u64> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let keep = !u64::MAX.checked_shr(bits).unwrap_or(0);
        let bases: Vec<u64> = (0..count / 8 + 1).map(|_| next()).collect();
        let mut out: Vec<u64> = (0..count)
            .map(|i| {
                let mut key = bases[i % bases.len()];
                for _ in 0..next() % 5 {
                    key ^= 1 << (next() % 64);
                }
                key & keep
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn splitting_finds_exactly_the_pairs_of_comparing_all() {
        for (bits, k) in [(64, 3), (48, 3), (20, 3), (48, 0), (48, 1), (48, 5), (6, 3)] {
            let keys = keys(u64::from(bits * 10 + k), 3000, bits);
            let expected = brute(&keys, None, k);
            assert_eq!(split(&keys, None, bits, k), expected, "bits {bits} k {k}");
        }
    }

    #[test]
    fn splitting_across_sides_keeps_only_mixed_pairs() {
        let keys = keys(99, 2500, 48);
        let sides: Vec<bool> = (0..keys.len()).map(|i| i % 3 == 0).collect();
        let expected = brute(&keys, Some(&sides), 3);
        assert!(!expected.is_empty());
        assert_eq!(split(&keys, Some(&sides), 48, 3), expected);
    }

    #[test]
    fn removing_a_range_closes_the_gap() {
        let packed = 0xabcd_ef01_2345_6789;
        assert_eq!(without_range(packed, 0, 16), 0xef01_2345_6789_0000);
        assert_eq!(without_range(packed, 16, 16), 0xabcd_2345_6789_0000);
        assert_eq!(without_range(packed, 48, 16), 0xabcd_ef01_2345_0000);
        assert_eq!(range_mask(4, 8), 0x0ff0_0000_0000_0000);
        assert_eq!(range_mask(0, 64), u64::MAX);
    }
}
