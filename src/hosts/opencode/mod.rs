//! OpenCode: one custom tool file per product tool, the session tools file with the run's
//! context baked in, and the MCP server merged into `opencode.json`.
//!
//! OpenCode 1.18 does not parse arguments through zod and crashes on a non-string result, so
//! every tool runs through the interpreter (`templates/opencode/runtime.ts`) that applies
//! defaults, bounds and validation and always returns a string. The interpreter is written
//! once per output, as `<tools dir>/../ixgen/runtime-<hash>.ts`: OpenCode 1.18.33 loads tools
//! only from `{tool,tools}/*.{js,ts}`, so that folder is never taken for tools, and a relative
//! import of it loads (both checked in the real host). The content hash in the name lets two
//! ixgen releases' tools live side by side. Beside it, `shared-<hash>.ts` holds what every tool
//! of the catalog shares (`crate::spec::SpecShared`), which each spec then leaves out; its hash
//! is in every tool file's import, so a changed setting still changes every tool file. A tool
//! file holds its header, its spec and its `tool({…})`. Naming rules: a file's default export
//! is named after the file, so file names are `[a-z0-9_]`; a named export `x` of `f.ts`
//! becomes `f_x`. Pure: returns planned files, touches no disk.

pub mod ts_types;

use super::{Host, Options, Surface, header_text, server_args};
use crate::diagnostic::{Diagnostic, Report};
use crate::error::Error;
use crate::escape::{Ident, Ts, comment, ts_json, ts_json_pretty, ts_num, ts_str};
use crate::model::{Model, Param, SpecType, ToolModel};
use crate::plan::{Plan, PlannedFile};
use crate::spec::SpecExec;
use askama::Template;
use schemars::JsonSchema;
use serde::Deserialize;

/// `targets.opencode`: the product's tools, one file each.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The toolset whose tools get a file each.
    pub toolset: String,
    /// Folder of the tool files.
    #[serde(default = "default_dir")]
    pub dir: String,
    /// `opencode.json` to merge the MCP server and the permission rules of tools that confirm
    /// into; leave out to write none.
    #[serde(default)]
    pub config: Option<String>,
    /// Whether `config` also launches the catalog's MCP `server` (default true). Its tools then
    /// appear in OpenCode beside the tool files' (as `<server>_<tool>`): `false` writes only the
    /// permission rules, for a server whose tools the files already are.
    #[serde(default)]
    pub server: Option<bool>,
}

impl Settings {
    /// Whether `opencode.json` launches the catalog's server.
    pub fn merges_server(&self, cat: &Model) -> bool {
        self.config.is_some() && cat.server.is_some() && self.server != Some(false)
    }
}

/// Where OpenCode loads tools from.
pub fn default_dir() -> String {
    ".opencode/tools".to_string()
}

/// The OpenCode tool id of a product tool: its file name, so `[a-z0-9_]` only.
pub fn tool_id(name: &str) -> String {
    name.replace('-', "_")
}

/// OpenCode names an MCP server's tools `<server>_<tool>`.
pub fn mcp_tool_id(server: &str, name: &str) -> String {
    format!("{server}_{name}")
}

pub struct Opencode;

impl Host for Opencode {
    type Settings = Settings;

    const NAME: &'static str = "opencode";
    const ABOUT: &'static str = "OpenCode custom tools (`.opencode/tools/*.ts`) and the MCP server in `opencode.json`";

