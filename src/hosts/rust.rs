//! Rust: a module of [rig](https://github.com/0xPlaygrounds/rig) tools (rig-core 0.37, the
//! `Tool` trait git-iris implements by hand, seed 002), one per tool of a toolset.
//!
//! For each tool the module has an `Args` struct (typed fields, doc comments from the
//! descriptions, `enum` parameters as Rust enums) and a `…Tool` struct implementing
//! `rig::tool::Tool`: its `NAME` is the tool's name, `definition()` gives the MCP definition's
//! description and `inputSchema` (the text of [`mcp::tool`], so an agent sees the same schema
//! through rig as through MCP), and `call()` runs the tool's execution spec with the shared
//! Rust runtime (`ixgen_runtime::run_tool`, as `ixgen serve` does). `toolset()` registers them
//! all in a rig `ToolSet`; the filters (read-only, allow, block, tier) choose the tools here, at
//! generation, with the one [`Filter`](crate::model::Filter) every target uses.
//!
//! The specs are embedded as their JSON text and read once, at first use: the runtime's spec
//! types are serde types made to be read from that text (`generated/schema/exec-spec.schema.json`,
//! the same JSON the OpenCode tools embed), where Rust data would need every spec type to be
//! constructible from outside its crate, and would be several times longer to read.
//!
//! `Args` reads its arguments with the runtime's own reading (`ixgen_runtime::check_args`):
//! defaults, coercion, bounds, patterns and the catalog's rules, so that invalid arguments are
//! refused with the text every other runtime gives, and the typed fields hold the values the
//! steps will see. Its JSON Schema (`schemars::JsonSchema`) is the MCP `inputSchema` too.
//!
//! Catalog text reaches the source only through `crate::escape` (`Rs`): string literals, doc
//! attributes and names made of a name's ASCII words, told apart with a numeric suffix.

use super::{Host, Options, Surface, SurfaceKind};
use crate::diagnostic::{Diagnostic, Report};
use crate::error::Error;
use crate::escape::{
    RS_RESERVED, Rs, md_code, md_line, rs_camel, rs_comment, rs_doc_code, rs_json, rs_snake, rs_str, rs_suffixed,
};
use crate::model::{Model, Param, SpecType, ToolModel};
use crate::plan::{Plan, PlannedFile};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::HashSet;
use std::fmt::Write as _;

use super::mcp;

/// `targets.rust`: a Rust module of rig tools.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The toolset the module holds.
    pub toolset: String,
    /// Where to write the module (one `.rs` file, for `mod` or `#[path]`), relative to the
    /// output folder.
    #[serde(default = "default_path")]
    pub path: String,
    /// The name under which the crate that includes the module depends on rig-core: `rig`
    /// (the default) for `rig = { package = "rig-core", … }`, as git-iris has it, or
    /// `rig_core`.
    #[serde(default = "default_rig_crate")]
    pub rig_crate: String,
}

fn default_path() -> String {
    "rust/tools.rs".to_string()
}

fn default_rig_crate() -> String {
    "rig".to_string()
}

pub struct Rust;

impl Host for Rust {
    type Settings = Settings;

    const NAME: &'static str = "rust";
    const ABOUT: &'static str = "a Rust module of rig tools (`rig::tool::Tool`, typed `Args`, a `ToolSet`) that run the tools with the Rust runtime";

