//! Cursors over a family in key order, for the operations that walk a
//! table or `fp_ids` rather than looking keys up one by one.

use fpdb_simhash::Fingerprint;
use rocksdb::DBRawIterator;

use super::error::storage;
use super::keys::{block_key, decode_fp_id, fp_ids_prefix};
use crate::error::{Error, Result};

/// Walks one table's blocks forward in key order.
pub(crate) struct BlockCursor<'db> {
    iterator: DBRawIterator<'db>,
    table: usize,
}

impl<'db> BlockCursor<'db> {
    pub(super) fn new(mut iterator: DBRawIterator<'db>, table: usize) -> Self {
        iterator.seek_to_first();
        BlockCursor { iterator, table }
    }

    /// Moves forward to the block whose last key is `last_key` and returns
    /// its bytes; a block the directory lists that is not there is damage.
    /// Blocks must be asked for in increasing order.
    pub fn advance_to(&mut self, last_key: u64) -> Result<&[u8]> {
        let wanted = block_key(last_key);
        let iterator = &mut self.iterator;
        while iterator.valid() && iterator.key().is_some_and(|key| key < &wanted[..]) {
            iterator.next();
        }
        let table = self.table;
        iterator.status().map_err(storage(|| {
            format!("table {table}, block with key {last_key:016x}")
        }))?;
        match (iterator.key(), iterator.value()) {
            (Some(key), Some(value)) if key == &wanted[..] => Ok(value),
            _ => Err(Error::corrupt(
                format!("table {table}, block with key {last_key:016x}"),
                "missing from the store",
            )),
        }
    }
}

/// Walks `fp_ids` across fingerprints.
pub(crate) struct FpIdsCursor<'db> {
    iterator: DBRawIterator<'db>,
}

impl<'db> FpIdsCursor<'db> {
    pub(super) fn new(iterator: DBRawIterator<'db>) -> Self {
        FpIdsCursor { iterator }
    }

    pub fn seek_to_first(&mut self) {
        self.iterator.seek_to_first();
    }

    /// Moves to the first id of `fp`, or of the next fingerprint after it.
    pub fn seek(&mut self, fp: Fingerprint) {
        self.iterator.seek(fp_ids_prefix(fp));
    }

    /// The (fingerprint, id) the cursor is at, `None` past the end.
    pub fn current(&self) -> Result<Option<(Fingerprint, &str)>> {
        match self.iterator.key() {
            Some(key) => decode_fp_id(key)
                .map(Some)
                .map_err(|malformed| Error::corrupt("fp_ids", malformed.to_string())),
            None => self.status().map(|()| None),
        }
    }

    pub fn next(&mut self) {
        self.iterator.next();
    }

    /// Whether the cursor stopped because RocksDB failed to read.
    pub fn status(&self) -> Result<()> {
        self.iterator
            .status()
            .map_err(storage(|| "fp_ids".to_string()))
    }

    /// Appends the ids of `fp` from the cursor's position on to `ids`,
    /// leaving the cursor at the first key of another fingerprint (or the
    /// end).
    pub fn read_ids(&mut self, fp: Fingerprint, ids: &mut Vec<String>) -> Result<()> {
        while let Some((key_fp, id)) = self.current()? {
            if key_fp != fp {
                break;
            }
            ids.push(id.to_string());
            self.next();
        }
        Ok(())
    }

    /// Moves the cursor past the ids of `fp`.
    pub fn skip_ids(&mut self, fp: Fingerprint) -> Result<()> {
        while let Some((key_fp, _)) = self.current()? {
            if key_fp != fp {
                break;
            }
            self.next();
        }
        Ok(())
    }
}
