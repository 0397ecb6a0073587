//! The shared conformance suite (`tests/conformance/README.md`) run through the Rust runtime:
//! every case's spec and arguments, the same fake programs as the TypeScript runner (a Node
//! script per program that answers by exact argv, exit 97 otherwise), and the exact markdown
//! the TypeScript runtime gives (the case's `expected`, which `tests/runtime/conformance.test.ts`
//! holds it to). A failing case shows both runtimes' answers.

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use ixgen_runtime::{Ctx, run_tool};
use std::path::{Path, PathBuf};

// The TypeScript runner's fake program, run by Node here (by Bun there); the same lines.
const ANSWERING: &str = r#"
const fs = require("node:fs"), path = require("node:path")
const answers = JSON.parse(fs.readFileSync(process.env.CONFORMANCE_ANSWERS, "utf8"))[path.basename(process.argv[1])] ?? []
const argv = process.argv.slice(2)
const a = answers.find((x) => JSON.stringify(x.argv) === JSON.stringify(argv))
if (!a) { process.stderr.write("conformance: no answer for " + JSON.stringify(argv) + "\n"); process.exit(97) }
if (a.stdout) process.stdout.write(a.stdout)
if (a.stderr) process.stderr.write(a.stderr)
process.exit(a.code ?? 0)
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_conformance_case_answers_as_the_typescript_runtime() {
    let dir = root().join("tests/conformance");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/conformance")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "the suite is there: {} cases", files.len());
    let node = std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join("node")).find(|n| n.is_file()))
        .expect("node on PATH (the fake programs are Node scripts)");
    let work = tempfile::tempdir().expect("a temporary folder");
    let bin = work.path().join("bin");
    let answers = work.path().join("answers.json");
    // Set once, before any thread of this test binary runs a program: one test, one thread.
    // SAFETY: this is the only test of this binary, and nothing else reads the environment yet.
    unsafe {
        std::env::set_var(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()),
        );
        std::env::set_var("CONFORMANCE_ANSWERS", &answers);
    }
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let fx: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let spec: ExecSpec = match serde_json::from_value(fx["spec"].clone()) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: the spec does not read: {e}"));
                continue;
            }
        };
        let _ = std::fs::remove_dir_all(&bin);
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(&answers, serde_json::to_string(&fx["programs"]).unwrap()).unwrap();
        for program in fx["programs"].as_object().expect("programs").keys() {
            let path = bin.join(program);
            std::fs::write(&path, format!("#!{}\n{ANSWERING}\n", node.display())).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        // `ask`: the host can ask the user, who answers `reply`; `asked`: every question put, in order.
        let asked = std::sync::Mutex::new(Vec::<serde_json::Value>::new());
        let ask = |a: &ixgen_runtime::Ask| -> Result<(), String> {
            let mut q = serde_json::json!({"permission": a.permission, "subject": a.subject});
            if let Some(p) = &a.preview {
                q["preview"] = serde_json::Value::String(p.clone());
            }
            asked.lock().unwrap().push(q);
            match fx["ask"]["reply"].as_str() {
                Some("reject") => Err(fx["ask"]["message"].as_str().unwrap_or("").to_string()),
                _ => Ok(()),
            }
        };
        let ctx = Ctx {
            cwd: Some(work.path()),
            ask: if fx["ask"].is_object() { Some(&ask) } else { None },
            cancel: None,
        };
        let answer = run_tool(
            &spec,
            &serde_json::Map::new(),
            &fx["args"],
            &ctx,
            &SpecShared::default(),
        );
        if let Some(want) = fx["is_error"].as_bool()
            && answer.is_error != want
        {
            failures.push(format!("{name}: is_error is {}, the case says {want}", answer.is_error));
        }
        if !fx["asked"].is_null() {
            let got = serde_json::Value::Array(asked.lock().unwrap().clone());
            if got != fx["asked"] {
                failures.push(format!("{name}: asked {got}, the case says {}", fx["asked"]));
            }
        }
        let got = answer.text;
        let want = fx["expected"].as_str().expect("expected");
        if got != want {
            let diff = similar::TextDiff::from_lines(want, &got)
                .unified_diff()
                .header("TypeScript", "Rust")
                .to_string();
            failures.push(format!(
                "{name} ({})\n--- the TypeScript runtime's answer (expected):\n{want}\n--- the Rust runtime's answer:\n{got}\n--- diff:\n{diff}",
                fx["description"].as_str().unwrap_or("")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
