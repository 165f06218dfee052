//! The database's contract at its edges: errors that name what is wrong,
//! locking, read-only handles, text entry points and check-and-insert.

use fpdb::{Db, Error, Fingerprint, Options, MAX_ID_BYTES};

fn new_db() -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::create(dir.path().join("db"), Options::default()).unwrap();
    (dir, db)
}

#[test]
fn a_second_writer_is_refused_with_locked() {
    let (_dir, db) = new_db();
    assert!(matches!(Db::open(db.path()), Err(Error::Locked { .. })));
    // A read-only handle may open beside the writer.
    let reader = fpdb::OpenOptions::new()
        .read_only(true)
        .open(db.path())
        .unwrap();
    assert!(reader.query(Fingerprint(1), 3).unwrap().is_empty());
}

#[test]
fn read_only_handles_refuse_writes_and_see_what_was_written() {
    let (dir, db) = new_db();
    db.insert("a", Fingerprint(42)).unwrap();
    let path = db.path().to_path_buf();
    drop(db);
    let reader = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    assert!(matches!(
        reader.insert("b", Fingerprint(1)),
        Err(Error::ReadOnly)
    ));
    assert!(matches!(reader.remove("a"), Err(Error::ReadOnly)));
    assert_eq!(reader.query(Fingerprint(43), 1).unwrap()[0].ids, ["a"]);
    drop(dir);
}

#[test]
fn create_and_open_name_bad_paths() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        Db::open(dir.path().join("missing")),
        Err(Error::NotFound { .. })
    ));
    std::fs::write(dir.path().join("file"), b"x").unwrap();
    assert!(matches!(
        Db::create(dir.path().join("file"), Options::default()),
        Err(Error::AlreadyExists { .. })
    ));
    assert!(matches!(
        Db::create(dir.path(), Options::default()),
        Err(Error::AlreadyExists { .. })
    ));
    let too_large_k = Options::default().k(8);
    assert!(matches!(
        Db::create(dir.path().join("k8"), too_large_k),
        Err(Error::InvalidOptions(_))
    ));
    let mut learned = Options::default();
    learned.simhash.weighting = fpdb::simhash::Weighting::Learned { digest: 7 };
    assert!(matches!(
        Db::create(dir.path().join("learned"), learned),
        Err(Error::InvalidOptions(_))
    ));
    assert!(!dir.path().join("learned").exists());
}

#[test]
fn radius_above_the_widest_is_an_error_that_says_so() {
    let (_dir, db) = new_db();
    let error = db.query(Fingerprint(0), 17).unwrap_err();
    assert!(matches!(error, Error::RadiusTooLarge { k: 17, max: 16 }));
    assert!(error.to_string().contains("k = 17"));
    assert!(matches!(
        db.query_batch(&[Fingerprint(0)], 20),
        Err(Error::RadiusTooLarge { .. })
    ));
    // Past the database's own k, a query still answers.
    assert!(db.query(Fingerprint(0), 9).unwrap().is_empty());
}

#[test]
fn ids_must_be_1_to_1024_bytes_and_bad_ids_change_nothing() {
    let (_dir, db) = new_db();
    let longest = "x".repeat(MAX_ID_BYTES);
    db.insert(&longest, Fingerprint(7)).unwrap();
    assert_eq!(db.get(&longest).unwrap(), Some(Fingerprint(7)));
    let too_long = "x".repeat(MAX_ID_BYTES + 1);
    assert!(matches!(
        db.insert(&too_long, Fingerprint(7)),
        Err(Error::BadId { len: 1025, .. })
    ));
    assert!(matches!(
        db.insert("", Fingerprint(7)),
        Err(Error::BadId { len: 0, .. })
    ));
    // A batch with one bad id is refused whole.
    let batch = [("good", Fingerprint(1)), ("", Fingerprint(2))];
    assert!(db.insert_batch(&batch).is_err());
    assert_eq!(db.get("good").unwrap(), None);
    assert_eq!(db.stats().ids, 1);
}

