//! MCP: the `tools/list` result of the server's toolset, as typed structs serialized by
//! serde_json (never a template).
//!
//! Naming rules: tool names are the catalog's (`^[a-z0-9_-]+$`, validated). Each input schema
//! is JSON Schema 2020-12 without `$schema`, its root is `type: object`, a tool without
//! parameters is `{"type":"object","additionalProperties":false}`, arrays always carry
//! `items`, and the root never has `oneOf`/`anyOf`/`allOf`; [`lint_input_schema`] checks the
//! rendered schema against these rules before anything is planned. Pure.

use super::{Host, Options, Surface};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::model::{Model, Param, SpecType, ToolModel};
use crate::plan::{Plan, PlannedFile};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `targets.mcp`: the `tools/list` definitions of a toolset.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub toolset: String,
    /// Where the default revision's file goes; other revisions get a suffix.
    #[serde(default = "default_path")]
    pub path: String,
}

fn default_path() -> String {
    "mcp/tools.json".to_string()
}

/// MCP protocol revisions this host can write; the `--profile` values of the command line
/// (`src/cli.rs` makes them clap's, with [`Profile::name`] and [`Profile::about`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Profile {
    V2025_11_25,
    V2026_07_28,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::V2025_11_25, Profile::V2026_07_28];

    /// What the revision is, for `--help`.
    pub fn about(self) -> &'static str {
        match self {
            Profile::V2025_11_25 => "Revision 2025-11-25, what the MCP SDK 1.32 speaks (the default)",
            Profile::V2026_07_28 => "Revision 2026-07-28 (`ttlMs`, `cacheScope`, `resultType` in the result)",
        }
    }

    /// The revision's date, as the protocol names it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::V2025_11_25 => "2025-11-25",
            Profile::V2026_07_28 => "2026-07-28",
        }
    }
}

pub struct Mcp;

impl Host for Mcp {
    type Settings = Settings;

    const NAME: &'static str = "mcp";
    const ABOUT: &'static str =
        "MCP `tools/list` definitions (`mcp/tools.json`; `--profile 2026-07-28` adds that revision's file)";

    fn check(&self, s: &Settings, cat: &Model, path: &str) -> Vec<Diagnostic> {
        super::check_toolset(cat, path, &s.toolset, "path", &s.path)
    }

    fn surfaces(&self, s: &Settings, cat: &Model) -> Vec<Surface> {
        Vec::from_iter(cat.toolsets.get(&s.toolset).map(|ts| Surface {
            key: "mcp",
            label: "MCP tools/list",
            session: "MCP client session (tools/list)",
            kind: super::SurfaceKind::Lists,
            toolset: s.toolset.clone(),
            namespace: "MCP tools/list",
            ids: ts.tools.iter().map(|t| (t.clone(), t.clone())).collect(),
        }))
    }

    fn plan<'m>(&self, s: &'m Settings, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        // Each revision is its own group, so writing one never prunes the other's file.
        // The file grows with the catalog: it is rendered when it is compared (and written),
        // not kept in the plan.
        for &profile in &opts.profiles {
            plan.groups.insert(group(profile));
            let (path, opts) = (profile_path(&s.path, profile), opts.clone());
            let write = move |w: &mut dyn std::io::Write| write_file(model, &s.toolset, &opts, profile, w);
            plan.files.push(PlannedFile::streamed(path, group(profile), write));
        }
        Ok(())
    }

    /// Every revision's file: a run without `--profile` keeps another revision's file while
    /// the catalog enables the target (it was asked for on its own), but not once it does not.
    fn retire(&self, plan: &mut Plan<'_>) {
        plan.groups.extend(Profile::ALL.map(group));
    }
}

/// A `tools/list` result.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    pub tools: Vec<McpTool>,
    /// 2026-07-28 only: how long a client may cache the list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
}

/// An MCP `Tool`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpTool {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub description: String,
    pub input_schema: InputSchema,
    /// The JSON Schema of the tool's `structuredContent`, when the catalog declares one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<serde_json::Value>,
    pub annotations: Annotations,
}

/// The root of an input schema.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputSchema {
    #[serde(rename = "type")]
    pub ty: &'static str,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub properties: IndexMap<String, PropSchema>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    pub additional_properties: bool,
}

/// One property of an input schema.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PropSchema {
    /// One type name, or `[name, "null"]` for a nullable parameter.
    #[serde(rename = "type")]
    pub ty: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<PropSchema>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<serde_json::Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<serde_json::Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
}

/// Tool annotations: all four hints are set explicitly, because their defaults (not
/// read-only, destructive, open-world) are the opposite of most tools.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub read_only_hint: bool,
    pub destructive_hint: bool,
    pub idempotent_hint: bool,
    pub open_world_hint: bool,
}

