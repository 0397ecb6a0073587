//! Catalog constructs for what a tool does around its steps: confirmation, rules across
//! parameters, CLI exit codes, output limits and timeouts, redaction. The checks that need only
//! the tool itself (by catalog path, like `super::validate`, which calls them); their serde +
//! schemars types are in `super::types`. Template and condition checks stay in
//! `super::validate`, which owns the scope of names.

use super::types::{Param, ParamType, Step, Tool};
use crate::diagnostic::Diagnostic;
use std::collections::HashMap;

pub use super::types::{Amount, Check, Confirm, ConfirmRules, Redact, Rule, Stream, parse_check};

/// Whether a step changes state: it says so (`changes: true`), or it is a kind that always does
/// (a store append or update, a signal).
pub fn changes_state(s: &Step) -> bool {
    s.changes || s.append.is_some() || s.update.is_some() || s.signal.is_some()
}

/// `confirm.after`: the steps up to the named one run before the user is asked, so they must
/// exist, run one after another, come before every step that changes state, and leave at least
/// one such step to guard. (The preview's template is checked with the steps' data, in
/// `super::render`.)
fn check_after(path: &str, tool: &Tool, after: &str) -> Vec<Diagnostic> {
    let apath = format!("{path}.confirm.after");
    let err = |msg: String, help: &str| vec![Diagnostic::error("bad-confirm", &apath, msg).help(help)];
    let Some(at) = tool.steps.iter().position(|s| s.id.as_deref() == Some(after)) else {
        let ids: Vec<&String> = tool.steps.iter().filter_map(|s| s.id.as_ref()).collect();
        return vec![
            Diagnostic::error(
                "unknown-step",
                &apath,
                format!("`confirm.after` names no step `{after}` of `{}`", tool.name),
            )
            .help(super::validate::hint_for(
                after,
                &ids,
                "give the last step of the preview an `id` and name it here",
            )),
        ];
    };
    if tool.parallel {
        return err(
            "a parallel tool runs its steps all at once, so none can run before the user is asked".into(),
            "remove `parallel: true`, or remove `after`",
        );
    }
    if tool.runtime.is_some() {
        return err(
            "a tool with a `runtime` route calls it before its steps, so the route would run before the user is asked"
                .into(),
            "remove `after` (the question is then asked before the route), or the route",
        );
    }
    if let Some((k, s)) = tool.steps[..=at].iter().enumerate().find(|(_, s)| changes_state(s)) {
        let what = s.id.as_ref().map_or(format!("steps[{k}]"), |id| format!("step `{id}`"));
        return err(
            format!("{what} changes state, and it runs before the user is asked (up to `{after}`)"),
            "name in `after` a step before every step that changes state: the steps up to it only compute the preview",
        );
    }
    if !tool.steps[at + 1..].iter().any(changes_state) {
        return err(
            format!("no step after `{after}` changes state, so the question guards nothing"),
            "mark the step that writes, commits or deletes `changes: true`, and keep it after `after`",
        );
    }
    Vec::new()
}

