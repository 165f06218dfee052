//! How much memory a bulk load may use: by default a share of the
//! machine's, as `/proc/meminfo` gives it.

/// The document buffer spills at 2/5 of the memory budget: sorting it in
/// memory needs about twice the buffer at its peak (the buffer with its
/// (fingerprint, id) pairs and their scratch copy; later the set and two
/// tables being built).
pub(super) fn buffer_limit(memory_bytes: usize) -> usize {
    memory_bytes / 5 * 2
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
