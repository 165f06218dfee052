//! The fingerprints' integration tests, one module per concern, in one
//! binary.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failure panics, failing the test that called it"
)]

mod behaviour;
mod common;
mod common_features;
mod golden;
mod learned;
mod signature;
