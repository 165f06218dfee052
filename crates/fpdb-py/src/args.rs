//! Python arguments checked into Rust values, with messages that say what
//! was expected: fingerprints are ints in 0..2**64 (or numpy uint64), ids
//! are str.

use fpdb::simhash::{Tokenizer, Weighting};
use fpdb::{Confirmation, Fingerprint, SimhashOptions};
use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyDeprecationWarning, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyString};

use crate::errors::{to_py, Kind};

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

/// A document, of the kind its caller said: a fingerprint (`fp=`), text
/// (`text=`) or an HTML page (`html=`, with its `content_type=`).
pub enum Document {
    Fingerprint(Fingerprint),
    Text(String),
    Html {
        page: Vec<u8>,
        content_type: Option<String>,
    },
}

/// The document of a call taking `fp`, `text`, `html` (and
/// `content_type`): exactly one of them. `fp` may still be a str or bytes
/// given by position, the older spelling, whose kind was guessed from its
/// type (a str as text, bytes as a page): that works, with a
/// DeprecationWarning.
pub fn document(
    py: Python<'_>,
    fp: Option<&Bound<'_, PyAny>>,
    text: Option<&Bound<'_, PyAny>>,
    html: Option<&Bound<'_, PyAny>>,
    content_type: Option<&str>,
) -> PyResult<Document> {
    let content_type = content_type.map(str::to_owned);
    let document = match (fp, text, html) {
        (Some(fp), None, None) => {
            if let Ok(text) = fp.cast::<PyString>() {
                deprecated(py, GUESSED_TEXT)?;
                Document::Text(text.to_cow()?.into_owned())
            } else if let Ok(page) = fp.cast::<PyBytes>() {
                deprecated(py, GUESSED_HTML)?;
                Document::Html {
                    page: page.as_bytes().to_vec(),
                    content_type: content_type.clone(),
                }
            } else {
                Document::Fingerprint(fingerprint(fp)?)
            }
        }
        (None, Some(text), None) => Document::Text(
            text.cast::<PyString>()
                .map_err(|_| {
                    PyTypeError::new_err(format!("text must be a str, not {}", type_name(text)))
                })?
                .to_cow()?
                .into_owned(),
        ),
        (None, None, Some(page)) => Document::Html {
            page: html_bytes(page).map_err(|_| {
                PyTypeError::new_err(format!(
                    "html must be bytes or a str, not {}",
                    type_name(page)
                ))
            })?,
            content_type: content_type.clone(),
        },
        (None, None, None) => {
            return Err(PyTypeError::new_err(
                "give the document as fp= (a fingerprint), text= or html=",
            ))
        }
        _ => {
            return Err(PyTypeError::new_err(
                "give one of fp=, text= and html=, not several",
            ))
        }
    };
    if content_type.is_some() && !matches!(document, Document::Html { .. }) {
        return Err(PyTypeError::new_err(
            "content_type is the HTTP header of an html= page",
        ));
    }
    Ok(document)
}

const GUESSED_TEXT: &std::ffi::CStr =
    c"a str given by position is read as plain text; say which it is: text=... for text, html=... for an HTML page (str or bytes)";
const GUESSED_HTML: &std::ffi::CStr =
    c"bytes given by position are read as an HTML page; say so: html=... (str or bytes)";

/// A DeprecationWarning pointing at the caller's line.
pub fn deprecated(py: Python<'_>, message: &std::ffi::CStr) -> PyResult<()> {
    let category = py.get_type::<PyDeprecationWarning>();
    PyErr::warn(py, category.as_any(), message, 1)
}

/// An HTML page given as bytes (as received) or as a str (already
/// decoded). A str goes on as UTF-8 behind a UTF-8 byte-order mark, which
/// outranks any charset the page or a header declares: the same page
/// gives the same text, and fingerprint, either way.
pub fn html_bytes(value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    let text = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "an HTML page is bytes or a str, not {}",
            type_name(value)
        ))
    })?;
    let text = text.to_cow()?;
    let mut page = Vec::with_capacity(UTF8_BOM.len() + text.len());
    page.extend_from_slice(UTF8_BOM);
    page.extend_from_slice(text.as_bytes());
    Ok(page)
}

