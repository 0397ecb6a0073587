//! The run's context on the command line, without hosts: one flag per context variable the
//! catalog declares, catalog defaults, conflicting values, and the session file's place beside
//! a loop that writes its own (`.opencode/tool/ralph.ts`).

mod support;

use assert_cmd::Command;
use std::path::Path;

fn ixgen(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("ixgen").unwrap();
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const SESSION_FILE: &str = ".opencode/tool/ralph.ts";

#[test]
fn session_and_iteration_alone_work_in_an_empty_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ixgen(tmp.path())
        .args(["opencode", "--session", "foo", "--iteration", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let src = std::fs::read_to_string(tmp.path().join(SESSION_FILE)).unwrap();
    // The store defaults to `.ralph/store` under the project, made absolute.
    let store = tmp.path().canonicalize().unwrap().join(".ralph/store");
    let want_store = format!(
        "const STORE_PATH = {}\n",
        serde_json::to_string(store.to_str().unwrap()).unwrap()
    );
    let tmp_store = format!(
        "const STORE_PATH = {}\n",
        serde_json::to_string(tmp.path().join(".ralph/store").to_str().unwrap()).unwrap()
    );
    assert!(
        src.contains(&want_store) || src.contains(&tmp_store),
        "no absolute default store in:\n{}",
        &src[src.find("// The run's context").unwrap()..][..400]
    );
    assert!(src.contains("const SESSION_NAME = \"foo\"\n"));
    assert!(src.contains("const ITERATION = 3\n"));
    // No pid: no constant, and session_complete's signal step is skipped at run time.
    assert!(!src.contains("PARENT_PID"), "a pid was baked in without --pid");
    assert!(!tmp.path().join(".opencode/tools/ralph.ts").exists());
    // The product's tools are written beside it.
    assert!(tmp.path().join(".opencode/tools/ix_query.ts").exists());
}

#[test]
fn store_and_pid_given_are_baked_in() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ixgen(tmp.path())
        .args([
            "opencode",
            "--session",
            "foo",
            "--iteration",
            "3",
            "--store",
            "elsewhere/store",
            "--pid",
            "4242",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let src = std::fs::read_to_string(tmp.path().join(SESSION_FILE)).unwrap();
    assert!(src.contains("const PARENT_PID = 4242\n"));
    let line = src.lines().find(|l| l.starts_with("const STORE_PATH = ")).unwrap();
    assert!(
        line.ends_with("/elsewhere/store\"") && line.starts_with("const STORE_PATH = \"/"),
        "{line}"
    );
}

#[test]
fn a_default_is_relative_to_the_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ixgen(tmp.path())
        .args(["--out", "project", "opencode", "--session", "foo", "--iteration", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let src = std::fs::read_to_string(tmp.path().join("project").join(SESSION_FILE)).unwrap();
    let line = src.lines().find(|l| l.starts_with("const STORE_PATH = ")).unwrap();
    assert!(line.ends_with("/project/.ralph/store\""), "{line}");
}

#[test]
fn a_missing_variable_without_a_default_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ixgen(tmp.path())
        .args(["opencode", "--session", "foo"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the session tools need --iteration"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "something was written"
    );
}

#[test]
fn conflicting_values_are_usage_errors() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--session", "a", "--session", "b"],
            "`session` is given two values: --session \"a\" and --session \"b\"",
        ),
        (
            &["--session", "a", "--context", "session=b"],
            "`session` is given two values: --session \"a\" and --context session=\"b\"",
        ),
        (
            &["--context", "session=a", "--context", "session=b", "--session", "a"],
            "--session \"a\" and --context session=\"b\"",
        ),
        (
            &["--session", "a", "--iteration", "9007199254740992"],
            "outside JavaScript's safe integer range",
        ),
    ];
    for (args, want) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let mut all = vec!["opencode", "--iteration", "1"];
        if args.contains(&"--iteration") {
            all.truncate(1);
        }
        all.extend_from_slice(args);
        let out = ixgen(tmp.path()).args(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{all:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{all:?}: {}", stderr(&out));
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count(),
            0,
            "{all:?} wrote something"
        );
    }
    // The same value twice is no conflict; the safe range's edges are accepted.
    let tmp = tempfile::tempdir().unwrap();
    ixgen(tmp.path())
        .args([
            "opencode",
            "--session",
            "a",
            "--context",
            "session=a",
            "--iteration",
            "9007199254740991",
        ])
        .assert()
        .success();
}

/// The flags come from the catalog: another catalog's variables get flags named after them,
/// with their descriptions and defaults in `--help`, and the ix catalog's flags are gone.
#[test]
fn context_flags_are_the_catalogs_variables() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog.yaml");
    std::fs::write(
        &catalog,
        r#"version: 1
product: {name: demo, version: 1.0.0, description: A demo product}
context:
  run_name:
    type: string
    description: Name of the run.
  attempt:
    type: integer
    min: 1
    default: 1
    description: Which attempt this is.
store: {program: xs, path: "/tmp/demo-store"}
toolsets:
  loop: {description: Loop tools, tools: [note]}
targets:
  opencode: {toolset: loop}
  session: {toolset: loop, file: demo, context: [run_name, attempt]}
tools:
  - name: note
    description: Leave a note for the next attempt.
    params:
      text: {type: string, required: true, description: The note}
    steps:
      - append:
          topic: "demo.{run_name}.note"
          meta: {attempt: "{attempt}", at: "{now_ms}"}
          body: "{text}"
"#,
    )
    .unwrap();
    let help = ixgen(tmp.path())
        .arg("--catalog")
        .arg(&catalog)
        .args(["opencode", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success(), "{}", stderr(&help));
    assert!(text.contains("--run_name <RUN_NAME>"), "{text}");
    assert!(text.contains("Name of the run."), "{text}");
    assert!(text.contains("--attempt <N>"), "{text}");
    assert!(text.contains("[default: 1]"), "{text}");
    assert!(!text.contains("--session"), "{text}");
    // `--catalog=PATH` is found too, and the default fills in what is not given.
    let out = ixgen(tmp.path())
        .arg(format!("--catalog={}", catalog.display()))
        .args(["opencode", "--run_name", "r1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let src = std::fs::read_to_string(tmp.path().join(".opencode/tools/demo.ts")).unwrap();
    assert!(
        src.contains("const RUN_NAME = \"r1\"\n") && src.contains("const ATTEMPT = 1\n"),
        "{src}"
    );
    // The ix catalog's flags are not there.
    let out = ixgen(tmp.path())
        .arg("--catalog")
        .arg(&catalog)
        .args(["opencode", "--session", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unexpected argument '--session'"),
        "{}",
        stderr(&out)
    );
}

/// The loop writes its own `.opencode/tool/ralph.ts` when it is missing. ixgen writes its
/// session file at that same path, so a project never has two sets of ralph tools: it refuses
/// to overwrite the loop's file (and never deletes it) unless told to with --force.
#[test]
fn the_loops_own_tools_file_is_refused_then_replaced_with_force() {
    let tmp = tempfile::tempdir().unwrap();
    let theirs = tmp.path().join(SESSION_FILE);
    std::fs::create_dir_all(theirs.parent().unwrap()).unwrap();
    let loop_file = "import { tool } from \"@opencode-ai/plugin\"\nexport const task_add = tool({})\n";
    std::fs::write(&theirs, loop_file).unwrap();
    let args = ["opencode", "--session", "foo", "--iteration", "1"];
    let out = ixgen(tmp.path()).args(args).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(".opencode/tool/ralph.ts` exists and was not written by ixgen"),
        "{err}"
    );
    assert!(err.contains("the ralph loop's own session tools"), "{err}");
    assert!(err.contains("move the file away") && err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&theirs).unwrap(),
        loop_file,
        "the loop's file was touched"
    );
    let left: Vec<String> = support::tree(tmp.path()).into_keys().collect();
    assert_eq!(left, [SESSION_FILE], "something else was written");

    let out = ixgen(tmp.path()).args(args).arg("--force").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ours = std::fs::read_to_string(&theirs).unwrap();
    assert!(ours.contains("Generated by ixgen") && ours.contains("const SESSION_NAME = \"foo\""));
    // One set of ralph tools: nothing named ralph in the other tool folder.
    assert!(!tmp.path().join(".opencode/tools/ralph.ts").exists());
    // From now on it is ixgen's: the next iteration rewrites it without --force.
    ixgen(tmp.path())
        .args(["opencode", "--session", "foo", "--iteration", "2"])
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(&theirs)
            .unwrap()
            .contains("const ITERATION = 2\n")
    );
}

/// Defaults and `equals_context` are checked with the rest of the catalog.
#[test]
fn bad_defaults_and_equals_context_are_catalog_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog.yaml");
    std::fs::write(
        &catalog,
        r#"version: 1
product: {name: demo, version: 1.0.0, description: A demo product}
context:
  run: {type: string, format: topic-part, default: "a b"}
  attempt: {type: integer, min: 1, default: 0}
  big: {type: integer, default: 9007199254740991}
  dir: {type: path, default: 3}
params:
  who: {type: string, equals_context: runn, description: Whose}
store: {program: xs, path: "/tmp/demo-store"}
toolsets:
  loop: {description: Loop tools, tools: [note]}
targets:
  session: {toolset: loop, file: demo, context: [run]}
tools:
  - name: note
    description: Leave a note.
    use_params: [who]
    steps:
      - append: {topic: "demo.{run}.note", meta: {at: "{now_ms}"}}
"#,
    )
    .unwrap();
    let out = ixgen(tmp.path())
        .arg("--catalog")
        .arg(&catalog)
        .arg("validate")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for want in [
        "catalog.yaml:4:52",
        "contains \" \", which a store topic part cannot hold",
        "catalog.yaml:5:45",
        "0 is below the minimum 1",
        "catalog.yaml:7:",
        "a string or path variable needs a string",
        "catalog.yaml:9:",
        "no context variable `runn`",
        "did you mean `run`?",
        "4 problem(s)",
    ] {
        assert!(err.contains(want), "no {want:?} in:\n{err}");
    }
    // A default past JavaScript's safe integers is refused where the YAML is read, before
    // anything else is checked.
    let text = std::fs::read_to_string(&catalog)
        .unwrap()
        .replace("9007199254740991", "9007199254740992");
    std::fs::write(&catalog, text).unwrap();
    let out = ixgen(tmp.path())
        .arg("--catalog")
        .arg(&catalog)
        .arg("validate")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("catalog.yaml:6:") && err.contains("outside JavaScript's safe integer range"),
        "{err}"
    );
}

