//! What the two-stage rule compares, made without a database: each
//! text's fingerprint and confirming signature, by the library's own code
//! (`fpdb::Document::of_text`), so that `fpdb.spark`'s executors sign
//! exactly as a confirming database or `fpdb.dedup(confirm=True)` does.

use fpdb::simhash::{Signature, SignatureLayout};
use fpdb::{Confirmation, Document, MatchRule, Options, Simhasher};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};
use rayon::prelude::*;

use crate::args::{self, simhash_options};
use crate::errors::Kind;
use crate::signer_state::SignerState;

/// Fingerprints, signatures (`None` where a text has no feature but
/// common ones) and whether each text or page gave a document.
pub type Documents<'py> = (
    Bound<'py, PyArray1<u64>>,
    Vec<Option<Bound<'py, PyBytes>>>,
    Bound<'py, PyArray1<bool>>,
);

/// Which candidate pairs the rule keeps, and their similarities.
pub type Judged<'py> = (Bound<'py, PyArray1<bool>>, Bound<'py, PyArray1<f64>>);

/// Makes texts into what a confirming database stores for them: the
/// fingerprint (with learned weights if asked) and the 32-byte signature
/// without the features common to the texts learned from.
#[derive(Debug)]
#[pyclass(module = "fpdb", name = "Signer", frozen)]
pub struct PySigner {
    state: SignerState,
}

impl PySigner {
    /// The confirmation whose stored bytes the signer makes: the
    /// recommended one keeping `weak_bits` a quarter and, when
    /// `min_shared` is above 0, the shingle count (both 0: the signature
    /// alone), counting numbers from `numbers_from` percent digits (the
    /// recommended share when `None`), without the common features
    /// learned.
    fn confirmation(
        &self,
        weak_bits: u32,
        min_shared: u16,
        numbers_from: Option<u16>,
    ) -> PyResult<Confirmation> {
        let confirmation = args::confirmation(&args::ConfirmArgs {
            confirm: true,
            radius: None,
            threshold: None,
            weak_bits: Some(weak_bits),
            min_shared: Some(min_shared),
            numbers_from,
        })?;
        Ok(confirmation
            .unwrap_or_else(Confirmation::recommended)
            .with_common_features(self.state.common.clone()))
    }

    /// One text's fingerprint and stored bytes (`Document::stored_bytes`:
    /// the signature, then what `confirmation` keeps beside it; `None`
    /// for a text with only common features); `None` without features.
    fn document(
        simhasher: &Simhasher,
        confirmation: &Confirmation,
        text: &str,
    ) -> Option<(u64, Option<Vec<u8>>)> {
        let document = Document::of_text(simhasher, Some(confirmation), text).ok()?;
        let stored = document
            .signature
            .is_some()
            .then(|| document.stored_bytes(Some(confirmation)));
        Some((document.fingerprint.0, stored))
    }

    fn columns<'py>(py: Python<'py>, made: Vec<Option<(u64, Option<Vec<u8>>)>>) -> Documents<'py> {
        let fps: Vec<u64> = made.iter().map(|d| d.as_ref().map_or(0, |d| d.0)).collect();
        let present: Vec<bool> = made.iter().map(Option::is_some).collect();
        let signatures = made
            .into_iter()
            .map(|d| d.and_then(|d| d.1).map(|bytes| PyBytes::new(py, &bytes)))
            .collect();
        (
            PyArray1::from_vec(py, fps),
            signatures,
            PyArray1::from_vec(py, present),
        )
    }
}

#[pymethods]
impl PySigner {
    /// A signer with `tokenizer` and `weights` (as for `Db.create`).
    /// `learn_from` (texts, any iterable of str; only its first 10,000
    /// with features are taken from it)
    /// teaches it what `Db.create(..., confirm=True, learn_from=...)`
    /// learns: the features common to more than 20% of them (from 1,000
    /// texts on), left out of signatures, and with `weights="learned"`
    /// every word's weight.
    #[new]
    #[pyo3(signature = (*, tokenizer=None, weights=None, learn_from=None))]
    fn new(
        py: Python<'_>,
        tokenizer: Option<&str>,
        weights: Option<&str>,
        learn_from: Option<Bound<'_, PyAny>>,
    ) -> PyResult<PySigner> {
        let learn_weights = weights == Some("learned");
        let simhash = simhash_options(tokenizer, if learn_weights { Some("tf") } else { weights })?;
        let options = Options::default()
            .simhash(simhash)
            .confirmation(Some(Confirmation::signatures_alone()));
        let options = crate::db::learned_from_texts(
            py,
            options,
            simhash,
            learn_from.as_ref(),
            learn_weights,
        )?;
        let simhasher = match &options.learned_weights {
            Some(idf) => Simhasher::learned(simhash.tokenizer, idf.clone()),
            None => Simhasher::new(simhash),
        };
        let common = options
            .confirmation
            .map(|c| c.common_features().clone())
            .unwrap_or_default();
        Ok(PySigner {
            state: SignerState { simhasher, common },
        })
    }

