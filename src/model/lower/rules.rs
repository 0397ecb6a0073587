//! What a tool does around its steps, checked and lowered into the execution spec in one
//! place: confirmation, rules across parameters (with the messages a model reads when one
//! fails; `Lower::rule` lowers a rule's condition, message and defaults itself), the checks
//! of a step's exit codes, stream, limits, parse and data (`check_step`), amounts, and
//! redaction. The lowering pass (`super`) calls it for each tool and step.

use super::{Lower, Report, Scope, all, optional};
use crate::catalog::rules::check_value;
use crate::catalog::{self, Amount, Cond, Confirm, Param, ParamType, ParseFormat, Redact, Rule, Step, Tool};
use crate::diagnostic::Diagnostic;
use crate::spec::*;
use crate::template::{Template, is_identifier};
use std::collections::{HashMap, HashSet};

/// The spec's confirmation of a tool: `confirm` as written, or `destructive` when it is left
/// out. The permission is the catalog name; each host puts its own tool id in. `subject` and
/// `preview` are the lowered `confirm.subject` and `confirm.preview`, if any.
pub fn confirm(
    t: &catalog::Tool,
    destructive: bool,
    heading: &Template,
    subject: Option<Template>,
    preview: Option<Template>,
) -> Option<SpecConfirm> {
    let (allow, deny, after) = match &t.confirm {
        Some(Confirm::Rules(r)) => (r.allow.clone(), r.deny.clone(), r.after.as_deref()),
        c if c.as_ref().map_or(destructive, Confirm::asks) => (Vec::new(), Vec::new(), None),
        _ => return None,
    };
    // The spec counts the steps that run before the question: a step's id may be left out of it.
    let after = after.and_then(|id| t.steps.iter().position(|s| s.id.as_deref() == Some(id)));
    Some(SpecConfirm {
        permission: t.name.clone(),
        subject: subject.unwrap_or_else(|| heading.clone()),
        allow,
        deny,
        after: after.map(|k| k as u32 + 1),
        preview,
    })
}

/// The spec's redaction of a tool.
pub fn redact(t: &catalog::Tool) -> SpecRedact {
    match t.redact {
        None | Some(Redact::All) => SpecRedact::All,
        Some(Redact::Errors) => SpecRedact::Errors,
        Some(Redact::None) => SpecRedact::None,
    }
}

