//! Computed data: `compute` steps evaluate a CEL expression (the Common Expression Language,
//! <https://cel.dev>) over the call's variables. The language is cel-rust's (the `cel` crate); the
//! TypeScript runtime runs @bufbuild/cel. Both implement the CEL spec and its `strings`
//! extension; what they add beyond it differs, so ixgen defines a few functions of its own
//! (below) once, in docs/expressions.md, and implements them here and in
//! `templates/opencode/runtime.ts`, held to the same answers by `tests/conformance/expr-*.json`.
//!
//! Data crosses between JSON and CEL by one rule in both runtimes: a JSON number with an
//! integral value (within ±2^53) is a CEL `int`, any other a `double`; on the way back a map's
//! keys come out sorted (cel-rust's maps have no order) and a `double` with an integral value is
//! written as an integer, as JavaScript writes it.

use cel::extractors::This;
use cel::objects::{Key, Map as CelMap};
use cel::{Context, Env, ExecutionError, FunctionContext, Value as Cel};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

/// The standard environment with the `strings` extension, built once.
static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    env.add_extension(cel::extensions::strings)
        .expect("the strings extension registers once");
    Arc::new(env)
});

/// ixgen's own functions, on top of CEL and its strings extension (docs/expressions.md).
pub const FUNCTIONS: &[&str] = &[
    "replaceRe",
    "lines",
    "sort",
    "orderBy",
    "orderByDesc",
    "groupBy",
    "take",
    "sum",
];

/// A syntax error: the message and where it is in the expression (1-based line and column,
/// in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

/// A stack for cel-rust's parser and evaluator, which recurse by the expression's nesting: built
/// unoptimised, its parser takes about 140 KiB a level, so 16 nested parentheses overflowed the
/// 2 MiB of a tokio blocking thread (an `ixgen serve` call) and aborted the process, and its
/// deepest accepted expression (about 96 levels, then a syntax error) needs some 14 MiB. Its
/// pages are touched only as deep as a run goes.
const STACK: usize = 32 << 20;

/// Runs `f` on a stack of [`STACK`] bytes, whatever the caller's thread had left.
fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(STACK / 2, STACK, f)
}

fn compile(source: &str) -> Result<cel::Program, cel::ParseErrors> {
    deep(|| ENV.compile(source))
}

/// Compiles an expression without running it (`ixgen validate`): the first syntax error.
pub fn check(source: &str) -> Result<(), SyntaxError> {
    match compile(source) {
        Ok(_) => Ok(()),
        Err(errs) => {
            // The parser's own syntax errors point at a token; the errors it adds while it
            // builds the tree from what it recovered (`Incomplete … expression`) point at the start.
            let e = errs
                .errors
                .iter()
                .find(|e| e.msg.starts_with("Syntax error"))
                .or(errs.errors.first());
            Err(SyntaxError {
                message: e.map_or_else(|| errs.to_string(), |e| e.msg.clone()),
                line: e.map_or(1, |e| e.pos.0.max(1) as usize),
                column: e.map_or(1, |e| e.pos.1.max(1) as usize),
            })
        }
    }
}

/// Whether two expressions are one program written two ways (spacing, line breaks, comments):
/// their syntax trees are equal. Text that does not compile is compared as text.
pub fn same_program(a: &str, b: &str) -> bool {
    match (compile(a), compile(b)) {
        (Ok(x), Ok(y)) => x.expression() == y.expression(),
        _ => a == b,
    }
}

/// Functions cel-rust has and @bufbuild/cel does not (found by tests/conformance/expr-formatting.json's
/// probe), with how they are written: an expression calling one would work in `ixgen serve` and
/// fail in OpenCode. cel-rust has CEL's optional values (`m[?k]`, `m.?k` and their functions);
/// the OpenCode runtime's @bufbuild/cel is built without that library. (`optional.of(…)` and the
/// other constructors are refused before this, as a read of an unknown variable `optional`.)
const NOT_PORTABLE: &[(&str, &str)] = &[
    ("reverse", "reverse()"),
    ("_[?_]", "m[?k]"),
    ("_?._", "m.?k"),
    ("orValue", "orValue()"),
    ("hasValue", "hasValue()"),
    ("or", "or()"),
    ("value", "value()"),
];

