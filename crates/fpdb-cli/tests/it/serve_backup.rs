//! Backups through `fpdb serve` (`POST /v1/backup` into `--backup-dir`),
//! made while it serves.

use crate::server::{create_db, hex, Served};
use fpdb::{Fingerprint, OpenOptions};
use serde_json::json;

const WRITER: &str = "writer-token-0123456789";
const READER: &str = "reader-token-0123456789";

#[test]
fn a_backup_holds_every_answered_write_and_names_are_plain() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let backups = dir.path().join("backups");
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        format!("read-write {WRITER}\nread-only {READER}\n"),
    )
    .unwrap();
    let served = Served::start(
        &db,
        &[
            "--backup-dir",
            backups.to_str().unwrap(),
            "--token-file",
            tokens.to_str().unwrap(),
        ],
    );
    let mut writer = served.client_with_token(WRITER);
    for i in 0..300u64 {
        writer.ok(
            "/v1/insert",
            &json!({"id": format!("doc-{i}"), "fp": hex(i * 7919)}),
        );
    }
    let answer = writer.ok("/v1/backup", &json!({"name": "first"}));
    assert_eq!(answer["method"], "checkpoint");
    assert!(answer["bytes"].as_u64().unwrap() > 0);
    let copy = OpenOptions::new()
        .read_only(true)
        .open(backups.join("first"))
        .unwrap();
    assert_eq!(copy.stats().ids, 300);
    assert_eq!(copy.get("doc-299").unwrap(), Some(Fingerprint(299 * 7919)));

    let again = writer.post("/v1/backup", &json!({"name": "first"}));
    assert_eq!(again.status, 409, "{}", again.text());
    assert_eq!(again.error().1, "already_exists");
    for name in ["../escape", ".hidden", "a/b", ""] {
        let response = writer.post("/v1/backup", &json!({"name": name}));
        assert_eq!(response.status, 400, "{name}: {}", response.text());
        assert_eq!(response.error().0, "name");
    }
    assert!(!dir.path().join("escape").exists());
    let mut reader = served.client_with_token(READER);
    let refused = reader.post("/v1/backup", &json!({"name": "second"}));
    assert_eq!(refused.status, 403);
    assert!(!backups.join("second").exists());
}

#[test]
fn without_a_backup_dir_backups_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &["--expected", "1000"]);
    let served = Served::start(&db, &[]);
    let response = served.client().post("/v1/backup", &json!({"name": "x"}));
    assert_eq!(response.status, 403);
    assert_eq!(response.error().1, "backups_off");
}
