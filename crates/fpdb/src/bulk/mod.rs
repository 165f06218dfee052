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

mod documents;
mod runs;
mod tables;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fpdb_codec::HuffmanCode;
use fpdb_simhash::{Fingerprint, Simhasher};
use rayon::prelude::*;

use self::documents::{Documents, ENTRY_BYTES};
use self::runs::{decode_number_key, decode_pair_key, number_key, pair_key, RunRecord, Runs};
use self::tables::BuiltTable;
use crate::block_cache::BlockCache;
use crate::error::{Error, Result};
use crate::merge::merge;
use crate::radix;
use crate::rule::{Confirmation, Document};
use crate::store::{Counter, Family, Key, Record, SstFile, Store, BULK_SCRATCH_DIR};
use crate::tables::{read_manifest, Tables};
use crate::write::validate_id;
use fpdb_fingerprint::MAX_ID_BYTES;

/// Files per id family written from memory: more than the cores, so that
/// the parts of both families, which start and end at different times,
/// keep every core busy to the end.
const ID_FILE_PARTS: usize = 4;

/// Whether the document buffer is full: finishing a load in memory holds
/// the buffer and, beside it, the set of distinct fingerprints (at most
/// one a document; see [`write_id_families_in_place`]). A full buffer is
/// spilled as a sorted run.
fn buffer_full(buffer: &Documents, memory_bytes: usize) -> bool {
    buffer.bytes() + buffer.entries().len() * DISTINCT_BYTES >= memory_bytes
}

/// The least memory a bulk load may use by default.
const MIN_DEFAULT_MEMORY_BYTES: usize = 1 << 30;
/// The most memory a bulk load may use by default (a larger budget could
/// hold more documents in memory than one sort takes, 2^32 - 1).
const MAX_DEFAULT_MEMORY_BYTES: usize = 32 << 30;

