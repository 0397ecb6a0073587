//! The MCP tool definitions, the Claude Code plugin, the other hosts' MCP configs and the
//! catalog's JSON Schema, checked by the real pinned programs (`tests/hosts`).
//!
//! - `mcp/tools.json` (both protocol revisions) against the MCP spec's own JSON Schema, each
//!   `inputSchema` compiled as a JSON Schema 2020-12 document, plus the hosts' stricter rules;
//! - the real MCP SDK client (1.32.2, 2025-11-25) lists exactly the generated tools, for every
//!   tool filter, and the split 2.4.0 client, pinned to 2026-07-28, lists and calls the
//!   2026-07-28 definitions served by the 2.4.0 server;
//! - the real Claude Code, 2.1.197 and 2.1.330, validates the plugin (2.1.330 also by the plugin
//!   directory's profile) and connects its MCP server, and a test names where they disagree;
//! - the Cursor, VS Code, Gemini and Codex configs have the shapes those hosts read;
//! - the catalog's JSON Schema accepts the real catalogs and refuses an unknown key.
//!
//! Every check has a negative twin where one is cheap, so a validator that accepts anything
//! fails the test. No test skips: a missing host or spec schema fails with what to do.

mod support;

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{claude_versions, isolate, root, script};

/// The five ix MCP tools that change state.
const WRITE_TOOLS: [&str; 5] = ["decide", "bug_create", "bug_update", "goal_create", "plan_create"];

// ─── helpers ────────────────────────────────────────────────────────────────────────────────

fn text(out: &Output) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts success; returns stdout.
fn ok(out: Output, what: &str) -> String {
    assert!(out.status.success(), "{what} failed\n{}", text(&out));
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

fn ixgen(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("run ixgen")
}

fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

/// `node tests/hosts/<script> <args>`.
fn node(script_name: &str, args: &[&OsStr]) -> Output {
    let script_path = script(script_name);
    Command::new("node")
        .arg(script_path)
        .args(args)
        .output()
        .expect("node is installed (Node 20)")
}

/// The spec schema of an MCP revision (`tests/spec/`, copied from the MCP specification's
/// repository: see its README).
fn spec_schema(revision: &str) -> PathBuf {
    let p = root().join("tests/spec/mcp").join(revision).join("schema.json");
    assert!(
        p.is_file(),
        "the MCP {revision} spec schema is missing at {}",
        p.display()
    );
    p
}

fn read_json(path: &Path) -> Value {
    let s = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{} is not JSON: {e}\n{s}", path.display()))
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

/// `ixgen --out <dir> mcp -q <extra>`; returns the path of `mcp/tools.json` and ixgen's stderr.
fn gen_mcp(dir: &Path, extra: &[&str]) -> (PathBuf, String) {
    let mut args = vec![os("--out"), dir.as_os_str(), os("mcp"), os("-q")];
    args.extend(extra.iter().map(os));
    let out = ixgen(&args);
    assert!(out.status.success(), "ixgen mcp {extra:?} failed\n{}", text(&out));
    let file = dir.join("mcp/tools.json");
    assert!(file.is_file(), "ixgen mcp {extra:?} wrote no mcp/tools.json");
    (file, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `validate-mcp.mjs <file> --schema <spec> --revision <rev> --hosts`.
fn validate_mcp(file: &Path, revision: &str) -> Output {
    let spec = spec_schema(revision);
    node(
        "validate-mcp.mjs",
        &[
            file.as_os_str(),
            os("--schema"),
            spec.as_os_str(),
            os("--revision"),
            os(revision),
            os("--hosts"),
        ],
    )
}

/// The tools the real SDK client lists from `mcp-serve.mjs <file>`.
fn sdk_list(file: &Path) -> Vec<Value> {
    let serve = script("mcp-serve.mjs");
    let out = node(
        "mcp-list.mjs",
        &[os("--"), os("node"), serve.as_os_str(), file.as_os_str()],
    );
    let stdout = ok(out, &format!("mcp-list.mjs against mcp-serve.mjs {}", file.display()));
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("mcp-list printed no JSON: {e}\n{stdout}"));
    v["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools array in the listTools() result: {v}"))
        .clone()
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| {
            t["name"]
                .as_str()
                .unwrap_or_else(|| panic!("tool without a name: {t}"))
                .to_string()
        })
        .collect()
}

/// One row of `ixgen list --toolset mcp --format json`.
struct Listed {
    name: String,
    write: bool,
    tier: String,
}

/// The catalog's MCP toolset as `ixgen list` reports it, in catalog order.
fn catalog_mcp_tools() -> Vec<Listed> {
    let stdout = ok(
        ixgen(&[os("list"), os("--toolset"), os("mcp"), os("--format"), os("json")]),
        "ixgen list --toolset mcp",
    );
    let rows: Vec<Value> =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("ixgen list printed no JSON: {e}\n{stdout}"));
    rows.iter()
        .map(|r| Listed {
            name: r["name"].as_str().unwrap().to_string(),
            write: match r["access"].as_str() {
                Some("write") => true,
                Some("read") => false,
                other => panic!("unexpected access {other:?} in {r}"),
            },
            tier: r["tier"]
                .as_str()
                .unwrap_or_else(|| panic!("no tier in {r}"))
                .to_string(),
        })
        .collect()
}

fn read_tool_names() -> Vec<String> {
    catalog_mcp_tools()
        .into_iter()
        .filter(|t| !t.write)
        .map(|t| t.name)
        .collect()
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
    items.iter().copied().collect()
}

fn string_array(v: &Value, what: &str) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what} is not an array: {v}"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("{what} holds a non-string: {s}"))
                .to_string()
        })
        .collect()
}

// ─── 1. the spec schemas ────────────────────────────────────────────────────────────────────

