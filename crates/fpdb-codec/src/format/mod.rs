//! How every persisted structure is framed, and the one error path for
//! damaged bytes.
//!
//! Each stored structure ([`crate::manifest`], table design, code book, block
//! directory) is one [`frame`]: magic, [`Kind`], version, payload length,
//! payload, xxh3-64 checksum. A decoder asks for the kind it expects and
//! the versions it reads, and gets the payload or a [`crate::CodecError`]
//! naming the structure. Blocks are the exception: they are stored by the
//! million at ~1 KiB each, so they keep their compact 8-byte header, but
//! their version and checksum are checked by the same [`check`] functions
//! and report the same errors. [`legacy`] reads the layouts of database
//! format 1, which only upgrades need.

pub mod check;
pub mod frame;
mod kind;
pub mod legacy;

pub use frame::{claimed_version, decode_frame, encode_frame, FRAME_OVERHEAD};
pub use kind::Kind;
