//! The seeds' other tool systems as catalogs (`tests/fixtures/ipuaro`, `tests/fixtures/git-iris`):
//! both validate (their only warnings: one per `unsupported` tool) and generate every target;
//! every tool that runs loads in the real
//! OpenCode 1.18.33 (type-checked against its plugin types) and in the real MCP SDK client;
//! representative tools run in OpenCode against a scratch git repository; and a tool with
//! `confirm` goes through OpenCode's own permission mechanism (`ctx.ask` and the `permission`
//! rules of `opencode.json`) before it runs. What OpenCode does there is written up in
//! `tests/hosts/README.md` ("Permissions and `ctx.ask`").

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{OpencodeProject, isolate, opencode};

const CATALOGS: [&str; 2] = ["ipuaro", "git-iris"];

fn catalog(name: &str) -> PathBuf {
    support::root().join(format!("tests/fixtures/{name}/catalog.yaml"))
}

fn ixgen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

fn ok(out: std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The tools each catalog declares `unsupported` (in no target: `tests/seed_tools.rs`).
fn unsupported(name: &str) -> &'static [&'static str] {
    match name {
        "ipuaro" => &["get_complexity"],
        _ => &[
            "workspace",
            "parallel_analyze",
            "analyze_subagent",
            "update_commit",
            "update_pr",
            "update_review",
        ],
    }
}

/// The names of the tools every target gets: the toolset less the unsupported ones.
fn served_names(name: &str) -> Vec<String> {
    tool_names(name)
        .into_iter()
        .filter(|n| !unsupported(name).contains(&n.as_str()))
        .collect()
}

/// The tool names of a catalog, in its only toolset's order.
fn tool_names(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(catalog(name)).unwrap();
    let v: serde_json::Value = ixgen::catalog::yaml::from_str(&text).unwrap();
    v["toolsets"]["all"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn both_catalogs_validate_and_generate_every_target() {
    for name in CATALOGS {
        let path = catalog(name);
        let path = path.to_str().unwrap();
        // Valid; the only warnings are the unsupported tools', one each, with its reason (so
        // `--strict`, which fails on any warning, is not used here).
        let report: Value = serde_json::from_str(&ok(
            ixgen(&["--catalog", path, "validate", "--format", "json"]),
            &format!("{name}: validate"),
        ))
        .unwrap();
        assert_eq!(report["valid"], true, "{name}: {report}");
        let warned: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                assert_eq!(d["code"], "unsupported-tool", "{name}: {d}");
                let m = d["message"].as_str().unwrap();
                m.split('`').nth(1).unwrap().to_string()
            })
            .collect();
        assert_eq!(warned, unsupported(name), "{name}");
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().to_str().unwrap();
        ok(
            ixgen(&["--catalog", path, "--out", out, "generate"]),
            &format!("{name}: generate"),
        );
        // `check` right after `generate`: the same files, nothing stale.
        ok(
            ixgen(&["--catalog", path, "--out", out, "check"]),
            &format!("{name}: check"),
        );
        let names = tool_names(name);
        assert_eq!(names.len(), 18, "{name}: every tool of the document");
        let mcp: Value = serde_json::from_slice(&std::fs::read(tmp.path().join("mcp/tools.json")).unwrap()).unwrap();
        let listed: Vec<&str> = mcp["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            listed,
            served_names(name),
            "{name}: mcp/tools.json lists every tool that runs, in order"
        );
        for n in &names {
            let file = tmp.path().join(format!(".opencode/tools/{}.ts", n.replace('-', "_")));
            if unsupported(name).contains(&n.as_str()) {
                assert!(!file.exists(), "{name}: an OpenCode file for the unsupported {n}");
            } else {
                assert!(file.is_file(), "{name}: no OpenCode file for {n}");
            }
        }
    }
}

