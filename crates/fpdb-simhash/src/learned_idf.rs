//! Word weights learned from the crawl: how rare each feature is among the
//! pages of a first bulk load, frozen so fingerprints never change.
//!
//! jieba's IDF knows Chinese words but gives every English word one value,
//! so English text is weighted by counts alone, and a site template's words
//! weigh as much as an article's. An IDF learned from the crawl knows every
//! language it holds, and the template words common to a site's pages
//! (those pages are many) weigh little. A feature weighs tf × idf³, with
//! idf = ln(N / df) over the N learned documents, at most ln 100: every
//! word in fewer than 1% of the documents weighs the same. The cube keeps
//! a template's common words far below an article's; the cap keeps one
//! rare word from carrying the fingerprint, so a typo that turns it into
//! another word moves few bits (uncapped idf² lost many English copies with
//! typos in the quality report). A feature never seen weighs nothing (most
//! are typos or the words of sites the sample never met; giving them the
//! highest weight instead cost recall in the quality report).
//!
//! The weights are fixed-point integers computed once when the table is
//! learned and stored as they are, so a fingerprint depends only on stored
//! integers, never on a platform's logarithm. [`LearnedIdf::digest`] names
//! the table; [`crate::Weighting::Learned`] carries the digest, so two
//! databases' options agree exactly when their fingerprints do.

use std::fmt;

use xxhash_rust::xxh3::Xxh3;

use crate::document_frequency::document_frequencies;
use crate::votes::BitVotes;
use crate::{Fingerprint, WeakBits};

/// A stored table that cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LearnedIdfError {
    /// The feature hashes are not strictly increasing at this entry.
    #[error("learned weights are not sorted by feature hash at entry {0}")]
    Unsorted(usize),
    /// A stored weight of zero (such features are left out of the table).
    #[error("learned weight of entry {0} is zero")]
    ZeroWeight(usize),
    /// Weighted features learned from no document.
    #[error("learned weights claim {entries} features from {documents} documents")]
    Documents {
        /// Entries in the table.
        entries: usize,
        /// Documents the table says it learned from.
        documents: u64,
    },
    /// Bytes that are not a table's stored form.
    #[error("learned weights: {0}")]
    Malformed(String),
}

/// Feature weights learned from a sample of the crawl and frozen.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct LearnedIdf {
    documents: u64,
    /// Sorted, without repeats; each with a weight in `weights`.
    hashes: Vec<u64>,
    weights: Vec<u32>,
    /// Where in `hashes` each run of hashes sharing their top bits starts
    /// (one more at the end): feature hashes are evenly spread, so a
    /// lookup searches a run of one or two instead of the whole table.
    starts: Vec<u32>,
    /// 64 less the top bits a run shares.
    shift: u32,
}

impl LearnedIdf {
    /// Weight units per 1.0 of idf³.
    pub const SCALE: f64 = 1000.0;

    /// The highest idf a feature can have, ln(1 / 1%): features rarer than
    /// that weigh as much as one in 1% of the documents.
    pub const MAX_IDF: f64 = 2.0 * std::f64::consts::LN_10;

