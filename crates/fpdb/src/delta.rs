//! Recent changes not yet merged into the compressed tables.
//!
//! Inserting into a sorted compressed table means re-encoding a block per
//! table, so single writes land here instead: a set of added fingerprints,
//! kept permuted and sorted once per table so that a query probes it with
//! the same prefix ranges as the blocks, and a set of removed ones that
//! queries filter out. Merges move both into the blocks in batches. The
//! delta is also persisted (the `delta` column family), so it survives a
//! restart.

use fpdb_codec::TableDesign;
use fpdb_simhash::Fingerprint;

use crate::added_keys::AddedKeys;
use crate::seeded_hash::FastSet;

#[derive(Debug, Clone)]
pub(crate) struct Delta {
    /// Per table, the permuted keys of added fingerprints.
    added: Vec<AddedKeys>,
    /// Fingerprints still in the blocks but no longer in the set.
    removed: FastSet<Fingerprint>,
}

impl Delta {
    /// An empty delta for `design`, sized for about `capacity` changes
    /// (the merge threshold).
    pub fn new(design: &TableDesign, capacity: usize) -> Self {
        Delta {
            added: design
                .tables()
                .iter()
                .map(|table| AddedKeys::new(table.prefix_bits(), capacity))
                .collect(),
            removed: FastSet::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.added_len() + self.removed.len()
    }

    pub fn added_len(&self) -> usize {
        self.added.first().map_or(0, AddedKeys::len)
    }

    pub fn removed_len(&self) -> usize {
        self.removed.len()
    }

    pub fn is_added(&self, design: &TableDesign, fp: Fingerprint) -> bool {
        match (design.tables().first(), self.added.first()) {
            (Some(table), Some(keys)) => keys.contains(table.permutation().permute(fp.0)),
            _ => false,
        }
    }

    pub fn is_removed(&self, fp: Fingerprint) -> bool {
        self.removed.contains(&fp)
    }

    pub fn add(&mut self, design: &TableDesign, fp: Fingerprint) {
        for (table, keys) in design.tables().iter().zip(&mut self.added) {
            keys.insert(table.permutation().permute(fp.0));
        }
    }

    pub fn unadd(&mut self, design: &TableDesign, fp: Fingerprint) {
        for (table, keys) in design.tables().iter().zip(&mut self.added) {
            keys.remove(table.permutation().permute(fp.0));
        }
    }

    pub fn remove(&mut self, fp: Fingerprint) {
        self.removed.insert(fp);
    }

    pub fn unremove(&mut self, fp: Fingerprint) {
        self.removed.remove(&fp);
    }

    /// Added permuted keys of table `index` in `[lo, hi]`.
    pub fn added_in(&self, index: usize, lo: u64, hi: u64) -> impl Iterator<Item = u64> + '_ {
        self.added
            .get(index)
            .into_iter()
            .flat_map(move |keys| keys.range(lo, hi))
    }

    /// Every added fingerprint, unpermuted (from table 0).
    pub fn added_fingerprints<'a>(
        &'a self,
        design: &'a TableDesign,
    ) -> impl Iterator<Item = Fingerprint> + 'a {
        let permutation = design.tables().first().map(|t| t.permutation());
        self.added
            .first()
            .into_iter()
            .flat_map(AddedKeys::iter)
            .filter_map(move |key| permutation.map(|p| Fingerprint(p.inverse(key))))
    }

    pub fn removed_fingerprints(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        self.removed.iter().copied()
    }
}
