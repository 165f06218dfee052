//! `Db.bulk_load`: documents from Python objects or files handed to the
//! database's bulk loader in chunks, the GIL released while it works, and
//! its progress reported to Python.

use std::path::PathBuf;

use fpdb::{BulkOptions, BulkPhase, BulkProgress, Db, Fingerprint, Simhasher};
use fpdb_input::Payload;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::args;
use crate::errors::{to_py, Kind};
use crate::files;

/// Documents handed to a bulk load at once, between which the GIL is
/// taken to read more from Python.
const BULK_CHUNK: usize = 65_536;

/// Where a bulk load's documents come from.
pub enum BulkSource<'a, 'py> {
    Pairs(&'a Bound<'py, PyAny>),
    Fingerprints(Vec<String>, Vec<Fingerprint>),
    Texts(Vec<String>, Vec<String>),
    /// Ids, pages and their Content-Types.
    Pages(Vec<String>, Vec<Vec<u8>>, Vec<Option<String>>),
    /// Paths, in one format or each by its name.
    Files(Vec<PathBuf>, Option<fpdb_input::InputFormat>),
}

impl<'a, 'py> BulkSource<'a, 'py> {
    /// The files at `paths`, in `format` or each in the format its name
    /// says; `with_documents` when documents or ids were given too.
    pub fn files(
        paths: Vec<PathBuf>,
        format: Option<&str>,
        with_documents: bool,
    ) -> PyResult<Self> {
        if with_documents {
            return Err(PyTypeError::new_err(
                "files cannot be combined with documents or ids",
            ));
        }
        Ok(BulkSource::Files(paths, files::input_format(format)?))
    }

    pub fn new(
        documents: Option<&'a Bound<'py, PyAny>>,
        ids: Option<&'a Bound<'py, PyAny>>,
        fps: Option<&'a Bound<'py, PyAny>>,
        texts: Option<&'a Bound<'py, PyAny>>,
        html: Option<&'a Bound<'py, PyAny>>,
        content_types: Option<&'a Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        let usage = "bulk_load takes ids with one of fps, texts and html, or documents";
        if content_types.is_some() && html.is_none() {
            return Err(PyTypeError::new_err(
                "content_types are the HTTP headers of html pages",
            ));
        }
        match (documents, ids, fps, texts, html) {
            (Some(documents), None, None, None, None) => Ok(BulkSource::Pairs(documents)),
            (None, Some(ids), None, None, Some(pages)) => {
                let (ids, pages) = (args::strings(ids, "ids")?, args::pages(pages)?);
                same_length(ids.len(), pages.len(), "pages")?;
                let content_types = args::content_types(content_types, pages.len())?;
                Ok(BulkSource::Pages(ids, pages, content_types))
            }
            (None, Some(ids), Some(fps), None, None) => {
                let (ids, fps) = (args::strings(ids, "ids")?, args::fingerprints(fps)?);
                same_length(ids.len(), fps.len(), "fingerprints")?;
                Ok(BulkSource::Fingerprints(ids, fps))
            }
            (None, Some(ids), None, Some(texts), None) => {
                let (ids, texts) = (args::strings(ids, "ids")?, args::strings(texts, "texts")?);
                same_length(ids.len(), texts.len(), "texts")?;
                Ok(BulkSource::Texts(ids, texts))
            }
            _ => Err(PyTypeError::new_err(usage)),
        }
    }
}

fn same_length(ids: usize, other: usize, what: &str) -> PyResult<()> {
    if ids == other {
        Ok(())
    } else {
        Err(Kind::InvalidInput.err(format!("{ids} ids but {other} {what}")))
    }
}

