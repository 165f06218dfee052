//! Writers on many threads of one handle opened with `sync`: their log
//! syncs are shared (group commit), and every answered write is there
//! after the handle is closed and the database reopened; of threads racing
//! to check-and-insert near-duplicates of one page, exactly one sees
//! nothing.

use std::sync::{Arc, Barrier};

use fpdb::{Db, Fingerprint, OpenOptions};
use fpdb_testkit::{create_temp_db, export, small_options, Model, Rng};

#[test]
fn synced_writers_on_many_threads_keep_every_answered_write() {
    let (_dir, path, db) = create_temp_db(small_options());
    drop(db);
    let db = Arc::new(OpenOptions::new().sync(true).open(&path).unwrap());
    let threads: Vec<_> = (0..8u64)
        .map(|writer| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut rng = Rng::new(writer);
                let mut written = Model::new();
                for i in 0..150 {
                    let id = format!("w{writer}-{i}");
                    let fp = Fingerprint(rng.next_u64());
                    match i % 3 {
                        0 => db.insert(&id, fp).unwrap(),
                        1 => {
                            db.check_and_insert(&id, fp, 3).unwrap();
                        }
                        _ => {
                            let batch = [(id.clone(), fp), (format!("{id}-b"), fp)];
                            db.insert_batch(&batch).unwrap();
                            written.insert(format!("{id}-b"), fp);
                        }
                    }
                    written.insert(id, fp);
                }
                let gone = format!("w{writer}-0");
                assert!(db.remove(&gone).unwrap().is_some());
                written.remove(&gone);
                written
            })
        })
        .collect();
    let mut model = Model::new();
    for thread in threads {
        model.extend(thread.join().unwrap());
    }
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_eq!(export(&db), model);
}

#[test]
fn of_synced_threads_racing_to_store_one_page_exactly_one_sees_nothing() {
    let (_dir, path, db) = create_temp_db(small_options());
    drop(db);
    let db = Arc::new(OpenOptions::new().sync(true).open(&path).unwrap());
    let mut rng = Rng::new(5);
    let racers = 8;
    for round in 0..20 {
        let page = Fingerprint(rng.next_u64());
        let barrier = Arc::new(Barrier::new(racers));
        let threads: Vec<_> = (0..racers)
            .map(|racer| {
                let (db, barrier) = (db.clone(), barrier.clone());
                let fp = rng.near(page, 1);
                std::thread::spawn(move || {
                    barrier.wait();
                    let id = format!("r{round}-{racer}");
                    db.check_and_insert(&id, fp, 3).unwrap().matches.len()
                })
            })
            .collect();
        let seen: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(
            seen.iter().filter(|&&n| n == 0).count(),
            1,
            "round {round}: {seen:?}"
        );
    }
}

#[test]
fn a_check_and_insert_batch_answers_as_one_call_per_document() {
    let (_dir, path, db) = create_temp_db(small_options());
    drop(db);
    let batched = OpenOptions::new().sync(true).open(&path).unwrap();
    let (_dir2, _path2, single) = create_temp_db(small_options());
    let mut rng = Rng::new(9);
    let page = Fingerprint(rng.next_u64());
    let documents: Vec<(String, Fingerprint)> = (0..50)
        .map(|i| (format!("doc-{}", i % 40), rng.near(page, 3)))
        .collect();
    let answers = batched.check_and_insert_batch(&documents, 3).unwrap();
    for ((id, fp), answer) in documents.iter().zip(answers) {
        assert_eq!(answer, single.check_and_insert(id, *fp, 3).unwrap(), "{id}");
    }
    assert_eq!(export(&batched), export(&single));
    let bad = [("ok", page), ("", page)];
    assert!(batched.check_and_insert_batch(&bad, 3).is_err());
}

#[test]
fn a_check_and_insert_group_answers_as_one_call_per_request_and_faults_alone() {
    let (_dir, path, db) = create_temp_db(small_options());
    drop(db);
    let grouped = OpenOptions::new().sync(true).open(&path).unwrap();
    let (_dir2, _path2, single) = create_temp_db(small_options());
    let mut rng = Rng::new(11);
    let page = Fingerprint(rng.next_u64());
    // Ids repeat (a re-crawl inside the group), radii differ, and two
    // requests are faulty: an empty id and a radius past the largest.
    let mut requests: Vec<(String, Fingerprint, u32)> = (0..60)
        .map(|i| (format!("doc-{}", i % 45), rng.near(page, 4), 2 + i % 3))
        .collect();
    requests[7].0 = String::new();
    requests[30].2 = fpdb::MAX_RADIUS + 1;
    let answers = grouped.check_and_insert_group(&requests).unwrap();
    assert_eq!(answers.len(), requests.len());
    for ((id, fp, k), answer) in requests.iter().zip(answers) {
        match single.check_and_insert(id, *fp, *k) {
            Ok(expected) => assert_eq!(answer.unwrap(), expected, "{id}"),
            Err(expected) => {
                assert_eq!(
                    answer.unwrap_err().to_string(),
                    expected.to_string(),
                    "{id}"
                )
            }
        }
    }
    assert_eq!(export(&grouped), export(&single));
    drop(grouped);
    let reopened = Db::open(&path).unwrap();
    assert_eq!(export(&reopened), export(&single));
}

#[test]
fn groups_that_move_ids_between_fingerprints_answer_as_single_calls_across_merges() {
    // A small merge limit, so that merges fall between groups; ids come
    // back to fingerprints they left, fingerprints lose their last id,
    // and requests of one group see each other's.
    let (_dir, path, db) = create_temp_db(small_options());
    drop(db);
    let grouped = OpenOptions::new()
        .sync(true)
        .delta_limit(16)
        .open(&path)
        .unwrap();
    let (_dir2, _path2, single) = create_temp_db(small_options());
    let mut rng = Rng::new(23);
    let pages: Vec<Fingerprint> = (0..6).map(|_| Fingerprint(rng.next_u64())).collect();
    for round in 0..40u64 {
        let size = 1 + rng.below(24);
        let requests: Vec<(String, Fingerprint, u32)> = (0..size)
            .map(|_| {
                let page = pages[rng.below(pages.len() as u64) as usize];
                let fp = if rng.below(3) == 0 {
                    page
                } else {
                    rng.near(page, 3)
                };
                (
                    format!("doc-{}", rng.below(30)),
                    fp,
                    1 + (rng.below(4) as u32),
                )
            })
            .collect();
        let answers = grouped.check_and_insert_group(&requests).unwrap();
        for ((id, fp, k), answer) in requests.iter().zip(answers) {
            let expected = single.check_and_insert(id, *fp, *k).unwrap();
            assert_eq!(answer.unwrap(), expected, "round {round}, {id}");
        }
        assert_eq!(export(&grouped), export(&single), "round {round}");
    }
    drop(grouped);
    let reopened = Db::open(&path).unwrap();
    assert_eq!(export(&reopened), export(&single));
    assert!(reopened.verify().unwrap().is_clean());
}
