//! Running the real `fpdb` binary, shared by the CLI tests.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

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