fn prop(ty: SpecType, values: Option<&Vec<String>>, description: Option<&String>) -> PropSchema {
    PropSchema {
        ty: match ty {
            SpecType::String | SpecType::Path | SpecType::Enum => "string",
            SpecType::Integer => "integer",
            SpecType::Number => "number",
            SpecType::Boolean => "boolean",
            SpecType::Array => "array",
        }
        .into(),
        description: description.cloned(),
        enum_values: if ty == SpecType::Enum { values.cloned() } else { None },
        ..PropSchema::default()
    }
}

fn property(q: Param<'_>) -> PropSchema {
    let mut s = prop(q.ty, q.values.as_ref(), q.doc.description.as_ref());
    s.title = q.doc.title.clone();
    match q.ty {
        // A clamped bound is the tool's own cap, not a rule on what the client may send: a
        // hard `minimum`/`maximum` would make MCP clients refuse values the tool accepts, so
        // the range is said in the description instead.
        SpecType::Integer | SpecType::Number if q.clamp && (q.min.is_some() || q.max.is_some()) => {
            let range = match (&q.min, &q.max) {
                (Some(a), Some(b)) => format!("clamped to {a}..{b}"),
                (Some(a), None) => format!("raised to at least {a}"),
                (None, Some(b)) => format!("capped at {b}"),
                (None, None) => unreachable!("guarded above"),
            };
            s.description = Some(match s.description.take() {
                Some(d) => format!("{} (values outside are {range})", d.trim_end_matches('.')),
                None => format!("Values outside are {range}"),
            });
        }
        SpecType::Integer | SpecType::Number => {
            s.minimum = q.min.clone();
            s.maximum = q.max.clone();
        }
        SpecType::String | SpecType::Path => {
            s.min_length = q.min_f64().map(|x| x as u64);
            s.max_length = q.max_f64().map(|x| x as u64);
            // A `path` gets no pattern: whether it stays inside the project depends on the
            // project's root, which a schema cannot know, and a pattern that refused absolute
            // paths would refuse ones the tool accepts. The runtime resolves and checks it.
            s.pattern = q.pattern.clone();
        }
        SpecType::Array => {
            s.min_items = q.min_f64().map(|x| x as u64);
            s.max_items = q.max_f64().map(|x| x as u64);
            // Validation guarantees items; a string item is the safe reading if it ever lacks them.
            s.items = Some(Box::new(match &q.items {
                Some(i) => prop(i.ty, i.values.as_ref(), q.doc.items_description.as_ref()),
                None => prop(SpecType::String, None, None),
            }));
        }
        SpecType::Boolean | SpecType::Enum => {}
    }
    s.default = q.default.as_deref().cloned();
    if q.nullable {
        s.ty = serde_json::json!([s.ty, "null"]);
    }
    s
}

/// The MCP definition of a tool.
pub fn tool(t: &ToolModel) -> McpTool {
    McpTool {
        name: t.name.clone(),
        title: t.title.clone(),
        description: t.description.clone(),
        input_schema: InputSchema {
            ty: "object",
            properties: t.params().map(|p| (p.name.clone(), property(p))).collect(),
            required: t.params().filter(|p| p.required).map(|p| p.name.clone()).collect(),
            additional_properties: false,
        },
        output_schema: t.output_schema.clone(),
        annotations: Annotations {
            title: t.title.clone(),
            read_only_hint: !t.is_write(),
            destructive_hint: t.destructive,
            idempotent_hint: t.idempotent,
            open_world_hint: t.open_world,
        },
    }
}

