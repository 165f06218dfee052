//! `verify`: a deep check of everything a database stores.
//!
//! Queries trust the block directories, the id column families and the
//! counters; this reads all of them and checks that they agree: every block
//! decodes (checksums verified) and matches its directory entry, every
//! table holds the same fingerprints, every fingerprint in the set has ids
//! and every id points both ways. Damage becomes a [`Problem`] in the
//! report, so one damaged block does not hide the rest; only a failure to
//! read at all (I/O) is an error.

use std::fmt;

use fpdb_codec::{BlockDecoder, BlockDirectory, ChecksumPolicy};
use fpdb_simhash::Fingerprint;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use crate::error::{Error, Result};
use crate::progress::{Progress, Steps};
use crate::store::{decode_block_key, Entry, Family, Key, Malformed, Record, Store};
use crate::tables::Tables;

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
struct Findings {
    report: VerifyReport,
    listed: [usize; 6],
}

impl Findings {
    /// Problems found so far, listed or not.
    fn count(&self) -> u64 {
        self.report.problems.len() as u64 + self.report.unlisted_problems
    }

    fn add(&mut self, problem: Problem) {
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
fn readable(
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
fn damage_or_err(error: Error) -> Result<String> {
    match error {
        Error::Corrupt { reason, .. } => {
            Ok(format!("the storage engine reports corruption: {reason}"))
        }
        other => Err(other),
    }
}

/// What one table's blocks hold.
struct TableContents {
    /// Original (unpermuted) fingerprints, sorted.
    fingerprints: Vec<u64>,
    /// False when some block could not be read: the set is incomplete.
    complete: bool,
}

/// Reads every block, directory, id and counter and checks that they
/// agree; the caller holds the writer lock when there can be writers.
pub(crate) fn verify(
    store: &Store,
    tables: &Tables,
    progress: &dyn Progress,
) -> Result<VerifyReport> {
    let (directories, table_bytes, delta_added, mut delta_removed, fingerprints, ids) = {
        let state = tables.read();
        (
            state.directories.clone(),
            state.table_bytes.clone(),
            state
                .delta
                .added_fingerprints(&tables.design)
                .map(|f| f.0)
                .collect::<Vec<_>>(),
            state
                .delta
                .removed_fingerprints()
                .map(|f| f.0)
                .collect::<Vec<_>>(),
            state.fingerprints,
            state.ids,
        )
    };
    delta_removed.sort_unstable();
    let mut findings = Findings::default();
    findings.report.tables = tables.design.tables().len();

    let mut reference: Option<(usize, Vec<u64>)> = None;
    let blocks = directories.iter().map(|d| d.len() as u64).sum();
    progress.phase("blocks", Some(blocks));
    for (index, directory) in directories.iter().enumerate() {
        let stored_bytes = table_bytes.get(index).copied();
        let contents = verify_table(
            store,
            tables,
            index,
            directory,
            stored_bytes,
            &mut findings,
            progress,
        )?;
        if !contents.complete {
            findings.add(Problem::Table {
                table: index,
                reason: "not compared with the other tables: some blocks are unreadable".into(),
            });
            continue;
        }
        match &reference {
            None => reference = Some((index, contents.fingerprints)),
            Some((reference_index, expected)) => compare_sets(
                index,
                *reference_index,
                expected,
                &contents.fingerprints,
                &mut findings,
            ),
        }
    }

    // The set: blocks ∪ delta added ∖ delta removed.
    let mut set = Vec::new();
    if let Some((_, in_blocks)) = &reference {
        for &fp in &delta_added {
            if in_blocks.binary_search(&fp).is_ok() {
                findings.add(Problem::Fingerprint {
                    fingerprint: Fingerprint(fp),
                    reason: "pending as added but already in the blocks".into(),
                });
            }
        }
        for &fp in &delta_removed {
            if in_blocks.binary_search(&fp).is_err() {
                findings.add(Problem::Fingerprint {
                    fingerprint: Fingerprint(fp),
                    reason: "pending as removed but not in the blocks".into(),
                });
            }
        }
        set = in_blocks
            .iter()
            .copied()
            .filter(|fp| delta_removed.binary_search(fp).is_err())
            .chain(delta_added.iter().copied())
            .collect();
        set.sort_unstable();
        set.dedup();
        findings.report.fingerprints = set.len() as u64;
        if set.len() as u64 != fingerprints {
            findings.add(Problem::Counter {
                name: "fingerprints",
                stored: fingerprints,
                counted: set.len() as u64,
            });
        }
    }

    let before_scans = findings.count();
    let signature_bytes = tables
        .confirmation
        .as_ref()
        .map(|confirmation| confirmation.layout().bytes());
    // Each half of the id map holds an entry per id.
    progress.phase("ids", Some(ids.saturating_mul(2)));
    let fp_ids = scan_fp_ids(store, signature_bytes, &mut findings, progress)?;
    let id_fp = scan_id_fp(store, &mut findings, progress)?;
    let scans_clean = findings.count() == before_scans;
    if reference.is_some() {
        compare_with_ids(&set, &fp_ids.fingerprints, &mut findings);
    }
    let counted_ids = id_fp.ids;
    // Both families hold sets of (id, fingerprint) pairs, equal when the
    // families agree. Equal counts and sums of the pairs' 128-bit hashes
    // say so after two scans in key order; looking every id up in the
    // other family (a random read each: minutes at 10M ids) is only
    // needed to name the ids that disagree.
    if !scans_clean || fp_ids.pairs != id_fp.pairs {
        progress.phase("ids looked up", None);
        find_fp_ids_without_id_fp(store, &mut findings)?;
        find_ids_without_fp_ids(store, &mut findings)?;
    }
    findings.report.ids = counted_ids;
    if counted_ids != ids {
        findings.add(Problem::Counter {
            name: "ids",
            stored: ids,
            counted: counted_ids,
        });
    }
    Ok(findings.report)
}

/// Reads table `index`'s column family beside its directory.
fn verify_table(
    store: &Store,
    tables: &Tables,
    index: usize,
    directory: &BlockDirectory,
    stored_bytes: Option<u64>,
    findings: &mut Findings,
    progress: &dyn Progress,
) -> Result<TableContents> {
    let table = tables.design.tables().get(index);
    let code = tables.codes.get(index);
    let (Some(table), Some(code)) = (table, code) else {
        findings.add(Problem::Table {
            table: index,
            reason: "no table design or code book for it in the manifest".into(),
        });
        return Ok(TableContents {
            fingerprints: Vec::new(),
            complete: false,
        });
    };
    let permutation = table.permutation();
    let decoder = BlockDecoder::new(code, ChecksumPolicy::Verify);
    let mut contents = TableContents {
        fingerprints: Vec::new(),
        complete: true,
    };
    let mut listed = directory.last_keys().iter().copied().enumerate().peekable();
    let mut previous_last: Option<u64> = None;
    let mut bytes = 0u64;
    let mut keys = Vec::new();
    let mut steps = Steps::new(progress);
    for entry in store.entries(Family::Table(index))? {
        steps.step();
        let (key, value) = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let reason = damage_or_err(error)?;
                findings.add(Problem::Table {
                    table: index,
                    reason,
                });
                contents.complete = false;
                // The iterator cannot go past the damage; what the
                // directory lists beyond it is unchecked.
                return Ok(contents);
            }
        };
        let block_key = match decode_block_key(&key) {
            Ok(block_key) => block_key,
            Err(malformed) => {
                findings.add(Problem::Table {
                    table: index,
                    reason: malformed.to_string(),
                });
                continue;
            }
        };
        // Directory entries before this key have no block.
        while let Some(&(block, last)) = listed.peek() {
            if last >= block_key {
                break;
            }
            findings.add(missing_from_store(index, block, last));
            contents.complete = false;
            listed.next();
        }
        let block = match listed.peek() {
            Some(&(block, last)) if last == block_key => {
                listed.next();
                block
            }
            _ => {
                findings.add(Problem::Block {
                    table: index,
                    block: None,
                    key: block_key,
                    reason: "stored but not listed in the directory".into(),
                });
                continue;
            }
        };
        bytes += value.len() as u64;
        let damaged = |reason: String| Problem::Block {
            table: index,
            block: Some(block),
            key: block_key,
            reason,
        };
        if let Err(error) = decoder.decode(&value, &mut keys) {
            findings.add(damaged(format!("does not decode: {error}")));
            contents.complete = false;
            continue;
        }
        findings.report.blocks += 1;
        let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
            findings.add(damaged("holds no keys".into()));
            continue;
        };
        if last != block_key {
            findings.add(damaged(format!(
                "its last key is {last:016x}, not the key it is stored under"
            )));
        }
        if let Some(&bound) = directory.first_keys().get(block) {
            if first < bound {
                findings.add(damaged(format!(
                    "its first key {first:016x} is below the directory's {bound:016x}: queries would skip it"
                )));
            }
        }
        if let Some(previous) = previous_last {
            if first <= previous {
                findings.add(damaged(format!(
                        "its first key {first:016x} is not above the previous block's last key {previous:016x}"
                    )));
            }
        }
        previous_last = Some(last);
        contents
            .fingerprints
            .extend(keys.iter().map(|&k| permutation.inverse(k)));
    }
    for (block, last) in listed {
        findings.add(missing_from_store(index, block, last));
        contents.complete = false;
    }
    match stored_bytes {
        Some(stored) if contents.complete && bytes != stored => {
            findings.add(Problem::Counter {
                name: "table bytes",
                stored,
                counted: bytes,
            });
        }
        None => findings.add(Problem::Table {
            table: index,
            reason: "its byte count is missing".into(),
        }),
        _ => {}
    }
    contents.fingerprints.sort_unstable();
    let before = contents.fingerprints.len();
    contents.fingerprints.dedup();
    if contents.fingerprints.len() != before {
        findings.add(Problem::Table {
            table: index,
            reason: format!(
                "{} fingerprints are stored twice",
                before - contents.fingerprints.len()
            ),
        });
    }
    Ok(contents)
}

