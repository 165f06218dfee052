//! Fingerprinting and de-duplication without a database.

use fpdb::dedup::{Corpus, Representative};
use fpdb::{Confirmation, Fingerprint, LearningCorpus, MatchRule, Simhasher};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rayon::prelude::*;

use crate::args::{self, simhash_options};
use crate::errors::Kind;

/// The simhash fingerprint of `text` (an int in 0..2**64).
///
/// `tokenizer` is "jieba" (default), "words" or "chars:N"; `weights` is
/// "tfidf:8" (default), "tfidf" or "tf".
///
/// >>> import fpdb
/// >>> a = fpdb.fingerprint("你妈妈喊你回家吃饭哦，回家罗回家罗")
/// >>> b = fpdb.fingerprint("你妈妈叫你回家吃饭啦，回家罗回家罗")
/// >>> bin(a ^ b).count("1") <= 3
/// True
#[pyfunction]
#[pyo3(signature = (text, *, tokenizer=None, weights=None))]
pub fn fingerprint(
    py: Python<'_>,
    text: &str,
    tokenizer: Option<&str>,
    weights: Option<&str>,
) -> PyResult<u64> {
    let simhasher = Simhasher::new(simhash_options(tokenizer, weights)?);
    let text = text.to_owned();
    Ok(py.detach(move || simhasher.fingerprint(&text)).0)
}

/// The text fpdb fingerprints for an HTML page: `html` as bytes received
/// (`content_type` the HTTP header, whose charset is used) or a str
/// already decoded, `extract`
/// "main" (the article, by a readability-style extractor; all visible
/// text when it finds none) or "all".
///
/// >>> import fpdb
/// >>> page = "<html><body><nav>首页</nav><p>正文</p></body></html>".encode()
/// >>> fpdb.page_text(page, extract="all")
/// '首页\n正文'
#[pyfunction]
#[pyo3(signature = (html, content_type=None, *, extract="main"))]
pub fn page_text(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    content_type: Option<&str>,
    extract: &str,
) -> PyResult<String> {
    let extract = args::extract(extract)?;
    let (html, content_type) = (args::html_bytes(html)?, content_type.map(str::to_owned));
    py.detach(move || fpdb::html::page_text(&html, content_type.as_deref(), extract))
        .map(|page| page.text)
        .map_err(|error| Kind::InvalidInput.err(error.to_string()))
}

/// Fingerprints of many texts, computed in parallel on all cores, as a
/// numpy uint64 array, with the given options (the defaults when none are
/// given; `db.fingerprint_many` uses a database's own).
#[pyfunction]
#[pyo3(signature = (texts, *, tokenizer=None, weights=None))]
pub fn fingerprint_many<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    tokenizer: Option<&str>,
    weights: Option<&str>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let simhasher = Simhasher::new(simhash_options(tokenizer, weights)?);
    texts_fingerprints(py, simhasher, texts)
}

/// `fingerprint_many` with a given simhasher.
pub fn texts_fingerprints<'py>(
    py: Python<'py>,
    simhasher: Simhasher,
    texts: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let texts = args::strings(texts, "texts")?;
    let fps: Vec<u64> = py.detach(move || {
        texts
            .par_iter()
            .map(|text| simhasher.fingerprint(text).0)
            .collect()
    });
    Ok(PyArray1::from_vec(py, fps))
}

/// Fingerprints and whether each page was readable.
pub type PageFingerprints<'py> = (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<bool>>);

/// Fingerprints of many HTML pages (bytes as received, or str already
/// decoded), extracted and fingerprinted in parallel on all cores, as
/// `db.insert_html` would with the same `extract`, `tokenizer` and
/// `weights` (the defaults when none are given; `db.fingerprint_pages`
/// uses a database's own). `content_types`, when given, holds each page's
/// HTTP Content-Type (or None).
///
/// Returns two numpy arrays: the uint64 fingerprints and a bool array
/// `readable`, False where a page could not be read as HTML (binary, or
/// above the size limit); those pages get fingerprint 0.
#[pyfunction]
#[pyo3(signature = (pages, content_types=None, *, extract="main", tokenizer=None, weights=None))]
pub fn fingerprint_pages<'py>(
    py: Python<'py>,
    pages: &Bound<'py, PyAny>,
    content_types: Option<&Bound<'py, PyAny>>,
    extract: &str,
    tokenizer: Option<&str>,
    weights: Option<&str>,
) -> PyResult<PageFingerprints<'py>> {
    let simhasher = Simhasher::new(simhash_options(tokenizer, weights)?);
    let extract = args::extract(extract)?;
    pages_fingerprints(py, simhasher, extract, pages, content_types)
}

