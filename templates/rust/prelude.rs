// Not every crate uses every tool, enum or field of the module.
#![allow(dead_code)]

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use std::sync::{Arc, LazyLock};

/// Asks the user about a call: `Ok` to run it, `Err(why)` to refuse.
pub type AskHook = dyn Fn(&ixgen_runtime::Ask) -> Result<(), String> + Send + Sync;

/// Where the tools run, and how a tool with `confirm` asks before it runs.
#[derive(Clone, Default)]
pub struct Env {
    /// The worktree: programs run there, and `path` arguments must stay inside it. `None`: the
    /// process's current folder.
    pub cwd: Option<std::path::PathBuf>,
    /// Asks the user about a call. Without it, a tool with `confirm` does not run.
    pub ask: Option<Arc<AskHook>>,
}

/// A tool that failed: the runtime's answer (Markdown, what MCP returns with `isError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailed(pub String);

impl std::fmt::Display for ToolFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolFailed {}

fn read_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("ixgen wrote valid JSON")
}

fn read_spec(text: &str) -> ExecSpec {
    serde_json::from_str(text).expect("ixgen wrote a spec this ixgen-runtime reads")
}

fn read_schema(text: &str) -> schemars::Schema {
    schemars::Schema::try_from(read_json(text)).expect("an inputSchema is a JSON object")
}

fn shared() -> &'static SpecShared {
    static SHARED_SPEC: LazyLock<SpecShared> =
        LazyLock::new(|| serde_json::from_str(SHARED).expect("ixgen wrote settings this ixgen-runtime reads"));
    &SHARED_SPEC
}

/// Reads a call's arguments as the runtime does (`ixgen_runtime::check_args`, `path` arguments
/// against the current folder): the values the steps would see, or the runtime's answer to
/// invalid arguments as the error.
fn read_args<'de, D: serde::Deserializer<'de>>(
    spec: &ExecSpec,
    deserializer: D,
) -> Result<serde_json::Map<String, serde_json::Value>, D::Error> {
    let raw = <serde_json::Value as serde::Deserialize>::deserialize(deserializer)?;
    ixgen_runtime::check_args(spec, &serde_json::Map::new(), &raw, &ixgen_runtime::Ctx::default())
        .map_err(|answer| serde::de::Error::custom(answer.text))
}

/// One read value as its field's type (absent: `None`).
fn field<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    spec: &ExecSpec,
    given: &mut serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<T, E> {
    serde_json::from_value(whole(given.remove(name).unwrap_or(serde_json::Value::Null)))
        .map_err(|e| E::custom(format!("## {}\n\n**Invalid arguments:** `{name}` {e}", spec.name)))
}

/// A whole number the runtime keeps as a float (past 2^53, as JavaScript does) as an integer,
/// so that it reads into an `i64` field (and still into an `f64` one).
fn whole(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.2e18 => serde_json::Value::from(f as i64),
            _ => serde_json::Value::Number(n),
        },
        serde_json::Value::Array(items) => serde_json::Value::Array(items.into_iter().map(whole).collect()),
        other => other,
    }
}

/// Stops a call's programs when its future is dropped before it is done.
struct CancelOnDrop(Option<Arc<ixgen_runtime::Cancel>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.cancel();
        }
    }
}

/// Runs a tool's spec with `args` on a blocking thread (the runtime waits on programs): its
/// answer, or the runtime's failure answer as the error.
async fn run(spec: &'static ExecSpec, args: &impl serde::Serialize, env: &Env) -> Result<String, ToolFailed> {
    let raw = serde_json::to_value(args)
        .map_err(|e| ToolFailed(format!("## {}\n\n**Error:** the arguments do not serialize: {e}", spec.name)))?;
    let env = env.clone();
    let cancel = Arc::new(ixgen_runtime::Cancel::new());
    let mut on_drop = CancelOnDrop(Some(Arc::clone(&cancel)));
    let answer = tokio::task::spawn_blocking(move || {
        let ctx = ixgen_runtime::Ctx {
            cwd: env.cwd.as_deref(),
            ask: env.ask.as_deref().map(|f| f as ixgen_runtime::AskFn),
            cancel: Some(&cancel),
        };
        ixgen_runtime::run_tool(spec, &serde_json::Map::new(), &raw, &ctx, shared())
    })
    .await;
    on_drop.0 = None;
    let answer =
        answer.map_err(|e| ToolFailed(format!("## {}\n\n**Error:** the tool's thread failed: {e}", spec.name)))?;
    if answer.is_error {
        Err(ToolFailed(answer.text))
    } else {
        Ok(answer.text)
    }
}
