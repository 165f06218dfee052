//! `fpdb serve` endpoint by endpoint, against a brute-force model of what
//! was stored and against the library's own answers (a read-only handle
//! beside the server).

use std::collections::BTreeMap;

use crate::server::{create_db, fp_of, hex, Client, Served};
use base64::Engine as _;
use fpdb::{Fingerprint, OpenOptions};
use fpdb_testkit::{clustered_documents, Rng};
use serde_json::{json, Value};

/// Every stored fingerprint within `k` of `fp`, nearest first (ties by
/// fingerprint), with its ids in byte order, as JSON the server answers.
fn brute_force(model: &BTreeMap<String, u64>, fp: u64, k: u32, without: Option<&str>) -> Value {
    let mut by_fp: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (id, &stored) in model {
        if Some(id.as_str()) != without {
            by_fp.entry(stored).or_default().push(id.clone());
        }
    }
    let mut found: Vec<(u32, u64, Vec<String>)> = by_fp
        .into_iter()
        .map(|(stored, ids)| ((stored ^ fp).count_ones(), stored, ids))
        .filter(|(distance, _, _)| *distance <= k)
        .collect();
    found.sort();
    Value::Array(
        found
            .into_iter()
            .map(|(distance, stored, ids)| {
                json!({"fingerprint": hex(stored), "distance": distance, "ids": ids})
            })
            .collect(),
    )
}

fn insert_all(
    client: &mut Client,
    model: &mut BTreeMap<String, u64>,
    docs: &[(String, Fingerprint)],
) {
    for chunk in docs.chunks(500) {
        let documents: Vec<Value> = chunk
            .iter()
            .map(|(id, fp)| json!({"id": id, "fp": hex(fp.0)}))
            .collect();
        let answer = client.ok("/v1/insert_many", &json!({ "documents": documents }));
        let fps: Vec<u64> = answer["fingerprints"]
            .as_array()
            .unwrap()
            .iter()
            .map(fp_of)
            .collect();
        assert_eq!(fps, chunk.iter().map(|(_, fp)| fp.0).collect::<Vec<_>>());
        for (id, fp) in chunk {
            model.insert(id.clone(), fp.0);
        }
    }
}

