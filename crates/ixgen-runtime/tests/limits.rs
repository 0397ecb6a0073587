//! Edges of what the system can take: a pid past the system's pid type never wraps around to
//! another process, a timeout past what a `Duration` holds runs the program (a client's huge
//! number must not take down `ixgen serve`), and every signal is known by its name, both ways.

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

#[cfg(unix)]
#[test]
fn a_program_stopped_by_any_signal_is_told_by_its_name() {
    let (text, is_error) = run(
        json!({"exec": {"kind": "cli", "program": "sh", "argv": ["-c", "kill -TRAP $$"]}}),
        json!({}),
    );
    assert!(is_error, "{text}");
    assert!(text.contains("was stopped by SIGTRAP"), "{text}");
}

#[cfg(unix)]
#[test]
fn a_signal_step_sends_any_signal_by_its_name() {
    use std::os::unix::process::ExitStatusExt;
    // SIGALRM, which the step once did not know: its default action ends the job.
    let mut job = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let (text, is_error) = run(
        json!({"exec": {"kind": "signal", "pid": [{"var": "pid"}], "signal": "SIGALRM"}}),
        json!({"pid": job.id().to_string()}),
    );
    let mut ended = None;
    for _ in 0..100 {
        ended = job.try_wait().unwrap();
        if ended.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    job.kill().ok();
    job.wait().ok();
    assert!(!is_error, "{text}");
    assert_eq!(ended.and_then(|s| s.signal()), Some(libc::SIGALRM), "{text}");
}