#[test]
fn many_ids_share_a_fingerprint_and_the_last_removal_removes_it() {
    let (_dir, db) = new_db();
    db.insert_batch(&[
        ("a", Fingerprint(5)),
        ("b", Fingerprint(5)),
        ("c", Fingerprint(6)),
    ])
    .unwrap();
    let matches = db.query(Fingerprint(5), 0).unwrap();
    assert_eq!(matches[0].ids, ["a", "b"]);
    assert_eq!(db.stats().fingerprints, 2);
    // Re-inserting an id moves it to its new fingerprint.
    db.insert("a", Fingerprint(6)).unwrap();
    assert_eq!(db.query(Fingerprint(6), 0).unwrap()[0].ids, ["a", "c"]);
    assert_eq!(db.remove("b").unwrap(), Some(Fingerprint(5)));
    assert!(db.query(Fingerprint(5), 0).unwrap().is_empty());
    assert_eq!(db.stats().fingerprints, 1);
    db.merge().unwrap();
    assert!(db.query(Fingerprint(5), 0).unwrap().is_empty());
    assert_eq!(db.remove("nobody").unwrap(), None);
}

/// Queries keep their RocksDB iterators for the next query: a kept one
/// must still see every write made since it was last used.
#[test]
fn ids_written_after_a_query_are_seen_by_the_next_query() {
    let (_dir, db) = new_db();
    db.insert("a", Fingerprint(5)).unwrap();
    for round in 0..3 {
        // Queries on several threads, so that several iterators are kept.
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| db.query(Fingerprint(5), 0).unwrap());
            }
        });
        let id = format!("b{round}");
        db.insert(&id, Fingerprint(5)).unwrap();
        let ids = &db.query(Fingerprint(5), 0).unwrap()[0].ids;
        assert!(ids.contains(&id), "round {round}: {ids:?}");
        db.remove("a").unwrap();
        assert!(!db.query(Fingerprint(5), 0).unwrap()[0]
            .ids
            .contains(&"a".to_string()));
        db.insert("a", Fingerprint(5)).unwrap();
    }
    assert_eq!(
        db.query(Fingerprint(5), 0).unwrap()[0].ids,
        ["a", "b0", "b1", "b2"]
    );
}

/// One batch that moves an id away and back: its writes to the same keys
/// (put, delete, put again) must apply in order, whatever order the batch
/// hands them to RocksDB in.
#[test]
fn an_id_moved_away_and_back_within_one_batch_ends_where_it_was_put_last() {
    let (dir, db) = new_db();
    db.insert_batch(&[
        ("x", Fingerprint(1)),
        ("y", Fingerprint(1)),
        ("x", Fingerprint(2)),
        ("z", Fingerprint(3)),
        ("x", Fingerprint(1)),
        ("z", Fingerprint(4)),
    ])
    .unwrap();
    let check = |db: &Db| {
        assert_eq!(db.get("x").unwrap(), Some(Fingerprint(1)));
        assert_eq!(db.get("z").unwrap(), Some(Fingerprint(4)));
        assert_eq!(db.query(Fingerprint(1), 0).unwrap()[0].ids, ["x", "y"]);
        assert!(db.query(Fingerprint(2), 0).unwrap().is_empty());
        assert!(db.query(Fingerprint(3), 0).unwrap().is_empty());
        assert_eq!(db.query(Fingerprint(4), 0).unwrap()[0].ids, ["z"]);
        let stats = db.stats();
        assert_eq!((stats.fingerprints, stats.ids), (2, 3));
    };
    check(&db);
    drop(db);
    let db = Db::open(dir.path().join("db")).unwrap();
    check(&db);
    db.merge().unwrap();
    check(&db);
}

#[test]
fn check_and_insert_reports_what_was_there_and_remembers() {
    let (_dir, db) = new_db();
    assert!(db
        .check_and_insert("p1", Fingerprint(0b1111), 3)
        .unwrap()
        .matches
        .is_empty());
    let seen = db
        .check_and_insert("p2", Fingerprint(0b0111), 3)
        .unwrap()
        .matches;
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0].distance, seen[0].ids.clone()),
        (1, vec!["p1".to_string()])
    );
    assert_eq!(db.query(Fingerprint(0b0111), 0).unwrap()[0].ids, ["p2"]);
}

#[test]
fn text_is_hashed_with_the_stored_options() {
    let (_dir, db) = new_db();
    let page =
        "网络爬虫每天抓取大量网页，其中许多网页内容几乎相同，只是广告、日期或计数器有所不同。";
    let fp = db.insert_text("https://a.example/1", page).unwrap();
    assert_eq!(fp, fpdb::Simhasher::default().fingerprint(page));
    let matches = db.query_text(page, 3).unwrap();
    assert_eq!(matches[0].ids, ["https://a.example/1"]);
}

