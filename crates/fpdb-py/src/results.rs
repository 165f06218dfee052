//! What queries return: matches with their ids, and the flat arrays of a
//! batch, whose ids are built only for the rows asked for.

use numpy::PyArray1;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;

/// A stored fingerprint within the asked distance, with every id that has it;
/// under a confirming database's two-stage rule, one document with the
/// estimated resemblance that confirmed it.
#[pyclass(module = "fpdb", name = "Match", frozen, eq, get_all)]
#[derive(Debug, Clone, PartialEq)]
pub struct PyMatch {
    /// The stored fingerprint.
    pub fingerprint: u64,
    /// Its Hamming distance to the query.
    pub distance: u32,
    /// The documents with this fingerprint, in byte order.
    pub ids: Vec<String>,
    /// The estimated resemblance that confirmed the match, or None for a
    /// match by distance alone.
    pub similarity: Option<f64>,
}

#[pymethods]
impl PyMatch {
    #[new]
    #[pyo3(signature = (fingerprint, distance, ids, similarity=None))]
    fn new(fingerprint: u64, distance: u32, ids: Vec<String>, similarity: Option<f64>) -> Self {
        PyMatch {
            fingerprint,
            distance,
            ids,
            similarity,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let ids = self.ids.clone().into_pyobject(py)?.repr()?;
        let similarity = self
            .similarity
            .map_or(String::new(), |s| format!(", similarity={s:.3}"));
        Ok(format!(
            "Match(fingerprint=0x{:016x}, distance={}, ids={ids}{similarity})",
            self.fingerprint, self.distance
        ))
    }
}

impl From<fpdb::Match> for PyMatch {
    fn from(found: fpdb::Match) -> Self {
        PyMatch {
            fingerprint: found.fingerprint.0,
            distance: found.distance,
            ids: found.ids,
            similarity: None,
        }
    }
}

impl From<fpdb::Near> for PyMatch {
    fn from(near: fpdb::Near) -> Self {
        PyMatch {
            fingerprint: near.fingerprint.0,
            distance: near.distance,
            ids: vec![near.id],
            similarity: near.similarity,
        }
    }
}

pub fn matches<M: Into<PyMatch>>(found: Vec<M>) -> Vec<PyMatch> {
    found.into_iter().map(Into::into).collect()
}

/// What `Db.check_and_insert` found before storing the document.
#[pyclass(module = "fpdb", name = "Checked", frozen, get_all)]
#[derive(Debug)]
pub struct PyChecked {
    /// The stored near-duplicates, nearest first, the checked id left out.
    pub matches: Vec<PyMatch>,
    /// The fingerprint this id had before, or None for a new id.
    pub previous: Option<u64>,
    /// The fingerprint now stored for the id.
    pub fingerprint: u64,
}

#[pymethods]
impl PyChecked {
    /// True when another document is within k.
    #[getter]
    fn is_duplicate(&self) -> bool {
        !self.matches.is_empty()
    }

    fn __repr__(&self) -> String {
        let previous = self
            .previous
            .map_or("None".to_string(), |fp| format!("0x{fp:016x}"));
        format!(
            "Checked(fingerprint=0x{:016x}, previous={previous}, matches={})",
            self.fingerprint,
            self.matches.len()
        )
    }
}

/// The answers of `Db.query_many`, one row per (query, match): flat numpy
/// arrays, and the ids of a row on request.
#[pyclass(module = "fpdb", name = "BatchMatches", frozen)]
#[derive(Debug)]
pub struct PyBatchMatches {
    found: Vec<Vec<fpdb::Match>>,
    /// The first row of each query, and one past the last row at the end.
    starts: Vec<usize>,
}

impl PyBatchMatches {
    pub fn new(found: Vec<Vec<fpdb::Match>>) -> Self {
        let mut starts = Vec::with_capacity(found.len() + 1);
        let mut rows = 0;
        starts.push(0);
        for matches in &found {
            rows += matches.len();
            starts.push(rows);
        }
        PyBatchMatches { found, starts }
    }

    fn rows(&self) -> impl Iterator<Item = (usize, &fpdb::Match)> {
        self.found
            .iter()
            .enumerate()
            .flat_map(|(query, matches)| matches.iter().map(move |found| (query, found)))
    }

