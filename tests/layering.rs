//! The tree is the architecture (ARCHITECTURE.md, "Layering"): the folders of
//! `src/` stand in one order and a module imports only from its own folder and
//! the folders before it; inside a folder, files import each other without
//! circles. These tests read the sources (code outside `#[cfg(test)]` modules
//! and comments) and fail with the offending imports. The last tests hold every
//! function of `src/` (the benchmark binaries included) to 100 lines, and
//! ARCHITECTURE.md and the man page to the code: every file of `src/` in the
//! module map, every `GSEARCH_*` variable the code names in both tables.

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
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The library's modules, each with its code: comments and the unit-test
/// module (which may reach anywhere) removed.
fn modules() -> Vec<Module> {
    let src = src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .iter()
        .filter(|p| {
            !p.starts_with(src.join("bin"))
                && p.file_name()
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

/// The text before `#[cfg(test)]`, with line comments dropped (nothing of a
/// file that is all tests, `#![cfg(test)]`).
fn code_only(text: &str) -> String {
    if text.contains("#![cfg(test)]") {
        return String::new();
    }
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

/// The longest a function may be, in lines from `fn` to its closing brace.
const MAX_FN_LINES: usize = 100;

/// The name of the function that `line` begins (`fn`, with any visibility,
/// `const`, `unsafe` or `extern` before it), and its indentation.
fn fn_start(line: &str) -> Option<(&str, &str)> {
    let code = line.trim_start();
    let indent = &line[..line.len() - code.len()];
    let mut words = code.split_whitespace().peekable();
    let qualifier = |w: &&str| {
        w.starts_with("pub") || ["const", "async", "unsafe", "extern", "\"C\""].contains(w)
    };
    while words.next_if(qualifier).is_some() {}
    let rest = words.next().filter(|&w| w == "fn").and(words.next())?;
    let name = rest.split(['(', '<']).next().filter(|n| !n.is_empty())?;
    Some((indent, name))
}

/// Every function of `text` (rustfmt's layout: the body ends at the first
/// line that is the opening line's indentation and `}`) as (name, first
/// line, lines). Declarations without a body are skipped.
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((indent, name)) = fn_start(line) else {
            continue;
        };
        let close = format!("{indent}}}");
        for (j, l) in lines.iter().enumerate().skip(i) {
            let opened = lines[i..=j].iter().any(|l| l.contains('{'));
            if !opened && l.trim_end().ends_with(';') {
                break;
            }
            if (j == i && opened && l.trim_end().ends_with('}')) || *l == close {
                out.push((name.to_string(), i + 1, j - i + 1));
                break;
            }
        }
    }
    out
}

#[test]
fn function_lengths_are_measured() {
    let text = "fn a() {}\npub(crate) unsafe fn b<T>(\n    x: T,\n) {\n    x;\n}\n    fn c();\n";
    let got = function_lengths(text);
    assert_eq!(got, [("a".into(), 1, 1), ("b".into(), 2, 5)]);
}

#[test]
fn no_function_over_100_lines() {
    let src = src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for p in &files {
        let text = fs::read_to_string(p).unwrap();
        // Unit-test modules may hold long tables of cases.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (name, line, n) in function_lengths(code) {
            if n > MAX_FN_LINES {
                let rel = p.strip_prefix(&src).unwrap().display();
                long.push(format!("src/{rel}:{line} {name}: {n} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        long.join("\n")
    );
}

fn read(rel: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The text of ARCHITECTURE.md from the heading `from` to the next `## `.
fn section(doc: &str, from: &str) -> String {
    let start = doc.find(from).unwrap_or_else(|| panic!("no {from:?}"));
    let rest = &doc[start + from.len()..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_string()
}

#[test]
fn the_module_map_names_every_file() {
    let src = src();
    let map = section(&read("ARCHITECTURE.md"), "## Modules");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut missing = BTreeSet::new();
    for p in files {
        let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        // A benchmark binary's folder stands for its files.
        let name = match rel.strip_prefix("bin/").map(|r| r.split_once('/')) {
            Some(Some((dir, _))) => format!("bin/{dir}/"),
            _ => rel,
        };
        if !map.contains(&format!("`{name}`")) {
            missing.insert(name);
        }
    }
    assert!(
        missing.is_empty(),
        "files missing from ARCHITECTURE.md's module map: {missing:?}"
    );
}

/// Every `GSEARCH_*` name in the text of the files under `dir`.
fn variables(dir: &Path, out: &mut BTreeSet<String>) {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    for p in files {
        let text = fs::read_to_string(&p).unwrap();
        for (i, _) in text.match_indices("GSEARCH_") {
            let name: String = text[i..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.ends_with('_') {
                out.insert(name);
            }
        }
    }
}

#[test]
fn every_variable_is_documented() {
    let mut names = BTreeSet::new();
    variables(&src(), &mut names);
    variables(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut names,
    );
    let table = section(&read("ARCHITECTURE.md"), "## Environment variables");
    let man = read("man/gsearch.1");
    let man = &man[man.find(".SH ENVIRONMENT").expect("no ENVIRONMENT section")..];
    // The man page escapes `_` nowhere but may hyphenate nothing: plain names.
    let missing: Vec<String> = names
        .iter()
        .filter(|n| !table.contains(&format!("`{n}`")) || !man.contains(n.as_str()))
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "variables missing from ARCHITECTURE.md's table or the man page: {missing:?}"
    );
}
