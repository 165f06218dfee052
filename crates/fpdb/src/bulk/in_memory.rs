//! A bulk load's fast path, when every document fits in memory: both id
//! families written from the buffer, side by side when a sorted copy of
//! the (fingerprint, id) pairs fits beside it, else one after the other
//! with the buffer itself re-sorted by fingerprint.

use std::path::{Path, PathBuf};

use fpdb_simhash::Fingerprint;
use rayon::prelude::*;

use super::build::Fingerprints;
use super::documents::Documents;
use super::memory::pairs_fit_beside;
use super::tables::BuiltTable;
use super::{BulkLoader, Sorted};
use crate::error::{Error, Result};
use crate::radix;
use crate::store::{Family, Record, SstFile};

/// Files per id family written from memory: more than the cores, so that
/// the parts of both families, which start and end at different times,
/// keep every core busy to the end.
const ID_FILE_PARTS: usize = 4;

/// Both id families' files and the distinct fingerprints, ascending.
type IdFamilies = (Vec<PathBuf>, Vec<PathBuf>, Vec<u64>);

impl BulkLoader<'_> {
    /// The fast path, when every document fits in memory: sort the ids,
    /// write both id families from the buffer, then build the tables from
    /// the distinct fingerprints alone.
    pub(super) fn load_in_memory(&mut self) -> Result<(Sorted, Vec<BuiltTable>)> {
        let mut owned = std::mem::take(&mut self.buffer);
        owned.sort_and_dedup_ids();
        let count = owned.entries().len();
        if u32::try_from(count).is_err() {
            return Err(Error::LimitExceeded {
                what: format!("{count} documents in memory (at most 2^32 - 1); lower memory_bytes"),
            });
        }
        let dir = self.work.path.as_path();
        let (id_files, fp_files, fps) = if pairs_fit_beside(owned.bytes(), count, self.memory_bytes)
        {
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
}

/// The id families' files, and the distinct fingerprints, of a buffer
/// sorted by id, with memory to spare ([`PAIR_SORT_BYTES`] a document):
/// the `id_fp` files are written while the (fingerprint, id) pairs are
/// sorted and their `fp_ids` files written, so neither core waits for the
/// other (the `id_fp` files' zstd takes longer).
///
/// [`PAIR_SORT_BYTES`]: super::memory::PAIR_SORT_BYTES
fn write_id_families_beside(dir: &Path, buffer: &Documents) -> Result<IdFamilies> {
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
///
/// [`DISTINCT_BYTES`]: super::memory::DISTINCT_BYTES
fn write_id_families_in_place(dir: &Path, buffer: &mut Documents) -> Result<IdFamilies> {
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
