//! The database handle: a thin façade over the store, the tables and the
//! operations built on them. Every method here checks what the caller
//! asked for, takes the lock the operation needs and hands over.

use std::path::Path;

use fpdb_html::{page_text, Extract, Page};
use fpdb_simhash::{Fingerprint, Simhasher};

use crate::backup::{backup, Backup};
use crate::batch::{query_batch, BatchStrategy};
use crate::bulk::{bulk_loader, BulkLoader, BulkOptions};
use crate::error::{Error, Result};
use crate::find::find;
use crate::find_batch::find_batch;
use crate::inspect::verify_at;
use crate::merge::{merge, merge_unless_running, Planning};
use crate::options::{Create, OpenOptions, Options};
use crate::pairs::near_pairs;
use crate::progress::Progress;
use crate::query::{query, Match};
use crate::repair::{repair, RepairReport};
use crate::rule::{Confirmation, Document, MatchRule, Near};
use crate::stats::{stats, Stats};
use crate::store::{Access, Store};
use crate::tables::{Tables, WriterGuard};
use crate::upgrade;
use crate::verify::{verify, VerifyReport};
use crate::write::{
    self, check_and_insert, check_and_insert_document, Checked, CheckedDocument, Op,
};
use fpdb_codec::dedup::FingerprintPair;

/// An open fpdb database. `Send + Sync`: share it between threads with an
/// `Arc`; queries run in parallel, writes are serialised.
pub struct Db {
    store: Store,
    tables: Tables,
    simhasher: Simhasher,
    extract: Extract,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.store.path())
            .field("k", &self.tables.k)
            .field("design", &self.tables.design.name())
            .field("read_only", &self.store.is_read_only())
            .finish_non_exhaustive()
    }
}

impl OpenOptions {
    /// Opens (or, as asked, creates) the database in `path`.
    ///
    /// Errors: [`Error::NotFound`] when there is no database and none is to
    /// be created, [`Error::AlreadyExists`] when a new one is to be created
    /// where something is, [`Error::Locked`] when another handle has it
    /// open for writing, [`Error::InvalidOptions`] for options that
    /// contradict each other or cannot be built.
    pub fn open(&self, path: impl AsRef<Path>) -> Result<Db> {
        let path = path.as_ref();
        let create = match &self.create {
            Create::Never => None,
            Create::New(options) => Some(options),
            Create::IfMissing(options) => (!path.join("CURRENT").is_file()).then_some(options),
        };
        if let Some(options) = create {
            if self.read_only {
                return Err(Error::InvalidOptions(
                    "a database cannot be created read-only".into(),
                ));
            }
            Tables::create(path, options)?;
        }
        let access = if self.read_only {
            Access::Read {
                replay_log: self.replay_log,
            }
        } else {
            Access::Write { sync: self.sync }
        };
        let store = Store::open(path, access)?;
        if !self.read_only {
            // Read-only handles read older formats as they are.
            upgrade::to_current(&store)?;
        }
        let (tables, simhasher) = Tables::load(&store, self)?;
        let extract = Tables::read_extract(&store)?;
        Ok(Db {
            store,
            tables,
            simhasher,
            extract,
        })
    }
}

impl Db {
    /// Creates a database in `path`, which must not exist or be an empty
    /// directory: `OpenOptions::new().create_new(options).open(path)`.
    pub fn create(path: impl AsRef<Path>, options: Options) -> Result<Db> {
        OpenOptions::new().create_new(options).open(path)
    }

    /// Opens an existing database for reading and writing:
    /// `OpenOptions::new().open(path)`. A second writer gets
    /// [`Error::Locked`].
    pub fn open(path: impl AsRef<Path>) -> Result<Db> {
        OpenOptions::new().open(path)
    }

    /// The directory the database lives in.
    pub fn path(&self) -> &Path {
        self.store.path()
    }

    /// The largest distance this database answers.
    pub fn k(&self) -> u32 {
        self.tables.k
    }

    /// [`Error::KTooLarge`] unless near pairs and merged batches at
    /// distance `k` are answered (k ≤ [`Db::k`]).
    pub fn check_k(&self, k: u32) -> Result<()> {
        self.tables.check_k(k)
    }

