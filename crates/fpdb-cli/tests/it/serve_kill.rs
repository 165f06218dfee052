//! Acknowledged writes survive `kill -9` of `fpdb serve` under load: each
//! round kills the server at a random moment while clients write, opens
//! the database and finds every write that was answered with 200.
//! `FPDB_SERVE_KILL_ROUNDS` sets the number of rounds (`make soak` runs
//! more).

use std::collections::BTreeMap;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::server::{create_db, hex, Served};
use fpdb::Db;
use fpdb_testkit::{env_rounds, Rng};
use serde_json::{json, Value};

#[test]
fn acknowledged_writes_survive_kill_9() {
    let rounds = env_rounds("FPDB_SERVE_KILL_ROUNDS", 20);
    let dir = tempfile::tempdir().unwrap();
    let db_path = create_db(dir.path(), "db", &["--expected", "100000"]);
    let mut rng = Rng::new(2024);
    // Every id acknowledged, with its fingerprint or None once removed.
    let mut model: BTreeMap<String, Option<u64>> = BTreeMap::new();
    for round in 0..rounds {
        let served = Served::start(&db_path, &[]);
        let acknowledged = Arc::new(Mutex::new(Vec::<(String, Option<u64>)>::new()));
        let threads: Vec<_> = (0..4u64)
            .map(|writer| {
                let mut client = served.client();
                let acknowledged = acknowledged.clone();
                let mut rng = Rng::new(round * 100 + writer);
                std::thread::spawn(move || {
                    for i in 0.. {
                        let id = format!("r{round}-w{writer}-{i}");
                        let fp = rng.next_u64();
                        // Singles, batches and removals of earlier ids.
                        let (path, body, changes): (&str, Value, Vec<(String, Option<u64>)>) =
                            match i % 4 {
                                0 | 1 => (
                                    "/v1/check_and_insert",
                                    json!({"id": id, "fp": hex(fp)}),
                                    vec![(id, Some(fp))],
                                ),
                                2 => {
                                    let docs: Vec<(String, u64)> = (0..10)
                                        .map(|j| (format!("{id}-{j}"), rng.next_u64()))
                                        .collect();
                                    let documents: Vec<Value> = docs
                                        .iter()
                                        .map(|(id, fp)| json!({"id": id, "fp": hex(*fp)}))
                                        .collect();
                                    (
                                        "/v1/insert_many",
                                        json!({"documents": documents}),
                                        docs.into_iter().map(|(id, fp)| (id, Some(fp))).collect(),
                                    )
                                }
                                _ => {
                                    let gone = format!("r{round}-w{writer}-{}", i - 3);
                                    ("/v1/remove", json!({"id": gone}), vec![(gone, None)])
                                }
                            };
                        match client.try_request("POST", path, body.to_string().as_bytes()) {
                            Ok(response) if response.status == 200 => {
                                acknowledged.lock().unwrap().extend(changes);
                            }
                            Ok(response) => panic!("{path}: {}", response.text()),
                            // Killed: this request may or may not have
                            // been applied.
                            Err(_) => return changes,
                        }
                    }
                    Vec::new()
                })
            })
            .collect();
        // Kill at a random moment once writes are flowing.
        let started = Instant::now();
        while acknowledged.lock().unwrap().is_empty() && started.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(rng.below(200)));
        served.kill();
        let in_flight: BTreeMap<String, Option<u64>> = threads
            .into_iter()
            .flat_map(|thread| thread.join().unwrap())
            .collect();
        model.extend(acknowledged.lock().unwrap().drain(..));
        let db = Db::open(&db_path).unwrap();
        for (id, &fp) in &model {
            let found = db.get(id).unwrap().map(|fp| fp.0);
            if found != fp && in_flight.get(id) == Some(&found) {
                // The unanswered request's change was applied.
                continue;
            }
            assert_eq!(found, fp, "round {round}: {id} was acknowledged, then lost");
        }
        // Unanswered changes that were applied are part of the state now.
        for id in in_flight.into_keys() {
            let now = db.get(&id).unwrap().map(|fp| fp.0);
            model.insert(id, now);
        }
    }
    let db = Db::open(&db_path).unwrap();
    let report = db.verify().unwrap();
    assert!(report.is_clean(), "{report:?}");
}
