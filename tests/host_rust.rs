//! The Rust target (`ixgen generate rust`, docs/rust.md) against the pinned rig-core (0.37.0,
//! as in `examples/rig/Cargo.toml`): the modules of the ix, ipuaro, git-iris and hostile
//! catalogs (and a small one with hard bounds) are compiled into one cargo project, which
//! must pass `cargo clippy -- -D warnings`; that project's program then answers what the
//! tests ask through rig's own `ToolSet` (definitions, calls by name with JSON arguments).
//!
//! The project lives in `target/rust-host/harness`, built into `target/rust-host` (the folder
//! `examples/rig` is built in too), so rig is compiled once and reused between runs (its first
//! build takes a few minutes on two cores; the crates come from crates.io once, then from
//! cargo's cache).

mod support;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use support::root;

const IXGEN: &str = env!("CARGO_BIN_EXE_ixgen");

/// A catalog with hard bounds (the ix, ipuaro and git-iris tools clamp their numbers): a
/// number refused outside its range, a string pattern, an array's length.
const BOUNDED: &str = r#"
version: 1
product: {name: bounded, version: 0.1.0, description: Hard bounds}
cli: {binary: bounded}
toolsets:
  all: {tools: [pick, self, a-b, a_b, option, exec, lazy, spec, text]}
targets:
  mcp: {toolset: all}
tools:
  - name: pick
    description: Pick items
    params:
      count: {type: integer, min: 1, max: 5, clamp: false, required: true, description: How many}
      code: {type: string, pattern: "^[A-Z]+$", description: An upper-case code}
      tags: {type: array, items: {type: string}, max: 2}
      mode: {type: enum, values: [fast, slow], default: fast}
      ratio: {type: number, min: 0, max: 1, clamp: false}
      big: {type: integer}
    steps:
      - run: [pick, "{count}"]
  # Names that collide once made Rust names, and Rust's keywords.
  - name: self
    description: Keywords
    params:
      type: {type: enum, values: [Self, self, a b, a-b, "1", fn, "\u202e"], default: Self}
      match: {type: array, items: {type: enum, values: [x, X]}}
      ref: {type: boolean}
    steps:
      - run: [self]
  - name: a-b
    description: One of two
    params:
      c: {type: enum, values: [x, y]}
    steps:
      - run: [ab]
  - name: a_b
    description: The other
    params:
      self_: {type: string}
      self: {type: string}
      _1: {type: integer}
    steps:
      - run: [ab]
  - name: option
    description: A name of the prelude
    params:
      vec: {type: enum, values: [ok, err]}
    steps:
      - run: [option]
  # Enums named as the module's imports would be (`ExecSpec`, `LazyLock`, `SpecShared`).
  - name: exec
    description: An import's name
    params:
      spec: {type: enum, values: [a, b]}
    steps:
      - run: [exec]
  - name: lazy
    description: An import's name
    params:
      lock: {type: enum, values: [a, b]}
    steps:
      - run: [lazy]
  - name: spec
    description: An import's name
    params:
      shared: {type: enum, values: [a, b]}
    steps:
      - run: [spec]
  # Text clippy reads in literals and docs: invisible characters, footnotes, link definitions,
  # and names of single letters (`YMD`).
  - name: text
    description: "soft\u00adhyphen, zero\u200bwidth, word\u2060joiner; see note[^1]."
    params:
      link: {type: string, description: "- [docs]: https://example.com"}
      format: {type: enum, values: [y-m-d, d-m-y], default: y-m-d, description: "[^1]: a footnote"}
    steps:
      - run: [text]
"#;

/// One catalog compiled into the harness: its module name there, its file, the toolset its
/// rust target gets (the MCP target and the server are set to the same toolset, to compare the
/// schemas and `ixgen serve`'s answers).
struct Case {
    module: &'static str,
    catalog: PathBuf,
    toolset: &'static str,
}