    fn check(&self, s: &Settings, cat: &Model, path: &str) -> Vec<Diagnostic> {
        let mut diags = super::check_toolset(cat, path, &s.toolset, "dir", &s.dir);
        if let Some(c) = &s.config {
            super::check_rel_path(&format!("{path}.config"), c, &mut diags);
            // `config` carries the MCP server and the permission rules of tools that confirm:
            // with neither it would write nothing. A tool that did not lower (its error is
            // reported) may confirm: this check does not guess.
            let confirms = || {
                (cat.toolsets.get(&s.toolset))
                    .is_some_and(|ts| ts.tools.iter().any(|n| cat.tool(n).is_none_or(|t| t.confirm)))
            };
            if !s.merges_server(cat) && !confirms() {
                let message = if cat.server.is_none() {
                    "`config` writes the MCP server and permission rules into opencode.json, but the catalog declares no `server` and no tool of the toolset confirms"
                } else {
                    "`config` writes the permission rules into opencode.json (`server: false` leaves the MCP server out), but no tool of the toolset confirms"
                };
                let help = "add a top-level `server` (or a tool that confirms), or remove `config`";
                diags.err_at_key("no-server", format!("{path}.config"), message, help);
            }
            // The server's tools and the tool files' are the same tools: OpenCode would list
            // each twice, once per name.
            if s.merges_server(cat)
                && let (Some(server), Some(files)) = (&cat.server, cat.toolsets.get(&s.toolset))
                && let Some(served) = cat.toolsets.get(&server.toolset)
                && let served = served.tools.iter().collect::<std::collections::HashSet<_>>()
                && let Some(both) = files.tools.iter().find(|t| served.contains(t))
            {
                let (file, served) = (tool_id(both), mcp_tool_id(&server.name, both));
                let message = format!(
                    "OpenCode would list `{both}` twice: as the tool file `{file}` and as the MCP server's `{served}`"
                );
                let help = "add `server: false` to write only the permission rules, or give the server another toolset";
                let warning = Diagnostic::warning("opencode-twice", format!("{path}.config"), message);
                diags.push(warning.at_key().help(help));
            }
        } else if s.server.is_some() {
            let message = "`server` has no effect without `config` (no opencode.json is written)";
            let warning = Diagnostic::warning("no-effect", format!("{path}.server"), message);
            diags.push(warning.at_key().help("add `config: opencode.json`, or remove `server`"));
        }
        diags
    }

    fn surfaces(&self, s: &Settings, cat: &Model) -> Vec<Surface> {
        let mut out = Vec::new();
        if let Some(ts) = cat.toolsets.get(&s.toolset) {
            out.push(Surface {
                key: "opencode",
                label: "OpenCode",
                session: "OpenCode session",
                kind: super::SurfaceKind::Runs,
                toolset: s.toolset.clone(),
                namespace: "OpenCode",
                ids: ts.tools.iter().map(|t| (t.clone(), tool_id(t))).collect(),
            });
        }
        if let Some(server) = cat.server.as_ref().filter(|_| s.merges_server(cat))
            && let Some(ts) = cat.toolsets.get(&server.toolset)
        {
            let id = |t: &String| (t.clone(), mcp_tool_id(&server.name, t));
            out.push(Surface {
                key: "opencode-mcp",
                label: "OpenCode (MCP)",
                session: "OpenCode session with the MCP server",
                kind: super::SurfaceKind::Launches,
                toolset: server.toolset.clone(),
                namespace: "OpenCode",
                ids: ts.tools.iter().map(id).collect(),
            });
        }
        out
    }

