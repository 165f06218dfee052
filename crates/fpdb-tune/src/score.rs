//! How well one setting's pairs match the planted truth: the share of
//! planted copies found (recall, overall and per edit), the share of
//! reported pairs that are copies (precision), and false matches per query,
//! as measured and as they grow with a larger database.

use std::collections::HashSet;

use crate::edits::EditKind;
use crate::planted::Planted;

/// One setting's score on a planted sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// Planted (original, copy) pairs reported, per [`EditKind::ALL`].
    pub found: [usize; EditKind::ALL.len()],
    /// Planted pairs per edit kind (one per original).
    pub planted_per_kind: usize,
    /// Reported pairs of texts planted as copies of one original (copies
    /// with each other too).
    pub true_pairs: usize,
    /// Reported pairs of texts that were not.
    pub false_pairs: usize,
    /// Texts in the sample.
    pub documents: usize,
}

impl Score {
    /// Scores `pairs` (positions in `planted.texts`, each unordered pair
    /// once) against what was planted.
    pub fn of_pairs(planted: &Planted, pairs: impl IntoIterator<Item = (usize, usize)>) -> Score {
        let mut reported = HashSet::new();
        let (mut true_pairs, mut false_pairs) = (0, 0);
        for (a, b) in pairs {
            let pair = (a.min(b), a.max(b));
            if !reported.insert(pair) {
                continue;
            }
            if planted.same_group(a, b) {
                true_pairs += 1;
            } else {
                false_pairs += 1;
            }
        }
        let mut found = [0; EditKind::ALL.len()];
        for copy in &planted.copies {
            let pair = (copy.original.min(copy.copy), copy.original.max(copy.copy));
            let kind = EditKind::ALL.iter().position(|k| *k == copy.kind);
            if let (true, Some(slot)) = (
                reported.contains(&pair),
                kind.and_then(|i| found.get_mut(i)),
            ) {
                *slot += 1;
            }
        }
        Score {
            found,
            planted_per_kind: planted.copies.len() / EditKind::ALL.len(),
            true_pairs,
            false_pairs,
            documents: planted.texts.len(),
        }
    }

    /// The share of planted copies found.
    pub fn recall(&self) -> f64 {
        let planted = self.planted_per_kind * EditKind::ALL.len();
        ratio(self.found.iter().sum(), planted)
    }

    /// The share of one edit kind's copies found.
    pub fn kind_recall(&self, kind: EditKind) -> f64 {
        let found = EditKind::ALL
            .iter()
            .position(|k| *k == kind)
            .and_then(|i| self.found.get(i))
            .copied()
            .unwrap_or(0);
        ratio(found, self.planted_per_kind)
    }

    /// The share of reported pairs that are copies (1 when none is).
    pub fn precision(&self) -> f64 {
        let reported = self.true_pairs + self.false_pairs;
        if reported == 0 {
            1.0
        } else {
            ratio(self.true_pairs, reported)
        }
    }

    /// False matches per query when each text of the sample is asked
    /// against all the others.
    pub fn false_per_query(&self) -> f64 {
        ratio(2 * self.false_pairs, self.documents)
    }

    /// False matches per query against a database of `documents` texts
    /// like the sample's: the rate of false pairs per pair of texts, times
    /// the texts a query is compared with. One false pair in a sample of
    /// n texts already means about 2N/n² per query, so a sample resolves
    /// rates down to that and no lower.
    pub fn false_per_query_at(&self, documents: u64) -> f64 {
        let n = self.documents as f64;
        if n < 2.0 {
            return 0.0;
        }
        let pairs = n * (n - 1.0) / 2.0;
        self.false_pairs as f64 / pairs * (documents as f64 - 1.0).max(0.0)
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planted() -> Planted {
        let sample: Vec<String> = [
            "The first page says one thing. Then it says another. And a third.",
            "A second page, on its own subject. It has two sentences.",
            "A page nobody copied.",
        ]
        .map(String::from)
        .to_vec();
        Planted::from_sample(&sample, 2, 1)
    }

    #[test]
    fn counts_planted_copies_true_and_false_pairs() {
        let planted = planted();
        let group = 1 + EditKind::ALL.len();
        // The first original's typo copy and mirror, a copy-with-copy pair,
        // and one false pair; a repeated pair counts once.
        let pairs = [(0, 1), (5, 0), (1, 2), (0, group), (1, 0)];
        let score = Score::of_pairs(&planted, pairs);
        assert_eq!(score.planted_per_kind, 2);
        assert_eq!((score.true_pairs, score.false_pairs), (3, 1));
        assert_eq!(score.kind_recall(EditKind::Typos), 0.5);
        assert_eq!(score.kind_recall(EditKind::Mirror), 0.5);
        assert_eq!(score.kind_recall(EditKind::HeaderFooter), 0.0);
        assert_eq!(score.recall(), 2.0 / 10.0);
        assert_eq!(score.precision(), 0.75);
        assert_eq!(score.documents, 2 * group + 1);
        assert_eq!(score.false_per_query(), 2.0 / 13.0);
        // 1 false pair of 78 pairs, against 999 others.
        assert!((score.false_per_query_at(1000) - 999.0 / 78.0).abs() < 1e-9);
    }

    #[test]
    fn nothing_reported_is_precise_and_finds_nothing() {
        let score = Score::of_pairs(&planted(), []);
        assert_eq!((score.recall(), score.precision()), (0.0, 1.0));
        assert_eq!(score.false_per_query_at(10_000_000), 0.0);
    }
}
