//! `--format` on the commands that print reports and documents, the older
//! spellings kept as aliases (`stats --json`, `remove --input FILE`), and
//! help texts that each show an example.

use std::path::Path;

use crate::common::{fpdb, load_urls, ok, stderr};
use serde_json::Value;

const FPS: &str = "a\t0123456789abcdef\n\
                   b\t0123456789abcdec\n\
                   c\tffffffffffffffff\n";

fn loaded(dir: &Path) {
    ok(dir, &["create", "db", "--expected", "1000"], "");
    std::fs::write(dir.join("in.tsv"), FPS).expect("in.tsv");
    ok(dir, &["add", "db", "in.tsv"], "");
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("{error}: {text:?}"))
}

#[test]
fn stats_json_is_the_older_spelling_of_format_json() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);
    let new = json(&ok(dir, &["stats", "db", "--format", "json"], ""));
    let old = json(&ok(dir, &["stats", "db", "--json"], ""));
    assert_eq!(new, old);
    assert_eq!(new["ids"], 3);

    let text = ok(dir, &["stats", "db", "--format", "text"], "");
    assert!(text.starts_with("database "), "{text}");
    assert_eq!(ok(dir, &["stats", "db"], ""), text);

    // Both spellings at once are a usage error, not a silent choice.
    let both = fpdb(dir, &["stats", "db", "--json", "--format", "text"], "");
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
}

#[test]
fn remove_reads_ids_from_id_file_and_from_the_older_input() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);
    std::fs::write(dir.join("gone-a.txt"), "a\n").unwrap();
    std::fs::write(dir.join("gone-b.txt"), "b\n").unwrap();
    let out = fpdb(dir, &["remove", "db", "--id-file", "gone-a.txt"], "");
    assert!(
        stderr(&out).contains("removed 1 of 1 id"),
        "{}",
        stderr(&out)
    );
    let out = fpdb(dir, &["remove", "db", "--input", "gone-b.txt"], "");
    assert!(
        stderr(&out).contains("removed 1 of 1 id"),
        "{}",
        stderr(&out)
    );
    let exported = ok(dir, &["export", "db"], "");
    assert_eq!(exported, "c\tffffffffffffffff\n");
}

#[test]
fn verify_backup_and_repair_print_json_reports() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);

    let verified = json(&ok(dir, &["verify", "db", "--format", "json"], ""));
    assert_eq!(verified["clean"], true);
    assert_eq!(verified["ids"], 3);
    assert_eq!(verified["problems"], Value::Array(vec![]));

    let backup = json(&ok(dir, &["backup", "db", "copy", "--format", "json"], ""));
    assert_eq!(backup["verify"]["clean"], true);
    assert_eq!(backup["verify"]["ids"], 3);
    assert!(
        backup["path"].as_str().unwrap().ends_with("copy"),
        "{backup}"
    );
    assert!(dir.join("copy").is_dir());
    assert!(backup["bytes"].as_u64().unwrap() > 0);
    let unverified = json(&ok(
        dir,
        &["backup", "db", "copy2", "--no-verify", "--format", "json"],
        "",
    ));
    assert_eq!(unverified["verify"], Value::Null);

    let repaired = json(&ok(dir, &["repair", "db", "--format", "json"], ""));
    assert_eq!(repaired["repaired"], false);
    assert_eq!(repaired["damage"], Value::Array(vec![]));
}

#[test]
fn verify_json_names_the_damage_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    load_urls(dir, 50_000);
    let name = fpdb_testkit::damage_the_largest_file(&dir.join("db"));

    let out = fpdb(dir, &["verify", "db", "--format", "json"], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["clean"], false);
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p.as_str().unwrap().contains(&name)),
        "{report}"
    );

    let out = fpdb(dir, &["repair", "db", "--format", "json"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let repaired = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(repaired["repaired"], true);
    assert_eq!(repaired["documents"], 50_000);
    assert_eq!(repaired["lost_fingerprints"], Value::Array(vec![]));
    assert!(dir.join("db.damaged").is_dir());
}

#[test]
fn every_command_help_shows_an_example() {
    let dir = tempfile::tempdir().unwrap();
    let commands = [
        "create", "load", "add", "query", "check", "remove", "stats", "verify", "compact",
        "backup", "repair", "export", "hash", "dedup", "pairs", "demo",
    ];
    for command in commands {
        let help = ok(dir.path(), &[command, "--help"], "");
        assert!(help.contains("Example"), "fpdb {command} --help:\n{help}");
        assert!(
            help.contains(&format!("fpdb {command}")),
            "fpdb {command} --help shows no use of it:\n{help}"
        );
    }
}

#[test]
fn add_and_check_help_say_how_standard_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["add", "check"] {
        let help = ok(dir.path(), &[command, "--help"], "");
        assert!(!help.contains("temporary file"), "{help}");
        assert!(help.contains("streamed"), "{help}");
    }
}

#[test]
fn export_and_hash_print_json_lines_that_load_and_add_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);
    let tsv = ok(dir, &["export", "db"], "");
    let jsonl = ok(dir, &["export", "db", "--format", "json"], "");
    let lines: Vec<Value> = jsonl.lines().map(json).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0],
        serde_json::json!({"id": "a", "fp": "0123456789abcdef"})
    );
    std::fs::write(dir.join("export.jsonl"), &jsonl).unwrap();
    ok(dir, &["create", "copy", "--expected", "1000"], "");
    ok(dir, &["load", "copy", "export.jsonl"], "");
    assert_eq!(ok(dir, &["export", "copy"], ""), tsv);

    let texts = "网络爬虫每天抓取大量网页\nA web crawler fetches pages\n";
    let hashed_tsv = ok(dir, &["hash"], texts);
    let hashed_json = ok(dir, &["hash", "--format", "json"], texts);
    let from_json: Vec<String> = hashed_json
        .lines()
        .map(|line| {
            let value = json(line);
            format!(
                "{}\t{}",
                value["id"].as_str().unwrap(),
                value["fp"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(from_json, hashed_tsv.lines().collect::<Vec<_>>());
}

#[test]
fn load_prints_its_summary_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--expected", "1000"], "");
    std::fs::write(dir.join("in.tsv"), format!("{FPS}bad line\n")).unwrap();
    let summary = json(&ok(
        dir,
        &["load", "db", "in.tsv", "--skip-bad", "--format", "json"],
        "",
    ));
    assert_eq!(summary["documents"], 3);
    assert_eq!(summary["ids"], 3);
    assert_eq!(summary["fingerprints"], 3);
    assert_eq!(summary["skipped_bad_lines"], 1);
    assert_eq!(summary["path"], "db");
    assert!(summary["seconds"].as_f64().unwrap() >= summary["reading_seconds"].as_f64().unwrap());
}