#[test]
fn writes_survive_reopen_with_and_without_merge() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::create(&path, Options::default()).unwrap();
    db.insert("kept-in-delta", Fingerprint(100)).unwrap();
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_eq!(db.stats().delta_added, 1);
    db.merge().unwrap();
    db.insert("after-merge", Fingerprint(101)).unwrap();
    drop(db);
    let db = Db::open(&path).unwrap();
    let stats = db.stats();
    assert_eq!(
        (stats.fingerprints, stats.ids, stats.delta_added),
        (2, 2, 1)
    );
    assert_eq!(db.query(Fingerprint(100), 1).unwrap().len(), 2);
    assert!(stats.tables.iter().all(|t| t.blocks == 1 && t.bytes > 0));
}

#[test]
fn a_damaged_manifest_is_named_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    drop(Db::create(&path, Options::default()).unwrap());
    // Overwrite the manifest through RocksDB itself with garbage.
    {
        let rocks = fpdb_testkit::open_raw(&path);
        let meta = rocks.cf_handle("meta").unwrap();
        rocks
            .put_cf(meta, b"manifest", b"not a manifest at all")
            .unwrap();
    }
    match Db::open(&path) {
        Err(Error::Corrupt { what, .. }) => assert_eq!(what, "manifest"),
        other => panic!("expected a corrupt manifest, got {other:?}"),
    }
}

#[test]
fn db_is_send_and_sync_and_serves_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Db>();
    let (_dir, db) = new_db();
    let db = std::sync::Arc::new(db);
    let writers: Vec<_> = (0..4u64)
        .map(|t| {
            let db = db.clone();
            std::thread::spawn(move || {
                for i in 0..50u64 {
                    db.insert(&format!("t{t}-{i}"), Fingerprint((t << 32) | i))
                        .unwrap();
                    // Read-your-writes from the writing thread.
                    assert!(!db.query(Fingerprint((t << 32) | i), 0).unwrap().is_empty());
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(db.stats().ids, 200);
}

/// A RocksDB key and value.
type KeyValue = (Box<[u8]>, Box<[u8]>);

#[test]
fn a_damaged_block_is_reported_as_corruption_naming_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let db = Db::create(&path, Options::default()).unwrap();
    let fps = fpdb_testkit::spread_documents("d", 500);
    db.insert_batch(&fps).unwrap();
    db.merge().unwrap();
    drop(db);
    // Flip one payload bit in every block of table 0.
    {
        let rocks = fpdb_testkit::open_raw(&path);
        let table = rocks.cf_handle("table-000").unwrap();
        let blocks: Vec<KeyValue> = rocks
            .iterator_cf(table, rocksdb::IteratorMode::Start)
            .map(Result::unwrap)
            .collect();
        for (key, value) in blocks {
            let mut damaged = value.to_vec();
            damaged[20] ^= 0x10;
            rocks.put_cf(table, key, damaged).unwrap();
        }
    }
    let db = Db::open(&path).unwrap();
    let mut errors = 0;
    for (_, fp) in &fps {
        match db.query(*fp, 3) {
            Err(Error::Corrupt { what, .. }) => {
                assert!(what.starts_with("table 0, block"), "{what}");
                errors += 1;
            }
            Ok(matches) => {
                // Answered from other tables only when table 0 was not
                // consulted; an answer must still be right.
                assert!(matches.iter().all(|m| m.fingerprint.distance(*fp) <= 3));
            }
            Err(other) => panic!("unexpected error {other}"),
        }
    }
    assert!(errors > 0, "no query noticed the damage");
}

#[test]
fn readers_never_miss_what_was_inserted_while_a_writer_inserts_and_merges() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    drop(Db::create(&path, Options::default()).unwrap());
    let db = Arc::new(
        fpdb::OpenOptions::default()
            .delta_limit(64)
            .open(&path)
            .unwrap(),
    );
    let fp_of = |i: u64| Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555);
    // `inserted` is only raised after insert returned, so every i below it
    // must be found by any reader from then on.
    let inserted = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3u64)
        .map(|r| {
            let (db, inserted, done) = (db.clone(), inserted.clone(), done.clone());
            std::thread::spawn(move || {
                let mut checks = 0u64;
                let mut x: u64 = r;
                while !done.load(Ordering::Acquire) {
                    let upto = inserted.load(Ordering::Acquire);
                    if upto == 0 {
                        continue;
                    }
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let i = x % upto;
                    let matches = db.query(fp_of(i), 2).unwrap();
                    assert!(
                        matches
                            .iter()
                            .any(|m| m.fingerprint == fp_of(i) && m.ids == [format!("p{i}")]),
                        "reader {r} lost p{i} (inserted up to {upto})"
                    );
                    checks += 1;
                }
                checks
            })
        })
        .collect();
    for i in 0..3000u64 {
        db.insert(&format!("p{i}"), fp_of(i)).unwrap();
        inserted.store(i + 1, Ordering::Release);
        if i % 500 == 499 {
            db.merge().unwrap();
        }
    }
    done.store(true, Ordering::Release);
    let checks: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(checks > 100, "readers ran only {checks} checks");
    assert_eq!(db.stats().fingerprints, 3000);
}

