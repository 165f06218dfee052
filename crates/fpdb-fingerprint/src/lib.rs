//! The two things every fpdb crate agrees on: a [`Fingerprint`] (64 bits,
//! compared by Hamming distance, written as 16 hex digits) and what a
//! document id may be ([`validate_id`]). It depends on nothing heavy, so
//! the codec and the in-memory dedup build without the simhash's
//! tokenizer and without RocksDB.
//!
//! ```
//! use fpdb_fingerprint::{validate_id, Fingerprint};
//!
//! let a: Fingerprint = "0123456789abcdef".parse()?;
//! let b = Fingerprint(a.0 ^ 0b101);
//! assert_eq!(a.distance(b), 2);
//! assert_eq!(b.to_string(), "0123456789abcdea");
//! assert!(validate_id("https://example.com/a").is_ok());
//! assert!(validate_id("").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod fingerprint;
mod id;
mod weak_bits;

pub use fingerprint::{Fingerprint, ParseFingerprintError};
pub use id::{validate_id, BadId, MAX_ID_BYTES};
pub use weak_bits::{WeakBits, EVERY_SUBSET, MAX_WEAK_BITS_PER_QUARTER, QUARTERS};