/// Checks a tool's `confirm` and `rules` (not their templates or conditions).
pub fn check_tool(path: &str, tool: &Tool, params: &HashMap<&str, &Param>) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    // MCP has no confirmation field: clients decide from the annotations, where only a write
    // tool's `destructiveHint` means "ask". Say so when the catalog asks for a tool that MCP
    // clients will see as harmless.
    let destructive = tool.access == super::types::Access::Write && tool.destructive.unwrap_or(true);
    if tool.confirm.as_ref().is_some_and(Confirm::asks) && !destructive {
        d.push(
            Diagnostic::warning(
                "confirm-not-destructive",
                format!("{path}.confirm"),
                format!(
                    "`{}` asks before running, but MCP clients see it as not destructive and may run it without asking",
                    tool.name
                ),
            )
            .at_key()
            .help("set `access: write` and `destructive: true`, or remove `confirm`"),
        );
    }
    if let Some(Confirm::Rules(c)) = &tool.confirm {
        for (key, list) in [("allow", &c.allow), ("deny", &c.deny)] {
            for (i, p) in list.iter().enumerate() {
                if p.trim().is_empty() || p.chars().any(char::is_control) {
                    d.push(
                        Diagnostic::error(
                            "bad-confirm",
                            format!("{path}.confirm.{key}[{i}]"),
                            "a confirm pattern must be non-empty text on one line",
                        )
                        .help("write a wildcard pattern such as `npm *`"),
                    );
                }
            }
        }
        if let Some(after) = &c.after {
            d.extend(check_after(path, tool, after));
        }
        if c.subject.is_none() && !(c.allow.is_empty() && c.deny.is_empty()) {
            d.push(
                Diagnostic::error(
                    "bad-confirm",
                    format!("{path}.confirm"),
                    "`allow` and `deny` patterns need a `subject` to match",
                )
                .help("add `subject: \"{command}\"` naming what the patterns are matched against"),
            );
        }
    }
    for (i, rule) in tool.rules.iter().enumerate() {
        let rpath = format!("{path}.rules[{i}]");
        let kinds = [
            rule.default.is_some(),
            rule.require.is_some(),
            rule.forbid.is_some(),
            rule.check.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            d.push(
                Diagnostic::error(
                    "bad-rule",
                    &rpath,
                    "a rule is exactly one of `default`, `require`, `forbid`, `check`",
                )
                .help("e.g. `{when: {param: from, set: true}, default: {to: HEAD}}` or `{check: \"end >= start\"}`"),
            );
            continue;
        }
        let names = |key: &str, list: Vec<&String>, d: &mut Vec<Diagnostic>| {
            for n in list {
                if !params.contains_key(n.as_str()) {
                    d.push(
                        Diagnostic::error(
                            "unknown-param",
                            format!("{rpath}.{key}"),
                            format!("the rule names no parameter `{n}`"),
                        )
                        .help("name a parameter of the tool"),
                    );
                }
            }
        };
        if let Some(values) = &rule.default {
            names("default", values.keys().collect(), &mut d);
            for (n, v) in values {
                if let Some(p) = params.get(n.as_str()) {
                    if p.required {
                        d.push(
                            Diagnostic::error(
                                "bad-rule",
                                format!("{rpath}.default.{n}"),
                                format!("`{n}` is required, so a default for it never applies"),
                            )
                            .help("make the parameter optional, or remove this default"),
                        );
                    }
                    // `"{other}"`: another parameter's value, of the same type.
                    let other = v
                        .as_str()
                        .and_then(|s| s.strip_prefix('{'))
                        .and_then(|s| s.strip_suffix('}'));
                    if let Some(o) = other {
                        match params.get(o) {
                            Some(q) if q.ty == p.ty => {}
                            Some(_) => d.push(
                                Diagnostic::error(
                                    "bad-default",
                                    format!("{rpath}.default.{n}"),
                                    format!("`{o}` is not of the type of `{n}`"),
                                )
                                .help("default a parameter to one of the same type"),
                            ),
                            None => d.push(
                                Diagnostic::error(
                                    "unknown-param",
                                    format!("{rpath}.default.{n}"),
                                    format!("the rule names no parameter `{o}`"),
                                )
                                .help("name a parameter of the tool"),
                            ),
                        }
                    } else if let Err(why) = check_value(p, v) {
                        d.push(
                            Diagnostic::error("bad-default", format!("{rpath}.default.{n}"), format!("`{n}` {why}"))
                                .help("give a value of the parameter's type"),
                        );
                    }
                }
            }
            if rule.message.is_some() {
                d.push(
                    Diagnostic::error(
                        "bad-rule",
                        format!("{rpath}.message"),
                        "a `default` rule shows no message",
                    )
                    .at_key()
                    .help("remove `message`"),
                );
            }
        }
        for (key, list) in [("require", &rule.require), ("forbid", &rule.forbid)] {
            if let Some(list) = list {
                if list.is_empty() {
                    d.push(
                        Diagnostic::error(
                            "bad-rule",
                            format!("{rpath}.{key}"),
                            format!("`{key}` lists no parameter"),
                        )
                        .help("name at least one parameter"),
                    );
                }
                names(key, list.iter().collect(), &mut d);
            }
        }
        if let Some(text) = &rule.check {
            match parse_check(text) {
                Err(why) => d.push(
                    Diagnostic::error("bad-rule", format!("{rpath}.check"), why)
                        .help("write e.g. `end >= start` with two numeric parameters and one of >=, >, <=, <"),
                ),
                Ok(c) => {
                    for n in [&c.left, &c.right] {
                        match params.get(n.as_str()) {
                            None => d.push(
                                Diagnostic::error(
                                    "unknown-param",
                                    format!("{rpath}.check"),
                                    format!("the rule names no parameter `{n}`"),
                                )
                                .help("name a parameter of the tool"),
                            ),
                            Some(p) if !matches!(p.ty, ParamType::Integer | ParamType::Number) => d.push(
                                Diagnostic::error(
                                    "bad-rule",
                                    format!("{rpath}.check"),
                                    format!("`{n}` is not a number, so it cannot be compared"),
                                )
                                .help("compare integer or number parameters"),
                            ),
                            Some(_) => {}
                        }
                    }
                    if rule.when.is_some() {
                        d.push(
                            Diagnostic::error(
                                "bad-rule",
                                format!("{rpath}.when"),
                                "a `check` applies whenever both numbers are set",
                            )
                            .at_key()
                            .help("remove `when`"),
                        );
                    }
                }
            }
        }
    }
    d
}

