//! Table blocks kept in memory after their first read.
//!
//! A query reads about one block per table. Through RocksDB that is a
//! point lookup each (filter, cache shard lock, index search: a few
//! microseconds); the blocks themselves are small (about 6 bytes per
//! fingerprint per table), so fpdb keeps each block's bytes, still
//! compressed, in a slot beside the directory once read, up to
//! `OpenOptions::block_cache_bytes`. A block is kept only after it passed
//! its checksum (or was encoded by this process), and is not hashed again
//! when read from memory. Slots are indexed like the directory, so the
//! cache is rebuilt whenever a merge or load replaces the directories: a
//! merge fills the new one with the blocks it wrote and the unchanged
//! blocks that were kept; it never holds a block the directory no longer
//! names.
//!
//! A kept block also keeps its [`SyncPoints`] (48 bytes, computed from
//! the keys decoded when it was read), so a warm probe starts decoding
//! near its range rather than at the block's first key.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use fpdb_codec::{BlockDirectory, BlockHeader, HuffmanCode, SyncPoints};

/// A block kept in memory: its bytes (checksum verified, or encoded by
/// this process) and sync points.
#[derive(Debug, Clone)]
pub(crate) struct KeptBlock {
    pub bytes: Box<[u8]>,
    pub sync: SyncPoints,
}

impl KeptBlock {
    /// A block of `bytes` holding exactly `keys`, encoded with `code`.
    pub fn new(bytes: &[u8], keys: &[u64], code: &HuffmanCode) -> Self {
        KeptBlock {
            bytes: bytes.into(),
            sync: SyncPoints::for_block_keys(keys, code),
        }
    }

    /// Reads the block's header byte and the byte where a probe for `lo`
    /// starts decoding, so that their cache lines are on their way before
    /// the decoder needs them.
    #[inline]
    pub fn touch(&self, lo: u64) -> u64 {
        let at = BlockHeader::LEN + self.sync.start_byte(lo);
        let header = self.bytes.first().copied().unwrap_or(0);
        let start = self.bytes.get(at).copied().unwrap_or(0);
        u64::from(header ^ start)
    }
}

#[derive(Debug, Default)]
pub(crate) struct BlockCache {
    /// Per table, per block of its directory.
    slots: Vec<Vec<OnceLock<KeptBlock>>>,
    bytes: AtomicUsize,
    limit: usize,
}

impl BlockCache {
    /// An empty cache for these directories, holding at most `limit` bytes.
    pub fn new(directories: &[BlockDirectory], limit: usize) -> Self {
        BlockCache {
            slots: directories
                .iter()
                .map(|directory| (0..directory.len()).map(|_| OnceLock::new()).collect())
                .collect(),
            bytes: AtomicUsize::new(0),
            limit,
        }
    }

    /// Block `block` of table `table`, if it is kept.
    pub fn get(&self, table: usize, block: usize) -> Option<&KeptBlock> {
        self.slot(table, block)?.get()
    }

    /// Keeps a copy of a block read from the store, if the cache has room.
    /// Only blocks that passed their checksum may be kept (readers trust
    /// kept bytes without hashing them again), with `keys` all the keys
    /// decoded from them and `code` the table's code.
    pub fn keep(&self, table: usize, block: usize, bytes: &[u8], keys: &[u64], code: &HuffmanCode) {
        if self.has_room_for(bytes.len()) {
            self.insert(table, block, KeptBlock::new(bytes, keys, code));
        }
    }

    /// Keeps `kept` as block `block` of table `table`, if the cache has
    /// room and the slot is free. The same trust rule as
    /// [`BlockCache::keep`]: only checked or self-made bytes.
    pub fn insert(&self, table: usize, block: usize, kept: KeptBlock) {
        let Some(slot) = self.slot(table, block) else {
            return;
        };
        let size = kept.bytes.len() + std::mem::size_of::<KeptBlock>();
        let held = self.bytes.fetch_add(size, Ordering::Relaxed);
        if held + size > self.limit {
            self.bytes.fetch_sub(size, Ordering::Relaxed);
            return;
        }
        if slot.set(kept).is_err() {
            // Another reader kept the same block first.
            self.bytes.fetch_sub(size, Ordering::Relaxed);
        }
    }

    /// Whether a block of `bytes` bytes would be kept now (so that a
    /// reader decodes it whole only when it will be kept).
    pub fn has_room_for(&self, bytes: usize) -> bool {
        self.bytes() + bytes + std::mem::size_of::<KeptBlock>() <= self.limit
    }

    fn slot(&self, table: usize, block: usize) -> Option<&OnceLock<KeptBlock>> {
        self.slots.get(table)?.get(block)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_blocks_until_the_limit() {
        let code = HuffmanCode::uniform();
        let keys: Vec<u64> = (0..40).map(|i| i * 1000).collect();
        let block = fpdb_codec::BlockEncoder::new(&code, 1024)
            .encode_block(&keys)
            .unwrap();
        let bytes = block.bytes();
        let size = bytes.len() + std::mem::size_of::<KeptBlock>();
        let directory = BlockDirectory::new(vec![10, 20, 30]).unwrap();
        let cache = BlockCache::new(&[directory], size + 8);
        assert!(cache.get(0, 0).is_none());
        assert!(cache.has_room_for(bytes.len()));
        cache.keep(0, 0, bytes, &keys, &code);
        let kept = cache.get(0, 0).unwrap();
        assert_eq!(&kept.bytes[..], bytes);
        assert_eq!(kept.sync, SyncPoints::for_block_keys(&keys, &code));
        assert_ne!(kept.sync, SyncPoints::NONE);
        // A second copy of the same block changes nothing.
        cache.keep(0, 0, &[9; 5], &keys, &code);
        assert_eq!(&cache.get(0, 0).unwrap().bytes[..], bytes);
        // Over the limit: not kept.
        assert!(!cache.has_room_for(bytes.len()));
        cache.keep(0, 1, bytes, &keys, &code);
        assert!(cache.get(0, 1).is_none());
        // Past the directory: never kept.
        cache.keep(0, 7, &[3; 1], &keys, &code);
        assert!(cache.get(0, 7).is_none());
        assert_eq!(cache.bytes(), size);
    }
}
