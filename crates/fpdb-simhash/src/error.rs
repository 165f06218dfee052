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
    /// Not one of `tf`, `tfidf`, `tfidf:N`, `learned:DIGEST`.
    #[error("unknown weighting {0:?}: expected tf, tfidf, tfidf:N or learned:DIGEST")]
    UnknownWeighting(String),
    /// `learned:` not followed by a 16-hex-digit table digest.
    #[error("invalid learned weighting {0:?}: expected learned: and the table's 16 hex digits")]
    LearnedDigest(String),
    /// `tfidf:N` with N not a positive integer.
    #[error("invalid keyword count {0:?}: expected tfidf:N with N at least 1")]
    KeywordCount(String),
}
