//! Why a line is not a record.

use crate::MAX_ID_BYTES;

/// What is wrong with one input line (the caller adds `file:line`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BadLine {
    /// The line's bytes are not UTF-8.
    #[error("line is not valid UTF-8")]
    NotUtf8,
    /// A fingerprint line without exactly two tab-separated fields.
    #[error("expected 2 tab-separated fields, <id>\\t<16 hex digits>, found {found}")]
    FieldCount {
        /// Fields found.
        found: usize,
    },
    /// Not 16 hex digits.
    #[error("invalid fingerprint {text:?}: {reason}")]
    Fingerprint {
        /// The text given (at most 64 characters of it).
        text: String,
        /// Why it is not a fingerprint.
        reason: String,
    },
    /// Not a JSON object of the expected shape.
    #[error("invalid JSON (expected {{\"id\": ..., \"text\": ...}} or {{\"id\": ..., \"fp\": ...}}): {0}")]
    Json(String),
    /// A JSON line with more than one of `text`, `html` and `fp`.
    #[error("has more than one of \"text\", \"html\" and \"fp\"")]
    SeveralPayloads,
    /// A JSON line with none of `text`, `html` and `fp`.
    #[error("needs \"text\", \"html\" or \"fp\"")]
    NoPayload,
    /// A page with no text to fingerprint (binary data).
    #[error("page: {0}")]
    Html(String),
    /// A record to store without an id.
    #[error("missing \"id\"")]
    MissingId,
    /// An empty id.
    #[error("empty id")]
    EmptyId,
    /// An id longer than [`MAX_ID_BYTES`].
    #[error("id of {len} bytes is longer than {MAX_ID_BYTES} bytes")]
    IdTooLong {
        /// Its length in bytes.
        len: usize,
    },
}
