//! The one probe-and-scan engine: how a query, or a whole table, is
//! matched against a design's tables, wherever their blocks live
//! ([`BlockSource`]). [`crate::MemIndex`] and the database both run it.
//!
//! - [`probe`]: one query against every table; past the design's `k`,
//!   against every table's prefixes within a few bits of the query's
//!   (`wide_probe`).
//! - [`walk_table`]: a sorted batch of queries against one table in one
//!   pass (the paper's batch mode).
//! - [`probe_flips`]: one query against the prefixes its weakest bits
//!   reach when flipped, cheapest first (a budget per table), or its weak
//!   bits ([`weak_bit_flips`]); [`walk_table_flips`]: a sorted batch of
//!   such probes against one table in one pass.
//! - [`PairScan`]: every near pair among one table's keys in one pass;
//!   past the design's `k`, [`wide_pairs_in_table`] over keys in memory.
//!
//! Both report a match only from the first table in which the two
//! fingerprints share the prefix ([`crate::TableMatcher`]), so nothing is
//! de-duplicated afterwards.

mod batch_walk;
mod flip_probe;
mod locate;
mod pair_scan;
mod probe;
mod source;
mod wide_pairs;
mod wide_probe;

pub(crate) use batch_walk::sorted_queries;
pub use batch_walk::{flip_probes, prefix_groups, walk_table, walk_table_flips, RangeReader};
pub use flip_probe::{
    cheapest_flips, probe_flips, probes_weak_bits, reaching_table, table_flips, weak_bit_flips,
};
pub use pair_scan::PairScan;
pub use probe::probe;
pub use source::BlockSource;
pub use wide_pairs::wide_pairs_in_table;
