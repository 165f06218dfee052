//! Choosing near-duplicate settings on a sample of one's own text.
//!
//! A crawler's copies differ from their originals in known ways: typos, a
//! portal's header and footer, changed dates and counters, a dropped
//! sentence, a mirror doing all of it ([`EditKind`]). [`Planted`] plants
//! one copy of each kind into real text, so every pair of its texts is
//! known to be a copy or not; [`Score`] says how well a setting's pairs
//! match that truth; [`recall_against_false_matches`] draws settings side
//! by side. `fpdb tune` runs the database's own settings through these,
//! and the quality report plants and draws with the same code.
//!
//! Pure: no database and no files, so the quality report builds without
//! RocksDB.

mod distinct;
mod edits;
mod figure;
mod lang;
mod planted;
mod score;

pub use distinct::{shingles, Distinct, REPOST_SHARE};
pub use edits::EditKind;
pub use figure::{recall_against_false_matches, Curve, CurvePoint, FigureError};
pub use lang::{is_han, sentences, Lang};
pub use planted::{Planted, PlantedCopy};
pub use score::Score;
