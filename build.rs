//! Build-time facts the binary carries:
//! - the embedded ix catalog converted from YAML to JSON. The per-iteration run of a ralph
//!   loop loads it every few seconds, and serde_json reads it several times faster than YAML.
//!   It is read by the catalog's own YAML reader (`src/catalog/yaml.rs`, compiled in here), so
//!   both forms type alike. Nothing is checked here: the loader validates what it reads, and
//!   falls back to the YAML (with positions for its diagnostics) if this conversion is empty
//!   or wrong.
//! - its `context` block alone, which the command line reads on every run to know its flags.
//! - the build id: a hash of every source that shapes what ixgen generates. The run record
//!   (`src/record.rs`) is valid only for the build that wrote it, and a development build
//!   changes its output without changing its version number.

use std::path::Path;

/// The one YAML reader, the same file the crate compiles: this script uses only its `from_str`.
#[allow(dead_code)]
#[path = "src/catalog/yaml.rs"]
mod yaml;

/// What the build id covers: the code (the runtime crate's too: it defines and serializes the
/// execution spec every tool file holds), the templates and askama's settings, the embedded
/// catalog and the locked dependency versions.
const SOURCES: &[&str] = &[
    "src",
    "crates/ixgen-runtime/src",
    "crates/ixgen-runtime/Cargo.toml",
    "templates",
    "catalog",
    "askama.toml",
    "build.rs",
    "Cargo.toml",
    "Cargo.lock",
];

fn main() {
    for s in SOURCES {
        println!("cargo:rerun-if-changed={s}");
    }
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let value = std::fs::read_to_string("catalog/ix.yaml")
        .ok()
        .and_then(|text| yaml::from_str::<serde_json::Value>(&text).ok());
    let json = value
        .as_ref()
        .map(|v| serde_json::to_string(v).expect("a JSON value serializes"))
        .unwrap_or_default();
    std::fs::write(out.join("ix.json"), json).expect("OUT_DIR is writable");
    let context = value
        .as_ref()
        .and_then(|v| v.get("context"))
        .map(|c| serde_json::to_string(&serde_json::json!({ "context": c })).expect("a JSON value serializes"))
        .unwrap_or_default();
    std::fs::write(out.join("ix-context.json"), context).expect("OUT_DIR is writable");

    let mut hasher = blake3::Hasher::new();
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    for s in SOURCES {
        hash_tree(Path::new(s), &mut hasher);
    }
    println!("cargo:rustc-env=IXGEN_BUILD_ID={}", hasher.finalize().to_hex());
}

/// Hashes a file, or every file below a folder in name order, with its path.
fn hash_tree(path: &Path, hasher: &mut blake3::Hasher) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .expect("a source folder is readable")
            .map(|e| e.expect("a source folder is readable").path())
            .collect();
        entries.sort();
        for e in entries {
            hash_tree(&e, hasher);
        }
    } else if let Ok(bytes) = std::fs::read(path) {
        hasher.update(path.to_string_lossy().as_bytes());
        hasher.update(&[0]);
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
}
