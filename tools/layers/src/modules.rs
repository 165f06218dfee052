//! A crate's modules, from its files, and the modules each one names.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::source::{code_only, without_test_items};

/// A module's path inside its crate (`["store", "keys"]`); the crate root
/// is the empty path.
pub type ModulePath = Vec<String>;

/// One place where a module names another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The module named (as far as the path says: `crate::store::Family`
    /// gives `["store", "Family"]`; callers keep the segments that are
    /// modules).
    pub target: ModulePath,
    /// The file and 1-based line of the reference.
    pub file: PathBuf,
    pub line: usize,
}

/// A crate's modules and the references of each.
#[derive(Debug, Default)]
pub struct Crate {
    /// Every non-test module defined by a file, with its references.
    pub modules: BTreeMap<ModulePath, Vec<Reference>>,
    /// Items the crate root re-exports from its own modules
    /// (`pub use db::Db;` maps `Db` to `["db"]`), so `crate::Db` counts as
    /// naming `db`.
    pub reexports: BTreeMap<String, ModulePath>,
}

/// Reads the crate whose sources are in `src` (`lib.rs` or `main.rs` at
/// its root; `src/bin` holds other crates and is skipped).
pub fn read_crate(src: &Path) -> io::Result<Crate> {
    let mut krate = Crate::default();
    let mut test_files: Vec<PathBuf> = Vec::new();
    let mut files = Vec::new();
    collect_files(src, src, &mut files)?;
    files.sort();
    for file in files {
        let Some(module) = module_path(src, &file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file)?;
        let (code, test_modules) = without_test_items(&code_only(&text));
        let dir = if module.is_empty() || is_dir_module(&file) {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            file.with_extension("")
        };
        for name in test_modules {
            test_files.push(dir.join(format!("{name}.rs")));
            test_files.push(dir.join(&name).join("mod.rs"));
        }
        if module.is_empty() {
            krate.reexports = reexports(&code);
        }
        let references = references(&code, &module, &file);
        krate.modules.insert(module, references);
    }
    for file in test_files {
        if let Some(module) = module_path(src, &file) {
            // A test module's children are test code too.
            krate.modules.retain(|m, _| !m.starts_with(&module));
        }
    }
    Ok(krate)
}

pub(crate) fn collect_files(src: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            if dir == src && path.file_name().is_some_and(|n| n == "bin") {
                continue;
            }
            collect_files(src, &path, files)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    Ok(())
}

fn is_dir_module(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "mod.rs")
}

/// `src/a/b.rs` and `src/a/b/mod.rs` → `["a", "b"]`; `src/lib.rs` → `[]`.
fn module_path(src: &Path, file: &Path) -> Option<ModulePath> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    match last.as_str() {
        "lib.rs" | "main.rs" if parts.is_empty() => Some(Vec::new()),
        "mod.rs" => Some(parts),
        name => {
            parts.push(name.strip_suffix(".rs")?.to_string());
            Some(parts)
        }
    }
}

/// Every `crate::…`, `super::…` and `self::…` path in `code`, resolved
/// from `module`, with `use` groups (`crate::{a::X, b}`) expanded.
fn references(code: &str, module: &ModulePath, file: &Path) -> Vec<Reference> {
    let mut found = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut line = 1;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c == '\n' {
            line += 1;
        }
        let starts_word = !chars
            .get(i.wrapping_sub(1))
            .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == ':');
        if starts_word {
            for keyword in ["crate", "super", "self"] {
                if word_at(&chars, i, keyword)
                    && chars.get(i + keyword.len()..i + keyword.len() + 2) == Some(&[':', ':'][..])
                {
                    let (paths, end) = parse_path(&chars, i);
                    for path in paths {
                        if let Some(target) = resolve(module, &path) {
                            found.push(Reference {
                                target,
                                file: file.to_path_buf(),
                                line,
                            });
                        }
                    }
                    line += chars
                        .get(i..end)
                        .map_or(0, |s| s.iter().filter(|&&c| c == '\n').count());
                    i = end;
                    break;
                }
            }
        }
        i += 1;
    }
    found
}