fn cases(work: &Path) -> Vec<Case> {
    let bounded = work.join("bounded-source/catalog.yaml");
    std::fs::create_dir_all(bounded.parent().unwrap()).unwrap();
    std::fs::write(&bounded, BOUNDED).unwrap();
    vec![
        Case {
            module: "ix",
            catalog: root().join("catalog/ix.yaml"),
            toolset: "opencode",
        },
        Case {
            module: "ipuaro",
            catalog: root().join("tests/fixtures/ipuaro/catalog.yaml"),
            toolset: "all",
        },
        Case {
            module: "git_iris",
            catalog: root().join("tests/fixtures/git-iris/catalog.yaml"),
            toolset: "all",
        },
        Case {
            module: "hostile",
            catalog: root().join("tests/fixtures/hostile/catalog.yaml"),
            toolset: "main",
        },
        Case {
            module: "bounded",
            catalog: bounded,
            toolset: "all",
        },
    ]
}

/// A copy of the case's catalog (with the files beside it, an icon) in `dir`, whose `rust`
/// target writes `module.rs` and whose `mcp` target lists the same toolset.
fn prepared(case: &Case, dir: &Path) -> PathBuf {
    let from = case.catalog.parent().unwrap();
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    let text = std::fs::read_to_string(&case.catalog).unwrap();
    let mut out = Vec::new();
    let (mut in_targets, mut in_server) = (false, false);
    let mut skip_indented = false;
    for line in text.lines() {
        // `ixgen serve` serves the server's toolset (the one the configs launch it for): the
        // same toolset too, so that its answers can be compared with the module's.
        if !line.starts_with(' ') && !line.is_empty() {
            in_server = line == "server:";
        }
        if in_server && line.starts_with("  toolset:") {
            out.push(format!("  toolset: {}", case.toolset));
            continue;
        }
        if skip_indented {
            if line.starts_with("    ") {
                continue;
            }
            skip_indented = false;
        }
        if line == "targets:" {
            in_targets = true;
            out.push(line.to_string());
            out.push(format!("  rust: {{toolset: {}, path: module.rs}}", case.toolset));
            out.push(format!("  mcp: {{toolset: {}}}", case.toolset));
            continue;
        }
        if in_targets && !line.starts_with(' ') && !line.is_empty() && !line.starts_with('#') {
            in_targets = false;
        }
        // The catalog's own rust and mcp targets give way to the ones above.
        if in_targets && (line.starts_with("  rust:") || line.starts_with("  mcp:")) {
            skip_indented = !line.contains('{');
            continue;
        }
        out.push(line.to_string());
    }
    let path = dir.join(case.catalog.file_name().unwrap());
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
    path
}