#[test]
fn every_endpoint_answers_as_a_brute_force_scan() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--k", "3", "--expected", "10000"]);
    let served = Served::start(&db, &[]);
    let mut client = served.client();
    let mut rng = Rng::new(7);
    let mut model = BTreeMap::new();
    let docs = clustered_documents(&mut rng, 3000);
    insert_all(&mut client, &mut model, &docs);

    // Single and batch queries, at every k the database answers.
    let stored: Vec<u64> = model.values().copied().take(150).collect();
    let mut probes = stored.clone();
    probes.extend(stored.iter().map(|&fp| rng.near(Fingerprint(fp), 5).0));
    probes.push(rng.next_u64());
    let mut single_queries = 0;
    for k in [0, 2, 3] {
        let mut expected = Vec::new();
        for &fp in &probes {
            let answer = client.ok("/v1/query", &json!({"fp": hex(fp), "k": k}));
            single_queries += 1;
            assert_eq!(
                answer["matches"],
                brute_force(&model, fp, k, None),
                "query {fp:016x} k={k}"
            );
            assert_eq!(fp_of(&answer["fingerprint"]), fp);
            expected.push(answer["matches"].clone());
        }
        let fps: Vec<String> = probes.iter().map(|&fp| hex(fp)).collect();
        let many = client.ok("/v1/query_many", &json!({"fps": fps, "k": k}));
        assert_eq!(many["results"], Value::Array(expected), "query_many k={k}");
    }
    // Without k, the database's.
    let answer = client.ok("/v1/query", &json!({"fp": hex(probes[0])}));
    single_queries += 1;
    assert_eq!(answer["matches"], brute_force(&model, probes[0], 3, None));

    // check_and_insert: new documents, re-crawls, near-duplicates.
    for round in 0..300u64 {
        let (id, fp) = if round % 3 == 0 {
            let (id, fp) = docs[rng.below(docs.len() as u64) as usize].clone();
            (id, rng.near(fp, 2).0)
        } else {
            let centre = model
                .values()
                .nth(rng.below(model.len() as u64) as usize)
                .copied()
                .unwrap();
            (format!("new-{round}"), rng.near(Fingerprint(centre), 4).0)
        };
        let answer = client.ok("/v1/check_and_insert", &json!({"id": id, "fp": hex(fp)}));
        assert_eq!(
            answer["matches"],
            brute_force(&model, fp, 3, Some(&id)),
            "check {id}"
        );
        let previous = model
            .get(&id)
            .map(|&fp| Value::String(hex(fp)))
            .unwrap_or(Value::Null);
        assert_eq!(answer["previous"], previous, "previous of {id}");
        model.insert(id, fp);
    }

    // The batch form answers in order, later documents seeing earlier ones.
    let base = rng.next_u64();
    let batch: Vec<(String, u64)> = (0..20)
        .map(|i| (format!("batch-{i}"), rng.near(Fingerprint(base), 2).0))
        .collect();
    let documents: Vec<Value> = batch
        .iter()
        .map(|(id, fp)| json!({"id": id, "fp": hex(*fp)}))
        .collect();
    let answer = client.ok(
        "/v1/check_and_insert_many",
        &json!({"documents": documents, "k": 3}),
    );
    for ((id, fp), result) in batch.iter().zip(answer["results"].as_array().unwrap()) {
        assert_eq!(
            result["matches"],
            brute_force(&model, *fp, 3, Some(id)),
            "batch {id}"
        );
        model.insert(id.clone(), *fp);
    }

    // get, get_many, remove, remove_many.
    let some: Vec<String> = model.keys().take(40).cloned().collect();
    for id in &some[..10] {
        let answer = client.ok("/v1/get", &json!({"id": id}));
        assert_eq!(fp_of(&answer["fingerprint"]), model[id]);
    }
    assert_eq!(
        client.ok("/v1/get", &json!({"id": "never-stored"}))["fingerprint"],
        Value::Null
    );
    let mut ids = some.clone();
    ids.push("never-stored".into());
    let got = client.ok("/v1/get_many", &json!({"ids": ids}));
    let expected: Vec<Value> = ids
        .iter()
        .map(|id| {
            model
                .get(id)
                .map(|&fp| Value::String(hex(fp)))
                .unwrap_or(Value::Null)
        })
        .collect();
    assert_eq!(got["fingerprints"], Value::Array(expected));
    for id in &some[..5] {
        let answer = client.ok("/v1/remove", &json!({"id": id}));
        assert_eq!(fp_of(&answer["previous"]), model.remove(id).unwrap());
    }
    let answer = client.ok("/v1/remove", &json!({"id": some[0]}));
    assert_eq!(answer["previous"], Value::Null);
    let answer = client.ok("/v1/remove_many", &json!({"ids": &some[3..20]}));
    let removed = some[3..20]
        .iter()
        .filter(|id| model.remove(*id).is_some())
        .count();
    assert_eq!(answer["removed"], removed);
    for &fp in probes.iter().take(50) {
        let answer = client.ok("/v1/query", &json!({"fp": hex(fp)}));
        single_queries += 1;
        assert_eq!(
            answer["matches"],
            brute_force(&model, fp, 3, None),
            "after removals"
        );
    }

    // stats counts what the model holds; so does the library beside it.
    let stats = client.get("/v1/stats").json();
    let distinct: std::collections::BTreeSet<u64> = model.values().copied().collect();
    assert_eq!(stats["ids"], model.len());
    assert_eq!(stats["fingerprints"], distinct.len());
    assert_eq!(stats["k"], 3);
    let reader = OpenOptions::new()
        .read_only(true)
        .replay_log(true)
        .open(&db)
        .unwrap();
    assert_eq!(reader.stats().ids, model.len() as u64);
    for &fp in probes.iter().take(20) {
        let library = reader.query(Fingerprint(fp), 3).unwrap();
        let answer = client.ok("/v1/query", &json!({"fp": hex(fp)}));
        single_queries += 1;
        let ids: Vec<Vec<String>> = library.into_iter().map(|m| m.ids).collect();
        let served_ids: Vec<Vec<String>> = answer["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| serde_json::from_value(m["ids"].clone()).unwrap())
            .collect();
        assert_eq!(served_ids, ids);
    }

    // Health, and metrics that counted exactly the queries made.
    let health = client.get("/health");
    assert_eq!(health.status, 200);
    assert_eq!(health.json(), json!({"status": "ok", "read_only": false}));
    let metrics = client.get("/metrics");
    assert_eq!(metrics.status, 200);
    let text = metrics.text();
    let line =
        format!("fpdb_requests_total{{endpoint=\"/v1/query\",status=\"200\"}} {single_queries}\n");
    assert!(text.contains(&line), "{line} not in\n{text}");
    assert!(
        text.contains(&format!("fpdb_ids {}\n", model.len())),
        "{text}"
    );
    assert!(
        text.contains("fpdb_batch_documents_count{endpoint=\"/v1/insert_many\"} 6\n"),
        "{text}"
    );
}

