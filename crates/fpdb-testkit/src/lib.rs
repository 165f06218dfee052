//! Test support shared by fpdb's crates (a dev-dependency only, never
//! published):
//!
//! - [`Rng`]: the seeded generator every randomised test draws from. Its
//!   sequence is fixed: the golden database's recorded answers were drawn
//!   with it, so a change here changes what those tests check.
//! - [`Model`]: what a database should hold (id → fingerprint), with
//!   [`ids_by_fingerprint`], and documents to fill it with
//!   ([`clustered_documents`], [`spread_documents`]).
//! - Files: [`repo_dir`] (the repository's data and docs), [`copy_dir`],
//!   [`temp_copy`], [`memory_temp_dir`], damage to files
//!   ([`flip_64_bytes_in_the_middle`], [`damage_the_largest_file`]), and
//!   the soak knob [`env_rounds`].
//! - With the `db` feature: the brute-force answer `brute_force`, the
//!   checks that a database equals a model (`assert_equals_model`,
//!   `assert_verifies`, `export`), and temporary databases
//!   (`create_temp_db`, `bulk_load`, `small_options`); beneath fpdb, the
//!   database's RocksDB opened directly (`open_raw`, `open_raw_read_only`)
//!   with its tables' block keys (`block_keys`) and live files
//!   (`live_files`, `damage_a_table_file`), to read or damage what fpdb
//!   wrote.
//!
//! The `db` feature is off by default: it brings `fpdb` and so RocksDB,
//! which the pure crates' tests (fpdb-codec) must not need.
//!
//! This is test code: a helper that meets an error panics with what it was
//! doing, failing the test that called it.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test support: a helper that fails panics, failing its test"
)]

mod files;
mod model;
mod rng;

#[cfg(feature = "db")]
mod db;

#[cfg(feature = "db")]
pub use db::{
    assert_equals_model, assert_verifies, block_keys, brute_force, bulk_load, bulk_load_within,
    create_temp_db, damage_a_table_file, export, fill_logs_for_reuse, live_files, newest_log,
    open_raw, open_raw_read_only, small_options,
};
pub use files::{
    article_paragraphs, bless_golden_copy, copy_dir, damage_the_largest_file, env_rounds,
    flip_64_bytes_in_the_middle, memory_temp_dir, repo_dir, temp_copy,
};
pub use model::{clustered_documents, ids_by_fingerprint, spread, spread_documents, Model};
pub use rng::Rng;
