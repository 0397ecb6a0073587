//! The generation engine's rules, through the CLI: write only what changed, atomically;
//! own what was written and nothing else; check reports drift; output is deterministic.

mod support;

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use support::tree;

const MINIMAL: &str = "tests/fixtures/minimal/catalog.yaml";

fn ixgen(out: &Path) -> Command {
    let mut c = Command::cargo_bin("ixgen").unwrap();
    c.env("NO_COLOR", "1").arg("--out").arg(out);
    c
}

fn mtimes(dir: &Path) -> BTreeMap<String, SystemTime> {
    tree(dir)
        .keys()
        .map(|k| (k.clone(), std::fs::metadata(dir.join(k)).unwrap().modified().unwrap()))
        .collect()
}

fn stdout(c: &mut Command, code: i32) -> String {
    String::from_utf8(c.assert().code(code).get_output().stdout.clone()).unwrap()
}

#[test]
fn generate_then_check_passes_and_a_second_generate_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    ixgen(dir.path()).arg("generate").assert().success();
    ixgen(dir.path()).arg("check").assert().code(0);
    let before = mtimes(dir.path());
    assert!(before.len() > 20, "the ix catalog generates every target: {before:?}");
    std::thread::sleep(std::time::Duration::from_millis(30));
    let out = stdout(ixgen(dir.path()).arg("generate"), 0);
    assert!(out.contains("0 created, 0 updated, 0 removed"), "{out}");
    assert_eq!(before, mtimes(dir.path()), "a no-op generate must not touch any file");
}

/// A catalog of `n` tools shaped like benches/gen_catalog.py's, with long descriptions (so that
/// a few tools make a large file).
fn synthetic_catalog(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("tool-{i}")).collect();
    let mut y = format!(
        "version: 1\nproduct: {{name: synth, version: 1.0.0, description: Synthetic}}\ncli: {{binary: synth}}\n\
         runtime: {{url_env: SYNTH_URL, default_url: 'http://127.0.0.1:9', markdown_field: preview_markdown}}\nserver: {{name: synth, command: synth, toolset: all}}\n\
         lint: {{toolset_budget: 100000000}}\ntoolsets:\n  all:\n    tools: [{}]\ntargets:\n  opencode: {{toolset: all}}\n  mcp: {{toolset: all}}\ntools:\n",
        names.join(", ")
    );
    for i in 0..n {
        y += &format!(
            "  - name: tool-{i}\n    description: Synthetic tool number {i}. {}\n    params:\n      \
             symbol: {{type: string, required: true, description: Symbol to look up}}\n      \
             limit: {{type: integer, default: 10, min: 1, max: 50, description: Max results}}\n    \
             runtime: {{method: POST, path: /v1/tool/{i}, body: {{q: '{{symbol}}'}}}}\n    steps:\n      \
             - run: [tool{i}, '{{symbol}}', --limit, '{{limit}}', {{opt: --kind, value: '{{symbol}}'}}]\n",
            "It looks a symbol up in the graph and says where it is defined and who calls it. ".repeat(8)
        );
    }
    y
}

/// A catalog this large is read on worker threads (`ixgen::par`), and memory is handed back
/// between the stages (`ixgen::alloc`): the whole run, checked, must be as sound as with the
/// small catalogs.
#[test]
fn a_catalog_large_enough_for_the_other_allocator_generates_and_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("large.yaml");
    let text = synthetic_catalog(1_000);
    std::fs::write(&catalog, text).unwrap();
    let out = dir.path().join("out");
    ixgen(&out)
        .arg("--catalog")
        .arg(&catalog)
        .arg("generate")
        .assert()
        .success();
    ixgen(&out).arg("--catalog").arg(&catalog).arg("check").assert().code(0);
    let files = tree(&out);
    assert_eq!(
        files.keys().filter(|k| k.starts_with(".opencode/tools/")).count(),
        1_000
    );
    let listing: serde_json::Value = serde_json::from_slice(&files["mcp/tools.json"]).unwrap();
    assert_eq!(listing["tools"].as_array().unwrap().len(), 1_000);
}

/// A catalog whose tools all share (by a YAML alias) one long description: `n` tools make an
/// MCP tools list of about `n` × 40 KB.
fn aliased_catalog(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let mut y = format!(
        "version: 1\nproduct: {{name: big, version: 1.0.0, description: Big}}\ncli: {{binary: big}}\n\
         server: {{name: big, command: big, toolset: all}}\n\
         lint: {{description_budget: 100000000, toolset_budget: 1000000000}}\n\
         toolsets:\n  all:\n    tools: [{}]\ntargets:\n  mcp: {{toolset: all}}\ntools:\n",
        names.join(", ")
    );
    y += &format!(
        "  - {{name: t0, description: &d {}, steps: [{{run: [a]}}]}}\n",
        "x".repeat(40_000)
    );
    for i in 1..n {
        y += &format!("  - {{name: t{i}, description: *d, steps: [{{run: [a]}}]}}\n");
    }
    y
}

/// A file ixgen would write over the 64 MiB it ever reads back is refused before anything is
/// written (exit 2, naming it, its size and the limit); it used to be written, and every later
/// run then refused to read it.
#[test]
fn a_file_too_large_to_read_back_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (small, big) = (dir.path().join("small.yaml"), dir.path().join("big.yaml"));
    std::fs::write(&small, aliased_catalog(10)).unwrap();
    std::fs::write(&big, aliased_catalog(1_700)).unwrap();
    let out = dir.path().join("out");
    let refused = |args: &[&str]| {
        let run = ixgen(&out).arg("--catalog").arg(&big).args(args).assert().code(2);
        let stderr = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
        assert!(stderr.contains("mcp/tools.json` would be"), "{stderr}");
        assert!(stderr.contains("bytes, over the limit of 64 MiB"), "{stderr}");
        assert!(stderr.contains("help:"), "{stderr}");
    };
    // A first run (the file is rendered as it is written), and a dry run.
    refused(&["generate"]);
    assert!(!out.exists(), "nothing may be written");
    refused(&["generate", "--dry-run"]);
    // Over a smaller output (the file is rendered when it is compared): left as it was.
    ixgen(&out)
        .arg("--catalog")
        .arg(&small)
        .arg("generate")
        .assert()
        .success();
    let before = tree(&out);
    refused(&["generate"]);
    assert_eq!(tree(&out), before);
    ixgen(&out).arg("--catalog").arg(&small).arg("check").assert().code(0);
}

