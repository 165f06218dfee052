//! Errors of this crate.

/// A simhash option string that cannot be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// Not one of `jieba`, `words`, `chars:N`.
    #[error("unknown tokenizer {0:?}: expected jieba, words or chars:N")]
    UnknownTokenizer(String),
    /// `chars:N` with N outside 1..=16.
    #[error("invalid shingle length {0:?}: expected chars:N with N from 1 to 16")]
    ShingleLength(String),
    /// Not one of `tf`, `tfidf`, `tfidf:N`.
    #[error("unknown weighting {0:?}: expected tf, tfidf or tfidf:N")]
    UnknownWeighting(String),
    /// `tfidf:N` with N not a positive integer.
    #[error("invalid keyword count {0:?}: expected tfidf:N with N at least 1")]
    KeywordCount(String),
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
    #[error("invalid shingle width {0}: expected 1 to {max} features", max = crate::signature::MAX_SHINGLE_FEATURES)]
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
    LayoutMismatch(crate::SignatureLayout, crate::SignatureLayout),
}
