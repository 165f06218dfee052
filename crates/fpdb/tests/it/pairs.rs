//! Near-duplicate pairs and clusters, inside a database (`Db::near_pairs`,
//! `id_clusters`) and over a corpus (`fpdb::dedup`), against brute force:
//! every pair of documents compared, components found by breadth-first
//! search.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use fpdb::dedup::{self, Corpus, DocPair, Representative};
use fpdb::DesignChoice;
use fpdb::{id_clusters, Db, Fingerprint, Options};
use fpdb_testkit::Rng;

/// `fp` with exactly `bits` distinct bits flipped, drawn from `rng`.
fn flip_bits(rng: &mut Rng, fp: u64, bits: u32) -> u64 {
    let mut out = fp;
    let mut flipped = 0;
    while flipped < bits {
        let bit = 1u64 << rng.below_scaled(64);
        if (out ^ fp) & bit == 0 {
            out ^= bit;
            flipped += 1;
        }
    }
    out
}

/// `n` documents: random fingerprints, a dense family sharing 40 top bits
/// (long runs in every table), and planted near-duplicates 0 to 6 bits
/// from an earlier document (0 bits: an exact duplicate under a new id;
/// planting from planted ones makes chains, so clusters grow past pairs).
fn documents(seed: u64, n: usize) -> Vec<(String, Fingerprint)> {
    let mut rng = Rng::new(seed);
    let dense_top = rng.next_u64() & !0xff_ffff;
    let mut docs: Vec<(String, Fingerprint)> = Vec::with_capacity(n);
    for i in 0..n {
        let fp = match rng.below_scaled(10) {
            0..=3 if !docs.is_empty() => {
                let (_, base) = docs[rng.below_scaled(docs.len() as u64) as usize];
                let bits = rng.below_scaled(7) as u32;
                flip_bits(&mut rng, base.0, bits)
            }
            4 => dense_top | (rng.next_u64() & 0xff_ffff),
            _ => rng.next_u64(),
        };
        // Ids in a shuffled order, so "smallest id" differs from "first seen".
        docs.push((
            format!("doc-{:04x}-{i}", rng.below_scaled(0x1_0000)),
            Fingerprint(fp),
        ));
    }
    docs
}

/// Every pair of documents within `k`, as (smaller id, larger id, distance).
fn brute_id_pairs(docs: &BTreeMap<String, Fingerprint>, k: u32) -> BTreeSet<(String, String, u32)> {
    let docs: Vec<_> = docs.iter().collect();
    let mut pairs = BTreeSet::new();
    for (i, (a, fa)) in docs.iter().enumerate() {
        for (b, fb) in &docs[i + 1..] {
            let distance = fa.distance(**fb);
            if distance <= k {
                pairs.insert(((*a).clone(), (*b).clone(), distance));
            }
        }
    }
    pairs
}

/// Connected components of `n` nodes under `edges`, by breadth-first
/// search; singletons left out; each sorted, in order of smallest member.
fn bfs_components(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut neighbours = vec![Vec::new(); n];
    for &(a, b) in edges {
        neighbours[a].push(b);
        neighbours[b].push(a);
    }
    let mut seen = vec![false; n];
    let mut components = Vec::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        let mut component = vec![start];
        let mut queue = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for &next in &neighbours[node] {
                if !seen[next] {
                    seen[next] = true;
                    component.push(next);
                    queue.push_back(next);
                }
            }
        }
        if component.len() > 1 {
            component.sort_unstable();
            components.push(component);
        }
    }
    components
}

/// `Db::near_pairs` as a set of id pairs, checking the shape of each
/// fingerprint pair and that no id pair is reported twice.
fn db_id_pairs(db: &Db, k: u32) -> BTreeSet<(String, String, u32)> {
    let pairs = db.near_pairs(k).unwrap();
    let mut listed = Vec::new();
    for pair in &pairs {
        assert_eq!(pair.distance, pair.a.distance(pair.b));
        assert!(pair.distance <= k);
        if pair.is_shared() {
            assert_eq!(pair.a_ids, pair.b_ids);
            assert!(pair.a_ids.len() > 1);
        } else {
            assert!(pair.a < pair.b);
        }
        for ids in [&pair.a_ids, &pair.b_ids] {
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids not sorted");
            for id in ids {
                assert_eq!(
                    db.get(id).unwrap(),
                    Some(if ids == &pair.a_ids { pair.a } else { pair.b })
                );
            }
        }
        for (x, y) in pair.id_pairs() {
            listed.push((x.min(y).to_string(), x.max(y).to_string(), pair.distance));
        }
    }
    assert!(pairs
        .windows(2)
        .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b)));
    let set: BTreeSet<_> = listed.iter().cloned().collect();
    assert_eq!(set.len(), listed.len(), "an id pair was reported twice");
    set
}

