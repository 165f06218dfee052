//! The page extractor's integration tests.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failure panics, failing the test that called it"
)]

mod pages;
