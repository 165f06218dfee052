//! Online writes: insert, remove, check-and-insert.
//!
//! A write updates the id column families, the counters and the delta in
//! one atomic store write (so it is in the write-ahead log, and fsynced
//! with `OpenOptions::sync`, before it returns), then the in-memory delta.
//! The tables themselves change only in merges (`merge.rs`), which the
//! caller starts after the write, without the writer lock. Every function
//! here runs with the writer lock held, so what it reads before writing
//! cannot change under it.

use fpdb_simhash::Fingerprint;

use crate::error::{Error, Result};
use crate::find::find;
use crate::query::{query, Match};
use crate::rule::{Document, MatchRule, Near};
use crate::seeded_hash::{FastMap, FastSet};
use crate::store::{Counter, DeltaEntry, IdScanner, Key, Record, SortedBatch, Store};
use crate::tables::{Tables, WriterGuard};

/// One change to apply.
pub(crate) enum Op<'a> {
    /// A document's id, fingerprint and signature bytes (empty when bare).
    Insert(&'a str, Fingerprint, &'a [u8]),
    Remove(&'a str),
}

/// Changes of one write batch not yet in RocksDB, read through by later
/// operations of the same batch. Pairs rather than a set of ids per
/// fingerprint: a batch of new documents then allocates nothing per
/// document.
#[derive(Default)]
struct Overlay<'a> {
    id_to_fp: FastMap<&'a str, Option<Fingerprint>>,
    /// (fingerprint, id) pairs the batch stored.
    added_ids: FastSet<(Fingerprint, &'a str)>,
    /// How many pairs of `added_ids` each fingerprint has.
    added_count: FastMap<Fingerprint, usize>,
    /// (fingerprint, id) pairs the batch deleted.
    removed_ids: FastSet<(Fingerprint, &'a str)>,
    /// Set membership of each touched fingerprint before the batch.
    member_before: FastMap<Fingerprint, bool>,
}

impl<'a> Overlay<'a> {
    fn add_id(&mut self, fp: Fingerprint, id: &'a str) {
        self.removed_ids.remove(&(fp, id));
        if self.added_ids.insert((fp, id)) {
            *self.added_count.entry(fp).or_default() += 1;
        }
    }

    fn remove_id(&mut self, fp: Fingerprint, id: &'a str) {
        if self.added_ids.remove(&(fp, id)) {
            if let Some(count) = self.added_count.get_mut(&fp) {
                *count = count.saturating_sub(1);
            }
        }
        self.removed_ids.insert((fp, id));
    }
}

impl Overlay<'_> {
    /// `matches` of a query for `fp` within `k`, read from the store
    /// before the batch, as they are with the batch's changes so far:
    /// ids the batch removed from a fingerprint left out, ids it added
    /// within `k` put in (in byte order), fingerprints left without ids
    /// dropped, nearest first (ties by fingerprint) as the query sorts.
    fn apply_to(&self, matches: &mut Vec<Match>, fp: Fingerprint, k: u32) {
        if self.added_ids.is_empty() && self.removed_ids.is_empty() {
            return;
        }
        for found in matches.iter_mut() {
            let at = found.fingerprint;
            found
                .ids
                .retain(|id| !self.removed_ids.contains(&(at, id.as_str())));
        }
        for &(added, id) in &self.added_ids {
            let distance = added.distance(fp);
            if distance > k {
                continue;
            }
            match matches.iter_mut().find(|found| found.fingerprint == added) {
                Some(found) => {
                    if let Err(at) = found.ids.binary_search_by(|other| other.as_str().cmp(id)) {
                        found.ids.insert(at, id.to_string());
                    }
                }
                None => matches.push(Match {
                    fingerprint: added,
                    distance,
                    ids: vec![id.to_string()],
                }),
            }
        }
        matches.retain(|found| !found.ids.is_empty());
        matches.sort_unstable_by_key(|found| (found.distance, found.fingerprint));
    }
}

impl<'a> Op<'a> {
    /// The document the change is to.
    pub fn id(&self) -> &'a str {
        match *self {
            Op::Insert(id, ..) | Op::Remove(id) => id,
        }
    }
}

