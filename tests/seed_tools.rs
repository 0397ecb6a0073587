//! No stubs: the seed catalogs (`tests/fixtures/ipuaro`, `tests/fixtures/git-iris`) and the ix
//! catalog run real programs, and the tools rebuilt from those programs answer what their seed
//! document says they answer.
//!
//! - Every program a step of these catalogs runs exists: each is started with its probe
//!   (`--version`, or the documented one of a program without it) and must exit 0. The product's
//!   own CLI of the ix catalog is the harness's fake `ix` (`tests/support/fake_ix.js`, which
//!   answers `--version` as ix 0.9.3); `rg` is the pinned ripgrep the harness builds; `xs` the
//!   pinned store. A tool that called `ipuaro tool …` or `git-iris tool …` fails here, naming
//!   the tool and the program.
//! - The rewritten tools run through the Rust runtime (`ixgen_runtime::run_tool`, as `ixgen
//!   serve` calls it) on a scratch project built for them: a small TypeScript project for
//!   ipuaro, a small git repository for git-iris; the answers are checked field by field against
//!   the seed's contract (fields, limits, errors).
//! - The `unsupported` tools are in no target, and each run of each target warns once about
//!   each, with its reason.

mod support;

use ixgen::model::{Model, SpecExec};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const IXGEN: &str = env!("CARGO_BIN_EXE_ixgen");

fn catalog_path(name: &str) -> PathBuf {
    match name {
        "ix" => support::root().join("catalog/ix.yaml"),
        other => support::root().join("tests/fixtures").join(other).join("catalog.yaml"),
    }
}

fn model(name: &str) -> Model {
    let (model, _file, _warnings) = ixgen::hosts::load(Some(&catalog_path(name))).expect("the catalog loads");
    model
}

/// `PATH` with the pinned ripgrep and xs, and the fake `ix` in `fake_dir`, first. Set once,
/// before any test of this binary spawns anything (every test calls it first).
fn init_path() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let fake = std::env::temp_dir().join(format!("ixgen-seed-tools-{}", std::process::id()));
        support::fake_ix(&fake);
        let xs_dir = support::xs().parent().unwrap().to_path_buf();
        let path = format!(
            "{}:{}:{}:{}",
            support::rg_dir().display(),
            xs_dir.display(),
            fake.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        // SAFETY: every test of this binary calls `init_path` before it reads the environment
        // or spawns a program, and `Once` makes them wait here until it is set.
        unsafe { std::env::set_var("PATH", path) };
    });
}

/// Every (tool, programs) a catalog's steps run, in catalog order: a step's program, then the
/// programs its `when_missing` tries in order when that one is not installed.
fn programs(model: &Model) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for t in &model.tools {
        for s in &t.spec.steps {
            let chain = match &s.exec {
                SpecExec::Cli { program, otherwise, .. } => {
                    program.clone().or_else(|| model.shared.program.clone()).map(|p| {
                        std::iter::once(p)
                            .chain(otherwise.iter().map(|a| a.program.clone()))
                            .collect()
                    })
                }
                SpecExec::StoreAppend { program, .. }
                | SpecExec::StoreFold { program, .. }
                | SpecExec::StoreUpdate { program, .. } => Some(vec![program.clone()]),
                // A signal runs no program; a compute step runs none either (CEL, in process).
                SpecExec::Signal { .. } | SpecExec::Compute { .. } => None,
            };
            if let Some(chain) = chain
                && !out.contains(&(t.name.clone(), chain.clone()))
            {
                out.push((t.name.clone(), chain));
            }
        }
    }
    out
}

/// How a program shows it is there: `--version`, but for the programs without it.
fn probe(program: &str) -> Vec<&'static str> {
    match program {
        // mawk (Debian's awk) has no `--version`; `-W version` is POSIX awk's extension
        // option, which gawk and mawk both answer.
        "awk" => vec!["-W", "version"],
        // POSIX sh has no version option.
        "sh" => vec!["-c", "exit 0"],
        _ => vec!["--version"],
    }
}

fn on_path(program: &str) -> bool {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .any(|d| Path::new(d).join(program).is_file())
}

/// A step with `when_missing` runs the first of its programs that is installed (git-iris's
/// `static_analysis`: biome, else oxlint, else a note by `echo`), so that one must exist and
/// answer its probe; the ones before it are not installed, so never called. A step without
/// alternatives runs its own program, which must exist.
#[test]
fn every_program_a_step_runs_exists() {
    init_path();
    let mut missing = Vec::new();
    let mut probed = 0;
    for name in ["ipuaro", "git-iris", "ix"] {
        let m = model(name);
        let found = programs(&m);
        assert!(!found.is_empty(), "{name}: no program found in the steps");
        for (tool, chain) in found {
            let program = match chain.iter().find(|p| on_path(p)) {
                Some(p) => p.clone(),
                // None installed: the step's own program is the one to report.
                None => chain[0].clone(),
            };
            if program != chain[0] {
                eprintln!(
                    "{name}: `{tool}` runs `{program}` here, `{}` not being installed",
                    chain[0]
                );
            }
            let args = probe(&program);
            let ok = Command::new(&program)
                .args(&args)
                .stdin(std::process::Stdio::null())
                .output()
                .map(|o| o.status.success());
            probed += 1;
            match ok {
                Ok(true) => {}
                Ok(false) => missing.push(format!(
                    "{name}: tool `{tool}` runs `{program}`, and `{program} {}` failed",
                    args.join(" ")
                )),
                Err(e) => missing.push(format!(
                    "{name}: tool `{tool}` runs `{program}`, which does not exist ({e})"
                )),
            }
        }
    }
    assert!(
        missing.is_empty(),
        "programs that do not exist:\n{}",
        missing.join("\n")
    );
    assert!(probed > 20, "{probed} programs probed");
}

/// A program that is not there fails the probe: the check can fail (`ipuaro tool …`, the old
/// stubs, would have).
#[test]
fn a_stub_program_fails_the_probe() {
    init_path();
    for program in ["ipuaro", "git-iris"] {
        assert!(
            !on_path(program),
            "{program} is installed here, so the probe proves nothing"
        );
        assert!(Command::new(program).args(probe(program)).output().is_err());
    }
}

