//! The pipeline reads one way: no two files of a crate import each other, directly or through
//! others (`docs/ARCHITECTURE.md`, "Crates, bottom up"), and modules are directories rather
//! than `#[path]` children.
//!
//! The module graph is read from the sources: an edge from file `a` to module `b` for every
//! `crate::b::..` or `super::..` path in `a` (comments skipped) that names a module other than
//! `a` itself and its ancestors (a child reading its parent's items is how Rust modules nest).
//! A cycle is a strongly connected component of more than one module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The source folders of the workspace's crates, from the workspace root.
const CRATES: &[&str] = &[
    "segd/src",
    "runtime/src",
    "vectoriser/src",
    "vectoriser/macros/src",
    "flatland/src",
    "cli/src",
    "mpi/src",
];

type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("a source folder reads") {
        let path = entry.expect("a folder entry reads").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines: its path below the crate's `src`, `mod.rs`/`lib.rs`/`main.rs`
/// naming their folder.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("the file lies below src");
    let mut parts: Module = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text without `//` comments (doc comments included; string contents are kept, which
/// can only add edges).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.find("//").map_or(l, |at| &l[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The `::`-separated identifiers at the start of `s` (`a::b::c`), and where they end.
fn path_at(s: &str) -> (Vec<&str>, usize) {
    let mut segments = Vec::new();
    let mut at = 0;
    loop {
        let len = s[at..].find(|c: char| !is_ident(c)).unwrap_or(s.len() - at);
        if len == 0 {
            return (segments, at);
        }
        segments.push(&s[at..at + len]);
        at += len;
        if s[at..].starts_with("::") && s[at + 2..].starts_with(is_ident) {
            at += 2;
        } else {
            return (segments, at);
        }
    }
}

/// Every path that starts with `crate::` or `super::` in `text`, as module-relative segments
/// resolved against `module` (groups `crate::{a, b::c}` give one path per item).
fn paths_from(module: &Module, text: &str) -> Vec<Module> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("::") {
        let before = &text[..at];
        let root_len = before.len() - before.trim_end_matches(is_ident).len();
        let root = &before[before.len() - root_len..];
        let mut base: Module = match root {
            "crate" => Vec::new(),
            "super" if before[..before.len() - root_len].ends_with("::") => continue,
            "super" => module[..module.len().saturating_sub(1)].to_vec(),
            _ => continue,
        };
        let mut rest = &text[at + 2..];
        // `super::super::..` climbs further.
        while let Some(next) = rest.strip_prefix("super::") {
            base.pop();
            rest = next;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let (segments, _) = path_at(item.trim());
                let mut path = base.clone();
                path.extend(segments.iter().map(|s| (*s).to_owned()));
                found.push(path);
            }
        } else {
            let (segments, _) = path_at(rest);
            let mut path = base;
            path.extend(segments.iter().map(|s| (*s).to_owned()));
            found.push(path);
        }
    }
    found
}

/// The module graph of one crate: for every module, the modules its file names.
fn graph(files: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut edges = BTreeMap::new();
    for (module, text) in files {
        let mut targets = BTreeSet::new();
        for path in paths_from(module, &without_comments(text)) {
            // The longest prefix of the path that is a module of the crate.
            let target = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| files.contains_key(p));
            if let Some(target) = target
                && !module.starts_with(&target)
            {
                targets.insert(target);
            }
        }
        edges.insert(module.clone(), targets);
    }
    edges
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<Vec<Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in &self.edges[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().expect("v is on the stack");
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

fn crate_sources(src: &Path) -> BTreeMap<Module, String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .iter()
        .map(|f| {
            let text = fs::read_to_string(f).expect("a source file reads");
            (module_of(src, f), text)
        })
        .collect()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the flatland crate lies in the workspace")
        .to_path_buf()
}

fn names(component: &[Module]) -> Vec<String> {
    component.iter().map(|m| m.join("/")).collect()
}

#[test]
fn no_crate_has_an_import_cycle_between_its_files() {
    let root = workspace_root();
    let mut found = Vec::new();
    for krate in CRATES {
        let files = crate_sources(&root.join(krate));
        assert!(files.len() > 1, "{krate} holds its modules");
        for component in cycles(&graph(&files)) {
            found.push(format!("{krate}: {:?}", names(&component)));
        }
    }
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn no_module_is_a_path_attribute_child() {
    let root = workspace_root();
    for krate in CRATES {
        for (module, text) in crate_sources(&root.join(krate)) {
            assert!(
                !without_comments(&text).contains("#[path"),
                "{krate}/{}: a `#[path]` module (make it a directory module)",
                module.join("/")
            );
        }
    }
}

/// The checker finds what it is for: a cycle through a `use crate::{..}` group and a
/// `super::` path, and no cycle from a child reading its parent.
#[test]
fn the_checker_sees_a_cycle() {
    let module = |s: &str| -> Module { s.split('/').map(str::to_owned).collect() };
    let files: BTreeMap<Module, String> = [
        (Vec::new(), "mod a; mod b; mod c;".to_owned()),
        (module("a"), "use crate::{b::inner::Thing, c};".to_owned()),
        (
            module("b"),
            "mod inner; // crate::c::not_an_edge".to_owned(),
        ),
        (
            module("b/inner"),
            "use super::super::a::f; use super::g;".to_owned(),
        ),
        (module("c"), "fn f() { crate::b::g() }".to_owned()),
    ]
    .into_iter()
    .collect();
    let found = cycles(&graph(&files));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(names(&found[0]), ["a", "b/inner"]);
}
