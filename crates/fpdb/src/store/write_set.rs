//! A write batch applied in the order it was put: merges, loads and the
//! creation of a database (online writes use [`super::SortedBatch`]).

use rocksdb::{ColumnFamily, WriteBatch, DB};

use super::families::family_handle;
use super::keys::{Family, PAST_EVERY_KEY};
use crate::Result;

/// Writes that become one atomic RocksDB write ([`super::Store::write`]).
pub(crate) struct WriteSet<'db> {
    db: &'db DB,
    batch: WriteBatch,
    /// The family last written to, so that a run of writes to one family
    /// (a merge's blocks) looks its handle up once.
    last: Option<(Family, &'db ColumnFamily)>,
}

impl<'db> WriteSet<'db> {
    pub(super) fn new(db: &'db DB, capacity_bytes: usize) -> Self {
        WriteSet {
            db,
            batch: WriteBatch::with_capacity_bytes(capacity_bytes),
            last: None,
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

    pub fn put(
        &mut self,
        family: Family,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Result<()> {
        let handle = self.handle(family)?;
        self.batch.put_cf(handle, key, value);
        Ok(())
    }

    pub fn delete(&mut self, family: Family, key: impl AsRef<[u8]>) -> Result<()> {
        let handle = self.handle(family)?;
        self.batch.delete_cf(handle, key);
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
