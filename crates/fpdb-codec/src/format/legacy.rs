//! The layouts of database format 1, before structures were framed: read
//! by read-only opens of old databases and by their upgrade to the current format,
//! never written. Delete with format 1's support.
//!
//! - table design and code book: version byte = 1, payload, then the low
//!   32 bits of xxh3-64 over everything before;
//! - manifest: magic `fpdbMAN\x01`, version u32 = 1, payload, xxh3-64 over
//!   everything before;
//! - block directory: the bare payload (no version or checksum).
//!
//! Errors are the frames' ([`super::check`]), naming the same structures.

use xxhash_rust::xxh3::xxh3_64;

use super::{check, Kind};
use crate::bits::low_u32;
use crate::error::CodecError;

/// The version every structure had in database format 1.
pub const V1: u8 = 1;

/// How a format-1 manifest starts.
pub const MANIFEST_V1_MAGIC: &[u8; 8] = b"fpdbMAN\x01";

/// The payload of a format-1 design or code book: `version | payload |
/// checksum32`.
pub fn unframe_v1(bytes: &[u8], kind: Kind) -> Result<&[u8], CodecError> {
    check::length(kind, 1 + 4, bytes.len())?;
    let (Some((&version, _)), Some((body, stored))) =
        (bytes.split_first(), bytes.split_last_chunk::<4>())
    else {
        return Err(CodecError::Truncated {
            what: kind.name(),
            needed: 5,
            found: bytes.len(),
        });
    };
    check::version(kind, version, &[V1])?;
    check::checksum(
        kind,
        u64::from(u32::from_be_bytes(*stored)),
        u64::from(low_u32(xxh3_64(body))),
    )?;
    body.get(1..)
        .ok_or_else(|| CodecError::corrupt(kind.name(), "no payload"))
}

/// Whether `bytes` start like a format-1 manifest (a framed one starts
/// `fpdb` and a kind byte, never `M`).
pub fn is_manifest_v1(bytes: &[u8]) -> bool {
    bytes.starts_with(MANIFEST_V1_MAGIC)
}

/// The payload of a format-1 manifest.
pub fn unframe_manifest_v1(bytes: &[u8]) -> Result<&[u8], CodecError> {
    const HEADER: usize = MANIFEST_V1_MAGIC.len() + 4;
    let kind = Kind::Manifest;
    check::length(kind, HEADER + 8, bytes.len())?;
    let (Some((header, _)), Some((body, stored))) = (
        bytes.split_first_chunk::<HEADER>(),
        bytes.split_last_chunk::<8>(),
    ) else {
        return Err(CodecError::Truncated {
            what: kind.name(),
            needed: HEADER + 8,
            found: bytes.len(),
        });
    };
    let [magic @ .., v0, v1, v2, v3] = *header;
    if &magic != MANIFEST_V1_MAGIC {
        return Err(CodecError::corrupt(
            kind.name(),
            "not an fpdb manifest (bad magic bytes)",
        ));
    }
    check::checksum(kind, u64::from_be_bytes(*stored), xxh3_64(body))?;
    let version = u32::from_be_bytes([v0, v1, v2, v3]);
    if version != u32::from(V1) {
        return Err(CodecError::corrupt(
            kind.name(),
            format!("format-1 layout with version {version}"),
        ));
    }
    body.get(HEADER..)
        .ok_or_else(|| CodecError::corrupt(kind.name(), "no payload"))
}

/// A format-1 design or code book around `payload` (for tests of the
/// upgrade; this build never stores one).
pub fn frame_v1(payload: &[u8]) -> Vec<u8> {
    let mut bytes = vec![V1];
    bytes.extend_from_slice(payload);
    let checksum = low_u32(xxh3_64(&bytes));
    bytes.extend_from_slice(&checksum.to_be_bytes());
    bytes
}

/// A format-1 manifest around `payload` (for tests of the upgrade).
pub fn frame_manifest_v1(payload: &[u8]) -> Vec<u8> {
    let mut bytes = MANIFEST_V1_MAGIC.to_vec();
    bytes.extend_from_slice(&u32::from(V1).to_be_bytes());
    bytes.extend_from_slice(payload);
    let checksum = xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_be_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_layouts_round_trip_and_damage_is_an_error() {
        let bytes = frame_v1(b"payload");
        assert_eq!(unframe_v1(&bytes, Kind::Design), Ok(&b"payload"[..]));
        let manifest = frame_manifest_v1(b"payload");
        assert!(is_manifest_v1(&manifest));
        assert_eq!(unframe_manifest_v1(&manifest), Ok(&b"payload"[..]));
        let design_checks = |bytes: &[u8]| unframe_v1(bytes, Kind::Design).is_err();
        let manifest_checks = |bytes: &[u8]| unframe_manifest_v1(bytes).is_err();
        for (bytes, fails) in [
            (bytes, &design_checks as &dyn Fn(&[u8]) -> bool),
            (manifest, &manifest_checks),
        ] {
            for len in 0..bytes.len() {
                assert!(fails(&bytes[..len]), "{len}");
            }
            for bit in 0..bytes.len() * 8 {
                let mut damaged = bytes.clone();
                damaged[bit / 8] ^= 1 << (bit % 8);
                assert!(fails(&damaged), "bit {bit}");
            }
        }
    }

    #[test]
    fn a_v1_version_byte_other_than_1_is_a_version_error() {
        let mut bytes = frame_v1(b"x");
        bytes[0] = 2;
        assert!(matches!(
            unframe_v1(&bytes, Kind::CodeBook),
            Err(CodecError::Version {
                what: "code book",
                expected: 1,
                got: 2
            })
        ));
    }
}
