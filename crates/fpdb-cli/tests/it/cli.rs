//! The `fpdb` binary, run end to end in temporary directories.

use std::path::Path;

use crate::common::{fpdb, json_lines, ok, stderr};
use serde_json::Value;

/// (fp, distance, ids) of each match of one answer.
fn matches(answer: &Value) -> Vec<(String, u64, Vec<String>)> {
    answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["fp"].as_str().unwrap().to_string(),
                m["distance"].as_u64().unwrap(),
                m["ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|id| id.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

fn stats(dir: &Path) -> Value {
    serde_json::from_str(&ok(dir, &["stats", "db", "--json"], "")).unwrap()
}

const FPS: &str = "a\t0123456789abcdef\n\
                   b\t0123456789abcdec\n\
                   c\tffffffffffffffff\n\
                   d\t0123456789abcdef\n";

fn created(dir: &Path) {
    let summary = ok(dir, &["create", "db", "--k", "3", "--expected", "1000"], "");
    assert!(summary.contains("k=3"), "{summary}");
}

#[test]
fn create_add_query_check_remove_stats() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    std::fs::write(dir.join("in.tsv"), FPS).unwrap();
    let out = fpdb(dir, &["add", "db", "in.tsv"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("added 4 documents"),
        "{}",
        stderr(&out)
    );

    // A bare fingerprint and an id'd one, from standard input (fps).
    let answers = json_lines(ok(
        dir,
        &["query", "db"],
        "0123456789abcdee\nq\tfffffffffffffff0\n",
    ));
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["query"], "0123456789abcdee");
    assert_eq!(answers[0]["fp"], "0123456789abcdee");
    assert_eq!(
        matches(&answers[0]),
        vec![
            ("0123456789abcdec".into(), 1, vec!["b".into()]),
            ("0123456789abcdef".into(), 1, vec!["a".into(), "d".into()]),
        ]
    );
    assert_eq!(answers[1]["query"], "q");
    // ffffffffffffffff is 4 bits away: beyond k = 3.
    assert_eq!(matches(&answers[1]), vec![]);
    let answers = json_lines(ok(
        dir,
        &["query", "db"],
        "q	fffffffffffffff8
",
    ));
    assert_eq!(
        matches(&answers[0]),
        vec![("ffffffffffffffff".into(), 3, vec!["c".into()])]
    );

    // A smaller k drops the distance-1 matches; tsv has one row per id.
    let tsv = ok(
        dir,
        &["query", "db", "--k", "0", "--format", "tsv"],
        "0123456789abcdef\n",
    );
    let rows: Vec<&str> = tsv.lines().collect();
    assert_eq!(rows[0], "query\tfp\tmatch_fp\tdistance\tid");
    assert_eq!(
        rows[1..],
        [
            "0123456789abcdef\t0123456789abcdef\t0123456789abcdef\t0\ta",
            "0123456789abcdef\t0123456789abcdef\t0123456789abcdef\t0\td",
        ]
    );

    // check: answers, then stores, so the second line sees the first.
    let answers = json_lines(ok(
        dir,
        &["check", "db"],
        "e\t0000000000000003\nf\t0000000000000001\n",
    ));
    assert_eq!(matches(&answers[0]), vec![]);
    assert_eq!(
        matches(&answers[1]),
        vec![("0000000000000003".into(), 1, vec!["e".into()])]
    );

    let s = stats(dir);
    assert_eq!(s["fingerprints"], 5);
    assert_eq!(s["ids"], 6);
    assert_eq!(s["k"], 3);

    let out = fpdb(dir, &["remove", "db", "a", "nope"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("removed 1 of 2"), "{}", stderr(&out));
    let answers = json_lines(ok(dir, &["query", "db", "--k", "0"], "0123456789abcdef\n"));
    assert_eq!(
        matches(&answers[0]),
        vec![("0123456789abcdef".into(), 0, vec!["d".into()])]
    );

    ok(dir, &["compact", "db"], "");
    let s = stats(dir);
    assert_eq!(s["ids"], 5);
    assert_eq!(s["fingerprints"], 5);
    assert_eq!(s["delta_added"], 0);
    assert_eq!(s["tables"].as_array().unwrap().len(), 4);
    let text = ok(dir, &["stats", "db"], "");
    assert!(text.contains("fingerprints   5"), "{text}");
}

/// A crawler that checks the same URL twice (a re-crawl) is not told the
/// page is a near-duplicate of itself, and sees what the URL held before.
#[test]
fn check_twice_with_the_same_id_does_not_report_the_id_itself() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    let line = "https://a.example/x\t0123456789abcdef\n";
    let first = json_lines(ok(dir, &["check", "db"], line));
    assert_eq!(matches(&first[0]), vec![]);
    assert_eq!(first[0]["previous"], Value::Null);
    let second = json_lines(ok(dir, &["check", "db"], line));
    assert_eq!(matches(&second[0]), vec![], "{}", second[0]);
    assert_eq!(second[0]["previous"], "0123456789abcdef");
    // Another page with that fingerprint is still reported, the URL not.
    ok(
        dir,
        &["add", "db"],
        "https://b.example/y\t0123456789abcdef\n",
    );
    let third = json_lines(ok(dir, &["check", "db"], line));
    assert_eq!(
        matches(&third[0]),
        vec![(
            "0123456789abcdef".into(),
            0,
            vec!["https://b.example/y".into()]
        )]
    );
}

#[test]
fn bad_line_stops_with_nothing_applied_and_skip_bad_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    std::fs::write(
        dir.join("bad.tsv"),
        "x\t0123456789abcdef\ny\tnot-a-fingerprint\nz\t0000000000000000\textra\n",
    )
    .unwrap();
    let out = fpdb(dir, &["add", "db", "bad.tsv"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bad.tsv:2: invalid fingerprint"),
        "{}",
        stderr(&out)
    );
    let answers = json_lines(ok(dir, &["query", "db"], "0123456789abcdef\n"));
    assert_eq!(matches(&answers[0]), vec![], "nothing of bad.tsv is stored");
    assert_eq!(stats(dir)["ids"], 0);

    // Standard input too (validated first when asked; a pipe streams by
    // default, tests/stream.rs), and JSON Lines.
    let out = fpdb(
        dir,
        &["add", "db", "--apply", "validate", "--input", "jsonl"],
        "{\"id\": \"j\", \"fp\": \"0123456789abcdef\"}\n{\"id\": \"k\"\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("<stdin>:2: invalid JSON"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stats(dir)["ids"], 0);

    let out = fpdb(dir, &["add", "db", "--skip-bad", "bad.tsv"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("bad.tsv:2:"), "{err}");
    assert!(
        err.contains("bad.tsv:3: expected 2 tab-separated fields"),
        "{err}"
    );
    assert!(err.contains("2 bad lines skipped"), "{err}");
    let answers = json_lines(ok(dir, &["query", "db"], "0123456789abcdef\n"));
    assert_eq!(
        matches(&answers[0]),
        vec![("0123456789abcdef".into(), 0, vec!["x".into()])]
    );

    // Overlong and empty ids are bad lines.
    let long = "i".repeat(1025);
    let out = fpdb(dir, &["add", "db"], format!("{long}\t0123456789abcdef\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("<stdin>:1: id of 1025 bytes"),
        "{}",
        stderr(&out)
    );
    let out = fpdb(dir, &["add", "db"], "\t0123456789abcdef\n");
    assert!(
        stderr(&out).contains("<stdin>:1: empty id"),
        "{}",
        stderr(&out)
    );
}

/// `--batch` changes how many queries are answered together (and so the
/// strategy: small batches probe, batches of 1,000 or more merge), never
/// the answers or their order.
#[test]
fn query_answers_do_not_depend_on_the_batch_size() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    let mut stored = String::new();
    let mut queries = String::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // 12,001 queries: the default batch merges, small ones probe.
    for i in 0..6_000 {
        let fp = next();
        stored.push_str(&format!("doc{i}\t{fp:016x}\n"));
        // A stored fingerprint with one bit flipped, then a random one.
        queries.push_str(&format!("near{i}\t{:016x}\n", fp ^ (1 << (i % 64))));
        queries.push_str(&format!("far{i}\t{:016x}\n", next()));
    }
    // Ten shared fingerprints so some answers hold several ids.
    for i in 0..10 {
        stored.push_str(&format!("dup{i}\t{:016x}\n", 0x00ff_00ff_00ff_00ffu64));
    }
    queries.push_str("dups\t00ff00ff00ff00ff\n");
    std::fs::write(dir.join("stored.fps"), stored).unwrap();
    std::fs::write(dir.join("queries.fps"), &queries).unwrap();
    let load = fpdb(dir, &["load", "db", "stored.fps"], "");
    assert_eq!(load.status.code(), Some(0), "{}", stderr(&load));
    // The summary counts what was stored and says where the time went.
    let summary = stderr(&load);
    assert!(
        summary.contains("loaded 6010 documents (6010 ids, 6001 distinct fingerprints)")
            && summary.contains("; reading ")
            && summary.contains(", sorting and writing ")
            && summary.contains(", ingesting "),
        "{summary}"
    );
    let default = ok(dir, &["query", "db", "queries.fps"], "");
    let answers = json_lines(default.clone());
    assert_eq!(answers.len(), 12_001);
    assert_eq!(
        answers[12_000]["matches"][0]["ids"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    let near = answers
        .iter()
        .filter(|a| !a["matches"].as_array().unwrap().is_empty());
    assert!(near.count() >= 6_000);
    for batch in ["1", "7", "10000"] {
        let out = ok(dir, &["query", "db", "queries.fps", "--batch", batch], "");
        assert_eq!(out, default, "--batch {batch}");
    }
    let out = fpdb(dir, &["query", "db", "queries.fps", "--batch", "0"], "");
    assert_eq!(out.status.code(), Some(2));
}

/// With `--batch 1` a query is answered before the next line arrives, so a
/// crawler can keep one `fpdb query` process open and talk to it.
#[test]
fn query_with_batch_one_answers_a_stream_line_by_line() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    ok(dir, &["add", "db"], "a\t0123456789abcdef\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fpdb"))
        .args(["query", "db", "--batch", "1"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let (lines, received) = std::sync::mpsc::channel();
    let output = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines() {
            if lines.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for query in ["0123456789abcdef", "0123456789abcdee"] {
        writeln!(input, "{query}").unwrap();
        input.flush().unwrap();
        // Standard input stays open: the answer must come anyway.
        let answer = received
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("no answer while standard input is still open");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(answer["query"], query);
        assert_eq!(answer["matches"][0]["ids"][0], "a");
    }
    drop(input);
    assert!(child.wait().unwrap().success());
}

#[test]
fn radii_past_the_widest_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    for command in ["query", "check"] {
        let out = fpdb(dir, &[command, "db", "--k", "17"], "0123456789abcdef\n");
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("k = 17 is wider than any fpdb query reaches"),
            "{}",
            stderr(&out)
        );
    }
    // Queries past the database's k probe neighbouring prefixes; near
    // pairs stop at its k.
    let out = fpdb(dir, &["query", "db", "--k", "7"], "0123456789abcdef\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = fpdb(dir, &["pairs", "db", "--k", "5"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("k = 5 is larger than this database's k = 3"),
        "{}",
        stderr(&out)
    );
    // A usage error is exit code 2.
    assert_eq!(fpdb(dir, &["query"], "").status.code(), Some(2));
}

#[test]
fn hash_output_round_trips_into_add_and_texts_query() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let common = ["--tokenizer", "words", "--weights", "tf"];
    let mut create = vec!["create", "db"];
    create.extend(common);
    ok(dir, &create, "");
    let texts = "the quick brown fox jumps over the lazy dog\n\
                 a completely different sentence about databases\n";
    let mut hash = vec!["hash"];
    hash.extend(common);
    let hashed = ok(dir, &hash, texts);
    assert_eq!(hashed.lines().count(), 2);
    assert!(hashed.starts_with("1\t"), "{hashed}");
    ok(dir, &["add", "db"], &hashed);
    assert_eq!(stats(dir)["ids"], 2);

    // The same texts as JSON Lines are hashed with the stored options.
    let jsonl = "{\"id\": \"fox\", \"text\": \"the quick brown fox jumps over the lazy dog\"}\n";
    std::fs::write(dir.join("q.jsonl"), jsonl).unwrap();
    let answers = json_lines(ok(dir, &["query", "db", "q.jsonl"], ""));
    assert_eq!(answers[0]["query"], "fox");
    let first_fp = hashed.lines().next().unwrap().split('\t').nth(1).unwrap();
    assert_eq!(answers[0]["fp"], first_fp);
    let found = matches(&answers[0]);
    assert_eq!(found[0], (first_fp.to_string(), 0, vec!["1".to_string()]));
}

#[test]
fn demo_finds_the_planted_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = fpdb_testkit::repo_dir().join("data/corpus.jsonl");
    let out = ok(
        dir.path(),
        &["demo", "--corpus", corpus.to_str().unwrap()],
        "",
    );
    assert!(out.contains("planted near-duplicates found: "), "{out}");
    assert!(out.contains("checked against comparing all"), "{out}");
    assert!(out.contains("µs per query"), "{out}");
    // In two stages every planted copy of the bundled corpus is found, and
    // nothing else.
    let two_stages = out
        .split_once("two stages: ")
        .map(|(_, rest)| rest)
        .expect("a two-stage section");
    assert!(
        two_stages.contains(
            "planted near-duplicates found: 60 of 60 (100%); pairs reported that were not planted: 0"
        ),
        "{out}"
    );
    assert!(
        two_stages.contains("checked against applying the same rule to all 64620 pairs directly"),
        "{out}"
    );
}

#[test]
fn export_round_trips_through_add() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    let documents = "https://a.example/1\t00000000000000ff\nhttps://a.example/2\t00000000000000fe\nb\tffffffffffffffff\n";
    ok(dir, &["add", "db", "--input", "fps"], documents);
    let exported = ok(dir, &["export", "db"], "");
    let mut want: Vec<&str> = documents.lines().collect();
    want.sort_unstable();
    assert_eq!(exported.lines().collect::<Vec<_>>(), want);
    // Loading the export into a fresh database gives the same export.
    ok(
        dir,
        &["create", "copy", "--k", "3", "--expected", "1000"],
        "",
    );
    ok(dir, &["add", "copy", "--input", "fps"], &exported);
    assert_eq!(ok(dir, &["export", "copy"], ""), exported);
}
