//! One table's added keys in the delta, bucketed by their top bits.
//!
//! A query probes the delta once per table with a prefix range, and every
//! insert adds a key per table. In one `BTreeSet` of the whole delta (up to
//! 1/16 of the set: 625,000 keys at 10M) each of those walks about six
//! nodes, most of them cache misses; B-tree inserts were 8 % of a 10M
//! online build. Here the top bits of a key pick a bucket directly and
//! each bucket is a small `BTreeSet`, so a probe or an insert touches one
//! bucket of a few dozen keys. Keys that cluster (near-duplicate pages
//! share prefixes) only make a bucket deeper, never slower than one set.

use std::collections::BTreeSet;

/// At most 2^16 buckets (1.5 MiB of empty sets per table).
const MAX_BUCKET_BITS: u32 = 16;

/// About this many keys per bucket when the delta is full.
const KEYS_PER_BUCKET: usize = 8;

#[derive(Debug, Clone)]
pub(crate) struct AddedKeys {
    /// Bucket `b` holds the keys whose top bits are `b`; empty (no
    /// allocation) until the first key arrives.
    buckets: Vec<BTreeSet<u64>>,
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

    fn bucket_of(&self, key: u64) -> usize {
        (key >> (64 - self.bucket_bits)) as usize
    }

    /// Adds `key`; returns whether it was new.
    pub fn insert(&mut self, key: u64) -> bool {
        if self.buckets.is_empty() {
            self.buckets = vec![BTreeSet::new(); 1 << self.bucket_bits];
        }
        let bucket = self.bucket_of(key);
        let added = self
            .buckets
            .get_mut(bucket)
            .is_some_and(|set| set.insert(key));
        self.len += usize::from(added);
        added
    }

    /// Removes `key`; returns whether it was there.
    pub fn remove(&mut self, key: u64) -> bool {
        let bucket = self.bucket_of(key);
        let removed = self
            .buckets
            .get_mut(bucket)
            .is_some_and(|set| set.remove(&key));
        self.len -= usize::from(removed);
        removed
    }

    pub fn contains(&self, key: u64) -> bool {
        self.buckets
            .get(self.bucket_of(key))
            .is_some_and(|set| set.contains(&key))
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
            .flat_map(move |set| set.range(lo..=hi).copied())
    }

    /// Every key, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.buckets.iter().flatten().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn behaves_like_one_sorted_set(
            prefix_bits in 1u32..40,
            capacity in 0usize..100_000,
            ops in proptest::collection::vec((any::<bool>(), any::<u64>(), 0u32..64), 0..300),
            probes in proptest::collection::vec((any::<u64>(), any::<u64>()), 1..20),
        ) {
            let mut keys = AddedKeys::new(prefix_bits, capacity);
            let mut model = BTreeSet::new();
            for (insert, raw, shift) in ops {
                // Shifted keys cluster in the low buckets, as shared
                // prefixes do.
                let key = raw >> shift;
                if insert {
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
    fn buckets_follow_the_capacity_but_never_the_probe_prefix() {
        assert_eq!(AddedKeys::new(16, 625_000).bucket_bits, 16);
        assert_eq!(AddedKeys::new(16, 65_536).bucket_bits, 14);
        assert_eq!(AddedKeys::new(10, 625_000).bucket_bits, 10);
        assert_eq!(AddedKeys::new(33, 0).bucket_bits, 1);
        assert_eq!(AddedKeys::new(64, usize::MAX).bucket_bits, MAX_BUCKET_BITS);
    }
}
