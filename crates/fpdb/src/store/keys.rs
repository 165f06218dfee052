//! Column families and every byte layout of their keys and values.
//!
//! Layers above the store never see these bytes: they write a typed
//! [`Record`], name one by a typed [`Key`], read counters as numbers and
//! decode a scanned entry with [`Record::decode`]. docs/FORMAT.md draws
//! the same layouts; keep the two in step.

use std::borrow::Cow;
use std::fmt;

use fpdb_simhash::{Fingerprint, LearnedIdf};

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
pub(super) const FIXED_FAMILIES: [Family; 4] =
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

/// A count kept in `meta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counter {
    /// Distinct fingerprints in the set.
    Fingerprints,
    /// Stored document ids.
    Ids,
    /// Bytes of all of table `n`'s blocks.
    TableBytes(usize),
}

/// A change of the set not yet merged into the tables (the `delta`
/// family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeltaEntry {
    /// In the set, not yet in the blocks.
    Added(Fingerprint),
    /// In the blocks, no longer in the set.
    Removed(Fingerprint),
}

/// Where an entry is kept: what a read or a delete names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key<'a> {
    Manifest,
    /// Which text of an HTML page is fingerprinted.
    Extract,
    /// The learned word weights of `Weighting::Learned`.
    LearnedWeights,
    /// Present while a bulk load is being ingested.
    Loading,
    /// Table `n`'s block directory.
    Directory(usize),
    Counter(Counter),
    /// A document id (its UTF-8 bytes) in `id_fp`.
    IdFp(&'a [u8]),
    /// A (fingerprint, document id) pair in `fp_ids`.
    FpId(Fingerprint, &'a [u8]),
    /// A fingerprint's pending change.
    Delta(Fingerprint),
    /// The block of a table whose last permuted key is `last_key`.
    Block {
        table: usize,
        last_key: u64,
    },
}

/// An entry of the database, typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record<'a> {
    /// The manifest's bytes (laid out by the manifest module).
    Manifest(&'a [u8]),
    Extract(&'a str),
    /// The learned word weights' bytes (laid out by
    /// [`encode_learned_weights`]).
    LearnedWeights(&'a [u8]),
    Loading,
    /// A directory's bytes (laid out by the codec).
    Directory {
        table: usize,
        bytes: &'a [u8],
    },
    Counter(Counter, u64),
    IdFp {
        id: &'a [u8],
        fp: Fingerprint,
    },
    /// A document under its fingerprint, with its confirming signature's
    /// bytes (empty for a bare fingerprint).
    FpId {
        fp: Fingerprint,
        id: &'a [u8],
        signature: &'a [u8],
    },
    Delta(DeltaEntry),
    /// A block's bytes (laid out by the codec).
    Block {
        table: usize,
        last_key: u64,
        bytes: &'a [u8],
    },
}

/// Why stored bytes are not an entry of the family they were read from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum Malformed {
    /// A key of a length the family never writes.
    KeyLength { family: Family, len: usize },
    /// A value of a length the family never writes.
    ValueLength { family: Family, len: usize },
    /// A document id that is empty or not UTF-8.
    Id,
    /// A `meta` key fpdb never writes.
    MetaKey,
    /// A `delta` value that is neither "added" nor "removed".
    DeltaValue,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::KeyLength { family, len } => {
                write!(
                    f,
                    "a {} key of {len} bytes ({})",
                    family.name(),
                    key_shape(*family)
                )
            }
            Malformed::ValueLength { family, len } => {
                write!(
                    f,
                    "a {} value of {len} bytes ({})",
                    family.name(),
                    value_shape(*family)
                )
            }
            Malformed::Id => f.write_str("an id that is empty or not UTF-8"),
            Malformed::MetaKey => f.write_str("a meta key fpdb does not write"),
            Malformed::DeltaValue => f.write_str("a delta value that is neither 0 nor 1"),
        }
    }
}

