//! OpenCode: one custom tool file per product tool, the session tools file with the run's
//! context baked in, and the MCP server merged into `opencode.json`.
//!
//! OpenCode 1.18 does not parse arguments through zod and crashes on a non-string result, so
//! every file carries the interpreter (`templates/opencode/runtime.ts`) that applies defaults,
//! bounds and validation and always returns a string. Naming rules: a file's default export
//! is named after the file, so file names are `[a-z0-9_]`; a named export `x` of `f.ts`
//! becomes `f_x`. Pure: returns planned files, touches no disk.

use super::{Options, header_text, server_args};
use crate::catalog::{ContextType, ParamType};
use crate::error::Error;
use crate::escape::{Ident, Ts, ts_int, ts_json, ts_num, ts_str};
use crate::model::{self, ContextValue, Model, ParamModel, ToolModel};
use crate::output::PlannedFile;
use askama::Template;

/// The interpreter every generated tool file carries.
pub const RUNTIME: &str = include_str!("../../templates/opencode/runtime.ts");

#[derive(Template)]
#[template(path = "opencode/tool.ts", escape = "none")]
struct ToolFile<'a> {
    header: Ts,
    command: Ts,
    runtime: &'a str,
    constants: Vec<Constant>,
    tools: Vec<ToolEntry>,
}

struct Constant {
    key: Ts,
    name: Ident,
    value: Ts,
}

struct ToolEntry {
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
fn zod(p: &ParamModel) -> Ts {
    let q = &p.param;
    let base = |ty: ParamType, values: Option<&Vec<String>>| -> Ts {
        match ty {
            ParamType::String | ParamType::Path => Ts::code("tool.schema.string()"),
            ParamType::Integer => Ts::code("tool.schema.number()").call("int", &[]),
            ParamType::Number => Ts::code("tool.schema.number()"),
            ParamType::Boolean => Ts::code("tool.schema.boolean()"),
            ParamType::Enum => {
                let vals: Vec<Ts> = values
                    .map(|v| v.iter().map(|s| ts_str(s)).collect())
                    .unwrap_or_default();
                Ts::code("tool.schema").call("enum", &[Ts::array(&vals)])
            }
            ParamType::Array => Ts::code("tool.schema.array(tool.schema.string())"),
        }
    };
    let mut s = match (q.ty, &q.items) {
        (ParamType::Array, Some(items)) => {
            let mut inner = base(items.ty, items.values.as_ref());
            if let Some(d) = &items.description {
                inner = inner.call("describe", &[ts_str(d)]);
            }
            Ts::code("tool.schema").call("array", &[inner])
        }
        _ => base(q.ty, q.values.as_ref()),
    };
    if let Some(min) = q.min {
        s = s.call("min", &[ts_num(min)]);
    }
    if let Some(max) = q.max {
        s = s.call("max", &[ts_num(max)]);
    }
    match (&q.default, q.required) {
        (Some(d), _) => s = s.call("default", &[ts_json(d)]),
        (None, false) => s = s.call("optional", &[]),
        (None, true) => {}
    }
    if let Some(d) = &q.description {
        s = s.call("describe", &[ts_str(d)]);
    }
    s
}

fn entry(t: &ToolModel, export: Option<&str>) -> ToolEntry {
    let id = model::opencode_id(&t.name);
    ToolEntry {
        spec_name: Ident::new(&format!("SPEC_{id}")).expect("tool ids are identifiers"),
        spec: ts_json(&t.spec),
        export: export.map(|e| Ident::export_name(e).expect("tool ids are export names")),
        local: Ident::new(&format!("tool_{id}")).expect("tool ids are identifiers"),
        description: ts_str(&t.description),
        args: t
            .params
            .iter()
            .map(|p| ArgEntry {
                key: ts_str(&p.name),
                schema: zod(p),
            })
            .collect(),
    }
}

fn render(file: ToolFile) -> Vec<u8> {
    // Sized for the interpreter plus the tool: growing a 35 KB string from askama's small size
    // hint would copy it half a dozen times.
    let mut text = String::with_capacity(file.runtime.len() + 16 * 1024);
    file.render_into(&mut text)
        .expect("templates render from validated models");
    text.push('\n');
    text.into_bytes()
}

/// The product's tool files, one per tool of the target's toolset.
pub fn plan<'m>(model: &'m Model, opts: &Options, files: &mut Vec<PlannedFile<'m>>) -> Result<(), Error> {
    let Some(target) = &model.catalog.targets.opencode else {
        return Ok(());
    };
    let toolset = opts.toolset.as_deref().unwrap_or(&target.toolset);
    if !model.catalog.toolsets.contains_key(toolset) {
        return Err(super::unknown_toolset(model, toolset));
    }
    // Rendered when compared, so a large catalog never holds all its files at once.
    for t in model.toolset(toolset, &opts.filter) {
        files.push(PlannedFile::deferred(
            format!(
                "{}/{}.ts",
                target.dir.trim_end_matches('/'),
                model::opencode_id(&t.name)
            ),
            "opencode",
            move || {
                render(ToolFile {
                    header: header_text(model),
                    command: Ts::code("ixgen opencode"),
                    runtime: RUNTIME,
                    constants: Vec::new(),
                    tools: vec![entry(t, None)],
                })
            },
        ));
    }
    if let (Some(config), Some(server)) = (&target.config, &model.catalog.server) {
        let mut command = vec![server.command.clone()];
        command.extend(server_args(model, &opts.filter));
        let value = serde_json::to_value(OpencodeMcp {
            kind: "local",
            command,
            environment: server.env.clone(),
            enabled: true,
        })
        .expect("serializes");
        let mut skeleton = serde_json::Map::new();
        skeleton.insert("$schema".into(), "https://opencode.ai/config.json".into());
        files.push(PlannedFile::merged(
            config.clone(),
            "opencode",
            &["mcp", &server.name],
            value,
            skeleton,
        ));
    }
    Ok(())
}

