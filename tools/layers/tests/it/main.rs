//! The layer checker's integration tests, one module per concern, in one
//! binary.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failure panics, failing the test that called it"
)]

mod cycles;
mod workspace;