/// A crawler re-crawling a URL must not be told the page is a
/// near-duplicate of itself, and learns what the URL held before: the
/// same fingerprint, one a few bits away, or one far away.
#[test]
fn check_and_insert_never_reports_the_callers_own_id_and_returns_its_previous_fingerprint() {
    let (_dir, db) = new_db();
    let page = Fingerprint(0x0f0f_0000_ffff_1234);
    let first = db.check_and_insert("https://a.example/x", page, 3).unwrap();
    assert!(first.matches.is_empty());
    assert_eq!(first.previous, None);

    // Unchanged re-crawl: nothing else is near, so no match at all.
    let again = db.check_and_insert("https://a.example/x", page, 3).unwrap();
    assert!(again.matches.is_empty(), "{:?}", again.matches);
    assert_eq!(again.previous, Some(page));

    // A mirror with the same fingerprint is reported, the URL itself not.
    db.insert("https://mirror.example/x", page).unwrap();
    let third = db.check_and_insert("https://a.example/x", page, 3).unwrap();
    assert_eq!(third.matches.len(), 1);
    assert_eq!(third.matches[0].ids, ["https://mirror.example/x"]);
    assert_eq!(third.previous, Some(page));

    // Changed a little: the old fingerprint of the URL is not a match (it
    // is the URL's own), the mirror at distance 2 is.
    let edited = Fingerprint(page.0 ^ 0b11);
    let fourth = db
        .check_and_insert("https://a.example/x", edited, 3)
        .unwrap();
    assert_eq!(fourth.previous, Some(page));
    assert_eq!(fourth.matches.len(), 1);
    assert_eq!(
        (fourth.matches[0].distance, fourth.matches[0].ids.clone()),
        (2, vec!["https://mirror.example/x".to_string()])
    );

    // Changed completely: the previous fingerprint is far away.
    let rewritten = Fingerprint(!page.0);
    let fifth = db
        .check_and_insert("https://a.example/x", rewritten, 3)
        .unwrap();
    assert!(fifth.matches.is_empty());
    assert_eq!(fifth.previous, Some(edited));
    assert_eq!(db.get("https://a.example/x").unwrap(), Some(rewritten));
}

/// `remove` returns the fingerprint it removed, read under the writer
/// lock. A writer rewrites one id with value after value and learns from
/// `check_and_insert` which value each write replaced; two removers race
/// it. Every value must then be accounted for exactly once: replaced by
/// the writer, removed by a remover, or still stored. (With the read
/// outside the lock, a remover could report a value the writer replaced
/// in the meantime, and the value it really removed would be lost.)
#[test]
fn every_value_is_replaced_removed_or_left_exactly_once_under_racing_removes() {
    let (_dir, db) = new_db();
    let db = std::sync::Arc::new(db);
    const VALUES: u64 = 3_000;
    let writer = {
        let db = db.clone();
        std::thread::spawn(move || {
            let mut replaced = Vec::new();
            for value in 1..=VALUES {
                let checked = db
                    .check_and_insert("contested", Fingerprint(value), 0)
                    .unwrap();
                replaced.extend(checked.previous.map(|fp| fp.0));
            }
            replaced
        })
    };
    let removers: Vec<_> = (0..2)
        .map(|_| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut removed = Vec::new();
                for _ in 0..VALUES {
                    removed.extend(db.remove("contested").unwrap().map(|fp| fp.0));
                }
                removed
            })
        })
        .collect();
    let mut accounted = writer.join().unwrap();
    for remover in removers {
        accounted.extend(remover.join().unwrap());
    }
    accounted.extend(db.get("contested").unwrap().map(|fp| fp.0));
    accounted.sort_unstable();
    let expected: Vec<u64> = (1..=VALUES).collect();
    assert_eq!(accounted, expected, "a value was lost or reported twice");
}
