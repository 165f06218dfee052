//! One query at a radius wider than the design's `k`, on the tables the
//! design has (multi-index hashing): in each table, every prefix within
//! `e` bits of the query's is probed, `e` being the fewest differing
//! prefix bits the radius guarantees in some table
//! ([`TableDesign::prefix_errors`]).
//!
//! A match is reported by the first table whose prefix it differs from
//! the query's in at most `e` bits ([`TableDesign::first_table_within`]);
//! that table probes its prefix, and within one table a key has one
//! prefix, so each match is reported once.

use std::ops::Range;

use fpdb_fingerprint::Fingerprint;

use super::locate::{locate_blocks, PROBE_BATCH};
use super::source::BlockSource;
use crate::design::{binomial, top_bits_mask, TableDesign};
use crate::distance::for_each_within;
use crate::error::CodecError;
use crate::permutation::Permutation;

/// [`super::probe`] for `radius` above the design's `k`.
pub(super) fn probe_wide<S: BlockSource>(
    design: &TableDesign,
    source: &mut S,
    query: Fingerprint,
    radius: u32,
    out: &mut Vec<(Fingerprint, u32)>,
) -> Result<(), S::Error> {
    let errors = design.prefix_errors(radius);
    let tables = design.tables().len();
    let mut neighbours = Vec::new();
    for (index, table) in design.tables().iter().enumerate() {
        let permutation = table.permutation();
        let permuted = permutation.permute(query.0);
        let directory = source.directory(index).ok_or(CodecError::NoSuchTable {
            table: index,
            tables,
        })?;
        let probes = prefixes_within(table.prefix_bits(), errors);
        let reports = |xor| design.first_table_within(xor, errors) == Some(index);
        // More neighbouring prefixes than blocks: one pass over the whole
        // table reads less than a probe per prefix would.
        if probes > directory.len() as u128 + 16 {
            let range = ProbedRange {
                table: index,
                permuted,
                tables,
                lo: 0,
                hi: u64::MAX,
                radius,
            };
            range.scan(source, permutation, query, out, reports)?;
            continue;
        }
        neighbouring_prefixes(permuted, table.prefix_bits(), errors, &mut neighbours);
        scan_prefixes(
            design,
            source,
            (index, query, radius),
            neighbours.iter().copied(),
            out,
            reports,
        )?;
    }
    Ok(())
}

/// Scans, in table `index`, the key range of each prefix of `neighbours`
/// (permuted keys, in any order) for keys within `radius` of `query`
/// that `reports` accepts, [`PROBE_BATCH`] prefixes at a time: each step
/// (directory group, first block, the lines decoding will read) is
/// started for every prefix of a batch before the next, so that their
/// cache misses overlap instead of forming one chain per prefix.
pub(super) fn scan_prefixes<S: BlockSource>(
    design: &TableDesign,
    source: &mut S,
    (index, query, radius): (usize, Fingerprint, u32),
    neighbours: impl Iterator<Item = u64>,
    out: &mut Vec<(Fingerprint, u32)>,
    reports: impl Fn(u64) -> bool,
) -> Result<(), S::Error> {
    let tables = design.tables().len();
    let table = design.tables().get(index).ok_or(CodecError::NoSuchTable {
        table: index,
        tables,
    })?;
    let permutation = table.permutation();
    let permuted = permutation.permute(query.0);
    let mut neighbours = neighbours.peekable();
    while neighbours.peek().is_some() {
        // The probes' key ranges and directory groups.
        let mut ranges = [(0u64, 0u64, 0usize); PROBE_BATCH];
        let mut count = 0;
        for neighbour in neighbours.by_ref() {
            if !source.may_hold_prefix(index, neighbour) {
                continue;
            }
            let (lo, hi) = table.prefix_range(neighbour);
            let group = source
                .directory(index)
                .ok_or(CodecError::NoSuchTable {
                    table: index,
                    tables,
                })?
                .group_for(lo);
            if let Some(range) = ranges.get_mut(count) {
                *range = (lo, hi, group);
                count += 1;
            }
            if count == PROBE_BATCH {
                break;
            }
        }
        let ranges = ranges.get(..count).unwrap_or_default();
        // Every probe's reads started before any is decoded.
        let blocks = locate_blocks(
            source,
            ranges.iter().map(|&(lo, hi, group)| (index, lo, hi, group)),
        );
        for (&(lo, hi, _), blocks) in ranges.iter().zip(blocks) {
            let range = ProbedRange {
                table: index,
                permuted,
                tables,
                lo,
                hi,
                radius,
            };
            range.scan_blocks(source, blocks, permutation, query, out, &reports)?;
        }
    }
    Ok(())
}

/// Keys a probe holds before testing them together.
const SCAN_BUFFER: usize = 64;

