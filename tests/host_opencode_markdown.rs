//! What the 17 ix tools return, in the real OpenCode, against a fake `ix` that answers
//! `--format json` with the real CLI's JSON shapes (`tests/support/fake_ix.js`).
//!
//! Each case is a golden (insta): the markdown the model reads and the argv the CLI got. The
//! cases cover each tool's defaults, every optional argument, values beyond the caps, the
//! branches of ix-impact's depth scaling, not-found and ambiguous targets, a backend that is
//! down and a missing Ix Pro. No output may carry a raw JSON blob.

mod support;

use serde_json::json;
use support::{OpencodeProject, argv_log, fake_ix, path_with};

/// A port nothing listens on: the runtime route fails at once and the CLI steps run.
const DEAD_RUNTIME: &str = "http://127.0.0.1:9";

/// One golden: (name, tool id, arguments, fake ix environment).
type Case = (
    &'static str,
    &'static str,
    serde_json::Value,
    Vec<(&'static str, &'static str)>,
);

fn cases() -> Vec<Case> {
    let none = Vec::new;
    vec![
        ("query_default", "ix_query", json!({"symbol": "UserService"}), none()),
        (
            "query_kind_path",
            "ix_query",
            json!({"symbol": "UserService", "kind": "class", "path": "src"}),
            none(),
        ),
        (
            "query_ambiguous",
            "ix_query",
            json!({"symbol": "User"}),
            vec![("IX_SCENARIO", "ambiguous")],
        ),
        (
            "query_not_found",
            "ix_query",
            json!({"symbol": "Nope"}),
            vec![("IX_SCENARIO", "notfound")],
        ),
        (
            "neighbors_default",
            "ix_neighbors",
            json!({"symbol": "AuthController"}),
            none(),
        ),
        (
            "neighbors_callers_over_cap",
            "ix_neighbors",
            json!({"symbol": "AuthController", "direction": "callers", "limit": 500}),
            none(),
        ),
        (
            "neighbors_callees_limit",
            "ix_neighbors",
            json!({"symbol": "AuthController", "direction": "callees", "limit": 3}),
            none(),
        ),
        (
            "neighbors_depends_over_cap",
            "ix_neighbors",
            json!({"symbol": "AuthController", "direction": "depends", "depth": 9}),
            none(),
        ),
        (
            "neighbors_imported_by",
            "ix_neighbors",
            json!({"symbol": "auth/index.ts", "direction": "imported-by"}),
            none(),
        ),
        (
            "neighbors_not_found",
            "ix_neighbors",
            json!({"symbol": "Nope"}),
            vec![("IX_SCENARIO", "notfound")],
        ),
        (
            "impact_low_few",
            "ix_impact",
            json!({"target": "formatDate"}),
            vec![("IX_RISK", "low-few")],
        ),
        (
            "impact_low_many",
            "ix_impact",
            json!({"target": "formatDate"}),
            vec![("IX_RISK", "low-many")],
        ),
        (
            "impact_high",
            "ix_impact",
            json!({"target": "PaymentProcessor"}),
            vec![("IX_RISK", "high")],
        ),
        (
            "impact_not_found",
            "ix_impact",
            json!({"target": "Nope"}),
            vec![("IX_SCENARIO", "notfound")],
        ),
        (
            "impact_backend_down",
            "ix_impact",
            json!({"target": "PaymentProcessor"}),
            vec![("IX_SCENARIO", "down")],
        ),
        ("map_default", "ix_map", json!({}), none()),
        (
            "map_scope_no_stats",
            "ix_map",
            json!({"scope": "models", "include_stats": false}),
            none(),
        ),
        ("ingest_status", "ix_ingest", json!({}), none()),
        ("ingest_stale", "ix_ingest", json!({}), vec![("IX_STALE", "3")]),
        (
            "ingest_status_fails",
            "ix_ingest",
            json!({}),
            vec![("IX_STATUS_FAILS", "1")],
        ),
        ("ingest_refresh", "ix_ingest", json!({"refresh": true}), none()),
        (
            "ingest_refresh_loud",
            "ix_ingest",
            json!({"refresh": true, "silent": false}),
            none(),
        ),
        ("history_no_pro", "ix_history", json!({}), none()),
        ("history_pro", "ix_history", json!({}), vec![("IX_PRO", "1")]),
        (
            "history_pro_topic_all",
            "ix_history",
            json!({"topic": "AuthService", "include": ["decisions", "bugs", "changes", "briefing"]}),
            vec![("IX_PRO", "1")],
        ),
        (
            "history_changes_no_pro",
            "ix_history",
            json!({"include": ["changes"]}),
            none(),
        ),
        ("docs_standard", "ix_docs_tool", json!({"target": "billing"}), none()),
        (
            "docs_brief",
            "ix_docs_tool",
            json!({"target": "billing", "depth": "brief"}),
            none(),
        ),
        (
            "docs_full",
            "ix_docs_tool",
            json!({"target": "billing", "depth": "full"}),
            vec![("IX_RISK", "high")],
        ),
        (
            "docs_not_found",
            "ix_docs_tool",
            json!({"target": "nope"}),
            vec![("IX_SCENARIO", "notfound")],
        ),
        ("locate_default", "ix_locate", json!({"pattern": "retryPolicy"}), none()),
        (
            "locate_all_args_over_cap",
            "ix_locate",
            json!({"pattern": "--force", "limit": 500, "path": "src/api", "language": "typescript"}),
            none(),
        ),
        (
            "locate_no_match",
            "ix_locate",
            json!({"pattern": "zzz"}),
            vec![("IX_SCENARIO", "empty")],
        ),
        (
            "explain_default",
            "ix_explain",
            json!({"symbol": "UserService"}),
            none(),
        ),
        (
            "explain_not_found",
            "ix_explain",
            json!({"symbol": "Nope"}),
            vec![("IX_SCENARIO", "notfound")],
        ),
        ("rank_default", "ix_rank", json!({}), none()),
        (
            "rank_all_args_over_cap",
            "ix_rank",
            json!({"by": "callers", "kind": "function", "top": 99, "path": "src"}),
            none(),
        ),
        ("stats_default", "ix_stats", json!({}), none()),
        ("subsystems_default", "ix_subsystems", json!({}), none()),
        (
            "subsystems_empty",
            "ix_subsystems",
            json!({}),
            vec![("IX_SCENARIO", "empty")],
        ),
        ("inventory_default", "ix_inventory", json!({"path": "src/api"}), none()),
        (
            "inventory_kind",
            "ix_inventory",
            json!({"path": "src/api", "kind": "function"}),
            none(),
        ),
        ("trace_directional", "ix_trace", json!({"symbol": "Checkout"}), none()),
        (
            "trace_path",
            "ix_trace",
            json!({"symbol": "Checkout", "to": "Ledger"}),
            none(),
        ),
        (
            "trace_no_path",
            "ix_trace",
            json!({"symbol": "Checkout", "to": "Ledger"}),
            vec![("IX_SCENARIO", "empty")],
        ),
        (
            "decide_block",
            "ix_decide",
            json!({"touched_paths": ["src/core/payment.ts", "src/api/routes.ts", "src/util/date.ts"]}),
            none(),
        ),
        (
            "decide_all_low",
            "ix_decide",
            json!({"touched_paths": ["src/util/date.ts", "src/util/str.ts"]}),
            none(),
        ),
        (
            "decide_review_high_tolerance",
            "ix_decide",
            json!({"touched_paths": ["src/api/routes.ts"], "intent": "refactor", "risk_tolerance": "high"}),
            none(),
        ),
        (
            "decide_block_low_tolerance",
            "ix_decide",
            json!({"touched_paths": ["src/api/routes.ts"], "intent": "delete", "risk_tolerance": "low"}),
            none(),
        ),
        (
            "decide_backend_down_is_not_allow",
            "ix_decide",
            json!({"touched_paths": ["src/util/date.ts"]}),
            vec![("IX_SCENARIO", "down")],
        ),
        (
            "decide_unresolved_is_not_allow",
            "ix_decide",
            json!({"touched_paths": ["src/util/date.ts"]}),
            vec![("IX_SCENARIO", "notfound")],
        ),
        ("health_ok", "ix_health", json!({}), none()),
        (
            "health_degraded",
            "ix_health",
            json!({}),
            vec![("IX_STATUS_FAILS", "1")],
        ),
        ("smells_default", "ix_smells", json!({}), none()),
        ("smells_limit", "ix_smells", json!({"limit": 5}), none()),
        ("smells_over_cap", "ix_smells", json!({"limit": 1000}), none()),
    ]
}

