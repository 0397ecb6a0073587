//! The normalized model the targets render: defaults resolved, templates parsed, per-host ids
//! computed, filters applied. Built from a validated catalog; knows nothing about files.
//!
//! Each tool's [`ExecSpec`] (see `crate::spec`) is what every runtime executes.

use crate::catalog::{self, Access, Catalog, ContextFormat, ContextType, ContextVar, ParamType, RouteOutput};
use crate::error::Error;
use crate::template::{Part, Template};
use indexmap::IndexMap;
use serde::Serialize;

pub use crate::spec::*;

/// The catalog, ready to render.
#[derive(Debug)]
pub struct Model {
    /// The catalog as written (targets read their settings from it).
    pub catalog: Catalog,
    /// File name of the catalog, for generated headers (never a full path).
    pub source_name: String,
    /// Every tool, in catalog order.
    pub tools: Vec<ToolModel>,
    /// Tool name → index in `tools`.
    by_name: std::collections::HashMap<String, usize>,
}

/// A tool, resolved.
#[derive(Debug, Clone)]
pub struct ToolModel {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub category: Option<String>,
    pub tier: String,
    pub access: Access,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
    pub confirm: bool,
    /// The tool's own parameters, then the shared ones it uses, each in declaration order.
    pub params: Vec<ParamModel>,
    pub spec: ExecSpec,
    /// The JSON Schema of the tool's structured result (MCP `outputSchema`).
    pub output_schema: Option<serde_json::Value>,
}

/// A parameter, resolved.
#[derive(Debug, Clone)]
pub struct ParamModel {
    pub name: String,
    pub param: catalog::Param,
}

impl ToolModel {
    /// Whether the tool changes state.
    pub fn is_write(&self) -> bool {
        self.access == Access::Write
    }
}

/// The TypeScript constant a context variable is baked into.
pub fn constant_name(name: &str, var: &ContextVar) -> String {
    var.constant_name(name)
}

// ---------------------------------------------------------------------------------------------
// Building the model.

/// Builds the model of a validated catalog. Templates parse here without error because
/// validation already parsed them.
pub fn build(catalog: Catalog, source_name: &str) -> Model {
    let tools: Vec<ToolModel> = crate::par::map(&catalog.tools, |t| tool(&catalog, t));
    let by_name = tools.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
    Model {
        catalog,
        source_name: source_name.to_string(),
        tools,
        by_name,
    }
}

fn tpl(text: &str) -> Template {
    Template::parse(text).unwrap_or_else(|_| Template(vec![Part::Text(text.to_string())]))
}

