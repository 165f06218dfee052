//! Near-duplicates inside a corpus, without a database.
//!
//! A [`Corpus`] is a list of documents, each an id and a fingerprint, known
//! by its position (0, 1, …). Its distinct fingerprints are put into
//! in-memory permuted tables ([`MemIndex`], the design [`TableDesign::auto`]
//! picks for their number) and every pair within `k` is found by one sorted
//! scan per table. Documents that share a fingerprint are near-duplicates
//! at distance 0. Everything runs on the calling thread.
//!
//! ```
//! use fpdb_codec::dedup::{Corpus, Representative};
//! use fpdb_fingerprint::Fingerprint;
//!
//! let corpus: Corpus = [
//!     ("b", Fingerprint(0xff00)),
//!     ("c", Fingerprint(0x1234_5678_9abc_def0)),
//!     ("a", Fingerprint(0xff03)), // 2 bits from "b"
//! ]
//! .into_iter()
//! .collect();
//! let pairs = corpus.near_pairs(3)?;
//! assert_eq!((pairs[0].a, pairs[0].b, pairs[0].distance), (0, 2, 2));
//!
//! let clusters = corpus.clusters(3, Representative::SmallestId)?;
//! assert_eq!(clusters[0].members, [0, 2]);
//! assert_eq!(corpus.id(clusters[0].representative), Some("a"));
//! # Ok::<(), fpdb_codec::CodecError>(())
//! ```

use std::collections::HashMap;

use fpdb_fingerprint::Fingerprint;

use crate::block::DEFAULT_BLOCK_BYTES;
use crate::design::{TableDesign, MAX_K, MAX_RADIUS};
use crate::error::CodecError;
use crate::mem_index::MemIndex;
use crate::union_find::UnionFind;

type Result<T, E = CodecError> = std::result::Result<T, E>;

/// Two documents of a corpus within the asked distance, by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocPair {
    /// The earlier document (`a < b`).
    pub a: usize,
    /// The later document.
    pub b: usize,
    /// Hamming distance of their fingerprints (0 when they share one).
    pub distance: u32,
}

/// Which member names a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Representative {
    /// The member that comes first in the corpus.
    #[default]
    FirstSeen,
    /// The member with the smallest id in byte order (the first seen of
    /// equal ids).
    SmallestId,
}

/// A connected component of the near-duplicate graph: documents linked by
/// chains of pairs within `k` (so two members may be further apart than
/// `k`). Documents without a near-duplicate form no cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// The position of the member chosen by the [`Representative`] rule.
    pub representative: usize,
    /// Positions of all members, increasing; at least two.
    pub members: Vec<usize>,
}

/// Documents to de-duplicate: ids and fingerprints by position. Ids are
/// not required to be unique; a repeated id is simply another document.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    ids: Vec<String>,
    fingerprints: Vec<Fingerprint>,
}

impl Corpus {
    /// An empty corpus.
    pub fn new() -> Self {
        Corpus::default()
    }