    fn plan<'m>(&self, s: &'m Settings, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        plan.groups.insert(Self::NAME);
        let shared_import = plan_runtime(model, &s.dir, plan)?;
        let toolset = opts.toolset.as_deref().unwrap_or(&s.toolset);
        if !model.toolsets.contains_key(toolset) {
            return Err(super::unknown_toolset(model, toolset));
        }
        // Rendered when compared, so a large catalog never holds all its files at once.
        for t in model.toolset(toolset, &opts.filter) {
            let shared_import = shared_import.clone();
            let path = format!("{}/{}.ts", s.dir.trim_end_matches('/'), tool_id(&t.name));
            plan.files.push(PlannedFile::deferred(path, Self::NAME, move || {
                render(&ToolFile {
                    header: header_text(model),
                    command: Ts::code("ixgen opencode"),
                    runtime_import: runtime_import()?,
                    shared_import: shared_import.clone(),
                    constants: Vec::new(),
                    tools: vec![entry(model, t, None, &tool_id(&t.name))?],
                })
            }));
        }
        let Some(config) = &s.config else {
            return Ok(());
        };
        plan_permissions(model, config, toolset, opts, plan);
        if let Some(server) = model.server.as_ref().filter(|_| s.merges_server(model)) {
            let value = serde_json::to_value(OpencodeMcp {
                command: std::iter::once(server.command.clone())
                    .chain(server_args(model, &opts.filter))
                    .collect(),
                environment: server.env.clone(),
                enabled: true,
            })
            .map_err(|e| Error::internal(format!("opencode.json entry: {e}")))?;
            plan.files.push(config_entry(config, &["mcp", &server.name], value));
        }
        Ok(())
    }

    /// With the runtime, which the session tools keep while they may import it.
    fn retire(&self, plan: &mut Plan<'_>) {
        plan.groups.insert(Self::NAME);
        cover_runtime(plan);
    }
}

/// The interpreter's code, without its types (those come from the spec's schema).
const RUNTIME_BODY: &str = include_str!("../../../templates/opencode/runtime.ts");

/// The manifest group of runtime files: shared by the product's tools and the session tools.
pub const RUNTIME_GROUP: &str = "opencode-runtime";

#[derive(Template)]
#[template(path = "opencode/runtime-file.ts", escape = "none")]
struct RuntimeFile<'a> {
    header: Ts,
    version: u32,
    types: &'a str,
    body: &'a str,
    cel_module: Ts,
}

/// The vendored CEL evaluator (@bufbuild/cel bundled by scripts/cel-bundle/build.mjs), which the
/// runtime imports for compute steps.
const CEL_BUNDLE: &[u8] = include_bytes!("../../../templates/opencode/cel.js");

/// The CEL evaluator's file name (`cel-<hash>.js`, from its bytes, so a runtime file names the
/// evaluator it was built with) and bytes.
pub fn cel_file() -> (String, &'static [u8]) {
    (hashed_name("cel", "js", CEL_BUNDLE), CEL_BUNDLE)
}

/// The runtime file's bytes and its file name, the same for every catalog of one ixgen build.
pub fn runtime() -> Result<&'static (String, Vec<u8>), Error> {
    static RUNTIME: std::sync::OnceLock<Result<(String, Vec<u8>), String>> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let bytes = runtime_text(&crate::spec::schema())?;
            Ok((hashed_name("runtime", "ts", &bytes), bytes))
        })
        .as_ref()
        .map_err(|e| Error::internal(format!("the runtime file cannot be generated: {e}")))
}

/// The runtime file for a spec schema: the types generated from the schema, then the
/// interpreter written against them. (Public so a test can feed it a schema that disagrees
/// with the interpreter and watch the type check fail.)
pub fn runtime_text(schema: &serde_json::Value) -> Result<Vec<u8>, String> {
    let types = ts_types::declarations(schema)?;
    render(&RuntimeFile {
        header: comment(&format!(
            "{} {}: the runtime of generated OpenCode tools.",
            crate::plan::MARKER,
            env!("CARGO_PKG_VERSION")
        )),
        version: crate::spec::SPEC_VERSION,
        types: &types,
        body: RUNTIME_BODY,
        cel_module: ts_str(&format!("./{}", cel_file().0)),
    })
    .map_err(|e| e.to_string())
}

#[derive(Template)]
#[template(path = "opencode/shared-file.ts", escape = "none")]
struct SharedFile {
    header: Ts,
    runtime_import: Ts,
    shared: Ts,
}

/// `<stem>-<hash>.<ext>`: a file name that changes with the file's bytes.
fn hashed_name(stem: &str, ext: &str, bytes: &[u8]) -> String {
    format!("{stem}-{}.{ext}", &blake3::hash(bytes).to_hex()[..12])
}