    /// Learns the weights from `documents`, each given as its feature
    /// hashes ([`crate::Simhasher::feature_hashes`] with the tokenizer the
    /// fingerprints will use). Features in every document weigh nothing and
    /// are left out.
    pub fn learn<'d>(documents: impl IntoIterator<Item = &'d [u64]>) -> Self {
        let (count, frequency) = document_frequencies(documents);
        let mut entries: Vec<(u64, u32)> = frequency
            .into_iter()
            .map(|(hash, df)| (hash, weight_of(count, df)))
            .filter(|&(_, weight)| weight > 0)
            .collect();
        entries.sort_unstable();
        LearnedIdf::of_sorted(count, &entries)
    }

    /// The table of `entries`, sorted by hash without repeats.
    fn of_sorted(documents: u64, entries: &[(u64, u32)]) -> Self {
        let hashes: Vec<u64> = entries.iter().map(|e| e.0).collect();
        // About one hash a run; at most 2^24 runs (64 MiB of starts).
        let bits = hashes.len().max(1).ilog2().min(24);
        let shift = 64 - bits;
        // Each run's count, then the counts before it.
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for &hash in &hashes {
            if let Some(count) = starts.get_mut(run_of(hash, shift)) {
                *count += 1;
            }
        }
        let mut before = 0;
        for start in &mut starts {
            let count = *start;
            *start = before;
            before += count;
        }
        LearnedIdf {
            documents,
            hashes,
            weights: entries.iter().map(|e| e.1).collect(),
            starts,
            shift,
        }
    }

    /// A stored table read back: `entries` sorted by feature hash, each
    /// weight positive.
    pub fn from_entries(documents: u64, entries: &[(u64, u32)]) -> Result<Self, LearnedIdfError> {
        if documents == 0 && !entries.is_empty() {
            return Err(LearnedIdfError::Documents {
                entries: entries.len(),
                documents,
            });
        }
        for (i, pair) in entries.windows(2).enumerate() {
            if let [(a, _), (b, _)] = pair {
                if a >= b {
                    return Err(LearnedIdfError::Unsorted(i + 1));
                }
            }
        }
        if let Some(i) = entries.iter().position(|&(_, weight)| weight == 0) {
            return Err(LearnedIdfError::ZeroWeight(i));
        }
        Ok(LearnedIdf::of_sorted(documents, entries))
    }

    /// Bytes of one entry of the stored form ([`LearnedIdf::to_bytes`]):
    /// the feature hash (u64) and its weight (u32), after the document
    /// count (u64).
    pub const ENTRY_BYTES: usize = 12;

    /// The table's stored form: the documents learned from, then every
    /// (feature hash, weight) in ascending hash order, little-endian (the
    /// bytes a database keeps and its digest names).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 + self.len() * Self::ENTRY_BYTES);
        out.extend_from_slice(&self.documents.to_le_bytes());
        for (hash, weight) in self.entries() {
            out.extend_from_slice(&hash.to_le_bytes());
            out.extend_from_slice(&weight.to_le_bytes());
        }
        out
    }

    /// A table read back from [`LearnedIdf::to_bytes`]'s form.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LearnedIdfError> {
        let (documents, rest) = bytes.split_first_chunk::<8>().ok_or_else(|| {
            LearnedIdfError::Malformed(format!(
                "{} bytes, fewer than the document count's 8",
                bytes.len()
            ))
        })?;
        let chunks = rest.chunks_exact(Self::ENTRY_BYTES);
        if !chunks.remainder().is_empty() {
            return Err(LearnedIdfError::Malformed(format!(
                "{} bytes of entries, not a multiple of {}",
                rest.len(),
                Self::ENTRY_BYTES
            )));
        }
        let entries: Vec<(u64, u32)> = chunks
            .filter_map(|entry| {
                let (hash, weight) = entry.split_first_chunk::<8>()?;
                let weight: [u8; 4] = weight.try_into().ok()?;
                Some((u64::from_le_bytes(*hash), u32::from_le_bytes(weight)))
            })
            .collect();
        LearnedIdf::from_entries(u64::from_le_bytes(*documents), &entries)
    }

    /// The number of documents learned from.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// The number of features with a weight.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether no feature has a weight (every fingerprint is then 0).
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The weight of the feature with hash `hash`; 0 if it was never seen
    /// or is in every document.
    pub fn weight(&self, hash: u64) -> u32 {
        let run = run_of(hash, self.shift);
        let (Some(&start), Some(&end)) =
            (self.starts.get(run), self.starts.get(run.saturating_add(1)))
        else {
            return 0;
        };
        let (start, end) = (start as usize, end as usize);
        self.hashes
            .get(start..end)
            .and_then(|run| run.binary_search(&hash).ok())
            .and_then(|i| self.weights.get(start + i).copied())
            .unwrap_or(0)
    }

    /// The fingerprint of a text given as its feature hashes in any order
    /// ([`crate::Simhasher::feature_hashes`]): the same as the text's
    /// fingerprint under [`crate::Simhasher::learned`] with this table, so a
    /// text tokenized once gives both its fingerprint and its signature.
    pub fn fingerprint(&self, features: &[u64]) -> Fingerprint {
        self.votes(features).fingerprint()
    }

    /// [`LearnedIdf::fingerprint`] and the fingerprint's weak bits,
    /// `per_quarter` in each quarter ([`WeakBits::of_vote_sizes`]).
    pub fn fingerprint_and_weak_bits(
        &self,
        features: &[u64],
        per_quarter: u32,
    ) -> (Fingerprint, WeakBits) {
        self.votes(features).fingerprint_and_weak_bits(per_quarter)
    }

    fn votes(&self, features: &[u64]) -> BitVotes {
        let mut votes = BitVotes::default();
        for &hash in features {
            let weight = self.weight(hash);
            if weight > 0 {
                votes.add(hash, i64::from(weight));
            }
        }
        votes
    }

    /// Every (feature hash, weight), sorted by hash: what to store.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (u64, u32)> + '_ {
        self.hashes
            .iter()
            .copied()
            .zip(self.weights.iter().copied())
    }

    /// A name for the table's contents: the xxh3-64 of the document count
    /// and every (hash, weight) as little-endian bytes.
    pub fn digest(&self) -> u64 {
        let mut hasher = Xxh3::new();
        hasher.update(&self.documents.to_le_bytes());
        for (hash, weight) in self.entries() {
            hasher.update(&hash.to_le_bytes());
            hasher.update(&weight.to_le_bytes());
        }
        hasher.digest()
    }
}

