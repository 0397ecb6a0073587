//! The module graph points one way: cli → hosts → model/spec → catalog → utilities. Every
//! `crate::<module>` reference in `src/` is an edge; this test fails on an edge that points up a
//! layer, on any cycle, and on clap anywhere but `src/cli.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its layer: a module may use only its own layer and the
/// ones below (higher numbers are higher layers).
const LAYERS: &[(&str, u32)] = &[
    ("app", 7),
    ("cli", 6),
    ("serve", 6),
    ("diff", 5),
    ("report", 5),
    ("hosts", 4),
    ("model", 3),
    ("spec", 3),
    ("catalog", 2),
    ("alloc", 1),
    ("output", 1),
    ("plan", 1),
    ("diagnostic", 1),
    ("error", 1),
    ("escape", 1),
    ("par", 1),
    ("paths", 1),
    ("record", 1),
    ("template", 1),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/hosts/opencode/mod.rs` → `hosts`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The modules a file refers to through `crate::`, including `use crate::{a, b::c}` groups.
fn references(text: &str) -> BTreeSet<String> {
    references_after(text, "crate::")
}

/// The names that follow `prefix` in a file's code (`super::`, `crate::catalog::`), including
/// `use prefix{a, b::c}` groups.
fn references_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    // A file's unit tests (at its end, by convention) may use what the file is used by.
    let text = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    // Comments may name modules without depending on them.
    let code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    for (i, _) in code.match_indices(prefix) {
        // `super::` inside `super::super::` is the next one's to read.
        if prefix == "super::" && code[..i].ends_with("super::") {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.insert(name);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let Some(module) = module_of(&src, &f) else { continue };
        let text = std::fs::read_to_string(&f).unwrap();
        let entry = edges.entry(module.clone()).or_default();
        for r in references(&text) {
            if r != module {
                entry.insert(r);
            }
        }
    }
    edges
}

#[test]
fn every_module_has_a_layer_and_uses_only_layers_below_or_beside_it() {
    let layers: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let mut wrong = Vec::new();
    for (from, tos) in graph() {
        let Some(&lf) = layers.get(from.as_str()) else {
            wrong.push(format!("module `{from}` has no layer in tests/layers.rs"));
            continue;
        };
        for to in tos {
            match layers.get(to.as_str()) {
                None => wrong.push(format!("`{from}` uses `crate::{to}`, which has no layer")),
                Some(&lt) if lt > lf => wrong.push(format!(
                    "`{from}` (layer {lf}) uses `{to}` (layer {lt}), a higher layer"
                )),
                _ => {}
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A cycle of `g`, as the modules on it, first repeated last; `None` when there is none.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with colors: grey (1) on the stack, black (2) done.
    fn visit<'a>(
        n: &'a str,
        g: &'a BTreeMap<String, BTreeSet<String>>,
        color: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match color.get(n) {
            Some(2) => return None,
            Some(1) => {
                let start = stack.iter().position(|s| *s == n).unwrap_or(0);
                let mut cycle: Vec<String> = stack[start..].iter().map(|s| s.to_string()).collect();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        color.insert(n, 1);
        stack.push(n);
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, color, stack) {
                return Some(c);
            }
        }
        stack.pop();
        color.insert(n, 2);
        None
    }
    let mut color = BTreeMap::new();
    g.keys().find_map(|n| visit(n, g, &mut color, &mut Vec::new()))
}

#[test]
fn the_module_graph_has_no_cycle() {
    if let Some(cycle) = find_cycle(&graph()) {
        panic!("the module graph has a cycle: {}", cycle.join(" → "));
    }
}

#[test]
fn only_cli_knows_clap() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let users: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("src/cli.rs"))
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.contains("clap::") || text.contains("use clap") || text.contains("clap_complete")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(users.is_empty(), "clap is used outside src/cli.rs: {users:?}");
}

/// Within each folder of `src/`, the graph of its submodules (files and subfolders, but not
/// its `mod.rs`, the folder's face to the rest of the crate): an edge for each `super::x`,
/// `crate::<folder>::x` and `self::x` that names a sibling.
fn folder_graphs() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        let mut siblings = BTreeSet::new();
        let mut members: Vec<(String, PathBuf, &str)> = Vec::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p.clone());
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                siblings.insert(name.clone());
                // A subfolder's mod.rs reaches its siblings through `super::`.
                if p.join("mod.rs").is_file() {
                    members.push((name, p.join("mod.rs"), "super::"));
                }
            } else if p.extension().is_some_and(|x| x == "rs") {
                let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                if !["mod", "lib", "main"].contains(&stem.as_str()) {
                    siblings.insert(stem.clone());
                    members.push((stem, p.clone(), "super::"));
                }
            }
        }
        let rel = dir.strip_prefix(&src).unwrap().to_string_lossy().replace('/', "::");
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (node, file, up) in members {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut refs = references_after(&text, up);
            if !rel.is_empty() {
                refs.extend(references_after(&text, &format!("crate::{rel}::")));
            } else {
                refs.extend(references_after(&text, "crate::"));
            }
            let entry = g.entry(node.clone()).or_default();
            entry.extend(refs.into_iter().filter(|r| *r != node && siblings.contains(r)));
        }
        out.insert(if rel.is_empty() { "src".into() } else { rel }, g);
    }
    out
}

#[test]
fn no_folder_has_an_import_cycle() {
    let cycles: Vec<String> = folder_graphs()
        .into_iter()
        .filter(|(dir, _)| dir != "src") // the top level is `the_module_graph_has_no_cycle`'s
        .filter_map(|(dir, g)| find_cycle(&g).map(|c| format!("{dir}: {}", c.join(" → "))))
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles between the files of a folder:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_folder_check_sees_a_super_edge_cycle_planted_in_a_copy() {
    // Two files that use each other through `super::` and `crate::`: the graph has the cycle.
    let a = "use super::b::thing;\nfn f() { super::{c, b}::x(); }";
    let b = "pub fn x() { crate::catalog::a::g() }";
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let siblings: BTreeSet<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
    for (node, text) in [("a", a), ("b", b)] {
        let mut refs = references_after(text, "super::");
        refs.extend(references_after(text, "crate::catalog::"));
        g.entry(node.into())
            .or_default()
            .extend(refs.into_iter().filter(|r| siblings.contains(r) && r != node));
    }
    assert_eq!(find_cycle(&g).map(|c| c.len()), Some(3), "{g:?}");
}

#[test]
fn the_checks_see_a_back_edge_and_a_cycle() {
    // The detectors themselves: a reference parsed out of a `use` group, and a cycle found.
    let edges = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    let cyclic = edges(&[("catalog", "model"), ("model", "hosts"), ("hosts", "catalog")]);
    assert_eq!(
        find_cycle(&cyclic).map(|c| c.len()),
        Some(4),
        "a three-module cycle is found"
    );
    assert_eq!(
        find_cycle(&edges(&[("cli", "hosts"), ("hosts", "model"), ("cli", "model")])),
        None
    );
    let refs = references(
        "use crate::{hosts::Host, model::{self, Model}};\n// crate::cli in a comment\nlet x = crate::escape::ts_str(\"\");",
    );
    assert!(
        refs.contains("hosts") && refs.contains("model") && refs.contains("escape"),
        "{refs:?}"
    );
    assert!(!refs.contains("cli"), "{refs:?}");
}
