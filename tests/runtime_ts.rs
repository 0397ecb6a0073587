//! The TypeScript interpreter's own suite (`tests/runtime/*.test.ts`), run with the pinned Bun:
//! argument coercion, redaction, conditions, store steps against the real `xs`, and
//! hand-written tool files in the real OpenCode.

mod support;

#[test]
fn runtime_suite_passes_under_the_pinned_bun() {
    let modules = support::ensure_npm_hosts().join("node_modules");
    let xs = support::xs();
    // The suite's temp folders (an OpenCode project among them, about 100 MB with the packages
    // OpenCode installs into it) go here, and are removed with it.
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(support::bun())
        .args(["test", "--timeout", "60000", "tests/runtime"])
        .current_dir(support::root())
        .env("IXGEN_HOST_MODULES", &modules)
        .env("IXGEN_XS", &xs)
        .env("IXGEN_BIN", env!("CARGO_BIN_EXE_ixgen"))
        .env("TMPDIR", tmp.path())
        .output()
        .expect("bun runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "bun test tests/runtime failed:\n{text}");
    // Bun closes with "N pass" / "0 fail"; an empty run would also exit 0.
    let passed: usize = text
        .lines()
        .find_map(|l| l.trim().strip_suffix(" pass").and_then(|n| n.trim().parse().ok()))
        .unwrap_or(0);
    assert!(
        passed >= 50,
        "expected the whole interpreter suite to run, saw {passed} passing tests:\n{text}"
    );
    assert!(text.lines().any(|l| l.trim() == "0 fail"), "{text}");
}
