//! A write batch applied in key order.
//!
//! RocksDB's memtable is a skip list. A batch of random keys (ids and
//! fingerprints are both random) inserted in arrival order costs a cache
//! miss at most levels of every insert; inserted in key order, each
//! insert's search path is mostly the one the previous insert just
//! walked, still in cache. The order is stable, so two writes of the same
//! key keep their order (the later one wins, as in a `WriteBatch`).

use rocksdb::{ColumnFamily, WriteBatch};

/// Writes to one batch, sorted by (family, key) when turned into a
/// `WriteBatch`.
#[derive(Debug, Default)]
pub(crate) struct SortedBatch {
    writes: Vec<Write>,
}

#[derive(Debug)]
struct Write {
    /// Index into the families passed to [`SortedBatch::into_write_batch`].
    family: usize,
    key: Vec<u8>,
    /// `None` deletes the key.
    value: Option<Vec<u8>>,
}

impl SortedBatch {
    pub fn put(&mut self, family: usize, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) {
        self.writes.push(Write {
            family,
            key: key.into(),
            value: Some(value.into()),
        });
    }

    pub fn delete(&mut self, family: usize, key: impl Into<Vec<u8>>) {
        self.writes.push(Write {
            family,
            key: key.into(),
            value: None,
        });
    }

    /// The writes in (family, key) order; `families[i]` is family `i`.
    /// Writes naming a family that is not there are dropped (callers pass
    /// indexes of their own constant list).
    pub fn into_write_batch(mut self, families: &[&ColumnFamily]) -> WriteBatch {
        self.writes
            .sort_by(|a, b| (a.family, &a.key).cmp(&(b.family, &b.key)));
        let mut batch = WriteBatch::default();
        for write in self.writes {
            let Some(family) = families.get(write.family) else {
                continue;
            };
            match write.value {
                Some(value) => batch.put_cf(*family, write.key, value),
                None => batch.delete_cf(*family, write.key),
            }
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_writes_of_a_key_still_win() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = rocksdb::Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let db = rocksdb::DB::open_cf(&options, dir.path(), ["a", "b"]).unwrap();
        let (a, b) = (db.cf_handle("a").unwrap(), db.cf_handle("b").unwrap());
        let mut batch = SortedBatch::default();
        batch.put(1, b"z".to_vec(), b"1".to_vec());
        batch.put(0, b"k".to_vec(), b"first".to_vec());
        batch.delete(0, b"k".to_vec());
        batch.put(0, b"a".to_vec(), b"x".to_vec());
        batch.put(0, b"k".to_vec(), b"last".to_vec());
        batch.put(1, b"gone".to_vec(), b"2".to_vec());
        batch.delete(1, b"gone".to_vec());
        db.write(batch.into_write_batch(&[a, b])).unwrap();
        assert_eq!(db.get_cf(a, b"k").unwrap().as_deref(), Some(&b"last"[..]));
        assert_eq!(db.get_cf(a, b"a").unwrap().as_deref(), Some(&b"x"[..]));
        assert_eq!(db.get_cf(b, b"z").unwrap().as_deref(), Some(&b"1"[..]));
        assert_eq!(db.get_cf(b, b"gone").unwrap(), None);
    }
}