#[test]
fn the_mcp_schemas_say_clamped_bounds_instead_of_enforcing_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    ok(
        ixgen(&["--catalog", catalog("git-iris").to_str().unwrap(), "--out", out, "mcp"]),
        "mcp",
    );
    let mcp: Value = serde_json::from_slice(&std::fs::read(tmp.path().join("mcp/tools.json")).unwrap()).unwrap();
    let tool = |n: &str| {
        mcp["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .unwrap()
            .clone()
    };
    // git_show's max_output_chars is "clamped to 1000..=50000": a client may send 60000.
    let chars = &tool("git_show")["inputSchema"]["properties"]["max_output_chars"];
    assert!(
        chars.get("maximum").is_none() && chars.get("minimum").is_none(),
        "{chars}"
    );
    assert!(
        chars["description"]
            .as_str()
            .unwrap()
            .contains("clamped to 1000..50000"),
        "{chars}"
    );
    // repo_map's token_budget is clamped to 50..8000, as git-iris clamps it.
    let budget = &tool("repo_map")["inputSchema"]["properties"]["token_budget"];
    assert!(
        budget.get("maximum").is_none() && budget["description"].as_str().unwrap().contains("clamped to 50..8000"),
        "{budget}"
    );
    // A hard bound (`clamp: false`) is enforced: ipuaro's get_lines `start` is at least 1.
    let ipuaro = tempfile::tempdir().unwrap();
    let dir = ipuaro.path().to_str().unwrap();
    ok(
        ixgen(&["--catalog", catalog("ipuaro").to_str().unwrap(), "--out", dir, "mcp"]),
        "mcp of ipuaro",
    );
    let listed: Value = serde_json::from_slice(&std::fs::read(ipuaro.path().join("mcp/tools.json")).unwrap()).unwrap();
    let lines = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_lines")
        .unwrap();
    let start = &lines["inputSchema"]["properties"]["start"];
    assert_eq!(start["minimum"], 1, "{start}");
    // A nullable parameter (git-iris's was parallel_analyze's `max_turns`, now in a tool that is
    // `unsupported`: the same declaration in a catalog of its own); a path parameter is a plain
    // string (an absolute path inside the project is as good as a relative one, and only the
    // runtime knows the project).
    let own = tempfile::tempdir().unwrap();
    std::fs::write(
        own.path().join("catalog.yaml"),
        "version: 1\nproduct: {name: demo, version: 1.0.0, description: d}\ntoolsets: {all: {tools: [t]}}\ntargets: {mcp: {toolset: all}}\ntools:\n  - name: t\n    description: T\n    params:\n      max_turns: {type: integer, min: 1, max: 100, nullable: true, description: Per-subagent turn budget; omit to inherit}\n    steps:\n      - {program: git, run: [status]}\n",
    )
    .unwrap();
    let dir = own.path().to_str().unwrap();
    ok(
        ixgen(&["--catalog", &format!("{dir}/catalog.yaml"), "--out", dir, "mcp"]),
        "mcp of the nullable catalog",
    );
    let listed: Value = serde_json::from_slice(&std::fs::read(own.path().join("mcp/tools.json")).unwrap()).unwrap();
    let turns = &listed["tools"][0]["inputSchema"]["properties"]["max_turns"];
    assert_eq!(turns["type"], json!(["integer", "null"]), "{turns}");
    let file = &tool("git_blame")["inputSchema"]["properties"]["file"];
    assert_eq!(file["type"], "string", "{file}");
    assert!(file.get("pattern").is_none(), "{file}");
}

