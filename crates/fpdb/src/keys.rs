//! Column families and how keys and values are laid out in them.
//! docs/FORMAT.md draws the same thing; keep the two in step.

use fpdb_simhash::Fingerprint;

/// Manifest, table directories and counters.
pub(crate) const META: &str = "meta";
/// document id → fingerprint (8 bytes, big-endian).
pub(crate) const ID_TO_FP: &str = "id_fp";
/// fingerprint (8 bytes, big-endian) ‖ document id → empty.
pub(crate) const FP_TO_IDS: &str = "fp_ids";
/// fingerprint (8 bytes, big-endian) → change not yet merged into the tables.
pub(crate) const DELTA: &str = "delta";

/// Every column family besides the tables.
pub(crate) const FIXED_FAMILIES: [&str; 4] = [META, ID_TO_FP, FP_TO_IDS, DELTA];

pub(crate) const MANIFEST_KEY: &[u8] = b"manifest";
pub(crate) const FINGERPRINT_COUNT_KEY: &[u8] = b"count/fingerprints";
pub(crate) const ID_COUNT_KEY: &[u8] = b"count/ids";

/// Delta value: the fingerprint is in the set but not yet in the blocks.
pub(crate) const DELTA_ADDED: u8 = 1;
/// Delta value: the fingerprint is in the blocks but no longer in the set.
pub(crate) const DELTA_REMOVED: u8 = 0;

/// The end of a range deletion that clears a whole family: past every key,
/// since ids are UTF-8 (never a 0xff byte) and other keys start with 8
/// bytes of fingerprint or block key.
pub(crate) const PAST_EVERY_KEY: [u8; 9] = [0xff; 9];

/// The column family of table `index`: `table-000`, `table-001`, …
pub(crate) fn table_cf(index: usize) -> String {
    format!("table-{index:03}")
}

/// Meta key of table `index`'s block directory.
pub(crate) fn directory_key(index: usize) -> Vec<u8> {
    format!("dir/{index:03}").into_bytes()
}

/// Block key in a table column family: the block's last permuted key,
/// big-endian so that RocksDB's order is numeric order.
pub(crate) fn block_key(last_key: u64) -> [u8; 8] {
    last_key.to_be_bytes()
}

pub(crate) fn fp_ids_key(fp: Fingerprint, id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + id.len());
    key.extend_from_slice(&fp.0.to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

pub(crate) fn decode_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}
