//! The manifest's bytes: what a database is, framed and checksummed.
//!
//! This is the only module of fpdb that uses bincode (2.0.1, pinned: the
//! crate is unmaintained and 3.0.0 is an empty release), so it can be
//! replaced by rewriting this file alone. The bincode payload is framed by
//! fpdb itself (magic, version, checksum), so a damaged manifest is
//! reported as such before bincode sees a byte. It lives in the pure codec
//! so that it can be fuzzed without building RocksDB.

use bincode::{Decode, Encode};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

/// The database format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"fpdbMAN\x01";
/// Bound on what bincode may allocate while decoding a manifest: the
/// largest design has 4096 tables with a 69-byte code book each.
const DECODE_LIMIT: usize = 4 * 1024 * 1024;

/// Everything needed to interpret a database's stored tables.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct Manifest {
    /// Largest distance the tables answer.
    pub k: u32,
    /// Target block size in bytes.
    pub block_bytes: u32,
    /// `TableDesign::to_bytes`.
    pub design: Vec<u8>,
    /// Each table's Huffman code book, `HuffmanCode::to_bytes`.
    pub codes: Vec<Vec<u8>>,
    /// Simhash tokenizer, as `Tokenizer`'s display form.
    pub tokenizer: String,
    /// Simhash weighting, as `Weighting`'s display form.
    pub weighting: String,
}

/// Why manifest bytes could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The bytes fail a check: frame, magic, checksum or payload.
    #[error("{reason}")]
    Corrupt {
        /// Which check failed.
        reason: String,
    },
    /// A manifest of a database format this build does not read.
    #[error("unsupported database format version {got} (this build reads version {expected})")]
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version found.
        got: u32,
    },
    /// bincode refused to encode the manifest.
    #[error("cannot encode: {reason}")]
    Encode {
        /// bincode's message.
        reason: String,
    },
}

impl Manifest {
    /// `magic (8) | version (u32 BE) | bincode payload | xxh3-64 of all before (u64 BE)`.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ManifestError> {
        let payload = bincode::encode_to_vec(self, bincode::config::standard()).map_err(|e| {
            ManifestError::Encode {
                reason: e.to_string(),
            }
        })?;
        let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + payload.len() + 8);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        bytes.extend_from_slice(&payload);
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_be_bytes());
        Ok(bytes)
    }

    /// Reads what [`Manifest::to_bytes`] wrote; any other bytes are an
    /// error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, ManifestError> {
        let damaged = |reason: &str| ManifestError::Corrupt {
            reason: reason.to_string(),
        };
        let (body, checksum) = bytes
            .split_last_chunk::<8>()
            .ok_or_else(|| damaged("shorter than its frame"))?;
        let (magic, rest) = body
            .split_first_chunk::<8>()
            .ok_or_else(|| damaged("shorter than its frame"))?;
        if magic != MAGIC {
            return Err(damaged("not an fpdb manifest (bad magic bytes)"));
        }
        let (version, payload) = rest
            .split_first_chunk::<4>()
            .ok_or_else(|| damaged("no version"))?;
        if xxh3_64(body) != u64::from_be_bytes(*checksum) {
            return Err(damaged("checksum mismatch"));
        }
        let version = u32::from_be_bytes(*version);
        if version != FORMAT_VERSION {
            return Err(ManifestError::Version {
                expected: FORMAT_VERSION,
                got: version,
            });
        }
        let config = bincode::config::standard().with_limit::<DECODE_LIMIT>();
        let (manifest, used): (Manifest, usize) = bincode::decode_from_slice(payload, config)
            .map_err(|e| ManifestError::Corrupt {
                reason: format!("cannot decode: {e}"),
            })?;
        if used != payload.len() {
            return Err(damaged("trailing bytes after the manifest"));
        }
        // bincode also accepts wider-than-needed varints; this build never
        // writes them, so bytes that do not re-encode identically were not
        // written by fpdb (found by fuzz/fuzz_targets/manifest_decoder.rs).
        let canonical =
            bincode::encode_to_vec(&manifest, bincode::config::standard()).map_err(|e| {
                ManifestError::Encode {
                    reason: e.to_string(),
                }
            })?;
        if canonical != payload {
            return Err(damaged("payload is not in canonical form"));
        }
        Ok(manifest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            k: 3,
            block_bytes: 1024,
            design: vec![1, 3, 0, 1, 4],
            codes: vec![vec![1; 69], vec![2; 69]],
            tokenizer: "jieba".into(),
            weighting: "tfidf:8".into(),
        }
    }

    #[test]
    fn round_trips() {
        let bytes = sample().to_bytes().unwrap();
        assert_eq!(Manifest::from_bytes(&bytes).unwrap(), sample());
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error() {
        let bytes = sample().to_bytes().unwrap();
        for len in 0..bytes.len() {
            assert!(
                Manifest::from_bytes(&bytes[..len]).is_err(),
                "truncated to {len}"
            );
        }
        for bit in 0..bytes.len() * 8 {
            let mut damaged = bytes.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            assert!(Manifest::from_bytes(&damaged).is_err(), "bit {bit} flipped");
        }
    }

    #[test]
    fn other_versions_are_named() {
        let mut bytes = sample().to_bytes().unwrap();
        bytes[11] = 2;
        let body_len = bytes.len() - 8;
        let checksum = xxh3_64(&bytes[..body_len]);
        bytes[body_len..].copy_from_slice(&checksum.to_be_bytes());
        assert_eq!(
            Manifest::from_bytes(&bytes),
            Err(ManifestError::Version {
                expected: 1,
                got: 2
            })
        );
    }

    /// Frames `payload` with a valid magic, version and checksum.
    fn framed(payload: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::from(&MAGIC[..]);
        bytes.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        bytes.extend_from_slice(payload);
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_be_bytes());
        bytes
    }

    /// The fuzzer's first finding: the code book count written as a
    /// 4-byte varint (marker 252) where one byte suffices decoded, and
    /// re-encoded to different bytes.
    #[test]
    fn non_canonical_varints_are_corrupt() {
        let wide = [0, 1, 4, 33, 0, 1, 189, 252, 1, 0, 0, 0, 0, 0, 1, 0];
        assert!(matches!(
            Manifest::from_bytes(&framed(&wide)),
            Err(ManifestError::Corrupt { ref reason }) if reason.contains("canonical")
        ));
        let narrow = [0, 1, 4, 33, 0, 1, 189, 1, 0, 0, 1, 0];
        let manifest = Manifest::from_bytes(&framed(&narrow)).unwrap();
        assert_eq!(manifest.to_bytes().unwrap(), framed(&narrow));
    }

    #[test]
    fn a_valid_frame_around_a_bad_payload_is_corrupt() {
        assert!(matches!(
            Manifest::from_bytes(&framed(&[0xff; 16])),
            Err(ManifestError::Corrupt { .. })
        ));
    }
}
