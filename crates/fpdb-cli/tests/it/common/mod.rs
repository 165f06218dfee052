//! Running the real `fpdb` binary, shared by the CLI tests.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::Value;

pub mod corpus;

/// Runs `fpdb args…` in `dir` with `stdin` as standard input.
pub fn fpdb(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fpdb"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // The command may fail, or not need its input, before reading it all.
    let _ = input.write_all(stdin.as_ref());
    drop(input);
    child.wait_with_output().unwrap()
}

/// Runs, asserts exit status 0, and returns standard output.
pub fn ok(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> String {
    let out = fpdb(dir, args, stdin);
    assert_eq!(
        out.status.code(),
        Some(0),
        "fpdb {args:?} failed: {}",
        stderr(&out)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Creates `db` in `dir` and loads `count` documents into it: URLs with
/// fingerprints spread over the whole space ([`fpdb_testkit::spread`]).
pub fn load_urls(dir: &Path, count: u64) {
    ok(dir, &["create", "db", "--expected", "100000"], "");
    let input: String = (0..count)
        .map(|i| format!("https://example.com/{i}\t{}\n", fpdb_testkit::spread(i)))
        .collect();
    std::fs::write(dir.join("in.tsv"), input).unwrap();
    ok(dir, &["load", "db", "in.tsv"], "");
}

/// Standard error, lossily decoded.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every JSON line of `text` (what `fpdb query` and friends print).
pub fn json_lines(text: impl AsRef<[u8]>) -> Vec<Value> {
    std::str::from_utf8(text.as_ref())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The ids matched by one `fpdb query` answer, sorted.
pub fn answer_ids(answer: &Value) -> Vec<String> {
    let mut ids: Vec<String> = answer["matches"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["ids"].as_array().unwrap().clone())
        .map(|id| id.as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

/// How long a test waits for one answer before calling the command stuck.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// `fpdb` run as a crawler's co-process: its standard input stays open,
/// each line written is answered on its standard output.
pub struct CoProcess {
    pub child: Child,
    pub input: ChildStdin,
    answers: Receiver<String>,
}

impl CoProcess {
    /// Starts `fpdb args…` in `dir`.
    pub fn start(dir: &Path, args: &[&str]) -> CoProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fpdb"))
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let (send, answers) = channel();
        std::thread::spawn(move || {
            for line in output.lines() {
                if send.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        CoProcess {
            child,
            input,
            answers,
        }
    }

    /// Writes one line (the pipe stays open) and waits for one answer.
    pub fn ask(&mut self, line: &str) -> Value {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
        let answer = self
            .answers
            .recv_timeout(ANSWER_TIMEOUT)
            .unwrap_or_else(|_| panic!("no answer to {line:?} while the pipe stays open"));
        serde_json::from_str(&answer).unwrap()
    }
}
