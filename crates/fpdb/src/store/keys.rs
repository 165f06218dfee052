//! Column families and how keys and values are laid out in them.
//! docs/FORMAT.md draws the same thing; keep the two in step. Every key
//! layout of the database is here and nowhere else.

use std::borrow::Cow;

use fpdb_simhash::Fingerprint;

/// A column family of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Family {
    /// Manifest, table directories, counters, the bulk-load mark.
    Meta,
    /// document id → fingerprint (8 bytes, big-endian).
    IdToFp,
    /// fingerprint (8 bytes, big-endian) ‖ document id → empty.
    FpToIds,
    /// fingerprint (8 bytes, big-endian) → change not yet merged into the
    /// tables.
    Delta,
    /// Table `n`'s blocks, each under its last permuted key.
    Table(usize),
}

/// Every column family besides the tables, in the order they are created.
pub(crate) const FIXED_FAMILIES: [Family; 4] =
    [Family::Meta, Family::IdToFp, Family::FpToIds, Family::Delta];

impl Family {
    /// The column family's name in RocksDB: `meta`, `id_fp`, `fp_ids`,
    /// `delta`, `table-000`, `table-001`, …
    pub fn name(self) -> Cow<'static, str> {
        match self {
            Family::Meta => "meta".into(),
            Family::IdToFp => "id_fp".into(),
            Family::FpToIds => "fp_ids".into(),
            Family::Delta => "delta".into(),
            Family::Table(index) => format!("table-{index:03}").into(),
        }
    }

    /// Whether `name` is the name of a table's family.
    pub fn is_table_name(name: &str) -> bool {
        name.starts_with("table-")
    }

    /// The family named `name`, if it is one of fpdb's.
    pub fn from_name(name: &str) -> Option<Family> {
        match name {
            "meta" => Some(Family::Meta),
            "id_fp" => Some(Family::IdToFp),
            "fp_ids" => Some(Family::FpToIds),
            "delta" => Some(Family::Delta),
            _ => name
                .strip_prefix("table-")
                .and_then(|digits| digits.parse().ok())
                .map(Family::Table),
        }
    }
}

pub(crate) const MANIFEST_KEY: &[u8] = b"manifest";
pub(crate) const FINGERPRINT_COUNT_KEY: &[u8] = b"count/fingerprints";
pub(crate) const ID_COUNT_KEY: &[u8] = b"count/ids";
/// Meta key of which text of an HTML page is fingerprinted (`main` or
/// `all`); databases made before HTML input have none and read as `main`.
pub(crate) const EXTRACT_KEY: &[u8] = b"options/extract";
/// Meta key present while a bulk load is being ingested.
pub(crate) const LOADING_KEY: &[u8] = b"bulk/loading";

/// Delta value: the fingerprint is in the set but not yet in the blocks.
pub(crate) const DELTA_ADDED: u8 = 1;
/// Delta value: the fingerprint is in the blocks but no longer in the set.
pub(crate) const DELTA_REMOVED: u8 = 0;

/// The end of a range deletion that clears a whole family: past every key,
/// since ids are UTF-8 (never a 0xff byte) and other keys start with 8
/// bytes of fingerprint or block key.
pub(crate) const PAST_EVERY_KEY: [u8; 9] = [0xff; 9];

/// Meta key of table `index`'s block directory.
pub(crate) fn directory_key(index: usize) -> Vec<u8> {
    format!("dir/{index:03}").into_bytes()
}

/// Meta key of table `index`'s byte count (all its blocks).
pub(crate) fn table_bytes_key(index: usize) -> Vec<u8> {
    format!("bytes/{index:03}").into_bytes()
}

/// Block key in a table column family: the block's last permuted key,
/// big-endian so that RocksDB's order is numeric order.
pub(crate) fn block_key(last_key: u64) -> [u8; 8] {
    last_key.to_be_bytes()
}

/// Key in `fp_ids`: the fingerprint, then the id's bytes.
pub(crate) fn fp_ids_key(fp: Fingerprint, id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + id.len());
    key.extend_from_slice(&fp.0.to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

/// A key of `fp_ids` split into its fingerprint and id; `None` when it is
/// not 8 bytes and a UTF-8 id.
pub(crate) fn split_fp_ids_key(key: &[u8]) -> Option<(Fingerprint, &str)> {
    let (fp, id) = key.split_first_chunk::<8>()?;
    let id = std::str::from_utf8(id).ok()?;
    Some((Fingerprint(u64::from_be_bytes(*fp)), id))
}

/// Meta keys start with one of these (or are [`MANIFEST_KEY`]).
const META_KEY_PREFIXES: [&[u8]; 5] = [b"dir/", b"bytes/", b"count/", b"options/", b"bulk/"];

/// Whether an entry has the shape of `family`'s entries (any table's, for
/// a table). The shapes differ in their values' lengths, except that a
/// meta entry can look like an id's: meta is told by its keys.
pub(crate) fn fits(family: Family, key: &[u8], value: &[u8]) -> bool {
    match family {
        Family::Meta => {
            key == MANIFEST_KEY
                || META_KEY_PREFIXES
                    .iter()
                    .any(|prefix| key.starts_with(prefix))
        }
        Family::IdToFp => value.len() == 8 && !key.is_empty() && std::str::from_utf8(key).is_ok(),
        Family::FpToIds => {
            value.is_empty() && split_fp_ids_key(key).is_some_and(|(_, id)| !id.is_empty())
        }
        Family::Delta => key.len() == 8 && matches!(value, [DELTA_ADDED] | [DELTA_REMOVED]),
        // A block holds a header and its keys: never 8 bytes or fewer.
        Family::Table(_) => key.len() == 8 && value.len() > 8,
    }
}

/// An 8-byte big-endian value or key.
pub(crate) fn decode_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}
