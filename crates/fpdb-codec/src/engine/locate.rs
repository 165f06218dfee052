//! Where a batch of probes' keys lie: each probe's blocks found from its
//! directory group, with the lines the next steps read loaded ahead for
//! every probe before any is decoded, so that the probes' cache misses
//! overlap instead of forming one chain per probe. Shared by the probe
//! across tables and by wide and flip probes within one table.

use std::ops::Range;

use super::source::BlockSource;

/// Probes taken together (tables of one query, or one table's
/// neighbouring prefixes).
pub(super) const PROBE_BATCH: usize = 16;

/// For at most [`PROBE_BATCH`] probes, each (table, lo, hi, directory
/// group): start loading every group, then search each and start loading
/// its first block's info, then the lines its decode will read, so that
/// the probes' cache misses overlap. A group of `usize::MAX` (an empty
/// table) holds no block. Returns each probe's blocks.
pub(super) fn locate_blocks<S: BlockSource>(
    source: &S,
    probes: impl Iterator<Item = (usize, u64, u64, usize)> + Clone,
) -> [Range<usize>; PROBE_BATCH] {
    let mut touched = 0u64;
    for (table, _, _, group) in probes.clone() {
        touched ^= source.touch_group(table, group);
    }
    let mut blocks: [Range<usize>; PROBE_BATCH] = std::array::from_fn(|_| 0..0);
    for ((table, lo, hi, group), range) in probes.clone().zip(blocks.iter_mut()) {
        // An empty table has no group to search (`find_groups` says so
        // with `usize::MAX`), but its source may still hold keys.
        if group != usize::MAX {
            *range = source.locate_in_group(table, group, lo, hi);
        }
        if !Range::is_empty(range) {
            touched ^= source.touch_block(table, range.start, lo);
        }
    }
    for ((table, lo, hi, _), range) in probes.zip(&blocks) {
        if !range.is_empty() {
            touched ^= source.touch_bytes(table, range.start, lo, hi);
        }
    }
    std::hint::black_box(touched);
    blocks
}
