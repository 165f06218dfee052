//! Offline bulk loading: (id, fingerprint) pairs or (id, text) documents,
//! any number of them, into an empty database, without the per-key write
//! path.
//!
//! Documents are buffered in memory up to a budget and spilled as sorted
//! runs beyond it (an external sort). [`BulkLoader::finish`] then
//! 1. keeps the last document of every id, in id order, and writes the
//!    `id_fp` column family's SST file from that order;
//! 2. sorts the same pairs by fingerprint (stably, so ids stay in byte
//!    order) into the `fp_ids` SST and the distinct fingerprint set;
//! 3. per table: permutes and sorts the set, builds the table's Huffman
//!    code from its own first-differing-bit histogram, cuts full blocks and
//!    writes them into the table's SST;
//! 4. marks the load as in progress, ingests every file, then writes the
//!    manifest (new code books), directories and counters and clears the
//!    mark in one synced batch.
//!
//! A crash before that last batch leaves the mark behind; the next
//! writable open deletes whatever was ingested (the store's recovery), so
//! an interrupted load leaves the empty database it started from.

mod build;
mod commit;
mod documents;
mod external;
mod in_memory;
mod memory;
mod options;
mod progress;
mod runs;
mod tables;
mod work_dir;

use std::path::PathBuf;
use std::time::Instant;

use fpdb_simhash::{Fingerprint, Simhasher};
use rayon::prelude::*;

use self::commit::{commit, ingest_all};
use self::documents::{Documents, ENTRY_BYTES};
use self::memory::buffer_full;
pub use self::memory::default_memory_bytes;
pub use self::options::{BulkOptions, BulkPhase, BulkProgress, BulkSummary};
use self::progress::ProgressFn;
use self::runs::Runs;
use self::work_dir::WorkDir;
use crate::error::{Error, Result};
use crate::merge::{merge, Planning};
use crate::rule::{Confirmation, Document};
use crate::store::{Store, BULK_SCRATCH_DIR};
use crate::tables::Tables;
use crate::write::validate_id;

/// Loads documents into an empty database; see the [module docs](self).
/// Nothing is visible in the database before [`BulkLoader::finish`];
/// dropping the loader leaves the database as it was.
pub struct BulkLoader<'db> {
    store: &'db Store,
    tables: &'db mut Tables,
    simhasher: &'db Simhasher,
    /// The database's second stage: texts are signed by it.
    confirmation: Option<Confirmation>,
    /// Texts left out for having no features.
    featureless: u64,
    memory_bytes: usize,
    work: WorkDir,
    buffer: Documents,
    id_runs: Runs,
    documents: u64,
    progress: Option<ProgressFn<'db>>,
    started: Instant,
}

impl std::fmt::Debug for BulkLoader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkLoader")
            .field("db", &self.store.path())
            .field("documents", &self.documents)
            .field("spilled_runs", &self.id_runs.len())
            .finish_non_exhaustive()
    }
}

/// Starts a bulk load into an empty database ([`Error::NotEmpty`]
/// otherwise): loading rebuilds every table with a code fitted to the
/// data, which a populated database's online writes would have to be
/// merged into.
pub(crate) fn bulk_loader<'db>(
    store: &'db Store,
    tables: &'db mut Tables,
    simhasher: &'db Simhasher,
    options: BulkOptions,
) -> Result<BulkLoader<'db>> {
    let started = Instant::now();
    let writer = tables.lock_writer(store)?;
    let (fingerprints, ids, pending) = {
        let state = tables.read();
        (state.fingerprints, state.ids, state.delta.len())
    };
    if fingerprints != 0 || ids != 0 {
        return Err(Error::NotEmpty {
            path: store.path().to_path_buf(),
            fingerprints,
            ids,
        });
    }
    drop(writer);
    if pending != 0 {
        // Only removals of fingerprints that are gone: merge them away so
        // that the tables are empty too.
        merge(store, tables, Planning::Parallel)?;
    }
    let work = WorkDir::create(match &options.temp_dir {
        Some(dir) => dir.join(format!("fpdb-bulk-{}", std::process::id())),
        None => store.path().join(BULK_SCRATCH_DIR),
    })?;
    let confirmation = tables.confirmation.clone();
    Ok(BulkLoader {
        confirmation,
        featureless: 0,
        id_runs: Runs::with_payloads(&work.path, "ids"),
        store,
        tables,
        simhasher,
        memory_bytes: options.memory_bytes.max(1 << 16),
        work,
        buffer: Documents::default(),
        documents: 0,
        progress: None,
        started,
    })
}

