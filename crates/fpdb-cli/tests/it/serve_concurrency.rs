//! `fpdb serve` under concurrent clients: racing check-and-inserts of one
//! page, and SIGTERM while requests are in flight.

use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use crate::server::{create_db, hex, Served};
use fpdb::{Db, Fingerprint};
use fpdb_testkit::Rng;
use serde_json::json;

#[test]
fn of_clients_racing_to_store_one_page_exactly_one_sees_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "10000"]);
    let served = Served::start(&db, &[]);
    let clients = 8;
    let rounds = 25;
    let mut rng = Rng::new(11);
    for round in 0..rounds {
        // Near-duplicates of one page: each within 1 bit of the page, so
        // within 2 of one another (k is 3).
        let page = rng.next_u64();
        let fps: Vec<u64> = (0..clients)
            .map(|_| rng.near(Fingerprint(page), 1).0)
            .collect();
        let barrier = Arc::new(Barrier::new(clients));
        let threads: Vec<_> = fps
            .into_iter()
            .enumerate()
            .map(|(client, fp)| {
                let barrier = barrier.clone();
                let mut connection = served.client();
                // Connected before the race starts.
                assert_eq!(connection.get("/health").status, 200);
                std::thread::spawn(move || {
                    barrier.wait();
                    let id = format!("round-{round}-client-{client}");
                    let answer =
                        connection.ok("/v1/check_and_insert", &json!({"id": id, "fp": hex(fp)}));
                    answer["matches"].as_array().unwrap().len()
                })
            })
            .collect();
        let seen: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let saw_nothing = seen.iter().filter(|&&n| n == 0).count();
        assert_eq!(saw_nothing, 1, "round {round}: matches per client {seen:?}");
    }
}

#[test]
fn sigterm_answers_requests_in_flight_flushes_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "10000"]);
    let served = Served::start(&db, &[]);
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..4)
        .map(|writer| {
            let mut client = served.client();
            let acknowledged = acknowledged.clone();
            std::thread::spawn(move || {
                let mut rng = Rng::new(writer);
                for i in 0.. {
                    let (id, fp) = (format!("w{writer}-{i}"), rng.next_u64());
                    match client.try_request(
                        "POST",
                        "/v1/insert",
                        json!({"id": id, "fp": hex(fp)}).to_string().as_bytes(),
                    ) {
                        Ok(response) if response.status == 200 => {
                            acknowledged.lock().unwrap().push((id, fp));
                        }
                        // The server stopped: connection closed or refused.
                        _ => break,
                    }
                }
            })
        })
        .collect();
    let started = Instant::now();
    while acknowledged.lock().unwrap().len() < 200 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(served.terminate(), Some(0), "exit status after SIGTERM");
    for thread in threads {
        thread.join().unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap();
    assert!(acknowledged.len() >= 200);
    let db = Db::open(&db).unwrap();
    for (id, fp) in acknowledged.iter() {
        assert_eq!(
            db.get(id).unwrap(),
            Some(Fingerprint(*fp)),
            "{id} acknowledged, then lost"
        );
    }
}
