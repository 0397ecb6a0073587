//! Step data flow and rendered output: the checks of every reference into step results (the
//! YAML types of the `output` blocks and of a step's `json` shape are in `super::types`).
//!
//! A step that declares `json` makes its parsed stdout a variable named by its `id`; later
//! steps, conditions (`field:`), `for_each` and the `output` blocks refer to its fields by path
//! (`{locate.resolvedTarget.name}`). Where the step names a JSON Schema, every path is checked
//! against it here, at validate time, with the catalog path of the reference. This module only
//! checks; `crate::model` lowers the blocks into [`crate::spec::SpecBlock`]s.

pub use super::types::{Block, Limit, Mark, RichValue, Shape, Value_};
use super::types::{Catalog, Cond, Param, Step, Tool};
use crate::diagnostic::Diagnostic;
use crate::template::Template;
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

/// Whether a schema node can be an array (unknown counts as yes).
fn is_array(s: Sch) -> bool {
    s.is_none_or(|s| {
        branches(s)
            .iter()
            .any(|b| has_type(b, "array") || b.get("items").is_some())
    })
}

/// The element schema of an array node.
fn element(s: Sch) -> Sch {
    s.and_then(|s| branches(s).into_iter().find_map(|b| b.get("items")))
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

/// The schema of a step's `parse` records or `capture`d run, or `None` when it has neither.
fn step_data_schema(step: &Step) -> Option<Value> {
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

struct Checker<'a> {
    cat: &'a Catalog,
    diags: Vec<Diagnostic>,
}

/// Checks the data references and the output blocks of one tool.
pub fn check_tool(cat: &Catalog, path: &str, tool: &Tool) -> Vec<Diagnostic> {
    let mut params: HashMap<&str, &Param> = tool.params.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for n in &tool.use_params {
        if let Some(p) = cat.params.get(n) {
            params.insert(n.as_str(), p);
        }
    }
    // The shapes of `parse` and `capture` data, known from the step itself: references into
    // them are checked as into a declared schema.
    let made: Vec<Option<Value>> = tool.steps.iter().map(step_data_schema).collect();
    let mut c = Checker { cat, diags: Vec::new() };
    let mut scope = Scope {
        params: &params,
        steps: IndexMap::new(),
        item: None,
        row: None,
    };
    if tool.runtime.is_some() {
        // Set when the route failed and the steps run instead.
        scope.steps.insert("runtime", Some(&RUNTIME_SCHEMA));
    }
    // `confirm.preview` reads the parameters and the data of the steps up to `confirm.after`
    // (none without it): it is checked in the scope it is rendered in.
    let preview = match &tool.confirm {
        Some(super::types::Confirm::Rules(r)) => r.preview.as_deref().map(|p| (p, r.after.as_deref())),
        _ => None,
    };
    let ppath = format!("{path}.confirm.preview");
    if let Some((text, None)) = preview {
        c.preview(&ppath, text, tool, None, &scope);
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
        if let Some((text, Some(after))) = preview
            && step.id.as_deref() == Some(after)
        {
            c.preview(&ppath, text, tool, Some(after), &scope);
        }
    }
    if let Some(shape) = &tool.output_schema {
        let opath = format!("{path}.output_schema");
        let sch = c.shape(&opath, shape);
        // MCP: `structuredContent` is an object, so its schema's root must be one.
        if matches!(shape, Shape::Any(_)) || sch.is_some_and(|s| !has_type(s, "object")) {
            c.diags.push(
                Diagnostic::error(
                    "bad-output-schema",
                    opath,
                    "an output schema must be an object schema (`type: object`)",
                )
                .help("MCP carries structured results as objects; name a schema whose root is `type: object`"),
            );
        }
    }
    for (b, block) in tool.output.iter().enumerate() {
        c.block(&format!("{path}.output[{b}]"), block, &scope);
    }
    c.diags
}

impl<'a> Checker<'a> {
    fn shape(&mut self, path: &str, shape: &'a Shape) -> Sch<'a> {
        match shape {
            Shape::Any(true) => None,
            Shape::Any(false) => {
                self.diags.push(
                    Diagnostic::error("bad-json", path, "`json: false` declares nothing")
                        .help("remove `json`, or write `json: true`"),
                );
                None
            }
            Shape::Named(n) => match self.cat.schemas.get(n) {
                Some(s) => Some(s),
                None => {
                    let known: Vec<&String> = self.cat.schemas.keys().collect();
                    self.diags.push(
                        Diagnostic::error("unknown-schema", path, format!("no schema `{n}` under `schemas`")).help(
                            super::validate::hint_for(n, &known, "declare it under the top-level `schemas`"),
                        ),
                    );
                    None
                }
            },
            Shape::Inline(v) => Some(v),
        }
    }

    fn step(&mut self, path: &str, tool: &Tool, step: &'a Step, scope: &Scope<'a>) {
        let mut inner = scope.clone();
        if let Some(fe) = &step.for_each
            && fe.contains('.') | scope.steps.contains_key(fe.as_str())
        {
            // Whatever is wrong with it, `item` exists below, so one fault gives one error.
            inner.item = Some(None);
            match self.resolve(&format!("{path}.for_each"), fe, scope) {
                Some(sch) if !is_array(sch) => self.diags.push(
                    Diagnostic::error(
                        "not-an-array",
                        format!("{path}.for_each"),
                        format!("`for_each` needs an array, and `{fe}` is not one in its schema"),
                    )
                    .help("point it at an array field of the step's result"),
                ),
                Some(sch) => inner.item = Some(element(sch)),
                None => {}
            }
        } else if step.for_each.is_some() {
            inner.item = Some(None);
        }
        if let Some(src) = &step.compute {
            self.expression(&format!("{path}.compute"), src, &inner);
        }
        if step.limit.is_some() && step.for_each.is_none() {
            self.diags.push(
                Diagnostic::error(
                    "bad-step",
                    format!("{path}.limit"),
                    "`limit` applies to `for_each` steps",
                )
                .at_key()
                .help("remove it, or add `for_each`"),
            );
        }
        if step.compute.is_some() && step.id.is_none() {
            self.diags.push(
                Diagnostic::error("bad-step", format!("{path}.compute"), "a `compute` step needs an `id`")
                    .at_key()
                    .help("give the step an `id`: later steps and `output` use its value by it"),
            );
        }
        if step.compute.is_some() && step.json.is_some() {
            self.diags.push(
                Diagnostic::error(
                    "bad-json",
                    format!("{path}.json"),
                    "a `compute` step's value is data already",
                )
                .at_key()
                .help("remove `json`"),
            );
        }
        if step.json.is_some() && step.id.is_none() {
            self.diags.push(
                Diagnostic::error("bad-json", format!("{path}.json"), "a `json` step needs an `id`")
                    .at_key()
                    .help("give the step an `id`: later steps and `output` refer to its result by it"),
            );
        }
        if let Some(when) = &step.when {
            if tool.parallel && cond_uses_fields(when) {
                self.diags.push(
                    Diagnostic::error(
                        "bad-condition",
                        format!("{path}.when"),
                        "a parallel tool's steps cannot depend on each other's results",
                    )
                    .help("remove `parallel: true`, or move the condition into `output`"),
                );
            }
            self.cond(&format!("{path}.when"), when, scope);
        }
        let mut texts: Vec<(String, &str)> = Vec::new();
        if let Some(t) = &step.title {
            texts.push((format!("{path}.title"), t));
        }
        if let Some(t) = &step.message {
            texts.push((format!("{path}.message"), t));
        }
        if let Some(t) = &step.stdin {
            texts.push((format!("{path}.stdin"), t));
        }
        for (a, arg) in step.run.iter().flatten().enumerate() {
            match arg {
                super::types::Arg::Text(t) => texts.push((format!("{path}.run[{a}]"), t)),
                super::types::Arg::Special(s) => {
                    if let Some(v) = &s.value {
                        texts.push((format!("{path}.run[{a}].value"), v));
                    }
                }
            }
        }
        // Plain names in step templates are checked by `super::validate`; paths are checked here.
        for (p, t) in texts {
            self.template(&p, t, &inner, true);
        }
    }

    fn block(&mut self, path: &str, b: &'a Block, scope: &Scope<'a>) {
        let kinds = [
            ("text", b.text.is_some()),
            ("fields", b.fields.is_some()),
            ("list", b.list.is_some()),
            ("table", b.table.is_some()),
        ];
        let present: Vec<&str> = kinds.iter().filter(|k| k.1).map(|k| k.0).collect();
        if present.len() != 1 {
            self.diags.push(
                Diagnostic::error(
                    "bad-output",
                    path,
                    format!(
                        "an output block is exactly one of `text`, `fields`, `list`, `table`; this one has {}",
                        if present.is_empty() {
                            "none".to_string()
                        } else {
                            present.join(" and ")
                        }
                    ),
                )
                .help("split it into several blocks"),
            );
            return;
        }
        if let Some(w) = &b.when {
            self.cond(&format!("{path}.when"), w, scope);
        }
        let misplaced = |key: &str, set: bool, want: &str| -> Option<Diagnostic> {
            set.then(|| {
                Diagnostic::error(
                    "bad-output",
                    format!("{path}.{key}"),
                    format!("`{key}` applies to {want}"),
                )
                .at_key()
                .help("remove it")
            })
        };
        let is_seq = b.list.is_some() || b.table.is_some();
        let bad = [
            misplaced("title", b.title.is_some() && !is_seq, "`list` and `table` blocks"),
            misplaced("limit", b.limit.is_some() && !is_seq, "`list` and `table` blocks"),
            misplaced("total", b.total.is_some() && !is_seq, "`list` and `table` blocks"),
            misplaced("empty", b.empty.is_some() && !is_seq, "`list` and `table` blocks"),
            misplaced("item", b.item.is_some() && b.list.is_none(), "`list` blocks"),
            misplaced("columns", b.columns.is_some() && b.table.is_none(), "`table` blocks"),
        ];
        self.diags.extend(bad.into_iter().flatten());
        if let Some(Limit::Param(p)) = &b.limit {
            let name = Template::parse(p).ok().and_then(|t| t.single_var().map(str::to_string));
            let ok = name
                .as_deref()
                .and_then(|n| scope.params.get(n))
                .is_some_and(|q| matches!(q.ty, super::types::ParamType::Integer | super::types::ParamType::Number));
            if !ok {
                self.diags.push(
                    Diagnostic::error(
                        "bad-output",
                        format!("{path}.limit"),
                        format!("`limit: {p}` names no number parameter"),
                    )
                    .help("write a number, or `\"{name}\"` of an integer parameter"),
                );
            }
        }
        if let Some(t) = &b.text {
            self.template(&format!("{path}.text"), t, scope, false);
        }
        for (label, v) in b.fields.iter().flatten() {
            self.value(&format!("{path}.fields.{label}"), v, scope);
        }
        for (key, seq) in [("list", &b.list), ("table", &b.table)] {
            let Some(seq) = seq else { continue };
            if let Some(t) = &b.title {
                self.template(&format!("{path}.title"), t, scope, false);
            }
            if let Some(t) = &b.empty {
                self.template(&format!("{path}.empty"), t, scope, false);
            }
            if let Some(t) = &b.total {
                self.resolve(&format!("{path}.total"), t, scope);
            }
            let Some(sch) = self.resolve(&format!("{path}.{key}"), seq, scope) else {
                continue;
            };
            if !is_array(sch) {
                self.diags.push(
                    Diagnostic::error(
                        "not-an-array",
                        format!("{path}.{key}"),
                        format!("`{key}` needs an array, and `{seq}` is not one in its schema"),
                    )
                    .help("point it at an array field of a step's result"),
                );
                continue;
            }
            let mut row = scope.clone();
            row.row = Some(element(sch));
            match (key, &b.item, &b.columns) {
                ("list", Some(item), _) => self.value(&format!("{path}.item"), item, &row),
                ("list", None, _) => self.diags.push(
                    Diagnostic::error("bad-output", path, "a `list` block needs an `item` row")
                        .help("e.g. `item: \"{name|code} ({kind})\"`"),
                ),
                (_, _, Some(cols)) => {
                    for (header, v) in cols {
                        self.value(&format!("{path}.columns.{header}"), v, &row);
                    }
                }
                _ => self.diags.push(
                    Diagnostic::error("bad-output", path, "a `table` block needs `columns`")
                        .help("e.g. `columns: {Name: \"{name}\", Files: \"{files}\"}`"),
                ),
            }
        }
    }

    fn value(&mut self, path: &str, v: &'a Value_, scope: &Scope<'a>) {
        match v {
            Value_::Template(t) => self.template(path, t, scope, false),
            Value_::Rich(r) => {
                if r.value.is_some() == r.map.is_some() {
                    self.diags.push(
                        Diagnostic::error("bad-output", path, "a value has exactly one of `value`, `map`")
                            .help("e.g. `{map: impact.riskLevel, to: {low: SAFE}}` or `{value: \"{x}\", mark: …}`"),
                    );
                }
                if let Some(t) = &r.value {
                    self.template(&format!("{path}.value"), t, scope, false);
                }
                if let Some(m) = &r.map {
                    self.resolve(&format!("{path}.map"), m, scope);
                    if r.to.is_empty() {
                        self.diags.push(
                            Diagnostic::error("bad-output", format!("{path}.map"), "`map` needs `to`")
                                .help("e.g. `to: {low: SAFE TO PROCEED}`"),
                        );
                    }
                } else if !r.to.is_empty() || r.otherwise.is_some() {
                    self.diags.push(
                        Diagnostic::error("bad-output", path, "`to` and `else` go with `map`")
                            .help("add `map: <field>`"),
                    );
                }
                for (k, t) in &r.to {
                    self.template(&format!("{path}.to.{k}"), t, scope, false);
                }
                if let Some(t) = &r.otherwise {
                    self.template(&format!("{path}.else"), t, scope, false);
                }
                if let Some(m) = &r.mark {
                    self.cond(&format!("{path}.mark.when"), &m.when, scope);
                }
            }
        }
    }

    /// Checks a template's references; `paths_only` leaves plain names to `super::validate`.
    fn template(&mut self, path: &str, text: &str, scope: &Scope<'a>, paths_only: bool) {
        // A template that does not parse is reported by `super::validate` (steps) or here.
        let t = match Template::parse(text) {
            Ok(t) => t,
            Err(e) => {
                if !paths_only {
                    self.diags.push(
                        Diagnostic::error("bad-template", path, e.message)
                            .help("placeholders are `{name}` or `{step.field}`; `{{` and `}}` are literal braces"),
                    );
                }
                return;
            }
        };
        for var in t.vars() {
            if paths_only && !var.contains('.') && !scope.steps.contains_key(var) {
                continue;
            }
            self.resolve(path, var, scope);
        }
    }

    /// `confirm.preview`: every variable is a parameter, a context variable or the data of a
    /// step up to `after`. A step that runs after the question is named as such, since its data
    /// does not exist yet when the user is asked.
    fn preview(&mut self, path: &str, text: &str, tool: &Tool, after: Option<&str>, scope: &Scope<'a>) {
        let Ok(t) = Template::parse(text) else {
            // Reported by the lowering, which parses it.
            return;
        };
        for var in t.vars() {
            let root = var.split('.').next().unwrap_or_default();
            let later = !scope.steps.contains_key(root)
                && !scope.params.contains_key(root)
                && !self.cat.context.contains_key(root)
                && tool.steps.iter().any(|s| s.id.as_deref() == Some(root));
            if later {
                let when = after.map_or("before any step runs".to_string(), |a| format!("after step `{a}`"));
                self.diags.push(
                    Diagnostic::error(
                        "unknown-step",
                        path,
                        format!("`{{{var}}}`: step `{root}` runs only once the user agreed, and the question is asked {when}"),
                    )
                    .help("preview only the data of the steps up to `confirm.after`, or move `after` to a later step that does not change state"),
                );
            } else {
                self.resolve(path, var, scope);
            }
        }
    }

    /// Resolves a variable path; reports and returns `None` when it names nothing. `Some(None)`
    /// is a path into data without a declared schema.
    fn resolve(&mut self, path: &str, var: &str, scope: &Scope<'a>) -> Option<Sch<'a>> {
        let mut segs = var.split('.');
        let root = segs.next().unwrap_or_default();
        let rest: Vec<&str> = segs.collect();
        // A row's own fields come first, then `item`, earlier steps, parameters and context.
        let start: Sch<'a>;
        let what: String;
        if root == "item"
            && let Some(row) = scope.row
        {
            // Inside a row, `item` is the row itself.
            return self.walk(path, var, row, &rest, "the row");
        } else if let Some(row) = scope.row
            && let Some(hit) = row.map_or(Some(None), |r| child(r, root).ok())
            && !(row.is_none() && self.is_named(root, scope))
        {
            start = hit;
            what = "the row".into();
        } else if root == "item"
            && let Some(item) = scope.item
        {
            if rest.is_empty() {
                return Some(item);
            }
            start = item;
            what = "`item`".into();
            return self.walk(path, var, start, &rest, &what);
        } else if let Some(sch) = scope.steps.get(root) {
            start = *sch;
            what = format!("the result of step `{root}`");
            return self.walk(path, var, start, &rest, &what);
        } else if scope.params.contains_key(root) || self.cat.context.contains_key(root) {
            if rest.is_empty() {
                return Some(None);
            }
            self.diags.push(
                Diagnostic::error(
                    "unknown-field",
                    path,
                    format!("`{{{var}}}`: `{root}` is a parameter or context variable, it has no fields"),
                )
                .help("only a step's JSON result (`json:` on the step) has fields"),
            );
            return None;
        } else if let Some(Some(row)) = scope.row {
            let fields = child(row, "\u{0}").err().unwrap_or_default();
            self.diags.push(
                Diagnostic::error("unknown-field", path, format!("`{{{var}}}` names no field of the rows")).help(hint(
                    root,
                    &fields,
                    "the rows' fields",
                )),
            );
            return None;
        } else {
            let mut known: Vec<String> = scope.steps.keys().map(|s| s.to_string()).collect();
            known.extend(scope.params.keys().map(|s| s.to_string()));
            known.extend(self.cat.context.keys().cloned());
            if scope.item.is_some() {
                known.push("item".into());
            }
            known.sort();
            self.diags.push(
                Diagnostic::error(
                    "unknown-step",
                    path,
                    format!(
                        "`{{{var}}}`: `{root}` is no earlier step with a `json` result, parameter or context variable"
                    ),
                )
                .help(hint(root, &known, "names known here")),
            );
            return None;
        }
        self.walk(path, var, start, &rest, &what)
    }

    /// Every variable a compute step's expression reads is a parameter, a context variable, an
    /// earlier step's data, `item` under `for_each`, or `runtime`: a misspelt name is an error
    /// here instead of a failed step at run time.
    fn expression(&mut self, path: &str, src: &str, scope: &Scope) {
        for (var, line, col) in ixgen_runtime::expr::free_variables_at(src).unwrap_or_default() {
            let known = scope.params.contains_key(var.as_str())
                || self.cat.context.contains_key(&var)
                || scope.steps.contains_key(var.as_str())
                || (var == "item" && scope.item.is_some());
            if !known {
                let mut names: Vec<String> = scope.steps.keys().map(|s| s.to_string()).collect();
                names.extend(scope.params.keys().map(|s| s.to_string()));
                names.extend(self.cat.context.keys().cloned());
                if scope.item.is_some() {
                    names.push("item".into());
                }
                names.sort();
                self.diags.push(
                    Diagnostic::inside(
                        "unknown-step",
                        path,
                        line,
                        col,
                        format!("the expression reads `{var}`, which is no parameter, context variable or earlier step with data"),
                    )
                    .help(hint(&var, &names, "names known here")),
                );
            }
        }
    }

    fn is_named(&self, root: &str, scope: &Scope) -> bool {
        scope.params.contains_key(root)
            || scope.steps.contains_key(root)
            || self.cat.context.contains_key(root)
            || (root == "item" && scope.item.is_some())
    }

    fn walk(&mut self, path: &str, var: &str, start: Sch<'a>, rest: &[&str], what: &str) -> Option<Sch<'a>> {
        let mut cur = start;
        for seg in rest {
            let Some(s) = cur else { return Some(None) };
            match child(s, seg) {
                Ok(next) => cur = next,
                Err(known) => {
                    self.diags.push(
                        Diagnostic::error(
                            "unknown-field",
                            path,
                            format!("`{{{var}}}`: no field `{seg}` in the schema of {what}"),
                        )
                        .help(hint(seg, &known, "its fields")),
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
                self.diags.push(
                    Diagnostic::error("bad-condition", path, "`lt`, `lte`, `gt`, `gte` go with `field`")
                        .help("e.g. `{field: impact.summary.directDependents, gte: 3}`"),
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
            self.diags.push(
                Diagnostic::error(
                    "bad-condition",
                    path,
                    "a field condition has `field` and exactly one of `in`, `equals`, `set`, `lt`, `lte`, `gt`, `gte`",
                )
                .help("e.g. `{field: impact.riskLevel, in: [medium, high, critical]}`"),
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