fn ixgen(catalog: &Path, out: &Path, args: &[&str]) {
    let o = Command::new(IXGEN)
        .arg("--catalog")
        .arg(catalog)
        .arg("--out")
        .arg(out)
        .args(args)
        .arg("-q")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "ixgen {args:?} for {}: {}",
        catalog.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

const HARNESS_TOML: &str = r#"[package]
name = "ixgen-rust-host-harness"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
rig = { package = "rig-core", version = "=0.37.0", default-features = false }
ixgen-runtime = { path = "RUNTIME" }
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
serde_json = { version = "1", features = ["preserve_order"] }
tokio = { version = "1", features = ["rt", "macros", "time"] }
"#;

/// The harness program: `definitions` prints every tool's rig definition; `call MODULE TOOL
/// ARGS` calls a tool by name through the `ToolSet` (in the current folder); `typed ARGS`
/// prints ix-locate's typed arguments read from ARGS.
const HARNESS_MAIN: &str = r#"
mod bounded;
mod git_iris;
mod hostile;
mod ipuaro;
mod ix;

use rig::tool::{ToolError, ToolSet, ToolSetError};
use serde_json::{Value, json};

fn toolset(module: &str) -> ToolSet {
    match module {
        "ix" => ix::toolset(&ix::Env::default()),
        "ipuaro" => ipuaro::toolset(&ipuaro::Env::default()),
        "git_iris" => git_iris::toolset(&git_iris::Env::default()),
        "hostile" => hostile::toolset(&hostile::Env::default()),
        "bounded" => bounded::toolset(&bounded::Env::default()),
        other => panic!("no module {other}"),
    }
}

fn names(module: &str) -> &'static [&'static str] {
    match module {
        "ix" => ix::TOOL_NAMES,
        "ipuaro" => ipuaro::TOOL_NAMES,
        "git_iris" => git_iris::TOOL_NAMES,
        "hostile" => hostile::TOOL_NAMES,
        "bounded" => bounded::TOOL_NAMES,
        other => panic!("no module {other}"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let out = match argv[0].as_str() {
        "definitions" => {
            let mut all = serde_json::Map::new();
            for module in ["ix", "ipuaro", "git_iris", "hostile", "bounded"] {
                let defs = toolset(module).get_tool_definitions().await.expect("definitions");
                let mut by_name = serde_json::Map::new();
                for d in defs {
                    by_name.insert(d.name.clone(), serde_json::to_value(&d).expect("a definition serializes"));
                }
                all.insert(module.to_string(), json!({"names": names(module), "definitions": by_name}));
            }
            Value::Object(all)
        }
        "call" => match toolset(&argv[1]).call(&argv[2], argv[3].clone()).await {
            Ok(text) => json!({"ok": true, "text": text}),
            // The runtime's answer, under rig's own prefixes (`ToolCallError: …`).
            Err(e) => {
                let text = match &e {
                    ToolSetError::ToolCallError(ToolError::JsonError(inner)) => inner.to_string(),
                    ToolSetError::ToolCallError(ToolError::ToolCallError(inner)) => inner.to_string(),
                    other => other.to_string(),
                };
                let stage = match &e {
                    ToolSetError::ToolCallError(ToolError::JsonError(_)) => "arguments",
                    _ => "call",
                };
                json!({"ok": false, "stage": stage, "text": text, "display": e.to_string()})
            }
        },
        "ask" => {
            // ipuaro's tools with an `ask` that answers `argv[1]` (none: no way to ask).
            let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
            let log = std::sync::Arc::clone(&asked);
            let answer = argv[1].clone();
            let hook: std::sync::Arc<ipuaro::AskHook> = std::sync::Arc::new(move |a: &ixgen_runtime::Ask| {
                log.lock().expect("the log").push(a.subject.clone());
                if answer == "yes" { Ok(()) } else { Err("The user said no. Twice.".to_string()) }
            });
            let env = ipuaro::Env {
                cwd: Some(std::env::current_dir().expect("a folder")),
                ask: (argv[1] != "none").then_some(hook),
            };
            let result = ipuaro::toolset(&env).call(&argv[2], argv[3].clone()).await;
            let asked = asked.lock().expect("the log").clone();
            match result {
                Ok(text) => json!({"ok": true, "text": text, "asked": asked}),
                Err(ToolSetError::ToolCallError(ToolError::ToolCallError(e))) => {
                    json!({"ok": false, "text": e.to_string(), "asked": asked})
                }
                Err(e) => json!({"ok": false, "text": e.to_string(), "asked": asked}),
            }
        }
        "drop" => {
            // A call whose future is dropped after argv[4] ms; then a pause, for its program to
            // finish if nothing stopped it.
            let ms: u64 = argv[4].parse().expect("milliseconds");
            let tools = toolset(&argv[1]);
            let call = tools.call(&argv[2], argv[3].clone());
            let finished = tokio::time::timeout(std::time::Duration::from_millis(ms), call).await.is_ok();
            std::thread::sleep(std::time::Duration::from_millis(3000));
            json!({"finished": finished})
        }
        "spec" => {
            let specs = match argv[1].as_str() {
                "ix" => ix::SPECS,
                other => panic!("no specs of {other} here"),
            };
            let text = specs.iter().find(|(n, _)| *n == argv[2]).expect("the tool").1;
            serde_json::from_str(text).expect("a spec is JSON")
        }
        "typed" => match serde_json::from_str::<ix::IxLocateArgs>(&argv[1]) {
            Ok(a) => json!({"args": serde_json::to_value(&a).expect("serializes"), "debug": format!("{a:?}")}),
            Err(e) => json!({"error": e.to_string()}),
        },
        other => panic!("no command {other}"),
    };
    println!("{out}");
}
"#;

/// The built harness: its program, and the MCP `tools` of each module's catalog.
struct Harness {
    program: PathBuf,
    /// Module → the prepared catalog.
    catalogs: BTreeMap<&'static str, PathBuf>,
    /// Module → `mcp/tools.json`'s `tools`.
    mcp: BTreeMap<&'static str, Value>,
    _work: tempfile::TempDir,
}

fn cargo(dir: &Path, target: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "cargo {args:?} in {} failed:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(|| {
        let work = tempfile::tempdir().unwrap();
        let target = root().join("target/rust-host");
        let dir = target.join("harness");
        let src = dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        let runtime = root().join("crates/ixgen-runtime");
        std::fs::write(
            dir.join("Cargo.toml"),
            HARNESS_TOML.replace("RUNTIME", &runtime.display().to_string()),
        )
        .unwrap();
        // The versions examples/rig was checked with (cargo adjusts the root package).
        if !dir.join("Cargo.lock").exists() {
            std::fs::copy(root().join("examples/rig/Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        }
        std::fs::write(src.join("main.rs"), HARNESS_MAIN).unwrap();
        let (mut catalogs, mut mcp) = (BTreeMap::new(), BTreeMap::new());
        for case in cases(work.path()) {
            let catalog = prepared(&case, &work.path().join(case.module));
            let out = work.path().join(format!("{}-out", case.module));
            ixgen(&catalog, &out, &["generate", "rust", "mcp"]);
            std::fs::copy(out.join("module.rs"), src.join(format!("{}.rs", case.module))).unwrap();
            let tools: Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("mcp/tools.json")).unwrap()).unwrap();
            mcp.insert(case.module, tools["tools"].clone());
            catalogs.insert(case.module, catalog);
        }
        // Lints first: clippy with warnings as errors, as a crate that includes the modules would.
        cargo(&dir, &target, &["clippy", "--quiet", "--", "-D", "warnings"]);
        cargo(&dir, &target, &["build", "--quiet"]);
        Harness {
            program: target.join("debug/ixgen-rust-host-harness"),
            catalogs,
            mcp,
            _work: work,
        }
    })
}

impl Harness {
    fn run(&self, args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Value {
        let mut cmd = Command::new(&self.program);
        cmd.args(args).current_dir(cwd);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let o = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "harness {args:?}: {stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("harness {args:?} printed no JSON ({e}): {stdout}"))
    }

    fn call(&self, module: &str, tool: &str, args: &Value, cwd: &Path, env: &[(&str, &str)]) -> Value {
        self.run(&["call", module, tool, &args.to_string()], cwd, env)
    }
}

#[test]
fn every_definition_is_the_mcp_definition() {
    let h = harness();
    let all = h.run(&["definitions"], &root(), &[]);
    for (module, tools) in &h.mcp {
        let got = &all[*module];
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            got["names"],
            json!(names),
            "{module}: TOOL_NAMES is the toolset's tools, in order"
        );
        assert_eq!(got["definitions"].as_object().unwrap().len(), names.len(), "{module}");
        for t in tools.as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            let d = &got["definitions"][name];
            assert_eq!(d["name"], t["name"], "{module}/{name}");
            // Exactly, hostile bytes included: the description and the inputSchema.
            assert_eq!(d["description"], t["description"], "{module}/{name}: description");
            assert_eq!(d["parameters"], t["inputSchema"], "{module}/{name}: parameters");
        }
    }
    // A tool the catalog marks `unsupported` is in no target: not in the module either.
    let git_iris = all["git_iris"]["names"].as_array().unwrap();
    assert!(
        !git_iris.contains(&json!("workspace")) && git_iris.contains(&json!("git_diff")),
        "{git_iris:?}"
    );
    // The hostile catalog's description reached rig byte for byte.
    let hostile = &all["hostile"]["definitions"]["delete"]["description"];
    assert!(
        hostile.as_str().unwrap().contains("\u{2028}line\u{2029}para"),
        "{hostile}"
    );
}

