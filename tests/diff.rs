//! `ixgen diff`: one before/after catalog pair per rule under `tests/fixtures/diff/<case>/`
//! (each `after.yaml` changes one thing in the same base catalog; `several-fields-changed` changes
//! several fields of one tool, for the messages that list them), with the findings, surfaces,
//! suggested bump and exit code each must give; renames with and without `renamed_from`; the
//! version checks; `lint.breaking`; bad input; a temporary git repository read at `HEAD~1` and
//! at a tag; and the four output formats.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

const FIXTURES: &str = "tests/fixtures/diff";

/// (case, findings as (rule, class, surfaces, tool), suggested bump, exit code). The base
/// catalog's surfaces: OpenCode gets `lookup` and `wipe`; the session tools `task_add`; MCP
/// tools/list, Claude Code and Cursor get `lookup`, `wipe` and `search` from the server.
type Expect = (
    &'static str,
    &'static str,
    &'static [&'static str],
    Option<&'static str>,
);
const ALL_OF_LOOKUP: &[&str] = &["opencode", "mcp", "claude", "cursor"];
const SERVER: &[&str] = &["mcp", "claude", "cursor"];
const CASES: &[(&str, &[Expect], &str, i32)] = &[
    (
        "nullable-removed",
        &[("nullable-removed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "nullable-added",
        &[("nullable-added", "compatible", ALL_OF_LOOKUP, Some("lookup"))],
        "minor",
        0,
    ),
    (
        "equals-context-added",
        &[("equals-context-added", "breaking", &["session"], Some("task_add"))],
        "major",
        1,
    ),
    (
        "equals-context-removed",
        &[("equals-context-removed", "compatible", &["session"], Some("task_add"))],
        "minor",
        0,
    ),
    (
        "keep-empty-changed",
        &[("keep-empty-changed", "behaviour", &["session"], Some("task_add"))],
        "minor",
        0,
    ),
    (
        "confirm-added",
        &[("confirm-added", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    // `wipe` stops being destructive and asks for confirmation: the confirmation did not follow
    // `destructive` (which would take it away), it is new.
    (
        "confirm-added-as-no-longer-destructive",
        &[
            ("confirm-added", "breaking", &["opencode"], Some("wipe")),
            // `wipe` reaches the surfaces `lookup` does.
            ("hints-changed", "behaviour", ALL_OF_LOOKUP, Some("wipe")),
        ],
        "major",
        1,
    ),
    // A rule's message, and the order of its parameters, change no call it accepts.
    ("rule-message-and-order-changed", &[], "none", 0),
    (
        "confirm-changed",
        &[("confirm-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "rule-added",
        &[("rule-added", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    (
        "rule-removed",
        &[("rule-removed", "compatible", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "output-changed-schema",
        &[("output-changed", "behaviour", SERVER, Some("lookup"))],
        "minor",
        0,
    ),
    (
        "surface-removed",
        &[("surface-removed", "breaking", &["cursor"], None)],
        "major",
        1,
    ),
    // The server is launched with the catalog's read-only filter as an exact tool list
    // (`--enable-tools lookup,search`): the list in another order is the same filter, and a
    // tool more in it is that tool's addition, not a new command line.
    ("server-filter-list-reordered", &[], "none", 0),
    // The same expression with other spacing, a comment and a block scalar's line break.
    ("compute-rewritten", &[], "none", 0),
    (
        "server-filter-list-grown",
        &[("tool-added", "compatible", SERVER, Some("ping"))],
        "minor",
        0,
    ),
    // A host before others in the registry: only its surface is gone.
    (
        "surface-removed-before-others",
        &[("surface-removed", "breaking", &["mcp"], None)],
        "major",
        1,
    ),
    (
        "surface-added",
        &[("surface-added", "compatible", &["vscode"], None)],
        "minor",
        0,
    ),
    (
        "tool-removed",
        &[("tool-removed", "breaking", SERVER, Some("search"))],
        "major",
        1,
    ),
    (
        "tool-rename-without-renamed-from",
        &[
            ("tool-removed", "breaking", SERVER, Some("search")),
            ("tool-added", "compatible", SERVER, Some("find")),
        ],
        "major",
        1,
    ),
    (
        "tool-renamed",
        &[("tool-renamed", "breaking", SERVER, Some("find"))],
        "major",
        1,
    ),
    ("tool-removed-on-no-surface", &[], "none", 0),
    ("tool-renamed-on-no-surface", &[], "none", 0),
    // A `path` is a `string` in every schema: only the tool that checks it (OpenCode) changed.
    (
        "param-type-string-to-path",
        &[("param-type-changed", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    (
        "param-items-description-changed",
        &[("description-changed", "cosmetic", &["mcp"], Some("tag"))],
        "patch",
        0,
    ),
    (
        "tool-renamed-own-subject",
        &[("tool-renamed", "breaking", &["opencode"], Some("purge"))],
        "major",
        1,
    ),
    (
        "tool-renamed-where-run",
        &[("tool-renamed", "breaking", ALL_OF_LOOKUP, Some("clear"))],
        "major",
        1,
    ),
    (
        "tool-id-changed",
        &[
            ("tool-id-changed", "breaking", &["claude", "cursor"], Some("lookup")),
            ("tool-id-changed", "breaking", &["claude", "cursor"], Some("wipe")),
            ("tool-id-changed", "breaking", &["claude", "cursor"], Some("search")),
        ],
        "major",
        1,
    ),
    (
        "toolset-member-removed",
        &[("toolset-member-removed", "breaking", &["opencode"], Some("wipe"))],
        "major",
        1,
    ),
    (
        "toolset-member-removed-unused-toolset",
        &[("toolset-member-removed", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    (
        "toolset-removed",
        &[("toolset-removed", "breaking", &["opencode"], None)],
        "major",
        1,
    ),
    (
        "toolset-member-added",
        &[("toolset-member-added", "compatible", &["opencode"], Some("search"))],
        "minor",
        0,
    ),
    (
        "tool-added",
        &[("tool-added", "compatible", &["opencode"], Some("ping"))],
        "minor",
        0,
    ),
    (
        "param-removed",
        &[("param-removed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "param-rename-without-renamed-from",
        &[
            ("param-removed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("param-added-optional", "compatible", ALL_OF_LOOKUP, Some("lookup")),
        ],
        "major",
        1,
    ),
    (
        "param-renamed",
        &[("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    // Renamed where the steps, route, heading, a condition, a rule and a compute expression use
    // them: the rename is all that changed (no step-changed, route-changed, output-changed or
    // rule-added).
    (
        "param-renamed-where-used",
        &[
            ("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
        ],
        "major",
        1,
    ),
    // The same renames beside a changed condition: that change is still found.
    (
        "param-renamed-and-step-changed",
        &[
            ("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("param-renamed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("step-changed", "behaviour", &["opencode"], Some("lookup")),
        ],
        "major",
        1,
    ),
    (
        "param-required-added",
        &[("param-required-added", "breaking", SERVER, Some("search"))],
        "major",
        1,
    ),
    (
        "param-became-required",
        &[("param-became-required", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "param-type-changed",
        &[("param-type-changed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "enum-value-removed",
        &[("enum-value-removed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "enum-value-added",
        &[("enum-value-added", "compatible", ALL_OF_LOOKUP, Some("lookup"))],
        "minor",
        0,
    ),
    (
        "bound-tightened",
        &[("bound-tightened", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    // Clamping turned off: the generated tools refuse what they clamped, and the MCP
    // definitions gain `minimum`/`maximum`, which clients enforce: every surface.
    (
        "bound-tightened-clamp",
        &[("bound-tightened", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "bound-relaxed",
        &[("bound-relaxed", "compatible", ALL_OF_LOOKUP, Some("lookup"))],
        "minor",
        0,
    ),
    (
        "pattern-added",
        &[("pattern-added", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "pattern-changed",
        &[("pattern-changed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        1,
    ),
    (
        "pattern-removed",
        &[("pattern-removed", "compatible", ALL_OF_LOOKUP, Some("lookup"))],
        "minor",
        0,
    ),
    (
        "tool-became-write",
        &[("tool-became-write", "breaking", SERVER, Some("search"))],
        "major",
        1,
    ),
    (
        "tool-became-destructive",
        &[("tool-became-destructive", "breaking", &["session"], Some("task_add"))],
        "major",
        1,
    ),
    // Steps and routes only matter where the generated tool runs them (the MCP server runs its own).
    (
        "cli-argv-changed",
        &[("cli-argv-changed", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    // `--limit={limit}` is the option `--limit` and a value: renaming the option is breaking.
    (
        "cli-argv-option-renamed-with-equals",
        &[("cli-argv-changed", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    // `--limit, "{limit}"` as `{opt: --limit, …}`: the same words, only given when there is a value.
    (
        "cli-argv-opt-form",
        &[("step-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "cli-argv-option-added",
        &[("cli-argv-changed", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    // The MCP hosts launch the server; the tools/list file does not.
    (
        "server-command-changed",
        &[("server-command-changed", "breaking", &["claude", "cursor"], None)],
        "major",
        1,
    ),
    (
        "server-env-changed",
        &[("server-env-changed", "behaviour", &["claude", "cursor"], None)],
        "minor",
        0,
    ),
    // Another value in the same command and options: the installed CLI accepts both.
    (
        "step-changed-values",
        &[("step-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "runtime-route-changed",
        &[("runtime-route-changed", "breaking", &["opencode"], Some("lookup"))],
        "major",
        1,
    ),
    (
        "store-step-changed",
        &[("store-step-changed", "breaking", &["session"], Some("task_add"))],
        "major",
        1,
    ),
    (
        "default-changed",
        &[("default-changed", "behaviour", ALL_OF_LOOKUP, Some("lookup"))],
        "minor",
        0,
    ),
    (
        "step-changed",
        &[("step-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    // A compute step runs nothing outside the tool: its expression is how the tool answers.
    (
        "step-changed-compute",
        &[("step-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "route-changed",
        &[("route-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "output-changed",
        &[("output-changed", "behaviour", &["opencode"], Some("lookup"))],
        "minor",
        0,
    ),
    (
        "several-fields-changed",
        &[
            ("route-changed", "behaviour", &["opencode"], Some("lookup")),
            ("output-changed", "behaviour", &["opencode"], Some("lookup")),
        ],
        "minor",
        0,
    ),
    (
        "hints-changed",
        &[("hints-changed", "behaviour", SERVER, Some("search"))],
        "minor",
        0,
    ),
    (
        "tier-changed",
        &[("tier-changed", "behaviour", SERVER, Some("search"))],
        "minor",
        0,
    ),
    (
        "param-added-optional",
        &[("param-added-optional", "compatible", SERVER, Some("search"))],
        "minor",
        0,
    ),
    (
        "param-became-optional",
        &[("param-became-optional", "compatible", SERVER, Some("search"))],
        "minor",
        0,
    ),
    (
        "description-changed",
        &[("description-changed", "cosmetic", SERVER, Some("search"))],
        "patch",
        0,
    ),
    // OpenCode shows no titles.
    (
        "title-changed",
        &[("title-changed", "cosmetic", SERVER, Some("lookup"))],
        "patch",
        0,
    ),
    (
        "ignored-by-lint",
        &[("tool-removed", "breaking", SERVER, Some("search"))],
        "none",
        0,
    ),
    (
        "versioned-breaking",
        &[("enum-value-removed", "breaking", ALL_OF_LOOKUP, Some("lookup"))],
        "major",
        0,
    ),
    (
        "order-within-a-tool",
        &[
            ("pattern-changed", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("param-became-required", "breaking", ALL_OF_LOOKUP, Some("lookup")),
            ("cli-argv-changed", "breaking", &["opencode"], Some("lookup")),
            ("runtime-route-changed", "breaking", &["opencode"], Some("lookup")),
            ("description-changed", "cosmetic", ALL_OF_LOOKUP, Some("lookup")),
            ("title-changed", "cosmetic", SERVER, Some("lookup")),
            ("description-changed", "cosmetic", ALL_OF_LOOKUP, Some("lookup")),
        ],
        "major",
        1,
    ),
    (
        "mixed",
        &[
            ("tool-removed", "breaking", SERVER, Some("search")),
            ("param-required-added", "breaking", &["session"], Some("task_add")),
            ("default-changed", "behaviour", ALL_OF_LOOKUP, Some("lookup")),
            ("enum-value-added", "compatible", ALL_OF_LOOKUP, Some("lookup")),
            ("description-changed", "cosmetic", ALL_OF_LOOKUP, Some("lookup")),
        ],
        "major",
        1,
    ),
];

fn ixgen() -> Command {
    let mut c = Command::cargo_bin("ixgen").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// `ixgen --catalog <after> diff --against <before> <args…>`: (exit code, stdout, stderr).
/// A finding that names what changed names every field, as the catalog names them: the route's
/// `output: json` is `output` (not the spec's `json` and `markdown_field`).
#[test]
fn a_finding_names_every_changed_field_as_the_catalog_does() {
    let (after, before) = case("several-fields-changed");
    let (code, out, err) = diff(&after, &before, &[]);
    assert_eq!(code, 0, "{err}");
    let said: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("changed its"))
        .map(str::trim)
        .collect();
    assert_eq!(
        said,
        [
            "route-changed: the runtime route `POST /v1/lookup` of `lookup` changed its `body`, `output`",
            "output-changed: the result of `lookup` changed its `heading`, `fallback`",
        ]
    );
}

fn diff(after: &Path, against: &str, args: &[&str]) -> (i32, String, String) {
    let out = ixgen()
        .arg("--catalog")
        .arg(after)
        .args(["diff", "--against", against])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn case(name: &str) -> (PathBuf, String) {
    let dir = Path::new(FIXTURES).join(name);
    (dir.join("after.yaml"), dir.join("before.yaml").display().to_string())
}

fn json_of(name: &str, args: &[&str]) -> (i32, Value) {
    let (after, before) = case(name);
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = diff(&after, &before, &all);
    assert!(code != 2, "{name}: {err}");
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{name}: {e}\n{out}")),
    )
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_rule_case_gives_its_findings_surfaces_and_bump() {
    for (name, expected, bump, code) in CASES {
        let (got_code, r) = json_of(name, &[]);
        let got: Vec<(String, String, Vec<String>, Option<String>)> = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["class"].as_str().unwrap().to_string(),
                    strs(&f["surfaces"]),
                    f["tool"].as_str().map(str::to_string),
                )
            })
            .collect();
        let want: Vec<(String, String, Vec<String>, Option<String>)> = expected
            .iter()
            .map(|(rule, class, surfaces, tool)| {
                (
                    rule.to_string(),
                    class.to_string(),
                    surfaces.iter().map(|s| s.to_string()).collect(),
                    tool.map(str::to_string),
                )
            })
            .collect();
        assert_eq!(got, want, "{name}: the findings");
        assert_eq!(r["bump"]["required"], *bump, "{name}: the bump");
        assert_eq!(got_code, *code, "{name}: the exit code");
        assert_eq!(r["ok"], *code == 0, "{name}: ok");
        // Every finding is located: where it was, where it is, or both.
        for f in r["findings"].as_array().unwrap() {
            assert!(
                !f["before"].is_null() || !f["after"].is_null(),
                "{name}: {f} has no location"
            );
        }
    }
}

#[test]
fn every_rule_has_a_case_and_every_case_is_checked() {
    for rule in ixgen::diff::Rule::ALL {
        assert!(
            CASES.iter().any(|(_, e, _, _)| e.iter().any(|(r, ..)| *r == rule.id())),
            "rule {} has no fixture case",
            rule.id()
        );
    }
    let mut dirs: Vec<String> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    for d in &dirs {
        assert!(CASES.iter().any(|(n, ..)| n == d), "fixture {d} is in no case");
    }
    assert_eq!(dirs.len(), CASES.len());
}

#[test]
fn list_rules_names_every_rule_with_its_class() {
    let out = ixgen()
        .args(["diff", "--list-rules"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    for rule in ixgen::diff::Rule::ALL {
        assert!(
            out.contains(&format!("  {:<24} ", rule.id())),
            "{} missing:\n{out}",
            rule.id()
        );
    }
    assert!(out.starts_with("breaking:\n"));
    // With --format json, the same rules as JSON, in the same order.
    let out = ixgen()
        .args(["diff", "--list-rules", "--format", "json"])
        .output()
        .unwrap();
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), ixgen::diff::Rule::ALL.len());
    assert_eq!(
        (ids[0], rules[0]["class"].as_str()),
        ("surface-removed", Some("breaking"))
    );
}

/// The 1-based line of the first line of `file` containing `needle`.
fn line_of(file: &Path, needle: &str) -> usize {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in {}", file.display()))
        + 1
}

#[test]
fn renames_are_a_removal_and_an_addition_unless_the_catalog_says_renamed_from() {
    // A tool renamed without `renamed_from`: `search` gone, `find` new, each located on its side.
    let (_, r) = json_of("tool-rename-without-renamed-from", &[]);
    let (after, before) = case("tool-rename-without-renamed-from");
    let f = &r["findings"];
    assert_eq!(f[0]["rule"], "tool-removed");
    assert_eq!(f[0]["before"]["line"], line_of(Path::new(&before), "- name: search"));
    assert!(f[0]["after"].is_null());
    // The removal says how to declare the rename it looks like.
    assert!(
        f[0]["message"]
            .as_str()
            .unwrap()
            .contains("declare `renamed_from: search`"),
        "{}",
        f[0]["message"]
    );
    assert_eq!(f[1]["rule"], "tool-added");
    assert_eq!(f[1]["after"]["line"], line_of(&after, "- name: find"));
    assert!(f[1]["before"].is_null());

    // A plain removal, with no tool like it, has no such hint.
    let (_, r) = json_of("tool-removed", &[]);
    assert_eq!(r["findings"][0]["message"], "tool `search` was removed");

    // With `renamed_from: search`: one rename, both sides located, the old name kept.
    let (_, r) = json_of("tool-renamed", &[]);
    let (after, before) = case("tool-renamed");
    let f = &r["findings"];
    assert_eq!(f.as_array().unwrap().len(), 1, "{f}");
    assert_eq!(f[0]["rule"], "tool-renamed");
    assert_eq!(f[0]["tool"], "find");
    assert_eq!(f[0]["previous_name"], "search");
    assert_eq!(f[0]["before"]["line"], line_of(Path::new(&before), "- name: search"));
    assert_eq!(f[0]["after"]["line"], line_of(&after, "renamed_from: search"));

    // The description of an array's items is found where it is, not at the parameter's own.
    let (_, r) = json_of("param-items-description-changed", &[]);
    let (after, _) = case("param-items-description-changed");
    let f = &r["findings"][0];
    assert_eq!(
        f["after"]["line"],
        line_of(&after, "description: One tag, lower case"),
        "{f}"
    );
    assert!(
        f["message"].as_str().unwrap().contains("of the items of parameter"),
        "{f}"
    );

    // The same for a parameter.
    let (_, r) = json_of("param-rename-without-renamed-from", &[]);
    let rules: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["param-removed", "param-added-optional"]);
    assert_eq!(r["findings"][0]["param"], "name_glob");
    assert!(
        r["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("declare `renamed_from: name_glob`")
    );
    assert_eq!(r["findings"][1]["param"], "glob");
    let (_, r) = json_of("param-renamed", &[]);
    assert_eq!(r["findings"].as_array().unwrap().len(), 1);
    assert_eq!(r["findings"][0]["rule"], "param-renamed");
    assert_eq!(r["findings"][0]["param"], "glob");
    assert!(r["findings"][0]["message"].as_str().unwrap().contains("`name_glob`"));
}

/// A number written another way (`10` → `10.0`) is the same value for every host: no finding,
/// in a parameter's default or a `default` rule; another value still is one.
#[test]
fn a_number_written_another_way_is_no_change() {
    let base = diff_base().replace("type: integer, default: 10,", "type: number, default: 10,");
    let rule = "    rules:\n      - default: {limit: 20}\n        when: {param: kind, equals: class}\n";
    let base = base.replacen(
        "    runtime: {method: POST",
        &format!("{rule}    runtime: {{method: POST"),
        1,
    );
    assert!(base.contains("default: {limit: 20}") && base.contains("type: number, default: 10,"));
    let tmp = tempfile::tempdir().unwrap();
    let before = tmp.path().join("before.yaml");
    std::fs::write(&before, &base).unwrap();
    let after = tmp.path().join("after.yaml");
    let findings = |text: &str| {
        std::fs::write(&after, text).unwrap();
        let (code, out, err) = diff(&after, before.to_str().unwrap(), &["--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        let rules: Vec<String> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect();
        rules
    };
    let same = base
        .replace("default: 10,", "default: 10.0,")
        .replace("{limit: 20}", "{limit: 2.0e1}");
    assert_eq!(findings(&same), Vec::<String>::new());
    assert_eq!(
        findings(&base.replace("default: 10,", "default: 10.5,")),
        ["default-changed"]
    );
    // A rule is compared whole: the old one goes, the new one comes, both `default-changed`.
    let rule_changed = findings(&base.replace("{limit: 20}", "{limit: 20.5}"));
    assert!(
        !rule_changed.is_empty() && rule_changed.iter().all(|r| r == "default-changed"),
        "{rule_changed:?}"
    );
    // A step's condition on a number.
    let condition = ("when: {step: find, failed: false}", "when: {param: limit, equals: 5}");
    assert_eq!(base.matches(condition.0).count(), 1);
    let base = base.replace(condition.0, condition.1);
    std::fs::write(&before, &base).unwrap();
    assert_eq!(
        findings(&base.replace("equals: 5}", "equals: 5.0}")),
        Vec::<String>::new()
    );
    assert_eq!(findings(&base.replace("equals: 5}", "equals: 6}")), ["step-changed"]);
    // A bound in an output schema.
    let (_, with_schema) = case("output-changed-schema");
    let schema = ("{hits: {type: integer}}", "{hits: {type: integer, minimum: 0}}");
    let base = std::fs::read_to_string(&with_schema)
        .unwrap()
        .replace(schema.0, schema.1);
    assert_eq!(base.matches(schema.1).count(), 2);
    std::fs::write(&before, &base).unwrap();
    assert_eq!(
        findings(&base.replace("minimum: 0}", "minimum: 0.0}")),
        Vec::<String>::new()
    );
    assert_eq!(
        findings(&base.replace("minimum: 0}", "minimum: 1}")),
        ["output-changed"]
    );
}

/// A message that shows a before and an after shows them differently, or says what changed
/// besides them: a change used to read "runs `demo explain {symbol}` instead of `demo explain
/// {symbol}`" when it was in something the command line did not show.
#[test]
fn a_message_never_shows_the_same_before_and_after() {
    let base = diff_base();
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let messages = |before: &str, after: &str| -> Vec<String> {
        let (b, a) = (write("before.yaml", before), write("after.yaml", after));
        let (code, out, err) = diff(&a, b.to_str().unwrap(), &["--format", "json", "--allow-breaking"]);
        assert_eq!(code, 0, "{err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        let findings = report["findings"].as_array().unwrap();
        findings
            .iter()
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect()
    };
    let explain = "run: [explain, \"{symbol}\"]";
    let cases: [(&str, &str, &str, &str); 5] = [
        (
            "  args: [mcp]",
            "  args: [mcp, --stdio]",
            "  args: [\"mcp --stdio\"]",
            "the MCP hosts launch the server as `demo 'mcp --stdio'` instead of `demo mcp --stdio`",
        ),
        (
            explain,
            explain,
            "run: [explain, \"{{symbol}}\"]",
            "`lookup` runs `demo explain {{symbol}}` instead of `demo explain {symbol}`",
        ),
        (
            explain,
            explain,
            "run: [explain, \"{symbol|code}\"]",
            "`lookup` runs `demo explain {symbol|code}` instead of `demo explain {symbol}`: the same command and options, with other values",
        ),
        (
            explain,
            explain,
            "run: [explain, \"{symbol}\"]\n        stdin: \"{symbol}\"",
            "`lookup` runs `demo explain {symbol}` with a changed `stdin`: the same command and options, with other values",
        ),
        (
            "status: remaining}",
            "status: remaining}",
            "status: open}",
            "`task_add` runs `store_append ralph.{session}.task` with a changed `meta`",
        ),
    ];
    for (from, old, new, want) in cases {
        assert_eq!(base.matches(from).count(), 1, "{from}");
        let got = messages(&base.replace(from, old), &base.replace(from, new));
        assert_eq!(got, [want], "{old} → {new}");
    }
}

#[test]
fn findings_point_at_the_changed_line_in_both_catalogs() {
    let (_, r) = json_of("enum-value-removed", &[]);
    let (after, before) = case("enum-value-removed");
    let f = &r["findings"][0];
    assert_eq!(f["before"]["file"], before);
    assert_eq!(f["after"]["file"], after.display().to_string());
    assert_eq!(f["before"]["line"], line_of(Path::new(&before), "kind: {type: enum"));
    assert_eq!(f["after"]["line"], line_of(&after, "kind: {type: enum"));
    assert!(f["message"].as_str().unwrap().contains("`function`"), "{f}");
}

#[test]
fn cosmetic_changes_carry_the_context_budget_per_host() {
    let (_, r) = json_of("description-changed", &[]);
    let tokens = r["findings"][0]["tokens"].as_i64().unwrap();
    assert!(tokens > 0, "a longer description costs more: {tokens}");
    let budget = r["budget"].as_array().unwrap();
    let delta = |s: &str| {
        budget.iter().find(|b| b["surface"] == s).unwrap()["delta"]
            .as_i64()
            .unwrap()
    };
    // `search` is served by the MCP server only: OpenCode sessions do not pay for it.
    assert_eq!(delta("opencode"), 0);
    assert_eq!(delta("claude"), tokens);
    assert_eq!(delta("cursor"), tokens);
    let (after, before) = case("description-changed");
    let (_, text, _) = diff(&after, &before, &[]);
    assert!(
        text.contains(&format!("+{tokens} tokens in every Claude Code session")),
        "{text}"
    );
}

/// A copy of a case's `after.yaml` with another `product.version`.
fn with_version(dir: &Path, name: &str, version: &str) -> PathBuf {
    let (after, _) = case(name);
    let text = std::fs::read_to_string(after).unwrap();
    assert!(text.contains("  version: 1.0.0\n"));
    let p = dir.join(format!("{name}-{version}.yaml"));
    std::fs::write(
        &p,
        text.replace("  version: 1.0.0\n", &format!("  version: {version}\n")),
    )
    .unwrap();
    p
}

#[test]
fn version_bumps_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, version: &str, args: &[&str]| {
        let after = with_version(tmp.path(), name, version);
        let (_, before) = case(name);
        diff(&after, &before, args)
    };
    // Cosmetic: a patch bump is enough, and only --require-bump asks for one.
    assert_eq!(run("description-changed", "1.0.0", &[]).0, 0);
    assert_eq!(run("description-changed", "1.0.0", &["--require-bump"]).0, 1);
    assert_eq!(run("description-changed", "1.0.1", &["--require-bump"]).0, 0);
    // Compatible: a minor bump.
    let (code, _, err) = run("tool-added", "1.0.1", &["--require-bump"]);
    assert_eq!(code, 1);
    assert!(err.contains("need a minor bump") && err.contains("1.1.0"), "{err}");
    assert_eq!(run("tool-added", "1.1.0", &["--require-bump"]).0, 0);
    // Breaking: a major bump, always checked; --allow-breaking accepts it with a minor one.
    let (code, _, err) = run("param-removed", "1.1.0", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("breaking change(s)") && err.contains("2.0.0"), "{err}");
    assert!(err.contains(":5:3"), "the error points at product.version: {err}");
    assert_eq!(run("param-removed", "2.0.0", &[]).0, 0);
    assert_eq!(run("param-removed", "1.0.0", &["--allow-breaking"]).0, 0);
    assert_eq!(
        run("param-removed", "1.0.0", &["--allow-breaking", "--require-bump"]).0,
        1
    );
    assert_eq!(
        run("param-removed", "1.1.0", &["--allow-breaking", "--require-bump"]).0,
        0
    );
    // Below 1.0.0 a breaking change needs the minor part raised (Cargo's rule).
    let (code, out, _) = run("param-removed", "0.9.0", &["--format", "json"]);
    assert_eq!(code, 1, "1.0.0 → 0.9.0 went down");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["bump"]["actual"], "lowered");
    // A version that went down fails --require-bump even with nothing to bump for.
    let tmp2 = tempfile::tempdir().unwrap();
    let (_, before) = case("surface-added");
    let same = with_version(tmp2.path(), "surface-added", "0.9.0");
    std::fs::write(
        &same,
        std::fs::read_to_string(&before)
            .unwrap()
            .replace("  version: 1.0.0\n", "  version: 0.9.0\n"),
    )
    .unwrap();
    let (code, _, err) = diff(&same, &before, &["--require-bump"]);
    assert_eq!(code, 1);
    assert!(err.contains("went down"), "{err}");
}

/// A release candidate of the next major version may break (cargo-semver-checks' rule): it
/// once counted as "enough for a minor change" and failed the release check.
#[test]
fn a_pre_release_may_carry_a_breaking_change() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, before) = case("param-removed");
    let after = with_version(tmp.path(), "param-removed", "2.0.0-rc.1");
    let (code, out, err) = diff(&after, &before, &["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["bump"]["actual"], "major");
    assert_eq!(r["bump"]["satisfied"], true);
    // The release notes are headed by the version released, not the suggested one.
    let (_, md, _) = diff(&after, &before, &["--format", "markdown"]);
    assert!(md.starts_with("## demo 2.0.0-rc.1\n"), "{md}");
}

/// A catalog value with an escape sequence or a direction override (a double-quoted `"\x1b"`
/// passes the catalog's character check) reaches the release notes and the CI log escaped, as
/// the text format shows it: it once colored the log and reversed the notes' text.
#[test]
fn markdown_and_annotations_escape_unprintable_values() {
    let tmp = tempfile::tempdir().unwrap();
    let (after, before) = case("enum-value-added");
    let text = std::fs::read_to_string(&after).unwrap();
    let hostile = text.replace(
        "[class, function, module]",
        r#"[class, function, "mod\x1b[31mule\u202egnp.exe"]"#,
    );
    assert_ne!(hostile, text);
    let after = tmp.path().join("after.yaml");
    std::fs::write(&after, hostile).unwrap();
    for format in ["markdown", "github"] {
        let (code, out, err) = diff(&after, &before, &["--format", format]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("enum-value-added"), "{out}");
        assert!(!out.contains(['\u{1b}', '\u{202e}']), "{format}: {out:?}");
        assert!(out.contains(r"mod\u{1b}[31mule\u{202e}gnp.exe"), "{format}: {out}");
    }
}

#[test]
fn zero_major_versions_follow_cargo() {
    let tmp = tempfile::tempdir().unwrap();
    let (after, before) = case("param-removed");
    let b = tmp.path().join("before.yaml");
    let a = tmp.path().join("after.yaml");
    let set = |from: &Path, to: &Path, v: &str| {
        let t = std::fs::read_to_string(from).unwrap();
        std::fs::write(to, t.replace("  version: 1.0.0\n", &format!("  version: {v}\n"))).unwrap();
    };
    set(Path::new(&before), &b, "0.4.2");
    set(&after, &a, "0.4.3");
    let (code, out, _) = diff(&a, b.to_str().unwrap(), &["--format", "json"]);
    assert_eq!(code, 1);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["bump"]["suggested_version"], "0.5.0");
    set(&after, &a, "0.5.0");
    assert_eq!(diff(&a, b.to_str().unwrap(), &[]).0, 0);
}

#[test]
fn lint_breaking_switches_rules_off() {
    let (code, r) = json_of("ignored-by-lint", &[]);
    assert_eq!(code, 0);
    assert_eq!(r["findings"][0]["ignored"], true);
    assert_eq!(r["bump"]["required"], "none");
    let (after, before) = case("ignored-by-lint");
    let (_, text, _) = diff(&after, &before, &[]);
    assert!(text.contains("tool-removed (ignored)"), "{text}");
    let (_, gh, _) = diff(&after, &before, &["--format", "github"]);
    assert!(!gh.contains("::error"), "an ignored finding is not annotated: {gh}");

    // An unknown rule id is bad input, located, with a suggestion.
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.yaml");
    let text = std::fs::read_to_string(&after)
        .unwrap()
        .replace("ignore: [cosmetic]", "ignore: [tool-remove]");
    std::fs::write(&bad, &text).unwrap();
    let (code, _, err) = diff(&bad, &before, &[]);
    assert_eq!(code, 2, "{err}");
    let line = line_of(&bad, "ignore: [tool-remove]");
    assert!(err.contains(&format!("bad.yaml:{line}:")), "{err}");
    assert!(err.contains("did you mean `tool-removed`"), "{err}");
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let (after, before) = case("tool-removed");
    // An invalid older catalog.
    let (code, _, err) = diff(&after, "tests/fixtures/broken/unknown-key.yaml", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("tests/fixtures/broken/unknown-key.yaml:35:60"), "{err}");
    // An invalid current catalog.
    let (code, _, err) = diff(Path::new("tests/fixtures/broken/unknown-key.yaml"), &before, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown-key.yaml:35:60"), "{err}");
    // A version that is not semver.
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("v.yaml");
    std::fs::write(
        &p,
        std::fs::read_to_string(&after)
            .unwrap()
            .replace("  version: 1.0.0\n", "  version: one\n"),
    )
    .unwrap();
    let (code, _, err) = diff(&p, &before, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("v.yaml:5:") && err.contains("not a semantic version"),
        "{err}"
    );
    // `validate` (a pre-commit hook) finds it before the release check does: a warning, since
    // only `diff` needs a semantic version; a finding under `--strict` (exit 1).
    for (strict, want) in [(false, 0), (true, 1)] {
        let mut v = ixgen();
        v.arg("--catalog").arg(&p).arg("validate");
        if strict {
            v.arg("--strict");
        }
        let out = v.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(want), "{err}");
        assert!(
            err.contains("v.yaml:5:") && err.contains("not a semantic version"),
            "{err}"
        );
    }
    // A rule `lint.breaking` names that `diff` does not have: an error for `validate` too.
    let l = tmp.path().join("l.yaml");
    let text = std::fs::read_to_string(&after).unwrap();
    std::fs::write(
        &l,
        text.replacen(
            "\ntoolsets:",
            "\nlint: {breaking: {ignore: [tool-remove]}}\ntoolsets:",
            1,
        ),
    )
    .unwrap();
    for args in [&["validate"][..], &["diff", "--against", &before][..]] {
        let out = ixgen().arg("--catalog").arg(&l).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no `ixgen diff` rule `tool-remove`"), "{args:?}: {err}");
    }
    // A catalog a host refuses (two tools given one id), as every other command refuses it.
    let hosts = "tests/fixtures/lints/host-id-collision.yaml";
    for args in [&["validate"][..], &["diff", "--against", hosts][..]] {
        let out = ixgen().args(["--catalog", hosts]).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("host-id-collision"), "{args:?}: {err}");
    }
    // A file that cannot be read as a catalog: the hint is about --against, not --catalog.
    let out = ixgen().args(["diff", "--against", "/dev/zero"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("pass --against an older catalog file or a git ref"),
        "{err}"
    );
    // `renamed_from` naming a tool that is still there.
    let p = tmp.path().join("r.yaml");
    let text = std::fs::read_to_string(&before)
        .unwrap()
        .replace("  - name: wipe\n", "  - name: wipe\n    renamed_from: lookup\n");
    std::fs::write(&p, text).unwrap();
    let (code, _, err) = diff(&p, &before, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("r.yaml:{}:", line_of(&p, "renamed_from: lookup"))),
        "{err}"
    );
    // Neither a file nor a ref.
    let (code, _, err) = diff(&after, "no-such-ref-or-file", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown git ref `no-such-ref-or-file`"), "{err}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "tag.gpgsign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An older catalog read from git that is broken is annotated without a file (`HEAD:…` is none
/// GitHub can place, and its lines are the old revision's): its name and place are in the message.
#[test]
fn a_broken_catalog_at_a_git_ref_is_annotated_without_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let cat = repo.join("catalog.yaml");
    git(repo, &["init", "-q"]);
    std::fs::copy("tests/fixtures/broken/unknown-key.yaml", &cat).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "broken"]);
    std::fs::copy("tests/fixtures/minimal/catalog.yaml", &cat).unwrap();
    let (code, out, _) = diff(&cat, "HEAD", &["--format", "github"]);
    assert_eq!(code, 2);
    assert!(
        out.starts_with("::error title=ixgen unknown-key::HEAD:") && out.contains("catalog.yaml:35:60: "),
        "{out}"
    );
}

#[test]
fn reads_the_catalog_at_a_git_ref_and_at_a_tag() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let (after, before) = case("tool-removed");
    std::fs::create_dir(repo.join("tools")).unwrap();
    let cat = repo.join("tools/catalog.yaml");
    git(repo, &["init", "-q"]);
    std::fs::copy(&before, &cat).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "first"]);
    // One commit: there is no HEAD~1.
    let (code, _, err) = diff(&cat, "HEAD~1", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown git ref `HEAD~1`"), "{err}");
    git(repo, &["tag", "v1.0.0"]);
    std::fs::copy(&after, &cat).unwrap();
    git(repo, &["commit", "-qam", "remove search"]);

    // From inside the repository, with a relative path.
    let out = ixgen()
        .current_dir(repo)
        .args([
            "--catalog",
            "tools/catalog.yaml",
            "diff",
            "--against",
            "HEAD~1",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["before"]["file"], "HEAD~1:tools/catalog.yaml");
    assert_eq!(r["findings"][0]["rule"], "tool-removed");
    assert_eq!(r["findings"][0]["before"]["file"], "HEAD~1:tools/catalog.yaml");

    // From elsewhere, with an absolute path, at the tag.
    let (code, out, err) = diff(&cat, "v1.0.0", &["--format", "json"]);
    assert_eq!(code, 1, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["before"]["file"], "v1.0.0:tools/catalog.yaml");

    // At HEAD nothing changed.
    let (code, out, _) = diff(&cat, "HEAD", &[]);
    assert_eq!(code, 0);
    assert!(out.contains("no changes to the tool surfaces"), "{out}");

    // A ref where the catalog did not exist yet.
    std::fs::copy(&cat, repo.join("tools/other.yaml")).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "other"]);
    let (code, _, err) = diff(&repo.join("tools/other.yaml"), "HEAD~1", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("`tools/other.yaml` does not exist at `HEAD~1`"), "{err}");
}

#[test]
fn the_embedded_catalog_is_compared_with_catalog_ix_yaml_at_the_ref() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    std::fs::create_dir(repo.join("catalog")).unwrap();
    let ix = std::fs::read_to_string("catalog/ix.yaml").unwrap();
    std::fs::write(repo.join("catalog/ix.yaml"), &ix).unwrap();
    git(repo, &["init", "-q"]);
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "ix"]);
    let out = ixgen()
        .current_dir(repo)
        .args(["diff", "--against", "HEAD"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // An older catalog without `ix-smells`: the embedded one adds it to OpenCode (and to the
    // rig tools of the rust target, which holds the same toolset).
    let start = ix
        .find("  - name: ix-smells\n")
        .expect("ix-smells is in the ix catalog");
    let end = ix[start + 1..]
        .find("\n  - name: ")
        .map_or(ix.len(), |e| start + 1 + e + 1);
    let older = format!("{}{}", &ix[..start], &ix[end..]).replace("      - ix-smells\n", "");
    std::fs::write(repo.join("catalog/ix.yaml"), older).unwrap();
    git(repo, &["commit", "-qam", "older"]);
    let out = ixgen()
        .current_dir(repo)
        .args(["diff", "--against", "HEAD", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["before"]["file"], "HEAD:catalog/ix.yaml");
    assert_eq!(r["after"]["file"], "catalog/ix.yaml");
    let f = &r["findings"][0];
    assert_eq!(f["rule"], "tool-added");
    assert_eq!(f["tool"], "ix-smells");
    assert_eq!(strs(&f["surfaces"]), ["opencode", "rust"]);
}

#[test]
fn output_formats() {
    let (after, before) = case("mixed");
    for format in ["text", "json", "github", "markdown"] {
        let (code, out, _) = diff(&after, &before, &["--format", format]);
        assert_eq!(code, 1);
        insta::assert_snapshot!(format!("diff_format_{format}"), out);
    }
}

#[test]
fn catalog_values_cannot_forge_annotations_or_markdown() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, before) = case("enum-value-added");
    let hostile = "x\n::error::forged`|*";
    let text = std::fs::read_to_string(&before).unwrap().replace(
        "values: [class, function]",
        &format!("values: [class, function, {}]", serde_json::to_string(hostile).unwrap()),
    );
    let after = tmp.path().join("after.yaml");
    std::fs::write(&after, text).unwrap();
    let (code, gh, err) = diff(&after, &before, &["--format", "github"]);
    assert_eq!(code, 0, "{err}");
    for line in gh.lines() {
        assert!(
            line.starts_with("::notice ") || line.starts_with("ixgen diff: "),
            "forged line: {line}"
        );
    }
    assert!(gh.contains("x%0A::error::forged"), "{gh}");
    let (_, md, _) = diff(&after, &before, &["--format", "markdown"]);
    let item = md.lines().find(|l| l.contains("forged")).unwrap();
    assert!(
        item.starts_with("- ") && item.contains("``x ::error::forged`|*``"),
        "{md}"
    );
    let (_, text, _) = diff(&after, &before, &[]);
    assert!(text.contains(r#""x\n::error::forged`|*""#), "{text}");
}

#[test]
fn diff_help_is_stable() {
    let out = ixgen()
        .args(["diff", "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    insta::assert_snapshot!("diff_help", String::from_utf8(out).unwrap());
}

#[test]
fn the_docs_describe_every_rule() {
    let doc = std::fs::read_to_string("docs/diff.md").unwrap();
    for rule in ixgen::diff::Rule::ALL {
        let row = format!("| `{}` | {} |", rule.id(), rule.class().id());
        assert!(doc.contains(&row), "docs/diff.md has no row {row}");
    }
    // And the rule table lists no rule that does not exist, nor one twice.
    let classes = ["breaking", "behaviour", "compatible", "cosmetic"];
    let listed: Vec<&str> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let id = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            classes.contains(cells.get(2)?).then_some(id)
        })
        .collect();
    for id in &listed {
        assert!(
            ixgen::diff::Rule::ALL.iter().any(|r| r.id() == *id),
            "docs/diff.md lists `{id}`, which is no rule"
        );
    }
    assert_eq!(
        listed.len(),
        ixgen::diff::Rule::ALL.len(),
        "docs/diff.md lists a rule twice"
    );
}

#[test]
fn budget_figures_are_the_ones_ixgen_budget_reports() {
    let budget: Value =
        serde_json::from_slice(&ixgen().args(["budget", "--format", "json"]).output().unwrap().stdout).unwrap();
    let (code, out, _) = diff(Path::new("catalog/ix.yaml"), "catalog/ix.yaml", &["--format", "json"]);
    assert_eq!(code, 0);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert!(r["findings"].as_array().unwrap().is_empty());
    for host in budget["hosts"].as_array().unwrap() {
        let name = host["host"].as_str().unwrap();
        let b = r["budget"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["surface"] == name)
            .unwrap_or_else(|| panic!("no surface {name}"));
        assert_eq!(b["tokens_after"], host["tokens"], "{name}");
        assert_eq!(b["delta"], 0);
    }
}

/// The entry of a JSON array whose `key` is `value`.
fn entry<'a>(array: &'a Value, key: &str, value: &str) -> &'a Value {
    let all = array.as_array().unwrap_or_else(|| panic!("not an array: {array}"));
    all.iter()
        .find(|e| e[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value} in {array}"))
}

#[test]
fn budget_list_and_diff_leave_out_what_the_catalogs_filters_leave_out() {
    // The diff fixtures' base catalog with `wipe` filtered out of every target.
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("c.yaml");
    let base = diff_base();
    std::fs::write(
        &catalog,
        base.replacen("\ntoolsets:", "\nfilters: {disable: [wipe]}\ntoolsets:", 1),
    )
    .unwrap();
    let run = |args: &[&str]| -> Value {
        let out = ixgen().arg("--catalog").arg(&catalog).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let budget = run(&["budget", "--format", "json"]);
    let opencode = entry(&budget["hosts"], "host", "opencode");
    let names: Vec<&str> = opencode["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["lookup"],
        "toolset `main` is lookup and wipe; the filter leaves out wipe"
    );
    // `diff` counts the budget as `budget` does.
    let (code, out, err) = diff(&catalog, &catalog.display().to_string(), &["--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    let surface = entry(&r["budget"], "surface", "opencode");
    assert_eq!(surface["tokens_after"], opencode["tokens"]);
    // `list` still lists the tool, with no id and the reason.
    let list = run(&["list", "--format", "json"]);
    let row = |name: &str| entry(&list, "name", name).clone();
    assert_eq!(row("wipe")["ids"], serde_json::json!({}));
    assert_eq!(row("wipe")["filtered"], true);
    assert_eq!(row("lookup")["ids"]["opencode"], "lookup");
    assert!(row("lookup").get("filtered").is_none());
    let text = ixgen().arg("--catalog").arg(&catalog).arg("list").output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let wipe = text.lines().find(|l| l.starts_with("wipe ")).unwrap();
    assert!(wipe.ends_with("left out by the catalog's `filters`"), "{wipe}");
}

/// New `filter_flags` change the command line the hosts launch only when a filter of the
/// catalog's is passed with them: without one, no host file changes, and there is no finding.
#[test]
fn filter_flags_change_the_launched_server_only_with_a_filter_to_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let base = diff_base();
    let flags = "  args: [mcp]\n  filter_flags: {disable_tools: --disable-tools}\n";
    for (filters, findings) in [("", 0), ("filters: {disable: [wipe]}\n", 1)] {
        let with = |flags_too: bool| {
            let text = base.replacen("\ntoolsets:", &format!("\n{filters}toolsets:"), 1);
            if flags_too {
                text.replacen("  args: [mcp]\n", flags, 1)
            } else {
                text
            }
        };
        let (before, after) = (tmp.path().join("before.yaml"), tmp.path().join("after.yaml"));
        std::fs::write(&before, with(false)).unwrap();
        std::fs::write(&after, with(true)).unwrap();
        let (code, out, err) = diff(&after, &before.display().to_string(), &["--format", "json"]);
        assert!(code != 2, "{err}");
        let r: Value = serde_json::from_str(&out).unwrap();
        let rules: Vec<&str> = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert_eq!(rules.len(), findings, "filters {filters:?}: {rules:?}");
        assert!(rules.iter().all(|r| *r == "server-command-changed"), "{rules:?}");
    }
}

#[test]
fn an_older_catalog_is_read_with_a_bound() {
    let (after, _) = case("tool-removed");
    // A device that never ends, and a (sparse) file larger than any catalog: refused once the
    // read passes the catalog limit, quickly, never read whole.
    let tmp = tempfile::tempdir().unwrap();
    let huge = tmp.path().join("huge.yaml");
    std::fs::File::create(&huge).unwrap().set_len(8 << 30).unwrap();
    for against in ["/dev/zero", huge.to_str().unwrap()] {
        let started = std::time::Instant::now();
        let (code, _, err) = diff(&after, against, &[]);
        assert_eq!(code, 2, "{against}: {err}");
        assert!(err.contains("larger than 32 MB"), "{against}: {err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{against}");
    }
}

#[test]
fn findings_on_what_the_generated_tools_check_fail_require_bump() {
    // Unchanged product.version: each of these needs a bump, so --require-bump fails.
    for name in [
        "nullable-removed",
        "nullable-added",
        "equals-context-added",
        "equals-context-removed",
        "keep-empty-changed",
        "confirm-added",
        "confirm-changed",
        "rule-added",
        "rule-removed",
        "output-changed-schema",
    ] {
        let (after, before) = case(name);
        let (code, out, err) = diff(&after, &before, &["--require-bump"]);
        assert_eq!(code, 1, "{name}: {out}{err}");
    }
}

/// Places in the diff fixtures' base catalog, each with the texts that may replace it: a
/// catalog is the base with one choice per place (0 keeps the base's text). Every combination
/// is a valid catalog, so two random choices are a random edit, in both directions.
const EDITS: &[(&str, &[&str])] = &[
    (
        "description: Narrow to one kind}",
        &["description: Narrow to one kind, nullable: true}"],
    ),
    (
        "description: A glob}",
        &[
            "description: A glob, keep_empty: true}",
            "description: A glob, nullable: true}",
        ],
    ),
    (
        "description: The task}",
        &[
            "description: The task, equals_context: session}",
            "description: The task, keep_empty: true}",
            "description: The task, keep_empty: true, equals_context: session}",
        ],
    ),
    (
        "    params:\n      symbol:",
        &["    confirm: true\n    params:\n      symbol:"],
    ),
    (
        "  - name: wipe\n",
        &[
            // An output schema is the schema of a step's data: a step that declares it comes with it.
            "      - id: hits\n        run: [hits, \"{symbol}\"]\n        json: {type: object, properties: {hits: {type: integer}}}\n    output_schema: {type: object, properties: {hits: {type: integer}}}\n  - name: wipe\n",
            "      - id: hits\n        run: [hits, \"{symbol}\"]\n        json: {type: object, properties: {hits: {type: string}}}\n    output_schema: {type: object, properties: {hits: {type: string}}}\n  - name: wipe\n",
        ],
    ),
    (
        "    steps:\n      - id: find\n",
        &[
            "    rules:\n      - require: [kind]\n        when: {param: limit, equals: 5}\n    steps:\n      - id: find\n",
            "    rules:\n      - forbid: [name_glob]\n        when: {param: kind, equals: class}\n    steps:\n      - id: find\n",
        ],
    ),
    ("default: 10,", &["default: 15,"]),
    ("min: 1, max: 30", &["min: 2, max: 30", "min: 1, max: 40"]),
    (
        "values: [class, function]",
        &["values: [class, function, method]", "values: [class]"],
    ),
    ("pattern: \"^[a-z*]+$\"", &["pattern: \"^[a-z*?]+$\""]),
    (
        "description: Look a symbol up",
        &["description: Look a symbol up, fast"],
    ),
    ("title: Lookup", &["title: Look up"]),
    (
        "symbol: {type: string, required: true, description: The symbol}",
        &["symbol: {type: string, required: true, title: Symbol, description: The symbol}"],
    ),
    (
        "    description: Wipe the cache\n    access: write\n",
        &[
            "    description: Wipe the cache\n    access: read\n",
            "    description: Wipe the cache\n    access: write\n    destructive: true\n",
        ],
    ),
    (
        "      query: {type: string, required: true, description: Text to find}\n",
        &[
            "      query: {type: string, description: Text to find}\n",
            "      query: {type: string, required: true, description: Text to find}\n      lang: {type: string, description: Language}\n",
            "      query: {type: string, required: true, description: Text to find}\n      lang: {type: string, required: true, description: Language}\n",
        ],
    ),
    ("run: [search, \"{query}\"]", &["run: [search, --text, \"{query}\"]"]),
    (
        "path: /v1/lookup, body: {q: \"{symbol}\", limit: \"{limit}\"}",
        &[
            "path: /v2/lookup, body: {q: \"{symbol}\", limit: \"{limit}\"}",
            "path: /v1/lookup, body: {q: \"{symbol}\"}",
        ],
    ),
    (
        "when: {step: find, failed: false}",
        &["when: {step: find, failed: true}"],
    ),
    (
        "meta: {action: add, status: remaining}",
        &["meta: {action: add, status: open}"],
    ),
    (
        "  binary: demo\n",
        &["  binary: demo2\n", "  binary: demo\n  fallback: \"demo is missing\"\n"],
    ),
    (
        "      - run: [wipe]\n",
        &[
            "      - run: [wipe]\n        timeout_ms: 5000\n",
            "      - run: [wipe]\n        max_output: 1000\n",
            "      - run: [wipe]\n        ok_exit: [0, 1]\n",
            "      - run: [wipe]\n        output: both\n",
            "      - run: [wipe]\n        if_empty: Nothing to wipe\n",
        ],
    ),
    (
        "    description: Search the code\n",
        &["    description: Search the code\n    redact: none\n"],
    ),
    ("  path: \"{store}\"", &["  path: \"{store}/x\""]),
    ("markdown_field: preview_markdown", &["markdown_field: md"]),
    ("default_url: http://127.0.0.1:9", &["default_url: http://127.0.0.1:10"]),
    ("  args: [mcp]", &["  args: [mcp, --quiet]"]),
];

fn edited(base: &str, choice: &[usize]) -> String {
    let mut text = base.to_string();
    for ((from, alternatives), &c) in EDITS.iter().zip(choice) {
        if let Some(to) = c.checked_sub(1).and_then(|i| alternatives.get(i)) {
            text = text.replacen(from, to, 1);
        }
    }
    text
}

/// Every file `generate` writes for a catalog (with the session tools' context), but ixgen's
/// own state.
fn artifacts(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let out = dir.join("out");
    let run = ixgen()
        .current_dir(dir)
        .args(["--catalog", "catalog.yaml", "--out", "out"])
        .args(["generate", "-q", "--store", "/s", "--session", "s"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![out.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(&out).unwrap().to_string_lossy().into_owned();
            if rel == ".ixgen" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                files.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    files
}

#[test]
fn every_edit_place_is_in_the_base_once() {
    let base = diff_base();
    for (from, _) in EDITS {
        assert_eq!(base.matches(from).count(), 1, "{from:?}");
    }
}

/// Whether `diff` reports something for a pair of choices whose generated files differ: the
/// files that differ when it reports nothing.
fn silent_difference(base: &str, before: &[usize], after: &[usize]) -> Option<String> {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("before"), tmp.path().join("after"));
    for (dir, choice) in [(&a, before), (&b, after)] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("catalog.yaml"), edited(base, choice)).unwrap();
    }
    let (old, new) = (artifacts(&a), artifacts(&b));
    let (code, out, err) = diff(
        &b.join("catalog.yaml"),
        a.join("catalog.yaml").to_str().unwrap(),
        &["--format", "json"],
    );
    assert_ne!(code, 2, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    if old == new || !report["findings"].as_array().unwrap().is_empty() {
        return None;
    }
    let changed: std::collections::BTreeSet<&String> = old
        .keys()
        .chain(new.keys())
        .filter(|k| old.get(*k) != new.get(*k))
        .collect();
    Some(format!(
        "these generated files differ, yet diff reports nothing: {changed:?}\nbefore:\n{}\nafter:\n{}",
        edited(base, before),
        edited(base, after)
    ))
}

fn diff_base() -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join("default-changed/before.yaml")).unwrap()
}

#[test]
fn every_single_edit_that_changes_a_generated_file_gets_a_finding() {
    let base = diff_base();
    let none = vec![0; EDITS.len()];
    for (i, (_, alternatives)) in EDITS.iter().enumerate() {
        for k in 1..=alternatives.len() {
            let mut one = none.clone();
            one[i] = k;
            // The edit, and undoing it.
            for (before, after) in [(&none, &one), (&one, &none)] {
                if let Some(why) = silent_difference(&base, before, after) {
                    panic!("{why}");
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Random catalogs, each edited in one or two places, both versions generated: when a
    /// generated file differs, `diff` reports at least one finding.
    #[test]
    fn diff_reports_every_edit_that_changes_a_generated_file(
        before in proptest::collection::vec(0usize..8, EDITS.len()),
        edits in proptest::collection::vec((0..EDITS.len(), 0usize..8), 1..=2),
    ) {
        let base = diff_base();
        let within = |i: usize, c: usize| c % (EDITS[i].1.len() + 1);
        let before: Vec<usize> = before.iter().enumerate().map(|(i, &c)| within(i, c)).collect();
        let mut after = before.clone();
        for (i, c) in edits {
            after[i] = within(i, c);
        }
        let silent = silent_difference(&base, &before, &after);
        proptest::prop_assert!(silent.is_none(), "{}", silent.unwrap_or_default());
    }
}