    fn row(&self, row: usize) -> PyResult<&fpdb::Match> {
        // The query holding `row`: the last whose first row is ≤ row.
        let query = self.starts.partition_point(|&start| start <= row);
        query
            .checked_sub(1)
            .and_then(|query| {
                let start = self.starts.get(query)?;
                self.found.get(query)?.get(row - start)
            })
            .ok_or_else(|| PyIndexError::new_err(format!("row {row} out of range")))
    }
}

#[pymethods]
impl PyBatchMatches {
    /// Rows: matches over all queries.
    fn __len__(&self) -> usize {
        self.starts.last().copied().unwrap_or_default()
    }

    /// The position in the query array of each row's query (uint64).
    #[getter]
    fn query_index<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        let column: Vec<u64> = self.rows().map(|(query, _)| query as u64).collect();
        PyArray1::from_vec(py, column)
    }

    /// Each row's stored fingerprint (uint64).
    #[getter]
    fn fingerprint<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        let column: Vec<u64> = self.rows().map(|(_, found)| found.fingerprint.0).collect();
        PyArray1::from_vec(py, column)
    }

    /// Each row's distance (uint8).
    #[getter]
    fn distance<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let column: Vec<u8> = self
            .rows()
            .map(|(_, found)| u8::try_from(found.distance).unwrap_or(u8::MAX))
            .collect();
        PyArray1::from_vec(py, column)
    }

    /// The ids of one row's fingerprint.
    fn ids(&self, row: usize) -> PyResult<Vec<String>> {
        Ok(self.row(row)?.ids.clone())
    }

    /// The matches of query `query` as `Match` objects.
    fn matches(&self, query: usize) -> PyResult<Vec<PyMatch>> {
        let found = self
            .found
            .get(query)
            .ok_or_else(|| PyIndexError::new_err(format!("query {query} out of range")))?;
        Ok(found.iter().cloned().map(PyMatch::from).collect())
    }

    /// Queries in the batch.
    #[getter]
    fn queries(&self) -> usize {
        self.found.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "BatchMatches(queries={}, rows={})",
            self.found.len(),
            self.__len__()
        )
    }
}

/// Near-duplicate fingerprint pairs of a database: flat arrays, and the ids
/// of a pair on request. A fingerprint shared by several ids appears as a
/// pair with `a == b` and distance 0.
#[pyclass(module = "fpdb", name = "FingerprintPairs", frozen)]
#[derive(Debug)]
pub struct PyFingerprintPairs {
    pairs: Vec<fpdb::FingerprintPair>,
}

impl PyFingerprintPairs {
    pub fn new(pairs: Vec<fpdb::FingerprintPair>) -> Self {
        PyFingerprintPairs { pairs }
    }
}

#[pymethods]
impl PyFingerprintPairs {
    fn __len__(&self) -> usize {
        self.pairs.len()
    }

    /// The smaller fingerprint of each pair (uint64).
    #[getter]
    fn a<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.pairs.iter().map(|pair| pair.a.0).collect())
    }

    /// The larger fingerprint of each pair (uint64).
    #[getter]
    fn b<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.pairs.iter().map(|pair| pair.b.0).collect())
    }

    /// Each pair's distance (uint8).
    #[getter]
    fn distance<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        let column = self
            .pairs
            .iter()
            .map(|pair| u8::try_from(pair.distance).unwrap_or(u8::MAX))
            .collect();
        PyArray1::from_vec(py, column)
    }

    /// The ids of each side of pair `index`.
    fn ids(&self, index: usize) -> PyResult<(Vec<String>, Vec<String>)> {
        let pair = self
            .pairs
            .get(index)
            .ok_or_else(|| PyIndexError::new_err(format!("pair {index} out of range")))?;
        Ok((pair.a_ids.clone(), pair.b_ids.clone()))
    }

    /// Every pair of document ids these fingerprint pairs link.
    fn id_pairs(&self) -> Vec<(String, String)> {
        self.pairs
            .iter()
            .flat_map(|pair| pair.id_pairs())
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect()
    }

    /// Connected components of ids linked by these pairs, each as
    /// `(representative, ids)`; ids without a near-duplicate form none.
    fn clusters(&self) -> Vec<(String, Vec<String>)> {
        fpdb::id_clusters(&self.pairs)
            .into_iter()
            .map(|cluster| (cluster.representative, cluster.ids))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("FingerprintPairs(pairs={})", self.pairs.len())
    }
}
