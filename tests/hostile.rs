//! ixgen under hostile input: the catalog, the committed manifest and the committed tree are
//! all the attacker's (a pull request in CI), or a careless user's. Each test is named after
//! the promise it checks (README, "What it writes, and what it owns"); the property tests at
//! the end throw random catalog strings, paths and manifests at the same promises.

mod support;

use assert_cmd::Command;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use support::tree;

const MINIMAL: &str = "tests/fixtures/minimal/catalog.yaml";

/// A work folder: `out/` (the output), `outside/` (must never change), `catalog.yaml`.
struct Work {
    tmp: tempfile::TempDir,
}

impl Work {
    fn new() -> Work {
        let w = Work {
            tmp: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(w.out()).unwrap();
        std::fs::create_dir_all(w.outside()).unwrap();
        std::fs::write(w.outside().join("victim.txt"), "SECRET_TOKEN=hunter2\n").unwrap();
        w.catalog(&std::fs::read_to_string(MINIMAL).unwrap());
        w
    }
    fn out(&self) -> PathBuf {
        self.tmp.path().join("out")
    }
    fn outside(&self) -> PathBuf {
        self.tmp.path().join("outside")
    }
    fn catalog(&self, text: &str) {
        std::fs::write(self.tmp.path().join("catalog.yaml"), text).unwrap();
    }
    /// The minimal catalog with `from` replaced by `to`.
    fn edit(&self, from: &str, to: &str) {
        let base = std::fs::read_to_string(MINIMAL).unwrap();
        assert!(base.contains(from), "{from}");
        self.catalog(&base.replacen(from, to, 1));
    }
    fn ixgen(&self, args: &[&str]) -> Run {
        let out = Command::cargo_bin("ixgen")
            .unwrap()
            .env("NO_COLOR", "1")
            .arg("--out")
            .arg(self.out())
            .arg("--catalog")
            .arg(self.tmp.path().join("catalog.yaml"))
            .args(args)
            .output()
            .unwrap();
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        run.assert_clean();
        run
    }
    /// `outside/` is as the test made it (nothing read into it, written or removed).
    fn assert_outside_untouched(&self) {
        let t = tree(&self.outside());
        assert_eq!(t.len(), 1, "outside/ changed: {:?}", t.keys());
        assert_eq!(t["victim.txt"], b"SECRET_TOKEN=hunter2\n");
    }
}

/// Whether a line is one of ixgen's own annotations (`--format github`): `::error` or `::warning`
/// with only ixgen's properties (`file`, `line`, `col`, a `title` that starts with `ixgen`) before
/// the message. Catalog text may only stand, escaped, in the file's path and the message.
fn ixgens_annotation(line: &str) -> bool {
    let Some(rest) = line
        .strip_prefix("::error ")
        .or_else(|| line.strip_prefix("::warning "))
    else {
        return false;
    };
    let Some((props, _message)) = rest.split_once("::") else {
        return false;
    };
    let props: Vec<&str> = props.split(',').collect();
    props.iter().any(|p| p.starts_with("title=ixgen"))
        && props.iter().all(|p| {
            ["file=", "line=", "col=", "title=ixgen"]
                .iter()
                .any(|k| p.starts_with(k))
        })
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// What every run promises: no panic, an exit code of 0, 1 or 2, and output a CI log or a
    /// terminal shows as it is (no line that starts a workflow command, no escape sequence).
    fn assert_clean(&self) {
        let all = format!("{}{}", self.stdout, self.stderr);
        assert!(!all.contains("panicked"), "a panic: {all}");
        assert!(matches!(self.code, 0..=2), "exit {}: {all}", self.code);
        for line in all.lines() {
            assert!(
                !line.trim_start().starts_with("::") || ixgens_annotation(line),
                "a forged workflow command: {line:?}"
            );
        }
        assert!(
            !all.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
            "a control character reached the output: {all:?}"
        );
        assert!(!all.contains("hunter2"), "a secret was printed: {all}");
    }
    fn ok(self) -> Run {
        assert_eq!(self.code, 0, "{}{}", self.stdout, self.stderr);
        self
    }
    fn code(self, code: i32) -> Run {
        assert_eq!(self.code, code, "{}{}", self.stdout, self.stderr);
        self
    }
    /// Exit 2 with a diagnostic that points into the catalog (`catalog.yaml:line:col`).
    fn located(self, code: &str) -> Run {
        assert_eq!(self.code, 2, "{}", self.stderr);
        let header = self
            .stderr
            .lines()
            .find(|l| l.contains("catalog.yaml:"))
            .unwrap_or_else(|| panic!("no location: {}", self.stderr));
        let pos: Vec<&str> = header.rsplit(':').take(2).collect();
        assert!(
            pos.iter().all(|p| p.parse::<usize>().is_ok()),
            "not file:line:col: {header}"
        );
        assert!(self.stderr.contains(code), "expected `{code}`: {}", self.stderr);
        self
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

fn manifest(w: &Work, files: serde_json::Value) {
    std::fs::create_dir_all(w.out().join(".ixgen")).unwrap();
    let m = serde_json::json!({ "generator": "ixgen", "files": files });
    std::fs::write(w.out().join(".ixgen/manifest.json"), m.to_string()).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Nothing outside --out is read, written or removed.

#[test]
fn manifest_entries_outside_out_are_ignored_never_removed() {
    let w = Work::new();
    let victim = w.outside().join("victim.txt");
    let hash = blake3::hash(b"SECRET_TOKEN=hunter2\n").to_hex().to_string();
    manifest(
        &w,
        serde_json::json!({
            "../outside/victim.txt": {"group": "mcp", "blake3": hash},
            victim.to_string_lossy(): {"group": "mcp", "blake3": hash},
            "a/../../outside/victim.txt": {"group": "opencode"},
            "x\n::error::forged": {"group": "mcp"},
        }),
    );
    let run = w.ixgen(&["generate"]).ok();
    assert!(run.stderr.contains("ignoring the manifest entry"), "{}", run.stderr);
    w.assert_outside_untouched();
    // The run's own manifest no longer carries them, and the tree checks.
    let m = std::fs::read_to_string(w.out().join(".ixgen/manifest.json")).unwrap();
    assert!(!m.contains("victim"), "{m}");
    w.ixgen(&["check"]).ok();
}

#[cfg(unix)]
#[test]
fn a_symlink_at_a_generated_path_is_refused_and_its_target_never_printed() {
    let w = Work::new();
    w.ixgen(&["generate"]).ok();
    let tools = w.out().join("mcp/tools.json");
    std::fs::remove_file(&tools).unwrap();
    symlink(&w.outside().join("victim.txt"), &tools);
    for args in [
        &["check"][..],
        &["check", "--format", "json"],
        &["check", "--format", "github"],
    ] {
        let run = w.ixgen(args).code(2);
        assert!(
            run.stderr.contains("mcp/tools.json") && run.stderr.contains("symlink"),
            "{}",
            run.stderr
        );
    }
    let run = w.ixgen(&["generate", "--force"]).code(2);
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    w.ixgen(&["generate", "--dry-run"]).code(2);
    w.assert_outside_untouched();
    assert!(std::fs::symlink_metadata(&tools).unwrap().file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_is_never_written_through() {
    let w = Work::new();
    symlink(&w.outside(), &w.out().join(".opencode"));
    let run = w.ixgen(&["generate"]).code(2);
    assert!(
        run.stderr.contains(".opencode") && run.stderr.contains("symlink"),
        "{}",
        run.stderr
    );
    w.assert_outside_untouched();
    // Nothing else was written either: the refusal came before the first write.
    assert!(!w.out().join("mcp").exists());
}

#[cfg(unix)]
#[test]
fn a_symlinked_shared_config_is_refused_not_replaced() {
    let w = Work::new();
    w.edit(
        "  opencode: {toolset: main}",
        "  opencode: {toolset: main, config: opencode.json}",
    );
    // A valid config outside --out, which a run must neither edit nor replace with a copy.
    let shared = w.outside().join("shared.json");
    std::fs::write(&shared, "{\"model\": \"x\"}\n").unwrap();
    symlink(&shared, &w.out().join("opencode.json"));
    for args in [&["generate"][..], &["generate", "--force"], &["check"]] {
        let run = w.ixgen(args).code(2);
        assert!(
            run.stderr.contains("opencode.json") && run.stderr.contains("symlink"),
            "{}",
            run.stderr
        );
    }
    assert!(
        std::fs::symlink_metadata(w.out().join("opencode.json"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a plain file"
    );
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "{\"model\": \"x\"}\n");
    std::fs::remove_file(&shared).unwrap();
    w.assert_outside_untouched();
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_file_in_the_way_is_refused_without_hanging_or_writing() {
    let w = Work::new();
    w.ixgen(&["generate"]).ok();
    let tools = w.out().join("mcp/tools.json");
    std::fs::remove_file(&tools).unwrap();
    let status = std::process::Command::new("mkfifo").arg(&tools).status().unwrap();
    assert!(status.success());
    for args in [&["check"][..], &["generate"], &["generate", "--force"]] {
        let out = Command::cargo_bin("ixgen")
            .unwrap()
            .env("NO_COLOR", "1")
            .arg("--out")
            .arg(w.out())
            .arg("--catalog")
            .arg(w.tmp.path().join("catalog.yaml"))
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{stderr}");
    }
    // A file where a generated folder must be.
    std::fs::remove_file(&tools).unwrap();
    std::fs::remove_dir(w.out().join("mcp")).unwrap();
    std::fs::write(w.out().join("mcp"), "mine\n").unwrap();
    let before = tree(&w.out());
    let run = w.ixgen(&["generate", "--force"]).code(2);
    assert!(
        run.stderr.contains("mcp") && run.stderr.contains("not a folder"),
        "{}",
        run.stderr
    );
    assert_eq!(tree(&w.out()), before);
    w.assert_outside_untouched();
}

// ---------------------------------------------------------------------------------------------
// No edit is lost.

#[test]
fn an_edited_owned_file_is_never_overwritten_without_force() {
    let w = Work::new();
    w.ixgen(&["generate"]).ok();
    let tool = w.out().join(".opencode/tools/lookup.ts");
    let edited = format!("{}// my edit\n", std::fs::read_to_string(&tool).unwrap());
    std::fs::write(&tool, &edited).unwrap();
    // A catalog change that rewrites that very file.
    w.edit("Look a symbol up", "Look a symbol up, quickly");
    let before = tree(&w.out());
    for args in [&["generate"][..], &["generate", "--dry-run"], &["opencode"]] {
        let run = w.ixgen(args).code(2);
        assert!(
            run.stderr.contains("lookup.ts") && run.stderr.contains("edited"),
            "{}",
            run.stderr
        );
        assert_eq!(tree(&w.out()), before, "a refused run wrote something ({args:?})");
    }
    w.ixgen(&["generate", "--force"]).ok();
    assert!(std::fs::read_to_string(&tool).unwrap().contains("quickly"));
    w.ixgen(&["check"]).ok();
}

#[test]
fn a_wrong_hash_in_the_manifest_is_corrected_not_kept() {
    // A manifest merged by hand can record a hash that is not the file's. While the file is
    // what the catalog gives, the next run writes the right hash; the change after that is
    // then not mistaken for an edit.
    let w = Work::new();
    w.ixgen(&["generate"]).ok();
    let path = w.out().join(".ixgen/manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let tool = std::fs::read(w.out().join(".opencode/tools/lookup.ts")).unwrap();
    let real = blake3::hash(&tool).to_hex().to_string();
    assert!(text.contains(&real));
    std::fs::write(&path, text.replace(&real, &"0".repeat(64))).unwrap();
    w.ixgen(&["generate"]).ok();
    assert!(std::fs::read_to_string(&path).unwrap().contains(&real));
    w.edit("Look a symbol up", "Look a symbol up, quickly");
    w.ixgen(&["generate"]).ok();
    w.ixgen(&["check"]).ok();
}

#[test]
fn a_merged_jsonc_file_keeps_every_byte_but_ixgen_s_key() {
    let w = Work::new();
    w.edit("  mcp: {toolset: main}", "  mcp: {toolset: main}\n  vscode: {}");
    let user = "\u{FEFF}{\n  // VS Code allows comments\n  \"servers\": {\n    \"mine\": {\"command\": \"x\", \"n\": 1e2, \"big\": 123456789012345678901234567890},\n  },\n  /* trailing */ \"inputs\": []\n}\n";
    std::fs::create_dir_all(w.out().join(".vscode")).unwrap();
    std::fs::write(w.out().join(".vscode/mcp.json"), user).unwrap();
    w.ixgen(&["generate"]).ok();
    let after = std::fs::read_to_string(w.out().join(".vscode/mcp.json")).unwrap();
    assert!(
        after.starts_with("\u{FEFF}{\n  // VS Code allows comments\n  \"servers\": {\n    \"mine\": {\"command\": \"x\", \"n\": 1e2, \"big\": 123456789012345678901234567890},"),
        "{after}"
    );
    assert!(
        after.contains("\"demo\"") && after.ends_with("/* trailing */ \"inputs\": []\n}\n"),
        "{after}"
    );
    // Converged: a second run and a check change nothing.
    let again = w.ixgen(&["generate"]).ok();
    assert!(
        again.stdout.contains("0 created, 0 updated, 0 removed"),
        "{}",
        again.stdout
    );
    w.ixgen(&["check"]).ok();
}

#[test]
fn a_shared_file_with_a_duplicate_key_or_that_is_not_jsonc_is_refused_never_edited() {
    let cases = [
        // Duplicate keys, at the top and deeper: which copy a host reads is a guess.
        (
            "opencode.json",
            "{\"mcp\": {}, \"mcp\": {\"other\": {}}}\n",
            "appears twice",
        ),
        ("opencode.json", "{\"mcp\": {\"a\": 1, \"a\": 2}}\n", "appears twice"),
        (
            ".vscode/mcp.json",
            "{\"servers\": {}, \"servers\": {}}\n",
            "appears twice",
        ),
        // Not JSON(C): JSON5's bare keys, single quotes, hex, NaN, a missing comma, and no JSON.
        ("opencode.json", "{mcp: {}}\n", "not valid JSON"),
        ("opencode.json", "{'mcp': {}}\n", "not valid JSON"),
        ("opencode.json", "{\"n\": 0x10}\n", "not valid JSON"),
        ("opencode.json", "{\"n\": NaN}\n", "not valid JSON"),
        ("opencode.json", "{\"a\": 1 \"b\": 2}\n", "not valid JSON"),
        (".vscode/mcp.json", "servers = 1\n", "not valid JSON"),
    ];
    for (file, text, why) in cases {
        let w = Work::new();
        w.edit(
            "  opencode: {toolset: main}\n  mcp: {toolset: main}",
            "  opencode: {toolset: main, config: opencode.json}\n  mcp: {toolset: main}\n  vscode: {}",
        );
        std::fs::create_dir_all(w.out().join(".vscode")).unwrap();
        std::fs::write(w.out().join(file), text).unwrap();
        let run = w.ixgen(&["generate"]).code(2);
        assert!(
            run.stderr.contains(why) && run.stderr.contains(file),
            "{file}: {text}: {}",
            run.stderr
        );
        assert_eq!(
            std::fs::read_to_string(w.out().join(file)).unwrap(),
            text,
            "{file} was edited"
        );
        let check = w.ixgen(&["check"]);
        assert_ne!(check.code, 0, "check passed {file}: {text}");
    }
}

#[test]
fn a_corrupt_manifest_is_reported_as_what_it_is() {
    let w = Work::new();
    w.ixgen(&["generate"]).ok();
    for corrupt in [
        "{ not a manifest",
        "{\"generator\": \"ixgen\", \"files\": [], \"x\": 1}",
    ] {
        std::fs::write(w.out().join(".ixgen/manifest.json"), corrupt).unwrap();
        let before = tree(&w.out());
        for args in [&["generate"][..], &["generate", "--dry-run"], &["check"]] {
            let run = w.ixgen(args).code(2);
            assert!(
                run.stderr.contains("not a valid ixgen manifest") && run.stderr.contains("help:"),
                "{}",
                run.stderr
            );
        }
        assert_eq!(tree(&w.out()), before);
    }
}

// ---------------------------------------------------------------------------------------------
// Every invalid catalog: exit 2 with a location, nothing written.

#[test]
fn every_invalid_catalog_value_is_a_located_error() {
    let cases: &[(&str, &str, &str)] = &[
        ("max: 30", "max: .inf", "not-finite"),
        ("max: 30", "max: -.inf", "not-finite"),
        ("max: 30", "max: .nan", "not-finite"),
        ("default: 10", "default: 9007199254740993", "unsafe-integer"),
        (
            "symbol: {type: string,",
            "symbol: {type: string, pattern: \"(?i)abc\",",
            "bad-pattern",
        ),
        (
            "symbol: {type: string,",
            "symbol: {type: string, pattern: \"(?P<n>a)\",",
            "bad-pattern",
        ),
        (
            "symbol: {type: string,",
            "symbol: {type: string, pattern: \"a++\",",
            "bad-pattern",
        ),
        ("flags: i", "flags: ii", "bad-pattern"),
        ("matches: \"high\"", "matches: \"(?i)high\"", "bad-pattern"),
        (
            "    tools: [lookup, wipe]",
            "    tools: [lookup, wipe]\n  main:\n    tools: [lookup]",
            "duplicate-key",
        ),
        (
            "      limit: {type: integer",
            "      symbol: {type: string}\n      limit: {type: integer",
            "duplicate-key",
        ),
        ("  args: [mcp]", "  args: [mcp]\n  env: {A: x, A: y}", "duplicate-key"),
        (
            "body: {q: \"{symbol}\",",
            "body: {q: \"{symbol}\", q: 1,",
            "duplicate-key",
        ),
        (
            "context:\n  session:",
            "context:\n  session: {type: string}\n  session:",
            "duplicate-key",
        ),
        (
            "  mcp: {toolset: main}",
            "  mcp: {toolset: main, path: ../escape.json}",
            "bad-path",
        ),
        (
            "  mcp: {toolset: main}",
            "  mcp: {toolset: main, path: /etc/passwd}",
            "bad-path",
        ),
        ("  mcp: {toolset: main}", "  mcp: {toolset: main, path: .}", "bad-path"),
        ("  mcp: {toolset: main}", "  mcp: {toolset: main, path: ./}", "bad-path"),
        ("  mcp: {toolset: main}", "  mcp: {toolset: main, path: x/}", "bad-path"),
        (
            "  mcp: {toolset: main}",
            "  mcp: {toolset: main, path: .ixgen/manifest.json}",
            "bad-path",
        ),
        (
            "  mcp: {toolset: main}",
            "  mcp: {toolset: main, path: \"a\\n::error::x.json\"}",
            "bad-path",
        ),
        (
            "  opencode: {toolset: main}",
            "  opencode: {toolset: main, dir: ../../x}",
            "bad-path",
        ),
    ];
    for (from, to, code) in cases {
        let w = Work::new();
        w.edit(from, to);
        w.ixgen(&["validate"]).located(code);
        w.ixgen(&["generate"]).located(code);
        assert!(tree(&w.out()).is_empty(), "{to}: something was written");
        w.assert_outside_untouched();
    }
}

#[test]
fn names_unsafe_in_a_generated_language_are_located_errors() {
    let cases: &[(&str, &str)] = &[
        // A parameter, a context variable, a step id and a JSON template key named `__proto__`
        // would set a JavaScript object's prototype: the value would be lost.
        (
            "      limit: {type: integer",
            "      __proto__: {type: string}\n      limit: {type: integer",
        ),
        (
            "context:\n  session:",
            "context:\n  __proto__: {type: string}\n  session:",
        ),
        ("      - run: [wipe]", "      - id: __proto__\n        run: [wipe]"),
        (
            "body: {q: \"{symbol}\",",
            "body: {__proto__: \"{symbol}\", q: \"{symbol}\",",
        ),
        // A context constant named like one the session file declares itself.
        (
            "session: {type: string, format: topic-part}",
            "session: {type: string, format: topic-part, constant: SHARED}",
        ),
    ];
    for (from, to) in cases {
        let w = Work::new();
        w.edit(from, to);
        let run = w.ixgen(&["validate"]).located("reserved-name");
        assert!(
            run.stderr.contains("__proto__") || run.stderr.contains("SHARED"),
            "{}",
            run.stderr
        );
        w.ixgen(&["generate"]).located("reserved-name");
        assert!(tree(&w.out()).is_empty(), "{to}: something was written");
    }
    // A session tool named `default` would be the session file's default export.
    let w = Work::new();
    let base = std::fs::read_to_string(MINIMAL).unwrap();
    w.catalog(
        &base
            .replace("tools: [lookup, wipe]", "tools: [lookup, default]")
            .replace("  - name: wipe\n", "  - name: default\n")
            .replace(
                "  mcp: {toolset: main}",
                "  mcp: {toolset: main}\n  session: {toolset: main, file: ralph, context: [session]}",
            ),
    );
    let run = w.ixgen(&["validate"]).located("reserved-name");
    assert!(run.stderr.contains("default export"), "{}", run.stderr);
}

#[test]
fn an_icon_outside_the_catalog_folder_is_refused_before_it_is_read() {
    for icon in [
        "/etc/passwd",
        "/dev/zero",
        "../outside/victim.txt",
        "img/../../outside/victim.txt",
    ] {
        let w = Work::new();
        w.edit("  license: MIT\n", &format!("  license: MIT\n  icon: \"{icon}\"\n"));
        for args in [&["validate"][..], &["generate"]] {
            let run = w.ixgen(args);
            assert_eq!(run.code, 2, "{icon}: {}", run.stderr);
            assert!(run.stderr.contains("catalog.yaml:"), "not located: {}", run.stderr);
            // (miette may wrap the message after these words)
            assert!(run.stderr.contains("catalog's folder"), "{icon}: {}", run.stderr);
        }
        assert!(tree(&w.out()).is_empty());
        w.assert_outside_untouched();
    }
}

/// An icon inside the folder that is a symlink out of it, or to a device, is refused without
/// being read whole; a file too large for an icon is read only up to the limit.
#[test]
fn an_icon_symlink_out_of_the_folder_or_to_a_device_is_refused_fast() {
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim.png");
    std::fs::write(&victim, "SECRET_TOKEN=hunter2\n").unwrap();
    for to in [PathBuf::from("/dev/zero"), victim] {
        let target = to.display().to_string();
        let w = Work::new();
        let link = w.tmp.path().join("icon.png");
        std::os::unix::fs::symlink(&to, &link).unwrap();
        w.edit("  license: MIT\n", "  license: MIT\n  icon: icon.png\n");
        let started = std::time::Instant::now();
        let run = w.ixgen(&["validate"]);
        assert_eq!(run.code, 2, "{target}: {}", run.stderr);
        assert!(
            run.stderr.contains("leads out of the catalog's folder"),
            "{target}: {}",
            run.stderr
        );
        // A bound on a hang, not a speed figure.
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }
    let w = Work::new();
    let big = std::fs::File::create(w.tmp.path().join("icon.png")).unwrap();
    big.set_len(1 << 40).unwrap(); // 1 TiB, sparse
    w.edit("  license: MIT\n", "  license: MIT\n  icon: icon.png\n");
    let started = std::time::Instant::now();
    let run = w.ixgen(&["validate"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("icon"), "{}", run.stderr);
    // A bound on reading the 1 TiB file, not a speed figure.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn out_and_catalog_paths_reach_ci_output_escaped() {
    // Control characters (ESC, BEL, a newline) and bidirectional overrides in the folder names
    // given on the command line.
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}' | '\u{FEFF}')
            || ('\u{202A}'..='\u{202E}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out\u{1b}[31m\u{202E}txt.exe");
    let folder = tmp.path().join("cat\u{7}\u{2067}\nnext");
    std::fs::create_dir_all(&folder).unwrap();
    let (before, after) = (folder.join("before.yaml"), folder.join("catalog.yaml"));
    let base = std::fs::read_to_string(MINIMAL).unwrap();
    std::fs::write(&before, &base).unwrap();
    std::fs::write(&after, &base).unwrap();
    let run_raw = |args: &[&str]| {
        let o = Command::cargo_bin("ixgen")
            .unwrap()
            .env("NO_COLOR", "1")
            .arg("--out")
            .arg(&out)
            .arg("--catalog")
            .arg(&after)
            .args(args)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code().unwrap(), all)
    };
    let run = |args: &[&str]| {
        let (code, all) = run_raw(args);
        assert!(!all.chars().any(unsafe_char), "{args:?}: {all:?}");
        (code, all)
    };
    assert_eq!(run(&["generate"]).0, 0);
    // Drift, and a diff with findings: every path printed.
    std::fs::write(&after, base.replace("tools: [lookup, wipe]", "tools: [lookup]")).unwrap();
    let (code, all) = run(&["check", "--format", "github"]);
    assert_eq!(code, 1, "{all}");
    assert!(all.contains("::error file=") && all.contains("\\u{1b}"), "{all}");
    for format in ["text", "github", "markdown"] {
        let (code, all) = run(&["diff", "--against", before.to_str().unwrap(), "--format", format]);
        assert!(code < 2, "{format}: {all}");
    }
    // JSON is data: it carries the path exactly (its string escapes keep control characters
    // from the output).
    let (_, json) = run_raw(&["diff", "--against", before.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["before"]["file"].as_str(), before.to_str());
    let (_, text) = run(&["diff", "--against", before.to_str().unwrap()]);
    assert!(text.lines().next().unwrap().contains("\\u{7}"), "{text}");
}

#[test]
fn ci_output_cannot_be_forged_by_catalog_text() {
    let w = Work::new();
    // A toolset name that does not exist, holding a newline, a workflow command, ESC and BEL.
    w.edit(
        "  mcp: {toolset: main}",
        "  mcp: {toolset: \"x\\n::error file=a::forged\\e[31m\\a\"}",
    );
    let run = w.ixgen(&["validate"]).located("unknown-toolset");
    assert!(
        run.stderr.contains("::error file=a::forged"),
        "the text is shown, escaped: {}",
        run.stderr
    );
    w.ixgen(&["generate"]).code(2);
    w.ixgen(&["check", "--format", "github"]).code(2);
}

#[test]
fn diagnostics_never_panic_on_long_lines_or_keys() {
    let w = Work::new();
    let long_value = "d".repeat(70_000);
    w.edit(
        "description: A demo product",
        &format!("description: {long_value}, bad: 1"),
    );
    w.ixgen(&["validate"]).code(2);
    let key = "k".repeat(1024);
    w.edit("cli:", &format!("{key}: 1\ncli:"));
    w.ixgen(&["validate"]).located("unknown-key");
    w.edit(
        "  mcp: {toolset: main}",
        &format!("  mcp: {{toolset: main}}\n  opencode2{}: 1", "x".repeat(70_000)),
    );
    w.ixgen(&["validate"]).code(2);
}

#[test]
fn deep_nesting_fails_fast_with_a_clear_error() {
    let w = Work::new();
    let n = 100_000;
    for deep in [
        format!("version: 1\nx: {}{}\n", "[".repeat(n), "]".repeat(n)),
        format!("version: 1\nx: {}{}\n", "{a: ".repeat(n), "}".repeat(n)),
        format!("{}1\n", "- ".repeat(n)),
    ] {
        w.catalog(&deep);
        let t = std::time::Instant::now();
        let run = w.ixgen(&["validate"]).located("too-deep");
        assert!(run.stderr.contains("nests deeper"), "{}", run.stderr);
        // A bound on quadratic work, not a speed figure.
        assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
    }
}

// ---------------------------------------------------------------------------------------------
// Paths and runs that settle.

#[test]
fn paths_equal_after_normalization_are_one_file_and_runs_settle() {
    let w = Work::new();
    w.edit(
        "  mcp: {toolset: main}",
        "  mcp: {toolset: main, path: ./mcp//tools.json}",
    );
    w.ixgen(&["generate"]).ok();
    let m = std::fs::read_to_string(w.out().join(".ixgen/manifest.json")).unwrap();
    assert!(m.contains("\"mcp/tools.json\"") && !m.contains("./mcp"), "{m}");
    w.ixgen(&["check"]).ok();
    // The other spelling is the same file: nothing to do.
    w.edit("  mcp: {toolset: main}", "  mcp: {toolset: main, path: mcp/tools.json}");
    let run = w.ixgen(&["generate"]).ok();
    assert!(run.stdout.contains("0 created, 0 updated, 0 removed"), "{}", run.stdout);
    w.ixgen(&["check"]).ok();
}

#[test]
fn two_targets_writing_one_path_are_refused() {
    let w = Work::new();
    w.edit(
        "  mcp: {toolset: main}",
        "  mcp: {toolset: main, path: .cursor/mcp.json}\n  cursor: {path: ./.cursor/mcp.json}",
    );
    // Into an output folder that does not exist yet: a refused run leaves not even the folder.
    std::fs::remove_dir(w.out()).unwrap();
    let run = w.ixgen(&["generate"]).code(2);
    assert!(run.stderr.contains(".cursor/mcp.json"), "{}", run.stderr);
    assert!(!w.out().exists(), "the refused run created --out");
}

#[test]
fn validate_finds_a_target_path_that_aliases_another_targets_file() {
    let cases = [
        // Another spelling of the Cursor target's own file.
        "  mcp: {toolset: main, path: ./.cursor/mcp.json}\n  cursor: {}",
        "  mcp: {toolset: main, path: .cursor//mcp.json}\n  cursor: {}",
        "  mcp: {toolset: main, path: .cursor/./mcp.json}\n  cursor: {}",
        "  mcp: {toolset: main}\n  cursor: {path: ./mcp/tools.json}",
        // A file another target generates.
        "  mcp: {toolset: main, path: .opencode/tools/lookup.ts}",
        "  mcp: {toolset: main, path: ./.opencode//tools/./wipe.ts}",
    ];
    for to in cases {
        let w = Work::new();
        w.edit("  mcp: {toolset: main}", to);
        let run = w.ixgen(&["validate"]).located("path-collision");
        assert!(run.stderr.contains("both write"), "{to}: {}", run.stderr);
        w.ixgen(&["generate"]).located("path-collision");
        assert!(tree(&w.out()).is_empty(), "{to}: something was written");
    }
}

/// A target's file where another target's file needs a folder: found by `validate`, and by
/// `generate` and its dry run before anything is written (the writer once failed on it midway,
/// blaming "another program").
#[test]
fn validate_finds_a_target_file_where_another_target_needs_a_folder() {
    let cases = [
        (
            "  mcp: {toolset: main, path: .opencode/tools}",
            "`.opencode/tools/lookup.ts`",
        ),
        ("  mcp: {toolset: main, path: .opencode}", "`.opencode/"),
        (
            "  mcp: {toolset: main, path: ./.claude-plugin}\n  claude: {}",
            "`.claude-plugin/",
        ),
        (
            "  mcp: {toolset: main}\n  cursor: {path: mcp/tools.json/x.json}",
            "`mcp/tools.json/x.json`",
        ),
    ];
    for (to, inside) in cases {
        let w = Work::new();
        w.edit("  mcp: {toolset: main}", to);
        for args in [&["validate"][..], &["generate", "--dry-run"], &["generate"]] {
            let run = w.ixgen(args).located("path-collision");
            // The message as one line (the report wraps it).
            let message = run.stderr.replace("\n  │ ", " ");
            assert!(
                message.contains("needs as a folder") && message.contains(inside),
                "{to} {args:?}: {}",
                run.stderr
            );
        }
        assert!(tree(&w.out()).is_empty(), "{to}: something was written");
    }
}

#[cfg(unix)]
#[test]
fn new_files_respect_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let w = Work::new();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("umask 077 && exec \"$0\" --out \"$1\" --catalog \"$2\" generate -q")
        .arg(env!("CARGO_BIN_EXE_ixgen"))
        .arg(w.out())
        .arg(w.tmp.path().join("catalog.yaml"))
        .status()
        .unwrap();
    assert!(status.success());
    let mode = std::fs::metadata(w.out().join("mcp/tools.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
}

#[test]
fn stale_temp_files_of_a_killed_run_are_removed_and_reported() {
    let w = Work::new();
    w.ixgen(&["generate"]).ok();
    for p in [
        "mcp/.ixgen-AbC123.tmp",
        ".opencode/tools/.ixgen-zz9.tmp",
        ".ixgen/.ixgen-q1.tmp",
    ] {
        std::fs::write(w.out().join(p), "half a file").unwrap();
    }
    // A run killed while it wrote has also taken the run record away (it does that before it
    // stages anything; tests/record.rs).
    std::fs::remove_file(w.out().join(".ixgen/run.json")).unwrap();
    // Not ixgen's: a name that only looks alike, in a folder ixgen does not write to.
    std::fs::create_dir_all(w.out().join("other")).unwrap();
    std::fs::write(w.out().join("other/.ixgen-keep.tmp"), "mine").unwrap();
    let dry = w.ixgen(&["generate", "--dry-run"]).ok();
    assert!(
        dry.stderr.contains("would remove `mcp/.ixgen-AbC123.tmp`"),
        "{}",
        dry.stderr
    );
    assert!(w.out().join("mcp/.ixgen-AbC123.tmp").exists());
    let run = w.ixgen(&["generate"]).ok();
    assert!(run.stderr.contains("removed `mcp/.ixgen-AbC123.tmp`"), "{}", run.stderr);
    let left: Vec<String> = tree(&w.out()).into_keys().filter(|k| k.contains(".ixgen-")).collect();
    assert_eq!(left, ["other/.ixgen-keep.tmp"]);
    w.ixgen(&["check"]).ok();
}

#[test]
fn concurrent_runs_with_different_options_leave_a_tree_that_checks() {
    // Races are a matter of timing: several rounds of several runs at once give an unlocked
    // engine many chances to interleave one run's compare with another's writes.
    let w = std::sync::Arc::new(Work::new());
    w.ixgen(&["generate"]).ok();
    for round in 0..4 {
        let runs: Vec<_> = (0..8)
            .map(|i| {
                let w = w.clone();
                std::thread::spawn(move || {
                    let args: &[&str] = if i % 2 == 0 {
                        &["generate", "-q"]
                    } else {
                        &["generate", "-q", "--read-only"]
                    };
                    w.ixgen(args).ok();
                })
            })
            .collect();
        for r in runs {
            r.join().unwrap();
        }
        // The tree is one run's complete output: it checks under one of the two option sets.
        let plain = w.ixgen(&["check"]).code;
        let read_only = w.ixgen(&["check", "--read-only"]).code;
        assert!(
            plain == 0 || read_only == 0,
            "round {round}: neither option set checks ({plain}, {read_only})"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Properties: random catalog strings, target paths and manifests.

/// Strings an attacker would try: path tricks, control characters, log commands, Unicode.
fn hostile_string() -> impl Strategy<Value = String> {
    let atoms = prop_oneof![
        Just("..".to_string()),
        Just("/".to_string()),
        Just(".".to_string()),
        Just("\n::error::x".to_string()),
        Just("\u{1b}[2J".to_string()),
        Just("\u{7}".to_string()),
        Just("\u{2028}".to_string()),
        Just("\u{202e}".to_string()),
        Just(".ixgen".to_string()),
        Just("manifest.json".to_string()),
        Just("\\".to_string()),
        Just("C:".to_string()),
        Just("%0A".to_string()),
        Just("~".to_string()),
        "[a-z]{1,6}",
        "\\PC{0,3}",
        Just(String::new()),
    ];
    proptest::collection::vec(atoms, 0..6).prop_map(|v| v.concat())
}

/// A YAML double-quoted scalar holding exactly `s` (JSON's escapes are YAML's).
fn yq(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn assert_invariants(w: &Work) {
    let run = w.ixgen(&["generate"]);
    w.assert_outside_untouched();
    match run.code {
        0 => {
            w.ixgen(&["check"]).ok();
        }
        2 => {
            // Either the catalog is at fault (located), or the tree (named, with a help line).
            assert!(
                run.stderr.contains("catalog.yaml:") || run.stderr.contains("help:"),
                "{}",
                run.stderr
            );
        }
        c => panic!("generate exited {c}: {}", run.stderr),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_catalog_string_keeps_the_promises(desc in hostile_string(), path in hostile_string(), pattern in hostile_string(), ts in hostile_string()) {
        let w = Work::new();
        let base = std::fs::read_to_string(MINIMAL).unwrap();
        let text = base
            .replacen("Look a symbol up", &desc.replace(['\n', '\r'], " ").replace(['"', ':', '#', '{', '}', '[', ']', ',', '\'', '&', '*', '!', '|', '>', '%', '@', '`'], "_"), 1)
            .replacen("  mcp: {toolset: main}", &format!("  mcp: {{toolset: main, path: {}}}", yq(&path)), 1)
            .replacen("symbol: {type: string,", &format!("symbol: {{type: string, pattern: {},", yq(&pattern)), 1)
            .replacen("    tools: [lookup, wipe]", &format!("    tools: [lookup, wipe]\n  {}:\n    tools: [lookup]", yq(&ts)), 1);
        w.catalog(&text);
        let v = w.ixgen(&["validate"]);
        prop_assert!(v.code == 0 || v.code == 2);
        if v.code == 2 {
            prop_assert!(v.stderr.contains("catalog.yaml:"), "not located: {}", v.stderr);
        }
        assert_invariants(&w);
    }

    #[test]
    fn any_manifest_keeps_the_promises(
        entries in proptest::collection::vec((hostile_string(), prop_oneof![Just("mcp".to_string()), Just("opencode".to_string()), Just("other".to_string())], proptest::option::of(prop_oneof![Just("victim".to_string()), "[0-9a-f]{64}", "\\PC{0,8}"])), 0..6),
        generate_first in any::<bool>(),
    ) {
        let w = Work::new();
        if generate_first {
            w.ixgen(&["generate"]).ok();
        }
        let victim_hash = blake3::hash(b"SECRET_TOKEN=hunter2\n").to_hex().to_string();
        let mut files = serde_json::Map::new();
        for (key, group, hash) in entries {
            // Aim some entries at the victim outside --out.
            let key = if key.len() % 3 == 0 { format!("../outside/{key}victim.txt") } else { key };
            let mut e = serde_json::json!({ "group": group });
            if let Some(h) = hash {
                e["blake3"] = serde_json::Value::String(if h == "victim" { victim_hash.clone() } else { h });
            }
            files.insert(key, e);
        }
        manifest(&w, serde_json::Value::Object(files));
        assert_invariants(&w);
    }
}