/// Plans the runtime file and the catalog's shared settings file of the tools in `tools_dir`,
/// once however many hosts need them, and gives the module specifier a tool file imports the
/// shared settings by. An old runtime or shared file is removed only when no tools that may
/// still import it are left behind: `generate` without the session context must not take
/// them from under the last session file.
pub fn plan_runtime(model: &Model, tools_dir: &str, plan: &mut Plan<'_>) -> Result<Ts, Error> {
    // The catalog's shared settings file is named from its bytes (`shared-<hash>.ts`), so a tool
    // file that imports it names the settings it was generated with.
    let shared_bytes = render(&SharedFile {
        header: header_text(model),
        runtime_import: ts_str(&format!("./{}", runtime()?.0)),
        shared: ts_json_pretty(&model.shared),
    })?;
    let shared_name = hashed_name("shared", "ts", &shared_bytes);
    let shared_import = ts_str(&format!("../ixgen/{shared_name}"));
    // Both go in `ixgen` beside the tools folder.
    let dir = match tools_dir.trim_end_matches('/').rsplit_once('/') {
        Some((parent, _)) if !parent.is_empty() => format!("{parent}/ixgen"),
        _ => "ixgen".to_string(),
    };
    let mut files = vec![runtime()?.clone(), (shared_name, shared_bytes)];
    // The evaluator only for a catalog that computes: 280 kB that other projects never load.
    let computes = model
        .tools
        .iter()
        .any(|t| t.spec.steps.iter().any(|s| matches!(s.exec, SpecExec::Compute { .. })));
    if computes {
        let (name, bytes) = cel_file();
        files.push((name, bytes.to_vec()));
    }
    for (name, bytes) in files {
        let path = format!("{dir}/{name}");
        if !plan.files.iter().any(|f| f.path == path) {
            plan.files.push(PlannedFile::owned(path, RUNTIME_GROUP, bytes));
        }
    }
    cover_runtime(plan);
    Ok(shared_import)
}

/// Covers the runtime's group, guarded: its old files stay while the tools of a group the run
/// does not cover may still import them (the session file, written only with its context).
pub(super) fn cover_runtime(plan: &mut Plan<'_>) {
    if plan.groups.insert(RUNTIME_GROUP) {
        plan.guards.push((RUNTIME_GROUP, &["opencode", "session"]));
    }
}

#[derive(Template)]
#[template(path = "opencode/tool.ts", escape = "none")]
pub(super) struct ToolFile {
    pub header: Ts,
    pub command: Ts,
    /// The module specifier of the runtime file, relative to the tool file.
    pub runtime_import: Ts,
    /// The module specifier of the catalog's shared settings file.
    pub shared_import: Ts,
    pub constants: Vec<Constant>,
    pub tools: Vec<ToolEntry>,
}

pub(super) fn runtime_import() -> Result<Ts, Error> {
    Ok(ts_str(&format!("../ixgen/{}", runtime()?.0)))
}

pub(super) struct Constant {
    pub key: Ts,
    pub name: Ident,
    pub value: Ts,
}

pub(super) struct ToolEntry {
    spec_name: Ident,
    spec: Ts,
    /// `None`: the file's default export. `Some(name)`: a named export.
    export: Option<Ident>,
    local: Ident,
    description: Ts,
    args: Vec<ArgEntry>,
}

struct ArgEntry {
    key: Ts,
    schema: Ts,
}