/// What [`check_and_insert`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Checked {
    /// Every stored fingerprint within `k` of the new one, nearest first,
    /// with its ids, the checked id itself left out: a page is never a
    /// near-duplicate of itself. A fingerprint left with no other id is
    /// not listed.
    pub matches: Vec<Match>,
    /// The fingerprint the id had before this call, if it was stored: a
    /// re-crawl that did not change (`Some(fp)` equal to the new one),
    /// changed a little (within `k`) or changed completely.
    pub previous: Option<Fingerprint>,
}

/// Every stored fingerprint within `k` of `fp` other than `id`'s own entry,
/// and `id`'s previous fingerprint; then stores `id` with `fp`. The
/// writer lock makes the three one step for other writers: of two
/// crawlers checking the same new page at once, exactly one sees the
/// other's.
pub(crate) fn check_and_insert(
    store: &Store,
    tables: &Tables,
    writer: &WriterGuard<'_>,
    id: &str,
    fp: Fingerprint,
    k: u32,
) -> Result<Checked> {
    tables.check_radius(k)?;
    validate_id(id)?;
    let previous = store.fingerprint_of(id)?;
    let mut matches = {
        let state = tables.read();
        query(store, tables, &state, fp, k)?
    };
    if previous.is_some() {
        for found in &mut matches {
            found.ids.retain(|other| other != id);
        }
        matches.retain(|found| !found.ids.is_empty());
    }
    apply(store, tables, writer, &[Op::Insert(id, fp, &[])])?;
    Ok(Checked { matches, previous })
}

/// [`check_and_insert`] of each request in order, answered as one call
/// each would answer it, with what the group stores written as one
/// atomic write (so its ids' entries, delta and counters go into the log
/// and the memtable once for the group, not once per request). Each
/// request's query reads the store as it was before the group, and
/// `overlay` adds to it what the group's earlier requests stored: the
/// ids they moved away from a fingerprint are left out, the ids they
/// stored within the radius are added. `faults` holds each request's own
/// fault, found before the lock: a faulty request is answered with it and
/// stores nothing.
pub(crate) fn check_and_insert_group(
    store: &Store,
    tables: &Tables,
    writer: &WriterGuard<'_>,
    requests: &[(&str, Fingerprint, u32)],
    faults: Vec<Option<Error>>,
) -> Result<Vec<Result<Checked>>> {
    let stored = store.fingerprints_of(
        requests
            .iter()
            .zip(&faults)
            .filter(|(_, fault)| fault.is_none())
            .map(|(&(id, ..), _)| id),
    )?;
    let mut overlay = Overlay::default();
    let mut ops = Vec::with_capacity(requests.len());
    let mut answers = Vec::with_capacity(requests.len());
    // Whether each fingerprint the group touches had ids before it, as
    // the queries and the ids' stored fingerprints show: the write then
    // need not look each one up again.
    let mut members = FastMap::default();
    for (&(id, fp, k), fault) in requests.iter().zip(faults) {
        if let Some(fault) = fault {
            answers.push(Err(fault));
            continue;
        }
        let previous = match overlay.id_to_fp.get(id) {
            Some(current) => *current,
            None => {
                let stored = stored.get(id).copied().flatten();
                if let Some(old) = stored {
                    // It has this id.
                    members.insert(old, true);
                }
                stored
            }
        };
        let mut matches = {
            let state = tables.read();
            query(store, tables, &state, fp, k)?
        };
        // The query read the store as it was before the group, and
        // finds a stored fingerprint at distance 0 from itself.
        members
            .entry(fp)
            .or_insert_with(|| matches.iter().any(|found| found.fingerprint == fp));
        overlay.apply_to(&mut matches, fp, k);
        if previous.is_some() {
            for found in &mut matches {
                found.ids.retain(|other| other != id);
            }
            matches.retain(|found| !found.ids.is_empty());
        }
        if previous != Some(fp) {
            if let Some(old) = previous {
                overlay.remove_id(old, id);
            }
            overlay.add_id(fp, id);
        }
        overlay.id_to_fp.insert(id, Some(fp));
        ops.push(Op::Insert(id, fp, &[]));
        answers.push(Ok(Checked { matches, previous }));
    }
    apply_over(store, tables, writer, &ops, &stored, &members)?;
    Ok(answers)
}

/// What [`crate::Db::check_and_insert_document`] found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CheckedDocument {
    /// Every stored document the rule matched, nearest first, the checked
    /// id itself left out.
    pub near: Vec<Near>,
    /// The fingerprint the id had before this call, if it was stored.
    pub previous: Option<Fingerprint>,
}

