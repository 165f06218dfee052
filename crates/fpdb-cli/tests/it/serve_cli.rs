//! `fpdb check`, `query` and `add` with `--server URL` against a real
//! `fpdb serve` on 127.0.0.1, side by side with the same commands on a
//! directory holding the same documents: the same standard output, the
//! same errors and the same exit status.

use std::path::Path;
use std::process::Output;

use crate::common::{fpdb, stderr};
use crate::server::{create_db, Served};
use fpdb_testkit::Rng;
use serde_json::json;

/// Options other than the defaults, so the server's must reach the client.
const CREATE: &[&str] = &[
    "--tokenizer",
    "words",
    "--weights",
    "tf",
    "--extract",
    "all",
];

/// A text of `n` words drawn by `rng` from a vocabulary of 5,000.
fn text(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| format!("word{}", rng.below(5_000)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// JSON Lines documents `doc-{from}…`: fingerprints near earlier ones,
/// texts and HTML pages, some repeating or editing an earlier text, so
/// that checks and queries find matches.
fn documents(rng: &mut Rng, from: usize, n: usize) -> String {
    let mut lines = String::new();
    let mut texts: Vec<String> = Vec::new();
    let mut fps: Vec<u64> = Vec::new();
    for i in from..from + n {
        let id = format!("doc-{i}");
        let line = match rng.below(4) {
            0 | 1 => {
                let fp = if !fps.is_empty() && rng.chance(50) {
                    let base = fps[rng.below(fps.len() as u64) as usize];
                    rng.near(fpdb::Fingerprint(base), 4).0
                } else {
                    rng.next_u64()
                };
                fps.push(fp);
                json!({"id": id, "fp": format!("{fp:016x}")})
            }
            2 => {
                let body = if !texts.is_empty() && rng.chance(60) {
                    let base = texts[rng.below(texts.len() as u64) as usize].clone();
                    format!("{base} {}", text(rng, 1))
                } else {
                    text(rng, 40)
                };
                texts.push(body.clone());
                json!({"id": id, "text": body})
            }
            _ => {
                let body = text(rng, 40);
                json!({"id": id, "html": format!("<html><body><nav>menu</nav><p>{body}</p></body></html>")})
            }
        };
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    lines
}

/// A served database and a directory created alike.
struct Pair {
    dir: tempfile::TempDir,
    /// Kept running until the pair is dropped.
    _served: Served,
    url: String,
}

impl Pair {
    fn new(serve_args: &[&str]) -> Pair {
        Pair::created(CREATE, serve_args)
    }

    /// Both databases created with `create_args`.
    fn created(create_args: &[&str], serve_args: &[&str]) -> Pair {
        let dir = tempfile::tempdir().unwrap();
        create_db(dir.path(), "local", create_args);
        let remote = create_db(dir.path(), "remote", create_args);
        let served = Served::start(&remote, serve_args);
        let url = format!("http://{}", served.addr);
        Pair {
            dir,
            _served: served,
            url,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `fpdb COMMAND local args…` and `fpdb COMMAND --server URL args…`.
    fn both(&self, command: &str, args: &[&str], stdin: &str) -> (Output, Output) {
        let local = fpdb(self.path(), &[&[command, "local"], args].concat(), stdin);
        let remote = fpdb(
            self.path(),
            &[&[command, "--server", self.url.as_str()], args].concat(),
            stdin,
        );
        (local, remote)
    }

    /// Asserts the two runs printed the same and exited alike; returns
    /// the local run.
    fn same(&self, command: &str, args: &[&str], stdin: &str) -> Output {
        let (local, remote) = self.both(command, args, stdin);
        assert_same(command, args, &local, &remote);
        local
    }
}

fn assert_same(command: &str, args: &[&str], local: &Output, remote: &Output) {
    assert_eq!(
        local.status.code(),
        remote.status.code(),
        "fpdb {command} {args:?}: local {} / server {}",
        stderr(local),
        stderr(remote)
    );
    assert_eq!(
        String::from_utf8_lossy(&local.stdout),
        String::from_utf8_lossy(&remote.stdout),
        "fpdb {command} {args:?}: standard output differs"
    );
    // `add` reports its time, which differs; everything else is the same.
    let untimed = |out: &Output| {
        stderr(out)
            .lines()
            .map(|line| line.split(" in ").next().unwrap_or(line).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        untimed(local),
        untimed(remote),
        "fpdb {command} {args:?}: standard error differs"
    );
}

#[test]
fn check_query_and_add_answer_through_a_server_as_on_a_directory() {
    let pair = Pair::new(&[]);
    let mut rng = Rng::new(37);
    let write = |name: &str, text: &str| std::fs::write(pair.path().join(name), text).unwrap();

    write("first.jsonl", &documents(&mut rng, 0, 3_000));
    let added = pair.same("add", &["first.jsonl"], "");
    assert_eq!(added.status.code(), Some(0));
    assert!(stderr(&added).starts_with("fpdb: added 3000 documents in"));

    // Two batches of 10,000 and more: each its own request.
    write("crawl.jsonl", &documents(&mut rng, 3_000, 12_000));
    let checked = pair.same("check", &["crawl.jsonl"], "");
    let answers = String::from_utf8(checked.stdout).unwrap();
    assert_eq!(answers.lines().count(), 12_000);
    let duplicates = answers
        .lines()
        .filter(|l| !l.ends_with("\"matches\":[]}"))
        .count();
    assert!(duplicates > 1_000, "{duplicates} checks found a match");

    // Streamed from a pipe, each line answered as it comes; TSV.
    let piped = documents(&mut rng, 15_000, 500);
    pair.same(
        "check",
        &["--input", "jsonl", "--format", "tsv", "--k", "5"],
        &piped,
    );

    // More queries than one request takes; then near ones past the
    // database's k (each probing many prefixes, so fewer).
    let mut queries = String::new();
    for _ in 0..25_000 {
        queries.push_str(&format!("{:016x}\n", rng.next_u64()));
    }
    write("queries.fps", &queries);
    let mut near = String::new();
    for line in answers.lines().step_by(10) {
        let fp = &line[line.find("\"fp\":\"").unwrap() + 6..][..16];
        let fp = rng.near(fpdb::Fingerprint(u64::from_str_radix(fp, 16).unwrap()), 6);
        near.push_str(&format!("{:016x}\n", fp.0));
    }
    write("near.fps", &near);
    for args in [
        &["queries.fps"][..],
        &["queries.fps", "--batch", "7000", "--format", "tsv"],
        &["near.fps", "--k", "6", "--format", "tsv"],
        &["near.fps"],
        &["crawl.jsonl", "--k", "1"],
    ] {
        let out = pair.same("query", args, "");
        assert_eq!(out.status.code(), Some(0));
    }

    // Streamed adds, then what both hold.
    pair.same(
        "add",
        &["--input", "jsonl"],
        &documents(&mut rng, 20_000, 300),
    );
    pair.same("query", &["--input", "jsonl", "--k", "3"], &piped);
}

#[test]
fn bad_input_and_bad_options_fail_alike() {
    let pair = Pair::new(&[]);
    let mut rng = Rng::new(38);
    let mut lines = documents(&mut rng, 0, 10);
    lines.push_str("{\"id\": \"broken\", \"fp\": \"xyz\"}\n");
    lines.push_str(&documents(&mut rng, 10, 10));
    std::fs::write(pair.path().join("bad.jsonl"), &lines).unwrap();

    // A file is checked before anything is stored: exit 2, nothing stored.
    let failed = pair.same("check", &["bad.jsonl"], "");
    assert_eq!(failed.status.code(), Some(2));
    assert!(
        stderr(&failed).contains("bad.jsonl:11"),
        "{}",
        stderr(&failed)
    );
    // A pipe is applied up to the bad line.
    let streamed = pair.same("check", &["--input", "jsonl"], &lines);
    assert_eq!(streamed.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&streamed.stdout).lines().count(),
        10
    );
    // --skip-bad goes on.
    pair.same("add", &["bad.jsonl", "--skip-bad"], "");
    pair.same("query", &["bad.jsonl", "--skip-bad", "--k", "8"], "");

    let wide = pair.same("query", &["--k", "17"], "0123456789abcdef\n");
    assert_eq!(wide.status.code(), Some(2));
    assert!(stderr(&wide).contains("--k: k = 17"), "{}", stderr(&wide));
    let missing = pair.same("check", &["no-such-file.jsonl"], "");
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn the_token_file_is_sent_and_refusals_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = create_db(dir.path(), "db", &[]);
    let tokens = dir.path().join("tokens");
    let writer = "writer-token-0123456789";
    let reader = "reader-token-0123456789";
    std::fs::write(
        &tokens,
        format!("read-write {writer}\nread-only {reader}\n"),
    )
    .unwrap();
    let served = Served::start(&db, &["--token-file", tokens.to_str().unwrap()]);
    let url = format!("http://{}", served.addr);
    std::fs::write(
        dir.path().join("writer"),
        format!("# the crawl's token\n{writer}\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("reader"), format!("read-only {reader}\n")).unwrap();
    let line = "doc-1\t0123456789abcdef\n";

    let refused = fpdb(dir.path(), &["check", "--server", &url], line);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("a valid bearer token is required"),
        "{}",
        stderr(&refused)
    );

    let read_only = fpdb(
        dir.path(),
        &["add", "--server", &url, "--token-file", "reader"],
        line,
    );
    assert_eq!(read_only.status.code(), Some(2));
    assert!(
        stderr(&read_only).contains("read"),
        "{}",
        stderr(&read_only)
    );

    let added = fpdb(
        dir.path(),
        &["add", "--server", &url, "--token-file", "writer"],
        line,
    );
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let found = fpdb(
        dir.path(),
        &[
            "query",
            "--server",
            &url,
            "--token-file",
            "reader",
            "--format",
            "tsv",
        ],
        "0123456789abcdee\n",
    );
    assert_eq!(
        String::from_utf8_lossy(&found.stdout),
        "query\tfp\tmatch_fp\tdistance\tid\n0123456789abcdee\t0123456789abcdee\t0123456789abcdef\t1\tdoc-1\n"
    );
}

#[test]
fn a_confirming_server_with_learned_weights_is_sent_the_texts_and_answers_as_a_directory() {
    // Fingerprints computed here would be wrong (the weights are the
    // server's) and bare (no signature): the texts travel instead.
    let mut rng = Rng::new(41);
    let learned = tempfile::tempdir().unwrap();
    let learn = learned.path().join("learn.txt");
    let sample: String = (0..300).map(|_| text(&mut rng, 40) + "\n").collect();
    std::fs::write(&learn, sample).unwrap();
    let learn = learn.to_str().unwrap();
    let create = [
        "--tokenizer",
        "words",
        "--weights",
        "learned",
        "--learn-from",
        learn,
        "--confirm",
    ];
    let pair = Pair::created(&create, &[]);
    let write = |name: &str, text: &str| std::fs::write(pair.path().join(name), text).unwrap();
    // Texts with nothing to compare are skipped on both sides, alike.
    let featureless = |from: usize| {
        (from..from + 3)
            .map(|i| json!({"id": format!("blank-{i}"), "text": "... !!! ---"}).to_string() + "\n")
            .collect::<String>()
    };
    write(
        "first.jsonl",
        &(documents(&mut rng, 0, 1_500) + &featureless(0)),
    );
    let added = pair.same("add", &["first.jsonl"], "");
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    assert!(
        stderr(&added).contains("blank-0: the text has no features"),
        "{}",
        stderr(&added)
    );
    write(
        "crawl.jsonl",
        &(documents(&mut rng, 1_500, 1_500) + &featureless(3)),
    );
    let checked = pair.same("check", &["crawl.jsonl"], "");
    let answers = String::from_utf8(checked.stdout).unwrap();
    assert_eq!(answers.lines().count(), 1_500);
    assert!(
        answers.contains("\"similarity\":"),
        "texts confirmed by their signatures"
    );
    for args in [&["crawl.jsonl"][..], &["crawl.jsonl", "--format", "tsv"]] {
        let out = pair.same("query", args, "");
        assert_eq!(out.status.code(), Some(0));
    }
}
