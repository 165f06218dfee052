//! Writing RocksDB SST files for a column family, and ingesting them.
//!
//! The loader never puts keys one by one through the write path: it
//! writes each column family's sorted keys straight into SST files (with
//! the family's own options, so filters match) and hands the files to
//! RocksDB, which links them into the tree.

use std::path::{Path, PathBuf};

use rocksdb::SstFileWriter;

use super::error::storage;
use super::families;
use super::keys::{Family, Record};
use crate::error::{Error, Result};

/// An SST file being written for column family `family`.
pub(crate) struct SstFile {
    family: Family,
    options: rocksdb::Options,
    path: PathBuf,
    keys: u64,
}

impl SstFile {
    /// A file compressed as the family's own files are: a table's blocks
    /// not at all (they are compressed already), the id families with
    /// zstd or LZ4. Files the loader or a backup ingests sit in the last
    /// level, where no compaction would compress them later.
    pub fn new(dir: &Path, family: Family, part: usize) -> SstFile {
        SstFile {
            family,
            options: families::options(family, None),
            path: dir.join(format!("{}-{part:04}.sst", family.name())),
            keys: 0,
        }
    }

    /// Writes the file: `fill` gets a `put(record)` to call with records
    /// of the file's family in ascending, distinct key order (for
    /// `fp_ids`: by fingerprint, then by the id's bytes). Returns the
    /// file's path, or `None` when nothing was put.
    pub fn write(
        self,
        fill: impl FnOnce(&mut dyn FnMut(Record<'_>) -> Result<()>) -> Result<()>,
    ) -> Result<Option<PathBuf>> {
        let (family, path) = (self.family, self.path.clone());
        let (mut key_bytes, mut value_bytes) = (Vec::new(), Vec::new());
        self.write_bytes(|put| {
            fill(&mut |record| {
                let key = record.key();
                if key.family() != family {
                    return Err(Error::corrupt(
                        format!("SST file {}", path.display()),
                        format!("a {} entry", key.family().name()),
                    ));
                }
                key_bytes.clear();
                key.encode(&mut key_bytes);
                value_bytes.clear();
                record.encode_value(&mut value_bytes);
                put(&key_bytes, &value_bytes)
            })
        })
    }

    /// [`SstFile::write`] of entries as stored (a backup's copy).
    pub(super) fn write_bytes(
        mut self,
        fill: impl FnOnce(&mut dyn FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()>,
    ) -> Result<Option<PathBuf>> {
        let path = self.path.clone();
        let what = move || format!("SST file {}", path.display());
        let mut writer = SstFileWriter::create(&self.options);
        writer.open(&self.path).map_err(storage(what.clone()))?;
        let keys = &mut self.keys;
        fill(&mut |key, value| {
            *keys += 1;
            writer.put(key, value).map_err(storage(what.clone()))
        })?;
        if self.keys == 0 {
            // RocksDB refuses to finish an empty SST file.
            drop(writer);
            let _ = std::fs::remove_file(&self.path);
            return Ok(None);
        }
        writer.finish().map_err(storage(what))?;
        Ok(Some(self.path))
    }
}
