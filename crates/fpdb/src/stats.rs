//! What a database holds and what it costs.

use std::path::PathBuf;

use fpdb_codec::bits_per_fingerprint;
use fpdb_html::Extract;
use fpdb_simhash::{SimhashOptions, Simhasher};

use crate::rule::Confirmation;
use crate::store::{Family, Store};
use crate::tables::Tables;

/// Counts and sizes of a database, cheap to compute (no block is read).
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// The database's directory.
    pub path: PathBuf,
    /// Distinct fingerprints stored.
    pub fingerprints: u64,
    /// Document ids stored.
    pub ids: u64,
    /// Largest distance answered.
    pub k: u32,
    /// The table design's name.
    pub design: String,
    /// Per table.
    pub tables: Vec<TableStats>,
    /// Memory of the in-memory block directories.
    pub directory_bytes: usize,
    /// Memory of the table blocks kept in memory
    /// (`OpenOptions::block_cache_bytes`).
    pub block_cache_bytes: usize,
    /// Fingerprints added since the last merge.
    pub delta_added: usize,
    /// Fingerprints removed since the last merge.
    pub delta_removed: usize,
    /// How text is fingerprinted.
    pub simhash: SimhashOptions,
    /// Which text of an HTML page is fingerprinted.
    pub extract: Extract,
    /// The second stage of the match rule, if documents are confirmed.
    pub confirmation: Option<Confirmation>,
    /// The number of weighted features of the learned weights, when text
    /// is weighted by them.
    pub learned_features: Option<usize>,
    /// Expected keys per probe of the table with the shortest prefix: far
    /// above one block's worth (~170) means the database has outgrown its
    /// design.
    pub candidates_per_probe: f64,
    /// Keys one block holds on average (0 when no block is written yet).
    pub keys_per_block: f64,
    /// What RocksDB's live SST files of the two id families (`id_fp` and
    /// `fp_ids`) take on disk, as [`TableStats::disk_bytes`] counts them.
    pub ids_disk_bytes: u64,
    /// What the operator should know, e.g. that the database has outgrown
    /// its design; empty when all is well.
    pub warnings: Vec<String>,
}

/// A probe reading more than this many blocks' worth of keys means the
/// table prefixes are too short for the number of fingerprints.
const OUTGROWN_BLOCKS_PER_PROBE: f64 = 4.0;

/// One permuted table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableStats {
    /// Leading bits a query must share with a key in this table.
    pub prefix_bits: u32,
    /// Compressed blocks.
    pub blocks: usize,
    /// Bytes of all blocks.
    pub bytes: u64,
    /// Block bytes × 8 / fingerprints in the blocks (0 when empty).
    pub bits_per_fingerprint: f64,
    /// What RocksDB's own live SST files of the table's column family
    /// take on disk (`rocksdb.live-sst-files-size`): the blocks plus
    /// RocksDB's index, filter and framing, plus replaced blocks that
    /// compaction has not dropped yet; writes still in memtables are not
    /// counted. 0 if RocksDB does not say.
    pub disk_bytes: u64,
}

/// Counts and sizes; reads no block.
pub(crate) fn stats(
    store: &Store,
    tables: &Tables,
    simhasher: &Simhasher,
    extract: Extract,
) -> Stats {
    let state = tables.read();
    let fingerprints = usize::try_from(state.fingerprints).unwrap_or(usize::MAX);
    let in_blocks = (fingerprints.saturating_add(state.delta.removed_len()))
        .saturating_sub(state.delta.added_len());
    let design = &tables.design;
    let table_stats = design
        .tables()
        .iter()
        .zip(&state.directories)
        .zip(&state.table_bytes)
        .enumerate()
        .map(|(index, ((table, directory), &bytes))| TableStats {
            prefix_bits: table.prefix_bits(),
            blocks: directory.len(),
            bytes,
            disk_bytes: store.live_sst_bytes(Family::Table(index)),
            bits_per_fingerprint: if in_blocks == 0 {
                0.0
            } else {
                bits_per_fingerprint(usize::try_from(bytes).unwrap_or(usize::MAX), in_blocks)
            },
        })
        .collect();
    let blocks: usize = state.directories.iter().map(|d| d.len()).sum();
    let keys_per_block = if blocks == 0 {
        0.0
    } else {
        (in_blocks * design.tables().len()) as f64 / blocks as f64
    };
    let candidates_per_probe = design.expected_candidates_per_probe(state.fingerprints);
    let mut warnings = Vec::new();
    if keys_per_block > 0.0 && candidates_per_probe > OUTGROWN_BLOCKS_PER_PROBE * keys_per_block {
        warnings.push(format!(
                "the database has outgrown its design {}: a query probe reads about {candidates_per_probe:.0} keys, \
                 {:.0} blocks of about {keys_per_block:.0} keys, so queries are slow. Create a new database with a \
                 larger --expected (about {}), load it with `fpdb export OLD | fpdb load NEW`, and use NEW",
                design.name(),
                candidates_per_probe / keys_per_block,
                state.fingerprints.saturating_mul(4),
            ));
    }
    Stats {
        path: store.path().to_path_buf(),
        fingerprints: state.fingerprints,
        ids: state.ids,
        k: tables.k,
        design: design.name(),
        tables: table_stats,
        directory_bytes: state.directories.iter().map(|d| d.len() * 8).sum(),
        block_cache_bytes: state.blocks.bytes(),
        delta_added: state.delta.added_len(),
        delta_removed: state.delta.removed_len(),
        simhash: simhasher.options(),
        extract,
        confirmation: tables.confirmation.clone(),
        learned_features: simhasher.learned_idf().map(|idf| idf.len()),
        candidates_per_probe,
        keys_per_block,
        ids_disk_bytes: store.live_sst_bytes(Family::IdToFp)
            + store.live_sst_bytes(Family::FpToIds),
        warnings,
    }
}
