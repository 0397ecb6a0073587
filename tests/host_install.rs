//! The host install (`tests/hosts/install.mjs`) against registries that serve different subsets
//! of the hosts' optional platform packages: none but this machine's (a partial mirror), and
//! all of them (the public registry, which broke the old `npm ci` lockfile). Each install runs
//! in a scratch copy of the three npm folders, with its own npm cache so nothing comes from an
//! earlier install, through `tests/hosts/registry.mjs` in front of the machine's registry.
//! One install also loses the first download of a binary package, as a flaky network does:
//! npm leaves the package out and exits 0 (it failed CI that way once), and the install must
//! still end with every host's binary in place.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

fn npm_registry() -> String {
    let out = Command::new("npm")
        .args(["config", "get", "registry"])
        .output()
        .expect("npm runs");
    assert!(out.status.success(), "npm config get registry failed");
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Installs the pinned hosts into a scratch copy through the local registry in `mode`, and
/// returns what the registry logged (the packages it withheld or stood in for).
fn install_through(mode: &str, drop_once: &[&str], scratch: &Path) -> String {
    for sub in support::NPM_FOLDERS {
        std::fs::create_dir_all(scratch.join(sub)).unwrap();
        for f in ["package.json", "package-lock.json"] {
            std::fs::copy(support::hosts_dir().join(sub).join(f), scratch.join(sub).join(f)).unwrap();
        }
    }
    let log = scratch.join("registry.log");
    let mut registry = Command::new("node");
    registry
        .arg(support::hosts_dir().join("registry.mjs"))
        .args(["--upstream", &npm_registry(), "--mode", mode]);
    for name in drop_once {
        registry.args(["--drop-once", name]);
    }
    for sub in support::NPM_FOLDERS {
        registry
            .arg("--lockfile")
            .arg(scratch.join(sub).join("package-lock.json"));
    }
    let mut registry = registry
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("node runs tests/hosts/registry.mjs");
    let mut url = String::new();
    BufReader::new(registry.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let cache = scratch.join("npm-cache");
    let cache = cache.to_str().unwrap();
    let installed = std::panic::catch_unwind(|| {
        support::install_hosts(scratch, &["--registry", url.trim(), "--cache", cache]);
    });
    registry.kill().unwrap();
    registry.wait().unwrap();
    let log = std::fs::read_to_string(log).unwrap();
    if let Err(e) = installed {
        eprintln!("registry log:\n{log}");
        std::panic::resume_unwind(e);
    }
    log
}

/// The installed host binaries answer with their pinned versions.
fn assert_binaries(scratch: &Path) {
    for (bin, want) in [
        ("node_modules/opencode-linux-x64/bin/opencode", "1.18.33"),
        ("node_modules/@anthropic-ai/claude-code-linux-x64/claude", "2.1.197"),
        (
            "next/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
            "2.1.330",
        ),
        ("node_modules/@nushell/linux-x64/bin/nu", "0.108.0"),
    ] {
        let out = Command::new(scratch.join(bin))
            .arg("--version")
            .env("HOME", scratch)
            .output()
            .unwrap_or_else(|e| panic!("{bin}: {e}"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(want), "{bin} --version said {text:?}, pinned {want}");
    }
}

#[test]
fn hosts_install_at_their_pins_from_a_registry_without_foreign_platform_packages() {
    let scratch = tempfile::tempdir().unwrap();
    // A binary package whose first download fails: npm leaves it out and exits 0.
    let log = install_through("none", &["@nushell/linux-x64"], scratch.path());
    // The registry really lacked packages the hosts list (the public registry serves them).
    assert!(log.contains("lacks opencode-darwin-arm64"), "registry log:\n{log}");
    assert!(
        log.contains("dropped the first download of @nushell/linux-x64"),
        "registry log:\n{log}"
    );
    assert_binaries(scratch.path());
}

#[test]
fn hosts_install_at_their_pins_from_a_registry_with_every_platform_package() {
    let scratch = tempfile::tempdir().unwrap();
    let log = install_through("all", &[], scratch.path());
    // Packages this machine's registry lacks were served, as the public registry serves them.
    assert!(
        log.contains("served a stand-in for opencode-darwin-arm64"),
        "registry log:\n{log}"
    );
    assert!(
        log.contains("served a stand-in for @nushell/windows-x64"),
        "registry log:\n{log}"
    );
    assert_binaries(scratch.path());
}