impl<'db> BulkLoader<'db> {
    /// Calls `report` as the load goes on (every 65,536 documents while
    /// reading, then at each step of `finish`).
    pub fn set_progress(&mut self, report: impl FnMut(&BulkProgress) + Send + 'db) {
        self.progress = Some(Box::new(report));
    }

    /// Documents taken so far.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Takes document `id` with fingerprint `fp`. A later document with
    /// the same id replaces it.
    pub fn add(&mut self, id: &str, fp: Fingerprint) -> Result<()> {
        self.push(id, fp, &[])
    }

    /// Takes one document with its confirming signature, if it has one and
    /// the database confirms (a database without a confirmation keeps the
    /// fingerprint alone, as its online inserts do). The same id again
    /// replaces the earlier document.
    pub fn add_document(&mut self, id: &str, document: &Document) -> Result<()> {
        if let (Some(confirmation), Some(signature)) = (&self.confirmation, &document.signature) {
            let expected = confirmation.layout().bytes();
            if signature.as_bytes().len() != expected {
                return Err(Error::SignatureLayout {
                    expected,
                    got: signature.as_bytes().len(),
                });
            }
        }
        let stored = document.stored_bytes(self.confirmation.as_ref());
        self.push(id, document.fingerprint, &stored)
    }

    fn push(&mut self, id: &str, fp: Fingerprint, signature: &[u8]) -> Result<()> {
        validate_id(id)?;
        self.buffer.push(id.as_bytes(), fp.0, signature);
        self.documents += 1;
        if buffer_full(&self.buffer, self.memory_bytes) {
            self.spill()?;
        }
        if self.documents.is_multiple_of(65_536) {
            self.report(BulkPhase::Reading, 0, 0);
        }
        Ok(())
    }

    /// Takes every `(id, fingerprint)` of an iterator; stops at the first
    /// bad id.
    pub fn add_all<S: AsRef<str>>(
        &mut self,
        documents: impl IntoIterator<Item = (S, Fingerprint)>,
    ) -> Result<()> {
        for (id, fp) in documents {
            self.add(id.as_ref(), fp)?;
        }
        Ok(())
    }

    /// Takes `(id, text)` documents, fingerprinting the texts in parallel
    /// with the database's options. In a confirming database each text is
    /// also signed, and a text without features is left out (counted in
    /// [`BulkSummary::featureless`]); elsewhere it is stored with the
    /// fingerprint 0, as online inserts store it.
    pub fn add_texts(&mut self, documents: &[(&str, &str)]) -> Result<()> {
        for (id, _) in documents {
            validate_id(id)?;
        }
        let simhasher = self.simhasher;
        let Some(confirmation) = self.confirmation.as_ref() else {
            let fps: Vec<Fingerprint> = documents
                .par_iter()
                .map(|(_, text)| simhasher.fingerprint(text))
                .collect();
            for ((id, _), fp) in documents.iter().zip(fps) {
                self.add(id, fp)?;
            }
            return Ok(());
        };
        let made: Vec<Option<Document>> = documents
            .par_iter()
            .map(|(_, text)| Document::of_text(simhasher, Some(confirmation), text).ok())
            .collect();
        for ((id, _), document) in documents.iter().zip(&made) {
            match document {
                Some(document) => self.add_document(id, document)?,
                None => self.featureless += 1,
            }
        }
        Ok(())
    }

    fn report(&mut self, phase: BulkPhase, done: u64, total: u64) {
        let documents = self.documents;
        if let Some(report) = self.progress.as_mut() {
            report(&BulkProgress {
                phase,
                documents,
                done,
                total,
            });
        }
    }

