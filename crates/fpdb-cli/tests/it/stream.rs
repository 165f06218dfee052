//! `fpdb check` and `fpdb add` as a crawler's co-process: on a pipe each
//! document is stored and answered before more input is awaited, and a
//! process killed mid-stream has stored every document it answered.

use std::io::Write;

use crate::common::{fpdb, ok, stderr, CoProcess};

fn created(dir: &std::path::Path) {
    ok(dir, &["create", "db", "--expected", "1000"], "");
}

fn fp_line(id: &str, fp: u64) -> String {
    format!("{id}\t{fp:016x}")
}

#[test]
fn check_answers_each_document_while_the_pipe_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    let mut check = CoProcess::start(dir, &["check", "db"]);
    let first = check.ask(&fp_line("https://a/1", 0xabcd_0000_0000_1234));
    assert_eq!(first["query"], "https://a/1");
    assert_eq!(first["matches"].as_array().unwrap().len(), 0);
    // The next page is answered against the one before it, which was
    // stored before the first answer was printed.
    let second = check.ask(&fp_line("https://b/1", 0xabcd_0000_0000_1235));
    let matches = second["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1, "{second}");
    assert_eq!(matches[0]["ids"][0], "https://a/1");
    let again = check.ask(&fp_line("https://a/1", 0xabcd_0000_0000_1234));
    assert_eq!(again["previous"], "abcd000000001234");
    drop(check.input);
    assert!(check.child.wait().unwrap().success());
}

#[test]
fn a_check_killed_mid_stream_has_stored_every_document_it_answered() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    let mut check = CoProcess::start(dir, &["check", "db"]);
    let answered: Vec<(String, u64)> = (0..200u64)
        .map(|i| {
            let id = format!("https://site/{i}");
            let fp = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let answer = check.ask(&fp_line(&id, fp));
            assert_eq!(answer["query"], id.as_str());
            (id, fp)
        })
        .collect();
    // One more line written but never answered may or may not be stored.
    writeln!(check.input, "{}", fp_line("https://site/unanswered", 7)).unwrap();
    check.child.kill().unwrap(); // SIGKILL: no flush, no clean close
    check.child.wait().unwrap();

    let exported = ok(dir, &["export", "db"], "");
    let stored: std::collections::HashMap<&str, &str> = exported
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .collect();
    for (id, fp) in &answered {
        assert_eq!(
            stored.get(id.as_str()).copied(),
            Some(format!("{fp:016x}").as_str()),
            "{id} was answered but is not stored"
        );
    }
    // The killed writer left nothing half-done: verify finds no damage.
    ok(dir, &["verify", "db"], "");
}

#[test]
fn streaming_add_stores_what_came_before_a_bad_line_and_validate_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    created(dir);
    let input = "a\t0000000000000001\nb\tnot-a-fingerprint\nc\t0000000000000003\n";
    // On a pipe, `add` streams: `a` is stored, the bad line stops it.
    let out = fpdb(dir, &["add", "db"], input);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("<stdin>:2"), "{}", stderr(&out));
    let exported = ok(dir, &["export", "db"], "");
    assert_eq!(exported, "a\t0000000000000001\n");
    // With --apply validate the whole input is checked first: nothing of
    // it is stored.
    let out = fpdb(
        dir,
        &["add", "db", "--apply", "validate"],
        input.replace('a', "x"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(ok(dir, &["export", "db"], ""), exported);
}
