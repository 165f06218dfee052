//! Every near pair within a radius wider than the design's `k`, among one
//! table's keys held sorted in memory (the pairs counterpart of
//! `wide_probe`).
//!
//! A pair within the radius differs in at most `e` bits of some table's
//! prefix ([`TableDesign::prefix_errors`]), so in that table its two keys
//! sit in runs (keys sharing a prefix) whose prefixes are at most `e` bits
//! apart. Each run is compared with itself and with every later run within
//! `e` bits; a pair is reported by the first table whose prefix it differs
//! in at most `e` bits ([`TableDesign::first_table_within`]), so each
//! pair comes once from all tables together, with nothing de-duplicated
//! afterwards.
//!
//! The work grows with the square of the keys per run times the prefixes
//! probed per run: a wide radius over a large set costs far more than a
//! pair scan at `k` (see docs/BENCHMARKS.md, pairs against the radius).

use fpdb_fingerprint::Fingerprint;

use super::wide_probe::{neighbouring_prefixes, prefixes_within};
use crate::design::TableDesign;
use crate::distance::within_distance;
use crate::error::CodecError;
use crate::prefix_runs::FingerprintPairs;

/// Appends to `found` the pairs within `radius` that table `table` of
/// `design` reports, from `keys`: the table's permuted keys, ascending and
/// distinct. Each pair is `(smaller, larger, distance)` of the original
/// fingerprints. Calling it for every table of the design yields every
/// pair of distinct fingerprints within `radius` once.
pub fn wide_pairs_in_table(
    design: &TableDesign,
    table: usize,
    keys: &[u64],
    radius: u32,
    found: &mut FingerprintPairs,
) -> Result<(), CodecError> {
    let shape = design.tables().get(table).ok_or(CodecError::NoSuchTable {
        table,
        tables: design.tables().len(),
    })?;
    let errors = design.prefix_errors(radius);
    let permutation = shape.permutation();
    let prefix_mask = shape.prefix_mask();
    let runs = runs_of(keys, prefix_mask);
    let report = |x: u64, y: u64, found: &mut FingerprintPairs| {
        let xor = x ^ y;
        if !within_distance(xor, radius) {
            return;
        }
        let (a, b) = (permutation.inverse(x), permutation.inverse(y));
        if design.first_table_within(a ^ b, errors) == Some(table) {
            found.push((
                Fingerprint(a.min(b)),
                Fingerprint(a.max(b)),
                xor.count_ones(),
            ));
        }
    };
    // More neighbouring prefixes than runs: compare each run with every
    // later run (skipping those too far apart) instead of searching for
    // each neighbour.
    let probe_each = prefixes_within(shape.prefix_bits(), errors) <= runs.len() as u128;
    let lookup = RunLookup::new(&runs, shape.prefix_bits(), probe_each);
    let mut neighbours = Vec::new();
    let mut remaining = runs.as_slice();
    while let Some((run, later)) = remaining.split_first() {
        remaining = later;
        let own = run.keys(keys);
        let mut rest = own;
        while let Some((&x, tail)) = rest.split_first() {
            for &y in tail {
                report(x, y, found);
            }
            rest = tail;
        }
        let mut compare = |other: &Run| {
            for &x in own {
                for &y in other.keys(keys) {
                    report(x, y, found);
                }
            }
        };
        if probe_each {
            neighbouring_prefixes(run.prefix, shape.prefix_bits(), errors, &mut neighbours);
            for &prefix in neighbours.iter().filter(|&&prefix| prefix > run.prefix) {
                if let Some(other) = lookup.find(prefix, &runs) {
                    compare(other);
                }
            }
        } else {
            for other in later {
                if (other.prefix ^ run.prefix).count_ones() <= errors {
                    compare(other);
                }
            }
        }
    }
    Ok(())
}

/// Keys sharing one prefix: `keys[start..end]`.
#[derive(Debug, Clone, Copy)]
struct Run {
    prefix: u64,
    start: usize,
    end: usize,
}

impl Run {
    #[expect(
        clippy::indexing_slicing,
        reason = "a run is cut from the keys it is read from: start <= end <= keys.len()"
    )]
    fn keys<'k>(&self, keys: &'k [u64]) -> &'k [u64] {
        &keys[self.start..self.end]
    }
}

/// Prefixes up to this many bits find their run in a table indexed by
/// the prefix (4 bytes each: 4 MiB at most); longer ones by a binary
/// search of the runs. The lookups dominate a wide pair scan when runs
/// hold a key or two (docs/BENCHMARKS.md, pairs against the radius).
const DIRECT_PREFIX_BITS: u32 = 20;

