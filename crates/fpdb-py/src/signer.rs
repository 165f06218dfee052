//! What the two-stage rule compares, made without a database: each
//! text's fingerprint and confirming signature, by the library's own code
//! (`fpdb::Document::of_text`), so that `fpdb.spark`'s executors sign
//! exactly as a confirming database or `fpdb.dedup(confirm=True)` does.

use fpdb::simhash::{Signature, SignatureLayout};
use fpdb::{Confirmation, Document, MatchRule, Options, Simhasher};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyType};
use rayon::prelude::*;

use crate::args::{self, simhash_options};
use crate::errors::{to_py, Kind};
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
    fn confirmation(&self) -> Confirmation {
        Confirmation::signatures_alone().with_common_features(self.state.common.clone())
    }

    /// One text's fingerprint and signature bytes; `None` without features.
    fn document(
        simhasher: &Simhasher,
        confirmation: &Confirmation,
        text: &str,
    ) -> Option<(u64, Option<Vec<u8>>)> {
        let document = Document::of_text(simhasher, Some(confirmation), text).ok()?;
        let signature = document.signature.map(|s| s.as_bytes().to_vec());
        Some((document.fingerprint.0, signature))
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
    /// `learn_from` (texts; the first 10,000 with features are read)
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
        learn_from: Option<Vec<String>>,
    ) -> PyResult<PySigner> {
        let learn_weights = weights == Some("learned");
        let simhash = simhash_options(tokenizer, if learn_weights { Some("tf") } else { weights })?;
        let options = Options::default()
            .simhash(simhash)
            .confirmation(Some(Confirmation::signatures_alone()));
        let options =
            crate::db::learned_from_texts(py, options, simhash, learn_from, learn_weights)?;
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
    fn signature<'py>(&self, py: Python<'py>, text: &str) -> Option<Bound<'py, PyBytes>> {
        Self::document(&self.state.simhasher, &self.confirmation(), text)
            .and_then(|(_, signature)| signature)
            .map(|bytes| PyBytes::new(py, &bytes))
    }

    /// Many texts at once, in parallel: `(fingerprints, signatures,
    /// has_features)`. A text without features gets fingerprint 0, no
    /// signature and False: a confirming dedup leaves it out.
    fn documents<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
    ) -> PyResult<Documents<'py>> {
        let texts = args::strings(texts, "texts")?;
        let (simhasher, confirmation) = (&self.state.simhasher, self.confirmation());
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
    #[pyo3(signature = (pages, content_types=None, *, extract="main"))]
    fn page_documents<'py>(
        &self,
        py: Python<'py>,
        pages: &Bound<'py, PyAny>,
        content_types: Option<&Bound<'py, PyAny>>,
        extract: &str,
    ) -> PyResult<Documents<'py>> {
        let extract = args::extract(extract)?;
        let pages = args::pages(pages)?;
        let content_types = args::content_types(content_types, pages.len())?;
        let (simhasher, confirmation) = (&self.state.simhasher, self.confirmation());
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

/// The two-stage rule on candidate pairs, each given as its fingerprints'
/// `distance` and the two documents' signatures (None for a bare one):
/// `(kept, similarity)`, kept where the rule matches them (both signed:
/// within `confirm_radius` and resembling at least `confirm_threshold`;
/// otherwise within `k`), similarity NaN where matched by distance alone.
#[pyfunction]
#[pyo3(signature = (distance, a, b, k, confirm_radius=None, confirm_threshold=None))]
pub fn judge_pairs<'py>(
    py: Python<'py>,
    distance: PyReadonlyArray1<'py, i32>,
    a: Vec<Option<Bound<'py, PyBytes>>>,
    b: Vec<Option<Bound<'py, PyBytes>>>,
    k: u32,
    confirm_radius: Option<u32>,
    confirm_threshold: Option<f64>,
) -> PyResult<Judged<'py>> {
    let rule = MatchRule {
        k,
        confirmation: Some(signatures_alone(confirm_radius, confirm_threshold)?),
    };
    let distance = distance.as_array();
    if a.len() != distance.len() || b.len() != distance.len() {
        return Err(Kind::InvalidInput.err("one distance and two signatures per pair"));
    }
    let mut kept = Vec::with_capacity(distance.len());
    let mut similarity = Vec::with_capacity(distance.len());
    for ((&d, a), b) in distance.iter().zip(&a).zip(&b) {
        let d = u32::try_from(d)
            .map_err(|_| Kind::InvalidInput.err(format!("distance {d} is negative")))?;
        // This rule keeps no weak bits, so any difference of `d` bits is
        // judged alike.
        let xor = u64::MAX.checked_shr(64u32.saturating_sub(d)).unwrap_or(0);
        let judged = rule.judge(xor, signature_bytes(a), signature_bytes(b));
        kept.push(judged.is_some());
        similarity.push(judged.flatten().unwrap_or(f64::NAN));
    }
    Ok((
        PyArray1::from_vec(py, kept),
        PyArray1::from_vec(py, similarity),
    ))
}

/// A signature's bytes; empty for a bare document, as the rule reads it.
fn signature_bytes<'a>(signature: &'a Option<Bound<'_, PyBytes>>) -> &'a [u8] {
    signature.as_ref().map_or(&[], |s| s.as_bytes())
}

/// The rule Spark's columns can carry: signatures compared alone
/// ([`Confirmation::signatures_alone`]), with the radius and threshold
/// given.
fn signatures_alone(radius: Option<u32>, threshold: Option<f64>) -> PyResult<Confirmation> {
    let plain = Confirmation::signatures_alone();
    let threshold = threshold.unwrap_or(plain.threshold());
    let radius = radius.unwrap_or(plain.radius());
    plain
        .with_threshold_and_radius(threshold, radius)
        .map_err(to_py)
}
