//! One query against every table of a design: permute, take the range of
//! keys sharing the query's prefix, find its blocks (usually one), decode
//! and compare.
//!
//! Finding the blocks is a chain of dependent cache misses per table
//! (directory summary, directory group, block info, block bytes). The
//! tables are probed in batches, each step taken for every table of the
//! batch before the next, so that the tables' misses overlap instead of
//! adding up.

use std::ops::Range;

use fpdb_fingerprint::Fingerprint;

use super::locate::{locate_blocks, PROBE_BATCH};
use super::source::BlockSource;
use super::wide_probe::probe_wide;
use crate::design::{TableDesign, MAX_RADIUS};
use crate::directory::BlockDirectory;
use crate::directory::GROUP;
use crate::error::CodecError;
use crate::match_rule::TableMatcher;

/// One table's probe while a batch is in flight.
#[derive(Debug, Clone, Copy, Default)]
struct TableProbe {
    table: usize,
    permuted: u64,
    lo: u64,
    hi: u64,
}

/// Appends to `out` every key of `source` within `k` of `query`, as
/// (fingerprint, distance), each found match once (by the first table in
/// which it shares the prefix), in no particular order. `k` may exceed
/// the design's, up to [`MAX_RADIUS`]: the tables' neighbouring prefixes
/// are probed too ([`super::wide_probe`]).
pub fn probe<S: BlockSource>(
    design: &TableDesign,
    source: &mut S,
    query: Fingerprint,
    k: u32,
    out: &mut Vec<(Fingerprint, u32)>,
) -> Result<(), S::Error> {
    if k > MAX_RADIUS {
        return Err(CodecError::RadiusTooLarge {
            radius: k,
            max: MAX_RADIUS,
        }
        .into());
    }
    if k > design.k() {
        return probe_wide(design, source, query, k, out);
    }
    let tables = design.tables().len();
    let mut first = 0;
    while first < tables {
        let end = tables.min(first + PROBE_BATCH);
        probe_batch(design, source, first..end, query, k, out)?;
        first = end;
    }
    Ok(())
}

/// Probes tables `batch` (at most [`PROBE_BATCH`]) for `query`.
fn probe_batch<S: BlockSource>(
    design: &TableDesign,
    source: &mut S,
    batch: Range<usize>,
    query: Fingerprint,
    k: u32,
    out: &mut Vec<(Fingerprint, u32)>,
) -> Result<(), S::Error> {
    // Step 0: permute; a table whose prefix bitmap says no key has the
    // query's prefix drops out (one load, instead of the directory's and
    // the block's misses).
    let mut probes = [TableProbe::default(); PROBE_BATCH];
    let mut count = 0;
    for (table_index, table) in design
        .tables()
        .iter()
        .enumerate()
        .take(batch.end)
        .skip(batch.start)
    {
        let permuted = table.permutation().permute(query.0);
        if !source.may_hold_prefix(table_index, permuted) {
            continue;
        }
        let (lo, hi) = table.prefix_range(permuted);
        if let Some(probe) = probes.get_mut(count) {
            *probe = TableProbe {
                table: table_index,
                permuted,
                lo,
                hi,
            };
            count += 1;
        }
    }
    #[expect(
        clippy::indexing_slicing,
        reason = "count grows only after probes[count] was written"
    )]
    let probes = &probes[..count];
    let groups = find_groups(source, probes, design.tables().len())?;
    // Steps 2 and 3: each probe's blocks, and the lines its decode reads.
    let blocks = locate_blocks(
        source,
        probes
            .iter()
            .zip(&groups)
            .map(|(probe, &group)| (probe.table, probe.lo, probe.hi, group)),
    );
    // Step 4: decode and compare.
    for (probe, range) in probes.iter().zip(blocks) {
        let matcher = TableMatcher::new(design, probe.table, k).ok_or(CodecError::NoSuchTable {
            table: probe.table,
            tables: design.tables().len(),
        })?;
        let permuted = probe.permuted;
        source.for_each_in_range(probe.table, range, probe.lo, probe.hi, &mut |key| {
            if let Some(hit) = matcher.probe(key, permuted, query) {
                out.push(hit);
            }
        })?;
    }
    Ok(())
}

/// Step 1: each probe's directory group (`usize::MAX` for an empty
/// table). The binary searches over the directories' summaries run in
/// lockstep, one level for every table before the next level, so their
/// cache misses overlap instead of forming one long chain per table.
fn find_groups<S: BlockSource>(
    source: &S,
    probes: &[TableProbe],
    tables: usize,
) -> Result<[usize; PROBE_BATCH], S::Error> {
    let mut groups = [usize::MAX; PROBE_BATCH];
    let mut directories: [Option<&BlockDirectory>; PROBE_BATCH] = [None; PROBE_BATCH];
    let mut summaries: [&[u64]; PROBE_BATCH] = [&[]; PROBE_BATCH];
    let mut searches = [(0usize, 0usize); PROBE_BATCH];
    for (((probe, directory), summary), search) in probes
        .iter()
        .zip(&mut directories)
        .zip(&mut summaries)
        .zip(&mut searches)
    {
        let found = source
            .directory(probe.table)
            .ok_or(CodecError::NoSuchTable {
                table: probe.table,
                tables,
            })?;
        *directory = Some(found);
        *summary = found.summary_top();
        *search = (0, summary.len());
    }
    loop {
        let mut searching = false;
        for ((probe, (base, size)), summary) in
            probes.iter().zip(searches.iter_mut()).zip(&summaries)
        {
            let half = *size / 2;
            // A non-empty search keeps `base + size ≤ summary.len()` and
            // `size ≥ 1`, so `base + half < summary.len()`; an empty one
            // (an empty table) has `half = 0` and reads nothing.
            if half == 0 {
                continue;
            }
            #[expect(
                clippy::indexing_slicing,
                reason = "base + half < base + size ≤ summary.len() (see above)"
            )]
            let last = summary[*base + half];
            // Select without branching on the loaded key.
            *base += half * usize::from(last < probe.lo);
            *size -= half;
            searching = true;
        }
        if !searching {
            break;
        }
    }
    // The segment of the summary to look in: the first whose last key is
    // not below `lo`. Then count the group keys below `lo` in it (no
    // branches on the keys, whose lines arrive in parallel).
    for ((((probe, &(base, size)), summary), directory), group) in probes
        .iter()
        .zip(&searches)
        .zip(&summaries)
        .zip(&directories)
        .zip(&mut groups)
    {
        let (Some(&last), Some(directory)) = (summary.get(base).filter(|_| size > 0), directory)
        else {
            continue;
        };
        let segment = base + usize::from(size == 1 && last < probe.lo);
        let keys = directory.summary_segment(segment);
        let below = keys.iter().filter(|&&last| last < probe.lo).count();
        *group = segment * GROUP + below;
    }
    Ok(groups)
}
