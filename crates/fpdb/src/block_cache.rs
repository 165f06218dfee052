//! Table blocks kept in memory after their first read.
//!
//! A query reads about one block per table. Through RocksDB that is a
//! point lookup each (filter, cache shard lock, index search: a few
//! microseconds); the blocks themselves are small (about 6 bytes per
//! fingerprint per table), so fpdb keeps each block's bytes, still
//! compressed, in a slot beside the directory once read, up to
//! `OpenOptions::block_cache_bytes`. Slots are indexed like the directory,
//! so the cache is rebuilt empty whenever a merge or load replaces the
//! directories; it never holds a block the directory no longer names.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use fpdb_codec::BlockDirectory;

use crate::Result;

#[derive(Debug, Default)]
pub(crate) struct BlockCache {
    /// Per table, per block of its directory.
    slots: Vec<Vec<OnceLock<Arc<[u8]>>>>,
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

    /// Block `block` of table `table`: from memory, or from `read` (then
    /// kept while the cache has room).
    pub fn block(
        &self,
        table: usize,
        block: usize,
        read: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<Arc<[u8]>> {
        let slot = self.slots.get(table).and_then(|slots| slots.get(block));
        if let Some(bytes) = slot.and_then(OnceLock::get) {
            return Ok(Arc::clone(bytes));
        }
        let bytes: Arc<[u8]> = read()?.into();
        if let Some(slot) = slot {
            let held = self.bytes.fetch_add(bytes.len(), Ordering::Relaxed);
            if held + bytes.len() <= self.limit {
                // Another reader may have filled it meanwhile: same bytes.
                let _ = slot.set(Arc::clone(&bytes));
            } else {
                self.bytes.fetch_sub(bytes.len(), Ordering::Relaxed);
            }
        }
        Ok(bytes)
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
    fn keeps_blocks_until_the_limit_and_reads_the_rest_each_time() {
        let directory = BlockDirectory::new(vec![10, 20, 30]).unwrap();
        let cache = BlockCache::new(&[directory], 8);
        let mut reads = 0;
        let mut read = |n: u8| {
            reads += 1;
            Ok(vec![n; 5])
        };
        assert_eq!(&*cache.block(0, 0, || read(1)).unwrap(), &[1; 5]);
        assert_eq!(&*cache.block(0, 0, || read(9)).unwrap(), &[1; 5]);
        // Over the 8-byte limit: served but not kept.
        assert_eq!(&*cache.block(0, 1, || read(2)).unwrap(), &[2; 5]);
        assert_eq!(&*cache.block(0, 1, || read(3)).unwrap(), &[3; 5]);
        // Past the directory: served, never kept.
        assert_eq!(&*cache.block(0, 7, || read(4)).unwrap(), &[4; 5]);
        assert_eq!(reads, 4);
        assert_eq!(cache.bytes(), 5);
    }
}
