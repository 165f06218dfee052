//! No crate of the workspace has an import cycle between its modules
//! (see the crate docs for the two checks).

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

#[test]
fn no_crate_has_an_import_cycle() {
    let root = workspace_root();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/ is readable")
        .filter_map(|entry| Some(entry.ok()?.path().join("src")))
        .filter(|src| src.is_dir())
        .collect();
    sources.push(root.join("benches/src"));
    sources.push(root.join("tools/layers/src"));
    sources.sort();
    assert!(sources.len() >= 7, "found only {sources:?}");
    let mut report = String::new();
    for src in &sources {
        let cycles = fpdb_layers::cycles(src).expect("sources are readable");
        for cycle in cycles {
            report.push_str(&format!("{}: {cycle}\n", src.display()));
        }
    }
    assert!(report.is_empty(), "import cycles:\n{report}");
}

/// Only the storage layer may name RocksDB: everything else in `fpdb`
/// goes through `store/`.
#[test]
fn only_the_store_names_rocksdb() {
    let src = workspace_root().join("crates/fpdb/src");
    let offenders = fpdb_layers::files_naming(&src, "rocksdb", &src.join("store"))
        .expect("sources are readable");
    assert!(
        offenders.is_empty(),
        "rocksdb named outside store/: {offenders:?}"
    );
}

/// The testkit's pure part (what fpdb-codec's tests use, without the `db`
/// feature) names neither fpdb nor RocksDB: only its `db` module does.
/// The compiler checks this only when a pure crate's tests are built
/// alone; a workspace build turns `db` on for every user.
#[test]
fn only_the_testkits_db_module_names_fpdb_or_rocksdb() {
    let src = workspace_root().join("crates/fpdb-testkit/src");
    for name in ["fpdb", "rocksdb"] {
        let offenders = fpdb_layers::files_naming(&src, name, &src.join("db.rs"))
            .expect("sources are readable");
        assert!(
            offenders.is_empty(),
            "{name} named outside the testkit's db.rs: {offenders:?}"
        );
    }
}