/// The zod 4 schema of a parameter, through `tool.schema` only (zod 3 objects turn into
/// garbage in the JSON Schema OpenCode sends to the model).
fn zod(q: Param<'_>) -> Ts {
    let base = |ty: SpecType, values: Option<&Vec<String>>| -> Ts {
        match ty {
            SpecType::String | SpecType::Path => Ts::code("tool.schema.string()"),
            SpecType::Integer => Ts::code("tool.schema.number()").call("int", &[]),
            SpecType::Number => Ts::code("tool.schema.number()"),
            SpecType::Boolean => Ts::code("tool.schema.boolean()"),
            SpecType::Enum => {
                let vals: Vec<Ts> = values.into_iter().flatten().map(|v| ts_str(v)).collect();
                Ts::code("tool.schema").call("enum", &[Ts::array(&vals)])
            }
            SpecType::Array => Ts::code("tool.schema.array(tool.schema.string())"),
        }
    };
    let mut s = match (q.ty, &q.items) {
        (SpecType::Array, Some(items)) => {
            let mut inner = base(items.ty, items.values.as_ref());
            if let Some(d) = &q.doc.items_description {
                inner = inner.call("describe", &[ts_str(d)]);
            }
            Ts::code("tool.schema").call("array", &[inner])
        }
        _ => base(q.ty, q.values.as_ref()),
    };
    if let Some(min) = q.min_f64() {
        s = s.call("min", &[ts_num(min)]);
    }
    if let Some(max) = q.max_f64() {
        s = s.call("max", &[ts_num(max)]);
    }
    if q.nullable {
        s = s.call("nullable", &[]);
    }
    match (q.default.as_deref(), q.required) {
        (Some(d), _) => s = s.call("default", &[ts_json(d)]),
        (None, false) => s = s.call("optional", &[]),
        (None, true) => {}
    }
    if let Some(d) = &q.doc.description {
        s = s.call("describe", &[ts_str(d)]);
    }
    // zod 4 carries it into the JSON Schema OpenCode gives the model, as MCP's `title`.
    if let Some(t) = &q.doc.title {
        s = s.call("meta", &[ts_json(&serde_json::json!({ "title": t }))]);
    }
    s
}

/// A name the catalog stage validated, as an identifier; a name that is not one is a bug.
pub(super) fn ident(name: &str) -> Result<Ident, Error> {
    Ident::new(name).ok_or_else(|| Error::internal(format!("`{name}` passed validation but is not an identifier")))
}

/// A tool of a tool file; `host_id` is its OpenCode id, the permission name its `ctx.ask`
/// uses, so the user's `permission` rules in `opencode.json` apply to it. Its spec leaves out
/// what the catalog's shared settings file holds.
pub(super) fn entry(model: &Model, t: &ToolModel, export: Option<&str>, host_id: &str) -> Result<ToolEntry, Error> {
    let id = tool_id(&t.name);
    let mut spec = t.spec.without_shared(&model.shared);
    if let Some(c) = &mut spec.confirm {
        c.permission = host_id.to_string();
    }
    Ok(ToolEntry {
        spec_name: ident(&format!("SPEC_{id}"))?,
        spec: ts_json_pretty(&spec),
        export: (export.map(|e| {
            Ident::export_name(e)
                .ok_or_else(|| Error::internal(format!("`{e}` passed validation but is not an export name")))
        }))
        .transpose()?,
        local: ident(&format!("tool_{id}"))?,
        description: ts_str(&t.description),
        args: t
            .params()
            .map(|p| ArgEntry {
                key: ts_str(&p.name),
                schema: zod(p),
            })
            .collect(),
    })
}

pub(super) fn render(file: &impl Template) -> Result<Vec<u8>, Error> {
    let mut text = String::with_capacity(8 * 1024);
    file.render_into(&mut text)
        .map_err(|e| Error::internal(format!("a template did not render: {e}")))?;
    text.push('\n');
    Ok(text.into_bytes())
}

/// An MCP server in `opencode.json` (`"type": "local"`): `command` is one array, program first.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename = "local")]
struct OpencodeMcp {
    command: Vec<String>,
    environment: indexmap::IndexMap<String, String>,
    enabled: bool,
}