/// Checks a rendered input schema against what hosts accept; returns the problems.
pub fn lint_input_schema(schema: &serde_json::Value) -> Vec<String> {
    let mut problems = Vec::new();
    if schema.get("type").and_then(|t| t.as_str()) != Some("object") {
        problems.push(
            "the root of an inputSchema must be `type: object` (the MCP SDK client rejects the whole server otherwise)"
                .to_string(),
        );
    }
    for k in ["oneOf", "anyOf", "allOf"] {
        if schema.get(k).is_some() {
            problems.push(format!(
                "`{k}` at the root of an inputSchema (the Anthropic API refuses the tool)"
            ));
        }
    }
    if schema.get("properties").is_none() && schema.get("additionalProperties") != Some(&serde_json::Value::Bool(false))
    {
        problems
            .push("a tool without parameters must be {\"type\":\"object\",\"additionalProperties\":false}".to_string());
    }
    // The JSON pointer of a node is built only when it has a problem to name.
    fn walk<'v>(v: &'v serde_json::Value, path: &mut Vec<std::borrow::Cow<'v, str>>, problems: &mut Vec<String>) {
        let here = |path: &Vec<std::borrow::Cow<'v, str>>| format!("#/{}", path.join("/"));
        match v {
            serde_json::Value::Object(map) => {
                if map.contains_key("$schema") {
                    problems.push(format!("`$schema` at {} (Gemini rejects it)", here(path)));
                }
                if map.get("type").and_then(|t| t.as_str()) == Some("array") && !map.contains_key("items") {
                    problems.push(format!(
                        "array without `items` at {} (OpenAI and VS Code refuse it)",
                        here(path)
                    ));
                }
                for (k, child) in map {
                    path.push(std::borrow::Cow::Borrowed(k.as_str()));
                    walk(child, path, problems);
                    path.pop();
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    path.push(std::borrow::Cow::Owned(i.to_string()));
                    walk(child, path, problems);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    walk(schema, &mut Vec::new(), &mut problems);
    problems
}

/// The MCP definition of a tool, its input schema checked the way hosts will: a schema they
/// refuse is ixgen's bug (the catalog validated), not the user's.
fn checked_tool(t: &ToolModel) -> Result<McpTool, Error> {
    let tool = tool(t);
    let schema = serde_json::to_value(&tool.input_schema)
        .map_err(|e| Error::internal(format!("the inputSchema of `{}` does not serialize: {e}", t.name)))?;
    let problems = lint_input_schema(&schema);
    if !problems.is_empty() {
        return Err(Error::internal(format!(
            "the inputSchema of `{}` would be refused by hosts: {}",
            t.name,
            problems.join("; ")
        )));
    }
    Ok(tool)
}

/// A `tools/list` result without its tools: what a protocol revision adds around them.
fn result_head(profile: Profile) -> ListToolsResult {
    match profile {
        Profile::V2025_11_25 => ListToolsResult::default(),
        Profile::V2026_07_28 => ListToolsResult {
            tools: Vec::new(),
            // The list changes only with a release of the catalog: an hour of caching is safe,
            // and the list holds nothing user-specific.
            ttl_ms: Some(3_600_000),
            cache_scope: Some("public"),
            result_type: Some("complete"),
        },
    }
}

/// The `tools/list` result of a toolset for a protocol revision.
pub fn list_tools(model: &Model, toolset: &str, opts: &Options, profile: Profile) -> Result<ListToolsResult, Error> {
    let tools = model.toolset(toolset, &opts.filter).into_iter().map(checked_tool);
    Ok(ListToolsResult {
        tools: tools.collect::<Result<_, _>>()?,
        ..result_head(profile)
    })
}

/// Writes a toolset's `tools/list` file for a protocol revision to `w`: one tool per line
/// (`crate::escape::json_lines_to`), so a changed tool is one changed line in a diff and a
/// 10,000-tool file is not a third indentation. Tools are built, checked and printed one at a
/// time, and handed to `w` as they are printed: the file (7.5 MB for 10,000 tools) is never
/// whole in memory unless `w` keeps it.
pub fn write_file(
    model: &Model,
    toolset: &str,
    opts: &Options,
    profile: Profile,
    w: &mut dyn std::io::Write,
) -> Result<(), Error> {
    // The first tool that fails its check ends the list; the error is returned after it.
    let mut failed = None;
    let tools = model.toolset(toolset, &opts.filter);
    let value = |t: McpTool| {
        serde_json::to_value(&t)
            .map_err(|e| Error::internal(format!("the definition of `{}` does not serialize: {e}", t.name)))
    };
    let values = tools.iter().map_while(|t| match checked_tool(t).and_then(value) {
        Ok(v) => Some(v),
        Err(e) => {
            failed = Some(e);
            None
        }
    });
    crate::escape::json_lines_to(&result_head(profile), "tools", values.map(|v| (None, v)), w)
        .map_err(|e| Error::internal(format!("a typed file does not serialize: {e}")))?;
    failed.map_or(Ok(()), Err)
}

/// The manifest group of a revision's file.
pub fn group(profile: Profile) -> &'static str {
    match profile {
        Profile::V2025_11_25 => "mcp",
        Profile::V2026_07_28 => "mcp-2026-07-28",
    }
}

/// `mcp/tools.json` for the default revision; `mcp/tools.2026-07-28.json` for another.
pub fn profile_path(path: &str, profile: Profile) -> String {
    match profile {
        Profile::V2025_11_25 => path.to_string(),
        Profile::V2026_07_28 => match path.strip_suffix(".json") {
            Some(stem) => format!("{stem}.2026-07-28.json"),
            None => format!("{path}.2026-07-28"),
        },
    }
}
