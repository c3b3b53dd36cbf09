//! The shape of the code that later changes must keep (issues #16 and #21): the crates stand in a
//! declared order of layers and each depends only on crates below it; the hooks link no
//! development code; no module of a crate imports one that imports it back; no foreign function
//! is declared by hand; and `unsafe` appears only in the store's fast paths, whose speed
//! docs/speed.md measures, each block saying why it is sound.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::repo;

/// The workspace's crates, bottom up: a crate may depend (as a normal or build dependency) only
/// on crates of a lower layer. Crates of one layer stand beside each other and may not import
/// each other. `reflect` is the binaries and their runtime; `reflect-lab` (evaluation, training,
/// study examples) sits on top so that nothing shipped can reach it.
const LAYERS: &[(&str, u32)] = &[
    ("reflect-base", 0),
    ("reflect-transcript", 1),
    ("reflect-store", 1),
    ("reflect-detect", 2),
    ("reflect-app", 3),
    ("reflect", 4),
    ("reflect-lab", 5),
];

/// The files that may hold `unsafe`, with how many blocks each: the store's mapped read and its
/// scanner (`memory-store query` 21x the Python original, docs/speed.md).
const UNSAFE_ALLOWED: &[(&str, usize)] = &[
    ("hooks-src/store/src/store/mod.rs", 1),
    ("hooks-src/store/src/store/scan.rs", 2),
];

