//! `fpdb.tune`: every setting a database can be created with, measured on
//! copies planted into a sample of the caller's texts (the library's
//! `fpdb::tune`, what `fpdb tune` runs), as a dict of the report `fpdb
//! tune --format json` prints.

use std::path::PathBuf;

use fpdb::tune::recall_against_false_matches;
use fpdb::{Simhasher, TuneOptions};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::simhash_options;
use crate::errors::{to_py, Kind};
use crate::reports::to_dict;

/// Plants copies of the first `originals` distinct texts (1% typos, a
/// portal's header and footer, new dates and counters, a dropped
/// sentence, a mirror), lays the rest out as a crawl, and scores every
/// setting (default or learned weights; by distance, by weak bits and
/// signatures as `confirm=True` gives, or every candidate and signatures;
/// radii 3 to 12, and 14 and 16 for weak bits) through the database's own
/// rule, confirmed at `confirm_threshold` when given, else at each
/// check's own.
/// Returns the report as a dict: `settings` (one per setting and radius:
/// recall, `recall_by_edit`, precision, pairs, false matches per query,
/// measured and at `expected` documents), `recommended` (the best
/// recall at `min_precision`, or None) and `too_short_to_confirm` (texts
/// with fewer distinct shingles than the gate of `confirm=True` asks two
/// copies to share). With `figure=`, writes recall
/// against false matches per query there as SVG.
#[pyfunction]
#[pyo3(signature = (texts, *, originals=1000, expected=10_000_000, min_precision=0.99,
                    confirm_threshold=None, seed=1, tokenizer=None, figure=None))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub fn tune<'py>(
    py: Python<'py>,
    texts: Vec<String>,
    originals: usize,
    expected: u64,
    min_precision: f64,
    confirm_threshold: Option<f64>,
    seed: u64,
    tokenizer: Option<&str>,
    figure: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let simhasher = Simhasher::new(simhash_options(tokenizer, None)?);
    let options = TuneOptions {
        originals,
        seed,
        confirm_threshold,
        min_precision,
        expected,
    };
    options.check().map_err(to_py)?;
    if texts.len() < 2 {
        return Err(
            Kind::InvalidInput.err(format!("tune needs at least 2 texts, not {}", texts.len()))
        );
    }
    let tuning = py
        .detach(move || fpdb::tune(&simhasher, &texts, options))
        .map_err(to_py)?;
    if let Some(path) = figure {
        let title = format!(
            "Recall against false matches on {} texts ({} originals)",
            tuning.planted.texts.len(),
            tuning.originals()
        );
        let svg = recall_against_false_matches(&title, &tuning.curves())
            .map_err(|error| Kind::Error.err(error.to_string()))?;
        std::fs::write(&path, svg)
            .map_err(|error| Kind::Storage.err(format!("writing {}: {error}", path.display())))?;
    }
    to_dict(py, &tuning)
}
