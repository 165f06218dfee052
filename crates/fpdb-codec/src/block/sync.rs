//! Sync points: places inside a block where decoding may start.
//!
//! A key is coded against its predecessor, so decoding normally starts at
//! a block's first key. A sync point remembers one key and the payload bit
//! where its successor starts; a probe for keys `≥ lo` starts at the last
//! sync key below `lo` and skips most of the block (with 4 points in a
//! ~185-key block, at most ~37 keys before the range, ~18 on average).
//! Sync points live in memory only (they are rebuilt from the keys, never
//! stored), so the byte format does not pay for them.

use std::ops::Range;

use crate::huffman::HuffmanCode;

/// Sync points per block.
pub const SYNC_POINTS: usize = 4;

/// Bytes per cache line on the machines fpdb runs on.
const CACHE_LINE: usize = 64;

/// The sync points of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncPoints {
    /// Ascending sync keys; `u64::MAX` marks an unused slot (it is never
    /// below a probe's lower bound, so it is never chosen).
    pub(crate) keys: [u64; SYNC_POINTS],
    /// Payload bit where the key after each sync key starts.
    pub(crate) positions: [u16; SYNC_POINTS],
    /// Index of each sync key in the block.
    pub(crate) indexes: [u16; SYNC_POINTS],
}

impl Default for SyncPoints {
    fn default() -> Self {
        SyncPoints::NONE
    }
}

impl SyncPoints {
    /// No sync points: decoding starts at the block's first key.
    pub const NONE: SyncPoints = SyncPoints {
        keys: [u64::MAX; SYNC_POINTS],
        positions: [0; SYNC_POINTS],
        indexes: [0; SYNC_POINTS],
    };

    /// Sync points for a block holding exactly `keys` (all of them, in
    /// order), encoded with `code`. Wrong keys give wrong sync points: pass
    /// the keys decoded from the very block. Keys that do not strictly
    /// ascend (no block holds them) get [`SyncPoints::NONE`].
    pub fn for_block_keys(keys: &[u64], code: &HuffmanCode) -> SyncPoints {
        let mut sync = SyncPoints::NONE;
        let count = keys.len();
        if count < 2 || count > usize::from(u16::MAX) {
            return sync;
        }
        let Some((&first, rest)) = keys.split_first() else {
            return sync;
        };
        // Evenly spaced, never the first key (decoding from the block's
        // start is as cheap) nor past the last.
        let mut targets = (1..=SYNC_POINTS)
            .map(|slot| slot * count / (SYNC_POINTS + 1))
            .filter(|&index| index >= 1 && index < count)
            .peekable();
        let mut slot = 0;
        let mut position = 64u64;
        let mut previous = first;
        for (index, &key) in (1..).zip(rest) {
            if key <= previous {
                return SyncPoints::NONE;
            }
            let h = (previous ^ key).leading_zeros();
            let Some((_, length)) = code.code_word(h) else {
                return SyncPoints::NONE;
            };
            position += u64::from(length + 63 - h);
            previous = key;
            if targets.peek() != Some(&index) {
                continue;
            }
            while targets.peek() == Some(&index) {
                targets.next();
            }
            let (Ok(bit), Ok(index16)) = (u16::try_from(position), u16::try_from(index)) else {
                break;
            };
            if let (Some(k), Some(p), Some(i)) = (
                sync.keys.get_mut(slot),
                sync.positions.get_mut(slot),
                sync.indexes.get_mut(slot),
            ) {
                *k = key;
                *p = bit;
                *i = index16;
                slot += 1;
            }
        }
        sync
    }

    /// Where to start decoding for keys `≥ lo`: `(previous key, bit
    /// position, keys already behind)`, or `None` for the block's start.
    #[inline]
    pub(crate) fn start_for(&self, lo: u64) -> Option<(u64, usize, usize)> {
        let before = self.keys.iter().filter(|&&key| key < lo).count();
        let slot = before.checked_sub(1)?;
        Some((
            *self.keys.get(slot)?,
            usize::from(*self.positions.get(slot)?),
            usize::from(*self.indexes.get(slot)?) + 1,
        ))
    }