#[test]
fn a_changed_file_makes_check_exit_1_with_a_unified_diff() {
    let dir = tempfile::tempdir().unwrap();
    ixgen(dir.path()).arg("generate").assert().success();
    let f = dir.path().join("mcp/tools.json");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replacen("\"name\": \"search\"", "\"name\": \"serch\"", 1);
    std::fs::write(&f, text).unwrap();
    std::fs::remove_file(dir.path().join(".opencode/tools/ix_stats.ts")).unwrap();

    let out = stdout(ixgen(dir.path()).arg("check"), 1);
    assert!(
        out.contains("--- a/mcp/tools.json") && out.contains("+++ b/mcp/tools.json"),
        "{out}"
    );
    assert!(
        out.contains("-    {\"name\": \"serch\",") && out.contains("+    {\"name\": \"search\","),
        "{out}"
    );
    assert!(out.contains("missing: .opencode/tools/ix_stats.ts"), "{out}");

    let json: serde_json::Value =
        serde_json::from_str(&stdout(ixgen(dir.path()).args(["check", "--format", "json"]), 1)).unwrap();
    assert_eq!(json["ok"], false);
    assert_eq!(json["stale"][0]["path"], "mcp/tools.json");
    assert!(
        json["stale"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+    {\"name\": \"search\",")
    );
    assert_eq!(json["missing"], serde_json::json!([".opencode/tools/ix_stats.ts"]));

    let gh = stdout(ixgen(dir.path()).args(["check", "--format", "github"]), 1);
    assert!(
        gh.lines()
            .any(|l| l.starts_with("::error file=") && l.contains("mcp/tools.json is out of date")),
        "{gh}"
    );
    // Run in the folder (`--out .`, as a repository's workflow does), the annotation names the
    // path as the repository has it: GitHub does not match `./mcp/tools.json`.
    let mut here = Command::cargo_bin("ixgen").unwrap();
    here.env("NO_COLOR", "1").current_dir(dir.path());
    let gh = stdout(here.args(["--out", ".", "check", "--format", "github"]), 1);
    assert!(gh.contains("::error file=mcp/tools.json,"), "{gh}");

    // The edited file is ixgen's but holds an edit: regenerating refuses it, naming it…
    let refused = ixgen(dir.path()).arg("generate").assert().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("mcp/tools.json") && stderr.contains("was edited"),
        "{stderr}"
    );
    // …and --force repairs both.
    ixgen(dir.path()).args(["generate", "--force"]).assert().success();
    ixgen(dir.path()).arg("check").assert().code(0);

    // A failure about one file (a corrupt manifest) is annotated on that file.
    std::fs::write(dir.path().join(".ixgen/manifest.json"), "{bad").unwrap();
    let mut here = Command::cargo_bin("ixgen").unwrap();
    here.env("NO_COLOR", "1").current_dir(dir.path());
    let gh = stdout(here.args(["--out", ".", "check", "--format", "github"]), 2);
    assert!(gh.starts_with("::error file=.ixgen/manifest.json,"), "{gh}");
}

#[test]
fn a_foreign_file_at_a_target_path_is_left_untouched_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join(".opencode/tools/ix_query.ts");
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::fs::write(&tool, "// my own tool\n").unwrap();
    let assert = ixgen(dir.path()).arg("generate").assert().code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("ix_query.ts") && stderr.contains("was not written by ixgen"),
        "{stderr}"
    );
    assert!(stderr.contains("--force"), "the message says how to proceed: {stderr}");
    assert_eq!(std::fs::read_to_string(&tool).unwrap(), "// my own tool\n");
    assert_eq!(tree(dir.path()).len(), 1, "nothing else may be written either");

    ixgen(dir.path()).args(["generate", "--force"]).assert().success();
    assert!(std::fs::read_to_string(&tool).unwrap().contains("Generated by ixgen"));
}

/// A copy of the minimal catalog in `dir`, generated into `dir/out`: (out, catalog, its text).
fn generated_minimal(dir: &Path) -> (PathBuf, PathBuf, String) {
    let out = dir.join("out");
    let cat = dir.join("catalog.yaml");
    let base = std::fs::read_to_string(MINIMAL).unwrap();
    std::fs::write(&cat, &base).unwrap();
    ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .arg("generate")
        .assert()
        .success();
    (out, cat, base)
}

#[test]
fn a_tool_removed_from_the_catalog_has_its_file_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (out, cat, base) = generated_minimal(dir.path());
    assert!(out.join(".opencode/tools/wipe.ts").exists());

    std::fs::write(&cat, base.replace("tools: [lookup, wipe]", "tools: [lookup]")).unwrap();
    // check sees the owned file that is no longer generated.
    let report = stdout(ixgen(&out).arg("--catalog").arg(&cat).arg("check"), 1);
    assert!(report.contains("extra:   .opencode/tools/wipe.ts"), "{report}");
    let dry = stdout(
        ixgen(&out).arg("--catalog").arg(&cat).args(["generate", "--dry-run"]),
        0,
    );
    assert!(dry.contains("would remove  .opencode/tools/wipe.ts"), "{dry}");
    assert!(out.join(".opencode/tools/wipe.ts").exists(), "--dry-run writes nothing");

    let report = stdout(ixgen(&out).arg("--catalog").arg(&cat).arg("generate"), 0);
    assert!(report.contains("remove  .opencode/tools/wipe.ts"), "{report}");
    assert!(!out.join(".opencode/tools/wipe.ts").exists());
    assert!(out.join(".opencode/tools/lookup.ts").exists());
    let manifest = std::fs::read_to_string(out.join(".ixgen/manifest.json")).unwrap();
    assert!(!manifest.contains("wipe.ts"), "{manifest}");
}

#[test]
fn an_owned_file_edited_by_hand_is_not_removed_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let (out, cat, base) = generated_minimal(dir.path());
    std::fs::write(out.join(".opencode/tools/wipe.ts"), "// edited\n").unwrap();
    std::fs::write(&cat, base.replace("tools: [lookup, wipe]", "tools: [lookup]")).unwrap();
    let assert = ixgen(&out).arg("--catalog").arg(&cat).arg("generate").assert().code(2);
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("edited since ixgen wrote it"));
    assert!(out.join(".opencode/tools/wipe.ts").exists());
    ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .args(["generate", "--force"])
        .assert()
        .success();
    assert!(!out.join(".opencode/tools/wipe.ts").exists());
}

