//! The merged batch mode must answer exactly like one query at a time and
//! like a brute-force scan, whatever the design, block size, and state of
//! the delta (merged, added, removed).

use fpdb::DesignChoice;
use fpdb::{BatchStrategy, Db, Fingerprint, Match, OpenOptions, Options};

use fpdb_testkit::{brute_force, ids_by_fingerprint, Model, Rng};

fn check(design: &str, k: u32, block_bytes: usize, seed: u64) {
    let dir = tempfile::tempdir().unwrap();
    let options = Options::default()
        .k(k)
        .design(design.parse::<DesignChoice>().unwrap())
        .block_bytes(block_bytes)
        .expected_size(1 << 12);
    Db::create(dir.path().join("db"), options).unwrap();
    // A small delta limit, so some changes are merged and some are not.
    let db = OpenOptions::default()
        .delta_limit(700)
        .open(dir.path().join("db"))
        .unwrap();
    let mut rng = Rng::new(seed);
    let mut model = Model::new();
    let mut stored: Vec<u64> = Vec::new();
    for i in 0..3_000u64 {
        let fp = match stored.len() {
            0 => rng.next_u64(),
            n if rng.next_u64().is_multiple_of(3) => {
                let base = stored[rng.below(n as u64) as usize];
                rng.near(Fingerprint(base), 3).0
            }
            _ => rng.next_u64(),
        };
        stored.push(fp);
        let id = format!("d{}", i % 2_700);
        db.insert(&id, Fingerprint(fp)).unwrap();
        model.insert(id, Fingerprint(fp));
        if i.is_multiple_of(5) {
            let victim = format!("d{}", rng.next_u64() % (i + 1));
            db.remove(&victim).unwrap();
            model.remove(&victim);
        }
    }
    let mut queries: Vec<Fingerprint> = Vec::new();
    for _ in 0..1_500 {
        let base = stored[rng.below(stored.len() as u64) as usize];
        queries.push(rng.near(Fingerprint(base), u64::from(k) + 1));
        queries.push(Fingerprint(rng.next_u64()));
    }
    queries.push(Fingerprint(0));
    queries.push(Fingerprint(u64::MAX));
    queries.push(queries[0]);
    let by_fp = ids_by_fingerprint(&model);
    // A batch much smaller than the tables fetches its blocks by key; a
    // large one scans them.
    let sparse = &queries[..7];
    for query_k in 0..=k {
        let merged = db
            .query_batch_with(sparse, query_k, BatchStrategy::Merge)
            .unwrap();
        for (query, merged) in sparse.iter().zip(&merged) {
            assert_eq!(
                merged,
                &brute_force(&by_fp, *query, query_k),
                "{design} k={query_k} sparse batch, query {query}"
            );
        }
    }
    for query_k in 0..=k {
        let merged = db
            .query_batch_with(&queries, query_k, BatchStrategy::Merge)
            .unwrap();
        let probed = db
            .query_batch_with(&queries, query_k, BatchStrategy::Probe)
            .unwrap();
        for ((query, merged), probed) in queries.iter().zip(&merged).zip(&probed) {
            assert_eq!(merged, probed, "{design} k={query_k} query {query}");
            assert_eq!(
                merged,
                &brute_force(&by_fp, *query, query_k),
                "{design} k={query_k} query {query} vs brute force"
            );
        }
    }
}

#[test]
fn merged_batches_answer_like_probes_and_brute_force() {
    check("4x16", 3, 1024, 1);
    check("auto", 3, 128, 2);
    check("auto", 2, 64, 3);
    check("auto", 5, 256, 4);
}