/// Checks what a step keeps of its run and shows of it: `parse`, `capture`, `hidden`,
/// `when_missing`, and the combinations that contradict each other.
fn check_step_data(path: &str, step: &Step) -> Vec<Diagnostic> {
    use super::types::ParseFormat;
    let mut d = Vec::new();
    let err = |key: &str, msg: String, help: &str| {
        Diagnostic::error("bad-step", format!("{path}.{key}"), msg)
            .at_key()
            .help(help.to_string())
    };
    let data = [
        ("json", step.json.is_some()),
        ("parse", step.parse.is_some()),
        ("capture", step.capture),
    ];
    let given: Vec<&str> = data.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect();
    if given.len() > 1 {
        d.push(err(
            given[1],
            format!(
                "a step's data is one of `json`, `parse`, `capture`; this one has {}",
                given.join(" and ")
            ),
            "keep one: `capture` keeps the whole run (its `stdout` among it), `parse` reads records from the output",
        ));
    }
    for key in ["parse", "capture"] {
        if given.contains(&key) && step.id.is_none() {
            d.push(err(
                key,
                format!("a `{key}` step needs an `id`"),
                "give the step an `id`: later steps and `output` refer to its data by it",
            ));
        }
    }
    if step.hidden && step.message.is_some() {
        d.push(err(
            "message",
            "a `hidden` step shows no section, so its `message` is never shown".into(),
            "remove `message`, or `hidden`",
        ));
    }
    if step.hidden && step.if_empty.is_some() {
        d.push(err(
            "if_empty",
            "a `hidden` step shows no section, so its `if_empty` is never shown".into(),
            "remove `if_empty`, or `hidden`",
        ));
    }
    for (k, alt) in step.when_missing.iter().enumerate() {
        if alt.program.trim().is_empty() || alt.program.contains(char::is_whitespace) {
            d.push(
                Diagnostic::error(
                    "bad-step",
                    format!("{path}.when_missing[{k}].program"),
                    format!("`{}` is not a program name", alt.program),
                )
                .help("name one program, e.g. `grep`; its arguments go in `run`"),
            );
        }
        if Some(&alt.program) == step.program.as_ref() {
            d.push(
                Diagnostic::error(
                    "bad-step",
                    format!("{path}.when_missing[{k}].program"),
                    format!("`{}` is the step's own program", alt.program),
                )
                .help("an alternative is another program, used when the step's is not installed"),
            );
        }
    }
    // A working directory written out (no placeholder) is checked now, as the runtimes will.
    if let Some(dir) = &step.cwd
        && !dir.contains('{')
        && escapes(dir)
    {
        d.push(
            Diagnostic::error(
                "bad-step",
                format!("{path}.cwd"),
                format!("`{dir}` is outside the project"),
            )
            .help("give a folder relative to the project root, without `..` above it"),
        );
    }
    let Some(p) = step.parse.as_deref() else {
        return d;
    };
    let ppath = format!("{path}.parse");
    let extra = |key: &str, set: bool, d: &mut Vec<Diagnostic>| {
        if set {
            d.push(
                Diagnostic::error(
                    "bad-parse",
                    format!("{ppath}.{key}"),
                    format!("`{key}` does not apply to `format: {}`", format_name(p.format)),
                )
                .at_key()
                .help("remove it"),
            );
        }
    };
    let need = |key: &str, set: bool, help: &str, d: &mut Vec<Diagnostic>| {
        if !set {
            d.push(
                Diagnostic::error(
                    "bad-parse",
                    ppath.clone(),
                    format!("`format: {}` needs `{key}`", format_name(p.format)),
                )
                .help(help.to_string()),
            );
        }
    };
    match p.format {
        ParseFormat::Jsonl => {
            extra("separator", p.separator.is_some(), &mut d);
            extra("fields", !p.fields.is_empty(), &mut d);
            extra("pattern", p.pattern.is_some(), &mut d);
            extra("flags", p.flags.is_some(), &mut d);
        }
        ParseFormat::Delimited => {
            extra("pattern", p.pattern.is_some(), &mut d);
            extra("flags", p.flags.is_some(), &mut d);
            need("separator", p.separator.is_some(), "e.g. `separator: \":\"`", &mut d);
            if p.separator.as_deref() == Some("") {
                d.push(
                    Diagnostic::error("bad-parse", format!("{ppath}.separator"), "the separator is empty")
                        .help("give the text between fields, e.g. `\"\\t\"` or `\":\"`"),
                );
            }
            need(
                "fields",
                !p.fields.is_empty(),
                "name the fields in order: `fields: [path, line, text]`",
                &mut d,
            );
        }
        ParseFormat::Regex => {
            extra("separator", p.separator.is_some(), &mut d);
            need(
                "pattern",
                p.pattern.is_some(),
                "e.g. `pattern: '^(\\S+):(\\d+):(.*)$'`",
                &mut d,
            );
            need(
                "fields",
                !p.fields.is_empty(),
                "name each capture group in order: `fields: [path, line, text]`",
                &mut d,
            );
            if let Some(re) = &p.pattern
                && let Err(e) = super::values::check_regex(re, p.flags.as_deref().unwrap_or(""), false)
            {
                d.push(
                    Diagnostic::error(
                        "bad-regex",
                        format!("{ppath}.pattern"),
                        format!("`{re}` is not a regular expression both runtimes read: {e}"),
                    )
                    .help("write an ECMAScript regular expression (JavaScript's `RegExp` syntax)"),
                );
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (i, f) in p.fields.iter().enumerate() {
        if !crate::template::is_identifier(f) {
            d.push(
                Diagnostic::error(
                    "bad-parse",
                    format!("{ppath}.fields[{i}]"),
                    format!("`{f}` is not a field name"),
                )
                .help("use [a-z_][a-z0-9_]*: templates read it as `{row.field}`"),
            );
        } else if !seen.insert(f) {
            d.push(
                Diagnostic::error(
                    "bad-parse",
                    format!("{ppath}.fields[{i}]"),
                    format!("`{f}` is named twice"),
                )
                .help("give each field its own name"),
            );
        }
    }
    d
}

/// Whether a path leaves the folder it is relative to (absolute, or `..` above it), lexically.
fn escapes(dir: &str) -> bool {
    if dir.starts_with('/') || dir.contains('\0') {
        return true;
    }
    let mut depth = 0i32;
    for seg in dir.split('/') {
        match seg {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

fn format_name(f: super::types::ParseFormat) -> &'static str {
    match f {
        super::types::ParseFormat::Jsonl => "jsonl",
        super::types::ParseFormat::Delimited => "delimited",
        super::types::ParseFormat::Regex => "regex",
    }
}

/// Checks a step's exit codes, stream, limits and timeouts (not its templates).
pub fn check_step(path: &str, step: &Step, params: &HashMap<&str, &Param>) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    let run = step.run.is_some();
    let only_run = |key: &str, set: bool, d: &mut Vec<Diagnostic>| {
        if set && !run {
            d.push(
                Diagnostic::error(
                    "bad-step",
                    format!("{path}.{key}"),
                    format!("`{key}` applies to `run` steps"),
                )
                .at_key()
                .help("remove it"),
            );
        }
    };
    only_run("ok_exit", step.ok_exit.is_set(), &mut d);
    only_run("output", step.output.is_some(), &mut d);
    only_run("max_output", step.max_output.is_some(), &mut d);
    only_run("timeout_ms", step.timeout_ms.is_some(), &mut d);
    only_run("timeout_secs", step.timeout_secs.is_some(), &mut d);
    only_run("if_empty", step.if_empty.is_some(), &mut d);
    only_run("parse", step.parse.is_some(), &mut d);
    only_run("capture", step.capture, &mut d);
    only_run("cwd", step.cwd.is_some(), &mut d);
    only_run("when_missing", !step.when_missing.is_empty(), &mut d);
    d.extend(check_step_data(path, step));
    let mut seen = std::collections::HashSet::new();
    for (i, code) in step.ok_exit.codes().iter().enumerate() {
        if !(0..=255).contains(code) {
            d.push(
                Diagnostic::error(
                    "bad-exit-code",
                    format!("{path}.ok_exit[{i}]"),
                    format!("{code} is not an exit code"),
                )
                .help("exit codes are 0 to 255"),
            );
        } else if !seen.insert(code) {
            d.push(
                Diagnostic::error(
                    "bad-exit-code",
                    format!("{path}.ok_exit[{i}]"),
                    format!("{code} is listed twice"),
                )
                .help("remove the repeat"),
            );
        }
    }
    if step.timeout_ms.is_some() && step.timeout_secs.is_some() {
        d.push(
            Diagnostic::error(
                "bad-step",
                format!("{path}.timeout_secs"),
                "a step has `timeout_ms` or `timeout_secs`, not both",
            )
            .at_key()
            .help("keep one"),
        );
    }
    for (key, amount) in [
        ("max_output", &step.max_output),
        ("timeout_ms", &step.timeout_ms),
        ("timeout_secs", &step.timeout_secs),
    ] {
        let Some(a) = amount else { continue };
        let apath = format!("{path}.{key}");
        match a {
            Amount::Fixed(0) => {
                d.push(Diagnostic::error("bad-amount", apath, format!("`{key}` is 0")).help("give a positive number"))
            }
            Amount::Fixed(_) => {}
            Amount::Param(text) => match a.param() {
                None => d.push(
                    Diagnostic::error(
                        "bad-amount",
                        apath,
                        format!("`{text}` is neither a number nor `\"{{param}}\"`"),
                    )
                    .help("write a number, or `\"{name}\"` naming an integer parameter"),
                ),
                Some(name) => match params.get(name) {
                    None => d.push(
                        Diagnostic::error("unknown-param", apath, format!("`{key}` names no parameter `{name}`"))
                            .help("name an integer parameter of the tool"),
                    ),
                    Some(p) if !matches!(p.ty, ParamType::Integer | ParamType::Number) => d.push(
                        Diagnostic::error("bad-amount", apath, format!("`{name}` is not a number"))
                            .help("name an integer parameter, ideally with `min`/`max` bounds"),
                    ),
                    Some(p) if p.min.is_none_or(|m| m <= 0.0) => d.push(
                        Diagnostic::warning(
                            "unbounded-amount",
                            apath,
                            format!("`{name}` may be 0 or less, which leaves no output or no time"),
                        )
                        .help("give the parameter `min: 1` (and a `max`)"),
                    ),
                    Some(_) => {}
                },
            },
        }
    }
    d
}

/// Checks a parameter's `nullable` and `keep_empty`.
pub fn check_param(path: &str, p: &Param) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    if p.keep_empty && !matches!(p.ty, ParamType::String) {
        d.push(
            Diagnostic::error(
                "bad-keep-empty",
                format!("{path}.keep_empty"),
                "`keep_empty` applies to strings",
            )
            .at_key()
            .help("remove it"),
        );
    }
    if p.keep_empty && p.min.is_some_and(|m| m > 0.0) {
        d.push(
            Diagnostic::error(
                "bad-keep-empty",
                format!("{path}.keep_empty"),
                "`keep_empty` keeps `\"\"`, but `min` refuses it",
            )
            .at_key()
            .help("remove `min`, or `keep_empty`"),
        );
    }
    if p.nullable && p.required {
        d.push(
            Diagnostic::error(
                "bad-nullable",
                format!("{path}.nullable"),
                "a required parameter cannot be null (null means unset)",
            )
            .at_key()
            .help("make the parameter optional, or remove `nullable`"),
        );
    }
    d
}

/// Checks a literal value against a parameter's type, enum and bounds.
pub fn check_value(p: &Param, v: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value as J;
    match (p.ty, v) {
        (ParamType::String | ParamType::Path, J::String(s)) => bounds(p, s.chars().count() as f64, "length"),
        (ParamType::Integer, J::Number(n)) if n.is_i64() || n.is_u64() => bounds(p, n.as_f64().unwrap_or(0.0), "value"),
        (ParamType::Number, J::Number(n)) => bounds(p, n.as_f64().unwrap_or(0.0), "value"),
        (ParamType::Boolean, J::Bool(_)) => Ok(()),
        (ParamType::Enum, J::String(s)) => {
            let vals = p.values.as_deref().unwrap_or_default();
            if vals.iter().any(|x| x == s) {
                Ok(())
            } else {
                Err(format!("`{s}` is not one of its values ({})", vals.join(", ")))
            }
        }
        (ParamType::Array, J::Array(items)) => {
            bounds(p, items.len() as f64, "length")?;
            if let Some(it) = &p.items {
                let item_param = Param {
                    ty: it.ty,
                    values: it.values.clone(),
                    title: None,
                    description: None,
                    required: false,
                    default: None,
                    items: None,
                    min: None,
                    max: None,
                    clamp: None,
                    pattern: None,
                    nullable: false,
                    keep_empty: false,
                    renamed_from: None,
                    equals_context: None,
                };
                for x in items {
                    check_value(&item_param, x)?;
                }
            }
            Ok(())
        }
        (ty, v) => Err(format!("is {}, not {}", json_kind(v), type_name(ty))),
    }
}

fn bounds(p: &Param, x: f64, what: &str) -> Result<(), String> {
    if let Some(min) = p.min
        && x < min
    {
        return Err(format!("has {what} {x}, below `min` {min}"));
    }
    if let Some(max) = p.max
        && x > max
    {
        return Err(format!("has {what} {x}, above `max` {max}"));
    }
    Ok(())
}

/// The catalog's name of a parameter type.
pub fn type_name(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String => "string",
        ParamType::Integer => "integer",
        ParamType::Number => "number",
        ParamType::Boolean => "boolean",
        ParamType::Enum => "enum",
        ParamType::Array => "array",
        ParamType::Path => "path",
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(n) if n.is_f64() => "a fractional number",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}

/// Keys that are written but do nothing (`validate --strict` fails on them): `if_empty: ""` (an
/// empty text is no text: the section is `_(no output)_`; an empty answer is the tool's
/// `answer: {empty: ""}`) and `default: null` (a missing default). `text` is the catalog's
/// source: a null default reads as none, so only the text shows it was written.
pub fn no_effect(cat: &super::Catalog, text: &str) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    for (t, tool) in cat.tools.iter().enumerate() {
        for (s, step) in tool.steps.iter().enumerate() {
            if step.if_empty.as_deref() == Some("") {
                d.push(
                    Diagnostic::warning(
                        "no-effect",
                        format!("tools[{t}].steps[{s}].if_empty"),
                        "an empty `if_empty` has no effect: the section is still `_(no output)_`",
                    )
                    .at_key()
                    .help("remove it; for an empty answer write `answer: {empty: \"\"}` on the tool"),
                );
            }
        }
    }
    // Reading the text again costs a parse: only when some `default:` has no value after it.
    let suspect = text.match_indices("default:").any(|(i, m)| {
        let rest = text[i + m.len()..].trim_start_matches([' ', '\t']);
        rest.is_empty() || rest.starts_with(['\n', '\r', ',', '}', '#', '~']) || rest.starts_with("null")
    });
    if !suspect {
        return d;
    }
    let index = super::yaml::Located::new(text);
    let mut check = |path: String, p: &Param| {
        let key = format!("{path}.default");
        if p.default.is_none() && index.contains(&key) {
            d.push(
                Diagnostic::warning("no-effect", key, "`default: null` is no default")
                    .at_key()
                    .help("remove it: a parameter without `default` is unset when not given"),
            );
        }
    };
    for (name, p) in &cat.params {
        check(format!("params.{name}"), p);
    }
    for (t, tool) in cat.tools.iter().enumerate() {
        for (name, p) in &tool.params {
            check(format!("tools[{t}].params.{name}"), p);
        }
    }
    d
}
