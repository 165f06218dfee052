//! `fpdb.Db`: the database handle. Every call that may take long runs with
//! the GIL released, so many Python threads can query at once while
//! another writes.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use fpdb::OpenOptions;
use fpdb::Options;
use fpdb::{Db, DesignChoice, Fingerprint, Simhasher};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::args::{self, Document};
use crate::bulk::{self, BulkSource};
use crate::errors::{to_py, Kind};
use crate::export::{PyExport, Reader};
use crate::progress::{self, PyProgress};
use crate::reports;
use crate::results::{matches, PyBatchMatches, PyChecked, PyFingerprintPairs, PyMatch};

/// An open fpdb database.
///
/// >>> import fpdb, tempfile, os
/// >>> path = os.path.join(tempfile.mkdtemp(), "pages.fpdb")
/// >>> with fpdb.Db.create(path, k=3) as db:
/// ...     db.insert("https://example.com/a", 0x0123_4567_89ab_cdef)
/// ...     [m.ids for m in db.query(0x0123_4567_89ab_cdee)]
/// [['https://example.com/a']]
#[pyclass(module = "fpdb", name = "Db", frozen)]
#[derive(Debug)]
pub struct PyDb {
    /// `None` once closed. Calls clone the `Arc` and drop the lock at once,
    /// so no lock is held while the GIL is released.
    db: Mutex<Option<Arc<Db>>>,
    /// Reader threads of exports, stopped on close.
    exports: Mutex<Vec<Reader>>,
    path: PathBuf,
    read_only: bool,
    cache_bytes: Option<usize>,
}

impl PyDb {
    fn handle(&self) -> PyResult<Arc<Db>> {
        let guard = self.db.lock().unwrap_or_else(PoisonError::into_inner);
        guard
            .clone()
            .ok_or_else(|| Kind::Closed.err(format!("database {} is closed", self.path.display())))
    }

    fn open_with(
        py: Python<'_>,
        path: PathBuf,
        options: OpenOptions,
        cache_bytes: Option<usize>,
    ) -> PyResult<PyDb> {
        let read_only = options.read_only;
        let opened = {
            let path = path.clone();
            py.detach(move || options.open(&path))
        };
        let db = opened.map_err(to_py)?;
        Ok(PyDb {
            db: Mutex::new(Some(Arc::new(db))),
            exports: Mutex::new(Vec::new()),
            path,
            read_only,
            cache_bytes,
        })
    }
}

/// The fingerprint of `document` under `db`'s options, computed with the
/// GIL released.
fn fingerprint_document(py: Python<'_>, db: Arc<Db>, document: Document) -> PyResult<Fingerprint> {
    py.detach(move || fingerprint_of(&db, &document))
        .map_err(to_py)
}

fn fingerprint_of(db: &Db, document: &Document) -> fpdb::Result<Fingerprint> {
    match document {
        Document::Fingerprint(fp) => Ok(*fp),
        Document::Text(text) => Ok(db.fingerprint_text(text)),
        Document::Html { page, content_type } => db
            .fingerprint_html(page, content_type.as_deref())
            .map(|(fp, _)| fp),
    }
}

/// Stores a text or page under `id` (with its signature in a confirming
/// database) and returns its fingerprint.
fn store_document(db: &Db, id: &str, document: &Document) -> fpdb::Result<Fingerprint> {
    if let Some(signed) = signed_document(db, document)? {
        db.insert_document(id, &signed)?;
        return Ok(signed.fingerprint);
    }
    let fp = fingerprint_of(db, document)?;
    db.insert(id, fp)?;
    Ok(fp)
}

/// A text or page under a confirming database: its fingerprint and
/// signature, for the two-stage rule. `None` for a bare fingerprint, or
/// any document of a database that matches by distance alone.
fn signed_document(db: &Db, document: &Document) -> fpdb::Result<Option<fpdb::Document>> {
    if db.confirmation().is_none() {
        return Ok(None);
    }
    match document {
        Document::Fingerprint(_) => Ok(None),
        Document::Text(text) => db.document_text(text).map(Some),
        Document::Html { page, content_type } => db
            .document_html(page, content_type.as_deref())
            .map(|(document, _)| Some(document)),
    }
}

