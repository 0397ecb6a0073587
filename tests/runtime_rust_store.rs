//! The store and signal steps through the Rust runtime, on the real `xs` 0.13.4: the ix catalog's
//! session tools (as `ixgen opencode --session` writes them) give the same answers as
//! `tests/runtime/store.test.ts` expects of the TypeScript runtime — the same assertions, ported.

mod support;

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use ixgen_runtime::{Ctx, run_tool};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The specs a generated tool file carries, by tool id (`const SPEC_<id>: ExecSpec = {…}`).
fn specs_of(file: &Path) -> HashMap<String, ExecSpec> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = HashMap::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("\nconst SPEC_") {
        rest = &rest[i + "\nconst SPEC_".len()..];
        let id = &rest[..rest.find(':').unwrap()];
        let body_start = rest.find("= {").unwrap() + 2;
        let body_end = rest.find("\n}").unwrap() + 2;
        let spec: ExecSpec =
            serde_json::from_str(&rest[body_start..body_end]).unwrap_or_else(|e| panic!("SPEC_{id}: {e}"));
        out.insert(id.to_string(), spec);
        rest = &rest[body_end..];
    }
    out
}

struct Store(Child);

impl Drop for Store {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn frames(xs: &Path, store: &Path) -> Vec<Value> {
    let o = Command::new(xs).arg("cat").arg(store).output().unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn id_of(out: &str) -> String {
    let start = out.find('`').unwrap() + 1;
    out[start..start + out[start..].find('`').unwrap()].to_string()
}

#[test]
fn the_session_tools_add_list_and_update_on_the_real_xs() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let out = w.join("gen");
    let o = Command::new(env!("CARGO_BIN_EXE_ixgen"))
        .args([
            "--out",
            out.to_str().unwrap(),
            "opencode",
            "--session",
            "demo",
            "--iteration",
            "3",
        ])
        .args(["--store", w.join("unused").to_str().unwrap(), "--pid", "4242", "-q"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dir = out.join(".opencode/tool");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("ralph"))
        .unwrap();
    let ralph = specs_of(&file);

    // The real xs, first on PATH, serving a fresh store.
    let bin = w.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(support::xs(), bin.join("xs")).unwrap();
    let xs = bin.join("xs");
    let store = w.join("store");
    std::fs::create_dir_all(&store).unwrap();
    let _server = Store(
        Command::new(&xs)
            .arg("serve")
            .arg(&store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    for _ in 0..100 {
        if Command::new(&xs)
            .arg("version")
            .arg(&store)
            .output()
            .is_ok_and(|o| o.status.success())
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: the only test of this binary; set before any runtime call reads PATH.
    unsafe { std::env::set_var("PATH", support::path_with(&bin)) };

    let context = |session: &str| -> Map<String, Value> {
        json!({"store": store.to_str().unwrap(), "session": session, "iteration": 3, "pid": 0})
            .as_object()
            .unwrap()
            .clone()
    };
    let ctx = Ctx {
        cwd: Some(w),
        ask: None,
        cancel: None,
    };
    let run = |tool: &str, session: &str, args: Value| {
        run_tool(&ralph[tool], &context(session), &args, &ctx, &SpecShared::default()).text
    };

    let a = run("task_add", "demo", json!({"content": "first task\nsecond line"}));
    let b = run(
        "task_add",
        "demo",
        json!({"content": "blocked one", "status": "blocked"}),
    );
    let c = run(
        "task_add",
        "demo",
        json!({"content": "hostile $(touch pwned) `x` \"q\" 'y'"}),
    );
    assert!(
        a.starts_with("## ralph: task_add\n\nAdded task `") && a.ends_with("` (remaining)."),
        "{a}"
    );
    assert!(b.ends_with("` (blocked)."), "{b}");
    let (ia, ib, ic) = (id_of(&a), id_of(&b), id_of(&c));
    assert!(ia.len() >= 20 && ia != ib && ib != ic && ia != ic);
    assert!(!w.join("pwned").exists());

    let list = run("task_list", "demo", json!({}));
    assert_eq!(
        list,
        format!(
            "## ralph: task_list\n\n### remaining (2)\n\n- `{ia}` first task\n- `{ic}` hostile $(touch pwned) `x` \"q\" 'y'\n\n### blocked (1)\n\n- `{ib}` blocked one"
        )
    );

    let common = ia.chars().zip(ic.chars()).take_while(|(x, y)| x == y).count();
    let before = frames(&xs, &store).len();
    if common >= 8 {
        let amb = run(
            "task_status",
            "demo",
            json!({"id": &ia[..common], "status": "completed"}),
        );
        assert!(amb.contains("matches") && amb.contains("nothing was changed"), "{amb}");
        assert!(
            amb.contains(&format!("- `{ia}` first task")) && amb.contains(&format!("- `{ic}` hostile")),
            "{amb}"
        );
        assert_eq!(frames(&xs, &store).len(), before);
    }
    let mut n = 8;
    while [&ib, &ic].iter().any(|o| o.starts_with(&ia[..n])) {
        n += 1;
    }
    let ok = run("task_status", "demo", json!({"id": &ia[..n], "status": "in_progress"}));
    assert_eq!(
        ok,
        format!("## ralph: task_status\n\nTask `{ia}` marked as in_progress.")
    );
    let last = frames(&xs, &store).pop().unwrap();
    assert_eq!(last["topic"], "ralph.demo.task");
    assert_eq!(
        last["meta"],
        json!({"action": "status", "id": ia, "status": "in_progress", "iteration": 3})
    );
    assert!(
        run("task_status", "demo", json!({"id": &ib, "status": "completed"}))
            .contains(&format!("Task `{ib}` marked as completed."))
    );
    assert_eq!(
        run("task_list", "demo", json!({})),
        format!(
            "## ralph: task_list\n\n### in_progress (1)\n\n- `{ia}` first task\n\n### remaining (1)\n\n- `{ic}` hostile $(touch pwned) `x` \"q\" 'y'\n\n### completed (1)\n\n- `{ib}` blocked one"
        )
    );

    // Unknown ids, short prefixes and bad arguments change nothing.
    let before = frames(&xs, &store).len();
    assert_eq!(
        run(
            "task_status",
            "demo",
            json!({"id": "zzzzzzzzzz", "status": "completed"})
        ),
        "## ralph: task_status\n\n**Error:** no item with id `zzzzzzzzzz` on `ralph.demo.task`. Nothing was changed."
    );
    assert_eq!(
        run("task_status", "demo", json!({"id": "03", "status": "completed"})),
        "## ralph: task_status\n\n**Invalid arguments:** `id` must be at least 8 characters long"
    );
    assert!(
        run("task_status", "demo", json!({"id": "x", "status": "done"}))
            .contains("`status` must be one of \"in_progress\", \"completed\", \"blocked\"")
    );
    assert_eq!(
        run("task_add", "a\"b", json!({"content": "x"})),
        "## ralph: task_add\n\n**Error:** `ralph.a\"b.task` is not a valid store topic."
    );
    assert_eq!(frames(&xs, &store).len(), before);
    assert_eq!(
        run("task_list", "empty", json!({})),
        "## ralph: task_list\n\n_No items._"
    );

    // session_complete signals only a process of the expected name.
    let other = Command::new("sleep").arg("30").spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let mut ctx_other = context("demo");
    ctx_other.insert("pid".into(), json!(other.id()));
    let refused = run_tool(
        &ralph["session_complete"],
        &ctx_other,
        &json!({}),
        &ctx,
        &SpecShared::default(),
    )
    .text;
    assert!(
        refused.contains(&format!(
            "**Not signalled:** process {} is `sleep`, not `nu`.",
            other.id()
        )),
        "{refused}"
    );
    let mut other = other;
    let _ = other.kill();
    let _ = other.wait();
}
