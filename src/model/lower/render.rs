//! Step data flow and rendered output: the checks of every reference into step results, and
//! the lowering of `output` blocks into the execution spec's [`SpecBlock`]s.
//!
//! A step that declares `json` makes its parsed stdout a variable named by its `id`; later
//! steps, conditions (`field:`), `for_each` and the `output` blocks refer to its fields by path
//! (`{locate.resolvedTarget.name}`). Where the step names a JSON Schema, every path is checked
//! against it here, with the catalog path of the reference. A block's templates are parsed
//! once, checked and lowered in the same walk; the conditions blocks carry are lowered by the
//! pass's own condition lowering (`super::Lower::cond`), passed in.

use super::{Report, all, optional};
use crate::catalog::{Arg, Block, Catalog, Cond, Limit, Param, ParamType, RichValue, Shape, Step, Tool, Value_};
use crate::diagnostic::{Diagnostic, Place};
use crate::spec::{JsonT, SpecBlock, SpecCond, SpecField, SpecMark, SpecValue};
use crate::template::{Template, placeholder_offset};
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------------
// Schemas.

/// A schema a path resolves to: `None` when nothing is declared (anything goes).
type Sch<'a> = Option<&'a Value>;

/// The branches of a schema node (`anyOf`/`oneOf`), or the node itself.
fn branches(s: &Value) -> Vec<&Value> {
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = s.get(key).and_then(Value::as_array) {
            return list.iter().flat_map(branches).collect();
        }
    }
    vec![s]
}

fn has_type(s: &Value, t: &str) -> bool {
    match s.get("type") {
        Some(Value::String(x)) => x == t,
        Some(Value::Array(xs)) => xs.iter().any(|x| x == t),
        _ => false,
    }
}

/// Resolves one field (or array index) below a schema node.
fn child<'a>(s: &'a Value, seg: &str) -> Result<Sch<'a>, Vec<String>> {
    let mut known = Vec::new();
    for b in branches(s) {
        if seg.chars().all(|c| c.is_ascii_digit()) && (has_type(b, "array") || b.get("items").is_some()) {
            return Ok(b.get("items"));
        }
        let props = b.get("properties").and_then(Value::as_object);
        if let Some(p) = props.and_then(|p| p.get(seg)) {
            return Ok(Some(p));
        }
        match (b.get("additionalProperties"), props) {
            (Some(Value::Bool(true)), _) => return Ok(None),
            (Some(Value::Bool(false)), Some(p)) => known.extend(p.keys().cloned()),
            (Some(Value::Bool(false)), None) => {}
            (Some(extra), _) => return Ok(Some(extra)),
            // Declared properties and nothing about others: the declared ones are all there is.
            (None, Some(p)) => known.extend(p.keys().cloned()),
            // Nothing declared about fields: any field, unless the node cannot be an object.
            (None, None) if b.get("type").is_none() || has_type(b, "object") => return Ok(None),
            (None, None) => {}
        }
    }
    Err(known)
}

// ---------------------------------------------------------------------------------------------
// Checks.

/// What a reference may start from at one place of a tool.
#[derive(Clone)]
struct Scope<'a> {
    params: &'a HashMap<&'a str, &'a Param>,
    /// Earlier steps with a JSON result → their schema.
    steps: IndexMap<&'a str, Sch<'a>>,
    /// `item` under a `for_each` over data: the element schema.
    item: Option<Sch<'a>>,
    /// Inside a list row or table column: the row schema.
    row: Option<Sch<'a>>,
}

static RUNTIME_SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(
    || serde_json::json!({"type": "object", "properties": {"url": {"type": "string"}, "why": {"type": "string"}}}),
);

/// The schema of a step's `parse` records or `capture`d run, or `None` when it has neither:
/// known from the step itself, references into them are checked as into a declared schema.
pub(super) fn step_data_schema(step: &Step) -> Option<Value> {
    if step.capture {
        return Some(serde_json::json!({"type": "object", "properties": {
            "exit_code": {"type": ["integer", "null"]},
            "stdout": {"type": "string"},
            "stderr": {"type": "string"},
            "duration_ms": {"type": "integer"}
        }}));
    }
    let p = step.parse.as_deref()?;
    if p.fields.is_empty() {
        // JSON Lines: an array of anything.
        return Some(serde_json::json!({"type": "array"}));
    }
    let props: serde_json::Map<String, Value> = p
        .fields
        .iter()
        .map(|f| (f.clone(), serde_json::json!({"type": ["string", "null"]})))
        .collect();
    Some(serde_json::json!({"type": "array", "items": {"type": "object", "properties": props}}))
}

