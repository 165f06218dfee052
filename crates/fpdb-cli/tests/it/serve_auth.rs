//! Who may do what on `fpdb serve`: bearer tokens from `--token-file`
//! (read-only or read-write) and `--read-only` servers.

use crate::server::{create_db, hex, Served};
use serde_json::{json, Value};

const WRITER: &str = "writer-token-0123456789";
const READER: &str = "reader-token-0123456789";

#[test]
fn requests_without_a_valid_token_get_401_and_touch_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        format!("# crawlers\nread-write {WRITER}\nread-only {READER}\n"),
    )
    .unwrap();
    let served = Served::start(&db, &["--token-file", tokens.to_str().unwrap()]);
    let document = json!({"id": "a", "fp": hex(7)});

    let mut anonymous = served.client();
    let mut forger = served.client_with_token("writer-token-0123456780");
    for client in [&mut anonymous, &mut forger] {
        for path in ["/v1/insert", "/v1/check_and_insert", "/v1/query", "/v1/get"] {
            let body = if path == "/v1/get" {
                json!({"id": "a"})
            } else {
                document.clone()
            };
            let response = client.post(path, &body);
            assert_eq!(response.status, 401, "{path}: {}", response.text());
            assert_eq!(response.error().1, "unauthorized");
            assert!(response
                .headers
                .iter()
                .any(|(n, v)| n == "www-authenticate" && v == "Bearer"));
        }
        assert_eq!(client.get("/metrics").status, 401);
        assert_eq!(client.get("/v1/stats").status, 401);
        // Health is for load balancers: no token needed.
        assert_eq!(client.get("/health").status, 200);
    }

    let mut reader = served.client_with_token(READER);
    assert_eq!(
        reader.get("/v1/stats").json()["ids"],
        0,
        "a refused write stored nothing"
    );
    for path in [
        "/v1/insert",
        "/v1/check_and_insert",
        "/v1/remove",
        "/v1/insert_many",
    ] {
        let body = match path {
            "/v1/remove" => json!({"id": "a"}),
            "/v1/insert_many" => json!({"documents": [document]}),
            _ => document.clone(),
        };
        let response = reader.post(path, &body);
        assert_eq!(response.status, 403, "{path}: {}", response.text());
        assert_eq!(response.error().1, "read_only");
    }
    assert_eq!(reader.get("/v1/stats").json()["ids"], 0);

    let mut writer = served.client_with_token(WRITER);
    writer.ok("/v1/insert", &document);
    let answer = reader.ok("/v1/query", &json!({"fp": hex(7), "k": 0}));
    assert_eq!(answer["matches"][0]["ids"], json!(["a"]));
    assert_eq!(reader.get("/metrics").status, 200);
}

#[test]
fn a_read_only_server_answers_queries_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    {
        let writer = Served::start(&db, &[]);
        writer
            .client()
            .ok("/v1/insert", &json!({"id": "kept", "fp": hex(42)}));
        assert_eq!(writer.terminate(), Some(0));
    }
    let served = Served::start(&db, &["--read-only"]);
    let mut client = served.client();
    assert_eq!(
        client.get("/health").json(),
        json!({"status": "ok", "read_only": true})
    );
    let answer = client.ok("/v1/get", &json!({"id": "kept"}));
    assert_eq!(answer["fingerprint"], Value::String(hex(42)));
    let response = client.post("/v1/insert", &json!({"id": "new", "fp": hex(1)}));
    assert_eq!(response.status, 403);
    assert_eq!(response.error().1, "read_only");
    assert_eq!(
        client.ok("/v1/get", &json!({"id": "new"}))["fingerprint"],
        Value::Null
    );
}

#[test]
fn a_bad_token_file_stops_the_server_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, format!("read-write {WRITER}\nadmin {READER}\n")).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fpdb"))
        .args([
            "serve",
            db.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--token-file",
        ])
        .arg(&tokens)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("line 2") && stderr.contains("admin"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(READER),
        "the error must not print tokens: {stderr}"
    );
}
