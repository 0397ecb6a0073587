//! Arguments at the edge of what the system can take: a pid past the system's pid type never
//! wraps around to another process, and a timeout past what a `Duration` holds runs the program
//! (a client's huge number must not take down `ixgen serve`).

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use ixgen_runtime::{Ctx, run_tool};
use serde_json::{Map, Value, json};

fn run(step: Value, context: Value) -> (String, bool) {
    let spec: ExecSpec = serde_json::from_value(json!({
        "version": 4,
        "name": "edge",
        "heading": ["edge"],
        "params": [],
        "steps": [step]
    }))
    .unwrap();
    let dir = std::env::temp_dir();
    let ctx = Ctx {
        cwd: Some(dir.as_path()),
        ask: None,
        cancel: None,
    };
    let context: Map<String, Value> = serde_json::from_value(context).unwrap();
    let a = run_tool(&spec, &context, &json!({}), &ctx, &SpecShared::default());
    (a.text, a.is_error)
}

#[cfg(unix)]
#[test]
fn a_pid_past_the_pid_type_is_refused_not_wrapped() {
    let mut victim = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    // 2^32 + the victim's pid: as a 32-bit pid it is the victim.
    let wrapped = (1u64 << 32) + u64::from(victim.id());
    let (text, is_error) = run(
        json!({"exec": {"kind": "signal", "pid": [{"var": "pid"}], "signal": "SIGTERM"}}),
        json!({"pid": wrapped.to_string()}),
    );
    let alive = victim.try_wait().unwrap().is_none();
    victim.kill().ok();
    victim.wait().ok();
    assert!(alive, "the process the pid wraps to was signalled: {text}");
    assert!(is_error, "{text}");
    assert!(text.contains("is not a process id that can be signalled"), "{text}");
}

#[test]
fn a_timeout_too_long_for_a_duration_runs_the_program() {
    let (text, is_error) = run(
        json!({"exec": {"kind": "cli", "program": "echo", "argv": ["ran"], "timeout_ms": {"var": "t", "scale": 1000}}}),
        json!({"t": 1e20}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("ran"), "{text}");
}
