//! The interpreter: a transcription of `templates/opencode/runtime.ts` (`runTool` and its helpers),
//! function by function and in the same order of effects, so that the two runtimes answer the
//! same text. Where JavaScript's semantics matter (numbers, `JSON.stringify`, `undefined` as
//! distinct from `null`) this file goes through `crate::js`; a variable that is `undefined` in
//! the TypeScript runtime is `None` here.

use crate::js;
use crate::proc::{self, Proc};
use crate::redact::{redact, redact_deep};
use crate::spec::*;
use crate::template::{Fmt, Part, Template};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A confirmation request to the host (OpenCode's `ctx.ask`).
#[derive(Debug, Clone)]
pub struct Ask {
    pub permission: String,
    /// The rendered subject, what the user is asked about.
    pub subject: String,
    /// The rendered preview (`confirm.preview`): what the call will do, computed by the steps
    /// that ran before the question (the diff of an edit, the files of a commit).
    pub preview: Option<String>,
}

/// A host's way of asking the user: `Ok` to run, `Err(why)` when refused.
pub type AskFn<'a> = &'a (dyn Fn(&Ask) -> Result<(), String> + Sync);

/// What the host gives a call.
#[derive(Default, Clone, Copy)]
pub struct Ctx<'a> {
    /// The worktree: programs run there, and `path` parameters must stay inside it.
    pub cwd: Option<&'a Path>,
    /// How to ask the user before a tool with `confirm` runs; without it such a tool does not run.
    pub ask: Option<AskFn<'a>>,
    /// The call's cancellation: cancelled, its programs are stopped and the answer ends `_Cancelled._`.
    pub cancel: Option<&'a proc::Cancel>,
}

/// A tool's answer: the markdown, and whether the tool failed (MCP's `isError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    pub is_error: bool,
    /// The data of the steps that ran, by id (a `json`, `parse`, `capture` or `compute` step's):
    /// what `output` renders, and where a host finds the tool's structured result (MCP
    /// `structuredContent`). Empty when no step ran.
    pub data: Map<String, Value>,
}

/// The variables of a call: context, arguments, step results, and the parameters that keep `""`.
#[derive(Clone, Default)]
struct Vars {
    map: Map<String, Value>,
    keep: Option<std::sync::Arc<HashSet<String>>>,
}

impl Vars {
    fn get(&self, k: &str) -> Option<Value> {
        let segs: Vec<&str> = k.split('.').collect();
        let first = self.map.get(segs[0])?;
        path(first, &segs[1..])
    }
    fn with(&self, k: &str, v: Option<Value>) -> Vars {
        let mut out = self.clone();
        match v {
            Some(v) => {
                out.map.insert(k.to_string(), v);
            }
            None => {
                out.map.shift_remove(k);
            }
        }
        out
    }
}

fn is_index(seg: &str) -> bool {
    !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit())
}

/// `__ixgenGet` below the first segment: a field of an array of objects is the array of that field.
fn path(v: &Value, segs: &[&str]) -> Option<Value> {
    let mut v = v;
    for (i, seg) in segs.iter().enumerate() {
        if let Value::Array(items) = v
            && !is_index(seg)
        {
            return Some(Value::Array(
                items
                    .iter()
                    .map(|x| path(x, &segs[i..]).unwrap_or(Value::Null))
                    .collect(),
            ));
        }
        v = match v {
            Value::Object(m) => m.get(*seg)?,
            Value::Array(items) => {
                let n: usize = seg.parse().ok()?;
                if n.to_string() != *seg {
                    return None;
                }
                items.get(n)?
            }
            _ => return None,
        };
    }
    Some(v.clone())
}

fn get_obj(m: &Map<String, Value>, k: &str) -> Option<Value> {
    Vars {
        map: m.clone(),
        keep: None,
    }
    .get(k)
}

fn is_set(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => true,
    }
}

/// `__ixgenStr`.
pub(crate) fn str_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Array(items)) => items.iter().map(|x| str_of(Some(x))).collect::<Vec<_>>().join(", "),
        Some(Value::Object(_)) => js::stringify(v.expect("matched")),
        Some(x) => js::string(x),
    }
}

fn kept_empty(vars: &Vars, k: &str) -> bool {
    vars.keep.as_ref().is_some_and(|keep| keep.contains(k)) && vars.get(k) == Some(Value::String(String::new()))
}

/// Given: set, or a kept `""` (what `require`, `forbid`, a rule's `default` and a `set` condition test).
fn given(vars: &Vars, k: &str) -> bool {
    is_set(vars.get(k).as_ref()) || kept_empty(vars, k)
}

/// The parameters whose `""` is a value (`keep_empty`).
fn keep_empty(spec: &ExecSpec) -> std::sync::Arc<HashSet<String>> {
    std::sync::Arc::new(
        spec.params
            .iter()
            .filter(|p| p.keep_empty)
            .map(|p| p.name.clone())
            .collect(),
    )
}

fn render(t: &Template, vars: &Vars, md: bool) -> String {
    t.0.iter()
        .map(|p| match p {
            Part::Text(s) => s.clone(),
            Part::Var(v) => fmt(vars.get(v).as_ref(), None, md),
            Part::Fmt(v, f) => fmt(vars.get(v).as_ref(), Some(*f), md),
        })
        .collect()
}

fn tpl_set(t: &Template, vars: &Vars) -> bool {
    t.0.iter().all(|p| match p {
        Part::Text(_) => true,
        Part::Var(v) | Part::Fmt(v, _) => is_set(vars.get(v).as_ref()) || kept_empty(vars, v),
    })
}

fn json_t(j: &JsonT, vars: &Vars) -> Value {
    match j {
        JsonT::Lit(v) => v.clone(),
        JsonT::Var(k) => vars.get(k).unwrap_or(Value::Null),
        JsonT::Tpl(t) => Value::String(render(t, vars, false)),
        JsonT::Arr(items) => Value::Array(items.iter().map(|x| json_t(x, vars)).collect()),
        JsonT::Obj(fields) => Value::Object(
            fields
                .iter()
                .filter(|(_, x)| !matches!(x, JsonT::Var(k) if !is_set(vars.get(k).as_ref())))
                .map(|(k, x)| (k.clone(), json_t(x, vars)))
                .collect(),
        ),
    }
}

/// Every maximal run of whitespace that holds a line break, as one space (`/\s*[\r\n]+\s*/g`).
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut run = String::new();
    let mut broke = false;
    let flush = |out: &mut String, run: &mut String, broke: &mut bool| {
        if *broke {
            out.push(' ');
        } else {
            out.push_str(run);
        }
        run.clear();
        *broke = false;
    };
    for c in s.chars() {
        if js::is_space(c) {
            run.push(c);
            broke |= c == '\r' || c == '\n';
        } else {
            flush(&mut out, &mut run, &mut broke);
            out.push(c);
        }
    }
    flush(&mut out, &mut run, &mut broke);
    out
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for x in s.chars() {
        cur = if x == c { cur + 1 } else { 0 };
        best = best.max(cur);
    }
    best
}

/// A code fence longer than any backtick run inside.
fn fence(body: &str) -> String {
    let f = "`".repeat(longest_run(body, '`').max(2) + 1);
    format!("{f}\n{body}\n{f}")
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = js::trim(s).split('\n').collect();
    let t = lines[lines.len().saturating_sub(20)..].join("\n");
    if js::len16(&t) > 2000 {
        format!("…{}", js::tail16(&t, 2000))
    } else {
        t
    }
}

/// The one markdown escaper of data values.
fn md_esc(s: &str) -> String {
    let mut out = String::new();
    for c in one_line(s).chars() {
        if matches!(c, '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    if out.starts_with(['#', '+', '-']) {
        out.insert(0, '\\');
    }
    out
}

fn code(s: &str) -> String {
    let t = one_line(s);
    let f = "`".repeat(longest_run(&t, '`') + 1);
    let pad = if t.starts_with('`') || t.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{f}{pad}{t}{pad}{f}")
}

fn fmt(v: Option<&Value>, f: Option<Fmt>, md: bool) -> String {
    match f {
        Some(Fmt::Count) => {
            return js::num(if let Some(Value::Array(a)) = v {
                a.len() as f64
            } else {
                0.0
            });
        }
        Some(Fmt::Sum) => {
            let one = [v.cloned().unwrap_or(Value::Null)];
            let items: &[Value] = match v {
                Some(Value::Array(a)) => a,
                _ => &one,
            };
            return js::num(items.iter().map(|x| js::as_number(Some(x)).unwrap_or(0.0)).sum());
        }
        _ => {}
    }
    let s = if f == Some(Fmt::Upper) {
        str_of(v).to_uppercase()
    } else {
        str_of(v)
    };
    if f == Some(Fmt::Code) {
        code(&s)
    } else if md {
        md_esc(&s)
    } else {
        s
    }
}

/// A spec's regular expression, read in Unicode mode (`u`) as the TypeScript runtime reads it:
/// there JavaScript without `u` would count UTF-16 units (`.` matching half an emoji), so both
/// runtimes count code points. ixgen's validation accepts only patterns valid with `u`.
fn regex(pattern: &str, flags: &str) -> Result<regress::Regex, String> {
    let mut flags = flags.to_string();
    if !flags.contains('u') {
        flags.push('u');
    }
    regress::Regex::with_flags(pattern, flags.as_str())
        .map_err(|e| format!("Invalid regular expression: /{pattern}/: {e}"))
}

// ---- Arguments --------------------------------------------------------------------------------

struct TypeView<'a> {
    ty: SpecType,
    values: Option<&'a [String]>,
    items: Option<&'a SpecItems>,
    pattern: Option<&'a str>,
    min: Option<f64>,
    max: Option<f64>,
    clamp: bool,
}

