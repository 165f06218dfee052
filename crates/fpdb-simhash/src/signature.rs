//! The confirming signature: a b-bit MinHash of a document's feature
//! shingles (Broder 1997; Li and König, WWW 2010), stored beside the 64-bit
//! fingerprint so that a candidate found within a wide Hamming radius can be
//! confirmed, or rejected, by its estimated Jaccard resemblance.
//!
//! A fingerprint votes every feature into 64 bits, so one dropped sentence
//! moves many bits; the set of shingles changes by only the shingles that
//! touched that sentence. The estimate needs no corpus statistics, so a
//! signature never changes once computed.
//!
//! # Definition
//! Fixed forever for a layout, and tested against golden vectors: the
//! features are the fingerprint's own tokens in text order (with their
//! [`crate::hash_feature`] hashes); shingle *j* is the `shingle` features
//! starting at *j* (a text with fewer features than that is one shingle of
//! all of them), hashed by [`shingle_hash`]. Slot *i* keeps the minimum of
//! [`slot_hash`]`(i, shingle)` over the shingles, and its code is the low
//! `bits` bits of that minimum. Codes are packed in slot order, least
//! significant bits first within a byte (16-bit codes little-endian).

use std::fmt;

/// The longest shingle accepted, in features.
pub const MAX_SHINGLE_FEATURES: u8 = 8;
/// The most hashes a layout may have.
pub const MAX_HASHES: u16 = 1024;

/// How a signature is made: how many hashes, how many bits each keeps, and
/// how many consecutive features form a shingle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SignatureLayout {
    hashes: u16,
    bits: u8,
    shingle: u8,
}

impl SignatureLayout {
    /// The measured choice (docs/BENCHMARKS.md, detection quality): 64
    /// hashes of 4 bits over shingles of 2 features, 32 bytes per
    /// document, confirmed at an estimated resemblance of 0.5 and used
    /// with the crawl's [`crate::CommonFeatures`] left out.
    pub const RECOMMENDED: SignatureLayout = SignatureLayout {
        hashes: 64,
        bits: 4,
        shingle: 2,
    };

    /// A layout, checked: `bits` is 1, 2, 4, 8 or 16, `hashes × bits`
    /// fills whole bytes, and `shingle` is 1 to [`MAX_SHINGLE_FEATURES`].
    pub fn new(hashes: u16, bits: u8, shingle: u8) -> Result<Self, SignatureError> {
        if !matches!(bits, 1 | 2 | 4 | 8 | 16) {
            return Err(SignatureError::CodeBits(bits));
        }
        if hashes == 0
            || hashes > MAX_HASHES
            || !(u32::from(hashes) * u32::from(bits)).is_multiple_of(8)
        {
            return Err(SignatureError::HashCount {
                hashes,
                bits,
                max: MAX_HASHES,
            });
        }
        if shingle == 0 || shingle > MAX_SHINGLE_FEATURES {
            return Err(SignatureError::ShingleWidth(shingle));
        }
        Ok(SignatureLayout {
            hashes,
            bits,
            shingle,
        })
    }

    /// Number of hashes (slots).
    pub fn hashes(&self) -> u16 {
        self.hashes
    }

    /// Bits kept of each slot's minimum.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// Features per shingle.
    pub fn shingle(&self) -> u8 {
        self.shingle
    }

    /// Bytes of one signature of this layout.
    pub fn bytes(&self) -> usize {
        usize::from(self.hashes) * usize::from(self.bits) / 8
    }

    /// The chance that two slots of unrelated documents agree: their codes
    /// are uniform over `2^bits` values.
    fn chance_agreement(&self) -> f64 {
        0.5f64.powi(i32::from(self.bits))
    }
}

impl fmt::Display for SignatureLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "minhash:{}x{}/shingle:{}",
            self.hashes, self.bits, self.shingle
        )
    }
}

/// A document's confirming signature. Only texts with at least one feature
/// have one (see [`SignatureError::NoFeatures`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Signature {
    layout: SignatureLayout,
    bytes: Vec<u8>,
}