/// The (id, fingerprint) pairs a family holds, as a count and an
/// order-independent digest: the wrapping sum of each pair's xxh3-128
/// (the id's, seeded with the fingerprint).
#[derive(Debug, Default, PartialEq, Eq)]
struct Pairs {
    entries: u64,
    digest: u128,
}

impl Pairs {
    /// The fingerprint seeds the id's hash: no copy of the pair per entry.
    fn add(&mut self, id: &[u8], fp: u64) {
        self.entries += 1;
        self.digest = self.digest.wrapping_add(xxh3_128_with_seed(id, fp));
    }
}

/// The fingerprint and id of an `fp_ids` key (its value is not read).
fn fp_ids_entry(key: &[u8]) -> Result<(Fingerprint, &[u8]), Malformed> {
    match Record::decode(Family::FpToIds, key, &[])? {
        Record::FpId { fp, id, .. } => Ok((fp, id)),
        _ => Err(Malformed::Id),
    }
}

/// Reads every `fp_ids` entry: the fingerprints with ids, and the pairs.
/// Each value must be empty (a bare fingerprint) or a signature of
/// `signature_bytes`, the database's layout.
fn scan_fp_ids(
    store: &Store,
    signature_bytes: Option<usize>,
    findings: &mut Findings,
    progress: &dyn Progress,
) -> Result<FpIdsScan> {
    let mut with_ids: Vec<u64> = Vec::new();
    let mut pairs = Pairs::default();
    let mut steps = Steps::new(progress);
    for entry in store.entries(Family::FpToIds)? {
        let Some((key, value)) = readable(entry, Family::FpToIds, findings)? else {
            break;
        };
        steps.step();
        let (fp, id) = match fp_ids_entry(&key) {
            Ok(entry) => entry,
            Err(malformed) => {
                findings.add(Problem::Id {
                    id: String::from_utf8_lossy(&key).into_owned(),
                    reason: malformed.to_string(),
                });
                continue;
            }
        };
        if !value.is_empty() && Some(value.len()) != signature_bytes {
            findings.add(Problem::Id {
                id: String::from_utf8_lossy(id).into_owned(),
                reason: format!(
                    "a signature of {} bytes where the database keeps {}",
                    value.len(),
                    signature_bytes.map_or("none".to_string(), |bytes| format!("{bytes}"))
                ),
            });
        }
        if with_ids.last() != Some(&fp.0) {
            with_ids.push(fp.0);
        }
        pairs.add(id, fp.0);
    }
    Ok(FpIdsScan {
        fingerprints: with_ids,
        pairs,
    })
}

