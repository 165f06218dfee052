//! `fpdb backup`: beside a live writer (`fpdb check` as a crawler's
//! co-process) the copy holds every document answered before the backup
//! began and is a prefix of the writes; with no writer it is a checkpoint
//! equal to the database; both verify clean; an existing destination is
//! refused.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::common::{fpdb, ok, stderr, CoProcess};

fn fingerprint_of(i: u64) -> u64 {
    i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The `(id, hex)` lines `fpdb export` printed, sorted.
fn exported(dir: &std::path::Path, db: &str) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = ok(dir, &["export", db], "")
        .lines()
        .map(|line| {
            let (id, fp) = line.split_once('\t').unwrap();
            (id.to_string(), fp.to_string())
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn a_backup_beside_a_live_writer_holds_every_answered_document() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--expected", "100000"], "");
    let answered = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    // The crawler: one page at a time, each answered (and so stored)
    // before the next is sent.
    let feeder = {
        let answered = answered.clone();
        let stop = stop.clone();
        let mut check = CoProcess::start(dir, &["check", "db"]);
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                check.ask(&format!("doc-{i}\t{:016x}", fingerprint_of(i)));
                i += 1;
                answered.store(i, Ordering::SeqCst);
            }
            check
        })
    };
    let mut last = 0;
    for round in 0..2 {
        while answered.load(Ordering::SeqCst) < last + 2_000 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let before = answered.load(Ordering::SeqCst);
        let dest = format!("backup-{round}");
        let out = fpdb(dir, &["backup", "db", &dest], "");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("copied beside a live writer"),
            "{}",
            stderr(&out)
        );
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: "));
        let held = exported(dir, &dest);
        let m = held.len() as u64;
        assert!(
            m >= before,
            "{m} documents in the backup, {before} answered before it"
        );
        let mut prefix: Vec<(String, String)> = (0..m)
            .map(|i| (format!("doc-{i}"), format!("{:016x}", fingerprint_of(i))))
            .collect();
        prefix.sort();
        assert_eq!(held, prefix, "the backup is not a prefix of the writes");
        last = m;
    }
    stop.store(true, Ordering::Relaxed);
    let mut check = feeder.join().unwrap();
    drop(check.input);
    assert!(check.child.wait().unwrap().success());

    // No writer now: a checkpoint, equal to the database.
    let out = fpdb(dir, &["backup", "db", "quiet"], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("a checkpoint"), "{}", stderr(&out));
    assert_eq!(exported(dir, "quiet"), exported(dir, "db"));

    // A destination that exists is refused, and left alone.
    let out = fpdb(dir, &["backup", "db", "quiet"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(exported(dir, "quiet"), exported(dir, "db"));
}