/// An MCP server in `opencode.json`: `command` is one array, program first.
#[derive(serde::Serialize)]
struct OpencodeMcp {
    #[serde(rename = "type")]
    kind: &'static str,
    command: Vec<String>,
    environment: indexmap::IndexMap<String, String>,
    enabled: bool,
}

/// The session tools file, written only when the run's context is given.
pub fn plan_session(model: &Model, opts: &Options, files: &mut Vec<PlannedFile<'_>>) -> Result<(), Error> {
    let Some(target) = &model.catalog.targets.session else {
        return Ok(());
    };
    // Defaults are already filled in: what is missing has none.
    let missing: Vec<String> = target
        .context
        .iter()
        .filter(|c| !opts.context.contains_key(*c))
        .map(|c| format!("--{c}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::usage(
            format!("the session tools need {}", missing.join(", ")),
            "pass them (or no context at all, to write only the product's tools)",
        ));
    }
    let constants = model
        .catalog
        .context
        .iter()
        .filter_map(|(name, decl)| {
            let value = opts.context.get(name)?;
            let ts = match (value, decl.ty) {
                (ContextValue::Integer(n), _) => ts_int(*n),
                (ContextValue::Text(s), ContextType::String | ContextType::Path) => ts_str(s),
                (ContextValue::Text(s), ContextType::Integer) => ts_str(s),
            };
            Some(Constant {
                key: ts_str(name),
                name: Ident::new(&model::constant_name(name, decl)).expect("validated constant name"),
                value: ts,
            })
        })
        .collect();
    let tools = model
        .toolset(&target.toolset, &opts.filter)
        .into_iter()
        .map(|t| entry(t, Some(&model::opencode_id(&t.name))))
        .collect();
    let file = ToolFile {
        header: header_text(model),
        command: Ts::code("ixgen opencode --session …"),
        runtime: RUNTIME,
        constants,
        tools,
    };
    files.push(
        PlannedFile::owned(
            format!("{}/{}.ts", target.dir.trim_end_matches('/'), target.file),
            "session",
            render(file),
        )
        .per_run()
        .foreign(target.replaces.clone()),
    );
    Ok(())
}
