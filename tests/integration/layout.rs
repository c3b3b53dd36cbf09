//! The shape of the code that later changes must keep (issue #16): no module of the core imports
//! one that imports it back, no foreign function is declared by hand, `unsafe` stays in a few
//! blocks that each say why they are sound, and the store stays at least 15% shorter than the five
//! modules it replaced.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::repo;

/// Lines of the five store modules the one store reader replaced (`store.rs`, `query.rs`,
/// `scan.rs`, `hash.rs`, `render.rs`).
const STORE_LINES_BEFORE: usize = 4306;
/// At most this many `unsafe` blocks in all the binaries and the core.
const MAX_UNSAFE: usize = 4;

/// The `.rs` files under `dir`, recursively, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// A file's code: its unit tests cut off (a test may import what the code must not), and every
/// line comment dropped.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap();
    let lines = text.lines().map(|l| l.split("//").next().unwrap());
    lines.collect::<Vec<_>>().join("\n")
}

/// The names `code` reaches through `prefix` (`crate::`, `super::`): the name after it, or the
/// first name of each item of a `{…}` group after it.
fn reached(code: &str, prefix: &str) -> BTreeSet<String> {
    let name = |s: &str| -> String {
        let s = s.trim_start();
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        let Some(group) = rest.strip_prefix('{') else {
            out.insert(name(rest));
            continue;
        };
        let (mut depth, mut item_start) = (0, 0);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.insert(name(&group[item_start..i]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.insert(name(&group[item_start..i]));
                    item_start = i + 1;
                }
                _ => {}
            }
        }
    }
    out.remove("");
    out
}

/// A circle of `graph` (each node with the nodes it imports), if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            return Some(path[at..].to_vec());
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_core_modules_import_no_circle() {
    let src = repo().join("hooks-src/core/src");
    let is_tests = |f: &PathBuf| f.file_stem().is_some_and(|s| s == "tests");
    let files: Vec<PathBuf> = rust_files(&src)
        .into_iter()
        .filter(|f| !is_tests(f))
        .collect();
    // The module a file belongs to, at the top (`store/append.rs` is `store`) and in its folder.
    let top = |path: &Path| {
        let rel = path.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        first.trim_end_matches(".rs").to_string()
    };
    let stem = |path: &Path| path.file_stem().unwrap().to_str().unwrap().to_string();
    let tops: BTreeSet<String> = files.iter().map(|f| top(f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = top(file);
        let mut to = reached(&code(file), "crate::");
        to.retain(|m| tops.contains(m) && *m != from);
        graph.entry(from).or_default().extend(to);
    }
    assert!(graph.len() > 10, "{graph:?}");
    assert_eq!(circle(&graph), None, "the core's modules");
    // Within a folder, its files through `super::` (the folder's mod.rs is its face: its
    // children may use what it declares). A generated file is data of a type it imports, served
    // by that type's module (`detect/weights.rs`: the shipped `model::Model`), not a module.
    for dir in tops.iter().map(|t| src.join(t)).filter(|d| d.is_dir()) {
        let siblings: Vec<PathBuf> = rust_files(&dir)
            .into_iter()
            .filter(|f| f.parent() == Some(&dir) && !["mod", "tests"].contains(&&*stem(f)))
            .filter(|f| !fs::read_to_string(f).unwrap().contains("GENERATED by"))
            .collect();
        let names: BTreeSet<String> = siblings.iter().map(|f| stem(f)).collect();
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in &siblings {
            let mut to = reached(&code(file), "super::");
            to.retain(|m| names.contains(m) && *m != stem(file));
            graph.entry(stem(file)).or_default().extend(to);
        }
        assert_eq!(circle(&graph), None, "the files of {}", dir.display());
    }
}

#[test]
fn circles_and_grouped_imports_are_found() {
    let code = "use crate::{a::{b, c}, d};\nuse super::e::f;\nlet x = crate::g::h();";
    let names: Vec<String> = reached(code, "crate::").into_iter().collect();
    assert_eq!(names, ["a", "d", "g"]);
    assert_eq!(
        reached(code, "super::").into_iter().collect::<Vec<_>>(),
        ["e"]
    );
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(circle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    let found = circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])).unwrap();
    assert_eq!(found.len(), 3, "{found:?}");
}

#[test]
fn no_foreign_function_is_declared_and_each_unsafe_block_says_why_it_is_sound() {
    let mut unsafe_blocks = Vec::new();
    for file in rust_files(&repo().join("hooks-src")) {
        let text = fs::read_to_string(&file).unwrap();
        let code = code(&file);
        assert!(!code.contains("extern \"C\""), "{}", file.display());
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in code.lines().enumerate() {
            if !line.contains("unsafe {") && !line.contains("unsafe fn") {
                continue;
            }
            let before = &lines[i.saturating_sub(8)..i];
            let reason = before
                .iter()
                .any(|l| l.trim_start().starts_with("// SAFETY:"));
            assert!(reason, "{}:{}: no SAFETY comment", file.display(), i + 1);
            unsafe_blocks.push(format!("{}:{}", file.display(), i + 1));
        }
    }
    assert!(
        !unsafe_blocks.is_empty(),
        "the store's fast paths hold some"
    );
    assert!(unsafe_blocks.len() <= MAX_UNSAFE, "{unsafe_blocks:#?}");
}

#[test]
fn the_store_stays_at_least_15_percent_shorter_than_the_modules_it_replaced() {
    let src = repo().join("hooks-src/core/src");
    let mut files = rust_files(&src.join("store"));
    files.push(src.join("render.rs"));
    let lines: usize = files
        .iter()
        .map(|f| fs::read_to_string(f).unwrap().lines().count())
        .sum();
    assert!(
        lines * 100 <= STORE_LINES_BEFORE * 85,
        "store/*.rs and render.rs hold {lines} lines; at most {} (85% of {STORE_LINES_BEFORE})",
        STORE_LINES_BEFORE * 85 / 100
    );
}