const PAGE: &str = "<html><head><title>茶</title></head><body><nav>首页 新闻</nav><article>\
<p>今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。合作社负责人介绍，新建的加工车间让鲜叶当天就能完成杀青和揉捻。</p>\
<p>茶叶的香气因此保存得更好，收购价格也随之上涨。不少在外打工的年轻人回到村里，跟着老师傅学习炒茶的手艺。</p>\
</article><footer>版权所有</footer></body></html>";

#[test]
fn text_and_html_documents_get_the_librarys_fingerprints() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let library = OpenOptions::new().read_only(true).open(&db).unwrap();
    let served = Served::start(&db, &[]);
    let mut client = served.client();

    let text = "The quick brown fox jumps over the lazy dog near the river bank today.";
    let answer = client.ok("/v1/insert", &json!({"id": "text", "text": text}));
    assert_eq!(
        fp_of(&answer["fingerprint"]),
        library.fingerprint_text(text).0
    );

    // HTML as a UTF-8 string, and as GBK bytes with the charset in the
    // Content-Type: the same page, the same fingerprint.
    let (utf8_fp, _) = library.fingerprint_html(PAGE.as_bytes(), None).unwrap();
    let answer = client.ok("/v1/check_and_insert", &json!({"id": "utf8", "html": PAGE}));
    assert_eq!(fp_of(&answer["fingerprint"]), utf8_fp.0);
    let (gbk, _, _) = encoding_rs::GBK.encode(PAGE);
    let content_type = "text/html; charset=gbk";
    let (gbk_fp, _) = library.fingerprint_html(&gbk, Some(content_type)).unwrap();
    assert_eq!(gbk_fp, utf8_fp, "the library decodes the charset");
    let encoded = base64::engine::general_purpose::STANDARD.encode(&gbk);
    let answer = client.ok(
        "/v1/check_and_insert",
        &json!({"id": "gbk", "html_base64": encoded, "content_type": content_type}),
    );
    assert_eq!(fp_of(&answer["fingerprint"]), gbk_fp.0);
    assert_eq!(answer["matches"][0]["ids"], json!(["utf8"]));

    // Query by text; the answer names the query's fingerprint.
    let answer = client.ok("/v1/query", &json!({"text": text, "k": 0}));
    assert_eq!(answer["matches"][0]["ids"], json!(["text"]));

    // Binary data is no page: 400 naming the field.
    let binary = base64::engine::general_purpose::STANDARD.encode([0u8, 159, 146, 150, 0, 0, 1, 2]);
    let response = client.post(
        "/v1/check_and_insert",
        &json!({"id": "bin", "html_base64": binary}),
    );
    assert_eq!(response.status, 400, "{}", response.text());
    assert_eq!(response.error().0, "html");
    assert_eq!(
        client.ok("/v1/get", &json!({"id": "bin"}))["fingerprint"],
        Value::Null
    );
}

