//! Recall and precision by brute force over every pair of fingerprints.

use rayon::prelude::*;

use crate::corpus::Original;
use fpdb_tune::EditKind;
use fpdb_tune::{Lang, Planted};

/// The report's distances.
pub const KS: std::ops::RangeInclusive<u32> = 3..=7;
const MAX_K: usize = 7;
/// Documents per original: itself and one copy per edit kind.
pub const GROUP: usize = 1 + EditKind::ALL.len();

/// Originals with their planted copies: document `g * GROUP` is original
/// `g`, the next `EditKind::ALL.len()` are its copies in that order.
pub fn plant(originals: &[Original], lang: Lang, seed: u64) -> Vec<String> {
    let texts: Vec<String> = originals.iter().map(|o| o.text.clone()).collect();
    Planted::from_sample_in(&texts, texts.len(), seed, lang).texts
}

/// Counts at one k.
#[derive(Debug, Clone, Default)]
pub struct AtK {
    pub k: u32,
    /// Planted (original, copy) pairs found, per edit kind.
    pub found: [usize; EditKind::ALL.len()],
    pub planted: usize,
    /// Reported pairs of documents from the same original (any two of a
    /// group, copies with each other too).
    pub true_pairs: usize,
    /// Reported pairs of documents from different originals.
    pub false_pairs: usize,
}

impl AtK {
    pub fn recall(&self) -> f64 {
        self.found.iter().sum::<usize>() as f64 / (self.planted * EditKind::ALL.len()).max(1) as f64
    }

    pub fn kind_recall(&self, kind: usize) -> f64 {
        self.found[kind] as f64 / self.planted.max(1) as f64
    }

    pub fn precision(&self) -> f64 {
        let reported = self.true_pairs + self.false_pairs;
        if reported == 0 {
            1.0
        } else {
            self.true_pairs as f64 / reported as f64
        }
    }
}

/// Histogram of pair distances 0..=MAX_K of documents from different
/// groups of `group` consecutive fingerprints.
fn cross_group_histogram(fps: &[u64], group: usize) -> [usize; MAX_K + 1] {
    histogram(fps.len(), |i, hist| {
        let a = fps[i];
        let next_group = (i / group + 1) * group;
        for &b in &fps[next_group.min(fps.len())..] {
            let d = (a ^ b).count_ones() as usize;
            if d <= MAX_K {
                hist[d] += 1;
            }
        }
    })
}

/// Histogram of distances 0..=MAX_K that `count(i, hist)` adds for each
/// `i` in `0..n`, the `i` spread over every core.
fn histogram(
    n: usize,
    count: impl Fn(usize, &mut [usize; MAX_K + 1]) + Sync,
) -> [usize; MAX_K + 1] {
    (0..n)
        .into_par_iter()
        .fold(
            || [0usize; MAX_K + 1],
            |mut hist, i| {
                count(i, &mut hist);
                hist
            },
        )
        .reduce(
            || [0usize; MAX_K + 1],
            |mut x, y| {
                for (a, b) in x.iter_mut().zip(y) {
                    *a += b;
                }
                x
            },
        )
}

/// Scores fingerprints laid out as [`plant`] lays out the texts.
pub fn score(fps: &[u64]) -> Vec<AtK> {
    let false_hist = cross_group_histogram(fps, GROUP);
    KS.map(|k| {
        let mut at = AtK {
            k,
            planted: fps.len() / GROUP,
            false_pairs: false_hist[..=k as usize].iter().sum(),
            ..AtK::default()
        };
        for group in fps.chunks(GROUP) {
            for (i, &a) in group.iter().enumerate() {
                for (j, &b) in group.iter().enumerate().skip(i + 1) {
                    let near = (a ^ b).count_ones() <= k;
                    at.true_pairs += usize::from(near);
                    if i == 0 {
                        at.found[j - 1] += usize::from(near);
                    }
                }
            }
        }
        at
    })
    .collect()
}

/// Counts for the pages at one k.
#[derive(Debug, Clone, Default)]
pub struct PagesAtK {
    /// Articles whose two pages (one per site) are within k.
    pub found: usize,
    pub articles: usize,
    /// Pairs of pages of different articles on the same site within k.
    pub same_site_false: usize,
    /// Pairs of pages of different articles on different sites within k.
    pub cross_site_false: usize,
}

impl PagesAtK {
    pub fn recall(&self) -> f64 {
        self.found as f64 / self.articles.max(1) as f64
    }
}

/// `site_a[i]` and `site_b[i]` are article `i`'s pages.
pub fn score_pages(site_a: &[u64], site_b: &[u64]) -> Vec<PagesAtK> {
    let same_a = cross_group_histogram(site_a, 1);
    let same_b = cross_group_histogram(site_b, 1);
    // Pages of article i on site a against pages of other articles on b.
    let cross = histogram(site_a.len(), |i, hist| {
        for (j, &b) in site_b.iter().enumerate() {
            let d = (site_a[i] ^ b).count_ones() as usize;
            if j != i && d <= MAX_K {
                hist[d] += 1;
            }
        }
    });
    KS.map(|k| {
        let upto = |h: &[usize; MAX_K + 1]| h[..=k as usize].iter().sum::<usize>();
        PagesAtK {
            found: site_a
                .iter()
                .zip(site_b)
                .filter(|(a, b)| (*a ^ *b).count_ones() <= k)
                .count(),
            articles: site_a.len(),
            same_site_false: upto(&same_a) + upto(&same_b),
            cross_site_false: upto(&cross),
        }
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_pairs_by_brute_force() {
        // Two groups; group 0 all equal, group 1 far apart from everything.
        let mut fps = vec![0u64; GROUP];
        fps.push(u64::MAX);
        fps.extend((1..GROUP).map(|i| u64::MAX ^ (0xff << (8 * i))));
        fps[GROUP - 1] = 0b111; // 3 bits from its original
        let at = score(&fps);
        assert_eq!(at[0].k, 3);
        assert_eq!(at[0].found, [1, 1, 1, 1, 1]);
        assert_eq!(at[0].false_pairs, 0);
        assert_eq!(at[0].planted, 2);
        // Group 0: 6 documents, all within 3 bits: 15 pairs.
        assert_eq!(at[0].true_pairs, 15);
        assert!((at[0].precision() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn pages_count_same_and_cross_site() {
        let a = [0u64, 1, u64::MAX];
        let b = [0u64, 0xff00, 3];
        let at = score_pages(&a, &b);
        assert_eq!(at[0].found, 1);
        // Same site: a0-a1 (1 bit), b0-b2 (2); cross: a1-b0 (1), a0-b2
        // (2), a1-b2 (1).
        assert_eq!(at[0].same_site_false, 2);
        assert_eq!(at[0].cross_site_false, 3);
    }
}