impl Signature {
    /// The signature of a document given its features' hashes in text
    /// order, as [`crate::Simhasher::feature_hashes`] returns them.
    pub fn from_feature_hashes(
        layout: SignatureLayout,
        features: &[u64],
    ) -> Result<Self, SignatureError> {
        let minima = slot_minima(layout, features)?;
        let mut bytes = vec![0u8; layout.bytes()];
        for (slot, minimum) in minima.iter().enumerate() {
            put_code(&mut bytes, layout.bits, slot, *minimum);
        }
        Ok(Signature { layout, bytes })
    }

    /// A stored signature, read back with the layout it was made with.
    pub fn from_bytes(layout: SignatureLayout, bytes: &[u8]) -> Result<Self, SignatureError> {
        if bytes.len() != layout.bytes() {
            return Err(SignatureError::Length {
                expected: layout.bytes(),
                got: bytes.len(),
            });
        }
        Ok(Signature {
            layout,
            bytes: bytes.to_vec(),
        })
    }

    /// The layout this signature was made with.
    pub fn layout(&self) -> SignatureLayout {
        self.layout
    }

    /// The bytes to store ([`SignatureLayout::bytes`] of them).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// How many slots hold the same code in both signatures.
    pub fn agreeing_slots(&self, other: &Signature) -> Result<u16, SignatureError> {
        if self.layout != other.layout {
            return Err(SignatureError::LayoutMismatch(self.layout, other.layout));
        }
        let bits = self.layout.bits;
        let agreeing = (0..usize::from(self.layout.hashes))
            .filter(|&slot| get_code(&self.bytes, bits, slot) == get_code(&other.bytes, bits, slot))
            .count();
        // At most `hashes`, which is a u16.
        Ok(u16::try_from(agreeing).unwrap_or(u16::MAX))
    }

    /// The estimated Jaccard resemblance of the two documents' shingle
    /// sets, in [0, 1]: the share of agreeing slots corrected for the
    /// codes that agree by chance, `(a − c) / (1 − c)` with `c = 2^−bits`.
    pub fn similarity(&self, other: &Signature) -> Result<f64, SignatureError> {
        let agreeing = self.agreeing_slots(other)?;
        let share = f64::from(agreeing) / f64::from(self.layout.hashes);
        let chance = self.layout.chance_agreement();
        Ok(((share - chance) / (1.0 - chance)).clamp(0.0, 1.0))
    }
}

/// The number of distinct shingles a signature of `layout` is taken over
/// (a text with fewer features than a shingle's width is one shingle):
/// how much content of its own a document has, which a confirmation can
/// weigh beside the signature's estimate.
pub fn distinct_shingles(layout: SignatureLayout, features: &[u64]) -> u32 {
    if features.is_empty() {
        return 0;
    }
    let width = usize::from(layout.shingle).min(features.len()).max(1);
    let mut hashes: Vec<u64> = features.windows(width).map(shingle_hash).collect();
    hashes.sort_unstable();
    hashes.dedup();
    u32::try_from(hashes.len()).unwrap_or(u32::MAX)
}

/// Each slot's minimum hash over the document's shingles: the full 64-bit
/// values a signature keeps `bits` of (public so a harness can derive
/// several layouts from one pass).
///
/// Equal to the minimum of [`slot_hash`] over the shingles, slot by slot;
/// computed with each slot's key made once, and four shingles per pass
/// over the slots, so that a slot's minimum is loaded and stored once per
/// four shingles and their multiplications overlap. The key goes through
/// [`std::hint::black_box`] to keep the compiler from vectorizing the
/// loop: x86-64's baseline (SSE2) has no 64-bit multiply or unsigned
/// minimum for vectors, and their emulation made the loop 1.8 times
/// slower than scalar code (`cargo bench -p fpdb-benches --bench
/// signature`).
pub fn slot_minima(layout: SignatureLayout, features: &[u64]) -> Result<Vec<u64>, SignatureError> {
    if features.is_empty() {
        return Err(SignatureError::NoFeatures);
    }
    let keys: Vec<u64> = (0..layout.hashes).map(slot_key).collect();
    let mut minima = vec![u64::MAX; keys.len()];
    let width = usize::from(layout.shingle).min(features.len());
    let shingles: Vec<u64> = features.windows(width).map(shingle_hash).collect();
    let mut fours = shingles.chunks_exact(4);
    for four in fours.by_ref() {
        let &[a, b, c, d] = four else { continue };
        for (minimum, &key) in minima.iter_mut().zip(&keys) {
            let key = std::hint::black_box(key);
            let least = mix(a ^ key)
                .min(mix(b ^ key))
                .min(mix(c ^ key).min(mix(d ^ key)));
            *minimum = (*minimum).min(least);
        }
    }
    for &shingle in fours.remainder() {
        for (minimum, &key) in minima.iter_mut().zip(&keys) {
            *minimum = (*minimum).min(mix(shingle ^ key));
        }
    }
    Ok(minima)
}

