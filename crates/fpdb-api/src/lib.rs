//! The wire format of `fpdb serve`: every request and answer as JSON
//! ([`messages`]), the strict decoding of a request body with errors that
//! name the field at fault ([`decode`]), and the check that a request
//! names exactly one form of its document ([`Source::of`]).
//!
//! It is a crate of its own, without the database or the HTTP stack, so
//! that the server, the command line's client and a fuzz target share
//! one definition of what a request may be, and the fuzz target builds
//! without RocksDB.
#![warn(missing_docs)]

mod content;
mod decode;
mod error;
pub mod messages;

pub use content::{Content, HasContent, Source};
pub use decode::decode;
pub use error::InvalidRequest;
pub use messages::*;