/// No step of a seed catalog calls the product's own CLI (there is none to call).
#[test]
fn no_seed_tool_calls_the_product_cli() {
    init_path();
    for (name, cli) in [("ipuaro", "ipuaro"), ("git-iris", "git-iris")] {
        let m = model(name);
        for (tool, chain) in programs(&m) {
            assert!(!chain.contains(&cli.to_string()), "{name}: `{tool}` calls `{cli}`");
        }
        let text = std::fs::read_to_string(catalog_path(name)).unwrap();
        assert!(
            !text.contains(&format!("{cli} tool")),
            "{name}: a comment still says `{cli} tool` answers"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Running the tools.

/// Runs a tool of a catalog in `dir` through the Rust runtime, as `ixgen serve` does.
fn run(m: &Model, tool: &str, args: Value, dir: &Path) -> ixgen_runtime::Answer {
    let t = m.tool(tool).unwrap_or_else(|| panic!("no tool {tool}"));
    assert!(t.unsupported.is_none(), "{tool} is unsupported");
    let ctx = ixgen_runtime::Ctx {
        cwd: Some(dir),
        ask: None,
        cancel: None,
    };
    ixgen_runtime::run_tool(&t.spec, &serde_json::Map::new(), &args, &ctx, &m.shared)
}

/// The JSON a tool printed, after its `## heading`.
fn json_answer(a: &ixgen_runtime::Answer, what: &str) -> Value {
    assert!(!a.is_error, "{what} failed:\n{}", a.text);
    let body = a.text.split_once("\n\n").map(|(_, b)| b).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{}", a.text))
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const USER_TS: &str = r#"import { Database } from "../db/index"
import type { User } from "../types/user"

/** Finds users. */
export class UserService extends BaseService implements Finder, Disposable {
  static readonly tableName = "users"
  private cache = new Map<string, User>()
  constructor(private readonly db: Database) {
    super()
  }
  async findById(id: string): Promise<User | null> {
    return this.db.users.findOne({ id })
  }
  static create(db: Database) {
    return new UserService(db)
  }
}

export async function login(email: string, password: string): Promise<User> {
  return authenticate(email, password)
}

const formatDate = (date: Date): string => date.toISOString()

export abstract class BaseRepo {
  abstract find(id: string): unknown
}
"#;

/// A small TypeScript project, with the project's own `typescript` package (the pinned one of
/// `tests/hosts`) where npm would install it.
fn ts_project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "package.json",
        r#"{"name": "scratch", "devDependencies": {"typescript": "5.9.3"}}"#,
    );
    write(d, "src/services/user.ts", USER_TS);
    write(d, "src/db/index.ts", "export class Database { users: any }\n");
    write(d, "src/types/user.ts", "export interface User { id: string }\n");
    write(d, "src/config.ts", "export const config = { port: 1 }\n");
    write(
        d,
        "src/controllers/user.ts",
        "import { UserService } from \"../services/user.js\"\nimport type { User } from \"../types/user\"\nimport { config } from '../config'\nconst db = require(\"../db\")\nimport express from \"express\"\nimport { gone } from \"./missing\"\n",
    );
    for i in 1..=5 {
        write(
            d,
            &format!("tests/t{i}.test.ts"),
            "import { Database } from '../src/db/index'\n",
        );
    }
    // Not project files: a dependency's own imports are not the project's graph.
    write(
        d,
        "node_modules/lib/index.ts",
        "import { Database } from '../../src/db/index'\n",
    );
    std::os::unix::fs::symlink(
        support::ensure_npm_hosts().join("node_modules/typescript"),
        d.join("node_modules/typescript"),
    )
    .unwrap();
    tmp
}

#[test]
fn ipuaro_get_function_answers_the_seed_fields() {
    init_path();
    let m = model("ipuaro");
    let p = ts_project();
    let f = json_answer(
        &run(
            &m,
            "get_function",
            json!({"path": "src/services/user.ts", "name": "login"}),
            p.path(),
        ),
        "get_function login",
    );
    assert_eq!(f["name"], "login");
    assert_eq!(
        (f["lineStart"].as_u64(), f["lineEnd"].as_u64()),
        (Some(19), Some(21)),
        "{f}"
    );
    assert_eq!(f["params"], json!(["email", "password"]));
    assert_eq!(
        (f["isAsync"].as_bool(), f["isExported"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(f["returnType"], "Promise<User>");
    // The source with line numbers, cat -n style: line 19 is the signature.
    let code = f["code"].as_str().unwrap();
    assert_eq!(code.lines().count(), 3, "{code}");
    assert!(
        code.lines()
            .next()
            .unwrap()
            .trim_start()
            .starts_with("19\texport async function login("),
        "{code}"
    );

    // An arrow function bound to a const, not exported, no declared return type elsewhere.
    let a = json_answer(
        &run(
            &m,
            "get_function",
            json!({"path": "src/services/user.ts", "name": "formatDate"}),
            p.path(),
        ),
        "formatDate",
    );
    assert_eq!(
        (a["isAsync"].as_bool(), a["isExported"].as_bool()),
        (Some(false), Some(false))
    );
    assert_eq!(a["params"], json!(["date"]));
    assert_eq!(a["returnType"], "string");
    assert_eq!(a["lineStart"], 23);

    // ClassName.methodName for a method.
    let meth = json_answer(
        &run(
            &m,
            "get_function",
            json!({"path": "src/services/user.ts", "name": "UserService.findById"}),
            p.path(),
        ),
        "UserService.findById",
    );
    assert_eq!(
        (meth["lineStart"].as_u64(), meth["lineEnd"].as_u64()),
        (Some(11), Some(13))
    );
    assert_eq!(meth["params"], json!(["id"]));
    assert_eq!(meth["isAsync"], true);

    // Not found: an error that lists the available functions.
    let nf = run(
        &m,
        "get_function",
        json!({"path": "src/services/user.ts", "name": "logout"}),
        p.path(),
    );
    assert!(nf.is_error, "{}", nf.text);
    assert!(
        nf.text
            .contains("Available functions: login, formatDate, UserService.findById, UserService.create"),
        "{}",
        nf.text
    );
    // File not found.
    let gone = run(
        &m,
        "get_function",
        json!({"path": "src/nope.ts", "name": "x"}),
        p.path(),
    );
    assert!(
        gone.is_error && gone.text.contains("File not found: src/nope.ts"),
        "{}",
        gone.text
    );
    // A path outside the project is refused before anything runs.
    let out = run(&m, "get_function", json!({"path": "../x.ts", "name": "x"}), p.path());
    assert!(out.text.contains("**Invalid arguments:**"), "{}", out.text);
}

#[test]
fn ipuaro_get_class_answers_the_seed_fields() {
    init_path();
    let m = model("ipuaro");
    let p = ts_project();
    let c = json_answer(
        &run(
            &m,
            "get_class",
            json!({"path": "src/services/user.ts", "name": "UserService"}),
            p.path(),
        ),
        "get_class",
    );
    assert_eq!((c["lineStart"].as_u64(), c["lineEnd"].as_u64()), (Some(5), Some(17)));
    assert_eq!(
        c["methods"],
        json!([
            {"name": "findById", "isStatic": false, "isAsync": true, "params": ["id"]},
            {"name": "create", "isStatic": true, "isAsync": false, "params": ["db"]}
        ])
    );
    assert_eq!(
        c["properties"],
        json!([
            {"name": "tableName", "isStatic": true, "isReadonly": true},
            {"name": "cache", "isStatic": false, "isReadonly": false},
            {"name": "db", "isStatic": false, "isReadonly": true}
        ])
    );
    assert_eq!(c["isAbstract"], false);
    assert_eq!(c["extends"], "BaseService");
    assert_eq!(c["implements"], json!(["Finder", "Disposable"]));
    assert_eq!(c["isExported"], true);
    assert_eq!(c["code"].as_str().unwrap().lines().count(), 13);

    let abs = json_answer(
        &run(
            &m,
            "get_class",
            json!({"path": "src/services/user.ts", "name": "BaseRepo"}),
            p.path(),
        ),
        "BaseRepo",
    );
    assert_eq!(abs["isAbstract"], true);
    assert!(abs.get("extends").is_none(), "{abs}");
    assert_eq!(abs["implements"], json!([]));

    let nf = run(
        &m,
        "get_class",
        json!({"path": "src/services/user.ts", "name": "Nope"}),
        p.path(),
    );
    assert!(
        nf.is_error && nf.text.contains("Available classes: UserService, BaseRepo"),
        "{}",
        nf.text
    );

    // Without the project's `typescript` package the tool says what to install.
    std::fs::remove_file(p.path().join("node_modules/typescript")).unwrap();
    let no_ts = run(
        &m,
        "get_class",
        json!({"path": "src/services/user.ts", "name": "UserService"}),
        p.path(),
    );
    assert!(
        no_ts.is_error && no_ts.text.contains("npm install --save-dev typescript"),
        "{}",
        no_ts.text
    );
}

#[test]
fn ipuaro_dependency_tools_answer_the_seed_fields() {
    init_path();
    let m = model("ipuaro");
    let p = ts_project();
    let d = json_answer(
        &run(
            &m,
            "get_dependencies",
            json!({"path": "src/controllers/user.ts"}),
            p.path(),
        ),
        "get_dependencies",
    );
    assert_eq!(d["path"], "src/controllers/user.ts");
    // `../services/user.js` is user.ts (TypeScript's ESM spelling); `../db` the folder's index;
    // `express` is a package, not a project file; `./missing` does not exist.
    let paths: Vec<&str> = d["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "src/services/user.ts",
            "src/types/user.ts",
            "src/config.ts",
            "src/db/index.ts",
            "src/controllers/missing"
        ]
    );
    assert_eq!(d["totalDependencies"], 5);
    let dep = |p: &str| {
        d["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["path"] == p)
            .unwrap()
            .clone()
    };
    assert_eq!(
        dep("src/db/index.ts"),
        json!({"path": "src/db/index.ts", "exists": true, "isHub": true, "isEntryPoint": true, "fileType": "source"})
    );
    assert_eq!(dep("src/types/user.ts")["fileType"], "types");
    assert_eq!(dep("src/config.ts")["fileType"], "config");
    assert_eq!(dep("src/services/user.ts")["isHub"], false);
    assert_eq!(dep("src/controllers/missing")["exists"], false);

    // Dependents: the 5 tests, the service (`../db/index`) and the controller (`../db`): a hub
    // (more than five); node_modules is not the project's.
    let r = json_answer(
        &run(&m, "get_dependents", json!({"path": "src/db/index.ts"}), p.path()),
        "get_dependents",
    );
    assert_eq!(r["isHub"], true);
    assert_eq!(r["totalDependents"], 7);
    let ds = r["dependents"].as_array().unwrap();
    assert_eq!(ds[0]["path"], "src/controllers/user.ts");
    assert!(ds.iter().filter(|x| x["fileType"] == "test").count() == 5, "{r}");
    assert!(
        !ds.iter().any(|x| x["path"].as_str().unwrap().contains("node_modules")),
        "{r}"
    );
    for x in ds {
        for k in ["path", "isHub", "isEntryPoint", "fileType"] {
            assert!(x.get(k).is_some(), "dependent without {k}: {x}");
        }
    }
    // Five or fewer is not a hub; a file nothing imports has no dependents.
    let svc = json_answer(
        &run(&m, "get_dependents", json!({"path": "src/services/user.ts"}), p.path()),
        "svc",
    );
    assert_eq!(
        (svc["isHub"].as_bool(), svc["totalDependents"].as_u64()),
        (Some(false), Some(1))
    );
    let none = json_answer(
        &run(
            &m,
            "get_dependents",
            json!({"path": "src/controllers/user.ts"}),
            p.path(),
        ),
        "none",
    );
    assert_eq!(none["dependents"], json!([]));

    let gone = run(&m, "get_dependencies", json!({"path": "src/nope.ts"}), p.path());
    assert!(
        gone.is_error && gone.text.contains("File not found: src/nope.ts"),
        "{}",
        gone.text
    );
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A small git repository: a Rust file with 15 functions, a Python file, a TypeScript file, an
/// ignored build folder; then one file changed and one untracked.
fn git_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    git(d, &["init", "-q"]);
    let mut many = String::from("use std::fs;\nuse std::io;\n\n");
    for i in 0..15 {
        many.push_str(&format!("pub fn f{i}() {{}}\n"));
    }
    write(d, "src/many.rs", &many);
    write(d, "src/lib.rs", "mod many;\npub struct Config;\n");
    write(
        d,
        "tool.py",
        "import os\n\ndef run():\n    pass\n\nclass Tool:\n    pass\n",
    );
    write(d, "web.ts", "import { x } from './x'\nexport function hi() {}\n");
    write(d, "README.md", "# scratch\n");
    write(d, ".gitignore", "target/\n");
    write(d, "target/gen.rs", "pub fn generated() {}\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "init"]);
    write(
        d,
        "tool.py",
        "import os\n\ndef run():\n    pass\n\nclass Tool:\n    pass\n\ndef more():\n    pass\n",
    );
    write(
        d,
        "new.go",
        "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n",
    );
    tmp
}

#[test]
fn git_iris_repo_map_answers_the_seed_fields() {
    init_path();
    let m = model("git-iris");
    let r = git_repo();
    let map = json_answer(&run(&m, "repo_map", json!({}), r.path()), "repo_map");
    // Source files git lists (tracked and untracked), less the ignored `target/`; README is no
    // source file.
    assert_eq!(map["files_analyzed"], 5, "{map}");
    assert_eq!(map["files_shown"], 5, "{map}");
    assert_eq!(map["changed_files"], json!(["new.go", "tool.py"]));
    assert_eq!(map["mentioned_files"], json!([]));
    let content = map["content"].as_str().unwrap();
    assert!(!content.contains("target/"), "{content}");
    // Changed files rank first; at most 12 definitions and 6 imports a file.
    assert!(
        content.starts_with("new.go [changed]\n") || content.starts_with("tool.py [changed]\n"),
        "{content}"
    );
    let many = content.split("src/many.rs").nth(1).unwrap();
    let defs = many.lines().filter(|l| l.trim_start().starts_with("pub fn f")).count();
    assert_eq!(defs, 12, "{content}");
    assert!(many.contains("imports: use std::fs; | use std::io;"), "{content}");
    assert!(content.contains("  class Tool:"), "{content}");

    // A mentioned file is boosted above the changed ones.
    let ment = json_answer(
        &run(&m, "repo_map", json!({"mentioned_files": ["web.ts"]}), r.path()),
        "mentioned",
    );
    assert_eq!(ment["mentioned_files"], json!(["web.ts"]));
    assert!(
        ment["content"].as_str().unwrap().starts_with("web.ts [mentioned]\n"),
        "{ment}"
    );

    // max_files caps the files shown; the token budget cuts the map (about 4 characters a token).
    let one = json_answer(&run(&m, "repo_map", json!({"max_files": 1}), r.path()), "max_files");
    assert_eq!(
        (one["files_analyzed"].as_u64(), one["files_shown"].as_u64()),
        (Some(5), Some(1))
    );
    // token_budget is clamped to 50..=8000, as git-iris clamps it (it was refused over 8000): 30
    // is 50 tokens, about 200 characters.
    let small = json_answer(&run(&m, "repo_map", json!({"token_budget": 30}), r.path()), "budget");
    assert!(small["content"].as_str().unwrap().len() <= 200, "{small}");
    assert!(small["files_shown"].as_u64().unwrap() < 5, "{small}");
    let over = json_answer(&run(&m, "repo_map", json!({"token_budget": 9000}), r.path()), "over");
    assert_eq!(over["files_shown"], 5, "{over}");
    // Java and zsh files are source, as git-iris's `is_source_file` has them.
    write(
        r.path(),
        "src/main/java/app/Main.java",
        "package app;\n\nimport java.util.List;\n\npublic class Main {\n}\n",
    );
    write(r.path(), "tools/env.zsh", "function setup() {\n}\n");
    let more = json_answer(&run(&m, "repo_map", json!({}), r.path()), "java");
    let content = more["content"].as_str().unwrap();
    assert!(
        content.contains("src/main/java/app/Main.java")
            && content.contains("public class Main")
            && content.contains("tools/env.zsh [changed]\n  function setup()"),
        "{more}"
    );
    std::fs::remove_dir_all(r.path().join("src/main")).unwrap();
    std::fs::remove_dir_all(r.path().join("tools")).unwrap();
    // max_files is clamped to 1..=200.
    let clamped = json_answer(&run(&m, "repo_map", json!({"max_files": 900}), r.path()), "clamped");
    assert_eq!(clamped["files_shown"], 5);

    // Outside a git repository: an error, not an empty map.
    let bare = tempfile::tempdir().unwrap();
    let no_git = run(&m, "repo_map", json!({}), bare.path());
    assert!(no_git.is_error, "{}", no_git.text);
}

// ---------------------------------------------------------------------------------------------
// Unsupported tools.

const UNSUPPORTED: [(&str, &[&str]); 2] = [
    ("ipuaro", &["get_complexity"]),
    (
        "git-iris",
        &[
            "workspace",
            "parallel_analyze",
            "analyze_subagent",
            "update_commit",
            "update_pr",
            "update_review",
        ],
    ),
];

#[test]
fn the_seed_catalogs_declare_exactly_their_unsupported_tools() {
    init_path();
    for (name, expected) in UNSUPPORTED {
        let m = model(name);
        let declared: Vec<&str> = m
            .tools
            .iter()
            .filter(|t| t.unsupported.is_some())
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(declared, expected, "{name}");
        for t in m.tools.iter().filter(|t| t.unsupported.is_some()) {
            assert!(t.spec.steps.is_empty(), "{name}: {} has steps", t.name);
            assert!(
                t.params().len() != 0,
                "{name}: {} keeps its documented parameters",
                t.name
            );
        }
        // Everything else runs: 18 tools, less the unsupported ones, in the toolset.
        assert_eq!(
            m.toolset("all", &Default::default()).len(),
            18 - expected.len(),
            "{name}"
        );
    }
}

/// A catalog with every target enabled and one unsupported tool.
const EVERY_TARGET: &str = r#"version: 1
product: {name: demo, version: 1.0.0, description: A demo, license: MIT, icon: icon.png}
cli: {binary: demo}
context:
  store: {type: path, default: .store}
  session: {type: string, format: topic-part}
store: {program: xs, path: "{store}"}
toolsets: {main: {tools: [lookup, think]}}
server: {name: demo, command: demo, args: [mcp], toolset: main}
targets:
  opencode: {toolset: main}
  session: {toolset: main, file: demo_session, context: [session]}
  mcp: {toolset: main}
  claude: {}
  cursor: {}
  vscode: {}
  gemini: {}
  codex: {}
  mcp-registry: {name: io.example/demo, distribution: [{registry: npm, identifier: demo, version: 1.0.0}]}
  rust: {toolset: main}
tools:
  - name: lookup
    description: Look a symbol up
    params: {symbol: {type: string, required: true}}
    steps:
      - run: [lookup, "{symbol}"]
  - name: think
    description: Think hard about a question
    unsupported: "needs the host's LLM"
    params: {question: {type: string, required: true}}
"#;

fn every_target_catalog() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), EVERY_TARGET).unwrap();
    std::fs::copy(support::root().join("catalog/ix-icon.png"), tmp.path().join("icon.png")).expect("the ix icon");
    tmp
}

fn ixgen_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(IXGEN)
        .env("NO_COLOR", "1")
        .current_dir(dir)
        .args(["--catalog", "catalog.yaml"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn every_target_leaves_an_unsupported_tool_out_and_warns_once() {
    init_path();
    let tmp = every_target_catalog();
    let d = tmp.path();
    let mut targets: Vec<&str> = ixgen::hosts::names();
    targets.sort();
    assert_eq!(targets.len(), 10);
    for target in targets {
        let out = d.join(format!("out-{target}"));
        let mut args = vec!["--out", out.to_str().unwrap(), "generate", target];
        if target == "session" {
            args.extend(["--session", "s1"]);
        }
        let o = ixgen_in(d, &args);
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{target}: {stderr}");
        let warning = "tool `think` is left out of every target and of `ixgen serve`: needs the host's LLM";
        assert_eq!(stderr.matches(warning).count(), 1, "{target}: one warning:\n{stderr}");
        assert_eq!(stderr.matches("unsupported-tool").count(), 1, "{target}:\n{stderr}");
        if target == "mcp" {
            // What the user sees, whole (the other targets print the same).
            insta::assert_snapshot!("unsupported_tool_warning", stderr);
        }
        let files = support::tree(&out);
        assert!(!files.is_empty(), "{target} wrote nothing");
        for (path, bytes) in &files {
            // ixgen's own run record keeps the warnings it replays.
            if path.starts_with(".ixgen/") {
                continue;
            }
            let text = String::from_utf8_lossy(bytes);
            assert!(
                !text.contains("think") && !text.contains("Think hard"),
                "{target}: {path} mentions the unsupported tool:\n{text}"
            );
        }
        // A second run is replayed from the run record: the same warning again.
        let again = ixgen_in(d, &args);
        let stderr = String::from_utf8_lossy(&again.stderr);
        assert_eq!(stderr.matches(warning).count(), 1, "{target} (replayed):\n{stderr}");
    }
    // The tool that runs is in them: the check above can fail.
    let mcp = std::fs::read_to_string(d.join("out-mcp/mcp/tools.json")).unwrap();
    assert!(mcp.contains("\"lookup\""), "{mcp}");
}

#[test]
fn list_shows_an_unsupported_tool_with_its_reason() {
    init_path();
    let tmp = every_target_catalog();
    let o = ixgen_in(tmp.path(), &["list"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let row = stdout
        .lines()
        .find(|l| l.starts_with("think "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(row.ends_with("unsupported: needs the host's LLM"), "{row}");
    let o = ixgen_in(tmp.path(), &["list", "--format", "json", "--toolset", "main"]);
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows[1]["name"], "think");
    assert_eq!(rows[1]["unsupported"], "needs the host's LLM");
    assert_eq!(rows[1]["ids"], json!({}));
    assert!(rows[0].get("unsupported").is_none(), "{}", rows[0]);
    assert_eq!(rows[0]["ids"]["mcp"], "lookup");
}

#[test]
fn serve_leaves_an_unsupported_tool_out_and_warns() {
    init_path();
    let tmp = every_target_catalog();
    let mut child = Command::new(IXGEN)
        .current_dir(tmp.path())
        .args(["serve", "--catalog", "catalog.yaml"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::{BufRead, Write};
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let mut read = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    assert!(read()["result"]["serverInfo"].is_object());
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = read();
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["lookup"], "{list}");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "think", "arguments": {"question": "q"}}}),
    );
    let call = read();
    assert!(
        call.get("error").is_some() || call["result"]["isError"] == true,
        "{call}"
    );
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .matches("tool `think` is left out of every target and of `ixgen serve`: needs the host's LLM")
            .count(),
        1,
        "{stderr}"
    );
}

#[test]
fn diff_reports_a_tool_becoming_unsupported_as_a_removal_from_its_surfaces() {
    init_path();
    let tmp = every_target_catalog();
    let d = tmp.path();
    let old = EVERY_TARGET.replace(
        "    unsupported: \"needs the host's LLM\"\n",
        "    steps:\n      - run: [think, \"{question}\"]\n",
    );
    std::fs::write(d.join("old.yaml"), old).unwrap();
    let o = ixgen_in(d, &["diff", "--against", "old.yaml", "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let text = report.to_string();
    assert_eq!(
        o.status.code(),
        Some(1),
        "a breaking change without a major bump: {text}"
    );
    let findings = report["findings"].as_array().unwrap_or_else(|| panic!("{text}"));
    let on_think: Vec<&Value> = findings.iter().filter(|f| f["tool"] == "think").collect();
    assert_eq!(on_think.len(), 1, "one finding: {on_think:#?}");
    assert_eq!(on_think[0]["rule"], "toolset-member-removed", "{text}");
    assert_eq!(on_think[0]["class"], "breaking", "{text}");
    let message = on_think[0]["message"].as_str().unwrap();
    assert!(
        message.contains("it is now `unsupported` (needs the host's LLM)"),
        "{message}"
    );
    // And back: supported again is a compatible addition to the surfaces.
    std::fs::write(d.join("old.yaml"), EVERY_TARGET).unwrap();
    let back = EVERY_TARGET.replace(
        "    unsupported: \"needs the host's LLM\"\n",
        "    steps:\n      - run: [think, \"{question}\"]\n",
    );
    std::fs::write(d.join("catalog.yaml"), back).unwrap();
    let o = ixgen_in(d, &["diff", "--against", "old.yaml", "--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let on_think: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["tool"] == "think")
        .collect();
    assert_eq!(on_think.len(), 1, "{report}");
    assert_eq!(on_think[0]["rule"], "toolset-member-added", "{report}");
}

// ---------------------------------------------------------------------------------------------
// Every other tool of both seed catalogs, through the Rust runtime.

/// Runs a tool whose `confirm` asks: the user allows it, and the subject asked about is kept.
fn run_allowed(m: &Model, tool: &str, args: Value, dir: &Path) -> (ixgen_runtime::Answer, Vec<String>) {
    let (a, asked) = run_answering(m, tool, args, dir, true);
    (a, asked.into_iter().map(|a| a.subject).collect())
}

/// Runs a tool whose `confirm` asks, answering `allow`: what the user was asked (the subject and
/// the preview shown with it) is kept.
fn run_answering(
    m: &Model,
    tool: &str,
    args: Value,
    dir: &Path,
    allow: bool,
) -> (ixgen_runtime::Answer, Vec<ixgen_runtime::Ask>) {
    let asked = std::sync::Mutex::new(Vec::new());
    let ask = |a: &ixgen_runtime::Ask| {
        asked.lock().unwrap().push(a.clone());
        if allow {
            Ok(())
        } else {
            Err("the user declined".to_string())
        }
    };
    let t = m.tool(tool).unwrap();
    let ctx = ixgen_runtime::Ctx {
        cwd: Some(dir),
        ask: Some(&ask),
        cancel: None,
    };
    let a = ixgen_runtime::run_tool(&t.spec, &serde_json::Map::new(), &args, &ctx, &m.shared);
    (a, asked.into_inner().unwrap())
}

fn git_out(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn text_of(a: &ixgen_runtime::Answer, what: &str) -> String {
    assert!(!a.is_error, "{what} failed:\n{}", a.text);
    a.text.clone()
}

#[test]
fn every_other_ipuaro_tool_answers_as_its_seed_says() {
    init_path();
    let m = model("ipuaro");
    let p = ts_project();
    let d = p.path();
    write(
        d,
        "src/todo.ts",
        "// TODO: rate limit\n/* FIXME: leak */\nconst password: string = 'x'\n# NOTE: hash style\n",
    );
    git(d, &["init", "-q"]);
    write(d, ".gitignore", "node_modules/\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "init"]);

    // get_lines: cat -n style, a range, and `end < start` refused.
    let lines = text_of(
        &run(&m, "get_lines", json!({"path": "src/todo.ts", "start": 2, "end": 3}), d),
        "get_lines",
    );
    assert!(
        lines.ends_with("2\t/* FIXME: leak */\n3\tconst password: string = 'x'"),
        "{lines}"
    );
    let bad = run(&m, "get_lines", json!({"path": "src/todo.ts", "start": 3, "end": 2}), d);
    assert!(
        bad.text
            .contains("**Invalid arguments:** `end` must be at least `start`"),
        "{}",
        bad.text
    );
    // get_structure: the tree without node_modules and .git, depth-limited.
    let tree = text_of(&run(&m, "get_structure", json!({"depth": 1}), d), "get_structure");
    assert!(tree.contains("./src") && tree.contains("./tests"), "{tree}");
    assert!(
        !tree.contains("node_modules") && !tree.contains(".git/") && !tree.contains("./src/db"),
        "{tree}"
    );
    // find_references: whole-word, with context; no match is an answer.
    let refs = text_of(
        &run(&m, "find_references", json!({"symbol": "Database"}), d),
        "find_references",
    );
    assert!(refs.contains("src/db/index.ts:1:export class Database"), "{refs}");
    assert!(refs.contains("tests/t1.test.ts:1:"), "{refs}");
    let none = text_of(&run(&m, "find_references", json!({"symbol": "Nowhere"}), d), "none");
    assert!(none.ends_with("No references to `Nowhere`."), "{none}");
    // find_definition: the declaration, by kind of declaration.
    let def = text_of(
        &run(&m, "find_definition", json!({"symbol": "UserService"}), d),
        "find_definition",
    );
    assert!(def.contains("src/services/user.ts:5:export class UserService"), "{def}");
    let bad = run(&m, "find_definition", json!({"symbol": "a b"}), d);
    assert!(bad.text.contains("**Invalid arguments:**"), "{}", bad.text);
    // get_todos: every type, and one type case-insensitively.
    let todos = text_of(&run(&m, "get_todos", json!({}), d), "get_todos");
    assert!(
        todos.contains("src/todo.ts:1:") && todos.contains("src/todo.ts:2:") && todos.contains("src/todo.ts:4:"),
        "{todos}"
    );
    // The seed's summary: the total and the count by type.
    assert!(
        todos.contains("**TODO comments** (3)") && todos.contains("| FIXME | 1 |") && todos.contains("| NOTE | 1 |"),
        "{todos}"
    );
    let fixme = text_of(&run(&m, "get_todos", json!({"type": "FIXME"}), d), "FIXME");
    assert!(
        fixme.contains("src/todo.ts:2:") && !fixme.contains("src/todo.ts:1:"),
        "{fixme}"
    );

    // The edit tools ask first (the subject says what), then do it. edit_lines shows the diff the
    // edit will make (seed: "Generates diff preview"); refused, the file is left as it was.
    let before = std::fs::read_to_string(d.join("src/todo.ts")).unwrap();
    let (refused, asked) = run_answering(
        &m,
        "edit_lines",
        json!({"path": "src/todo.ts", "start": 3, "end": 3, "content": "const password = 'y'"}),
        d,
        false,
    );
    assert!(refused.is_error, "{}", refused.text);
    assert!(
        refused
            .text
            .ends_with("**Not run:** permission for `edit src/todo.ts lines 3-3` was refused (the user declined)."),
        "{}",
        refused.text
    );
    assert_eq!(asked.len(), 1);
    let preview = asked[0].preview.clone().unwrap_or_default();
    assert!(
        preview.contains("-const password: string = 'x'\n+const password = 'y'\n"),
        "{preview}"
    );
    assert_eq!(std::fs::read_to_string(d.join("src/todo.ts")).unwrap(), before);
    let (edited, asked) = run_answering(
        &m,
        "edit_lines",
        json!({"path": "src/todo.ts", "start": 1, "end": 2, "content": ""}),
        d,
        true,
    );
    assert!(!edited.is_error, "{}", edited.text);
    assert_eq!(asked[0].subject, "edit src/todo.ts lines 1-2");
    assert_eq!(
        asked[0].preview.as_deref(),
        Some(
            "--- a/src/todo.ts\n+++ b/src/todo.ts\n@@ -1,4 +1,2 @@\n-// TODO: rate limit\n-/* FIXME: leak */\n const password: string = 'x'\n # NOTE: hash style\n"
        )
    );
    let now = std::fs::read_to_string(d.join("src/todo.ts")).unwrap();
    assert_eq!(now, "const password: string = 'x'\n# NOTE: hash style\n");
    // A range past the end: the preview fails, so nobody is asked and the file is untouched.
    let (past, asked) = run_answering(
        &m,
        "edit_lines",
        json!({"path": "src/todo.ts", "start": 9, "end": 9, "content": "x"}),
        d,
        true,
    );
    assert!(
        past.is_error && past.text.contains("the file has only 2 lines"),
        "{}",
        past.text
    );
    assert!(asked.is_empty(), "{asked:?}");
    assert_eq!(std::fs::read_to_string(d.join("src/todo.ts")).unwrap(), now);
    // create_file shows the content it will write; delete_file the file's first lines.
    let (created, asked) = run_answering(
        &m,
        "create_file",
        json!({"path": "src/new/a.ts", "content": "export const a = 1\n"}),
        d,
        true,
    );
    assert!(created.text.contains("Created src/new/a.ts"), "{}", created.text);
    assert_eq!(asked[0].subject, "create src/new/a.ts");
    assert_eq!(asked[0].preview.as_deref(), Some("export const a = 1\n"));
    let (again, _) = run_allowed(&m, "create_file", json!({"path": "src/new/a.ts", "content": "x"}), d);
    assert!(
        again.is_error && again.text.contains("src/new/a.ts already exists"),
        "{}",
        again.text
    );
    // Without a way to ask, a confirming tool does not run.
    let unasked = run(&m, "delete_file", json!({"path": "src/new/a.ts"}), d);
    assert!(d.join("src/new/a.ts").exists(), "{}", unasked.text);
    let (kept, asked) = run_answering(&m, "delete_file", json!({"path": "src/new/a.ts"}), d, false);
    assert!(kept.is_error && d.join("src/new/a.ts").exists(), "{}", kept.text);
    assert_eq!(asked[0].preview.as_deref(), Some("export const a = 1\n"));
    let (deleted, _) = run_allowed(&m, "delete_file", json!({"path": "src/new/a.ts"}), d);
    assert!(deleted.text.ends_with("Deleted `src/new/a.ts`."), "{}", deleted.text);
    assert!(!d.join("src/new/a.ts").exists());
    let (gone, asked) = run_answering(&m, "delete_file", json!({"path": "src/new/a.ts"}), d, true);
    assert!(gone.is_error && asked.is_empty(), "{}", gone.text);

    // Git: status, diff of the edit, and a commit of the given files with a multi-line message.
    let status = text_of(&run(&m, "git_status", json!({}), d), "git_status");
    assert!(status.contains(" M src/todo.ts"), "{status}");
    let diff = text_of(&run(&m, "git_diff", json!({"path": "src/todo.ts"}), d), "git_diff");
    assert!(
        diff.contains("-// TODO: rate limit") && diff.contains("src/todo.ts | 2 --"),
        "{diff}"
    );
    // git_commit shows the message and the files the commit will include (seed: "Shows summary of
    // what will be committed"): the staged ones and the ones it stages. Refused, nothing is staged.
    write(d, "src/extra.ts", "export const extra = 1\n");
    git(d, &["add", "src/extra.ts"]);
    let head = git_out(d, &["rev-parse", "HEAD"]);
    let args = json!({"message": "fix: todo\n\nbody", "files": ["src/todo.ts"]});
    let (no, asked) = run_answering(&m, "git_commit", args.clone(), d, false);
    assert!(no.is_error, "{}", no.text);
    let want = "fix: todo\n\nbody\n\nFiles (2):\n- src/extra.ts\n- src/todo.ts";
    assert_eq!(asked[0].preview.as_deref(), Some(want));
    assert_eq!(git_out(d, &["diff", "--cached", "--name-only"]), "src/extra.ts\n");
    assert_eq!(git_out(d, &["rev-parse", "HEAD"]), head);
    let (commit, asked) = run_answering(&m, "git_commit", args, d, true);
    assert!(!commit.is_error, "{}", commit.text);
    assert_eq!(asked[0].subject, "commit: fix: todo\n\nbody");
    assert_eq!(asked[0].preview.as_deref(), Some(want));
    assert_eq!(
        git_out(d, &["show", "--name-only", "--format=", "HEAD"]),
        "src/extra.ts\nsrc/todo.ts\n"
    );
    let log = Command::new("git")
        .args(["log", "-1", "--format=%B"])
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout).trim_end(), "fix: todo\n\nbody");

    // run_command: an allow-listed command runs without asking; a denied one never runs.
    let (echo, asked) = run_allowed(&m, "run_command", json!({"command": "node -e 'console.log(6*7)'"}), d);
    assert!(echo.text.contains("42"), "{}", echo.text);
    assert!(asked.is_empty(), "{asked:?}");
    let (denied, _) = run_allowed(&m, "run_command", json!({"command": "sudo rm -rf /tmp/x"}), d);
    assert!(denied.is_error, "{}", denied.text);
    // run_tests: `npm test` with the path and filter; the project's script echoes what it got.
    write(
        d,
        "package.json",
        r#"{"name": "scratch", "scripts": {"test": "node -e \"console.log('ran:', process.argv.slice(1).join(' '))\""}}"#,
    );
    let tests = text_of(
        &run(
            &m,
            "run_tests",
            json!({"path": "tests/t1.test.ts", "filter": "login"}),
            d,
        ),
        "run_tests",
    );
    assert!(tests.contains("ran: tests/t1.test.ts -t login"), "{tests}");
}

/// git_log answers as git-iris 2.1.0's does: each commit's full hash, subject and author; a range
/// oldest first, and its contributors by name (no e-mail address), each once, sorted, bots left
/// out (`is_bot_author`). Before, the author was missing, a range came newest first, and the
/// contributors were `git shortlog`'s counts with e-mail addresses and bots.
#[test]
fn git_log_answers_as_git_iris_does() {
    init_path();
    let m = model("git-iris");
    let r = tempfile::tempdir().unwrap();
    let d = r.path();
    git(d, &["init", "-q"]);
    // No commit yet: an answer, as git-iris's empty list (`git log` fails there).
    let empty = run(&m, "git_log", json!({}), d);
    assert!(
        !empty.is_error && empty.text.ends_with("No commits yet."),
        "{}",
        empty.text
    );
    let commit = |who: &str, msg: &str| {
        write(d, "f.txt", msg);
        git(d, &["add", "f.txt"]);
        let author = format!("{who} <{}@example.com>", who.replace(' ', "."));
        git(d, &["commit", "-qm", msg, "--author", &author]);
    };
    commit("Zoe", "first");
    git(d, &["tag", "v1"]);
    commit("Bob Smith", "second");
    commit("dependabot[bot]", "bump deps");
    commit("Alice Dev", "third");
    commit("Bob Smith", "fourth");
    let hash = |rev: &str| git_out(d, &["rev-parse", rev]).trim().to_string();

    let recent = text_of(&run(&m, "git_log", json!({"count": 2}), d), "recent");
    let expected = format!(
        "**Recent commits** (2):\n\n- {}: fourth (Bob Smith)\n- {}: third (Alice Dev)",
        hash("HEAD"),
        hash("HEAD~1")
    );
    assert!(recent.contains(&expected), "{recent}");

    let ranged = text_of(&run(&m, "git_log", json!({"from": "v1", "to": "HEAD"}), d), "range");
    let subjects: Vec<&str> = ranged
        .lines()
        .filter_map(|l| l.strip_prefix("- ")?.split_once(": ").map(|(_, rest)| rest))
        .collect();
    assert_eq!(
        subjects,
        [
            "second (Bob Smith)",
            "bump deps (dependabot\\[bot\\])",
            "third (Alice Dev)",
            "fourth (Bob Smith)"
        ],
        "{ranged}"
    );
    assert!(
        ranged.contains("**Contributors (excluding bots)** (2):\n\n- Alice Dev\n- Bob Smith")
            && !ranged.contains("example.com"),
        "{ranged}"
    );
    // A range with only bots has no contributors section.
    let bots = text_of(
        &run(&m, "git_log", json!({"from": "HEAD~3", "to": "HEAD~2"}), d),
        "bots",
    );
    assert!(bots.contains("bump deps") && !bots.contains("Contributors"), "{bots}");
}

/// project_docs answers as git-iris 2.1.0's does: the first of a type's files in the root that
/// exists, a link followed while it stays in the repository; `all`'s several; each cut at
/// `max_chars` characters (not bytes) with a notice; `codeofconduct` as git-iris spells it. Before,
/// a linked README and a CHANGES.md were "not found", a nested package's AGENTS.md was the
/// project's, and `max_chars: 5` cut `é` in half without saying so.
#[test]
fn project_docs_answers_as_git_iris_does() {
    init_path();
    let m = model("git-iris");
    let r = tempfile::tempdir().unwrap();
    let d = r.path();
    git(d, &["init", "-q"]);
    write(d, "docs/README.md", "# Real readme\n");
    std::os::unix::fs::symlink("docs/README.md", d.join("README.md")).unwrap();
    write(d, "CHANGES.md", &"é".repeat(8));
    write(d, "CLAUDE.md", "Root instructions\n");
    write(d, "pkg/sub/AGENTS.md", "A package's own\n");
    write(d, "CODE_OF_CONDUCT.md", "Be kind.\n");
    let docs = |args: Value| text_of(&run(&m, "project_docs", args, d), "project_docs");

    assert!(docs(json!({})).ends_with("=== README.md ===\n# Real readme"));
    assert!(
        docs(json!({"doc_type": "changelog", "max_chars": 5}))
            .ends_with("=== CHANGES.md ===\nééééé\n\n[... truncated, 3 more chars ...]")
    );
    let agents = docs(json!({"doc_type": "agents"}));
    assert!(
        agents.ends_with("=== CLAUDE.md ===\nRoot instructions") && !agents.contains("package"),
        "{agents}"
    );
    assert!(docs(json!({"doc_type": "codeofconduct"})).ends_with("=== CODE_OF_CONDUCT.md ===\nBe kind."));
    let all = docs(json!({"doc_type": "all"}));
    let shown: Vec<&str> = all.lines().filter(|l| l.starts_with("=== ")).collect();
    assert_eq!(
        shown,
        ["=== README.md ===", "=== CLAUDE.md ===", "=== CODE_OF_CONDUCT.md ==="],
        "{all}"
    );
    // A link out of the repository is not followed (git-iris: "escapes repository boundaries").
    std::fs::remove_file(d.join("README.md")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", d.join("README.md")).unwrap();
    assert!(docs(json!({})).ends_with("No Readme documentation found in project root."));
    std::fs::remove_file(d.join("CONTRIBUTING.md")).ok();
    assert!(
        docs(json!({"doc_type": "contributing"})).ends_with("No Contributing documentation found in project root.")
    );
}

#[test]
fn every_other_git_iris_tool_answers_as_its_seed_says() {
    init_path();
    let m = model("git-iris");
    let r = git_repo();
    let d = r.path();
    git(d, &["tag", "v1"]);
    write(d, "README.md", "# scratch\n\nA demo.\n");
    write(d, "CHANGELOG.md", "## 1.0\n");
    git(d, &["add", "README.md", "CHANGELOG.md"]);
    git(d, &["commit", "-qm", "docs"]);
    git(d, &["add", "tool.py"]);

    let status = text_of(&run(&m, "git_status", json!({}), d), "git_status");
    assert!(
        status.contains("**Staged**\n\nM\ttool.py") && !status.contains("new.go"),
        "{status}"
    );
    let all = text_of(&run(&m, "git_status", json!({"include_unstaged": true}), d), "unstaged");
    assert!(all.contains("?? new.go"), "{all}");
    // A user's `color.ui = always` puts no terminal escapes in an answer, and a name is written as
    // it is (git quotes `café.txt` as "caf\303\251.txt" by default), as git-iris answers.
    git(d, &["config", "color.ui", "always"]);
    write(d, "café.txt", "x\n");
    let shown = text_of(&run(&m, "git_status", json!({"include_unstaged": true}), d), "colored");
    assert!(shown.contains("?? café.txt") && !shown.contains('\u{1b}'), "{shown:?}");
    std::fs::remove_file(d.join("café.txt")).unwrap();
    git(d, &["config", "--unset", "color.ui"]);
    let diff = text_of(&run(&m, "git_diff", json!({}), d), "git_diff");
    assert!(diff.contains("tool.py | 3 +++") && !diff.contains("@@"), "{diff}");
    // `from: "staged"` is the staged changes, as git-iris reads it (it was `staged..HEAD`, an error).
    let staged = text_of(&run(&m, "git_diff", json!({"from": "staged"}), d), "staged");
    assert_eq!(staged, diff);
    let patch = text_of(&run(&m, "git_diff", json!({"detail": "standard"}), d), "standard");
    assert!(patch.contains("+def more():"), "{patch}");
    // With `files`, an empty diff says that none of the changes touches those paths: it said
    // "No staged changes." while tool.py was staged.
    let elsewhere = text_of(&run(&m, "git_diff", json!({"files": ["README.md"]}), d), "elsewhere");
    assert!(
        elsewhere.ends_with("No staged change touches the paths given."),
        "{elsewhere}"
    );
    let only_tool = text_of(&run(&m, "git_diff", json!({"files": ["tool.py"]}), d), "only_tool");
    assert_eq!(only_tool, diff);
    // A lock file's and a minified file's changes are listed, their contents left out, as
    // git-iris leaves them out (they were most of a dependency bump's answer).
    write(d, "Cargo.lock", &"# lock line\n".repeat(50));
    write(d, "web/app.min.js", "var a=1;\n");
    git(d, &["add", "Cargo.lock", "web/app.min.js"]);
    let bump = text_of(&run(&m, "git_diff", json!({"detail": "standard"}), d), "bump");
    assert!(
        bump.contains("Cargo.lock") && bump.contains("app.min.js") && bump.contains("+def more():"),
        "{bump}"
    );
    assert!(!bump.contains("+# lock line") && !bump.contains("+var a=1;"), "{bump}");
    let only = text_of(
        &run(
            &m,
            "git_diff",
            json!({"detail": "standard", "files": ["Cargo.lock"]}),
            d,
        ),
        "only",
    );
    assert!(
        only.ends_with("Only files whose content git-iris leaves out changed (lock files, logs, build output)."),
        "{only}"
    );
    git(d, &["rm", "-q", "--cached", "Cargo.lock", "web/app.min.js"]);
    std::fs::remove_file(d.join("Cargo.lock")).unwrap();
    std::fs::remove_dir_all(d.join("web")).unwrap();
    let range = text_of(&run(&m, "git_diff", json!({"from": "v1"}), d), "range");
    assert!(range.contains("README.md") && range.contains("CHANGELOG.md"), "{range}");
    let untouched = text_of(
        &run(&m, "git_diff", json!({"from": "v1", "files": ["tool.py"]}), d),
        "untouched",
    );
    assert!(
        untouched.ends_with("No change between `v1` and `HEAD` touches the paths given."),
        "{untouched}"
    );
    let to_alone = run(&m, "git_diff", json!({"to": "v1"}), d);
    assert!(to_alone.text.contains("**Invalid arguments:**"), "{}", to_alone.text);
    let log = text_of(&run(&m, "git_log", json!({"count": 1}), d), "git_log");
    assert!(log.contains(": docs (T)") && !log.contains(" init"), "{log}");
    let ranged = text_of(&run(&m, "git_log", json!({"from": "v1"}), d), "ranged");
    assert!(
        ranged.contains("**Commits from v1 to HEAD** (1)") && ranged.ends_with("\n- T"),
        "{ranged}"
    );
    let show = text_of(&run(&m, "git_show", json!({"commit": "v1"}), d), "git_show");
    assert!(show.contains("init") && show.contains("src/many.rs"), "{show}");
    let nope = run(&m, "git_show", json!({"commit": "nope"}), d);
    assert!(nope.is_error, "{}", nope.text);
    let changed = text_of(&run(&m, "git_changed_files", json!({"to": "HEAD"}), d), "changed");
    assert!(
        changed.contains("A\tCHANGELOG.md") && changed.contains("M\tREADME.md"),
        "{changed}"
    );
    // A merge commit's files: what it brought against its first parent, as git-iris lists them.
    let merged = git_repo();
    let md = merged.path();
    git(md, &["checkout", "-qb", "feature"]);
    write(md, "feature.py", "x = 1\n");
    git(md, &["add", "feature.py"]);
    git(md, &["commit", "-qm", "feature"]);
    git(md, &["checkout", "-q", "-"]);
    git(md, &["merge", "-q", "--no-ff", "-m", "merge", "feature"]);
    let call = text_of(&run(&m, "git_changed_files", json!({"to": "HEAD"}), md), "merge");
    assert!(call.contains("A\tfeature.py"), "{call}");
    let from_alone = run(&m, "git_changed_files", json!({"from": "v1"}), d);
    assert!(
        from_alone.text.contains("file listing needs a complete range"),
        "{}",
        from_alone.text
    );
    let blame = text_of(
        &run(&m, "git_blame", json!({"file": "src/lib.rs", "start_line": 2}), d),
        "git_blame",
    );
    // As git-iris writes it: the line, the commit blamed for it, the file's recent commits.
    let head = git_out(d, &["rev-parse", "v1"]);
    let expected = format!(
        "Git blame for src/lib.rs:2-2\n\nCode:\n   2 | pub struct Config;\n\nBlame commits:\n- {}: init (T, ",
        &head[..8]
    );
    assert!(blame.contains(&expected), "{blame}");
    assert!(blame.contains("\n\nRecent commits touching this file:\n- "), "{blame}");
    // git-iris clamps where it can: a start past the file's end is said, not refused; 0 is 1; an
    // end before the start is the start.
    let past = text_of(
        &run(&m, "git_blame", json!({"file": "src/lib.rs", "start_line": 50}), d),
        "past",
    );
    assert!(
        past.contains("Code:\n<line range outside file: src/lib.rs>\n\nBlame commits:\n- No blame data found"),
        "{past}"
    );
    let zero = text_of(
        &run(&m, "git_blame", json!({"file": "src/lib.rs", "start_line": 0}), d),
        "zero",
    );
    assert!(zero.contains("src/lib.rs:1-1\n\nCode:\n   1 | mod many;"), "{zero}");
    let back = text_of(
        &run(
            &m,
            "git_blame",
            json!({"file": "src/lib.rs", "start_line": 2, "end_line": 1}),
            d,
        ),
        "back",
    );
    assert!(back.contains("src/lib.rs:2-2\n"), "{back}");
    let read = text_of(
        &run(
            &m,
            "file_read",
            json!({"path": "tool.py", "start_line": 3, "num_lines": 2}),
            d,
        ),
        "file_read",
    );
    // As git-iris 2.1.0's file_read (src/agents/tools/file_read.rs) answers: numbered lines,
    // where they are in the file, and where to go on.
    assert_eq!(
        read,
        "## file_read: tool.py\n\n=== tool.py (10 total lines) ===\nShowing lines 3-4 of 10\n\n     3\u{2502} def run():\n     4\u{2502}     pass\n\n... 6 more lines (use start_line=5 to continue)\n"
    );
    let listing = text_of(&run(&m, "file_read", json!({"path": "src"}), d), "file_read src");
    assert!(
        listing.contains("=== src is a directory ===\n\nContents:\n\n  \u{1F4C4} lib.rs  (29 B)\n"),
        "{listing}"
    );
    write(d, "blob.dat", "a\0b");
    let blob = text_of(&run(&m, "file_read", json!({"path": "blob.dat"}), d), "file_read blob");
    assert!(
        blob.ends_with("[Binary file detected: blob.dat - content not displayed]"),
        "{blob}"
    );
    // code_search answers git-iris's JSON: one result per file, its last match's line, the
    // matches and their context (-A 3 -B 1) as git-iris's parser reads rg's lines.
    let search = |args: Value| json_answer(&run(&m, "code_search", args, d), "code_search");
    let run_fn = search(json!({"query": "run", "search_type": "function"}));
    assert_eq!(
        (
            &run_fn["results"][0]["file_path"],
            &run_fn["results"][0]["line_number"],
            &run_fn["total_found"]
        ),
        (&json!("tool.py"), &json!(3), &json!(1)),
        "{run_fn}"
    );
    assert!(
        run_fn["results"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("def run():"),
        "{run_fn}"
    );
    let class = search(json!({"query": "Config", "search_type": "class"}));
    assert_eq!(
        class["results"][0],
        json!({"file_path": "src/lib.rs", "line_number": 2, "content": "pub struct Config;", "match_type": "class", "context_lines": 1}),
        "{class}"
    );
    // The name is escaped into the pattern, as git-iris's regex::escape does: `run(` is a name,
    // and `x|.` matches no line.
    let call = search(json!({"query": "run(", "search_type": "function"}));
    assert_eq!(call["results"][0]["line_number"], 3, "{call}");
    let any = search(json!({"query": "x|.", "search_type": "function"}));
    assert_eq!((&any["results"], &any["total_found"]), (&json!([]), &json!(0)), "{any}");
    // A variable is declared or assigned (git-iris's `X\s*=`, which `==` matches too).
    write(d, "conf.py", "count = 0\nif count == 1: pass\n");
    let var = search(json!({"query": "count", "search_type": "variable"}));
    assert_eq!(
        var["results"],
        json!([{"file_path": "conf.py", "line_number": 2, "content": "count = 0\nif count == 1: pass",
            "match_type": "variable", "context_lines": 2}]),
        "{var}"
    );
    // A query that starts with `-` is searched for, not read as an option of rg's.
    write(d, "flags.txt", "use -n here\n");
    let dash = search(json!({"query": "-N"}));
    assert_eq!(dash["results"][0]["file_path"], "flags.txt", "{dash}");
    let docs = text_of(&run(&m, "project_docs", json!({}), d), "project_docs");
    assert!(docs.contains("# scratch\n\nA demo."), "{docs}");
    let cl = text_of(
        &run(&m, "project_docs", json!({"doc_type": "changelog", "max_chars": 4}), d),
        "changelog",
    );
    assert!(
        cl.ends_with("=== CHANGELOG.md ===\n## 1\n\n[... truncated, 3 more chars ...]"),
        "max_chars per file: {cl}"
    );
    let info = text_of(&run(&m, "git_repo_info", json!({}), d), "git_repo_info");
    assert!(
        info.contains("(no origin remote)") && info.contains("**Commit count**\n\n2"),
        "{info}"
    );
    // static_analysis on a Rust crate: cargo clippy is what runs (`analyzer: rust`, no detection).
    write(
        d,
        "Cargo.toml",
        "[package]\nname = \"scratch\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n",
    );
    write(d, "src/lib.rs", "pub fn same(x: i32) -> bool {\n    x == x\n}\n");
    let lint = run(
        &m,
        "static_analysis",
        json!({"analyzer": "rust", "timeout_secs": 300}),
        d,
    );
    // clippy's finding (an error lint: exit 101, which is an answer) is the section.
    assert!(!lint.is_error, "{}", lint.text);
    assert!(
        lint.text.contains("**cargo clippy (Cargo.toml)**")
            && lint
                .text
                .contains("src/lib.rs:2:5: error: equal expressions as operands to `==`"),
        "{}",
        lint.text
    );
}

// ---------------------------------------------------------------------------------------------
// An analyzer that is not installed: `when_missing`.

/// Calls one tool of a catalog through `ixgen serve` (stdio, raw JSON-RPC) started with this
/// `PATH`: which programs are installed is the server's own environment, as for a user.
fn serve_call(catalog: &Path, tool: &str, args: Value, dir: &Path, path: &str) -> (String, bool) {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(IXGEN)
        .args(["serve", "--catalog"])
        .arg(catalog)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("ixgen serve starts");
    let mut stdin = child.stdin.take().unwrap();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "seed-tools", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": args}}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answer = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["id"] == 2 {
            answer = Some(v);
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let v = answer.expect("the call's answer");
    let text = v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (text, v["result"]["isError"] == json!(true))
}

/// `PATH` without the folders that hold any of `programs`, plus `extra` first when given.
fn path_without(programs: &[&str], extra: Option<&Path>) -> String {
    let kept = support::path_without(programs);
    match extra {
        Some(e) => format!("{}:{kept}", e.display()),
        None => kept,
    }
}

/// A shell script named `name` in `dir` that prints `out` (no single quote in it) and exits `code`.
fn fake_program(dir: &Path, name: &str, out: &str, code: i32) {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\nprintf '%s\\n' '{out}'\nexit {code}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// git-iris's `static_analysis` on a machine missing an analyzer: each analyzer runs the first of
/// git-iris's programs that is installed (biome, else oxlint; golangci-lint, else go vet), else
/// says none is; the other analyzers still run, and the tool does not fail. `auto` finds the
/// project files whether git tracks them or not (git-iris checks that they exist): before, an
/// untracked Cargo.toml or pyproject.toml selected nothing.
#[test]
fn static_analysis_runs_the_next_analyzer_or_says_which_is_missing() {
    init_path();
    let catalog = catalog_path("git-iris");
    let work = tempfile::tempdir().unwrap();
    let d = work.path();
    git(d, &["init", "-q"]);
    write(d, "pyproject.toml", "[project]\nname = \"demo\"\n");
    write(d, "package.json", "{\"name\": \"demo\"}\n");
    write(d, "demo.py", "import os\n");
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let analyzers = ["ruff", "biome", "oxlint", "golangci-lint", "go"];

    // None of them: a note per analyzer the project asks for, and no failure.
    let none = path_without(&analyzers, None);
    let (text, is_error) = serve_call(&catalog, "static_analysis", json!({}), d, &none);
    assert!(!is_error, "{text}");
    assert!(
        text.contains("./package.json") && text.contains("./pyproject.toml"),
        "untracked project files select their analyzers: {text}"
    );
    assert!(
        text.contains("**ruff check (Python project files)**\n\nruff is not installed here: no Python analysis ran.")
            && text.contains(
                "**JavaScript/TypeScript (package.json)**\n\nbiome and oxlint are not installed here: no JavaScript analysis ran."
            ),
        "{text}"
    );
    assert!(
        !text.contains("No installed analyzer"),
        "the fallback answered:\n{text}"
    );

    // oxlint but no biome: the next analyzer runs (exit 1 is its "findings").
    fake_program(&bin, "oxlint", "demo.js:1:1: no-unused-vars", 1);
    let (text, is_error) = serve_call(
        &catalog,
        "static_analysis",
        json!({"analyzer": "javascript"}),
        d,
        &path_without(&analyzers, Some(&bin)),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("demo.js:1:1: no-unused-vars"), "{text}");
    assert!(!text.contains("not installed"), "{text}");

    // biome installed: biome runs, not oxlint.
    fake_program(&bin, "biome", "demo.js:1:7 lint/correctness/noUnusedVariables", 1);
    let (text, _) = serve_call(
        &catalog,
        "static_analysis",
        json!({"analyzer": "javascript"}),
        d,
        &path_without(&analyzers, Some(&bin)),
    );
    assert!(
        text.contains("lint/correctness/noUnusedVariables") && !text.contains("no-unused-vars"),
        "{text}"
    );

    // go vet when golangci-lint is missing, as git-iris falls back.
    fake_program(&bin, "go", "# demo\n./main.go:3:2: unreachable code", 1);
    let (text, _) = serve_call(
        &catalog,
        "static_analysis",
        json!({"analyzer": "go"}),
        d,
        &path_without(&analyzers, Some(&bin)),
    );
    assert!(text.contains("./main.go:3:2: unreachable code"), "{text}");

    // go, asked for by name, not installed: its note.
    let (text, is_error) = serve_call(&catalog, "static_analysis", json!({"analyzer": "go"}), d, &none);
    assert!(!is_error, "{text}");
    assert!(
        text.contains("golangci-lint and go are not installed here: no Go analysis ran."),
        "{text}"
    );
}