    /// Writes the buffer as one sorted run of unique ids, each with its
    /// fingerprint and signature.
    fn spill(&mut self) -> Result<()> {
        self.buffer.sort_and_dedup_ids();
        let buffer = &self.buffer;
        self.id_runs.write_with_payloads(
            buffer
                .entries()
                .iter()
                .map(|entry| Ok((buffer.id(entry), entry.fp, buffer.signature(entry)))),
        )?;
        self.buffer.clear();
        Ok(())
    }

    /// Sorts, writes and ingests everything taken, then makes it the
    /// database's content in one atomic write.
    pub fn finish(mut self) -> Result<BulkSummary> {
        let reading = self.started.elapsed();
        self.report(BulkPhase::Sorting, 0, 0);
        let (sorted, tables) = if self.id_runs.len() == 0 {
            self.load_in_memory()?
        } else {
            let (sorted, fps) = self.sort_external()?;
            let tables = self.build_tables(fps)?;
            (sorted, tables)
        };
        let sorted_and_written = self.started.elapsed();
        self.report(BulkPhase::Ingesting, 0, 0);
        let tables = ingest_all(self.store, sorted.id_files, sorted.fp_files, tables)?;
        commit(
            self.store,
            self.tables,
            tables,
            sorted.ids,
            sorted.fingerprints,
        )?;
        let elapsed = self.started.elapsed();
        Ok(BulkSummary {
            documents: self.documents,
            ids: sorted.ids,
            fingerprints: sorted.fingerprints,
            spilled_runs: sorted.spilled_runs,
            featureless: self.featureless,
            reading,
            writing: sorted_and_written.saturating_sub(reading),
            ingesting: elapsed.saturating_sub(sorted_and_written),
            elapsed,
        })
    }
}

/// The id column families written, and the fingerprint set to build
/// tables from.
pub(super) struct Sorted {
    /// Runs written to disk (ids, then fingerprint → id pairs).
    pub spilled_runs: u64,
    pub ids: u64,
    pub fingerprints: u64,
    pub id_files: Vec<PathBuf>,
    pub fp_files: Vec<PathBuf>,
}

const _: () = assert!(ENTRY_BYTES == 24);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Db, Options};

    impl BulkLoader<'_> {
        /// `finish` up to the last atomic write, as a crash would leave it.
        fn finish_without_commit(mut self) {
            let (sorted, tables) = self.load_in_memory().unwrap();
            ingest_all(self.store, sorted.id_files, sorted.fp_files, tables).unwrap();
        }
    }

    #[test]
    fn an_interrupted_load_is_rolled_back_on_the_next_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut db = Db::create(&path, Options::default()).unwrap();
        let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
        for i in 0..1000u64 {
            loader
                .add(
                    &format!("doc-{i}"),
                    Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                )
                .unwrap();
        }
        loader.finish_without_commit();
        drop(db);

        assert!(matches!(
            crate::OpenOptions::new().read_only(true).open(&path),
            Err(Error::InterruptedLoad { .. })
        ));
        let db = Db::open(&path).unwrap();
        assert_eq!(db.get("doc-1").unwrap(), None);
        assert_eq!(db.export().unwrap().count(), 0);
        assert!(db.query(Fingerprint(0), 3).unwrap().is_empty());
        assert_eq!(db.stats().fingerprints, 0);
        assert!(!path.join(BULK_SCRATCH_DIR).exists());
        drop(db);
        // Nothing of the interrupted load comes back later either, and the
        // database takes a new load.
        let mut db = Db::open(&path).unwrap();
        assert_eq!(db.export().unwrap().count(), 0);
        let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
        loader.add("only", Fingerprint(7)).unwrap();
        loader.finish().unwrap();
        let all: Vec<_> = db.export().unwrap().map(Result::unwrap).collect();
        assert_eq!(all, [("only".to_string(), Fingerprint(7))]);
        assert_eq!(db.query(Fingerprint(7), 0).unwrap()[0].ids, ["only"]);
    }
}