const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

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

/// Many HTML pages: bytes as received, or str (already decoded; see
/// [`html_bytes`]).
pub fn pages(value: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    each_item(value, |position, item| {
        html_bytes(item).map_err(|_| wrong_item("pages", position, item, "bytes or str"))
    })
}

/// Many strs or Nones.
/// The `content_types` of `pages` pages: one each, or none at all (every
/// page's charset then found from its bytes).
pub fn content_types(
    value: Option<&Bound<'_, PyAny>>,
    pages: usize,
) -> PyResult<Vec<Option<String>>> {
    let content_types = match value {
        Some(types) => optional_strings(types, "content_types")?,
        None => vec![None; pages],
    };
    if content_types.len() != pages {
        return Err(Kind::InvalidInput.err(format!(
            "{} content types for {pages} pages",
            content_types.len()
        )));
    }
    Ok(content_types)
}

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

/// Simhash options from the names the CLI uses (`jieba`, `words`,
/// `chars:N`; `tf`, `tfidf`, `tfidf:N`).
pub fn simhash_options(tokenizer: Option<&str>, weights: Option<&str>) -> PyResult<SimhashOptions> {
    let mut options = SimhashOptions::default();
    if let Some(name) = tokenizer {
        options.tokenizer = name
            .parse::<Tokenizer>()
            .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
    }
    if let Some(name) = weights {
        if name.starts_with("learned") {
            return Err(Kind::InvalidInput.err(format!(
                "weights {name:?}: learned weights are learned from texts: Db.create(path, weights=\"learned\", learn_from=texts)"
            )));
        }
        options.weighting = name
            .parse::<Weighting>()
            .map_err(|error| Kind::InvalidInput.err(error.to_string()))?;
    }
    Ok(options)
}

/// The two-stage rule `Db.create` and `dedup` are asked for, as their
/// keyword arguments give it.
pub struct ConfirmArgs {
    pub confirm: bool,
    pub radius: Option<u32>,
    pub threshold: Option<f64>,
    pub weak_bits: Option<u32>,
    pub min_shared: Option<u16>,
    /// Percent of digits from which a text's numbers count in its
    /// signature.
    pub numbers_from: Option<u16>,
}

/// The confirmation `Db.create` and `dedup` ask for: the recommended one
/// with what `args` change, or none without `confirm`.
pub fn confirmation(args: &ConfirmArgs) -> PyResult<Option<Confirmation>> {
    if !args.confirm {
        if args.radius.is_some()
            || args.threshold.is_some()
            || args.weak_bits.is_some()
            || args.min_shared.is_some()
            || args.numbers_from.is_some()
        {
            return Err(Kind::InvalidInput.err(
                "confirm_radius, confirm_threshold, confirm_weak_bits, confirm_min_shared and \
                 confirm_numbers_from need confirm=True"
                    .to_string(),
            ));
        }
        return Ok(None);
    }
    let recommended = Confirmation::recommended();
    let threshold = args.threshold.unwrap_or(recommended.threshold());
    let radius = args.radius.unwrap_or(recommended.radius());
    let weak_bits = args.weak_bits.unwrap_or(recommended.weak_bits());
    let min_shared = args.min_shared.unwrap_or(recommended.min_shared());
    let numbers_from = match args.numbers_from {
        Some(percent) if percent > 100 => {
            return Err(Kind::InvalidInput.err(format!(
                "confirm_numbers_from={percent} is a percentage, 0 to 100"
            )))
        }
        Some(percent) => percent * 10,
        None => recommended.numbers_from_permille(),
    };
    recommended
        .with_threshold_and_radius(threshold, radius)
        .and_then(|c| c.with_weak_bits(weak_bits))
        .and_then(|c| {
            c.with_min_shared(min_shared)
                .with_numbers_from(numbers_from)
        })
        .map(Some)
        .map_err(to_py)
}