/// A quarter of the machine's memory, between 1 and 32 GiB (1 GiB when
/// the machine does not say, as on systems without `/proc/meminfo`). The
/// budget is only a bound: a load holds what its documents need, and
/// spills sorted runs to disk beyond it, which took 10M URL-like ids from
/// 10.5 s to 18-21 s at a fixed 1 GiB.
pub fn default_memory_bytes() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| total_memory_bytes(&meminfo));
    total.map_or(MIN_DEFAULT_MEMORY_BYTES, |total| {
        (total / 4).clamp(MIN_DEFAULT_MEMORY_BYTES, MAX_DEFAULT_MEMORY_BYTES)
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn total_memory_bytes(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let kib: usize = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then(|| kib.saturating_mul(1024))
}

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

type ProgressFn<'db> = Box<dyn FnMut(&BulkProgress) + Send + 'db>;

/// Loads documents into an empty database; see the [module docs](self).
/// Nothing is visible in the database before [`BulkLoader::finish`];
/// dropping the loader leaves the database as it was.
pub struct BulkLoader<'db> {
    store: &'db Store,
    tables: &'db mut Tables,
    simhasher: &'db Simhasher,
    /// The database's second stage: texts are signed by it.
    confirmation: Option<Confirmation>,
    /// The length of its signatures; `None` when it keeps none.
    signature_bytes: Option<usize>,
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
    if pending != 0 {
        // Only removals of fingerprints that are gone: merge them away so
        // that the tables are empty too.
        merge(store, tables, &writer)?;
    }
    drop(writer);
    let work = WorkDir::create(match &options.temp_dir {
        Some(dir) => dir.join(format!("fpdb-bulk-{}", std::process::id())),
        None => store.path().join(BULK_SCRATCH_DIR),
    })?;
    let confirmation = tables.confirmation.clone();
    Ok(BulkLoader {
        signature_bytes: confirmation.as_ref().map(|c| c.layout().bytes()),
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
        let signature = match (&self.signature_bytes, document.signature_bytes()) {
            (Some(expected), given) if !given.is_empty() && given.len() != *expected => {
                return Err(Error::SignatureLayout {
                    expected: *expected,
                    got: given.len(),
                });
            }
            (Some(_), given) => given,
            (None, _) => &[],
        };
        self.push(id, document.fingerprint, signature)
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

    /// The fast path, when every document fits in memory: sort the ids,
    /// write both id families from the buffer, then build the tables from
    /// the distinct fingerprints alone.
    fn load_in_memory(&mut self) -> Result<(Sorted, Vec<BuiltTable>)> {
        let mut owned = std::mem::take(&mut self.buffer);
        owned.sort_and_dedup_ids();
        let count = owned.entries().len();
        if u32::try_from(count).is_err() {
            return Err(Error::LimitExceeded {
                what: format!("{count} documents in memory (at most 2^32 - 1); lower memory_bytes"),
            });
        }
        let dir = self.work.path.as_path();
        let (id_files, fp_files, fps) =
            if owned.bytes() + count * (PAIR_SORT_BYTES + DISTINCT_BYTES) <= self.memory_bytes {
                write_id_families_beside(dir, &owned)?
            } else {
                write_id_families_in_place(dir, &mut owned)?
            };
        // The documents are written; only the set is needed from here on.
        drop(owned);
        let fingerprints = fps.len() as u64;
        let tables = self.build_tables(Fingerprints::Memory(fps))?;
        let sorted = Sorted {
            spilled_runs: 0,
            ids: count as u64,
            fingerprints,
            id_files,
            fp_files,
        };
        Ok((sorted, tables))
    }

    /// The bounded-memory path: merge the spilled runs.
    fn sort_external(&mut self) -> Result<(Sorted, Fingerprints)> {
        if !self.buffer.is_empty() {
            self.spill()?;
        }
        // Its memory is the merges' now.
        self.buffer = Documents::default();
        let dir = self.work.path.clone();
        let budget = self.memory_bytes / 3;
        // 1. Ids: of equal ids, the last run's is the latest document.
        let mut fp_runs = Runs::with_payloads(&dir, "fp-ids");
        let mut fp_buffer = Documents::default();
        let mut ids = 0u64;
        let mut merged = self.id_runs.merge()?.peekable();
        let id_file = SstFile::new(&dir, Family::IdToFp, 0).write(|put| {
            let mut key = Vec::with_capacity(8 + MAX_ID_BYTES);
            while let Some(record) = merged.next() {
                let (mut latest, _) = record?;
                while let Some(Ok((next, _))) = merged.peek() {
                    if next.key != latest.key {
                        break;
                    }
                    if let Some(Ok((next, _))) = merged.next() {
                        latest = next;
                    }
                }
                let RunRecord {
                    key: id,
                    value: fp,
                    payload: signature,
                } = latest;
                ids += 1;
                put(Record::IdFp {
                    id: &id,
                    fp: Fingerprint(fp),
                })?;
                key.clear();
                pair_key(fp, &id, &mut key);
                fp_buffer.push(&key, fp, &signature);
                if fp_buffer.bytes() >= budget {
                    spill_sorted(&mut fp_buffer, &mut fp_runs)?;
                }
            }
            Ok(())
        })?;
        spill_sorted(&mut fp_buffer, &mut fp_runs)?;
        drop(fp_buffer);
        let (spilled_ids, spilled_fp_ids) = (self.id_runs.len(), fp_runs.len());
        self.id_runs.remove();

        // 2. Fingerprint → ids, each with its signature; in the same pass
        //    the distinct fingerprints, ascending, in memory when the
        //    tables can be built from them there (there are at most as
        //    many as ids).
        let collect = tables_at_once(self.memory_bytes, ids) > 0;
        let mut distinct: Vec<u64> = Vec::new();
        if collect {
            distinct.reserve_exact(usize::try_from(ids).unwrap_or(0));
        }
        let fp_file = SstFile::new(&dir, Family::FpToIds, 0).write(|put| {
            for record in fp_runs.merge()? {
                let (record, _) = record?;
                let (fp, id) = decode_pair_key(&record.key)?;
                if collect && distinct.last() != Some(&fp) {
                    distinct.push(fp);
                }
                put(Record::FpId {
                    fp: Fingerprint(fp),
                    id,
                    signature: &record.payload,
                })?;
            }
            Ok(())
        })?;
        let (fingerprints, fps) = if collect {
            fp_runs.remove();
            (distinct.len() as u64, Fingerprints::Memory(distinct))
        } else {
            // 3. Too many for memory: the distinct fingerprints as a run.
            let mut fps_run = Runs::new(&dir, "fps");
            let mut last_fp = None;
            let mut fingerprints = 0u64;
            fps_run.write(fp_runs.merge()?.filter_map(|record| {
                let fp = match record.and_then(|(record, _)| Ok(decode_pair_key(&record.key)?.0)) {
                    Ok(fp) => fp,
                    Err(e) => return Some(Err(e)),
                };
                if last_fp == Some(fp) {
                    return None;
                }
                last_fp = Some(fp);
                fingerprints += 1;
                Some(Ok((number_key(fp), 0)))
            }))?;
            fp_runs.remove();
            (fingerprints, Fingerprints::Spilled(fps_run))
        };
        let sorted = Sorted {
            spilled_runs: (spilled_ids + spilled_fp_ids) as u64,
            ids,
            fingerprints,
            id_files: id_file.into_iter().collect(),
            fp_files: fp_file.into_iter().collect(),
        };
        Ok((sorted, fps))
    }

    /// Builds the tables from the fingerprint set of a load that spilled:
    /// in memory, as many at once as the budget holds (see
    /// [`tables_at_once`]), or, when the set is too large for even one,
    /// one at a time through sorted runs.
    fn build_tables(&mut self, fps: Fingerprints) -> Result<Vec<BuiltTable>> {
        let dir = self.work.path.clone();
        let block_bytes = self.tables.block_bytes;
        let design = self.tables.design.clone();
        let ticker = Ticker::new(self.progress.take(), self.documents, design.tables().len());
        let tables = match &fps {
            Fingerprints::Memory(fps) => {
                // More at once than threads would only hold more memory.
                let at_once = tables_at_once(self.memory_bytes, fps.len() as u64)
                    .clamp(1, rayon::current_num_threads());
                let mut built = Vec::with_capacity(design.tables().len());
                for (round, tables) in design.tables().chunks(at_once).enumerate() {
                    let round: Vec<Result<BuiltTable>> = tables
                        .par_iter()
                        .enumerate()
                        .map(|(offset, table)| {
                            let index = round * at_once + offset;
                            let table =
                                tables::build_in_memory(&dir, index, table, fps, block_bytes);
                            ticker.tick();
                            table
                        })
                        .collect();
                    built.extend(round);
                }
                built.into_iter().collect()
            }
            Fingerprints::Spilled(run) => {
                // A run sorts its keys with a scratch copy: 16 bytes per key.
                let run_keys = (self.memory_bytes / 16).max(1024);
                design
                    .tables()
                    .iter()
                    .enumerate()
                    .map(|(index, table)| {
                        let fps = run.merge()?.map(|record| decode_number_key(&record?.0.key));
                        let built =
                            tables::build_external(&dir, index, table, fps, run_keys, block_bytes);
                        ticker.tick();
                        built
                    })
                    .collect()
            }
        };
        self.progress = ticker.into_progress();
        tables
    }
}

/// How many tables of `fingerprints` distinct fingerprints can be built
/// in memory at once within `memory_bytes`: the set itself takes 8 bytes
/// a fingerprint, and each table being built 16 more (its permuted keys
/// and their sort's scratch copy). 0 when not even one fits.
fn tables_at_once(memory_bytes: usize, fingerprints: u64) -> usize {
    let Ok(fingerprints) = usize::try_from(fingerprints.max(1)) else {
        return 0;
    };
    memory_bytes
        .saturating_sub(fingerprints.saturating_mul(8))
        .checked_div(fingerprints.saturating_mul(16))
        .unwrap_or(0)
}

/// Writes `items` as [`ID_FILE_PARTS`] SST files of `family`, in
/// parallel: `fill` puts one part's keys in order.
fn write_parts<T: Sync>(
    dir: &Path,
    family: Family,
    items: &[T],
    fill: impl Fn(&[T], &mut dyn FnMut(Record<'_>) -> Result<()>) -> Result<()> + Sync,
) -> Result<Vec<PathBuf>> {
    let written: Vec<Option<PathBuf>> = items
        .par_chunks(items.len().div_ceil(ID_FILE_PARTS).max(1))
        .enumerate()
        .map(|(part, items)| SstFile::new(dir, family, part).write(|put| fill(items, put)))
        .collect::<Result<_>>()?;
    Ok(written.into_iter().flatten().collect())
}

/// Bytes per document of the (fingerprint, id) pairs
/// [`write_id_families_beside`] sorts, with their sort's scratch copy.
const PAIR_SORT_BYTES: usize = 32;
/// Bytes per distinct fingerprint of the set the tables are built from.
const DISTINCT_BYTES: usize = 8;

/// The id families' files, and the distinct fingerprints, of a buffer
/// sorted by id, with memory to spare ([`PAIR_SORT_BYTES`] a document):
/// the `id_fp` files are written while the (fingerprint, id) pairs are
/// sorted and their `fp_ids` files written, so neither core waits for the
/// other (the `id_fp` files' zstd takes longer).
fn write_id_families_beside(
    dir: &Path,
    buffer: &Documents,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>, Vec<u64>)> {
    let entries = buffer.entries();
    let (id_files, fp_side) = rayon::join(
        || write_id_fp_files(dir, buffer),
        || -> Result<(Vec<PathBuf>, Vec<u64>)> {
            // (fingerprint, id's span); ties broken by the id bytes.
            let mut by_fp: Vec<(u64, u64)> = entries.iter().map(|e| (e.fp, e.span)).collect();
            radix::sort_by_key(
                &mut by_fp,
                &mut Vec::new(),
                |&(fp, _)| fp,
                |&(_, span)| buffer.id_at(span),
            );
            let fp_files = write_fp_ids_files(dir, buffer, &by_fp, |&pair| pair)?;
            let mut fps: Vec<u64> = by_fp.iter().map(|&(fp, _)| fp).collect();
            fps.dedup();
            Ok((fp_files, fps))
        },
    );
    let (id_files, (fp_files, fps)) = (id_files?, fp_side?);
    Ok((id_files, fp_files, fps))
}

/// [`write_id_families_beside`] within the buffer's own memory and
/// [`DISTINCT_BYTES`] a document: the `id_fp` files, then the buffer
/// sorted by fingerprint in place and the `fp_ids` files.
fn write_id_families_in_place(
    dir: &Path,
    buffer: &mut Documents,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>, Vec<u64>)> {
    let id_files = write_id_fp_files(dir, buffer)?;
    buffer.sort_by_fingerprint();
    let fp_files = write_fp_ids_files(dir, buffer, buffer.entries(), |e| (e.fp, e.span))?;
    let mut fps: Vec<u64> = buffer.entries().iter().map(|e| e.fp).collect();
    fps.dedup();
    fps.shrink_to_fit();
    Ok((id_files, fp_files, fps))
}

/// The `id_fp` files of a buffer sorted by id.
fn write_id_fp_files(dir: &Path, buffer: &Documents) -> Result<Vec<PathBuf>> {
    write_parts(dir, Family::IdToFp, buffer.entries(), |entries, put| {
        let pairs = entries.iter().map(|e| (e.fp, e.span));
        buffer.for_each_id(pairs, |id, fp, _| {
            put(Record::IdFp {
                id,
                fp: Fingerprint(fp),
            })
        })
    })
}

/// The `fp_ids` files of `items`, each a (fingerprint, id's span) by
/// `pair`, in fingerprint order.
fn write_fp_ids_files<T: Sync>(
    dir: &Path,
    buffer: &Documents,
    items: &[T],
    pair: impl Fn(&T) -> (u64, u64) + Sync,
) -> Result<Vec<PathBuf>> {
    write_parts(dir, Family::FpToIds, items, |items, put| {
        buffer.for_each_id(items.iter().map(&pair), |id, fp, signature| {
            put(Record::FpId {
                fp: Fingerprint(fp),
                id,
                signature,
            })
        })
    })
}

/// Reports tables written from whichever thread wrote them.
struct Ticker<'db> {
    state: Mutex<(u64, Option<ProgressFn<'db>>)>,
    documents: u64,
    total: u64,
}

impl<'db> Ticker<'db> {
    fn new(progress: Option<ProgressFn<'db>>, documents: u64, tables: usize) -> Self {
        let ticker = Ticker {
            state: Mutex::new((0, progress)),
            documents,
            total: tables as u64,
        };
        ticker.report(&mut ticker.lock());
        ticker
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, Option<ProgressFn<'db>>)> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn report(&self, state: &mut (u64, Option<ProgressFn<'db>>)) {
        let (done, progress) = state;
        if let Some(report) = progress.as_mut() {
            report(&BulkProgress {
                phase: BulkPhase::Writing,
                documents: self.documents,
                done: *done,
                total: self.total,
            });
        }
    }

    fn tick(&self) {
        let mut state = self.lock();
        state.0 += 1;
        self.report(&mut state);
    }

    fn into_progress(self) -> Option<ProgressFn<'db>> {
        self.state
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .1
    }
}

/// Spills a buffer keyed by `fingerprint ‖ id` as one sorted run.
fn spill_sorted(buffer: &mut Documents, runs: &mut Runs) -> Result<()> {
    if buffer.is_empty() {
        return Ok(());
    }
    buffer.sort_and_dedup_ids();
    let view = &*buffer;
    runs.write_with_payloads(
        view.entries()
            .iter()
            .map(|e| Ok((view.id(e), 0, view.signature(e)))),
    )?;
    buffer.clear();
    Ok(())
}

/// The distinct fingerprints, ascending.
enum Fingerprints {
    Memory(Vec<u64>),
    Spilled(Runs),
}

/// The id column families written, and the fingerprint set to build
/// tables from.
struct Sorted {
    /// Runs written to disk (ids, then fingerprint → id pairs).
    spilled_runs: u64,
    ids: u64,
    fingerprints: u64,
    id_files: Vec<PathBuf>,
    fp_files: Vec<PathBuf>,
}

/// Marks the load as in progress, then ingests every file. Returns each
/// table's code, directory and byte count for [`commit`].
fn ingest_all(
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
fn commit(
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
    state.blocks = BlockCache::new(&directories, tables.block_cache_bytes);
    state.directories = directories;
    state.table_bytes = table_bytes;
    state.fingerprints = fingerprints;
    state.ids = ids;
    Ok(())
}

/// A scratch directory removed when dropped.
#[derive(Debug)]
struct WorkDir {
    path: PathBuf,
}

impl WorkDir {
    fn create(path: PathBuf) -> Result<WorkDir> {
        // A directory left by a killed load holds nothing worth keeping.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(WorkDir { path })
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
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
    fn the_default_memory_is_a_quarter_of_memtotal_within_bounds() {
        let meminfo = |kib: usize| format!("MemTotal:       {kib} kB\nMemFree: 1 kB\n");
        assert_eq!(total_memory_bytes(&meminfo(24 << 20)), Some(24 << 30));
        for bad in [
            "",
            "MemFree: 1 kB\n",
            "MemTotal: many kB\n",
            "MemTotal: 5 MB\n",
        ] {
            assert_eq!(total_memory_bytes(bad), None, "{bad:?}");
        }
        let default = default_memory_bytes();
        assert!((MIN_DEFAULT_MEMORY_BYTES..=MAX_DEFAULT_MEMORY_BYTES).contains(&default));
        if let Some(total) = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|meminfo| total_memory_bytes(&meminfo))
        {
            assert_eq!(
                default,
                (total / 4).clamp(MIN_DEFAULT_MEMORY_BYTES, MAX_DEFAULT_MEMORY_BYTES)
            );
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