/// The data checks of one tool, and the lowering of its output blocks.
pub(super) struct Checker<'a> {
    cat: &'a Catalog,
    pub diags: Vec<Diagnostic>,
    /// The tool's declared output schema, resolved (MCP `outputSchema`).
    pub output_schema: Option<Value>,
    /// The id of the step whose data the output schema describes: the tool's structured result.
    pub structured_step: Option<String>,
    /// Every step's data, for the output blocks.
    scope: Scope<'a>,
}

/// A condition lowered by the pass (with its own checks), for the conditions blocks carry.
pub(super) type LowerCond<'f> = dyn FnMut(&Cond) -> Option<SpecCond> + 'f;

impl<'a> Checker<'a> {
    /// Checks the data references of a tool's steps and its output schema; the blocks are
    /// checked as they are lowered ([`Checker::block`]).
    /// `made` holds the shapes of each step's `parse` and `capture` data ([`step_data_schema`]);
    /// `preview` is `confirm.preview`, parsed by the lowering (which reports it if it does not).
    pub fn new(
        cat: &'a Catalog,
        path: &str,
        tool: &'a Tool,
        params: &'a HashMap<&'a str, &'a Param>,
        made: &'a [Option<Value>],
        preview: Option<&Template>,
    ) -> Self {
        let mut c = Checker {
            cat,
            diags: Vec::new(),
            output_schema: None,
            structured_step: None,
            scope: Scope {
                params,
                steps: IndexMap::new(),
                item: None,
                row: None,
            },
        };
        let mut scope = c.scope.clone();
        if tool.runtime.is_some() {
            // Set when the route failed and the steps run instead.
            scope.steps.insert("runtime", Some(&RUNTIME_SCHEMA));
        }
        // `confirm.preview` reads the parameters and the data of the steps up to `confirm.after`
        // (none without it): it is checked in the scope it is rendered in.
        let after = match &tool.confirm {
            Some(crate::catalog::Confirm::Rules(r)) => r.after.as_deref(),
            _ => None,
        };
        let ppath = format!("{path}.confirm.preview");
        if let (Some(t), None) = (preview, after) {
            c.preview(&ppath, t, tool, None, &scope);
        }
        for (k, step) in tool.steps.iter().enumerate() {
            let spath = format!("{path}.steps[{k}]");
            c.step(&spath, tool, step, &scope);
            if let (Some(id), Some(shape)) = (&step.id, &step.json) {
                let sch = c.shape(&format!("{spath}.json"), shape);
                // Under `for_each` the variable holds one result per element.
                let sch = if step.for_each.is_some() { None } else { sch };
                scope.steps.insert(id.as_str(), sch);
            } else if let (Some(id), Some(sch)) = (&step.id, &made[k]) {
                let sch = if step.for_each.is_some() { None } else { Some(sch) };
                scope.steps.insert(id.as_str(), sch);
            }
            // A computed value has no schema: any path into it is accepted.
            if let (Some(id), Some(_)) = (&step.id, &step.compute) {
                scope.steps.insert(id.as_str(), None);
            }
            if let (Some(t), Some(after)) = (preview, after)
                && step.id.as_deref() == Some(after)
            {
                c.preview(&ppath, t, tool, Some(after), &scope);
            }
        }
        if let Some(shape) = &tool.output_schema {
            let opath = format!("{path}.output_schema");
            let sch = c.shape(&opath, shape);
            c.output_schema = sch.cloned();
            // MCP: `structuredContent` is an object, so its schema's root must be one.
            if matches!(shape, Shape::Any(_)) || sch.is_some_and(|s| !has_type(s, "object")) {
                c.diags.err(
                    "bad-output-schema",
                    opath,
                    "an output schema must be an object schema (`type: object`)",
                    "MCP carries structured results as objects; name a schema whose root is `type: object`",
                );
            } else if let Some(want) = sch {
                c.structured_step = c.structured_step(&opath, tool, want);
            }
        }
        c.scope = scope;
        c
    }

