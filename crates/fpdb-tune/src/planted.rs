//! A sample with near-duplicates planted in it: each chosen original is
//! followed by one copy per [`EditKind`], and the rest of the sample is
//! laid out as a crawler meets it, so every pair of texts is known to be a
//! copy or not.

use fpdb_rng::Rng;

use crate::distinct::Distinct;
use crate::edits::EditKind;
use crate::lang::Lang;

/// Mixed into the seed of the edits of the texts that are not originals.
const CRAWL_SEED: u64 = 0xc7a1_0016;

/// A planted copy: which text it copies, where it is, and how it differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlantedCopy {
    /// The original's position in [`Planted::texts`].
    pub original: usize,
    /// The copy's position.
    pub copy: usize,
    /// The edit that made it.
    pub kind: EditKind,
}

/// Texts whose near-duplicates are known.
#[derive(Debug, Clone, Default)]
pub struct Planted {
    /// Every text: the originals each followed by their copies, then the
    /// rest of the sample.
    pub texts: Vec<String>,
    /// The group of each text: an original and its copies share one; every
    /// other text has its own. Two texts are copies when their groups are
    /// equal.
    pub groups: Vec<u32>,
    /// Every (original, copy) pair planted.
    pub copies: Vec<PlantedCopy>,
    /// Texts of the sample left out as reposts of an earlier one
    /// ([`Distinct`]).
    pub reposts: usize,
}

impl Planted {
    /// Reposts within `sample` are left out ([`Distinct`]); of the texts
    /// left, the first `originals` each get one copy per edit kind, in the
    /// script [`Lang::of`] finds, and every other text follows as a crawler
    /// meets it: with one edit of a random kind, or none (so weights and
    /// common features learned from it see templates and dates, as in a
    /// crawl). `seed` fixes every edit.
    pub fn from_sample(sample: &[String], originals: usize, seed: u64) -> Planted {
        Planted::planting(sample, originals, seed, Lang::of)
    }

    /// [`Planted::from_sample`] for a sample known to be all in `lang`.
    pub fn from_sample_in(sample: &[String], originals: usize, seed: u64, lang: Lang) -> Planted {
        Planted::planting(sample, originals, seed, |_| lang)
    }

    fn planting(
        sample: &[String],
        originals: usize,
        seed: u64,
        lang_of: impl Fn(&str) -> Lang,
    ) -> Planted {
        let mut distinct = Distinct::default();
        let kept: Vec<(&String, Lang)> = sample
            .iter()
            .map(|text| (text, lang_of(text)))
            .filter(|(text, lang)| distinct.admit(text, *lang))
            .collect();
        let mut planted = Planted {
            reposts: sample.len() - kept.len(),
            ..Planted::default()
        };
        let (edited, rest) = kept.split_at(originals.min(kept.len()));
        let mut rng = Rng::new(seed);
        for &(text, lang) in edited {
            let group = planted.next_group();
            let original = planted.push(text.clone(), group);
            for kind in EditKind::ALL {
                let copy = planted.push(kind.apply(text, lang, &mut rng), group);
                planted.copies.push(PlantedCopy {
                    original,
                    copy,
                    kind,
                });
            }
        }
        // Its own stream, so the copies do not depend on the rest.
        let mut rng = Rng::new(seed ^ CRAWL_SEED);
        for &(text, lang) in rest {
            let group = planted.next_group();
            let kind = rng.below(EditKind::ALL.len() + 1).checked_sub(1);
            let text = match kind.and_then(|k| EditKind::ALL.get(k)) {
                Some(kind) => kind.apply(text, lang, &mut rng),
                None => text.clone(),
            };
            planted.push(text, group);
        }
        planted
    }

    fn next_group(&self) -> u32 {
        self.groups.last().map_or(0, |g| g + 1)
    }

    fn push(&mut self, text: String, group: u32) -> usize {
        self.texts.push(text);
        self.groups.push(group);
        self.texts.len() - 1
    }

    /// Whether texts `a` and `b` were planted as copies of one original.
    pub fn same_group(&self, a: usize, b: usize) -> bool {
        matches!((self.groups.get(a), self.groups.get(b)), (Some(x), Some(y)) if x == y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_original_gets_one_copy_per_edit_and_reposts_are_left_out() {
        let sample: Vec<String> = [
            "The first page says one thing. Then it says another. And a third.",
            "近重复网页检测。同一篇文章出现在许多网址下。只有广告和日期不同。",
            "The first page says one thing. Then it says another. And a third!",
            "A page nobody copied.",
        ]
        .map(String::from)
        .to_vec();
        let planted = Planted::from_sample(&sample, 2, 7);
        let group = 1 + EditKind::ALL.len();
        assert_eq!(planted.texts.len(), 2 * group + 1);
        assert_eq!(planted.copies.len(), 2 * EditKind::ALL.len());
        assert_eq!(planted.texts[0], sample[0]);
        assert_eq!(planted.texts[group], sample[1]);
        assert_eq!(planted.reposts, 1);
        // The rest of the sample may carry one edit, at most one typo.
        let rest = &planted.texts[2 * group];
        let kept = sample[3]
            .split_whitespace()
            .filter(|w| rest.contains(w.trim_end_matches('.')));
        assert!(kept.count() >= 3, "{rest}");
        for copy in &planted.copies {
            assert!(planted.same_group(copy.original, copy.copy));
            assert_ne!(planted.texts[copy.original], planted.texts[copy.copy]);
        }
        assert!(!planted.same_group(0, group));
        assert!(!planted.same_group(group, 2 * group));
        // The Chinese original's typos are Han characters.
        let typos = &planted.texts[group + 1];
        assert_eq!(typos.chars().count(), sample[1].chars().count());
    }

    #[test]
    fn the_seed_fixes_every_edit() {
        let sample = vec!["One sentence here. Another one there. A third at last.".to_string()];
        let a = Planted::from_sample(&sample, 1, 3);
        let b = Planted::from_sample(&sample, 1, 3);
        assert_eq!(a.texts, b.texts);
    }
}
