//! Typed errors of the crate.
//!
//! Two families: [`DesignError`] for building or naming a table design from
//! parameters a person chose, and [`CodecError`] for everything that reads or
//! writes bytes, encodes keys or answers queries. Byte decoders never panic on
//! untrusted input; they return one of the `CodecError` variants below.

use thiserror::Error;

/// Why a table design could not be built or named.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DesignError {
    /// `k` is above [`crate::MAX_K`].
    #[error("distance k = {k} is not supported (at most {max})")]
    KTooLarge {
        /// The requested distance.
        k: u32,
        /// The largest supported distance.
        max: u32,
    },
    /// A level has too few blocks for the pigeonhole argument (it needs more
    /// than `k` blocks) or more blocks than it has bits.
    #[error(
        "level {level}: {blocks} blocks over {bits} bits cannot tolerate k = {k} differing bits"
    )]
    BadLevel {
        /// Level index, 0 for the first.
        level: usize,
        /// Blocks requested at that level.
        blocks: usize,
        /// Bits that level splits.
        bits: u32,
        /// The design's distance.
        k: u32,
    },
    /// Explicit block widths do not add up to 64 or contain a zero.
    #[error("block widths {widths:?} must be positive and add up to 64")]
    BadWidths {
        /// The widths given.
        widths: Vec<u32>,
    },
    /// The design would need more tables than [`crate::MAX_TABLES`].
    #[error("the design needs {tables} tables, more than the limit of {max}")]
    TooManyTables {
        /// Tables the design would need.
        tables: u128,
        /// The limit.
        max: usize,
    },
    /// A bit range lies outside 0..64, is empty or overlaps another.
    #[error("invalid bit ranges for a permutation: {reason}")]
    BadRanges {
        /// What is wrong.
        reason: String,
    },
    /// A design name could not be parsed or names no design for this `k`.
    #[error("unknown design {name:?} for k = {k}: {hint}")]
    UnknownName {
        /// The name given.
        name: String,
        /// The distance it was resolved for.
        k: u32,
        /// What would have been accepted.
        hint: String,
    },
}

/// Errors of encoding, decoding and querying.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CodecError {
    /// Bytes are malformed: truncated, inconsistent or out of range.
    #[error("corrupt {what}: {reason}")]
    Corrupt {
        /// Which structure was being decoded (e.g. "block", "code book").
        what: &'static str,
        /// What check failed.
        reason: String,
    },
    /// The bytes carry a format version this build does not read.
    #[error("unsupported {what} format version {got} (this build reads up to {expected})")]
    Version {
        /// Which structure was being decoded.
        what: &'static str,
        /// The newest version this build reads.
        expected: u8,
        /// The version found.
        got: u8,
    },
    /// The stored checksum does not match the one computed over the bytes.
    #[error("{what} checksum mismatch: stored {expected:#x}, computed {got:#x}")]
    ChecksumMismatch {
        /// Which structure was being decoded.
        what: &'static str,
        /// The checksum stored in the bytes.
        expected: u64,
        /// The checksum computed from the bytes.
        got: u64,
    },
    /// Fewer bytes than the structure's frame or header says it has.
    #[error("truncated {what}: {found} bytes, needs {needed}")]
    Truncated {
        /// Which structure was being decoded.
        what: &'static str,
        /// The bytes it needs.
        needed: usize,
        /// The bytes there are.
        found: usize,
    },
    /// A well-formed frame of another kind where `what` was expected.
    #[error("expected a {what}, found a frame of kind {found}")]
    WrongKind {
        /// The structure that was expected.
        what: &'static str,
        /// The kind byte found.
        found: u8,
    },
    /// Keys given to an encoder are not strictly ascending.
    #[error("keys must be strictly ascending; key {index} is not above its predecessor")]
    NotStrictlyAscending {
        /// Index of the first offending key.
        index: usize,
    },
    /// An encoder was given no keys where at least one is needed.
    #[error("cannot encode an empty block")]
    EmptyBlock,
    /// A single block would exceed what the header can describe.
    #[error("a block of {keys} keys is too large for the block header")]
    BlockTooLarge {
        /// Keys that were to go in the block.
        keys: usize,
    },
    /// A query asked for a larger distance than the design guarantees.
    #[error("distance {k} is above the design's k = {max}; results would be incomplete")]
    DistanceTooLarge {
        /// The requested distance.
        k: u32,
        /// The design's distance.
        max: u32,
    },
    /// A query asked for a radius wider than any design can answer.
    #[error("radius {radius} is above the widest a query may ask for ({max})")]
    RadiusTooLarge {
        /// The requested radius.
        radius: u32,
        /// The widest radius.
        max: u32,
    },
    /// A table index beyond the design's tables.
    #[error("table {table} does not exist; the design has {tables} tables")]
    NoSuchTable {
        /// The index asked for.
        table: usize,
        /// How many tables the design has.
        tables: usize,
    },
    /// Building a design failed.
    #[error(transparent)]
    Design(#[from] DesignError),
}

impl CodecError {
    /// Shorthand for [`CodecError::Corrupt`].
    pub(crate) fn corrupt(what: &'static str, reason: impl Into<String>) -> Self {
        CodecError::Corrupt {
            what,
            reason: reason.into(),
        }
    }
}