impl<'a> TypeView<'a> {
    fn of(p: &'a SpecParam) -> Self {
        TypeView {
            ty: p.ty,
            values: p.values.as_deref(),
            items: p.items.as_ref(),
            pattern: p.pattern.as_deref(),
            min: p.min.as_ref().map(js::f64_of),
            max: p.max.as_ref().map(js::f64_of),
            clamp: p.clamp,
        }
    }
}

/// A path made absolute and normal without touching the disk (`path.resolve`).
fn resolve(base: &Path, s: &str) -> PathBuf {
    let joined = if s.starts_with('/') {
        PathBuf::from(s)
    } else {
        base.join(s)
    };
    let mut out = PathBuf::from("/");
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(x) => out.push(x),
            _ => {}
        }
    }
    out
}

/// Whether `s` names a path inside `base`: by its text (`..` and absolute paths elsewhere are
/// out), and on the disk: the deepest part of it that exists, every symbolic link followed, is
/// inside `base`'s real path. A link in the worktree to `/etc/passwd` leads out, and the
/// program given the path would follow it; so does a link whose target is missing (a program
/// writing there would create the target, wherever it is).
fn inside(base: &Path, s: &str) -> bool {
    let (resolved, root) = (resolve(base, s), resolve(base, ""));
    if s.contains('\0') || !resolved.starts_with(&root) {
        return false;
    }
    let Ok(real_root) = std::fs::canonicalize(&root) else {
        return true;
    };
    let mut p = resolved.as_path();
    loop {
        match std::fs::canonicalize(p) {
            Ok(real) => return real.starts_with(&real_root),
            Err(_) if std::fs::symlink_metadata(p).is_ok() => return false,
            Err(_) => match p.parent() {
                Some(up) => p = up,
                None => return true,
            },
        }
    }
}

enum Coerced {
    Ok(Value),
    Bad(String),
    /// Not an argument error: a broken spec (a pattern that does not compile).
    Fatal(String),
}

fn coerce(p: &TypeView, v: &Value, label: &str, base: &Path) -> Coerced {
    let bad = |m: String| Coerced::Bad(format!("`{label}` {m}"));
    let show = |x: &Value| js::stringify(x);
    let (lo, hi) = (p.min, p.max);
    match p.ty {
        SpecType::Integer | SpecType::Number => {
            let mut n = match v {
                Value::Number(n) => js::f64_of(n),
                Value::String(s) if numeric(s) => js::trim(s).parse().unwrap_or(f64::NAN),
                _ => f64::NAN,
            };
            if !n.is_finite() {
                let what = if p.ty == SpecType::Integer {
                    "an integer"
                } else {
                    "a number"
                };
                return bad(format!("must be {what}, got {}", show(v)));
            }
            if p.ty == SpecType::Integer {
                n = n.trunc();
            }
            if let Some(lo) = lo
                && n < lo
            {
                if !p.clamp {
                    return bad(format!("must be at least {}, got {}", js::num(lo), js::num(n)));
                }
                n = lo;
            }
            if let Some(hi) = hi
                && n > hi
            {
                if !p.clamp {
                    return bad(format!("must be at most {}, got {}", js::num(hi), js::num(n)));
                }
                n = hi;
            }
            return Coerced::Ok(js::number(n).unwrap_or(Value::Null));
        }
        SpecType::Boolean => {
            let s = match v {
                Value::String(s) => Value::String(js::trim(s).to_lowercase()),
                x => x.clone(),
            };
            return match s {
                Value::Bool(b) => Coerced::Ok(Value::Bool(b)),
                Value::String(t) if t == "true" => Coerced::Ok(Value::Bool(true)),
                Value::String(t) if t == "false" => Coerced::Ok(Value::Bool(false)),
                _ => bad(format!("must be true or false, got {}", show(v))),
            };
        }
        SpecType::Array => {
            let mut list = v.clone();
            if let Value::String(s) = v
                && js::trim(s).starts_with('[')
                && let Ok(parsed) = js::parse_json(s)
            {
                list = parsed;
            }
            let items: Vec<Value> = match list {
                Value::Array(a) => a.into_iter().filter(|x| !x.is_null()).collect(),
                Value::Null => vec![],
                x => vec![x],
            };
            let item_ty = match p.items {
                Some(i) => TypeView {
                    ty: i.ty,
                    values: i.values.as_deref(),
                    items: None,
                    pattern: None,
                    min: None,
                    max: None,
                    clamp: false,
                },
                None => TypeView {
                    ty: SpecType::String,
                    values: None,
                    items: None,
                    pattern: None,
                    min: None,
                    max: None,
                    clamp: false,
                },
            };
            let mut out = Vec::new();
            for (i, x) in items.iter().enumerate() {
                match coerce(&item_ty, x, &format!("{label}[{i}]"), base) {
                    Coerced::Ok(v) => out.push(v),
                    other => return other,
                }
            }
            if let Some(lo) = lo
                && (out.len() as f64) < lo
            {
                return bad(format!("needs at least {} item(s)", js::num(lo)));
            }
            if let Some(hi) = hi
                && (out.len() as f64) > hi
            {
                return bad(format!("takes at most {} item(s)", js::num(hi)));
            }
            return Coerced::Ok(Value::Array(out));
        }
        _ => {}
    }
    let mut s = match v {
        Value::String(s) => s.clone(),
        Value::Number(_) | Value::Bool(_) => js::string(v),
        _ => return bad(format!("must be a string, got {}", show(v))),
    };
    if p.ty == SpecType::Enum {
        let values = p.values.unwrap_or(&[]);
        let ci: Vec<&String> = values.iter().filter(|x| x.to_lowercase() == s.to_lowercase()).collect();
        if values.contains(&s) {
        } else if ci.len() == 1 {
            s = ci[0].clone();
        } else {
            // JSON strings, as `JSON.stringify` writes them: a quote or backslash in a value reads right.
            let list: Vec<String> = values
                .iter()
                .map(|x| js::stringify(&Value::String(x.clone())))
                .collect();
            return bad(format!("must be one of {}; got {}", list.join(", "), show(v)));
        }
    }
    if p.ty == SpecType::Path && !inside(base, &s) {
        return bad(format!(
            "must stay inside the worktree ({}), got {}",
            base.display(),
            show(v)
        ));
    }
    let len = js::len16(&s) as f64;
    if p.ty != SpecType::Enum
        && let Some(lo) = lo
        && len < lo
    {
        return bad(format!("must be at least {} characters long", js::num(lo)));
    }
    if p.ty != SpecType::Enum
        && let Some(hi) = hi
        && len > hi
    {
        return bad(format!("must be at most {} characters long", js::num(hi)));
    }
    if let Some(pat) = p.pattern.filter(|x| !x.is_empty()) {
        match regex(pat, "") {
            Ok(re) if re.find(&s).is_some() => {}
            Ok(_) => return bad(format!("must match {pat}, got {}", show(v))),
            Err(e) => return Coerced::Fatal(e),
        }
    }
    Coerced::Ok(Value::String(s))
}

