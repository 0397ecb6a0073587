//! The normalized model the targets render: defaults resolved, templates parsed, per-host ids
//! computed, filters applied. Built by one lowering pass ([`lower`]) that checks each catalog
//! node and returns its IR node; knows nothing about files.
//!
//! Each tool's [`ExecSpec`] (see `crate::spec`) is what every runtime executes.

use crate::catalog::{self, ParamType};
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::error::Error;
use indexmap::IndexMap;
use serde::Serialize;

pub use crate::spec::*;

mod meta;

pub use meta::*;

/// The catalog, ready to render.
#[derive(Debug)]
pub struct Model {
    pub product: Product,
    pub server: Option<Server>,
    pub toolsets: IndexMap<String, Toolset>,
    pub context: ContextDecls,
    /// The catalog's `filters`: what every host gets when a run gives none.
    pub filters: Filter,
    pub lint: Lint,
    /// Each enabled host's settings, by host name, in the catalog's order.
    pub targets: IndexMap<String, Target>,
    /// File name of the catalog, for generated headers (never a full path).
    pub source_name: String,
    /// Every tool, in catalog order.
    pub tools: Vec<ToolModel>,
    /// What every tool's spec shares, for the hosts that write it once per catalog.
    pub shared: crate::spec::SpecShared,
    /// Tool name → index in `tools`.
    by_name: std::collections::HashMap<String, usize>,
}

/// A tool, resolved.
#[derive(Debug, Clone)]
pub struct ToolModel {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub tier: String,
    pub access: Access,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    pub confirm: bool,
    /// What the hosts show of each parameter of `spec.params` (the tool's own in declaration
    /// order, then the shared ones in its `use_params` order), in the same order. Read both through
    /// [`ToolModel::params`].
    pub param_docs: Vec<ParamDoc>,
    pub spec: ExecSpec,
    /// Where the tool is in the catalog (`tools[3]`), so a later stage can locate an error in
    /// it or in its parameters ([`Param::path`]).
    pub path: String,
    /// The name the tool had before (`ixgen diff` matches it to the old catalog's tool).
    pub renamed_from: Option<String>,
    /// The JSON Schema of the tool's structured result (MCP `outputSchema`).
    pub output_schema: Option<serde_json::Value>,
    /// The id of the step whose data is the tool's structured result, the value `output_schema`
    /// describes (MCP `structuredContent`): set exactly when `output_schema` is.
    pub structured_step: Option<String>,
    /// Why no catalog can run the tool (the catalog's `unsupported`, trimmed): no target and
    /// no `ixgen serve` gets it; `ixgen list` shows it with this reason.
    pub unsupported: Option<String>,
}

/// What a parameter's spec entry (`ToolModel::spec.params`) lacks: what the hosts show and
/// `ixgen diff` reads, never what a runtime needs. The runtime facts (type, bounds, default,
/// ...) live in the spec only, once; [`ToolModel::params`] reads the two together.
#[derive(Debug, Clone)]
pub struct ParamDoc {
    pub title: Option<String>,
    pub description: Option<String>,
    /// The description of an array's items.
    pub items_description: Option<String>,
    /// The name the parameter had before (`ixgen diff` reads it).
    pub renamed_from: Option<String>,
    /// Declared in the catalog's top-level `params` (a shared parameter the tool uses) rather
    /// than in the tool's own: [`Param::path`] derives the declaration's path from it.
    pub shared: bool,
}

impl ParamDoc {
    /// What a catalog parameter says beyond its spec entry; `shared` as [`ParamDoc::shared`].
    pub fn new(p: catalog::Param, shared: bool) -> ParamDoc {
        ParamDoc {
            title: p.title,
            description: p.description,
            items_description: p.items.and_then(|i| i.description),
            renamed_from: p.renamed_from,
            shared,
        }
    }
}