/// `fingerprint_pages` with a given simhasher and extraction.
pub fn pages_fingerprints<'py>(
    py: Python<'py>,
    simhasher: Simhasher,
    extract: fpdb::Extract,
    pages: &Bound<'py, PyAny>,
    content_types: Option<&Bound<'py, PyAny>>,
) -> PyResult<PageFingerprints<'py>> {
    let pages = args::pages(pages)?;
    let content_types = args::content_types(content_types, pages.len())?;
    let (fps, readable): (Vec<u64>, Vec<bool>) = py.detach(move || {
        pages
            .par_iter()
            .zip(content_types.par_iter())
            .map(|(page, content_type)| {
                match fpdb::html::page_text(page, content_type.as_deref(), extract) {
                    Ok(page) => (simhasher.fingerprint(&page.text).0, true),
                    Err(_) => (0, false),
                }
            })
            .unzip()
    });
    Ok((
        PyArray1::from_vec(py, fps),
        PyArray1::from_vec(py, readable),
    ))
}

/// Near-duplicates in memory, no database, among `fps` (a numpy uint64
/// array or a sequence of int fingerprints, also accepted by position) or
/// `texts=` (a sequence of str, fingerprinted first with `tokenizer` and
/// `weights`). Texts given by position (the older spelling, told apart by
/// their first element) still work, with a DeprecationWarning.
///
/// Returns the pairs of positions within `k` as three numpy arrays
/// `(a, b, distance)` with `a < b`; with `clusters=True`, the groups of
/// positions linked by chains of such pairs instead, as a list of lists
/// (each increasing; positions without a near-duplicate are in none).
///
/// Texts may be matched as `fpdb dedup` matches them: `weights="learned"`
/// weighs each word by its rarity in the first 10,000 texts, and
/// `confirm=True` pairs them in two stages (candidates within
/// `confirm_radius` bits, default 14, that both texts' weak bits reach,
/// `confirm_weak_bits` a quarter, default 6, at most two of them flipped,
/// kept when their signatures'
/// estimated resemblance reaches `confirm_threshold`, default 0.45, with
/// at least `confirm_min_shared` shingles, default 7, estimated shared;
/// the features common to the first texts left out; numbers count in the
/// signature of a text of at least `confirm_numbers_from` percent digits,
/// default 20). Texts without features
/// are then in no pair, and with `confirm=True` the pairs come as four
/// arrays, `(a, b, distance, similarity)`.
#[pyfunction]
#[pyo3(signature = (fps=None, *, texts=None, k=3, clusters=false, tokenizer=None, weights=None,
                    confirm=false, confirm_radius=None, confirm_threshold=None,
                    confirm_weak_bits=None, confirm_min_shared=None, confirm_numbers_from=None))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub fn dedup<'py>(
    py: Python<'py>,
    fps: Option<&Bound<'py, PyAny>>,
    texts: Option<&Bound<'py, PyAny>>,
    k: u32,
    clusters: bool,
    tokenizer: Option<&str>,
    weights: Option<&str>,
    confirm: bool,
    confirm_radius: Option<u32>,
    confirm_threshold: Option<f64>,
    confirm_weak_bits: Option<u32>,
    confirm_min_shared: Option<u16>,
    confirm_numbers_from: Option<u16>,
) -> PyResult<Bound<'py, PyAny>> {
    let confirmation = args::confirmation(&args::ConfirmArgs {
        confirm,
        radius: confirm_radius,
        threshold: confirm_threshold,
        weak_bits: confirm_weak_bits,
        min_shared: confirm_min_shared,
        numbers_from: confirm_numbers_from,
    })?;
    let learn_weights = weights == Some("learned");
    if confirmation.is_some() || learn_weights {
        let Some(texts) = texts.filter(|_| fps.is_none()) else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "confirm=True and weights=\"learned\" take texts= alone",
            ));
        };
        let texts: Vec<String> = texts.extract()?;
        let weights = if learn_weights { Some("tf") } else { weights };
        let simhasher = Simhasher::new(simhash_options(tokenizer, weights)?);
        return learned_dedup(
            py,
            &texts,
            k,
            clusters,
            simhasher,
            learn_weights,
            confirmation,
        );
    }
    let fps = match (fps, texts) {
        (Some(items), None) => fingerprints_or_texts(py, items, tokenizer, weights)?,
        (None, Some(texts)) => hash_texts(py, texts, tokenizer, weights)?,
        (None, None) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "dedup takes fps (fingerprints) or texts=",
            ))
        }
        (Some(_), Some(_)) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "dedup takes fps or texts=, not both",
            ))
        }
    };
    if clusters {
        let corpus: Corpus = fps.iter().map(|&fp| ("", fp)).collect();
        let groups = py
            .detach(move || corpus.clusters(k, Representative::FirstSeen))
            .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
        let members: Vec<Vec<usize>> = groups.into_iter().map(|group| group.members).collect();
        return Ok(PyList::new(py, members)?.into_any());
    }
    let pairs = py
        .detach(move || fpdb::dedup::near_pairs(&fps, k))
        .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
    let a: Vec<u64> = pairs.iter().map(|pair| pair.a as u64).collect();
    let b: Vec<u64> = pairs.iter().map(|pair| pair.b as u64).collect();
    let distance: Vec<u8> = pairs
        .iter()
        .map(|pair| u8::try_from(pair.distance).unwrap_or(u8::MAX))
        .collect();
    let arrays = (
        PyArray1::from_vec(py, a),
        PyArray1::from_vec(py, b),
        PyArray1::from_vec(py, distance),
    );
    Ok(arrays.into_pyobject(py)?.into_any())
}