    /// Appends a document; its position is the corpus's length before.
    pub fn push(&mut self, id: impl Into<String>, fp: Fingerprint) {
        self.ids.push(id.into());
        self.fingerprints.push(fp);
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the corpus holds no document.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of the document at `position`.
    pub fn id(&self, position: usize) -> Option<&str> {
        self.ids.get(position).map(String::as_str)
    }

    /// The fingerprint of the document at `position`.
    pub fn fingerprint(&self, position: usize) -> Option<Fingerprint> {
        self.fingerprints.get(position).copied()
    }

    /// Every document's fingerprint, by position.
    pub fn fingerprints(&self) -> &[Fingerprint] {
        &self.fingerprints
    }

    /// Every pair of documents within `k` ([`near_pairs`]).
    pub fn near_pairs(&self, k: u32) -> Result<Vec<DocPair>> {
        near_pairs(&self.fingerprints, k)
    }

    /// The clusters of documents linked by pairs within `k`, ordered by
    /// their first member. Computed from fingerprint pairs, so a large
    /// group of exact duplicates costs no quadratic list of pairs.
    pub fn clusters(&self, k: u32, representative: Representative) -> Result<Vec<Cluster>> {
        let groups = FingerprintGroups::new(&self.fingerprints);
        let mut links = Vec::new();
        for members in groups.members() {
            if let Some((&first, rest)) = members.split_first() {
                links.extend(rest.iter().map(|&other| (first, other)));
            }
        }
        for (x, y, _) in groups.near_pairs(k)? {
            if let (Some(&a), Some(&b)) = (groups.group(x).first(), groups.group(y).first()) {
                links.push((a, b));
            }
        }
        Ok(self.clusters_linked_by(links, representative))
    }

    /// The clusters of documents linked by `links` (pairs of positions,
    /// as from a rule of the caller's), ordered by their first member.
    /// Positions past the corpus are ignored.
    pub fn clusters_linked_by(
        &self,
        links: impl IntoIterator<Item = (usize, usize)>,
        representative: Representative,
    ) -> Vec<Cluster> {
        let mut sets = UnionFind::new(self.len());
        for (a, b) in links {
            if a < self.len() && b < self.len() {
                sets.union(a, b);
            }
        }
        // Union-find groups have at least two members, so every group has
        // a representative.
        sets.groups()
            .into_iter()
            .filter_map(|members| {
                Some(Cluster {
                    representative: self.representative_of(&members, representative)?,
                    members,
                })
            })
            .collect()
    }

    /// The member `rule` picks; `None` only for no members.
    fn representative_of(&self, members: &[usize], rule: Representative) -> Option<usize> {
        match rule {
            Representative::FirstSeen => members.first().copied(),
            // `min_by_key` keeps the first of equal keys: the first seen.
            Representative::SmallestId => members.iter().copied().min_by_key(|&position| {
                #[expect(
                    clippy::indexing_slicing,
                    reason = "members come from `UnionFind::new(self.len())`, so every position is below `self.ids.len()`"
                )]
                self.ids[position].as_str()
            }),
        }
    }
}

impl<S: Into<String>> FromIterator<(S, Fingerprint)> for Corpus {
    fn from_iter<I: IntoIterator<Item = (S, Fingerprint)>>(documents: I) -> Self {
        let mut corpus = Corpus::new();
        corpus.extend(documents);
        corpus
    }
}

impl<S: Into<String>> Extend<(S, Fingerprint)> for Corpus {
    fn extend<I: IntoIterator<Item = (S, Fingerprint)>>(&mut self, documents: I) {
        for (id, fp) in documents {
            self.push(id, fp);
        }
    }
}

/// Every unordered pair of positions in `fingerprints` whose fingerprints
/// are within `k` (0 ≤ k ≤ [`MAX_RADIUS`](crate::MAX_RADIUS)), each once with `a < b`,
/// sorted by `(a, b)`. Positions with equal fingerprints pair at distance
/// 0, so a group of `m` exact duplicates gives `m (m - 1) / 2` pairs.
pub fn near_pairs(fingerprints: &[Fingerprint], k: u32) -> Result<Vec<DocPair>> {
    let groups = FingerprintGroups::new(fingerprints);
    let mut pairs = Vec::new();
    for members in groups.members() {
        push_pairs_within(members, &mut pairs);
    }
    for (x, y, distance) in groups.near_pairs(k)? {
        for &a in groups.group(x) {
            for &b in groups.group(y) {
                pairs.push(DocPair {
                    a: a.min(b),
                    b: a.max(b),
                    distance,
                });
            }
        }
    }
    pairs.sort_unstable();
    Ok(pairs)
}

fn push_pairs_within(members: &[usize], pairs: &mut Vec<DocPair>) {
    let mut rest = members;
    while let Some((&a, tail)) = rest.split_first() {
        // Members are increasing, so `a < b`.
        pairs.extend(tail.iter().map(|&b| DocPair { a, b, distance: 0 }));
        rest = tail;
    }
}

