//! `fpdb verify` → `fpdb repair` → `fpdb verify` on a damaged database, as
//! the README shows it: exit 1 naming the damaged file, a repair that
//! restores every document, exit 0; the damaged database kept beside.

mod common;

use std::fmt::Write as _;

use common::{fpdb, ok, stderr};

#[test]
fn verify_names_the_damage_repair_mends_it_verify_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok(dir, &["create", "db", "--expected", "100000"], "");
    let mut input = String::new();
    for i in 0..50_000u64 {
        writeln!(
            input,
            "https://example.com/{i}\t{:016x}",
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        )
        .unwrap();
    }
    std::fs::write(dir.join("in.tsv"), &input).unwrap();
    ok(dir, &["load", "db", "in.tsv"], "");
    let before = ok(dir, &["export", "db"], "");

    // 64 flipped bytes in the middle of the largest file.
    let largest = std::fs::read_dir(dir.join("db"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sst"))
        .max_by_key(|path| std::fs::metadata(path).unwrap().len())
        .unwrap();
    let mut bytes = std::fs::read(&largest).unwrap();
    let middle = bytes.len() / 2;
    for byte in &mut bytes[middle..middle + 64] {
        *byte ^= 0xff;
    }
    std::fs::write(&largest, bytes).unwrap();
    let name = largest.file_name().unwrap().to_string_lossy().into_owned();

    let out = fpdb(dir, &["verify", "db"], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains(&name) && report.contains("DAMAGED"),
        "{report}"
    );

    let repaired = ok(dir, &["repair", "db"], "");
    assert!(
        repaired.contains("repaired: db: 50000 documents"),
        "{repaired}"
    );
    assert!(
        !repaired.contains("lost:") && !repaired.contains("partial:"),
        "{repaired}"
    );
    assert!(ok(dir, &["verify", "db"], "").starts_with("ok: db: "));
    assert_eq!(ok(dir, &["export", "db"], ""), before);
    assert!(dir.join("db.damaged").is_dir());
    // Nothing left to do now.
    assert!(ok(dir, &["repair", "db"], "").contains("nothing to repair"));
}