#[test]
fn mcp_tools_json_validates_against_the_spec_schemas() {
    let tmp = tempfile::tempdir().unwrap();

    // 2025-11-25, the default revision, and 2026-07-28 in its own file.
    let (file, _) = gen_mcp(&tmp.path().join("v2025"), &[]);
    let v2026 = tmp.path().join("v2026");
    gen_mcp_profile(&v2026);
    let file26 = v2026.join("mcp/tools.2026-07-28.json");
    assert!(
        file26.is_file(),
        "`ixgen mcp --profile 2026-07-28` wrote no mcp/tools.2026-07-28.json"
    );

    // Broken copies, so each kind of check is shown to fail.
    let good = read_json(&file);
    let first = good["tools"][0]["name"].as_str().unwrap().to_string();
    // A tool whose inputSchema has no `type` fails `#/$defs/Tool`.
    let mut broken = good.clone();
    broken["tools"][0]["inputSchema"]
        .as_object_mut()
        .unwrap()
        .remove("type")
        .expect("inputSchema.type");
    let no_type = tmp.path().join("no-type.json");
    write_json(&no_type, &broken);
    // A misspelt keyword inside an inputSchema fails its own 2020-12 compilation.
    let mut typo = good.clone();
    let props = typo["tools"][0]["inputSchema"]["properties"]
        .as_object_mut()
        .expect("the first tool has properties");
    let (_, p) = props.iter_mut().next().unwrap();
    p.as_object_mut().unwrap().insert("minLenght".into(), json!(1));
    let typo_file = tmp.path().join("typo.json");
    write_json(&typo_file, &typo);

    // (label, file, revision); the validators run in parallel.
    let runs = [
        ("2025", &file, "2025-11-25"),
        ("2026", &file26, "2026-07-28"),
        ("2025-as-2026", &file, "2026-07-28"),
        ("no-type", &no_type, "2025-11-25"),
        ("typo", &typo_file, "2025-11-25"),
    ];
    let outs: Vec<(&str, Output)> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|&(label, f, rev)| s.spawn(move || (label, validate_mcp(f, rev))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let get = |label: &str| &outs.iter().find(|(l, _)| *l == label).unwrap().1;
    let stdout = |label: &str| String::from_utf8_lossy(&get(label).stdout).into_owned();

    let out = get("2025");
    assert!(
        out.status.success(),
        "validate-mcp.mjs on mcp/tools.json (2025-11-25, --hosts)\n{}",
        text(out)
    );
    let report = stdout("2025");
    assert!(
        report.contains("validate-mcp: 28 tool(s)") && report.contains(" 0 problem(s)"),
        "{report}"
    );
    assert!(
        report.contains("inputSchema is a valid JSON Schema 2020-12 document"),
        "each inputSchema was compiled on its own:\n{report}"
    );
    assert!(report.contains("host rules"), "--hosts rules ran:\n{report}");

    let out = get("2026");
    assert!(
        out.status.success(),
        "validate-mcp.mjs on mcp/tools.2026-07-28.json (2026-07-28, --hosts)\n{}",
        text(out)
    );
    let report = stdout("2026");
    assert!(
        report.contains("validate-mcp: 28 tool(s)") && report.contains(" 0 problem(s)"),
        "{report}"
    );

    // The 2025 file lacks what 2026-07-28's ListToolsResult requires.
    let out = get("2025-as-2026");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a 2025-11-25 result must fail 2026-07-28's ListToolsResult\n{}",
        text(out)
    );
    assert!(
        stdout("2025-as-2026").contains("FAIL whole file: #/$defs/ListToolsResult"),
        "{}",
        text(out)
    );

    let out = get("no-type");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a tool without inputSchema.type must fail\n{}",
        text(out)
    );
    assert!(
        stdout("no-type").contains(&format!("FAIL tools[0] {first}: #/$defs/Tool")),
        "{}",
        text(out)
    );

    let out = get("typo");
    assert_eq!(
        out.status.code(),
        Some(1),
        "an unknown keyword in an inputSchema must fail\n{}",
        text(out)
    );
    assert!(
        stdout("typo").contains("unknown keyword: \"minLenght\""),
        "{}",
        text(out)
    );
}

fn gen_mcp_profile(dir: &Path) {
    let out = ixgen(&[
        os("--out"),
        dir.as_os_str(),
        os("mcp"),
        os("-q"),
        os("--profile"),
        os("2026-07-28"),
    ]);
    ok(out, "ixgen mcp --profile 2026-07-28");
}

// ─── 2. the real MCP SDK client ─────────────────────────────────────────────────────────────