/// One table's key range a probe reads: keys within `radius` of the
/// query are reported by the table the caller's rule names.
pub(super) struct ProbedRange {
    pub table: usize,
    /// The query under the table's permutation.
    pub permuted: u64,
    pub tables: usize,
    pub lo: u64,
    pub hi: u64,
    pub radius: u32,
}

impl ProbedRange {
    /// Appends to `out` each key of the range within the radius of `query`
    /// (as a fingerprint, with its distance) for which `reports` says yes
    /// of the stored fingerprint XOR the query.
    pub fn scan<S: BlockSource>(
        &self,
        source: &mut S,
        permutation: &Permutation,
        query: Fingerprint,
        out: &mut Vec<(Fingerprint, u32)>,
        reports: impl Fn(u64) -> bool,
    ) -> Result<(), S::Error> {
        let blocks = source
            .directory(self.table)
            .ok_or(CodecError::NoSuchTable {
                table: self.table,
                tables: self.tables,
            })?
            .locate(self.lo, self.hi);
        self.scan_blocks(source, blocks, permutation, query, out, reports)
    }

    /// [`ProbedRange::scan`] of `blocks`, the blocks the directory names
    /// for the range (possibly none: the source's keys outside blocks are
    /// still read).
    pub fn scan_blocks<S: BlockSource>(
        &self,
        source: &mut S,
        blocks: Range<usize>,
        permutation: &Permutation,
        query: Fingerprint,
        out: &mut Vec<(Fingerprint, u32)>,
        reports: impl Fn(u64) -> bool,
    ) -> Result<(), S::Error> {
        let (permuted, radius) = (self.permuted, self.radius);
        let test = |keys: &[u64], out: &mut Vec<(Fingerprint, u32)>| {
            for_each_within(keys, permuted, radius, |key| {
                let stored = permutation.inverse(key);
                if reports(stored ^ query.0) {
                    out.push((Fingerprint(stored), (key ^ permuted).count_ones()));
                }
            });
        };
        // Keys are tested a buffer at a time, the way a batch walk tests
        // a prefix's keys.
        let mut buffer = [0u64; SCAN_BUFFER];
        let mut held = 0;
        source.for_each_in_range(self.table, blocks, self.lo, self.hi, &mut |key| {
            if let Some(slot) = buffer.get_mut(held) {
                *slot = key;
                held += 1;
            }
            if held == SCAN_BUFFER {
                test(&buffer, out);
                held = 0;
            }
        })?;
        test(buffer.get(..held).unwrap_or_default(), out);
        Ok(())
    }
}

/// How many prefixes of `prefix_bits` bits lie within `errors` bits of
/// one: `Σ C(p, i)` for `i ≤ errors`, saturating.
pub(super) fn prefixes_within(prefix_bits: u32, errors: u32) -> u128 {
    (0..=errors.min(prefix_bits)).fold(0u128, |sum, i| {
        sum.saturating_add(binomial(u64::from(prefix_bits), u64::from(i)))
    })
}

/// Every permuted key whose top `prefix_bits` differ from `permuted`'s in
/// at most `errors` bits (the rest of the key as `permuted` has it), in
/// ascending order, so that the probes walk the directory and the blocks
/// forward.
pub(super) fn neighbouring_prefixes(
    permuted: u64,
    prefix_bits: u32,
    errors: u32,
    out: &mut Vec<u64>,
) {
    fn flip(from: u32, prefix_bits: u32, left: u32, key: u64, out: &mut Vec<u64>) {
        out.push(key);
        if left == 0 {
            return;
        }
        // Bit positions 63 - i for i in from..prefix_bits: the prefix's.
        for i in from..prefix_bits {
            flip(i + 1, prefix_bits, left - 1, key ^ (1 << (63 - i)), out);
        }
    }
    out.clear();
    flip(0, prefix_bits.min(64), errors, permuted, out);
    // Only the prefix is probed: the keys' low bits do not matter.
    let mask = top_bits_mask(prefix_bits);
    for key in out.iter_mut() {
        *key &= mask;
    }
    out.sort_unstable();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_are_every_prefix_within_the_errors() {
        let mut out = Vec::new();
        let permuted = 0xa5c3_0000_0000_1234;
        neighbouring_prefixes(permuted, 8, 2, &mut out);
        // 1 + 8 + 28 prefixes, each once.
        assert_eq!(out.len(), 37);
        assert!(out.windows(2).all(|pair| pair[0] < pair[1]));
        for &key in &out {
            assert_eq!(key & !top_bits_mask(8), 0);
            assert!(((key ^ permuted) >> 56).count_ones() <= 2);
        }
        neighbouring_prefixes(permuted, 8, 0, &mut out);
        assert_eq!(out, [permuted & top_bits_mask(8)]);
        assert_eq!(prefixes_within(8, 2), 37);
        assert_eq!(prefixes_within(64, 64), u128::from(u64::MAX) + 1);
    }
}
