//! Each lint has a catalog under `tests/fixtures/lints/` that trips it; its first line says which
//! and how bad: `# expect: <fixture> warning|error`. Warnings leave `validate` at exit 0 and are
//! findings under `--strict` (exit 1); errors make the catalog invalid (exit 2) always. The
//! schema lints that a catalog cannot express (`oneOf`, `$schema`, arrays without items) are
//! tripped by `tests/fixtures/broken/`, and the rendered schemas are checked here.

use assert_cmd::Command;

fn validate(path: &std::path::Path, strict: bool) -> (i32, serde_json::Value) {
    let mut c = Command::cargo_bin("ixgen").unwrap();
    c.arg("--catalog").arg(path).args(["validate", "--format", "json"]);
    if strict {
        c.arg("--strict");
    }
    let out = c.output().unwrap();
    (out.status.code().unwrap(), serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn each_lint_fixture_trips_its_lint() {
    // Catalogs, and the icon beside them (an icon stays inside its catalog's folder).
    let mut fixtures: Vec<_> = std::fs::read_dir("tests/fixtures/lints")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 5);
    for path in fixtures {
        let first = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string();
        let mut words = first.trim_start_matches("# expect: ").split(' ');
        let (name, severity) = (words.next().unwrap().to_string(), words.next().unwrap().to_string());
        let code = if name.starts_with("host-name-length") {
            "host-name-length".to_string()
        } else if name.starts_with("no-effect") {
            "no-effect".to_string()
        } else {
            name.clone()
        };
        let (exit, report) = validate(&path, false);
        let diags = report["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{name}: {diags:#?}");
        assert_eq!(diags[0]["code"], code.as_str(), "{name}");
        assert_eq!(diags[0]["severity"], severity.as_str(), "{name}");
        assert!(diags[0]["line"].as_u64().is_some(), "{name}: the lint points at a line");
        let (strict_exit, strict_report) = validate(&path, true);
        // A failure's JSON has what every command's JSON failure has (README, "Exit codes").
        assert_eq!(strict_report["exit_code"], strict_exit, "{name}");
        assert!(
            strict_report["error"].as_str().is_some_and(|e| e.contains(" in ")),
            "{name}"
        );
        assert_eq!(strict_report["valid"], false, "{name}");
        match severity.as_str() {
            "warning" => assert_eq!(
                (exit, strict_exit),
                (0, 1),
                "{name}: a warning, a finding under --strict (exit 1: the catalog is valid)"
            ),
            _ => assert_eq!((exit, strict_exit), (2, 2), "{name}: an error"),
        }
    }
}

#[test]
fn claude_names_are_measured_with_their_host_prefix() {
    let (_, report) = validate(
        std::path::Path::new("tests/fixtures/lints/host-name-length-claude.yaml"),
        false,
    );
    let msg = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("mcp__plugin_demo_demo__wipe_every_cache_entry_of_every_workspace_now"),
        "{msg}"
    );
    assert!(msg.contains("over the model API's limit of 64"), "{msg}");
}

#[test]
fn rendered_input_schemas_follow_the_host_rules() {
    let dir = tempfile::tempdir().unwrap();
    Command::cargo_bin("ixgen")
        .unwrap()
        .arg("--out")
        .arg(dir.path())
        .args(["mcp", "-q"])
        .assert()
        .success();
    let tools: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mcp/tools.json")).unwrap()).unwrap();
    for t in tools["tools"].as_array().unwrap() {
        let schema = &t["inputSchema"];
        let problems = ixgen::hosts::mcp::lint_input_schema(schema);
        assert!(problems.is_empty(), "{}: {problems:?}", t["name"]);
        let name = t["name"].as_str().unwrap();
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'),
            "{name}"
        );
    }
    // The lint itself catches each rule.
    use serde_json::json;
    assert!(!ixgen::hosts::mcp::lint_input_schema(&json!({"type": "object", "oneOf": []})).is_empty());
    assert!(
        !ixgen::hosts::mcp::lint_input_schema(&json!({"type": "object", "properties": {"a": {"type": "array"}}}))
            .is_empty()
    );
    assert!(
        !ixgen::hosts::mcp::lint_input_schema(
            &json!({"type": "object", "properties": {"a": {"$schema": "x", "type": "string"}}})
        )
        .is_empty()
    );
    assert!(
        !ixgen::hosts::mcp::lint_input_schema(&json!({"type": "object"})).is_empty(),
        "a tool without parameters must say additionalProperties: false"
    );
    assert!(ixgen::hosts::mcp::lint_input_schema(&json!({"type": "object", "additionalProperties": false})).is_empty());
}

