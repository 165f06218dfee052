//! Every table of a bulk load, built from the distinct fingerprints: in
//! memory, as many tables at once as the budget holds, or, when the set
//! is too large for even one, one at a time through sorted runs.

use super::memory::tables_at_once;
use super::progress::Ticker;
use super::runs::{decode_number_key, Runs};
use super::tables::{self, BuiltTable, KeyBuffers};
use super::BulkLoader;
use crate::error::Result;
use rayon::prelude::*;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The distinct fingerprints, ascending.
pub(super) enum Fingerprints {
    Memory(Vec<u64>),
    Spilled(Runs),
}

impl BulkLoader<'_> {
    /// Builds the tables from the fingerprint set of a load: in memory,
    /// as many at once as the budget holds (see [`tables_at_once`]), or,
    /// when the set is too large for even one, one at a time through
    /// sorted runs.
    pub(super) fn build_tables(&mut self, fps: Fingerprints) -> Result<Vec<BuiltTable>> {
        let ticker = Ticker::new(
            self.progress.take(),
            self.documents,
            self.tables.design.tables().len(),
        );
        let tables = match &fps {
            Fingerprints::Memory(fps) => self.build_in_rounds(fps, &ticker),
            Fingerprints::Spilled(run) => self.build_through_runs(run, &ticker),
        };
        self.progress = ticker.into_progress();
        tables
    }

    /// The tables of a set in memory, in rounds of as many at once as the
    /// budget holds, and never more than threads (more would only hold
    /// more memory).
    fn build_in_rounds(&self, fps: &[u64], ticker: &Ticker<'_>) -> Result<Vec<BuiltTable>> {
        let dir = self.work.path.as_path();
        let block_bytes = self.tables.block_bytes;
        let design = &self.tables.design;
        let at_once = tables_at_once(self.memory_bytes, fps.len() as u64)
            .clamp(1, rayon::current_num_threads());
        let mut built = Vec::with_capacity(design.tables().len());
        // One set of key buffers per table of a round, handed on to the
        // next round's tables.
        let buffers: Mutex<Vec<KeyBuffers>> = Mutex::new(Vec::with_capacity(at_once));
        for (round, tables) in design.tables().chunks(at_once).enumerate() {
            let round: Vec<Result<BuiltTable>> = tables
                .par_iter()
                .enumerate()
                .map(|(offset, table)| {
                    let index = round * at_once + offset;
                    let mut own = lock(&buffers).pop().unwrap_or_default();
                    let table =
                        tables::build_in_memory(dir, index, table, fps, block_bytes, &mut own);
                    lock(&buffers).push(own);
                    ticker.tick();
                    table
                })
                .collect();
            built.extend(round);
        }
        built.into_iter().collect()
    }

    /// The tables of a set spilled as a run, one at a time.
    fn build_through_runs(&self, run: &Runs, ticker: &Ticker<'_>) -> Result<Vec<BuiltTable>> {
        let dir = self.work.path.as_path();
        let block_bytes = self.tables.block_bytes;
        // A run sorts its keys with a scratch copy: 16 bytes per key.
        let run_keys = (self.memory_bytes / 16).max(1024);
        self.tables
            .design
            .tables()
            .iter()
            .enumerate()
            .map(|(index, table)| {
                let fps = run.merge()?.map(|record| decode_number_key(&record?.0.key));
                let built = tables::build_external(dir, index, table, fps, run_keys, block_bytes);
                ticker.tick();
                built
            })
            .collect()
    }
}

/// The pool of key buffers; a panic elsewhere leaves its buffers usable.
fn lock(buffers: &Mutex<Vec<KeyBuffers>>) -> MutexGuard<'_, Vec<KeyBuffers>> {
    buffers.lock().unwrap_or_else(PoisonError::into_inner)
}
