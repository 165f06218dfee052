//! The manifest's bytes: what a database is, in a frame of kind
//! `Manifest` whose version is the database format.
//!
//! This is the workspace's only module that uses bincode (2.0.1, pinned:
//! the crate is unmaintained and 3.0.0 is an empty release), so it can be
//! replaced by rewriting this file alone. bincode only sees a payload
//! whose frame (`format`) checked out. It sits above the design and the
//! code books, which a format-1 manifest embeds in their old layouts and
//! this module upgrades. The database (`fpdb`'s `manifest` module)
//! names these bytes; being here, below RocksDB, they are fuzzed as they
//! are (`fuzz/fuzz_targets/manifest_decoder.rs`).

use bincode::{Decode, Encode};

use crate::format::legacy;
use crate::format::{claimed_version, decode_frame, encode_frame, Kind};
use crate::{CodecError, HuffmanCode, TableDesign};

/// The database format this build writes. It also reads formats 1 to
/// 6, whose writable opens upgrade them (docs/FORMAT.md).
pub const FORMAT_VERSION: u32 = 7;

/// [`FORMAT_VERSION`] as the frame stores it.
const FRAME_VERSION: u8 = 7;

/// Format 6: the confirmation without [`Confirmation::weak_flips`].
const FRAME_VERSION_6: u8 = 6;

/// Format 5: the confirmation without [`Confirmation::numbers_permille`].
const FRAME_VERSION_5: u8 = 5;

/// Format 4: the confirmation without [`Confirmation::weak_bits`] and
/// [`Confirmation::min_shared`].
const FRAME_VERSION_4: u8 = 4;

/// Format 3: the manifest without [`Manifest::confirmation`].
const FRAME_VERSION_3: u8 = 3;

/// Format 2: the manifest of format 3, and table directories that held
/// last keys only.
const FRAME_VERSION_2: u8 = 2;

/// Bound on what bincode may allocate while decoding a manifest: the
/// largest design has 4096 tables with an 82-byte code book each.
const DECODE_LIMIT: usize = 4 * 1024 * 1024;

const WHAT: &str = Kind::Manifest.name();

/// Everything needed to interpret a database's stored tables. The design
/// and code books are in this build's format, whatever the stored one.
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
    /// How candidates are confirmed by a stored signature; `None` for a
    /// database matched by distance alone (every database before format 4).
    pub confirmation: Option<Confirmation>,
}

/// The second stage of a database's match rule, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
pub struct Confirmation {
    /// The signature layout: hashes, bits per hash, features per shingle.
    pub hashes: u16,
    /// Bits kept of each hash.
    pub bits: u8,
    /// Features per shingle.
    pub shingle: u8,
    /// The least estimated resemblance that confirms, in thousandths.
    pub threshold_permille: u16,
    /// The Hamming radius candidates are retrieved within.
    pub radius: u32,
    /// Hashes of the features left out of every signature (a site
    /// template's words), sorted.
    pub common_features: Vec<u64>,
    /// Weak bits per quarter each document keeps: candidates are the
    /// fingerprints within `radius` that both documents' weak bits reach;
    /// 0 for every fingerprint within `radius` (every format-4 database).
    pub weak_bits: u8,
    /// The most weak bits flipped in the quarter through which one
    /// document reaches another; 0 for any number, every subset (every
    /// database before format 7).
    pub weak_flips: u8,
    /// The fewest shingles two documents must be estimated to share (from
    /// the estimate and each document's stored shingle count); 0 for no
    /// such gate (every format-4 database).
    pub min_shared: u16,
    /// Digits per thousand of a text's letters and digits from which its
    /// bare numbers are features of its signature; 0 for never (every
    /// format-5 database).
    pub numbers_permille: u16,
}

/// The manifest of format 6: a confirmation reaching through every subset
/// of the weak bits.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ManifestV6 {
    k: u32,
    block_bytes: u32,
    design: Vec<u8>,
    codes: Vec<Vec<u8>>,
    tokenizer: String,
    weighting: String,
    confirmation: Option<ConfirmationV6>,
}

