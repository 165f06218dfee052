//! Parsing the lines fpdb reads: fingerprint lines (`<id>\t<16 hex
//! digits>`), JSON Lines (`{"id": ..., "text": ...}`, `{"id": ...,
//! "html": ...}` or `{"id": ..., "fp": ...}`) and plain text lines, each
//! into a [`Record`] or a [`BadLine`] saying what is wrong.
//!
//! The parsers are pure and panic-free on any bytes, and fuzzed on their
//! own (`fuzz/fuzz_targets/input_lines.rs`); [`read`] opens files and
//! standard input for the `fpdb` command and the Python package alike.
//! Nothing here depends on the database, so it builds in seconds.
//!
//! ```
//! use fpdb_input::{parse_line, LineFormat, Payload, Role};
//!
//! let record = parse_line(LineFormat::Fps, Role::Store, b"page-1\t0123456789abcdef", 1, None)?
//!     .expect("not blank");
//! assert_eq!(record.id, "page-1");
//! assert!(matches!(record.payload, Payload::Fingerprint(fp) if fp.0 == 0x0123_4567_89ab_cdef));
//! # Ok::<(), fpdb_input::BadLine>(())
//! ```
#![warn(missing_docs)]

mod bad_line;
mod line;
pub mod read;
mod record;
pub mod warc;

pub use bad_line::BadLine;
pub use line::{
    check_id, format_fingerprint_line, parse_fingerprint, parse_id_line, parse_line,
    parse_line_with, LineFormat, Role,
};
pub use read::{fingerprints, BadInput, InputFormat, Inputs, ReadError, UnknownFormat};
pub use record::{Payload, Record};
pub use warc::{WarcError, WarcItem, WarcPage, WarcReader};

/// Longest document id, in bytes of UTF-8 (the database's limit).
pub const MAX_ID_BYTES: usize = 1024;
