//! Reading the document ids of fingerprints from the `fp_ids` column
//! family: one RocksDB iterator seeks to fingerprint after fingerprint
//! (`handle.rs` keeps scanners between reads).

use std::sync::atomic::{AtomicU64, Ordering};

use fpdb_simhash::Fingerprint;
use rocksdb::{DBRawIterator, ReadOptions, DB};

use super::error::storage;
use super::families::family_handle;
use super::keys::{fp_ids_prefix, Family};
use crate::error::{Error, Result};

/// An iterator over `fp_ids` that reads the ids of one fingerprint at a
/// time.
pub(crate) struct IdScanner<'db> {
    iterator: DBRawIterator<'db>,
}

impl<'db> IdScanner<'db> {
    /// A scanner whose reads keep the blocks they load in RocksDB's cache
    /// (`fill_cache`), for lookups that may come back to them, or not, for
    /// one pass over sorted fingerprints that reads each block once.
    pub fn new(db: &'db DB, fill_cache: bool) -> Result<Self> {
        let mut read = ReadOptions::default();
        // Keys are `fingerprint ‖ id` and the family's prefix extractor
        // takes the 8 fingerprint bytes: a seek skips the files whose
        // prefix filter rules the fingerprint out, and the iterator stops
        // after the fingerprint's last id.
        read.set_prefix_same_as_start(true);
        read.fill_cache(fill_cache);
        let family = family_handle(db, Family::FpToIds)?;
        Ok(IdScanner {
            iterator: db.raw_iterator_cf_opt(family, read),
        })
    }

    /// Makes the scanner see the database as it is now.
    pub fn refresh(&mut self) -> Result<()> {
        self.iterator
            .refresh()
            .map_err(storage(|| "an iterator over fp_ids".to_string()))
    }

    /// Calls `each` with the ids of `fp` in byte order, each with its
    /// signature's bytes (empty for a bare fingerprint), until it returns
    /// false.
    pub fn scan(
        &mut self,
        fp: Fingerprint,
        mut each: impl FnMut(&str, &[u8]) -> bool,
    ) -> Result<()> {
        let prefix = fp_ids_prefix(fp);
        let iterator = &mut self.iterator;
        iterator.seek(prefix);
        while let Some(key) = iterator.key() {
            let Some(id) = key.strip_prefix(&prefix[..]) else {
                break;
            };
            let id = std::str::from_utf8(id)
                .map_err(|_| Error::corrupt(format!("ids of {fp}"), "an id is not UTF-8"))?;
            if !each(id, iterator.value().unwrap_or_default()) {
                return Ok(());
            }
            iterator.next();
        }
        iterator
            .status()
            .map_err(storage(|| format!("ids of {fp} (fp_ids)")))
    }

    /// The ids of `fp`, in byte order.
    pub fn ids_of(&mut self, fp: Fingerprint) -> Result<Vec<String>> {
        let mut ids = Vec::new();
        self.scan(fp, |id, _| {
            ids.push(id.to_string());
            true
        })?;
        Ok(ids)
    }
}

/// The 16-bit fingerprint prefixes whose ids an earlier batch read.
///
/// A batch reads each `fp_ids` block it needs once, in key order. Keeping
/// those blocks in RocksDB's cache pays off only for blocks read again,
/// and in a fresh process costs a page fault per page: in `fpdb query` of
/// 10,000 queries at 10M with 5,000 matches, 9,000 page faults and a third
/// of the id reads' time (docs/BENCHMARKS.md). So a batch fills the cache
/// only under prefixes an earlier batch read, as table blocks are kept
/// from their second read: a one-shot process pays nothing for it, a
/// long-lived one fills the cache where its batches come back.
#[derive(Debug)]
pub(crate) struct PrefixesRead {
    words: Box<[AtomicU64]>,
}

impl Default for PrefixesRead {
    fn default() -> Self {
        PrefixesRead {
            words: (0..(1 << 16) / 64).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

impl PrefixesRead {
    /// The word and bit of `fp`'s prefix.
    fn slot(&self, fp: Fingerprint) -> (Option<&AtomicU64>, u64) {
        let prefix = fp.0 >> 48;
        (self.words.get((prefix / 64) as usize), 1 << (prefix % 64))
    }

    /// Whether an earlier batch read ids under `fp`'s prefix.
    pub fn contains(&self, fp: Fingerprint) -> bool {
        let (word, bit) = self.slot(fp);
        word.is_some_and(|word| word.load(Ordering::Relaxed) & bit != 0)
    }

    /// Records that ids under `fp`'s prefix were read.
    pub fn insert(&self, fp: Fingerprint) {
        if let (Some(word), bit) = self.slot(fp) {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_read_once_it_is_inserted_and_its_neighbours_are_not() {
        let read = PrefixesRead::default();
        let fp = Fingerprint(0xabcd_0000_0000_0001);
        assert!(!read.contains(fp));
        read.insert(fp);
        assert!(read.contains(fp));
        // Same prefix, other low bits.
        assert!(read.contains(Fingerprint(0xabcd_ffff_ffff_ffff)));
        for other in [
            0xabcc_0000_0000_0001,
            0xabce_0000_0000_0001,
            0x2bcd_0000_0000_0001,
        ] {
            assert!(!read.contains(Fingerprint(other)), "{other:016x}");
        }
        for extreme in [0, u64::MAX] {
            read.insert(Fingerprint(extreme));
            assert!(read.contains(Fingerprint(extreme)));
        }
    }
}
