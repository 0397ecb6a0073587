//! A `path` parameter and a step's `cwd` stay inside the worktree on the disk, not only by
//! their text: a symbolic link in the worktree that leads out of it (a cloned repository can
//! ship one to `/etc/passwd`) is refused, as is a link whose target is missing; a link that
//! stays inside is fine. The TypeScript runtime's twin is in `tests/runtime/runtime.test.ts`.
#![cfg(unix)]

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use ixgen_runtime::{Ctx, run_tool};
use serde_json::{Map, Value, json};
use std::os::unix::fs::symlink;
use std::path::Path;

fn run(dir: &Path, spec: Value, args: Value) -> (String, bool) {
    let spec: ExecSpec = serde_json::from_value(spec).unwrap();
    let ctx = Ctx {
        cwd: Some(dir),
        ask: None,
        cancel: None,
    };
    let a = run_tool(&spec, &Map::new(), &args, &ctx, &SpecShared::default());
    (a.text, a.is_error)
}

/// A worktree with `src/a.txt`, and links: `pw` to /etc/passwd, `etc` to /etc, `gone` to a
/// missing file outside, `up` to the worktree's parent, and `inner` to `src` (inside).
fn worktree() -> (tempfile::TempDir, std::path::PathBuf) {
    let outer = tempfile::tempdir().unwrap();
    let tree = outer.path().join("tree");
    std::fs::create_dir_all(tree.join("src")).unwrap();
    std::fs::write(tree.join("src/a.txt"), "inside\n").unwrap();
    symlink("/etc/passwd", tree.join("pw")).unwrap();
    symlink("/etc", tree.join("etc")).unwrap();
    symlink(outer.path().join("missing/new.txt"), tree.join("gone")).unwrap();
    symlink("..", tree.join("up")).unwrap();
    symlink("src", tree.join("inner")).unwrap();
    (outer, tree)
}

#[test]
fn a_path_through_a_link_out_of_the_worktree_is_refused() {
    let (_outer, tree) = worktree();
    let spec = json!({
        "version": 4, "name": "read", "heading": ["read"],
        "params": [{"name": "p", "type": "path", "required": true}],
        "steps": [{"exec": {"kind": "cli", "program": "cat", "argv": [[{"var": "p"}]]}}]
    });
    for out in ["pw", "etc/passwd", "etc", "gone", "up", "up/missing/x", "inner/../pw"] {
        let (text, is_error) = run(&tree, spec.clone(), json!({ "p": out }));
        assert!(is_error, "{out}: {text}");
        assert!(text.contains("`p` must stay inside the worktree"), "{out}: {text}");
        assert!(!text.contains("root:"), "{out} was read: {text}");
    }
    // Inside, through a link or not, and a file that does not exist yet.
    for inside in [
        "src/a.txt",
        "inner/a.txt",
        "./inner/../src/a.txt",
        "up/tree/src/a.txt",
        "src/new.txt",
    ] {
        let (text, is_error) = run(&tree, spec.clone(), json!({ "p": inside }));
        assert!(!text.contains("must stay inside"), "{inside}: {text}");
        assert_eq!(is_error, inside == "src/new.txt", "{inside}: {text}");
    }
}

#[test]
fn a_working_directory_through_a_link_out_of_the_project_is_refused() {
    let (_outer, tree) = worktree();
    let spec = json!({
        "version": 4, "name": "list", "heading": ["list"],
        "params": [{"name": "dir", "type": "string", "default": "."}],
        "steps": [{"cwd": [{"var": "dir"}], "exec": {"kind": "cli", "program": "ls", "argv": []}}]
    });
    let (text, is_error) = run(&tree, spec.clone(), json!({"dir": "etc"}));
    assert!(is_error, "{text}");
    assert!(
        text.contains("the working directory `etc` is outside the project"),
        "{text}"
    );
    let (text, is_error) = run(&tree, spec, json!({"dir": "inner"}));
    assert!(!is_error && text.contains("a.txt"), "{text}");
}
