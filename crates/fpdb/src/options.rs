//! What a database is created with ([`Options`], kept in its manifest) and
//! how one handle opens it ([`OpenOptions`], the one way to open).

use fpdb_codec::{DesignChoice, DEFAULT_BLOCK_BYTES};
use fpdb_html::Extract;
use std::sync::Arc;

use fpdb_simhash::{LearnedIdf, SimhashOptions, Weighting};

use crate::rule::Confirmation;

/// The default largest distance answered: the paper's k = 3.
pub const DEFAULT_K: u32 = 3;

/// Options fixed when a database is created (kept in its manifest).
///
/// ```
/// let options = fpdb::Options::default().k(2).expected_size(1_000_000);
/// assert_eq!(options.k, 2);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Largest Hamming distance queries may ask for (0..=7).
    pub k: u32,
    /// About how many distinct fingerprints the database will hold; picks
    /// the table design when `design` is `Auto`.
    pub expected_size: u64,
    /// The permuted tables: `Auto` or a name (`4x16`, `10`, `16`, …).
    pub design: DesignChoice,
    /// Target size of a compressed block in bytes (64 ..= 1 MiB).
    pub block_bytes: usize,
    /// How text becomes fingerprints in `insert_text` / `query_text`.
    pub simhash: SimhashOptions,
    /// Which text of an HTML page is fingerprinted
    /// ([`crate::Db::fingerprint_html`]).
    pub extract: Extract,
    /// The second stage of the match rule: documents made from text keep
    /// a signature that confirms candidates within a wider radius
    /// ([`crate::MatchRule`]). `None` matches by distance alone.
    pub confirmation: Option<Confirmation>,
    /// The learned word weights, when `simhash.weighting` is
    /// `Weighting::Learned` with their digest ([`Options::learned_weights`]
    /// sets both); kept in the database beside the manifest.
    pub learned_weights: Option<Arc<LearnedIdf>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            k: DEFAULT_K,
            expected_size: 1 << 24,
            design: DesignChoice::Auto,
            block_bytes: DEFAULT_BLOCK_BYTES,
            simhash: SimhashOptions::default(),
            extract: Extract::default(),
            confirmation: None,
            learned_weights: None,
        }
    }
}

impl Options {
    /// Weighs words by `idf` (learned from a sample of the crawl, see
    /// `fpdb_simhash::LearnedIdf`): sets [`Options::learned_weights`] and
    /// makes `simhash.weighting` `Weighting::Learned` with its digest; the
    /// tokenizer stays.
    pub fn learned_weights(mut self, idf: Arc<LearnedIdf>) -> Self {
        self.simhash.weighting = Weighting::Learned {
            digest: idf.digest(),
        };
        self.learned_weights = Some(idf);
        self
    }

    /// Sets [`Options::k`].
    pub fn k(mut self, k: u32) -> Self {
        self.k = k;
        self
    }

    /// Sets [`Options::expected_size`].
    pub fn expected_size(mut self, fingerprints: u64) -> Self {
        self.expected_size = fingerprints;
        self
    }

    /// Sets [`Options::design`].
    pub fn design(mut self, design: DesignChoice) -> Self {
        self.design = design;
        self
    }

    /// Sets [`Options::block_bytes`].
    pub fn block_bytes(mut self, bytes: usize) -> Self {
        self.block_bytes = bytes;
        self
    }

    /// Sets [`Options::simhash`].
    pub fn simhash(mut self, simhash: SimhashOptions) -> Self {
        self.simhash = simhash;
        self
    }

    /// Sets [`Options::extract`].
    pub fn extract(mut self, extract: Extract) -> Self {
        self.extract = extract;
        self
    }

    /// Sets [`Options::confirmation`].
    pub fn confirmation(mut self, confirmation: Option<Confirmation>) -> Self {
        self.confirmation = confirmation;
        self
    }
}

/// Whether [`OpenOptions::open`] may create the database.
#[derive(Debug, Clone)]
pub(crate) enum Create {
    /// Open an existing database only.
    Never,
    /// Create it with these options when the path holds none.
    IfMissing(Options),
    /// Create it with these options; the path must be new or an empty
    /// directory.
    New(Options),
}