/// `/^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i`
fn numeric(s: &str) -> bool {
    let t = js::trim(s).as_bytes();
    let mut i = 0;
    if i < t.len() && (t[i] == b'-' || t[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < t.len() && t[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    if i < t.len() && t[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < t.len() && t[i].is_ascii_digit() {
            i += 1;
        }
        if int_digits == 0 && i == frac_start {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        i += 1;
        if i < t.len() && (t[i] == b'-' || t[i] == b'+') {
            i += 1;
        }
        let exp_start = i;
        while i < t.len() && t[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == t.len()
}

fn args(
    params: &[SpecParam],
    args: &Value,
    base: &Path,
    context: &Map<String, Value>,
) -> Result<(Map<String, Value>, Vec<String>), String> {
    let empty = Map::new();
    let raw = match args {
        Value::Object(m) => m,
        _ => &empty,
    };
    let (mut vals, mut errors) = (Map::new(), Vec::new());
    for p in params {
        let mut v = get_obj(raw, &p.name);
        if v.is_none() || v == Some(Value::Null) || (v == Some(Value::String(String::new())) && !p.keep_empty) {
            v = p.default.as_deref().cloned();
        }
        let v = match v {
            None | Some(Value::Null) => {
                if p.required {
                    errors.push(format!("`{}` is required", p.name));
                }
                continue;
            }
            Some(v) => v,
        };
        match coerce(&TypeView::of(p), &v, &p.name, base) {
            Coerced::Ok(x) => {
                vals.insert(p.name.clone(), x);
            }
            Coerced::Bad(m) => {
                errors.push(m);
                continue;
            }
            Coerced::Fatal(m) => return Err(m),
        }
        if let Some(ec) = &p.equals_context {
            let want = str_of(get_obj(context, ec).as_ref());
            let got = vals.get(&p.name);
            if !js::strict_eq(got, &Value::String(want.clone())) {
                let got = got.map(js::stringify).unwrap_or_default();
                let want = js::quoted(&want);
                errors.push(format!(
                    "`{}` is {got}, but these tools were generated for {ec} {want}; pass {want} or leave `{}` out",
                    p.name, p.name
                ));
            }
        }
    }
    Ok((vals, errors))
}

// ---- Conditions -------------------------------------------------------------------------------

#[derive(Clone)]
struct StepResult {
    ok: bool,
    out: String,
}

type Results = HashMap<String, StepResult>;

fn cond(c: &SpecCond, vars: &Vars, res: &Results, handled: &mut HashSet<String>) -> Result<bool, String> {
    Ok(match c {
        SpecCond::All { all } => {
            for x in all {
                if !cond(x, vars, res, handled)? {
                    return Ok(false);
                }
            }
            true
        }
        SpecCond::Any { any } => {
            for x in any {
                if cond(x, vars, res, handled)? {
                    return Ok(true);
                }
            }
            false
        }
        SpecCond::Not { not } => !cond(not, vars, res, &mut HashSet::new())?,
        SpecCond::StepMatches { step, matches, flags } => match res.get(step) {
            None => false,
            Some(r) => {
                let flags: String = flags.chars().filter(|c| !matches!(c, 'g' | 'y')).collect();
                r.ok && regex(matches, &flags)?.find(&r.out).is_some()
            }
        },
        SpecCond::StepFailed { step, failed } => match res.get(step) {
            None => false,
            Some(r) => {
                if *failed && !r.ok {
                    handled.insert(step.clone());
                }
                if *failed { !r.ok } else { r.ok }
            }
        },
        SpecCond::Compare { param, op, than } => compare(vars.get(param).as_ref(), *op, js::f64_of(than)),
        SpecCond::ParamIn { param, values } => {
            let v = vars.get(param);
            let each: Vec<Option<&Value>> = match &v {
                Some(Value::Array(a)) => a.iter().map(Some).collect(),
                x => vec![x.as_ref()],
            };
            each.iter().any(|x| values.iter().any(|y| js::strict_eq(*x, y)))
        }
        SpecCond::ParamEquals { param, equals } => vars
            .get(param)
            .is_some_and(|v| js::strict_eq(Some(&v), equals) || js::stringify(&v) == js::stringify(equals)),
        SpecCond::ParamContains { param, contains } => match vars.get(param) {
            Some(Value::Array(a)) => a.iter().any(|x| js::strict_eq(Some(x), contains)),
            Some(Value::String(s)) => s.contains(&js::string(contains)),
            _ => false,
        },
        SpecCond::ParamSet { param, set } => given(vars, param) == *set,
    })
}

fn compare(v: Option<&Value>, op: CmpOp, than: f64) -> bool {
    match js::as_number(v).filter(|n| n.is_finite()) {
        None => false,
        Some(v) => match op {
            CmpOp::Lt => v < than,
            CmpOp::Lte => v <= than,
            CmpOp::Gt => v > than,
            CmpOp::Gte => v >= than,
        },
    }
}

// ---- Steps ------------------------------------------------------------------------------------

/// What one execution of a step gave (`__IxOut`).
#[derive(Debug, Default, Clone)]
pub(crate) struct Out {
    pub(crate) missing: Option<String>,
    pub(crate) ok: bool,
    pub(crate) out: String,
    pub(crate) result: Option<Value>,
    pub(crate) err: Option<String>,
    /// The accepted run's stream as printed (before `max_output` and `if_empty`), for `parse`.
    pub(crate) stream: Option<String>,
    /// The run as data (`capture`): `{exit_code, stdout, stderr, duration_ms}`.
    pub(crate) process: Option<Value>,
    /// How an error names the run: the program that ran (the step's own, or a `when_missing`
    /// alternative) and its first literal argument.
    pub(crate) label: Option<String>,
}

pub(crate) fn fail_text(program: &str, argv: &[String], r: &Proc) -> String {
    let mut excerpt = tail(&r.stderr);
    if excerpt.is_empty() {
        excerpt = tail(&r.stdout);
    }
    let mut label = program.to_string();
    if let Some(a) = argv.first() {
        label.push(' ');
        label.push_str(a);
    }
    let label = one_run(&label);
    let why = r.why.clone().unwrap_or_else(|| "undefined".into());
    let mut s = format!("**Error:** `{label}` {why}");
    if !excerpt.is_empty() {
        s.push_str("\n\n");
        s.push_str(&fence(&excerpt));
    }
    s
}

/// `.replace(/[`\r\n]+/g, " ")`.
fn one_run(s: &str) -> String {
    let mut out = String::new();
    let mut in_run = false;
    for c in s.chars() {
        if matches!(c, '`' | '\r' | '\n') {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            in_run = false;
            out.push(c);
        }
    }
    out
}

fn amount(a: Option<&SpecAmount>, vars: &Vars) -> Option<f64> {
    match a? {
        SpecAmount::Lit(n) => Some(*n as f64),
        SpecAmount::Var { var, scale } => match js::as_number(vars.get(var).as_ref()) {
            Some(v) if v.is_finite() && v > 0.0 => Some(v * f64::from(scale.unwrap_or(1))),
            _ => None,
        },
    }
}

struct Cli<'a> {
    program: &'a str,
    argv: &'a [SpecArg],
    stdin: Option<&'a Template>,
    ok_exit: &'a [i32],
    any_exit: bool,
    otherwise: &'a [SpecAlt],
    output: SpecStream,
    max_output: Option<&'a SpecAmount>,
    timeout_ms: Option<&'a SpecAmount>,
    if_empty: Option<&'a Template>,
}

/// An argument vector from its spec; `file` arguments are written into `tmp` (created on first use),
/// their names starting with `prefix` (each alternative of a step has its own).
fn build_argv(
    args: &[SpecArg],
    vars: &Vars,
    tmp: &mut Option<tempfile::TempDir>,
    prefix: &str,
) -> Result<Vec<String>, String> {
    let mut argv: Vec<String> = Vec::new();
    for a in args {
        match a {
            SpecArg::Lit(s) => argv.push(s.clone()),
            SpecArg::Opt { opt, value } => {
                if tpl_set(value, vars) {
                    argv.push(opt.clone());
                    argv.push(render(value, vars, false));
                }
            }
            SpecArg::Flag { flag, if_param } => {
                if vars.get(if_param) == Some(Value::Bool(true)) {
                    argv.push(flag.clone());
                }
            }
            SpecArg::Spread { spread } => {
                let v = vars.get(spread);
                match &v {
                    Some(Value::Array(items)) => argv.extend(items.iter().map(|s| str_of(Some(s)))),
                    x if is_set(x.as_ref()) => argv.push(str_of(x.as_ref())),
                    _ => {}
                }
            }
            SpecArg::Json { json } => argv.push(js::stringify(&json_t(json, vars))),
            SpecArg::File { file } => {
                if !tpl_set(file, vars) {
                    continue;
                }
                if tmp.is_none() {
                    *tmp = Some(
                        tempfile::Builder::new()
                            .prefix("ixgen-")
                            .tempdir()
                            .map_err(|e| e.to_string())?,
                    );
                }
                let dir = tmp.as_ref().expect("created above");
                let path = dir.path().join(format!("{prefix}arg-{}.txt", argv.len()));
                write_private(&path, &render(file, vars, false)).map_err(|e| e.to_string())?;
                argv.push(path.to_string_lossy().into_owned());
            }
            SpecArg::Tpl(t) => {
                if tpl_set(t, vars) {
                    argv.push(render(t, vars, false));
                }
            }
        }
    }
    Ok(argv)
}

fn cli(x: &Cli, vars: &Vars, cwd: &Path, cancel: Option<&proc::Cancel>) -> Result<Out, String> {
    // A private folder per step (mode 0700), removed when this function returns.
    let mut tmp: Option<tempfile::TempDir> = None;
    let ms = amount(x.timeout_ms, vars);
    let stdin = x.stdin.map(|t| render(t, vars, false));
    // The program, then each alternative (`when_missing`) while the ones before are not installed.
    let first = std::iter::once((x.program, x.argv));
    let alts = x.otherwise.iter().map(|a| (a.program.as_str(), a.argv.as_slice()));
    let mut ran = None;
    for (k, (program, args)) in first.chain(alts).enumerate() {
        let prefix = if k == 0 { String::new() } else { format!("alt{k}-") };
        let argv = build_argv(args, vars, &mut tmp, &prefix)?;
        let started = std::time::Instant::now();
        let r = proc::spawn(
            program,
            &argv,
            cwd,
            stdin.as_deref(),
            // A timeout too long for a `Duration` (from a huge argument) is no timeout at all.
            ms.and_then(|m| Duration::try_from_secs_f64(m / 1000.0).ok()),
            cancel,
        );
        if !r.missing {
            ran = Some((program, args, argv, r, started.elapsed()));
            break;
        }
    }
    let Some((program, args, argv, mut r, took)) = ran else {
        return Ok(Out {
            missing: Some(x.program.to_string()),
            ..Out::default()
        });
    };
    // The run as data (`capture`): what a later step or block reads, whatever the exit code.
    let mut data = Map::new();
    data.insert("exit_code".into(), r.code.map_or(Value::Null, Value::from));
    data.insert("stdout".into(), Value::String(r.stdout.clone()));
    data.insert("stderr".into(), Value::String(r.stderr.clone()));
    data.insert("duration_ms".into(), Value::from(took.as_millis() as u64));
    let process = Some(Value::Object(data));
    if r.timed_out && !cancel.is_some_and(proc::Cancel::is_cancelled) {
        r.why = Some(format!("timed out after {} ms", js::num(ms.unwrap_or(0.0))));
    } else if let Some(c) = r.code
        && (x.any_exit || x.ok_exit.contains(&c))
    {
        r.why = None;
    }
    let stream = match x.output {
        SpecStream::Stderr => r.stderr.clone(),
        SpecStream::Both => [&r.stdout, &r.stderr]
            .into_iter()
            .filter(|t| !js::trim(t).is_empty())
            .map(|t| t.trim_end_matches('\n').to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        SpecStream::Stdout => r.stdout.clone(),
    };
    if r.why.is_some() {
        return Ok(Out {
            ok: false,
            err: Some(fail_text(program, &argv, &r)),
            out: stream,
            process,
            ..Out::default()
        });
    }
    let mut label = program.to_string();
    if let Some(SpecArg::Lit(a)) = args.first() {
        label.push(' ');
        label.push_str(a);
    }
    let mut out = stream.clone();
    if let Some(max) = amount(x.max_output, vars) {
        let len = js::len16(&out) as f64;
        if len > max {
            out = format!(
                "{}\n\n_(cut at {} of {} characters)_",
                js::head16(&out, max as usize),
                js::num(max),
                js::num(len)
            );
        }
    }
    if js::trim(&out).is_empty()
        && let Some(t) = x.if_empty
    {
        out = render(t, vars, false);
    }
    let result = Value::String(js::trim(&out).to_string());
    Ok(Out {
        ok: true,
        out,
        result: Some(result),
        stream: Some(stream),
        process,
        label: Some(label),
        ..Out::default()
    })
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    std::io::Write::write_all(&mut o.open(path)?, text.as_bytes())
}

fn signal(pid_t: &Template, sig: &str, expect: Option<&str>, vars: &Vars) -> Out {
    let raw = js::trim(&render(pid_t, vars, false)).to_string();
    let fail = |m: String| Out {
        ok: false,
        result: Some(Value::String(raw.clone())),
        err: Some(m),
        ..Out::default()
    };
    // Parsed as the system's pid type: a larger number must not wrap around to another process
    // (2^32 + n would signal n, and 2^32 - 1 every process the user owns).
    let pid: i32 = match raw.parse() {
        Ok(p) if raw.bytes().all(|b| b.is_ascii_digit()) && p > 1 => p,
        _ => return fail(format!("**Error:** `{raw}` is not a process id that can be signalled.")),
    };
    let valid_name = sig
        .strip_prefix("SIG")
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
    if !valid_name {
        return fail(format!("**Error:** `{sig}` is not a signal name."));
    }
    if let Some(expect) = expect {
        let name = match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(n) => Some(js::trim(&n).to_string()),
            Err(_) => {
                let r = proc::spawn(
                    "ps",
                    &["-p".into(), pid.to_string(), "-o".into(), "comm=".into()],
                    Path::new("/"),
                    None,
                    None,
                    None,
                );
                (r.code == Some(0)).then(|| js::trim(&r.stdout).rsplit('/').next().unwrap_or("").to_string())
            }
        };
        let Some(name) = name else {
            return fail(format!("**Not signalled:** process {pid} is not running."));
        };
        let short: String = expect.chars().take(15).collect();
        if name != expect && name != short {
            return fail(format!("**Not signalled:** process {pid} is `{name}`, not `{expect}`."));
        }
    }
    #[cfg(unix)]
    {
        let Some(&(_, num)) = proc::SIGNALS.iter().find(|(name, _)| *name == sig) else {
            return fail(format!(
                "**Error:** could not send {sig} to process {pid}: Unknown signal: {sig}"
            ));
        };
        // SAFETY: kill(2) with a pid checked above to be > 1; no memory is involved.
        if unsafe { libc::kill(pid, num) } != 0 {
            let e = std::io::Error::last_os_error();
            return fail(format!("**Error:** could not send {sig} to process {pid}: {e}"));
        }
    }
    Out {
        ok: true,
        out: format!("Sent {sig} to process {pid}."),
        result: Some(Value::String(raw.clone())),
        ..Out::default()
    }
}

fn exec(
    x: &SpecExec,
    params: &[SpecParam],
    shared_program: Option<&str>,
    vars: &Vars,
    cwd: &Path,
    cancel: Option<&proc::Cancel>,
) -> Result<Out, String> {
    match x {
        SpecExec::Cli {
            program,
            argv,
            stdin,
            ok_exit,
            any_exit,
            otherwise,
            output,
            max_output,
            timeout_ms,
            if_empty,
        } => {
            let program = program
                .as_deref()
                .or(shared_program)
                .ok_or("the spec leaves out a step's program, and the catalog's shared settings have none")?;
            cli(
                &Cli {
                    program,
                    argv,
                    stdin: stdin.as_ref(),
                    ok_exit,
                    any_exit: *any_exit,
                    otherwise,
                    output: *output,
                    max_output: max_output.as_ref(),
                    timeout_ms: timeout_ms.as_ref(),
                    if_empty: if_empty.as_ref(),
                },
                vars,
                cwd,
                cancel,
            )
        }
        SpecExec::Signal {
            pid,
            signal: sig,
            process,
        } => Ok(signal(pid, sig, process.as_deref(), vars)),
        SpecExec::Compute { expr } => Ok(compute(expr, vars, params)),
        store => crate::store::exec(
            store,
            vars_map(vars),
            &|t| render(t, vars, false),
            &|t| tpl_set(t, vars),
            cwd,
        ),
    }
}

/// A `compute` step: the expression's value is its result (the step's data) and, as text, its
/// output. Both runtimes fail it with the same words, whatever their libraries' messages are.
fn compute(expr: &str, vars: &Vars, params: &[SpecParam]) -> Out {
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    match crate::expr::eval(expr, &vars.map, &names) {
        Some(v) => Out {
            ok: true,
            out: match &v {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => js::stringify(other),
            },
            result: Some(v),
            ..Out::default()
        },
        None => Out {
            ok: false,
            err: Some(format!("**Error:** `{}` could not be computed.", one_run(expr))),
            ..Out::default()
        },
    }
}

fn vars_map(vars: &Vars) -> &Map<String, Value> {
    &vars.map
}

/// Renders a JSON template with extra variables (the store's `now_ms` and `id`).
pub(crate) fn json_with(j: &JsonT, vars: &Map<String, Value>, extra: &[(&str, Value)]) -> Value {
    let mut v = Vars {
        map: vars.clone(),
        keep: None,
    };
    for (k, x) in extra {
        v.map.insert((*k).to_string(), x.clone());
    }
    json_t(j, &v)
}

/// A JSON step's stdout, parsed; empty output is `null`.
fn json_out(r: Out, x: &SpecExec, shared_program: Option<&str>) -> Out {
    let text = js::trim(&r.out).to_string();
    if text.is_empty() {
        return Out {
            result: Some(Value::Null),
            ..r
        };
    }
    match js::parse_json(&text) {
        Ok(v) => Out { result: Some(v), ..r },
        Err(fail) => {
            let label = match x {
                SpecExec::Cli { program, argv, .. } => {
                    let mut l = program.as_deref().or(shared_program).unwrap_or("").to_string();
                    if let Some(SpecArg::Lit(a)) = argv.first() {
                        l.push(' ');
                        l.push_str(a);
                    }
                    l
                }
                SpecExec::StoreAppend { .. } => "store_append".into(),
                SpecExec::StoreFold { .. } => "store_fold".into(),
                SpecExec::StoreUpdate { .. } => "store_update".into(),
                SpecExec::Signal { .. } => "signal".into(),
                SpecExec::Compute { .. } => "compute".into(),
            };
            let mut err = match fail {
                js::JsonFail::Invalid => format!("**Error:** `{}` did not print JSON.", one_run(&label)),
                js::JsonFail::TooDeep => format!(
                    "**Error:** `{}` printed JSON nested deeper than {} levels.",
                    one_run(&label),
                    js::MAX_JSON_DEPTH
                ),
            };
            if !text.is_empty() {
                err.push_str("\n\n");
                err.push_str(&fence(&tail(&text)));
            }
            Out {
                ok: false,
                out: r.out,
                err: Some(err),
                ..Out::default()
            }
        }
    }
}

/// An accepted run's output read as records (`parse`); a JSON Lines line that is not JSON fails
/// the step, as a `json` step's output that is not JSON does.
fn parse_out(r: Out, p: &SpecParse, x: &SpecExec, shared_program: Option<&str>) -> Result<Out, String> {
    let text = r.stream.clone().unwrap_or_else(|| r.out.clone());
    let mut records = Vec::new();
    let compiled = match p {
        SpecParse::Regex { pattern, flags, .. } => {
            let flags: String = flags.chars().filter(|c| !matches!(c, 'g' | 'y')).collect();
            Some(regex(pattern, &flags)?)
        }
        _ => None,
    };
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if js::trim(line).is_empty() {
            continue;
        }
        match p {
            SpecParse::Jsonl => match js::parse_json(line) {
                Ok(v) => records.push(v),
                Err(fail) => {
                    let label = match x {
                        SpecExec::Cli { program, argv, .. } => {
                            if let Some(l) = &r.label {
                                l.clone()
                            } else {
                                let mut l = program.as_deref().or(shared_program).unwrap_or("").to_string();
                                if let Some(SpecArg::Lit(a)) = argv.first() {
                                    l.push(' ');
                                    l.push_str(a);
                                }
                                l
                            }
                        }
                        _ => "step".into(),
                    };
                    return Ok(Out {
                        ok: false,
                        out: r.out,
                        err: Some(format!(
                            "**Error:** `{}` did not print JSON Lines (line {}{}).\n\n{}",
                            one_run(&label),
                            n + 1,
                            if fail == js::JsonFail::TooDeep {
                                format!(": nested deeper than {} levels", js::MAX_JSON_DEPTH)
                            } else {
                                String::new()
                            },
                            fence(&tail(line))
                        )),
                        process: r.process,
                        ..Out::default()
                    });
                }
            },
            SpecParse::Delimited { separator, fields } => {
                let parts: Vec<&str> = line.splitn(fields.len(), separator.as_str()).collect();
                if parts.len() < fields.len() {
                    continue;
                }
                let o: Map<String, Value> = fields
                    .iter()
                    .zip(parts)
                    .map(|(f, v)| (f.clone(), Value::String(v.to_string())))
                    .collect();
                records.push(Value::Object(o));
            }
            SpecParse::Regex { fields, .. } => {
                let re = compiled.as_ref().expect("compiled above");
                let Some(m) = re.find(line) else { continue };
                let o: Map<String, Value> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let v = m
                            .group(i + 1)
                            .map_or(Value::Null, |g| Value::String(line[g].to_string()));
                        (f.clone(), v)
                    })
                    .collect();
                records.push(Value::Object(o));
            }
        }
    }
    Ok(Out {
        result: Some(Value::Array(records)),
        ..r
    })
}

// ---- Output blocks ----------------------------------------------------------------------------

fn value(v: &SpecValue, scope: &Vars, res: &Results) -> Result<Option<String>, String> {
    let mut t = v.tpl.as_ref();
    if let Some(m) = &v.map {
        let k = scope.get(m);
        let key = str_of(k.as_ref());
        t = if is_set(k.as_ref()) && v.to.contains_key(&key) {
            v.to.get(&key)
        } else {
            v.otherwise.as_ref()
        };
    }
    let Some(t) = t.filter(|t| tpl_set(t, scope)) else {
        return Ok(None);
    };
    let out = render(t, scope, true);
    Ok(Some(match &v.mark {
        Some(mark) if cond(&mark.when, scope, res, &mut HashSet::new())? => out + &mark.text,
        _ => out,
    }))
}

fn row(vars: &Vars, r: &Value) -> Vars {
    let mut out = vars.clone();
    if let Value::Object(m) = r {
        for (k, x) in m {
            out.map.insert(k.clone(), x.clone());
        }
    }
    out.map.insert("item".into(), r.clone());
    out
}

fn output(blocks: &[SpecBlock], vars: &Vars, res: &Results, handled: &mut HashSet<String>) -> Result<String, String> {
    let mut out: Vec<String> = Vec::new();
    for b in blocks {
        let when = match b {
            SpecBlock::Text { when, .. }
            | SpecBlock::Fields { when, .. }
            | SpecBlock::List { when, .. }
            | SpecBlock::Table { when, .. } => when,
        };
        let mut touched = HashSet::new();
        if let Some(w) = when
            && !cond(w, vars, res, &mut touched)?
        {
            continue;
        }
        handled.extend(touched);
        let (list, title, total, limit, empty) = match b {
            SpecBlock::Text { text, .. } => {
                if tpl_set(text, vars) {
                    out.push(render(text, vars, true));
                }
                continue;
            }
            SpecBlock::Fields { fields, .. } => {
                let mut lines = Vec::new();
                for f in fields {
                    if let Some(v) = value(&f.value, vars, res)? {
                        lines.push(format!("**{}:** {v}", f.label));
                    }
                }
                if !lines.is_empty() {
                    out.push(lines.join("\n"));
                }
                continue;
            }
            SpecBlock::List {
                list,
                title,
                total,
                limit,
                empty,
                ..
            } => (list, title, total, limit, empty),
            SpecBlock::Table {
                table,
                title,
                total,
                limit,
                empty,
                ..
            } => (table, title, total, limit, empty),
        };
        let Some(Value::Array(all)) = vars.get(list) else {
            continue;
        };
        if all.is_empty() {
            if let Some(e) = empty {
                out.push(render(e, vars, true));
            }
            continue;
        }
        // A limit that is unset or renders empty (`"{limit}"` left out) cuts nothing, where a number would be 0 rows.
        let limit = match limit.as_ref().map(|l| json_t(l, vars)) {
            Some(l) if is_set(Some(&l)) => js::to_number(&l),
            _ => f64::NAN,
        };
        let rows: &[Value] = if limit.is_finite() && limit >= 0.0 {
            &all[..(limit as usize).min(all.len())]
        } else {
            &all
        };
        let t = total.as_ref().and_then(|t| vars.get(t));
        let total = match js::as_number(t.as_ref()) {
            Some(n) if n > all.len() as f64 => n,
            _ => all.len() as f64,
        };
        let count = if (rows.len() as f64) < total {
            format!("showing {} of {}", rows.len(), js::num(total))
        } else {
            js::num(total)
        };
        let head = match title {
            Some(t) => format!("**{}** ({count}):\n\n", render(t, vars, true)),
            None => String::new(),
        };
        match b {
            SpecBlock::List { item, .. } => {
                let mut items = Vec::new();
                for r in rows {
                    if let Some(v) = value(item, &row(vars, r), res)? {
                        items.push(format!("- {v}"));
                    }
                }
                out.push(head + &items.join("\n"));
            }
            SpecBlock::Table { columns, .. } => {
                let line = |cells: Vec<String>| format!("| {} |", cells.join(" | "));
                let mut lines = vec![
                    line(columns.iter().map(|c| c.label.clone()).collect()),
                    line(columns.iter().map(|_| "---".to_string()).collect()),
                ];
                for r in rows {
                    let scope = row(vars, r);
                    let mut cells = Vec::new();
                    for c in columns {
                        cells.push(value(&c.value, &scope, res)?.unwrap_or_default());
                    }
                    lines.push(line(cells));
                }
                out.push(head + &lines.join("\n"));
            }
            _ => unreachable!("text and fields continue above"),
        }
    }
    Ok(out.join("\n\n"))
}

// ---- Confirmation -----------------------------------------------------------------------------

/// OpenCode's wildcard: `*` any text, `?` one character, a trailing ` *` optional.
fn wildcard(text: &str, pattern: &str) -> bool {
    let mut re = String::new();
    for c in pattern.replace('\\', "/").chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '.' | '+' | '^' | '$' | '{' | '}' | '(' | ')' | '|' | '[' | ']' | '\\' => {
                re.push('\\');
                re.push(c);
            }
            c => re.push(c),
        }
    }
    if let Some(stem) = re.strip_suffix(" .*") {
        re = format!("{stem}( .*)?");
    }
    regress::Regex::with_flags(&format!("^{re}$"), "s").is_ok_and(|r| r.find(&text.replace('\\', "/")).is_some())
}