#[test]
fn a_confirming_database_signs_what_it_is_sent_and_answers_under_its_rule() {
    let original = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们，爬虫因此少存很多副本。";
    let copy = "近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，指纹数据库用来找出它们，爬虫因此少存很多副本。";
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--confirm", "--confirm-radius", "10"]);
    let served = Served::start(&db, &[]);
    let mut client = served.client();
    assert!(client.get("/v1/stats").json()["confirmation"]["radius"] == json!(10));

    // A text without features stops the batch, naming it; nothing stored.
    let refused = client.post(
        "/v1/insert_many",
        &json!({"documents": [{"id": "orig", "text": original}, {"id": "empty", "text": "，。！"}]}),
    );
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert_eq!(
        refused.error(),
        ("documents[1].text".to_string(), "no_features".to_string())
    );
    assert_eq!(
        client.ok("/v1/get", &json!({"id": "orig"}))["fingerprint"],
        Value::Null
    );

    client.ok(
        "/v1/insert_many",
        &json!({"documents": [{"id": "orig", "text": original}, {"id": "bare", "fp": "0123456789abcdef"}]}),
    );
    let checked = client.ok("/v1/check_and_insert", &json!({"id": "copy", "text": copy}));
    assert_eq!(checked["matches"][0]["ids"], json!(["orig"]));
    let similarity = checked["matches"][0]["similarity"].as_f64().unwrap();
    assert!((0.5..=1.0).contains(&similarity), "{similarity}");
    let queried = client.ok("/v1/query", &json!({"text": copy}));
    drop(served);

    // What the library answers for the same text on the same store.
    let library = OpenOptions::new().read_only(true).open(&db).unwrap();
    let document = library.document_text(copy).unwrap();
    let near = library
        .find(&document, &library.match_rule(library.k()))
        .unwrap();
    let expected: Vec<Value> = near
        .iter()
        .map(|n| {
            json!({"fingerprint": hex(n.fingerprint.0), "distance": n.distance,
                   "ids": [n.id], "similarity": n.similarity})
        })
        .collect();
    assert_eq!(queried["matches"], json!(expected));
    assert_eq!(fp_of(&queried["fingerprint"]), document.fingerprint.0);
    assert!(near
        .iter()
        .any(|n| n.id == "orig" && n.similarity.is_some()));
}