// The fake program of tests/conformance (crates/ixgen-runtime/tests/conformance.rs runs the
// same lines): answers an argv listed for it, exit 97 otherwise.
const ANSWERING: &str = r#"
const fs = require("node:fs"), path = require("node:path")
const answers = JSON.parse(fs.readFileSync(process.env.CONFORMANCE_ANSWERS, "utf8"))[path.basename(process.argv[1])] ?? []
const argv = process.argv.slice(2)
const a = answers.find((x) => JSON.stringify(x.argv) === JSON.stringify(argv))
if (!a) { process.stderr.write("conformance: no answer for " + JSON.stringify(argv) + "\n"); process.exit(97) }
if (a.stdout) process.stdout.write(a.stdout)
if (a.stderr) process.stderr.write(a.stderr)
process.exit(a.code ?? 0)
"#;

#[test]
fn the_ix_tools_give_the_conformance_suites_answers() {
    let h = harness();
    let node = std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join("node")).find(|n| n.is_file()))
        .expect("node on PATH (the fake programs are Node scripts)");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/conformance"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("ix-") && n.ends_with(".json")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the ix cases: {}", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let fx: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let work = tempfile::tempdir().unwrap();
        let bin = work.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let answers = work.path().join("answers.json");
        std::fs::write(&answers, fx["programs"].to_string()).unwrap();
        for program in fx["programs"].as_object().unwrap().keys() {
            let path = bin.join(program);
            std::fs::write(&path, format!("#!{}\n{ANSWERING}\n", node.display())).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let tool = fx["spec"]["name"].as_str().unwrap();
        // The case is this tool: its spec is the one the module embeds, less the runtime route
        // (the suite's specs have none, tests/conformance/README.md).
        let mut spec = h.run(&["spec", "ix", tool], &root(), &[]);
        let routed = spec.as_object_mut().unwrap().remove("runtime").is_some();
        let stale = if spec == fx["spec"] {
            ""
        } else {
            " (and the case's spec is not the catalog's: the suite's case may be stale)"
        };
        let path = support::path_with(&bin);
        let answers = answers.display().to_string();
        // No runtime route answers (the cases have none; ix's tools try theirs first).
        let got = h.call(
            "ix",
            tool,
            &fx["args"],
            work.path(),
            &[
                ("PATH", &path),
                ("CONFORMANCE_ANSWERS", &answers),
                ("IX_RUNTIME_URL", "http://127.0.0.1:9"),
            ],
        );
        let want = fx["expected"].as_str().unwrap();
        let mut text = got["text"].as_str().unwrap_or_default().to_string();
        // A tool with a route tries it first; unreachable here, the only trace it leaves in an
        // answer is ix-health's `Runtime` field (it reports the route), which the suite's
        // route-less spec cannot have: that one line is taken out, and only when the tool has a route.
        let unreachable = "**Runtime:** unreachable at http://127.0.0.1:9/";
        if routed && !want.contains(unreachable) {
            text = text
                .lines()
                .filter(|l| !l.starts_with(unreachable))
                .collect::<Vec<_>>()
                .join("\n");
        }
        if text != want {
            failures.push(format!(
                "{name}: {tool} answered{stale}\n{}\n--- the suite's answer:\n{want}",
                got["text"].as_str().unwrap_or(&got.to_string())
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

/// What `ixgen serve` answers for a call, through the MCP SDK client.
fn served(catalog: &Path, tool: &str, args: &Value, cwd: &Path) -> (String, bool) {
    let o = Command::new("node")
        .arg(support::script("mcp-list.mjs"))
        .args(["--call", tool, &args.to_string(), "--", IXGEN, "serve", "--catalog"])
        .arg(catalog)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "mcp-list: {stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let call = &v["call"];
    (
        call["content"][0]["text"].as_str().unwrap().to_string(),
        call["isError"] == json!(true),
    )
}

#[test]
fn invalid_arguments_are_refused_with_the_runtimes_message() {
    let h = harness();
    let cwd = tempfile::tempdir().unwrap();
    let calls: &[(&str, &str, Value, &str)] = &[
        // A wrong type.
        (
            "ix",
            "ix-locate",
            json!({"pattern": "auth", "limit": "many"}),
            "`limit` must be an integer, got \"many\"",
        ),
        ("ix", "ix-query", json!({"symbol": ["a"]}), "`symbol` must be a string"),
        // An unknown enum value.
        (
            "ix",
            "ix-query",
            json!({"symbol": "X", "kind": "struct"}),
            "`kind` must be one of",
        ),
        (
            "git_iris",
            "git_diff",
            json!({"detail": "everything"}),
            "`detail` must be one of",
        ),
        // A required argument left out.
        ("ipuaro", "get_lines", json!({}), "is required"),
        // Out of bounds, a pattern, an array too long, a path outside the worktree.
        (
            "bounded",
            "pick",
            json!({"count": 9}),
            "`count` must be at most 5, got 9",
        ),
        (
            "bounded",
            "pick",
            json!({"count": 0}),
            "`count` must be at least 1, got 0",
        ),
        (
            "bounded",
            "pick",
            json!({"count": 1, "ratio": 1.5}),
            "`ratio` must be at most 1, got 1.5",
        ),
        (
            "bounded",
            "pick",
            json!({"count": 1, "code": "abc"}),
            "`code` must match ^[A-Z]+$",
        ),
        (
            "bounded",
            "pick",
            json!({"count": 1, "tags": ["a", "b", "c"]}),
            "`tags` takes at most 2 item(s)",
        ),
        (
            "ix",
            "ix-locate",
            json!({"pattern": "auth", "path": "../outside"}),
            "`path` must stay inside the worktree",
        ),
    ];
    for (module, tool, args, says) in calls {
        let got = h.call(module, tool, args, cwd.path(), &[]);
        assert_eq!(got["ok"], json!(false), "{module}/{tool} {args}: {got}");
        // Refused while the typed `Args` were read, before anything ran.
        assert_eq!(got["stage"], json!("arguments"), "{module}/{tool} {args}: {got}");
        let text = got["text"].as_str().unwrap();
        assert!(
            text.contains("**Invalid arguments:**") && text.contains(says),
            "{module}/{tool} {args}: {text}"
        );
        // The same text as `ixgen serve`, which runs the spec with the Rust runtime (and
        // tests/conformance holds that runtime to the TypeScript one's messages).
        let (served_text, is_error) = served(&h.catalogs[module], tool, args, cwd.path());
        assert!(is_error, "{module}/{tool} {args}: serve answered {served_text}");
        assert_eq!(text, served_text, "{module}/{tool} {args}");
    }
}

#[test]
fn typed_arguments_hold_what_the_runtime_reads() {
    let h = harness();
    let cwd = tempfile::tempdir().unwrap();
    // The default filled in, a number given as text read as a number and clamped to its max.
    let got = h.run(&["typed", r#"{"pattern": "auth"}"#], cwd.path(), &[]);
    assert_eq!(got["args"], json!({"pattern": "auth", "limit": 20}), "{got}");
    let got = h.run(
        &["typed", r#"{"pattern": "auth", "limit": "500", "language": "rust"}"#],
        cwd.path(),
        &[],
    );
    assert_eq!(
        got["args"],
        json!({"pattern": "auth", "limit": 100, "language": "rust"}),
        "{got}"
    );
    assert!(got["debug"].as_str().unwrap().contains("limit: 100"), "{got}");
    // A whole number past 2^53 (a float to the runtime, as to JavaScript) still reads into its
    // i64 field; past i64, it cannot.
    let got = h.call(
        "bounded",
        "pick",
        &json!({"count": 1, "big": 1e17}),
        cwd.path(),
        &[("PATH", "/usr/bin:/bin")],
    );
    assert_eq!(
        got["stage"],
        json!("call"),
        "read, then run (and `bounded` is not installed): {got}"
    );
    let got = h.call("bounded", "pick", &json!({"count": 1, "big": 1e19}), cwd.path(), &[]);
    assert_eq!(got["stage"], json!("arguments"), "{got}");
    assert!(
        got["text"]
            .as_str()
            .unwrap()
            .starts_with("## pick\n\n**Invalid arguments:** `big` "),
        "{got}"
    );
    // Reading them directly refuses as the ToolSet does.
    let got = h.run(&["typed", r#"{"pattern": "auth", "limit": "many"}"#], cwd.path(), &[]);
    assert_eq!(
        got["error"],
        json!("## ix-locate: auth\n\n**Invalid arguments:** `limit` must be an integer, got \"many\""),
        "{got}"
    );
}

#[test]
fn a_tool_runs_its_program_and_a_failure_is_the_tools_error() {
    let h = harness();
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    let log = work.path().join("argv.log");
    support::fake_ix(&bin);
    let path = support::path_with(&bin);
    let log_s = log.display().to_string();
    let env = [
        ("PATH", path.as_str()),
        ("IX_ARGV_LOG", log_s.as_str()),
        ("IX_RUNTIME_URL", "http://127.0.0.1:9"),
    ];
    let got = h.call(
        "ix",
        "ix-locate",
        &json!({"pattern": "auth", "limit": 500}),
        work.path(),
        &env,
    );
    let argv = support::argv_log(&log);
    assert!(
        argv.iter()
            .any(|a| a.first().map(String::as_str) == Some("text") && a.contains(&"100".to_string())),
        "ix ran with the clamped limit: {argv:?} ({got})"
    );
    // Without ix on PATH, the tool fails with the catalog's fallback, as rig's tool error.
    let got = h.call(
        "ix",
        "ix-locate",
        &json!({"pattern": "auth"}),
        work.path(),
        &[("PATH", "/usr/bin:/bin"), ("IX_RUNTIME_URL", "http://127.0.0.1:9")],
    );
    assert_eq!(got["ok"], json!(false), "{got}");
    assert_eq!(got["stage"], json!("call"), "{got}");
    assert!(got["text"].as_str().unwrap().contains("**ix unavailable.**"), "{got}");
    // rig shows it under its own prefixes (`ToolCallError: ToolCallError: ## ix-locate: auth…`).
    assert!(
        got["display"]
            .as_str()
            .unwrap()
            .ends_with(got["text"].as_str().unwrap()),
        "{got}"
    );
}

/// The tool names a generated module registers (`TOOL_NAMES`), read from its text.
fn module_tools(module: &str) -> Vec<String> {
    let start = module.find("pub const TOOL_NAMES: &[&str] = &[").expect("TOOL_NAMES");
    let end = start + module[start..].find("];").unwrap();
    module[start..end]
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<String>(l.trim().trim_end_matches(',')).unwrap())
        .collect()
}

#[test]
fn the_filters_choose_the_modules_tools() {
    // No compiling here: which tools the module holds, under each filter, from the one Filter.
    let out = tempfile::tempdir().unwrap();
    let catalog = root().join("catalog/ix.yaml");
    let generate = |flags: &[&str]| -> Vec<String> {
        let mut args = vec!["generate", "rust"];
        args.extend(flags);
        ixgen(&catalog, out.path(), &args);
        module_tools(&std::fs::read_to_string(out.path().join("rust/ix_tools.rs")).unwrap())
    };
    let all = generate(&[]);
    assert_eq!(all.len(), 17, "{all:?}");
    assert!(all.contains(&"ix-ingest".to_string()) && all.contains(&"ix-history".to_string()));
    let read_only = generate(&["--read-only"]);
    assert_eq!(
        read_only,
        all.iter().filter(|t| *t != "ix-ingest").cloned().collect::<Vec<_>>(),
        "ix-ingest is the write tool"
    );
    let free = generate(&["--tier", "free"]);
    assert!(
        !free.contains(&"ix-history".to_string()) && free.len() == 16,
        "{free:?}"
    );
    assert_eq!(
        generate(&["--enable-tools", "ix-locate,ix-query"]),
        ["ix-query", "ix-locate"],
        "the allowlist, in the catalog's order"
    );
    let blocked = generate(&["--disable-tools", "ix-map"]);
    assert_eq!(blocked.len(), 16);
    assert!(!blocked.contains(&"ix-map".to_string()));
    // And `toolset()` registers exactly those.
    let module = std::fs::read_to_string(out.path().join("rust/ix_tools.rs")).unwrap();
    assert_eq!(module.matches("    set.add_tool(").count(), 16);
    assert!(!module.contains("IxMapTool"), "a filtered tool leaves no code");
}

#[test]
fn a_tool_with_confirm_runs_only_when_the_ask_hook_agrees() {
    let h = harness();
    let work = tempfile::tempdir().unwrap();
    let victim = work.path().join("victim.txt");
    let args = r#"{"path": "victim.txt"}"#;
    std::fs::write(&victim, "x").unwrap();
    // No way to ask: not run.
    let got = h.run(&["ask", "none", "delete_file", args], work.path(), &[]);
    assert_eq!(got["ok"], json!(false), "{got}");
    assert!(got["text"].as_str().unwrap().contains("**Not run:**"), "{got}");
    assert!(victim.exists());
    // Asked and refused: the subject was the user's to judge, and the refusal is the answer.
    let got = h.run(&["ask", "no", "delete_file", args], work.path(), &[]);
    assert_eq!(got["asked"], json!(["delete victim.txt"]), "{got}");
    assert_eq!(got["ok"], json!(false), "{got}");
    assert!(got["text"].as_str().unwrap().contains("The user said no"), "{got}");
    assert!(victim.exists());
    // Asked and agreed: it runs.
    let got = h.run(&["ask", "yes", "delete_file", args], work.path(), &[]);
    assert_eq!(got["ok"], json!(true), "{got}");
    assert_eq!(
        got["text"],
        json!("## delete_file: victim.txt\n\nDeleted `victim.txt`."),
        "{got}"
    );
    assert!(!victim.exists());
}

#[test]
fn the_example_builds_and_calls_the_ix_tools_by_name() {
    // examples/rig, as committed (its lockfile, the committed generated/rust/ix_tools.rs),
    // built where the harness is, so rig is not compiled twice.
    let dir = root().join("examples/rig");
    let target = root().join("target/rust-host");
    cargo(
        &dir,
        &target,
        &["clippy", "--quiet", "--locked", "--", "-D", "warnings"],
    );
    cargo(&dir, &target, &["build", "--quiet", "--locked"]);
    let program = target.join("debug/ixgen-rig-example");
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    support::fake_ix(&bin);
    let run = |args: &[&str]| {
        Command::new(&program)
            .args(args)
            .current_dir(work.path())
            .env("PATH", support::path_with(&bin))
            .env("IX_RUNTIME_URL", "http://127.0.0.1:9")
            .output()
            .unwrap()
    };
    // Without arguments: the tool names, then one definition per line.
    let o = run(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let listing = String::from_utf8(o.stdout).unwrap();
    assert!(listing.starts_with("ix-query\nix-neighbors\n"), "{listing}");
    assert_eq!(listing.lines().filter(|l| l.starts_with('{')).count(), 17, "{listing}");
    // A call by name with JSON arguments, run by the fake ix.
    let o = run(&["ix-locate", r#"{"pattern": "auth"}"#]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("## ix-locate: auth\n\n**Matches**"));
    // Invalid arguments: refused, with the runtime's text.
    let o = run(&["ix-query", r#"{"symbol": "X", "kind": "struct"}"#]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("**Invalid arguments:** `kind` must be one of"), "{err}");
}

#[test]
fn dropping_a_calls_future_stops_its_program() {
    let h = harness();
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let marker = work.path().join("finished");
    // `bounded` takes 1.5 s, then leaves a mark.
    let program = bin.join("bounded");
    std::fs::write(&program, "#!/bin/sh\nsleep 1.5\ntouch \"$MARKER\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = support::path_with(&bin);
    let marker_s = marker.display().to_string();
    let env = [("PATH", path.as_str()), ("MARKER", marker_s.as_str())];
    // Left to finish, it does.
    let got = h.run(
        &["drop", "bounded", "pick", r#"{"count": 1}"#, "10000"],
        work.path(),
        &env,
    );
    assert_eq!(got["finished"], json!(true), "{got}");
    assert!(marker.exists(), "the program ran to its end");
    std::fs::remove_file(&marker).unwrap();
    // Dropped after 300 ms (the harness then waits 3 s): the program was stopped.
    let got = h.run(
        &["drop", "bounded", "pick", r#"{"count": 1}"#, "300"],
        work.path(),
        &env,
    );
    assert_eq!(got["finished"], json!(false), "{got}");
    assert!(
        !marker.exists(),
        "the dropped call's program was stopped before it finished"
    );
}
