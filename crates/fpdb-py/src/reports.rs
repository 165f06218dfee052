//! The reports as dicts: the library's one JSON shape of each (what `fpdb
//! ... --format json` prints), read by Python's `json` module, so both
//! have the same keys. Fingerprints, hex in JSON, become ints here.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::Kind;

/// `report` as a dict of its JSON shape.
pub fn to_dict<'py>(
    py: Python<'py>,
    report: &impl serde::Serialize,
) -> PyResult<Bound<'py, PyDict>> {
    let text = serde_json::to_string(report).map_err(|error| Kind::Error.err(error.to_string()))?;
    let value = py.import("json")?.call_method1("loads", (text,))?;
    Ok(value.cast_into::<PyDict>()?)
}

/// A repair report as a dict, its lost fingerprints as ints.
pub fn repair_dict<'py>(
    py: Python<'py>,
    report: &fpdb::RepairReport,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = to_dict(py, report)?;
    let lost: Vec<u64> = report.lost_fingerprints.iter().map(|fp| fp.0).collect();
    dict.set_item("lost_fingerprints", PyList::new(py, lost)?)?;
    Ok(dict)
}
