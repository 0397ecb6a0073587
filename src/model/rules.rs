//! Lowering of the constructs of `crate::catalog::rules` into the execution spec: confirmation,
//! rules across parameters (with the messages a model reads when one fails), a CLI step's exit
//! codes, stream, limits and timeout, and redaction. Called by the lowering pass
//! (`super::lower`), which checks and lowers the templates, conditions and JSON values these
//! constructs hold and passes them in, so nothing is parsed twice. Pure.

use crate::catalog::rules::{Amount, Confirm, Redact, Stream};
use crate::catalog::{self, Cond};
use crate::spec::*;
use crate::template::Template;

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
        None if destructive => (Vec::new(), Vec::new(), None),
        None | Some(Confirm::Always(false)) => return None,
        Some(Confirm::Always(true)) => (Vec::new(), Vec::new(), None),
        Some(Confirm::Rules(r)) => (r.allow.clone(), r.deny.clone(), r.after.as_deref()),
    };
    // The spec counts the steps that run before the question: a step's id may be left out of it.
    let after = after.and_then(|id| {
        t.steps
            .iter()
            .position(|s| s.id.as_deref() == Some(id))
            .map(|k| k as u32 + 1)
    });
    Some(SpecConfirm {
        permission: t.name.clone(),
        subject: subject.unwrap_or_else(|| heading.clone()),
        allow,
        deny,
        after,
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

/// One rule's lowered parts: its condition and its default values.
pub struct LoweredRule {
    pub when: Option<SpecCond>,
    pub defaults: indexmap::IndexMap<String, JsonT>,
}

/// The spec's rules of a tool, each failing rule with its message; `lowered` holds each rule's
/// condition and defaults as the lowering pass checked them, in the same order.
pub fn rules(t: &catalog::Tool, lowered: Vec<LoweredRule>) -> Vec<SpecRule> {
    t.rules
        .iter()
        .zip(lowered)
        .filter_map(|(r, lowered)| {
            let when = lowered.when;
            let cause = r
                .when
                .as_ref()
                .map(|c| format!(" when {}", describe(c)))
                .unwrap_or_default();
            let message = |fallback: String| r.message.clone().unwrap_or(fallback);
            if r.default.is_some() {
                return Some(SpecRule::Default {
                    when,
                    values: lowered.defaults,
                });
            }
            if let Some(params) = &r.require {
                let what = names(params);
                let verb = if params.len() == 1 { "is" } else { "are" };
                return Some(SpecRule::Require {
                    when,
                    params: params.clone(),
                    message: message(format!("{what} {verb} required{cause}")),
                });
            }
            if let Some(params) = &r.forbid {
                let what = names(params);
                return Some(SpecRule::Forbid {
                    when,
                    params: params.clone(),
                    message: message(format!("{what} cannot be given{cause}")),
                });
            }
            let check = crate::catalog::rules::parse_check(r.check.as_deref()?).ok()?;
            let op = match check.op {
                ">=" => SpecCompareOp::Ge,
                ">" => SpecCompareOp::Gt,
                "<=" => SpecCompareOp::Le,
                _ => SpecCompareOp::Lt,
            };
            Some(SpecRule::Compare {
                message: message(format!("`{}` must be {} `{}`", check.left, op_words(op), check.right)),
                left: check.left,
                op,
                right: check.right,
            })
        })
        .collect()
}

fn op_words(op: SpecCompareOp) -> &'static str {
    match op {
        SpecCompareOp::Ge => "at least",
        SpecCompareOp::Gt => "greater than",
        SpecCompareOp::Le => "at most",
        SpecCompareOp::Lt => "less than",
    }
}

fn names(list: &[String]) -> String {
    list.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

fn value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

/// A parameter condition in words, for a rule's message: "`action` is `update_task`".
pub fn describe(c: &Cond) -> String {
    if let Some(all) = &c.all {
        return all.iter().map(describe).collect::<Vec<_>>().join(" and ");
    }
    if let Some(any) = &c.any {
        return any.iter().map(describe).collect::<Vec<_>>().join(" or ");
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

/// What a CLI step adds to running its program.
pub struct CliExtras {
    pub ok_exit: Vec<i32>,
    pub output: SpecStream,
    pub max_output: Option<SpecAmount>,
    pub timeout_ms: Option<SpecAmount>,
    pub if_empty: Option<Template>,
}

/// A CLI step's exit codes, stream, output limit, timeout and empty-output text (`if_empty` as
/// the lowering pass checked it).
pub fn cli_extras(s: &catalog::Step, if_empty: Option<Template>) -> CliExtras {
    let amount = |a: &Amount, scale: Option<u32>| match a {
        Amount::Fixed(n) => SpecAmount::Lit(n.saturating_mul(u64::from(scale.unwrap_or(1)))),
        Amount::Param(_) => SpecAmount::Var {
            var: a.param().unwrap_or_default().to_string(),
            scale,
        },
    };
    CliExtras {
        // Listing only 0 is the same as listing nothing: keep the spec short.
        ok_exit: if s.ok_exit.codes() == [0] {
            Vec::new()
        } else {
            s.ok_exit.codes().to_vec()
        },
        output: match s.output {
            None | Some(Stream::Stdout) => SpecStream::Stdout,
            Some(Stream::Stderr) => SpecStream::Stderr,
            Some(Stream::Both) => SpecStream::Both,
        },
        max_output: s.max_output.as_ref().map(|a| amount(a, None)),
        timeout_ms: s
            .timeout_ms
            .as_ref()
            .map(|a| amount(a, None))
            .or_else(|| s.timeout_secs.as_ref().map(|a| amount(a, Some(1000)))),
        if_empty,
    }
}

/// A step's `parse` as the runtime reads it; `None` when a part is missing (the step check
/// reported it).
pub fn parse(p: &catalog::Parse) -> Option<ixgen_runtime::spec::SpecParse> {
    use crate::catalog::ParseFormat;
    use ixgen_runtime::spec::SpecParse;
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
