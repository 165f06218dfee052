//! How much memory a bulk load may use, by default a share of the
//! machine's as `/proc/meminfo` gives it, and what each step of a load
//! holds within that budget.

use super::documents::Documents;

/// Bytes per document of the (fingerprint, id) pairs the in-memory path
/// sorts beside the buffer, with their sort's scratch copy.
pub(super) const PAIR_SORT_BYTES: usize = 32;
/// Bytes per distinct fingerprint of the set the tables are built from.
pub(super) const DISTINCT_BYTES: usize = 8;

/// Whether the document buffer is full: finishing a load in memory holds
/// the buffer and, beside it, the set of distinct fingerprints (at most
/// one a document; see [`write_id_families_in_place`]). A full buffer is
/// spilled as a sorted run.
///
/// [`write_id_families_in_place`]: super::in_memory::write_id_families_in_place
pub(super) fn buffer_full(buffer: &Documents, memory_bytes: usize) -> bool {
    buffer.bytes() + buffer.entries().len() * DISTINCT_BYTES >= memory_bytes
}

/// Whether the in-memory path can sort a copy of the (fingerprint, id)
/// pairs beside a buffer of `bytes` holding `documents`, and keep the
/// fingerprint set too; else it sorts the buffer itself by fingerprint.
pub(super) fn pairs_fit_beside(bytes: usize, documents: usize, memory_bytes: usize) -> bool {
    bytes + documents * (PAIR_SORT_BYTES + DISTINCT_BYTES) <= memory_bytes
}

/// Bytes per fingerprint of one table being built in memory: its
/// permuted keys and their sort's scratch copy (16, both kept while the
/// blocks are encoded, for the next table to reuse), and its encoded
/// blocks (8, more than the 5-7 a key takes from 1M keys up).
pub(super) const TABLE_BUILD_BYTES: usize = 24;

/// How many tables of `fingerprints` distinct fingerprints can be built
/// in memory at once within `memory_bytes`: the set itself takes
/// [`DISTINCT_BYTES`] a fingerprint, and each table being built
/// [`TABLE_BUILD_BYTES`] more. 0 when not even one fits.
pub(super) fn tables_at_once(memory_bytes: usize, fingerprints: u64) -> usize {
    let Ok(fingerprints) = usize::try_from(fingerprints.max(1)) else {
        return 0;
    };
    memory_bytes
        .saturating_sub(fingerprints.saturating_mul(DISTINCT_BYTES))
        .checked_div(fingerprints.saturating_mul(TABLE_BUILD_BYTES))
        .unwrap_or(0)
}

/// The least memory a bulk load may use by default.
const MIN_DEFAULT_MEMORY_BYTES: usize = 1 << 30;
/// The most memory a bulk load may use by default (a larger budget could
/// hold more documents in memory than one sort takes, 2^32 - 1).
const MAX_DEFAULT_MEMORY_BYTES: usize = 32 << 30;

/// A quarter of the machine's memory, between 1 and 32 GiB (1 GiB when
/// the machine does not say, as on systems without `/proc/meminfo`). The
/// budget is only a bound: a load holds what its documents need, and
/// spills sorted runs to disk beyond it, which took 10M URL-like ids from
/// 10.5 s to 18-21 s at a fixed 1 GiB.
pub fn default_memory_bytes() -> usize {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|meminfo| total_memory_bytes(&meminfo));
    total.map_or(MIN_DEFAULT_MEMORY_BYTES, |total| {
        (total / 4).clamp(MIN_DEFAULT_MEMORY_BYTES, MAX_DEFAULT_MEMORY_BYTES)
    })
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn total_memory_bytes(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let kib: usize = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then(|| kib.saturating_mul(1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_memory_is_a_quarter_of_memtotal_within_bounds() {
        let meminfo = |kib: usize| format!("MemTotal:       {kib} kB\nMemFree: 1 kB\n");
        assert_eq!(total_memory_bytes(&meminfo(24 << 20)), Some(24 << 30));
        for bad in [
            "",
            "MemFree: 1 kB\n",
            "MemTotal: many kB\n",
            "MemTotal: 5 MB\n",
        ] {
            assert_eq!(total_memory_bytes(bad), None, "{bad:?}");
        }
        let default = default_memory_bytes();
        assert!((MIN_DEFAULT_MEMORY_BYTES..=MAX_DEFAULT_MEMORY_BYTES).contains(&default));
        if let Some(total) = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|meminfo| total_memory_bytes(&meminfo))
        {
            assert_eq!(
                default,
                (total / 4).clamp(MIN_DEFAULT_MEMORY_BYTES, MAX_DEFAULT_MEMORY_BYTES)
            );
        }
    }
}
