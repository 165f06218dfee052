//! A gate on a pair's rarest words: each text keeps the `keep` words a
//! registry's word list makes rarest (a word missing from the list is
//! rarer than any on it), and a pair passes only when the two texts
//! share at least `shared` of them. The hope was that two entries of one
//! reference that differ in their names would not share their names; a
//! copy with a typo loses one rare word to the typo. Measured over every
//! pair, entries of one manual share its own vocabulary too, and the gate
//! costs more copies than false pairs (docs/BENCHMARKS.md, "Tried: the
//! rarest words"). Rule syntax: `+rareKsM` (keep K, share M).

use std::collections::HashMap;

use rayon::prelude::*;

use crate::proto::{tokens, Base};
use fpdb_tune::Lang;

/// Each text's rarest words (hashes, sorted) and the share a pair needs.
pub struct RareWords {
    sets: Vec<Vec<u64>>,
    shared: usize,
}

impl RareWords {
    pub fn new(
        texts: &[String],
        idf: &HashMap<String, f64>,
        lang: Lang,
        keep: usize,
        shared: usize,
    ) -> RareWords {
        let base = match lang {
            Lang::Zh => Base::Jieba,
            Lang::En => Base::Words,
        };
        let sets = texts
            .par_iter()
            .map(|text| {
                let mut words: Vec<(f64, u64)> = tokens(text, base)
                    .into_iter()
                    .map(|word| {
                        let rarity = idf.get(&word).copied().unwrap_or(f64::INFINITY);
                        (rarity, fpdb_simhash::hash_feature(&word))
                    })
                    .collect();
                words.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                words.dedup_by_key(|w| w.1);
                let mut kept: Vec<u64> = words.into_iter().take(keep).map(|w| w.1).collect();
                kept.sort_unstable();
                kept
            })
            .collect();
        RareWords { sets, shared }
    }

    /// Whether texts `a` and `b` share enough of their rarest words; a
    /// text with fewer words than the share asked is not judged.
    pub fn passes(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.sets[a], &self.sets[b]);
        x.len() < self.shared || y.len() < self.shared || shared(x, y) >= self.shared
    }
}

/// How many values two sorted lists of distinct values share, counted in
/// one pass.
pub fn shared(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_passes_on_the_rare_words_it_shares() {
        let texts = [
            "the manual describes unaccent and its configuration".to_string(),
            "the manual describes dictxsyn and its configuration".to_string(),
            "the manual describes unaccent and its configuratoin".to_string(),
        ];
        let idf: HashMap<String, f64> = [("the", 1.0), ("manual", 5.0), ("describes", 6.0)]
            .into_iter()
            .chain([("and", 1.0), ("its", 1.0), ("configuration", 7.0)])
            .map(|(w, f)| (w.to_string(), f))
            .collect();
        let rare = RareWords::new(&texts, &idf, Lang::En, 2, 2);
        // The two rarest: the name off the list, then "configuration".
        assert!(!rare.passes(0, 1), "different names");
        assert!(!rare.passes(0, 2), "the typo displaces a rare word");
        // Keeping a third word lets the copy through, and the other name
        // too: both share the formula's "configuration" and "describes".
        let looser = RareWords::new(&texts, &idf, Lang::En, 3, 2);
        assert!(looser.passes(0, 2));
        assert!(looser.passes(0, 1));
    }
}
