//! A whole operator session through the real binary (create → load →
//! query → add → check → remove → verify → export → load), checked against
//! an in-memory model; bad input to `load`; `verify` on a damaged block;
//! exit codes, broken pipes and `--help` examples.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{answer_ids, fpdb as run, ok, stderr};
use serde_json::Value;

fn ids_in_db(dir: &Path, db: &str) -> u64 {
    let stats: Value = serde_json::from_str(&ok(dir, &["stats", db, "--json"], b"")).unwrap();
    stats["ids"].as_u64().unwrap()
}

fn random_fingerprints(n: usize, mut seed: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        })
        .collect()
}

/// `<id>\t<hex>` lines of the model, in id order (as `export` prints).
fn export_of(model: &BTreeMap<String, u64>) -> String {
    model
        .iter()
        .map(|(id, fp)| format!("{id}\t{fp:016x}\n"))
        .collect()
}

/// The ids within `k` of `query` in the model, sorted.
fn near(model: &BTreeMap<String, u64>, query: u64, k: u32) -> Vec<String> {
    model
        .iter()
        .filter(|(_, fp)| (*fp ^ query).count_ones() <= k)
        .map(|(id, _)| id.clone())
        .collect()
}

#[test]
fn a_whole_session_agrees_with_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut model: BTreeMap<String, u64> = BTreeMap::new();
    let fps = random_fingerprints(5000, 0x9e37_79b9_7f4a_7c15);
    let mut input = String::new();
    for (i, fp) in fps.iter().enumerate() {
        input.push_str(&format!("doc-{i}\t{fp:016x}\n"));
        model.insert(format!("doc-{i}"), *fp);
    }
    // A repeated id: the last line wins.
    input.push_str(&format!("doc-0\t{:016x}\n", fps[1] ^ 1));
    model.insert("doc-0".into(), fps[1] ^ 1);
    std::fs::write(dir.join("crawl.tsv"), &input).unwrap();

    ok(dir, &["create", "db", "--expected", "10000"], b"");
    let out = run(dir, &["load", "db", "crawl.tsv"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("loaded 5001 documents (5000 ids"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ids_in_db(dir, "db"), 5000);

    // Texts load too (hashed by the database): `hash` with the same
    // options gives the fingerprints they are stored with.
    let texts = "{\"id\": \"t1\", \"text\": \"the quick brown fox jumps over the lazy dog\"}\n\
                 {\"id\": \"t2\", \"text\": \"an entirely different document about databases\"}\n";
    ok(dir, &["create", "texts"], b"");
    ok(
        dir,
        &["load", "texts", "--input", "jsonl"],
        texts.as_bytes(),
    );
    let hashed = ok(dir, &["hash", "--input", "jsonl"], texts.as_bytes());
    assert_eq!(ok(dir, &["export", "texts"], b""), hashed);

    // Queries: each fingerprint 2 bits away from a stored one.
    let queries: Vec<u64> = fps.iter().step_by(97).map(|fp| fp ^ 0b101).collect();
    let query_input: String = queries.iter().map(|q| format!("{q:016x}\n")).collect();
    let answers: Vec<Value> = ok(dir, &["query", "db"], query_input.as_bytes())
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), queries.len());
    for (answer, query) in answers.iter().zip(&queries) {
        assert_eq!(answer_ids(answer), near(&model, *query, 3));
    }

    // Online writes on top of the loaded tables.
    ok(dir, &["add", "db"], b"added\t0123456789abcdef\n");
    model.insert("added".into(), 0x0123_4567_89ab_cdef);
    let checked = ok(dir, &["check", "db"], b"checked\t0123456789abcdee\n");
    let answer: Value = serde_json::from_str(checked.trim()).unwrap();
    assert_eq!(answer_ids(&answer), ["added"]);
    model.insert("checked".into(), 0x0123_4567_89ab_cdee);
    ok(
        dir,
        &["remove", "db", "doc-7", "doc-8", "never-stored"],
        b"",
    );
    model.remove("doc-7");
    model.remove("doc-8");

    let verified = ok(dir, &["verify", "db"], b"");
    assert!(verified.starts_with("ok: "), "{verified}");
    let exported = ok(dir, &["export", "db"], b"");
    assert_eq!(exported, export_of(&model));

    // The export loads into a second database and exports the same.
    ok(dir, &["create", "copy", "--expected", "10000"], b"");
    ok(dir, &["load", "copy"], exported.as_bytes());
    assert_eq!(ok(dir, &["export", "copy"], b""), exported);
    assert!(ok(dir, &["verify", "copy"], b"").starts_with("ok: "));

    // Loading into a database that holds documents is refused, and
    // changes nothing.
    let out = run(dir, &["load", "copy"], exported.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("bulk loads go into empty databases"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ok(dir, &["export", "copy"], b""), exported);
}

