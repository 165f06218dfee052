//! Upgrading a database of format 1 or 2 to the current format, in
//! place, on a writable open.
//!
//! Format 2 changed only how metadata is framed (docs/FORMAT.md): the
//! manifest with its design and code books, and every table's directory.
//! Format 3 added each block's first key to the directories. Blocks, ids
//! and the delta are the same in all three, so the upgrade rewrites the
//! `meta` entries that changed, all in one synced write batch: a crash
//! leaves the database wholly in its old format or wholly in the new one.
//! An upgraded directory's first keys are the loosest bounds its last
//! keys give (one above the previous block's last key): exact, as bounds
//! go, but they save no reads until a merge or a load rewrites the blocks.

use crate::error::Result;
use crate::manifest::{self, Manifest, FORMAT_VERSION};
use crate::store::{Key, Record, Store};
use crate::tables::{read_directory, read_manifest};

/// Rewrites the store's manifest and directories in the current format if
/// they are older; returns the format the store held.
pub(crate) fn to_current(store: &Store) -> Result<u32> {
    // Only an older manifest needs reading whole here: a current one is
    // read and checked by the open that follows (every writable open
    // passes here, so a current database pays one peek, not two decodes).
    let claimed = store
        .get(Key::Manifest)?
        .and_then(|bytes| Manifest::claimed_format(&bytes));
    if claimed.is_none_or(|format| format >= FORMAT_VERSION) {
        return Ok(FORMAT_VERSION);
    }
    let stored = read_manifest(store)?;
    let mut batch = store.write_set(0);
    let manifest = stored.manifest.to_bytes().map_err(manifest::damage)?;
    batch.put(Record::Manifest(&manifest))?;
    for table in 0..store.tables() {
        let directory = read_directory(store, table, stored.version)?;
        batch.put(Record::Directory {
            table,
            bytes: &directory.to_bytes(),
        })?;
    }
    store.write_synced(batch)?;
    Ok(stored.version)
}
