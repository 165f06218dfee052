//! fpdb over HTTP/JSON: one process owns a database and serves every
//! crawler that can speak HTTP (`fpdb serve DB --listen ADDR`).
//!
//! The server is a thin layer over [`fpdb::Db`]: each request is decoded
//! into typed structs ([`api`], the `fpdb-api` crate), its documents become fingerprints exactly
//! as the library makes them ([`document`]), and the library does the work
//! on tokio's blocking threads; single check-and-inserts go to one writer
//! thread, which hands the library every one waiting as a group
//! (`Db::check_and_insert_group`: one writer lock hold, one write, one
//! log sync).
//! Writes from concurrent requests share log syncs (the library's group
//! commit), and check-and-insert is atomic in the library, so of several
//! clients racing to store near-duplicates of one page exactly one is told
//! it saw nothing. A write is answered only
//! once it is durable: the database is opened with `sync`.
//!
//! Why tokio and axum: tokio is the async runtime the Rust HTTP stack is
//! built on (hyper, rustls' tokio-rustls), with a blocking pool that suits
//! a library whose calls block on disk; axum is the tokio project's own
//! router on hyper, so typed extractors, middleware and graceful shutdown
//! come without a second framework's runtime or macros. axum-server adds
//! rustls TLS from certificate files and a shutdown handle to the same
//! hyper connection code.
//!
//! Every failure is answered with a status and a JSON body
//! `{"error": {"kind", "message", "field"}}` ([`ApiError`]); nothing a
//! client sends makes the server panic.
#![warn(missing_docs)]

mod app;
mod auth;
mod document;
mod error;
mod json;
mod limits;
mod merger;
mod metrics;
mod openapi;
mod routes;
mod serve;
mod shutdown;
mod state;
mod tokens;
mod writer;

pub use error::{ApiError, ServeError};
/// The requests and answers (the `fpdb-api` crate).
pub use fpdb_api as api;
pub use limits::Limits;
pub use serve::{init_logs, ServeOptions, Server, Tls};
pub use shutdown::ShutdownHandle;
pub use tokens::{Access, Tokens};