/// The `generate` that `check` suggests for an edited file carries `--force` after the command,
/// not after an option's value that reads `generate` (`--out generate`): it once suggested
/// `ixgen --out generate --force generate`, which clap refuses.
#[test]
fn checks_forced_generate_puts_force_after_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("catalog.yaml");
    std::fs::copy(MINIMAL, &cat).unwrap();
    let cmd = |args: &[&str]| {
        let mut c = Command::cargo_bin("ixgen").unwrap();
        c.env("NO_COLOR", "1").current_dir(dir.path());
        c.args(["--out", "generate", "--catalog", "catalog.yaml"]).args(args);
        c
    };
    cmd(&["generate"]).assert().success();
    let tool = dir.path().join("generate/.opencode/tools/wipe.ts");
    std::fs::write(&tool, std::fs::read_to_string(&tool).unwrap() + "// edited\n").unwrap();
    let assert = cmd(&["check"]).assert().code(1);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let suggested = err.split("run `ixgen ").nth(1).and_then(|s| s.split('`').next());
    assert_eq!(
        suggested,
        Some("--out generate --catalog catalog.yaml generate --force"),
        "{err}"
    );
    cmd(&["generate", "--force"]).assert().success();
    cmd(&["check"]).assert().code(0);
}

/// A folder holds one product's files: a second catalog generated into it once removed the
/// first's tools as files no longer planned (and the two then took turns). It is refused, with
/// nothing touched, until `--force` hands the folder over.
#[test]
fn another_products_folder_is_refused_until_force() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _, _) = generated_minimal(dir.path());
    let before = tree(&out);
    // The embedded catalog is ix's; the minimal one is another product's.
    let assert = ixgen(&out).arg("generate").assert().code(2);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        err.contains("holds the generated files of \"demo\"") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(tree(&out), before, "nothing was written or removed");
    // `check` reports the drift, and its hint is a command that works.
    let assert = ixgen(&out).arg("check").assert().code(1);
    let err = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        err.contains("holds the generated files of \"demo\"") && err.contains("generate --force"),
        "{err}"
    );
    ixgen(&out).args(["generate", "--force"]).assert().success();
    assert!(!out.join(".opencode/tools/wipe.ts").exists());
    assert!(out.join(".opencode/tools/ix_query.ts").exists());
    ixgen(&out).arg("check").assert().code(0);
}

#[test]
fn two_output_directories_hold_identical_bytes() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    // Different working directories too: nothing may depend on where ixgen runs.
    ixgen(a.path()).current_dir(a.path()).arg("generate").assert().success();
    ixgen(b.path()).current_dir("/").arg("generate").assert().success();
    let (mut ta, mut tb) = (tree(a.path()), tree(b.path()));
    // The run record is this machine's cache, not output: it names the manifest file it was
    // made beside (`src/record.rs`), another in each folder.
    for t in [&mut ta, &mut tb] {
        assert!(t.remove(".ixgen/run.json").is_some());
    }
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (k, v) in &ta {
        assert!(v == &tb[k], "{k} differs between two runs");
        let text = String::from_utf8_lossy(v);
        assert!(
            !text.contains(&a.path().display().to_string()) && !text.contains("/work/"),
            "{k} holds an absolute path"
        );
    }
}

#[test]
fn opencode_json_is_merged_without_losing_other_keys() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("opencode.json");
    std::fs::write(&cfg, r#"{"$schema": "https://opencode.ai/config.json", "model": "x/y", "mcp": {"other": {"type": "local", "command": ["o"]}}}"#).unwrap();
    ixgen(dir.path()).arg("opencode").assert().success();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&cfg).unwrap()).unwrap();
    assert_eq!(v["model"], "x/y");
    assert_eq!(v["mcp"]["other"]["command"], serde_json::json!(["o"]));
    assert_eq!(v["mcp"]["ix-memory"]["command"], serde_json::json!(["ix", "mcp"]));
    assert_eq!(v["mcp"]["ix-memory"]["type"], "local");
    // A broken opencode.json is reported, never overwritten.
    std::fs::write(&cfg, "{ not json").unwrap();
    let assert = ixgen(dir.path()).arg("opencode").assert().code(2);
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("opencode.json` is not valid JSON"));
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), "{ not json");
}

/// A target the catalog drops takes its key out of the user's shared file again (the file's
/// other keys stay), and a key edited since ixgen set it is taken out only with `--force`.
#[test]
fn a_dropped_target_s_key_leaves_the_shared_file() {
    let (dir, cat) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Two catalogs of one file name, so that the files they share are the same bytes.
    let full = std::fs::read_to_string("catalog/ix.yaml").unwrap();
    assert!(full.contains("\n  cursor: {}\n"));
    let catalog = |name: &str, text: &str| {
        std::fs::create_dir_all(cat.path().join(name)).unwrap();
        std::fs::copy("catalog/ix-icon.png", cat.path().join(name).join("ix-icon.png")).unwrap();
        std::fs::write(cat.path().join(name).join("ix.yaml"), text).unwrap();
        cat.path().join(name).join("ix.yaml")
    };
    let (with, without) = (
        catalog("with", &full),
        catalog("without", &full.replace("\n  cursor: {}\n", "\n")),
    );
    let cfg = dir.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "{\"mcpServers\": {\"mine\": {\"command\": \"x\"}}}\n").unwrap();
    let run = |catalog: &Path, args: &[&str]| {
        let mut c = ixgen(dir.path());
        c.arg("--catalog").arg(catalog).args(args);
        c
    };
    let servers = || {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&cfg).unwrap()).unwrap();
        let mut names: Vec<String> = v["mcpServers"].as_object().unwrap().keys().cloned().collect();
        names.sort();
        names
    };
    run(&with, &["generate"]).assert().success();
    assert_eq!(servers(), ["ix-memory", "mine"]);
    // Dropped: `check` reports the key as drift, and `generate` takes it out.
    run(&without, &["check"]).assert().code(1);
    run(&without, &["generate"]).assert().success();
    assert_eq!(servers(), ["mine"]);
    run(&without, &["check"]).assert().code(0);
    // Edited since ixgen set it: refused, the file untouched, until --force.
    run(&with, &["generate"]).assert().success();
    let edited = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("\"mcp\"", "\"mcp\", \"--verbose\"");
    std::fs::write(&cfg, &edited).unwrap();
    for (catalog, what) in [(&with, "will not overwrite it"), (&without, "will not take it out")] {
        let refused = run(catalog, &["generate"]).assert().code(2);
        let stderr = String::from_utf8_lossy(&refused.get_output().stderr).to_string();
        assert!(
            stderr.contains("`mcpServers.ix-memory` was edited since") && stderr.contains(what),
            "{stderr}"
        );
        assert!(stderr.contains("--force"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&cfg).unwrap(), edited);
    }
    // `check` reports it, and the `generate` it suggests is one that will do it: with --force.
    let checked = run(&with, &["check"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&checked.get_output().stderr).to_string();
    assert!(
        stderr.contains("note: `.cursor/mcp.json` holds changes ixgen did not write")
            && stderr.contains("generate --force"),
        "{stderr}"
    );
    run(&without, &["generate", "--force"]).assert().success();
    assert_eq!(servers(), ["mine"]);
}

