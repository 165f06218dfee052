//! A write batch applied in key order.
//!
//! RocksDB's memtable is a skip list. A batch of random keys (ids and
//! fingerprints are both random) inserted in arrival order costs a cache
//! miss at most levels of every insert; inserted in key order, each
//! insert's search path is mostly the one the previous insert just
//! walked, still in cache. The order is stable, so two writes of the same
//! key keep their order (the later one wins, as in a `WriteBatch`).

use rocksdb::{ColumnFamily, WriteBatch};

use super::keys::{Family, Key, Record};
use crate::error::{Error, Result};

/// Writes to one batch, sorted by (family, key) when turned into a
/// `WriteBatch`. Keys and values are copied into one buffer (a batch of
/// 10,000 inserts makes 30,000 writes: no allocation each).
#[derive(Debug, Default)]
pub(crate) struct SortedBatch {
    bytes: Vec<u8>,
    writes: Vec<Write>,
}

#[derive(Debug)]
struct Write {
    family: Family,
    /// The key is `bytes[start..value]`, the value `bytes[value..end]`.
    start: usize,
    value: usize,
    end: usize,
    delete: bool,
}

/// Bytes a `WriteBatch` record takes beyond its key and value, at most
/// (tag, column family and two length varints).
pub(crate) const RECORD_OVERHEAD: usize = 16;

impl SortedBatch {
    pub fn put(&mut self, record: Record<'_>) {
        let start = self.bytes.len();
        let key = record.key();
        key.encode(&mut self.bytes);
        let value = self.bytes.len();
        record.encode_value(&mut self.bytes);
        self.push(key.family(), start, value, false);
    }

    pub fn delete(&mut self, key: Key<'_>) {
        let start = self.bytes.len();
        key.encode(&mut self.bytes);
        self.push(key.family(), start, self.bytes.len(), true);
    }

    /// Notes a write whose key is `bytes[start..value]` and value
    /// `bytes[value..]`.
    fn push(&mut self, family: Family, start: usize, value: usize, delete: bool) {
        self.writes.push(Write {
            family,
            start,
            value,
            end: self.bytes.len(),
            delete,
        });
    }

    /// The writes in (family, key) order; `handle` gives each family's
    /// handle (the families are looked up before the batch is built). A
    /// write to a family `handle` does not know is an error.
    pub fn into_write_batch<'h>(
        self,
        handle: impl Fn(Family) -> Option<&'h ColumnFamily>,
    ) -> Result<WriteBatch> {
        let bytes = self.bytes.as_slice();
        // (family, key, value, delete), each slice checked once.
        let mut writes = self
            .writes
            .iter()
            .map(|write| {
                let key = bytes.get(write.start..write.value);
                let value = bytes.get(write.value..write.end);
                match (key, value) {
                    (Some(key), Some(value)) => Ok((write.family, key, value, write.delete)),
                    _ => Err(Error::corrupt("a write batch", "a write past its bytes")),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        writes.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        // Each record adds a tag, a family id and two lengths to its bytes.
        let mut batch =
            WriteBatch::with_capacity_bytes(bytes.len() + writes.len() * RECORD_OVERHEAD);
        for (family, key, value, delete) in writes {
            let Some(handle) = handle(family) else {
                return Err(Error::corrupt(
                    format!("column family {}", family.name()),
                    "missing",
                ));
            };
            if delete {
                batch.delete_cf(handle, key);
            } else {
                batch.put_cf(handle, key, value);
            }
        }
        Ok(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_writes_of_a_key_still_win() {
        use fpdb_simhash::Fingerprint;

        use super::super::keys::{Counter, DeltaEntry};

        let dir = tempfile::tempdir().unwrap();
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let db = rocksdb::DB::open_cf(&options, dir.path(), ["meta", "delta"]).unwrap();
        let (meta, delta) = (
            db.cf_handle("meta").unwrap(),
            db.cf_handle("delta").unwrap(),
        );
        let (a, b) = (Fingerprint(1), Fingerprint(2));
        let mut batch = SortedBatch::default();
        batch.put(Record::Delta(DeltaEntry::Added(b)));
        batch.put(Record::Counter(Counter::Ids, 1));
        batch.delete(Key::Counter(Counter::Ids));
        batch.put(Record::Counter(Counter::Fingerprints, 5));
        batch.put(Record::Counter(Counter::Ids, 3));
        batch.put(Record::Delta(DeltaEntry::Removed(a)));
        batch.delete(Key::Delta(a));
        let handle = |family| match family {
            Family::Meta => Some(meta),
            Family::Delta => Some(delta),
            _ => None,
        };
        db.write(batch.into_write_batch(handle).unwrap()).unwrap();
        let get = |family, key: Key<'_>| db.get_cf(family, key.to_bytes()).unwrap();
        assert_eq!(
            get(meta, Key::Counter(Counter::Ids)),
            Some(3u64.to_be_bytes().to_vec())
        );
        assert_eq!(
            get(meta, Key::Counter(Counter::Fingerprints)),
            Some(5u64.to_be_bytes().to_vec())
        );
        assert_eq!(get(delta, Key::Delta(b)), Some(vec![1]));
        assert_eq!(get(delta, Key::Delta(a)), None);
    }
}