/// The first function the expression calls that only one runtime has, as it is written.
pub fn not_portable(source: &str) -> Option<String> {
    let program = compile(source).ok()?;
    let refs = program.references();
    NOT_PORTABLE
        .iter()
        .find(|(f, _)| refs.has_function(f))
        .map(|(_, written)| (*written).to_string())
}

/// The variables an expression reads and does not bind itself (a macro's `x` in `xs.map(x, …)`
/// is bound), in order of first use; type names (`double` in `type(n) == double`) and the
/// `strings` namespace are not variables. `None` when it does not parse.
pub fn free_variables(source: &str) -> Option<Vec<String>> {
    Some(free_variables_at(source)?.into_iter().map(|v| v.0).collect())
}

/// Every read of a variable the expression does not bind itself, in the order of the syntax
/// tree, with where it starts (a byte offset).
fn free_reads(source: &str) -> Option<Vec<(String, usize)>> {
    use cel::common::ast::{EntryExpr, Expr};
    type Out = Vec<(String, u64)>;
    fn walk(e: &cel::IdedExpr, bound: &mut Vec<String>, out: &mut Out) {
        match &e.expr {
            Expr::Ident(n) => {
                const NOT_VARIABLES: &[&str] = &[
                    "int",
                    "uint",
                    "double",
                    "string",
                    "bool",
                    "bytes",
                    "list",
                    "map",
                    "null_type",
                    "type",
                    "dyn",
                    "strings",
                ];
                if !n.starts_with('@') && !bound.contains(n) && !NOT_VARIABLES.contains(&n.as_str()) {
                    out.push((n.clone(), e.id));
                }
            }
            Expr::Call(c) => {
                if let Some(t) = &c.target {
                    walk(t, bound, out);
                }
                for a in &c.args {
                    walk(a, bound, out);
                }
            }
            Expr::Comprehension(c) => {
                walk(&c.iter_range, bound, out);
                walk(&c.accu_init, bound, out);
                let n = bound.len();
                bound.push(c.accu_var.clone());
                bound.push(c.iter_var.clone());
                bound.extend(c.iter_var2.clone());
                walk(&c.loop_cond, bound, out);
                walk(&c.loop_step, bound, out);
                walk(&c.result, bound, out);
                bound.truncate(n);
            }
            Expr::List(l) => l.elements.iter().for_each(|x| walk(x, bound, out)),
            Expr::Map(m) => m.entries.iter().for_each(|x| entry(&x.expr, bound, out)),
            Expr::Struct(st) => st.entries.iter().for_each(|x| entry(&x.expr, bound, out)),
            Expr::Select(sel) => walk(&sel.operand, bound, out),
            _ => {}
        }
    }
    fn entry(e: &EntryExpr, bound: &mut Vec<String>, out: &mut Out) {
        match e {
            EntryExpr::StructField(f) => walk(&f.value, bound, out),
            EntryExpr::MapEntry(m) => {
                walk(&m.key, bound, out);
                walk(&m.value, bound, out);
            }
        }
    }
    let program = compile(source).ok()?;
    let mut out = Vec::new();
    walk(program.expression(), &mut Vec::new(), &mut out);
    // cel-rust's offsets count bytes.
    let start = |id| program.source_info().offset_for(id).map_or(0, |o| o.0 as usize);
    let at_char = |i: usize| (i <= source.len() && source.is_char_boundary(i)).then_some(i);
    Some(
        out.into_iter()
            .filter_map(|(name, id)| Some((name, at_char(start(id))?)))
            .collect(),
    )
}

/// [`free_variables`], each with where it is first read: the 1-based line and column (in
/// characters) inside the expression.
pub fn free_variables_at(source: &str) -> Option<Vec<(String, usize, usize)>> {
    let mut seen = std::collections::HashSet::new();
    let first = free_reads(source)?
        .into_iter()
        .filter(|(name, _)| seen.insert(name.clone()));
    Some(
        first
            .map(|(name, start)| {
                let before = &source[..start];
                let line = 1 + before.matches('\n').count();
                let col = 1 + before.rsplit('\n').next().map_or(0, |l| l.chars().count());
                (name, line, col)
            })
            .collect(),
    )
}