impl Lower<'_> {
    /// Checks one rule (`rpath`) of `tool` and lowers it into the spec, each failing rule with
    /// its message; its condition, message and default values are lowered in the tool's
    /// `scope`. `None` when something was reported.
    pub(super) fn rule(&mut self, rpath: &str, rule: &Rule, tool: &Tool, scope: &Scope) -> Option<SpecRule> {
        let params = scope.params;
        let when = optional(rule.when.as_ref(), |when| {
            self.cond(&format!("{rpath}.when"), when, tool, params, &HashSet::new())
        });
        self.optional_template(rpath, "message", rule.message.as_deref(), scope);
        let defaults: Vec<_> = (rule.default.iter().flatten())
            .map(|(k, v)| {
                let j = self.json_template(&format!("{rpath}.default.{k}"), v, scope);
                j.map(|j| (k.clone(), j))
            })
            .collect();
        let lowered = when.zip(all(defaults));
        let kinds = [
            ("default", rule.default.is_some()),
            ("require", rule.require.is_some()),
            ("forbid", rule.forbid.is_some()),
            ("check", rule.check.is_some()),
        ];
        let help = "e.g. `{when: {param: from, set: true}, default: {to: HEAD}}` or `{check: \"end >= start\"}`";
        let mark = self.exactly_one("bad-rule", rpath, "a rule", &kinds, help)?;
        // A name the rule gives (at `key`) that is no parameter of the tool.
        let unknown = |key: &str, n: &str| {
            let message = format!("the rule names no parameter `{n}`");
            Diagnostic::error("unknown-param", format!("{rpath}.{key}"), message).help("name a parameter of the tool")
        };
        let known = |l: &mut Self, key: &str, list: Vec<&String>| {
            for n in list.into_iter().filter(|n| !params.contains_key(n.as_str())) {
                l.diags.push(unknown(key, n));
            }
        };
        let cause = (rule.when.as_ref())
            .map(|c| format!(" when {}", describe(c)))
            .unwrap_or_default();
        let message = |fallback: String| rule.message.clone().unwrap_or(fallback);
        if let Some(values) = &rule.default {
            known(self, "default", values.keys().collect());
            for (n, v) in values {
                if let Some(p) = params.get(n.as_str()) {
                    if p.required {
                        self.diags.err(
                            "bad-rule",
                            format!("{rpath}.default.{n}"),
                            format!("`{n}` is required, so a default for it never applies"),
                            "make the parameter optional, or remove this default",
                        );
                    }
                    // `"{other}"`: another parameter's value, of the same type.
                    if let Some(o) = v.as_str().and_then(|s| s.strip_prefix('{')?.strip_suffix('}')) {
                        match params.get(o) {
                            Some(q) if q.ty == p.ty => {}
                            Some(_) => self.diags.err(
                                "bad-default",
                                format!("{rpath}.default.{n}"),
                                format!("`{o}` is not of the type of `{n}`"),
                                "default a parameter to one of the same type",
                            ),
                            None => self.diags.push(unknown(&format!("default.{n}"), o)),
                        }
                    } else if let Err(why) = check_value(p, v) {
                        self.diags.err(
                            "bad-default",
                            format!("{rpath}.default.{n}"),
                            format!("`{n}` {why}"),
                            "give a value of the parameter's type",
                        );
                    }
                }
            }
            if rule.message.is_some() {
                self.diags.err_at_key(
                    "bad-rule",
                    format!("{rpath}.message"),
                    "a `default` rule shows no message",
                    "remove `message`",
                );
            }
            let (when, values) = lowered?;
            self.clean_since(mark)?;
            return Some(SpecRule::Default { when, values });
        }
        for (key, list) in [("require", &rule.require), ("forbid", &rule.forbid)] {
            let Some(list) = list else { continue };
            if list.is_empty() {
                self.diags.err(
                    "bad-rule",
                    format!("{rpath}.{key}"),
                    format!("`{key}` lists no parameter"),
                    "name at least one parameter",
                );
            }
            known(self, key, list.iter().collect());
            let when = lowered?.0;
            self.clean_since(mark)?;
            let what = list.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
            let verb = if list.len() == 1 { "is" } else { "are" };
            return Some(match key {
                "require" => SpecRule::Require {
                    when,
                    params: list.clone(),
                    message: message(format!("{what} {verb} required{cause}")),
                },
                _ => SpecRule::Forbid {
                    when,
                    params: list.clone(),
                    message: message(format!("{what} cannot be given{cause}")),
                },
            });
        }
        let text = rule.check.as_deref()?;
        // `"end >= start"`: the first comparison found splits it into two parameters.
        let split = COMPARISONS
            .into_iter()
            .find_map(|(op, spec, words)| Some((text.split_once(op)?, spec, words)));
        let (left, right) = split.map_or(("", ""), |((l, r), ..)| (l.trim(), r.trim()));
        let Some((_, op, words)) = split.filter(|_| is_identifier(left) && is_identifier(right)) else {
            self.diags.err(
                "bad-rule",
                format!("{rpath}.check"),
                format!("`{text}` is not `<param> <op> <param>`"),
                "write e.g. `end >= start` with two numeric parameters and one of >=, >, <=, <",
            );
            return None;
        };
        for n in [left, right] {
            match params.get(n) {
                None => self.diags.push(unknown("check", n)),
                Some(p) if !matches!(p.ty, ParamType::Integer | ParamType::Number) => self.diags.err(
                    "bad-rule",
                    format!("{rpath}.check"),
                    format!("`{n}` is not a number, so it cannot be compared"),
                    "compare integer or number parameters",
                ),
                Some(_) => {}
            }
        }
        if rule.when.is_some() {
            self.diags.err_at_key(
                "bad-rule",
                format!("{rpath}.when"),
                "a `check` applies whenever both numbers are set",
                "remove `when`",
            );
        }
        lowered?;
        self.clean_since(mark)?;
        Some(SpecRule::Compare {
            message: message(format!("`{left}` must be {words} `{right}`")),
            left: left.to_string(),
            op,
            right: right.to_string(),
        })
    }
}

