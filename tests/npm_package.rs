//! The npm package (`scripts/dist.mjs`, `npm/ixgen/`): packed with `npm pack`, installed from
//! the local tarballs into a scratch project with no network, and run with `npx`, as the
//! README's npm install line promises.

mod support;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `cmd` with no network: in a network namespace of its own where `unshare -n` is
/// allowed, and always with npm offline and pointed at a registry address nothing listens on.
fn offline(dir: &Path, program: &str, args: &[&str]) -> Output {
    let isolated = Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let mut cmd = if isolated {
        let mut c = Command::new("unshare");
        c.args(["-n", program]);
        c
    } else {
        Command::new(program)
    };
    cmd.args(args)
        .current_dir(dir)
        .env("npm_config_offline", "true")
        .env("npm_config_registry", "http://127.0.0.1:9/")
        .env("npm_config_cache", dir.join(".npm-cache"))
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env("NO_COLOR", "1");
    cmd.output().unwrap_or_else(|e| panic!("{program}: {e}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Packs the package from the tested binary; returns (main tarball, platform tarball).
fn pack(out: &Path) -> (String, String) {
    let o = Command::new("node")
        .arg(support::root().join("scripts/dist.mjs"))
        .args(["--binary", env!("CARGO_BIN_EXE_ixgen"), "--out"])
        .arg(out)
        .output()
        .expect("node runs scripts/dist.mjs");
    assert!(o.status.success(), "scripts/dist.mjs failed:\n{}", text(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let npm = report["npm"].as_array().unwrap();
    (npm[0].as_str().unwrap().to_owned(), npm[1].as_str().unwrap().to_owned())
}

fn scratch_project(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("package.json"), r#"{"name": "scratch", "private": true}"#).unwrap();
}

#[test]
fn the_npm_package_installs_offline_and_runs_with_npx() {
    let tmp = tempfile::tempdir().unwrap();
    let (main, platform) = pack(&tmp.path().join("dist"));
    assert!(
        main.ends_with(&format!("ixgen-{}.tgz", env!("CARGO_PKG_VERSION"))),
        "{main}"
    );

    let project = tmp.path().join("project");
    scratch_project(&project);
    let o = offline(&project, "npm", &["install", &main, &platform]);
    assert!(
        o.status.success(),
        "npm install from the tarballs failed:\n{}",
        text(&o)
    );

    let o = offline(&project, "npx", &["ixgen", "--version"]);
    assert!(o.status.success(), "npx ixgen --version failed:\n{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!("ixgen {}", env!("CARGO_PKG_VERSION"))
    );

    // `npx ixgen generate` writes what the binary itself writes, exit code and all.
    let o = offline(&project, "npx", &["ixgen", "--out", "out", "generate"]);
    assert!(o.status.success(), "npx ixgen generate failed:\n{}", text(&o));
    let direct = tmp.path().join("direct");
    let d = Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .arg("--out")
        .arg(&direct)
        .arg("generate")
        .output()
        .unwrap();
    assert!(d.status.success());
    let (via_npm, via_binary) = (support::tree(&project.join("out")), support::tree(&direct));
    assert!(via_npm.contains_key("opencode.json") && via_npm.contains_key("mcp/tools.json"));
    assert_eq!(
        via_npm.keys().collect::<Vec<_>>(),
        via_binary.keys().collect::<Vec<_>>()
    );
    assert_eq!(via_npm["mcp/tools.json"], via_binary["mcp/tools.json"]);

    // A check that finds drift exits 1 through the launcher too.
    std::fs::write(project.join("out/opencode.json"), "{}\n").unwrap();
    let o = offline(&project, "npx", &["ixgen", "--out", "out", "check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn the_launcher_says_what_to_do_when_the_platform_package_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let (main, _) = pack(&tmp.path().join("dist"));
    let project = tmp.path().join("project");
    scratch_project(&project);
    // Offline, npm cannot fetch the optional platform packages and skips them.
    let o = offline(&project, "npm", &["install", &main]);
    assert!(
        o.status.success(),
        "npm install of the main package alone failed:\n{}",
        text(&o)
    );
    let o = offline(&project, "npx", &["ixgen", "--version"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("@ixgen/") && said.contains("--omit=optional") && said.contains("cargo install"),
        "{said}"
    );
}
