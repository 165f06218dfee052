//! `fpdb verify` → `fpdb repair` → `fpdb verify` on a damaged database, as
//! the README shows it: exit 1 naming the damaged file, a repair that
//! restores every document, exit 0; the damaged database kept beside.

use crate::common::{fpdb, load_urls, ok, stderr};

#[test]
fn verify_names_the_damage_repair_mends_it_verify_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    load_urls(dir, 50_000);
    let before = ok(dir, &["export", "db"], "");

    // 64 flipped bytes in the middle of the largest file.
    let name = fpdb_testkit::damage_the_largest_file(&dir.join("db"));

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