/// Loads every document of `source` into the empty database `db`, with
/// the GIL released while the loader works; returns what it did.
pub fn load(
    py: Python<'_>,
    db: &mut Db,
    source: BulkSource<'_, '_>,
    progress: Option<Bound<'_, PyAny>>,
    memory_bytes: Option<usize>,
) -> PyResult<fpdb::BulkSummary> {
    let mut options = BulkOptions::default();
    if let Some(bytes) = memory_bytes {
        options = options.memory_bytes(bytes);
    }
    let simhasher = db.simhasher().clone();
    let extract = db.extract();
    let mut loader = db.bulk_loader(options).map_err(to_py)?;
    if let Some(report) = progress_reporter(progress)? {
        loader.set_progress(report);
    }
    let mut chunks = Chunks {
        py,
        simhasher: &simhasher,
        extract,
        loader: &mut loader,
        fingerprinted: Vec::with_capacity(BULK_CHUNK),
        pending: Vec::new(),
    };
    match source {
        BulkSource::Fingerprints(ids, fps) => {
            let documents: Vec<(String, Fingerprint)> = ids.into_iter().zip(fps).collect();
            py.detach(|| chunks.loader.add_all(documents))
                .map_err(to_py)?;
        }
        BulkSource::Texts(ids, texts) => {
            let documents: Vec<(&str, &str)> = ids
                .iter()
                .map(String::as_str)
                .zip(texts.iter().map(String::as_str))
                .collect();
            py.detach(|| chunks.loader.add_texts(&documents))
                .map_err(to_py)?;
        }
        BulkSource::Pages(ids, pages, content_types) => {
            let documents = ids.into_iter().zip(pages).zip(content_types);
            for (position, ((id, page), content_type)) in documents.enumerate() {
                let page = Pending::Html {
                    argument: "html",
                    position,
                    page,
                    content_type,
                };
                chunks.push_pending(id, page)?;
            }
            chunks.flush()?;
        }
        BulkSource::Files(paths, format) => {
            files::read_files(&paths, format, extract, BULK_CHUNK, |records| {
                for record in records {
                    match record.payload {
                        Payload::Fingerprint(fp) => chunks.fingerprinted.push((record.id, fp)),
                        Payload::Text(text) => {
                            chunks.pending.push((record.id, Pending::Text(text)))
                        }
                    }
                }
                chunks.flush()
            })?;
        }
        BulkSource::Pairs(documents) => add_pairs(&mut chunks, documents)?,
    }
    py.detach(move || loader.finish()).map_err(to_py)
}

/// Takes `documents`, an iterable of (id, fingerprint) pairs; a text or
/// page in place of the fingerprint is the older spelling, its kind
/// guessed from its type, with one warning per call.
fn add_pairs(chunks: &mut Chunks<'_, '_, '_>, documents: &Bound<'_, PyAny>) -> PyResult<()> {
    let mut warned = false;
    let iterator = documents.try_iter().map_err(|_| {
        PyTypeError::new_err("documents must be an iterable of (id, fp or text) pairs")
    })?;
    for (position, item) in iterator.enumerate() {
        let (id, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "documents[{position}] is not an (id, fp or text) pair"
            ))
        })?;
        let id = id
            .cast::<PyString>()
            .map_err(|_| {
                PyTypeError::new_err(format!("documents[{position}]: the id is not a str"))
            })?
            .to_cow()?
            .into_owned();
        let guessed = if let Ok(text) = value.cast::<PyString>() {
            Some(Pending::Text(text.to_cow()?.into_owned()))
        } else if let Ok(page) = value.cast::<PyBytes>() {
            Some(Pending::Html {
                argument: "documents",
                position,
                page: page.as_bytes().to_vec(),
                content_type: None,
            })
        } else {
            None
        };
        match guessed {
            Some(document) => {
                if !warned {
                    args::deprecated(chunks.py, GUESSED_DOCUMENTS)?;
                    warned = true;
                }
                chunks.push_pending(id, document)?;
            }
            None => chunks.push_fingerprinted(id, args::fingerprint(&value)?)?,
        }
    }
    chunks.flush()
}

const GUESSED_DOCUMENTS: &std::ffi::CStr =
    c"documents=[(id, str or bytes)] guesses what each document is; say it: bulk_load(ids=..., texts=...) or bulk_load(ids=..., html=...)";

