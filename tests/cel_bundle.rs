//! The vendored CEL evaluator (`templates/opencode/cel.js`) is what its build script makes of
//! the pinned packages: rebuilt from `scripts/cel-bundle` (installing them first when needed,
//! as tests/hosts/install.mjs does: `npm install --no-save` with the committed lockfile), it
//! must be byte for byte the committed file. A hand edit, a version bump without a rebuild, or
//! a rebuild with other versions fails here.

mod support;

use std::process::Command;

#[test]
fn the_committed_cel_bundle_is_a_fresh_build_of_the_pinned_packages() {
    let dir = support::root().join("scripts/cel-bundle");
    if !dir.join("node_modules/@bufbuild/cel/package.json").is_file()
        || !dir.join("node_modules/esbuild/package.json").is_file()
    {
        let out = Command::new("npm")
            .args(["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir(&dir)
            .output()
            .expect("npm runs");
        assert!(
            out.status.success(),
            "npm install in scripts/cel-bundle failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = Command::new("node")
        .arg(dir.join("build.mjs"))
        .arg("--check")
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The banner names the versions the lockfile pins.
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap()).unwrap();
    let pinned = lock["packages"]["node_modules/@bufbuild/cel"]["version"]
        .as_str()
        .unwrap();
    let bundle = std::fs::read_to_string(support::root().join("templates/opencode/cel.js")).unwrap();
    assert!(
        bundle
            .lines()
            .take(3)
            .any(|l| l.contains(&format!("@bufbuild/cel {pinned},"))),
        "the bundle's banner does not name @bufbuild/cel {pinned}"
    );
}
