//! Reading the document ids of fingerprints from the `fp_ids` column
//! family: one RocksDB iterator seeks to fingerprint after fingerprint
//! (`handle.rs` keeps scanners between reads).

use fpdb_simhash::Fingerprint;
use rocksdb::{DBRawIterator, ReadOptions, DB};

use super::error::storage;
use super::families::family_handle;
use super::keys::Family;
use crate::error::{Error, Result};

/// An iterator over `fp_ids` that reads the ids of one fingerprint at a
/// time.
pub(crate) struct IdScanner<'db> {
    iterator: DBRawIterator<'db>,
}

impl<'db> IdScanner<'db> {
    pub fn new(db: &'db DB) -> Result<Self> {
        let mut read = ReadOptions::default();
        // Keys are `fingerprint ‖ id` and the family's prefix extractor
        // takes the 8 fingerprint bytes: a seek skips the files whose
        // prefix filter rules the fingerprint out, and the iterator stops
        // after the fingerprint's last id.
        read.set_prefix_same_as_start(true);
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

    /// Calls `each` with the ids of `fp` in byte order until it returns
    /// false.
    pub fn scan(&mut self, fp: Fingerprint, mut each: impl FnMut(&str) -> bool) -> Result<()> {
        let prefix = fp.0.to_be_bytes();
        let iterator = &mut self.iterator;
        iterator.seek(prefix);
        while let Some(key) = iterator.key() {
            let Some(id) = key.strip_prefix(&prefix[..]) else {
                break;
            };
            let id = std::str::from_utf8(id)
                .map_err(|_| Error::corrupt(format!("ids of {fp}"), "an id is not UTF-8"))?;
            if !each(id) {
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
        self.scan(fp, |id| {
            ids.push(id.to_string());
            true
        })?;
        Ok(ids)
    }
}
