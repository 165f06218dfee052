//! Cycles in a graph of modules: one per strongly connected component,
//! the shortest through its first module, with where each step is made.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

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

/// from → to → where the first reference is.
pub(crate) type Graph = BTreeMap<String, BTreeMap<String, (PathBuf, usize)>>;

/// One cycle per strongly connected component of more than one module,
/// found by walking the component from its smallest module.
pub(crate) fn cycles(graph: &Graph) -> Vec<Cycle> {
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