/// Writes a tsconfig that extends the pinned base config and type-checks the tools in `dir`.
fn type_check(dir: &Path) {
    let tsconfig = dir.join("tsconfig.json");
    std::fs::write(
        &tsconfig,
        json!({"extends": support::hosts_dir().join("tsconfig.json"), "include": ["./.opencode/tools/*.ts"]})
            .to_string(),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(support::tsc_js())
        .arg("-p")
        .arg(&tsconfig)
        .args(["--pretty", "false"])
        .output()
        .unwrap();
    ok(
        out,
        &format!("tsc against @opencode-ai/plugin 1.18.33 in {}", dir.display()),
    );
    std::fs::remove_file(tsconfig).unwrap();
}

/// The tool ids the real OpenCode gives the build agent, and whether each is enabled.
fn opencode_tools(p: &OpencodeProject) -> serde_json::Map<String, Value> {
    let mut cmd = Command::new(opencode());
    isolate(&mut cmd, p.tmp.path());
    cmd.current_dir(p.dir()).args(["debug", "agent", "build"]);
    let stdout = ok(cmd.output().unwrap(), "opencode debug agent build");
    // The agent is one pretty-printed object, after anything a tool file logs at load.
    let start = if stdout.starts_with("{\n") {
        0
    } else {
        stdout.find("\n{\n").map(|i| i + 1).expect("an agent object")
    };
    let v: Value = serde_json::from_str(&stdout[start..]).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v["tools"]
        .as_object()
        .cloned()
        .unwrap_or_else(|| panic!("no tools in {v}"))
}

fn project(name: &str) -> OpencodeProject {
    let p = OpencodeProject::new();
    let dir = p.dir();
    let git = |args: &[&str]| {
        let out = Command::new("git").args(args).current_dir(&dir).output().unwrap();
        ok(out, &format!("git {args:?}"));
    };
    git(&["config", "user.email", "dev@example.com"]);
    git(&["config", "user.name", "Dev"]);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/auth.ts"),
        "export function login(user: string) {\n  // TODO: rate limit\n  const password: string = user\n  return password\n}\n",
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "first commit"]);
    std::fs::write(dir.join("README.md"), "# Demo\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-qm", "add a readme"]);
    git(&["tag", "v1", "HEAD~1"]);
    ok(
        p.ixgen(&["--catalog", catalog(name).to_str().unwrap(), "generate", "-q"]),
        &format!("{name}: generate into the project"),
    );
    p
}

#[test]
fn every_tool_of_both_catalogs_loads_in_opencode_and_the_mcp_sdk_client() {
    for name in CATALOGS {
        let p = project(name);
        type_check(&p.dir());
        let tools = opencode_tools(&p);
        for n in served_names(name) {
            let id = n.replace('-', "_");
            assert_eq!(
                tools.get(&id),
                Some(&Value::Bool(true)),
                "{name}: OpenCode lacks tool {id}"
            );
        }
        let file = p.dir().join("mcp/tools.json");
        let out = support::node(
            "mcp-list.mjs",
            &[
                "--".as_ref(),
                "node".as_ref(),
                support::script("mcp-serve.mjs").as_os_str(),
                file.as_os_str(),
            ],
        );
        let listed: Value = serde_json::from_str(&ok(out, "mcp-list.mjs")).unwrap();
        let names: Vec<&str> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            served_names(name),
            "{name}: the SDK client lists every tool that runs"
        );
        // Each inputSchema is valid against the MCP spec's schema and compiles as JSON Schema.
        let spec = support::root().join("tests/spec/mcp/2025-11-25/schema.json");
        assert!(spec.is_file(), "the MCP spec schema is missing at {}", spec.display());
        let out = support::node(
            "validate-mcp.mjs",
            &[
                file.as_os_str(),
                "--schema".as_ref(),
                spec.as_os_str(),
                "--revision".as_ref(),
                "2025-11-25".as_ref(),
                "--hosts".as_ref(),
            ],
        );
        ok(out, &format!("{name}: validate-mcp.mjs"));
    }
}