/// The hash of consecutive features: a single feature is its own hash, so
/// word sets and word shingles share one definition.
pub fn shingle_hash(features: &[u64]) -> u64 {
    let mut iter = features.iter();
    let first = iter.next().copied().unwrap_or(0);
    iter.fold(first, |hash, &feature| {
        mix(hash.rotate_left(27) ^ feature.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    })
}

/// Slot `slot`'s hash of a shingle: a bijection of the shingle's hash, a
/// different one per slot, so each slot orders the shingles independently.
pub fn slot_hash(slot: u16, shingle: u64) -> u64 {
    mix(shingle ^ slot_key(slot))
}

/// What slot `slot` mixes into a shingle's hash.
fn slot_key(slot: u16) -> u64 {
    u64::from(slot)
        .wrapping_add(1)
        .wrapping_mul(0xd6e8_feb8_6659_fd93)
}

/// splitmix64's finaliser: a bijection on 64 bits that spreads every input
/// bit over the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn put_code(bytes: &mut [u8], bits: u8, slot: usize, minimum: u64) {
    if bits == 16 {
        // The low 16 bits, little-endian.
        let [low, high, ..] = minimum.to_le_bytes();
        if let Some(pair) = bytes.get_mut(2 * slot..2 * slot + 2) {
            pair.copy_from_slice(&[low, high]);
        }
        return;
    }
    let mask = (1u64 << bits) - 1;
    let bit = slot * usize::from(bits);
    if let Some(byte) = bytes.get_mut(bit / 8) {
        // The code is below 2^bits ≤ 2^8 and is shifted within one byte.
        let code = u8::try_from(minimum & mask).unwrap_or(0);
        *byte |= code << (bit % 8);
    }
}

fn get_code(bytes: &[u8], bits: u8, slot: usize) -> u16 {
    if bits == 16 {
        return bytes
            .get(2 * slot..2 * slot + 2)
            .and_then(|pair| <[u8; 2]>::try_from(pair).ok())
            .map_or(0, u16::from_le_bytes);
    }
    let mask = (1u16 << bits) - 1;
    let bit = slot * usize::from(bits);
    bytes
        .get(bit / 8)
        .map_or(0, |&byte| (u16::from(byte) >> (bit % 8)) & mask)
}

/// Why a [`crate::Signature`] could not be made, read or compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// The text has no feature (empty, only punctuation, stop words or
    /// numbers): it has no content to compare, and a signature of nothing
    /// would match every other empty page.
    #[error("the text has no features to sign")]
    NoFeatures,
    /// A layout with a code width other than 1, 2, 4, 8 or 16 bits.
    #[error("invalid code width {0}: expected 1, 2, 4, 8 or 16 bits")]
    CodeBits(u8),
    /// A layout whose hash count is 0, above the maximum, or does not
    /// fill whole bytes.
    #[error("invalid hash count {hashes} for {bits}-bit codes: expected 1 to {max} hashes filling whole bytes")]
    HashCount {
        /// The hash count asked for.
        hashes: u16,
        /// The code width asked for.
        bits: u8,
        /// The largest hash count accepted.
        max: u16,
    },
    /// A shingle width of 0 or above the maximum.
    #[error("invalid shingle width {0}: expected 1 to {max} features", max = MAX_SHINGLE_FEATURES)]
    ShingleWidth(u8),
    /// Stored bytes whose length is not the layout's.
    #[error("a signature of this layout is {expected} bytes, got {got}")]
    Length {
        /// The layout's length in bytes.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A common-feature share outside 1 to 100 percent.
    #[error("invalid common-feature share {0}%: expected 1 to 100")]
    CommonPercent(u8),
    /// Two signatures of different layouts cannot be compared.
    #[error("cannot compare signatures of different layouts ({0} and {1})")]
    LayoutMismatch(SignatureLayout, SignatureLayout),
}