/// A parameter of a tool: its spec entry (what the runtimes execute, also read through
/// `Deref`: `p.name`, `p.ty`, `p.required`) and what the hosts show.
#[derive(Debug, Clone, Copy)]
pub struct Param<'a> {
    pub spec: &'a SpecParam,
    pub doc: &'a ParamDoc,
    /// The tool's catalog path (`tools[3]`).
    tool_path: &'a str,
}

impl std::ops::Deref for Param<'_> {
    type Target = SpecParam;

    fn deref(&self) -> &SpecParam {
        self.spec
    }
}

impl Param<'_> {
    /// The lower bound as a number (the spec keeps it as JSON, exact for what a catalog holds).
    pub fn min_f64(&self) -> Option<f64> {
        self.spec.min.as_ref().and_then(serde_json::Number::as_f64)
    }

    /// The upper bound, as [`Param::min_f64`].
    pub fn max_f64(&self) -> Option<f64> {
        self.spec.max.as_ref().and_then(serde_json::Number::as_f64)
    }

    /// Where the parameter is declared (`tools[3].params.limit`, or `params.format` for a
    /// shared one), so a later stage can locate an error.
    pub fn path(&self) -> String {
        match self.doc.shared {
            true => format!("params.{}", self.spec.name),
            false => format!("{}.params.{}", self.tool_path, self.spec.name),
        }
    }
}

impl ToolModel {
    /// Whether the tool changes state.
    pub fn is_write(&self) -> bool {
        self.access == Access::Write
    }

    /// The tool's parameters, in the spec's order.
    pub fn params(&self) -> impl ExactSizeIterator<Item = Param<'_>> {
        self.spec.params.iter().zip(&self.param_docs).map(|(spec, doc)| Param {
            spec,
            doc,
            tool_path: &self.path,
        })
    }

    /// A parameter by name.
    pub fn param(&self, name: &str) -> Option<Param<'_>> {
        self.params().find(|p| p.name == name)
    }
}

// ---------------------------------------------------------------------------------------------
// Building the model.

mod lower;

pub use lower::lower;

/// A catalog lowered to the model, with the warnings its checks raised (located).
#[derive(Debug)]
pub struct Lowered {
    pub model: Model,
    pub file: SourceFile,
    pub warnings: Vec<Diagnostic>,
}

/// The spec's name of a parameter type.
pub fn spec_type(ty: ParamType) -> SpecType {
    match ty {
        ParamType::String => SpecType::String,
        ParamType::Integer => SpecType::Integer,
        ParamType::Number => SpecType::Number,
        ParamType::Boolean => SpecType::Boolean,
        ParamType::Enum => SpecType::Enum,
        ParamType::Array => SpecType::Array,
        ParamType::Path => SpecType::Path,
    }
}

fn spec_param(name: &str, q: &catalog::Param) -> SpecParam {
    let numeric = matches!(q.ty, ParamType::Integer | ParamType::Number);
    SpecParam {
        name: name.to_string(),
        ty: spec_type(q.ty),
        required: q.required,
        default: q.default.clone(),
        values: q.values.clone(),
        items: q.items.as_ref().map(|i| SpecItems {
            ty: spec_type(i.ty),
            values: i.values.clone(),
        }),
        min: q.min.map(json_number),
        max: q.max.map(json_number),
        // Only numbers clamp: string and array lengths out of bounds are always refused.
        clamp: numeric && q.clamp.unwrap_or(true),
        pattern: q.pattern.clone(),
        equals_context: q.equals_context.clone(),
        nullable: q.nullable,
        keep_empty: q.keep_empty,
    }
}

/// A bound as JSON: whole numbers print without a fraction (`30`, not `30.0`).
pub fn json_number(x: f64) -> serde_json::Number {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        serde_json::Number::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).unwrap_or_else(|| serde_json::Number::from(0))
    }
}

// ---------------------------------------------------------------------------------------------
// Filters.

/// Which tools a host surface gets, beyond its toolset.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub read_only: bool,
    pub enable: Vec<String>,
    pub disable: Vec<String>,
    pub tier: Option<String>,
}

