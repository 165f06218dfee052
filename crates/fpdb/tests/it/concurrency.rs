//! Concurrent use: a second process is refused with `Locked`; many threads
//! query one `Arc<Db>` while others insert, remove, check-and-insert and
//! merge, every answer checked against what must be there; read-only
//! handles beside a writer see the database as it was when they opened.
//!
//! `FPDB_SOAK_SECONDS` sets how long the threads run (default 5).

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fpdb::{Db, Error, Fingerprint, OpenOptions};
use fpdb_testkit::{assert_equals_model, export, Model, Rng};

const CHILD_PATH: &str = "FPDB_LOCK_CHILD";

/// The second process: tries to open the database for writing and for
/// reading, and prints what happened.
#[test]
#[ignore = "the child process of a_second_process_gets_locked_and_may_read; does nothing alone"]
fn lock_child() {
    let Ok(path) = std::env::var(CHILD_PATH) else {
        return;
    };
    match Db::open(&path) {
        Err(Error::Locked { .. }) => println!("RESULT writer: locked"),
        Ok(db) => println!("RESULT writer: opened, {} ids", db.stats().ids),
        Err(other) => println!("RESULT writer: other error {other}"),
    }
    match fpdb::OpenOptions::new().read_only(true).open(&path) {
        Ok(db) => println!(
            "RESULT reader: opened, sees {:?}",
            db.get("written-by-parent").unwrap()
        ),
        Err(other) => println!("RESULT reader: error {other}"),
    }
}