fn check_db(db: &Db, model: &BTreeMap<String, Fingerprint>, when: &str) {
    for k in 0..=db.k() {
        let expected = brute_id_pairs(model, k);
        // The planted near-duplicates make every case non-trivial.
        assert!(k < 2 || expected.len() > 10, "{when}: too few pairs");
        assert_eq!(db_id_pairs(db, k), expected, "{when}, k = {k}");
    }
    // Clusters of the database's pairs are the components of the
    // brute-force id graph.
    let k = db.k();
    let ids: Vec<&String> = model.keys().collect();
    let position = |id: &str| ids.binary_search_by(|x| x.as_str().cmp(id)).unwrap();
    let edges: Vec<(usize, usize)> = brute_id_pairs(model, k)
        .iter()
        .map(|(a, b, _)| (position(a), position(b)))
        .collect();
    let expected: BTreeSet<Vec<String>> = bfs_components(ids.len(), &edges)
        .into_iter()
        .map(|c| c.into_iter().map(|i| ids[i].clone()).collect())
        .collect();
    let clusters = id_clusters(&db.near_pairs(k).unwrap());
    for cluster in &clusters {
        assert_eq!(Some(&cluster.representative), cluster.ids.iter().min());
    }
    assert!(clusters
        .windows(2)
        .all(|w| w[0].representative < w[1].representative));
    let got: BTreeSet<Vec<String>> = clusters.into_iter().map(|c| c.ids).collect();
    assert_eq!(got, expected, "{when}: clusters");
}

#[test]
fn db_near_pairs_equal_brute_force_in_blocks_delta_and_after_removes() {
    let cases = [
        (1, 3, DesignChoice::Auto),
        (2, 3, DesignChoice::Named("split-4-4".into())),
        (3, 2, DesignChoice::Named("split-3".into())),
        (4, 5, DesignChoice::Auto),
        (5, 3, DesignChoice::Named("parts-2-3".into())),
    ];
    for (seed, k, design) in cases {
        let dir = tempfile::tempdir().unwrap();
        let options = Options::default()
            .k(k)
            .expected_size(1 << 20)
            .design(design)
            .block_bytes(256);
        let db = Db::create(dir.path().join("db"), options).unwrap();
        let docs = documents(seed, 1500);
        let mut model = BTreeMap::new();
        let (blocks, delta) = docs.split_at(900);
        db.insert_batch(blocks).unwrap();
        db.merge().unwrap();
        model.extend(blocks.iter().cloned());
        check_db(&db, &model, "all in blocks");

        db.insert_batch(delta).unwrap();
        model.extend(delta.iter().cloned());
        check_db(&db, &model, "blocks and delta");

        // Remove some documents of each half (fingerprints in the blocks
        // become removed, ones in the delta un-added) and move some.
        let mut rng = Rng::new(seed ^ 0xdead);
        for (id, fp) in docs.iter().step_by(7) {
            if rng.below_scaled(3) == 0 {
                let moved = Fingerprint(flip_bits(&mut rng, fp.0, 1));
                db.insert(id, moved).unwrap();
                model.insert(id.clone(), moved);
            } else {
                db.remove(id).unwrap();
                model.remove(id);
            }
        }
        check_db(&db, &model, "after removes");

        let path = db.path().to_path_buf();
        drop(db);
        let db = Db::open(&path).unwrap();
        check_db(&db, &model, "reopened with a delta");
        db.merge().unwrap();
        check_db(&db, &model, "after merge");
    }
}

#[test]
fn db_near_pairs_with_few_pairs_and_no_shared_fingerprints() {
    // Few pairs and one id per fingerprint: ids are read by seeking to
    // each paired fingerprint rather than by a whole scan.
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    let mut rng = Rng::new(99);
    let mut model = BTreeMap::new();
    for i in 0..3000 {
        model.insert(format!("r{i}"), Fingerprint(rng.next_u64()));
    }
    let bases: Vec<Fingerprint> = model.values().copied().take(30).collect();
    for (i, base) in bases.iter().enumerate() {
        let bits = 1 + rng.below_scaled(3) as u32;
        model.insert(
            format!("p{i}"),
            Fingerprint(flip_bits(&mut rng, base.0, bits)),
        );
    }
    let docs: Vec<(String, Fingerprint)> = model.iter().map(|(i, f)| (i.clone(), *f)).collect();
    db.insert_batch(&docs).unwrap();
    db.merge().unwrap();
    db.remove("p3").unwrap();
    model.remove("p3");
    check_db(&db, &model, "few pairs");
}

