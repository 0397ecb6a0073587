//! The committed `generated/` folder is the output of the embedded ix catalog. Like
//! rust-analyzer's codegen check, staleness is an ordinary test failure that names the fix.

use assert_cmd::Command;

#[test]
fn generated_folder_is_up_to_date() {
    let out = Command::cargo_bin("ixgen")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["--out", "generated", "check"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "generated/ is stale. Run `cargo run -- --out generated generate` and commit the result.\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn committed_schemas_are_up_to_date() {
    for kind in ["catalog", "exec-spec"] {
        let out = Command::cargo_bin("ixgen")
            .unwrap()
            .args(["schema", kind])
            .output()
            .unwrap();
        let path = format!("generated/schema/{kind}.schema.json");
        let committed = std::fs::read_to_string(&path).unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout) == committed,
            "{path} is stale. Run `cargo run -- schema {kind} > {path}` and commit it"
        );
    }
}

#[test]
fn embedded_catalog_is_the_committed_one() {
    let out = Command::cargo_bin("ixgen")
        .unwrap()
        .args(["validate", "--strict", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let file = Command::cargo_bin("ixgen")
        .unwrap()
        .args(["--catalog", "catalog/ix.yaml", "list", "--format", "json"])
        .output()
        .unwrap();
    let embedded = Command::cargo_bin("ixgen")
        .unwrap()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(file.stdout, embedded.stdout);
}

#[test]
fn list_gives_each_toolset() {
    for (toolset, count) in [("opencode", 17), ("mcp", 28), ("session", 8)] {
        let out = Command::cargo_bin("ixgen")
            .unwrap()
            .args(["list", "--toolset", toolset, "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rows.len(), count, "toolset {toolset}");
        for r in &rows {
            for (surface, id) in r["ids"].as_object().unwrap() {
                let id = id.as_str().unwrap();
                // Hosts that show a tool under its server get ixgen's `server/tool` notation; every
                // name in an id is one every host accepts.
                let names: Vec<&str> = match surface.as_str() {
                    "cursor" | "vscode" | "gemini" | "codex" => id.split('/').collect(),
                    _ => vec![id],
                };
                for name in names {
                    assert!(
                        !name.is_empty()
                            && name
                                .chars()
                                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-'),
                        "{surface}: {id}"
                    );
                }
            }
        }
        if toolset == "session" {
            // The session tools have their own key, not the product tools' `opencode`.
            assert!(
                rows.iter()
                    .all(|r| r["ids"]["session"].as_str().is_some_and(|id| id.starts_with("ralph_")))
            );
            assert!(rows.iter().all(|r| r["ids"].get("opencode").is_none()), "{rows:?}");
        }
    }
}