    /// [`Error::RadiusTooLarge`] unless queries at radius `k` are answered
    /// (k ≤ [`crate::MAX_RADIUS`]: up to [`Db::k`] by the tables' shared
    /// prefixes, past it by their neighbouring prefixes too, exactly
    /// either way).
    pub fn check_radius(&self, k: u32) -> Result<()> {
        self.tables.check_radius(k)
    }

    /// How many bits of each table's prefix a query at `radius` lets
    /// differ from its own: 0 up to [`Db::k`]; past it, each table probes
    /// every prefix within that many bits (docs/ARCHITECTURE.md, "Wide
    /// probe").
    pub fn prefix_errors(&self, radius: u32) -> u32 {
        self.tables.design.prefix_errors(radius)
    }

    /// The name of the permuted table design (`split-4`, `4x16`, …).
    pub fn design_name(&self) -> String {
        self.tables.design.name()
    }

    /// The design's name with its k, table count and prefix lengths, e.g.
    /// `split-4 (k=3, 4 tables, p=16)`.
    pub fn design_description(&self) -> String {
        self.tables.design.to_string()
    }

    /// How many permuted tables the database keeps.
    pub fn table_count(&self) -> usize {
        self.tables.design.tables().len()
    }

    /// The database format the handle reads: [`crate::FORMAT_VERSION`],
    /// or an older one that a read-only handle reads as it is (a writable
    /// open upgrades it).
    pub fn format_version(&self) -> u32 {
        self.tables.format_version
    }

    /// Whether this handle was opened read-only.
    pub fn is_read_only(&self) -> bool {
        self.store.is_read_only()
    }

    /// The simhasher this database's text entry points use (its options
    /// are stored in the manifest, so text always hashes the same way).
    pub fn simhasher(&self) -> &Simhasher {
        &self.simhasher
    }

    /// The fingerprint of `text` under the database's simhash options.
    pub fn fingerprint_text(&self, text: &str) -> Fingerprint {
        self.simhasher.fingerprint(text)
    }

    /// Which text of an HTML page this database fingerprints (stored with
    /// the database, like the simhash options).
    pub fn extract(&self) -> Extract {
        self.extract
    }

    /// The fingerprint of an HTML page under the database's extraction
    /// and simhash options, with what was extracted: `bytes` as received,
    /// `content_type` the HTTP header's value if known (its charset is
    /// used). Errors with [`Error::Html`] for binary data.
    pub fn fingerprint_html(
        &self,
        bytes: &[u8],
        content_type: Option<&str>,
    ) -> Result<(Fingerprint, Page)> {
        let page = page_text(bytes, content_type, self.extract)?;
        Ok((self.simhasher.fingerprint(&page.text), page))
    }

    /// How this database confirms candidates, if it does (stored with
    /// it, like the simhash options).
    pub fn confirmation(&self) -> Option<&Confirmation> {
        self.tables.confirmation.as_ref()
    }

    /// The database's match rule with `k` as the radius of a match by
    /// distance alone ([`Db::k`] is the usual one).
    pub fn match_rule(&self, k: u32) -> MatchRule {
        MatchRule {
            k,
            confirmation: self.tables.confirmation.clone(),
        }
    }

    /// What a query or a check of `text` compares: its fingerprint, and
    /// its signature when the database confirms candidates
    /// ([`Document::of_text`] under the database's options). Errors with
    /// [`Error::NoFeatures`] for a text with nothing to compare.
    pub fn document_text(&self, text: &str) -> Result<Document> {
        Document::of_text(&self.simhasher, self.confirmation(), text)
    }

    /// [`Db::document_text`] of an HTML page's text under the database's
    /// extraction (see [`Db::fingerprint_html`]), with what was extracted.
    pub fn document_html(
        &self,
        bytes: &[u8],
        content_type: Option<&str>,
    ) -> Result<(Document, Page)> {
        let page = page_text(bytes, content_type, self.extract)?;
        Ok((self.document_text(&page.text)?, page))
    }