/// The expression with the variables of `names` (old name → new) written by their new names,
/// as a catalog that renamed a parameter writes it; `None` when it does not parse.
pub fn with_variables_renamed(source: &str, names: &std::collections::HashMap<&str, &str>) -> Option<String> {
    let mut text = source.to_string();
    // From the last read back, so that each start still holds when it is replaced.
    for (name, start) in free_reads(source)?.into_iter().rev() {
        if let Some(to) = names.get(name.as_str())
            && text[start..].starts_with(name.as_str())
        {
            text.replace_range(start..start + name.len(), to);
        }
    }
    Some(text)
}

/// Whether `name` can be a CEL variable (an identifier that is not a reserved word).
fn identifier(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
}

/// Evaluates `source` with `vars` bound (each name that is a CEL identifier) and `nulls` bound to
/// `null` when they have no value (the parameters, so `limit == null` can be asked). `None`: the
/// expression failed, or its value is not data (bytes, a type).
pub fn eval(source: &str, vars: &Map<String, Value>, nulls: &[&str]) -> Option<Value> {
    let program = compile(source).ok()?;
    let mut ctx = Context::with_env(ENV.clone());
    for (k, v) in vars {
        if identifier(k) {
            ctx.add_variable_from_value(k.as_str(), to_cel(v));
        }
    }
    for k in nulls {
        if identifier(k) && !vars.contains_key(*k) {
            ctx.add_variable_from_value(*k, Cel::Null);
        }
    }
    register(&mut ctx).ok()?;
    let out = deep(|| program.execute(&ctx)).ok()?;
    to_json(&out)
}

fn register(ctx: &mut Context) -> Result<(), cel::DeclarationError> {
    ctx.add_function("replaceRe", replace_re)?;
    ctx.add_function("lines", lines)?;
    ctx.add_function("sort", sort)?;
    ctx.add_function("orderBy", order_by)?;
    ctx.add_function("orderByDesc", order_by_desc)?;
    ctx.add_function("groupBy", group_by)?;
    ctx.add_function("take", take)?;
    ctx.add_function("sum", sum)?;
    ctx.add_function("formatDate", format_date)?;
    Ok(())
}

const SAFE: f64 = 9_007_199_254_740_992.0; // 2^53

/// JSON to CEL: integral numbers are `int`.
pub fn to_cel(v: &Value) -> Cel {
    match v {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        // As JavaScript reads it: the number's double (9007199254740993 is 2^53), then an
        // `int` when that is integral and within ±2^53.
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() <= SAFE {
                Cel::Int(f as i64)
            } else {
                Cel::Float(f)
            }
        }
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Array(a) => Cel::List(Arc::new(a.iter().map(to_cel).collect())),
        Value::Object(o) => {
            let m: HashMap<Key, Cel> = o
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), to_cel(v)))
                .collect();
            Cel::Map(CelMap { map: Arc::new(m) })
        }
    }
}

fn key_text(k: &Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Uint(u) => u.to_string(),
        Key::Bool(b) => b.to_string(),
        Key::String(s) => s.as_str().to_string(),
    }
}

/// CEL to JSON: `None` for what JSON cannot hold (bytes, types, functions).
pub fn to_json(v: &Cel) -> Option<Value> {
    Some(match v {
        Cel::Null => Value::Null,
        Cel::Bool(b) => Value::Bool(*b),
        Cel::Int(i) => Value::Number((*i).into()),
        Cel::UInt(u) => Value::Number((*u).into()),
        Cel::Float(f) => number(*f),
        Cel::String(s) => Value::String(s.as_str().to_string()),
        Cel::List(l) => Value::Array(l.iter().map(to_json).collect::<Option<_>>()?),
        Cel::Map(m) => {
            let mut entries: Vec<(String, Value)> = m
                .map
                .iter()
                .map(|(k, v)| Some((key_text(k), to_json(v)?)))
                .collect::<Option<_>>()?;
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            // Two keys of one text (`{1: 'a', '1': 'b'}`) are not a JSON object: which one a
            // runtime kept would depend on its map's order.
            if entries.windows(2).any(|w| w[0].0 == w[1].0) {
                return None;
            }
            Value::Object(entries.into_iter().collect())
        }
        _ => return None,
    })
}