/// The run of hashes sharing `hash`'s top `64 - shift` bits (at most 24).
fn run_of(hash: u64, shift: u32) -> usize {
    usize::try_from(hash.checked_shr(shift).unwrap_or(0)).unwrap_or(usize::MAX)
}

/// round(SCALE × min(ln(documents / df), MAX_IDF)³): at most 97,665.
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is between 0 and SCALE × MAX_IDF³, far inside u32's range"
)]
fn weight_of(documents: u64, df: u64) -> u32 {
    let idf = (documents as f64 / df.max(1) as f64)
        .ln()
        .clamp(0.0, LearnedIdf::MAX_IDF);
    (LearnedIdf::SCALE * idf * idf * idf).round() as u32
}

impl fmt::Debug for LearnedIdf {
    /// The size and name, not the (often large) table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LearnedIdf")
            .field("documents", &self.documents)
            .field("features", &self.hashes.len())
            .field("digest", &format_args!("{:016x}", self.digest()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_found_by_run_as_by_searching_the_whole_table() {
        let mut state = 0x5151_0000_7777_3333u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state ^ (state >> 29)
        };
        for len in [0usize, 1, 2, 3, 5, 1000, 4096] {
            // Evenly spread hashes, then the same count crowded into one
            // run and at both ends of the range.
            let spread: Vec<u64> = (0..len).map(|_| next()).collect();
            let crowded: Vec<u64> = (0..len as u64).map(|i| 0x4000_0000_0000_0000 + i).collect();
            let ends: Vec<u64> = (0..len as u64)
                .map(|i| if i % 2 == 0 { i } else { u64::MAX - i })
                .collect();
            for mut hashes in [spread, crowded, ends] {
                hashes.sort_unstable();
                hashes.dedup();
                let entries: Vec<(u64, u32)> =
                    (1u32..).zip(&hashes).map(|(w, &h)| (h, w)).collect();
                let idf = LearnedIdf::from_entries(9, &entries).unwrap();
                for &(hash, weight) in &entries {
                    assert_eq!(idf.weight(hash), weight, "{len}: {hash:x}");
                }
                for _ in 0..2000 {
                    let probe = next();
                    let want = entries
                        .binary_search_by_key(&probe, |e| e.0)
                        .map_or(0, |i| entries[i].1);
                    assert_eq!(idf.weight(probe), want);
                }
                assert_eq!(
                    idf.weight(0),
                    entries.first().filter(|e| e.0 == 0).map_or(0, |e| e.1)
                );
                assert_eq!(
                    idf.weight(u64::MAX),
                    entries
                        .last()
                        .filter(|e| e.0 == u64::MAX)
                        .map_or(0, |e| e.1)
                );
            }
        }
    }

    #[test]
    fn the_stored_form_is_the_count_then_each_entry_little_endian() {
        let idf = LearnedIdf::from_entries(7, &[(1, 5), (0x0102, 9)]).unwrap();
        let bytes = idf.to_bytes();
        let mut expected = 7u64.to_le_bytes().to_vec();
        for (hash, weight) in [(1u64, 5u32), (0x0102, 9)] {
            expected.extend_from_slice(&hash.to_le_bytes());
            expected.extend_from_slice(&weight.to_le_bytes());
        }
        assert_eq!(bytes, expected);
        assert_eq!(LearnedIdf::from_bytes(&bytes), Ok(idf));
        for len in [0, 7, 9, bytes.len() - 1] {
            assert!(matches!(
                LearnedIdf::from_bytes(&bytes[..len]),
                Err(LearnedIdfError::Malformed(_))
            ));
        }
    }

    #[test]
    fn rare_features_weigh_more_and_unseen_nothing() {
        let docs: Vec<Vec<u64>> = vec![vec![1, 2, 2, 3], vec![1, 2], vec![1, 4], vec![1, 2]];
        let idf = LearnedIdf::learn(docs.iter().map(Vec::as_slice));
        assert_eq!(idf.documents(), 4);
        // In every document: left out.
        assert_eq!(idf.weight(1), 0);
        // df 3 of 4, df 1 of 4: ln(4/3)³, ln(4)³, in thousandths.
        assert_eq!(idf.weight(2), 24);
        assert_eq!(idf.weight(3), 2664);
        assert_eq!(idf.weight(4), 2664);
        assert_eq!(idf.weight(5), 0);
        assert_eq!(idf.len(), 3);
    }

    #[test]
    fn features_rarer_than_one_percent_weigh_alike() {
        // 1,000 documents: feature 1 in one, 2 in five, 3 in ten (1%),
        // 4 in a hundred (10%).
        let docs: Vec<Vec<u64>> = (0..1000u64)
            .map(|d| {
                [(1, 1), (2, 5), (3, 10), (4, 100)]
                    .into_iter()
                    .filter(|&(_, df)| d < df)
                    .map(|(feature, _)| feature)
                    .chain([99])
                    .collect()
            })
            .collect();
        let idf = LearnedIdf::learn(docs.iter().map(Vec::as_slice));
        assert_eq!(idf.weight(1), 97_665);
        assert_eq!(idf.weight(2), 97_665);
        assert_eq!(idf.weight(3), 97_665);
        // ln(10)³ in thousandths.
        assert_eq!(idf.weight(4), 12_208);
    }

    #[test]
    fn stored_entries_read_back_with_the_same_digest() {
        let docs: Vec<Vec<u64>> = (0..50u64).map(|d| (d % 7..d % 7 + 5).collect()).collect();
        let idf = LearnedIdf::learn(docs.iter().map(Vec::as_slice));
        let entries: Vec<(u64, u32)> = idf.entries().collect();
        let back = LearnedIdf::from_entries(idf.documents(), &entries).expect("valid");
        assert_eq!(back, idf);
        assert_eq!(back.digest(), idf.digest());
        let other = LearnedIdf::from_entries(idf.documents() + 1, &entries).expect("valid");
        assert_ne!(other.digest(), idf.digest());
    }

    #[test]
    fn malformed_entries_are_refused() {
        assert_eq!(
            LearnedIdf::from_entries(3, &[(5, 1), (5, 2)]),
            Err(LearnedIdfError::Unsorted(1))
        );
        assert_eq!(
            LearnedIdf::from_entries(3, &[(4, 1), (5, 0)]),
            Err(LearnedIdfError::ZeroWeight(1))
        );
        assert!(matches!(
            LearnedIdf::from_entries(0, &[(4, 1)]),
            Err(LearnedIdfError::Documents { .. })
        ));
        assert!(LearnedIdf::from_entries(0, &[]).expect("empty").is_empty());
    }
}