/// [`check_and_insert`] under a match rule: the stored documents `rule`
/// matches with `document` other than `id`, and `id`'s previous
/// fingerprint; then stores `id` with the document's fingerprint and
/// signature. One step for other writers, as [`check_and_insert`].
pub(crate) fn check_and_insert_document(
    store: &Store,
    tables: &Tables,
    writer: &WriterGuard<'_>,
    id: &str,
    document: &Document,
    rule: &MatchRule,
) -> Result<CheckedDocument> {
    tables.check_radius(rule.retrieval_radius())?;
    validate_id(id)?;
    let previous = store.fingerprint_of(id)?;
    let mut near = {
        let state = tables.read();
        find(store, tables, &state, document, rule)?
    };
    near.retain(|found| found.id != id);
    apply(
        store,
        tables,
        writer,
        &[Op::Insert(
            id,
            document.fingerprint,
            &document.stored_bytes(tables.confirmation.as_ref()),
        )],
    )?;
    Ok(CheckedDocument { near, previous })
}

/// Forgets `ids` in one atomic write; returns the fingerprint each had
/// (read under the writer lock, so no other writer can change it between
/// the read and the removal).
pub(crate) fn remove(
    store: &Store,
    tables: &Tables,
    writer: &WriterGuard<'_>,
    ids: &[&str],
) -> Result<Vec<Option<Fingerprint>>> {
    for id in ids {
        validate_id(id)?;
    }
    let stored = store.fingerprints_of(ids.iter().copied())?;
    let previous = ids
        .iter()
        .map(|id| stored.get(id).copied().flatten())
        .collect();
    let ops: Vec<Op<'_>> = ids.iter().map(|id| Op::Remove(id)).collect();
    apply(store, tables, writer, &ops)?;
    Ok(previous)
}

