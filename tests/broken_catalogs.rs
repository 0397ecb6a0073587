//! Every catalog under `tests/fixtures/broken/` has one fault, and says in its first line
//! which diagnostic it must raise and where: `# expect: <code> <line>:<column>`. Each must exit
//! 2, name that position, write nothing, and render as its snapshot.

use assert_cmd::Command;
use std::path::Path;

fn ixgen() -> Command {
    let mut c = Command::cargo_bin("ixgen").expect("the ixgen binary builds");
    c.env("NO_COLOR", "1").env_remove("CLICOLOR_FORCE");
    c
}

fn expectation(path: &Path) -> (String, usize, usize) {
    let bytes = std::fs::read(path).unwrap();
    let first = String::from_utf8_lossy(&bytes)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let rest = first
        .strip_prefix("# expect: ")
        .unwrap_or_else(|| panic!("{}: first line must be `# expect: <code> <line>:<col>`", path.display()));
    let (code, pos) = rest.split_once(' ').unwrap();
    let (line, col) = pos.split_once(':').unwrap();
    (code.to_string(), line.parse().unwrap(), col.parse().unwrap())
}

#[test]
fn each_broken_catalog_names_its_fault_and_writes_nothing() {
    let mut fixtures: Vec<_> = std::fs::read_dir("tests/fixtures/broken")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fixtures.sort();
    assert!(
        fixtures.len() >= 15,
        "the issue asks for at least 15 broken catalogs, found {}",
        fixtures.len()
    );
    for path in fixtures {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (code, line, col) = expectation(&path);
        let out = tempfile::tempdir().unwrap();

        // validate --format json: the machine-readable position.
        let json = ixgen()
            .args(["--catalog"])
            .arg(&path)
            .args(["validate", "--format", "json"])
            .assert()
            .code(2)
            .get_output()
            .stdout
            .clone();
        let report: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert!(
            report["error"].as_str().is_some_and(|e| !e.contains("written")),
            "{name}: validate writes nothing, and says nothing of writing: {report}"
        );
        let diags = report["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{name}: one fault, one diagnostic: {diags:#?}");
        assert_eq!(diags[0]["code"], code.as_str(), "{name}");
        assert_eq!(
            (diags[0]["line"].as_u64(), diags[0]["column"].as_u64()),
            (Some(line as u64), Some(col as u64)),
            "{name}: position"
        );
        assert!(
            diags[0]["help"].as_str().is_some_and(|h| !h.is_empty()),
            "{name}: every error says how to fix it"
        );

        // generate: exit 2, the position in the human message, and nothing written.
        let assert = ixgen()
            .args(["--catalog"])
            .arg(&path)
            .arg("--out")
            .arg(out.path())
            .arg("generate")
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        let shown = format!("{}:{line}:{col}", path.display());
        assert!(stderr.contains(&shown), "{name}: stderr should name {shown}:\n{stderr}");
        assert!(stderr.contains("; nothing was written"), "{name}: {stderr}");
        assert_eq!(
            std::fs::read_dir(out.path()).unwrap().count(),
            0,
            "{name}: nothing may be written"
        );

        insta::assert_snapshot!(format!("broken__{name}"), stderr);
    }
}

#[test]
fn a_missing_catalog_file_exits_2_with_a_hint() {
    let assert = ixgen()
        .args(["--catalog", "tests/fixtures/does-not-exist.yaml", "validate"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("cannot read the catalog `tests/fixtures/does-not-exist.yaml`"),
        "{stderr}"
    );
    assert!(stderr.contains("help:"), "{stderr}");
}

/// A command asked for JSON prints JSON when it fails too: a CI script parsing `diff`'s,
/// `check`'s or `list`'s output got an empty stdout (the text went to stderr, as it still does).
/// `check` and `diff` with `--format github` (what the Action runs) annotate an invalid catalog
/// on its line, so that a pull request that breaks it shows where.
#[test]
fn a_failure_under_format_github_is_annotated_on_its_line() {
    let broken = "tests/fixtures/broken/unknown-key.yaml";
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    let diff = [
        "--catalog",
        broken,
        "diff",
        "--against",
        "catalog/ix.yaml",
        "--format",
        "github",
    ];
    let check = ["--catalog", broken, "--out", out, "check", "--format", "github"];
    for args in [&diff[..], &check[..]] {
        let assert = ixgen().args(args).assert().code(2);
        let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
        assert!(
            stdout.starts_with(&format!(
                "::error file={broken},line=35,col=60,title=ixgen unknown-key::"
            )),
            "{args:?}: {stdout}"
        );
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
    }
    let missing = [
        "--catalog",
        "tests/fixtures/does-not-exist.yaml",
        "--out",
        out,
        "check",
        "--format",
        "github",
    ];
    let assert = ixgen().args(missing).assert().code(2);
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).to_string();
    assert!(
        stdout.starts_with("::error title=ixgen::cannot read the catalog"),
        "{stdout}"
    );
}

