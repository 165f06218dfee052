//! The kernels `fpdb.spark` runs inside Spark's executors, one call per
//! Arrow batch: keying fingerprints by table prefix, pairs and matches in
//! sorted runs, and probing a broadcast batch of queries. Spark does the
//! distribution; these do the work on each piece.

use fpdb::Fingerprint;
use fpdb_codec::{DesignChoice, MemIndex, PrefixRuns, TableDesign, DEFAULT_BLOCK_BYTES};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use crate::args;
use crate::errors::Kind;

type Columns<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
);

/// Table, prefix and fingerprint columns.
type KeyColumns<'py> = (
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
);

/// The name of the design for distance `k` and `n` distinct fingerprints:
/// `design` ("auto" or a name such as "split-4") resolved.
#[pyfunction]
#[pyo3(signature = (k, n, design="auto"))]
pub fn design_for(k: u32, n: u64, design: &str) -> PyResult<(String, usize)> {
    let design = resolve(k, n, design)?;
    Ok((design.name(), design.tables().len()))
}

/// Each fingerprint once per table of the design `design` (a name) at
/// distance `k`: `(table, prefix, fingerprint)` columns, table-major.
#[pyfunction]
pub fn prefix_keys<'py>(
    py: Python<'py>,
    fps: &Bound<'py, PyAny>,
    design: &str,
    k: u32,
) -> PyResult<KeyColumns<'py>> {
    let runs = runs(design, k)?;
    let fps = args::fingerprints(fps)?;
    let tables = runs.design().tables().len();
    let (mut table_column, mut prefixes, mut repeated) = (
        Vec::with_capacity(fps.len() * tables),
        Vec::with_capacity(fps.len() * tables),
        Vec::with_capacity(fps.len() * tables),
    );
    for table in 0..tables {
        let table_number = i32::try_from(table).map_err(|_| too_many_tables(tables))?;
        for &fp in &fps {
            table_column.push(table_number);
            prefixes.push(runs.prefix(table, fp).map_err(invalid)?);
            repeated.push(fp.0);
        }
    }
    Ok((
        PyArray1::from_vec(py, table_column),
        PyArray1::from_vec(py, prefixes),
        PyArray1::from_vec(py, repeated),
    ))
}

/// Pairs within `k` among rows sorted by `(table, prefix)` (`tables` and
/// `fps` columns), `a < b`; with `is_query`, the matches between the query
/// rows and the others instead, `a` the query. With `more_follow`, the
/// last run is left for the next call. Returns `(rows consumed, (a, b,
/// distance))`.
#[pyfunction]
#[pyo3(signature = (tables, fps, design, k, more_follow, is_query=None))]
pub fn pairs_in_sorted<'py>(
    py: Python<'py>,
    tables: PyReadonlyArray1<'py, i32>,
    fps: &Bound<'py, PyAny>,
    design: &str,
    k: u32,
    more_follow: bool,
    is_query: Option<PyReadonlyArray1<'py, bool>>,
) -> PyResult<(usize, Columns<'py>)> {
    let runs = runs(design, k)?;
    let rows = rows(&tables, fps)?;
    let sides = is_query.map(|sides| sides.as_array().to_vec());
    let (consumed, pairs) = py
        .detach(move || {
            let mut pairs = Vec::new();
            match &sides {
                Some(sides) => runs.matches_in_sorted(&rows, sides, more_follow, &mut pairs),
                None => runs.pairs_in_sorted(&rows, more_follow, &mut pairs),
            }
            .map(|consumed| (consumed, pairs))
        })
        .map_err(invalid)?;
    Ok((consumed, columns(py, fingerprint_triples(pairs))))
}

/// A batch of query fingerprints in memory, permuted into sorted tables
/// (the paper's batch mode): stored fingerprints stream past it.
#[pyclass(name = "BatchIndex", module = "fpdb._fpdb", frozen)]
pub struct PyBatchIndex {
    index: MemIndex,
    k: u32,
}

