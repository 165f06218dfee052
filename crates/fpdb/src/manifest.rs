//! The manifest: what a database is, checked on every open.
//!
//! This is the only module that uses bincode (2.0.1, pinned: the crate is
//! unmaintained and 3.0.0 is an empty release), so it can be replaced by
//! rewriting this file alone. The stored value is framed by fpdb itself
//! (magic, version, checksum), so a damaged manifest is reported as such
//! before bincode sees a byte.

use bincode::{Decode, Encode};
use xxhash_rust::xxh3::xxh3_64;

use crate::{Error, Result};

/// The database format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"fpdbMAN\x01";
/// Bound on what bincode may allocate while decoding a manifest: the
/// largest design has 4096 tables with a 69-byte code book each.
const DECODE_LIMIT: usize = 4 * 1024 * 1024;

/// Everything needed to interpret the stored tables.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub(crate) struct Manifest {
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

impl Manifest {
    /// `magic (8) | version (u32 BE) | bincode payload | xxh3-64 of all before (u64 BE)`.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let payload = bincode::encode_to_vec(self, bincode::config::standard())
            .map_err(|e| Error::corrupt("manifest", format!("cannot encode: {e}")))?;
        let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + payload.len() + 8);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        bytes.extend_from_slice(&payload);
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_be_bytes());
        Ok(bytes)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest> {
        let damaged = |reason: &str| Error::corrupt("manifest", reason.to_string());
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
            return Err(Error::Version {
                expected: FORMAT_VERSION,
                got: version,
            });
        }
        let config = bincode::config::standard().with_limit::<DECODE_LIMIT>();
        let (manifest, used): (Manifest, usize) = bincode::decode_from_slice(payload, config)
            .map_err(|e| Error::corrupt("manifest", format!("cannot decode: {e}")))?;
        if used != payload.len() {
            return Err(damaged("trailing bytes after the manifest"));
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
        assert!(matches!(
            Manifest::from_bytes(&bytes),
            Err(Error::Version {
                expected: 1,
                got: 2
            })
        ));
    }
}
