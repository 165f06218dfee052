//! The workspace keeps its layer rules, and breaking one in a copy of its
//! sources fails the check.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .expect("tools/layers is two levels below the workspace root")
}

#[test]
fn the_workspace_keeps_its_layer_rules() {
    let root = workspace_root();
    let crates = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .count();
    assert!(crates >= 10, "found only {crates} crates");
    let broken = fpdb_layers::check_workspace(&root).expect("sources parse");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Copies the `.rs` files under `from` to `to`.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from).expect("a source directory") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_sources(&path, &target);
        } else if path.extension().is_some_and(|e| e == "rs") {
            std::fs::copy(&path, &target).expect("a copy");
        }
    }
}

fn append(file: &Path, code: &str) {
    let mut text = std::fs::read_to_string(file).expect("a source file");
    text.push_str(code);
    std::fs::write(file, text).expect("written");
}

#[test]
fn violations_planted_in_a_copy_of_the_sources_are_found() {
    let root = workspace_root();
    let copy = tempfile::tempdir().expect("a temporary directory");
    for src in ["crates/fpdb/src", "crates/fpdb-testkit/src"] {
        copy_sources(&root.join(src), &copy.path().join(src));
    }
    assert!(fpdb_layers::check_workspace(copy.path())
        .expect("sources parse")
        .is_empty());

    let fpdb = copy.path().join("crates/fpdb/src");
    // The store names the façade, which names the store: a cycle.
    append(
        &fpdb.join("store/mod.rs"),
        "\nfn planted(_: &crate::db::Db) {}\n",
    );
    // An operation reaches past the store into RocksDB.
    append(
        &fpdb.join("merge.rs"),
        "\nfn planted() { let _ = rocksdb::Options::default(); }\n",
    );
    // The testkit's pure part names the database.
    append(
        &copy.path().join("crates/fpdb-testkit/src/rng.rs"),
        "\nuse fpdb::Db;\n",
    );
    let broken = fpdb_layers::check_workspace(copy.path()).expect("sources parse");
    let report = broken.join("\n");
    assert_eq!(broken.len(), 3, "{report}");
    assert!(
        report.contains("import cycle") && report.contains("store/mod.rs:"),
        "{report}"
    );
    assert!(report.contains("merge.rs names rocksdb"), "{report}");
    assert!(report.contains("rng.rs names fpdb"), "{report}");
}
