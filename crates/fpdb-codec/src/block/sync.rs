//! Sync points: places inside a block where decoding may start.
//!
//! A key is coded against its predecessor, so decoding normally starts at
//! a block's first key. A sync point remembers one key and the payload bit
//! where its successor starts; a probe for keys `≥ lo` starts at the last
//! sync key below `lo` and skips most of the block (with 4 points in a
//! ~185-key block, at most ~37 keys before the range, ~18 on average).
//! Sync points live in memory only (they are rebuilt from the keys, never
//! stored), so the byte format does not pay for them.

use crate::huffman::HuffmanCode;

/// Sync points per block.
pub const SYNC_POINTS: usize = 4;

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

    /// Whether the first sync key is below `lo` (touches the points).
    #[inline]
    pub(crate) fn first_below(&self, lo: u64) -> bool {
        self.keys.first().is_some_and(|&key| key < lo)
    }
}
