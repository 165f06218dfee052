//! Python arguments checked into Rust values, with messages that say what
//! was expected: fingerprints are ints in 0..2**64 (or numpy uint64), ids
//! are str.

use fpdb::Fingerprint;
use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};

use crate::errors::Kind;

/// A fingerprint: an int (or anything with `__index__`, such as a numpy
/// integer) in 0..2**64.
pub fn fingerprint(value: &Bound<'_, PyAny>) -> PyResult<Fingerprint> {
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "a fingerprint is an int in 0..2**64, not a bool",
        ));
    }
    match value.extract::<u64>() {
        Ok(fp) => Ok(Fingerprint(fp)),
        Err(error) if error.is_instance_of::<PyOverflowError>(value.py()) => Err(
            PyValueError::new_err(format!("fingerprint {value} is outside 0..2**64")),
        ),
        Err(_) => Err(PyTypeError::new_err(format!(
            "a fingerprint is an int in 0..2**64, not {}",
            type_name(value)
        ))),
    }
}

/// What `check_and_insert` and `bulk_load` accept for a document: a
/// fingerprint, a str of text, or bytes of an HTML page.
pub enum FingerprintOrText {
    Fingerprint(Fingerprint),
    Text(String),
    Html(Vec<u8>),
}

pub fn fingerprint_or_text(value: &Bound<'_, PyAny>) -> PyResult<FingerprintOrText> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(FingerprintOrText::Text(text.to_cow()?.into_owned()));
    }
    if let Ok(html) = value.cast::<PyBytes>() {
        return Ok(FingerprintOrText::Html(html.as_bytes().to_vec()));
    }
    fingerprint(value).map(FingerprintOrText::Fingerprint)
}

/// An extraction name: "main" or "all".
pub fn extract(name: &str) -> PyResult<fpdb::Extract> {
    name.parse()
        .map_err(|error: fpdb::UnknownExtract| Kind::InvalidInput.err(error.to_string()))
}

/// Many fingerprints: a one-dimensional numpy array of uint64 (read without
/// copying element by element), of another integer type with values in
/// range, or any iterable of ints.
pub fn fingerprints(value: &Bound<'_, PyAny>) -> PyResult<Vec<Fingerprint>> {
    if let Ok(array) = value.extract::<PyReadonlyArray1<'_, u64>>() {
        return Ok(match array.as_slice() {
            Ok(slice) => slice.iter().copied().map(Fingerprint).collect(),
            Err(_) => array.as_array().iter().copied().map(Fingerprint).collect(),
        });
    }
    if let Ok(array) = value.cast::<numpy::PyUntypedArray>() {
        if array.ndim() != 1 {
            return Err(PyValueError::new_err(format!(
                "fingerprints must be a one-dimensional array, not {}-dimensional",
                array.ndim()
            )));
        }
    }
    each_item(value, |position, item| {
        fingerprint(item).map_err(|error| at(position, error, value.py()))
    })
}

/// Many strs (ids or texts).
pub fn strings(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if value.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a sequence of str, not a single str"
        )));
    }
    each_item(value, |position, item| {
        let text = item
            .cast::<PyString>()
            .map_err(|_| wrong_item(what, position, item, "str"))?;
        Ok(text.to_cow()?.into_owned())
    })
}

/// Many HTML pages: bytes as received, or str (taken as UTF-8).
pub fn pages(value: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    each_item(value, |position, item| {
        if let Ok(bytes) = item.cast::<PyBytes>() {
            return Ok(bytes.as_bytes().to_vec());
        }
        let text = item
            .cast::<PyString>()
            .map_err(|_| wrong_item("pages", position, item, "bytes or str"))?;
        Ok(text.to_cow()?.as_bytes().to_vec())
    })
}

/// Many strs or Nones.
pub fn optional_strings(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Option<String>>> {
    each_item(value, |position, item| {
        if item.is_none() {
            return Ok(None);
        }
        let text = item
            .cast::<PyString>()
            .map_err(|_| wrong_item(what, position, item, "str or None"))?;
        Ok(Some(text.to_cow()?.into_owned()))
    })
}

/// `convert(position, item)` over the items of an iterable.
fn each_item<T>(
    value: &Bound<'_, PyAny>,
    mut convert: impl FnMut(usize, &Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let mut out = Vec::with_capacity(value.len().unwrap_or(0));
    for (position, item) in value
        .try_iter()
        .map_err(|_| not_a_sequence(value))?
        .enumerate()
    {
        out.push(convert(position, &item?)?);
    }
    Ok(out)
}

fn wrong_item(what: &str, position: usize, item: &Bound<'_, PyAny>, expected: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{what}[{position}] is {}, not {expected}",
        type_name(item)
    ))
}

/// A distance argument: `None` means the database's (or the default) k.
pub fn k_or(k: Option<i64>, default: u32) -> PyResult<u32> {
    match k {
        None => Ok(default),
        Some(k) => u32::try_from(k)
            .map_err(|_| PyValueError::new_err(format!("k = {k}: a distance is 0 to 64 bits"))),
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "an object of unknown type".into())
}

fn not_a_sequence(value: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "expected an array or an iterable, not {}",
        type_name(value)
    ))
}

/// The same error, saying which element was wrong.
fn at(position: usize, error: PyErr, py: Python<'_>) -> PyErr {
    let message = format!("element {position}: {}", error.value(py));
    if error.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(message)
    } else {
        PyValueError::new_err(message)
    }
}