/// What a confirmation decides before anything runs, from the subject alone.
enum Gate {
    /// The subject matches a `deny` pattern: this text is the answer, nothing runs.
    Refused(String),
    /// The subject matches an `allow` pattern: it runs without asking.
    Allowed,
    /// The user is asked (before the steps, or after the first `after` of them).
    Ask,
}

fn gate(c: &SpecConfirm, vars: &Vars) -> Gate {
    let subject = js::trim(&render(&c.subject, vars, false)).to_string();
    if let Some(d) = c.deny.iter().find(|p| wildcard(&subject, p)) {
        return Gate::Refused(format!(
            "**Refused:** `{}` matches the blocked pattern `{d}`. Nothing was run.",
            one_run(&subject)
        ));
    }
    if c.allow.iter().any(|p| wildcard(&subject, p)) {
        return Gate::Allowed;
    }
    Gate::Ask
}

/// Asks the user, with the preview rendered from what is known now; `Some` is the refusal.
fn ask_user(c: &SpecConfirm, vars: &Vars, ctx: &Ctx) -> Option<String> {
    let subject = js::trim(&render(&c.subject, vars, false)).to_string();
    let shown = format!("`{}`", one_run(&subject));
    let Some(ask) = ctx.ask else {
        return Some("**Not run:** this tool asks before it runs, and the host offers no way to ask.".into());
    };
    match ask(&Ask {
        permission: c.permission.clone(),
        subject: subject.clone(),
        preview: c.preview.as_ref().map(|p| render(p, vars, false)),
    }) {
        Ok(()) => None,
        Err(e) => {
            let first = e.split('\n').next().unwrap_or("");
            let sentence = first.split(". ").next().unwrap_or("");
            let sentence = if first.contains(". ") {
                format!("{sentence}.")
            } else {
                sentence.to_string()
            };
            let cut = js::head16(&sentence, 200);
            let why = cut.strip_suffix('.').unwrap_or(cut).to_string();
            let why = if why.is_empty() {
                "no reason given".to_string()
            } else {
                why
            };
            Some(format!("**Not run:** permission for {shown} was refused ({why})."))
        }
    }
}

