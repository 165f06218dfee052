//! Features too common in a crawl to tell its documents apart: a site's
//! navigation, footer and share links, which two different pages of one
//! site have in common. Left out of the confirming signature, they no
//! longer make two different short pages of one site look alike.
//!
//! The table is learned once from a sample of the crawl (the pages of a
//! first bulk load), then frozen and stored beside the database's options:
//! a signature depends on it, so it must never change under a database.
//! [`CommonFeatures::digest`] names it.

use xxhash_rust::xxh3::xxh3_64;

use crate::document_frequency::document_frequencies;
use crate::SignatureError;

/// A frozen set of feature hashes to leave out of signatures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CommonFeatures {
    /// Sorted, without repeats.
    hashes: Vec<u64>,
}

impl CommonFeatures {
    /// The features that occur in more than `max_percent` percent of
    /// `documents` (each given as its feature hashes, as
    /// [`crate::Simhasher::feature_hashes`] returns them). `max_percent` is
    /// 1 to 100; 100 learns an empty table.
    pub fn learn<'d>(
        documents: impl IntoIterator<Item = &'d [u64]>,
        max_percent: u8,
    ) -> Result<Self, SignatureError> {
        if !(1..=100).contains(&max_percent) {
            return Err(SignatureError::CommonPercent(max_percent));
        }
        let (count, frequency) = document_frequencies(documents);
        // Integer comparison, so the table does not depend on rounding.
        let limit = u64::from(max_percent) * count;
        Ok(Self::from_hashes(
            frequency
                .into_iter()
                .filter(|&(_, documents)| documents * 100 > limit)
                .map(|(hash, _)| hash)
                .collect(),
        ))
    }

    /// A stored table read back.
    pub fn from_hashes(mut hashes: Vec<u64>) -> Self {
        hashes.sort_unstable();
        hashes.dedup();
        CommonFeatures { hashes }
    }

    /// The hashes, sorted: what to store.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Whether `hash` is a common feature.
    pub fn contains(&self, hash: u64) -> bool {
        self.hashes.binary_search(&hash).is_ok()
    }

    /// `features` without the common ones, in their order.
    pub fn remove_from(&self, features: &[u64]) -> Vec<u64> {
        features
            .iter()
            .copied()
            .filter(|&hash| !self.contains(hash))
            .collect()
    }

    /// A name for the table's contents: the xxh3-64 of its sorted hashes
    /// as little-endian bytes. Two databases confirm alike exactly when
    /// their layouts and digests agree.
    pub fn digest(&self) -> u64 {
        let bytes: Vec<u8> = self.hashes.iter().flat_map(|h| h.to_le_bytes()).collect();
        xxh3_64(&bytes)
    }
}