#[test]
fn a_tool_without_parameters_is_a_closed_empty_object() {
    let dir = tempfile::tempdir().unwrap();
    Command::cargo_bin("ixgen")
        .unwrap()
        .arg("--out")
        .arg(dir.path())
        .args(["mcp", "-q"])
        .assert()
        .success();
    let tools: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mcp/tools.json")).unwrap()).unwrap();
    let stats = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "stats")
        .unwrap();
    // `stats` has only the shared `format` parameter; check a catalog tool that has none at all.
    assert!(stats["inputSchema"]["properties"].is_object());
    let minimal = tempfile::tempdir().unwrap();
    Command::cargo_bin("ixgen")
        .unwrap()
        .args(["--catalog", "tests/fixtures/minimal/catalog.yaml", "--out"])
        .arg(minimal.path())
        .args(["mcp", "-q"])
        .assert()
        .success();
    let tools: serde_json::Value =
        serde_json::from_slice(&std::fs::read(minimal.path().join("mcp/tools.json")).unwrap()).unwrap();
    let wipe = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "wipe")
        .unwrap();
    assert_eq!(
        wipe["inputSchema"],
        serde_json::json!({"type": "object", "additionalProperties": false})
    );
}

#[test]
fn budget_reports_each_host_in_characters_and_tokens() {
    let out = Command::cargo_bin("ixgen")
        .unwrap()
        .args(["budget", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hosts = v["hosts"].as_array().unwrap();
    let mcp = hosts.iter().find(|h| h["host"] == "mcp").unwrap();
    assert_eq!(mcp["tools"].as_array().unwrap().len(), 28);
    let sum: u64 = mcp["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["definition_chars"].as_u64().unwrap())
        .sum();
    assert_eq!(mcp["definition_chars"].as_u64().unwrap(), sum);
    assert!(
        mcp["description_chars"].as_u64().unwrap() <= 4096,
        "the seed's 4 KB budget for the 28 tools"
    );
    assert_eq!(mcp["tokens"].as_u64().unwrap(), sum.div_ceil(4));
    assert!(hosts.iter().any(|h| h["host"] == "opencode") && hosts.iter().any(|h| h["host"] == "session"));
}

/// `targets.opencode.server: false`: `opencode.json` gets the permission rule of the tool that
/// confirms and no MCP server, so OpenCode lists each tool once (the `opencode-twice` fixture is
/// the same catalog without it); `server` without `config` has no effect and says so.
#[test]
fn server_false_writes_only_the_permission_rules() {
    let dir = tempfile::tempdir().unwrap();
    let twice = std::fs::read_to_string("tests/fixtures/lints/opencode-twice.yaml").unwrap();
    let once = twice.replace("config: opencode.json}", "config: opencode.json, server: false}");
    assert_ne!(once, twice);
    let catalog = dir.path().join("catalog.yaml");
    std::fs::write(&catalog, &once).unwrap();
    let (exit, report) = validate(&catalog, true);
    assert_eq!(
        (exit, report["diagnostics"].as_array().unwrap().len()),
        (0, 0),
        "{report:#}"
    );
    let out = dir.path().join("out");
    Command::cargo_bin("ixgen")
        .unwrap()
        .arg("--catalog")
        .arg(&catalog)
        .arg("--out")
        .arg(&out)
        .args(["generate", "-q", "opencode"])
        .assert()
        .success();
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("opencode.json")).unwrap()).unwrap();
    assert_eq!(config["permission"], serde_json::json!({"wipe": "ask"}));
    assert!(config.get("mcp").is_none(), "{config:#}");

    let pointless = twice.replace("config: opencode.json}", "server: false}");
    std::fs::write(&catalog, pointless).unwrap();
    let (exit, report) = validate(&catalog, false);
    assert_eq!(exit, 0);
    assert_eq!(report["diagnostics"][0]["code"], "no-effect", "{report:#}");
}

#[test]
fn a_null_default_is_reported_however_yaml_spells_it() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string("tests/fixtures/lints/no-effect-default-null.yaml").unwrap();
    // Every spelling YAML reads as null, and a null in flow style: each is one warning at its
    // key, and the parameter then has no default.
    for (i, spelling) in ["~", "NULL", "!!null ''", "", "Null"].iter().enumerate() {
        let text = base.replace("default: null}", &format!("default: {spelling}}}"));
        assert_ne!(text, base);
        let catalog = dir.path().join(format!("c{i}.yaml"));
        std::fs::write(&catalog, &text).unwrap();
        let (exit, report) = validate(&catalog, false);
        let diags = report["diagnostics"].as_array().unwrap();
        assert_eq!((exit, diags.len()), (0, 1), "{spelling:?}: {report:#}");
        assert_eq!(diags[0]["code"], "no-effect");
        let line = text.lines().position(|l| l.contains("kind: {type: enum")).unwrap() + 1;
        let col = text.lines().nth(line - 1).unwrap().find("default:").unwrap() + 1;
        assert_eq!(
            (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
            (Some(line as u64), Some(col as u64)),
            "{spelling:?}"
        );
    }
    // A default that is written and not null is no finding.
    let text = base.replace("default: null}", "default: class}");
    std::fs::write(dir.path().join("ok.yaml"), &text).unwrap();
    let (exit, report) = validate(&dir.path().join("ok.yaml"), true);
    assert_eq!(
        (exit, report["diagnostics"].as_array().unwrap().len()),
        (0, 0),
        "{report:#}"
    );
}
