//! One query: every stored fingerprint within `k` bits of a fingerprint,
//! with the ids of each.
//!
//! Per table: permute the query, take the range of keys sharing its
//! prefix, ask the directory which blocks hold it (usually one), decode
//! them (a kept block from its sync point nearest the range, only up to
//! its end), compare on permuted keys, probe the delta's added keys with
//! the same range; keep a hit only in the first table sharing its prefix
//! and drop fingerprints the delta removed. Then read each hit's ids.

use fpdb_codec::{BlockDecoder, ChecksumPolicy, TableMatcher};
use fpdb_simhash::Fingerprint;

use crate::error::{Error, Result};
use crate::store::Store;
use crate::tables::{block_damage, read_block, State, Tables};

/// A stored fingerprint within the asked distance of a query, with the ids
/// of every document that has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The stored fingerprint.
    pub fingerprint: Fingerprint,
    /// Its Hamming distance to the query.
    pub distance: u32,
    /// The documents with this fingerprint, in byte order.
    pub ids: Vec<String>,
}

/// One table's part of a query: the permuted query, the range of keys
/// sharing its prefix, and the blocks that can hold them.
struct TableProbe {
    query: u64,
    lo: u64,
    hi: u64,
    /// The directory group holding `lo` (the first step of the search).
    group: usize,
    blocks: std::ops::Range<usize>,
}

/// Every stored fingerprint within `k` of `fp`, nearest first (ties by
/// fingerprint), each with its ids; `state` is held for reading.
pub(crate) fn query(
    store: &Store,
    tables: &Tables,
    state: &State,
    fp: Fingerprint,
    k: u32,
) -> Result<Vec<Match>> {
    let found = matching_fingerprints(store, tables, state, fp, k)?;
    with_ids(store, found)
}

/// Sorts (fingerprint, distance) nearest first and attaches each
/// fingerprint's ids.
pub(crate) fn with_ids(store: &Store, mut found: Vec<(Fingerprint, u32)>) -> Result<Vec<Match>> {
    found.sort_unstable_by_key(|&(f, d)| (d, f));
    let mut matches = Vec::with_capacity(found.len());
    if found.is_empty() {
        return Ok(matches);
    }
    store.with_id_scanner(|scanner| {
        for (fingerprint, distance) in found {
            let ids = scanner.ids_of(fingerprint)?;
            // A fingerprint whose last id is being removed right now has
            // no ids: it is already gone.
            if !ids.is_empty() {
                matches.push(Match {
                    fingerprint,
                    distance,
                    ids,
                });
            }
        }
        Ok(matches)
    })
}

/// (fingerprint, distance) of every member of the set within `k`.
fn matching_fingerprints(
    store: &Store,
    tables: &Tables,
    state: &State,
    fp: Fingerprint,
    k: u32,
) -> Result<Vec<(Fingerprint, u32)>> {
    let mut found = Vec::new();
    let mut keys = Vec::new();
    let probes = locate_probes(tables, state, fp);
    for (index, probe) in probes.into_iter().enumerate() {
        let TableProbe {
            query,
            lo,
            hi,
            blocks,
            ..
        } = probe;
        let matcher = TableMatcher::new(&tables.design, index, k)
            .ok_or_else(|| Error::corrupt(format!("design of table {index}"), "missing"))?;
        let mut consider = |key: u64| {
            if let Some(hit) = matcher.probe(key, query, fp) {
                found.push(hit);
            }
        };
        if !blocks.is_empty() {
            let code = tables.code(index)?;
            let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
            // Kept blocks passed their checksum when they were read.
            let trusted = BlockDecoder::new(code, ChecksumPolicy::Skip);
            for block in blocks {
                let past_hi = match state.blocks.get(index, block) {
                    Some(kept) => trusted
                        .for_each_in_range(&kept.bytes, &kept.sync, lo, hi, &mut consider)
                        .map_err(|e| block_damage(index, block, &e))?,
                    None => {
                        let bytes = read_block(store, state, index, block)?;
                        if state.blocks.admit(index, block, bytes.len()) {
                            // Decoded whole (and checked) once, to keep it
                            // with its sync points.
                            decoder
                                .decode(&bytes, &mut keys)
                                .map_err(|e| block_damage(index, block, &e))?;
                            state.blocks.keep(index, block, &bytes, &keys, code);
                        } else {
                            decoder
                                .decode_until(&bytes, hi, &mut keys)
                                .map_err(|e| block_damage(index, block, &e))?;
                        }
                        keys.iter()
                            .filter(|&&key| key >= lo && key <= hi)
                            .for_each(|&key| consider(key));
                        // (A decode that stopped at `hi` says nothing about
                        // later blocks: look at them.)
                        keys.last().is_some_and(|&last| last > hi)
                    }
                };
                if past_hi {
                    break;
                }
            }
        }
        state.delta.added_in(index, lo, hi).for_each(&mut consider);
    }
    found.retain(|&(f, _)| !state.delta.is_removed(f));
    Ok(found)
}

/// Each table's permuted query, prefix range and blocks to read.
///
/// Finding them takes a chain of dependent cache misses per table
/// (directory group, the group's keys, the kept blocks' slots, their
/// bytes). Each step is taken for every table before the next, so the
/// tables' misses overlap instead of adding up.
fn locate_probes(tables: &Tables, state: &State, fp: Fingerprint) -> Vec<TableProbe> {
    let directories = &state.directories;
    let mut probes: Vec<TableProbe> = tables
        .design
        .tables()
        .iter()
        .zip(directories)
        .map(|(table, directory)| {
            let query = table.permutation().permute(fp.0);
            let (lo, hi) = table.prefix_range(query);
            TableProbe {
                query,
                lo,
                hi,
                group: directory.group_for(lo),
                blocks: 0..0,
            }
        })
        .collect();
    let mut touched = 0u64;
    for (directory, probe) in directories.iter().zip(&probes) {
        touched ^= directory.touch_group(probe.group);
    }
    for (index, (probe, directory)) in probes.iter_mut().zip(directories).enumerate() {
        if probe.lo <= probe.hi {
            probe.blocks = directory.locate_in_group(probe.group, probe.lo, probe.hi);
        }
        for block in probe.blocks.clone() {
            if let Some(kept) = state.blocks.get(index, block) {
                touched ^= kept.touch(probe.lo);
            }
        }
    }
    std::hint::black_box(touched);
    probes
}
