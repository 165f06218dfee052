//! Running the real `fpdb` binary, shared by the CLI tests.
#![allow(dead_code, reason = "each test crate uses part of the shared helpers")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

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
