//! What `verify` reports: the problems it found, at most
//! [`MAX_EXAMPLES`] of each kind listed.

use std::fmt;

use fpdb_simhash::Fingerprint;

use crate::error::{Error, Result};
use crate::store::{Entry, Family};

/// Problems listed per kind before the rest are only counted, so that a
/// badly damaged database gives a readable report.
const MAX_EXAMPLES: usize = 20;

/// What [`crate::Db::verify`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Tables checked.
    pub tables: usize,
    /// Blocks read and decoded, over all tables.
    pub blocks: u64,
    /// Distinct fingerprints in the set (blocks, delta added, delta removed).
    pub fingerprints: u64,
    /// Document ids in `id_fp`.
    pub ids: u64,
    /// Everything that is wrong; empty for a healthy database.
    pub problems: Vec<Problem>,
    /// Problems found beyond those listed (per kind, at most 20 are listed).
    pub unlisted_problems: u64,
}

impl VerifyReport {
    /// True when nothing is wrong.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty() && self.unlisted_problems == 0
    }
}

/// One thing that is wrong, naming where.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A block of a table: unreadable, misplaced, or disagreeing with the
    /// directory. `block` is its index in the directory, `None` for a
    /// stored block the directory does not list.
    Block {
        /// The table's index.
        table: usize,
        /// The block's index in the directory.
        block: Option<usize>,
        /// The block's key: its last permuted key.
        key: u64,
        /// What is wrong.
        reason: String,
    },
    /// A whole table (its fingerprint set, its byte count, its column family).
    Table {
        /// The table's index.
        table: usize,
        /// What is wrong.
        reason: String,
    },
    /// A fingerprint of the set, or one with ids that is not in the set.
    Fingerprint {
        /// The fingerprint.
        fingerprint: Fingerprint,
        /// What is wrong.
        reason: String,
    },
    /// A document id's entries in `id_fp` and `fp_ids`.
    Id {
        /// The id (lossily decoded if it is not UTF-8).
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// Damage below fpdb's data: a file of the storage engine that cannot
    /// be read, or a database that does not open.
    Storage {
        /// What is damaged: a file, or the database as a whole.
        what: String,
        /// What is wrong, as the storage engine says it.
        reason: String,
    },
    /// A stored counter that disagrees with what was counted.
    Counter {
        /// Which counter.
        name: &'static str,
        /// Its stored value.
        stored: u64,
        /// The value counted.
        counted: u64,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Block {
                table,
                block: Some(block),
                key,
                reason,
            } => write!(f, "table {table}, block {block} (key {key:016x}): {reason}"),
            Problem::Block {
                table,
                block: None,
                key,
                reason,
            } => write!(f, "table {table}, block with key {key:016x}: {reason}"),
            Problem::Table { table, reason } => write!(f, "table {table}: {reason}"),
            Problem::Fingerprint {
                fingerprint,
                reason,
            } => write!(f, "fingerprint {fingerprint}: {reason}"),
            Problem::Id { id, reason } => write!(f, "id {id:?}: {reason}"),
            Problem::Storage { what, reason } => write!(f, "{what}: {reason}"),
            Problem::Counter {
                name,
                stored,
                counted,
            } => write!(f, "counter {name}: stored {stored}, counted {counted}"),
        }
    }
}

/// Collects problems, listing at most [`MAX_EXAMPLES`] of each kind.
#[derive(Default)]
pub(super) struct Findings {
    pub report: VerifyReport,
    listed: [usize; 6],
}

impl Findings {
    /// Problems found so far, listed or not.
    pub fn count(&self) -> u64 {
        self.report.problems.len() as u64 + self.report.unlisted_problems
    }

    pub fn add(&mut self, problem: Problem) {
        let kind = match problem {
            Problem::Block { .. } => 0,
            Problem::Table { .. } => 1,
            Problem::Fingerprint { .. } => 2,
            Problem::Id { .. } => 3,
            Problem::Counter { .. } => 4,
            Problem::Storage { .. } => 5,
        };
        match self.listed.get_mut(kind) {
            Some(listed) if *listed < MAX_EXAMPLES => {
                *listed += 1;
                self.report.problems.push(problem);
            }
            _ => self.report.unlisted_problems += 1,
        }
    }
}

/// An entry of a scan of `family`, or `None` once the family cannot be
/// read past it (reported: damage the store detects is a finding,
/// anything else an error).
pub(super) fn readable(
    entry: Result<Entry>,
    family: Family,
    findings: &mut Findings,
) -> Result<Option<Entry>> {
    match entry {
        Ok(entry) => Ok(Some(entry)),
        Err(error) => {
            let reason = damage_or_err(error)?;
            findings.add(Problem::Id {
                id: String::new(),
                reason: format!("{} cannot be read past here: {reason}", family.name()),
            });
            Ok(None)
        }
    }
}

/// The store's checksums failing is damage to report; anything else (I/O,
/// a closed handle) stops the check.
pub(super) fn damage_or_err(error: Error) -> Result<String> {
    match error {
        Error::Corrupt { reason, .. } => {
            Ok(format!("the storage engine reports corruption: {reason}"))
        }
        other => Err(other),
    }
}