fn tool(cat: &Catalog, t: &catalog::Tool) -> ToolModel {
    // The tool's own parameters first: a model reads `query` before a shared `format`.
    let mut params: Vec<ParamModel> = t
        .params
        .iter()
        .map(|(n, p)| ParamModel {
            name: n.clone(),
            param: p.clone(),
        })
        .collect();
    params.extend(t.use_params.iter().filter_map(|n| {
        cat.params.get(n).map(|p| ParamModel {
            name: n.clone(),
            param: p.clone(),
        })
    }));
    let write = t.access == Access::Write;
    let destructive = t.destructive.unwrap_or(write);
    let heading = match &t.heading {
        Some(h) => tpl(h),
        None => {
            let first = params
                .iter()
                .find(|p| p.param.required && matches!(p.param.ty, ParamType::String | ParamType::Path));
            match first {
                Some(p) => Template(vec![Part::Text(format!("{}: ", t.name)), Part::Var(p.name.clone())]),
                None => Template(vec![Part::Text(t.name.clone())]),
            }
        }
    };
    let has_run = t.steps.iter().any(|s| s.run.is_some());
    let fallback = t
        .fallback
        .as_deref()
        .or_else(|| {
            if has_run {
                cat.cli.as_ref().and_then(|c| c.fallback.as_deref())
            } else {
                None
            }
        })
        .map(tpl);
    let runtime = match (&t.runtime, &cat.runtime) {
        (Some(route), Some(rt)) => Some(SpecRuntime {
            url_env: rt.url_env.clone(),
            default_url: rt.default_url.clone(),
            timeout_ms: rt.timeout_ms,
            method: route.method,
            path: route.path.clone(),
            body: route.body.as_ref().map(json_t),
            markdown_field: match route.output {
                RouteOutput::Markdown => rt.markdown_field.clone(),
                RouteOutput::Json => None,
            },
        }),
        _ => None,
    };
    let spec = ExecSpec {
        version: SPEC_VERSION,
        name: t.name.clone(),
        heading,
        params: params.iter().map(spec_param).collect(),
        runtime,
        parallel: t.parallel,
        steps: t.steps.iter().map(|s| step(cat, s)).collect(),
        fallback,
        recovery: crate::lower_render::recovery(cat, t),
        output: t.output.iter().map(crate::lower_render::block).collect(),
    };
    ToolModel {
        name: t.name.clone(),
        title: t.title.clone(),
        description: t.description.clone(),
        category: t.category.clone(),
        tier: t.tier.clone().unwrap_or_else(|| "free".into()),
        access: t.access,
        destructive,
        idempotent: t.idempotent.unwrap_or(!write),
        open_world: t.open_world.unwrap_or(false),
        confirm: t.confirm.unwrap_or(destructive),
        params,
        spec,
        output_schema: crate::lower_render::output_schema(cat, t),
    }
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

fn spec_param(p: &ParamModel) -> SpecParam {
    let q = &p.param;
    let numeric = matches!(q.ty, ParamType::Integer | ParamType::Number);
    SpecParam {
        name: p.name.clone(),
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

/// Compiles a catalog JSON template: a string that is exactly `"{name}"` keeps the variable's
/// type; other strings with placeholders become string templates.
pub fn json_t(v: &serde_json::Value) -> JsonT {
    match v {
        serde_json::Value::String(s) => {
            let t = tpl(s);
            if let Some(var) = t.single_var() {
                JsonT::Var(var.to_string())
            } else if t.vars().next().is_none() {
                JsonT::Lit(v.clone())
            } else {
                JsonT::Tpl(t)
            }
        }
        serde_json::Value::Array(items) => JsonT::Arr(items.iter().map(json_t).collect()),
        serde_json::Value::Object(map) => JsonT::Obj(map.iter().map(|(k, v)| (k.clone(), json_t(v))).collect()),
        other => JsonT::Lit(other.clone()),
    }
}

fn step(cat: &Catalog, s: &catalog::Step) -> SpecStep {
    let store_program = cat
        .store
        .as_ref()
        .map(|s| s.program.clone())
        .unwrap_or_else(|| "xs".into());
    let store_path = cat.store.as_ref().map(|s| tpl(&s.path)).unwrap_or_default();
    let exec = if let Some(argv) = &s.run {
        SpecExec::Cli {
            program: s
                .program
                .clone()
                .or_else(|| cat.cli.as_ref().map(|c| c.binary.clone()))
                .unwrap_or_default(),
            argv: argv.iter().map(arg).collect(),
            stdin: s.stdin.as_deref().map(tpl),
        }
    } else if let Some(a) = &s.append {
        SpecExec::StoreAppend {
            program: store_program,
            store: store_path,
            topic: tpl(&a.topic),
            meta: json_t(&a.meta),
            body: a.body.as_deref().map(tpl),
        }
    } else if let Some(f) = &s.fold {
        SpecExec::StoreFold {
            program: store_program,
            store: store_path,
            topic: tpl(&f.topic),
            group_by: f.group_by.clone(),
            groups: f.groups.clone(),
            filter: f.filter.as_ref().map(|x| SpecFilter {
                field: x.field.clone(),
                equals: tpl(&x.equals),
            }),
        }
    } else if let Some(u) = &s.update {
        SpecExec::StoreUpdate {
            program: store_program,
            store: store_path,
            topic: tpl(&u.topic),
            id: tpl(&u.id),
            meta: json_t(&u.meta),
        }
    } else {
        let sig = s.signal.as_ref().expect("validation guarantees one step kind");
        SpecExec::Signal {
            pid: tpl(&sig.pid),
            signal: sig.signal.clone(),
            process: sig.process.clone(),
        }
    };
    SpecStep {
        id: s.id.clone(),
        title: s.title.as_deref().map(tpl),
        when: s.when.as_ref().map(cond),
        for_each: s.for_each.clone(),
        limit: s.limit,
        json: s.json.is_some(),
        message: s.message.as_deref().map(tpl),
        exec,
    }
}

fn arg(a: &catalog::Arg) -> SpecArg {
    match a {
        catalog::Arg::Text(t) => {
            let t = tpl(t);
            match t.0.as_slice() {
                [] => SpecArg::Lit(String::new()),
                [Part::Text(text)] => SpecArg::Lit(text.clone()),
                _ => SpecArg::Tpl(t),
            }
        }
        catalog::Arg::Special(s) => {
            if let Some(opt) = &s.opt {
                SpecArg::Opt {
                    opt: opt.clone(),
                    value: tpl(s.value.as_deref().unwrap_or_default()),
                }
            } else if let Some(flag) = &s.flag {
                SpecArg::Flag {
                    flag: flag.clone(),
                    if_param: s.if_param.clone().unwrap_or_default(),
                }
            } else if let Some(sp) = &s.spread {
                SpecArg::Spread { spread: sp.clone() }
            } else {
                SpecArg::Json {
                    json: json_t(s.json.as_ref().unwrap_or(&serde_json::Value::Null)),
                }
            }
        }
    }
}

pub(crate) fn cond(c: &catalog::Cond) -> SpecCond {
    if let Some(f) = crate::lower_render::field_cond(c) {
        return f;
    }
    if let Some(all) = &c.all {
        return SpecCond::All {
            all: all.iter().map(cond).collect(),
        };
    }
    if let Some(any) = &c.any {
        return SpecCond::Any {
            any: any.iter().map(cond).collect(),
        };
    }
    if let Some(not) = &c.not {
        return SpecCond::Not {
            not: Box::new(cond(not)),
        };
    }
    if let Some(step) = &c.step {
        return match &c.matches {
            Some(m) => SpecCond::StepMatches {
                step: step.clone(),
                matches: m.clone(),
                flags: c.flags.clone().unwrap_or_default(),
            },
            None => SpecCond::StepFailed {
                step: step.clone(),
                failed: c.failed.unwrap_or(true),
            },
        };
    }
    let param = c.param.clone().unwrap_or_default();
    if let Some(v) = &c.in_values {
        SpecCond::ParamIn {
            param,
            values: v.clone(),
        }
    } else if let Some(v) = &c.equals {
        SpecCond::ParamEquals {
            param,
            equals: v.clone(),
        }
    } else if let Some(v) = &c.contains {
        SpecCond::ParamContains {
            param,
            contains: v.clone(),
        }
    } else {
        SpecCond::ParamSet {
            param,
            set: c.set.unwrap_or(true),
        }
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
        cat: &Catalog,
        read_only: bool,
        enable: &[String],
        disable: &[String],
        tier: Option<&str>,
    ) -> Result<(Filter, Vec<String>), Error> {
        let names: Vec<&String> = cat.tools.iter().map(|t| &t.name).collect();
        for n in enable.iter().chain(disable) {
            if !names.contains(&n) {
                let help = match crate::catalog::load::did_you_mean(n, &names) {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => "run `ixgen list` to see the tool names".to_string(),
                };
                return Err(Error::usage(format!("no tool `{n}` in the catalog"), help));
            }
        }
        let f = Filter {
            read_only: read_only || cat.filters.read_only,
            enable: if enable.is_empty() {
                cat.filters.enable.clone()
            } else {
                enable.to_vec()
            },
            disable: if disable.is_empty() {
                cat.filters.disable.clone()
            } else {
                disable.to_vec()
            },
            tier: tier.map(str::to_string).or_else(|| cat.filters.tier.clone()),
        };
        if let Some(tier) = &f.tier {
            let tiers: Vec<String> = {
                let mut t: Vec<String> = cat
                    .tools
                    .iter()
                    .map(|t| t.tier.clone().unwrap_or_else(|| "free".into()))
                    .collect();
                t.sort();
                t.dedup();
                t
            };
            if !tiers.contains(tier) {
                return Err(Error::usage(
                    format!("no tool has tier `{tier}`"),
                    format!("the catalog's tiers are: {}", tiers.join(", ")),
                ));
            }
        }
        let mut warnings = Vec::new();
        if !f.enable.is_empty() && !f.disable.is_empty() {
            warnings.push(
                "both an allowlist (--enable-tools) and a blocklist (--disable-tools) are set: the allowlist wins"
                    .to_string(),
            );
        }
        Ok((f, warnings))
    }

    /// Whether a tool passes.
    pub fn keeps(&self, t: &ToolModel) -> bool {
        if self.read_only && t.is_write() {
            return false;
        }
        if let Some(tier) = &self.tier
            && &t.tier != tier
        {
            return false;
        }
        if !self.enable.is_empty() {
            return self.enable.contains(&t.name);
        }
        !self.disable.contains(&t.name)
    }

    /// Whether any filter is active.
    pub fn is_active(&self) -> bool {
        self.read_only || self.tier.is_some() || !self.enable.is_empty() || !self.disable.is_empty()
    }
}

impl Model {
    /// The tools of a toolset, in the toolset's order, passed through `filter`.
    pub fn toolset(&self, name: &str, filter: &Filter) -> Vec<&ToolModel> {
        let Some(ts) = self.catalog.toolsets.get(name) else {
            return Vec::new();
        };
        ts.tools
            .iter()
            .filter_map(|n| self.tool(n))
            .filter(|t| filter.keeps(t))
            .collect()
    }

    /// A tool by name.
    pub fn tool(&self, name: &str) -> Option<&ToolModel> {
        self.by_name.get(name).map(|&i| &self.tools[i])
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

/// Checks raw flag values (`name` → text) against the catalog's declarations. `flag` names
/// the flag each value came from, for messages.
pub fn check_context(cat: &Catalog, raw: &[(String, String, String)]) -> Result<Context, Error> {
    let mut ctx = Context::new();
    for (name, flag, value) in raw {
        let Some(decl) = cat.context.get(name) else {
            let known: Vec<&String> = cat.context.keys().collect();
            return Err(Error::usage(
                format!("{flag}: the catalog declares no context variable `{name}`"),
                if known.is_empty() {
                    "this catalog takes no context".to_string()
                } else {
                    format!(
                        "its context variables are: {}",
                        known.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    )
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
                if i128::from(n).abs() > crate::catalog::values::MAX_SAFE_INTEGER {
                    return Err(Error::usage(
                        format!("{flag} {n} is outside JavaScript's safe integer range"),
                        format!(
                            "pass a value between -{0} and {0}",
                            crate::catalog::values::MAX_SAFE_INTEGER
                        ),
                    ));
                }
                if let Some(min) = decl.min
                    && n < min
                {
                    return Err(Error::usage(
                        format!("{flag} {n} is below the minimum {min}"),
                        format!("pass {min} or more"),
                    ));
                }
                ContextValue::Integer(n)
            }
            ContextType::String => {
                if let Some(ContextFormat::TopicPart) = decl.format
                    && let Err(why) = topic_part(value)
                {
                    return Err(Error::usage(format!("{flag} {}: {why}", crate::escape::debug_quote(value)), "use letters, digits, `_` and `-`, starting with a letter or `_` (the value becomes part of a store topic)".to_string()));
                }
                ContextValue::Text(value.clone())
            }
            ContextType::Path => {
                if value.is_empty() {
                    return Err(Error::usage(format!("{flag} is empty"), "pass a path".to_string()));
                }
                let abs = std::path::absolute(value)
                    .map_err(|e| Error::usage(format!("{flag} `{value}`: {e}"), "pass a valid path".to_string()))?;
                let abs = normalize(&abs);
                let Some(s) = abs.to_str() else {
                    return Err(Error::usage(
                        format!("{flag} is not valid UTF-8"),
                        "pass a UTF-8 path".to_string(),
                    ));
                };
                ContextValue::Text(s.to_string())
            }
        };
        ctx.insert(name.clone(), v);
    }
    // Keep the catalog's order so generated files do not depend on flag order.
    let mut ordered = Context::new();
    for name in cat.context.keys() {
        if let Some(v) = ctx.shift_remove(name) {
            ordered.insert(name.clone(), v);
        }
    }
    Ok(ordered)
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

/// Checks that a value can be one part of an `xs` topic (`ralph.<part>.task`).
pub fn topic_part(v: &str) -> Result<(), String> {
    if v.is_empty() {
        return Err("is empty".into());
    }
    if v.len() > 128 {
        return Err("is longer than 128 bytes".into());
    }
    let mut chars = v.chars();
    let first = chars.next().unwrap_or('_');
    if !(first.is_ascii_alphabetic() || first == '_') {
        return Err(format!(
            "must start with a letter or `_`, not {}",
            crate::escape::debug_quote(&first.to_string())
        ));
    }
    if let Some(bad) = v
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "contains {}, which a store topic part cannot hold",
            crate::escape::debug_quote(&bad.to_string())
        ));
    }
    Ok(())
}
