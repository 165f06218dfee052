//! One table's added keys in the delta, bucketed by their top bits.
//!
//! A query probes the delta once per table with a prefix range, and every
//! insert adds a key per table. In one `BTreeSet` of the whole delta (up to
//! 1/8 of the set: 1,250,000 keys at 10M) each of those walks six or more
//! nodes, most of them cache misses; B-tree inserts were 8 % of a 10M
//! online build. Here the top bits of a key pick a bucket directly, so a
//! probe or an insert touches one bucket of a few dozen keys. A bucket is
//! a sorted vector (8 bytes a key) until it grows large, then a
//! `BTreeSet`: keys that cluster (near-duplicate pages share prefixes)
//! make one bucket deeper, never an insert slower than a B-tree's.

use std::collections::BTreeSet;

/// At most 2^16 buckets (2 MiB of empty buckets per table).
const MAX_BUCKET_BITS: u32 = 16;

/// About this many keys per bucket when the delta is full.
const KEYS_PER_BUCKET: usize = 8;

/// A sorted vector bucket past this many keys becomes a B-tree.
const LARGE_BUCKET: usize = 256;

/// One bucket's keys.
#[derive(Debug, Clone)]
enum Bucket {
    Small(Vec<u64>),
    Large(BTreeSet<u64>),
}

impl Bucket {
    fn insert(&mut self, key: u64) -> bool {
        match self {
            Bucket::Small(keys) => {
                let Err(at) = keys.binary_search(&key) else {
                    return false;
                };
                keys.insert(at, key);
                if keys.len() > LARGE_BUCKET {
                    *self = Bucket::Large(keys.iter().copied().collect());
                }
                true
            }
            Bucket::Large(set) => set.insert(key),
        }
    }

    fn remove(&mut self, key: u64) -> bool {
        match self {
            Bucket::Small(keys) => match keys.binary_search(&key) {
                Ok(at) => {
                    keys.remove(at);
                    true
                }
                Err(_) => false,
            },
            Bucket::Large(set) => set.remove(&key),
        }
    }

    fn contains(&self, key: u64) -> bool {
        match self {
            Bucket::Small(keys) => keys.binary_search(&key).is_ok(),
            Bucket::Large(set) => set.contains(&key),
        }
    }

    /// Keys in `[lo, hi]` (`lo ≤ hi`), ascending.
    fn range(&self, lo: u64, hi: u64) -> impl Iterator<Item = u64> + '_ {
        let (small, large) = match self {
            Bucket::Small(keys) => (Some(keys_within(keys, lo, hi)), None),
            Bucket::Large(set) => (None, Some(set.range(lo..=hi))),
        };
        let small = small.into_iter().flatten().copied();
        small.chain(large.into_iter().flatten().copied())
    }
}

/// The keys of ascending `keys` in `[lo, hi]`: found by two binary
/// searches, as one slice (a batch walk copies a block's whole prefix
/// group at once rather than testing each key).
#[expect(
    clippy::indexing_slicing,
    reason = "partition points are at most keys.len(), and end is at least start"
)]
pub(crate) fn keys_within(keys: &[u64], lo: u64, hi: u64) -> &[u64] {
    let start = keys.partition_point(|&key| key < lo);
    let end = keys.partition_point(|&key| key <= hi).max(start);
    &keys[start..end]
}

#[derive(Debug, Clone)]
pub(crate) struct AddedKeys {
    /// Bucket `b` holds the keys whose top bits are `b`; empty (no
    /// allocation) until the first key arrives.
    buckets: Vec<Bucket>,
    bucket_bits: u32,
    len: usize,
}

impl AddedKeys {
    /// Keys of a table whose probes share the top `prefix_bits` bits, for a
    /// delta expected to reach `capacity` keys. Buckets never split a
    /// probe's prefix range: at most `prefix_bits` bits pick the bucket.
    pub fn new(prefix_bits: u32, capacity: usize) -> Self {
        let wanted = (capacity / KEYS_PER_BUCKET).max(1).ilog2() + 1;
        AddedKeys {
            buckets: Vec::new(),
            bucket_bits: wanted.min(prefix_bits).clamp(1, MAX_BUCKET_BITS),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    #[expect(
        clippy::cast_possible_truncation,
        reason = "at most MAX_BUCKET_BITS bits are left after the shift"
    )]
    fn bucket_of(&self, key: u64) -> usize {
        (key >> (64 - self.bucket_bits)) as usize
    }