    /// The signer `state` (`bytes(signer)`'s) describes.
    #[classmethod]
    fn from_state(_cls: &Bound<'_, PyType>, state: &[u8]) -> PyResult<PySigner> {
        SignerState::decode(state)
            .map(|state| PySigner { state })
            .map_err(|why| Kind::InvalidInput.err(format!("Signer state: {why}")))
    }

    /// The signer as bytes, with everything it learned.
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.state.encode())
    }

    /// Pickled as its state, so Spark can ship it to executors.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let from_state = slf.get_type().getattr("from_state")?;
        Ok((from_state, (slf.get().__bytes__(slf.py()),)))
    }

    /// The fingerprint of `text`, as a confirming database computes it.
    fn fingerprint(&self, text: &str) -> u64 {
        let simhasher = &self.state.simhasher;
        match simhasher.learned_idf() {
            Some(idf) => idf.fingerprint(&simhasher.feature_hashes(text)).0,
            None => simhasher.fingerprint(text).0,
        }
    }

    /// The signature of `text` (32 bytes), or None when it has no feature
    /// but the common ones (matched by distance alone).
    fn signature<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyBytes>>> {
        Ok(
            Self::document(&self.state.simhasher, &self.confirmation(0, 0, None)?, text)
                .and_then(|(_, signature)| signature)
                .map(|bytes| PyBytes::new(py, &bytes)),
        )
    }

    /// Many texts at once, in parallel: `(fingerprints, signatures,
    /// has_features)`. A text without features gets fingerprint 0, no
    /// signature and False: a confirming dedup leaves it out. With
    /// `confirm_weak_bits` or `confirm_min_shared` (as for `Db.create`),
    /// each signature is followed by what such a database stores beside
    /// it: the text's shingle count (2 bytes, when `confirm_min_shared`
    /// is above 0) and its weak bits (8 bytes, when `confirm_weak_bits`
    /// is), the bytes `judge_pairs` reads. A text of at least
    /// `confirm_numbers_from` percent digits (default 20) is signed with
    /// its numbers, as a database made with that option signs it.
    #[pyo3(signature = (texts, *, confirm_weak_bits=0, confirm_min_shared=0,
                        confirm_numbers_from=None))]
    fn documents<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        confirm_weak_bits: u32,
        confirm_min_shared: u16,
        confirm_numbers_from: Option<u16>,
    ) -> PyResult<Documents<'py>> {
        let texts = args::strings(texts, "texts")?;
        let confirmation =
            self.confirmation(confirm_weak_bits, confirm_min_shared, confirm_numbers_from)?;
        let simhasher = &self.state.simhasher;
        let made = py.detach(|| {
            texts
                .par_iter()
                .map(|text| Self::document(simhasher, &confirmation, text))
                .collect()
        });
        Ok(Self::columns(py, made))
    }

    /// `documents` of HTML pages (bytes as received, or str), their text
    /// taken as `Db.insert_html` takes it; False also where a page cannot
    /// be read as HTML.
    #[pyo3(signature = (pages, content_types=None, *, extract="main", confirm_weak_bits=0,
                        confirm_min_shared=0, confirm_numbers_from=None))]
    #[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
    fn page_documents<'py>(
        &self,
        py: Python<'py>,
        pages: &Bound<'py, PyAny>,
        content_types: Option<&Bound<'py, PyAny>>,
        extract: &str,
        confirm_weak_bits: u32,
        confirm_min_shared: u16,
        confirm_numbers_from: Option<u16>,
    ) -> PyResult<Documents<'py>> {
        let extract = args::extract(extract)?;
        let pages = args::pages(pages)?;
        let content_types = args::content_types(content_types, pages.len())?;
        let confirmation =
            self.confirmation(confirm_weak_bits, confirm_min_shared, confirm_numbers_from)?;
        let simhasher = &self.state.simhasher;
        let made = py.detach(|| {
            pages
                .par_iter()
                .zip(content_types.par_iter())
                .map(|(page, content_type)| {
                    let page =
                        fpdb::html::page_text(page, content_type.as_deref(), extract).ok()?;
                    Self::document(simhasher, &confirmation, &page.text)
                })
                .collect()
        });
        Ok(Self::columns(py, made))
    }
}