/// Names every `fp_ids` entry whose id `id_fp` does not map to its
/// fingerprint.
fn find_fp_ids_without_id_fp(store: &Store, findings: &mut Findings) -> Result<()> {
    for entry in store.entries(Family::FpToIds)? {
        // What cannot be read or decoded was reported by `scan_fp_ids`.
        let Ok((key, _)) = entry else {
            break;
        };
        let Ok((fp, id)) = fp_ids_entry(&key) else {
            continue;
        };
        let name = String::from_utf8_lossy(id);
        match store.fingerprint_of(&name) {
            Ok(Some(stored)) if stored == fp => {}
            Ok(Some(_)) => findings.add(Problem::Id {
                id: name.into_owned(),
                reason: format!("listed under fingerprint {fp} in fp_ids, but id_fp holds another"),
            }),
            Ok(None) => findings.add(Problem::Id {
                id: name.into_owned(),
                reason: format!("listed under fingerprint {fp} in fp_ids, but missing from id_fp"),
            }),
            Err(error) => findings.add(Problem::Id {
                id: name.into_owned(),
                reason: damage_or_err(error)?,
            }),
        }
    }
    Ok(())
}

/// What [`scan_id_fp`] saw.
struct IdFpScan {
    /// Entries read, decodable or not.
    ids: u64,
    /// The (id, fingerprint) pairs of the entries that decoded.
    pairs: Pairs,
}

