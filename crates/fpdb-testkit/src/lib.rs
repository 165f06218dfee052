//! Test support shared by fpdb's crates (a dev-dependency only, never
//! published):
//!
//! - [`Rng`]: the seeded generator every randomised test draws from. Its
//!   sequence is fixed: the golden database's recorded answers were drawn
//!   with it, so a change here changes what those tests check.
//! - [`Model`]: what a database should hold (id → fingerprint), with
//!   [`ids_by_fingerprint`] and [`clustered_documents`].
//! - Files: [`copy_dir`], [`temp_copy`], [`memory_temp_dir`], and the
//!   soak knob [`env_rounds`].
//! - With the `db` feature: the brute-force answer `brute_force`, the
//!   checks that a database equals a model (`assert_equals_model`,
//!   `assert_verifies`, `export`), and temporary databases
//!   (`create_temp_db`, `bulk_load`, `small_options`, `live_files`).
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
    assert_equals_model, assert_verifies, brute_force, bulk_load, create_temp_db,
    damage_a_table_file, export, live_files, small_options,
};
pub use files::{
    article_paragraphs, bless_golden_copy, copy_dir, env_rounds, memory_temp_dir, temp_copy,
};
pub use model::{clustered_documents, ids_by_fingerprint, Model};
pub use rng::Rng;