/// A value under ixgen's key that ixgen never set (the user's own `ix-memory` server, there
/// before the first run) is refused as an edit is: untouched without `--force`, reported by
/// `check` with the `--force` it takes. The value ixgen would set is simply taken over.
#[test]
fn a_key_ixgen_did_not_set_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    let mine =
        "{\"mcpServers\": {\"ix-memory\": {\"command\": \"/opt/my-ix\", \"env\": {\"IX_TOKEN\": \"s3cret\"}}}}\n";
    std::fs::write(&cfg, mine).unwrap();
    let refused = ixgen(dir.path()).args(["generate", "cursor"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).to_string();
    assert!(
        stderr.contains("`mcpServers.ix-memory` holds a value ixgen did not set") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), mine);
    let checked = ixgen(dir.path()).args(["check", "cursor"]).assert().code(1);
    let stderr = String::from_utf8_lossy(&checked.get_output().stderr).to_string();
    assert!(stderr.contains("generate --force cursor"), "{stderr}");
    // With --force, replaced; then the value is ixgen's, and a run leaves it.
    ixgen(dir.path())
        .args(["generate", "--force", "cursor"])
        .assert()
        .success();
    let ours = std::fs::read_to_string(&cfg).unwrap();
    assert!(!ours.contains("/opt/my-ix"), "{ours}");
    ixgen(dir.path()).args(["generate", "cursor"]).assert().success();
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), ours);
}

#[test]
fn concurrent_runs_leave_only_complete_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_path_buf();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ixgen"));
    // The complete versions a reader may see: iteration 1..=6 of the session file.
    let mut complete = std::collections::HashSet::new();
    for i in 1..=6 {
        let d = tempfile::tempdir().unwrap();
        ixgen(d.path())
            .args([
                "opencode",
                "--session",
                "s",
                "--store",
                "/tmp/store",
                "--pid",
                "4242",
                "--iteration",
                &i.to_string(),
            ])
            .assert()
            .success();
        complete.insert(std::fs::read(d.path().join(".opencode/tool/ralph.ts")).unwrap());
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (stop, out, complete) = (stop.clone(), out.clone(), complete.clone());
        std::thread::spawn(move || {
            let mut seen = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(bytes) = std::fs::read(out.join(".opencode/tool/ralph.ts")) {
                    assert!(
                        complete.contains(&bytes),
                        "a reader saw a partial or mixed file ({} bytes)",
                        bytes.len()
                    );
                    seen += 1;
                }
            }
            seen
        })
    };
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (bin, out) = (bin.clone(), out.clone());
            std::thread::spawn(move || {
                for round in 0..8 {
                    let iteration = ((w + round) % 6 + 1).to_string();
                    let status = std::process::Command::new(&bin)
                        .arg("--out")
                        .arg(&out)
                        .args([
                            "opencode",
                            "-q",
                            "--session",
                            "s",
                            "--store",
                            "/tmp/store",
                            "--pid",
                            "4242",
                            "--iteration",
                            &iteration,
                        ])
                        .status()
                        .unwrap();
                    assert!(status.success());
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0, "the reader read the file at least once");
    // No temp files are left behind, and every file is complete.
    for (path, bytes) in tree(&out) {
        assert!(
            !path.contains(".ixgen-") || path.starts_with(".ixgen/"),
            "temp file left: {path}"
        );
        if path.ends_with("ralph.ts") {
            assert!(complete.contains(&bytes));
        }
    }
}

#[test]
fn help_is_stable() {
    for args in [
        vec!["--help"],
        vec!["generate", "--help"],
        vec!["check", "--help"],
        vec!["opencode", "--help"],
    ] {
        let out = String::from_utf8(
            Command::cargo_bin("ixgen")
                .unwrap()
                .args(&args)
                .assert()
                .success()
                .get_output()
                .stdout
                .clone(),
        )
        .unwrap();
        insta::assert_snapshot!(
            format!("help__{}", args.join("_").trim_start_matches("--").replace("--", "")),
            out
        );
    }
}

#[test]
fn completions_are_generated_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = String::from_utf8(
            Command::cargo_bin("ixgen")
                .unwrap()
                .args(["completions", shell])
                .assert()
                .success()
                .get_output()
                .stdout
                .clone(),
        )
        .unwrap();
        assert!(
            out.contains("generate") && out.contains("catalog") && out.contains("session"),
            "{shell}"
        );
    }
}

/// The one runtime file of an OpenCode output, relative to the output folder.
fn runtime_path(dir: &Path) -> String {
    let files: Vec<String> = tree(dir)
        .into_keys()
        .filter(|k| k.starts_with(".opencode/ixgen/runtime-") && k.ends_with(".ts"))
        .collect();
    assert_eq!(files.len(), 1, "one runtime file: {files:?}");
    files.into_iter().next().unwrap()
}

#[test]
fn tool_files_are_small_and_share_one_runtime_file() {
    let dir = tempfile::tempdir().unwrap();
    ixgen(dir.path()).arg("opencode").assert().success();
    let runtime = runtime_path(dir.path());
    let name = runtime.rsplit('/').next().unwrap();
    let tools = tree(&dir.path().join(".opencode/tools"));
    assert_eq!(tools.len(), 17);
    // These tools render their output (issue 11): their specs carry the output blocks as data
    // (labelled fields, list rows, table columns, value maps, verdict conditions), which does not
    // fit in 3 KB even with no whitespace at all. They get 6 KB; every other tool keeps 3 KB.
    let rendered = [
        "ix_decide.ts",
        "ix_docs_tool.ts",
        "ix_explain.ts",
        "ix_history.ts",
        "ix_impact.ts",
        "ix_ingest.ts",
        "ix_map.ts",
        "ix_neighbors.ts",
        "ix_query.ts",
        "ix_rank.ts",
        "ix_trace.ts",
    ];
    for (file, bytes) in &tools {
        let cap = if rendered.contains(&file.as_str()) { 6 } else { 3 } * 1024;
        assert!(bytes.len() < cap, "{file} is {} bytes (cap {cap})", bytes.len());
        let text = String::from_utf8_lossy(bytes);
        assert!(
            text.contains(&format!("from \"../ixgen/{name}\"")),
            "{file} imports the runtime file:\n{text}"
        );
        assert!(!text.contains("function "), "{file} carries no interpreter code");
    }
}