fn run_lock_child(path: &std::path::Path) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "concurrency::lock_child",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_PATH, path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("RESULT "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_second_process_gets_locked_and_may_read() {
    let (_dir, path, db) = fpdb_testkit::create_temp_db(fpdb_testkit::small_options());
    db.insert("written-by-parent", Fingerprint(5)).unwrap();
    assert_eq!(
        run_lock_child(&path),
        "writer: locked\nreader: opened, sees Some(Fingerprint(0000000000000005))"
    );
    // Unchanged by the refused opener, and free once the writer is gone.
    assert_eq!(db.get("written-by-parent").unwrap(), Some(Fingerprint(5)));
    drop(db);
    assert!(run_lock_child(&path).starts_with("writer: opened, 1 ids"));
}

fn soak_time() -> Duration {
    let seconds = std::env::var("FPDB_SOAK_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    Duration::from_secs(seconds)
}

/// The fingerprint of the `i`th never-removed document: spread over the
/// whole space, and never the fingerprint of a churned one (those have
/// their lowest bit set).
fn stable_fp(i: u64) -> Fingerprint {
    Fingerprint(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & !1)
}

#[test]
fn threads_query_while_others_insert_remove_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    drop(Db::create(&path, fpdb_testkit::small_options()).unwrap());
    let db = Arc::new(OpenOptions::default().delta_limit(500).open(&path).unwrap());
    let deadline = Instant::now() + soak_time();
    // Documents stable-0 .. stable-(n-1) have returned from insert and are
    // never removed: every query from then on must find them.
    let stable = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));

    let inserter = {
        let (db, stable) = (db.clone(), stable.clone());
        std::thread::spawn(move || {
            let mut model = Model::new();
            let mut i = 0u64;
            while Instant::now() < deadline {
                if i.is_multiple_of(10) {
                    let batch: Vec<(String, Fingerprint)> = (i..i + 50)
                        .map(|j| (format!("stable-{j}"), stable_fp(j)))
                        .collect();
                    db.insert_batch(&batch).unwrap();
                    model.extend(batch);
                    i += 50;
                } else {
                    db.insert(&format!("stable-{i}"), stable_fp(i)).unwrap();
                    model.insert(format!("stable-{i}"), stable_fp(i));
                    i += 1;
                }
                stable.store(i, Ordering::Release);
            }
            model
        })
    };
    // Inserts, moves and removes its own ids, some sharing a fingerprint.
    let churner = {
        let db = db.clone();
        std::thread::spawn(move || {
            let mut model = Model::new();
            let mut rng = Rng::new(21);
            while Instant::now() < deadline {
                let id = format!("churn-{}", rng.below(300));
                if rng.chance(40) {
                    let removed = db.remove(&id).unwrap();
                    assert_eq!(removed, model.remove(&id), "remove {id}");
                } else {
                    let fp = Fingerprint((rng.below(100) << 1) | 1);
                    db.insert(&id, fp).unwrap();
                    model.insert(id, fp);
                }
            }
            model
        })
    };
    // The crawler's call, near stable documents: it must see the stable
    // document it is near.
    let crawler =
        {
            let (db, stable) = (db.clone(), stable.clone());
            std::thread::spawn(move || {
                let mut model = Model::new();
                let mut rng = Rng::new(22);
                let mut n = 0u64;
                while Instant::now() < deadline {
                    let upto = stable.load(Ordering::Acquire);
                    if upto == 0 {
                        std::thread::yield_now();
                        continue;
                    }
                    let i = rng.below(upto);
                    let fp = rng.near(stable_fp(i), 2);
                    let id = format!("crawl-{n}");
                    let matches = db.check_and_insert(&id, fp, 3).unwrap().matches;
                    assert!(
                        matches.iter().any(|m| m.fingerprint == stable_fp(i)
                            && m.ids.contains(&format!("stable-{i}"))),
                        "check_and_insert near stable-{i} did not see it"
                    );
                    model.insert(id, fp);
                    n += 1;
                }
                model
            })
        };
    let merger = {
        let (db, done) = (db.clone(), done.clone());
        std::thread::spawn(move || {
            let mut merges = 0u64;
            while !done.load(Ordering::Acquire) {
                if merges % 10 == 9 {
                    db.compact().unwrap();
                } else {
                    db.merge().unwrap();
                }
                merges += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            merges
        })
    };
    let readers: Vec<_> = (0..3u64)
        .map(|r| {
            let (db, stable, done) = (db.clone(), stable.clone(), done.clone());
            std::thread::spawn(move || {
                let mut rng = Rng::new(100 + r);
                let mut checks = 0u64;
                while !done.load(Ordering::Acquire) {
                    let upto = stable.load(Ordering::Acquire);
                    if upto == 0 {
                        std::thread::yield_now();
                        continue;
                    }
                    let wanted: Vec<u64> = (0..4).map(|_| rng.below(upto)).collect();
                    let queries: Vec<Fingerprint> =
                        wanted.iter().map(|&i| rng.near(stable_fp(i), 3)).collect();
                    let answers = if rng.chance(50) {
                        db.query_batch(&queries, 3).unwrap()
                    } else {
                        queries.iter().map(|&q| db.query(q, 3).unwrap()).collect()
                    };
                    for ((&i, &query), matches) in wanted.iter().zip(&queries).zip(&answers) {
                        assert!(
                            matches.iter().any(|m| m.fingerprint == stable_fp(i)
                                && m.ids.contains(&format!("stable-{i}"))),
                            "reader {r} lost stable-{i} (inserted up to {upto})"
                        );
                        // Whatever else it found is within k, nearest first,
                        // and has ids.
                        assert!(matches.windows(2).all(|w| {
                            (w[0].distance, w[0].fingerprint) < (w[1].distance, w[1].fingerprint)
                        }));
                        for m in matches {
                            assert_eq!(m.distance, m.fingerprint.distance(query));
                            assert!(m.distance <= 3 && !m.ids.is_empty());
                        }
                    }
                    checks += 1;
                }
                checks
            })
        })
        .collect();

    let mut model: Model = inserter.join().unwrap();
    model.extend(churner.join().unwrap());
    model.extend(crawler.join().unwrap());
    done.store(true, Ordering::Release);
    let merges = merger.join().unwrap();
    let checks: Vec<u64> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    println!(
        "{} documents, {merges} merges, reader checks {checks:?}",
        model.len()
    );
    assert!(
        checks.iter().all(|&c| c > 10),
        "readers starved: {checks:?}"
    );
    let mut rng = Rng::new(23);
    assert_equals_model(&db, &model, 300, &mut rng);
    db.merge().unwrap();
    assert_equals_model(&db, &model, 300, &mut rng);
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 300, &mut rng);
}

#[test]
fn a_reader_beside_a_writer_with_a_long_log_sees_a_consistent_earlier_state() {
    let (_dir, path, writer) = fpdb_testkit::create_temp_db(fpdb_testkit::small_options());
    let mut rng = Rng::new(37);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 40_000);
    for chunk in documents.chunks(50) {
        writer.insert_batch(chunk).unwrap();
    }
    let log: u64 = std::fs::read_dir(&path)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "log"))
        .map(|entry| entry.metadata().unwrap().len())
        .sum();
    assert!(log > 1 << 20, "the log holds only {log} bytes");
    let written: Model = documents.iter().cloned().collect();
    // The reader skips the long log: it sees an earlier state, whole.
    let reader = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    let seen = fpdb_testkit::export(&reader);
    assert!(seen.len() < written.len());
    assert!(seen.iter().all(|(id, fp)| written.get(id) == Some(fp)));
    assert_equals_model(&reader, &seen, 200, &mut rng);
    drop(reader);
    // With the writer gone, a reader replays the log and sees everything.
    drop(writer);
    let reader = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    assert_equals_model(&reader, &written, 200, &mut rng);
}