    fn check(&self, s: &Settings, cat: &Model, path: &str) -> Vec<Diagnostic> {
        let mut diags = super::check_toolset(cat, path, &s.toolset, "path", &s.path);
        if !s.path.ends_with(".rs") {
            diags.err(
                "bad-path",
                format!("{path}.path"),
                format!("`{}` is not a Rust source file", s.path),
                "name a file ending in `.rs`, e.g. `src/tools.rs`",
            );
        }
        if !is_crate_name(&s.rig_crate) {
            let help = if s.rig_crate.contains('-') {
                format!(
                    "Rust code names a crate with `_` for `-`: `{}` (or `rig`, with `rig = {{ package = \"rig-core\", … }}` in Cargo.toml)",
                    s.rig_crate.replace('-', "_")
                )
            } else {
                "the name Rust code gives the rig-core dependency: `rig` (with `rig = { package = \"rig-core\", … }` in Cargo.toml) or `rig_core`".to_string()
            };
            let message = format!("`{}` is not a crate name Rust code can use", s.rig_crate);
            diags.err("bad-target", format!("{path}.rig_crate"), message, help);
        }
        diags
    }

    fn surfaces(&self, s: &Settings, cat: &Model) -> Vec<Surface> {
        Vec::from_iter(cat.toolsets.get(&s.toolset).map(|ts| Surface {
            key: "rust",
            label: "rig (Rust)",
            session: "rig agent (tool definitions)",
            kind: SurfaceKind::Runs,
            toolset: s.toolset.clone(),
            namespace: "rig ToolSet",
            ids: ts.tools.iter().map(|t| (t.clone(), t.clone())).collect(),
        }))
    }

    fn plan<'m>(&self, s: &'m Settings, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        plan.groups.insert(Self::NAME);
        // Rendered when it is compared (and written), a tool at a time, as `mcp/tools.json`:
        // the module grows with the catalog.
        let (path, opts) = (s.path.clone(), opts.clone());
        plan.files.push(PlannedFile::streamed(path, Self::NAME, move |w| {
            write_module(model, s, &opts, w)
        }));
        Ok(())
    }
}

/// A crate name: Rust identifier segments (`rig`, `rig_core`, `my::rig`).
fn is_crate_name(s: &str) -> bool {
    // Rust's own rules, not TypeScript's `Ident` (which happens to match them today).
    s.split("::").all(|seg| {
        seg.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && seg != "_"
            && !RS_RESERVED.contains(&seg)
    })
}

/// Names already given in one namespace of the module; a name made alike gets a suffix.
struct Names(HashSet<String>);

impl Names {
    /// `taken`: names separated by spaces.
    fn new(taken: &str) -> Names {
        Names(taken.split_whitespace().map(str::to_string).collect())
    }

    fn take(&mut self, base: Rs, camel: bool) -> Rs {
        let suffixed = (2..).map(|n| rs_suffixed(&base, n, camel));
        let mut names = std::iter::once(base.clone()).chain(suffixed);
        names
            .find(|name| self.0.insert(name.to_string()))
            .expect("the suffixes never run out")
    }
}

/// Type names the module must not shadow (the prelude's, and its own items'), separated by spaces.
const TAKEN_TYPES: &str = "Env AskHook ToolFailed CancelOnDrop ExecSpec SpecShared Arc LazyLock Option Some None Result Ok Err String Vec Box \
    Default Clone Copy Send Sync Sized Fn FnMut FnOnce Drop Iterator IntoIterator ToString ToOwned From Into \
    TryFrom TryInto PartialEq Eq PartialOrd Ord Debug Hash AsRef AsMut Extend Unpin Future IntoFuture";

/// One parameter as a field of its tool's `Args`.
struct Field<'m> {
    name: Rs,
    param: Param<'m>,
    /// The field's Rust type (an `Option` when it is optional).
    ty: String,
    optional: bool,
}

/// A tool with the names of its types and fields, ready to be written.
struct Named<'m> {
    t: &'m ToolModel,
    tool_ty: Rs,
    args_ty: Rs,
    fields: Vec<Field<'m>>,
    /// The text of the enums of its parameters' values.
    enums: String,
}