// ---- Runtime routes ---------------------------------------------------------------------------

/// Where a redirect's `location` leads from `url`: an absolute URL, or one relative to `url`
/// (`//host/p`, `/p`, `p`), as a browser resolves it.
fn joined(url: &str, location: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    // A scheme is letters, digits, `+`, `-` and `.` (`/go?to=http://x` is a path).
    let named = location.split_once("://").map_or("", |(s, _)| s);
    let absolute = !named.is_empty() && named.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if absolute {
        location.to_string()
    } else if let Some(l) = location.strip_prefix("//") {
        format!("{scheme}://{l}")
    } else if location.starts_with('/') {
        format!("{scheme}://{host}{location}")
    } else {
        let path = rest.split(['?', '#']).next().unwrap_or(rest);
        let dir = path.rfind('/').filter(|&i| i >= host.len()).map_or(path.len(), |i| i);
        format!("{scheme}://{}/{location}", &path[..dir])
    }
}

struct Route {
    md: Option<String>,
    json: Option<Value>,
    url: String,
    why: Option<String>,
}

fn route(
    rt: &SpecRuntime,
    shared: Option<&SharedRuntime>,
    vars: &Vars,
    cancel: Option<&proc::Cancel>,
) -> Result<Route, String> {
    let need = |what: &str| format!("the spec leaves out {what}, and the catalog's shared settings have none");
    let url_env = rt
        .url_env
        .clone()
        .or(shared.map(|s| s.url_env.clone()))
        .ok_or_else(|| need("the runtime's url_env"))?;
    let default_url = rt
        .default_url
        .clone()
        .or(shared.map(|s| s.default_url.clone()))
        .ok_or_else(|| need("the runtime's default_url"))?;
    let timeout_ms = rt
        .timeout_ms
        .or(shared.map(|s| s.timeout_ms))
        .ok_or_else(|| need("the runtime's timeout_ms"))?;
    let markdown_field = if rt.json {
        None
    } else {
        rt.markdown_field
            .clone()
            .or(shared.and_then(|s| s.markdown_field.clone()))
    };
    let base = std::env::var(&url_env)
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or(default_url);
    let url = format!("{}{}", base.trim_end_matches('/'), rt.path);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_millis(u64::from(timeout_ms))))
        // A status is an answer to report (`HTTP 503`), not a transport error.
        .http_status_as_error(false)
        // Redirects are followed below, as fetch follows them (ureq refuses a 307 to a POST).
        .max_redirects(0)
        .build()
        .into();
    let fail = |why: String| {
        Ok(Route {
            md: None,
            json: None,
            url: url.clone(),
            why: Some(why),
        })
    };
    // Why a route failed is one of a few fixed texts, the TypeScript runtime's too: ureq's and
    // serde_json's messages differ from Bun's fetch and JSON.parse, and would make the answers differ.
    let transport = move |e: ureq::Error| match e {
        ureq::Error::Timeout(_) => format!("timed out after {timeout_ms} ms"),
        ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => format!("timed out after {timeout_ms} ms"),
        _ => "the connection failed".to_string(),
    };
    let body = match (rt.method, &rt.body) {
        (HttpMethod::POST, Some(body)) => Some(js::stringify(&redact_deep(&json_t(body, vars)))),
        _ => None,
    };
    let (mut method, mut to, mut body) = (rt.method, url.clone(), body);
    let exchange = move || -> Result<Vec<u8>, String> {
        // As fetch follows redirects: at most 20; a 303, and a 301 or 302 to a POST, as a GET
        // without the body; a 307 or 308 as the request came. A redirect with no `Location` is
        // the answer (`HTTP 301`).
        let mut redirects = 0;
        let mut response = loop {
            let response = match (method, &body) {
                (HttpMethod::POST, Some(body)) => agent
                    .post(&to)
                    .header("content-type", "application/json")
                    .send(body.as_bytes()),
                (HttpMethod::POST, None) => agent.post(&to).send_empty(),
                (HttpMethod::GET, _) => agent.get(&to).call(),
            }
            .map_err(transport)?;
            let status = response.status().as_u16();
            let location = response.headers().get("location").and_then(|l| l.to_str().ok());
            let (Some(location), 301 | 302 | 303 | 307 | 308) = (location, status) else {
                break response;
            };
            redirects += 1;
            if redirects > 20 {
                return Err(transport(ureq::Error::TooManyRedirects));
            }
            to = joined(&to, location);
            if status == 303 || (status < 303 && method == HttpMethod::POST) {
                (method, body) = (HttpMethod::GET, None);
            }
        };
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status().as_u16()));
        }
        // As large as it comes, as fetch's `text()` reads it (ureq stops at 10 MB by default).
        let body = response.body_mut().with_config().limit(u64::MAX);
        body.read_to_vec().map_err(transport)
    };
    let bytes = match cancellable(cancel, exchange) {
        None => return fail("the call was cancelled".into()),
        Some(Err(why)) => return fail(why),
        Some(Ok(bytes)) => bytes,
    };
    // Bytes, read as fetch's `text()` reads them: a leading BOM dropped, what is not UTF-8
    // becomes U+FFFD (not a failure).
    let text = String::from_utf8_lossy(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes));
    let data = match js::parse_json(&text) {
        Ok(d) => d,
        Err(js::JsonFail::Invalid) => return fail("the answer is not JSON".into()),
        Err(js::JsonFail::TooDeep) => {
            return fail(format!(
                "the answer is nested deeper than {} levels",
                js::MAX_JSON_DEPTH
            ));
        }
    };
    let Some(field) = markdown_field else {
        return Ok(Route {
            md: None,
            json: Some(data),
            url,
            why: None,
        });
    };
    match data.get(&field) {
        Some(Value::String(md)) if !js::trim(md).is_empty() => Ok(Route {
            md: Some(md.clone()),
            json: None,
            url,
            why: None,
        }),
        _ => fail(format!("no `{field}` in the answer")),
    }
}

