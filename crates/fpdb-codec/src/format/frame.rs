//! The frame around every stored structure but blocks.
//!
//! ```text
//! offset  size  field (integers big-endian)
//! 0       4     magic "fpdb"
//! 4       1     kind (see `Kind::byte`)
//! 5       1     version of the structure's payload
//! 6       4     n = payload length in bytes
//! 10      n     payload
//! 10+n    8     xxh3-64 of bytes 0..10+n
//! ```
//!
//! A frame is exactly `n + 18` bytes: stored values come with their own
//! length (RocksDB's), so shorter is truncation and longer is damage. The
//! checks run in an order that makes every error say the most it can:
//! length, magic, declared length, checksum (so a flipped bit anywhere is
//! a checksum mismatch), then kind and version (so a well-formed frame of
//! another kind or version says which).

use xxhash_rust::xxh3::xxh3_64;

use super::{check, Kind};
use crate::error::CodecError;

const MAGIC: [u8; 4] = *b"fpdb";
/// Magic, kind, version and payload length.
const HEADER: usize = 10;
const CHECKSUM: usize = 8;
/// Bytes a frame adds to its payload.
pub const FRAME_OVERHEAD: usize = HEADER + CHECKSUM;

/// Frames `payload` as a structure of `kind` at `version`.
///
/// A payload's length must fit the u32 field; a longer one (which no
/// RocksDB value can hold, so its write fails there) is framed with a
/// length that does not decode, never with a wrong one that does.
pub fn encode_frame(kind: Kind, version: u8, payload: &[u8]) -> Vec<u8> {
    let length = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let mut bytes = Vec::with_capacity(FRAME_OVERHEAD + payload.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.push(kind.byte());
    bytes.push(version);
    bytes.extend_from_slice(&length.to_be_bytes());
    bytes.extend_from_slice(payload);
    let checksum = xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_be_bytes());
    bytes
}

/// The version `bytes` claim if they start like a frame (the magic and a
/// kind byte), unchecked: a peek before [`decode_frame`] checks them.
pub fn claimed_version(bytes: &[u8]) -> Option<u8> {
    match bytes.split_first_chunk::<HEADER>() {
        Some((&[m0, m1, m2, m3, _, version, ..], _)) if [m0, m1, m2, m3] == MAGIC => Some(version),
        _ => None,
    }
}

/// The version and payload of a frame of `kind` at one of the `supported`
/// versions; any other bytes are a typed error naming `kind`.
pub fn decode_frame<'a>(
    bytes: &'a [u8],
    kind: Kind,
    supported: &[u8],
) -> Result<(u8, &'a [u8]), CodecError> {
    check::length(kind, FRAME_OVERHEAD, bytes.len())?;
    let (Some((header, rest)), Some((body, stored))) = (
        bytes.split_first_chunk::<HEADER>(),
        bytes.split_last_chunk::<CHECKSUM>(),
    ) else {
        return Err(CodecError::Truncated {
            what: kind.name(),
            needed: FRAME_OVERHEAD,
            found: bytes.len(),
        });
    };
    let [m0, m1, m2, m3, found_kind, version, l0, l1, l2, l3] = *header;
    if [m0, m1, m2, m3] != MAGIC {
        return Err(CodecError::corrupt(
            kind.name(),
            "not an fpdb frame (bad magic bytes)",
        ));
    }
    let declared = usize::try_from(u32::from_be_bytes([l0, l1, l2, l3])).unwrap_or(usize::MAX);
    let needed = declared.saturating_add(FRAME_OVERHEAD);
    check::length(kind, needed, bytes.len())?;
    if bytes.len() > needed {
        return Err(CodecError::corrupt(
            kind.name(),
            format!("{} bytes after a frame of {needed}", bytes.len() - needed),
        ));
    }
    check::checksum(kind, u64::from_be_bytes(*stored), xxh3_64(body))?;
    if found_kind != kind.byte() {
        return Err(CodecError::WrongKind {
            what: kind.name(),
            found: found_kind,
        });
    }
    let version = check::version(kind, version, supported)?;
    let payload = rest
        .get(..declared)
        .ok_or_else(|| CodecError::corrupt(kind.name(), "payload past the frame"))?;
    Ok((version, payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Vec<u8> {
        encode_frame(Kind::Directory, 2, b"0123456789abcdef")
    }

    #[test]
    fn round_trips() {
        let bytes = sample();
        assert_eq!(claimed_version(&bytes), Some(2));
        assert_eq!(claimed_version(&bytes[..HEADER - 1]), None);
        assert_eq!(claimed_version(b"not a frame at all"), None);
        assert_eq!(bytes.len(), 16 + FRAME_OVERHEAD);
        assert_eq!(
            decode_frame(&bytes, Kind::Directory, &[2]),
            Ok((2, &b"0123456789abcdef"[..]))
        );
        let empty = encode_frame(Kind::Design, 1, &[]);
        assert_eq!(decode_frame(&empty, Kind::Design, &[1]), Ok((1, &[][..])));
    }

    #[test]
    fn another_kind_is_named() {
        let bytes = sample();
        assert_eq!(
            decode_frame(&bytes, Kind::CodeBook, &[2]),
            Err(CodecError::WrongKind {
                what: "code book",
                found: Kind::Directory.byte()
            })
        );
    }

    #[test]
    fn another_version_is_named() {
        let bytes = sample();
        assert_eq!(
            decode_frame(&bytes, Kind::Directory, &[3, 4]),
            Err(CodecError::Version {
                what: "block directory",
                expected: 4,
                got: 2
            })
        );
    }

    #[test]
    fn every_truncation_is_truncated() {
        let bytes = sample();
        for len in 0..bytes.len() {
            let error = decode_frame(&bytes[..len], Kind::Directory, &[2]).unwrap_err();
            assert!(
                matches!(
                    error,
                    CodecError::Truncated { what: "block directory", needed, found }
                        if found == len && needed > len
                ),
                "truncated to {len}: {error:?}"
            );
        }
    }

    #[test]
    fn trailing_bytes_are_corrupt() {
        let mut bytes = sample();
        bytes.push(0);
        assert!(matches!(
            decode_frame(&bytes, Kind::Directory, &[2]),
            Err(CodecError::Corrupt {
                what: "block directory",
                ..
            })
        ));
    }

    /// A flipped bit in the magic is "not a frame"; in the length, a
    /// length error; anywhere else, a checksum mismatch.
    #[test]
    fn every_bit_flip_gets_its_error() {
        let bytes = sample();
        for bit in 0..bytes.len() * 8 {
            let mut damaged = bytes.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            let error = decode_frame(&damaged, Kind::Directory, &[2]).unwrap_err();
            let byte = bit / 8;
            let expected = match byte {
                0..4 => matches!(error, CodecError::Corrupt { .. }),
                6..10 => matches!(
                    error,
                    CodecError::Truncated { .. } | CodecError::Corrupt { .. }
                ),
                _ => matches!(error, CodecError::ChecksumMismatch { .. }),
            };
            assert!(expected, "bit {bit}: {error:?}");
        }
    }

    proptest! {
        #[test]
        fn any_payload_round_trips(payload in proptest::collection::vec(any::<u8>(), 0..300), version: u8) {
            let bytes = encode_frame(Kind::Manifest, version, &payload);
            prop_assert_eq!(decode_frame(&bytes, Kind::Manifest, &[version]), Ok((version, &payload[..])));
        }

        #[test]
        fn garbage_is_an_error_not_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_frame(&bytes, Kind::Design, &[2]);
        }
    }
}