/// A loop's catalog whose only target is the session tools.
const SESSION_ONLY: &str = r#"version: 1
product: {name: loop, version: 0.1.0, description: d}
store: {path: "{store}"}
context:
  store: {type: path, default: .loop/store}
  session: {type: string, format: topic-part}
toolsets: {s: {tools: [note_add]}}
targets: {session: {toolset: s, file: loop, context: [store, session]}}
tools:
  - name: note_add
    description: Leave a note.
    access: write
    destructive: false
    steps:
      - append: {topic: "loop.{session}.note", meta: {action: add}}
"#;

/// Context values turn the session tools on for `generate` and `check` of every target, also
/// in a catalog without `targets.opencode`.
#[test]
fn context_values_turn_the_session_tools_on_without_opencode() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("c.yaml"), SESSION_ONLY).unwrap();
    let run = |args: &[&str]| {
        ixgen(tmp.path())
            .args(["--catalog", "c.yaml"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["check", "--session", "s1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("missing: .opencode/tools/loop.ts"));
    let out = run(&["generate", "--session", "s1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let src = std::fs::read_to_string(tmp.path().join(".opencode/tools/loop.ts")).unwrap();
    assert!(src.contains("const SESSION = \"s1\"\n"), "{src}");
    let out = run(&["check", "--session", "s1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(&["check", "--context", "session=s2"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("+const SESSION = \"s2\""));
    // Without context the session file is left as it is.
    let out = run(&["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(tmp.path().join(".opencode/tools/loop.ts").exists());
}

/// Context given to a run whose targets do not take it is an error whose hint works.
#[test]
fn context_for_targets_that_do_not_take_it_names_the_ones_that_do() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ixgen(tmp.path())
        .args(["generate", "mcp", "--session", "s1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("only apply to the session tools"), "{err}");
    assert!(
        err.contains("help: name `session` among the targets (or name none)"),
        "{err}"
    );
    // The hint's way works.
    let out = ixgen(tmp.path())
        .args(["generate", "mcp", "session", "--session", "s1", "--iteration", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(tmp.path().join(SESSION_FILE).exists());

    // A catalog that enables no session target says so.
    let catalog = SESSION_ONLY.replace(
        "targets: {session: {toolset: s, file: loop, context: [store, session]}}",
        "targets: {mcp: {toolset: s}}",
    );
    std::fs::write(tmp.path().join("c.yaml"), catalog).unwrap();
    let out = ixgen(tmp.path())
        .args(["--catalog", "c.yaml", "generate", "--session", "s1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the catalog enables no target that takes them"),
        "{}",
        stderr(&out)
    );
}
