//! fpdb: a persistent, embedded near-duplicate fingerprint database.
//!
//! Pages become 64-bit simhash fingerprints ([`simhash`]); the database keeps
//! them in permuted, sorted, compressed tables (the `fpdb-codec` crate)
//! stored in RocksDB column families, so that every stored fingerprint within k bits of a
//! query is found by decompressing about one block per table. Document ids
//! (URLs, numbers) are kept beside the fingerprints, many per fingerprint.
//!
//! ```
//! use fpdb::{Db, Fingerprint, Options};
//!
//! let dir = tempfile::tempdir()?;
//! let db = Db::create(dir.path().join("pages"), Options::default())?;
//! db.insert("https://example.com/a", Fingerprint(0x0123_4567_89ab_cdef))?;
//! // A page whose fingerprint differs in 2 bits is a near-duplicate of /a.
//! let matches = db.query(Fingerprint(0x0123_4567_89ab_cdec), 3)?;
//! assert_eq!(matches[0].distance, 2);
//! assert_eq!(matches[0].ids, ["https://example.com/a"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Writes go to RocksDB's write-ahead log and to a small in-memory delta
//! that queries consult beside the blocks; deltas are merged into the
//! blocks in batches, each merge one atomic RocksDB write. See
//! docs/ARCHITECTURE.md and docs/FORMAT.md.
//!
//! Inside, the layers import downwards only: `store/` (the only code that
//! names RocksDB) → `tables.rs` (directories, code books, kept blocks,
//! delta) → the operations (`query`, `write`, `merge`, `batch`, `pairs`,
//! `verify`, `stats`, `bulk`) → `Db`, a thin façade.
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

mod added_keys;
mod backup;
mod batch;
mod block_cache;
mod block_fetch;
mod bulk;
mod corpus_rule;
mod db;
mod delta;
mod error;
mod find;
mod find_batch;
mod inspect;
mod learn;
mod learning_corpus;
mod manifest;
mod merge;
mod options;
mod pairs;
mod progress;
mod query;
mod radix;
mod repair;
mod report_json;
mod rule;
mod rule_pairs;
mod seeded_hash;
mod signature_counts;
mod stats;
mod store;
mod tables;
mod tuning;
mod upgrade;
mod verify;
mod write;

pub use backup::{Backup, BackupMethod};
pub use batch::BatchStrategy;
pub use bulk::{
    default_memory_bytes, BulkLoader, BulkOptions, BulkPhase, BulkProgress, BulkSummary,
};
pub use corpus_rule::DocumentPair;
pub use db::Db;
pub use error::{Error, Result};
pub use fpdb_codec::dedup;
pub use fpdb_codec::dedup::{id_clusters, FingerprintPair, IdCluster};
pub use fpdb_codec::{DesignChoice, DEFAULT_BLOCK_BYTES, MAX_RADIUS};
pub use fpdb_fingerprint::MAX_ID_BYTES;
/// Web pages to text (`fpdb-html`): for callers that extract without a
/// database.
pub use fpdb_html as html;
pub use fpdb_html::{Extract, HtmlError, Page, UnknownExtract};
pub use fpdb_simhash as simhash;
pub use fpdb_simhash::{Fingerprint, SimhashOptions, Simhasher};
/// Crawler edits planted into a sample, scores and figures (`fpdb-tune`).
pub use fpdb_tune as tune;
pub use learn::{learn_common_features, COMMON_PERCENT, LEARN_SAMPLE, MIN_COMMON_SAMPLE};
pub use learning_corpus::{Learned, LearningCorpus};
pub use manifest::FORMAT_VERSION;
pub use options::{OpenOptions, Options, DEFAULT_K};
pub use progress::Progress;
pub use query::Match;
pub use repair::RepairReport;
pub use rule::{Confirmation, Document, MatchRule, Near};
pub use signature_counts::SignatureCounts;
pub use stats::{Stats, TableStats};
pub use tuning::{
    measure_settings, recommend, tune, PairCheck, Setting, SettingScore, TuneOptions, Tuning,
    TUNING_RADII, WEAK_BIT_RADII,
};
pub use verify::{Problem, VerifyReport};
pub use write::{Checked, CheckedDocument};