/// A double as JavaScript writes it: integral values without a fraction, NaN and infinities as null.
fn number(f: f64) -> Value {
    if !f.is_finite() {
        Value::Null
    } else if f.fract() == 0.0 && f.abs() <= SAFE {
        Value::Number((f as i64).into())
    } else {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

type R = Result<Cel, ExecutionError>;

fn string_of(ftx: &FunctionContext, v: &Cel) -> Result<String, ExecutionError> {
    match v {
        Cel::String(s) => Ok(s.as_str().to_string()),
        _ => Err(ftx.error("expects a string")),
    }
}

fn list_of(ftx: &FunctionContext, v: &Cel) -> Result<Arc<Vec<Cel>>, ExecutionError> {
    match v {
        Cel::List(l) => Ok(l.clone()),
        _ => Err(ftx.error("expects a list")),
    }
}

/// `s.replaceRe(pattern, replacement)`: every match of an ECMAScript regular expression
/// replaced; in the replacement `$&` is the match, `$1`…`$99` a group (empty when it did not
/// take part), `$$` a dollar sign.
fn replace_re(ftx: &FunctionContext, This(this): This<Cel>, pattern: Cel, replacement: Cel) -> R {
    let s = string_of(ftx, &this)?;
    let p = string_of(ftx, &pattern)?;
    let rep = string_of(ftx, &replacement)?;
    // Unicode mode, as the TypeScript runtime's `RegExp(pattern, "gu")`: code points, not UTF-16 units.
    let re = regress::Regex::with_flags(&p, "u").map_err(|e| ftx.error(e))?;
    let mut out = String::new();
    let mut last = 0;
    for m in re.find_iter(&s) {
        out.push_str(&s[last..m.start()]);
        let groups: Vec<Option<&str>> = m.groups().map(|g| g.map(|r| &s[r])).collect();
        expand(&rep, &groups, &mut out);
        last = m.end();
    }
    out.push_str(&s[last..]);
    Ok(Cel::String(Arc::new(out)))
}

/// The replacement's `$` forms (the subset `replaceRe` documents), `groups[0]` the match.
fn expand(rep: &str, groups: &[Option<&str>], out: &mut String) {
    let b = rep.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() {
            let c = b[i + 1];
            if c == b'$' {
                out.push('$');
                i += 2;
                continue;
            }
            if c == b'&' {
                out.push_str(groups[0].unwrap_or(""));
                i += 2;
                continue;
            }
            if c.is_ascii_digit() {
                // Two digits when that group exists, else one (as JavaScript).
                let one = (c - b'0') as usize;
                let two = (i + 2 < b.len() && b[i + 2].is_ascii_digit()).then(|| one * 10 + (b[i + 2] - b'0') as usize);
                if let Some(n) = two.filter(|n| *n >= 1 && *n < groups.len()) {
                    out.push_str(groups[n].unwrap_or(""));
                    i += 3;
                    continue;
                }
                if one >= 1 && one < groups.len() {
                    out.push_str(groups[one].unwrap_or(""));
                    i += 2;
                    continue;
                }
            }
        }
        let ch = rep[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
}

/// `s.lines()`: the lines of a text; a final newline does not start another line, `\r\n` counts
/// as one newline.
fn lines(ftx: &FunctionContext, This(this): This<Cel>) -> R {
    let s = string_of(ftx, &this)?;
    let body = s.strip_suffix('\n').unwrap_or(&s);
    if s.is_empty() {
        return Ok(Cel::List(Arc::new(Vec::new())));
    }
    Ok(Cel::List(Arc::new(
        body.split('\n')
            .map(|l| Cel::String(Arc::new(l.strip_suffix('\r').unwrap_or(l).to_string())))
            .collect(),
    )))
}

/// The order of sort keys: null first, then numbers (int and double together), strings, booleans
/// within their own kind; two kinds that differ otherwise are an error.
fn order(ftx: &FunctionContext, a: &Cel, b: &Cel) -> Result<std::cmp::Ordering, ExecutionError> {
    use std::cmp::Ordering::*;
    let num = |v: &Cel| match v {
        Cel::Int(i) => Some(*i as f64),
        Cel::UInt(u) => Some(*u as f64),
        Cel::Float(f) => Some(*f),
        _ => None,
    };
    Ok(match (a, b) {
        (Cel::Null, Cel::Null) => Equal,
        (Cel::Null, _) => Less,
        (_, Cel::Null) => Greater,
        (Cel::String(x), Cel::String(y)) => utf16_cmp(x, y),
        (Cel::Bool(x), Cel::Bool(y)) => x.cmp(y),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Equal),
            _ => return Err(ftx.error("cannot order values of different types")),
        },
    })
}

/// Strings in JavaScript's order (UTF-16 code units), so both runtimes sort alike.
fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn sorted_by(ftx: &FunctionContext, list: &[Cel], key: impl Fn(&Cel) -> Cel, desc: bool) -> R {
    let mut keyed: Vec<(Cel, Cel)> = list.iter().map(|v| (key(v), v.clone())).collect();
    let mut err = None;
    // A stable sort, as Array.prototype.sort.
    keyed.sort_by(|a, b| match order(ftx, &a.0, &b.0) {
        Ok(o) if desc => o.reverse(),
        Ok(o) => o,
        Err(e) => {
            err.get_or_insert(e);
            std::cmp::Ordering::Equal
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(Cel::List(Arc::new(keyed.into_iter().map(|(_, v)| v).collect())))
}

/// `list.sort()`: numbers, strings or booleans in ascending order.
fn sort(ftx: &FunctionContext, This(this): This<Cel>) -> R {
    let l = list_of(ftx, &this)?;
    sorted_by(ftx, &l, Cel::clone, false)
}

/// A map's field (null when absent or not a map).
fn field(v: &Cel, name: &str) -> Cel {
    match v {
        Cel::Map(m) => m
            .map
            .get(&Key::String(Arc::new(name.to_string())))
            .cloned()
            .unwrap_or(Cel::Null),
        _ => Cel::Null,
    }
}

/// `list.orderBy("field")`: the maps in ascending order of a field (stable; absent first).
fn order_by(ftx: &FunctionContext, This(this): This<Cel>, name: Cel) -> R {
    let l = list_of(ftx, &this)?;
    let f = string_of(ftx, &name)?;
    sorted_by(ftx, &l, |v| field(v, &f), false)
}

/// `list.orderByDesc("field")`: descending, equal keys keep their order.
fn order_by_desc(ftx: &FunctionContext, This(this): This<Cel>, name: Cel) -> R {
    let l = list_of(ftx, &this)?;
    let f = string_of(ftx, &name)?;
    sorted_by(ftx, &l, |v| field(v, &f), true)
}

/// `list.groupBy("field")`: `[{key, count, items}]`, one per distinct value of the field, in
/// order of first appearance.
fn group_by(ftx: &FunctionContext, This(this): This<Cel>, name: Cel) -> R {
    let l = list_of(ftx, &this)?;
    let f = string_of(ftx, &name)?;
    let mut groups: Vec<(String, Cel, Vec<Cel>)> = Vec::new();
    for v in l.iter() {
        let k = field(v, &f);
        let id = to_json(&k).map_or_else(String::new, |j| crate::js::stringify(&j));
        match groups.iter_mut().find(|g| g.0 == id) {
            Some(g) => g.2.push(v.clone()),
            None => groups.push((id, k, vec![v.clone()])),
        }
    }
    Ok(Cel::List(Arc::new(
        groups
            .into_iter()
            .map(|(_, k, items)| {
                let mut m: HashMap<Key, Cel> = HashMap::new();
                m.insert(Key::String(Arc::new("key".into())), k);
                m.insert(Key::String(Arc::new("count".into())), Cel::Int(items.len() as i64));
                m.insert(Key::String(Arc::new("items".into())), Cel::List(Arc::new(items)));
                Cel::Map(CelMap { map: Arc::new(m) })
            })
            .collect(),
    )))
}

/// `list.take(n)`: the first n elements (all when fewer; none when n ≤ 0).
fn take(ftx: &FunctionContext, This(this): This<Cel>, n: Cel) -> R {
    let l = list_of(ftx, &this)?;
    let n = match n {
        Cel::Int(i) => i.max(0) as usize,
        Cel::UInt(u) => u as usize,
        _ => return Err(ftx.error("expects an int")),
    };
    Ok(Cel::List(Arc::new(l.iter().take(n).cloned().collect())))
}

/// `list.sum()`: an int when every element is one, else a double; 0 for an empty list.
fn sum(ftx: &FunctionContext, This(this): This<Cel>) -> R {
    let l = list_of(ftx, &this)?;
    let mut int: Option<i64> = Some(0);
    let mut float = 0.0;
    for v in l.iter() {
        match v {
            Cel::Int(i) => {
                int = int.and_then(|t| t.checked_add(*i));
                float += *i as f64;
            }
            Cel::Float(f) => {
                int = None;
                float += f;
            }
            _ => return Err(ftx.error("expects a list of numbers")),
        }
    }
    let all_int = l.iter().all(|v| matches!(v, Cel::Int(_)));
    Ok(match int {
        Some(t) if all_int => Cel::Int(t),
        // Past an `int`'s range, as `+` is: an error, not a rounded double.
        None if all_int => return Err(ftx.error("integer overflow")),
        _ => Cel::Float(float),
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`); a day or
/// month past its end rolls over, as the TypeScript runtime's copy does.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count (`civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Seconds since the epoch of an ISO 8601 date or date-time: `YYYY-MM-DD`, then optionally
/// `THH:MM[:SS[.fraction]]` (or a space for `T`) and `Z` or an offset `±HH:MM` / `±HHMM`; without
/// an offset it is UTC.
fn parse_iso(s: &str) -> Option<i64> {
    static RE: LazyLock<regress::Regex> = LazyLock::new(|| {
        regress::Regex::new(
            r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?(Z|([+-])(\d{2}):?(\d{2}))?$",
        )
        .expect("a valid pattern")
    });
    let m = RE.find(s)?;
    let n = |i: usize| -> i64 { m.group(i).map_or(0, |r| s[r].parse().unwrap_or(0)) };
    let (mo, d, h, mi, sec) = (n(2), n(3), n(4), n(5), n(6));
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let sign = match m.group(8).map(|r| &s[r]) {
        Some("-") => -1,
        _ => 1,
    };
    let offset = sign * (n(9) * 3600 + n(10) * 60);
    Some(days_from_civil(n(1), mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset)
}

/// `x.formatDate(layout)`: a time, in UTC, written with `YYYY`, `MM`, `DD`, `hh`, `mm`, `ss`
/// replaced (everything else is literal). `x` is seconds since the epoch (an int or a double,
/// as git's `%at` prints) or an ISO 8601 string.
fn format_date(ftx: &FunctionContext, This(this): This<Cel>, layout: Cel) -> R {
    let secs = match &this {
        Cel::Int(i) => *i,
        Cel::UInt(u) => i64::try_from(*u).map_err(|_| ftx.error("out of range"))?,
        Cel::Float(f) if f.is_finite() && f.abs() < 1e15 => f.floor() as i64,
        Cel::String(s) => parse_iso(s).ok_or_else(|| ftx.error("not an ISO 8601 date"))?,
        _ => return Err(ftx.error("expects seconds since the epoch or an ISO 8601 date")),
    };
    let layout = string_of(ftx, &layout)?;
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    let mut out = String::new();
    let mut rest = layout.as_str();
    while let Some(c) = rest.chars().next() {
        let (text, len) = if rest.starts_with("YYYY") {
            (format!("{y:04}"), 4)
        } else if rest.starts_with("MM") {
            (format!("{mo:02}"), 2)
        } else if rest.starts_with("DD") {
            (format!("{d:02}"), 2)
        } else if rest.starts_with("hh") {
            (format!("{:02}", t / 3600), 2)
        } else if rest.starts_with("mm") {
            (format!("{:02}", t / 60 % 60), 2)
        } else if rest.starts_with("ss") {
            (format!("{:02}", t % 60), 2)
        } else {
            (c.to_string(), c.len_utf8())
        };
        out.push_str(&text);
        rest = &rest[len..];
    }
    Ok(Cel::String(Arc::new(out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(src: &str, vars: Value) -> Option<Value> {
        eval(src, vars.as_object().unwrap(), &["unset"])
    }

    #[test]
    fn what_only_cel_rust_has_is_found_as_it_is_written() {
        for (src, found) in [
            ("'abc'.reverse()", "reverse()"),
            ("{'a': 1}[?'b'].orValue(3)", "m[?k]"),
            ("{'a': 1}.?b.orValue(2)", "m.?k"),
            ("optional.of(1).value()", "value()"),
            ("optional.none().hasValue()", "hasValue()"),
        ] {
            assert_eq!(not_portable(src).as_deref(), Some(found), "{src}");
        }
        // Fields of those names are data, not calls.
        for src in ["x.value + 1", "{'or': 1}.or", "m.orValue"] {
            assert_eq!(not_portable(src), None, "{src}");
        }
    }

    #[test]
    fn evaluates_over_json_data() {
        let v = json!({"items": [{"n": "a", "s": 3}, {"n": "b", "s": 1.5}, {"n": "c", "s": 3}]});
        assert_eq!(
            ev("items.orderBy('s').map(x, x.n)", v.clone()),
            Some(json!(["b", "a", "c"]))
        );
        assert_eq!(
            ev("items.orderByDesc('s').map(x, x.n)", v.clone()),
            Some(json!(["a", "c", "b"]))
        );
        assert_eq!(
            ev("items.groupBy('s').map(g, [g.key, g.count])", v.clone()),
            Some(json!([[3, 2], [1.5, 1]]))
        );
        assert_eq!(ev("items.map(x, x.s).sum()", v.clone()), Some(json!(7.5)));
        assert_eq!(ev("unset == null", v), Some(json!(true)));
    }

    #[test]
    fn replaces_with_groups() {
        assert_eq!(
            ev("'a-1 b-22'.replaceRe('(\\\\w)-(\\\\d+)', '$2:$1$$')", json!({})),
            Some(json!("1:a$ 22:b$"))
        );
        assert_eq!(ev("'x\\ny\\n'.lines()", json!({})), Some(json!(["x", "y"])));
    }

    #[test]
    fn formats_dates_in_utc() {
        let v = json!({"t": 1_700_000_000, "neg": -1});
        assert_eq!(
            ev("t.formatDate('YYYY-MM-DD hh:mm:ss')", v.clone()),
            Some(json!("2023-11-14 22:13:20"))
        );
        assert_eq!(
            ev("neg.formatDate('YYYY-MM-DD hh:mm:ss')", v.clone()),
            Some(json!("1969-12-31 23:59:59"))
        );
        assert_eq!(
            ev("'2024-02-29T23:30:00+02:00'.formatDate('DD/MM/YYYY hh:mm')", v.clone()),
            Some(json!("29/02/2024 21:30"))
        );
        assert_eq!(ev("'2024-13-01'.formatDate('YYYY')", v), None);
    }

    #[test]
    fn finds_the_variables_an_expression_reads() {
        assert_eq!(
            free_variables(
                "scan.items.filter(x, x.n > limit).map(y, {'k': y.k, 'z': zz}) + [type(a) == double ? strings.quote(b) : c]"
            ),
            Some(
                vec!["scan", "limit", "zz", "a", "b", "c"]
                    .into_iter()
                    .map(String::from)
                    .collect()
            )
        );
        assert_eq!(
            free_variables("xs.all(x, x > 0) && x"),
            Some(vec!["xs".to_string(), "x".to_string()])
        );
        assert_eq!(
            free_variables_at("a +\n  size(bee) + a"),
            Some(vec![("a".to_string(), 1, 1), ("bee".to_string(), 2, 8)])
        );
        // Columns in characters, after text of several bytes a character.
        assert_eq!(
            free_variables_at("'é😀' + kind"),
            Some(vec![("kind".to_string(), 1, 8)])
        );
    }

    /// A renamed parameter is written by its new name wherever the expression reads it, and
    /// nowhere it binds the name itself or only mentions it (a field, a string).
    #[test]
    fn renames_the_variables_an_expression_reads() {
        let names = std::collections::HashMap::from([("kind", "category"), ("q", "query")]);
        assert_eq!(
            with_variables_renamed(
                "q.size() + xs.filter(kind, kind > 1).size() + m.kind + size('kind') + [kind, q][0]",
                &names
            )
            .as_deref(),
            Some("query.size() + xs.filter(kind, kind > 1).size() + m.kind + size('kind') + [category, query][0]")
        );
        assert_eq!(
            with_variables_renamed("'é😀' + kind", &names).as_deref(),
            Some("'é😀' + category")
        );
        assert_eq!(with_variables_renamed("kind +", &names), None);
    }

    #[test]
    fn reports_where_a_syntax_error_is() {
        let e = check("items.filter(x, x.s >").unwrap_err();
        assert_eq!((e.line, e.column), (1, 22));
        assert!(check("size(items) > 1").is_ok());
    }
}