/// Finds the run of a prefix.
enum RunLookup {
    /// Run index + 1 by the prefix's value (0: no run).
    Direct {
        slots: Vec<u32>,
        shift: u32,
    },
    Search,
}

impl RunLookup {
    fn new(runs: &[Run], prefix_bits: u32, wanted: bool) -> RunLookup {
        if !wanted || prefix_bits == 0 || prefix_bits > DIRECT_PREFIX_BITS {
            return RunLookup::Search;
        }
        let shift = 64 - prefix_bits;
        let mut slots = vec![0u32; 1 << prefix_bits];
        for (index, run) in runs.iter().enumerate() {
            let Ok(number) = u32::try_from(index + 1) else {
                return RunLookup::Search;
            };
            if let Some(slot) = usize::try_from(run.prefix >> shift)
                .ok()
                .and_then(|at| slots.get_mut(at))
            {
                *slot = number;
            }
        }
        RunLookup::Direct { slots, shift }
    }

    /// The run whose prefix is `prefix` (a masked key), if any.
    fn find<'r>(&self, prefix: u64, runs: &'r [Run]) -> Option<&'r Run> {
        match self {
            RunLookup::Direct { slots, shift } => {
                let slot = *slots.get(usize::try_from(prefix >> shift).ok()?)?;
                runs.get(usize::try_from(slot).ok()?.checked_sub(1)?)
            }
            RunLookup::Search => runs
                .binary_search_by_key(&prefix, |run| run.prefix)
                .ok()
                .and_then(|at| runs.get(at)),
        }
    }
}

/// The runs of sorted `keys` under `prefix_mask`, in order.
fn runs_of(keys: &[u64], prefix_mask: u64) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (at, &key) in keys.iter().enumerate() {
        let prefix = key & prefix_mask;
        match runs.last_mut() {
            Some(run) if run.prefix == prefix => run.end = at + 1,
            _ => runs.push(Run {
                prefix,
                start: at,
                end: at + 1,
            }),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpdb_testkit::Rng;

    fn brute_force(fps: &[u64], radius: u32) -> FingerprintPairs {
        let mut pairs = Vec::new();
        for (i, &a) in fps.iter().enumerate() {
            for &b in fps.get(i + 1..).unwrap_or_default() {
                let distance = (a ^ b).count_ones();
                if distance <= radius {
                    pairs.push((Fingerprint(a.min(b)), Fingerprint(a.max(b)), distance));
                }
            }
        }
        pairs.sort_unstable();
        pairs
    }

    fn all_tables(design: &TableDesign, fps: &[u64], radius: u32) -> FingerprintPairs {
        let mut found = Vec::new();
        for (index, table) in design.tables().iter().enumerate() {
            let mut keys: Vec<u64> = fps
                .iter()
                .map(|&fp| table.permutation().permute(fp))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            wide_pairs_in_table(design, index, &keys, radius, &mut found).unwrap();
        }
        found.sort_unstable();
        found
    }

    /// Clusters of fingerprints a few bits apart, so every radius has
    /// pairs, over random ones.
    fn clustered(rng: &mut Rng, n: usize) -> Vec<u64> {
        let mut fps: Vec<u64> = Vec::with_capacity(n);
        while fps.len() < n {
            let centre = rng.next_u64();
            fps.push(centre);
            for _ in 0..rng.below(6) {
                let mut fp = centre;
                for _ in 0..rng.below(17) {
                    fp ^= 1 << rng.below(64);
                }
                fps.push(fp);
            }
        }
        fps.sort_unstable();
        fps.dedup();
        fps
    }

    #[test]
    fn every_pair_within_the_radius_once_on_every_design() {
        let mut rng = Rng::new(7);
        let fps = clustered(&mut rng, 3_000);
        for design in [
            TableDesign::split(3, &[16, 16, 16, 16]).unwrap(),
            TableDesign::split(3, &[11, 11, 11, 11, 10, 10]).unwrap(),
            TableDesign::auto(3, 3_000).unwrap(),
            TableDesign::auto(1, 3_000).unwrap(),
        ] {
            for radius in [design.k() + 1, 7, 10, 12, 16] {
                assert_eq!(
                    all_tables(&design, &fps, radius),
                    brute_force(&fps, radius),
                    "{design:?} at radius {radius}"
                );
            }
        }
    }

    #[test]
    fn sparse_tables_compare_runs_directly() {
        // Few keys under 16-bit prefixes: fewer runs than neighbours.
        let mut rng = Rng::new(11);
        let fps = clustered(&mut rng, 200);
        let design = TableDesign::split(3, &[16, 16, 16, 16]).unwrap();
        assert!(prefixes_within(16, design.prefix_errors(12)) > 200);
        assert_eq!(all_tables(&design, &fps, 12), brute_force(&fps, 12));
    }
}
