//! Online writes: insert, remove, check-and-insert.
//!
//! A write updates the id column families, the counters and the delta in
//! one RocksDB `WriteBatch` (so it is in the write-ahead log, and fsynced
//! with `OpenOptions::sync`, before it returns), then the in-memory delta.
//! The tables themselves change only in merges (`merge.rs`).

use std::collections::HashSet;

use fpdb_simhash::Fingerprint;

use crate::db::Match;
use crate::id_scanner::IdScanner;
use crate::keys::{self, fp_ids_key};
use crate::seeded_hash::{FastMap, FastSet};
use crate::sorted_batch::SortedBatch;
use crate::{Db, Error, Result, MAX_ID_BYTES};

// Families of a write's `SortedBatch`, by index.
const ID_TO_FP: usize = 0;
const FP_TO_IDS: usize = 1;
const DELTA: usize = 2;
const META: usize = 3;

/// One change to apply.
enum Op<'a> {
    Insert(&'a str, Fingerprint),
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

impl Db {
    /// Stores document `id` with fingerprint `fp`. An existing id gets the
    /// new fingerprint.
    pub fn insert(&self, id: &str, fp: Fingerprint) -> Result<()> {
        self.apply(&[Op::Insert(id, fp)])
    }

    /// Stores many documents in one atomic write.
    pub fn insert_batch<S: AsRef<str>>(&self, documents: &[(S, Fingerprint)]) -> Result<()> {
        let ops: Vec<Op<'_>> = documents
            .iter()
            .map(|(id, fp)| Op::Insert(id.as_ref(), *fp))
            .collect();
        self.apply(&ops)
    }

    /// Stores document `id` with the fingerprint of `text`.
    pub fn insert_text(&self, id: &str, text: &str) -> Result<Fingerprint> {
        let fp = self.fingerprint_text(text);
        self.insert(id, fp)?;
        Ok(fp)
    }

    /// Forgets document `id`; returns its fingerprint if it was stored.
    pub fn remove(&self, id: &str) -> Result<Option<Fingerprint>> {
        let old = self.get(id)?;
        self.apply(&[Op::Remove(id)])?;
        Ok(old)
    }

    /// Forgets many documents in one atomic write; returns how many of
    /// them were stored.
    pub fn remove_batch<S: AsRef<str>>(&self, ids: &[S]) -> Result<usize> {
        let ops: Vec<Op<'_>> = ids.iter().map(|id| Op::Remove(id.as_ref())).collect();
        for op in &ops {
            let (Op::Insert(id, _) | Op::Remove(id)) = op;
            validate_id(id)?;
        }
        let _writer = self.lock_writer()?;
        let mut stored = HashSet::new();
        for op in &ops {
            let (Op::Insert(id, _) | Op::Remove(id)) = *op;
            if !stored.contains(id) && self.get(id)?.is_some() {
                stored.insert(id);
            }
        }
        self.apply_locked(&ops)?;
        Ok(stored.len())
    }

    /// The crawler's one call: every stored fingerprint within `k` of `fp`
    /// (as [`Db::query`]), then `id` is stored with `fp`, atomically with
    /// respect to other writers: of two crawlers checking the same new page
    /// at once, exactly one sees the other's.
    pub fn check_and_insert(&self, id: &str, fp: Fingerprint, k: u32) -> Result<Vec<Match>> {
        self.check_k(k)?;
        validate_id(id)?;
        let _writer = self.lock_writer()?;
        let matches = {
            let state = self.read_state();
            self.query_locked(&state, fp, k)?
        };
        self.apply_locked(&[Op::Insert(id, fp)])?;
        Ok(matches)
    }

    fn apply(&self, ops: &[Op<'_>]) -> Result<()> {
        for op in ops {
            let (Op::Insert(id, _) | Op::Remove(id)) = op;
            validate_id(id)?;
        }
        let _writer = self.lock_writer()?;
        self.apply_locked(ops)
    }

    /// Applies `ops` with the writer lock held.
    fn apply_locked(&self, ops: &[Op<'_>]) -> Result<()> {
        let families = [
            self.cf(keys::ID_TO_FP)?,
            self.cf(keys::FP_TO_IDS)?,
            self.cf(keys::DELTA)?,
            self.cf(keys::META)?,
        ];
        let mut batch = SortedBatch::default();
        let mut overlay = Overlay::default();
        let (ids_delta, changes) = self
            .rocks
            .with_id_scanner(|scanner| self.plan(ops, scanner, &mut batch, &mut overlay))?;
        if overlay.id_to_fp.is_empty() {
            return Ok(());
        }
        let mut state_changes = Vec::with_capacity(changes.len());
        let mut fingerprints_delta: i64 = 0;
        let (fingerprints, ids) = {
            let state = self.read_state();
            for &(fp, joined) in &changes {
                fingerprints_delta += if joined { 1 } else { -1 };
                let key = fp.0.to_be_bytes();
                let change = if joined {
                    if state.delta.is_removed(fp) {
                        batch.delete(DELTA, key);
                        DeltaChange::Unremove
                    } else {
                        batch.put(DELTA, key, [keys::DELTA_ADDED]);
                        DeltaChange::Add
                    }
                } else if state.delta.is_added(&self.design, fp) {
                    batch.delete(DELTA, key);
                    DeltaChange::Unadd
                } else {
                    batch.put(DELTA, key, [keys::DELTA_REMOVED]);
                    DeltaChange::Remove
                };
                state_changes.push((fp, change));
            }
            (
                state.fingerprints.saturating_add_signed(fingerprints_delta),
                state.ids.saturating_add_signed(ids_delta),
            )
        };
        batch.put(
            META,
            keys::FINGERPRINT_COUNT_KEY,
            fingerprints.to_be_bytes(),
        );
        batch.put(META, keys::ID_COUNT_KEY, ids.to_be_bytes());
        self.rocks
            .write_opt(batch.into_write_batch(&families), &self.write_options())?;

        let delta_len = {
            let mut state = self.write_state();
            for (fp, change) in state_changes {
                match change {
                    DeltaChange::Add => state.delta.add(&self.design, fp),
                    DeltaChange::Unadd => state.delta.unadd(&self.design, fp),
                    DeltaChange::Remove => state.delta.remove(fp),
                    DeltaChange::Unremove => state.delta.unremove(fp),
                }
            }
            state.fingerprints = fingerprints;
            state.ids = ids;
            state.delta.len()
        };
        if delta_len >= self.open_options.merge_threshold(fingerprints) {
            self.merge_locked()?;
        }
        Ok(())
    }

    /// Puts the id changes of `ops` into `batch` and `overlay`; returns the
    /// change in the number of ids and the fingerprints that joined (true)
    /// or left (false) the set.
    fn plan<'a>(
        &self,
        ops: &[Op<'a>],
        scanner: &mut IdScanner<'_>,
        batch: &mut SortedBatch,
        overlay: &mut Overlay<'a>,
    ) -> Result<(i64, Vec<(Fingerprint, bool)>)> {
        let mut ids_delta: i64 = 0;
        let stored = self.get_many(ops.iter().map(|op| {
            let (Op::Insert(id, _) | Op::Remove(id)) = *op;
            id
        }))?;
        for op in ops {
            let (id, new_fp) = match *op {
                Op::Insert(id, fp) => (id, Some(fp)),
                Op::Remove(id) => (id, None),
            };
            let old_fp = match overlay.id_to_fp.get(id) {
                Some(current) => *current,
                None => stored.get(id).copied().flatten(),
            };
            if old_fp == new_fp {
                continue;
            }
            if let Some(old) = old_fp {
                note_membership(scanner, overlay, old)?;
                batch.delete(FP_TO_IDS, fp_ids_key(old, id));
                overlay.remove_id(old, id);
            }
            match new_fp {
                Some(fp) => {
                    note_membership(scanner, overlay, fp)?;
                    batch.put(ID_TO_FP, id.as_bytes(), fp.0.to_be_bytes());
                    batch.put(FP_TO_IDS, fp_ids_key(fp, id), []);
                    overlay.add_id(fp, id);
                }
                None => batch.delete(ID_TO_FP, id.as_bytes()),
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
}

/// Records whether `fp` was in the set before this batch touched it.
fn note_membership(
    scanner: &mut IdScanner<'_>,
    overlay: &mut Overlay<'_>,
    fp: Fingerprint,
) -> Result<()> {
    if !overlay.member_before.contains_key(&fp) {
        let member = has_ids(scanner, overlay, fp)?;
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
    scanner.scan(fp, |id| {
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
    if id.is_empty() || id.len() > MAX_ID_BYTES {
        return Err(Error::BadId {
            len: id.len(),
            max: MAX_ID_BYTES,
        });
    }
    Ok(())
}
