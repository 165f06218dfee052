//! A bulk load's bounded-memory path: the documents spilled to disk as
//! sorted runs are merged, and the tables built from a fingerprint set
//! that may not fit in memory either.

use std::path::{Path, PathBuf};

use fpdb_fingerprint::MAX_ID_BYTES;
use fpdb_simhash::Fingerprint;

use super::documents::Documents;
use super::progress::Ticker;
use super::runs::{decode_number_key, decode_pair_key, number_key, pair_key, RunRecord, Runs};
use super::tables::{self, BuiltTable};
use super::{BulkLoader, Sorted};
use crate::error::Result;
use crate::store::{Family, Record, SstFile};

impl BulkLoader<'_> {
    /// The bounded-memory path: merge the spilled runs.
    pub(super) fn sort_external(&mut self) -> Result<(Sorted, Fingerprints)> {
        if !self.buffer.is_empty() {
            self.spill()?;
        }
        let dir = self.work.path.clone();
        let budget = self.memory_bytes / 3;
        let mut fp_runs = Runs::with_payloads(&dir, "fp-ids");
        let (ids, id_file) = latest_of_each_id(&self.id_runs, &dir, budget, &mut fp_runs)?;
        let (spilled_ids, spilled_fp_ids) = (self.id_runs.len(), fp_runs.len());
        self.id_runs.remove();
        let fp_file = ids_of_each_fingerprint(&fp_runs, &dir)?;
        let (fingerprints, fps) = distinct_fingerprints(fp_runs, &dir, budget)?;
        let sorted = Sorted {
            spilled_runs: (spilled_ids + spilled_fp_ids) as u64,
            ids,
            fingerprints,
            id_files: id_file.into_iter().collect(),
            fp_files: fp_file.into_iter().collect(),
        };
        Ok((sorted, fps))
    }

    /// Builds the tables from a fingerprint set that did not fit in
    /// memory with everything else: one table at a time.
    pub(super) fn build_tables(&mut self, fps: Fingerprints) -> Result<Vec<BuiltTable>> {
        let dir = self.work.path.clone();
        let block_bytes = self.tables.block_bytes;
        let design = self.tables.design.clone();
        let ticker = Ticker::new(self.progress.take(), self.documents, design.tables().len());
        // A run sorts its keys with a scratch copy: 16 bytes per key.
        let run_keys = (self.memory_bytes / 16).max(1024);
        let tables = design
            .tables()
            .iter()
            .enumerate()
            .map(|(index, table)| {
                let built = match &fps {
                    Fingerprints::Memory(fps) => {
                        tables::build_in_memory(&dir, index, table, fps, block_bytes)
                    }
                    Fingerprints::Spilled(run) => {
                        let fps = run.merge()?.map(|record| decode_number_key(&record?.0.key));
                        tables::build_external(&dir, index, table, fps, run_keys, block_bytes)
                    }
                };
                ticker.tick();
                built
            })
            .collect();
        self.progress = ticker.into_progress();
        tables
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

/// The 8-byte keys of `runs`, merged.
fn read_keys(runs: &Runs) -> Result<Vec<u64>> {
    runs.merge()?
        .map(|record| decode_number_key(&record?.0.key))
        .collect()
}

/// The distinct fingerprints, ascending.
pub(super) enum Fingerprints {
    Memory(Vec<u64>),
    Spilled(Runs),
}

/// Step 1, the ids: writes the latest document of each id (of equal ids,
/// the last run's) into the `id_fp` file, and spills its (fingerprint, id)
/// pairs with their signatures into `fp_runs`, `budget` bytes at a time.
/// Returns the number of ids and the file.
fn latest_of_each_id(
    id_runs: &Runs,
    dir: &Path,
    budget: usize,
    fp_runs: &mut Runs,
) -> Result<(u64, Option<PathBuf>)> {
    let mut fp_buffer = Documents::default();
    let mut ids = 0u64;
    let mut merged = id_runs.merge()?.peekable();
    let id_file = SstFile::new(dir, Family::IdToFp, 0).write(|put| {
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
                spill_sorted(&mut fp_buffer, fp_runs)?;
            }
        }
        Ok(())
    })?;
    spill_sorted(&mut fp_buffer, fp_runs)?;
    Ok((ids, id_file))
}

/// Step 2: the `fp_ids` file, fingerprint → ids, each with its signature.
fn ids_of_each_fingerprint(fp_runs: &Runs, dir: &Path) -> Result<Option<PathBuf>> {
    SstFile::new(dir, Family::FpToIds, 0).write(|put| {
        for record in fp_runs.merge()? {
            let (record, _) = record?;
            let (fp, id) = decode_pair_key(&record.key)?;
            put(Record::FpId {
                fp: Fingerprint(fp),
                id,
                signature: &record.payload,
            })?;
        }
        Ok(())
    })
}

/// Step 3: the distinct fingerprints, ascending, and how many: in memory
/// when they fit in `budget` (with room to sort a table's keys), else as a
/// run on disk. The pairs' runs are removed once read.
fn distinct_fingerprints(
    mut fp_runs: Runs,
    dir: &Path,
    budget: usize,
) -> Result<(u64, Fingerprints)> {
    let mut fps_run = Runs::new(dir, "fps");
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
    let in_memory =
        usize::try_from(fingerprints).is_ok_and(|count| count.saturating_mul(8 * 4) <= budget);
    let fps = if in_memory {
        let fps = read_keys(&fps_run)?;
        fps_run.remove();
        Fingerprints::Memory(fps)
    } else {
        Fingerprints::Spilled(fps_run)
    };
    Ok((fingerprints, fps))
}
