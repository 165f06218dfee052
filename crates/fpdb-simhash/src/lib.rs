//! Text to 64-bit simhash fingerprints.
//!
//! A simhash (Charikar 2002, used for web crawling by Manku, Jain and Das
//! Sarma, WWW 2007) maps a document to 64 bits such that similar documents
//! get fingerprints that differ in few bits. The document is split into
//! features (words or character shingles), each feature is hashed to 64
//! bits, and each bit of the fingerprint is the sign of the weighted vote of
//! all features: a feature adds its weight where its hash has a 1 and
//! subtracts it where it has a 0. A small edit changes a few light features
//! and flips few, if any, bits.
//!
//! ```
//! use fpdb_simhash::{Simhasher, SimhashOptions};
//!
//! let simhasher = Simhasher::new(SimhashOptions::default());
//! let a = simhasher.fingerprint("近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同。");
//! let b = simhasher.fingerprint("近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同。");
//! let c = simhasher.fingerprint("The quick brown fox jumps over the lazy dog near the river bank.");
//! assert!(a.distance(b) < a.distance(c));
//! println!("{a} is {} bits from {b}", a.distance(b));
//! ```
//!
//! # What defines a fingerprint
//! Fingerprints are stored for years, so everything that shapes them is
//! fixed and tested against golden vectors (`data/golden/`): the text is
//! folded (full-width forms to ASCII, lower case), split by the
//! [`Tokenizer`], filtered (stop words, numbers, punctuation), weighted by
//! the [`Weighting`], each feature hashed with xxh3-64 and seed
//! [`FEATURE_HASH_SEED`], and bit *i* (bit 0 the most significant) is 1
//! exactly when the weighted vote is strictly positive. A tie gives 0, so a
//! text without features has the fingerprint 0.
//!
//! # Confirming a near-duplicate
//! A fingerprint finds candidates within a Hamming radius; a [`Signature`]
//! (a b-bit MinHash of the same tokens, 32 bytes in the
//! [`SignatureLayout::RECOMMENDED`] layout) confirms them by estimated
//! resemblance. Leave out the crawl's [`CommonFeatures`] so a shared site
//! template does not make different pages alike.
//!
//! ```
//! use fpdb_simhash::{CommonFeatures, SignatureError, SignatureLayout, Simhasher};
//!
//! let simhasher = Simhasher::default();
//! let layout = SignatureLayout::RECOMMENDED;
//! let common = CommonFeatures::default(); // learned from a first bulk load
//! let a = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。";
//! let b = "近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，指纹数据库用来找出它们。";
//! let sa = simhasher.signature_without_common(a, layout, &common)?;
//! let sb = simhasher.signature_without_common(b, layout, &common)?;
//! assert!(sa.similarity(&sb)? >= 0.5);
//! assert_eq!(sa.as_bytes().len(), 32);
//! // Text without features has no signature, so it never confirms.
//! assert_eq!(simhasher.signature("，。！", layout), Err(SignatureError::NoFeatures));
//! # Ok::<(), SignatureError>(())
//! ```
#![warn(missing_docs)]
// Numeric conversions say how they stay in range: `From` where lossless,
// `try_from` where a value can be out of range, or an `#[expect]` with the
// reason the value fits.
#![warn(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    clippy::cast_lossless
)]

mod chunks;
mod common_features;
mod document_frequency;
mod error;
mod feature_hash;
mod keywords;
mod learned_idf;
mod normalize;
mod numbers;
mod signature;
mod simhasher;
mod stop_words;
mod tokenizer;
mod votes;
mod weighting;

pub use common_features::CommonFeatures;
pub use error::OptionsError;
pub use feature_hash::{hash_feature, FEATURE_HASH_SEED};
pub use fpdb_fingerprint::{
    Fingerprint, ParseFingerprintError, WeakBits, EVERY_SUBSET, MAX_WEAK_BITS_PER_QUARTER, QUARTERS,
};
pub use learned_idf::{LearnedIdf, LearnedIdfError};
pub use numbers::digit_permille;
pub use signature::{
    distinct_shingles, shingle_hash, slot_hash, slot_minima, Signature, SignatureError,
    SignatureLayout, MAX_HASHES, MAX_SHINGLE_FEATURES,
};
pub use simhasher::{Feature, SimhashOptions, Simhasher};
pub use stop_words::is_stop_word;
pub use tokenizer::{Tokenizer, MAX_SHINGLE_CHARS};
pub use weighting::Weighting;