/// What `cargo ARGS` prints, run in the repository.
fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo {args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// Each workspace crate with the workspace crates it depends on as a normal or build dependency.
fn crate_graph(metadata: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let packages = metadata["packages"].as_array().unwrap();
    let ours: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut graph = BTreeMap::new();
    for p in packages {
        let deps = p["dependencies"].as_array().unwrap().iter();
        let shipped = deps.filter(|d| d["kind"].as_str() != Some("dev"));
        let names = shipped.map(|d| d["name"].as_str().unwrap());
        let ours_only = names.filter(|n| ours.contains(n)).map(String::from);
        graph.insert(p["name"].as_str().unwrap().to_string(), ours_only.collect());
    }
    graph
}

/// The edges of `graph` that break [`LAYERS`], and the crates it does not declare.
fn layer_breaks(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let layer = |name: &str| LAYERS.iter().find(|(n, _)| *n == name).map(|(_, l)| *l);
    let mut out = Vec::new();
    for (from, deps) in graph {
        let Some(at) = layer(from) else {
            out.push(format!("{from} has no layer in LAYERS"));
            continue;
        };
        for to in deps {
            match layer(to) {
                Some(below) if below < at => {}
                _ => out.push(format!(
                    "{from} (layer {at}) depends on {to} ({:?})",
                    layer(to)
                )),
            }
        }
    }
    out
}

#[test]
fn each_crate_depends_only_on_crates_below_it() {
    let metadata = cargo(&["metadata", "--format-version", "1", "--no-deps", "--locked"]);
    let graph = crate_graph(&serde_json::from_str(&metadata).unwrap());
    assert_eq!(graph.len(), LAYERS.len(), "{graph:?}");
    assert_eq!(layer_breaks(&graph), Vec::<String>::new());
    assert!(graph["reflect-app"].contains("reflect-detect"), "{graph:?}");
}

#[test]
fn a_dependency_up_or_beside_and_an_undeclared_crate_are_found() {
    let graph = |edges: &[(&str, &[&str])]| -> BTreeMap<String, BTreeSet<String>> {
        let deps = |d: &[&str]| d.iter().map(|s| s.to_string()).collect();
        edges
            .iter()
            .map(|(a, d)| (a.to_string(), deps(d)))
            .collect()
    };
    let fine = graph(&[
        ("reflect-app", &["reflect-base", "reflect-store"]),
        ("reflect-base", &[]),
    ]);
    assert!(layer_breaks(&fine).is_empty());
    let up = graph(&[("reflect-store", &["reflect-app"])]);
    assert_eq!(layer_breaks(&up).len(), 1);
    let beside = graph(&[("reflect-store", &["reflect-transcript"])]);
    assert_eq!(layer_breaks(&beside).len(), 1);
    let unknown = graph(&[("reflect-extra", &[])]);
    assert_eq!(layer_breaks(&unknown).len(), 1);
}

#[test]
fn the_binaries_link_no_lab_code() {
    let tree = cargo(&[
        "tree",
        "--locked",
        "-e",
        "normal,build",
        "-p",
        "reflect",
        "--prefix",
        "none",
    ]);
    let crates: BTreeSet<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(crates.contains("reflect-detect"), "{tree}");
    assert!(
        !crates.contains("reflect-lab"),
        "the binaries link reflect-lab:\n{tree}"
    );
    // Nor does the detectors' crate carry evaluation or training itself.
    for file in rust_files(&repo().join("hooks-src/detect/src")) {
        let name = file.file_stem().unwrap().to_str().unwrap();
        assert!(!["eval", "train"].contains(&name), "{}", file.display());
        let code = code(&file);
        for lab_only in [
            "include_str!",
            "fn train",
            "fn logistic",
            "fn leave_one_repository_out",
        ] {
            assert!(!code.contains(lab_only), "{}: {lab_only}", file.display());
        }
    }
}

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
fn no_module_of_a_crate_imports_one_that_imports_it_back() {
    let root = repo().join("hooks-src");
    let crates = ["base", "transcript", "store", "detect", "app", "lab"];
    let mut modules = 0;
    for name in crates {
        let src = root.join(name).join("src");
        let is_tests = |f: &PathBuf| f.file_stem().is_some_and(|s| s == "tests");
        // A generated file is data of a type it imports, served by that type's module
        // (`detect/src/weights.rs`: the shipped `model::Model`), not a module.
        let generated = |f: &PathBuf| fs::read_to_string(f).unwrap().contains("GENERATED by");
        let files: Vec<PathBuf> = rust_files(&src)
            .into_iter()
            .filter(|f| !is_tests(f) && !generated(f) && f != &src.join("lib.rs"))
            .collect();
        // The module a file belongs to, at the top (`store/append.rs` is `store`) and in its
        // folder. The crate root is the face of the crate: its modules may use what it declares.
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
            let code = code(file);
            let mut to = reached(&code, "crate::");
            if file.parent() == Some(&src) {
                // A top module's `super::` is the crate root.
                to.extend(reached(&code, "super::"));
            }
            to.retain(|m| tops.contains(m) && *m != from);
            graph.entry(from).or_default().extend(to);
        }
        modules += graph.len();
        assert_eq!(circle(&graph), None, "the modules of {name}");
        for dir in tops.iter().map(|t| src.join(t)).filter(|d| d.is_dir()) {
            let siblings: Vec<PathBuf> = rust_files(&dir)
                .into_iter()
                .filter(|f| f.parent() == Some(&dir) && !["mod", "tests"].contains(&&*stem(f)))
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
    assert!(modules > 20, "{modules} modules seen");
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
fn no_foreign_function_is_declared_and_unsafe_is_only_where_allowed_with_a_reason() {
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for dir in ["hooks-src", "fuzz/fuzz_targets"] {
        for file in rust_files(&repo().join(dir)) {
            let rel = file.strip_prefix(repo()).unwrap();
            let rel = rel.to_string_lossy().replace('\\', "/"); // as UNSAFE_ALLOWED names it, on Windows too
            let text = fs::read_to_string(&file).unwrap();
            let code = code(&file);
            assert!(!code.contains("extern \"C\""), "{rel}");
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in code.lines().enumerate() {
                if !line.contains("unsafe {")
                    && !line.contains("unsafe fn")
                    && !line.contains("unsafe impl")
                {
                    continue;
                }
                let before = &lines[i.saturating_sub(8)..i];
                let reason = before
                    .iter()
                    .any(|l| l.trim_start().starts_with("// SAFETY:"));
                assert!(reason, "{rel}:{}: no SAFETY comment", i + 1);
                *found.entry(rel.clone()).or_default() += 1;
            }
        }
    }
    let allowed: BTreeMap<String, usize> = UNSAFE_ALLOWED
        .iter()
        .map(|(f, n)| (f.to_string(), *n))
        .collect();
    assert_eq!(found, allowed, "unsafe blocks per file (UNSAFE_ALLOWED)");
}