#[test]
fn a_failure_under_format_json_is_a_json_object() {
    let broken = "tests/fixtures/broken/unknown-key.yaml";
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    let runs: [&[&str]; 5] = [
        &[
            "--catalog",
            broken,
            "diff",
            "--against",
            "catalog/ix.yaml",
            "--format",
            "json",
        ],
        &["--catalog", broken, "list", "--format", "json"],
        &["--catalog", broken, "--out", out, "check", "--format", "json"],
        &["--catalog", broken, "--out", out, "generate", "--format", "json"],
        &[
            "--catalog",
            "tests/fixtures/does-not-exist.yaml",
            "budget",
            "--format",
            "json",
        ],
    ];
    for args in runs {
        let assert = ixgen().args(args).assert().code(2);
        let output = assert.get_output();
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {:?}", output.stdout));
        assert_eq!(json["exit_code"], 2, "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}: the text still goes to stderr");
        if args[1] == broken {
            let d = &json["diagnostics"][0];
            assert_eq!(
                (d["code"].as_str(), d["line"].as_u64(), d["column"].as_u64()),
                (Some("unknown-key"), Some(35), Some(60)),
                "{args:?}"
            );
        } else {
            assert!(
                json["error"].as_str().unwrap().contains("cannot read the catalog"),
                "{json}"
            );
            assert!(json["help"].is_string(), "{json}");
        }
    }
    assert!(std::fs::read_dir(out).unwrap().next().is_none(), "nothing was written");
    // A command line clap refuses, with `--format json` in it, too.
    for args in [
        &["validate", "--format", "json", "--bogus"][..],
        &["check", "--format=json", "--profile", "1999"],
    ] {
        let assert = ixgen().args(args).assert().code(2);
        let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e})"));
        assert_eq!(json["exit_code"], 2, "{args:?}");
        assert!(json["error"].as_str().unwrap().contains(args[3]), "{json}");
    }
    // The error names what is missing (clap says it on the lines after the first).
    let assert = ixgen().args(["diff", "--format", "json"]).assert().code(2);
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert!(
        json["error"]
            .as_str()
            .unwrap()
            .ends_with("not provided: --against <REF|FILE>"),
        "{json}"
    );
}

#[test]
fn warnings_pass_validate_but_fail_it_under_strict() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string("tests/fixtures/minimal/catalog.yaml").unwrap();
    let long = "x".repeat(151);
    let cat = dir.path().join("long.yaml");
    std::fs::write(
        &cat,
        base.replace("description: Wipe the cache", &format!("description: {long}")),
    )
    .unwrap();
    let assert = ixgen().arg("--catalog").arg(&cat).arg("validate").assert().code(0);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("description-budget") && stderr.contains("151 characters, over the budget of 150"),
        "{stderr}"
    );
    ixgen()
        .arg("--catalog")
        .arg(&cat)
        .args(["validate", "--strict"])
        .assert()
        .code(1);
    // A configured budget moves the line.
    std::fs::write(
        &cat,
        base.replace("description: Wipe the cache", &format!("description: {long}"))
            + "lint: {description_budget: 200}\n",
    )
    .unwrap();
    ixgen()
        .arg("--catalog")
        .arg(&cat)
        .args(["validate", "--strict"])
        .assert()
        .code(0);
}