/// Runs `f` (a route's exchange) and waits for it, giving up (`None`) as soon as the call is
/// cancelled, as fetch gives up on its abort signal: a blocking HTTP request cannot be stopped
/// from outside, so it runs on a thread of its own, which ends by itself at the route's timeout.
fn cancellable<T: Send + 'static>(cancel: Option<&proc::Cancel>, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    use std::sync::mpsc::RecvTimeoutError;
    let Some(cancel) = cancel else { return Some(f()) };
    if cancel.is_cancelled() {
        return None;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(v) => return Some(v),
            Err(RecvTimeoutError::Timeout) if cancel.is_cancelled() => return None,
            Err(RecvTimeoutError::Timeout) => {}
            // The exchange panicked: that is a bug, and it goes on as one.
            Err(RecvTimeoutError::Disconnected) => match worker.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => unreachable!("the exchange sends its result before it ends"),
            },
        }
    }
}

// ---- Entry point ------------------------------------------------------------------------------

struct Section {
    text: String,
    err: bool,
}

struct Ran {
    missing: Option<String>,
    ok: bool,
    out: String,
    secs: Vec<Section>,
    data: Option<Value>,
}

/// Whether a step's result is data (a `json`, `parse`, `capture` or `compute` step): the
/// variable named by its id, and a part of [`Answer::data`].
fn has_data(s: &SpecStep) -> bool {
    s.json || s.parse.is_some() || s.capture || matches!(s.exec, SpecExec::Compute { .. })
}

/// Keeps what a step that ran gave, for the steps and blocks after it: its result (by id), its
/// data (a `json` step's), and its sections, in the order the steps ran.
fn keep_step(
    s: &SpecStep,
    o: Ran,
    results: &mut Results,
    vars: &mut Vars,
    done: &mut Vec<(Option<String>, Vec<Section>)>,
) {
    if let Some(id) = &s.id {
        results.insert(id.clone(), StepResult { ok: o.ok, out: o.out });
        if has_data(s)
            && let Some(d) = o.data
        {
            vars.map.insert(id.clone(), d);
        }
    }
    done.push((s.id.clone(), o.secs));
}

