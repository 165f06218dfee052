//! The codec's integration tests, one module per concern, in one binary.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failure panics, failing the test that called it"
)]

mod bits_per_key;
mod block_codec;
mod completeness;
mod fuzz_regressions;
mod mem_index;
mod merge_plan;