/// Writes the module's text to `w`, a chunk of tools at a time.
fn write_module(model: &Model, s: &Settings, opts: &Options, w: &mut dyn std::io::Write) -> Result<(), Error> {
    let flush = |out: &mut String, w: &mut dyn std::io::Write| -> Result<(), Error> {
        w.write_all(out.as_bytes())
            .map_err(|e| Error::internal(format!("the Rust module could not be written: {e}")))?;
        out.clear();
        Ok(())
    };
    let tools = model.toolset(&s.toolset, &opts.filter);
    let rig = &s.rig_crate;
    let mut types = Names::new(TAKEN_TYPES);
    let mut out = String::new();
    // The marker line first, so `ixgen` knows the file as its own.
    let header = rs_comment(&format!(
        "{} Do not edit: run `ixgen generate rust`.",
        super::header(model)
    ));
    let doc = rs_str(&format!(
        "The tools of {} as rig tools (toolset `{}`): each tool's typed `Args`, its `rig::tool::Tool`, and `toolset()`.",
        model.product.name, s.toolset
    ));
    let shared = rs_json(&model.shared);
    let _ = write!(
        out,
        "// {header}
#![doc = {doc}]

{PRELUDE}
/// The catalog's shared settings, which fill in what a spec leaves out.
const SHARED: &str = {shared};
"
    );

    // What `TOOL_NAMES`, `SPECS` and `toolset()` list, a line a tool.
    let (mut names, mut specs, mut builder) = (String::new(), String::new(), String::new());
    // Each tool's names first, in order (a name taken decides the suffix of the next one like
    // it); then the tools' text, which is most of the work, on every core.
    let mut named = Vec::with_capacity(tools.len());
    for t in &tools {
        let base = rs_camel(&t.name, "T");
        let tool_ty = types.take(base.concat("Tool"), true);
        let args_ty = types.take(base.concat("Args"), true);
        // Fields, and the text of the enums of their values.
        let mut fields_names = Names::new("");
        let mut enums = String::new();
        let mut fields = Vec::new();
        for q in t.params() {
            // An enum of its own for the values of the parameter, or of its items (`of`).
            let mut new_enum = |suffix: &str, of: &str, values: &Option<Vec<String>>| {
                let name = types.take(base.concat(&format!("{}{suffix}", rs_camel(&q.name, "P"))), true);
                let doc = format!("The values of {of}`{}` of `{}`.", q.name, t.name);
                let _ = write!(
                    enums,
                    "
#[doc = {}]
#[allow(clippy::enum_variant_names, clippy::upper_case_acronyms)] // the catalog's values name them
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum {name} {{
",
                    rs_str(&doc)
                );
                let mut variants = Names::new("");
                for v in values.iter().flatten() {
                    let variant = variants.take(rs_camel(v, "V"), true);
                    let (doc, rename) = (rs_doc_code(v), rs_str(v));
                    let _ = write!(
                        enums,
                        "    #[doc = {doc}]\n    #[serde(rename = {rename})]\n    {variant},\n"
                    );
                }
                enums.push_str("}\n");
                name.to_string()
            };
            let ty = match q.ty {
                SpecType::Enum => new_enum("", "", &q.values),
                SpecType::Array => match &q.items {
                    Some(i) if i.ty == SpecType::Enum => {
                        format!("Vec<{}>", new_enum("Item", "the items of ", &i.values))
                    }
                    Some(i) => format!("Vec<{}>", scalar(i.ty)),
                    None => "Vec<String>".into(),
                },
                other => scalar(other).to_string(),
            };
            let optional = !q.required && q.default.as_ref().is_none_or(|d| d.is_null());
            fields.push(Field {
                name: fields_names.take(rs_snake(&q.name, "p"), false),
                param: q,
                ty: if optional { format!("Option<{ty}>") } else { ty },
                optional,
            });
        }
        let _ = writeln!(names, "    {},", rs_str(&t.name));
        let _ = writeln!(specs, "    ({}, {tool_ty}::SPEC),", rs_str(&t.name));
        let _ = writeln!(builder, "    set.add_tool({tool_ty} {{ env: env.clone() }});");
        named.push(Named {
            t,
            tool_ty,
            args_ty,
            fields,
            enums,
        });
    }
    flush(&mut out, w)?;
    // A chunk at a time, so that a large toolset's text is never whole in memory.
    for chunk in named.chunks(512) {
        let texts = crate::par::map(chunk, |n| {
            let mut text = String::new();
            write_tool(&mut text, n, rig).map(|()| text)
        });
        for text in texts {
            out = text?;
            flush(&mut out, w)?;
        }
    }

    let doc = format!(
        "Every tool of the toolset `{}`{} in a rig `ToolSet`, each running in `env`.",
        s.toolset,
        describe_filter(&opts.filter)
    );
    // One statement a tool, not one chain of calls: rustc reads a chain recursively, and one of
    // thousands of calls overflows its stack.
    let body = if tools.is_empty() {
        format!("    let _ = env;\n    {rig}::tool::ToolSet::default()\n")
    } else {
        format!("    let mut set = {rig}::tool::ToolSet::default();\n{builder}    set\n")
    };
    let doc = rs_str(&doc);
    let _ = write!(
        out,
        "
/// The names of the tools [`toolset`] registers, in the catalog's order.
pub const TOOL_NAMES: &[&str] = &[
{names}];

/// Each tool's name and the execution spec its `call` runs (JSON), in the catalog's order.
pub const SPECS: &[(&str, &str)] = &[
{specs}];

#[doc = {doc}]
pub fn toolset(env: &Env) -> {rig}::tool::ToolSet {{
{body}}}
"
    );
    flush(&mut out, w)
}

/// The Rust type of a parameter or item type that is not an enum (an array item that is an
/// array, which the catalog does not declare, would be any JSON).
fn scalar(ty: SpecType) -> &'static str {
    match ty {
        SpecType::String | SpecType::Path => "String",
        SpecType::Integer => "i64",
        SpecType::Number => "f64",
        SpecType::Boolean => "bool",
        SpecType::Array | SpecType::Enum => "serde_json::Value",
    }
}

/// The filters that chose the tools, for the doc of `toolset()`.
fn describe_filter(f: &crate::model::Filter) -> String {
    let lists = [("only", &f.enable), ("without", &f.disable)];
    let list = lists.into_iter().find(|(_, l)| !l.is_empty());
    let parts: Vec<String> = (f.read_only.then(|| "read-only tools only".to_string()))
        .into_iter()
        .chain(list.map(|(word, l)| format!("{word} {}", l.join(", "))))
        .chain(f.tier.as_ref().map(|t| format!("tier {t}")))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

/// A field's doc: the description on one line, as Markdown text (rustdoc and clippy's doc lints
/// read a doc as Markdown: a description's lines would be a list's lazy continuation, its `[^1]` a
/// footnote reference, its `[x]: url` a link definition), then its default as code.
fn field_doc(q: Param<'_>) -> String {
    let mut doc = md_line(q.doc.description.as_deref().unwrap_or("")).as_str().to_string();
    if let Some(d) = q.default.as_deref().filter(|d| !d.is_null()) {
        if !doc.is_empty() {
            // A sentence of its own after the description.
            if !doc.ends_with(['.', '!', '?', ':', ';']) {
                doc.push('.');
            }
            doc.push(' ');
        }
        doc.push_str(&format!("Default: {}.", md_code(&d.to_string())));
    }
    doc
}

fn write_tool(out: &mut String, n: &Named<'_>, rig: &str) -> Result<(), Error> {
    let Named {
        t,
        tool_ty,
        args_ty,
        fields,
        enums,
    } = n;
    let schema = serde_json::to_value(&mcp::tool(t).input_schema)
        .map_err(|e| Error::internal(format!("the inputSchema of `{}` does not serialize: {e}", t.name)))?;
    // The `Args` struct's fields, and how `deserialize` reads them.
    let mut members = String::new();
    for f in fields {
        let doc = field_doc(f.param);
        if !doc.is_empty() {
            let _ = writeln!(members, "    #[doc = {}]", rs_str(&doc));
        }
        if f.name.as_str() != f.param.name {
            let _ = writeln!(members, "    #[serde(rename = {})]", rs_str(&f.param.name));
        }
        if f.optional {
            members.push_str("    #[serde(skip_serializing_if = \"Option::is_none\")]\n");
        }
        let _ = writeln!(members, "    pub {}: {},", f.name, f.ty);
    }
    let read = if fields.is_empty() {
        format!("        read_args::<D>({tool_ty}::spec(), deserializer)?;\n        Ok({args_ty} {{}})\n")
    } else {
        let mut read = format!(
            "        let spec = {tool_ty}::spec();\n        let mut given = read_args::<D>(spec, deserializer)?;\n        Ok({args_ty} {{\n"
        );
        for f in fields {
            let name = rs_str(&f.param.name);
            let _ = writeln!(
                read,
                "            {}: field::<_, D::Error>(spec, &mut given, {name})?,",
                f.name
            );
        }
        read + "        })\n"
    };
    let (comment, name) = (rs_comment(&format!("---- {} ----", t.name)), rs_str(&t.name));
    let (doc, description) = (rs_str(md_line(&t.description).as_str()), rs_str(&t.description));
    let (schema, spec, schema_name) = (rs_json(&schema), rs_json(&t.spec), rs_str(args_ty.as_str()));
    let args_doc = rs_str(&format!(
        "The arguments of `{}`, read as the runtime reads them (`Deserialize`: defaults, bounds, patterns, the catalog's rules).",
        t.name
    ));
    let _ = write!(
        out,
        "
// {comment}

#[doc = {doc}]
#[derive(Clone, Default)]
pub struct {tool_ty} {{
    /// Where the tool runs, and how it asks before it runs when it must.
    pub env: Env,
}}

impl {tool_ty} {{
    /// The tool's description (MCP `description`).
    pub const DESCRIPTION: &str = {description};
    /// The JSON Schema of its arguments: the MCP `inputSchema`.
    pub const INPUT_SCHEMA: &str = {schema};
    /// What `call` runs: the tool's execution spec (ixgen's docs/exec-spec.md).
    pub const SPEC: &str = {spec};

    fn spec() -> &'static ExecSpec {{
        static SPEC: LazyLock<ExecSpec> = LazyLock::new(|| read_spec({tool_ty}::SPEC));
        &SPEC
    }}
}}
{enums}
#[doc = {args_doc}]
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct {args_ty} {{
{members}}}

impl<'de> serde::Deserialize<'de> for {args_ty} {{
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{
{read}    }}
}}

impl schemars::JsonSchema for {args_ty} {{
    fn schema_name() -> std::borrow::Cow<'static, str> {{
        {schema_name}.into()
    }}

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {{
        read_schema({tool_ty}::INPUT_SCHEMA)
    }}
}}

impl {rig}::tool::Tool for {tool_ty} {{
    const NAME: &'static str = {name};
    type Error = ToolFailed;
    type Args = {args_ty};
    type Output = String;

    async fn definition(&self, _prompt: String) -> {rig}::completion::ToolDefinition {{
        {rig}::completion::ToolDefinition {{
            name: Self::NAME.to_string(),
            description: Self::DESCRIPTION.to_string(),
            parameters: read_json(Self::INPUT_SCHEMA),
        }}
    }}

    async fn call(&self, args: Self::Args) -> Result<Self::Output, Self::Error> {{
        run(Self::spec(), &args, &self.env).await
    }}
}}
"
    );
    Ok(())
}

/// What every module holds, whatever its tools: the imports, `Env`, `ToolFailed` and the
/// helpers the tools share. Fixed text, kept with the other hosts' templates (it is compiled
/// only as part of a generated module).
const PRELUDE: &str = include_str!("../../templates/rust/prelude.rs");