    /// Adds `key`; returns whether it was new.
    pub fn insert(&mut self, key: u64) -> bool {
        if self.buckets.is_empty() {
            self.buckets = vec![Bucket::Small(Vec::new()); 1 << self.bucket_bits];
        }
        let bucket = self.bucket_of(key);
        let added = self
            .buckets
            .get_mut(bucket)
            .is_some_and(|bucket| bucket.insert(key));
        self.len += usize::from(added);
        added
    }

    /// Removes `key`; returns whether it was there.
    pub fn remove(&mut self, key: u64) -> bool {
        let bucket = self.bucket_of(key);
        let removed = self
            .buckets
            .get_mut(bucket)
            .is_some_and(|bucket| bucket.remove(key));
        self.len -= usize::from(removed);
        removed
    }

    pub fn contains(&self, key: u64) -> bool {
        self.buckets
            .get(self.bucket_of(key))
            .is_some_and(|bucket| bucket.contains(key))
    }

    /// Keys in `[lo, hi]`, ascending.
    pub fn range(&self, lo: u64, hi: u64) -> impl Iterator<Item = u64> + '_ {
        let buckets = if lo <= hi && !self.buckets.is_empty() {
            self.bucket_of(lo)..self.bucket_of(hi) + 1
        } else {
            0..0
        };
        self.buckets
            .get(buckets)
            .unwrap_or(&[])
            .iter()
            .flat_map(move |bucket| bucket.range(lo, hi))
    }

    /// Every key, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.range(0, u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn keys_within_a_range_are_those_a_filter_keeps() {
        let keys = [3u64, 5, 8, 13, 21];
        for lo in 0..25 {
            for hi in 0..25 {
                let filtered: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|key| (lo..=hi).contains(key))
                    .collect();
                assert_eq!(keys_within(&keys, lo, hi), &filtered[..], "[{lo}, {hi}]");
            }
        }
        assert!(keys_within(&[], 0, u64::MAX).is_empty());
        assert_eq!(keys_within(&[0, u64::MAX], 0, u64::MAX), &[0, u64::MAX]);
    }

    proptest! {
        #[test]
        fn behaves_like_one_sorted_set(
            prefix_bits in 1u32..40,
            capacity in 0usize..100_000,
            ops in proptest::collection::vec((0u8..3, any::<u64>(), 0u32..64), 0..1500),
            probes in proptest::collection::vec((any::<u64>(), any::<u64>()), 1..20),
        ) {
            let mut keys = AddedKeys::new(prefix_bits, capacity);
            let mut model = BTreeSet::new();
            for (op, raw, shift) in ops {
                // Shifted keys cluster in the low buckets, as shared
                // prefixes do (enough to make some buckets large).
                let key = raw >> shift;
                if op < 2 {
                    prop_assert_eq!(keys.insert(key), model.insert(key));
                } else {
                    prop_assert_eq!(keys.remove(key), model.remove(&key));
                }
                prop_assert_eq!(keys.len(), model.len());
                prop_assert!(keys.contains(key) == model.contains(&key));
            }
            prop_assert_eq!(keys.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
            for (a, b) in probes {
                let (lo, hi) = (a.min(b), a.max(b));
                let expected: Vec<u64> = model.range(lo..=hi).copied().collect();
                prop_assert_eq!(keys.range(lo, hi).collect::<Vec<_>>(), expected);
                prop_assert_eq!(keys.range(hi, lo).count(), usize::from(lo == hi) * usize::from(model.contains(&lo)));
            }
        }
    }

    #[test]
    fn an_empty_bucket_costs_at_most_32_bytes() {
        // The module's memory estimate: 2^16 empty buckets are 2 MiB.
        assert!(std::mem::size_of::<Bucket>() <= 32);
    }

    #[test]
    fn buckets_follow_the_capacity_but_never_the_probe_prefix() {
        assert_eq!(AddedKeys::new(16, 625_000).bucket_bits, 16);
        assert_eq!(AddedKeys::new(16, 65_536).bucket_bits, 14);
        assert_eq!(AddedKeys::new(10, 625_000).bucket_bits, 10);
        assert_eq!(AddedKeys::new(33, 0).bucket_bits, 1);
        assert_eq!(AddedKeys::new(64, usize::MAX).bucket_bits, MAX_BUCKET_BITS);
    }
}