#[test]
fn bad_requests_get_400_naming_the_field_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let served = Served::start(&db, &["--max-batch", "10", "--max-body-bytes", "4096"]);
    let mut client = served.client();
    let long_id = "x".repeat(fpdb::MAX_ID_BYTES + 1);
    let cases: Vec<(&str, Value, &str)> = vec![
        ("/v1/insert", json!({"id": "a", "fp": "0123"}), "fp"),
        (
            "/v1/insert",
            json!({"id": "a", "fp": "0123456789abcdeg"}),
            "fp",
        ),
        ("/v1/insert", json!({"id": "a", "fp": 12345}), "fp"),
        ("/v1/insert", json!({"id": "a", "txet": "hello"}), "txet"),
        ("/v1/insert", json!({"id": "a"}), "fp"),
        (
            "/v1/insert",
            json!({"id": "a", "fp": "0123456789abcdef", "text": "t"}),
            "fp",
        ),
        (
            "/v1/insert",
            json!({"id": "", "fp": "0123456789abcdef"}),
            "id",
        ),
        (
            "/v1/insert",
            json!({"id": long_id, "fp": "0123456789abcdef"}),
            "id",
        ),
        ("/v1/insert", json!({"fp": "0123456789abcdef"}), "id"),
        (
            "/v1/insert",
            json!({"id": "a", "text": "t", "content_type": "text/html"}),
            "content_type",
        ),
        (
            "/v1/insert",
            json!({"id": "a", "html_base64": "***"}),
            "html_base64",
        ),
        ("/v1/query", json!({"fp": "0123456789abcdef", "k": 17}), "k"),
        (
            "/v1/query",
            json!({"fp": "0123456789abcdef", "k": "3"}),
            "k",
        ),
        ("/v1/query", json!({"fp": "0123456789abcdef", "k": -1}), "k"),
        (
            "/v1/check_and_insert",
            json!({"id": "a", "fp": "0123456789abcdef", "k": 17}),
            "k",
        ),
        (
            "/v1/insert_many",
            json!({"documents": [{"id": "a", "fp": "0123456789abcdef"}, {"id": "b", "fp": "xyz"}]}),
            "documents[1].fp",
        ),
        (
            "/v1/insert_many",
            json!({"documents": [{"id": "a", "fp": "0123456789abcdef"}, {"id": long_id, "fp": "0123456789abcdef"}]}),
            "documents[1].id",
        ),
        (
            "/v1/check_and_insert_many",
            json!({"documents": [{"id": "a", "fp": "0123456789abcdef"}, {"id": "b"}]}),
            "documents[1].fp",
        ),
        (
            "/v1/query_many",
            json!({"fps": ["0123456789abcdef", "01"]}),
            "fps[1]",
        ),
        ("/v1/remove_many", json!({"ids": ["a", ""]}), "ids[1]"),
        ("/v1/get", json!({"ids": "a"}), "ids"),
    ];
    for (path, body, field) in &cases {
        let response = client.post(path, body);
        assert_eq!(response.status, 400, "{path} {body}: {}", response.text());
        let (named, kind) = response.error();
        assert_eq!(kind, "invalid_input", "{path} {body}");
        assert_eq!(&named, field, "{path} {body}: {}", response.text());
    }
    // Not JSON at all, JSON with trailing bytes, not UTF-8.
    for body in [
        &b"{\"id\": \"a\", "[..],
        b"{\"id\":\"a\",\"fp\":\"0123456789abcdef\"} x",
        b"\xff\xfe",
    ] {
        let response = client.try_request("POST", "/v1/insert", body).unwrap();
        assert_eq!(response.status, 400, "{:?}: {}", body, response.text());
        assert_eq!(response.error().1, "invalid_input");
    }
    // Nothing above was stored.
    let stats = client.get("/v1/stats").json();
    assert_eq!(stats["ids"], 0, "{stats}");

    // Limits: batch size and body size, 413.
    let documents: Vec<Value> = (0..11)
        .map(|i| json!({"id": format!("d{i}"), "fp": hex(i)}))
        .collect();
    let response = client.post("/v1/insert_many", &json!({"documents": documents}));
    assert_eq!(response.status, 413, "{}", response.text());
    assert_eq!(
        response.error(),
        ("documents".to_string(), "limit_exceeded".to_string())
    );
    let mut fresh = served.client();
    let response = fresh.post(
        "/v1/insert",
        &json!({"id": "big", "text": "word ".repeat(1000)}),
    );
    assert_eq!(response.status, 413, "{}", response.text());
    assert_eq!(response.error().1, "limit_exceeded");
    let mut fresh = served.client();
    let unknown = fresh.post("/v1/nothing", &json!({}));
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.error().1, "not_found");
    assert_eq!(fresh.get("/v1/stats").json()["ids"], 0);
}

#[test]
fn the_openapi_document_in_docs_is_what_the_server_serves_and_every_path_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let served = Served::start(&db, &[]);
    let mut client = served.client();
    let document = client.get("/openapi.json");
    assert_eq!(document.status, 200);
    let committed =
        std::fs::read_to_string(fpdb_testkit::repo_dir().join("docs/openapi.json")).unwrap();
    // Not assert_eq: a difference would print two 40 kB documents.
    assert!(
        document.text() == committed,
        "docs/openapi.json is not what the server serves (FPDB_WRITE_OPENAPI=1 \
         cargo test -p fpdb-server openapi rewrites it)"
    );
    let document = document.json();
    let paths = document["paths"].as_object().unwrap();
    assert!(paths.len() >= 13, "{:?}", paths.keys());
    for (path, operations) in paths {
        for method in operations.as_object().unwrap().keys() {
            // An empty request: every endpoint exists (400 for a missing
            // field is an answer; 404 or 405 is not).
            let response = client
                .try_request(
                    &method.to_uppercase(),
                    path,
                    if method == "post" { b"{}" } else { b"" },
                )
                .unwrap();
            assert!(
                response.status == 200 || response.status == 400,
                "{method} {path}: {} {}",
                response.status,
                response.text()
            );
            if response.status == 400 {
                let responses = &operations[method]["responses"];
                assert!(
                    responses.get("400").is_some(),
                    "{method} {path} does not document 400"
                );
            }
        }
    }
}