/// Runs a tool: validates the raw arguments, tries the runtime route, then runs the steps.
/// `context`: the baked context variables; `shared`: the catalog's shared settings, which fill in
/// what the spec leaves out. Always answers markdown, as `runTool` does.
pub fn run_tool(
    spec: &ExecSpec,
    context: &Map<String, Value>,
    raw_args: &Value,
    ctx: &Ctx,
    shared: &SpecShared,
) -> Answer {
    let head = format!("## {}\n\n", spec.name);
    if spec.version != SPEC_VERSION {
        return Answer {
            text: format!(
                "{head}**Error:** this tool was generated for spec version {}, but its runtime file reads version {SPEC_VERSION}. Run `ixgen generate` again.",
                spec.version
            ),
            is_error: true,
            data: Map::new(),
        };
    }
    let mut head = head;
    match run_inner(spec, context, raw_args, ctx, shared, &mut head) {
        Ok(a) => a,
        Err(e) => runtime_failed(&head, &e),
    }
}

/// The arguments of a call as `run_tool` reads them: each parameter's value (defaults, coercion,
/// bounds, patterns, paths inside `cwd`), then the catalog's rules, and the heading. `Ok` holds
/// the parameters' values before the rules (reading them again gives the same values) and the
/// call's variables after them; `Err`, the answer `run_tool` gives for invalid arguments.
/// `head` is set to the heading once the arguments are read.
#[allow(clippy::type_complexity)]
fn checked(
    spec: &ExecSpec,
    context: &Map<String, Value>,
    raw_args: &Value,
    cwd: &Path,
    head: &mut String,
) -> Result<Result<(Map<String, Value>, Vars), Answer>, String> {
    let (mut vals, mut errors) = args(&spec.params, raw_args, cwd, context)?;
    let given = vals.clone();
    if errors.is_empty() {
        errors.extend(rules(spec, &mut vals, cwd)?);
    }
    let mut map = context.clone();
    for (k, v) in vals {
        map.insert(k, v);
    }
    let vars = Vars {
        map,
        keep: Some(keep_empty(spec)),
    };
    let rendered = render(&spec.heading, &vars, false);
    let collapsed: String = {
        let mut s = String::new();
        let mut in_ws = false;
        for c in rendered.chars() {
            if js::is_space(c) {
                if !in_ws {
                    s.push(' ');
                }
                in_ws = true;
            } else {
                in_ws = false;
                s.push(c);
            }
        }
        s
    };
    let stripped = collapsed.trim_end_matches(|c: char| js::is_space(c) || c == ':');
    let title = js::trim(stripped);
    *head = if spec.answer.as_ref().is_some_and(|a| !a.heading) {
        String::new()
    } else {
        format!("## {}\n\n", if title.is_empty() { &spec.name } else { title })
    };
    if !errors.is_empty() {
        return Ok(Err(Answer {
            text: redact(&format!("{head}**Invalid arguments:** {}", errors.join("; "))),
            is_error: true,
            data: Map::new(),
        }));
    }
    Ok(Ok((given, vars)))
}

/// Reads a call's arguments exactly as [`run_tool`] does, without running anything: the
/// parameters' values (defaults filled in, values coerced and clamped; the catalog's rules
/// checked but not applied, so that passing these values to `run_tool` reads the same call),
/// or the answer `run_tool` gives for these arguments (`**Invalid arguments:** …`, or the
/// runtime's own failure). A host that types the arguments (the Rust target's `Args`) reads
/// them with this, so that it refuses what `run_tool` refuses, with the same text.
pub fn check_args(
    spec: &ExecSpec,
    context: &Map<String, Value>,
    raw_args: &Value,
    ctx: &Ctx,
) -> Result<Map<String, Value>, Answer> {
    let mut head = format!("## {}\n\n", spec.name);
    if spec.version != SPEC_VERSION {
        return Err(run_tool(spec, context, raw_args, ctx, &SpecShared::default()));
    }
    let cwd_owned;
    let cwd: &Path = match ctx.cwd {
        Some(c) => c,
        None => match std::env::current_dir() {
            Ok(c) => {
                cwd_owned = c;
                &cwd_owned
            }
            Err(e) => return Err(runtime_failed(&head, &e.to_string())),
        },
    };
    match checked(spec, context, raw_args, cwd, &mut head) {
        Ok(Ok((given, _))) => Ok(given),
        Ok(Err(invalid)) => Err(invalid),
        Err(e) => Err(runtime_failed(&head, &e)),
    }
}

/// `run_tool`'s answer when the runtime itself fails.
fn runtime_failed(head: &str, e: &str) -> Answer {
    Answer {
        text: redact(&format!("{head}**Error:** the ixgen runtime failed: {e}")),
        is_error: true,
        data: Map::new(),
    }
}