fn open_options(read_only: bool, cache_bytes: Option<usize>, sync: bool) -> OpenOptions {
    let mut options = OpenOptions::new().read_only(read_only).sync(sync);
    if let Some(bytes) = cache_bytes {
        options = options.block_cache_bytes(bytes);
    }
    options
}

/// `options` having learned from `learn_from` (its first
/// `fpdb::LEARN_SAMPLE` texts with features): the features common to
/// many of them when confirming, and with `learn_weights` every word's
/// weight. Learned weights without texts are refused.
pub fn learned_from_texts(
    py: Python<'_>,
    options: Options,
    simhash: fpdb::SimhashOptions,
    learn_from: Option<&Bound<'_, PyAny>>,
    learn_weights: bool,
) -> PyResult<Options> {
    match learn_from {
        Some(texts) => {
            let sample = learning_sample(py, &Simhasher::new(simhash), texts)?;
            if sample.is_empty() {
                return Err(Kind::InvalidInput.err("learn_from: no text with features"));
            }
            Ok(options.learned_from(&sample, learn_weights))
        }
        None if learn_weights => Err(Kind::InvalidInput
            .err("weights=\"learned\": give the texts to learn them from with learn_from=")),
        None => Ok(options),
    }
}

/// Texts of `learn_from` tokenized at a time, with the GIL released.
const LEARN_CHUNK: usize = 1024;

/// The feature hashes of the first texts with features of `texts` (any
/// iterable of str), up to the sample's size. Nothing past them is taken
/// from the iterable, so a generator over a whole crawl gives only its
/// first texts.
fn learning_sample(
    py: Python<'_>,
    tokens: &Simhasher,
    texts: &Bound<'_, PyAny>,
) -> PyResult<Vec<Vec<u64>>> {
    if texts.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "learn_from: texts to learn from (an iterable of str), not one str",
        ));
    }
    let mut texts = texts.try_iter()?;
    let mut sample: Vec<Vec<u64>> = Vec::new();
    loop {
        let room = fpdb::LEARN_SAMPLE - sample.len();
        if room == 0 {
            return Ok(sample);
        }
        let chunk = texts
            .by_ref()
            .take(room.min(LEARN_CHUNK))
            .map(|text| text?.extract::<String>())
            .collect::<PyResult<Vec<String>>>()?;
        if chunk.is_empty() {
            return Ok(sample);
        }
        sample.extend(py.detach(|| {
            chunk
                .iter()
                .map(|text| tokens.feature_hashes(text))
                .filter(|features| !features.is_empty())
                .collect::<Vec<_>>()
        }));
    }
}