impl Filter {
    /// The catalog's defaults, overridden by command-line values that were given.
    pub fn resolve(
        model: &Model,
        read_only: bool,
        enable: &[String],
        disable: &[String],
        tier: Option<&str>,
    ) -> Result<(Filter, Vec<String>), Error> {
        let cat = &model.filters;
        let names = model.all_tool_names();
        for n in enable.iter().chain(disable) {
            if !names.contains(&n.as_str()) {
                let help = crate::diagnostic::hint_for(n, &names, "run `ixgen list` to see the tool names");
                return Err(Error::usage(format!("no tool `{n}` in the catalog"), help));
            }
        }
        // Lists given on the command line replace the catalog's, both together: one list may be
        // meant against the other (`--disable-tools b` under a catalog allowlist of `a, b`
        // would otherwise keep `b`, the allowlist winning).
        let (enable, disable) = match enable.is_empty() && disable.is_empty() {
            true => (&cat.enable[..], &cat.disable[..]),
            false => (enable, disable),
        };
        let f = Filter {
            read_only: read_only || cat.read_only,
            enable: enable.to_vec(),
            disable: disable.to_vec(),
            tier: tier.map(str::to_string).or_else(|| cat.tier.clone()),
        };
        if let Some(tier) = &f.tier
            && !model.tools.iter().any(|t| t.tier == *tier)
        {
            let tiers: std::collections::BTreeSet<&str> = model.tools.iter().map(|t| t.tier.as_str()).collect();
            return Err(Error::usage(
                format!("no tool has tier `{tier}`"),
                format!("the catalog's tiers are: {}", Vec::from_iter(tiers).join(", ")),
            ));
        }
        let both = !f.enable.is_empty() && !f.disable.is_empty();
        let note = "both an allowlist (--enable-tools) and a blocklist (--disable-tools) are set: the allowlist wins";
        Ok((f, both.then(|| note.to_string()).into_iter().collect()))
    }

    /// Whether a tool passes.
    pub fn keeps(&self, t: &ToolModel) -> bool {
        // The allowlist, when there is one, wins over the blocklist.
        !(self.read_only && t.is_write())
            && self.tier.as_ref().is_none_or(|tier| &t.tier == tier)
            && match self.enable.is_empty() {
                true => !self.disable.contains(&t.name),
                false => self.enable.contains(&t.name),
            }
    }

    /// Whether any filter is active.
    pub fn is_active(&self) -> bool {
        self.read_only || self.tier.is_some() || !self.enable.is_empty() || !self.disable.is_empty()
    }
}

impl Model {
    /// The tools of a toolset that a host or `ixgen serve` gets, in the toolset's order,
    /// passed through `filter`. An `unsupported` tool is never among them: this is the one
    /// place every target leaves it out (the load warned about it).
    pub fn toolset(&self, name: &str, filter: &Filter) -> Vec<&ToolModel> {
        self.toolset_declared(name)
            .into_iter()
            .filter(|t| t.unsupported.is_none() && filter.keeps(t))
            .collect()
    }

    /// The names of [`Model::toolset`]'s tools.
    pub fn tool_names(&self, name: &str, filter: &Filter) -> Vec<String> {
        self.toolset(name, filter).iter().map(|t| t.name.clone()).collect()
    }

    /// Every tool a toolset names, `unsupported` ones included (for `ixgen list`).
    pub fn toolset_declared(&self, name: &str) -> Vec<&ToolModel> {
        (self.toolsets.get(name)).map_or(Vec::new(), |ts| ts.tools.iter().filter_map(|n| self.tool(n)).collect())
    }

    /// A tool by name.
    pub fn tool(&self, name: &str) -> Option<&ToolModel> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// Every tool's name, in the catalog's order.
    pub fn all_tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Context values.

/// A context value, checked and typed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ContextValue {
    Text(String),
    Integer(i64),
}

/// The context a run was given: variable name → value, in the catalog's declaration order.
pub type Context = IndexMap<String, ContextValue>;

