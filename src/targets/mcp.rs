//! MCP: the `tools/list` result of the server's toolset, as typed structs serialized by
//! serde_json (never a template).
//!
//! Naming rules: tool names are the catalog's (`^[a-z0-9_-]+$`, validated). Each input schema
//! is JSON Schema 2020-12 without `$schema`, its root is `type: object`, a tool without
//! parameters is `{"type":"object","additionalProperties":false}`, arrays always carry
//! `items`, and the root never has `oneOf`/`anyOf`/`allOf`; [`lint_input_schema`] checks the
//! rendered schema against these rules before anything is planned. Pure.

use super::{McpProfile, Options};
use crate::catalog::ParamType;
use crate::error::Error;
use crate::model::{Model, ParamModel, ToolModel, json_number};
use crate::output::PlannedFile;
use indexmap::IndexMap;
use serde::Serialize;

/// A `tools/list` result.
#[derive(Debug, Serialize)]
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
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PropSchema {
    #[serde(rename = "type")]
    pub ty: &'static str,
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

fn prop(ty: ParamType, values: Option<&Vec<String>>, description: Option<&String>) -> PropSchema {
    PropSchema {
        ty: match ty {
            ParamType::String | ParamType::Path | ParamType::Enum => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Array => "array",
        },
        description: description.cloned(),
        enum_values: if ty == ParamType::Enum { values.cloned() } else { None },
        items: None,
        minimum: None,
        maximum: None,
        min_length: None,
        max_length: None,
        min_items: None,
        max_items: None,
        pattern: None,
        default: None,
    }
}

fn property(p: &ParamModel) -> PropSchema {
    let q = &p.param;
    let mut s = prop(q.ty, q.values.as_ref(), q.description.as_ref());
    match q.ty {
        ParamType::Integer | ParamType::Number => {
            s.minimum = q.min.map(json_number);
            s.maximum = q.max.map(json_number);
        }
        ParamType::String | ParamType::Path => {
            s.min_length = q.min.map(|x| x as u64);
            s.max_length = q.max.map(|x| x as u64);
            s.pattern = q.pattern.clone();
        }
        ParamType::Array => {
            s.min_items = q.min.map(|x| x as u64);
            s.max_items = q.max.map(|x| x as u64);
            // Validation guarantees items; a string item is the safe reading if it ever lacks them.
            s.items = Some(Box::new(match &q.items {
                Some(i) => prop(i.ty, i.values.as_ref(), i.description.as_ref()),
                None => prop(ParamType::String, None, None),
            }));
        }
        ParamType::Boolean | ParamType::Enum => {}
    }
    s.default = q.default.clone();
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
            properties: t.params.iter().map(|p| (p.name.clone(), property(p))).collect(),
            required: t
                .params
                .iter()
                .filter(|p| p.param.required)
                .map(|p| p.name.clone())
                .collect(),
            additional_properties: false,
        },
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

/// The `tools/list` result of a toolset for a protocol revision.
pub fn list_tools(model: &Model, toolset: &str, opts: &Options, profile: McpProfile) -> Result<ListToolsResult, Error> {
    let tools: Vec<McpTool> = model.toolset(toolset, &opts.filter).into_iter().map(tool).collect();
    for t in &tools {
        let schema = serde_json::to_value(&t.input_schema).expect("serializes");
        let problems = lint_input_schema(&schema);
        if !problems.is_empty() {
            return Err(Error::usage(
                format!(
                    "the inputSchema of `{}` would be refused by hosts: {}",
                    t.name,
                    problems.join("; ")
                ),
                "report this as an ixgen bug: the catalog validated",
            ));
        }
    }
    Ok(match profile {
        McpProfile::V2025_11_25 => ListToolsResult {
            tools,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
        },
        McpProfile::V2026_07_28 => ListToolsResult {
            tools,
            // The list changes only with a release of the catalog: an hour of caching is safe,
            // and the list holds nothing user-specific.
            ttl_ms: Some(3_600_000),
            cache_scope: Some("public"),
            result_type: Some("complete"),
        },
    })
}

/// The MCP target: one file per requested profile.
pub fn plan(model: &Model, opts: &Options, files: &mut Vec<PlannedFile<'_>>) -> Result<(), Error> {
    let Some(target) = &model.catalog.targets.mcp else {
        return Ok(());
    };
    for &profile in &opts.profiles {
        let result = list_tools(model, &target.toolset, opts, profile)?;
        let mut bytes = serde_json::to_vec_pretty(&result).expect("serializes");
        bytes.push(b'\n');
        files.push(PlannedFile::owned(
            profile_path(&target.path, profile),
            group(profile),
            bytes,
        ));
    }
    Ok(())
}

/// The manifest group of a revision's file.
pub fn group(profile: McpProfile) -> &'static str {
    match profile {
        McpProfile::V2025_11_25 => "mcp",
        McpProfile::V2026_07_28 => "mcp-2026-07-28",
    }
}

/// `mcp/tools.json` for the default revision; `mcp/tools.2026-07-28.json` for another.
pub fn profile_path(path: &str, profile: McpProfile) -> String {
    match profile {
        McpProfile::V2025_11_25 => path.to_string(),
        McpProfile::V2026_07_28 => match path.strip_suffix(".json") {
            Some(stem) => format!("{stem}.2026-07-28.json"),
            None => format!("{path}.2026-07-28"),
        },
    }
}
