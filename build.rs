//! Converts the embedded ix catalog from YAML to JSON at build time. The per-iteration run of
//! a ralph loop loads it every few seconds, and serde_json reads it several times faster than
//! serde_yaml. Nothing is checked here: the loader validates what it reads, and falls back to
//! the YAML (with positions for its diagnostics) if this conversion is empty or wrong.

fn main() {
    println!("cargo:rerun-if-changed=catalog/ix.yaml");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let json = std::fs::read_to_string("catalog/ix.yaml")
        .ok()
        .and_then(|text| serde_yaml::from_str::<serde_json::Value>(&text).ok())
        .map(|v| serde_json::to_string(&v).expect("a JSON value serializes"))
        .unwrap_or_default();
    std::fs::write(out.join("ix.json"), json).expect("OUT_DIR is writable");
}