#[test]
fn check_reports_a_missing_or_edited_runtime_file_and_generate_restores_it() {
    let dir = tempfile::tempdir().unwrap();
    ixgen(dir.path()).arg("generate").assert().success();
    let runtime = runtime_path(dir.path());
    let full = dir.path().join(&runtime);
    let original = std::fs::read(&full).unwrap();

    std::fs::remove_file(&full).unwrap();
    let out = stdout(ixgen(dir.path()).arg("check"), 1);
    assert!(out.contains(&format!("missing: {runtime}")), "{out}");
    ixgen(dir.path()).arg("generate").assert().success();
    assert_eq!(std::fs::read(&full).unwrap(), original);

    let edited = String::from_utf8(original.clone())
        .unwrap()
        .replace("export async function runTool", "async function runTool");
    std::fs::write(&full, edited).unwrap();
    let out = stdout(ixgen(dir.path()).arg("check"), 1);
    assert!(out.contains(&format!("--- a/{runtime}")), "{out}");
    // An edit is never lost without --force, not even to the runtime.
    let refused = ixgen(dir.path())
        .arg("generate")
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&refused).contains("was edited since ixgen wrote it"));
    ixgen(dir.path()).args(["generate", "--force"]).assert().success();
    assert_eq!(std::fs::read(&full).unwrap(), original);
    ixgen(dir.path()).arg("check").assert().code(0);
}

#[test]
fn an_old_runtime_file_stays_while_session_tools_may_still_import_it() {
    // What an upgrade of ixgen looks like: the manifest owns a runtime file of another build.
    let dir = tempfile::tempdir().unwrap();
    let session = [
        "opencode",
        "--session",
        "s",
        "--iteration",
        "1",
        "--store",
        "/tmp/st",
        "--pid",
        "7",
    ];
    ixgen(dir.path()).args(session).assert().success();
    let old = ".opencode/ixgen/runtime-000000000000.ts";
    std::fs::write(dir.path().join(old), "// Generated by ixgen 0.0.0: an older runtime.\n").unwrap();
    let manifest_path = dir.path().join(".ixgen/manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let hash = blake3::hash(b"// Generated by ixgen 0.0.0: an older runtime.\n")
        .to_hex()
        .to_string();
    manifest["files"][old] = serde_json::json!({"group": "opencode-runtime", "blake3": hash});
    std::fs::write(&manifest_path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();

    // `generate` without the session context leaves the session file as it is, and so the
    // runtime it may import.
    ixgen(dir.path()).arg("generate").assert().success();
    assert!(
        dir.path().join(old).exists(),
        "the old runtime was removed from under the session file"
    );
    // The next loop iteration rewrites the session file: now the old runtime can go.
    ixgen(dir.path()).args(session).assert().success();
    assert!(
        !dir.path().join(old).exists(),
        "the old runtime file outlived every tool that used it"
    );
}

#[test]
fn an_allowlist_that_keeps_no_tool_is_an_error_not_an_empty_tool_list() {
    let dir = tempfile::tempdir().unwrap();
    // ix-query is an OpenCode tool only: the MCP list would be empty.
    let out = ixgen(dir.path())
        .args(["mcp", "--enable-tools", "ix-query"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("keeps no tool of any target") && err.contains("toolset `mcp`"),
        "{err}"
    );
    assert!(tree(dir.path()).is_empty(), "nothing is written");
    // Across every target it keeps the OpenCode tool, and says which surfaces get none.
    let out = ixgen(dir.path())
        .args(["generate", "--enable-tools", "ix-query"])
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("keeps none of the tools of Claude Code"), "{err}");
    assert!(dir.path().join(".opencode/tools/ix_query.ts").exists());
}

#[test]
fn a_tool_that_declares_an_output_schema_carries_it_in_its_mcp_definition() {
    let dir = tempfile::tempdir().unwrap();
    ixgen(dir.path()).arg("generate").assert().success();
    let list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("mcp/tools.json")).unwrap()).unwrap();
    let tool = |name: &str| {
        list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no tool {name}"))
    };
    // `smells` declares `output_schema: smells` (the catalog's schema of `ix smells --format json`).
    let schema = &tool("smells")["outputSchema"];
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["properties"]["candidates"]["type"], "array", "{schema}");
    assert!(
        tool("stats").get("outputSchema").is_none(),
        "a tool without one has none"
    );
}

#[test]
fn many_new_files_need_few_file_descriptors() {
    use std::os::unix::process::CommandExt;
    // Every new file is staged before the first rename: staged files must not stay open.
    let dir = tempfile::tempdir().unwrap();
    let n = 300;
    let names: Vec<String> = (0..n).map(|i| format!("t-{i}")).collect();
    let mut yaml = format!(
        "version: 1\nproduct: {{name: many, version: 1.0.0, description: Many tools, license: MIT}}\n\
         runtime: {{url_env: MANY_URL, default_url: 'http://127.0.0.1:9', markdown_field: md}}\n\
         toolsets:\n  all:\n    tools: [{}]\ntargets:\n  opencode: {{toolset: all}}\ntools:\n",
        names.join(", ")
    );
    for name in &names {
        yaml.push_str(&format!(
            "  - name: {name}\n    description: Tool {name}\n    params:\n      q: {{type: string, required: true, description: Query}}\n    runtime: {{method: GET, path: /v1/{name}}}\n"
        ));
    }
    let catalog = dir.path().join("catalog.yaml");
    std::fs::write(&catalog, yaml).unwrap();
    let out = dir.path().join("out");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ixgen"));
    cmd.arg("--catalog")
        .arg(&catalog)
        .arg("--out")
        .arg(&out)
        .args(["generate", "-q"]);
    // SAFETY: setrlimit is async-signal-safe, and the closure touches nothing else.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let result = cmd.output().unwrap();
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    assert_eq!(std::fs::read_dir(out.join(".opencode/tools")).unwrap().count(), n);
}

/// A catalog-wide setting lives in the shared settings file, but the file's name (its hash)
/// is in every tool file's import: changing the setting still changes every tool file, so
/// check reports them all and generate rewrites them all.
/// A catalog from a pipe (`--catalog /dev/stdin`, `<(…)`) gives its bytes once, and a run reads
/// its catalog more than once (its context flags, the run record's key, the load).
#[cfg(unix)]
#[test]
fn a_catalog_read_from_a_pipe_is_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    ixgen(&out)
        .args(["--catalog", "/dev/stdin", "generate"])
        .pipe_stdin(MINIMAL)
        .unwrap()
        .assert()
        .success();
    let from_file = dir.path().join("from-file");
    ixgen(&from_file)
        .args(["--catalog", MINIMAL, "generate"])
        .assert()
        .success();
    let (piped, read) = (tree(&out), tree(&from_file));
    // (The tool files' headers name the catalog as it was given.)
    assert_eq!(piped["mcp/tools.json"], read["mcp/tools.json"]);
    for tool in [".opencode/tools/lookup.ts", ".opencode/tools/wipe.ts"] {
        assert!(piped.contains_key(tool), "{tool}");
    }
}