/// Plans `permission.<tool id>` in `opencode.json` for every tool that confirms. OpenCode
/// 1.18.33's default rules allow every permission (`"*": "allow"`), so `ctx.ask` prompts only
/// where a rule says `ask`: this rule is what makes the host ask (tests/hosts/README.md). Rules
/// are matched last-first, so the catch-all `ask` comes first, then `allow`, then `deny`
/// patterns. A `deny` rule for `*` would hide the tool instead, so none is written.
fn plan_permissions<'m>(model: &'m Model, config: &str, toolset: &str, opts: &Options, plan: &mut Plan<'m>) {
    for t in model.toolset(toolset, &opts.filter) {
        let Some(c) = &t.spec.confirm else { continue };
        let rule = if c.allow.is_empty() && c.deny.is_empty() {
            serde_json::Value::from("ask")
        } else {
            let rules = std::iter::once(("*", "ask"))
                .chain(c.allow.iter().map(|p| (p.as_str(), "allow")))
                .chain(c.deny.iter().map(|p| (p.as_str(), "deny")));
            serde_json::Value::Object(rules.map(|(p, rule)| (p.to_string(), rule.into())).collect())
        };
        plan.files
            .push(config_entry(config, &["permission", &tool_id(&t.name)], rule));
    }
}

/// A key ixgen sets in `opencode.json`, which starts with its `$schema` when ixgen creates it.
fn config_entry(config: &str, pointer: &[&str], value: serde_json::Value) -> PlannedFile<'static> {
    let skeleton = serde_json::Map::from_iter([("$schema".into(), "https://opencode.ai/config.json".into())]);
    PlannedFile::merged(config, Opencode::NAME, pointer, value, skeleton)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// What every tool shares is left out of its spec; what a tool sets for itself stays.
    #[test]
    fn a_spec_leaves_out_only_what_equals_the_shared_settings() {
        let text = r#"version: 1
product: {name: demo, version: 1.0.0, description: d}
cli: {binary: demo, fallback: "demo is missing"}
runtime: {url_env: DEMO_URL, default_url: "http://127.0.0.1:9", timeout_ms: 1000, markdown_field: md}
toolsets: {main: {tools: [a, b]}}
tools:
  - name: a
    description: A
    runtime: {method: POST, path: /a}
    steps:
      - run: [one]
      - run: [two]
        program: other
  - name: b
    description: B
    fallback: "b's own"
    runtime: {method: GET, path: /b, output: json}
    steps:
      - run: [three]
"#;
        let loaded = crate::catalog::load_text("demo.yaml", text.as_bytes()).unwrap();
        let model = crate::model::lower(loaded, "demo.yaml", |_| Vec::new()).unwrap().model;
        assert_eq!(
            serde_json::to_value(&model.shared).unwrap(),
            json!({
                "runtime": {"url_env": "DEMO_URL", "default_url": "http://127.0.0.1:9", "timeout_ms": 1000, "markdown_field": "md"},
                "fallback": ["demo is missing"],
                "program": "demo"
            })
        );
        let carried = |i: usize| serde_json::to_value(model.tools[i].spec.without_shared(&model.shared)).unwrap();
        let a = carried(0);
        assert_eq!(a["runtime"], json!({"method": "POST", "path": "/a"}));
        assert_eq!(a["fallback"], json!(null), "the shared fallback is left out");
        assert_eq!(a["steps"][0]["exec"], json!({"kind": "cli", "argv": ["one"]}));
        assert_eq!(a["steps"][1]["exec"]["program"], "other", "a step's own program stays");
        let b = carried(1);
        assert_eq!(b["runtime"], json!({"method": "GET", "path": "/b", "json": true}));
        assert_eq!(b["fallback"], json!(["b's own"]));
        // The model's spec stays whole: diff compares these.
        let whole = serde_json::to_value(&model.tools[0].spec).unwrap();
        assert_eq!(whole["runtime"]["url_env"], "DEMO_URL");
        assert_eq!(whole["steps"][0]["exec"]["program"], "demo");
    }
}
