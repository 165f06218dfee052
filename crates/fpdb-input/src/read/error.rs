//! What can stop reading an input.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A document that cannot be read, and where it is: `file:line` for a
/// line, `file@offset` for a WARC record, the path for a whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput {
    /// `file:line`, `file@offset` or `file`.
    pub location: String,
    /// What is wrong with it.
    pub what: String,
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.what)
    }
}

impl std::error::Error for BadInput {}

/// ` after line N` when a line was read whole before a read failed.
fn after_line(line: u64) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(" after line {line}")
    }
}

/// Why reading inputs stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// An input file that cannot be opened or read whole.
    #[error("{}: cannot open: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Reading an input failed part way (or a gzip stream is broken).
    #[error("{name}: read failed{}: {source}", after_line(*.line))]
    Read {
        /// The input (`<stdin>` for standard input).
        name: String,
        /// The last line read whole (0 before the first, and in WARC input).
        line: u64,
        /// Why.
        source: io::Error,
    },
    /// A bad document (a line, a record or a file), without skipping.
    #[error("{0}")]
    Bad(BadInput),
    /// Standard input given twice where it is read twice.
    #[error("standard input (-) can be given only once")]
    StdinTwice,
    /// A format of whole files given standard input.
    #[error("--input {format} needs file paths, not standard input")]
    NeedsPath {
        /// The format's name.
        format: &'static str,
    },
    /// Standard input could not be saved for a second reading.
    #[error("cannot save standard input to read it twice: {0}")]
    Spool(io::Error),
}