#[test]
fn a_reader_beside_a_writer_whose_log_is_reused_sees_every_acknowledged_write() {
    let (_dir, path, writer) = fpdb_testkit::create_temp_db(fpdb_testkit::small_options());
    let mut written = fpdb_testkit::fill_logs_for_reuse(&writer);
    let everything = |replay_log: bool| {
        let reader = fpdb::OpenOptions::new()
            .read_only(true)
            .replay_log(replay_log)
            .open(&path)
            .unwrap();
        export(&reader)
    };
    // The newest log holds no record of its own yet: it begins with the
    // old log's, which RocksDB's secondary instances read forever.
    assert_eq!(everything(false), written);
    for i in 0..20u64 {
        let id = format!("after-{i}");
        writer.insert(&id, stable_fp(1_000_000 + i)).unwrap();
        written.insert(id, stable_fp(1_000_000 + i));
    }
    let (newest, length) = fpdb_testkit::newest_log(&path);
    assert!(length > 1 << 20, "the newest log was not a reused one");
    // The flushed log the writer keeps to reuse next holds more than the
    // 1 MiB a reader replays: it is not one the reader counts.
    let kept = std::fs::read_dir(&path)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|file| file.extension().is_some_and(|ext| ext == "log") && *file != newest)
        .map(|file| std::fs::metadata(file).unwrap().len())
        .max();
    assert!(
        kept > Some(1 << 20),
        "no flushed log kept to reuse: {kept:?}"
    );
    // The newest log's records are short: the reader replays them, none
    // of the old log's bytes after them.
    assert_eq!(everything(false), written);
    assert_eq!(everything(true), written);
}

#[test]
fn read_only_handles_beside_a_writer_see_their_snapshot() {
    let (_dir, path, writer) = fpdb_testkit::create_temp_db(fpdb_testkit::small_options());
    let mut rng = Rng::new(31);
    let documents = fpdb_testkit::clustered_documents(&mut rng, 2000);
    writer.insert_batch(&documents[..1000]).unwrap();
    writer.merge().unwrap();
    writer.insert_batch(&documents[1000..1500]).unwrap();
    let snapshot: Model = documents[..1500].iter().cloned().collect();
    let reader = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    assert_equals_model(&reader, &snapshot, 200, &mut rng);
    assert!(matches!(
        reader.insert("x", Fingerprint(1)),
        Err(Error::ReadOnly)
    ));

    // The writer goes on: removes, inserts, merges and compactions that
    // delete the files the reader opened.
    let mut latest = snapshot.clone();
    for (id, _) in documents.iter().step_by(3).take(300) {
        writer.remove(id).unwrap();
        latest.remove(id);
    }
    writer.insert_batch(&documents[1500..]).unwrap();
    latest.extend(documents[1500..].iter().cloned());
    writer.compact().unwrap();
    assert_equals_model(&writer, &latest, 200, &mut rng);
    // The reader still answers from its snapshot, in parallel threads.
    let reader = Arc::new(reader);
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (reader, snapshot) = (reader.clone(), snapshot.clone());
            std::thread::spawn(move || {
                assert_equals_model(&reader, &snapshot, 200, &mut Rng::new(40 + t));
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    // A new read-only handle sees the latest state.
    let fresh = fpdb::OpenOptions::new()
        .read_only(true)
        .open(&path)
        .unwrap();
    let by_id: BTreeMap<_, _> = export(&fresh);
    assert_eq!(by_id, latest);
    assert_equals_model(&fresh, &latest, 200, &mut rng);
}

const READER_CHILD_PATH: &str = "FPDB_READER_CHILD";

/// The reader process of the test below: opens the database read-only,
/// says so, and waits to be killed or told to go.
#[test]
#[ignore = "the child process of a_killed_readers_directory_is_removed_by_the_next_reader"]
fn reader_child() {
    let Ok(path) = std::env::var(READER_CHILD_PATH) else {
        return;
    };
    let db = OpenOptions::new().read_only(true).open(&path).unwrap();
    println!("RESULT opened, {} ids", db.stats().ids);
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
}

/// The `fpdb-reader-*` directories in `tmp`.
fn reader_dirs(tmp: &std::path::Path) -> usize {
    std::fs::read_dir(tmp)
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with("fpdb-reader-")
        })
        .count()
}

