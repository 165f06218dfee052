//! fpdb: a persistent, embedded near-duplicate fingerprint database.
//!
//! Pages become 64-bit simhash fingerprints ([`simhash`]); the database keeps
//! them in permuted, sorted, compressed tables ([`codec`]) stored in RocksDB
//! column families, so that every stored fingerprint within k bits of a
//! query is found by decompressing about one block per table.
//!
//! This crate re-exports the two pure crates it is built on.
#![warn(missing_docs)]

pub use fpdb_codec as codec;
pub use fpdb_simhash as simhash;
pub use fpdb_simhash::{Fingerprint, SimhashOptions, Simhasher};
