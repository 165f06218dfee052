//! Writing RocksDB SST files for a column family, and ingesting them.
//!
//! The loader never puts keys one by one through the write path: it
//! writes each column family's sorted keys straight into SST files (with
//! the family's own options, so filters match) and hands the files to
//! RocksDB, which links them into the tree.

use std::path::{Path, PathBuf};

use rocksdb::{IngestExternalFileOptions, SstFileWriter};

use crate::db::family_options;
use crate::{Db, Error, Result};

/// An SST file being written for column family `family`.
pub(crate) struct SstFile {
    options: rocksdb::Options,
    path: PathBuf,
    keys: u64,
}

impl SstFile {
    pub fn new(dir: &Path, family: &str, part: usize) -> SstFile {
        SstFile {
            options: {
                let mut options = family_options(family, None);
                // Fingerprints are random bytes LZ4 cannot shrink, and
                // compressing cost a tenth of the load; compactions of
                // later writes compress as the family says.
                options.set_compression_type(rocksdb::DBCompressionType::None);
                options
            },
            path: dir.join(format!("{family}-{part:04}.sst")),
            keys: 0,
        }
    }

    /// Writes the file: `fill` gets a `put(key, value)` to call with
    /// ascending, distinct keys. Returns the file's path, or `None` when
    /// nothing was put.
    pub fn write(
        mut self,
        fill: impl FnOnce(&mut dyn FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()>,
    ) -> Result<Option<PathBuf>> {
        let mut writer = SstFileWriter::create(&self.options);
        writer.open(&self.path)?;
        let keys = &mut self.keys;
        fill(&mut |key, value| {
            *keys += 1;
            Ok(writer.put(key, value)?)
        })?;
        if self.keys == 0 {
            // RocksDB refuses to finish an empty SST file.
            drop(writer);
            let _ = std::fs::remove_file(&self.path);
            return Ok(None);
        }
        writer.finish()?;
        Ok(Some(self.path))
    }
}

impl Db {
    /// Ingests finished SST files into column family `family`, moving
    /// (hard-linking) them rather than copying.
    pub(crate) fn ingest(&self, family: &str, files: Vec<PathBuf>) -> Result<()> {
        if files.is_empty() {
            return Ok(());
        }
        let cf = self
            .rocks
            .cf_handle(family)
            .ok_or_else(|| Error::corrupt(format!("column family {family}"), "missing"))?;
        let mut options = IngestExternalFileOptions::default();
        options.set_move_files(true);
        self.rocks
            .ingest_external_file_cf_opts(cf, &options, files)?;
        Ok(())
    }
}