fn key_shape(family: Family) -> &'static str {
    match family {
        Family::Meta => "a name",
        Family::IdToFp => "an id",
        Family::FpToIds => "8 bytes of fingerprint and an id",
        Family::Delta | Family::Table(_) => "8 bytes",
    }
}

fn value_shape(family: Family) -> &'static str {
    match family {
        Family::Meta => "a counter is 8 bytes",
        Family::IdToFp => "a fingerprint is 8 bytes",
        Family::FpToIds => "empty",
        Family::Delta => "1 byte",
        Family::Table(_) => "a block is longer than 8 bytes",
    }
}

/// The longest `fp_ids` value: a signature of the widest layout
/// (`fpdb_simhash::MAX_HASHES` hashes of 16 bits), its shingle count (2
/// bytes) and its weak bits (8).
const MAX_SIGNATURE_BYTES: usize = fpdb_simhash::MAX_HASHES as usize * 2 + 2 + 8;

const MANIFEST_KEY: &[u8] = b"manifest";
const FINGERPRINT_COUNT_KEY: &[u8] = b"count/fingerprints";
const ID_COUNT_KEY: &[u8] = b"count/ids";
/// Databases made before HTML input have no extraction entry and read as
/// `main`.
const EXTRACT_KEY: &[u8] = b"options/extract";
/// Only databases with `Weighting::Learned` have it.
const LEARNED_WEIGHTS_KEY: &[u8] = b"options/learned-weights";
const LOADING_KEY: &[u8] = b"bulk/loading";
const DIRECTORY_PREFIX: &str = "dir/";
const TABLE_BYTES_PREFIX: &str = "bytes/";

/// Delta value: the fingerprint is in the set but not yet in the blocks.
const DELTA_ADDED: u8 = 1;
/// Delta value: the fingerprint is in the blocks but no longer in the set.
const DELTA_REMOVED: u8 = 0;

/// The end of a range deletion that clears a whole family: past every key,
/// since ids are UTF-8 (never a 0xff byte) and other keys start with 8
/// bytes of fingerprint or block key.
pub(super) const PAST_EVERY_KEY: [u8; 9] = [0xff; 9];

/// Meta keys start with one of these (or are [`MANIFEST_KEY`]).
const META_KEY_PREFIXES: [&[u8]; 5] = [b"dir/", b"bytes/", b"count/", b"options/", b"bulk/"];

impl Key<'_> {
    /// The family the entry lives in.
    pub fn family(&self) -> Family {
        match *self {
            Key::Manifest
            | Key::Extract
            | Key::LearnedWeights
            | Key::Loading
            | Key::Directory(_)
            | Key::Counter(_) => Family::Meta,
            Key::IdFp(_) => Family::IdToFp,
            Key::FpId(..) => Family::FpToIds,
            Key::Delta(_) => Family::Delta,
            Key::Block { table, .. } => Family::Table(table),
        }
    }

    /// Appends the key's bytes to `out`. Fingerprints and block keys are
    /// big-endian, so that RocksDB's byte order is numeric order.
    pub(super) fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            Key::Manifest => out.extend_from_slice(MANIFEST_KEY),
            Key::Extract => out.extend_from_slice(EXTRACT_KEY),
            Key::LearnedWeights => out.extend_from_slice(LEARNED_WEIGHTS_KEY),
            Key::Loading => out.extend_from_slice(LOADING_KEY),
            Key::Directory(table) => numbered(out, DIRECTORY_PREFIX, table),
            Key::Counter(Counter::Fingerprints) => out.extend_from_slice(FINGERPRINT_COUNT_KEY),
            Key::Counter(Counter::Ids) => out.extend_from_slice(ID_COUNT_KEY),
            Key::Counter(Counter::TableBytes(table)) => numbered(out, TABLE_BYTES_PREFIX, table),
            Key::IdFp(id) => out.extend_from_slice(id),
            Key::FpId(fp, id) => {
                out.extend_from_slice(&fp_ids_prefix(fp));
                out.extend_from_slice(id);
            }
            Key::Delta(fp) => out.extend_from_slice(&fp.0.to_be_bytes()),
            Key::Block { last_key, .. } => out.extend_from_slice(&block_key(last_key)),
        }
    }

    /// The key's bytes.
    pub(super) fn to_bytes(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }

    /// Names the entry for an error message.
    pub(super) fn describe(&self) -> String {
        match *self {
            Key::IdFp(id) => format!("id_fp entry of {:?}", String::from_utf8_lossy(id)),
            Key::FpId(fp, id) => {
                format!("fp_ids entry ({fp}, {:?})", String::from_utf8_lossy(id))
            }
            Key::Delta(fp) => format!("delta entry of {fp}"),
            Key::Block { table, last_key } => {
                format!("table {table}, block with key {last_key:016x}")
            }
            Key::Counter(Counter::Fingerprints) => "fingerprint count".into(),
            Key::Counter(Counter::Ids) => "id count".into(),
            Key::Counter(Counter::TableBytes(table)) => format!("byte count of table {table}"),
            Key::Directory(table) => format!("directory of table {table}"),
            Key::Manifest => "manifest".into(),
            Key::Extract => "extraction option".into(),
            Key::LearnedWeights => "learned weights".into(),
            Key::Loading => "bulk-load mark".into(),
        }
    }
}

