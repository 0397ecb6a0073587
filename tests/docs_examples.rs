//! The catalog reference (`docs/catalog/*.md`) shows each construct with a complete catalog, in
//! a fenced block whose info string is `yaml catalog`. Each of them is a valid catalog:
//! `ixgen validate --strict` accepts it as written, so a reader can copy one into a file and
//! start from it. An example of a construct that warns by design (an `unsupported` tool) is
//! marked `yaml catalog not-strict`: `ixgen validate` (warnings allowed) accepts it. Every YAML block of those pages carries the marker (a fragment would escape
//! the check), every page has at least one, and `docs/catalog.md` links every page.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs/catalog"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

/// The fenced blocks of a markdown text: (info string, body, line of the opening fence).
fn blocks(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, String, usize)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((info.trim().to_string(), n + 1, String::new(), indent));
                }
            }
            Some((info, start, body, ind)) => {
                if trimmed.starts_with("```") && trimmed.trim() == "```" {
                    out.push((info.clone(), std::mem::take(body), *start));
                    open = None;
                } else {
                    // A block inside a list item is indented; the catalog is what is inside.
                    body.push_str(line.get(*ind..).unwrap_or(line.trim_start()));
                    body.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    out
}

fn validate(catalog: &Path, strict: bool) -> (bool, String) {
    let out = Command::cargo_bin("ixgen")
        .unwrap()
        .env("NO_COLOR", "1")
        .arg("--catalog")
        .arg(catalog)
        .arg("validate")
        .args(strict.then_some("--strict"))
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn every_catalog_example_of_the_reference_validates_strictly() {
    let pages = pages();
    assert!(pages.len() >= 10, "the reference pages: {pages:?}");
    let mut failures = Vec::new();
    let mut examples = 0;
    for page in &pages {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(page).unwrap();
        let mut here = 0;
        for (info, body, line) in blocks(&text) {
            let words: Vec<&str> = info.split_whitespace().collect();
            if words.first() != Some(&"yaml") {
                continue;
            }
            if words.get(1) != Some(&"catalog") {
                failures.push(format!(
                    "docs/catalog/{name}:{line}: a YAML block without the `yaml catalog` marker (make it a complete catalog)"
                ));
                continue;
            }
            here += 1;
            let dir = tempfile::tempdir().unwrap();
            // The examples of a Claude Code target name `icon: icon.png` beside the catalog,
            // as a plugin that ships one does (without it, `validate` warns `no-icon`).
            std::fs::copy(root().join("catalog/ix-icon.png"), dir.path().join("icon.png")).unwrap();
            let catalog = dir.path().join("catalog.yaml");
            std::fs::write(&catalog, &body).unwrap();
            let strict = words.get(2) != Some(&"not-strict");
            let (ok, out) = validate(&catalog, strict);
            if !ok {
                failures.push(format!("docs/catalog/{name}:{line}:\n{out}"));
            }
        }
        if here == 0 {
            failures.push(format!("docs/catalog/{name}: no `yaml catalog` example"));
        }
        examples += here;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(examples >= pages.len(), "{examples} examples");
}

/// The check can fail: a broken example is refused, and a fragment is not a catalog.
#[test]
fn a_broken_example_is_refused() {
    let text = "```yaml catalog\nversion: 1\nproduct: {name: demo, version: 0.1.0, description: A demo.}\ntoolsets: {all: {tools: [t]}}\ntools:\n  - name: t\n    description: T.\n    steps:\n      - program: echo\n        run: [\"{nope}\"]\n```\n";
    let (info, body, _) = blocks(text).remove(0);
    assert_eq!(info, "yaml catalog");
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.yaml");
    std::fs::write(&catalog, body).unwrap();
    let (ok, out) = validate(&catalog, true);
    assert!(!ok && out.contains("nope"), "{out}");
    std::fs::write(&catalog, "- program: echo\n  run: [hi]\n").unwrap();
    assert!(!validate(&catalog, true).0);
}

#[test]
fn the_catalog_index_links_every_reference_page() {
    let index = std::fs::read_to_string(root().join("docs/catalog.md")).unwrap();
    for page in pages() {
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            index.contains(&format!("(catalog/{name}")),
            "docs/catalog.md does not link catalog/{name}"
        );
    }
}
