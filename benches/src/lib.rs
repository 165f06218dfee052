//! Shared pieces of fpdb's benches and harnesses: a seeded random number
//! generator, real text from the seed articles, and the edits a crawler sees
//! between two copies of one page.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    reason = "bench and harness code: a broken setup should panic loudly"
)]

pub mod articles;
pub mod edits;
pub mod fps_file;
pub mod http;
pub mod latency;
pub use fpdb_rng as rng;

/// The number in environment variable `name` (a bench's size), or
/// `default` when it is unset or not a number.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}
