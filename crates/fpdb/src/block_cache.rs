//! Table blocks kept in memory from their second read.
//!
//! A query reads about one block per table. Through RocksDB that is a
//! point lookup each (filter, cache shard lock, index search: a few
//! microseconds); the blocks themselves are small (about 6 bytes per
//! fingerprint per table), so fpdb keeps each block's bytes, still
//! compressed, in a slot beside the directory when it is read a second
//! time ([`BlockCache::admit`]), up to `OpenOptions::block_cache_bytes`. A block is kept only after it passed
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

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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

    /// Reads a byte of every line that decoding keys in `[lo, hi]` reads,
    /// so that a probe's lines load together with other probes' instead
    /// of one after another as the decoder reaches them: at 10M a
    /// two-stage query's 128 probes each decode most of a block.
    #[inline]
    pub fn touch_probe(&self, lo: u64, hi: u64) -> u64 {
        let payload = self.bytes.get(BlockHeader::LEN..).unwrap_or_default();
        self.sync.touch_probe(payload, lo, hi)
    }
}

/// One table's slots, a slot per block of its directory, made when the
/// table's first block is kept: a process that keeps nothing (a one-shot
/// query) does not pay for writing ~70 bytes per block of every table at
/// open.
#[derive(Debug, Default)]
struct TableSlots {
    blocks: usize,
    slots: OnceLock<Box<[OnceLock<KeptBlock>]>>,
    /// A bit per block: read from the store at least once.
    seen: Box<[AtomicU64]>,
}

#[derive(Debug, Default)]
pub(crate) struct BlockCache {
    /// Per table.
    tables: Vec<TableSlots>,
    bytes: AtomicUsize,
    limit: usize,
}

impl BlockCache {
    /// An empty cache for these directories, holding at most `limit` bytes.
    pub fn new(directories: &[BlockDirectory], limit: usize) -> Self {
        BlockCache {
            tables: directories
                .iter()
                .map(|directory| TableSlots {
                    blocks: directory.len(),
                    slots: OnceLock::new(),
                    seen: (0..directory.len().div_ceil(64))
                        .map(|_| AtomicU64::new(0))
                        .collect(),
                })
                .collect(),
            bytes: AtomicUsize::new(0),
            limit,
        }
    }

    /// Block `block` of table `table`, if it is kept.
    pub fn get(&self, table: usize, block: usize) -> Option<&KeptBlock> {
        self.tables.get(table)?.slots.get()?.get(block)?.get()
    }

    /// Records a read of block `block` of table `table` (`bytes` bytes) from
    /// the store and says whether to keep it now: from its second read on,
    /// while the cache has room. Most blocks a one-shot process reads (a
    /// fresh `fpdb query`, a single merged batch) are read once, and
    /// keeping each on its first read (a copy, its sync points, new memory
    /// page-faulted in) cost a fresh `fpdb query` of 10,000 fingerprints
    /// against 10M a third of its time; a long-lived reader pays one more
    /// store read per block it uses again.
    pub fn admit(&self, table: usize, block: usize, bytes: usize) -> bool {
        let Some(word) = self
            .tables
            .get(table)
            .filter(|slots| block < slots.blocks)
            .and_then(|slots| slots.seen.get(block / 64))
        else {
            return false;
        };
        let bit = 1u64 << (block % 64);
        let seen_before = word.fetch_or(bit, Ordering::Relaxed) & bit != 0;
        seen_before && self.has_room_for(bytes)
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

    /// The slot of a block, making its table's slots if need be.
    fn slot(&self, table: usize, block: usize) -> Option<&OnceLock<KeptBlock>> {
        let table = self.tables.get(table)?;
        if block >= table.blocks {
            return None;
        }
        table
            .slots
            .get_or_init(|| (0..table.blocks).map(|_| OnceLock::new()).collect())
            .get(block)
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

    #[test]
    fn admits_a_block_from_its_second_read_while_there_is_room() {
        let directory = BlockDirectory::new((1..=200).collect()).unwrap();
        let cache = BlockCache::new(&[directory.clone(), directory], 10_000);
        for (table, block) in [(0, 0), (0, 63), (0, 64), (1, 199)] {
            assert!(
                !cache.admit(table, block, 100),
                "first read of {table}/{block}"
            );
            assert!(
                cache.admit(table, block, 100),
                "second read of {table}/{block}"
            );
        }
        // Other blocks and tables have their own bits.
        assert!(!cache.admit(1, 0, 100));
        // No room: never admitted, whatever was seen.
        assert!(!cache.admit(0, 0, 20_000));
        // Past the directory or the tables: never.
        assert!(!cache.admit(0, 200, 100));
        assert!(!cache.admit(0, 200, 100));
        assert!(!cache.admit(2, 0, 100));
        assert!(!cache.admit(2, 0, 100));
    }
}
