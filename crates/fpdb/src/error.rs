//! Errors of the database, each naming what went wrong.

use std::path::PathBuf;

use fpdb_codec::{CodecError, DesignError};
use fpdb_simhash::OptionsError;

/// Everything that can go wrong in [`crate::Db`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Another process (or another `Db` in this one) has the database open
    /// for writing.
    #[error("database {path} is locked: another process has it open for writing")]
    Locked {
        /// The database directory.
        path: PathBuf,
    },
    /// No database at this path.
    #[error("no fpdb database at {path}")]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// `create` on a path that already holds something.
    #[error("{path} already exists; fpdb creates databases only in new or empty directories")]
    AlreadyExists {
        /// The path given.
        path: PathBuf,
    },
    /// Stored data that fails its checks.
    #[error("database is damaged: {what}: {reason}")]
    Corrupt {
        /// What is damaged (the manifest, a table's block, an id entry, …).
        what: String,
        /// How it is damaged.
        reason: String,
    },
    /// A database written by a format this version cannot read.
    #[error("unsupported database format version {got} (this fpdb reads version {expected})")]
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version found.
        got: u32,
    },
    /// A query distance larger than the database's tables guarantee.
    #[error("k = {k} is larger than this database's k = {max}; its tables can only answer k ≤ {max} exactly (create a database with a larger --k)")]
    KTooLarge {
        /// The requested distance.
        k: u32,
        /// The database's distance.
        max: u32,
    },
    /// A query radius wider than fpdb searches, whatever the database.
    #[error("k = {k} is wider than any fpdb query reaches (at most {max} bits)")]
    RadiusTooLarge {
        /// The requested radius.
        k: u32,
        /// The widest radius ([`fpdb_codec::MAX_RADIUS`]).
        max: u32,
    },
    /// A text with no features (empty, only punctuation, markup, numbers
    /// or stop words): it has nothing to compare, and its fingerprint
    /// would match every other empty page (invalid input).
    #[error("the text has no features (empty, or only punctuation, numbers or markup): nothing to fingerprint")]
    NoFeatures,
    /// A document whose signature another layout made than the database's
    /// confirmation (invalid input).
    #[error("a signature of {got} bytes, where the database's layout makes {expected}")]
    SignatureLayout {
        /// Bytes of a signature of the database's layout.
        expected: usize,
        /// Bytes of the one given.
        got: usize,
    },
    /// A document id that is empty or longer than [`crate::MAX_ID_BYTES`]
    /// (invalid input).
    #[error("document id of {len} bytes: ids are 1 to {max} bytes of UTF-8")]
    BadId {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A bulk load into a database that already holds documents.
    #[error("{path} is not empty (ids: {ids}, distinct fingerprints: {fingerprints}); bulk loads go into empty databases (use `insert_batch` / `fpdb add` to add to it, or export it and load everything into a new database)")]
    NotEmpty {
        /// The database directory.
        path: PathBuf,
        /// Distinct fingerprints stored.
        fingerprints: u64,
        /// Document ids stored.
        ids: u64,
    },
    /// A read-only open of a database whose bulk load was interrupted.
    #[error(
        "{path}: a bulk load was interrupted; open the database for writing once to roll it back"
    )]
    InterruptedLoad {
        /// The database directory.
        path: PathBuf,
    },
    /// A database opened for writing in a process forked from one that
    /// had opened a database: RocksDB's threads do not survive a fork, so
    /// the handle would wait for them forever.
    #[error(
        "cannot open a database for writing in a process forked from process {parent}, which had opened one: \
         RocksDB's threads do not survive a fork; start the process without forking \
         (Python: multiprocessing's \"spawn\" or \"forkserver\" start method)"
    )]
    ForkedWriter {
        /// The process that had opened a database before the fork.
        parent: u32,
    },
    /// A write on a database opened read-only.
    #[error("database is open read-only")]
    ReadOnly,
    /// Invalid creation or handle options.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// A request larger than fpdb handles at once (e.g. a merged batch of
    /// more than 2^32 - 1 queries).
    #[error("too large: {what}")]
    LimitExceeded {
        /// What is too large, and the limit.
        what: String,
    },
    /// A table design that cannot be built.
    #[error(transparent)]
    Design(#[from] DesignError),
    /// Simhash options that cannot be parsed.
    #[error(transparent)]
    Simhash(#[from] OptionsError),
    /// A page that has no text to fingerprint (binary data).
    #[error("page: {0}")]
    Html(#[from] fpdb_html::HtmlError),
    /// A block or code book that cannot be encoded or decoded.
    #[error("codec: {0}")]
    Codec(#[from] CodecError),
    /// The storage engine failed (I/O error, full disk, …) while reading or
    /// writing `what`. (Damage it detects is [`Error::Corrupt`].)
    #[error("storage: {what}: {message}")]
    Storage {
        /// What was being read or written.
        what: String,
        /// The storage engine's message.
        message: String,
    },
    /// A file-system operation outside RocksDB failed.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn corrupt(what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            what: what.into(),
            reason: reason.into(),
        }
    }
}

/// Result of database operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;