    /// The payload byte a probe for `lo` starts decoding at, computed
    /// without branches on the points (to start loading its line early).
    #[inline]
    pub fn start_byte(&self, lo: u64) -> usize {
        let before = self.keys.iter().filter(|&&key| key < lo).count();
        let slot = before.saturating_sub(1) % SYNC_POINTS;
        #[expect(
            clippy::indexing_slicing,
            reason = "a slot modulo SYNC_POINTS is inside the SYNC_POINTS positions"
        )]
        let position = self.positions[slot];
        usize::from(position >> 3) * usize::from(before != 0)
    }

    /// Reads a byte of every cache line of `payload` (a block's bytes
    /// after its header) that decoding keys in `[lo, hi]` reads, so that
    /// their loads overlap with other probes' rather than arriving one
    /// after another as the decoder reaches them. Returns any value (it
    /// only feeds `black_box`).
    #[inline]
    pub fn touch_probe(&self, payload: &[u8], lo: u64, hi: u64) -> u64 {
        let bytes = payload
            .get(self.probe_bytes(lo, hi, payload.len()))
            .unwrap_or_default();
        let last = bytes.last().copied().unwrap_or(0);
        bytes
            .iter()
            .step_by(CACHE_LINE)
            .fold(u64::from(last), |touched, &byte| touched ^ u64::from(byte))
    }

    /// The payload bytes a probe for keys in `[lo, hi]` decodes, as far
    /// as the points tell: from [`SyncPoints::start_byte`] of `lo` to the
    /// end of the first sync key above `hi` (decoding stops there at the
    /// latest), or to `payload_len`.
    #[inline]
    fn probe_bytes(&self, lo: u64, hi: u64, payload_len: usize) -> Range<usize> {
        let end = self
            .keys
            .iter()
            .zip(&self.positions)
            // Unused slots hold u64::MAX; a sync key of that value (the
            // last key of a block of at most five) is passed over too,
            // which only widens the range.
            .find(|&(&key, _)| key > hi && key != u64::MAX)
            .map_or(payload_len, |(_, &position)| {
                usize::from(position).div_ceil(8)
            });
        self.start_byte(lo).min(payload_len)..end.min(payload_len)
    }

    /// Whether the first sync key is below `lo` (touches the points).
    #[inline]
    pub(crate) fn first_below(&self, lo: u64) -> bool {
        self.keys.first().is_some_and(|&key| key < lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::{BlockDecoder, BlockEncoder, BlockHeader, ChecksumPolicy};
    use proptest::prelude::*;

    /// Sorted distinct keys, spread out or sharing a random prefix.
    fn key_sets() -> impl Strategy<Value = Vec<u64>> {
        (
            any::<u64>(),
            any::<u64>(),
            proptest::collection::vec(any::<u64>(), 2..500),
        )
            .prop_map(|(base, mask, noise)| {
                let mut keys: Vec<u64> = noise.iter().map(|n| base ^ (n & mask)).collect();
                keys.sort_unstable();
                keys.dedup();
                keys
            })
    }

    proptest! {
        /// A range walk from the sync points reads only the payload bytes
        /// `probe_bytes` names (those a probe touches ahead): with every
        /// other byte cleared, it finds the same keys and stops the same.
        #[test]
        fn a_range_walk_reads_only_the_probed_bytes(
            keys in key_sets(),
            bounds in proptest::collection::vec(
                (any::<u64>(), 0u32..64, any::<prop::sample::Index>()),
                1..10,
            ),
        ) {
            let code = HuffmanCode::for_sorted_keys(&keys);
            let block = BlockEncoder::new(&code, 4096).encode_block(&keys).unwrap();
            let sync = SyncPoints::for_block_keys(&keys, &code);
            let decoder = BlockDecoder::new(&code, ChecksumPolicy::Skip);
            let walk = |bytes: &[u8], lo: u64, hi: u64| {
                let mut found = Vec::new();
                let stopped = decoder.for_each_in_range(bytes, &sync, lo, hi, &mut |key| found.push(key));
                (found, stopped)
            };
            let random_ranges = bounds.iter().map(|&(random, width, pick)| {
                let lo = if random % 2 == 0 { keys[pick.index(keys.len())] } else { random };
                let lo = lo & !((1u64 << width) - 1);
                (lo, lo | ((1u64 << width) - 1))
            });
            // Ranges whose walk stops exactly at a sync key, the last byte
            // `probe_bytes` keeps.
            let up_to_sync_keys = sync.keys.iter().filter(|&&key| key != u64::MAX).map(|&key| {
                (key.saturating_sub(1 << 20), key - 1)
            });
            for (lo, hi) in random_ranges.chain(up_to_sync_keys) {
                let mut cleared = block.bytes().to_vec();
                let payload = &mut cleared[BlockHeader::LEN..];
                let probed = sync.probe_bytes(lo, hi, payload.len());
                for (at, byte) in payload.iter_mut().enumerate() {
                    if !probed.contains(&at) {
                        *byte = 0;
                    }
                }
                prop_assert_eq!(walk(&cleared, lo, hi), walk(block.bytes(), lo, hi), "lo {:#x} hi {:#x}", lo, hi);
            }
        }
    }
}
