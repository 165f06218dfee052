//! Progress bars: drawn on standard error when it is a terminal, never
//! with `--quiet` (before or after the command's name), and never into a
//! pipe or file. The terminal is a pseudo-terminal made by util-linux's
//! `script`; without it those checks are skipped.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::common::{fpdb, ok, stderr};

/// Clears a line: what a bar leaves when it is finished.
const CLEAR_LINE: &str = "\x1b[2K";

/// A database large enough for a bar to be drawn before the work ends.
fn loaded(dir: &Path) {
    let mut input = String::new();
    for i in 0..200_000u64 {
        writeln!(
            input,
            "doc-{i}\t{:016x}",
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        )
        .unwrap();
    }
    std::fs::write(dir.join("in.tsv"), input).unwrap();
    ok(dir, &["create", "db", "--expected", "200000"], "");
    ok(dir, &["load", "db", "in.tsv"], "");
}

/// What `fpdb args…` writes to a terminal (standard output and error
/// together), or `None` when there is no `script` to make one.
fn on_a_terminal(dir: &Path, args: &str) -> Option<String> {
    let command = format!("{} {args}", env!("CARGO_BIN_EXE_fpdb"));
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn bars_are_drawn_on_a_terminal_unless_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);
    for (command, done) in [
        ("verify db", "ok: db"),
        ("pairs db --format tsv", "within k = 3"),
        ("backup db copy", "ok: copy"),
    ] {
        let Some(drawn) = on_a_terminal(dir, command) else {
            eprintln!("no `script` here: the terminal is not checked");
            return;
        };
        assert!(drawn.contains(CLEAR_LINE), "{command}: {drawn:?}");
        assert!(drawn.contains(done), "{command}: {drawn:?}");
        std::fs::remove_dir_all(dir.join("copy")).ok();
        for quiet in [format!("--quiet {command}"), format!("{command} -q")] {
            let plain = on_a_terminal(dir, &quiet).unwrap();
            assert!(!plain.contains('\x1b'), "{quiet}: {plain:?}");
            assert!(plain.contains(done), "{quiet}: {plain:?}");
            std::fs::remove_dir_all(dir.join("copy")).ok();
        }
    }
}

#[test]
fn commands_printing_as_they_go_draw_a_bar_only_beside_redirected_output() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);
    let Some(redirected) = on_a_terminal(dir, "query db in.tsv --format tsv > answers.tsv") else {
        return;
    };
    assert!(redirected.contains(CLEAR_LINE), "{redirected:?}");
    let answers = std::fs::read_to_string(dir.join("answers.tsv")).unwrap();
    assert!(!answers.contains('\x1b'));
    assert!(answers.lines().count() > 200_000);
    // Answers on the terminal itself are not interleaved with a bar.
    let printed = on_a_terminal(dir, "query db in.tsv --format tsv --batch 100000").unwrap();
    assert!(!printed.contains('\x1b'), "a bar among the answers");
}

#[test]
fn no_bar_goes_into_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    loaded(dir);
    for args in [
        &["verify", "db"][..],
        &["export", "db"],
        &["compact", "db"],
        &["dedup", "in.tsv"],
    ] {
        let out = fpdb(dir, args, "");
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let errors = stderr(&out);
        assert!(
            !errors.contains('\x1b') && !errors.contains('\r'),
            "{args:?}: {errors:?}"
        );
    }
}