/// Reads every `id_fp` entry, checking that it decodes.
fn scan_id_fp(store: &Store, findings: &mut Findings, progress: &dyn Progress) -> Result<IdFpScan> {
    let mut pairs = Pairs::default();
    let mut ids = 0u64;
    let mut steps = Steps::new(progress);
    for entry in store.entries(Family::IdToFp)? {
        let Some((key, value)) = readable(entry, Family::IdToFp, findings)? else {
            break;
        };
        steps.step();
        ids += 1;
        match Record::decode(Family::IdToFp, &key, &value) {
            Ok(Record::IdFp { id, fp }) => pairs.add(id, fp.0),
            Ok(_) => {}
            Err(malformed) => findings.add(Problem::Id {
                id: String::from_utf8_lossy(&key).into_owned(),
                reason: malformed.to_string(),
            }),
        }
    }
    Ok(IdFpScan { ids, pairs })
}

/// Names every id whose `id_fp` entry has no `fp_ids` entry.
fn find_ids_without_fp_ids(store: &Store, findings: &mut Findings) -> Result<()> {
    for entry in store.entries(Family::IdToFp)? {
        // What cannot be read or decoded was reported by `scan_id_fp`.
        let Ok((key, value)) = entry else {
            break;
        };
        let Ok(Record::IdFp { id, fp }) = Record::decode(Family::IdToFp, &key, &value) else {
            continue;
        };
        let id = String::from_utf8_lossy(id);
        match store.contains(Key::FpId(fp, id.as_bytes())) {
            Ok(true) => {}
            Ok(false) => findings.add(Problem::Id {
                id: id.to_string(),
                reason: format!("has fingerprint {fp} in id_fp, but no entry in fp_ids"),
            }),
            Err(error) => findings.add(Problem::Id {
                id: id.to_string(),
                reason: damage_or_err(error)?,
            }),
        }
    }
    Ok(())
}

/// A block the directory lists (as block `block` with last key `last`)
/// that the table's family does not hold.
fn missing_from_store(table: usize, block: usize, last: u64) -> Problem {
    Problem::Block {
        table,
        block: Some(block),
        key: last,
        reason: "listed in the directory but missing from the store".into(),
    }
}

/// What [`scan_fp_ids`] saw.
struct FpIdsScan {
    /// Distinct fingerprints with ids, sorted.
    fingerprints: Vec<u64>,
    /// The (id, fingerprint) pairs of the entries that decoded.
    pairs: Pairs,
}

/// Reports fingerprints that table `index` holds and the reference table
/// does not, and the other way round.
fn compare_sets(
    index: usize,
    reference: usize,
    expected: &[u64],
    got: &[u64],
    findings: &mut Findings,
) {
    if expected == got {
        return;
    }
    let (missing, extra) = sorted_difference(expected, got);
    let example = |fps: &[u64]| {
        fps.first()
            .map(|&fp| format!(" (e.g. {})", Fingerprint(fp)))
            .unwrap_or_default()
    };
    findings.add(Problem::Table {
        table: index,
        reason: format!(
            "holds a different fingerprint set than table {reference}: {} missing{}, {} extra{}",
            missing.len(),
            example(&missing),
            extra.len(),
            example(&extra)
        ),
    });
}

/// Every fingerprint of the set needs an id, and every fingerprint with ids
/// must be in the set.
fn compare_with_ids(set: &[u64], with_ids: &[u64], findings: &mut Findings) {
    let (without_ids, not_in_set) = sorted_difference(set, with_ids);
    for fp in without_ids {
        findings.add(Problem::Fingerprint {
            fingerprint: Fingerprint(fp),
            reason: "in the tables but has no ids in fp_ids".into(),
        });
    }
    for fp in not_in_set {
        findings.add(Problem::Fingerprint {
            fingerprint: Fingerprint(fp),
            reason: "has ids in fp_ids but is not in the tables".into(),
        });
    }
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
