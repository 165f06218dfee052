//! The layer rules the compiler does not hold, checked on the sources
//! parsed with `syn`, so that a test fails the moment one is broken:
//!
//! 1. no crate has an import cycle between its top-level modules, nor
//!    between the sibling children of a directory module ([`cycles`]);
//! 2. in `fpdb`, only `store/` names RocksDB; in the testkit, only `db.rs`
//!    names `fpdb` or RocksDB ([`files_naming`]).
//!
//! [`check_workspace`] applies them all to a workspace.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("lib.rs"), "mod a;\nmod b;\n")?;
//! std::fs::write(dir.path().join("a.rs"), "use crate::b::B;\npub struct A;\n")?;
//! std::fs::write(dir.path().join("b.rs"), "pub struct B(crate::a::A);\n")?;
//! let cycles = fpdb_layers::cycles(dir.path())?;
//! assert_eq!(cycles.len(), 1);
//! assert!(cycles[0].to_string().starts_with("a -> b -> a"));
//! # Ok::<(), std::io::Error>(())
//! ```
#![warn(missing_docs)]

mod graph;
mod paths;

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

pub use graph::Cycle;
use graph::Graph;
use paths::{parse, Crate, ModulePath};

/// Every import cycle of the crate whose sources are in `src` (the root
/// `lib.rs` or `main.rs` and the modules it declares, `#[cfg(test)]` ones
/// left out).
///
/// A module depends on another when its code names it by a `crate::`,
/// `super::` or `self::` path (in a `use`, a type, an expression or a
/// macro's arguments); `crate::Item` counts as naming the module the root
/// re-exports `Item` from. Two checks: between the root's top-level
/// modules (`crate::bulk::sst` is node `bulk`), and between the children
/// of each directory module (a child naming its parent, or the parent its
/// child, is no edge).
pub fn cycles(src: &Path) -> io::Result<Vec<Cycle>> {
    let krate = Crate::read(src)?;
    let parents: BTreeSet<ModulePath> = krate
        .modules
        .keys()
        .filter_map(|m| m.split_last().map(|(_, parent)| parent.to_vec()))
        .collect();
    Ok(parents
        .iter()
        .flat_map(|parent| graph::cycles(&edges_among(&krate, parent)))
        .collect())
}

/// Edges between the children of `parent`: from each child (with all that
/// is nested in it) to the children it names.
fn edges_among(krate: &Crate, parent: &ModulePath) -> Graph {
    let child_of = |module: &ModulePath| -> Option<String> {
        module.strip_prefix(parent.as_slice())?.first().cloned()
    };
    let children: BTreeSet<String> = krate.modules.keys().filter_map(child_of).collect();
    let mut graph = Graph::new();
    for (module, references) in &krate.modules {
        let Some(from) = child_of(module) else {
            continue;
        };
        for reference in references {
            let Some(to) = child_of(&krate.expand_reexport(&reference.target)) else {
                continue;
            };
            if to != from && children.contains(&to) {
                let name = |child: &str| [parent.as_slice(), &[child.to_string()]].concat();
                graph
                    .entry(name(&from).join("::"))
                    .or_default()
                    .entry(name(&to).join("::"))
                    .or_insert_with(|| (reference.file.clone(), reference.line));
            }
        }
    }
    graph
}

/// The `.rs` files under `src`, outside `allowed`, whose code names the
/// crate `name` (a path starting `name::`, a `use name`, or the same in a
/// macro's arguments; comments and strings do not count, test code does).
pub fn files_naming(src: &Path, name: &str, allowed: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files)?;
    files.sort();
    let mut offenders = Vec::new();
    for file in files {
        if !file.starts_with(allowed) && paths::names_crate(&parse(&file)?, name) {
            offenders.push(file);
        }
    }
    Ok(offenders)
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

/// Every broken rule of the workspace at `root`, one message each: the
/// cycles of each crate under `crates/` and of `benches/src` and
/// `tools/layers/src`, RocksDB named in `crates/fpdb/src` outside `store/`,
/// and `fpdb` or RocksDB named in `crates/fpdb-testkit/src` outside `db.rs`
/// (the compiler sees that only when a pure crate's tests build alone: a
/// workspace build turns the testkit's `db` feature on for every user).
/// Directories that are not there are not checked.
pub fn check_workspace(root: &Path) -> io::Result<Vec<String>> {
    let mut sources: Vec<PathBuf> = match std::fs::read_dir(root.join("crates")) {
        Ok(entries) => entries
            .map(|entry| Ok(entry?.path().join("src")))
            .collect::<io::Result<_>>()?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    sources.extend([root.join("benches/src"), root.join("tools/layers/src")]);
    sources.retain(|src| src.is_dir());
    sources.sort();
    let mut broken = Vec::new();
    for src in &sources {
        for cycle in cycles(src)? {
            broken.push(format!("import cycle in {}: {cycle}", src.display()));
        }
    }
    let only: BTreeMap<(&str, &str), &str> = BTreeMap::from([
        (("crates/fpdb/src", "rocksdb"), "store"),
        (("crates/fpdb/src", "crc32c"), "store/wal.rs"),
        (("crates/fpdb-testkit/src", "fpdb"), "db.rs"),
        (("crates/fpdb-testkit/src", "rocksdb"), "db.rs"),
    ]);
    for ((src, name), allowed) in only {
        let src = root.join(src);
        if !src.is_dir() {
            continue;
        }
        for file in files_naming(&src, name, &src.join(allowed))? {
            broken.push(format!(
                "{} names {name}: only {allowed} in {} may",
                file.display(),
                src.display()
            ));
        }
    }
    Ok(broken)
}