/// How one handle opens a database: the one way to open or create one
/// ([`OpenOptions::open`]; [`crate::Db::open`] and [`crate::Db::create`] are
/// shorthands for it). None of this
/// is stored.
///
/// ```
/// use fpdb::{OpenOptions, Options};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("pages");
/// let db = OpenOptions::new()
///     .create_if_missing(Options::default().k(3))
///     .sync(true)
///     .block_cache_bytes(64 << 20)
///     .open(&path)?;
/// drop(db);
/// let reader = OpenOptions::new().read_only(true).open(&path)?;
/// assert_eq!(reader.k(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OpenOptions {
    /// fsync the write-ahead log before each write returns. Without it a
    /// write survives a process crash but not a power failure. Writers on
    /// several threads share each fsync (group commit): a write waits for
    /// its sync without holding the writer lock, so a query on another
    /// thread may see it a sync before it returns.
    pub sync: bool,
    /// Merge the delta into the tables once it holds this many changed
    /// fingerprints, or 1/8 of the set if that is more (see
    /// [`OpenOptions::merge_threshold`]).
    pub delta_limit: usize,
    /// Table blocks kept in memory from their second read, in bytes
    /// (still compressed: about 6 bytes per fingerprint per table, plus 64
    /// bytes per block for its sync points; a block read once, as most of
    /// a one-shot process's are, is not worth the copy). 0 reads every
    /// block through RocksDB's own cache.
    pub block_cache_bytes: usize,
    /// Open for reading only: no lock is taken, so another process may
    /// have the database open for writing; this handle sees the database
    /// as it was when opened.
    pub read_only: bool,
    /// For a read-only handle opened beside a live writer: replay the
    /// writer's whole write-ahead log, so the handle sees every write
    /// acknowledged before it opened (a backup needs that). Without it a
    /// log over 1 MiB is skipped and the handle sees the writer's last
    /// flush, at most 8 MiB of log behind, and opens in milliseconds
    /// (docs/RELIABILITY.md).
    pub replay_log: bool,
    pub(crate) create: Create,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            sync: false,
            delta_limit: 65_536,
            block_cache_bytes: 1 << 30,
            read_only: false,
            replay_log: false,
            create: Create::Never,
        }
    }
}

impl OpenOptions {
    /// The defaults: open an existing database for reading and writing,
    /// no fsync per write, 1 GiB of kept blocks.
    pub fn new() -> Self {
        OpenOptions::default()
    }

    /// Creates the database with `options` if `path` holds none; an
    /// existing database keeps the options it was created with.
    pub fn create_if_missing(mut self, options: Options) -> Self {
        self.create = Create::IfMissing(options);
        self
    }

    /// Creates a new database with `options`; [`crate::Error::AlreadyExists`]
    /// if `path` is a file or a directory that is not empty.
    pub fn create_new(mut self, options: Options) -> Self {
        self.create = Create::New(options);
        self
    }

    /// Sets [`OpenOptions::read_only`].
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Sets [`OpenOptions::replay_log`].
    pub fn replay_log(mut self, replay_log: bool) -> Self {
        self.replay_log = replay_log;
        self
    }

    /// Sets [`OpenOptions::sync`].
    pub fn sync(mut self, sync: bool) -> Self {
        self.sync = sync;
        self
    }

    /// Sets [`OpenOptions::delta_limit`].
    pub fn delta_limit(mut self, changes: usize) -> Self {
        self.delta_limit = changes;
        self
    }

    /// Sets [`OpenOptions::block_cache_bytes`].
    pub fn block_cache_bytes(mut self, bytes: usize) -> Self {
        self.block_cache_bytes = bytes;
        self
    }

    /// The delta size that triggers a merge in a set of `fingerprints`.
    ///
    /// A merge rewrites every block a change lands in. Once the delta is
    /// small against the set, nearly every change lands in its own block,
    /// so a fixed limit makes each insert rewrite about one block per table
    /// (at 10M fingerprints: 4 KiB written per 8-byte insert). Growing the
    /// limit with the set keeps that to one block per ~20 changes, for
    /// 1/8 of the set held in memory (8-byte keys in sorted buckets, per
    /// table). At 1/16, a 10M online build spent 41 of its 108 seconds
    /// merging; 1/8 halves the number of merges.
    pub fn merge_threshold(&self, fingerprints: u64) -> usize {
        let share = usize::try_from(fingerprints / DELTA_SHARE).unwrap_or(usize::MAX);
        self.delta_limit.max(share)
    }
}

/// The delta may grow to 1/`DELTA_SHARE` of the set before a merge.
const DELTA_SHARE: u64 = 8;
