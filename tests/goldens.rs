//! Goldens: for each catalog `tests/fixtures/<case>/catalog.yaml`, every generated file is
//! committed under `tests/fixtures/<case>/expected/` as a real file with its real extension
//! (so the TypeScript goldens are type-checked by the host tests too). The session file is
//! generated with a fixed context. `UPDATE_GOLDENS=1 cargo test --test goldens` rewrites them.

mod support;

use assert_cmd::Command;
use std::path::Path;
use support::tree;

/// The fixed context of golden session files.
pub const GOLDEN_CONTEXT: [&str; 8] = [
    "--session",
    "golden",
    "--store",
    "/golden/store",
    "--pid",
    "4242",
    "--iteration",
    "3",
];

fn golden(case: &str) {
    let fixture = Path::new("tests/fixtures").join(case);
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::cargo_bin("ixgen").unwrap();
    cmd.arg("--catalog")
        .arg(fixture.join("catalog.yaml"))
        .arg("--out")
        .arg(tmp.path())
        .args(["generate", "-q"]);
    let text = std::fs::read_to_string(fixture.join("catalog.yaml")).unwrap();
    if text.contains("\n  session: {toolset") {
        cmd.args(GOLDEN_CONTEXT);
    }
    cmd.assert().success();
    let mut got = tree(tmp.path());
    // The run record is a cache of this build's last run (its key changes with every build),
    // not an output: tests/record.rs covers it.
    got.remove(".ixgen/run.json");
    let expected_dir = fixture.join("expected");
    if std::env::var_os("UPDATE_GOLDENS").is_some() {
        let _ = std::fs::remove_dir_all(&expected_dir);
        for (path, bytes) in &got {
            let p = expected_dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        return;
    }
    let want = tree(&expected_dir);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{case}: the set of generated files changed (UPDATE_GOLDENS=1 cargo test --test goldens to accept)"
    );
    for (path, bytes) in &got {
        if bytes != &want[path] {
            let diff =
                similar::TextDiff::from_lines(&*String::from_utf8_lossy(&want[path]), &*String::from_utf8_lossy(bytes))
                    .unified_diff()
                    .header("expected", "generated")
                    .to_string();
            panic!(
                "{case}/{path} differs from its golden (UPDATE_GOLDENS=1 cargo test --test goldens to accept):\n{diff}"
            );
        }
    }
}

#[test]
fn minimal() {
    golden("minimal");
}

#[test]
fn hostile() {
    golden("hostile");
}

/// The ix catalog's session file is per run, so it is not in `generated/`: it is covered
/// here with the fixed context.
#[test]
fn ix_session_file() {
    let tmp = tempfile::tempdir().unwrap();
    Command::cargo_bin("ixgen")
        .unwrap()
        .arg("--out")
        .arg(tmp.path())
        .args(["opencode", "-q"])
        .args(GOLDEN_CONTEXT)
        .assert()
        .success();
    let text = std::fs::read_to_string(tmp.path().join(".opencode/tool/ralph.ts")).unwrap();
    // The interpreter is covered by its own tests and the other goldens; snapshot what the
    // session file adds to it.
    let start = text.find("// The run's context").expect("context block");
    insta::assert_snapshot!("ix_session_file", &text[start..]);
}