#[test]
fn a_killed_readers_directory_is_removed_by_the_next_reader() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // Readers keep a private directory only beside a live writer (they
    // are secondary instances then): this process is that writer.
    let writer = Db::create(&path, fpdb_testkit::small_options()).unwrap();
    writer.insert("a", Fingerprint(1)).unwrap();
    let reader = |path: &std::path::Path| {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "concurrency::reader_child",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env(READER_CHILD_PATH, path)
            .env("TMPDIR", &tmp)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let opened = lines
            .by_ref()
            .map(Result::unwrap)
            .find(|line| line.starts_with("RESULT "))
            .unwrap();
        assert_eq!(opened, "RESULT opened, 1 ids");
        // Keep reading, so the child's last words do not meet a closed pipe.
        std::thread::spawn(move || lines.for_each(drop));
        child
    };
    // Two live readers, one of them then killed: its directory stays.
    let mut killed = reader(&path);
    let mut live = reader(&path);
    killed.kill().unwrap();
    killed.wait().unwrap();
    assert_eq!(reader_dirs(&tmp), 2);
    // The next reader removes the orphan and leaves the live one's.
    let mut next = reader(&path);
    assert_eq!(reader_dirs(&tmp), 2);
    for child in [&mut live, &mut next] {
        drop(child.stdin.take());
        assert!(child.wait().unwrap().success());
    }
    assert_eq!(reader_dirs(&tmp), 0);
    drop(writer);
}

/// Writes that add, remove and re-add the same few fingerprints, and take
/// fingerprints out of the tables and put them back, while merges run on
/// another thread: each merge plans from its snapshot while the writes go
/// on, and the delta it leaves must hold exactly what they changed, in
/// memory, on disk (reopened) and for `verify`.
#[test]
fn writes_while_a_merge_plans_are_in_the_delta_it_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db");
    drop(Db::create(&path, fpdb_testkit::small_options()).unwrap());
    let db = Arc::new(
        OpenOptions::default()
            .delta_limit(1 << 20)
            .open(&path)
            .unwrap(),
    );
    db.set_merge_on_write(false);
    // Enough blocks that each merge plans for a while.
    let base: Vec<(String, Fingerprint)> = (0..20_000u64)
        .map(|i| (format!("base-{i}"), stable_fp(i)))
        .collect();
    db.insert_batch(&base).unwrap();
    let mut model = Model::new();
    model.extend(base);
    let done = Arc::new(AtomicBool::new(false));
    let merger = {
        let (db, done) = (db.clone(), done.clone());
        std::thread::spawn(move || {
            let mut merges = 0u64;
            while !done.load(Ordering::Acquire) {
                let stats = db.stats();
                if stats.delta_added + stats.delta_removed < 50 {
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
                if merges.is_multiple_of(2) {
                    db.merge().unwrap();
                } else {
                    db.merge_on_this_thread().unwrap();
                }
                merges += 1;
            }
            merges
        })
    };
    let mut rng = Rng::new(31);
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut steps = 0u64;
    while Instant::now() < deadline || steps < 2_000 {
        let roll = rng.below(10);
        if roll < 4 {
            // A few fingerprints shared by many ids: they join and leave
            // the set again and again.
            let id = format!("flip-{}", rng.below(200));
            let fp = Fingerprint((rng.below(64) << 1) | 1);
            db.insert(&id, fp).unwrap();
            model.insert(id, fp);
        } else if roll < 7 {
            let id = format!("flip-{}", rng.below(200));
            assert_eq!(db.remove(&id).unwrap(), model.remove(&id), "remove {id}");
        } else if roll < 9 {
            // A fingerprint of the tables leaves the set, or comes back.
            let i = rng.below(2_000);
            let id = format!("base-{i}");
            if let Some(fp) = model.remove(&id) {
                assert_eq!(db.remove(&id).unwrap(), Some(fp), "remove {id}");
            } else {
                db.insert(&id, stable_fp(i)).unwrap();
                model.insert(id, stable_fp(i));
            }
        } else {
            let id = format!("new-{steps}");
            let fp = Fingerprint(rng.below(u64::MAX) & !1);
            db.insert(&id, fp).unwrap();
            model.insert(id, fp);
        }
        steps += 1;
    }
    done.store(true, Ordering::Release);
    let merges = merger.join().unwrap();
    println!("{steps} writes beside {merges} merges");
    assert!(merges >= 10, "only {merges} merges ran beside the writes");
    let mut rng = Rng::new(32);
    assert_equals_model(&db, &model, 300, &mut rng);
    drop(db);
    let db = Db::open(&path).unwrap();
    assert_equals_model(&db, &model, 300, &mut rng);
    db.merge().unwrap();
    assert_equals_model(&db, &model, 300, &mut rng);
}