#[test]
fn an_empty_batch_and_an_empty_database_answer_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    assert!(db
        .query_batch_with(&[], 3, BatchStrategy::Merge)
        .unwrap()
        .is_empty());
    let answers = db
        .query_batch_with(&[Fingerprint(1), Fingerprint(2)], 3, BatchStrategy::Merge)
        .unwrap();
    assert_eq!(answers, vec![Vec::<Match>::new(), Vec::new()]);
    assert!(matches!(
        db.query_batch_with(&[Fingerprint(1)], 4, BatchStrategy::Merge),
        Err(fpdb::Error::KTooLarge { k: 4, max: 3 })
    ));
}

/// Single queries read a block whole when the block cache will keep it (from
/// its second read) and only up to their range otherwise: with no cache, a
/// cache that fills up part way, and a roomy one, every answer equals brute
/// force, on the first read, the read that keeps, and warm.
#[test]
fn single_queries_are_exact_whatever_the_block_cache_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let options = Options::default()
        .design("4x16".parse::<DesignChoice>().unwrap())
        .block_bytes(256)
        .expected_size(1 << 12);
    let mut rng = Rng::new(41);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 3000);
    let db = Db::create(&path, options).unwrap();
    db.insert_batch(&documents[..2500]).unwrap();
    db.merge().unwrap();
    db.insert_batch(&documents[2500..]).unwrap();
    drop(db);
    let model: Model = documents.iter().cloned().collect();
    for cache_bytes in [0, 8 * 1024, 1 << 30] {
        let db = OpenOptions::default()
            .block_cache_bytes(cache_bytes)
            .open(&path)
            .unwrap();
        for _pass in 0..3 {
            fpdb_testkit::assert_equals_model(&db, &model, 300, &mut rng);
        }
        let kept = db.stats().block_cache_bytes;
        assert!(kept <= cache_bytes, "{kept} bytes kept of {cache_bytes}");
        if cache_bytes == 8 * 1024 {
            assert!(kept > 0, "the small cache kept nothing");
        }
    }
}

/// A sparse walk reads the blocks it needs 64 at a time and takes kept ones
/// from memory (from their sync points): with some blocks kept (read twice
/// by single queries) and several reads' worth of blocks wanted, every
/// answer equals brute force. (About 1,500 blocks per table and 300
/// queries: sparse, as a fresh `fpdb query` of 1,000 against 10M is.)
#[test]
fn sparse_walks_mix_kept_blocks_and_batched_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let options = Options::default()
        .design("4x16".parse::<DesignChoice>().unwrap())
        .block_bytes(64)
        .expected_size(1 << 14);
    let mut rng = Rng::new(43);
    let mut documents: Vec<(String, Fingerprint)> = Vec::new();
    for i in 0..12_000 {
        let fp = match i % 4 {
            0 if i > 0 => {
                let base = documents[rng.below(i as u64) as usize].1;
                rng.near(base, 3)
            }
            _ => Fingerprint(rng.next_u64()),
        };
        documents.push((format!("d{i}"), fp));
    }
    let db = Db::create(&path, options).unwrap();
    db.insert_batch(&documents).unwrap();
    db.merge().unwrap();
    drop(db);
    let model: Model = documents.iter().cloned().collect();
    let by_fp = ids_by_fingerprint(&model);

    let db = Db::open(&path).unwrap();
    let queries: Vec<Fingerprint> = (0..300)
        .map(|i| match i % 2 {
            0 => {
                let base = documents[rng.below(12_000) as usize].1;
                rng.near(base, 3)
            }
            _ => Fingerprint(rng.next_u64()),
        })
        .collect();
    for query in queries.iter().step_by(3) {
        for _read in 0..2 {
            db.query(*query, 3).unwrap();
        }
    }
    assert!(db.stats().block_cache_bytes > 0, "nothing kept");
    for pass in 0..3 {
        let merged = db
            .query_batch_with(&queries, 3, BatchStrategy::Merge)
            .unwrap();
        for (query, merged) in queries.iter().zip(&merged) {
            assert_eq!(
                merged,
                &brute_force(&by_fp, *query, 3),
                "pass {pass}, query {query}"
            );
        }
    }
}