/// The estimated resemblance of two documents from their signatures (as
/// `Signer` makes them and confirming databases store them), in [0, 1]:
/// the similarity the two-stage rule compares with `confirm_threshold`.
#[pyfunction]
pub fn similarity(a: &[u8], b: &[u8]) -> PyResult<f64> {
    let layout = SignatureLayout::RECOMMENDED;
    let read = |bytes: &[u8]| {
        Signature::from_bytes(layout, bytes)
            .map_err(|error| Kind::InvalidInput.err(error.to_string()))
    };
    read(a)?
        .similarity(&read(b)?)
        .map_err(|error| Kind::InvalidInput.err(error.to_string()))
}

/// The two-stage rule on candidate pairs, each given as its two
/// fingerprints and the two documents' stored bytes (as `Signer.documents`
/// makes them with the same `confirm_weak_bits` and `confirm_min_shared`;
/// None for a bare document): `(kept, similarity)`, kept where
/// `MatchRule::judge` matches them under the rule the `confirm_` options
/// ask for (as for `Db.create`), similarity NaN where matched by distance
/// alone.
#[pyfunction]
#[pyo3(signature = (fp_a, fp_b, a, b, k, confirm_radius=None, confirm_threshold=None,
                    confirm_weak_bits=None, confirm_min_shared=None))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub fn judge_pairs<'py>(
    py: Python<'py>,
    fp_a: &Bound<'py, PyAny>,
    fp_b: &Bound<'py, PyAny>,
    a: Vec<Option<Bound<'py, PyBytes>>>,
    b: Vec<Option<Bound<'py, PyBytes>>>,
    k: u32,
    confirm_radius: Option<u32>,
    confirm_threshold: Option<f64>,
    confirm_weak_bits: Option<u32>,
    confirm_min_shared: Option<u16>,
) -> PyResult<Judged<'py>> {
    let rule = confirming_rule(
        k,
        confirm_radius,
        confirm_threshold,
        confirm_weak_bits,
        confirm_min_shared,
    )?;
    let (fp_a, fp_b) = (args::fingerprints(fp_a)?, args::fingerprints(fp_b)?);
    let pairs = fp_a.len();
    if fp_b.len() != pairs || a.len() != pairs || b.len() != pairs {
        return Err(Kind::InvalidInput.err("two fingerprints and two signatures per pair"));
    }
    let mut kept = Vec::with_capacity(pairs);
    let mut similarity = Vec::with_capacity(pairs);
    for (((x, y), a), b) in fp_a.iter().zip(&fp_b).zip(&a).zip(&b) {
        let judged = rule.judge(
            x.0 ^ y.0,
            stored_bytes(&rule, a.as_ref())?,
            stored_bytes(&rule, b.as_ref())?,
        );
        kept.push(judged.is_some());
        similarity.push(judged.flatten().unwrap_or(f64::NAN));
    }
    Ok((
        PyArray1::from_vec(py, kept),
        PyArray1::from_vec(py, similarity),
    ))
}

/// The rule `fpdb.spark` confirms by: the recommended confirmation with
/// what the `confirm_` options change, checked as `Db.create` checks
/// them.
pub fn confirming_rule(
    k: u32,
    radius: Option<u32>,
    threshold: Option<f64>,
    weak_bits: Option<u32>,
    min_shared: Option<u16>,
) -> PyResult<MatchRule> {
    let confirmation = args::confirmation(&args::ConfirmArgs {
        confirm: true,
        radius,
        threshold,
        weak_bits,
        min_shared,
        // Numbers decide how texts are signed, not how pairs are judged.
        numbers_from: None,
    })?;
    Ok(MatchRule { k, confirmation })
}

/// A document's stored bytes (empty for a bare one), checked against
/// what `rule` reads: bytes of another length would silently count as no
/// signature, so they are an error (signed under other options).
pub fn stored_bytes<'a>(
    rule: &MatchRule,
    bytes: Option<&'a Bound<'_, PyBytes>>,
) -> PyResult<&'a [u8]> {
    let bytes = bytes.map_or(&[][..], |b| b.as_bytes());
    let expected = rule
        .confirmation
        .as_ref()
        .map_or(0, Confirmation::stored_bytes);
    if bytes.is_empty() || bytes.len() == expected {
        Ok(bytes)
    } else {
        Err(Kind::InvalidInput.err(format!(
            "a signature of {} bytes where this rule reads {expected}: sign the documents \
             with the same confirm_weak_bits and confirm_min_shared",
            bytes.len()
        )))
    }
}
