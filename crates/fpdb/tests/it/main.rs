//! The database's integration tests, one module per concern, in one
//! binary, so that RocksDB is linked once.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers: a failure panics, failing the test that called it"
)]

mod api;
mod backup;
mod batch_and_stats;
mod batch_query;
mod bulk;
mod bulk_budget;
mod common;
mod concurrency;
mod corruption;
mod crash;
mod golden_db;
mod golden_learned_db;
mod group_commit;
mod hostile;
mod learned_weights;
mod model;
mod pairs;
mod progress;
mod repair;
mod rocksdb_smoke;
mod two_stage;
mod verify;