/// The comparisons a `check:` rule may make, in the order they are looked for (`>=` before
/// `>`), each with how a message says it.
const COMPARISONS: [(&str, SpecCompareOp, &str); 4] = [
    (">=", SpecCompareOp::Ge, "at least"),
    ("<=", SpecCompareOp::Le, "at most"),
    (">", SpecCompareOp::Gt, "greater than"),
    ("<", SpecCompareOp::Lt, "less than"),
];

fn value(v: &serde_json::Value) -> String {
    v.as_str().map_or_else(|| format!("`{v}`"), |s| format!("`{s}`"))
}

/// A parameter condition in words, for a rule's message: "`action` is `update_task`".
pub fn describe(c: &Cond) -> String {
    for (list, joined_by) in [(&c.all, " and "), (&c.any, " or ")] {
        if let Some(list) = list {
            return list.iter().map(describe).collect::<Vec<_>>().join(joined_by);
        }
    }
    if let Some(not) = &c.not {
        return format!("not ({})", describe(not));
    }
    let p = c.param.as_deref().unwrap_or_default();
    if let Some(v) = &c.equals {
        format!("`{p}` is {}", value(v))
    } else if let Some(vals) = &c.in_values {
        format!(
            "`{p}` is one of {}",
            vals.iter().map(value).collect::<Vec<_>>().join(", ")
        )
    } else if let Some(v) = &c.contains {
        format!("`{p}` contains {}", value(v))
    } else if c.set == Some(false) {
        format!("`{p}` is not given")
    } else {
        format!("`{p}` is given")
    }
}

/// A CLI step's output limit or timeout (`scale` turns seconds into milliseconds).
pub fn amount(a: &Amount, scale: Option<u32>) -> SpecAmount {
    match a {
        Amount::Fixed(n) => SpecAmount::Lit(n.saturating_mul(u64::from(scale.unwrap_or(1)))),
        Amount::Param(_) => SpecAmount::Var {
            var: a.param().unwrap_or_default().to_string(),
            scale,
        },
    }
}

/// A step's `parse` as the runtime reads it; `None` when a part is missing (the step check
/// reported it).
pub fn parse(p: &catalog::Parse) -> Option<SpecParse> {
    Some(match p.format {
        ParseFormat::Jsonl => SpecParse::Jsonl,
        ParseFormat::Delimited => SpecParse::Delimited {
            separator: p.separator.clone().filter(|s| !s.is_empty())?,
            fields: p.fields.clone(),
        },
        ParseFormat::Regex => SpecParse::Regex {
            pattern: p.pattern.clone()?,
            flags: p.flags.clone().unwrap_or_default(),
            fields: p.fields.clone(),
        },
    })
}

/// Whether a step changes state: it says so (`changes: true`), or it is a kind that always does
/// (a store append or update, a signal).
fn changes_state(s: &Step) -> bool {
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
        let help = crate::diagnostic::hint_for(
            after,
            &ids,
            "give the last step of the preview an `id` and name it here",
        );
        let message = format!("`confirm.after` names no step `{after}` of `{}`", tool.name);
        return vec![Diagnostic::error("unknown-step", &apath, message).help(help)];
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

/// Checks a tool's `confirm` (not its subject template).
pub fn check_confirm(path: &str, tool: &Tool) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    // MCP has no confirmation field: clients decide from the annotations, where only a write
    // tool's `destructiveHint` means "ask". Say so when the catalog asks for a tool that MCP
    // clients will see as harmless.
    let destructive = tool.access == crate::catalog::Access::Write && tool.destructive.unwrap_or(true);
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
                    d.err(
                        "bad-confirm",
                        format!("{path}.confirm.{key}[{i}]"),
                        "a confirm pattern must be non-empty text on one line",
                        "write a wildcard pattern such as `npm *`",
                    );
                }
            }
        }
        if let Some(after) = &c.after {
            d.extend(check_after(path, tool, after));
        }
        if c.subject.is_none() && !(c.allow.is_empty() && c.deny.is_empty()) {
            d.err(
                "bad-confirm",
                format!("{path}.confirm"),
                "`allow` and `deny` patterns need a `subject` to match",
                "add `subject: \"{command}\"` naming what the patterns are matched against",
            );
        }
    }
    d
}

