//! A bit per prefix: which prefixes of a sparse table hold any key.
//!
//! With many prefix bits (`split-5` has p = 25..26), most probes of a
//! table at 10M keys find no key with their prefix, yet each pays the
//! directory's and the block's cache misses to learn it. One bit per
//! prefix answers "none" with a single load. It is kept only where it is
//! cheap and useful: at most a sixth of the table's bytes (2^p bits for N
//! keys of ~48 bits) and at least half the prefixes empty.

/// Prefixes covered at most: 2^28 bits = 32 MiB.
const MAX_PREFIX_BITS: u32 = 28;

/// For each `p`-bit prefix, whether a table key has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PrefixBitmap {
    words: Vec<u64>,
    prefix_bits: u32,
}

impl PrefixBitmap {
    /// The bitmap of `sorted_keys`' top `prefix_bits` bits, if it pays
    /// for itself: `None` when prefixes are too many for memory or too
    /// full to tell much. `encoded_bytes` is what the table's blocks take.
    pub(crate) fn build(
        sorted_keys: &[u64],
        prefix_bits: u32,
        encoded_bytes: usize,
    ) -> Option<PrefixBitmap> {
        if prefix_bits == 0 || prefix_bits > MAX_PREFIX_BITS {
            return None;
        }
        let prefixes = 1usize << prefix_bits;
        let bitmap_bytes = prefixes / 8;
        if sorted_keys.len() > prefixes / 2 || bitmap_bytes > encoded_bytes / 6 {
            return None;
        }
        let mut words = vec![0u64; prefixes.div_ceil(64)];
        for &key in sorted_keys {
            let prefix = prefix_of(key, prefix_bits);
            #[expect(
                clippy::indexing_slicing,
                reason = "a prefix is below 2^prefix_bits, and `words` has a bit for each"
            )]
            let word = &mut words[prefix / 64];
            *word |= 1 << (prefix % 64);
        }
        Some(PrefixBitmap { words, prefix_bits })
    }

    /// Whether some key shares the top `prefix_bits` bits of `permuted`.
    /// (Saying "no" wrongly would drop answers, so the bit is indexed
    /// directly rather than read with a default.)
    #[inline]
    pub(crate) fn has_prefix_of(&self, permuted: u64) -> bool {
        let prefix = prefix_of(permuted, self.prefix_bits);
        #[expect(
            clippy::indexing_slicing,
            reason = "a prefix is below 2^prefix_bits, and `words` has a bit for each (built together in `build`)"
        )]
        let word = self.words[prefix / 64];
        word >> (prefix % 64) & 1 == 1
    }

    /// Bytes in memory.
    pub(crate) fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// The top `prefix_bits` (1..=MAX_PREFIX_BITS) bits of a key: the index of
/// its bit in a bitmap.
#[inline]
fn prefix_of(key: u64, prefix_bits: u32) -> usize {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a prefix has at most MAX_PREFIX_BITS = 28 bits"
    )]
    let prefix = (key >> (64 - prefix_bits)) as usize;
    prefix
}

#[cfg(test)]
mod tests {
    use super::PrefixBitmap;

    #[test]
    fn answers_exactly_which_prefixes_hold_keys() {
        // Spread over the whole key space by a multiplicative hash.
        let mut keys: Vec<u64> = (1..=1000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17))
            .collect();
        keys.extend([0, u64::MAX]);
        keys.sort_unstable();
        let bitmap = PrefixBitmap::build(&keys, 16, 1 << 20).unwrap();
        for &key in &keys {
            assert!(bitmap.has_prefix_of(key));
            assert!(bitmap.has_prefix_of(key ^ 0xFFFF));
        }
        let present: std::collections::HashSet<u64> = keys.iter().map(|k| k >> 48).collect();
        for prefix in 0..1u64 << 16 {
            assert_eq!(
                bitmap.has_prefix_of(prefix << 48 | 0x1234),
                present.contains(&prefix)
            );
        }
        assert_eq!(bitmap.bytes(), (1 << 16) / 8);
    }

    #[test]
    fn is_left_out_where_it_does_not_pay() {
        let keys: Vec<u64> = (0..100u64).map(|i| i << 40).collect();
        // Too many prefixes for memory.
        assert!(PrefixBitmap::build(&keys, 29, usize::MAX).is_none());
        // More than half of 2^7 prefixes could be full.
        assert!(PrefixBitmap::build(&keys, 7, usize::MAX).is_none());
        // Over a sixth of the blocks' bytes.
        assert!(PrefixBitmap::build(&keys, 16, 6 * 8192 - 1).is_none());
        assert!(PrefixBitmap::build(&keys, 16, 6 * 8192).is_some());
        assert!(PrefixBitmap::build(&keys, 0, usize::MAX).is_none());
    }
}