#[test]
fn db_near_pairs_rejects_k_above_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    assert!(matches!(
        db.near_pairs(db.k() + 1),
        Err(fpdb::Error::KTooLarge { .. })
    ));
    assert!(db.near_pairs(db.k()).unwrap().is_empty());
}

/// Every pair of positions within `k`.
fn brute_doc_pairs(fps: &[Fingerprint], k: u32) -> Vec<DocPair> {
    let mut pairs = Vec::new();
    for a in 0..fps.len() {
        for b in a + 1..fps.len() {
            let distance = fps[a].distance(fps[b]);
            if distance <= k {
                pairs.push(DocPair { a, b, distance });
            }
        }
    }
    pairs
}

#[test]
fn dedup_pairs_and_clusters_equal_brute_force() {
    for seed in 10..16 {
        let docs = documents(seed, 2500);
        let corpus: Corpus = docs.iter().cloned().collect();
        assert_eq!(corpus.len(), docs.len());
        for k in 0..=6 {
            let expected = brute_doc_pairs(corpus.fingerprints(), k);
            assert!(
                expected.iter().any(|p| p.distance == k),
                "seed {seed}: no pair at {k}"
            );
            let pairs = corpus.near_pairs(k).unwrap();
            assert_eq!(pairs, expected, "seed {seed}, k = {k}");

            let edges: Vec<(usize, usize)> = expected.iter().map(|p| (p.a, p.b)).collect();
            let components = bfs_components(corpus.len(), &edges);
            for rule in [Representative::FirstSeen, Representative::SmallestId] {
                let clusters = corpus.clusters(k, rule).unwrap();
                let members: Vec<Vec<usize>> = clusters.iter().map(|c| c.members.clone()).collect();
                assert_eq!(members, components, "seed {seed}, k = {k}, clusters");
                for cluster in &clusters {
                    let expected = match rule {
                        Representative::FirstSeen => cluster.members[0],
                        Representative::SmallestId => *cluster
                            .members
                            .iter()
                            .min_by_key(|&&m| (corpus.id(m).unwrap(), m))
                            .unwrap(),
                    };
                    assert_eq!(cluster.representative, expected);
                }
            }
        }
    }
}

#[test]
fn dedup_reports_exact_duplicates_and_representatives() {
    let corpus: Corpus = [
        ("z", Fingerprint(7)),
        ("m", Fingerprint(7)),  // same fingerprint as "z"
        ("q", Fingerprint(!0)), // alone
        ("a", Fingerprint(7)),
        ("m", Fingerprint(6)), // a repeated id is another document
    ]
    .into_iter()
    .collect();
    let pairs = corpus.near_pairs(0).unwrap();
    let listed: Vec<(usize, usize, u32)> = pairs.iter().map(|p| (p.a, p.b, p.distance)).collect();
    assert_eq!(listed, [(0, 1, 0), (0, 3, 0), (1, 3, 0)]);
    let first = corpus.clusters(1, Representative::FirstSeen).unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].members, [0, 1, 3, 4]);
    assert_eq!(first[0].representative, 0);
    let smallest = corpus.clusters(1, Representative::SmallestId).unwrap();
    assert_eq!(corpus.id(smallest[0].representative), Some("a"));
    // Equal smallest ids: the first seen of them.
    let tied: Corpus = [
        ("b", Fingerprint(1)),
        ("a", Fingerprint(3)),
        ("a", Fingerprint(2)),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        tied.clusters(1, Representative::SmallestId).unwrap()[0].representative,
        1
    );
}

#[test]
fn dedup_handles_empty_and_rejects_large_k() {
    assert!(dedup::near_pairs(&[], 3).unwrap().is_empty());
    assert!(Corpus::new()
        .clusters(3, Representative::FirstSeen)
        .unwrap()
        .is_empty());
    assert!(dedup::near_pairs(&[Fingerprint(1)], 3).unwrap().is_empty());
    assert!(dedup::near_pairs(&[Fingerprint(1), Fingerprint(1)], 99).is_err());
}