/// Fingerprints as given, or of texts as given: a sequence whose first
/// element is a str holds texts.
fn fingerprints_or_texts(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    tokenizer: Option<&str>,
    weights: Option<&str>,
) -> PyResult<Vec<Fingerprint>> {
    let first_is_text = items
        .len()
        .ok()
        .filter(|&len| len > 0)
        .and_then(|_| items.get_item(0).ok())
        .is_some_and(|first| first.is_instance_of::<PyString>());
    if !first_is_text {
        return args::fingerprints(items);
    }
    args::deprecated(
        py,
        c"texts given by position are told apart from fingerprints by their first element; say so: dedup(texts=...)",
    )?;
    hash_texts(py, items, tokenizer, weights)
}

/// Fingerprints of `texts` under `tokenizer` and `weights`.
fn hash_texts(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    tokenizer: Option<&str>,
    weights: Option<&str>,
) -> PyResult<Vec<Fingerprint>> {
    let simhasher = Simhasher::new(simhash_options(tokenizer, weights)?);
    let texts = args::strings(texts, "texts")?;
    Ok(py.detach(move || {
        texts
            .par_iter()
            .map(|text| simhasher.fingerprint(text))
            .collect()
    }))
}

/// [`dedup`] of texts by a [`LearningCorpus`]: positions are the texts'.
fn learned_dedup<'py>(
    py: Python<'py>,
    texts: &[String],
    k: u32,
    clusters: bool,
    simhasher: Simhasher,
    learn_weights: bool,
    confirmation: Option<Confirmation>,
) -> PyResult<Bound<'py, PyAny>> {
    let confirming = confirmation.is_some();
    let found = py.detach(move || -> fpdb::Result<_> {
        let mut corpus = LearningCorpus::new(simhasher, learn_weights, confirmation);
        let positions = corpus.add_texts(texts);
        let (documents, learned) = corpus.finish();
        // The text each document came from.
        let text_of: Vec<usize> = positions
            .iter()
            .enumerate()
            .filter_map(|(text, position)| position.map(|_| text))
            .collect();
        let rule = MatchRule {
            k,
            confirmation: learned.confirmation,
        };
        let pairs = rule.corpus_pairs(&documents)?;
        Ok((text_of, documents, pairs))
    });
    let (text_of, documents, pairs) = found.map_err(crate::errors::to_py)?;
    let text = |position: usize| text_of.get(position).copied().unwrap_or_default();
    if clusters {
        let corpus: Corpus = documents.iter().map(|d| ("", d.fingerprint)).collect();
        let groups =
            corpus.clusters_linked_by(pairs.iter().map(|p| (p.a, p.b)), Representative::FirstSeen);
        let members: Vec<Vec<usize>> = groups
            .into_iter()
            .map(|group| group.members.into_iter().map(text).collect())
            .collect();
        return Ok(PyList::new(py, members)?.into_any());
    }
    let a: Vec<u64> = pairs.iter().map(|p| text(p.a) as u64).collect();
    let b: Vec<u64> = pairs.iter().map(|p| text(p.b) as u64).collect();
    let distance: Vec<u8> = pairs
        .iter()
        .map(|p| u8::try_from(p.distance).unwrap_or(u8::MAX))
        .collect();
    if !confirming {
        let arrays = (
            PyArray1::from_vec(py, a),
            PyArray1::from_vec(py, b),
            PyArray1::from_vec(py, distance),
        );
        return Ok(arrays.into_pyobject(py)?.into_any());
    }
    let similarity: Vec<f64> = pairs
        .iter()
        .map(|p| p.similarity.unwrap_or(f64::NAN))
        .collect();
    let arrays = (
        PyArray1::from_vec(py, a),
        PyArray1::from_vec(py, b),
        PyArray1::from_vec(py, distance),
        PyArray1::from_vec(py, similarity),
    );
    Ok(arrays.into_pyobject(py)?.into_any())
}
