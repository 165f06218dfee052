//! Bulk loading: a loaded database must answer every query exactly as a
//! database built by one-by-one inserts of the same documents, whether
//! the load was sorted in memory or spilled to disk.

use fpdb::{BulkOptions, Db, Error, Fingerprint, Options};

use fpdb_testkit::{bulk_load_within, Rng};

/// Documents with repeated ids (the last wins), shared fingerprints and
/// planted near-duplicates within 1..=3 bits.
fn documents(seed: u64, n: usize) -> Vec<(String, Fingerprint)> {
    let mut rng = Rng::new(seed);
    let mut docs: Vec<(String, Fingerprint)> = Vec::with_capacity(n);
    for i in 0..n {
        let fp = match (rng.next_u64() % 10, docs.last()) {
            (0 | 1, Some((_, previous))) => {
                let mut fp = previous.0;
                for _ in 0..=rng.next_u64() % 3 {
                    fp ^= 1 << (rng.next_u64() % 64);
                }
                fp
            }
            (2, Some((_, previous))) => previous.0,
            _ => rng.next_u64(),
        };
        let id = if rng.next_u64().is_multiple_of(20) && i > 0 {
            format!("doc-{}", rng.next_u64() % i as u64)
        } else {
            format!("doc-{i}")
        };
        docs.push((id, Fingerprint(fp)));
    }
    docs.push(("zero".into(), Fingerprint(0)));
    docs.push(("max".into(), Fingerprint(u64::MAX)));
    docs
}

fn options() -> Options {
    Options::default().expected_size(1 << 12).block_bytes(256)
}

fn inserted(dir: &std::path::Path, docs: &[(String, Fingerprint)]) -> Db {
    let db = Db::create(dir.join("inserted"), options()).unwrap();
    for chunk in docs.chunks(500) {
        db.insert_batch(chunk).unwrap();
    }
    db.merge().unwrap();
    db
}

fn loaded(
    dir: &std::path::Path,
    name: &str,
    docs: &[(String, Fingerprint)],
    memory: usize,
) -> (Db, fpdb::BulkSummary) {
    let mut db = Db::create(dir.join(name), options()).unwrap();
    let summary = bulk_load_within(&mut db, docs.iter().map(|(id, fp)| (id, *fp)), memory);
    (db, summary)
}

/// Every query both databases can be asked on this data agrees, as do the
/// stored ids and counts.
fn assert_same_answers(expected: &Db, actual: &Db, docs: &[(String, Fingerprint)], seed: u64) {
    let mut rng = Rng::new(seed);
    let mut queries: Vec<Fingerprint> = docs.iter().map(|(_, fp)| *fp).collect();
    for (_, fp) in docs.iter().take(300) {
        queries.push(Fingerprint(
            fp.0 ^ (1 << (rng.next_u64() % 64)) ^ (1 << (rng.next_u64() % 64)),
        ));
        queries.push(Fingerprint(rng.next_u64()));
    }
    for k in [0, 1, 3] {
        let want = expected.query_batch(&queries, k).unwrap();
        let got = actual.query_batch(&queries, k).unwrap();
        for ((query, want), got) in queries.iter().zip(want).zip(got) {
            assert_eq!(got, want, "query {query} k {k}");
        }
    }
    let export = |db: &Db| db.export().unwrap().map(Result::unwrap).collect::<Vec<_>>();
    assert_eq!(export(actual), export(expected));
    let (want, got) = (expected.stats(), actual.stats());
    assert_eq!(got.fingerprints, want.fingerprints);
    assert_eq!(got.ids, want.ids);
}

#[test]
fn bulk_load_answers_like_one_by_one_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(1, 6_000);
    let expected = inserted(dir.path(), &docs);
    let (db, summary) = loaded(dir.path(), "loaded", &docs, 1 << 30);
    assert_eq!(summary.spilled_runs, 0);
    assert_eq!(summary.documents, docs.len() as u64);
    assert_same_answers(&expected, &db, &docs, 2);
    // And after a reopen, from what is on disk.
    let path = db.path().to_path_buf();
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_same_answers(&expected, &db, &docs, 3);
    assert!(!path.join("bulk.tmp").exists(), "scratch files left behind");
}