/// The confirmation of format 6.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ConfirmationV6 {
    hashes: u16,
    bits: u8,
    shingle: u8,
    threshold_permille: u16,
    radius: u32,
    common_features: Vec<u64>,
    weak_bits: u8,
    min_shared: u16,
    numbers_permille: u16,
}

impl From<ManifestV6> for Manifest {
    fn from(old: ManifestV6) -> Self {
        Manifest {
            k: old.k,
            block_bytes: old.block_bytes,
            design: old.design,
            codes: old.codes,
            tokenizer: old.tokenizer,
            weighting: old.weighting,
            confirmation: old.confirmation.map(|c| Confirmation {
                hashes: c.hashes,
                bits: c.bits,
                shingle: c.shingle,
                threshold_permille: c.threshold_permille,
                radius: c.radius,
                common_features: c.common_features,
                weak_bits: c.weak_bits,
                weak_flips: 0,
                min_shared: c.min_shared,
                numbers_permille: c.numbers_permille,
            }),
        }
    }
}

/// The manifest of format 5: a confirmation without numbers.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ManifestV5 {
    k: u32,
    block_bytes: u32,
    design: Vec<u8>,
    codes: Vec<Vec<u8>>,
    tokenizer: String,
    weighting: String,
    confirmation: Option<ConfirmationV5>,
}

/// The confirmation of format 5.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ConfirmationV5 {
    hashes: u16,
    bits: u8,
    shingle: u8,
    threshold_permille: u16,
    radius: u32,
    common_features: Vec<u64>,
    weak_bits: u8,
    min_shared: u16,
}

impl From<ManifestV5> for Manifest {
    fn from(old: ManifestV5) -> Self {
        Manifest::from(ManifestV6 {
            k: old.k,
            block_bytes: old.block_bytes,
            design: old.design,
            codes: old.codes,
            tokenizer: old.tokenizer,
            weighting: old.weighting,
            confirmation: old.confirmation.map(|c| ConfirmationV6 {
                hashes: c.hashes,
                bits: c.bits,
                shingle: c.shingle,
                threshold_permille: c.threshold_permille,
                radius: c.radius,
                common_features: c.common_features,
                weak_bits: c.weak_bits,
                min_shared: c.min_shared,
                numbers_permille: 0,
            }),
        })
    }
}

/// The manifest of format 4: a confirmation without weak bits or a
/// shared-shingle gate.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ManifestV4 {
    k: u32,
    block_bytes: u32,
    design: Vec<u8>,
    codes: Vec<Vec<u8>>,
    tokenizer: String,
    weighting: String,
    confirmation: Option<ConfirmationV4>,
}

/// The confirmation of format 4.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ConfirmationV4 {
    hashes: u16,
    bits: u8,
    shingle: u8,
    threshold_permille: u16,
    radius: u32,
    common_features: Vec<u64>,
}

impl From<ManifestV4> for Manifest {
    fn from(old: ManifestV4) -> Self {
        Manifest::from(ManifestV5 {
            k: old.k,
            block_bytes: old.block_bytes,
            design: old.design,
            codes: old.codes,
            tokenizer: old.tokenizer,
            weighting: old.weighting,
            confirmation: old.confirmation.map(|c| ConfirmationV5 {
                hashes: c.hashes,
                bits: c.bits,
                shingle: c.shingle,
                threshold_permille: c.threshold_permille,
                radius: c.radius,
                common_features: c.common_features,
                weak_bits: 0,
                min_shared: 0,
            }),
        })
    }
}

/// The manifest of formats 1 to 3.
#[derive(Debug, Clone, PartialEq, Eq, Encode, Decode)]
struct ManifestV3 {
    k: u32,
    block_bytes: u32,
    design: Vec<u8>,
    codes: Vec<Vec<u8>>,
    tokenizer: String,
    weighting: String,
}

impl From<ManifestV3> for Manifest {
    fn from(old: ManifestV3) -> Self {
        Manifest::from(ManifestV4 {
            k: old.k,
            block_bytes: old.block_bytes,
            design: old.design,
            codes: old.codes,
            tokenizer: old.tokenizer,
            weighting: old.weighting,
            confirmation: None,
        })
    }
}

