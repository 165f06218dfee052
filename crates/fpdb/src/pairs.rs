//! Every near-duplicate pair inside a database.
//!
//! Each table is already sorted under its permutation, so the pairs come
//! from one sequential pass per table: decode the blocks in directory
//! order, merge in the delta's added keys (also sorted per table), leave
//! out removed fingerprints, and hand the keys to the codec's
//! [`PairScan`], which compares only keys that share the table's prefix
//! (consecutive "runs"). By the pigeonhole design every pair within
//! `k` shares the prefix in some table; it is reported by the first such
//! table only, so nothing is de-duplicated afterwards and memory holds one
//! block and one run, not the set.
//!
//! Documents that share one fingerprint are near-duplicates at distance 0;
//! they are found by one scan of the fingerprint → ids column family, which
//! also yields the ids of the paired fingerprints. When the counters say no
//! fingerprint has two ids and there are few pairs, the ids are read by
//! seeking one iterator to each paired fingerprint in order instead.

use std::collections::HashMap;

use fpdb_codec::dedup::FingerprintPair;
use fpdb_codec::{BlockDecoder, ChecksumPolicy, PairScan};
use fpdb_simhash::Fingerprint;

use crate::block_fetch::block_damage;
use crate::error::Result;
use crate::progress::Progress;
use crate::store::Store;
use crate::tables::{State, Tables};

/// Every near-duplicate pair of stored fingerprints within `k`, each once,
/// with the ids of each side, plus every fingerprint shared by several
/// documents as a pair with itself; sorted by `(a, b)`.
pub(crate) fn near_pairs(
    store: &Store,
    tables: &Tables,
    k: u32,
    progress: &dyn Progress,
) -> Result<Vec<FingerprintPair>> {
    tables.check_k(k)?;
    let state = tables.read();
    let removed: Vec<Fingerprint> = state.delta.removed_fingerprints().collect();
    let mut found = Vec::new();
    let blocks = (0..tables.design.tables().len())
        .filter_map(|index| state.directory(index).ok())
        .map(|directory| directory.len() as u64)
        .sum();
    progress.phase("blocks", Some(blocks));
    for index in 0..tables.design.tables().len() {
        table_pairs(store, tables, &state, index, k, &removed, &mut found)?;
        progress.advance(state.directory(index)?.len() as u64);
    }
    progress.phase("ids of the pairs", None);
    let mut wanted: Vec<Fingerprint> = found.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    // Only fingerprints with two or more ids make shared pairs; the
    // counters say whether there can be any.
    let find_shared = state.ids > state.fingerprints;
    let sequential = find_shared || wanted.len() as u64 * 8 > state.fingerprints;
    let ids = ids_of_many(store, &wanted, find_shared, sequential)?;
    drop(state);
    let ids_of = |fp: &Fingerprint| ids.wanted.get(fp).cloned().unwrap_or_default();
    let mut pairs = Vec::with_capacity(found.len() + ids.shared.len());
    for (a, b, distance) in found {
        let (a_ids, b_ids) = (ids_of(&a), ids_of(&b));
        // A fingerprint whose last id is being removed right now has
        // no ids: it is already gone.
        if !a_ids.is_empty() && !b_ids.is_empty() {
            pairs.push(FingerprintPair {
                a,
                b,
                distance,
                a_ids,
                b_ids,
            });
        }
    }
    pairs.extend(ids.shared.into_iter().map(|(fp, ids)| FingerprintPair {
        a: fp,
        b: fp,
        distance: 0,
        a_ids: ids.clone(),
        b_ids: ids,
    }));
    pairs.sort_unstable_by_key(|pair| (pair.a, pair.b));
    Ok(pairs)
}

/// Pairs within `k` reported by table `index`, as (smaller, larger,
/// distance).
fn table_pairs(
    store: &Store,
    tables: &Tables,
    state: &State,
    index: usize,
    k: u32,
    removed: &[Fingerprint],
    found: &mut Vec<(Fingerprint, Fingerprint, u32)>,
) -> Result<()> {
    let table = tables.table(index)?;
    let directory = state.directory(index)?;
    let code = tables.code(index)?;
    let permutation = table.permutation();
    let mut removed: Vec<u64> = removed.iter().map(|fp| permutation.permute(fp.0)).collect();
    removed.sort_unstable();
    let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
    let mut runs = PairScan::new(&tables.design, index, k, found)?;
    let mut added = state.delta.added_in(index, 0, u64::MAX).peekable();
    let mut keys = Vec::new();
    // Every block, in order: one cursor reads them sequentially (a point
    // lookup per block cost the 1M pair bench 15-25 %).
    let mut cursor = store.block_cursor(index)?;
    for (block, &last_key) in directory.last_keys().iter().enumerate() {
        let bytes = cursor.advance_to(last_key)?;
        decoder
            .decode(bytes, &mut keys)
            .map_err(|e| block_damage(index, block, &e))?;
        for &key in &keys {
            // The delta's added keys are not in the blocks; merge them
            // in so the table is scanned in one sorted order.
            while let Some(new) = added.next_if(|&new| new < key) {
                runs.push(new);
            }
            if removed.binary_search(&key).is_err() {
                runs.push(key);
            }
        }
    }
    added.for_each(|new| runs.push(new));
    runs.finish();
    Ok(())
}

/// The ids of each fingerprint of `wanted` (sorted, distinct) and,
/// if `find_shared`, every fingerprint with two or more ids. With
/// `sequential` (needed for `find_shared`) the whole fingerprint → ids
/// family is read in one pass; else one iterator seeks to each wanted
/// fingerprint in order. Both beat a fresh iterator per fingerprint by
/// far (measured: 1.9 s for 100k pairs at 1M).
fn ids_of_many(
    store: &Store,
    wanted: &[Fingerprint],
    find_shared: bool,
    sequential: bool,
) -> Result<FoundIds> {
    // A whole scan should not evict what queries keep in the cache.
    let mut iter = store.fp_ids_cursor(sequential)?;
    let mut found = FoundIds::default();
    if sequential {
        iter.seek_to_first();
        let mut next_wanted = wanted.iter().peekable();
        let mut first_id = String::new();
        while let Some((fp, id)) = iter.current()? {
            while next_wanted.next_if(|&&w| w < fp).is_some() {}
            let is_wanted = next_wanted.next_if_eq(&&fp).is_some();
            // Most fingerprints are neither wanted nor shared: look at
            // their one id without allocating.
            first_id.clear();
            first_id.push_str(id);
            iter.next();
            let is_single = match iter.current()? {
                Some((next_fp, _)) => next_fp != fp,
                None => true,
            };
            if !is_wanted && (is_single || !find_shared) {
                iter.skip_ids(fp)?;
                continue;
            }
            let mut ids = vec![first_id.clone()];
            iter.read_ids(fp, &mut ids)?;
            if find_shared && ids.len() > 1 {
                found.shared.push((fp, ids.clone()));
            }
            if is_wanted {
                found.wanted.insert(fp, ids);
            }
        }
    } else {
        for &fp in wanted {
            iter.seek(fp);
            let mut ids = Vec::new();
            iter.read_ids(fp, &mut ids)?;
            found.wanted.insert(fp, ids);
        }
    }
    iter.status()?;
    Ok(found)
}

/// What [`ids_of_many`] read.
#[derive(Default)]
struct FoundIds {
    wanted: HashMap<Fingerprint, Vec<String>>,
    shared: Vec<(Fingerprint, Vec<String>)>,
}
