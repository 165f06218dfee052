//! The `fpdb` binary's integration tests, one module per concern, in one
//! binary: most run the real `fpdb` in temporary directories or as a
//! `fpdb serve` on 127.0.0.1.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failure panics, failing the test that called it"
)]

mod backup;
mod cli;
mod common;
mod confirm;
mod formats;
mod hostile;
mod html;
mod pairs;
mod progress;
mod readers;
mod repair;
mod report;
mod serve_api;
mod serve_auth;
mod serve_backup;
mod serve_cli;
mod serve_concurrency;
mod serve_jvm;
mod serve_kill;
mod serve_tls;
mod server;
mod session;
mod stream;
mod tune;
