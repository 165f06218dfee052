//! fpdb's errors as the exception classes of `fpdb.errors` (defined in
//! Python so that one class can derive from both `fpdb.Error` and
//! `ValueError`).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

static ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LOCKED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ALREADY_EXISTS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static CORRUPT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_INPUT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static LIMIT_EXCEEDED: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static READ_ONLY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NOT_EMPTY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static STORAGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static CLOSED: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The exception classes, by the name `fpdb.errors` gives them.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Error,
    Locked,
    NotFound,
    AlreadyExists,
    Corrupt,
    InvalidInput,
    LimitExceeded,
    ReadOnly,
    NotEmpty,
    Storage,
    Closed,
}

impl Kind {
    fn cell_and_name(self) -> (&'static PyOnceLock<Py<PyType>>, &'static str) {
        match self {
            Kind::Error => (&ERROR, "Error"),
            Kind::Locked => (&LOCKED, "LockedError"),
            Kind::NotFound => (&NOT_FOUND, "NotFoundError"),
            Kind::AlreadyExists => (&ALREADY_EXISTS, "AlreadyExistsError"),
            Kind::Corrupt => (&CORRUPT, "CorruptError"),
            Kind::InvalidInput => (&INVALID_INPUT, "InvalidInputError"),
            Kind::LimitExceeded => (&LIMIT_EXCEEDED, "LimitExceededError"),
            Kind::ReadOnly => (&READ_ONLY, "ReadOnlyError"),
            Kind::NotEmpty => (&NOT_EMPTY, "NotEmptyError"),
            Kind::Storage => (&STORAGE, "StorageError"),
            Kind::Closed => (&CLOSED, "ClosedError"),
        }
    }

    /// An exception of this class with `message`.
    pub fn err(self, message: impl Into<String>) -> PyErr {
        let message = message.into();
        Python::attach(|py| {
            let (cell, name) = self.cell_and_name();
            match cell.import(py, "fpdb.errors", name) {
                Ok(class) => PyErr::from_type(class.clone(), message),
                // Only when the package's Python part is missing.
                Err(error) => PyRuntimeError::new_err(format!("{message} ({error})")),
            }
        })
    }
}

/// The Python exception for a database error.
pub fn to_py(error: fpdb::Error) -> PyErr {
    let message = error.to_string();
    let kind = match &error {
        fpdb::Error::Locked { .. } => Kind::Locked,
        fpdb::Error::NotFound { .. } => Kind::NotFound,
        fpdb::Error::AlreadyExists { .. } => Kind::AlreadyExists,
        fpdb::Error::Corrupt { what, .. } => return corrupt(message, what),
        fpdb::Error::Codec(_) | fpdb::Error::Version { .. } => Kind::Corrupt,
        fpdb::Error::KTooLarge { .. }
        | fpdb::Error::RadiusTooLarge { .. }
        | fpdb::Error::NoFeatures
        | fpdb::Error::SignatureLayout { .. }
        | fpdb::Error::BadId { .. }
        | fpdb::Error::InvalidOptions(_)
        | fpdb::Error::Design(_)
        | fpdb::Error::Simhash(_)
        | fpdb::Error::Html(_) => Kind::InvalidInput,
        fpdb::Error::LimitExceeded { .. } => Kind::LimitExceeded,
        fpdb::Error::ReadOnly => Kind::ReadOnly,
        fpdb::Error::NotEmpty { .. } => Kind::NotEmpty,
        fpdb::Error::Storage { .. } | fpdb::Error::Io { .. } => Kind::Storage,
        _ => Kind::Error,
    };
    kind.err(message)
}

/// A `CorruptError` whose `what` attribute names the damaged part.
fn corrupt(message: String, what: &str) -> PyErr {
    let error = Kind::Corrupt.err(message);
    Python::attach(|py| {
        // Setting an attribute on a fresh exception only fails when memory
        // is exhausted; the message still names the damage then.
        let _ = error.value(py).setattr("what", what);
    });
    error
}
