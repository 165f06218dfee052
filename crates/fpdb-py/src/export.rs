//! `Db.export()`: a Python iterator over every stored (id, fingerprint),
//! read in a background thread that holds its own reference to the
//! database. The thread stops when the iterator is dropped or the handle
//! is closed, so a half-read export never keeps a closed database open.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use fpdb::Db;
use pyo3::exceptions::PyStopIteration;
use pyo3::prelude::*;

use crate::errors::{to_py, Kind};

/// Entries sent to Python at once.
const CHUNK: usize = 4096;
/// Chunks read ahead of the Python consumer.
const READ_AHEAD: usize = 4;

/// How often a reader whose consumer is slow checks for cancellation.
const POLL: Duration = Duration::from_millis(2);

type Chunk = fpdb::Result<Vec<(String, u64)>>;

/// The reader thread of an export, as the handle keeps it to stop it on
/// close.
#[derive(Debug)]
pub struct Reader {
    cancelled: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Reader {
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Stops the thread and waits for it (it then holds no database).
    pub fn stop(self) {
        self.cancelled.store(true, Ordering::Release);
        // A panic in the reader was already reported to its consumer as
        // a closed channel; nothing is left to clean up here.
        let _ = self.thread.join();
    }
}

/// Sends `chunk` unless the export is cancelled first; false when the
/// reader should stop (cancelled, or the iterator was dropped).
fn send(sender: &SyncSender<Chunk>, cancelled: &AtomicBool, mut chunk: Chunk) -> bool {
    loop {
        if cancelled.load(Ordering::Acquire) {
            return false;
        }
        match sender.try_send(chunk) {
            Ok(()) => return true,
            Err(TrySendError::Disconnected(_)) => return false,
            Err(TrySendError::Full(back)) => {
                chunk = back;
                std::thread::sleep(POLL);
            }
        }
    }
}

/// Iterator of `(id, fingerprint)` tuples; see `Db.export`.
#[pyclass(module = "fpdb", name = "Export", frozen)]
#[derive(Debug)]
pub struct PyExport {
    cancelled: Arc<AtomicBool>,
    chunks: Mutex<Receiver<Chunk>>,
    pending: Mutex<VecDeque<(String, u64)>>,
}

impl PyExport {
    pub fn start(db: Arc<Db>) -> PyResult<(PyExport, Reader)> {
        let (sender, chunks) = sync_channel::<Chunk>(READ_AHEAD);
        let cancelled = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&cancelled);
        let thread = std::thread::Builder::new()
            .name("fpdb-export".into())
            .spawn(move || {
                let entries = match db.export() {
                    Ok(entries) => entries,
                    Err(error) => {
                        send(&sender, &stop, Err(error));
                        return;
                    }
                };
                let mut chunk = Vec::with_capacity(CHUNK);
                for entry in entries {
                    match entry {
                        Ok((id, fp)) => chunk.push((id, fp.0)),
                        Err(error) => {
                            send(&sender, &stop, Err(error));
                            return;
                        }
                    }
                    if chunk.len() == CHUNK {
                        let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK));
                        if !send(&sender, &stop, Ok(full)) {
                            return;
                        }
                    }
                }
                if !chunk.is_empty() {
                    send(&sender, &stop, Ok(chunk));
                }
            })
            .map_err(|error| {
                pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "cannot start the export thread: {error}"
                ))
            })?;
        let export = PyExport {
            cancelled: Arc::clone(&cancelled),
            chunks: Mutex::new(chunks),
            pending: Mutex::new(VecDeque::new()),
        };
        Ok((export, Reader { cancelled, thread }))
    }
}

#[pymethods]
impl PyExport {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<(String, u64)> {
        loop {
            if let Some(entry) = self
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front()
            {
                return Ok(entry);
            }
            let next = py.detach(|| {
                self.chunks
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .recv()
            });
            match next {
                Ok(Ok(chunk)) => self
                    .pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend(chunk),
                Ok(Err(error)) => return Err(to_py(error)),
                Err(_) if self.cancelled.load(Ordering::Acquire) => {
                    return Err(Kind::Closed
                        .err("the database was closed before the export was read to its end"))
                }
                // The reader finished and every chunk was taken.
                Err(_) => return Err(PyStopIteration::new_err(())),
            }
        }
    }
}
