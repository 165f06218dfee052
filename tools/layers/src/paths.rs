//! A crate's modules, read from its root along its `mod` declarations,
//! and the paths each names, from the syntax tree `syn` parses.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Attribute, ImplItem, Item, ItemUse, TraitItem, UseTree};

/// A module's path inside its crate (`["store", "keys"]`); the root is
/// the empty path.
pub type ModulePath = Vec<String>;

/// One place where a module names a path of its crate.
#[derive(Debug)]
pub struct Reference {
    /// The path named, absolute (`crate::store::Family` is `["store",
    /// "Family"]`: as far as the path says, items included).
    pub target: ModulePath,
    pub file: PathBuf,
    pub line: usize,
}

/// A crate's non-test modules with their references.
#[derive(Debug, Default)]
pub struct Crate {
    pub modules: BTreeMap<ModulePath, Vec<Reference>>,
    /// What the root re-exports from its modules (`pub use db::Db;` maps
    /// `Db` to `["db"]`), so that `crate::Db` names `db`.
    reexports: BTreeMap<String, ModulePath>,
}

pub fn parse(file: &Path) -> io::Result<syn::File> {
    let text = std::fs::read_to_string(file)?;
    syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}:{}: {e}", file.display(), at.line),
        )
    })
}

impl Crate {
    /// Reads the crate whose root (`lib.rs`, else `main.rs`) is in `src`.
    pub fn read(src: &Path) -> io::Result<Crate> {
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|name| src.join(name))
            .find(|path| path.is_file())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no lib.rs or main.rs"))?;
        let mut krate = Crate::default();
        let file = parse(&root)?;
        for item in &file.items {
            if let Item::Use(item) = item {
                if !matches!(item.vis, syn::Visibility::Inherited) {
                    for path in use_paths(&item.tree) {
                        krate.note_reexport(path);
                    }
                }
            }
        }
        krate.read_items(&file.items, &root, src, Vec::new())?;
        Ok(krate)
    }

    fn note_reexport(&mut self, (mut path, name): (Vec<String>, String)) {
        if matches!(path.first().map(String::as_str), Some("crate" | "self")) {
            path.remove(0);
        }
        // `pub use module::Item` (not `pub use other_crate as name`).
        if let Some(module) = path.first().filter(|_| path.len() >= 2) {
            self.reexports.insert(name, vec![module.clone()]);
        }
    }

    /// The items of `module`, written in `file`, whose child modules'
    /// files are in `dir`.
    fn read_items(
        &mut self,
        items: &[Item],
        file: &Path,
        dir: &Path,
        module: ModulePath,
    ) -> io::Result<()> {
        let mut found = References::new(&module, file);
        for item in items {
            let Item::Mod(declared) = item else {
                found.visit_item(item);
                continue;
            };
            if is_test(&declared.attrs) {
                continue;
            }
            let name = declared.ident.to_string();
            let child: ModulePath = [module.as_slice(), std::slice::from_ref(&name)].concat();
            if let Some((_, inline)) = &declared.content {
                self.read_items(inline, file, &dir.join(&name), child)?;
                continue;
            }
            let flat = dir.join(format!("{name}.rs"));
            let (path, child_dir) = if flat.is_file() {
                (flat, dir.join(&name))
            } else {
                (dir.join(&name).join("mod.rs"), dir.join(&name))
            };
            let parsed = parse(&path)?;
            self.read_items(&parsed.items, &path, &child_dir, child)?;
        }
        let found = found.found;
        self.modules.entry(module).or_default().extend(found);
        Ok(())
    }

    /// `crate::Item` re-exported by the root from module `m` → `[m, Item]`.
    pub fn expand_reexport(&self, target: &ModulePath) -> ModulePath {
        let Some(first) = target.first() else {
            return target.clone();
        };
        match self.reexports.get(first) {
            Some(module) if !self.modules.contains_key(&vec![first.clone()]) => {
                [module.as_slice(), target].concat()
            }
            _ => target.clone(),
        }
    }
}

fn is_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|arg| arg == "test")
    })
}

/// The paths a `use` tree expands to, each with the name it brings in.
fn use_paths(tree: &UseTree) -> Vec<(Vec<String>, String)> {
    match tree {
        UseTree::Path(path) => use_paths(&path.tree)
            .into_iter()
            .map(|(mut rest, name)| {
                rest.insert(0, path.ident.to_string());
                (rest, name)
            })
            .collect(),
        // `a::{self}` is `a`, brought in as `a`.
        UseTree::Name(name) if name.ident == "self" => vec![(Vec::new(), String::new())],
        UseTree::Name(name) => vec![(vec![name.ident.to_string()], name.ident.to_string())],
        UseTree::Rename(rename) => {
            vec![(vec![rename.ident.to_string()], rename.rename.to_string())]
        }
        UseTree::Glob(_) => vec![(Vec::new(), String::new())],
        UseTree::Group(group) => group.items.iter().flat_map(use_paths).collect(),
    }
}

/// The paths a module's code names, resolved against the module; test
/// items are skipped.
struct References<'a> {
    module: &'a ModulePath,
    file: &'a Path,
    found: Vec<Reference>,
}

impl<'a> References<'a> {
    fn new(module: &'a ModulePath, file: &'a Path) -> Self {
        References {
            module,
            file,
            found: Vec::new(),
        }
    }

    fn note(&mut self, path: &[String], line: usize) {
        if let Some(target) = resolve(self.module, path) {
            self.found.push(Reference {
                target,
                file: self.file.to_path_buf(),
                line,
            });
        }
    }
}

