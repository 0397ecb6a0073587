//! The generated OpenCode tools in the real OpenCode 1.18.33 and against its real types.
//!
//! Each of the 17 ix tools runs through `opencode debug agent build` with a fake `ix` first on
//! `PATH` that records its argv; the recorded argv of each tool is a golden (insta). The same
//! tools run with no `ix` at all (fallback markdown), with hostile argument values, and with
//! a local runtime that answers markdown holding a secret.

mod support;

use serde_json::json;
use std::path::{Path, PathBuf};
use support::{OpencodeProject, argv_log, fake_ix, path_with, path_without_ix, runtime_server};

/// A port nothing listens on: the runtime route fails at once and the CLI steps run.
const DEAD_RUNTIME: &str = "http://127.0.0.1:9";

/// One call per tool, chosen to exercise its defaults, caps and step conditions.
fn calls() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (
            "ix_query",
            json!({"symbol": "UserService", "kind": "class", "path": "src"}),
        ),
        ("ix_neighbors", json!({"symbol": "AuthController", "limit": 500})),
        ("ix_impact", json!({"target": "PaymentProcessor"})),
        ("ix_map", json!({"scope": "auth"})),
        ("ix_ingest", json!({"refresh": true})),
        (
            "ix_history",
            json!({"topic": "AuthService", "include": ["decisions", "bugs"]}),
        ),
        ("ix_docs_tool", json!({"target": "billing", "depth": "full"})),
        ("ix_locate", json!({"pattern": "--force", "limit": 500})),
        ("ix_explain", json!({"symbol": "UserService"})),
        ("ix_rank", json!({"by": "callers", "top": 99})),
        ("ix_stats", json!({})),
        ("ix_subsystems", json!({})),
        ("ix_inventory", json!({"path": "src/api"})),
        ("ix_trace", json!({"symbol": "Checkout", "to": "Ledger"})),
        ("ix_decide", json!({"touched_paths": ["src/a.ts", "src/b.ts"]})),
        ("ix_health", json!({})),
        ("ix_smells", json!({"limit": 1000})),
    ]
}

/// A fake `ix` first on `PATH` of a project's runs, recording its argv in `log`.
struct FakeIx {
    log: std::path::PathBuf,
    log_s: String,
    path: String,
}

impl FakeIx {
    fn new(p: &OpencodeProject) -> FakeIx {
        let bin = p.tmp.path().join("fakebin");
        fake_ix(&bin);
        let log = p.tmp.path().join("argv");
        FakeIx {
            log_s: log.display().to_string(),
            log,
            path: path_with(&bin),
        }
    }

    /// The environment of a run, with the runtime at `runtime`.
    fn env<'a>(&'a self, runtime: &'a str) -> [(&'a str, &'a str); 3] {
        [
            ("PATH", self.path.as_str()),
            ("IX_ARGV_LOG", self.log_s.as_str()),
            ("IX_RUNTIME_URL", runtime),
        ]
    }
}