/// Runs a tool with `rg` on `PATH`.
fn run(p: &OpencodeProject, id: &str, params: Value) -> String {
    let path = format!(
        "{}:{}",
        support::rg_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    p.run_tool(id, &params, &[("PATH", path.as_str())])
        .unwrap_or_else(|e| panic!("{id} {params}: {e}"))
}

fn git_out(p: &OpencodeProject, args: &[&str]) -> String {
    ok(
        Command::new("git").args(args).current_dir(p.dir()).output().unwrap(),
        "git",
    )
}

fn set_permission(p: &OpencodeProject, id: &str, rule: Value) {
    let path = p.dir().join("opencode.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["permission"][id] = rule;
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

#[test]
fn ipuaro_tools_run_in_opencode_and_confirm_through_its_permissions() {
    let p = project("ipuaro");
    // What ixgen wrote for OpenCode to ask: `ask` for tools that always confirm, and the
    // conditional rules of run_command, catch-all first (OpenCode matches the last rule).
    let config: Value = serde_json::from_slice(&std::fs::read(p.dir().join("opencode.json")).unwrap()).unwrap();
    assert_eq!(config["permission"]["git_commit"], "ask");
    let rc = config["permission"]["run_command"].as_object().unwrap();
    assert_eq!(rc.keys().next().map(String::as_str), Some("*"));
    assert_eq!(rc["npm *"], "allow");
    assert_eq!(rc["*sudo *"], "deny");

    // Read tools; source text is not redacted (`redact: errors`).
    let lines = run(&p, "get_lines", json!({"path": "src/auth.ts", "start": 2, "end": 3}));
    assert!(
        lines.contains("2\t  // TODO: rate limit\n3\t  const password: string = user"),
        "{lines}"
    );
    assert!(!lines.contains("REDACTED"), "{lines}");
    let bad = run(&p, "get_lines", json!({"path": "src/auth.ts", "start": 3, "end": 2}));
    assert!(
        bad.contains("**Invalid arguments:** `end` must be at least `start`"),
        "{bad}"
    );
    let outside = run(&p, "get_lines", json!({"path": "../etc/passwd"}));
    assert!(outside.contains("must stay inside the worktree"), "{outside}");
    // rg exits 1 for no match: a normal answer.
    let none = run(&p, "find_references", json!({"symbol": "logout"}));
    assert!(none.ends_with("No references to `logout`."), "{none}");
    let todos = run(&p, "get_todos", json!({"type": "todo"}));
    assert!(todos.contains("src/auth.ts:2:"), "{todos}");
    let status = run(&p, "git_status", json!({}));
    assert!(status.contains("## master") || status.contains("## main"), "{status}");
    // The AST and graph tools, rebuilt on node, in OpenCode's runtime (the project's own
    // `typescript` is the pinned one of tests/hosts).
    std::fs::write(p.dir().join("src/app.ts"), "import { login } from './auth'\n").unwrap();
    let deps = run(&p, "get_dependents", json!({"path": "src/auth.ts"}));
    assert!(
        deps.contains("\"path\": \"src/app.ts\"") && deps.contains("\"totalDependents\": 1"),
        "{deps}"
    );
    std::fs::remove_file(p.dir().join("src/app.ts")).unwrap();
    let modules = p.dir().join("node_modules");
    std::fs::create_dir_all(&modules).unwrap();
    std::os::unix::fs::symlink(
        support::ensure_npm_hosts().join("node_modules/typescript"),
        modules.join("typescript"),
    )
    .unwrap();
    let f = run(&p, "get_function", json!({"path": "src/auth.ts", "name": "login"}));
    assert!(
        f.contains("\"lineStart\": 1")
            && f.contains("\"lineEnd\": 5")
            && f.contains("\"params\": [\n    \"user\"\n  ]"),
        "{f}"
    );
    std::fs::remove_dir_all(&modules).unwrap();

    // run_command: deny-listed → refused by the runtime, never run; allow-listed → runs.
    let marker = p.dir().join("ran");
    let refused = run(
        &p,
        "run_command",
        json!({"command": format!("sudo touch {}", marker.display())}),
    );
    assert!(
        refused.contains("**Refused:**") && refused.contains("`*sudo *`"),
        "{refused}"
    );
    assert!(!marker.exists());
    let allowed = run(&p, "run_command", json!({"command": "node -e \"console.log(6*7)\""}));
    assert!(allowed.trim_end().ends_with("42"), "{allowed}");
    // A command that is neither: the runtime asks the host. A user's rule that denies it is
    // OpenCode's answer, and the command does not run.
    set_permission(
        &p,
        "run_command",
        json!({"*": "ask", "npm *": "allow", "touch *": "deny"}),
    );
    let denied = run(
        &p,
        "run_command",
        json!({"command": format!("touch {}", marker.display())}),
    );
    assert!(
        denied.contains("**Not run:** permission for")
            && denied.contains("prevents you from using this specific tool call"),
        "{denied}"
    );
    assert!(!marker.exists());
    // The step's timeout stops a command that runs too long.
    let slow = run(
        &p,
        "run_command",
        json!({"command": "node -e \"setTimeout(()=>{}, 5000)\"", "timeout": 500}),
    );
    assert!(slow.contains("timed out after 500 ms"), "{slow}");

    // git_commit asks first. OpenCode's answer "deny" (a rule for this message): not run.
    std::fs::write(p.dir().join("src/new.ts"), "export const x = 1\n").unwrap();
    set_permission(&p, "git_commit", json!({"*": "ask", "commit: wip*": "deny"}));
    let before = git_out(&p, &["rev-parse", "HEAD"]);
    let no = run(
        &p,
        "git_commit",
        json!({"message": "wip: later", "files": ["src/new.ts"]}),
    );
    assert!(no.contains("**Not run:**"), "{no}");
    assert_eq!(
        git_out(&p, &["rev-parse", "HEAD"]),
        before,
        "a refused commit changes nothing"
    );
    // The answer "allow": it runs, and a multi-line message reaches git whole through a file.
    set_permission(&p, "git_commit", json!("allow"));
    let message = "feat: add x\n\nWhy: \"quotes\", `ticks` and $(no shell)\n";
    let yes = run(&p, "git_commit", json!({"message": message, "files": ["src/new.ts"]}));
    assert!(yes.contains("Staged: src/new.ts"), "{yes}");
    assert_eq!(
        git_out(&p, &["log", "-1", "--format=%B"]).trim_end(),
        message.trim_end()
    );
    // A `deny` rule for the whole tool: OpenCode disables the tool instead of asking.
    set_permission(&p, "git_commit", json!("deny"));
    let err = p
        .run_tool("git_commit", &json!({"message": "x"}), &[])
        .expect_err("a denied tool is disabled");
    assert!(err.contains("Tool git_commit is disabled for agent build"), "{err}");

    // edit_lines: `content: ""` is a value (it deletes the lines), not a missing argument.
    let edited = run(
        &p,
        "edit_lines",
        json!({"path": "src/auth.ts", "start": 2, "end": 2, "content": ""}),
    );
    assert!(edited.contains("**Edited src/auth.ts, lines 2-2**"), "{edited}");
    let text = std::fs::read_to_string(p.dir().join("src/auth.ts")).unwrap();
    assert!(!text.contains("TODO") && text.contains("const password"), "{text}");
    let created = run(
        &p,
        "create_file",
        json!({"path": "src/deep/er.ts", "content": "a\nb\n"}),
    );
    assert!(created.contains("Created src/deep/er.ts"), "{created}");
    assert_eq!(
        std::fs::read_to_string(p.dir().join("src/deep/er.ts")).unwrap(),
        "a\nb\n"
    );
    let again = run(&p, "create_file", json!({"path": "src/deep/er.ts", "content": "c"}));
    assert!(again.contains("already exists"), "{again}");
    // The temporary files of `file` arguments are gone.
    let leftovers: Vec<_> = std::fs::read_dir(p.tmp.path().join("tmp"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("ixgen-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn git_iris_tools_run_in_opencode_against_a_scratch_repository() {
    let p = project("git-iris");
    // `to` defaults to HEAD only when `from` is set.
    let range = run(&p, "git_log", json!({"from": "v1"}));
    assert!(
        range.contains("**Commits from v1 to HEAD**")
            && range.contains(": add a readme (Dev)")
            && !range.contains("first commit"),
        "{range}"
    );
    // The contributors by name, as git-iris lists them (a compute step in OpenCode's runtime).
    assert!(
        range.contains("**Contributors (excluding bots)** (1):\n\n- Dev") && !range.contains("dev@example.com"),
        "{range}"
    );
    let recent = run(&p, "git_log", json!({"count": 1}));
    assert!(
        recent.contains("add a readme") && !recent.contains("first commit"),
        "{recent}"
    );
    let lone_to = run(&p, "git_log", json!({"to": "v1"}));
    assert!(lone_to.contains("`to` needs `from`"), "{lone_to}");
    // With `files`, an empty diff says that none of the changes touches those paths, not that
    // there are none.
    let filtered = run(&p, "git_diff", json!({"files": ["no/such/file.txt"]}));
    assert!(
        filtered.contains("No staged change touches the paths given."),
        "{filtered}"
    );
    // code_search with no match is an answer (git-iris's JSON, with no result), not an error.
    let none = run(&p, "code_search", json!({"query": "no_such_symbol_anywhere"}));
    assert!(
        none.contains("\"results\": [],\n  \"search_type\": \"text\",\n  \"total_found\": 0"),
        "{none}"
    );
    assert!(!none.contains("Error"), "{none}");
    let found = run(&p, "code_search", json!({"query": "login", "search_type": "function"}));
    assert!(
        found.contains("\"file_path\": \"src/auth.ts\",\n      \"line_number\": 1,"),
        "{found}"
    );
    // The name goes into the pattern escaped (a compute step), as in serve.
    let call = run(&p, "code_search", json!({"query": "login(", "search_type": "function"}));
    assert!(call.contains("\"file_path\": \"src/auth.ts\""), "{call}");
    // file_read's numbered lines, as git-iris's file_read answers, with where to go on.
    let read = run(&p, "file_read", json!({"path": "src/auth.ts", "num_lines": 1}));
    assert!(
        read.contains("Showing lines 1-1 of ")
            && read.contains("     1\u{2502} export function login")
            && read.contains("(use start_line=2 to continue)"),
        "{read}"
    );
    // end_line defaults to start_line; the source line comes back unredacted.
    let blame = run(&p, "git_blame", json!({"file": "src/auth.ts", "start_line": 3}));
    assert!(
        blame.contains("Git blame for src/auth.ts:3-3\n\nCode:\n   3 |")
            && blame.contains("const password: string = user"),
        "{blame}"
    );
    // An end before the start is the start, as git-iris clamps it.
    let back = run(
        &p,
        "git_blame",
        json!({"file": "src/auth.ts", "start_line": 3, "end_line": 1}),
    );
    assert!(back.contains("Git blame for src/auth.ts:3-3\n"), "{back}");
    // repo_map, rebuilt from git and perl, in OpenCode's runtime: the changed file ranks first.
    std::fs::write(
        p.dir().join("src/auth.ts"),
        "export function login() {}\nexport class Auth {}\n",
    )
    .unwrap();
    let map = run(
        &p,
        "repo_map",
        json!({"max_files": 5, "mentioned_files": ["src/auth.ts"]}),
    );
    let json_text = map.split_once("\n\n").map(|(_, b)| b).unwrap_or("");
    let map: Value = serde_json::from_str(json_text).unwrap_or_else(|e| panic!("{e}: {map}"));
    // (The generated files are untracked here: changed too.)
    assert!(
        map["changed_files"].as_array().unwrap().contains(&json!("src/auth.ts")),
        "{map}"
    );
    assert_eq!(map["mentioned_files"], json!(["src/auth.ts"]), "{map}");
    assert!(
        map["content"]
            .as_str()
            .unwrap()
            .starts_with("src/auth.ts [changed, mentioned]\n  export function login() {}\n  export class Auth {}\n"),
        "{map}"
    );
    assert_eq!(map["files_shown"], 5, "{map}");
    git_out(&p, &["checkout", "--", "src/auth.ts"]);
    let info = run(&p, "git_repo_info", json!({}));
    assert!(
        info.contains("(no origin remote)") && info.contains("**Commit count**\n\n2"),
        "{info}"
    );
    let docs = run(&p, "project_docs", json!({}));
    assert!(docs.contains("# Demo"), "{docs}");
    // max_output_chars is clamped to 1000, and the output is cut there.
    let big = "x".repeat(3000);
    std::fs::write(p.dir().join("big.txt"), &big).unwrap();
    git_out(&p, &["add", "big.txt"]);
    git_out(&p, &["commit", "-qm", "big"]);
    let show = run(&p, "git_show", json!({"commit": "HEAD", "max_output_chars": 10}));
    assert!(show.contains("_(cut at 1000 of "), "{show}");
    let dash = run(&p, "git_show", json!({"commit": "--output=/tmp/x"}));
    assert!(dash.contains("**Invalid arguments:** `commit` must match"), "{dash}");
}
