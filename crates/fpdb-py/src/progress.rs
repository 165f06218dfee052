//! A Python callable told how far `verify` and `repair` are: called as
//! `progress(phase, done, total)` when a phase begins and as its steps
//! are done (`total` None when the phase has no count). The library
//! tells it in batches, so the GIL is taken now and then, not per step.

use std::sync::{Mutex, PoisonError};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// The callable and where the current phase is.
pub struct PyProgress {
    callback: Py<PyAny>,
    /// The phase's name, total and steps done.
    phase: Mutex<(String, Option<u64>, u64)>,
}

impl PyProgress {
    /// `progress` as given: None, or a callable.
    pub fn new(progress: Option<Bound<'_, PyAny>>) -> PyResult<Option<PyProgress>> {
        match progress {
            None => Ok(None),
            Some(callback) if callback.is_callable() => Ok(Some(PyProgress {
                callback: callback.unbind(),
                phase: Mutex::new((String::new(), None, 0)),
            })),
            Some(_) => Err(PyTypeError::new_err(
                "progress must be None or a callable taking (phase, done, total)",
            )),
        }
    }

    fn tell(&self, (phase, total, done): (String, Option<u64>, u64)) {
        Python::attach(|py| {
            if let Err(error) = self.callback.call1(py, (phase, done, total)) {
                // A failing callback must not stop the check.
                error.write_unraisable(py, Some(self.callback.bind(py)));
            }
        });
    }
}

impl fpdb::Progress for PyProgress {
    fn phase(&self, name: &str, total: Option<u64>) {
        let now = (name.to_string(), total, 0);
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner) = now.clone();
        self.tell(now);
    }

    fn advance(&self, steps: u64) {
        let now = {
            let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
            phase.2 += steps;
            phase.clone()
        };
        self.tell(now);
    }
}

/// The progress to hand the library: the callable's, or none.
pub fn or_none(progress: &Option<PyProgress>) -> &dyn fpdb::Progress {
    match progress {
        Some(progress) => progress,
        None => &(),
    }
}
