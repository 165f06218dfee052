//! The native RocksDB build works: a real database with several column
//! families is created in a temporary directory, written, closed, reopened
//! and read back. If this fails, nothing else in fpdb can work.

use rocksdb::{ColumnFamilyDescriptor, Options, WriteBatch, DB};

#[test]
fn column_families_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let families = ["table-0", "table-1", "ids", "meta"];
    let mut options = Options::default();
    options.create_if_missing(true);
    options.create_missing_column_families(true);
    {
        let descriptors = families
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, Options::default()));
        let db = DB::open_cf_descriptors(&options, dir.path(), descriptors).unwrap();
        let mut batch = WriteBatch::default();
        for (i, name) in families.iter().enumerate() {
            let cf = db.cf_handle(name).unwrap();
            batch.put_cf(cf, (i as u64).to_be_bytes(), name.as_bytes());
        }
        db.write(batch).unwrap();
    }
    let listed = DB::list_cf(&options, dir.path()).unwrap();
    for name in families {
        assert!(
            listed.iter().any(|l| l == name),
            "{name} missing from {listed:?}"
        );
    }
    let db = DB::open_cf(&options, dir.path(), families).unwrap();
    for (i, name) in families.iter().enumerate() {
        let cf = db.cf_handle(name).unwrap();
        let value = db.get_cf(cf, (i as u64).to_be_bytes()).unwrap();
        assert_eq!(value.as_deref(), Some(name.as_bytes()));
    }
    // Compression libraries the project enabled are linked in.
    let mut compressed = Options::default();
    compressed.set_compression_type(rocksdb::DBCompressionType::Zstd);
    compressed.create_if_missing(true);
    let zdir = tempfile::tempdir().unwrap();
    let zdb = DB::open(&compressed, zdir.path()).unwrap();
    zdb.put(b"k", vec![7u8; 4096]).unwrap();
    zdb.flush().unwrap();
    assert_eq!(zdb.get(b"k").unwrap().map(|v| v.len()), Some(4096));
}
