//! The end of a bulk load: its files ingested, then made the database's
//! content in one synced write.

use std::path::PathBuf;

use fpdb_codec::HuffmanCode;

use super::tables::BuiltTable;
use crate::block_cache::BlockCache;
use crate::error::Result;
use crate::store::{Counter, Family, Key, Record, Store};
use crate::tables::{read_manifest, Tables};

/// Marks the load as in progress, then ingests every file. Returns each
/// table's code, directory and byte count for [`commit`].
pub(super) fn ingest_all(
    store: &Store,
    id_files: Vec<PathBuf>,
    fp_files: Vec<PathBuf>,
    tables: Vec<BuiltTable>,
) -> Result<Vec<BuiltTable>> {
    store.mark_loading()?;
    store.ingest(Family::IdToFp, id_files)?;
    store.ingest(Family::FpToIds, fp_files)?;
    tables
        .into_iter()
        .enumerate()
        .map(|(index, mut table)| {
            store.ingest(Family::Table(index), table.sst.take().into_iter().collect())?;
            Ok(table)
        })
        .collect()
}

/// Makes the ingested files the database's content: new code books,
/// directories and counters, and the mark cleared, in one synced write.
pub(super) fn commit(
    store: &Store,
    tables: &mut Tables,
    built: Vec<BuiltTable>,
    ids: u64,
    fingerprints: u64,
) -> Result<()> {
    let mut codes = Vec::with_capacity(built.len());
    let mut directories = Vec::with_capacity(built.len());
    let mut table_bytes = Vec::with_capacity(built.len());
    for table in built {
        codes.push(table.code);
        directories.push(table.directory);
        table_bytes.push(table.bytes);
    }
    let mut manifest = read_manifest(store)?.manifest;
    manifest.codes = codes.iter().map(HuffmanCode::to_bytes).collect();
    let mut batch = store.write_set(0);
    batch.put(Record::Manifest(&manifest.to_bytes()?))?;
    for (table, (directory, &bytes)) in directories.iter().zip(&table_bytes).enumerate() {
        batch.put(Record::Directory {
            table,
            bytes: &directory.to_bytes(),
        })?;
        batch.put(Record::Counter(Counter::TableBytes(table), bytes))?;
    }
    batch.put(Record::Counter(Counter::Fingerprints, fingerprints))?;
    batch.put(Record::Counter(Counter::Ids, ids))?;
    batch.delete(Key::Loading)?;
    store.write_synced(batch)?;

    tables.codes = codes;
    let mut state = tables.write();
    state.blocks = std::sync::Arc::new(BlockCache::new(&directories, tables.block_cache_bytes));
    state.directories = directories;
    state.table_bytes = table_bytes;
    state.fingerprints = fingerprints;
    state.ids = ids;
    Ok(())
}
