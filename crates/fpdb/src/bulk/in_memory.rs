//! A bulk load's fast path, when every document fits in memory.

use std::path::{Path, PathBuf};

use fpdb_simhash::Fingerprint;
use rayon::prelude::*;

use super::progress::Ticker;
use super::tables::{self, BuiltTable};
use super::{BulkLoader, Sorted};
use crate::error::{Error, Result};
use crate::radix;
use crate::store::{Family, Record, SstFile};

/// Files per id family written from memory: more than the cores, so that
/// the parts of both families, which start and end at different times,
/// keep every core busy to the end.
const ID_FILE_PARTS: usize = 4;

impl BulkLoader<'_> {
    /// The fast path, when every document fits in memory: sort the ids;
    /// write the `id_fp` files while the (fingerprint, id) pairs are
    /// sorted and their `fp_ids` files written; then build the tables in
    /// parallel from the set alone.
    pub(super) fn load_in_memory(&mut self) -> Result<(Sorted, Vec<BuiltTable>)> {
        let mut owned = std::mem::take(&mut self.buffer);
        owned.sort_and_dedup_ids();
        let buffer = &owned;
        let entries = buffer.entries();
        if u32::try_from(entries.len()).is_err() {
            return Err(Error::LimitExceeded {
                what: format!(
                    "{} documents in memory (at most 2^32 - 1); lower memory_bytes",
                    entries.len()
                ),
            });
        }
        let dir = self.work.path.as_path();
        // Several files per id family. The `fp_ids` files are written as soon
        // as the pairs are sorted by fingerprint, beside the `id_fp` files
        // (whose zstd takes longer), so neither core waits for the other.
        let (id_files, fp_side) = rayon::join(
            || {
                write_parts(dir, Family::IdToFp, entries, |entries, put| {
                    let pairs = entries.iter().map(|e| (e.fp, e.span));
                    buffer.for_each_id(pairs, |id, fp, _| {
                        put(Record::IdFp {
                            id,
                            fp: Fingerprint(fp),
                        })
                    })
                })
            },
            || -> Result<(Vec<PathBuf>, Vec<u64>)> {
                // (fingerprint, id's span); ties broken by the id bytes.
                let mut by_fp: Vec<(u64, u64)> = entries.iter().map(|e| (e.fp, e.span)).collect();
                radix::sort_by_key(
                    &mut by_fp,
                    &mut Vec::new(),
                    |&(fp, _)| fp,
                    |&(_, span)| buffer.id_at(span),
                );
                let fp_files = write_parts(dir, Family::FpToIds, &by_fp, |pairs, put| {
                    buffer.for_each_id(pairs.iter().copied(), |id, fp, signature| {
                        put(Record::FpId {
                            fp: Fingerprint(fp),
                            id,
                            signature,
                        })
                    })
                })?;
                let mut fps: Vec<u64> = by_fp.iter().map(|&(fp, _)| fp).collect();
                fps.dedup();
                Ok((fp_files, fps))
            },
        );
        let (id_files, (fp_files, fps)) = (id_files?, fp_side?);
        let ids = entries.len() as u64;
        // The documents are written; only the set is needed from here on.
        drop(owned);

        let design = self.tables.design.clone();
        let block_bytes = self.tables.block_bytes;
        let ticker = Ticker::new(self.progress.take(), self.documents, design.tables().len());
        let built: Vec<Result<BuiltTable>> = design
            .tables()
            .par_iter()
            .enumerate()
            .map(|(index, table)| {
                let built = tables::build_in_memory(dir, index, table, &fps, block_bytes);
                ticker.tick();
                built
            })
            .collect();
        self.progress = ticker.into_progress();
        let sorted = Sorted {
            spilled_runs: 0,
            ids,
            fingerprints: fps.len() as u64,
            id_files,
            fp_files,
        };
        Ok((sorted, built.into_iter().collect::<Result<_>>()?))
    }
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
