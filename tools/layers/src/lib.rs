//! Layers import downwards: this finds import cycles between the modules
//! of a crate, so that a test can fail the moment one appears.
//!
//! A module depends on another when its code (not its comments, strings
//! or `#[cfg(test)]` items) names it by a `crate::`, `super::` or `self::`
//! path, in a `use` or anywhere else; `crate::Item` counts as naming the
//! module the crate root re-exports `Item` from. Two checks:
//!
//! 1. between the crate root's **top-level modules** (`crate::bulk::sst`
//!    is node `bulk`; the root, which declares and re-exports everything,
//!    is not a node);
//! 2. between the **sibling children of each directory module**
//!    (`store::keys` and `store::handle`; a child naming its parent, or
//!    the parent its child, is not an edge).
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

mod modules;
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use modules::{read_crate, Crate, ModulePath};

/// An import cycle: the modules in order (the first is named again at the
/// end), with one reference per step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// Module names along the cycle (`store::keys` style for nested ones).
    pub modules: Vec<String>,
    /// For each step `modules[i] -> modules[i + 1]`, a file and line that
    /// makes it.
    pub evidence: Vec<(PathBuf, usize)>,
    /// Every module that lies on some cycle with these (the strongly
    /// connected component): breaking `modules` alone may leave others.
    pub tangled: Vec<String>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names = self.modules.clone();
        if let Some(first) = names.first().cloned() {
            names.push(first);
        }
        write!(f, "{}", names.join(" -> "))?;
        if self.tangled.len() > self.modules.len() {
            write!(f, " (tangled together: {})", self.tangled.join(", "))?;
        }
        for (file, line) in &self.evidence {
            write!(f, "\n    {}:{line}", file.display())?;
        }
        Ok(())
    }
}

/// Every import cycle of the crate whose sources are in `src`.
pub fn cycles(src: &Path) -> io::Result<Vec<Cycle>> {
    let krate = read_crate(src)?;
    let mut found = Vec::new();
    // Check 1: top-level modules.
    found.extend(find_cycles(&edges_among(&krate, &Vec::new())));
    // Check 2: the children of each directory module.
    let parents: BTreeSet<ModulePath> = krate
        .modules
        .keys()
        .filter(|m| m.len() >= 2)
        .filter_map(|m| m.split_last().map(|(_, parent)| parent.to_vec()))
        .collect();
    for parent in parents {
        found.extend(find_cycles(&edges_among(&krate, &parent)));
    }
    Ok(found)
}

/// Edges between the children of `parent` (the crate root's top-level
/// modules when `parent` is empty): from each child, including everything
/// nested in it, to the children it names.
fn edges_among(krate: &Crate, parent: &ModulePath) -> Graph {
    let children: BTreeSet<&String> = krate
        .modules
        .keys()
        .filter(|m| m.len() > parent.len() && m.starts_with(parent))
        .filter_map(|m| m.get(parent.len()))
        .collect();
    let mut graph = Graph::new();
    for (module, references) in &krate.modules {
        if module.len() <= parent.len() || !module.starts_with(parent) {
            continue;
        }
        let Some(from) = module.get(parent.len()) else {
            continue;
        };
        for reference in references {
            let target = expand_reexport(krate, &reference.target);
            if !target.starts_with(parent) {
                continue;
            }
            let Some(to) = target.get(parent.len()) else {
                continue;
            };
            if to != from && children.contains(to) {
                graph
                    .entry(name(parent, from))
                    .or_default()
                    .entry(name(parent, to))
                    .or_insert_with(|| (reference.file.clone(), reference.line));
            }
        }
    }
    graph
}

/// `crate::Item` re-exported by the root from module `m` → `[m, Item]`.
fn expand_reexport(krate: &Crate, target: &ModulePath) -> ModulePath {
    match target.first().and_then(|item| krate.reexports.get(item)) {
        Some(module)
            if !target
                .get(..1)
                .is_some_and(|m| krate.modules.contains_key(m)) =>
        {
            let mut expanded = module.clone();
            expanded.extend(target.iter().cloned());
            expanded
        }
        _ => target.clone(),
    }
}

fn name(parent: &ModulePath, child: &str) -> String {
    let mut parts = parent.clone();
    parts.push(child.to_string());
    parts.join("::")
}

/// from → to → where the first reference is.
type Graph = BTreeMap<String, BTreeMap<String, (PathBuf, usize)>>;

/// One cycle per strongly connected component of more than one module,
/// found by walking the component from its smallest module.
fn find_cycles(graph: &Graph) -> Vec<Cycle> {
    let nodes: BTreeSet<&String> = graph
        .iter()
        .flat_map(|(from, to)| std::iter::once(from).chain(to.keys()))
        .collect();
    let reaches = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(node) = stack.pop() {
            for next in graph.get(&node).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|&n| (n, reaches(n))).collect();
    let mut reported: BTreeSet<String> = BTreeSet::new();
    let mut cycles = Vec::new();
    for &start in &nodes {
        if reported.contains(start) || !reach.get(start).is_some_and(|r| r.contains(start)) {
            continue;
        }
        // The component: nodes reachable from start that reach it back.
        let component: BTreeSet<String> = reach
            .get(start)
            .into_iter()
            .flatten()
            .filter(|n| reach.get(n).is_some_and(|r| r.contains(start)))
            .cloned()
            .collect();
        reported.extend(component.iter().cloned());
        if let Some(mut cycle) = shortest_cycle(graph, start) {
            cycle.tangled = component.into_iter().collect();
            cycles.push(cycle);
        }
    }
    cycles
}

/// The shortest cycle through `start` (breadth first).
fn shortest_cycle(graph: &Graph, start: &String) -> Option<Cycle> {
    let mut previous: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(&node).into_iter().flat_map(BTreeMap::keys) {
            if next == start {
                let mut path = vec![node.clone()];
                let mut at = node.clone();
                while let Some(before) = previous.get(&at) {
                    path.push(before.clone());
                    at = before.clone();
                }
                path.reverse();
                let evidence = path
                    .iter()
                    .zip(path.iter().skip(1).chain(std::iter::once(start)))
                    .filter_map(|(from, to)| graph.get(from)?.get(to).cloned())
                    .collect();
                return Some(Cycle {
                    modules: path,
                    evidence,
                    tangled: Vec::new(),
                });
            }
            if next != start && !previous.contains_key(next) {
                previous.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

/// The files under `src`, outside `allowed`, whose code (not comments or
/// strings) names the crate `name` (`name::…`, `use name`).
pub fn files_naming(src: &Path, name: &str, allowed: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    modules::collect_files(src, src, &mut files)?;
    let mut offenders = Vec::new();
    for file in files {
        if file.starts_with(allowed) {
            continue;
        }
        let code = source::code_only(&std::fs::read_to_string(&file)?);
        let names_it = code.match_indices(name).any(|(at, _)| {
            let before = code.get(..at).and_then(|s| s.chars().next_back());
            let after = code.get(at + name.len()..).and_then(|s| s.chars().next());
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
                && matches!(after, Some(':' | ';' | ' ' | '{'))
        });
        if names_it {
            offenders.push(file);
        }
    }
    Ok(offenders)
}