#[test]
fn the_sdk_client_lists_the_generated_tools_for_every_filter() {
    let catalog = catalog_mcp_tools();
    assert_eq!(catalog.len(), 28, "the ix catalog's mcp toolset");
    let catalog_names: Vec<String> = catalog.iter().map(|t| t.name.clone()).collect();
    let writes: BTreeSet<&str> = catalog.iter().filter(|t| t.write).map(|t| t.name.as_str()).collect();
    assert_eq!(writes, set(&WRITE_TOOLS), "the write tools of the mcp toolset");
    let pro: BTreeSet<&str> = catalog
        .iter()
        .filter(|t| t.tier == "pro")
        .map(|t| t.name.as_str())
        .collect();
    assert!(
        !pro.is_empty(),
        "the catalog has pro tools, so --tier free has something to leave out"
    );

    let tmp = tempfile::tempdir().unwrap();
    let variants: Vec<(&str, Vec<&str>)> = vec![
        ("full", vec![]),
        ("read-only", vec!["--read-only"]),
        ("enable", vec!["--enable-tools", "search,locate"]),
        ("disable", vec!["--disable-tools", "decide"]),
        ("free", vec!["--tier", "free"]),
        (
            "both",
            vec!["--enable-tools", "search,locate", "--disable-tools", "search"],
        ),
    ];
    // Generate, then list each file through the SDK client; the clients run in parallel.
    let generated: Vec<(&str, PathBuf, String)> = variants
        .iter()
        .map(|(label, extra)| {
            let (file, stderr) = gen_mcp(&tmp.path().join(label), extra);
            (*label, file, stderr)
        })
        .collect();
    let listed: Vec<(&str, Vec<Value>, Value, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = generated
            .iter()
            .map(|(label, file, stderr)| s.spawn(move || (*label, sdk_list(file), read_json(file), stderr.clone())))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let get = |label: &str| listed.iter().find(|(l, ..)| *l == label).unwrap();

    for (label, tools, file, _) in &listed {
        // The client keeps every field (zod strips the ones it does not know): nothing was lost.
        assert_eq!(
            &Value::Array(tools.clone()),
            &file["tools"],
            "{label}: the SDK client's list differs from the generated file"
        );
    }

    // All 28, in catalog order, with honest annotations.
    let (_, full, ..) = get("full");
    assert_eq!(names(full), catalog_names, "full list");
    for t in full {
        let name = t["name"].as_str().unwrap();
        let a = &t["annotations"];
        for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
            assert!(
                a[hint].is_boolean(),
                "{name}: annotations.{hint} is set explicitly: {a}"
            );
        }
        if writes.contains(name) {
            assert_eq!(a["readOnlyHint"], json!(false), "{name} is a write tool: {a}");
            assert_eq!(a["destructiveHint"], json!(true), "{name} is a write tool: {a}");
        } else {
            assert_eq!(a["readOnlyHint"], json!(true), "{name} is a read tool: {a}");
        }
    }

    // --read-only: the 23 read tools, no write tool.
    let (_, ro, ..) = get("read-only");
    assert_eq!(ro.len(), 23, "--read-only: {:?}", names(ro));
    assert_eq!(names(ro), read_tool_names(), "--read-only keeps exactly the read tools");
    for t in ro {
        assert!(
            !writes.contains(t["name"].as_str().unwrap()),
            "--read-only listed a write tool: {}",
            t["name"]
        );
        assert_eq!(t["annotations"]["readOnlyHint"], json!(true), "{}", t["name"]);
    }

    let (_, en, ..) = get("enable");
    assert_eq!(names(en), ["search", "locate"], "--enable-tools search,locate");

    let (_, dis, ..) = get("disable");
    assert_eq!(dis.len(), 27, "--disable-tools decide: {:?}", names(dis));
    let expected: Vec<String> = catalog_names.iter().filter(|n| *n != "decide").cloned().collect();
    assert_eq!(names(dis), expected, "--disable-tools decide");

    let (_, free, ..) = get("free");
    let free_names = names(free);
    for n in &free_names {
        assert!(!pro.contains(n.as_str()), "--tier free listed the pro tool {n}");
    }
    let expected: Vec<String> = catalog
        .iter()
        .filter(|t| t.tier != "pro")
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(free_names, expected, "--tier free keeps every non-pro tool");

    // --enable-tools with --disable-tools: the allowlist wins, and ixgen says so on stderr.
    let (_, both, _, stderr) = get("both");
    assert_eq!(
        names(both),
        ["search", "locate"],
        "the allowlist wins over --disable-tools search"
    );
    assert!(
        stderr.contains("warning")
            && stderr.contains("--enable-tools")
            && stderr.contains("--disable-tools")
            && stderr.contains("allowlist wins"),
        "ixgen warns that the allowlist wins; stderr was:\n{stderr}"
    );
    for (label, .., stderr) in &listed {
        if *label != "both" {
            assert!(
                !stderr.contains("allowlist"),
                "{label}: no allowlist warning expected, stderr:\n{stderr}"
            );
        }
    }
}

// ─── 2b. the real MCP 2026-07-28 client (split SDK 2.4.0) ───────────────────────────────────

/// `ixgen --out <dir> mcp -q --profile 2026-07-28 <extra>`; returns `mcp/tools.2026-07-28.json`.
fn gen_mcp_2026(dir: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec![
        os("--out"),
        dir.as_os_str(),
        os("mcp"),
        os("-q"),
        os("--profile"),
        os("2026-07-28"),
    ];
    args.extend(extra.iter().map(os));
    ok(ixgen(&args), &format!("ixgen mcp --profile 2026-07-28 {extra:?}"));
    let file = dir.join("mcp/tools.2026-07-28.json");
    assert!(
        file.is_file(),
        "ixgen mcp --profile 2026-07-28 {extra:?} wrote no {}",
        file.display()
    );
    file
}

/// The 2.4.0 client (`next/mcp-list.mjs`, pinned to 2026-07-28) against `server` (a script of
/// `tests/hosts`) serving `file`, calling `call` when given.
fn mcp_2026(server: &str, file: &Path, call: Option<(&str, &Value)>) -> Output {
    let serve = script(server);
    let args_json = call.map(|(_, a)| a.to_string());
    let mut args: Vec<&OsStr> = Vec::new();
    if let (Some((name, _)), Some(a)) = (call, &args_json) {
        args.extend([os("--call"), os(name), os(a.as_str())]);
    }
    args.extend([os("--"), os("node"), serve.as_os_str(), file.as_os_str()]);
    node("next/mcp-list.mjs", &args)
}

