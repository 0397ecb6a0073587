//! Computed data in the real OpenCode 1.18.33: a catalog with compute steps
//! (`tests/fixtures/expr/catalog.yaml`) is generated, and its tool runs through
//! `opencode debug agent build` with a fake scanner on `PATH`. The CEL evaluator must come from
//! the file ixgen wrote beside the runtime (nothing is installed or fetched when the tool runs),
//! and the answer must be the one the Rust runtime (`ixgen serve`'s) gives for the same spec.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use support::{OpencodeProject, path_with};

const MARKERS: &str = r#"[
  {"file": "src/app.ts", "line": 12, "kind": "TODO", "text": "TODO(ada): split this handler"},
  {"file": "src/app.ts", "line": 40, "kind": "FIXME", "text": "FIXME: off by one"},
  {"file": "vendor/lib.js", "line": 3, "kind": "HACK", "text": "HACK: not ours"},
  {"file": "src/db.ts", "line": 7, "kind": "TODO", "text": "  TODO cache the pool"},
  {"file": "src/db.ts", "line": 9, "kind": "TODO", "text": "TODO: retry"}
]"#;

/// A fake `todo-scan` that prints MARKERS for `--json`.
fn fake_scanner(bin: &Path) {
    std::fs::create_dir_all(bin).unwrap();
    let path = bin.join("todo-scan");
    std::fs::write(
        &path,
        format!(
            "#!/usr/bin/env node\nif (process.argv[2] !== '--json') process.exit(3)\nprocess.stdout.write({})\n",
            serde_json::to_string(MARKERS).unwrap()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The spec a generated tool file carries (`const SPEC_<id>: ExecSpec = {…}`) and the catalog's
/// shared settings (`export const SHARED: SpecShared = {…}`).
fn spec_and_shared(project: &Path, id: &str) -> (Value, Value) {
    let tool = std::fs::read_to_string(project.join(format!(".opencode/tools/{id}.ts"))).unwrap();
    let start = tool.find(&format!("const SPEC_{id}: ExecSpec = ")).unwrap();
    let body = &tool[start..];
    let body = &body[body.find('{').unwrap()..];
    let end = body.find("\n}\n").unwrap();
    let spec: Value = serde_json::from_str(&body[..end + 2]).unwrap();
    let dir = project.join(".opencode/ixgen");
    let shared_file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("shared-"))
        .unwrap();
    let text = std::fs::read_to_string(shared_file).unwrap();
    let line = text.lines().find(|l| l.starts_with("export const SHARED")).unwrap();
    let shared: Value = serde_json::from_str(&line[line.find('{').unwrap()..]).unwrap();
    (spec, shared)
}

#[test]
fn compute_steps_run_in_opencode_with_the_vendored_evaluator_and_answer_as_the_rust_runtime() {
    let p = OpencodeProject::new();
    let catalog = support::root().join("tests/fixtures/expr/catalog.yaml");
    let out = p.ixgen(&["--catalog", &catalog.display().to_string(), "opencode", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ixgen_dir = p.dir().join(".opencode/ixgen");
    let cel: Vec<String> = std::fs::read_dir(&ixgen_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("cel-") && n.ends_with(".js"))
        .collect();
    assert_eq!(cel.len(), 1, "one evaluator file beside the runtime: {cel:?}");

    let bin = p.tmp.path().join("fakebin");
    fake_scanner(&bin);
    let path = path_with(&bin);
    let (spec, shared) = spec_and_shared(&p.dir(), "todo_summary");
    for args in [json!({}), json!({"kind": "todo", "limit": 5})] {
        let got = p.run_tool("todo_summary", &args, &[("PATH", path.as_str())]).unwrap();
        // The Rust runtime, on the same spec, arguments and program.
        let spec: ixgen_runtime::spec::ExecSpec = serde_json::from_value(spec.clone()).unwrap();
        let shared: ixgen_runtime::spec::SpecShared = serde_json::from_value(shared.clone()).unwrap();
        // SAFETY: the test sets PATH for the fake program before the runtime spawns it, and no
        // other thread of this test binary reads the environment meanwhile.
        let old = std::env::var("PATH").unwrap_or_default();
        unsafe { std::env::set_var("PATH", &path) };
        let want = ixgen_runtime::run_tool(
            &spec,
            &serde_json::Map::new(),
            &args,
            &ixgen_runtime::Ctx {
                cwd: Some(&p.dir()),
                ask: None,
                cancel: None,
            },
            &shared,
        );
        unsafe { std::env::set_var("PATH", old) };
        assert_eq!(got, want.text, "OpenCode and the Rust runtime differ for {args}");
        if args == json!({}) {
            assert_eq!(
                got,
                "## todo_summary\n\n**Summary:** 4 markers in 2 files\n\n**By kind** (2):\n\n| Kind | Count |\n| --- | --- |\n| `TODO` | 3 |\n| `FIXME` | 1 |\n\n**Markers** (showing 2 of 4):\n\n- `src/app.ts:12` TODO: split this handler\n- `src/app.ts:40` FIXME: off by one"
            );
        } else {
            assert!(got.contains("**Summary:** 3 markers in 2 files"), "{got}");
            assert!(got.contains("- `src/db.ts:7` TODO: cache the pool"), "{got}");
            assert!(!got.contains("FIXME"), "{got}");
        }
    }

    // Without the evaluator file the tool says what is wrong instead of failing in the host.
    for n in &cel {
        std::fs::remove_file(ixgen_dir.join(n)).unwrap();
    }
    let got = p
        .run_tool("todo_summary", &json!({}), &[("PATH", path.as_str())])
        .unwrap();
    assert!(
        got.contains("the CEL evaluator") && got.contains("Run `ixgen generate` again"),
        "{got}"
    );
}

#[test]
fn a_catalog_without_compute_steps_gets_no_evaluator() {
    let p = OpencodeProject::new();
    let catalog = support::root().join("tests/fixtures/minimal/catalog.yaml");
    let out = p.ixgen(&["--catalog", &catalog.display().to_string(), "opencode", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<String> = std::fs::read_dir(p.dir().join(".opencode/ixgen"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with("cel-")), "{names:?}");
}