/// A tool list on the command line replaces both of the catalog's: `--disable-tools` under a
/// catalog allowlist leaves the tool out (the allowlist would otherwise win).
#[test]
fn a_blocklist_on_the_command_line_replaces_the_catalogs_allowlist() {
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("c.yaml");
    let base = std::fs::read_to_string(MINIMAL).unwrap();
    std::fs::write(
        &cat,
        base.replacen("\ntoolsets:", "\nfilters: {enable: [lookup, wipe]}\ntoolsets:", 1),
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .args(["generate", "opencode", "--disable-tools", "wipe"])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
    assert!(!stderr.contains("allowlist"), "{stderr}");
    assert!(out.join(".opencode/tools/lookup.ts").exists());
    assert!(!out.join(".opencode/tools/wipe.ts").exists());
}

/// A target or a revision named twice on the command line is written once: the catalog is not
/// to blame for two targets that collide.
#[test]
fn a_target_or_revision_named_twice_is_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    ixgen(&out).args(["generate", "mcp", "mcp"]).assert().success();
    let twice = ["mcp", "--profile", "2026-07-28", "--profile", "2026-07-28"];
    ixgen(&out).args(twice).assert().success();
    assert!(out.join("mcp/tools.json").exists() && out.join("mcp/tools.2026-07-28.json").exists());
}

/// `claude.plugin_root` prefixes a command shipped in the plugin (a relative path), never an
/// absolute one: that program is installed on the machine.
#[test]
fn plugin_root_prefixes_relative_server_commands_only() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(MINIMAL).unwrap();
    for (command, want) in [
        ("bin/demo", "${CLAUDE_PLUGIN_ROOT}/bin/demo"),
        ("./demo", "${CLAUDE_PLUGIN_ROOT}/demo"),
        ("/usr/bin/demo", "/usr/bin/demo"),
    ] {
        let cat = dir.path().join("c.yaml");
        let text = base
            .replace("  command: demo\n", &format!("  command: {command}\n"))
            .replace(
                "  mcp: {toolset: main}\n",
                "  mcp: {toolset: main}\n  claude: {plugin_root: true}\n",
            );
        std::fs::write(&cat, text).unwrap();
        let out = dir.path().join(command.replace('/', "_"));
        ixgen(&out)
            .arg("--catalog")
            .arg(&cat)
            .args(["generate", "claude"])
            .assert()
            .success();
        let mcp: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join(".mcp.json")).unwrap()).unwrap();
        assert_eq!(mcp["mcpServers"]["demo"]["command"], want, "{command}");
    }
}