/// A JSON blob in markdown: an object or array literal with quoted keys, or a json fence.
fn has_raw_json(md: &str) -> bool {
    md.contains("```json") || md.contains("{\"") || md.contains("\":") || md.contains("[{")
}

#[test]
fn each_ix_tool_renders_markdown_like_the_seed_and_its_goldens_match() {
    let p = OpencodeProject::new();
    let out = p.ixgen(&["opencode", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bin = p.tmp.path().join("fakebin");
    fake_ix(&bin);
    let path = path_with(&bin);
    let cases = cases();
    let tools: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.1).collect();
    assert_eq!(tools.len(), 17, "every ix OpenCode tool has cases");
    let mut failures = Vec::new();
    for (name, id, params, extra) in cases {
        let log = p.tmp.path().join(format!("{name}.argv"));
        let log_s = log.display().to_string();
        let mut env = vec![
            ("PATH", path.as_str()),
            ("IX_ARGV_LOG", log_s.as_str()),
            ("IX_RUNTIME_URL", DEAD_RUNTIME),
        ];
        env.extend(extra.iter().copied());
        let md = p.run_tool(id, &params, &env).unwrap_or_else(|e| panic!("{name}: {e}"));
        let heading = format!("## {}", id.replace('_', "-"));
        if !md.starts_with(&heading) {
            failures.push(format!("{name}: does not start with {heading}:\n{md}"));
        }
        if has_raw_json(&md) {
            failures.push(format!("{name}: raw JSON in the output:\n{md}"));
        }
        // Parallel steps log in any order; the golden holds them sorted.
        let mut argv = argv_log(&log);
        argv.sort();
        let argv: Vec<String> = argv.iter().map(|a| format!("ix {}", a.join(" "))).collect();
        insta::assert_snapshot!(
            format!("opencode_md__{name}"),
            format!("{md}\n\n---- params: {params}\n---- argv:\n{}", argv.join("\n"))
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
