//! `verify`: a deep check of everything a database stores.
//!
//! Queries trust the block directories, the id column families and the
//! counters; this reads all of them and checks that they agree: every block
//! decodes (checksums verified) and matches its directory entry, every
//! table holds the same fingerprints, every fingerprint in the set has ids
//! and every id points both ways. Damage becomes a [`Problem`] in the
//! report, so one damaged block does not hide the rest; only a failure to
//! read at all (I/O) is an error.

mod ids;
mod report;
mod tables;

use fpdb_codec::BlockDirectory;
use fpdb_simhash::Fingerprint;

use self::report::Findings;
pub use self::report::{Problem, VerifyReport};
use crate::error::Result;
use crate::progress::Progress;
use crate::store::Store;
use crate::tables::Tables;

/// Reads every block, directory, id and counter and checks that they
/// agree; the caller holds the writer lock when there can be writers.
pub(crate) fn verify(
    store: &Store,
    tables: &Tables,
    progress: &dyn Progress,
) -> Result<VerifyReport> {
    let seen = Snapshot::of(tables);
    let mut findings = Findings::default();
    findings.report.tables = tables.design.tables().len();
    let in_blocks = tables::verify_tables(
        store,
        tables,
        (&seen.directories, &seen.table_bytes),
        &mut findings,
        progress,
    )?;
    let set = in_blocks.map(|in_blocks| the_set(&in_blocks, &seen, &mut findings));
    ids::verify_ids(
        store,
        tables,
        (set.as_deref(), seen.ids),
        &mut findings,
        progress,
    )?;
    Ok(findings.report)
}

/// What the stored data is checked against, as the tables held it when
/// the check began.
struct Snapshot {
    directories: Vec<BlockDirectory>,
    table_bytes: Vec<u64>,
    /// The delta's added fingerprints.
    delta_added: Vec<u64>,
    /// The delta's removed fingerprints, sorted.
    delta_removed: Vec<u64>,
    fingerprints: u64,
    ids: u64,
}

impl Snapshot {
    fn of(tables: &Tables) -> Snapshot {
        let state = tables.read();
        let mut delta_removed: Vec<u64> = state.delta.removed_fingerprints().map(|f| f.0).collect();
        delta_removed.sort_unstable();
        Snapshot {
            directories: state.directories.clone(),
            table_bytes: state.table_bytes.clone(),
            delta_added: state
                .delta
                .added_fingerprints(&tables.design)
                .map(|f| f.0)
                .collect(),
            delta_removed,
            fingerprints: state.fingerprints,
            ids: state.ids,
        }
    }
}

/// The set, sorted: the fingerprints in the blocks, with the delta's added
/// ones and without its removed ones; checks that the delta fits the
/// blocks and the set its counter.
fn the_set(in_blocks: &[u64], seen: &Snapshot, findings: &mut Findings) -> Vec<u64> {
    for &fp in &seen.delta_added {
        if in_blocks.binary_search(&fp).is_ok() {
            findings.add(Problem::Fingerprint {
                fingerprint: Fingerprint(fp),
                reason: "pending as added but already in the blocks".into(),
            });
        }
    }
    for &fp in &seen.delta_removed {
        if in_blocks.binary_search(&fp).is_err() {
            findings.add(Problem::Fingerprint {
                fingerprint: Fingerprint(fp),
                reason: "pending as removed but not in the blocks".into(),
            });
        }
    }
    let mut set: Vec<u64> = in_blocks
        .iter()
        .copied()
        .filter(|fp| seen.delta_removed.binary_search(fp).is_err())
        .chain(seen.delta_added.iter().copied())
        .collect();
    set.sort_unstable();
    set.dedup();
    findings.report.fingerprints = set.len() as u64;
    if set.len() as u64 != seen.fingerprints {
        findings.add(Problem::Counter {
            name: "fingerprints",
            stored: seen.fingerprints,
            counted: set.len() as u64,
        });
    }
    set
}
/// `(a ∖ b, b ∖ a)` of two sorted, distinct slices.
fn sorted_difference(a: &[u64], b: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                only_a.push(x);
                i += 1;
            }
            (Some(&x), None) => {
                only_a.push(x);
                i += 1;
            }
            (_, Some(&y)) => {
                only_b.push(y);
                j += 1;
            }
            (None, None) => return (only_a, only_b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sorted_difference;

    #[test]
    fn differences_of_sorted_sets() {
        assert_eq!(
            sorted_difference(&[1, 3, 5, 7], &[2, 3, 7, 9]),
            (vec![1, 5], vec![2, 9])
        );
        assert_eq!(sorted_difference(&[], &[4]), (vec![], vec![4]));
    }
}
