//! Upgrading a database of format 1 to the current format, in place, on a
//! writable open.
//!
//! Format 2 changed only how metadata is framed (docs/FORMAT.md): the
//! manifest with its design and code books, and every table's directory.
//! Blocks, ids and the delta are the same, so the upgrade rewrites the
//! `meta` entries that changed, all in one synced write batch: a crash
//! leaves the database wholly in format 1 or wholly in format 2.

use fpdb_codec::format::legacy;

use crate::error::Result;
use crate::manifest::{self, FORMAT_VERSION};
use crate::store::keys::{directory_key, MANIFEST_KEY};
use crate::store::{Family, Store};
use crate::tables::{read_directory, read_manifest};

/// Rewrites the store's manifest and directories in the current format if
/// they are older; returns the format the store held (the current one
/// unless it held format 1).
pub(crate) fn to_current(store: &Store) -> Result<u32> {
    // Only a format-1 manifest needs reading whole here: any other is
    // read and checked by the open that follows (every writable open
    // passes here, so a current database pays one peek, not two decodes).
    let is_v1 = store
        .get(Family::Meta, MANIFEST_KEY)?
        .is_some_and(|bytes| legacy::is_manifest_v1(&bytes));
    if !is_v1 {
        return Ok(FORMAT_VERSION);
    }
    let stored = read_manifest(store)?;
    let mut batch = store.write_set(0);
    let manifest = stored.manifest.to_bytes().map_err(manifest::damage)?;
    batch.put(Family::Meta, MANIFEST_KEY, manifest)?;
    for index in 0..store.tables() {
        let directory = read_directory(store, index, stored.version)?;
        batch.put(Family::Meta, directory_key(index), directory.to_bytes())?;
    }
    store.write_synced(batch)?;
    Ok(stored.version)
}
