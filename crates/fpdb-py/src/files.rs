//! Documents read from files by the reader the `fpdb` command uses
//! (`fpdb_input::Inputs`), so a file means the same documents to both.

use std::path::PathBuf;

use fpdb_input::{InputFormat, Inputs, ReadError, Record, Role};
use pyo3::PyErr;

use crate::errors::Kind;

/// `format` as named in Python ("fps", "jsonl", "lines", "files", "html",
/// "warc"); `None` tells each file's format by its name.
pub fn input_format(format: Option<&str>) -> Result<Option<InputFormat>, PyErr> {
    format
        .map(str::parse)
        .transpose()
        .map_err(|error: fpdb_input::UnknownFormat| Kind::InvalidInput.err(error.to_string()))
}

/// Every document of the files, handed to `each` in batches of up to
/// `chunk`. A bad document is an `InvalidInputError` naming `file:line`
/// (`file@offset` in WARC, the path of a whole file); a file that cannot
/// be read a `StorageError`.
pub fn read_files(
    paths: &[PathBuf],
    format: Option<InputFormat>,
    extract: fpdb::Extract,
    chunk: usize,
    mut each: impl FnMut(Vec<Record>) -> Result<(), PyErr>,
) -> Result<(), PyErr> {
    // No paths would be standard input to the reader; here it is nothing.
    if paths.is_empty() {
        return Ok(());
    }
    Inputs::new(paths, format, Role::Store)
        .with_extract(extract)
        .with_chunk(chunk)
        .stream(|records| each(records).map_err(FileError::Python))
        .map_err(FileError::into_py)
}

/// What stops reading files: the reader's error or the caller's.
enum FileError {
    Read(ReadError),
    Python(PyErr),
}

impl From<ReadError> for FileError {
    fn from(error: ReadError) -> Self {
        FileError::Read(error)
    }
}

impl FileError {
    fn into_py(self) -> PyErr {
        match self {
            FileError::Python(error) => error,
            FileError::Read(error @ (ReadError::Bad(_) | ReadError::NeedsPath { .. })) => {
                Kind::InvalidInput.err(error.to_string())
            }
            FileError::Read(error) => Kind::Storage.err(error.to_string()),
        }
    }
}