/// Positions grouped by fingerprint: the distinct fingerprints, sorted,
/// and for each the increasing positions that have it.
struct FingerprintGroups {
    distinct: Vec<Fingerprint>,
    /// Positions ordered by (fingerprint, position).
    positions: Vec<usize>,
    /// `positions[starts[g]..starts[g + 1]]` have `distinct[g]`.
    starts: Vec<usize>,
}

impl FingerprintGroups {
    fn new(fingerprints: &[Fingerprint]) -> Self {
        let mut order: Vec<(Fingerprint, usize)> = fingerprints
            .iter()
            .enumerate()
            .map(|(position, &fp)| (fp, position))
            .collect();
        order.sort_unstable();
        let mut distinct = Vec::new();
        let mut starts = Vec::new();
        for (index, &(fp, _)) in order.iter().enumerate() {
            if distinct.last() != Some(&fp) {
                distinct.push(fp);
                starts.push(index);
            }
        }
        starts.push(order.len());
        FingerprintGroups {
            distinct,
            positions: order.into_iter().map(|(_, position)| position).collect(),
            starts,
        }
    }

    /// The positions holding the `g`-th distinct fingerprint; `g` must be
    /// below `distinct.len()` (as every caller's group index is: from
    /// `members` or from a search of `distinct`).
    #[expect(
        clippy::indexing_slicing,
        reason = "`starts` has `distinct.len() + 1` ascending entries ending at `positions.len()` (built in `new`), and g < distinct.len()"
    )]
    fn group(&self, g: usize) -> &[usize] {
        debug_assert!(g < self.distinct.len());
        &self.positions[self.starts[g]..self.starts[g + 1]]
    }

    /// Every group, in fingerprint order.
    fn members(&self) -> impl Iterator<Item = &[usize]> + '_ {
        (0..self.distinct.len()).map(|g| self.group(g))
    }

    /// Pairs of distinct fingerprints within `k`, as group indexes.
    fn near_pairs(&self, k: u32) -> Result<Vec<(usize, usize, u32)>> {
        if k > MAX_RADIUS {
            return Err(CodecError::RadiusTooLarge {
                radius: k,
                max: MAX_RADIUS,
            });
        }
        // Up to the widest `k` a design is made for, the design for `k`;
        // past it, the `k` = 3 design and the wide pair scan.
        let design_k = if k > MAX_K { 3 } else { k };
        let design = TableDesign::auto(design_k, self.distinct.len() as u64)?;
        if self.distinct.len() < 2 {
            return Ok(Vec::new());
        }
        let index = MemIndex::build(design, &self.distinct, DEFAULT_BLOCK_BYTES)?;
        let group_of = |fp: Fingerprint| self.distinct.binary_search(&fp).ok();
        Ok(index
            .near_pairs(k)?
            .into_iter()
            .filter_map(|(x, y, distance)| Some((group_of(x)?, group_of(y)?, distance)))
            .collect())
    }
}

/// Near-duplicate documents inside a database, grouped by fingerprint.
///
/// Either two distinct stored fingerprints within the asked distance
/// (`a < b`) with the documents of each, or one fingerprint shared by
/// several documents (`a == b`, distance 0, `a_ids == b_ids`). The
/// document pairs it stands for are [`FingerprintPair::id_pairs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FingerprintPair {
    /// The smaller fingerprint.
    pub a: Fingerprint,
    /// The larger fingerprint, or `a` again for a shared fingerprint.
    pub b: Fingerprint,
    /// Their Hamming distance.
    pub distance: u32,
    /// Documents with fingerprint `a`, in byte order.
    pub a_ids: Vec<String>,
    /// Documents with fingerprint `b`, in byte order.
    pub b_ids: Vec<String>,
}

impl FingerprintPair {
    /// Whether this is one fingerprint shared by several documents.
    pub fn is_shared(&self) -> bool {
        self.a == self.b
    }