/// A document of a bulk load still to be fingerprinted.
enum Pending {
    Text(String),
    /// A page, where it was in the input (for the error), and its
    /// Content-Type.
    Html {
        /// The argument it came in: "documents" or "html".
        argument: &'static str,
        position: usize,
        page: Vec<u8>,
        content_type: Option<String>,
    },
}

/// Documents on their way to the loader, handed over [`BULK_CHUNK`] at a
/// time.
struct Chunks<'a, 'db, 'py> {
    py: Python<'py>,
    simhasher: &'a Simhasher,
    extract: fpdb::Extract,
    loader: &'a mut fpdb::BulkLoader<'db>,
    /// Documents with their fingerprints.
    fingerprinted: Vec<(String, Fingerprint)>,
    /// Texts and pages still to be fingerprinted.
    pending: Vec<(String, Pending)>,
}

impl Chunks<'_, '_, '_> {
    fn push_fingerprinted(&mut self, id: String, fp: Fingerprint) -> PyResult<()> {
        self.fingerprinted.push((id, fp));
        self.flush_if_full()
    }

    fn push_pending(&mut self, id: String, document: Pending) -> PyResult<()> {
        self.pending.push((id, document));
        self.flush_if_full()
    }

    fn flush_if_full(&mut self) -> PyResult<()> {
        if self.fingerprinted.len() + self.pending.len() >= BULK_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    /// Hands what is held to the loader with the GIL released; texts are
    /// fingerprinted, and pages extracted, in parallel first.
    fn flush(&mut self) -> PyResult<()> {
        let Chunks {
            py,
            simhasher,
            extract,
            loader,
            fingerprinted,
            pending,
        } = self;
        let extract = *extract;
        let hashed = py.detach(|| {
            use rayon::prelude::*;
            pending
                .par_drain(..)
                .map(|(id, document)| match document {
                    Pending::Text(text) => Ok((id, simhasher.fingerprint(&text))),
                    Pending::Html {
                        argument,
                        position,
                        page,
                        content_type,
                    } => fpdb::html::page_text(&page, content_type.as_deref(), extract)
                        .map(|page| (id, simhasher.fingerprint(&page.text)))
                        .map_err(|error| format!("{argument}[{position}]: {error}")),
                })
                .collect::<Result<Vec<_>, String>>()
        });
        fingerprinted.extend(hashed.map_err(|message| Kind::InvalidInput.err(message))?);
        py.detach(|| loader.add_all(fingerprinted.drain(..)))
            .map_err(to_py)
    }
}

type Reporter = Box<dyn FnMut(&BulkProgress) + Send>;

fn progress_reporter(progress: Option<Bound<'_, PyAny>>) -> PyResult<Option<Reporter>> {
    let Some(progress) = progress else {
        return Ok(None);
    };
    if progress.is_instance_of::<pyo3::types::PyBool>() {
        if !progress.is_truthy()? {
            return Ok(None);
        }
        return Ok(Some(Box::new(|report: &BulkProgress| {
            eprint!(
                "\rbulk load: {} {} documents {}/{}   ",
                phase_name(report.phase),
                report.documents,
                report.done,
                report.total
            );
            if report.phase == BulkPhase::Ingesting {
                eprintln!();
            }
        })));
    }
    if !progress.is_callable() {
        return Err(PyTypeError::new_err(
            "progress must be True, False, None or a callable",
        ));
    }
    let callback: Py<PyAny> = progress.unbind();
    Ok(Some(Box::new(move |report: &BulkProgress| {
        Python::attach(|py| {
            let arguments = (
                phase_name(report.phase),
                report.documents,
                report.done,
                report.total,
            );
            if let Err(error) = callback.call1(py, arguments) {
                // A failing progress callback must not abort the load.
                error.write_unraisable(py, Some(callback.bind(py)));
            }
        });
    })))
}

fn phase_name(phase: BulkPhase) -> &'static str {
    match phase {
        BulkPhase::Reading => "reading",
        BulkPhase::Sorting => "sorting",
        BulkPhase::Writing => "writing",
        BulkPhase::Ingesting => "ingesting",
    }
}
