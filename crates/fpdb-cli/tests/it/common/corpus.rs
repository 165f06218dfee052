//! A generated corpus of fingerprints with planted near-duplicates, and
//! its pairs and clusters found by brute force.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use fpdb_testkit::Rng;

/// Documents `(id, fingerprint)`: random fingerprints and planted
/// near-duplicates 0 to 4 bits from an earlier one (0: an exact duplicate).
pub fn corpus(seed: u64, n: usize) -> Vec<(String, u64)> {
    let mut rng = Rng::new(seed);
    let mut docs: Vec<(String, u64)> = Vec::new();
    for i in 0..n {
        let fp = if !docs.is_empty() && rng.below(5) < 2 {
            let mut fp = docs[rng.below(docs.len() as u64) as usize].1;
            for _ in 0..rng.below(5) {
                fp ^= 1 << rng.below(64);
            }
            fp
        } else {
            rng.next_u64()
        };
        docs.push((format!("u{:03}-{i}", rng.below(1000)), fp));
    }
    docs
}

pub fn fps_text(docs: &[(String, u64)]) -> String {
    docs.iter()
        .map(|(id, fp)| format!("{id}\t{fp:016x}\n"))
        .collect()
}

/// Pairs within `k` as (smaller id, larger id, distance).
pub fn brute_pairs(docs: &[(String, u64)], k: u32) -> BTreeSet<(String, String, u32)> {
    let mut pairs = BTreeSet::new();
    for (i, (a, fa)) in docs.iter().enumerate() {
        for (b, fb) in &docs[i + 1..] {
            let distance = (fa ^ fb).count_ones();
            if distance <= k {
                pairs.insert((a.min(b).clone(), a.max(b).clone(), distance));
            }
        }
    }
    pairs
}

/// Connected components of the brute-force pairs, as sorted id lists.
pub fn brute_clusters(docs: &[(String, u64)], k: u32) -> BTreeSet<Vec<String>> {
    let mut neighbours: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let pairs = brute_pairs(docs, k);
    for (a, b, _) in &pairs {
        neighbours.entry(a).or_default().push(b);
        neighbours.entry(b).or_default().push(a);
    }
    let mut seen = BTreeSet::new();
    let mut clusters = BTreeSet::new();
    for &start in neighbours.keys() {
        if !seen.insert(start) {
            continue;
        }
        let mut cluster = vec![start.to_string()];
        let mut queue = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for &next in &neighbours[node] {
                if seen.insert(next) {
                    cluster.push(next.to_string());
                    queue.push_back(next);
                }
            }
        }
        cluster.sort();
        clusters.insert(cluster);
    }
    clusters
}