fn run_inner(
    spec: &ExecSpec,
    context: &Map<String, Value>,
    raw_args: &Value,
    ctx: &Ctx,
    shared: &SpecShared,
    head: &mut String,
) -> Result<Answer, String> {
    let has_cli = spec.steps.iter().any(|s| matches!(s.exec, SpecExec::Cli { .. }));
    for s in &spec.steps {
        if let SpecExec::Cli { program: None, .. } = s.exec
            && shared.program.is_none()
        {
            return Err("the spec leaves out a step's program, and the catalog's shared settings have none".into());
        }
    }
    let fallback = spec
        .fallback
        .clone()
        .or(if has_cli { shared.fallback.clone() } else { None });
    let shared_program = shared.program.as_deref();
    let cancelled = || ctx.cancel.is_some_and(proc::Cancel::is_cancelled);
    let cwd_owned;
    let cwd: &Path = match ctx.cwd {
        Some(c) => c,
        None => {
            cwd_owned = std::env::current_dir().map_err(|e| e.to_string())?;
            &cwd_owned
        }
    };
    let mut vars = match checked(spec, context, raw_args, cwd, head)? {
        Ok((_, vars)) => vars,
        Err(invalid) => return Ok(invalid),
    };
    let head = head.clone();
    let refused = |text: String| Answer {
        text: redact(&(head.clone() + &text)),
        is_error: true,
        data: Map::new(),
    };
    // The question comes before the steps, or after the first `after` of them (they compute its preview).
    let mut ask_at: Option<usize> = None;
    if let Some(c) = &spec.confirm {
        match gate(c, &vars) {
            Gate::Refused(text) => return Ok(refused(text)),
            Gate::Allowed => {}
            // Only steps that run one after another can come first; any other spec asks at once, so that
            // nothing runs unasked (validation never writes such a spec).
            Gate::Ask => match c.after {
                Some(n) if !spec.parallel && spec.runtime.is_none() && (n as usize) < spec.steps.len() => {
                    ask_at = Some(n as usize)
                }
                _ => {
                    if let Some(text) = ask_user(c, &vars, ctx) {
                        return Ok(refused(text));
                    }
                }
            },
        }
    }
    let answer = |t: String, is_error: bool| Answer {
        text: if matches!(spec.redact, SpecRedact::Errors | SpecRedact::None) {
            t
        } else {
            redact(&t)
        },
        is_error,
        data: Map::new(),
    };
    if let Some(rt) = &spec.runtime {
        let r = route(rt, shared.runtime.as_ref(), &vars, ctx.cancel)?;
        if let Some(md) = r.md {
            return Ok(answer(
                if js::trim_start(&md).starts_with('#') {
                    md
                } else {
                    head + &md
                },
                false,
            ));
        }
        if let Some(json) = r.json {
            return Ok(answer(
                format!("{head}```json\n{}\n```", js::stringify_pretty(&json)),
                false,
            ));
        }
        if spec.steps.is_empty() {
            let why = r.why.unwrap_or_else(|| "undefined".into());
            return Ok(Answer {
                text: redact(&format!(
                    "{head}**Error:** the runtime is unreachable at {} ({why}).",
                    r.url
                )),
                is_error: true,
                data: Map::new(),
            });
        }
        let mut o = Map::new();
        o.insert("url".into(), Value::String(r.url));
        o.insert("why".into(), Value::String(r.why.unwrap_or_else(|| "unknown".into())));
        vars.map.insert("runtime".into(), Value::Object(o));
    }
    let mut results: Results = HashMap::new();
    let mut handled: HashSet<String> = HashSet::new();
    let mut done: Vec<(Option<String>, Vec<Section>)> = Vec::new();
    let trim = spec.answer.as_ref().is_none_or(|a| a.trim);
    // What stands for nothing: `_(no output)_`, or the catalog's `empty` text.
    let empty_text = |vars: &Vars| match spec.answer.as_ref().and_then(|a| a.empty.as_ref()) {
        Some(t) => render(t, vars, false),
        None => "_(no output)_".to_string(),
    };
    let run = |step: &SpecStep, vars: &Vars| -> Result<Ran, String> {
        let each = step.for_each.as_ref().map(|f| vars.get(f));
        let all: Vec<Option<Value>> = match &each {
            None => vec![None],
            Some(Some(Value::Array(a))) => a.iter().cloned().map(Some).collect(),
            Some(x) if is_set(x.as_ref()) => vec![x.clone()],
            Some(_) => vec![],
        };
        let list = match step.limit {
            Some(l) => &all[..(l as usize).min(all.len())],
            None => &all[..],
        };
        let (mut secs, mut outs, mut data) = (Vec::new(), Vec::new(), Vec::new());
        let mut ok = true;
        for item in list {
            let scope = if step.for_each.is_some() {
                vars.with("item", item.clone())
            } else {
                vars.clone()
            };
            // The step's own working directory, inside the project (`cwd`).
            let dir = match &step.cwd {
                Some(t) if tpl_set(t, &scope) => {
                    let want = render(t, &scope, false);
                    let resolved = resolve(cwd, &want);
                    if !inside(cwd, &want) {
                        Err(format!(
                            "**Error:** the working directory `{}` is outside the project.",
                            one_run(&want)
                        ))
                    } else if !resolved.is_dir() {
                        Err(format!(
                            "**Error:** the working directory `{}` does not exist.",
                            one_run(&want)
                        ))
                    } else {
                        Ok(resolved)
                    }
                }
                _ => Ok(cwd.to_path_buf()),
            };
            let mut r = match &dir {
                Ok(d) => exec(&step.exec, &spec.params, shared_program, &scope, d, ctx.cancel)?,
                Err(e) => Out {
                    err: Some(e.clone()),
                    ..Out::default()
                },
            };
            if let Some(m) = r.missing {
                return Ok(Ran {
                    missing: Some(m),
                    ok: false,
                    out: String::new(),
                    secs,
                    data: None,
                });
            }
            if step.json && r.ok {
                r = json_out(r, &step.exec, shared_program);
            }
            if let Some(p) = &step.parse
                && r.ok
            {
                r = parse_out(r, p, &step.exec, shared_program)?;
            }
            data.push(if step.capture {
                r.process.clone()
            } else if r.ok {
                r.result.clone()
            } else {
                None
            });
            let err = match (&r.err, spec.redact) {
                (Some(e), SpecRedact::Errors) => Some(redact(e)),
                (e, _) => e.clone(),
            };
            let body = match err {
                Some(e) => e,
                None => {
                    let text = match &step.message {
                        Some(m) => render(m, &scope.with("result", r.result.clone()), false),
                        None => r.out.clone(),
                    };
                    let t = js::trim(&text);
                    if t.is_empty() {
                        empty_text(&scope)
                    } else if trim {
                        t.to_string()
                    } else {
                        text
                    }
                }
            };
            let title = step
                .title
                .as_ref()
                .map(|t| render(t, &scope, false))
                .unwrap_or_default();
            // A hidden helper step shows nothing of its own, only an error.
            if !step.hidden || !r.ok {
                secs.push(Section {
                    text: if title.is_empty() {
                        body
                    } else {
                        format!("**{title}**\n\n{body}")
                    },
                    err: !r.ok,
                });
            }
            ok &= r.ok;
            outs.push(r.out);
        }
        let data = if step.for_each.is_some() {
            Some(Value::Array(
                data.into_iter().map(|d| d.unwrap_or(Value::Null)).collect(),
            ))
        } else {
            data.into_iter().next().flatten()
        };
        Ok(Ran {
            missing: None,
            ok,
            out: outs.join("\n"),
            secs,
            data,
        })
    };
    let missing = |program: &str, vars: &Vars| Answer {
        text: redact(
            &(head.clone()
                + &match &fallback {
                    Some(f) => render(f, vars, false),
                    None => {
                        format!("`{program}` is not installed (it was not found on PATH). Install it and try again.")
                    }
                }),
        ),
        is_error: true,
        data: Map::new(),
    };
    if spec.parallel {
        let mut chosen = Vec::new();
        for s in &spec.steps {
            let ok = match &s.when {
                None => true,
                Some(w) => cond(w, &vars, &results, &mut handled)?,
            };
            if ok {
                chosen.push(s);
            }
        }
        let outs: Vec<Result<Ran, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chosen.iter().map(|s| scope.spawn(|| run(s, &vars))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err("a step panicked".into())))
                .collect()
        });
        let outs: Vec<Ran> = outs.into_iter().collect::<Result<_, _>>()?;
        if let Some(m) = outs.iter().find_map(|o| o.missing.clone()) {
            return Ok(missing(&m, &vars));
        }
        for (s, o) in chosen.iter().zip(outs) {
            keep_step(s, o, &mut results, &mut vars, &mut done);
        }
    } else {
        // Whether a step so far failed and nothing handled it: the preview could not be computed.
        let failed_yet = |done: &Vec<(Option<String>, Vec<Section>)>, handled: &HashSet<String>| {
            done.iter()
                .any(|(id, secs)| secs.iter().any(|x| x.err) && !id.as_ref().is_some_and(|i| handled.contains(i)))
        };
        for (k, s) in spec.steps.iter().enumerate() {
            if cancelled() {
                break;
            }
            if ask_at == Some(k) {
                ask_at = None;
                // A failed preview step ends the call with its error: there is nothing right to ask about.
                if failed_yet(&done, &handled) {
                    break;
                }
                if let Some(c) = &spec.confirm
                    && let Some(text) = ask_user(c, &vars, ctx)
                {
                    return Ok(refused(text));
                }
            }
            let mut touched = HashSet::new();
            if let Some(w) = &s.when
                && !cond(w, &vars, &results, &mut touched)?
            {
                continue;
            }
            handled.extend(touched);
            let o = run(s, &vars)?;
            if let Some(m) = &o.missing {
                return Ok(missing(m, &vars));
            }
            keep_step(s, o, &mut results, &mut vars, &mut done);
        }
    }
    let rendered = if spec.output.is_empty() {
        None
    } else {
        Some(output(&spec.output, &vars, &results, &mut handled)?)
    };
    let unhandled = |id: &Option<String>| !id.as_ref().is_some_and(|i| handled.contains(i));
    let failed = done
        .iter()
        .any(|(id, secs)| secs.iter().any(|x| x.err) && unhandled(id));
    let mut secs: Vec<String> = done
        .iter()
        .flat_map(|(id, secs)| secs.iter().filter(|x| !x.err || unhandled(id)).map(|x| x.text.clone()))
        .collect();
    if let Some(r) = rendered {
        secs = done
            .iter()
            .flat_map(|(id, secs)| secs.iter().filter(|x| x.err && unhandled(id)).map(|x| x.text.clone()))
            .chain(std::iter::once(r))
            .filter(|s| !s.is_empty())
            .collect();
    }
    if failed && let Some(rec) = &spec.recovery {
        secs.push(render(rec, &vars, false));
    }
    let body = secs.join("\n\n");
    let body = if body.is_empty() { empty_text(&vars) } else { body };
    let tail = if cancelled() { "\n\n_Cancelled._" } else { "" };
    let mut a = answer(head + &body + tail, failed || cancelled());
    // The steps' data, redacted as the text is: a host may send it beside the text.
    for id in spec.steps.iter().filter(|s| has_data(s)).filter_map(|s| s.id.as_ref()) {
        if let Some(v) = vars.map.get(id) {
            let v = if matches!(spec.redact, SpecRedact::Errors | SpecRedact::None) {
                v.clone()
            } else {
                redact_deep(v)
            };
            a.data.insert(id.clone(), v);
        }
    }
    Ok(a)
}

fn rules(spec: &ExecSpec, vals: &mut Map<String, Value>, base: &Path) -> Result<Vec<String>, String> {
    let mut errors = Vec::new();
    // The rules see the parameters that keep "" too: a kept "" is a given value (`require` holds, `forbid` refuses it).
    let keep = keep_empty(spec);
    for r in &spec.rules {
        let v = Vars {
            map: vals.clone(),
            keep: Some(keep.clone()),
        };
        let when = match r {
            SpecRule::Default { when, .. } | SpecRule::Require { when, .. } | SpecRule::Forbid { when, .. } => {
                when.as_ref()
            }
            SpecRule::Compare { .. } => None,
        };
        if let Some(w) = when
            && !cond(w, &v, &HashMap::new(), &mut HashSet::new())?
        {
            continue;
        }
        match r {
            SpecRule::Default { values, .. } => {
                for (k, x) in values {
                    let v = Vars {
                        map: vals.clone(),
                        keep: Some(keep.clone()),
                    };
                    let p = spec.params.iter().find(|q| &q.name == k);
                    let x = json_t(x, &v);
                    if let Some(p) = p
                        && !given(&v, k)
                        && is_set(Some(&x))
                    {
                        match coerce(&TypeView::of(p), &x, k, base) {
                            Coerced::Ok(c) => {
                                vals.insert(k.clone(), c);
                            }
                            Coerced::Bad(m) | Coerced::Fatal(m) => return Err(m),
                        }
                    }
                }
            }
            SpecRule::Require { params, message, .. } => {
                if !params.iter().all(|k| given(&v, k)) {
                    errors.push(message.clone());
                }
            }
            SpecRule::Forbid { params, message, .. } => {
                if params.iter().any(|k| given(&v, k)) {
                    errors.push(message.clone());
                }
            }
            SpecRule::Compare {
                left,
                op,
                right,
                message,
            } => {
                let (Some(a), Some(b)) = (
                    js::as_number(v.get(left).as_ref()),
                    js::as_number(v.get(right).as_ref()),
                ) else {
                    continue;
                };
                let ok = match op {
                    SpecCompareOp::Ge => a >= b,
                    SpecCompareOp::Gt => a > b,
                    SpecCompareOp::Le => a <= b,
                    SpecCompareOp::Lt => a < b,
                };
                if !ok {
                    errors.push(format!("{message} (got {} and {})", js::num(a), js::num(b)));
                }
            }
        }
    }
    Ok(errors)
}
