//! A write batch applied in the order it was put: merges, loads and the
//! creation of a database (online writes use [`super::SortedBatch`]).

use rocksdb::{ColumnFamily, WriteBatch, DB};

use super::families::family_handle;
use super::keys::{Family, Key, Record, PAST_EVERY_KEY};
use crate::Result;

/// Writes that become one atomic RocksDB write ([`super::Store::write`]).
pub(crate) struct WriteSet<'db> {
    db: &'db DB,
    batch: WriteBatch,
    /// The family last written to, so that a run of writes to one family
    /// (a merge's blocks) looks its handle up once.
    last: Option<(Family, &'db ColumnFamily)>,
    /// The bytes of the key and value being written.
    key: Vec<u8>,
    value: Vec<u8>,
}

impl<'db> WriteSet<'db> {
    pub(super) fn new(db: &'db DB, capacity_bytes: usize) -> Self {
        WriteSet {
            db,
            batch: WriteBatch::with_capacity_bytes(capacity_bytes),
            last: None,
            key: Vec::new(),
            value: Vec::new(),
        }
    }

    fn handle(&mut self, family: Family) -> Result<&'db ColumnFamily> {
        match self.last {
            Some((last, handle)) if last == family => Ok(handle),
            _ => {
                let handle = family_handle(self.db, family)?;
                self.last = Some((family, handle));
                Ok(handle)
            }
        }
    }

    pub fn put(&mut self, record: Record<'_>) -> Result<()> {
        let key = record.key();
        let handle = self.handle(key.family())?;
        self.key.clear();
        key.encode(&mut self.key);
        self.value.clear();
        record.encode_value(&mut self.value);
        self.batch.put_cf(handle, &self.key, &self.value);
        Ok(())
    }

    pub fn delete(&mut self, key: Key<'_>) -> Result<()> {
        let handle = self.handle(key.family())?;
        self.key.clear();
        key.encode(&mut self.key);
        self.batch.delete_cf(handle, &self.key);
        Ok(())
    }

    /// Deletes every key of `family` with one range deletion (a delete per
    /// key would cost a memtable insert each and leave tombstones that
    /// every open steps over until compaction).
    pub fn clear(&mut self, family: Family) -> Result<()> {
        let handle = self.handle(family)?;
        self.batch
            .delete_range_cf(handle, &[][..], &PAST_EVERY_KEY[..]);
        Ok(())
    }

    pub(super) fn into_inner(self) -> WriteBatch {
        self.batch
    }
}