#[test]
fn the_mcp_2026_client_lists_and_calls_the_generated_2026_tools() {
    let tmp = tempfile::tempdir().unwrap();
    let full = gen_mcp_2026(&tmp.path().join("full"), &[]);
    let read_only = gen_mcp_2026(&tmp.path().join("read-only"), &["--read-only"]);
    // Negatives: one tool without inputSchema.type, and a server that speaks only 2025-11-25.
    let mut broken = read_json(&full);
    broken["tools"][3]["inputSchema"]
        .as_object_mut()
        .unwrap()
        .remove("type")
        .expect("inputSchema.type");
    let broken_file = tmp.path().join("broken.json");
    write_json(&broken_file, &broken);
    let (file_2025, _) = gen_mcp(&tmp.path().join("v2025"), &[]);

    let search = json!({"query": "parse_config"});
    let outs: Vec<(&str, Output)> = std::thread::scope(|s| {
        let search = &search;
        let (full, read_only, broken_file, file_2025) = (&full, &read_only, &broken_file, &file_2025);
        let handles = vec![
            s.spawn(move || ("full", mcp_2026("next/mcp-serve.mjs", full, Some(("search", search))))),
            s.spawn(move || {
                (
                    "read-only",
                    mcp_2026("next/mcp-serve.mjs", read_only, Some(("search", search))),
                )
            }),
            s.spawn(move || ("broken", mcp_2026("next/mcp-serve.mjs", broken_file, None))),
            s.spawn(move || ("2025-server", mcp_2026("mcp-serve.mjs", file_2025, None))),
            s.spawn(move || ("spec-read-only", validate_mcp(read_only, "2026-07-28"))),
        ];
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let get = |label: &str| &outs.iter().find(|(l, _)| *l == label).unwrap().1;

    let read_names = read_tool_names();
    let all_names: Vec<String> = catalog_mcp_tools().into_iter().map(|t| t.name).collect();
    for (label, file, want) in [("full", &full, &all_names), ("read-only", &read_only, &read_names)] {
        let out = get(label);
        let stdout = ok(
            out.clone(),
            &format!("{label}: the 2.4.0 client against the 2.4.0 server"),
        );
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{label}: no JSON: {e}\n{stdout}"));
        assert_eq!(v["protocolVersion"], json!("2026-07-28"), "{label}: {v}");
        let generated = read_json(file);
        let tools = v["list"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: no list.tools in {v}"));
        assert_eq!(&names(tools), want, "{label}: the tools the client listed");
        // Nothing of a tool was lost on the way, and the cache hints are the file's.
        assert_eq!(
            &v["list"]["tools"], &generated["tools"],
            "{label}: the listed tools differ from the file"
        );
        for k in ["ttlMs", "cacheScope"] {
            assert_eq!(
                v["list"][k], generated[k],
                "{label}: {k} of the file reached the client: {v}"
            );
        }
        let call = &v["call"];
        assert_eq!(call["isError"], Value::Null, "{label}: {call}");
        let text = call["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}: {call}"));
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            json!({"name": "search", "arguments": search}),
            "{label}: the server got the call as sent"
        );
    }
    assert_eq!(all_names.len(), 28, "{all_names:?}");
    assert_eq!(read_names.len(), 23, "{read_names:?}");

    let out = get("spec-read-only");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("validate-mcp: 23 tool(s)"),
        "the --read-only 2026-07-28 file against the 2026-07-28 spec schema\n{}",
        text(out)
    );

    let out = get("broken");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1) && stderr.contains("tools/list failed") && stderr.contains("inputSchema"),
        "the 2.4.0 client refuses a tool without inputSchema.type\n{}",
        text(out)
    );
    let out = get("2025-server");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(1) && stderr.contains("cannot start or negotiate 2026-07-28"),
        "pinned to 2026-07-28, the client does not fall back to a 2025-11-25 server\n{}",
        text(out)
    );
}

// ─── 3. Claude Code, 2.1.197 (pinned) and 2.1.330 (newest) ──────────────────────────────────

/// A copy of `catalog/ix.yaml` whose server is `node mcp-serve.mjs <tools>`, with the icon
/// it names beside it.
fn catalog_serving(dest: &Path, tools: &Path) -> PathBuf {
    let yaml = std::fs::read_to_string(root().join("catalog/ix.yaml")).unwrap();
    let block = "server:\n  name: ix-memory\n  command: ix\n  args: [mcp]\n";
    assert_eq!(
        yaml.matches(block).count(),
        1,
        "catalog/ix.yaml's server block changed; update this test:\n{block}"
    );
    let arg = |p: &Path| serde_json::to_string(p.to_str().expect("UTF-8 path")).unwrap();
    let serving = format!(
        "server:\n  name: ix-memory\n  command: node\n  args: [{}, {}]\n",
        arg(&script("mcp-serve.mjs")),
        arg(tools)
    );
    let dir = dest.parent().unwrap();
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dest, yaml.replace(block, &serving)).unwrap();
    std::fs::copy(root().join("catalog/ix-icon.png"), dir.join("ix-icon.png")).expect("copy the ix icon");
    dest.to_path_buf()
}

/// `ixgen --catalog <catalog> --out <dir> generate claude mcp`.
fn gen_plugin(catalog: &Path, dir: &Path) {
    ok(
        ixgen(&[
            os("--catalog"),
            catalog.as_os_str(),
            os("--out"),
            dir.as_os_str(),
            os("generate"),
            os("claude"),
            os("mcp"),
            os("-q"),
        ]),
        "ixgen generate claude mcp",
    );
}

/// Runs the real `claude` binary `bin` with its own isolated home under `scratch`, cwd
/// `scratch/cwd`.
fn run_claude(bin: &Path, scratch: &Path, args: &[&OsStr]) -> Output {
    let cwd = scratch.join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut cmd = Command::new(bin);
    isolate(&mut cmd, scratch);
    cmd.current_dir(&cwd).args(args).output().expect("run claude")
}

/// One `claude` run of a test: a label, the version and the arguments.
type ClaudeRun<'a> = (String, &'static str, Vec<&'a OsStr>);