#[test]
fn a_bad_line_loads_nothing_and_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db"], b"");
    let good = b"a\t0123456789abcdef\nb\t0123456789abcdee\n".to_vec();
    let long_id = format!("{}\t0123456789abcdef\n", "x".repeat(1025));
    let cases: [(&str, &str, Vec<u8>, &str); 5] = [
        (
            "hex.tsv",
            "fps",
            b"c\t0123456789abcdeg\n".to_vec(),
            "invalid fingerprint",
        ),
        (
            "fields.tsv",
            "fps",
            b"c\td\t0123456789abcdef\n".to_vec(),
            "expected 2 tab-separated fields",
        ),
        (
            "json.jsonl",
            "jsonl",
            b"{\"id\": \"c\", \"fp\": \n".to_vec(),
            "invalid JSON",
        ),
        (
            "utf8.tsv",
            "fps",
            b"c\xff\t0123456789abcdef\n".to_vec(),
            "not valid UTF-8",
        ),
        ("long.tsv", "fps", long_id.into_bytes(), "id of 1025 bytes"),
    ];
    for (name, format, bad, reason) in cases {
        let mut content = if format == "jsonl" {
            b"{\"id\": \"a\", \"fp\": \"0123456789abcdef\"}\n{\"id\": \"b\", \"text\": \"some text\"}\n"
                .to_vec()
        } else {
            good.clone()
        };
        content.extend_from_slice(&bad);
        content.extend_from_slice(b"z\t0000000000000000\n");
        std::fs::write(dir.join(name), &content).unwrap();
        let out = run(dir, &["load", "db", "--input", format, name], b"");
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&format!("{name}:3: ")), "{name}: {err}");
        assert!(err.contains(reason), "{name}: {err}");
        assert!(err.contains("nothing was loaded"), "{name}: {err}");
        assert_eq!(ids_in_db(dir, "db"), 0, "{name} left documents behind");
        assert!(ok(dir, &["verify", "db"], b"").starts_with("ok: "));
    }
    // With --skip-bad the bad lines are counted and the rest loads.
    let out = run(
        dir,
        &[
            "load",
            "db",
            "--input",
            "fps",
            "--skip-bad",
            "hex.tsv",
            "fields.tsv",
            "long.tsv",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("3 bad lines skipped"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ids_in_db(dir, "db"), 3);
}

#[test]
fn verify_names_a_damaged_block_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let input: String = random_fingerprints(3000, 5)
        .iter()
        .enumerate()
        .map(|(i, fp)| format!("{i}\t{fp:016x}\n"))
        .collect();
    ok(dir, &["create", "db", "--block-bytes", "256"], b"");
    ok(dir, &["load", "db"], input.as_bytes());
    assert!(ok(dir, &["verify", "db"], b"").starts_with("ok: "));
    {
        // Overwrite the middle of table 2's block 3, as docs/FORMAT.md
        // lays it out: the directory in meta `dir/002`, blocks in `table-002`.
        let path = dir.join("db");
        let rocks = fpdb_testkit::open_raw(&path);
        let key = fpdb_testkit::block_keys(&rocks, 2)[3];
        let table = rocks.cf_handle("table-002").unwrap();
        let mut block = rocks.get_cf(table, key).unwrap().unwrap();
        let middle = block.len() / 2;
        block[middle] ^= 0xff;
        rocks.put_cf(table, key, block).unwrap();
    }
    let out = run(dir, &["verify", "db"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(report.contains("damaged: table 2, block 3"), "{report}");
    assert!(report.contains("DAMAGED: "), "{report}");
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn a_closed_pipe_ends_quietly_with_0() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // Far more than a pipe buffer of output.
    let input: String = random_fingerprints(50_000, 3)
        .iter()
        .enumerate()
        .map(|(i, fp)| format!("document-{i}\t{fp:016x}\n"))
        .collect();
    ok(dir, &["create", "db"], b"");
    ok(dir, &["load", "db"], input.as_bytes());
    for args in [&["export", "db"][..], &["hash", "--input", "fps"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fpdb"))
            .args(args)
            .current_dir(dir)
            .stdin(if args[0] == "hash" {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            let text = input.clone();
            std::thread::spawn(move || {
                let _ = stdin.write_all(text.as_bytes());
            });
        }
        // `| head -1`
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn exit_codes_and_help_examples() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // Usage errors and a missing database are 2.
    assert_eq!(run(dir, &["load"], b"").status.code(), Some(2));
    assert_eq!(run(dir, &["nonsense"], b"").status.code(), Some(2));
    let out = run(dir, &["verify", "missing"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no fpdb database at missing"),
        "{}",
        stderr(&out)
    );
    assert_eq!(run(dir, &["load", "missing"], b"").status.code(), Some(2));
    // Every subcommand's help shows an example.
    let help = ok(dir, &["--help"], b"");
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(commands.len() >= 12, "{commands:?}");
    for command in commands {
        let help = ok(dir, &[command, "--help"], b"");
        assert!(
            help.contains("Example"),
            "fpdb {command} --help has no example"
        );
        assert!(help.contains(&format!("fpdb {command}")), "{command}");
    }
}