/// Checks what a step keeps of its run and shows of it: `parse`, `capture`, `hidden`,
/// `when_missing`, and the combinations that contradict each other.
fn check_step_data(path: &str, step: &Step) -> Vec<Diagnostic> {
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
    for (key, set) in [
        ("message", step.message.is_some()),
        ("if_empty", step.if_empty.is_some()),
    ] {
        if step.hidden && set {
            let msg = format!("a `hidden` step shows no section, so its `{key}` is never shown");
            d.push(err(key, msg, &format!("remove `{key}`, or `hidden`")));
        }
    }
    for (k, alt) in step.when_missing.iter().enumerate() {
        let (at, program) = (format!("{path}.when_missing[{k}].program"), &alt.program);
        if program.trim().is_empty() || program.contains(char::is_whitespace) {
            d.err(
                "bad-step",
                &at,
                format!("`{program}` is not a program name"),
                "name one program, e.g. `grep`; its arguments go in `run`",
            );
        }
        if Some(program) == step.program.as_ref() {
            d.err(
                "bad-step",
                at,
                format!("`{program}` is the step's own program"),
                "an alternative is another program, used when the step's is not installed",
            );
        }
    }
    // A working directory written out (no placeholder) is checked now, as the runtimes will.
    if let Some(dir) = &step.cwd
        && !dir.contains('{')
        && escapes(dir)
    {
        d.err(
            "bad-step",
            format!("{path}.cwd"),
            format!("`{dir}` is outside the project"),
            "give a folder relative to the project root, without `..` above it",
        );
    }
    let Some(p) = step.parse.as_deref() else {
        return d;
    };
    let ppath = format!("{path}.parse");
    let keys = [
        ("separator", p.separator.is_some()),
        ("pattern", p.pattern.is_some()),
        ("fields", !p.fields.is_empty()),
        ("flags", p.flags.is_some()),
    ];
    // The format's name, and the keys it takes, each with how to write it if the format needs it.
    let (format, takes): (&str, &[(&str, Option<&str>)]) = match p.format {
        ParseFormat::Jsonl => ("jsonl", &[]),
        ParseFormat::Delimited => (
            "delimited",
            &[
                ("separator", Some("e.g. `separator: \":\"`")),
                ("fields", Some("name the fields in order: `fields: [path, line, text]`")),
            ],
        ),
        ParseFormat::Regex => (
            "regex",
            &[
                ("pattern", Some("e.g. `pattern: '^(\\S+):(\\d+):(.*)$'`")),
                (
                    "fields",
                    Some("name each capture group in order: `fields: [path, line, text]`"),
                ),
                ("flags", None),
            ],
        ),
    };
    for (key, set) in keys {
        if set && !takes.iter().any(|t| t.0 == key) {
            d.err_at_key(
                "bad-parse",
                format!("{ppath}.{key}"),
                format!("`{key}` does not apply to `format: {format}`"),
                "remove it",
            );
        }
    }
    // In the order the format lists them: two such errors are at the same place.
    for (key, help) in takes {
        if let Some(help) = help
            && !keys.contains(&(key, true))
        {
            d.err(
                "bad-parse",
                ppath.clone(),
                format!("`format: {format}` needs `{key}`"),
                *help,
            );
        }
    }
    if p.format == ParseFormat::Delimited && p.separator.as_deref() == Some("") {
        d.err(
            "bad-parse",
            format!("{ppath}.separator"),
            "the separator is empty",
            "give the text between fields, e.g. `\"\\t\"` or `\":\"`",
        );
    }
    if p.format == ParseFormat::Regex
        && let Some(re) = &p.pattern
        && let Err(e) = crate::catalog::values::check_regex(re, p.flags.as_deref().unwrap_or(""), false)
    {
        d.err(
            "bad-regex",
            format!("{ppath}.pattern"),
            format!("`{re}` is not a regular expression both runtimes read: {e}"),
            "write an ECMAScript regular expression (JavaScript's `RegExp` syntax)",
        );
    }
    let mut seen = std::collections::HashSet::new();
    for (i, f) in p.fields.iter().enumerate() {
        let at = format!("{ppath}.fields[{i}]");
        if !is_identifier(f) {
            d.err(
                "bad-parse",
                at,
                format!("`{f}` is not a field name"),
                "use [a-z_][a-z0-9_]*: templates read it as `{row.field}`",
            );
        } else if !seen.insert(f) {
            d.err(
                "bad-parse",
                at,
                format!("`{f}` is named twice"),
                "give each field its own name",
            );
        }
    }
    d
}