/// Fills in the catalog's default of every declared variable the run did not give; relative
/// `path` defaults are resolved against `base` (the output folder: the project the session
/// tools are generated into), so the default does not depend on where ixgen was started.
pub fn apply_defaults(decls: &ContextDecls, ctx: &Context, base: &std::path::Path) -> Result<Context, Error> {
    let mut raw: Vec<(String, String, String)> = Vec::new();
    for (name, decl) in decls {
        let (Some(d), false) = (&decl.default, ctx.contains_key(name)) else {
            continue;
        };
        let value = match decl.ty {
            ContextType::Path => base.join(d).to_string_lossy().into_owned(),
            _ => d.clone(),
        };
        raw.push((name.clone(), format!("the default of `{name}`"), value));
    }
    let mut out = check_context(decls, &raw)?;
    out.extend(ctx.clone());
    Ok(in_declared_order(decls, out))
}

/// A context in the catalog's declaration order, so generated files do not depend on the order
/// of the flags. Every name is declared (checked by [`check_context`]).
fn in_declared_order(decls: &ContextDecls, mut ctx: Context) -> Context {
    ctx.sort_by_cached_key(|name, _| decls.get_index_of(name));
    ctx
}

/// Checks raw flag values (`name` → text) against the catalog's declarations. `flag` names
/// the flag each value came from, for messages.
pub fn check_context(decls: &ContextDecls, raw: &[(String, String, String)]) -> Result<Context, Error> {
    let mut ctx = Context::new();
    for (name, flag, value) in raw {
        let Some(decl) = decls.get(name) else {
            let known: Vec<&str> = decls.keys().map(String::as_str).collect();
            return Err(Error::usage(
                format!("{flag}: the catalog declares no context variable `{name}`"),
                if known.is_empty() {
                    "this catalog takes no context".to_string()
                } else {
                    format!("its context variables are: {}", known.join(", "))
                },
            ));
        };
        let v = match decl.ty {
            ContextType::Integer => {
                let n: i64 = value.trim().parse().map_err(|_| {
                    Error::usage(
                        format!("{flag} `{value}` is not an integer"),
                        format!("pass a whole number, e.g. {flag} 3"),
                    )
                })?;
                // Baked into TypeScript as a number literal: past 2^53 JavaScript rounds it.
                let max = crate::catalog::yaml::MAX_SAFE_INTEGER;
                if i128::from(n).abs() > max {
                    return Err(Error::usage(
                        format!("{flag} {n} is outside JavaScript's safe integer range"),
                        format!("pass a value between -{max} and {max}"),
                    ));
                }
                if let Some(min) = decl.min.filter(|&min| n < min) {
                    return Err(Error::usage(
                        format!("{flag} {n} is below the minimum {min}"),
                        format!("pass {min} or more"),
                    ));
                }
                ContextValue::Integer(n)
            }
            ContextType::String => {
                if decl.topic_part
                    && let Err(why) = crate::catalog::validate::topic_part(value)
                {
                    return Err(Error::usage(format!("{flag} {}: {why}", crate::escape::debug_quote(value)), "use letters, digits, `_` and `-`, starting with a letter or `_` (the value becomes part of a store topic)".to_string()));
                }
                ContextValue::Text(value.clone())
            }
            ContextType::Path => {
                if value.is_empty() {
                    return Err(Error::usage(format!("{flag} is empty"), "pass a path"));
                }
                let abs = std::path::absolute(value)
                    .map_err(|e| Error::usage(format!("{flag} `{value}`: {e}"), "pass a valid path"))?;
                let abs = normalize(&abs);
                let Some(s) = abs.to_str() else {
                    return Err(Error::usage(format!("{flag} is not valid UTF-8"), "pass a UTF-8 path"));
                };
                ContextValue::Text(s.to_string())
            }
        };
        ctx.insert(name.clone(), v);
    }
    Ok(in_declared_order(decls, ctx))
}

/// Removes `.` and `..` components without touching the filesystem.
fn normalize(p: &std::path::Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