/// A manifest as read, with the database format it was stored in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The manifest, converted to this build's format.
    pub manifest: Manifest,
    /// The stored database format: 1 to [`FORMAT_VERSION`].
    pub version: u32,
}

impl Manifest {
    /// The manifest in a frame of the current format.
    pub fn to_bytes(&self) -> Result<Vec<u8>, CodecError> {
        Ok(encode_frame(Kind::Manifest, FRAME_VERSION, &encode(self)?))
    }

    /// Reads what [`Manifest::to_bytes`] wrote, or a manifest of database
    /// format 3 or 2 (the payload without a confirmation) or 1 (that
    /// payload with its design and code books converted); any other bytes
    /// are an error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Stored, CodecError> {
        if legacy::is_manifest_v1(bytes) {
            let stored = Manifest::from(decode::<ManifestV3>(legacy::unframe_manifest_v1(bytes)?)?);
            return Ok(Stored {
                manifest: stored.upgraded()?,
                version: u32::from(legacy::V1),
            });
        }
        let (version, payload) = decode_frame(
            bytes,
            Kind::Manifest,
            &[
                FRAME_VERSION,
                FRAME_VERSION_6,
                FRAME_VERSION_5,
                FRAME_VERSION_4,
                FRAME_VERSION_3,
                FRAME_VERSION_2,
            ],
        )?;
        let manifest = match version {
            FRAME_VERSION => decode::<Manifest>(payload)?,
            FRAME_VERSION_6 => decode::<ManifestV6>(payload)?.into(),
            FRAME_VERSION_5 => decode::<ManifestV5>(payload)?.into(),
            FRAME_VERSION_4 => decode::<ManifestV4>(payload)?.into(),
            _ => decode::<ManifestV3>(payload)?.into(),
        };
        Ok(Stored {
            manifest,
            version: u32::from(version),
        })
    }

    /// The database format manifest `bytes` claim, unchecked (a peek:
    /// [`Manifest::from_bytes`] checks them).
    pub fn claimed_format(bytes: &[u8]) -> Option<u32> {
        if legacy::is_manifest_v1(bytes) {
            return Some(u32::from(legacy::V1));
        }
        claimed_version(bytes).map(u32::from)
    }

    /// A format-1 manifest's design and code books in this build's format.
    fn upgraded(self) -> Result<Manifest, CodecError> {
        let design = TableDesign::from_v1_bytes(&self.design)?.to_bytes();
        let codes = self
            .codes
            .iter()
            .map(|code| HuffmanCode::from_v1_bytes(code).map(|code| code.to_bytes()))
            .collect::<Result<_, _>>()?;
        Ok(Manifest {
            design,
            codes,
            ..self
        })
    }
}

/// The bincode payload (standard config: varint integers).
fn encode<M: Encode>(manifest: &M) -> Result<Vec<u8>, CodecError> {
    // Encoding into a Vec cannot fail for these field types; the error is
    // kept rather than unwrapped.
    bincode::encode_to_vec(manifest, bincode::config::standard())
        .map_err(|e| corrupt(format!("cannot encode: {e}")))
}

fn decode<M: Encode + Decode<()>>(payload: &[u8]) -> Result<M, CodecError> {
    let config = bincode::config::standard().with_limit::<DECODE_LIMIT>();
    let (manifest, used): (M, usize) = bincode::decode_from_slice(payload, config)
        .map_err(|e| corrupt(format!("cannot decode: {e}")))?;
    if used != payload.len() {
        return Err(corrupt("trailing bytes after the payload"));
    }
    // bincode also accepts wider-than-needed varints; fpdb never writes
    // them, so bytes that do not re-encode identically were not written
    // by fpdb (found by fuzz/fuzz_targets/manifest_decoder.rs).
    if encode(&manifest)? != payload {
        return Err(corrupt("payload is not in canonical form"));
    }
    Ok(manifest)
}