    /// Every unordered pair of distinct documents this stands for: each id
    /// of `a` with each id of `b`, or for a shared fingerprint each two of
    /// its ids (in byte order within the pair).
    pub fn id_pairs(&self) -> Vec<(&str, &str)> {
        let mut pairs = Vec::new();
        if self.is_shared() {
            let mut rest = self.a_ids.as_slice();
            while let Some((first, tail)) = rest.split_first() {
                pairs.extend(tail.iter().map(|other| (first.as_str(), other.as_str())));
                rest = tail;
            }
        } else {
            for a in &self.a_ids {
                pairs.extend(self.b_ids.iter().map(|b| (a.as_str(), b.as_str())));
            }
        }
        pairs
    }
}

/// Documents of a database linked by chains of near-duplicate pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdCluster {
    /// The smallest id in byte order (a database keeps no insertion order
    /// to choose the first seen by).
    pub representative: String,
    /// Every member, in byte order; at least two.
    pub ids: Vec<String>,
}

/// The connected components of the documents in `pairs` (as from
/// `fpdb::Db::near_pairs`), ordered by representative. Documents in no pair
/// form no cluster.
pub fn id_clusters(pairs: &[FingerprintPair]) -> Vec<IdCluster> {
    // Union fingerprints, then expand each component to its ids: a
    // fingerprint's documents are always together. Each fingerprint gets
    // a slot when first seen (no search that could miss), with the ids of
    // the last pair naming it.
    let mut slots: HashMap<Fingerprint, (usize, &[String])> = HashMap::new();
    let mut links = Vec::with_capacity(pairs.len());
    for pair in pairs {
        let [a, b] = [(pair.a, &pair.a_ids), (pair.b, &pair.b_ids)].map(|(fp, ids)| {
            let next = slots.len();
            let entry = slots.entry(fp).or_insert((next, ids));
            entry.1 = ids;
            entry.0
        });
        links.push((a, b));
    }
    let mut sets = UnionFind::new(slots.len());
    for (a, b) in links {
        sets.union(a, b);
    }
    let mut clusters: Vec<IdCluster> = slots
        .into_values()
        .fold(
            HashMap::<usize, Vec<String>>::new(),
            |mut by_root, (slot, ids)| {
                by_root
                    .entry(sets.find(slot))
                    .or_default()
                    .extend(ids.iter().cloned());
                by_root
            },
        )
        .into_values()
        .filter_map(|mut ids| {
            ids.sort_unstable();
            ids.dedup();
            let representative = ids.first()?.clone();
            (ids.len() > 1).then_some(IdCluster {
                representative,
                ids,
            })
        })
        .collect();
    clusters.sort_unstable_by(|x, y| x.representative.cmp(&y.representative));
    clusters
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Connected components of `0..n` under `edges`, each sorted, ordered
    /// by smallest member; singletons left out.
    fn components(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut label: Vec<usize> = (0..n).collect();
        // Relabel to the smallest reachable index until nothing changes.
        loop {
            let mut changed = false;
            for &(a, b) in edges {
                let low = label[a].min(label[b]);
                for x in [a, b] {
                    if label[x] != low {
                        label[x] = low;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (x, &l) in label.iter().enumerate() {
            groups.entry(l).or_default().push(x);
        }
        groups.into_values().filter(|g| g.len() > 1).collect()
    }

    /// Documents with planted exact and near duplicates.
    fn corpus(seed: u64, n: usize) -> Corpus {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut fingerprints: Vec<Fingerprint> = Vec::new();
        for _ in 0..n {
            let roll = next();
            let fp = match (roll % 4, fingerprints.len()) {
                (0, len) if len > 0 => fingerprints[usize::try_from(next() % len as u64).unwrap()],
                (1, len) if len > 0 => {
                    let base = fingerprints[usize::try_from(next() % len as u64).unwrap()].0;
                    Fingerprint(base ^ (1 << (next() % 64)) ^ (1 << (next() % 64)))
                }
                _ => Fingerprint(next()),
            };
            fingerprints.push(fp);
        }
        fingerprints
            .into_iter()
            .enumerate()
            .map(|(position, fp)| (format!("doc{:03}", (position * 37) % n), fp))
            .collect()
    }

    #[test]
    fn corpus_pairs_and_clusters_equal_brute_force() {
        for seed in 1..6 {
            let corpus = corpus(seed, 150);
            let fps = corpus.fingerprints();
            for k in [0, 2, 3, 10, 16] {
                let mut expected = Vec::new();
                for a in 0..fps.len() {
                    for b in a + 1..fps.len() {
                        let distance = (fps[a].0 ^ fps[b].0).count_ones();
                        if distance <= k {
                            expected.push(DocPair { a, b, distance });
                        }
                    }
                }
                let pairs = corpus.near_pairs(k).unwrap();
                assert_eq!(pairs, expected, "seed {seed} k {k}");
                let edges: Vec<(usize, usize)> = pairs.iter().map(|p| (p.a, p.b)).collect();
                let expected_members = components(corpus.len(), &edges);
                for rule in [Representative::FirstSeen, Representative::SmallestId] {
                    let clusters = corpus.clusters(k, rule).unwrap();
                    let members: Vec<Vec<usize>> =
                        clusters.iter().map(|c| c.members.clone()).collect();
                    assert_eq!(members, expected_members, "seed {seed} k {k}");
                    for cluster in &clusters {
                        let expected_representative = match rule {
                            Representative::FirstSeen => cluster.members[0],
                            Representative::SmallestId => *cluster
                                .members
                                .iter()
                                .min_by_key(|&&p| (corpus.id(p).unwrap(), p))
                                .unwrap(),
                        };
                        assert_eq!(cluster.representative, expected_representative);
                    }
                }
            }
        }
    }

    #[test]
    fn id_clusters_are_the_components_of_the_id_graph() {
        let corpus = corpus(9, 200);
        let k = 3;
        // Fingerprint pairs as a database reports them: distinct near
        // fingerprints, and fingerprints shared by several documents.
        let mut ids_of: BTreeMap<Fingerprint, Vec<String>> = BTreeMap::new();
        for position in 0..corpus.len() {
            ids_of
                .entry(corpus.fingerprint(position).unwrap())
                .or_default()
                .push(corpus.id(position).unwrap().to_owned());
        }
        for ids in ids_of.values_mut() {
            ids.sort_unstable();
        }
        let distinct: Vec<Fingerprint> = ids_of.keys().copied().collect();
        let mut pairs = Vec::new();
        for (fp, ids) in &ids_of {
            if ids.len() > 1 {
                pairs.push(FingerprintPair {
                    a: *fp,
                    b: *fp,
                    distance: 0,
                    a_ids: ids.clone(),
                    b_ids: ids.clone(),
                });
            }
        }
        for (i, a) in distinct.iter().enumerate() {
            for b in &distinct[i + 1..] {
                let distance = (a.0 ^ b.0).count_ones();
                if distance <= k {
                    pairs.push(FingerprintPair {
                        a: *a,
                        b: *b,
                        distance,
                        a_ids: ids_of[a].clone(),
                        b_ids: ids_of[b].clone(),
                    });
                }
            }
        }
        let all_ids: Vec<String> = ids_of
            .values()
            .flatten()
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let index = |id: &str| all_ids.binary_search_by(|x| x.as_str().cmp(id)).unwrap();
        let edges: Vec<(usize, usize)> = pairs
            .iter()
            .flat_map(|pair| {
                pair.id_pairs()
                    .into_iter()
                    .map(|(x, y)| (index(x), index(y)))
                    .collect::<Vec<_>>()
            })
            .collect();
        let expected: BTreeSet<Vec<String>> = components(all_ids.len(), &edges)
            .into_iter()
            .map(|c| c.into_iter().map(|i| all_ids[i].clone()).collect())
            .collect();
        assert!(
            expected.len() > 3,
            "the corpus should have several clusters"
        );
        let clusters = id_clusters(&pairs);
        assert!(clusters
            .windows(2)
            .all(|w| w[0].representative < w[1].representative));
        for cluster in &clusters {
            assert_eq!(Some(&cluster.representative), cluster.ids.first());
        }
        let got: BTreeSet<Vec<String>> = clusters.into_iter().map(|c| c.ids).collect();
        assert_eq!(got, expected);
        assert!(id_clusters(&[]).is_empty());
    }
}