    /// The step whose data the output schema `want` describes: the one step whose `json` declares
    /// that schema (by name or the same inline schema), outside `for_each` (which makes an array).
    /// An MCP server must answer every successful call with that value (`structuredContent`), so a
    /// schema no step's data has, or two steps', is an error.
    fn structured_step(&mut self, path: &str, tool: &'a Tool, want: &Value) -> Option<String> {
        let declared = |step: &&'a Step| {
            step.for_each.is_none()
                && step.id.is_some()
                && match step.json.as_deref() {
                    Some(Shape::Named(n)) => self.cat.schemas.get(n) == Some(want),
                    Some(Shape::Inline(v)) => v == want,
                    _ => false,
                }
        };
        let steps: Vec<&Step> = tool.steps.iter().filter(declared).collect();
        match steps.as_slice() {
            [one] => one.id.clone(),
            [] => {
                self.diags.err(
                    "bad-output-schema",
                    path,
                    "the output schema describes no step's data: no step (with an `id`, without `for_each`) declares it as its `json`",
                    "the tool's structured result is the data of the step whose `json` names the same schema: \
                     add it to the step that prints that JSON, or remove `output_schema`",
                );
                None
            }
            _ => {
                self.diags.err(
                    "bad-output-schema",
                    path,
                    format!("{} steps declare the output schema as their `json`", steps.len()),
                    "the tool's structured result is one step's data: keep the schema on one step, give the others `json: true`",
                );
                None
            }
        }
    }

    fn shape(&mut self, path: &str, shape: &'a Shape) -> Sch<'a> {
        match shape {
            Shape::Any(true) => None,
            Shape::Any(false) => {
                self.diags.err(
                    "bad-json",
                    path,
                    "`json: false` declares nothing",
                    "remove `json`, or write `json: true`",
                );
                None
            }
            Shape::Named(n) => self.cat.schemas.get(n).or_else(|| {
                let known: Vec<&String> = self.cat.schemas.keys().collect();
                let help = crate::diagnostic::hint_for(n, &known, "declare it under the top-level `schemas`");
                self.diags
                    .err("unknown-schema", path, format!("no schema `{n}` under `schemas`"), help);
                None
            }),
            Shape::Inline(v) if v.is_object() => Some(v),
            Shape::Inline(_) => {
                let message = "`json` is `true`, the name of a schema, or an inline JSON Schema (a mapping)";
                let help = "write `json: true`, or the schema as a mapping (`{type: object, …}`)";
                self.diags.err("bad-json", path, message, help);
                None
            }
        }
    }

    fn step(&mut self, path: &str, tool: &Tool, step: &'a Step, scope: &Scope<'a>) {
        let mut inner = scope.clone();
        // Whatever is wrong with `for_each`, `item` exists below, so one fault gives one error.
        inner.item = step.for_each.as_ref().map(|_| None);
        let help = "point it at an array field of the step's result";
        if let Some(fe) = &step.for_each
            && fe.contains('.') | scope.steps.contains_key(fe.as_str())
            && let Some(item) = self.elements(path, "for_each", fe, scope, help)
        {
            inner.item = Some(item);
        }
        if let Some(src) = &step.compute {
            self.expression(&format!("{path}.compute"), src, &inner);
        }
        if step.limit.is_some() && step.for_each.is_none() {
            self.diags.err_at_key(
                "bad-step",
                format!("{path}.limit"),
                "`limit` applies to `for_each` steps",
                "remove it, or add `for_each`",
            );
        }
        if step.compute.is_some() && step.json.is_some() {
            self.diags.err_at_key(
                "bad-json",
                format!("{path}.json"),
                "a `compute` step's value is data already",
                "remove `json`",
            );
        }
        // After the check above: at `json` both, its report has always come first.
        for (key, code, set, uses) in [
            ("compute", "bad-step", step.compute.is_some(), "use its value"),
            ("json", "bad-json", step.json.is_some(), "refer to its result"),
        ] {
            if set && step.id.is_none() {
                let message = format!("a `{key}` step needs an `id`");
                let help = format!("give the step an `id`: later steps and `output` {uses} by it");
                self.diags.err_at_key(code, format!("{path}.{key}"), message, help);
            }
        }
        if let Some(when) = &step.when {
            if tool.parallel && cond_uses_fields(when) {
                self.diags.err(
                    "bad-condition",
                    format!("{path}.when"),
                    "a parallel tool's steps cannot depend on each other's results",
                    "remove `parallel: true`, or move the condition into `output`",
                );
            }
            self.cond(&format!("{path}.when"), when, scope);
        }
        // Plain names in step templates are checked by the lowering pass; paths are checked here.
        for (key, text) in [
            ("title", &step.title),
            ("message", &step.message),
            ("stdin", &step.stdin),
        ] {
            if let Some(t) = text {
                self.template(&format!("{path}.{key}"), t, &inner, true);
            }
        }
        for (a, arg) in step.run.iter().flatten().enumerate() {
            match arg {
                Arg::Text(t) => self.template(&format!("{path}.run[{a}]"), t, &inner, true),
                Arg::Special(s) => {
                    (s.value.as_ref()).and_then(|v| self.template(&format!("{path}.run[{a}].value"), v, &inner, true))
                }
            };
        }
    }

    /// Checks one output block against the data it names and lowers it; `cond` lowers the
    /// conditions it carries. `None` when something in it was reported.
    pub fn block(&mut self, path: &str, b: &'a Block, cond: &mut LowerCond) -> Option<SpecBlock> {
        let scope = self.scope.clone();
        let kinds = [
            ("text", b.text.is_some()),
            ("fields", b.fields.is_some()),
            ("list", b.list.is_some()),
            ("table", b.table.is_some()),
        ];
        let present: Vec<&str> = kinds.iter().filter(|k| k.1).map(|k| k.0).collect();
        if present.len() != 1 {
            let has = if present.is_empty() {
                "none".to_string()
            } else {
                present.join(" and ")
            };
            let message =
                format!("an output block is exactly one of `text`, `fields`, `list`, `table`; this one has {has}");
            self.diags
                .err("bad-output", path, message, "split it into several blocks");
            optional(b.when.as_deref(), &mut *cond);
            return None;
        }
        if let Some(w) = &b.when {
            self.cond(&format!("{path}.when"), w, &scope);
        }
        let when = optional(b.when.as_deref(), &mut *cond);
        let (is_seq, seq) = (b.list.is_some() || b.table.is_some(), "`list` and `table` blocks");
        let misplaced = [
            ("title", b.title.is_some() && !is_seq, seq),
            ("limit", b.limit.is_some() && !is_seq, seq),
            ("total", b.total.is_some() && !is_seq, seq),
            ("empty", b.empty.is_some() && !is_seq, seq),
            ("item", b.item.is_some() && b.list.is_none(), "`list` blocks"),
            ("columns", b.columns.is_some() && b.table.is_none(), "`table` blocks"),
        ];
        for (key, _, want) in misplaced.into_iter().filter(|m| m.1) {
            let (at, message) = (format!("{path}.{key}"), format!("`{key}` applies to {want}"));
            self.diags.err_at_key("bad-output", at, message, "remove it");
        }
        let limit = match &b.limit {
            None => Some(None),
            Some(Limit::Fixed(n)) => Some(Some(JsonT::Lit((*n).into()))),
            Some(Limit::Param(p)) => {
                let t = Template::parse(p).ok();
                let name = t.as_ref().and_then(|t| t.single_var().map(str::to_string));
                let ok = (name.as_deref().and_then(|n| scope.params.get(n)))
                    .is_some_and(|q| matches!(q.ty, ParamType::Integer | ParamType::Number));
                if !ok {
                    self.diags.err(
                        "bad-output",
                        format!("{path}.limit"),
                        format!("`limit: {p}` names no number parameter"),
                        "write a number, or `\"{name}\"` of an integer parameter",
                    );
                }
                t.map(|t| Some(name.map_or(JsonT::Tpl(t), JsonT::Var)))
            }
        };
        let text = (b.text.as_ref()).map(|t| self.template(&format!("{path}.text"), t, &scope, false));
        let fields: Vec<Option<SpecField>> = (b.fields.iter().flatten())
            .map(|(label, v)| self.field(&format!("{path}.fields.{label}"), label, v, &scope, cond))
            .collect();
        let (mut title, mut empty, mut rows) = (Some(None), Some(None), None);
        for (key, seq) in [("list", &b.list), ("table", &b.table)] {
            let Some(seq) = seq else { continue };
            if let Some(t) = &b.title {
                title = self.template(&format!("{path}.title"), t, &scope, false).map(Some);
            }
            if let Some(t) = &b.empty {
                empty = self.template(&format!("{path}.empty"), t, &scope, false).map(Some);
            }
            if let Some(t) = &b.total {
                self.resolve(&format!("{path}.total"), t, &scope);
            }
            let mut row = scope.clone();
            let checked = self.elements(path, key, seq, &scope, "point it at an array field of a step's result");
            // The rows of a sequence that did not resolve are lowered (their conditions are the
            // pass's to check) but not checked here: one fault, one error.
            row.row = Some(checked.flatten());
            let kept = std::mem::take(&mut self.diags);
            rows = match (key, &b.item, &b.columns) {
                ("list", Some(item), _) => Some(vec![self.field(&format!("{path}.item"), "", item, &row, cond)]),
                ("table", _, Some(cols)) => Some(
                    cols.iter()
                        .map(|(header, v)| self.field(&format!("{path}.columns.{header}"), header, v, &row, cond))
                        .collect(),
                ),
                // A `list` without `item`, or a `table` without `columns`.
                _ => {
                    let (needs, help) = match key {
                        "list" => ("an `item` row", "e.g. `item: \"{name|code} ({kind})\"`"),
                        _ => ("`columns`", "e.g. `columns: {Name: \"{name}\", Files: \"{files}\"}`"),
                    };
                    let message = format!("a `{key}` block needs {needs}");
                    self.diags.err("bad-output", path, message, help);
                    None
                }
            };
            let found = std::mem::replace(&mut self.diags, kept);
            if checked.is_some() {
                self.diags.extend(found);
            }
        }
        let when = when?.map(Box::new);
        Some(if let Some(text) = text {
            SpecBlock::Text { when, text: text? }
        } else if b.fields.is_some() {
            SpecBlock::Fields {
                when,
                fields: all(fields)?,
            }
        } else if let Some(list) = &b.list {
            let item = rows?.pop()??;
            SpecBlock::List {
                when,
                list: list.clone(),
                title: title?,
                item: Box::new(item.value),
                total: b.total.clone(),
                limit: limit?,
                empty: empty?,
            }
        } else {
            SpecBlock::Table {
                when,
                table: b.table.clone()?,
                title: title?,
                columns: all(rows?)?,
                total: b.total.clone(),
                limit: limit?,
                empty: empty?,
            }
        })
    }

    fn field(
        &mut self,
        path: &str,
        label: &str,
        v: &'a Value_,
        scope: &Scope<'a>,
        cond: &mut LowerCond,
    ) -> Option<SpecField> {
        let value = match v {
            Value_::Template(t) => SpecValue {
                tpl: Some(self.template(path, t, scope, false)?),
                ..SpecValue::default()
            },
            Value_::Rich(r) => {
                let RichValue {
                    value,
                    map,
                    to,
                    otherwise,
                    mark,
                } = &**r;
                if value.is_some() == map.is_some() {
                    self.diags.err(
                        "bad-output",
                        path,
                        "a value has exactly one of `value`, `map`",
                        "e.g. `{map: impact.riskLevel, to: {low: SAFE}}` or `{value: \"{x}\", mark: …}`",
                    );
                }
                let tpl = optional(value.as_ref(), |t| {
                    self.template(&format!("{path}.value"), t, scope, false)
                });
                if let Some(m) = map {
                    self.resolve(&format!("{path}.map"), m, scope);
                    if to.is_empty() {
                        self.diags.err(
                            "bad-output",
                            format!("{path}.map"),
                            "`map` needs `to`",
                            "e.g. `to: {low: SAFE TO PROCEED}`",
                        );
                    }
                } else if !to.is_empty() || otherwise.is_some() {
                    self.diags.err(
                        "bad-output",
                        path,
                        "`to` and `else` go with `map`",
                        "add `map: <field>`",
                    );
                }
                let to = all((to.iter())
                    .map(|(k, t)| {
                        let t = self.template(&format!("{path}.to.{k}"), t, scope, false);
                        t.map(|t| (k.clone(), t))
                    })
                    .collect());
                let otherwise = optional(otherwise.as_ref(), |t| {
                    self.template(&format!("{path}.else"), t, scope, false)
                });
                let mark = optional(mark.as_ref(), |m| {
                    self.cond(&format!("{path}.mark.when"), &m.when, scope);
                    cond(&m.when).map(|when| {
                        Box::new(SpecMark {
                            when,
                            text: m.text.clone(),
                        })
                    })
                });
                SpecValue {
                    tpl: tpl?,
                    map: map.clone(),
                    to: to?,
                    otherwise: otherwise?,
                    mark: mark?,
                }
            }
        };
        Some(SpecField {
            label: label.to_string(),
            value,
        })
    }

    /// Checks a template's references and returns it parsed; `paths_only` leaves plain names
    /// to the lowering pass (`super`).
    fn template(&mut self, path: &str, text: &str, scope: &Scope<'a>, paths_only: bool) -> Option<Template> {
        // A template that does not parse is reported by the lowering pass (steps) or here.
        let t = if paths_only {
            Template::parse(text).ok()?
        } else {
            super::parse_template(&mut self.diags, path, text, super::STEP_DATA_HELP)?
        };
        for var in t
            .vars()
            .filter(|v| !paths_only || v.contains('.') || scope.steps.contains_key(v))
        {
            let mark = self.diags.len();
            self.resolve(path, var, scope);
            // What `resolve` found about this placeholder is shown where it is in the template
            // (the line of a block scalar that holds it), as a bad or undeclared one is.
            if self.diags.len() > mark
                && let Some((line, col)) = super::template_place(text, placeholder_offset(text, var))
            {
                for d in self.diags[mark..].iter_mut().filter(|d| d.path == path) {
                    d.place = Place::Inside { line, col };
                }
            }
        }
        Some(t)
    }

    /// `confirm.preview`: every variable is a parameter, a context variable or the data of a
    /// step up to `after`. A step that runs after the question is named as such, since its data
    /// does not exist yet when the user is asked.
    fn preview(&mut self, path: &str, t: &Template, tool: &Tool, after: Option<&str>, scope: &Scope<'a>) {
        for var in t.vars() {
            let root = var.split('.').next().unwrap_or_default();
            let later = !self.is_named(root, scope) && tool.steps.iter().any(|s| s.id.as_deref() == Some(root));
            if later {
                let when = after.map_or("before any step runs".to_string(), |a| format!("after step `{a}`"));
                let message = format!(
                    "`{{{var}}}`: step `{root}` runs only once the user agreed, and the question is asked {when}"
                );
                let help = "preview only the data of the steps up to `confirm.after`, \
                            or move `after` to a later step that does not change state";
                self.diags.err("unknown-step", path, message, help);
            } else {
                self.resolve(path, var, scope);
            }
        }
    }

    /// The element schema of the array `var` (the sequence at `{path}.{key}`) names; reports and
    /// returns `None` when it names nothing or no array.
    fn elements(&mut self, path: &str, key: &str, var: &str, scope: &Scope<'a>, help: &str) -> Option<Sch<'a>> {
        let at = format!("{path}.{key}");
        let sch = self.resolve(&at, var, scope)?;
        let array = |b: &&Value| has_type(b, "array") || b.get("items").is_some();
        // Data without a schema may be an array of anything.
        if sch.is_some_and(|s| !branches(s).iter().any(array)) {
            let message = format!("`{key}` needs an array, and `{var}` is not one in its schema");
            self.diags.err("not-an-array", at, message, help);
            return None;
        }
        Some(sch.and_then(|s| branches(s).into_iter().find_map(|b| b.get("items"))))
    }

    /// Resolves a variable path; reports and returns `None` when it names nothing. `Some(None)`
    /// is a path into data without a declared schema.
    fn resolve(&mut self, path: &str, var: &str, scope: &Scope<'a>) -> Option<Sch<'a>> {
        let mut segs = var.split('.');
        let root = segs.next().unwrap_or_default();
        let rest: Vec<&str> = segs.collect();
        // A row's own fields come first (inside a row, `item` is the row itself), then `item`,
        // earlier steps, parameters and context.
        if let Some(row) = scope.row
            && let Some(hit) = match (root, row) {
                ("item", _) => Some(row),
                (_, Some(r)) => child(r, root).ok(),
                (_, None) => (!self.is_named(root, scope)).then_some(None),
            }
        {
            return self.walk(path, var, hit, &rest, format_args!("the row"));
        }
        if root == "item"
            && let Some(item) = scope.item
        {
            return self.walk(path, var, item, &rest, format_args!("`item`"));
        }
        if let Some(sch) = scope.steps.get(root) {
            return self.walk(path, var, *sch, &rest, format_args!("the result of step `{root}`"));
        }
        if scope.params.contains_key(root) || self.cat.context.contains_key(root) {
            if rest.is_empty() {
                return Some(None);
            }
            self.diags.err(
                "unknown-field",
                path,
                format!("`{{{var}}}`: `{root}` is a parameter or context variable, it has no fields"),
                "only a step's JSON result (`json:` on the step) has fields",
            );
        } else if let Some(Some(row)) = scope.row {
            let fields = child(row, "\u{0}").err().unwrap_or_default();
            let help = hint(root, &fields, "the rows' fields");
            self.diags.err(
                "unknown-field",
                path,
                format!("`{{{var}}}` names no field of the rows"),
                help,
            );
        } else {
            self.diags.err(
                "unknown-step",
                path,
                format!("`{{{var}}}`: `{root}` is no earlier step with a `json` result, parameter or context variable"),
                hint(root, &self.names(scope), "names known here"),
            );
        }
        None
    }

    /// Every variable a compute step's expression reads is a parameter, a context variable, an
    /// earlier step's data, `item` under `for_each`, or `runtime`: a misspelt name is an error
    /// here instead of a failed step at run time.
    fn expression(&mut self, path: &str, src: &str, scope: &Scope) {
        for (var, line, col) in ixgen_runtime::expr::free_variables_at(src).unwrap_or_default() {
            if !self.is_named(&var, scope) {
                self.diags.push(
                    Diagnostic::inside(
                        "unknown-step",
                        path,
                        line,
                        col,
                        format!("the expression reads `{var}`, which is no parameter, context variable or earlier step with data"),
                    )
                    .help(hint(&var, &self.names(scope), "names known here")),
                );
            }
        }
    }

    /// Every name a reference may start with here, sorted (for a hint).
    fn names(&self, scope: &Scope) -> Vec<String> {
        let item = scope.item.map(|_| "item");
        let context = self.cat.context.keys().map(String::as_str).chain(item);
        let names = scope.steps.keys().chain(scope.params.keys()).copied().chain(context);
        let mut known: Vec<String> = names.map(String::from).collect();
        known.sort();
        known
    }

    fn is_named(&self, root: &str, scope: &Scope) -> bool {
        scope.params.contains_key(root)
            || scope.steps.contains_key(root)
            || self.cat.context.contains_key(root)
            || (root == "item" && scope.item.is_some())
    }

    /// `what` names the start in a message; formatted only for one.
    fn walk(
        &mut self,
        path: &str,
        var: &str,
        start: Sch<'a>,
        rest: &[&str],
        what: std::fmt::Arguments,
    ) -> Option<Sch<'a>> {
        let mut cur = start;
        for seg in rest {
            let Some(s) = cur else { return Some(None) };
            match child(s, seg) {
                Ok(next) => cur = next,
                Err(known) => {
                    self.diags.err(
                        "unknown-field",
                        path,
                        format!("`{{{var}}}`: no field `{seg}` in the schema of {what}"),
                        hint(seg, &known, "its fields"),
                    );
                    return None;
                }
            }
        }
        Some(cur)
    }

    fn cond(&mut self, path: &str, c: &'a Cond, scope: &Scope<'a>) {
        for (key, list) in [("all", &c.all), ("any", &c.any)] {
            for (i, sub) in list.iter().flatten().enumerate() {
                self.cond(&format!("{path}.{key}[{i}]"), sub, scope);
            }
        }
        if let Some(sub) = &c.not {
            self.cond(&format!("{path}.not"), sub, scope);
        }
        let cmps = [c.lt, c.lte, c.gt, c.gte].iter().filter(|x| x.is_some()).count();
        let Some(field) = &c.field else {
            if cmps > 0 {
                self.diags.err(
                    "bad-condition",
                    path,
                    "`lt`, `lte`, `gt`, `gte` go with `field`",
                    "e.g. `{field: impact.summary.directDependents, gte: 3}`",
                );
            }
            return;
        };
        let tests =
            cmps + usize::from(c.in_values.is_some()) + usize::from(c.equals.is_some()) + usize::from(c.set.is_some());
        let others = c.param.is_some()
            || c.step.is_some()
            || c.all.is_some()
            || c.any.is_some()
            || c.not.is_some()
            || c.contains.is_some()
            || c.matches.is_some()
            || c.failed.is_some();
        if tests != 1 || others {
            self.diags.err(
                "bad-condition",
                path,
                "a field condition has `field` and exactly one of `in`, `equals`, `set`, `lt`, `lte`, `gt`, `gte`",
                "e.g. `{field: impact.riskLevel, in: [medium, high, critical]}`",
            );
        }
        self.resolve(&format!("{path}.field"), field, scope);
    }
}

/// Whether a condition looks at step data.
fn cond_uses_fields(c: &Cond) -> bool {
    c.field.is_some()
        || c.all
            .iter()
            .flatten()
            .chain(c.any.iter().flatten())
            .any(cond_uses_fields)
        || c.not.as_deref().is_some_and(cond_uses_fields)
}

fn hint(name: &str, known: &[String], what: &str) -> String {
    match crate::diagnostic::did_you_mean(name, known) {
        Some(m) => format!("did you mean `{m}`?"),
        None if known.is_empty() => "declare it, or check the spelling".to_string(),
        None => format!("{what}: {}", known.join(", ")),
    }
}

#[cfg(test)]
/// The data checks, through the whole lowering pass.
mod tests {
    use crate::error::Error;

    /// The diagnostic codes of a one-tool catalog whose tool ends with `tail` (YAML at the tool's
    /// indentation); empty when it is valid.
    fn codes(tail: &str) -> Vec<String> {
        let text = format!(
            r#"version: 1
product: {{name: demo, version: 1.0.0, description: Demo}}
cli: {{binary: demo}}
schemas:
  r:
    type: object
    properties:
      a: {{anyOf: [{{type: object, properties: {{x: {{type: integer}}}}}}, {{type: "null"}}]}}
      m: {{type: object, additionalProperties: {{type: object, properties: {{n: {{type: string}}}}}}}}
      list: {{type: array, items: {{type: object, properties: {{k: {{type: string}}}}}}}}
      s: {{type: string}}
toolsets: {{main: {{tools: [t]}}}}
tools:
  - name: t
    description: A tool
    params:
      q: {{type: string}}
      n: {{type: integer, default: 3}}
{tail}
"#
        );
        // The data checks run in the lowering pass, with every other check of a tool.
        let loaded = crate::catalog::load_text("t.yaml", text.as_bytes());
        match loaded.and_then(|l| crate::model::lower(l, "t.yaml", |_| Vec::new())) {
            Ok(_) => Vec::new(),
            Err(Error::Catalog { diagnostics, .. }) => diagnostics.iter().map(|d| d.code.to_string()).collect(),
            Err(e) => panic!("{e}"),
        }
    }

    const STEP: &str = "    steps:\n      - id: r\n        run: [get, --format, json]\n        json: r\n";

    /// [`codes`] of the tool with step `r` ([`STEP`]) and the `output` blocks `blocks`.
    fn output(blocks: &str) -> Vec<String> {
        codes(&format!("{STEP}    output:\n{blocks}"))
    }

    #[test]
    fn paths_follow_any_of_additional_properties_and_untyped_results() {
        let ok = "      - text: \"{r.a.x} {r.m.anything.n} {r.list.0.k} {r.list|count}\"\n";
        assert_eq!(output(ok), Vec::<String>::new());
        let untyped = "    steps:\n      - id: u\n        run: [get]\n        json: true\n    output:\n      - text: \"{u.whatever.deep}\"\n";
        assert_eq!(codes(untyped), Vec::<String>::new());
        assert_eq!(output("      - text: \"{r.m.anything.nope}\"\n"), ["unknown-field"]);
    }

    #[test]
    fn parameters_have_no_fields_and_strings_are_not_lists() {
        assert_eq!(output("      - text: \"{q.x}\"\n"), ["unknown-field"]);
        let over_string = "      - list: r.s\n        item: \"{item}\"\n";
        assert_eq!(output(over_string), ["not-an-array"]);
    }

    #[test]
    fn misuses_of_json_limit_and_output_schema_are_reported() {
        assert_eq!(
            codes("    steps:\n      - run: [get]\n        json: true\n"),
            ["bad-json"]
        );
        assert_eq!(
            codes("    steps:\n      - run: [get]\n        limit: 3\n"),
            ["bad-step"]
        );
        let limit_of_string = "      - list: r.list\n        item: \"{k}\"\n        limit: \"{q}\"\n";
        assert_eq!(output(limit_of_string), ["bad-output"]);
        let limit_of_number = "      - list: r.list\n        item: \"{k}\"\n        limit: \"{n}\"\n";
        assert_eq!(output(limit_of_number), Vec::<String>::new());
        assert_eq!(codes(&format!("{STEP}    output_schema: nope\n")), ["unknown-schema"]);
        assert_eq!(
            codes(&format!("{STEP}    output_schema: {{type: array}}\n")),
            ["bad-output-schema"]
        );
        assert_eq!(output("      - text: x\n        list: r.list\n"), ["bad-output"]);
    }

    /// The output schema describes one step's data: the step whose `json` names it (or is it).
    #[test]
    fn an_output_schema_is_the_schema_of_one_steps_data() {
        assert_eq!(codes(&format!("{STEP}    output_schema: r\n")), Vec::<String>::new());
        let inline = "{type: object, properties: {k: {type: string}}}";
        let same = format!("    steps:\n      - id: i\n        run: [get]\n        json: {inline}\n");
        assert_eq!(
            codes(&format!("{same}    output_schema: {inline}\n")),
            Vec::<String>::new()
        );
        // A step that prints text, a step with no id, a step of another schema: no structured result.
        let text = "    steps:\n      - run: [get, --format, json]\n    output_schema: r\n";
        assert_eq!(codes(text), ["bad-output-schema"]);
        assert_eq!(codes(&format!("{same}    output_schema: r\n")), ["bad-output-schema"]);
        let each = "    steps:\n      - id: u\n        run: [get]\n        json: true\n      - id: e\n        for_each: u\n        run: [get, \"{item}\"]\n        json: r\n";
        assert_eq!(codes(&format!("{each}    output_schema: r\n")), ["bad-output-schema"]);
        let two = format!("{STEP}      - id: r2\n        run: [get]\n        json: r\n    output_schema: r\n");
        assert_eq!(codes(&two), ["bad-output-schema"]);
    }

    #[test]
    fn a_parallel_step_cannot_branch_on_another_steps_data() {
        let par = "    parallel: true\n    steps:\n      - id: r\n        run: [get]\n        json: r\n      - run: [more]\n        when: {field: r.s, set: true}\n";
        assert_eq!(codes(par), ["bad-condition"]);
        let seq = par.replace("    parallel: true\n", "");
        assert_eq!(codes(&seq), Vec::<String>::new());
    }
}