#[pymethods]
impl PyDb {
    /// Creates a database in `path` (a new or empty directory) and opens it.
    ///
    /// `k` is the largest distance it answers; `expected` the number of
    /// fingerprints it is sized for (the table design follows from both,
    /// or name one with `design`, e.g. "split-4"); `tokenizer` and
    /// `weights` say how `insert_text` and `query_text` fingerprint text.
    /// With `exist_ok=True` an existing database is opened instead, with
    /// the options it was created with. With `confirm=True`, texts and
    /// pages keep a 32-byte signature and match in two stages: candidates
    /// within `confirm_radius` bits (default 14) that each document's
    /// `confirm_weak_bits` weak bits a quarter reach with at most two of
    /// them flipped (default 6; 0 takes
    /// every candidate within the radius, far slower), kept when their
    /// estimated resemblance reaches `confirm_threshold` (default 0.45)
    /// and they are estimated to share at least `confirm_min_shared`
    /// shingles (default 7; 0 for no such gate); a text whose digits are
    /// at least `confirm_numbers_from` percent of its letters and digits
    /// (default 20; 0 for never) is signed with its numbers among its
    /// words. Each `Match` then names one document and its `similarity`.
    /// `learn_from` (texts of the crawl, any iterable of str; only its
    /// first 10,000 texts with features are taken from it) teaches
    /// the database, once and for good: with `weights="learned"` how rare
    /// each word is (every word then weighs tf × IDF³, the IDF capped
    /// at ln 100, unseen words nothing), with `confirm=True` which features a site's template puts
    /// on more than 20% of pages (left out of signatures).
    #[staticmethod]
    #[pyo3(signature = (path, *, k=3, expected=None, design="auto", tokenizer=None, weights=None,
                        extract="main", block_bytes=None, exist_ok=false, cache_bytes=None,
                        sync=false, confirm=false, confirm_radius=None, confirm_threshold=None,
                        confirm_weak_bits=None, confirm_min_shared=None, confirm_numbers_from=None,
                        learn_from=None))]
    #[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
    fn create(
        py: Python<'_>,
        path: PathBuf,
        k: u32,
        expected: Option<u64>,
        design: &str,
        tokenizer: Option<&str>,
        weights: Option<&str>,
        extract: &str,
        block_bytes: Option<usize>,
        exist_ok: bool,
        cache_bytes: Option<usize>,
        sync: bool,
        confirm: bool,
        confirm_radius: Option<u32>,
        confirm_threshold: Option<f64>,
        confirm_weak_bits: Option<u32>,
        confirm_min_shared: Option<u16>,
        confirm_numbers_from: Option<u16>,
        learn_from: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PyDb> {
        let design = design
            .parse::<DesignChoice>()
            .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
        let learn_weights = weights == Some("learned");
        let simhash = if learn_weights {
            args::simhash_options(tokenizer, Some("tf"))?
        } else {
            args::simhash_options(tokenizer, weights)?
        };
        let mut options = Options::default()
            .k(k)
            .design(design)
            .simhash(simhash)
            .extract(args::extract(extract)?);
        if let Some(expected) = expected {
            options = options.expected_size(expected);
        }
        if let Some(bytes) = block_bytes {
            options = options.block_bytes(bytes);
        }
        options = options.confirmation(args::confirmation(&args::ConfirmArgs {
            confirm,
            radius: confirm_radius,
            threshold: confirm_threshold,
            weak_bits: confirm_weak_bits,
            min_shared: confirm_min_shared,
            numbers_from: confirm_numbers_from,
        })?);
        if learn_from.is_some() && !learn_weights && !confirm {
            return Err(Kind::InvalidInput
                .err("learn_from: nothing to learn without weights=\"learned\" or confirm=True"));
        }
        options = learned_from_texts(py, options, simhash, learn_from.as_ref(), learn_weights)?;
        let open = open_options(false, cache_bytes, sync);
        let open = if exist_ok {
            open.create_if_missing(options)
        } else {
            open.create_new(options)
        };
        PyDb::open_with(py, path, open, cache_bytes)
    }

    /// Opens the database in `path`. A read-only handle takes no lock, so
    /// any number of processes may read while one writes; it sees the
    /// database as it was when opened (beside a busy writer, as of the
    /// writer's last flush unless `replay_log=True`, which replays the
    /// writer's log to see every write it acknowledged).
    #[staticmethod]
    #[pyo3(signature = (path, *, read_only=false, cache_bytes=None, sync=false, replay_log=false))]
    fn open(
        py: Python<'_>,
        path: PathBuf,
        read_only: bool,
        cache_bytes: Option<usize>,
        sync: bool,
        replay_log: bool,
    ) -> PyResult<PyDb> {
        PyDb::open_with(
            py,
            path,
            open_options(read_only, cache_bytes, sync).replay_log(replay_log),
            cache_bytes,
        )
    }

    /// Closes the handle (flushing what is in memory); later calls raise
    /// `fpdb.ClosedError`. Calls running in other threads finish first.
    fn close(&self, py: Python<'_>) {
        let db = self
            .db
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let exports =
            std::mem::take(&mut *self.exports.lock().unwrap_or_else(PoisonError::into_inner));
        py.detach(move || {
            exports.into_iter().for_each(Reader::stop);
            drop(db);
        });
    }

    /// True once `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.db
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }

    /// The database directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The largest distance the database answers (its default for queries).
    #[getter]
    fn k(&self) -> PyResult<u32> {
        Ok(self.handle()?.k())
    }

    /// True for a handle opened with `read_only=True`.
    #[getter]
    fn read_only(&self) -> bool {
        self.read_only
    }

    /// The table design's name, e.g. "split-4".
    #[getter]
    fn design(&self) -> PyResult<String> {
        Ok(self.handle()?.design_name())
    }

    /// How to reopen this database, as a picklable `fpdb.DbConfig`
    /// (read-only by default), e.g. in a worker process.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let config = py.import("fpdb._config")?.getattr("DbConfig")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("path", self.path.clone())?;
        kwargs.set_item("cache_bytes", self.cache_bytes)?;
        config.call((), Some(&kwargs))
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "an open fpdb.Db cannot be pickled: pickle db.config and call config.open() in the other process",
        ))
    }

    fn __repr__(&self) -> String {
        let state = if self.closed() { ", closed" } else { "" };
        let mode = if self.read_only { ", read_only" } else { "" };
        format!(
            "fpdb.Db({:?}{mode}{state})",
            self.path.display().to_string()
        )
    }

    /// The fingerprint this database gives a document: `text` (a str), or
    /// an HTML page `html=` (bytes as received, with the HTTP
    /// `content_type=` whose charset is used, or a str already decoded).
    #[pyo3(signature = (text=None, *, html=None, content_type=None))]
    fn fingerprint(
        &self,
        py: Python<'_>,
        text: Option<&Bound<'_, PyAny>>,
        html: Option<&Bound<'_, PyAny>>,
        content_type: Option<&str>,
    ) -> PyResult<u64> {
        let document = args::document(py, None, text, html, content_type)?;
        Ok(fingerprint_document(py, self.handle()?, document)?.0)
    }

    /// Fingerprints of many texts under the database's options, computed
    /// in parallel on all cores, as a numpy uint64 array.
    fn fingerprint_many<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, numpy::PyArray1<u64>>> {
        let db = self.handle()?;
        crate::corpus::texts_fingerprints(py, db.simhasher().clone(), texts)
    }

    /// Fingerprints of many HTML pages (bytes as received, or str) under
    /// the database's extraction and simhash options, as `insert_html`
    /// gives them, in parallel on all cores; `content_types`, when given,
    /// holds each page's HTTP Content-Type (or None). Returns the uint64
    /// fingerprints and a bool array `readable`, False where a page could
    /// not be read as HTML (its fingerprint is then 0).
    #[pyo3(signature = (pages, content_types=None))]
    fn fingerprint_pages<'py>(
        &self,
        py: Python<'py>,
        pages: &Bound<'py, PyAny>,
        content_types: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<crate::corpus::PageFingerprints<'py>> {
        let db = self.handle()?;
        crate::corpus::pages_fingerprints(
            py,
            db.simhasher().clone(),
            db.extract(),
            pages,
            content_types,
        )
    }

    /// The fingerprint stored for `id`, or None.
    fn get(&self, py: Python<'_>, id: &str) -> PyResult<Option<u64>> {
        let db = self.handle()?;
        let id = id.to_owned();
        let found = py.detach(move || db.get(&id)).map_err(to_py)?;
        Ok(found.map(|fp| fp.0))
    }

    /// The fingerprint of an HTML page under the database's extraction
    /// and simhash options: `html` bytes as received (`content_type` the
    /// HTTP header, whose charset is used) or a str already decoded.
    #[pyo3(signature = (html, content_type=None))]
    fn fingerprint_html(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        content_type: Option<&str>,
    ) -> PyResult<u64> {
        let db = self.handle()?;
        let (html, content_type) = (args::html_bytes(html)?, content_type.map(str::to_owned));
        let (fp, _) = py
            .detach(move || db.fingerprint_html(&html, content_type.as_deref()))
            .map_err(to_py)?;
        Ok(fp.0)
    }

    /// Extracts the text of an HTML page (bytes as received, or a str
    /// already decoded), stores its fingerprint under `id` and returns it.
    #[pyo3(signature = (id, html, content_type=None))]
    fn insert_html(
        &self,
        py: Python<'_>,
        id: &str,
        html: &Bound<'_, PyAny>,
        content_type: Option<&str>,
    ) -> PyResult<u64> {
        let db = self.handle()?;
        let (id, page) = (
            id.to_owned(),
            Document::Html {
                page: args::html_bytes(html)?,
                content_type: content_type.map(str::to_owned),
            },
        );
        let fp = py
            .detach(move || store_document(&db, &id, &page))
            .map_err(to_py)?;
        Ok(fp.0)
    }

    /// Stores `id` with fingerprint `fp` (an int in 0..2**64), replacing
    /// the fingerprint it had.
    fn insert(&self, py: Python<'_>, id: &str, fp: &Bound<'_, PyAny>) -> PyResult<()> {
        let fp = args::fingerprint(fp)?;
        let db = self.handle()?;
        let id = id.to_owned();
        py.detach(move || db.insert(&id, fp)).map_err(to_py)
    }

    /// Fingerprints `text` with the database's options, stores it under
    /// `id` and returns the fingerprint.
    fn insert_text(&self, py: Python<'_>, id: &str, text: &str) -> PyResult<u64> {
        let db = self.handle()?;
        let (id, text) = (id.to_owned(), Document::Text(text.to_owned()));
        let fp = py
            .detach(move || store_document(&db, &id, &text))
            .map_err(to_py)?;
        Ok(fp.0)
    }

    /// Stores many documents in one atomic write: `ids` a sequence of str,
    /// `fps` a numpy uint64 array or a sequence of ints of the same length.
    fn insert_many(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        fps: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let ids = args::strings(ids, "ids")?;
        let fps = args::fingerprints(fps)?;
        if ids.len() != fps.len() {
            return Err(Kind::InvalidInput.err(format!(
                "{} ids but {} fingerprints",
                ids.len(),
                fps.len()
            )));
        }
        let db = self.handle()?;
        py.detach(move || {
            let documents: Vec<(String, Fingerprint)> = ids.into_iter().zip(fps).collect();
            db.insert_batch(&documents)
        })
        .map_err(to_py)
    }

    /// Removes `id`; returns the fingerprint it had, or None.
    fn remove(&self, py: Python<'_>, id: &str) -> PyResult<Option<u64>> {
        let db = self.handle()?;
        let id = id.to_owned();
        let removed = py.detach(move || db.remove(&id)).map_err(to_py)?;
        Ok(removed.map(|fp| fp.0))
    }

    /// Removes every id of `ids` in one atomic write; returns how many
    /// were stored.
    fn remove_many(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<usize> {
        let ids = args::strings(ids, "ids")?;
        let db = self.handle()?;
        py.detach(move || db.remove_batch(&ids)).map_err(to_py)
    }

    /// Every stored fingerprint within `k` (default: the database's k) of
    /// `fp`, nearest first, as `Match(fingerprint, distance, ids)`. `k`
    /// may exceed the database's k, up to 16: the tables' neighbouring
    /// prefixes are probed too (exact, with more reads).
    #[pyo3(signature = (fp, k=None))]
    fn query(
        &self,
        py: Python<'_>,
        fp: &Bound<'_, PyAny>,
        k: Option<i64>,
    ) -> PyResult<Vec<PyMatch>> {
        let fp = args::fingerprint(fp)?;
        let db = self.handle()?;
        let k = args::k_or(k, db.k())?;
        let found = py.detach(move || db.query(fp, k)).map_err(to_py)?;
        Ok(matches(found))
    }

    /// `query` of the fingerprint of `text` under the database's options.
    #[pyo3(signature = (text, k=None))]
    fn query_text(&self, py: Python<'_>, text: &str, k: Option<i64>) -> PyResult<Vec<PyMatch>> {
        let db = self.handle()?;
        let k = args::k_or(k, db.k())?;
        let text = Document::Text(text.to_owned());
        py.detach(move || match signed_document(&db, &text)? {
            Some(signed) => Ok(matches(db.find(&signed, &db.match_rule(k))?)),
            None => Ok(matches(db.query(fingerprint_of(&db, &text)?, k)?)),
        })
        .map_err(to_py)
    }

    /// Answers many queries at once (the paper's batch mode): `fps` a numpy
    /// uint64 array or a sequence of ints. Returns `BatchMatches`: flat
    /// arrays `query_index`, `fingerprint`, `distance`, one row per match,
    /// with `ids(row)` for the ids of a row.
    #[pyo3(signature = (fps, k=None))]
    fn query_many(
        &self,
        py: Python<'_>,
        fps: &Bound<'_, PyAny>,
        k: Option<i64>,
    ) -> PyResult<PyBatchMatches> {
        let fps = args::fingerprints(fps)?;
        let db = self.handle()?;
        let k = args::k_or(k, db.k())?;
        let found = py.detach(move || db.query_batch(&fps, k)).map_err(to_py)?;
        Ok(PyBatchMatches::new(found))
    }

    /// The near-duplicates of a document already stored, then stores it.
    /// The document is one of: `fp`, an int fingerprint; `text=`, a str of
    /// text; `html=`, an HTML page, bytes as received (with the HTTP
    /// `content_type=`, whose charset is used) or a str already decoded
    /// (its text extracted as the database says). The id itself is never
    /// among the matches, and `previous` is the fingerprint the id had
    /// before (None for a new id), so a crawler can tell an unchanged
    /// re-crawl from a changed one. Atomic with other writers.
    ///
    /// A str or bytes given by position (the older spelling) is still read
    /// as text or as a page, with a DeprecationWarning: say `text=` or
    /// `html=`.
    #[pyo3(signature = (id, fp=None, k=None, *, text=None, html=None, content_type=None))]
    #[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
    fn check_and_insert(
        &self,
        py: Python<'_>,
        id: &str,
        fp: Option<&Bound<'_, PyAny>>,
        k: Option<i64>,
        text: Option<&Bound<'_, PyAny>>,
        html: Option<&Bound<'_, PyAny>>,
        content_type: Option<&str>,
    ) -> PyResult<PyChecked> {
        let db = self.handle()?;
        let k = args::k_or(k, db.k())?;
        let document = args::document(py, fp, text, html, content_type)?;
        let id = id.to_owned();
        py.detach(move || -> fpdb::Result<PyChecked> {
            if let Some(signed) = signed_document(&db, &document)? {
                let checked = db.check_and_insert_document(&id, &signed, &db.match_rule(k))?;
                return Ok(PyChecked {
                    matches: matches(checked.near),
                    previous: checked.previous.map(|fp| fp.0),
                    fingerprint: signed.fingerprint.0,
                });
            }
            let fp = fingerprint_of(&db, &document)?;
            let checked = db.check_and_insert(&id, fp, k)?;
            Ok(PyChecked {
                matches: matches(checked.matches),
                previous: checked.previous.map(|fp| fp.0),
                fingerprint: fp.0,
            })
        })
        .map_err(to_py)
    }

    /// Every pair of stored fingerprints within `k` (default: the
    /// database's k), as `FingerprintPairs` (arrays `a`, `b`, `distance`,
    /// with `ids(i)`, `id_pairs()` and `clusters()`).
    #[pyo3(signature = (k=None))]
    fn near_pairs(&self, py: Python<'_>, k: Option<i64>) -> PyResult<PyFingerprintPairs> {
        let db = self.handle()?;
        let k = args::k_or(k, db.k())?;
        let pairs = py.detach(move || db.near_pairs(k)).map_err(to_py)?;
        Ok(PyFingerprintPairs::new(pairs))
    }

    /// Groups of stored ids linked by chains of near-duplicates within `k`,
    /// each as `(representative, ids)`: `near_pairs(k).clusters()`.
    #[pyo3(signature = (k=None))]
    fn clusters(&self, py: Python<'_>, k: Option<i64>) -> PyResult<Vec<(String, Vec<String>)>> {
        let db = self.handle()?;
        let k = args::k_or(k, db.k())?;
        let clusters = py
            .detach(move || db.near_pairs(k).map(|pairs| fpdb::id_clusters(&pairs)))
            .map_err(to_py)?;
        Ok(clusters
            .into_iter()
            .map(|cluster| (cluster.representative, cluster.ids))
            .collect())
    }

    /// Loads documents into an empty database far faster than inserting
    /// them: either `ids` with `fps` (a numpy uint64 array or a sequence
    /// of ints), with `texts` (strs) or with `html` (pages, bytes as
    /// received or strs already decoded; `content_types` their HTTP
    /// Content-Types, or None each); or `documents`, an iterable of
    /// `(id, fp)` pairs (a str or bytes in place of the fingerprint, read
    /// as text or as a page, is the older spelling: it works, with a
    /// DeprecationWarning); or `files`, read as `fpdb load` reads them, in
    /// the `format` named ("fps": `id<TAB>hex` lines; "jsonl": `{"id",
    /// "text" | "html" | "fp"}` lines; "lines": a text per line, its line
    /// number the id; "files": a text per file; "html": a page per file,
    /// the path the id; "warc": the HTML responses of WARC files), by
    /// default from each name: .jsonl, .warc, .html or .htm, .tsv or .fps,
    /// any of them also with .gz after it, else lines. Gzip is read
    /// whatever the name.
    /// `progress` is a callable taking `(phase, documents, done, total)`,
    /// or True for a line on stderr. `memory_bytes` bounds the memory for
    /// sorting (beyond it sorted runs spill to disk); by default a quarter
    /// of the machine's memory, 1 to 32 GiB. Returns a summary dict.
    #[pyo3(signature = (documents=None, *, ids=None, fps=None, texts=None, html=None,
                        content_types=None, files=None, format=None, progress=None,
                        memory_bytes=None))]
    #[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
    fn bulk_load<'py>(
        &self,
        py: Python<'py>,
        documents: Option<&Bound<'py, PyAny>>,
        ids: Option<&Bound<'py, PyAny>>,
        fps: Option<&Bound<'py, PyAny>>,
        texts: Option<&Bound<'py, PyAny>>,
        html: Option<&Bound<'py, PyAny>>,
        content_types: Option<&Bound<'py, PyAny>>,
        files: Option<Vec<PathBuf>>,
        format: Option<&str>,
        progress: Option<Bound<'py, PyAny>>,
        memory_bytes: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let source = match files {
            Some(paths) => BulkSource::files(paths, format, documents.or(ids).is_some())?,
            None => BulkSource::new(documents, ids, fps, texts, html, content_types)?,
        };
        // The loader needs the database to itself: take it out of the
        // handle, so other calls fail (ClosedError names the reason)
        // instead of waiting on a lock while holding the GIL.
        let mut arc = self
            .db
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| Kind::Closed.err("database is closed"))?;
        let result = match Arc::get_mut(&mut arc) {
            Some(db) => bulk::load(py, db, source, progress, memory_bytes),
            None => Err(Kind::Error.err(
                "bulk_load needs the database to itself: other calls on this handle are running",
            )),
        };
        *self.db.lock().unwrap_or_else(PoisonError::into_inner) = Some(arc);
        reports::to_dict(py, &result?)
    }

    /// Counts and sizes, as a dict; reads no block.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        reports::to_dict(py, &self.handle()?.stats())
    }

    /// Reads and checks every block, directory, counter and id entry.
    /// Returns a dict: `clean` (bool), counts, and `problems` (one str
    /// each, naming where). `progress`, a callable, is called as
    /// `progress(phase, done, total)` as the check goes: phase "blocks",
    /// then "ids", each with its total.
    #[pyo3(signature = (*, progress=None))]
    fn verify<'py>(
        &self,
        py: Python<'py>,
        progress: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let db = self.handle()?;
        let progress = PyProgress::new(progress)?;
        let report = py
            .detach(|| db.verify_with_progress(progress::or_none(&progress)))
            .map_err(to_py)?;
        reports::to_dict(py, &report)
    }

    /// Checks the database in `path` like `verify`, also when it does not
    /// open (what can be read is checked in a scratch copy beside it, and
    /// why it does not open is the first problem). Same dict and
    /// `progress` as `verify`.
    #[staticmethod]
    #[pyo3(signature = (path, *, progress=None))]
    fn verify_at<'py>(
        py: Python<'py>,
        path: PathBuf,
        progress: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let progress = PyProgress::new(progress)?;
        let report = py
            .detach(|| Db::verify_at_with_progress(&path, progress::or_none(&progress)))
            .map_err(to_py)?;
        reports::to_dict(py, &report)
    }

    /// Rebuilds the damaged database in `path` (not open for writing) from
    /// the copies that survived; see `fpdb repair`. Returns a dict (the
    /// keys of `fpdb repair --format json`): `repaired`, `damage` (what
    /// verify found; empty: nothing was done), `unlisted_damage`, `documents`,
    /// `restored_from_fp_ids`, `restored_from_id_fp`, `conflicting_ids`,
    /// `lost_fingerprints`, `unreadable`, `left_out`, `placed_by_content`,
    /// `stale_entries`, `partial`, `damaged_copy`.
    /// `progress` is called as `verify`'s, through the phases of the
    /// repair.
    #[staticmethod]
    #[pyo3(signature = (path, *, progress=None))]
    fn repair<'py>(
        py: Python<'py>,
        path: PathBuf,
        progress: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let progress = PyProgress::new(progress)?;
        let report = py
            .detach(|| Db::repair_with_progress(&path, progress::or_none(&progress)))
            .map_err(to_py)?;
        reports::repair_dict(py, &report)
    }

    /// Every stored `(id, fingerprint)`, in id byte order, from a
    /// consistent snapshot, read ahead in a background thread.
    fn export(&self) -> PyResult<PyExport> {
        let (export, reader) = PyExport::start(self.handle()?)?;
        let mut readers = self.exports.lock().unwrap_or_else(PoisonError::into_inner);
        readers.retain(|reader| !reader.is_finished());
        readers.push(reader);
        Ok(export)
    }

    /// Writes a consistent copy of the database to `dest` (a path that
    /// must not exist) while other threads and processes keep writing:
    /// from a writable handle a checkpoint holding every acknowledged
    /// write (files hard-linked on the same file system), from a read-only
    /// one a copy of what the handle sees. Built in `<dest>.tmp`, renamed
    /// when complete. Returns a dict: `path`, `method` ("checkpoint" or
    /// "copy"), `bytes`.
    fn backup<'py>(&self, py: Python<'py>, dest: PathBuf) -> PyResult<Bound<'py, PyDict>> {
        let db = self.handle()?;
        let backup = py.detach(move || db.backup(&dest)).map_err(to_py)?;
        reports::to_dict(py, &backup)
    }

    /// Writes what is in memory to disk.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let db = self.handle()?;
        py.detach(move || db.flush()).map_err(to_py)
    }

    /// Merges pending changes into the tables and compacts the storage.
    fn compact(&self, py: Python<'_>) -> PyResult<()> {
        let db = self.handle()?;
        py.detach(move || db.compact()).map_err(to_py)
    }
}