impl<'ast> Visit<'ast> for References<'_> {
    fn visit_item(&mut self, item: &'ast Item) {
        if !item_attrs(item).is_some_and(is_test) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        let attrs = match item {
            ImplItem::Fn(f) => &f.attrs,
            ImplItem::Const(c) => &c.attrs,
            ImplItem::Type(t) => &t.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if !is_test(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        let attrs = match item {
            TraitItem::Fn(f) => &f.attrs,
            TraitItem::Const(c) => &c.attrs,
            TraitItem::Type(t) => &t.attrs,
            _ => return visit::visit_trait_item(self, item),
        };
        if !is_test(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast ItemUse) {
        let line = item.use_token.span.start().line;
        for (path, _) in use_paths(&item.tree) {
            self.note(&path, line);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.note(&segments, line);
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        for (path, line) in token_paths(mac.tokens.clone()) {
            self.note(&path, line);
        }
        visit::visit_macro(self, mac);
    }
}

fn item_attrs(item: &Item) -> Option<&[Attribute]> {
    Some(match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => return None,
    })
}

/// The `a::b::c` paths in a macro's tokens (macro arguments are not
/// parsed as code), with their lines.
fn token_paths(tokens: TokenStream) -> Vec<(Vec<String>, usize)> {
    let mut found = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut colons = 0;
    let mut line = 0;
    for token in tokens {
        match token {
            TokenTree::Ident(ident) if path.is_empty() || colons == 2 => {
                if path.is_empty() {
                    line = ident.span().start().line;
                }
                path.push(ident.to_string());
                colons = 0;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && !path.is_empty() && colons < 2 => {
                colons += 1;
            }
            TokenTree::Group(group) => {
                end(&mut path, &mut found, line);
                colons = 0;
                found.extend(token_paths(group.stream()));
            }
            other => {
                end(&mut path, &mut found, line);
                colons = 0;
                if let TokenTree::Ident(ident) = other {
                    line = ident.span().start().line;
                    path.push(ident.to_string());
                }
            }
        }
    }
    end(&mut path, &mut found, line);
    found
}

/// Ends the path being read: kept when it has at least two segments.
fn end(path: &mut Vec<String>, found: &mut Vec<(Vec<String>, usize)>, line: usize) {
    if path.len() >= 2 {
        found.push((std::mem::take(path), line));
    }
    path.clear();
}

/// An absolute module path for `path` as written in `module`; `None` for
/// a path that does not start at `crate`, `self` or `super`.
fn resolve(module: &ModulePath, path: &[String]) -> Option<ModulePath> {
    let (first, rest) = path.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => module.clone(),
        "super" => module.split_last()?.1.to_vec(),
        _ => return None,
    };
    for segment in rest {
        match segment.as_str() {
            "super" => {
                base.pop()?;
            }
            "self" => {}
            _ => base.push(segment.clone()),
        }
    }
    Some(base)
}

/// Whether `file`'s code names the crate `name`: a path or `use` starting
/// with it, or such a path in a macro's arguments.
pub fn names_crate(file: &syn::File, name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            self.found |= path.segments.len() >= 2
                && path.segments.first().is_some_and(|s| s.ident == self.name);
            visit::visit_path(self, path);
        }
        fn visit_item_use(&mut self, item: &'ast ItemUse) {
            self.found |= use_paths(&item.tree)
                .iter()
                .any(|(path, _)| path.first().is_some_and(|first| first == self.name));
        }
        fn visit_item_extern_crate(&mut self, item: &'ast syn::ItemExternCrate) {
            self.found |= item.ident == self.name;
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.found |= token_paths(mac.tokens.clone())
                .iter()
                .any(|(path, _)| path.first().is_some_and(|first| first == self.name));
            visit::visit_macro(self, mac);
        }
    }
    let mut finder = Finder { name, found: false };
    finder.visit_file(file);
    finder.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(path: &str) -> Vec<String> {
        path.split("::").map(String::from).collect()
    }

    #[test]
    fn use_groups_expand() {
        let item: ItemUse =
            syn::parse_str("use crate::{a::X, b, c::{self, d as e}, f::*};").unwrap();
        let paths: Vec<String> = use_paths(&item.tree)
            .into_iter()
            .map(|(path, name)| format!("{} {name}", path.join("::")))
            .collect();
        assert_eq!(
            paths,
            [
                "crate::a::X X",
                "crate::b b",
                "crate::c ",
                "crate::c::d e",
                "crate::f "
            ]
        );
    }

    #[test]
    fn relative_paths_resolve() {
        let module = strings("store::keys");
        assert_eq!(
            resolve(&module, &strings("super::handle")),
            Some(strings("store::handle"))
        );
        assert_eq!(
            resolve(&module, &strings("self::x")),
            Some(strings("store::keys::x"))
        );
        assert_eq!(resolve(&module, &strings("crate::db")), Some(strings("db")));
        assert_eq!(resolve(&Vec::new(), &strings("super::x")), None);
        assert_eq!(resolve(&module, &strings("std::fs")), None);
    }

    #[test]
    fn paths_in_macro_arguments_are_found() {
        let tokens: TokenStream = "matches!(e, crate::error::Error::Corrupt { .. }) && f(a::b)"
            .parse()
            .unwrap();
        let paths: Vec<String> = token_paths(tokens)
            .into_iter()
            .map(|(path, _)| path.join("::"))
            .collect();
        assert_eq!(paths, ["crate::error::Error::Corrupt", "a::b"]);
    }
}
