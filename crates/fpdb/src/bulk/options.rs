//! What a bulk load is asked to do and what it reports: its options,
//! progress and summary.

use std::path::PathBuf;
use std::time::Duration;

use super::memory::default_memory_bytes;

/// How a bulk load may use memory and disk.
///
/// ```
/// let options = fpdb::BulkOptions::default().memory_bytes(256 << 20);
/// assert_eq!(options.memory_bytes, 256 << 20);
/// assert!(fpdb::BulkOptions::default().memory_bytes >= 1 << 30);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BulkOptions {
    /// Memory the loader may hold for buffered documents and sorting;
    /// beyond it, sorted runs are spilled to `temp_dir`. Default:
    /// [`default_memory_bytes`], a quarter of the machine's memory.
    pub memory_bytes: usize,
    /// Where runs and SST files are written before ingestion; default a
    /// `bulk.tmp` directory inside the database.
    pub temp_dir: Option<PathBuf>,
}

impl Default for BulkOptions {
    fn default() -> Self {
        BulkOptions {
            memory_bytes: default_memory_bytes(),
            temp_dir: None,
        }
    }
}

impl BulkOptions {
    /// Sets [`BulkOptions::memory_bytes`].
    pub fn memory_bytes(mut self, bytes: usize) -> Self {
        self.memory_bytes = bytes;
        self
    }

    /// Sets [`BulkOptions::temp_dir`].
    pub fn temp_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.temp_dir = Some(dir.into());
        self
    }
}

/// What the loader is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkPhase {
    /// Taking documents (`add`, `add_texts`).
    Reading,
    /// Sorting ids and fingerprints, writing the id column families.
    Sorting,
    /// Building tables: `done` of `total` written.
    Writing,
    /// Handing the files to RocksDB.
    Ingesting,
}

/// A progress report, passed to the callback of [`BulkLoader::set_progress`].
#[derive(Debug, Clone, Copy)]
pub struct BulkProgress {
    /// The current phase.
    pub phase: BulkPhase,
    /// Documents taken so far.
    pub documents: u64,
    /// Steps of the phase done (tables written while `Writing`).
    pub done: u64,
    /// Steps of the phase in all (0 when unknown).
    pub total: u64,
}

/// What a finished load did.
#[derive(Debug, Clone)]
pub struct BulkSummary {
    /// Documents taken (repeated ids included).
    pub documents: u64,
    /// Distinct ids stored.
    pub ids: u64,
    /// Distinct fingerprints stored.
    pub fingerprints: u64,
    /// Sorted runs written to disk because the memory budget was full
    /// (0: everything was sorted in memory).
    pub spilled_runs: u64,
    /// Texts left out for having no features, in a confirming database
    /// (elsewhere such a text is stored with the fingerprint 0).
    pub featureless: u64,
    /// Time taking documents (from `bulk_loader` to `finish`).
    pub reading: Duration,
    /// Time sorting and writing the SST files.
    pub writing: Duration,
    /// Time ingesting the files and committing.
    pub ingesting: Duration,
    /// Time from `bulk_loader` to the end of `finish`.
    pub elapsed: Duration,
}
