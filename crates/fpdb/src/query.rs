//! One query: every stored fingerprint within `k` bits of a fingerprint,
//! with the ids of each.
//!
//! The codec's engine ([`engine::probe`]) permutes the query per table,
//! takes the range of keys sharing its prefix, asks the directory which
//! blocks hold it (usually one) and compares; this module is where those
//! keys come from ([`StoreSource`]: kept blocks, the store, the delta's
//! added keys). Fingerprints the delta removed are dropped, then each
//! hit's ids are read.

use std::ops::Range;

use fpdb_codec::{engine, BlockDirectory, BlockSource};
use fpdb_simhash::{Fingerprint, WeakBits};

use crate::block_fetch::{fetch, Need};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::tables::{State, Tables};

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
pub(crate) fn matching_fingerprints(
    store: &Store,
    tables: &Tables,
    state: &State,
    fp: Fingerprint,
    k: u32,
) -> Result<Vec<(Fingerprint, u32)>> {
    live_found(store, tables, state, |source, found| {
        engine::probe(&tables.design, source, fp, k, found)
    })
}

/// The stored fingerprints within `radius` of `fp` that the weak bits
/// `weak` reach ([`engine::weak_bit_flips`]), with their distances.
pub(crate) fn probed_fingerprints(
    store: &Store,
    tables: &Tables,
    state: &State,
    fp: Fingerprint,
    weak: WeakBits,
    most_flipped: u32,
    radius: u32,
) -> Result<Vec<(Fingerprint, u32)>> {
    let flips = weak_bit_flips(tables, weak, most_flipped)?;
    live_found(store, tables, state, |source, found| {
        engine::probe_flips(&tables.design, source, fp, &flips, radius, found)
    })
}

/// Each table's flip sets for weak bits `weak`, at most `most_flipped` of
/// them in a quarter ([`engine::weak_bit_flips`]); a design without
/// quarter tables under a confirmation keeping weak bits is damage
/// (create and open refuse it).
pub(crate) fn weak_bit_flips(
    tables: &Tables,
    weak: WeakBits,
    most_flipped: u32,
) -> Result<Vec<Vec<u64>>> {
    engine::weak_bit_flips(&tables.design, weak, most_flipped).ok_or_else(|| {
        Error::corrupt(
            "manifest",
            "a confirmation keeping weak bits over a design without quarter tables",
        )
    })
}

/// What `probe` finds in the tables, less the fingerprints the delta
/// removed.
fn live_found(
    store: &Store,
    tables: &Tables,
    state: &State,
    probe: impl FnOnce(&mut StoreSource<'_>, &mut Vec<(Fingerprint, u32)>) -> Result<()>,
) -> Result<Vec<(Fingerprint, u32)>> {
    let mut found = Vec::new();
    let mut source = StoreSource {
        store,
        tables,
        state,
        keys: Vec::new(),
    };
    probe(&mut source, &mut found)?;
    found.retain(|&(f, _)| !state.delta.is_removed(f));
    Ok(found)
}

/// The tables as the engine reads them: kept blocks from memory (from
/// their sync point nearest the range, only up to its end), other blocks
/// from the store, and the delta's added keys.
struct StoreSource<'a> {
    store: &'a Store,
    tables: &'a Tables,
    state: &'a State,
    /// Keys of the last block read from the store.
    keys: Vec<u64>,
}

impl BlockSource for StoreSource<'_> {
    type Error = Error;

    #[inline]
    fn directory(&self, table: usize) -> Option<&BlockDirectory> {
        self.state.directories.get(table)
    }

    #[inline]
    fn touch_block(&self, table: usize, block: usize, lo: u64) -> u64 {
        self.state
            .blocks
            .get(table, block)
            .map_or(0, |kept| kept.touch(lo))
    }

    #[inline]
    fn touch_bytes(&self, table: usize, block: usize, lo: u64, hi: u64) -> u64 {
        self.state
            .blocks
            .get(table, block)
            .map_or(0, |kept| kept.touch_probe(lo, hi))
    }

    fn for_each_in_range<F: FnMut(u64)>(
        &mut self,
        table: usize,
        blocks: Range<usize>,
        lo: u64,
        hi: u64,
        visit: &mut F,
    ) -> Result<()> {
        let StoreSource {
            store,
            tables,
            state,
            keys,
        } = self;
        if !blocks.is_empty() {
            let code = tables.code(table)?;
            let need = Need::Range { lo, hi };
            for block in blocks {
                if fetch(store, state, code, (table, block), need, keys, visit)?.past_range {
                    break;
                }
            }
        }
        state.delta.added_in(table, lo, hi).for_each(visit);
        Ok(())
    }
}
