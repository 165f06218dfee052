//! Readers beside a live writer: read-only opens in other processes while
//! `fpdb add` writes never fail because of it (RocksDB's read-only mode
//! did, racing the writer's deletion of a write-ahead log).

use std::fmt::Write as _;
use std::process::{Command, Stdio};

use crate::common::{fpdb, ok, stderr};

#[test]
fn read_only_opens_never_fail_while_a_writer_writes() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--expected", "1000000"], "");
    let mut input = String::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..300_000u64 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        writeln!(input, "doc{i}\t{state:016x}").unwrap();
    }
    std::fs::write(dir.join("in.tsv"), input).unwrap();
    let mut writer = Command::new(env!("CARGO_BIN_EXE_fpdb"))
        .args(["add", "db", "in.tsv"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut opens = 0;
    let mut failures = Vec::new();
    while writer.try_wait().unwrap().is_none() {
        let out = fpdb(dir, &["query", "db"], "0123456789abcdef\n");
        opens += 1;
        if !out.status.success() {
            failures.push(stderr(&out));
        }
    }
    let status = writer.wait().unwrap();
    assert!(status.success());
    assert!(
        failures.is_empty(),
        "{} of {opens} opens failed: {failures:?}",
        failures.len()
    );
    assert!(opens >= 3, "only {opens} opens while the writer ran");
    // And after the writer: a reader sees everything it wrote.
    let stats: serde_json::Value =
        serde_json::from_str(&ok(dir, &["stats", "db", "--json"], "")).unwrap();
    assert_eq!(stats["ids"], 300_000);
}