#[test]
fn a_changed_catalog_setting_changes_every_opencode_tool_file() {
    let dir = tempfile::tempdir().unwrap();
    let (out, cat, base) = generated_minimal(dir.path());
    std::fs::write(
        &cat,
        base.replace("default_url: http://127.0.0.1:9", "default_url: http://127.0.0.1:10"),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&stdout(
        ixgen(&out)
            .arg("--catalog")
            .arg(&cat)
            .args(["check", "--format", "json"]),
        1,
    ))
    .unwrap();
    let stale: Vec<&str> = json["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    for tool in [".opencode/tools/lookup.ts", ".opencode/tools/wipe.ts"] {
        assert!(stale.contains(&tool), "{tool} not stale: {json}");
    }
    let missing = json["missing"].to_string();
    assert!(missing.contains(".opencode/ixgen/shared-"), "{json}");
    ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .arg("generate")
        .assert()
        .success();
    let shared: Vec<_> = std::fs::read_dir(out.join(".opencode/ixgen"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("shared-"))
        .collect();
    assert_eq!(shared.len(), 1, "the old shared file is removed: {shared:?}");
    let text = std::fs::read_to_string(out.join(".opencode/ixgen").join(&shared[0])).unwrap();
    assert!(text.contains("http://127.0.0.1:10"), "{text}");
}

#[test]
fn two_targets_that_write_one_path_are_an_error_in_the_catalog() {
    // The session file placed where the OpenCode target writes the `lookup` tool.
    let text = std::fs::read_to_string(MINIMAL).unwrap().replace(
        "  opencode: {toolset: main}\n",
        "  opencode: {toolset: main}\n  session: {toolset: main, dir: .opencode/tools, file: lookup, context: [session]}\n",
    );
    let line = 1 + text.lines().position(|l| l.starts_with("  session: {toolset")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog.yaml");
    std::fs::write(&catalog, text).unwrap();
    let out = dir.path().join("out");
    // `validate` finds it too: it plans every enabled target, the session tools with stand-ins
    // for the context values.
    for args in [
        &["generate", "--session", "s"][..],
        &["check", "--session", "s"],
        &["validate"],
    ] {
        let o = ixgen(&out).arg("--catalog").arg(&catalog).args(args).assert().code(2);
        let stderr = String::from_utf8_lossy(&o.get_output().stderr).into_owned();
        assert!(stderr.contains(&format!("catalog.yaml:{line}:3")), "{stderr}");
        assert!(stderr.contains("path-collision"), "{stderr}");
        assert!(
            stderr.contains("`targets.opencode` and `targets.session` both write `.opencode/tools/lookup.ts`"),
            "{stderr}"
        );
        assert!(!out.exists(), "{args:?} wrote something");
    }
}

/// Takes the hashes of the files whose paths end with `suffix` out of a manifest, as a hand
/// merge that kept only the paths would.
fn strip_hashes(out: &Path, suffix: &str) {
    let path = out.join(".ixgen/manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let files = manifest["files"].as_object_mut().unwrap();
    for (_, entry) in files.iter_mut().filter(|(k, _)| k.ends_with(suffix)) {
        let entry = entry.as_object_mut().unwrap();
        assert!(entry.remove("blake3").is_some(), "{entry:?}");
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

#[test]
fn a_manifest_without_hashes_proves_nothing_so_nothing_is_overwritten_or_removed_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let (out, cat, base) = generated_minimal(dir.path());
    strip_hashes(&out, "");
    let (lookup, wipe) = (
        out.join(".opencode/tools/lookup.ts"),
        out.join(".opencode/tools/wipe.ts"),
    );
    let mine = "// my own lookup tool\nexport default {}\n";
    // Overwriting: the user's file at a listed path stays.
    std::fs::write(&lookup, mine).unwrap();
    let run = ixgen(&out).arg("--catalog").arg(&cat).arg("generate").assert().code(2);
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(
        stderr.contains("lookup.ts") && stderr.contains("without a hash"),
        "{stderr}"
    );
    assert!(stderr.contains("refusing to overwrite"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&lookup).unwrap(), mine);
    // Removing: a listed file the catalog no longer plans stays too.
    std::fs::remove_file(&lookup).unwrap();
    ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .args(["generate", "--force"])
        .assert()
        .success();
    strip_hashes(&out, "wipe.ts");
    std::fs::write(&wipe, "// my own wipe tool\n").unwrap();
    std::fs::write(&cat, base.replace("tools: [lookup, wipe]", "tools: [lookup]")).unwrap();
    let run = ixgen(&out).arg("--catalog").arg(&cat).arg("generate").assert().code(2);
    let stderr = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    assert!(
        stderr.contains("wipe.ts") && stderr.contains("refusing to remove"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&wipe).unwrap(), "// my own wipe tool\n");
    // `check` does not pass over it either, and `--force` takes the files over.
    ixgen(&out).arg("--catalog").arg(&cat).arg("check").assert().code(1);
    ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .args(["generate", "--force"])
        .assert()
        .success();
    assert!(!wipe.exists());
    ixgen(&out).arg("--catalog").arg(&cat).arg("check").assert().code(0);
    let manifest = std::fs::read_to_string(out.join(".ixgen/manifest.json")).unwrap();
    for line in manifest.lines().filter(|l| l.contains(".opencode/tools/")) {
        assert!(line.contains("\"blake3\""), "every entry carries a hash again: {line}");
    }
}

/// A catalog of one tool `t` with these `targets` (YAML flow mapping entries), its context
/// variables, and the session toolset `s`.
fn targets_catalog(targets: &str) -> String {
    format!(
        "version: 1\nproduct: {{name: demo, version: 0.1.0, description: d}}\n\
         store: {{path: \"{{store}}\"}}\n\
         context:\n  store: {{type: path, default: .loop/store}}\n  session: {{type: string, format: topic-part}}\n\
         toolsets: {{all: {{tools: [t]}}, s: {{tools: [note_add]}}}}\n\
         targets: {{{targets}}}\n\
         tools:\n  - {{name: t, description: d, steps: [{{program: echo, run: [a]}}]}}\n  \
         - name: note_add\n    description: Leave a note.\n    access: write\n    destructive: false\n    \
         steps:\n      - append: {{topic: \"loop.{{session}}.note\", meta: {{action: add}}}}\n"
    )
}

/// ixgen with `--catalog` and `--out` in `dir`.
fn ixgen_in(dir: &Path) -> Command {
    let mut c = ixgen(&dir.join("out"));
    c.arg("--catalog").arg(dir.join("c.yaml"));
    c
}

fn check_json(dir: &Path, code: i32) -> serde_json::Value {
    serde_json::from_str(&stdout(ixgen_in(dir).args(["check", "--format", "json"]), code)).unwrap()
}

#[test]
fn a_target_dropped_from_the_catalog_has_its_files_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (cat, out) = (dir.path().join("c.yaml"), dir.path().join("out"));
    let all = "opencode: {toolset: all}, mcp: {toolset: all}, rust: {toolset: all}";
    std::fs::write(&cat, targets_catalog(all)).unwrap();
    ixgen_in(dir.path()).args(["generate", "-q"]).assert().success();
    let dropped = [".opencode/tools/t.ts", "rust/tools.rs"];
    for f in dropped {
        assert!(out.join(f).exists(), "{f}");
    }
    std::fs::write(&cat, targets_catalog("mcp: {toolset: all}")).unwrap();

    // A run of named targets leaves the other targets' files alone.
    let report = stdout(ixgen_in(dir.path()).args(["generate", "mcp"]), 0);
    assert!(report.contains("0 removed"), "{report}");
    for f in dropped {
        assert!(out.join(f).exists(), "{f}");
    }
    ixgen_in(dir.path()).args(["check", "mcp"]).assert().code(0);

    // A run of every target covers the dropped ones: check lists their files as extra.
    let report = stdout(ixgen_in(dir.path()).arg("check"), 1);
    for f in dropped {
        assert!(report.contains(&format!("extra:   {f} (owned by ixgen")), "{report}");
    }
    let json = check_json(dir.path(), 1);
    let extra: Vec<&str> = json["extra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for f in dropped {
        assert!(extra.contains(&f), "{json}");
    }
    assert!(!extra.contains(&"mcp/tools.json"), "{json}");

    // A file edited since ixgen wrote it is not removed without --force.
    std::fs::write(out.join("rust/tools.rs"), "// mine now\n").unwrap();
    let refused = ixgen_in(dir.path()).arg("generate").assert().code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(stderr.contains("edited since ixgen wrote it"), "{stderr}");
    for f in dropped {
        assert!(out.join(f).exists(), "{f}: a refused run removed it");
    }
    let report = stdout(ixgen_in(dir.path()).args(["generate", "--force"]), 0);
    for f in dropped {
        assert!(report.contains(&format!("remove  {f}")), "{report}");
        assert!(!out.join(f).exists(), "{f}");
    }
    let left: Vec<String> = tree(&out).into_keys().collect();
    assert!(
        !left.iter().any(|f| f.starts_with(".opencode/")),
        "the runtime stayed: {left:?}"
    );
    assert!(out.join("mcp/tools.json").exists());
    let json = check_json(dir.path(), 0);
    assert_eq!(json["extra"], serde_json::json!([]), "{json}");
    let manifest = std::fs::read_to_string(out.join(".ixgen/manifest.json")).unwrap();
    assert!(
        !manifest.contains("opencode") && !manifest.contains("rust"),
        "{manifest}"
    );
}

/// Files a run option writes stay while the catalog enables their target, whatever the run
/// options, and go with the target: the session file (written only with its context) and an
/// MCP revision's file (written only with `--profile`).
#[test]
fn a_session_or_revision_file_stays_until_its_target_leaves_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let (cat, out) = (dir.path().join("c.yaml"), dir.path().join("out"));
    let all =
        "opencode: {toolset: all}, mcp: {toolset: all}, session: {toolset: s, file: loop, context: [store, session]}";
    std::fs::write(&cat, targets_catalog(all)).unwrap();
    let (session, revision) = (".opencode/tools/loop.ts", "mcp/tools.2026-07-28.json");
    let both = ["--session", "s1", "--profile", "2025-11-25", "--profile", "2026-07-28"];
    ixgen_in(dir.path()).arg("generate").args(both).assert().success();
    assert!(out.join(session).exists() && out.join(revision).exists());

    // Without the context and the revision, they stay, and check finds nothing extra.
    let report = stdout(ixgen_in(dir.path()).arg("generate"), 0);
    assert!(report.contains("0 removed"), "{report}");
    assert!(out.join(session).exists() && out.join(revision).exists());
    ixgen_in(dir.path()).arg("check").assert().code(0);

    // Once the catalog drops their targets, they go (and the runtime, which no tool imports).
    std::fs::write(&cat, targets_catalog("opencode: {toolset: all}")).unwrap();
    let json = check_json(dir.path(), 1);
    let extra = json["extra"].as_array().unwrap();
    for f in [session, revision, "mcp/tools.json"] {
        assert!(extra.contains(&serde_json::json!(f)), "{json}");
    }
    ixgen_in(dir.path()).arg("generate").assert().success();
    for f in [session, revision, "mcp/tools.json"] {
        assert!(!out.join(f).exists(), "{f}");
    }
    assert!(out.join(".opencode/tools/t.ts").exists());
    ixgen_in(dir.path()).arg("check").assert().code(0);
}

/// `check`'s hint is the command line that brings the output up to date: the user's own, with
/// `generate` for `check`, quoted for the shell, and without check's `--format`.
#[test]
fn checks_hint_is_the_same_command_line_as_generate_and_running_it_fixes_the_drift() {
    let dir = tempfile::tempdir().unwrap();
    let (out, cat) = (dir.path().join("out"), dir.path().join("my catalog.yaml"));
    let base = std::fs::read_to_string(MINIMAL).unwrap();
    std::fs::write(&cat, &base).unwrap();
    let check = |format: &str| {
        let mut c = ixgen(&out);
        c.arg("--catalog")
            .arg(&cat)
            .args(["check", "opencode", "--format", format]);
        c
    };
    ixgen(&out)
        .arg("--catalog")
        .arg(&cat)
        .args(["generate", "opencode"])
        .assert()
        .success();
    std::fs::write(&cat, base.replace("tools: [lookup, wipe]", "tools: [lookup]")).unwrap();

    let want = format!(
        "ixgen --out {} --catalog '{}' generate opencode",
        out.display(),
        cat.display()
    );
    let failed = check("text").assert().code(1);
    let stderr = String::from_utf8_lossy(&failed.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!("help: run `{want}` and commit the result")),
        "{stderr}"
    );
    let github = stdout(&mut check("github"), 1);
    assert!(github.contains(&format!("run `{want}` and commit")), "{github}");

    // Run as the shell reads it, it writes what check compares with, and nothing else.
    let bin = assert_cmd::cargo::cargo_bin("ixgen");
    let line = want.replacen("ixgen", &format!("'{}'", bin.display()), 1);
    let run = std::process::Command::new("sh").args(["-c", &line]).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    check("text").assert().code(0);
    assert!(
        !out.join("mcp/tools.json").exists(),
        "the hint wrote a target check did not name"
    );
}

/// The runtime never signals pid 1 (init): the ix catalog's `--pid` flag refuses it when it is
/// given, with exit 2 and nothing written, rather than generating a stop tool that always fails.
#[test]
fn the_ix_catalog_refuses_pid_1_when_the_flag_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let session = |pid: &str| {
        let args = [
            "opencode",
            "--session",
            "s",
            "--iteration",
            "1",
            "--store",
            "/tmp/st",
            "--pid",
        ];
        args.into_iter()
            .map(String::from)
            .chain([pid.to_string()])
            .collect::<Vec<_>>()
    };
    let out = ixgen(dir.path()).args(session("1")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--pid 1 is below the minimum 2"), "{err}");
    assert!(tree(dir.path()).is_empty(), "nothing was written");
    ixgen(dir.path()).args(session("2")).assert().success();
}

/// A filter asked for on the command line that the server cannot be launched with (no
/// `server.filter_flags`) would reach the tool files but not the MCP configurations, which
/// would launch the server with every tool: an error, with nothing written. With the flags,
/// the configurations launch the server filtered.
#[test]
fn a_filter_the_launched_server_cannot_take_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = support::root();
    let text = std::fs::read_to_string(root.join("catalog/ix.yaml")).unwrap();
    let flags = "  filter_flags:\n    read_only: --read-only\n    enable_tools: --enable-tools\n    disable_tools: --disable-tools\n";
    assert!(text.contains(flags), "the ix catalog's server flags moved");
    let catalog = dir.path().join("ix.yaml");
    std::fs::write(&catalog, text.replacen(flags, "", 1)).unwrap();
    std::fs::copy(root.join("catalog/ix-icon.png"), dir.path().join("ix-icon.png")).unwrap();
    let out = dir.path().join("out");
    let run = |args: &[&str]| ixgen(&out).arg("--catalog").arg(&catalog).args(args).output().unwrap();
    for args in [
        &["generate", "--read-only"][..],
        &["generate", "claude", "--disable-tools", "search"],
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("server `ix-memory` has no flag to pass that on"),
            "{args:?}: {err}"
        );
        assert!(err.contains("Claude Code"), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}: nothing is written");
    }
    // No target of the run launches the server: the filter reaches all it writes.
    assert!(run(&["generate", "mcp", "--read-only"]).status.success());
    // The ix catalog has the flags: the configurations launch the server read-only.
    let dir = tempfile::tempdir().unwrap();
    ixgen(dir.path()).args(["generate", "--read-only"]).assert().success();
    let mcp: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.path().join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(
        mcp["mcpServers"]["ix-memory"]["args"],
        serde_json::json!(["mcp", "--read-only"])
    );
}

/// `--color` reaches clap's own errors and help too, which it prints before the flag is parsed.
/// (Without a terminal `auto` is plain: `always` shows that the flag was heard.)
#[test]
fn the_color_flag_reaches_command_line_errors_and_help() {
    let escapes = |args: &[&str]| {
        let o = Command::cargo_bin("ixgen")
            .unwrap()
            .args(args)
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        [o.stdout, o.stderr]
            .concat()
            .windows(2)
            .filter(|w| w == b"\x1b[")
            .count()
    };
    assert!(escapes(&["--color", "always", "generate", "--bogus"]) > 0);
    assert!(escapes(&["--color=always", "generate", "--help"]) > 0);
    assert_eq!(
        escapes(&["--color", "always", "--color", "never", "generate", "--bogus"]),
        0
    );
    assert_eq!(escapes(&["--color=never", "generate", "--help"]), 0);
    // NO_COLOR wins over --color always, as it does for ixgen's own messages.
    let o = Command::cargo_bin("ixgen")
        .unwrap()
        .args(["--color", "always", "generate", "--bogus"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!o.stderr.contains(&0x1b), "{}", String::from_utf8_lossy(&o.stderr));
}