#[test]
fn a_load_larger_than_its_memory_budget_spills_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(4, 8_000);
    let expected = inserted(dir.path(), &docs);
    // 64 KiB holds ~1,800 documents: ids, fp_ids and tables all spill.
    let (db, summary) = loaded(dir.path(), "spilled", &docs, 64 << 10);
    assert!(summary.spilled_runs >= 4, "{summary:?}");
    assert_same_answers(&expected, &db, &docs, 5);
}

#[test]
fn a_loaded_database_takes_online_writes_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let docs = documents(6, 3_000);
    let expected = inserted(dir.path(), &docs);
    let (db, _) = loaded(dir.path(), "loaded", &docs, 1 << 30);
    let mut rng = Rng::new(7);
    let mut more = Vec::new();
    for i in 0..2_000 {
        more.push((format!("new-{i}"), Fingerprint(rng.next_u64())));
    }
    for (id, _) in docs.iter().step_by(7) {
        expected.remove(id).unwrap();
        db.remove(id).unwrap();
    }
    expected.insert_batch(&more).unwrap();
    db.insert_batch(&more).unwrap();
    db.merge().unwrap();
    expected.merge().unwrap();
    let mut all = docs.clone();
    all.extend(more);
    assert_same_answers(&expected, &db, &all, 8);
}

#[test]
fn bulk_loads_refuse_a_database_with_documents() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::create(dir.path().join("db"), options()).unwrap();
    db.insert("a", Fingerprint(1)).unwrap();
    let error = db.bulk_loader(BulkOptions::default()).unwrap_err();
    assert!(
        matches!(
            error,
            Error::NotEmpty {
                fingerprints: 1,
                ids: 1,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("empty databases"));
    // A database emptied again (delta holding the removal) may be loaded.
    db.remove("a").unwrap();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    loader.add("b", Fingerprint(2)).unwrap();
    loader.finish().unwrap();
    assert_eq!(db.query(Fingerprint(3), 1).unwrap()[0].ids, ["b"]);
    assert!(db.query(Fingerprint(1), 0).unwrap().is_empty());
}

#[test]
fn a_dropped_loader_changes_nothing_and_bad_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::create(dir.path().join("db"), options()).unwrap();
    {
        let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
        loader.add("a", Fingerprint(1)).unwrap();
        assert!(matches!(
            loader.add("", Fingerprint(1)),
            Err(Error::BadId { .. })
        ));
        let long = "x".repeat(fpdb::MAX_ID_BYTES + 1);
        assert!(matches!(
            loader.add(&long, Fingerprint(1)),
            Err(Error::BadId { .. })
        ));
    }
    assert!(db.query(Fingerprint(1), 3).unwrap().is_empty());
    assert_eq!(db.get("a").unwrap(), None);
    assert!(!db.path().join("bulk.tmp").exists());
    // The database is still empty, so a new load is allowed.
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    loader
        .add_texts(&[("t", "一段用来测试的中文文本")])
        .unwrap();
    let summary = loader.finish().unwrap();
    assert_eq!((summary.ids, summary.fingerprints), (1, 1));
    let fp = db.fingerprint_text("一段用来测试的中文文本");
    assert_eq!(db.get("t").unwrap(), Some(fp));
}

#[test]
fn an_empty_load_leaves_an_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::create(dir.path().join("db"), options()).unwrap();
    let summary = db
        .bulk_loader(BulkOptions::default())
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(
        (summary.documents, summary.ids, summary.fingerprints),
        (0, 0, 0)
    );
    db.insert("a", Fingerprint(5)).unwrap();
    assert_eq!(db.query(Fingerprint(5), 0).unwrap()[0].ids, ["a"]);
}

#[test]
fn progress_is_reported_through_every_phase() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Db::create(dir.path().join("db"), options()).unwrap();
    let phases = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = phases.clone();
    let mut loader = db.bulk_loader(BulkOptions::default()).unwrap();
    loader.set_progress(move |p| seen.lock().unwrap().push((p.phase, p.done, p.total)));
    for i in 0..70_000u64 {
        loader.add(&i.to_string(), fpdb_testkit::spread(i)).unwrap();
    }
    loader.finish().unwrap();
    let phases = phases.lock().unwrap();
    use fpdb::BulkPhase::*;
    assert!(phases.iter().any(|p| p.0 == Reading));
    assert!(phases.iter().any(|p| p.0 == Sorting));
    let tables = db.table_count() as u64;
    assert!(phases.contains(&(Writing, tables, tables)));
    assert_eq!(phases.last().unwrap().0, Ingesting);
}
