//! What `fpdb report` shows, computed from a database's near pairs, and
//! the HTML page it is written as.

mod chart;
mod page;
mod words;

use std::collections::BTreeMap;

use fpdb::{Fingerprint, FingerprintPair, IdCluster};

pub use page::write_page;

/// Everything the page shows, in the order it shows it.
#[derive(Debug)]
pub struct Report {
    /// The database's path as given.
    pub path: String,
    /// The table design, in words.
    pub design: String,
    /// The distance pairs were found within.
    pub k: u32,
    pub stats: fpdb::Stats,
    /// Document pairs at each distance `0..=k` (index = distance).
    pub pairs_by_distance: Vec<u64>,
    /// Clusters by size, in bins of growing width.
    pub cluster_bins: Vec<ClusterBin>,
    /// Documents in some cluster.
    pub clustered_documents: u64,
    /// Members of the largest cluster (0 when there is none).
    pub largest_cluster: u64,
    pub sample: Vec<SamplePair>,
    /// How many --texts documents were read (None: no --texts given).
    pub texts_read: Option<u64>,
}

impl Report {
    /// The report of `pairs` (as `Db::near_pairs` returns them) with up to
    /// `sample` pairs to show.
    pub fn new(
        path: String,
        design: String,
        k: u32,
        stats: fpdb::Stats,
        pairs: &[FingerprintPair],
        sample: usize,
    ) -> Self {
        let clusters = fpdb::id_clusters(pairs);
        Report {
            path,
            design,
            k,
            stats,
            pairs_by_distance: pairs_by_distance(pairs, k),
            cluster_bins: cluster_bins(&clusters),
            clustered_documents: clusters.iter().map(|c| c.ids.len() as u64).sum(),
            largest_cluster: clusters
                .iter()
                .map(|c| c.ids.len() as u64)
                .max()
                .unwrap_or(0),
            sample: sample_pairs(pairs, k, sample),
            texts_read: None,
        }
    }

    /// Document pairs within k.
    pub fn pairs(&self) -> u64 {
        self.pairs_by_distance.iter().sum()
    }

    /// Clusters of two or more documents.
    pub fn clusters(&self) -> u64 {
        self.cluster_bins.iter().map(|bin| bin.clusters).sum()
    }
}

/// Clusters whose sizes fall in `min..=max`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterBin {
    pub min: u64,
    pub max: u64,
    pub clusters: u64,
    pub documents: u64,
}

impl ClusterBin {
    pub fn label(&self) -> String {
        if self.min == self.max {
            self.min.to_string()
        } else {
            format!("{}–{}", self.min, self.max)
        }
    }
}

/// One pair of documents shown side by side.
#[derive(Debug)]
pub struct SamplePair {
    pub a: String,
    pub b: String,
    pub fa: Fingerprint,
    pub fb: Fingerprint,
    pub distance: u32,
    /// Their texts, when --texts held them.
    pub texts: Option<[Text; 2]>,
}

/// A document's text from --texts, and whether it still hashes to the
/// fingerprint the database holds for it.
#[derive(Debug, Clone)]
pub struct Text {
    pub text: String,
    pub matches_stored: bool,
}

/// Document pairs (not fingerprint pairs) at each distance: a shared
/// fingerprint of m documents stands for m(m − 1)/2 of them.
fn pairs_by_distance(pairs: &[FingerprintPair], k: u32) -> Vec<u64> {
    let mut counts = vec![0u64; k as usize + 1];
    for pair in pairs {
        let documents = if pair.is_shared() {
            let m = pair.a_ids.len() as u64;
            m * m.saturating_sub(1) / 2
        } else {
            pair.a_ids.len() as u64 * pair.b_ids.len() as u64
        };
        if let Some(count) = counts.get_mut(pair.distance as usize) {
            *count += documents;
        }
    }
    counts
}

/// The bin a cluster of `size` falls in: 2 to 5 each their own, then
/// 6–10, 11–100, 101–1,000 and so on, so a few huge clusters do not
/// leave the common small ones a bar each.
fn bin_of(size: u64) -> (u64, u64) {
    if size <= 5 {
        return (size, size);
    }
    let mut max = 10;
    let mut min = 6;
    while size > max {
        min = max + 1;
        max = max.saturating_mul(10);
    }
    (min, max)
}

fn cluster_bins(clusters: &[IdCluster]) -> Vec<ClusterBin> {
    let mut bins: BTreeMap<(u64, u64), (u64, u64)> = BTreeMap::new();
    for cluster in clusters {
        let size = cluster.ids.len() as u64;
        let entry = bins.entry(bin_of(size)).or_default();
        entry.0 += 1;
        entry.1 += size;
    }
    // Every bin up to the largest is drawn, empty ones too, so the axis
    // reads as a scale.
    let Some(&(_, last)) = bins.keys().next_back() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut size = 2;
    while size <= last {
        let (min, max) = bin_of(size);
        let (clusters, documents) = bins.get(&(min, max)).copied().unwrap_or_default();
        out.push(ClusterBin {
            min,
            max,
            clusters,
            documents,
        });
        match max.checked_add(1) {
            Some(next) => size = next,
            None => break,
        }
    }
    out
}

/// Up to `n` document pairs, taken in turn from each distance, the
/// largest (the least obvious duplicates) first; in id order within a
/// distance. At most `n` are kept per distance while reading.
fn sample_pairs(pairs: &[FingerprintPair], k: u32, n: usize) -> Vec<SamplePair> {
    let mut by_distance: Vec<Vec<SamplePair>> = (0..=k).map(|_| Vec::new()).collect();
    for pair in pairs {
        let Some(kept) = by_distance.get_mut(pair.distance as usize) else {
            continue;
        };
        // Not `id_pairs()`: a fingerprint shared by m documents stands for
        // m(m − 1)/2 pairs, and only the first few are wanted.
        'ids: for (i, a) in pair.a_ids.iter().enumerate() {
            #[expect(
                clippy::indexing_slicing,
                reason = "i indexes a_ids, so i + 1 <= a_ids.len()"
            )]
            let others = if pair.is_shared() {
                &pair.a_ids[i + 1..]
            } else {
                &pair.b_ids
            };
            for b in others {
                if kept.len() >= n {
                    break 'ids;
                }
                kept.push(SamplePair {
                    a: a.clone(),
                    b: b.clone(),
                    fa: pair.a,
                    fb: pair.b,
                    distance: pair.distance,
                    texts: None,
                });
            }
        }
    }
    for kept in &mut by_distance {
        kept.sort_by(|x, y| (&x.a, &x.b).cmp(&(&y.a, &y.b)));
    }
    let mut queues: Vec<std::vec::IntoIter<SamplePair>> =
        by_distance.into_iter().rev().map(Vec::into_iter).collect();
    let mut sample = Vec::with_capacity(n);
    while sample.len() < n {
        let before = sample.len();
        for queue in &mut queues {
            if sample.len() == n {
                break;
            }
            sample.extend(queue.next());
        }
        if sample.len() == before {
            break;
        }
    }
    sample
}

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and
/// attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_every_size_once() {
        assert_eq!(bin_of(2), (2, 2));
        assert_eq!(bin_of(5), (5, 5));
        assert_eq!(bin_of(6), (6, 10));
        assert_eq!(bin_of(10), (6, 10));
        assert_eq!(bin_of(11), (11, 100));
        assert_eq!(bin_of(101), (101, 1000));
        assert_eq!(bin_of(u64::MAX).1, u64::MAX);
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