    /// Every stored document `rule` matches with `document`, nearest first
    /// (ties by fingerprint, then id): within `rule.k` by distance alone
    /// where either has no signature, else within the confirmation's
    /// radius and confirmed by their signatures.
    ///
    /// ```
    /// use fpdb::{Confirmation, Db, Options};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let options = Options::default().confirmation(Some(Confirmation::recommended()));
    /// let db = Db::create(dir.path().join("pages"), options)?;
    /// let page = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。";
    /// let copy = "近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，指纹数据库用来找出它们。";
    /// db.insert_document("a", &db.document_text(page)?)?;
    /// let near = db.find(&db.document_text(copy)?, &db.match_rule(db.k()))?;
    /// assert_eq!(near[0].id, "a");
    /// assert!(near[0].similarity.unwrap() >= 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn find(&self, document: &Document, rule: &MatchRule) -> Result<Vec<Near>> {
        self.tables.check_radius(rule.retrieval_radius())?;
        let state = self.tables.read();
        find(&self.store, &self.tables, &state, document, rule)
    }

    /// [`Db::find`] for many documents; answers in input order. Large
    /// batches under a rule that probes weak bits are merged against the
    /// tables in one pass per table ([`BatchStrategy::Auto`]), which a
    /// fresh process needs: probed one by one, nearly every probe reads
    /// a block from the store.
    pub fn find_batch(&self, documents: &[Document], rule: &MatchRule) -> Result<Vec<Vec<Near>>> {
        self.find_batch_with(documents, rule, BatchStrategy::Auto)
    }

    /// [`Db::find_batch`] with an explicit strategy. Every strategy gives
    /// the same answers; a merge applies only where the rule probes weak
    /// bits (other documents are found one by one).
    pub fn find_batch_with(
        &self,
        documents: &[Document],
        rule: &MatchRule,
        strategy: BatchStrategy,
    ) -> Result<Vec<Vec<Near>>> {
        self.tables.check_radius(rule.retrieval_radius())?;
        find_batch(&self.store, &self.tables, documents, rule, strategy)
    }

    /// Stores document `id` with the document's fingerprint and
    /// signature. An existing id gets the new ones.
    pub fn insert_document(&self, id: &str, document: &Document) -> Result<()> {
        self.apply(&[Op::Insert(
            id,
            document.fingerprint,
            &document.stored_bytes(self.confirmation()),
        )])
    }

    /// [`Db::insert_document`] for many documents in one atomic write.
    pub fn insert_documents<S: AsRef<str>>(&self, documents: &[(S, Document)]) -> Result<()> {
        let stored: Vec<Vec<u8>> = documents
            .iter()
            .map(|(_, document)| document.stored_bytes(self.confirmation()))
            .collect();
        let ops: Vec<Op<'_>> = documents
            .iter()
            .zip(&stored)
            .map(|((id, document), bytes)| Op::Insert(id.as_ref(), document.fingerprint, bytes))
            .collect();
        self.apply(&ops)
    }

    /// [`Db::check_and_insert`] under a match rule: the stored documents
    /// `rule` matches with `document` (as [`Db::find`]) other than `id`,
    /// and the fingerprint `id` had before; then `id` is stored with the
    /// document. Atomic with respect to other writers.
    pub fn check_and_insert_document(
        &self,
        id: &str,
        document: &Document,
        rule: &MatchRule,
    ) -> Result<CheckedDocument> {
        self.write(|writer| {
            check_and_insert_document(&self.store, &self.tables, writer, id, document, rule)
        })
    }

    /// The fingerprint stored for document `id`.
    pub fn get(&self, id: &str) -> Result<Option<Fingerprint>> {
        self.store.fingerprint_of(id)
    }

    /// Every stored fingerprint within `k` bits of `fp`, nearest first
    /// (ties by fingerprint), each with its document ids. `k` may exceed
    /// [`Db::k`], up to [`crate::MAX_RADIUS`], at the cost of more probes
    /// (docs/BENCHMARKS.md shows the cost against the radius).
    pub fn query(&self, fp: Fingerprint, k: u32) -> Result<Vec<Match>> {
        self.tables.check_radius(k)?;
        let state = self.tables.read();
        query(&self.store, &self.tables, &state, fp, k)
    }

    /// [`Db::query`] for the fingerprint of `text`.
    pub fn query_text(&self, text: &str, k: u32) -> Result<Vec<Match>> {
        self.query(self.fingerprint_text(text), k)
    }

    /// [`Db::query`] for many fingerprints; answers in input order. Large
    /// batches are merged against the tables in one pass per table
    /// ([`BatchStrategy::Auto`]).
    pub fn query_batch(&self, fps: &[Fingerprint], k: u32) -> Result<Vec<Vec<Match>>> {
        self.query_batch_with(fps, k, BatchStrategy::Auto)
    }

    /// [`Db::query_batch`] with an explicit strategy. Every strategy gives
    /// the same answers.
    pub fn query_batch_with(
        &self,
        fps: &[Fingerprint],
        k: u32,
        strategy: BatchStrategy,
    ) -> Result<Vec<Vec<Match>>> {
        query_batch(&self.store, &self.tables, fps, k, strategy)
    }

    /// Stores document `id` with fingerprint `fp`. An existing id gets the
    /// new fingerprint.
    pub fn insert(&self, id: &str, fp: Fingerprint) -> Result<()> {
        self.apply(&[Op::Insert(id, fp, &[])])
    }

    /// Stores many documents in one atomic write.
    pub fn insert_batch<S: AsRef<str>>(&self, documents: &[(S, Fingerprint)]) -> Result<()> {
        let ops: Vec<Op<'_>> = documents
            .iter()
            .map(|(id, fp)| Op::Insert(id.as_ref(), *fp, &[]))
            .collect();
        self.apply(&ops)
    }

    /// Stores document `id` with the fingerprint of `text`.
    pub fn insert_text(&self, id: &str, text: &str) -> Result<Fingerprint> {
        let fp = self.fingerprint_text(text);
        self.insert(id, fp)?;
        Ok(fp)
    }

    /// Forgets document `id`; returns the fingerprint it had, if it was
    /// stored. The read and the removal are one step for other writers.
    pub fn remove(&self, id: &str) -> Result<Option<Fingerprint>> {
        let previous =
            self.write(|writer| write::remove(&self.store, &self.tables, writer, &[id]))?;
        Ok(previous.into_iter().next().flatten())
    }

    /// Forgets many documents in one atomic write; returns how many of
    /// them were stored.
    pub fn remove_batch<S: AsRef<str>>(&self, ids: &[S]) -> Result<usize> {
        let ids: Vec<&str> = ids.iter().map(AsRef::as_ref).collect();
        let previous =
            self.write(|writer| write::remove(&self.store, &self.tables, writer, &ids))?;
        let mut stored: Vec<&str> = ids
            .iter()
            .zip(&previous)
            .filter(|(_, fp)| fp.is_some())
            .map(|(&id, _)| id)
            .collect();
        stored.sort_unstable();
        stored.dedup();
        Ok(stored.len())
    }

    /// The crawler's one call: every stored fingerprint within `k` of `fp`
    /// (as [`Db::query`]) other than `id` itself, and the fingerprint `id`
    /// had before; then `id` is stored with `fp`. Atomic with respect to
    /// other writers: of two crawlers checking the same new page at once,
    /// exactly one sees the other's.
    ///
    /// ```
    /// use fpdb::{Db, Fingerprint, Options};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let db = Db::create(dir.path().join("pages"), Options::default())?;
    /// let first = db.check_and_insert("https://a.example/x", Fingerprint(0b1011), 3)?;
    /// assert!(first.matches.is_empty() && first.previous.is_none());
    /// // The same URL crawled again, unchanged: not a duplicate of itself.
    /// let again = db.check_and_insert("https://a.example/x", Fingerprint(0b1011), 3)?;
    /// assert!(again.matches.is_empty());
    /// assert_eq!(again.previous, Some(Fingerprint(0b1011)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_and_insert(&self, id: &str, fp: Fingerprint, k: u32) -> Result<Checked> {
        self.write(|writer| check_and_insert(&self.store, &self.tables, writer, id, fp, k))
    }

    /// [`Db::check_and_insert`] of each document in order, under one
    /// hold of the writer lock and with one wait for the log sync: later
    /// documents see earlier ones, and a crawler checking its pages in
    /// batches pays for one sync per batch. Each document is stored by its
    /// own atomic write; an error (an invalid id) stops the batch with the
    /// documents before it stored.
    pub fn check_and_insert_batch<S: AsRef<str>>(
        &self,
        documents: &[(S, Fingerprint)],
        k: u32,
    ) -> Result<Vec<Checked>> {
        self.write(|writer| {
            documents
                .iter()
                .map(|(id, fp)| {
                    check_and_insert(&self.store, &self.tables, writer, id.as_ref(), *fp, k)
                })
                .collect()
        })
    }

    /// Check-and-inserts of many callers (a server's clients), each
    /// `(id, fp, k)` answered as [`Db::check_and_insert`] would answer it
    /// called in this order, under one hold of the writer lock, with what
    /// the group stores written as one atomic write and one wait for the
    /// log sync for them all. A request's own fault (an invalid id or
    /// radius) is its answer alone and stores nothing; an error of the
    /// store is the outer error, and then none of the group is stored
    /// (unless the error came from the merge after the write).
    pub fn check_and_insert_group<S: AsRef<str>>(
        &self,
        requests: &[(S, Fingerprint, u32)],
    ) -> Result<Vec<Result<Checked>>> {
        // Faults of a request are found before the lock.
        let faults: Vec<Option<Error>> = requests
            .iter()
            .map(|(id, _, k)| {
                write::validate_id(id.as_ref())
                    .and_then(|()| self.tables.check_radius(*k))
                    .err()
            })
            .collect();
        let requests: Vec<(&str, Fingerprint, u32)> = requests
            .iter()
            .map(|(id, fp, k)| (id.as_ref(), *fp, *k))
            .collect();
        self.write(|writer| {
            write::check_and_insert_group(&self.store, &self.tables, writer, &requests, faults)
        })
    }

    fn apply(&self, ops: &[Op<'_>]) -> Result<()> {
        self.write(|writer| write::apply(&self.store, &self.tables, writer, ops))
    }

    /// Runs `operation` with the writer lock, then, with the lock
    /// released, waits until the log holds it durably (and everything it
    /// read), as [`OpenOptions::sync`] asks: concurrent writers share one
    /// log sync (group commit).
    ///
    /// A write that fills the delta then merges it (unless
    /// [`Db::set_merge_on_write`] turned that off, or another merge is
    /// running): the merge plans without the writer lock, so writes on
    /// other threads go on meanwhile, and this call returns once it is
    /// written.
    fn write<T>(&self, operation: impl FnOnce(&WriterGuard<'_>) -> Result<T>) -> Result<T> {
        let (done, ticket) = {
            let writer = self.tables.lock_writer(&self.store)?;
            let done = operation(&writer)?;
            (done, self.store.log_ticket())
        };
        self.store.wait_durable(ticket)?;
        if self.tables.merges_on_write() && self.tables.merge_due() {
            merge_unless_running(&self.store, &self.tables)?;
        }
        Ok(done)
    }

    /// Merges every pending change into the tables now (it also happens by
    /// itself when the delta reaches `OpenOptions::delta_limit`), waiting
    /// for a merge that is running to finish first. Writes on other
    /// threads go on while the merge plans; they wait only while it
    /// writes.
    pub fn merge(&self) -> Result<()> {
        if self.store.is_read_only() {
            return Err(Error::ReadOnly);
        }
        merge(&self.store, &self.tables, Planning::Parallel)
    }

    /// [`Db::merge`], planning every table on the calling thread alone
    /// rather than on every core: for a thread that merges beside other
    /// work (a server's merge thread), so that the merge takes one core at
    /// the most from the writes and queries it runs beside.
    pub fn merge_on_this_thread(&self) -> Result<()> {
        if self.store.is_read_only() {
            return Err(Error::ReadOnly);
        }
        merge(&self.store, &self.tables, Planning::OnThisThread)
    }

    /// Whether the delta has grown to the size at which writes merge it
    /// ([`OpenOptions::merge_threshold`]): for a caller that merges on a
    /// thread of its own ([`Db::set_merge_on_write`]).
    pub fn merge_due(&self) -> bool {
        self.tables.merge_due()
    }

    /// Whether a write that fills the delta merges it before it returns
    /// (the default). A server that writes on one thread turns it off and
    /// calls [`Db::merge_on_this_thread`] (or [`Db::merge`]) on another
    /// when [`Db::merge_due`] says so, so that its writes never wait for a
    /// merge's planning.
    pub fn set_merge_on_write(&self, on: bool) {
        self.tables.set_merge_on_write(on);
    }

    /// Merges the delta, then compacts the storage files, dropping what
    /// merges and removals left behind.
    pub fn compact(&self) -> Result<()> {
        self.merge()?;
        self.store.compact();
        Ok(())
    }

    /// Writes what the storage engine holds in memory to its files and
    /// waits until its background compactions are done, so the files hold
    /// the database as it is now: call before measuring its size (to copy
    /// a database, use [`Db::backup`]). Changes nothing a query sees.
    pub fn flush(&self) -> Result<()> {
        self.store.flush_and_wait_for_compactions()
    }

    /// Writes a consistent copy of the database to `dest`, a directory that
    /// must not exist (else [`Error::AlreadyExists`]), while other threads
    /// and processes keep writing.
    ///
    /// From a writable handle the copy is a RocksDB checkpoint: it holds
    /// every write acknowledged before the call, and its files are
    /// hard-linked when `dest` is on the database's file system (copied
    /// otherwise). From a read-only handle it is a copy of what the handle
    /// sees, written anew; open that handle with
    /// [`OpenOptions::replay_log`] to see every write a live writer
    /// acknowledged before the open. Either way the copy is built in
    /// `<dest>.tmp` and renamed into place: a process killed meanwhile
    /// leaves no partial backup at `dest`, and the next backup to `dest`
    /// removes the leftover.
    pub fn backup(&self, dest: impl AsRef<Path>) -> Result<Backup> {
        self.backup_with_progress(dest, &())
    }

    /// [`Db::backup`], telling `progress` when it copies (phase
    /// `copying`, of no count: the copy is one call of the storage
    /// engine's) and how far the check of a read-only handle's copy is,
    /// as [`Db::verify_with_progress`] does.
    pub fn backup_with_progress(
        &self,
        dest: impl AsRef<Path>,
        progress: &dyn Progress,
    ) -> Result<Backup> {
        backup(&self.store, dest.as_ref(), progress)
    }

    /// Every near-duplicate pair of stored fingerprints within `k` (at most
    /// the database's k), each once, with the ids of each side, plus every
    /// fingerprint shared by several documents as a pair with itself at
    /// distance 0 (see [`FingerprintPair`]). Sorted by `(a, b)`.
    ///
    /// Reads a consistent view: a merge cannot run while the tables are
    /// scanned. Costs one sequential read of every table; memory holds the
    /// answer, not the set.
    pub fn near_pairs(&self, k: u32) -> Result<Vec<FingerprintPair>> {
        self.near_pairs_with_progress(k, &())
    }

    /// [`Db::near_pairs`], telling `progress` the blocks read (phase
    /// `blocks`, of a known total), then finding the pairs' ids.
    pub fn near_pairs_with_progress(
        &self,
        k: u32,
        progress: &dyn Progress,
    ) -> Result<Vec<FingerprintPair>> {
        near_pairs(&self.store, &self.tables, k, progress)
    }

    /// Every pair of stored documents `rule` matches (as
    /// [`MatchRule::corpus_pairs`] pairs a corpus): the documents as a
    /// corpus (ids and fingerprints by position, in fingerprint order) and
    /// the pairs of positions, each with its distance and the similarity
    /// that confirmed it. Reads every document with its signature into
    /// memory; [`Db::near_pairs`] is the way for pairs by distance alone
    /// within the database's k.
    pub fn rule_pairs(
        &self,
        rule: &MatchRule,
        progress: &dyn Progress,
    ) -> Result<(crate::dedup::Corpus, Vec<crate::DocumentPair>)> {
        let ids = self.tables.read().ids;
        crate::rule_pairs::rule_pairs(&self.store, rule, ids, progress)
    }

    /// How many stored documents have a confirming signature and how many
    /// are bare fingerprints (matched by distance alone). Reads the whole
    /// id map, so it is not part of [`Db::stats`].
    pub fn signature_counts(&self) -> Result<crate::SignatureCounts> {
        crate::signature_counts::signature_counts(&self.store)
    }

    /// Reads every block, directory, id and counter and checks that they
    /// agree. Damage is listed in the report; an `Err` means the check
    /// itself could not run (an I/O failure). Writers wait until it is done.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.verify_with_progress(&())
    }

    /// [`Db::verify`], telling `progress` the blocks decoded (phase
    /// `blocks`) and the entries of the id map read (phase `ids`), each of
    /// a total the database's directories and counters give.
    pub fn verify_with_progress(&self, progress: &dyn Progress) -> Result<VerifyReport> {
        // Hold the writer lock (when there can be writers) so that no merge
        // or insert changes what is being compared.
        let _writer = if self.store.is_read_only() {
            None
        } else {
            Some(self.tables.lock_writer(&self.store)?)
        };
        verify(&self.store, &self.tables, progress)
    }

    /// Checks the database in `path` as [`Db::verify`] does, also when it
    /// does not open: then what RocksDB cannot read (a damaged MANIFEST or
    /// CURRENT, a damaged or missing table file) is recovered in a scratch
    /// copy beside the database (`.<name>.salvage-<pid>`, removed after),
    /// and the report names why the database does not open, each file
    /// that had to be left out, and what is missing without it. Also
    /// checks RocksDB's OPTIONS file. The database itself is only read.
    ///
    /// Errors: [`Error::NotFound`] when `path` holds no database, and any
    /// error that stops the check itself (I/O, [`Error::Version`]).
    pub fn verify_at(path: impl AsRef<Path>) -> Result<VerifyReport> {
        Db::verify_at_with_progress(path, &())
    }

    /// [`Db::verify_at`], telling `progress` how far the check is, as
    /// [`Db::verify_with_progress`] does.
    pub fn verify_at_with_progress(
        path: impl AsRef<Path>,
        progress: &dyn Progress,
    ) -> Result<VerifyReport> {
        verify_at(path.as_ref(), progress)
    }

    /// Repairs the database in `path`, which no handle may have open for
    /// writing ([`Error::Locked`]): finds its damage as
    /// [`Db::verify_at`] does (nothing to do when there is none), reads
    /// every document that survived in either half of the id map
    /// (stepping over what the storage engine cannot read), and builds a
    /// new database of them with the same options, every table rebuilt,
    /// checked before it replaces the damaged one in a single atomic
    /// rename (Linux `RENAME_EXCHANGE`): a process killed at any moment
    /// leaves the damaged or the repaired database in `path`. The damaged
    /// one is kept as `<path>.damaged`. The report says what was restored
    /// from which copy and what was lost: fingerprints a table still held
    /// whose ids were lost from both halves of the id map, and whether a
    /// removed document may be back (`partial`: both halves lost data).
    ///
    /// Needs the database's manifest ([`Error::Corrupt`] naming it
    /// otherwise) and free space for a second copy.
    pub fn repair(path: impl AsRef<Path>) -> Result<RepairReport> {
        Db::repair_with_progress(path, &())
    }

    /// [`Db::repair`], telling `progress` its phases: the check (as
    /// [`Db::verify_with_progress`]), reading what survived, rebuilding,
    /// and the check of the rebuilt database.
    pub fn repair_with_progress(
        path: impl AsRef<Path>,
        progress: &dyn Progress,
    ) -> Result<RepairReport> {
        repair(path.as_ref(), progress)
    }

    /// Counts and sizes; reads no block.
    pub fn stats(&self) -> Stats {
        stats(&self.store, &self.tables, &self.simhasher, self.extract)
    }

    /// Every stored (document id, fingerprint), in id byte order, read
    /// from a consistent snapshot. For `fpdb export` and backups.
    pub fn export(&self) -> Result<impl Iterator<Item = Result<(String, Fingerprint)>> + '_> {
        self.store.ids()
    }

    /// Starts a bulk load. The database must be empty
    /// ([`Error::NotEmpty`] otherwise): loading rebuilds every table with
    /// a code fitted to the data, which a populated database's online
    /// writes would have to be merged into; add to a populated database
    /// with [`Db::insert_batch`] instead.
    pub fn bulk_loader(&mut self, options: BulkOptions) -> Result<BulkLoader<'_>> {
        bulk_loader(&self.store, &mut self.tables, &self.simhasher, options)
    }
}