/// The stored form of learned weights ([`LearnedIdf::to_bytes`]).
pub(crate) fn encode_learned_weights(idf: &LearnedIdf) -> Vec<u8> {
    idf.to_bytes()
}

/// Learned weights read back, or why their bytes are not a table.
pub(crate) fn decode_learned_weights(bytes: &[u8]) -> Result<LearnedIdf, String> {
    LearnedIdf::from_bytes(bytes).map_err(|e| e.to_string())
}

/// `prefix` and `number` in three or more digits (`dir/007`).
fn numbered(out: &mut Vec<u8>, prefix: &str, number: usize) {
    out.extend_from_slice(format!("{prefix}{number:03}").as_bytes());
}

/// The number after `prefix` in a meta key, if the key is one.
fn number_after(key: &[u8], prefix: &str) -> Option<usize> {
    let digits = std::str::from_utf8(key.strip_prefix(prefix.as_bytes())?).ok()?;
    (digits.len() >= 3 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// An 8-byte big-endian number.
fn decode_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

/// The value of a counter.
pub(super) fn decode_counter(value: &[u8]) -> Result<u64, Malformed> {
    decode_u64(value).ok_or(Malformed::ValueLength {
        family: Family::Meta,
        len: value.len(),
    })
}

/// The fingerprint stored as the value of an `id_fp` entry.
pub(super) fn decode_fingerprint(value: &[u8]) -> Result<Fingerprint, Malformed> {
    decode_u64(value)
        .map(Fingerprint)
        .ok_or(Malformed::ValueLength {
            family: Family::IdToFp,
            len: value.len(),
        })
}

/// The key a table stores the block whose last permuted key is
/// `last_key` under: big-endian, so that RocksDB's order is numeric order.
/// (A fixed array: block reads are on the query path.)
pub(super) fn block_key(last_key: u64) -> [u8; 8] {
    last_key.to_be_bytes()
}

/// The last permuted key of the block stored under `key` in a table.
pub(crate) fn decode_block_key(key: &[u8]) -> Result<u64, Malformed> {
    decode_u64(key).ok_or(Malformed::KeyLength {
        family: Family::Table(0),
        len: key.len(),
    })
}

/// The bytes every `fp_ids` key of `fp` starts with (the family's prefix
/// extractor takes them).
pub(super) fn fp_ids_prefix(fp: Fingerprint) -> [u8; 8] {
    fp.0.to_be_bytes()
}

/// The (fingerprint, id) of an `fp_ids` key.
pub(super) fn decode_fp_id(key: &[u8]) -> Result<(Fingerprint, &str), Malformed> {
    let (fp, id) = key.split_first_chunk::<8>().ok_or(Malformed::KeyLength {
        family: Family::FpToIds,
        len: key.len(),
    })?;
    let id = std::str::from_utf8(id)
        .ok()
        .filter(|id| !id.is_empty())
        .ok_or(Malformed::Id)?;
    Ok((Fingerprint(u64::from_be_bytes(*fp)), id))
}

impl<'a> Record<'a> {
    /// Where the record is kept.
    pub fn key(&self) -> Key<'a> {
        match *self {
            Record::Manifest(_) => Key::Manifest,
            Record::Extract(_) => Key::Extract,
            Record::LearnedWeights(_) => Key::LearnedWeights,
            Record::Loading => Key::Loading,
            Record::Directory { table, .. } => Key::Directory(table),
            Record::Counter(counter, _) => Key::Counter(counter),
            Record::IdFp { id, .. } => Key::IdFp(id),
            Record::FpId { fp, id, .. } => Key::FpId(fp, id),
            Record::Delta(DeltaEntry::Added(fp) | DeltaEntry::Removed(fp)) => Key::Delta(fp),
            Record::Block {
                table, last_key, ..
            } => Key::Block { table, last_key },
        }
    }

    /// Appends the value's bytes to `out`.
    pub(super) fn encode_value(&self, out: &mut Vec<u8>) {
        match *self {
            Record::Manifest(bytes)
            | Record::LearnedWeights(bytes)
            | Record::Directory { bytes, .. }
            | Record::Block { bytes, .. }
            | Record::FpId {
                signature: bytes, ..
            } => out.extend_from_slice(bytes),
            Record::Extract(name) => out.extend_from_slice(name.as_bytes()),
            Record::Loading => {}
            Record::Counter(_, count) => out.extend_from_slice(&count.to_be_bytes()),
            Record::IdFp { fp, .. } => out.extend_from_slice(&fp.0.to_be_bytes()),
            Record::Delta(DeltaEntry::Added(_)) => out.push(DELTA_ADDED),
            Record::Delta(DeltaEntry::Removed(_)) => out.push(DELTA_REMOVED),
        }
    }

    /// The entry `key` → `value` read from `family`, or why it is not one.
    pub fn decode(family: Family, key: &'a [u8], value: &'a [u8]) -> Result<Self, Malformed> {
        match family {
            Family::Meta => decode_meta(key, value),
            Family::IdToFp => {
                let id = std::str::from_utf8(key)
                    .ok()
                    .filter(|id| !id.is_empty())
                    .ok_or(Malformed::Id)?;
                Ok(Record::IdFp {
                    id: id.as_bytes(),
                    fp: decode_fingerprint(value)?,
                })
            }
            Family::FpToIds => {
                let (fp, id) = decode_fp_id(key)?;
                if value.len() > MAX_SIGNATURE_BYTES {
                    return Err(Malformed::ValueLength {
                        family,
                        len: value.len(),
                    });
                }
                Ok(Record::FpId {
                    fp,
                    id: id.as_bytes(),
                    signature: value,
                })
            }
            Family::Delta => {
                let fp = decode_u64(key)
                    .map(Fingerprint)
                    .ok_or(Malformed::KeyLength {
                        family,
                        len: key.len(),
                    })?;
                match *value {
                    [DELTA_ADDED] => Ok(Record::Delta(DeltaEntry::Added(fp))),
                    [DELTA_REMOVED] => Ok(Record::Delta(DeltaEntry::Removed(fp))),
                    [_] => Err(Malformed::DeltaValue),
                    _ => Err(Malformed::ValueLength {
                        family,
                        len: value.len(),
                    }),
                }
            }
            Family::Table(table) => {
                let last_key = decode_u64(key).ok_or(Malformed::KeyLength {
                    family,
                    len: key.len(),
                })?;
                // A block holds a header and its keys: never 8 bytes or fewer.
                if value.len() <= 8 {
                    return Err(Malformed::ValueLength {
                        family,
                        len: value.len(),
                    });
                }
                Ok(Record::Block {
                    table,
                    last_key,
                    bytes: value,
                })
            }
        }
    }
}

fn decode_meta<'a>(key: &'a [u8], value: &'a [u8]) -> Result<Record<'a>, Malformed> {
    let counter = |counter| Ok(Record::Counter(counter, decode_counter(value)?));
    match key {
        MANIFEST_KEY => Ok(Record::Manifest(value)),
        FINGERPRINT_COUNT_KEY => counter(Counter::Fingerprints),
        ID_COUNT_KEY => counter(Counter::Ids),
        EXTRACT_KEY => std::str::from_utf8(value)
            .map(Record::Extract)
            .map_err(|_| Malformed::ValueLength {
                family: Family::Meta,
                len: value.len(),
            }),
        LEARNED_WEIGHTS_KEY => {
            if value.len() < 8 || !(value.len() - 8).is_multiple_of(LearnedIdf::ENTRY_BYTES) {
                return Err(Malformed::ValueLength {
                    family: Family::Meta,
                    len: value.len(),
                });
            }
            Ok(Record::LearnedWeights(value))
        }
        LOADING_KEY => Ok(Record::Loading),
        _ => {
            if let Some(table) = number_after(key, DIRECTORY_PREFIX) {
                Ok(Record::Directory {
                    table,
                    bytes: value,
                })
            } else if let Some(table) = number_after(key, TABLE_BYTES_PREFIX) {
                counter(Counter::TableBytes(table))
            } else {
                Err(Malformed::MetaKey)
            }
        }
    }
}

/// Whether an entry has the shape of `family`'s entries (any table's, for
/// a table). The shapes differ in their values' lengths, except that a
/// meta entry can look like an id's: meta is told by its keys, loosely
/// (any key under one of its prefixes), so that a meta file of a newer
/// format is still placed.
pub(super) fn fits(family: Family, key: &[u8], value: &[u8]) -> bool {
    match family {
        Family::Meta => {
            key == MANIFEST_KEY
                || META_KEY_PREFIXES
                    .iter()
                    .any(|prefix| key.starts_with(prefix))
        }
        _ => Record::decode(family, key, value).is_ok(),
    }
}

/// Whether `key` is the manifest's.
pub(super) fn is_manifest_key(key: &[u8]) -> bool {
    key == MANIFEST_KEY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learned_weights_read_back_and_malformed_ones_are_named() {
        let docs: Vec<Vec<u64>> = (0..30u64).map(|d| vec![d % 4, d % 9 + 10, 99]).collect();
        let idf = LearnedIdf::learn(docs.iter().map(Vec::as_slice));
        assert!(!idf.is_empty());
        let bytes = encode_learned_weights(&idf);
        assert_eq!(bytes.len(), 8 + 12 * idf.len());
        assert_eq!(decode_learned_weights(&bytes), Ok(idf));
        for len in [0, 7, 9, bytes.len() - 1] {
            assert!(
                decode_learned_weights(&bytes[..len]).is_err(),
                "{len} bytes"
            );
            assert!(matches!(
                Record::decode(Family::Meta, LEARNED_WEIGHTS_KEY, &bytes[..len]),
                Err(Malformed::ValueLength { .. })
            ));
        }
        // Entries out of order are not a table.
        let mut swapped = bytes.clone();
        let (first, second) = swapped[8..].split_at_mut(12);
        first.swap_with_slice(&mut second[..12]);
        assert!(decode_learned_weights(&swapped).is_err());
    }

    fn round_trip(record: Record<'_>) {
        let key = record.key();
        let mut key_bytes = Vec::new();
        key.encode(&mut key_bytes);
        let mut value = Vec::new();
        record.encode_value(&mut value);
        assert_eq!(
            Record::decode(key.family(), &key_bytes, &value),
            Ok(record),
            "{record:?}"
        );
        assert!(fits(key.family(), &key_bytes, &value), "{record:?}");
    }

    #[test]
    fn every_record_decodes_to_itself() {
        let fp = Fingerprint(0x0123_4567_89ab_cdef);
        let block = [7u8; 24];
        for record in [
            Record::Manifest(b"\x01\x02"),
            Record::Extract("main"),
            Record::LearnedWeights(&[0; 20]),
            Record::Loading,
            Record::Directory {
                table: 12,
                bytes: b"dir",
            },
            Record::Directory {
                table: 1234,
                bytes: b"",
            },
            Record::Counter(Counter::Fingerprints, 7),
            Record::Counter(Counter::Ids, u64::MAX),
            Record::Counter(Counter::TableBytes(3), 99),
            Record::IdFp {
                id: "https://例え.jp/a".as_bytes(),
                fp,
            },
            Record::FpId {
                fp,
                id: b"doc-1",
                signature: &[],
            },
            Record::FpId {
                fp,
                id: b"doc-2",
                signature: &[7; 32],
            },
            Record::Delta(DeltaEntry::Added(fp)),
            Record::Delta(DeltaEntry::Removed(Fingerprint(0))),
            Record::Block {
                table: 5,
                last_key: u64::MAX,
                bytes: &block,
            },
        ] {
            round_trip(record);
        }
    }

    #[test]
    fn keys_sort_as_their_numbers() {
        let fps = [0u64, 1, 0xff, 0x100, 1 << 63, u64::MAX];
        let keys: Vec<Vec<u8>> = fps
            .iter()
            .map(|&fp| Key::FpId(Fingerprint(fp), b"a").to_bytes())
            .collect();
        assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
        let blocks: Vec<Vec<u8>> = fps
            .iter()
            .map(|&last_key| Key::Block { table: 0, last_key }.to_bytes())
            .collect();
        assert!(blocks.windows(2).all(|pair| pair[0] < pair[1]));
        // Ids of one fingerprint sort by their bytes.
        assert!(
            Key::FpId(Fingerprint(9), b"a").to_bytes()
                < Key::FpId(Fingerprint(9), b"ab").to_bytes()
        );
    }

    #[test]
    fn malformed_entries_are_named() {
        assert_eq!(
            Record::decode(Family::FpToIds, b"short", b""),
            Err(Malformed::KeyLength {
                family: Family::FpToIds,
                len: 5
            })
        );
        assert_eq!(
            Record::decode(Family::FpToIds, &[0; 8], b""),
            Err(Malformed::Id)
        );
        assert_eq!(
            Record::decode(Family::IdToFp, b"doc", b"1234"),
            Err(Malformed::ValueLength {
                family: Family::IdToFp,
                len: 4
            })
        );
        assert_eq!(
            Record::decode(Family::IdToFp, b"\xff", &[0; 8]),
            Err(Malformed::Id)
        );
        assert_eq!(
            Record::decode(Family::Delta, &[0; 8], &[2]),
            Err(Malformed::DeltaValue)
        );
        assert_eq!(
            Record::decode(Family::Meta, b"dir/x", b""),
            Err(Malformed::MetaKey)
        );
        assert_eq!(
            Record::decode(Family::Table(0), &[0; 8], &[0; 8]),
            Err(Malformed::ValueLength {
                family: Family::Table(0),
                len: 8
            })
        );
        let message = Malformed::KeyLength {
            family: Family::FpToIds,
            len: 5,
        }
        .to_string();
        assert!(message.contains("fp_ids key of 5 bytes"), "{message}");
    }

    #[test]
    fn past_every_key_is_past_every_key() {
        let fp = Fingerprint(u64::MAX);
        for key in [
            Key::FpId(fp, "\u{10ffff}".as_bytes()),
            Key::IdFp("\u{10ffff}\u{10ffff}".as_bytes()),
            Key::Delta(fp),
            Key::Block {
                table: 0,
                last_key: u64::MAX,
            },
        ] {
            assert!(key.to_bytes().as_slice() < &PAST_EVERY_KEY[..], "{key:?}");
        }
    }
}