fn project_with_ix_tools() -> OpencodeProject {
    let p = OpencodeProject::new();
    let out = p.ixgen(&["opencode", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    p
}

#[test]
fn each_ix_tool_runs_in_opencode_and_its_argv_matches_its_golden() {
    let p = project_with_ix_tools();
    let bin = p.tmp.path().join("fakebin");
    fake_ix(&bin);
    let path = path_with(&bin);
    let calls = calls();
    assert_eq!(calls.len(), 17, "one call for each ix OpenCode tool");
    for (id, params) in calls {
        let log = p.tmp.path().join(format!("{id}.argv"));
        let log_s = log.display().to_string();
        let mut env = vec![
            ("PATH", path.as_str()),
            ("IX_ARGV_LOG", log_s.as_str()),
            ("IX_RUNTIME_URL", DEAD_RUNTIME),
        ];
        if id == "ix_health" {
            // `ix status` fails, so the `ix --version` step behind it runs.
            env.push(("IX_STATUS_FAILS", "1"));
        }
        let output = p.run_tool(id, &params, &env).unwrap_or_else(|e| panic!("{id}: {e}"));
        let heading = format!("## {}", id.replace('_', "-"));
        assert!(
            output.starts_with(&heading),
            "{id}: the result starts with its heading:\n{output}"
        );
        assert!(!output.contains("Invalid arguments"), "{id}: {output}");
        // Parallel steps log in any order; the golden holds them sorted.
        let mut argv = argv_log(&log);
        argv.sort();
        insta::assert_json_snapshot!(format!("opencode_argv__{id}"), json!({"params": params, "argv": argv}));
    }
}

#[test]
fn caps_apply_inside_the_host() {
    // The host does not run zod: the generated code clamps. Golden aside, say it outright.
    let p = project_with_ix_tools();
    let ix = FakeIx::new(&p);
    let (log, env) = (ix.log.clone(), ix.env(DEAD_RUNTIME));
    p.run_tool(
        "ix_neighbors",
        &json!({"symbol": "A", "direction": "callers", "limit": 500}),
        &env,
    )
    .unwrap();
    assert_eq!(
        argv_log(&log),
        vec![vec!["callers", "A", "--limit", "30", "--format", "json"]]
    );
    // A string where a number belongs is coerced; a value the enum lacks is refused in markdown.
    std::fs::remove_file(&log).unwrap();
    p.run_tool(
        "ix_neighbors",
        &json!({"symbol": "A", "direction": "callees", "limit": "7"}),
        &env,
    )
    .unwrap();
    assert_eq!(
        argv_log(&log),
        vec![vec!["callees", "A", "--limit", "7", "--format", "json"]]
    );
    let out = p
        .run_tool("ix_neighbors", &json!({"symbol": "A", "direction": "sideways"}), &env)
        .unwrap();
    assert!(
        out.starts_with("## ix-neighbors: A") && out.contains("Invalid arguments"),
        "{out}"
    );
    assert!(out.contains("sideways"), "{out}");
}

#[test]
fn hostile_argument_values_arrive_as_exact_bytes_and_run_nothing() {
    let p = project_with_ix_tools();
    let ix = FakeIx::new(&p);
    let mark = p.tmp.path().join("pwned");
    let mark2 = p.tmp.path().join("pwned2");
    let hostile = format!(
        "-rf \"double\" 'single' $(touch {}) `touch {}` \\back\\slash ${{HOME}}\nsecond line ünïcödé 🦀 \u{2028}end",
        mark.display(),
        mark2.display()
    );
    let (log, env) = (ix.log.clone(), ix.env(DEAD_RUNTIME));
    let out = p.run_tool("ix_query", &json!({"symbol": hostile}), &env).unwrap();
    let argv = argv_log(&log);
    assert_eq!(
        argv[0],
        vec!["locate".to_string(), hostile.clone(), "--format".into(), "json".into()],
        "one argv element, byte for byte"
    );
    // ix explain gets the name ix locate resolved (the fake echoes it back), still one element.
    assert_eq!(argv[1][..2], ["explain".to_string(), hostile.clone()]);
    assert!(!mark.exists() && !mark2.exists(), "nothing in the value may run");
    assert!(out.starts_with("## ix-query: -rf"), "{out}");
    // A leading `-` stays a value: the catalog puts `--` before free-text patterns.
    std::fs::remove_file(&log).unwrap();
    p.run_tool("ix_locate", &json!({"pattern": "-v\n\\d+ \"x\""}), &env)
        .unwrap();
    let argv = argv_log(&log);
    assert_eq!(argv[0].last().unwrap(), "-v\n\\d+ \"x\"", "{argv:?}");
    assert_eq!(argv[0][argv[0].len() - 2], "--", "{argv:?}");
}

#[test]
fn without_ix_every_tool_returns_its_fallback_markdown() {
    let p = project_with_ix_tools();
    let path = path_without_ix();
    for (id, params) in calls() {
        let output = p
            .run_tool(
                id,
                &params,
                &[("PATH", path.as_str()), ("IX_RUNTIME_URL", DEAD_RUNTIME)],
            )
            .unwrap_or_else(|e| panic!("{id}: the run must succeed without ix: {e}"));
        let heading = format!("## {}", id.replace('_', "-"));
        assert!(output.starts_with(&heading), "{id}: {output}");
        assert!(
            output.contains("command -v ix") || output.contains("Ix Pro"),
            "{id}: the fallback gives recovery steps:\n{output}"
        );
        assert!(
            !output.contains("exited with code"),
            "{id}: a missing program is not a failing command:\n{output}"
        );
    }
}

#[test]
fn runtime_markdown_is_used_with_secrets_redacted_and_the_cli_is_not_called() {
    let p = project_with_ix_tools();
    let ix = FakeIx::new(&p);
    let token = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
    let markdown =
        format!("## ix-locate: Foo\n\nFound `Foo` in src/foo.ts. Debug: token {token} and AKIAIOSFODNN7EXAMPLE.");
    let (url, requests) = runtime_server(json!({"preview_markdown": markdown}).to_string());
    let log = ix.log.clone();
    let secret_in_args = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
    let out = p
        .run_tool(
            "ix_locate",
            &json!({"pattern": format!("Foo {secret_in_args}")}),
            &ix.env(&url),
        )
        .unwrap();
    assert!(
        out.starts_with("## ix-locate: Foo") && out.contains("Found `Foo` in src/foo.ts"),
        "{out}"
    );
    assert!(out.contains("[REDACTED]"), "{out}");
    assert!(
        !out.contains(&token) && !out.contains("AKIAIOSFODNN7EXAMPLE"),
        "a planted secret reached the model:\n{out}"
    );
    assert!(
        !log.exists(),
        "the CLI must not run when the runtime answered: {:?}",
        argv_log(&log)
    );
    let request = requests
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("the runtime was called");
    assert!(request.starts_with("POST /v2/ix_query "), "{request}");
    assert!(
        request.contains("\"mode\":\"locate\"") || request.contains("\"mode\": \"locate\""),
        "{request}"
    );
    assert!(
        !request.contains(secret_in_args),
        "secrets are redacted from what is sent to the runtime:\n{request}"
    );
}

/// Writes a tsconfig that extends the pinned base config and checks the files under `dir`.
fn type_check(dir: &Path) {
    let tsconfig = dir.join("tsconfig.json");
    let base = support::hosts_dir().join("tsconfig.json");
    std::fs::write(
        &tsconfig,
        // `tool/` too: the session file goes where the ralph loop writes its own.
        json!({"extends": base, "include": ["./.opencode/tools/*.ts", "./.opencode/tool/*.ts"]}).to_string(),
    )
    .unwrap();
    let files = std::fs::read_dir(dir.join(".opencode/tools")).unwrap().count();
    assert!(files > 0);
    let out = std::process::Command::new("node")
        .arg(support::tsc_js())
        .arg("-p")
        .arg(&tsconfig)
        .arg("--pretty")
        .arg("false")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tsc --noEmit against @opencode-ai/plugin 1.18.33 failed for {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn generated_tools_type_check_against_the_real_plugin_types() {
    // The ix catalog, with its session file.
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .arg("--out")
        .arg(tmp.path())
        .args([
            "opencode",
            "-q",
            "--session",
            "typecheck",
            "--iteration",
            "1",
            "--store",
            "/tmp/s",
            "--pid",
            "4242",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_dir(tmp.path().join(".opencode/tools")).unwrap().count(),
        17
    );
    assert!(tmp.path().join(".opencode/tool/ralph.ts").is_file(), "the session file");
    type_check(tmp.path());
    // The goldens of the fixtures, the hostile one included.
    for case in ["minimal", "hostile"] {
        let copy = tempfile::tempdir().unwrap();
        support::copy_dir(
            &support::root().join(format!("tests/fixtures/{case}/expected/.opencode")),
            copy.path(),
        );
        type_check(copy.path());
    }
    // A broken file must fail the check, or the check proves nothing.
    let bad = tempfile::tempdir().unwrap();
    support::copy_dir(&tmp.path().join(".opencode"), bad.path());
    let f = bad.path().join(".opencode/tools/ix_stats.ts");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("return runTool(", "return 42 + runTool(");
    std::fs::write(&f, text).unwrap();
    let result = std::panic::catch_unwind(|| type_check(bad.path()));
    assert!(result.is_err(), "tsc accepted a tool whose execute returns a number");
}

/// The one runtime file of a generated project (beside it: the shared settings file).
fn runtime_file(project: &Path) -> PathBuf {
    let dir = project.join(".opencode/ixgen");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("runtime-"))
        })
        .collect();
    assert_eq!(files.len(), 1, "one runtime file in {}: {files:?}", dir.display());
    files.into_iter().next().unwrap()
}

#[test]
fn spec_types_and_runtime_that_disagree_fail_the_type_check() {
    // The runtime's TypeScript types come from the Rust spec types (through their JSON Schema).
    // Were a field renamed on one side only, tsc must refuse the result, in both directions.
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .arg("--out")
        .arg(tmp.path())
        .args(["opencode", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success());
    type_check(tmp.path());

    // 1. The Rust types say `args` where the interpreter reads `argv`.
    let renamed = tempfile::tempdir().unwrap();
    support::copy_dir(&tmp.path().join(".opencode"), renamed.path());
    let schema = serde_json::to_string(&ixgen::spec::schema())
        .unwrap()
        .replace("\"argv\"", "\"args\"");
    let text = ixgen::hosts::opencode::runtime_text(&serde_json::from_str(&schema).unwrap()).unwrap();
    std::fs::write(runtime_file(renamed.path()), text).unwrap();
    let result = std::panic::catch_unwind(|| type_check(renamed.path()));
    let msg = *result
        .expect_err("tsc accepted a runtime whose spec types lack `argv`")
        .downcast::<String>()
        .unwrap();
    assert!(msg.contains("argv"), "{msg}");

    // 2. A tool file carries a field the spec types do not have.
    let extra = tempfile::tempdir().unwrap();
    support::copy_dir(&tmp.path().join(".opencode"), extra.path());
    let f = extra.path().join(".opencode/tools/ix_stats.ts");
    let text = std::fs::read_to_string(&f).unwrap().replace(
        &format!("\"version\": {},", ixgen::spec::SPEC_VERSION),
        &format!("\"version\": {}, \"join\": \"\\n\",", ixgen::spec::SPEC_VERSION),
    );
    std::fs::write(&f, text).unwrap();
    let result = std::panic::catch_unwind(|| type_check(extra.path()));
    let msg = *result
        .expect_err("tsc accepted a spec with a field the runtime does not know")
        .downcast::<String>()
        .unwrap();
    assert!(msg.contains("join"), "{msg}");
}

#[test]
fn the_hostile_fixture_loads_and_runs_in_opencode() {
    // Reserved words as tool and parameter names, every quoting hazard in the text: if any of
    // these files failed to import, OpenCode would break every tool of the session.
    let p = OpencodeProject::new();
    let out = p.ixgen(&[
        "--catalog",
        &support::root()
            .join("tests/fixtures/hostile/catalog.yaml")
            .display()
            .to_string(),
        "opencode",
        "-q",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bin = p.tmp.path().join("fakebin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = p.tmp.path().join("argv");
    std::fs::write(bin.join("hostile"), format!("#!/usr/bin/env node\nrequire('node:fs').appendFileSync({:?}, JSON.stringify(process.argv.slice(2)) + '\\n')\n", log.display().to_string())).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("hostile"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = path_with(&bin);
    let value = "it's \"x\" `y` ${z} \\ \n";
    let out = p
        .run_tool(
            "delete",
            &json!({"in": value, "class": "a\"b"}),
            &[("PATH", path.as_str())],
        )
        .unwrap();
    assert!(out.starts_with("## delete: it's"), "{out}");
    assert_eq!(
        argv_log(&log),
        vec![vec!["delete", "--", value, "--class", "a\"b", "literal {braces}"]]
    );
    let out = p
        .run_tool(
            "function",
            &json!({"new": true, "typeof": ["a b", "c"]}),
            &[("PATH", path.as_str())],
        )
        .unwrap();
    assert!(out.starts_with("## function"), "{out}");
    assert_eq!(
        argv_log(&log)[1],
        vec!["function", "--new", "a b", "c", r#"{"a":["a b","c"],"b":"x\"y"}"#]
    );
    // Without the program: the catalog's fallback, its `${x}`, `\` and `*/` intact.
    let out = p
        .run_tool("case_esac", &json!({}), &[("PATH", path_without_ix().as_str())])
        .unwrap();
    assert!(
        out.contains("Not installed: run `command -v hostile`; then ${x} and \\ and */"),
        "{out}"
    );
}

/// The custom tools the real OpenCode loads in a project (`opencode debug agent build`), by id.
fn loaded_tools(p: &OpencodeProject) -> std::collections::BTreeSet<String> {
    let mut cmd = std::process::Command::new(support::opencode());
    support::isolate(&mut cmd, p.tmp.path());
    let out = cmd
        .current_dir(p.dir())
        .args(["debug", "agent", "build"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let agent: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let tools = agent["tools"]
        .as_object()
        .unwrap_or_else(|| panic!("no tools: {agent}"));
    tools.keys().filter(|t| t.starts_with("ix_")).cloned().collect()
}

/// The tool ids of the tool files below `.opencode/tools`.
fn tool_files(project: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(project.join(".opencode/tools"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".ts").map(str::to_string))
        .collect()
}

#[test]
fn after_a_killed_run_and_a_filtered_rerun_opencode_loads_exactly_the_planned_tools() {
    // A first `ixgen opencode` killed halfway through creating the tool files: the write (the
    // CLI's, through the library) copies the tree as a kill before that step leaves it.
    let (model, _, _) = ixgen::hosts::load(None).unwrap();
    let (filter, _) = ixgen::model::Filter::resolve(&model, false, &[], &[], None).unwrap();
    let opts = ixgen::hosts::Options {
        filter,
        context: Default::default(),
        toolset: None,
        profiles: vec![ixgen::hosts::mcp::Profile::V2025_11_25],
    };
    let plan = ixgen::hosts::plan(&model, &[ixgen::hosts::get("opencode").unwrap()], &opts).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let killed = std::sync::Mutex::new(None);
    let hook = |step: usize| {
        // Step 1 writes the interim manifest; each later one creates a file.
        if step == 12 {
            *killed.lock().unwrap() = Some(support::tree(scratch.path()));
            return Err(std::io::Error::other("killed"));
        }
        Ok(())
    };
    let r = ixgen::output::write_with_hook(plan, scratch.path(), Default::default(), &hook);
    assert!(r.is_err(), "the run has fewer steps than the kill");
    let killed = killed.into_inner().unwrap().unwrap();
    // The killed run's tree, in a project OpenCode runs in.
    let p = OpencodeProject::new();
    for (rel, bytes) in &killed {
        let to = p.dir().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    let left = tool_files(&p.dir());
    assert!(left.len() > 3, "the killed run left tool files: {left:?}");
    // The rerun keeps the read-only tools only.
    let out = p.ixgen(&["opencode", "--read-only", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let fresh = tempfile::tempdir().unwrap();
    let planned = std::process::Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .arg("--out")
        .arg(fresh.path())
        .args(["opencode", "--read-only", "-q"])
        .output()
        .unwrap();
    assert!(planned.status.success());
    let planned = tool_files(fresh.path());
    assert!(planned.len() < 17, "--read-only keeps fewer tools: {planned:?}");
    assert!(
        left.iter().any(|t| !planned.contains(t)),
        "the killed run left a tool the filter drops: {left:?}"
    );
    assert_eq!(tool_files(&p.dir()), planned);
    assert_eq!(loaded_tools(&p), planned);
    let check = p.ixgen(&["check", "--read-only", "opencode"]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
}

/// The steps fixture (`tests/fixtures/steps/catalog.yaml`) in the real OpenCode: a failure
/// thrown as the host's error, a file returned as printed (no heading, nothing trimmed), the
/// `rg`-else-`grep` search read into records, and a helper step in a folder of the project.
#[test]
fn steps_that_read_program_output_and_answers_as_errors_run_in_opencode() {
    let p = OpencodeProject::new();
    let out = p.ixgen(&[
        "--catalog",
        &support::root()
            .join("tests/fixtures/steps/catalog.yaml")
            .display()
            .to_string(),
        "opencode",
        "-q",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = p.dir();
    std::fs::create_dir_all(dir.join("src/sub")).unwrap();
    std::fs::write(dir.join("src/a.py"), "    def f():\n        return 1  # TODO: x:y\n\n").unwrap();
    std::fs::write(dir.join("src/sub/new.txt"), "x\n").unwrap();
    // No `rg` anywhere on PATH: the step's `when_missing` alternative, grep, runs.
    let no_rg = support::path_without(&["rg"]);
    let env = [("PATH", no_rg.as_str())];

    // `answer: {errors: error}`: OpenCode gets a thrown error (its tool part's status is
    // `error`; `debug agent build` exits 1 with the message), not an ordinary answer.
    let err = p.run_tool("failing", &json!({}), &env).unwrap_err();
    assert!(err.contains("**Error:** `false` exited with code 1"), "{err}");

    // `answer: {heading: false, trim: false}`: the file exactly, first-line indentation kept.
    let out = p.run_tool("untrimmed", &json!({"file": "src/a.py"}), &env).unwrap();
    assert_eq!(out, "    def f():\n        return 1  # TODO: x:y\n\n");

    // `when_missing` + `parse: delimited` + a hidden step: the records, listed by `output`.
    let out = p.run_tool("search", &json!({"pattern": "TODO"}), &env).unwrap();
    assert!(out.starts_with("## search: TODO\n\n**Matches** (1):"), "{out}");
    assert!(
        out.contains("- `./src/a.py` line 2:         return 1  # TODO: x:y"),
        "{out}"
    );

    // With rg installed, rg runs: its lines read as the same records (it skips .git and the
    // ignored node_modules by itself).
    let with_rg = format!("{}:{no_rg}", support::rg_dir().display());
    let by_rg = p
        .run_tool("search", &json!({"pattern": "TODO"}), &[("PATH", with_rg.as_str())])
        .unwrap();
    assert_eq!(by_rg, out);

    // `cwd`: git runs in the folder (paths relative to it), and a folder outside is refused.
    let out = p.run_tool("status", &json!({"dir": "src/sub"}), &env).unwrap();
    assert_eq!(out, "## status\n\n?? new.txt");
    let out = p.run_tool("status", &json!({"dir": "../.."}), &env).unwrap();
    assert_eq!(
        out,
        "## status\n\n**Error:** the working directory `../..` is outside the project."
    );
}
