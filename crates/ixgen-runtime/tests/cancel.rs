//! Cancellation (the TypeScript runtime's abort signal): a cancelled call stops its running
//! program's process group at once, runs no later step, and ends `_Cancelled._`.

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use ixgen_runtime::{Cancel, Ctx, run_tool};
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn a_cancelled_call_stops_its_program_and_runs_no_later_step() {
    let spec: ExecSpec = serde_json::from_value(json!({
        "version": 4,
        "name": "slow",
        "heading": ["slow"],
        "params": [],
        "steps": [
            {"exec": {"kind": "cli", "program": "sleep", "argv": ["30"]}},
            {"exec": {"kind": "cli", "program": "echo", "argv": ["never"]}}
        ]
    }))
    .unwrap();
    let cancel = Cancel::new();
    let dir = std::env::temp_dir();
    let start = Instant::now();
    let answer = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            cancel.cancel();
        });
        let ctx = Ctx {
            cwd: Some(dir.as_path()),
            ask: None,
            cancel: Some(&cancel),
        };
        run_tool(&spec, &serde_json::Map::new(), &json!({}), &ctx, &SpecShared::default())
    });
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "sleep 30 was stopped: {:?}",
        start.elapsed()
    );
    assert_eq!(
        answer.text,
        "## slow\n\n**Error:** `sleep 30` was cancelled\n\n_Cancelled._"
    );
    assert!(answer.is_error);
}
