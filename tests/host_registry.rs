//! The MCP Registry host: `server.json` for the ix catalog validates against the registry's
//! published schema (revision 2025-12-11, kept in `tests/registry/` as data), with Ajv from the
//! pinned hosts; a document the schema refuses is refused, so the check can fail.

mod support;

use std::path::Path;

const SCHEMA: &str = "tests/registry/server.schema.2025-12-11.json";

fn validate(doc: &Path) -> std::process::Output {
    support::node(
        "validate-json.mjs",
        &[support::root().join(SCHEMA).as_os_str(), doc.as_os_str()],
    )
}

#[test]
fn server_json_of_the_ix_catalog_validates_against_the_registry_schema() {
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(support::root().join(SCHEMA)).unwrap()).unwrap();
    assert_eq!(
        schema["$id"],
        "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .arg("--out")
        .arg(dir.path())
        .args(["generate", "mcp-registry"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = dir.path().join("server.json");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&doc).unwrap()).unwrap();
    assert_eq!(json["$schema"], schema["$id"]);
    assert_eq!(json["packages"][0]["identifier"], "@ix/cli");
    assert_eq!(json["packages"][0]["packageArguments"][0]["value"], "mcp");
    let v = validate(&doc);
    assert!(
        v.status.success(),
        "server.json does not validate:\n{}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );

    // The same document with a name the registry refuses must fail, or the check proves nothing.
    let mut bad = json.clone();
    bad["name"] = "not a reverse-dns name".into();
    bad["packages"][0]["version"] = "latest".into();
    let bad_path = dir.path().join("bad.json");
    std::fs::write(&bad_path, serde_json::to_vec(&bad).unwrap()).unwrap();
    let v = validate(&bad_path);
    assert_eq!(v.status.code(), Some(1), "{}", String::from_utf8_lossy(&v.stdout));
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(text.contains("/name") && text.contains("/packages/0/version"), "{text}");
}

/// `ixgen validate --format json` of a catalog text (beside the ix catalog's icon).
fn validate_json(catalog: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.yaml");
    std::fs::write(&path, catalog).unwrap();
    std::fs::copy(
        support::root().join("catalog/ix-icon.png"),
        dir.path().join("ix-icon.png"),
    )
    .unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .env("NO_COLOR", "1")
        .arg("--catalog")
        .arg(&path)
        .args(["validate", "--format", "json"])
        .output()
        .unwrap()
}

#[test]
fn registry_settings_the_registry_would_refuse_are_located_errors() {
    let catalog = std::fs::read_to_string(support::root().join("catalog/ix.yaml"))
        .unwrap()
        .replace("name: io.github.ix-infrastructure/ix", "name: ix")
        .replace("version: 0.9.3", "version: ^0.9");
    let out = validate_json(&catalog);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap_or(0)))
        .collect();
    assert!(found.iter().any(|(c, l)| c == "bad-name" && *l > 0), "{found:?}");
    assert!(
        found.iter().any(|(c, l)| c == "registry-package" && *l > 0),
        "{found:?}"
    );
}

/// What the registry's own checks refuse after its schema (`validators.go`: the name's parts
/// start and end with a letter or digit, no range or `latest` for the server's version or a
/// package's, no space in a package name) is a located error too; `validate` once passed it.
#[test]
fn names_versions_and_identifiers_the_registry_refuses_are_errors() {
    let catalog = std::fs::read_to_string(support::root().join("catalog/ix.yaml"))
        .unwrap()
        .replace(
            "name: io.github.ix-infrastructure/ix",
            "name: io.github.ix-infrastructure/ix.\n    version: latest",
        )
        .replace(
            "identifier: \"@ix/cli\"\n        version: 0.9.3",
            "identifier: \"@ix/c li\"\n        version: \"=0.9.3\"",
        )
        .replace(
            "        runtime_hint: npx\n",
            "        runtime_hint: npx\n      - {registry: npm, identifier: \"@ix/cli\", version: 1.X}\n",
        );
    let out = validate_json(&catalog);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error" && d["line"].as_u64().is_some())
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect();
    for refused in [
        "`io.github.ix-infrastructure/ix.`",
        "`latest`",
        "`=0.9.3`",
        "`1.X`",
        "`@ix/c li`",
    ] {
        assert!(errors.iter().any(|m| m.contains(refused)), "{refused}: {errors:?}");
    }
}