/// Whether a path leaves the folder it is relative to (absolute, or `..` above it), lexically.
fn escapes(dir: &str) -> bool {
    let depth = |depth: u32, seg| match seg {
        "" | "." => Some(depth),
        ".." => depth.checked_sub(1),
        _ => Some(depth + 1),
    };
    dir.starts_with('/') || dir.contains('\0') || dir.split('/').try_fold(0, depth).is_none()
}

/// Checks a step's exit codes, stream, limits and timeouts (not its templates).
pub fn check_step(path: &str, step: &Step, params: &HashMap<&str, &Param>) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    // The keys only a `run` step reads, each with how to do without it.
    let run_only = [
        ("ok_exit", step.ok_exit.is_set(), "remove it"),
        ("output", step.output.is_some(), "remove it"),
        ("max_output", step.max_output.is_some(), "remove it"),
        ("timeout_ms", step.timeout_ms.is_some(), "remove it"),
        ("timeout_secs", step.timeout_secs.is_some(), "remove it"),
        ("if_empty", step.if_empty.is_some(), "remove it"),
        ("parse", step.parse.is_some(), "remove it"),
        ("capture", step.capture, "remove it"),
        ("cwd", step.cwd.is_some(), "remove it"),
        ("when_missing", !step.when_missing.is_empty(), "remove it"),
        (
            "program",
            step.program.is_some(),
            "remove it; store steps use the top-level `store.program`",
        ),
        ("stdin", step.stdin.is_some(), "use `body` on an `append` step"),
    ];
    for (key, set, help) in run_only {
        if set && step.run.is_none() {
            d.err_at_key(
                "bad-step",
                format!("{path}.{key}"),
                format!("`{key}` applies to `run` steps"),
                help,
            );
        }
    }
    d.extend(check_step_data(path, step));
    let mut seen = std::collections::HashSet::new();
    for (i, code) in step.ok_exit.codes().iter().enumerate() {
        let at = format!("{path}.ok_exit[{i}]");
        if !(0..=255).contains(code) {
            d.err(
                "bad-exit-code",
                at,
                format!("{code} is not an exit code"),
                "exit codes are 0 to 255",
            );
        } else if !seen.insert(code) {
            d.err(
                "bad-exit-code",
                at,
                format!("{code} is listed twice"),
                "remove the repeat",
            );
        }
    }
    if step.timeout_ms.is_some() && step.timeout_secs.is_some() {
        d.err_at_key(
            "bad-step",
            format!("{path}.timeout_secs"),
            "a step has `timeout_ms` or `timeout_secs`, not both",
            "keep one",
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
            Amount::Fixed(0) => d.err("bad-amount", apath, format!("`{key}` is 0"), "give a positive number"),
            Amount::Fixed(_) => {}
            Amount::Param(text) => match a.param() {
                None => d.err(
                    "bad-amount",
                    apath,
                    format!("`{text}` is neither a number nor `\"{{param}}\"`"),
                    "write a number, or `\"{name}\"` naming an integer parameter",
                ),
                Some(name) => match params.get(name) {
                    None => d.err(
                        "unknown-param",
                        apath,
                        format!("`{key}` names no parameter `{name}`"),
                        "name an integer parameter of the tool",
                    ),
                    Some(p) if !matches!(p.ty, ParamType::Integer | ParamType::Number) => d.err(
                        "bad-amount",
                        apath,
                        format!("`{name}` is not a number"),
                        "name an integer parameter, ideally with `min`/`max` bounds",
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