fn word_at(chars: &[char], at: usize, word: &str) -> bool {
    let len = word.chars().count();
    chars
        .get(at..at + len)
        .is_some_and(|s| s.iter().copied().eq(word.chars()))
        && !chars
            .get(at + len)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The path starting at `start` (`a::b::{c, d::e}`), as its expanded
/// segment lists, and the index just past it.
fn parse_path(chars: &[char], start: usize) -> (Vec<Vec<String>>, usize) {
    let mut segments = Vec::new();
    let mut i = start;
    loop {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if chars.get(i) == Some(&'{') {
            let mut paths = Vec::new();
            i += 1;
            loop {
                while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                    i += 1;
                }
                match chars.get(i) {
                    None => break,
                    Some('}') => {
                        i += 1;
                        break;
                    }
                    Some(_) => {
                        let (inner, end) = parse_path(chars, i);
                        for path in inner {
                            let mut full = segments.clone();
                            full.extend(path);
                            paths.push(full);
                        }
                        // Skip `as name` and anything else up to the next item.
                        i = end.max(i + 1);
                        while chars.get(i).is_some_and(|&c| c != ',' && c != '}') {
                            i += 1;
                        }
                    }
                }
            }
            return (paths, i);
        }
        let word: String = chars
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        if word.is_empty() {
            return (vec![segments], i);
        }
        i += word.chars().count();
        segments.push(word);
        if chars.get(i..i + 2) == Some(&[':', ':'][..]) {
            i += 2;
        } else {
            return (vec![segments], i);
        }
    }
}

/// An absolute module path for `path` as written in `module`.
fn resolve(module: &ModulePath, path: &[String]) -> Option<ModulePath> {
    let mut segments = path.iter();
    let mut base = match segments.next()?.as_str() {
        "crate" => Vec::new(),
        "self" => module.clone(),
        "super" => {
            let mut parent = module.clone();
            parent.pop()?;
            parent
        }
        _ => return None,
    };
    for segment in segments {
        if segment == "super" {
            base.pop()?;
        } else if segment != "self" {
            base.push(segment.clone());
        }
    }
    Some(base)
}

/// What the crate root's `pub use module::…` lines re-export.
fn reexports(code: &str) -> BTreeMap<String, ModulePath> {
    let mut map = BTreeMap::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(path) = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let chars: Vec<char> = format!("crate::{}", path.trim()).chars().collect();
        let (paths, _) = parse_path(&chars, 0);
        for path in paths {
            if let (Some(module), Some(item)) = (path.get(1), path.last()) {
                if path.len() > 2 {
                    map.insert(item.clone(), vec![module.clone()]);
                }
            }
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(code: &str) -> Vec<Vec<String>> {
        let chars: Vec<char> = code.chars().collect();
        parse_path(&chars, 0).0
    }

    #[test]
    fn groups_expand() {
        assert_eq!(
            paths("crate::{a::X, b, c::{d, e as f}}"),
            vec![
                vec!["crate", "a", "X"],
                vec!["crate", "b"],
                vec!["crate", "c", "d"],
                vec!["crate", "c", "e"],
            ]
        );
    }

    #[test]
    fn relative_paths_resolve() {
        let module = vec!["store".to_string(), "keys".to_string()];
        let path = |p: &str| p.split("::").map(String::from).collect::<Vec<_>>();
        assert_eq!(
            resolve(&module, &path("super::handle")),
            Some(vec!["store".into(), "handle".into()])
        );
        assert_eq!(
            resolve(&module, &path("self::x")),
            Some(vec!["store".into(), "keys".into(), "x".into()])
        );
        assert_eq!(
            resolve(&module, &path("crate::db")),
            Some(vec!["db".into()])
        );
        assert_eq!(resolve(&Vec::new(), &path("super::x")), None);
    }

    #[test]
    fn reexports_map_items_to_modules() {
        let map = reexports(
            "pub use db::Db;\npub use error::{Error, Result};\npub use fpdb_codec as codec;\n",
        );
        assert_eq!(map.get("Db"), Some(&vec!["db".to_string()]));
        assert_eq!(map.get("Result"), Some(&vec!["error".to_string()]));
        assert!(!map.contains_key("codec"));
    }
}
