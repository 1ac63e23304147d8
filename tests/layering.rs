//! The tree is the architecture (ARCHITECTURE.md, "Layering"): the folders of
//! `src/` stand in one order and a module imports only from its own folder and
//! the folders before it; inside a folder, files import each other without
//! circles. These tests read the sources (code outside `#[cfg(test)]` modules
//! and comments) and fail with the offending imports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The folders (and top-level files) of `src/`, lowest first.
const ORDER: &[&str] = &[
    "sys", "cli", "engine", "matcher", "opencl", "sorted", "pipeline", "output", "walk", "search",
];

/// A module path (`search::cpu`) and the source file it is.
struct Module {
    path: String,
    text: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "bin") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The library's modules, each with its code: comments and the unit-test
/// module (which may reach anywhere) removed.
fn modules() -> Vec<Module> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n != "main.rs" && n != "lib.rs")
        })
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().with_extension("");
            let mut path = rel.to_string_lossy().replace('/', "::");
            if let Some(parent) = path.strip_suffix("::mod") {
                path = parent.to_string();
            }
            Module {
                path,
                text: code_only(&fs::read_to_string(p).unwrap()),
            }
        })
        .collect()
}

/// The text before `#[cfg(test)]`, with line comments dropped.
fn code_only(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b::...` path named in `text`, as its segments.
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let segments: Vec<String> = rest
            .split("::")
            .map(|s| {
                s.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect()
            })
            .take_while(|s: &String| !s.is_empty() && s.chars().all(|c| !c.is_ascii_uppercase()))
            .collect();
        out.push(segments);
    }
    out
}

/// The module that `segments` names, or lies inside (the longest known prefix).
fn resolve(segments: &[String], known: &BTreeSet<String>) -> Option<String> {
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].join("::"))
        .find(|p| known.contains(p))
}

/// `super::x` imports, resolved against the module's parent.
fn super_paths(m: &Module, known: &BTreeSet<String>) -> Vec<String> {
    let parent = m.path.rsplit_once("::").map_or("", |(p, _)| p);
    let mut out = Vec::new();
    for piece in m.text.split("super::").skip(1) {
        let names: Vec<&str> = match piece.strip_prefix('{') {
            Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
            None => vec![piece],
        };
        for name in names {
            let name: String = name
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let full = if parent.is_empty() {
                name
            } else {
                format!("{parent}::{name}")
            };
            if known.contains(&full) {
                out.push(full);
            }
        }
    }
    out
}

/// Module -> the other modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let known: BTreeSet<String> = mods.iter().map(|m| m.path.clone()).collect();
    let mut g = BTreeMap::new();
    for m in &mods {
        let mut deps: BTreeSet<String> = crate_paths(&m.text)
            .iter()
            .filter_map(|s| resolve(s, &known))
            .collect();
        deps.extend(super_paths(m, &known));
        deps.remove(&m.path);
        // A folder's mod.rs naming its own children is not an import.
        deps.retain(|d| !d.starts_with(&format!("{}::", m.path)));
        g.insert(m.path.clone(), deps);
    }
    g
}

fn rank(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or(module);
    ORDER.iter().position(|&f| f == top)
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let mut wrong = Vec::new();
    for (m, deps) in graph() {
        for d in deps {
            if let (Some(a), Some(b)) = (rank(&m), rank(&d))
                && b > a
            {
                wrong.push(format!("{m} imports {d}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that reach up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_module_is_in_a_known_layer() {
    let unknown: Vec<String> = graph().into_keys().filter(|m| rank(m).is_none()).collect();
    assert!(unknown.is_empty(), "modules outside ORDER: {unknown:?}");
}

#[test]
fn no_import_circles() {
    let g = graph();
    let mut circles = Vec::new();
    for start in g.keys() {
        // Modules reachable from `start`; a path back to it is a circle.
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = g[start].iter().collect();
        while let Some(m) = stack.pop() {
            if m == start {
                circles.push(start.clone());
                break;
            }
            if seen.insert(m.clone()) {
                stack.extend(g.get(m).into_iter().flatten());
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules on an import circle: {circles:?}"
    );
}