/// Runs every `(label, version, args)` at once, each with its own home under `scratch`.
fn run_claudes(scratch: &Path, runs: &[ClaudeRun<'_>]) -> Vec<(String, Output)> {
    let bins = claude_versions(); // installs the hosts once, before the threads
    std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|(label, version, args)| {
                let bin = &bins.iter().find(|(v, _)| v == version).expect("a known version").1;
                s.spawn(move || (label.clone(), run_claude(bin, &scratch.join(label), args)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// `args` followed by `extra`.
fn args_and<'a>(args: &[&'a OsStr], extra: &[&'a OsStr]) -> Vec<&'a OsStr> {
    args.iter().chain(extra).copied().collect()
}

/// The `--json` report of `claude plugin validate` (Claude Code 2.1.330; 2.1.197 has no
/// `--json`). Its exit code follows `success`.
fn validate_report(out: &Output, what: &str) -> Value {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: stdout is not a JSON report ({e})\n{}", text(out)));
    assert_eq!(
        v["success"].as_bool(),
        Some(out.status.success()),
        "{what}: the exit code follows `success`\n{}",
        text(out)
    );
    v
}

/// The `code`s of a report's plugin-directory findings.
fn finding_codes(report: &Value) -> BTreeSet<String> {
    report["directory"]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no directory.findings in {report}"))
        .iter()
        .map(|f| f["code"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The `mcp list` line of the plugin's server.
fn server_line<'a>(stdout: &'a str, out: &Output) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with("plugin:ix:ix-memory:"))
        .unwrap_or_else(|| panic!("no `plugin:ix:ix-memory:` line in `claude mcp list`\n{}", text(out)))
}

/// What ixgen declares as the hosts of the ix server: the host of the runtime's default URL.
const IX_HOSTS: [&str; 1] = ["127.0.0.1:7743"];

#[test]
fn claude_code_2_1_197_and_2_1_330_validate_the_plugin_and_connect_its_server() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    // The tools the test server serves: ixgen's own mcp/tools.json of the ix catalog, and a
    // broken copy of it (one inputSchema without `type`) for the negative.
    let (tools, _) = gen_mcp(&t.join("srv"), &[]);
    let mut broken = read_json(&tools);
    broken["tools"][3]["inputSchema"]
        .as_object_mut()
        .unwrap()
        .remove("type")
        .unwrap();
    let broken_tools = t.join("srv/broken.json");
    write_json(&broken_tools, &broken);

    let plugin = t.join("plugin");
    gen_plugin(&catalog_serving(&t.join("cat/ix.yaml"), &tools), &plugin);
    let bad_plugin = t.join("bad-plugin");
    gen_plugin(&catalog_serving(&t.join("bad-cat/ix.yaml"), &broken_tools), &bad_plugin);
    let manifest = plugin.join(".claude-plugin/plugin.json");

    // Every check on both versions, all at once. 2.1.197 prints screen text only; 2.1.330's
    // reports are read as JSON.
    let mut runs: Vec<ClaudeRun<'_>> = Vec::new();
    for (version, _) in claude_versions() {
        let json: &[&OsStr] = if version == "2.1.197" { &[] } else { &[os("--json")] };
        runs.push((format!("{version}-version"), version, vec![os("--version")]));
        runs.push((
            format!("{version}-validate-dir"),
            version,
            args_and(
                &[os("plugin"), os("validate"), plugin.as_os_str(), os("--strict")],
                json,
            ),
        ));
        runs.push((
            format!("{version}-validate-manifest"),
            version,
            args_and(
                &[os("plugin"), os("validate"), manifest.as_os_str(), os("--strict")],
                json,
            ),
        ));
        runs.push((
            format!("{version}-mcp-list"),
            version,
            vec![os("--plugin-dir"), plugin.as_os_str(), os("mcp"), os("list")],
        ));
        runs.push((
            format!("{version}-mcp-list-broken"),
            version,
            vec![os("--plugin-dir"), bad_plugin.as_os_str(), os("mcp"), os("list")],
        ));
    }
    runs.push((
        "2.1.330-directory".into(),
        "2.1.330",
        vec![
            os("plugin"),
            os("validate"),
            plugin.as_os_str(),
            os("--strict"),
            os("--profile"),
            os("directory"),
            os("--json"),
        ],
    ));
    let outs = run_claudes(&t.join("claude"), &runs);
    let get = |label: &str| &outs.iter().find(|(l, _)| l == label).unwrap().1;

    for (version, _) in claude_versions() {
        // The binary is the version the test claims it is.
        let out = get(&format!("{version}-version"));
        assert!(
            ok(out.clone(), "claude --version").starts_with(&format!("{version} ")),
            "Claude Code {version}: --version\n{}",
            text(out)
        );

        // `mcp list` exits 0 whatever the status: read the line.
        let out = get(&format!("{version}-mcp-list"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = server_line(&stdout, out);
        let command = format!("node {} {}", script("mcp-serve.mjs").display(), tools.display());
        assert!(
            line.contains(&command),
            "Claude Code {version}: the server runs the catalog's command `{command}`\n{}",
            text(out)
        );
        assert!(
            line.ends_with("- ✔ Connected"),
            "Claude Code {version} connected and fetched the tools\n{}",
            text(out)
        );
        // Negative: the same check sees a server whose tools Claude Code refuses.
        let out = get(&format!("{version}-mcp-list-broken"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = server_line(&stdout, out);
        assert!(
            !line.contains("✔ Connected") && line.contains("tools fetch failed"),
            "Claude Code {version}: a tool without inputSchema.type must not pass as connected\n{}",
            text(out)
        );
    }

    // 2.1.197, screen text. A marketplace.json beside plugin.json makes the dir a marketplace:
    // both must pass.
    let out = get("2.1.197-validate-dir");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && stdout.contains("Validating marketplace manifest")
            && stdout.contains("✔ Validation passed"),
        "Claude Code 2.1.197: claude plugin validate <dir> --strict\n{}",
        text(out)
    );
    let out = get("2.1.197-validate-manifest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("Validating plugin manifest") && stdout.contains("✔ Validation passed"),
        "Claude Code 2.1.197: claude plugin validate plugin.json --strict\n{}",
        text(out)
    );

    // 2.1.330, JSON reports: nothing to fix, by the runtime's rules and by the directory's.
    for (label, kind) in [
        ("2.1.330-validate-dir", "marketplace"),
        ("2.1.330-validate-manifest", "plugin"),
        ("2.1.330-directory", "marketplace"),
    ] {
        let out = get(label);
        let r = validate_report(out, label);
        assert!(out.status.success(), "Claude Code {label}\n{}", text(out));
        assert_eq!(r["strict"], json!(true), "{label}: {r}");
        assert_eq!(r["manifest"]["type"], json!(kind), "{label}: {r}");
        assert_eq!(r["manifest"]["errors"], json!([]), "{label}: {r}");
        assert_eq!(r["manifest"]["warnings"], json!([]), "{label}: {r}");
        let servers: Vec<&str> = r["provides"]["mcpServers"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: no provides.mcpServers in {r}"))
            .iter()
            .filter_map(|s| s["name"].as_str())
            .collect();
        assert_eq!(servers, ["ix-memory"], "{label}: what the plugin provides: {r}");
        // The hosts ixgen declared on the server, and no part left undeclared.
        assert_eq!(
            r["hosts"]["declared"],
            json!({"plugin": false, "servers": ["ix-memory"]}),
            "{label}: {r}"
        );
        let named: Vec<&str> = r["hosts"]["named"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: no hosts.named in {r}"))
            .iter()
            .filter_map(|h| h["host"].as_str())
            .collect();
        assert_eq!(named, IX_HOSTS, "{label}: {r}");
    }
    let r = validate_report(get("2.1.330-directory"), "--profile directory");
    assert_eq!(r["directory"]["profile"], json!("directory"), "{r}");
    assert_eq!(finding_codes(&r), BTreeSet::new(), "no plugin-directory finding: {r}");
    assert_eq!(r["directory"]["undecided"], json!([]), "{r}");
    assert_eq!(r["directory"]["incomplete"], json!(false), "{r}");
    // Advice does not change the verdict, but it is something left to do by hand (the
    // README's install line, for one).
    assert_eq!(r["advice"], json!([]), "{r}");

    // `.mcp.json`, which 2.1.197's validator does not read.
    let mcp = read_json(&plugin.join(".mcp.json"));
    assert_eq!(keys(&mcp), set(&["mcpServers"]), ".mcp.json: {mcp}");
    assert_eq!(keys(&mcp["mcpServers"]), set(&["ix-memory"]), ".mcp.json: {mcp}");
    let server = &mcp["mcpServers"]["ix-memory"];
    assert_eq!(
        keys(server),
        set(&["command", "args", "env", "network"]),
        ".mcp.json server: {server}"
    );
    assert_eq!(server["command"], json!("node"), "{server}");
    assert_eq!(
        string_array(&server["args"], "args"),
        [
            script("mcp-serve.mjs").display().to_string(),
            tools.display().to_string()
        ],
        "{server}"
    );
    assert_eq!(server["env"], json!({}), "{server}");
    assert_eq!(server["network"], json!({"hosts": IX_HOSTS}), "{server}");

    // plugin.json and marketplace.json as HOSTS.md describes them.
    let manifest = read_json(&manifest);
    let name = manifest["name"]
        .as_str()
        .unwrap_or_else(|| panic!("plugin.json has no name: {manifest}"));
    assert!(!name.is_empty() && !name.contains(' '), "plugin name {name:?}");
    assert!(
        manifest["author"].is_object(),
        "plugin.json author is an object: {manifest}"
    );
    let market = read_json(&plugin.join(".claude-plugin/marketplace.json"));
    assert!(
        market["name"].as_str().is_some_and(|s| !s.is_empty()),
        "marketplace name: {market}"
    );
    assert!(
        market["owner"]["name"].as_str().is_some_and(|s| !s.is_empty()),
        "marketplace owner.name: {market}"
    );
    let plugins = market["plugins"]
        .as_array()
        .unwrap_or_else(|| panic!("marketplace plugins: {market}"));
    assert_eq!(plugins.len(), 1, "{market}");
    assert!(
        plugins[0]["source"].as_str().is_some_and(|s| s.starts_with("./")),
        "plugins[0].source starts with ./: {market}"
    );
    assert_eq!(
        plugins[0]["name"].as_str(),
        Some(name),
        "the marketplace lists this plugin: {market}"
    );
    for k in ["description", "version"] {
        assert!(plugins[0][k].is_string(), "plugins[0].{k}: {market}");
    }
}

/// Where the two versions disagree, and why ixgen writes the icon and the hosts where it does:
/// `icon` and `network` in `plugin.json` pass 2.1.330 but are unknown fields to 2.1.197, which
/// refuses them under `--strict`. And the negative of the directory check: the plugin as
/// ixgen wrote it before (no README, no icon, no hosts) fails 2.1.330's `--profile directory`.
#[test]
fn plugin_json_icon_and_network_pass_claude_code_2_1_330_and_fail_2_1_197() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (tools, _) = gen_mcp(&t.join("srv"), &[]);
    let catalog = catalog_serving(&t.join("cat/ix.yaml"), &tools);

    // The manifest fields 2.1.330 documents, on a plugin that is otherwise ixgen's.
    let fields = t.join("fields");
    gen_plugin(&catalog, &fields);
    let manifest_path = fields.join(".claude-plugin/plugin.json");
    let mut manifest = read_json(&manifest_path);
    manifest["icon"] = json!("./.claude-plugin/icon.png");
    manifest["network"] = json!({"hosts": IX_HOSTS});
    write_json(&manifest_path, &manifest);

    // The plugin without what the directory asks for.
    let bare = t.join("bare");
    gen_plugin(&catalog, &bare);
    for f in ["README.md", ".claude-plugin/icon.png"] {
        std::fs::remove_file(bare.join(f)).unwrap_or_else(|e| panic!("ixgen wrote no {f}: {e}"));
    }
    let mcp_path = bare.join(".mcp.json");
    let mut mcp = read_json(&mcp_path);
    mcp["mcpServers"]["ix-memory"]
        .as_object_mut()
        .unwrap()
        .remove("network");
    write_json(&mcp_path, &mcp);

    fn strict(dir: &Path) -> [&OsStr; 4] {
        [os("plugin"), os("validate"), dir.as_os_str(), os("--strict")]
    }
    let directory = [os("--profile"), os("directory"), os("--json")];
    let runs: Vec<ClaudeRun<'_>> = vec![
        ("fields-2.1.197".into(), "2.1.197", strict(&fields).to_vec()),
        (
            "fields-2.1.330".into(),
            "2.1.330",
            args_and(&strict(&fields), &directory),
        ),
        ("bare-2.1.330".into(), "2.1.330", args_and(&strict(&bare), &directory)),
    ];
    let outs = run_claudes(&t.join("claude"), &runs);
    let get = |label: &str| &outs.iter().find(|(l, _)| l == label).unwrap().1;

    let out = get("fields-2.1.330");
    let r = validate_report(out, "2.1.330 with icon and network in plugin.json");
    assert!(
        out.status.success() && r["manifest"]["warnings"] == json!([]) && finding_codes(&r).is_empty(),
        "Claude Code 2.1.330 accepts `icon` and `network` in plugin.json under --strict --profile directory\n{}",
        text(out)
    );
    assert_eq!(r["hosts"]["declared"]["plugin"], json!(true), "{r}");

    let out = get("fields-2.1.197");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success()
            && stdout.contains("network: Unknown field 'network'")
            && stdout.contains("icon: Unknown field 'icon'")
            && stdout.contains("--strict treats warnings as errors"),
        "Claude Code 2.1.197 refuses `icon` and `network` in plugin.json under --strict (so ixgen \
         writes .claude-plugin/icon.png and the server's network.hosts in .mcp.json instead)\n{}",
        text(out)
    );

    let out = get("bare-2.1.330");
    let r = validate_report(out, "2.1.330 on the plugin without README, icon and hosts");
    assert!(!out.status.success(), "{}", text(out));
    assert_eq!(
        finding_codes(&r),
        ["ICON_MISSING", "README_MISSING"].map(String::from).into(),
        "{r}"
    );
    // What the screen shows as "Hosts not declared": no declaration on the plugin or a server.
    assert_eq!(r["hosts"]["declared"], json!({"plugin": false, "servers": []}), "{r}");
}

// ─── 4. Cursor, VS Code, Gemini CLI, Codex ──────────────────────────────────────────────────

fn gen_configs(dir: &Path, extra: &[&str]) {
    let mut args = vec![
        os("--out"),
        dir.as_os_str(),
        os("generate"),
        os("claude"),
        os("cursor"),
        os("vscode"),
        os("gemini"),
        os("codex"),
        os("-q"),
    ];
    args.extend(extra.iter().map(os));
    ok(
        ixgen(&args),
        &format!("ixgen generate claude cursor vscode gemini codex {extra:?}"),
    );
}

fn codex_config(dir: &Path) -> toml::Table {
    let path = dir.join(".codex/config.toml");
    let s = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    s.parse::<toml::Table>()
        .unwrap_or_else(|e| panic!(".codex/config.toml is not TOML: {e}\n{s}"))
}

fn codex_server(config: &toml::Table) -> &toml::Table {
    let servers = config
        .get("mcp_servers")
        .and_then(|v| v.as_table())
        .unwrap_or_else(|| panic!("no [mcp_servers] in {config}"));
    assert_eq!(servers.keys().collect::<Vec<_>>(), ["ix-memory"], "{config}");
    let server = servers["ix-memory"].as_table().unwrap();
    for k in server.keys() {
        assert!(
            ["command", "args", "env", "enabled_tools", "disabled_tools"].contains(&k.as_str()),
            "unknown key {k} in [mcp_servers.ix-memory]: {config}"
        );
    }
    server
}

fn toml_strings(v: Option<&toml::Value>, what: &str) -> Vec<String> {
    v.and_then(|v| v.as_array())
        .unwrap_or_else(|| panic!("{what} is not an array: {v:?}"))
        .iter()
        .map(|s| {
            s.as_str()
                .unwrap_or_else(|| panic!("{what} holds a non-string: {s}"))
                .to_string()
        })
        .collect()
}

#[test]
fn the_other_hosts_configs_have_their_shapes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("all");
    gen_configs(&d, &[]);
    let server = json!({"command": "ix", "args": ["mcp"], "env": {}});

    assert_eq!(
        read_json(&d.join(".cursor/mcp.json")),
        json!({"mcpServers": {"ix-memory": server}}),
        ".cursor/mcp.json"
    );
    assert_eq!(
        read_json(&d.join(".vscode/mcp.json")),
        json!({"servers": {"ix-memory": {"type": "stdio", "command": "ix", "args": ["mcp"], "env": {}}}}),
        ".vscode/mcp.json"
    );

    let gemini = read_json(&d.join("gemini-extension.json"));
    assert_eq!(
        keys(&gemini),
        set(&["name", "version", "description", "mcpServers", "excludeTools"]),
        "gemini-extension.json: {gemini}"
    );
    assert_eq!(gemini["name"], json!("ix"), "{gemini}");
    // The extension's version is the catalog's product version.
    let product = std::fs::read_to_string(support::root().join("catalog/ix.yaml")).unwrap();
    let version = product
        .lines()
        .find_map(|l| l.strip_prefix("  version: "))
        .expect("catalog/ix.yaml has a product version");
    assert_eq!(gemini["version"], json!(version), "{gemini}");
    assert!(
        gemini["description"].as_str().is_some_and(|s| !s.is_empty()),
        "{gemini}"
    );
    assert_eq!(keys(&gemini["mcpServers"]), set(&["ix-memory"]), "{gemini}");
    let gs = &gemini["mcpServers"]["ix-memory"];
    for k in keys(gs) {
        assert!(
            ["command", "args", "cwd", "env"].contains(&k),
            "unknown key {k} in a Gemini server: {gemini}"
        );
    }
    assert_eq!(gs["command"], json!("ix"), "{gemini}");
    assert_eq!(gs["args"], json!(["mcp"]), "{gemini}");
    string_array(&gemini["excludeTools"], "excludeTools");

    let codex = codex_config(&d);
    let cs = codex_server(&codex);
    assert_eq!(cs.get("command").and_then(|v| v.as_str()), Some("ix"), "{codex}");
    assert_eq!(toml_strings(cs.get("args"), "args"), ["mcp"], "{codex}");
    assert!(
        cs.get("enabled_tools").is_none(),
        "no filter: every tool, no enabled_tools: {codex}"
    );

    // --read-only: every server is started with the catalog's --read-only flag, and Codex
    // also lists exactly the read tools.
    let r = tmp.path().join("read-only");
    gen_configs(&r, &["--read-only"]);
    let ends = |args: &[String], file: &str| {
        assert_eq!(
            args.last().map(String::as_str),
            Some("--read-only"),
            "{file}: args {args:?}"
        )
    };
    let claude_mcp = read_json(&r.join(".mcp.json"));
    ends(
        &string_array(&claude_mcp["mcpServers"]["ix-memory"]["args"], "args"),
        ".mcp.json",
    );
    let cursor = read_json(&r.join(".cursor/mcp.json"));
    ends(
        &string_array(&cursor["mcpServers"]["ix-memory"]["args"], "args"),
        ".cursor/mcp.json",
    );
    let vscode = read_json(&r.join(".vscode/mcp.json"));
    ends(
        &string_array(&vscode["servers"]["ix-memory"]["args"], "args"),
        ".vscode/mcp.json",
    );
    let gemini = read_json(&r.join("gemini-extension.json"));
    ends(
        &string_array(&gemini["mcpServers"]["ix-memory"]["args"], "args"),
        "gemini-extension.json",
    );
    let codex = codex_config(&r);
    let cs = codex_server(&codex);
    ends(&toml_strings(cs.get("args"), "args"), ".codex/config.toml");
    let enabled = toml_strings(cs.get("enabled_tools"), "enabled_tools");
    assert_eq!(enabled.len(), 23, "{enabled:?}");
    assert_eq!(
        enabled,
        read_tool_names(),
        "Codex enabled_tools is exactly the read tools"
    );
}

// ─── 5. the catalog's JSON Schema ───────────────────────────────────────────────────────────

fn yaml_to_json(src: &Path, dest: &Path) -> Value {
    let text = std::fs::read_to_string(src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    let v: Value = ixgen::catalog::yaml::from_str(&text)
        .unwrap_or_else(|e| panic!("{} does not convert to JSON: {e}", src.display()));
    write_json(dest, &v);
    v
}

#[test]
fn the_catalog_schema_accepts_the_catalogs_and_refuses_an_unknown_key() {
    let tmp = tempfile::tempdir().unwrap();
    let schema = tmp.path().join("catalog.schema.json");
    std::fs::write(&schema, ok(ixgen(&[os("schema")]), "ixgen schema")).unwrap();

    let catalogs = [
        "catalog/ix.yaml",
        "tests/fixtures/minimal/catalog.yaml",
        "tests/fixtures/hostile/catalog.yaml",
        "tests/fixtures/ipuaro/catalog.yaml",
        "tests/fixtures/git-iris/catalog.yaml",
        // The forms the loader reads besides the plain ones (a number where text is wanted, an
        // empty value for a list or map, `4000.0` for a whole number): no red in an editor.
        "tests/fixtures/loose/catalog.yaml",
    ];
    let loose = root().join(catalogs[5]);
    let out = ixgen(&[os("--catalog"), loose.as_os_str(), os("validate")]);
    ok(out, "the loader reads tests/fixtures/loose/catalog.yaml");
    let mut docs = Vec::new();
    for (i, c) in catalogs.iter().enumerate() {
        let dest = tmp.path().join(format!("catalog-{i}.json"));
        let v = yaml_to_json(&root().join(c), &dest);
        docs.push((c, dest, v));
    }
    std::thread::scope(|s| {
        for (c, dest, _) in &docs {
            let schema = &schema;
            s.spawn(move || {
                let out = node("validate-json.mjs", &[schema.as_os_str(), dest.as_os_str()]);
                ok(out, &format!("validate-json.mjs: {c} against `ixgen schema`"));
            });
        }
    });

    // Negatives: an unknown top-level key, added to the real catalog and as the broken fixture.
    let mut bad = docs[0].2.clone();
    bad.as_object_mut().unwrap().insert("toolz".into(), json!({}));
    let bad_file = tmp.path().join("unknown-key.json");
    write_json(&bad_file, &bad);
    let fixture = tmp.path().join("unknown-top-key.json");
    yaml_to_json(&root().join("tests/fixtures/broken/unknown-top-key.yaml"), &fixture);
    for (doc, key) in [(&bad_file, "toolz"), (&fixture, "toolset")] {
        let out = node("validate-json.mjs", &[schema.as_os_str(), doc.as_os_str()]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "a catalog with the unknown top-level key `{key}` must fail the schema\n{}",
            text(&out)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("\"additionalProperty\":\"{key}\"")),
            "the failure names `{key}`\n{}",
            text(&out)
        );
    }
    // What the loader refuses and a schema can say: a format version other than 1, a context
    // default that is neither a number nor text.
    for (i, edit) in [
        &(|v: &mut Value| v["version"] = json!(2)) as &dyn Fn(&mut Value),
        &|v: &mut Value| v["context"]["session"]["default"] = json!(true),
    ]
    .into_iter()
    .enumerate()
    {
        let mut bad = docs[0].2.clone();
        edit(&mut bad);
        let file = tmp.path().join(format!("refused-{i}.json"));
        write_json(&file, &bad);
        let out = node("validate-json.mjs", &[schema.as_os_str(), file.as_os_str()]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "case {i} must fail the schema\n{}",
            text(&out)
        );
    }
}
