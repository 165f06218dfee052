//! The checker on small crates written for each case.

use std::path::Path;

/// Writes `files` (path, text) under a new directory and checks it.
fn cycles_of(files: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (path, text) in files {
        let path = dir.path().join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("directories");
        }
        std::fs::write(path, text).expect("a source file");
    }
    fpdb_layers::cycles(dir.path())
        .expect("readable")
        .iter()
        .map(|cycle| cycle.modules.join(" -> "))
        .collect()
}

const ROOT: (&str, &str) = ("lib.rs", "mod a;\nmod b;\nmod c;\npub use a::A;\n");

#[test]
fn an_acyclic_crate_passes() {
    let files = [
        ROOT,
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        ("b.rs", "use crate::c::C;\npub struct B(C);\n"),
        ("c.rs", "pub struct C;\n"),
    ];
    assert!(cycles_of(&files).is_empty());
}

#[test]
fn a_direct_cycle_is_found_with_where_it_is() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("lib.rs"), "mod a;\nmod b;\n").expect("write");
    std::fs::write(dir.path().join("a.rs"), "\n\nuse crate::b::B;\n").expect("write");
    std::fs::write(dir.path().join("b.rs"), "fn f() { crate::a::g(); }\n").expect("write");
    let cycles = fpdb_layers::cycles(dir.path()).expect("readable");
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].modules, ["a", "b"]);
    let evidence: Vec<(String, usize)> = cycles[0]
        .evidence
        .iter()
        .map(|(file, line)| {
            (
                file.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                *line,
            )
        })
        .collect();
    assert_eq!(evidence, [("a.rs".to_string(), 3), ("b.rs".to_string(), 1)]);
}

#[test]
fn a_three_module_cycle_through_grouped_imports_is_found() {
    let files = [
        ROOT,
        ("a.rs", "use crate::{b::{self, B}};\n"),
        ("b.rs", "use crate::c::{self, C};\n"),
        ("c.rs", "pub struct C;\nuse crate::{x, a::{self}};\n"),
    ];
    assert_eq!(cycles_of(&files), ["a -> b -> c"]);
}

#[test]
fn a_reexported_item_counts_as_its_module() {
    // `crate::A` is `a::A`, re-exported by the root.
    let files = [
        ROOT,
        ("a.rs", "use crate::b::B;\n"),
        ("b.rs", "use crate::A;\n"),
        ("c.rs", ""),
    ];
    assert_eq!(cycles_of(&files), ["a -> b"]);
}

#[test]
fn super_paths_resolve_and_siblings_in_a_directory_are_checked() {
    let files = [
        ("lib.rs", "mod store;\n"),
        (
            "store/mod.rs",
            "mod keys;\nmod handle;\nuse self::keys::K;\n",
        ),
        ("store/keys.rs", "use super::handle::H;\n"),
        (
            "store/handle.rs",
            "use super::keys::K;\nuse super::Store;\n",
        ),
    ];
    assert_eq!(cycles_of(&files), ["store::handle -> store::keys"]);
}

#[test]
fn test_code_comments_and_strings_do_not_count() {
    let files = [
        ROOT,
        ("a.rs", "use crate::b::B;\n"),
        (
            "b.rs",
            "/// See crate::a::A.\n// crate::a\nconst S: &str = \"crate::a::A\";\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n#[cfg(test)]\nmod helpers;\n",
        ),
        ("b/helpers.rs", "use crate::a::A;\n"),
        ("c.rs", ""),
    ];
    assert!(cycles_of(&files).is_empty(), "{:?}", cycles_of(&files));
}

#[test]
fn a_parent_and_its_child_naming_each_other_is_no_cycle() {
    let files = [
        ("lib.rs", "mod store;\n"),
        (
            "store/mod.rs",
            "mod keys;\npub struct Store;\nuse self::keys::K;\n",
        ),
        ("store/keys.rs", "use super::Store;\npub struct K;\n"),
    ];
    assert!(cycles_of(&files).is_empty());
}

#[test]
fn only_the_allowed_directory_may_name_a_crate() {
    let dir = tempfile::tempdir().expect("dir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("store")).expect("dir");
    std::fs::write(src.join("store/mod.rs"), "use rocksdb::DB;\n").expect("write");
    std::fs::write(
        src.join("ok.rs"),
        "// rocksdb::DB in a comment\nconst S: &str = \"rocksdb::x\";\nuse other_rocksdb::X;\n",
    )
    .expect("write");
    std::fs::write(src.join("bad.rs"), "fn f(e: rocksdb::Error) {}\n").expect("write");
    let offenders =
        fpdb_layers::files_naming(src, "rocksdb", &src.join("store")).expect("readable");
    let names: Vec<&Path> = offenders
        .iter()
        .filter_map(|p| p.strip_prefix(src).ok())
        .collect();
    assert_eq!(names, [Path::new("bad.rs")]);
}