fn corrupt(reason: impl Into<String>) -> CodecError {
    CodecError::Corrupt {
        what: WHAT,
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        let design = TableDesign::levels(3, &[4]).unwrap();
        Manifest {
            k: 3,
            block_bytes: 1024,
            design: design.to_bytes(),
            codes: vec![HuffmanCode::uniform().to_bytes(); 4],
            tokenizer: "jieba".into(),
            weighting: "tfidf:8".into(),
            confirmation: None,
        }
    }

    fn confirmed() -> Manifest {
        Manifest {
            confirmation: Some(Confirmation {
                hashes: 64,
                bits: 4,
                shingle: 2,
                threshold_permille: 500,
                radius: 12,
                common_features: vec![3, 17, u64::MAX],
                weak_bits: 4,
                weak_flips: 2,
                min_shared: 7,
                numbers_permille: 200,
            }),
            ..sample()
        }
    }

    /// A manifest as format 6 held it (every subset of the weak bits).
    fn v6(manifest: Manifest) -> ManifestV6 {
        ManifestV6 {
            k: manifest.k,
            block_bytes: manifest.block_bytes,
            design: manifest.design,
            codes: manifest.codes,
            tokenizer: manifest.tokenizer,
            weighting: manifest.weighting,
            confirmation: manifest.confirmation.map(|c| ConfirmationV6 {
                hashes: c.hashes,
                bits: c.bits,
                shingle: c.shingle,
                threshold_permille: c.threshold_permille,
                radius: c.radius,
                common_features: c.common_features,
                weak_bits: c.weak_bits,
                min_shared: c.min_shared,
                numbers_permille: c.numbers_permille,
            }),
        }
    }

    /// A manifest as format 5 held it (no numbers).
    fn v5(manifest: Manifest) -> ManifestV5 {
        ManifestV5 {
            k: manifest.k,
            block_bytes: manifest.block_bytes,
            design: manifest.design,
            codes: manifest.codes,
            tokenizer: manifest.tokenizer,
            weighting: manifest.weighting,
            confirmation: manifest.confirmation.map(|c| ConfirmationV5 {
                hashes: c.hashes,
                bits: c.bits,
                shingle: c.shingle,
                threshold_permille: c.threshold_permille,
                radius: c.radius,
                common_features: c.common_features,
                weak_bits: c.weak_bits,
                min_shared: c.min_shared,
            }),
        }
    }

    /// A manifest as format 4 held it (no weak bits).
    fn v4(manifest: Manifest) -> ManifestV4 {
        ManifestV4 {
            k: manifest.k,
            block_bytes: manifest.block_bytes,
            design: manifest.design,
            codes: manifest.codes,
            tokenizer: manifest.tokenizer,
            weighting: manifest.weighting,
            confirmation: manifest.confirmation.map(|c| ConfirmationV4 {
                hashes: c.hashes,
                bits: c.bits,
                shingle: c.shingle,
                threshold_permille: c.threshold_permille,
                radius: c.radius,
                common_features: c.common_features,
            }),
        }
    }

    /// A manifest as formats 1 to 3 held it.
    fn old(manifest: Manifest) -> ManifestV3 {
        ManifestV3 {
            k: manifest.k,
            block_bytes: manifest.block_bytes,
            design: manifest.design,
            codes: manifest.codes,
            tokenizer: manifest.tokenizer,
            weighting: manifest.weighting,
        }
    }

    /// `sample()` as database format 1 stored it.
    fn sample_v1() -> Vec<u8> {
        let unframe = |bytes: &[u8], kind| decode_frame(bytes, kind, &[2]).unwrap().1.to_vec();
        let v1 = Manifest {
            design: legacy::frame_v1(&unframe(&sample().design, Kind::Design)),
            codes: sample()
                .codes
                .iter()
                .map(|code| legacy::frame_v1(&unframe(code, Kind::CodeBook)))
                .collect(),
            ..sample()
        };
        legacy::frame_manifest_v1(&encode(&old(v1)).unwrap())
    }

    #[test]
    fn round_trips_and_reads_formats_1_to_6() {
        assert_eq!(u32::from(FRAME_VERSION), FORMAT_VERSION);
        for manifest in [sample(), confirmed()] {
            let bytes = manifest.to_bytes().unwrap();
            let stored = Manifest::from_bytes(&bytes).unwrap();
            assert_eq!((stored.manifest, stored.version), (manifest, 7));
            assert_eq!(Manifest::claimed_format(&bytes), Some(7));
        }
        let v6_bytes = encode_frame(Kind::Manifest, 6, &encode(&v6(confirmed())).unwrap());
        let stored = Manifest::from_bytes(&v6_bytes).unwrap();
        let mut every_subset = confirmed();
        if let Some(c) = every_subset.confirmation.as_mut() {
            c.weak_flips = 0;
        }
        assert_eq!((stored.manifest, stored.version), (every_subset, 6));
        let v5_bytes = encode_frame(Kind::Manifest, 5, &encode(&v5(confirmed())).unwrap());
        let stored = Manifest::from_bytes(&v5_bytes).unwrap();
        let mut without_numbers = confirmed();
        if let Some(c) = without_numbers.confirmation.as_mut() {
            c.weak_flips = 0;
            c.numbers_permille = 0;
        }
        assert_eq!((stored.manifest, stored.version), (without_numbers, 5));
        let v4_bytes = encode_frame(Kind::Manifest, 4, &encode(&v4(confirmed())).unwrap());
        let stored = Manifest::from_bytes(&v4_bytes).unwrap();
        let mut without_weak_bits = confirmed();
        if let Some(c) = without_weak_bits.confirmation.as_mut() {
            c.weak_bits = 0;
            c.weak_flips = 0;
            c.min_shared = 0;
            c.numbers_permille = 0;
        }
        assert_eq!((stored.manifest, stored.version), (without_weak_bits, 4));
        let v3 = encode_frame(Kind::Manifest, 3, &encode(&old(sample())).unwrap());
        let stored = Manifest::from_bytes(&v3).unwrap();
        assert_eq!((stored.manifest, stored.version), (sample(), 3));
        let v2 = encode_frame(Kind::Manifest, 2, &encode(&old(sample())).unwrap());
        let stored = Manifest::from_bytes(&v2).unwrap();
        assert_eq!((stored.manifest, stored.version), (sample(), 2));
        assert_eq!(Manifest::claimed_format(&v2), Some(2));
        let stored = Manifest::from_bytes(&sample_v1()).unwrap();
        assert_eq!((stored.manifest, stored.version), (sample(), 1));
        assert_eq!(Manifest::claimed_format(&sample_v1()), Some(1));
        assert_eq!(Manifest::claimed_format(b"fpdb"), None);
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error() {
        for bytes in [
            sample().to_bytes().unwrap(),
            confirmed().to_bytes().unwrap(),
            sample_v1(),
        ] {
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
    }

    #[test]
    fn other_versions_are_named() {
        let payload = encode(&sample()).unwrap();
        let bytes = encode_frame(Kind::Manifest, 8, &payload);
        assert_eq!(
            Manifest::from_bytes(&bytes),
            Err(CodecError::Version {
                what: "manifest",
                expected: 7,
                got: 8
            })
        );
    }

    /// The fuzzer's first finding: the code book count written as a
    /// 4-byte varint (marker 252) where one byte suffices decoded, and
    /// re-encoded to different bytes.
    #[test]
    fn non_canonical_varints_are_corrupt() {
        let framed = |payload: &[u8]| encode_frame(Kind::Manifest, FRAME_VERSION, payload);
        let wide = [0, 1, 4, 33, 0, 1, 189, 252, 1, 0, 0, 0, 0, 0, 1, 0, 0];
        assert!(matches!(
            Manifest::from_bytes(&framed(&wide)),
            Err(CodecError::Corrupt { ref reason, .. }) if reason.contains("canonical")
        ));
        let narrow = [0, 1, 4, 33, 0, 1, 189, 1, 0, 0, 1, 0, 0];
        let stored = Manifest::from_bytes(&framed(&narrow)).unwrap();
        assert_eq!(stored.manifest.to_bytes().unwrap(), framed(&narrow));
    }

    #[test]
    fn a_valid_frame_around_a_bad_payload_is_corrupt() {
        let bytes = encode_frame(Kind::Manifest, FRAME_VERSION, &[0xff; 16]);
        assert!(matches!(
            Manifest::from_bytes(&bytes),
            Err(CodecError::Corrupt {
                what: "manifest",
                ..
            })
        ));
    }
}