#[pymethods]
impl PyBatchIndex {
    #[new]
    fn new(py: Python<'_>, queries: &Bound<'_, PyAny>, k: u32) -> PyResult<Self> {
        let mut queries = args::fingerprints(queries)?;
        let index = py
            .detach(move || {
                queries.sort_unstable();
                queries.dedup();
                let design = TableDesign::auto(k, queries.len() as u64)?;
                MemIndex::build(design, &queries, DEFAULT_BLOCK_BYTES)
            })
            .map_err(invalid)?;
        Ok(PyBatchIndex { index, k })
    }

    /// The queries within `k` of each of `fps`: `(position in fps, query,
    /// distance)` columns.
    fn matches<'py>(&self, py: Python<'py>, fps: &Bound<'py, PyAny>) -> PyResult<Columns<'py>> {
        let fps = args::fingerprints(fps)?;
        let (index, k) = (&self.index, self.k);
        let found = py
            .detach(move || {
                let (mut found, mut hits, mut buffer) = (Vec::new(), Vec::new(), Vec::new());
                for (position, &fp) in (0u64..).zip(&fps) {
                    index.query_with(fp, k, &mut buffer, &mut hits)?;
                    found.extend(
                        hits.iter()
                            .map(|&(query, distance)| (position, query.0, distance)),
                    );
                }
                Ok::<_, fpdb_codec::CodecError>(found)
            })
            .map_err(invalid)?;
        Ok(columns(py, found))
    }
}

fn resolve(k: u32, n: u64, design: &str) -> PyResult<TableDesign> {
    let choice: DesignChoice = design
        .parse()
        .map_err(|error: fpdb_codec::DesignError| Kind::InvalidInput.err(error.to_string()))?;
    choice
        .resolve(k, n)
        .map_err(|error| Kind::InvalidInput.err(error.to_string()))
}

/// The runs of a named design (executors get the name the driver
/// resolved, so every executor keys by the same tables).
fn runs(design: &str, k: u32) -> PyResult<PrefixRuns> {
    if design == "auto" {
        return Err(Kind::InvalidInput
            .err("executors need a design's name: resolve \"auto\" with design_for first"));
    }
    PrefixRuns::new(resolve(k, 0, design)?, k).map_err(invalid)
}

fn rows(
    tables: &PyReadonlyArray1<'_, i32>,
    fps: &Bound<'_, PyAny>,
) -> PyResult<Vec<(usize, Fingerprint)>> {
    let fps = args::fingerprints(fps)?;
    let tables = tables.as_array();
    if tables.len() != fps.len() {
        return Err(Kind::InvalidInput.err(format!(
            "{} table numbers for {} fingerprints",
            tables.len(),
            fps.len()
        )));
    }
    tables
        .iter()
        .zip(fps)
        .map(|(&table, fp)| {
            usize::try_from(table)
                .map(|table| (table, fp))
                .map_err(|_| Kind::InvalidInput.err(format!("table number {table} is negative")))
        })
        .collect()
}

fn fingerprint_triples(pairs: Vec<(Fingerprint, Fingerprint, u32)>) -> Vec<(u64, u64, u32)> {
    pairs
        .into_iter()
        .map(|(a, b, distance)| (a.0, b.0, distance))
        .collect()
}

fn columns(py: Python<'_>, triples: Vec<(u64, u64, u32)>) -> Columns<'_> {
    let a = triples.iter().map(|triple| triple.0).collect();
    let b = triples.iter().map(|triple| triple.1).collect();
    // Distances are at most MAX_K (7).
    let distance = triples
        .iter()
        .map(|triple| u8::try_from(triple.2).unwrap_or(u8::MAX))
        .collect();
    (
        PyArray1::from_vec(py, a),
        PyArray1::from_vec(py, b),
        PyArray1::from_vec(py, distance),
    )
}

fn invalid(error: fpdb_codec::CodecError) -> PyErr {
    Kind::InvalidInput.err(error.to_string())
}

fn too_many_tables(tables: usize) -> PyErr {
    Kind::InvalidInput.err(format!("{tables} tables do not fit a table column"))
}

impl std::fmt::Debug for PyBatchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchIndex")
            .field("queries", &self.index.len())
            .field("k", &self.k)
            .finish()
    }
}
