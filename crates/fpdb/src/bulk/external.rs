//! A bulk load's bounded-memory path: the documents spilled to disk as
//! sorted runs are merged into both id families, and the distinct
//! fingerprints kept in memory when the tables can be built there, else
//! spilled as a run too.

use std::path::{Path, PathBuf};

use fpdb_fingerprint::MAX_ID_BYTES;
use fpdb_simhash::Fingerprint;

use super::build::Fingerprints;
use super::documents::Documents;
use super::memory::tables_at_once;
use super::runs::{decode_pair_key, number_key, pair_key, RunRecord, Runs};
use super::{BulkLoader, Sorted};
use crate::error::Result;
use crate::store::{Family, Record, SstFile};

impl BulkLoader<'_> {
    /// The bounded-memory path: merge the spilled runs.
    pub(super) fn sort_external(&mut self) -> Result<(Sorted, Fingerprints)> {
        if !self.buffer.is_empty() {
            self.spill()?;
        }
        // Its memory is the merges' now.
        self.buffer = Documents::default();
        let dir = self.work.path.clone();
        let budget = self.memory_bytes / 3;
        let mut fp_runs = Runs::with_payloads(&dir, "fp-ids");
        let (ids, id_file) = latest_of_each_id(&self.id_runs, &dir, budget, &mut fp_runs)?;
        let (spilled_ids, spilled_fp_ids) = (self.id_runs.len(), fp_runs.len());
        self.id_runs.remove();
        // The distinct fingerprints are kept in memory when the tables can
        // be built from them there (there are at most as many as ids).
        let mut distinct = (tables_at_once(self.memory_bytes, ids) > 0)
            .then(|| Vec::with_capacity(usize::try_from(ids).unwrap_or(0)));
        let fp_file = ids_of_each_fingerprint(&fp_runs, &dir, distinct.as_mut())?;
        let (fingerprints, fps) = match distinct {
            Some(distinct) => {
                fp_runs.remove();
                (distinct.len() as u64, Fingerprints::Memory(distinct))
            }
            None => {
                let (fingerprints, run) = distinct_fingerprints(fp_runs, &dir)?;
                (fingerprints, Fingerprints::Spilled(run))
            }
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

/// Step 2: the `fp_ids` file, fingerprint → ids, each with its signature;
/// in the same pass the distinct fingerprints, ascending, pushed onto
/// `distinct` when it is given.
fn ids_of_each_fingerprint(
    fp_runs: &Runs,
    dir: &Path,
    mut distinct: Option<&mut Vec<u64>>,
) -> Result<Option<PathBuf>> {
    SstFile::new(dir, Family::FpToIds, 0).write(|put| {
        for record in fp_runs.merge()? {
            let (record, _) = record?;
            let (fp, id) = decode_pair_key(&record.key)?;
            if let Some(distinct) = distinct.as_deref_mut() {
                if distinct.last() != Some(&fp) {
                    distinct.push(fp);
                }
            }
            put(Record::FpId {
                fp: Fingerprint(fp),
                id,
                signature: &record.payload,
            })?;
        }
        Ok(())
    })
}

/// Step 3, when the set is too large for memory: the distinct
/// fingerprints, ascending, as a run on disk, and how many. The pairs'
/// runs are removed once read.
fn distinct_fingerprints(mut fp_runs: Runs, dir: &Path) -> Result<(u64, Runs)> {
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
    Ok((fingerprints, fps_run))
}