/// Applies `ops` in one atomic write (the caller merges the delta once it
/// has grown to its threshold: `Tables::merge_due`).
pub(crate) fn apply(
    store: &Store,
    tables: &Tables,
    writer: &WriterGuard<'_>,
    ops: &[Op<'_>],
) -> Result<()> {
    let stored = store.fingerprints_of(ops.iter().map(Op::id))?;
    apply_over(store, tables, writer, ops, &stored, &FastMap::default())
}

/// [`apply`], `stored` holding the fingerprint each id of `ops` has in the
/// store and `members` whether fingerprints have ids there, as far as the
/// caller knows (both read under the writer lock).
fn apply_over(
    store: &Store,
    tables: &Tables,
    _writer: &WriterGuard<'_>,
    ops: &[Op<'_>],
    stored: &FastMap<&str, Option<Fingerprint>>,
    members: &FastMap<Fingerprint, bool>,
) -> Result<()> {
    for op in ops {
        validate_id(op.id())?;
    }
    let mut batch = SortedBatch::default();
    let mut overlay = Overlay::default();
    let (ids_delta, changes) = store
        .with_id_scanner(|scanner| plan(stored, members, ops, scanner, &mut batch, &mut overlay))?;
    if overlay.id_to_fp.is_empty() {
        return Ok(());
    }
    let mut state_changes = Vec::with_capacity(changes.len());
    let mut fingerprints_delta: i64 = 0;
    let (fingerprints, ids) = {
        let state = tables.read();
        for &(fp, joined) in &changes {
            fingerprints_delta += if joined { 1 } else { -1 };
            let change = if joined {
                if state.delta.is_removed(fp) {
                    batch.delete(Key::Delta(fp));
                    DeltaChange::Unremove
                } else {
                    batch.put(Record::Delta(DeltaEntry::Added(fp)));
                    DeltaChange::Add
                }
            } else if state.delta.is_added(&tables.design, fp) {
                batch.delete(Key::Delta(fp));
                DeltaChange::Unadd
            } else {
                batch.put(Record::Delta(DeltaEntry::Removed(fp)));
                DeltaChange::Remove
            };
            state_changes.push((fp, change));
        }
        (
            state.fingerprints.saturating_add_signed(fingerprints_delta),
            state.ids.saturating_add_signed(ids_delta),
        )
    };
    batch.put(Record::Counter(Counter::Fingerprints, fingerprints));
    batch.put(Record::Counter(Counter::Ids, ids));
    store.write_sorted(batch)?;

    let mut state = tables.write();
    for (fp, change) in state_changes {
        match change {
            DeltaChange::Add => state.delta.add(&tables.design, fp),
            DeltaChange::Unadd => state.delta.unadd(&tables.design, fp),
            DeltaChange::Remove => state.delta.remove(fp),
            DeltaChange::Unremove => state.delta.unremove(fp),
        }
        state.touch(fp);
    }
    state.fingerprints = fingerprints;
    state.ids = ids;
    Ok(())
}

/// Puts the id changes of `ops` into `batch` and `overlay` (`stored`:
/// the fingerprint each id of `ops` has in the store; `members`: whether
/// fingerprints have ids in the store, where known); returns the change
/// in the number of ids and the fingerprints that joined (true) or left
/// (false) the set.
fn plan<'a>(
    stored: &FastMap<&str, Option<Fingerprint>>,
    members: &FastMap<Fingerprint, bool>,
    ops: &[Op<'a>],
    scanner: &mut IdScanner<'_>,
    batch: &mut SortedBatch,
    overlay: &mut Overlay<'a>,
) -> Result<(i64, Vec<(Fingerprint, bool)>)> {
    let mut ids_delta: i64 = 0;
    for op in ops {
        let (id, new_fp, signature) = match *op {
            Op::Insert(id, fp, signature) => (id, Some(fp), signature),
            Op::Remove(id) => (id, None, &[][..]),
        };
        let old_fp = match overlay.id_to_fp.get(id) {
            Some(current) => *current,
            None => stored.get(id).copied().flatten(),
        };
        if old_fp == new_fp {
            // The same fingerprint again: only its signature may differ
            // (noted in the overlay, so the batch is written).
            if let Some(fp) = new_fp {
                batch.put(Record::FpId {
                    fp,
                    id: id.as_bytes(),
                    signature,
                });
                overlay.id_to_fp.insert(id, new_fp);
            }
            continue;
        }
        if let Some(old) = old_fp {
            note_membership(scanner, members, overlay, old)?;
            batch.delete(Key::FpId(old, id.as_bytes()));
            overlay.remove_id(old, id);
        }
        match new_fp {
            Some(fp) => {
                note_membership(scanner, members, overlay, fp)?;
                batch.put(Record::IdFp {
                    id: id.as_bytes(),
                    fp,
                });
                batch.put(Record::FpId {
                    fp,
                    id: id.as_bytes(),
                    signature,
                });
                overlay.add_id(fp, id);
            }
            None => batch.delete(Key::IdFp(id.as_bytes())),
        }
        ids_delta += i64::from(old_fp.is_none()) - i64::from(new_fp.is_none());
        overlay.id_to_fp.insert(id, new_fp);
    }

    // Which fingerprints joined or left the set, and what that means
    // for the delta.
    let mut changes: Vec<(Fingerprint, bool)> = Vec::new();
    for (&fp, &before) in &overlay.member_before {
        let after = has_ids(scanner, overlay, fp)?;
        if after != before {
            changes.push((fp, after));
        }
    }
    Ok((ids_delta, changes))
}

/// Records whether `fp` was in the set before this batch touched it
/// (from `members` when known there).
fn note_membership(
    scanner: &mut IdScanner<'_>,
    members: &FastMap<Fingerprint, bool>,
    overlay: &mut Overlay<'_>,
    fp: Fingerprint,
) -> Result<()> {
    if !overlay.member_before.contains_key(&fp) {
        // Nothing of the batch has touched `fp` yet, so the store's
        // answer is the one before the batch.
        let member = match members.get(&fp) {
            Some(&member) => member,
            None => has_ids(scanner, overlay, fp)?,
        };
        overlay.member_before.insert(fp, member);
    }
    Ok(())
}

/// Whether any document has `fp`, counting the batch's own changes.
fn has_ids(scanner: &mut IdScanner<'_>, overlay: &Overlay<'_>, fp: Fingerprint) -> Result<bool> {
    if overlay.added_count.get(&fp).is_some_and(|&count| count > 0) {
        return Ok(true);
    }
    let mut found = false;
    scanner.scan(fp, |id, _| {
        found = !overlay.removed_ids.contains(&(fp, id));
        !found
    })?;
    Ok(found)
}

#[derive(Debug, Clone, Copy)]
enum DeltaChange {
    Add,
    Unadd,
    Remove,
    Unremove,
}

pub(crate) fn validate_id(id: &str) -> Result<()> {
    fpdb_fingerprint::validate_id(id).map_err(|bad| Error::BadId {
        len: bad.len,
        max: bad.max,
    })
}
