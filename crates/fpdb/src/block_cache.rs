//! Table blocks kept in memory after their first read.
//!
//! A query reads about one block per table. Through RocksDB that is a
//! point lookup each (filter, cache shard lock, index search: a few
//! microseconds); the blocks themselves are small (about 6 bytes per
//! fingerprint per table), so fpdb keeps each block's bytes, still
//! compressed, in a slot beside the directory once read, up to
//! `OpenOptions::block_cache_bytes`. A block is kept only after it passed
//! its checksum, and is not hashed again when read from memory. Slots are
//! indexed like the directory, so the cache is rebuilt empty whenever a
//! merge or load replaces the directories; it never holds a block the
//! directory no longer names.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use fpdb_codec::BlockDirectory;

#[derive(Debug, Default)]
pub(crate) struct BlockCache {
    /// Per table, per block of its directory.
    slots: Vec<Vec<OnceLock<Box<[u8]>>>>,
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
    pub fn get(&self, table: usize, block: usize) -> Option<&[u8]> {
        self.slot(table, block)?.get().map(|bytes| &bytes[..])
    }

    /// Keeps a copy of a block read from the store, if the cache has room.
    /// Only blocks that passed their checksum may be kept: readers trust
    /// kept bytes without hashing them again.
    pub fn keep(&self, table: usize, block: usize, bytes: &[u8]) {
        let Some(slot) = self.slot(table, block) else {
            return;
        };
        let held = self.bytes.fetch_add(bytes.len(), Ordering::Relaxed);
        if held + bytes.len() > self.limit || slot.set(bytes.into()).is_err() {
            // No room, or another reader kept the same block first.
            self.bytes.fetch_sub(bytes.len(), Ordering::Relaxed);
        }
    }

    fn slot(&self, table: usize, block: usize) -> Option<&OnceLock<Box<[u8]>>> {
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
        let directory = BlockDirectory::new(vec![10, 20, 30]).unwrap();
        let cache = BlockCache::new(&[directory], 8);
        assert_eq!(cache.get(0, 0), None);
        cache.keep(0, 0, &[1; 5]);
        assert_eq!(cache.get(0, 0), Some(&[1u8; 5][..]));
        // A second copy of the same block changes nothing.
        cache.keep(0, 0, &[9; 5]);
        assert_eq!(cache.get(0, 0), Some(&[1u8; 5][..]));
        // Over the 8-byte limit: not kept.
        cache.keep(0, 1, &[2; 5]);
        assert_eq!(cache.get(0, 1), None);
        // Past the directory: never kept.
        cache.keep(0, 7, &[3; 1]);
        assert_eq!(cache.get(0, 7), None);
        assert_eq!(cache.bytes(), 5);
    }
}
