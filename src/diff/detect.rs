//! One detector per rule of `ixgen diff`, named after it. A detector sees every place of the
//! comparison ([`Node`]) and reports what its rule finds there; the table in `rules.rs` names
//! the rule, its class and its summary, and points here.

use super::compare::{At, Diff, Node, Pair, ParamChange, ToolChange, changed, exec_text};
use super::rules::Rule;
use super::side::written;
use super::{Msg, Surface};
use crate::catalog::{Access, Server};
use crate::model::{
    ExecSpec, HttpMethod, SpecConfirm, SpecExec, SpecParam, SpecRedact, SpecRule, SpecRuntime, SpecType, ToolModel,
};
use crate::template::Template;
use std::collections::BTreeSet;

/// A detector: reports what its rule finds at one place.
pub type Detector = fn(&mut Diff, &Node);

// ---------------------------------------------------------------------------------------------
// Where a detector looks.

/// A kept tool, at its own place (before its parameters).
fn kept<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    match n {
        Node::Tool(ToolChange::Kept(p)) => Some(p),
        _ => None,
    }
}

/// A kept tool that a surface still has, at its own place: its hints and tier.
fn shared<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    kept(n).filter(|p| !p.common.is_empty())
}

/// A kept tool's spec and definition, after its parameters.
fn spec<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    match n {
        Node::Spec(p) => Some(p),
        _ => None,
    }
}

/// A kept tool's spec, when a surface that runs the steps still has the tool.
fn runs<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    spec(n).filter(|p| !p.exec.is_empty())
}

fn param<'n>(n: &'n Node) -> Option<&'n ParamChange<'n>> {
    match n {
        Node::Param(p) => Some(p),
        _ => None,
    }
}

fn labels(s: &[Surface]) -> String {
    s.iter().map(|s| s.label()).collect::<Vec<_>>().join(", ")
}

/// The surfaces where a toolset no target is built from is used: `ixgen opencode --toolset`.
fn opencode(d: &Diff) -> Vec<Surface> {
    d.new
        .surfaces
        .keys()
        .copied()
        .filter(|s| s.key() == "opencode")
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Surfaces and the server.

pub fn surface_removed(d: &mut Diff, n: &Node) {
    let (Node::Catalog, old) = (n, d.old) else { return };
    for (s, st) in &old.surfaces {
        if !d.new.surfaces.contains_key(s) {
            let msg = Msg::new()
                .t(format!("{} is no longer generated (", s.label()))
                .c(&st.path)
                .t(format!(", {} tool(s))", st.tools.len()));
            d.push(
                Rule::SurfaceRemoved,
                None,
                None,
                &[*s],
                msg,
                At::gone(st.path.clone(), "targets".into()),
            );
        }
    }
}

pub fn surface_added(d: &mut Diff, n: &Node) {
    let (Node::Catalog, new) = (n, d.new) else { return };
    for (s, st) in &new.surfaces {
        if !d.old.surfaces.contains_key(s) {
            let msg = Msg::new()
                .t(format!("{} is now generated (", s.label()))
                .c(&st.path)
                .t(format!(", {} tool(s))", st.tools.len()));
            d.push(Rule::SurfaceAdded, None, None, &[*s], msg, At::added(st.path.clone()));
        }
    }
}

/// The server on both sides, and the surfaces on both that launch it.
fn server<'a>(d: &Diff<'a>, n: &Node) -> Option<(&'a Server, &'a Server, Vec<Surface>)> {
    let (Node::Catalog, old, new) = (n, d.old, d.new) else {
        return None;
    };
    let (a, b) = (old.catalog().server.as_ref()?, new.catalog().server.as_ref()?);
    let launched: Vec<Surface> = new
        .surfaces
        .keys()
        .copied()
        .filter(|s| s.launches_server() && old.surfaces.keys().any(|o| o.key() == s.key()))
        .collect();
    (!launched.is_empty()).then_some((a, b, launched))
}

/// A new command line is an argv change that an installed server may not accept.
pub fn server_command_changed(d: &mut Diff, n: &Node) {
    let Some((a, b, launched)) = server(d, n) else { return };
    let flags = |s: &Server| {
        s.filter_flags
            .as_ref()
            .map(|f| [f.read_only.clone(), f.enable_tools.clone(), f.disable_tools.clone()])
    };
    let line = |s: &Server| {
        std::iter::once(s.command.as_str())
            .chain(s.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let key = if a.command != b.command {
        "command"
    } else if a.args != b.args {
        "args"
    } else if flags(a) != flags(b) {
        "filter_flags"
    } else {
        return;
    };
    let msg = Msg::new().t("the MCP hosts launch the server as ").c(line(b));
    let msg = if line(a) == line(b) {
        msg.t(" with other filter flags")
    } else {
        msg.t(" instead of ").c(line(a))
    };
    let at = At::both(format!("server.{key}"), format!("server.{key}"));
    d.push(Rule::ServerCommandChanged, None, None, &launched, msg, at);
}

pub fn server_env_changed(d: &mut Diff, n: &Node) {
    let Some((a, b, launched)) = server(d, n) else { return };
    if a.env == b.env {
        return;
    }
    let keys: Vec<&str> = a
        .env
        .keys()
        .chain(b.env.keys().filter(|k| !a.env.contains_key(*k)))
        .filter(|k| a.env.get(*k) != b.env.get(*k))
        .map(String::as_str)
        .collect();
    let msg = Msg::new().t("the server's environment changed: ").codes(keys);
    let at = At::both("server.env".into(), "server.env".into());
    d.push(Rule::ServerEnvChanged, None, None, &launched, msg, at);
}

// ---------------------------------------------------------------------------------------------
// Tools and toolsets.

/// The spec without what only names the tool, to find a tool that does the same.
fn unnamed(t: &ToolModel) -> ExecSpec {
    let mut s = t.spec.clone();
    s.name.clear();
    s.heading = Template::default();
    s
}

pub fn tool_removed(d: &mut Diff, n: &Node) {
    let Node::Tool(ToolChange::Removed(t)) = n else { return };
    let mut msg = Msg::new().t("tool ").c(&t.name).t(" was removed");
    // A new tool that does the same under another name is most likely a rename the catalog
    // did not declare: say how to declare it.
    let twin = d
        .added
        .iter()
        .find(|n| n.description == t.description || unnamed(n) == unnamed(t));
    if let Some(n) = twin {
        msg = msg
            .t(" (if ")
            .c(&n.name)
            .t(" is its new name, declare ")
            .c(format!("renamed_from: {}", t.name))
            .t(" on it)");
    }
    let on: Vec<Surface> = d.old.on(&t.name).into_iter().collect();
    let at = At::gone(d.old.tool_path(&t.name), "tools".into());
    d.push(Rule::ToolRemoved, Some(&t.name), None, &on, msg, at);
}

pub fn tool_added(d: &mut Diff, n: &Node) {
    let Node::Tool(ToolChange::Added(t)) = n else { return };
    let on: Vec<Surface> = d.new.on(&t.name).into_iter().collect();
    let at = At::added(d.new.tool_path(&t.name));
    d.push(
        Rule::ToolAdded,
        Some(&t.name),
        None,
        &on,
        Msg::new().t("new tool ").c(&t.name),
        at,
    );
}

pub fn tool_renamed(d: &mut Diff, n: &Node) {
    let Some(p) = kept(n).filter(|p| p.old.name != p.new.name) else {
        return;
    };
    let msg = Msg::new().t("tool ").c(&p.old.name).t(" was renamed to ").c(p.name());
    let at = At::both(p.otp.clone(), format!("{}.renamed_from", p.ntp));
    d.push(Rule::ToolRenamed, Some(p.name()), None, &p.common, msg, at)
        .previous_name = Some(p.old.name.clone());
}

pub fn tool_id_changed(d: &mut Diff, n: &Node) {
    let (Some(p), old, new) = (kept(n).filter(|p| p.old.name == p.new.name), d.old, d.new) else {
        return;
    };
    let changed: Vec<Surface> = p
        .common
        .iter()
        .copied()
        .filter(|s| old.id(*s, &p.old.name) != new.id(*s, p.name()))
        .collect();
    if changed.is_empty() {
        return;
    }
    let mut msg = Msg::new().t("tool ").c(p.name()).t(" has a new id:");
    for (k, s) in changed.iter().enumerate() {
        msg = msg
            .t(if k == 0 { " " } else { "; " })
            .t(format!("{} ", s.label()))
            .c(old.id(*s, &p.old.name))
            .t(" → ")
            .c(new.id(*s, p.name()));
    }
    let at = At::both(p.otp.clone(), p.ntp.clone());
    d.push(Rule::ToolIdChanged, Some(p.name()), None, &changed, msg, at);
}

pub fn toolset_member_removed(d: &mut Diff, n: &Node) {
    let (old, new) = (d.old, d.new);
    if let Some(p) = kept(n).filter(|p| !p.lost.is_empty()) {
        let toolsets: BTreeSet<&str> = p.lost.iter().map(|s| new.surfaces[s].toolset.as_str()).collect();
        let mut msg = Msg::new()
            .t("tool ")
            .c(p.name())
            .t(" is no longer given to ")
            .t(labels(&p.lost))
            .t(" (toolset ")
            .codes(toolsets)
            .t(")");
        // A tool that became `unsupported` leaves every surface it was on: a removal from
        // each, pointed at the reason.
        let mut after = p.ntp.clone();
        if let Some(why) = &p.new.unsupported {
            msg = msg.t(": it is now ").c("unsupported").t(format!(" ({why})"));
            after = format!("{after}.unsupported");
        }
        let at = At {
            before: Some(p.otp.clone()),
            after: Some(after.clone()),
            anchor: after,
        };
        d.push(Rule::ToolsetMemberRemoved, Some(p.name()), None, &p.lost, msg, at);
    }
    // A toolset no surface is built from, chosen with `ixgen opencode --toolset`. (A removed
    // or renamed tool is reported once, as such: its old name is no tool of the new catalog.)
    let Node::Toolset(name) = n else { return };
    let Some(now) = new.catalog().toolsets.get(*name) else {
        return;
    };
    if new.surfaces.values().any(|s| s.toolset == *name) {
        return;
    }
    let surfaces = opencode(d);
    let path = format!("toolsets.{name}.tools");
    for t in &old.catalog().toolsets[*name].tools {
        if !now.tools.contains(t) && new.model.tool(t).is_some() {
            let msg = Msg::new()
                .t("toolset ")
                .c(*name)
                .t(" (")
                .c(format!("ixgen opencode --toolset {name}"))
                .t(") no longer has tool ")
                .c(t);
            let at = At::both(path.clone(), path.clone());
            d.push(Rule::ToolsetMemberRemoved, Some(t), None, &surfaces, msg, at);
        }
    }
}

pub fn toolset_member_added(d: &mut Diff, n: &Node) {
    let Some(p) = kept(n).filter(|p| !p.gained.is_empty()) else {
        return;
    };
    let mut msg = Msg::new()
        .t("tool ")
        .c(p.name())
        .t(" is now given to ")
        .t(labels(&p.gained));
    if p.old.unsupported.is_some() {
        msg = msg.t(": it is no longer ").c("unsupported");
    }
    let at = At::both(p.otp.clone(), p.ntp.clone());
    d.push(Rule::ToolsetMemberAdded, Some(p.name()), None, &p.gained, msg, at);
}

pub fn toolset_removed(d: &mut Diff, n: &Node) {
    let Node::Toolset(name) = n else { return };
    if d.new.catalog().toolsets.contains_key(*name) {
        return;
    }
    let msg = Msg::new()
        .t("toolset ")
        .c(*name)
        .t(" was removed (")
        .c(format!("ixgen opencode --toolset {name}"))
        .t(")");
    let at = At::gone(format!("toolsets.{name}"), "toolsets".into());
    d.push(Rule::ToolsetRemoved, None, None, &opencode(d), msg, at);
}

// ---------------------------------------------------------------------------------------------
// Hints and tier.

fn became_write(p: &Pair) -> bool {
    p.old.access == Access::Read && p.new.access == Access::Write
}

pub fn tool_became_write(d: &mut Diff, n: &Node) {
    let Some(p) = shared(n).filter(|p| became_write(p)) else {
        return;
    };
    let mut msg = Msg::new().t("tool ").c(p.name()).t(" became a write tool");
    if p.new.destructive && !p.old.destructive {
        msg = msg.t(" and destructive");
    }
    d.push(
        Rule::ToolBecameWrite,
        Some(p.name()),
        None,
        &p.common,
        msg,
        p.at("access"),
    );
}

pub fn tool_became_destructive(d: &mut Diff, n: &Node) {
    let Some(p) = shared(n).filter(|p| !became_write(p) && p.new.destructive && !p.old.destructive) else {
        return;
    };
    let msg = Msg::new().t("tool ").c(p.name()).t(" became destructive");
    d.push(
        Rule::ToolBecameDestructive,
        Some(p.name()),
        None,
        &p.common,
        msg,
        p.at("destructive"),
    );
}

pub fn hints_changed(d: &mut Diff, n: &Node) {
    let Some(p) = shared(n) else { return };
    let (o, t) = (p.old, p.new);
    let became_read = o.access == Access::Write && t.access == Access::Read;
    let mut relaxed = Vec::new();
    if became_read {
        relaxed.push("became a read tool");
    }
    if o.destructive && !t.destructive && !became_read {
        relaxed.push("is no longer destructive");
    }
    if !relaxed.is_empty() {
        let msg = Msg::new()
            .t("tool ")
            .c(p.name())
            .t(format!(" {}", relaxed.join(" and ")));
        d.push(Rule::HintsChanged, Some(p.name()), None, &p.common, msg, p.at("access"));
    }
    // Idempotent and open-world are MCP annotations: only the MCP hosts show them. Idempotent
    // defaults to the opposite of write: when access changed, the access finding tells it.
    let idempotent = o.idempotent != t.idempotent && o.access == t.access;
    let mut hints = Vec::new();
    if idempotent {
        hints.push(if t.idempotent {
            "is now idempotent"
        } else {
            "is no longer idempotent"
        });
    }
    if o.open_world != t.open_world {
        hints.push(if t.open_world {
            "is now open-world"
        } else {
            "is no longer open-world"
        });
    }
    if !hints.is_empty() && !p.shown.is_empty() {
        let key = if idempotent { "idempotent" } else { "open_world" };
        let msg = Msg::new().t("tool ").c(p.name()).t(format!(" {}", hints.join(" and ")));
        d.push(Rule::HintsChanged, Some(p.name()), None, &p.shown, msg, p.at(key));
    }
}

pub fn tier_changed(d: &mut Diff, n: &Node) {
    let Some(p) = shared(n).filter(|p| p.old.tier != p.new.tier) else {
        return;
    };
    let msg = Msg::new()
        .t("tool ")
        .c(p.name())
        .t(" moved from tier ")
        .c(&p.old.tier)
        .t(" to ")
        .c(&p.new.tier);
    d.push(Rule::TierChanged, Some(p.name()), None, &p.common, msg, p.at("tier"));
}

// ---------------------------------------------------------------------------------------------
// Parameters.

/// Pushes a finding of a matched parameter at `key`.
fn param_hit(d: &mut Diff, rule: Rule, pc: &ParamChange, surfaces: &[Surface], msg: Msg, key: &str) {
    d.push(rule, Some(pc.tool.name()), Some(pc.name()), surfaces, msg, pc.at(key));
}

/// "parameter `p`" + `what` + " of `tool`".
fn of(pc: &ParamChange, what: &str) -> Msg {
    Msg::new().t(what).c(pc.name()).t(" of ").c(pc.tool.name())
}

pub fn param_removed(d: &mut Diff, n: &Node) {
    let Some(pc) = param(n).filter(|pc| pc.new.is_none()) else {
        return;
    };
    let Some((op, _)) = pc.old else { return };
    let (o, t) = (pc.tool.old, pc.tool.new);
    let mut msg = of(pc, "parameter ").t(" was removed");
    // A parameter's shape: its spec entry without its name, and its description.
    fn shape(t: &ToolModel, name: &str) -> (Option<SpecParam>, Option<Option<String>>) {
        let entry = t.spec.params.iter().find(|s| s.name == name).map(|s| SpecParam {
            name: String::new(),
            ..s.clone()
        });
        let desc = t
            .params
            .iter()
            .find(|p| p.name == name)
            .map(|p| written(p).description.clone());
        (entry, desc)
    }
    let twin = t.params.iter().find(|np| {
        !o.params.iter().any(|q| q.name == np.name)
            && written(np).renamed_from.is_none()
            && shape(t, &np.name) == shape(o, &op.name)
    });
    if let Some(np) = twin {
        msg = msg
            .t(" (if ")
            .c(&np.name)
            .t(" is its new name, declare ")
            .c(format!("renamed_from: {}", op.name))
            .t(" on it)");
    }
    let at = At::gone(pc.before.clone(), pc.tool.ntp.clone());
    d.push(
        Rule::ParamRemoved,
        Some(t.name.as_str()),
        Some(&op.name),
        &pc.tool.common,
        msg,
        at,
    );
}

pub fn param_renamed(d: &mut Diff, n: &Node) {
    let Some(pc) = param(n) else { return };
    let (Some((op, _)), Some((np, _))) = (pc.old, pc.new) else {
        return;
    };
    if op.name == np.name {
        return;
    }
    let msg = Msg::new()
        .t("parameter ")
        .c(&op.name)
        .t(" of ")
        .c(pc.tool.name())
        .t(" was renamed to ")
        .c(&np.name);
    let at = At::both(pc.before.clone(), format!("{}.renamed_from", pc.after));
    d.push(
        Rule::ParamRenamed,
        Some(pc.tool.name()),
        Some(&np.name),
        &pc.tool.common,
        msg,
        at,
    );
}

/// A new parameter: required (`param-required-added`) or not (`param-added-optional`).
fn param_added(d: &mut Diff, n: &Node, required: bool) {
    let Some(pc) = param(n).filter(|pc| pc.old.is_none()) else {
        return;
    };
    let Some((_, s)) = pc.new.filter(|(_, s)| s.required == required) else {
        return;
    };
    let what = if required {
        "new required parameter "
    } else {
        "new optional parameter "
    };
    let rule = if required {
        Rule::ParamRequiredAdded
    } else {
        Rule::ParamAddedOptional
    };
    let at = At::added(pc.after.clone());
    d.push(
        rule,
        Some(pc.tool.name()),
        Some(&s.name),
        &pc.tool.common,
        of(pc, what),
        at,
    );
}

pub fn param_required_added(d: &mut Diff, n: &Node) {
    param_added(d, n, true);
}

pub fn param_added_optional(d: &mut Diff, n: &Node) {
    param_added(d, n, false);
}

fn type_name(t: SpecType) -> &'static str {
    match t {
        SpecType::String => "string",
        SpecType::Integer => "integer",
        SpecType::Number => "number",
        SpecType::Boolean => "boolean",
        SpecType::Enum => "enum",
        SpecType::Array => "array",
        SpecType::Path => "path",
    }
}

fn type_text(p: &SpecParam) -> String {
    match (&p.items, p.ty) {
        (Some(i), SpecType::Array) => format!("{} of {}", type_name(p.ty), type_name(i.ty)),
        _ => type_name(p.ty).to_string(),
    }
}

pub fn param_type_changed(d: &mut Diff, n: &Node) {
    let Some(pc) = param(n).filter(|pc| pc.specs().is_some() && pc.same_type().is_none()) else {
        return;
    };
    let Some((a, b)) = pc.specs() else { return };
    let msg = of(pc, "the type of parameter ")
        .t(": ")
        .c(type_text(a))
        .t(" → ")
        .c(type_text(b));
    param_hit(d, Rule::ParamTypeChanged, pc, &pc.tool.common, msg, "type");
}

/// An enum's values, or the values of an array's enum items, with their key.
fn values(p: &SpecParam) -> Option<(&[String], &'static str)> {
    match p.ty {
        SpecType::Enum => p.values.as_deref().map(|v| (v, "values")),
        SpecType::Array => p
            .items
            .as_ref()
            .filter(|i| i.ty == SpecType::Enum)
            .and_then(|i| i.values.as_deref())
            .map(|v| (v, "items.values")),
        _ => None,
    }
}

/// Values one side accepts and the other does not: `removed` (old only) or added (new only).
fn enum_values(d: &mut Diff, n: &Node, removed: bool) {
    let Some(pc) = param(n) else { return };
    let Some((a, b)) = pc.same_type() else { return };
    let (Some((va, key)), Some((vb, _))) = (values(a), values(b)) else {
        return;
    };
    let (from, to) = if removed { (va, vb) } else { (vb, va) };
    let diff: Vec<&str> = from.iter().filter(|v| !to.contains(v)).map(String::as_str).collect();
    if diff.is_empty() {
        return;
    }
    let (rule, what) = if removed {
        (Rule::EnumValueRemoved, " no longer accepts ")
    } else {
        (Rule::EnumValueAdded, " now also accepts ")
    };
    let msg = of(pc, "parameter ").t(what).codes(diff);
    param_hit(d, rule, pc, &pc.tool.common, msg, key);
}

pub fn enum_value_removed(d: &mut Diff, n: &Node) {
    enum_values(d, n, true);
}

pub fn enum_value_added(d: &mut Diff, n: &Node) {
    enum_values(d, n, false);
}

/// The bounds of a parameter that moved, each tighter or not: (tighter, message, whether only
/// the surfaces that run the steps see it, key).
fn bounds(pc: &ParamChange) -> Vec<(bool, Msg, bool, &'static str)> {
    let Some((a, b)) = pc.same_type() else {
        return Vec::new();
    };
    if matches!(a.ty, SpecType::Boolean | SpecType::Enum) {
        return Vec::new();
    }
    let number = matches!(a.ty, SpecType::Integer | SpecType::Number);
    let what = if number { "" } else { " length" };
    let mut out = Vec::new();
    for (key, x, y, larger_is_tighter) in [("min", &a.min, &b.min, true), ("max", &a.max, &b.max, false)] {
        let word = if key == "min" { "minimum" } else { "maximum" };
        let tighter = match (x.as_ref().and_then(|x| x.as_f64()), y.as_ref().and_then(|y| y.as_f64())) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(p), Some(q)) if p != q => (q > p) == larger_is_tighter,
            _ => continue,
        };
        let show = |v: &Option<serde_json::Number>| v.as_ref().map_or("none".to_string(), |n| n.to_string());
        let msg = of(pc, &format!("the {word}{what} of parameter "))
            .t(": ")
            .c(show(x))
            .t(" → ")
            .c(show(y));
        out.push((tighter, msg, false, key));
    }
    // Clamping is done by the generated tools' interpreter: only the surfaces that run it.
    if number && (b.min.is_some() || b.max.is_some()) && a.clamp != b.clamp {
        let text = if a.clamp {
            " now refuses out-of-range numbers instead of clamping them"
        } else {
            " now clamps out-of-range numbers instead of refusing them"
        };
        out.push((a.clamp, of(pc, "parameter ").t(text), true, "clamp"));
    }
    out
}

fn bound(d: &mut Diff, n: &Node, tighter: bool) {
    let Some(pc) = param(n) else { return };
    let rule = if tighter {
        Rule::BoundTightened
    } else {
        Rule::BoundRelaxed
    };
    for (t, msg, exec_only, key) in bounds(pc) {
        let surfaces = if exec_only { &pc.tool.exec } else { &pc.tool.common };
        if t == tighter && !surfaces.is_empty() {
            param_hit(d, rule, pc, surfaces, msg, key);
        }
    }
}

pub fn bound_tightened(d: &mut Diff, n: &Node) {
    bound(d, n, true);
}

pub fn bound_relaxed(d: &mut Diff, n: &Node) {
    bound(d, n, false);
}

/// The pattern on both sides, when the type is unchanged.
fn patterns<'n>(n: &'n Node) -> Option<(&'n ParamChange<'n>, Option<&'n str>, Option<&'n str>)> {
    let pc = param(n)?;
    let (a, b) = pc.same_type()?;
    Some((pc, a.pattern.as_deref(), b.pattern.as_deref()))
}

pub fn pattern_added(d: &mut Diff, n: &Node) {
    let Some((pc, None, Some(p))) = patterns(n) else { return };
    let msg = of(pc, "parameter ").t(" must now match ").c(p);
    param_hit(d, Rule::PatternAdded, pc, &pc.tool.common, msg, "pattern");
}

pub fn pattern_changed(d: &mut Diff, n: &Node) {
    let Some((pc, Some(x), Some(y))) = patterns(n) else {
        return;
    };
    if x != y {
        let msg = of(pc, "the pattern of parameter ").t(": ").c(x).t(" → ").c(y);
        param_hit(d, Rule::PatternChanged, pc, &pc.tool.common, msg, "pattern");
    }
}

pub fn pattern_removed(d: &mut Diff, n: &Node) {
    let Some((pc, Some(x), None)) = patterns(n) else { return };
    let msg = of(pc, "parameter ").t(" no longer has to match ").c(x);
    param_hit(d, Rule::PatternRemoved, pc, &pc.tool.common, msg, "pattern");
}

/// A parameter's default, or a `default` rule across parameters added or removed.
pub fn default_changed(d: &mut Diff, n: &Node) {
    if let Some(pc) = param(n) {
        let Some((a, b)) = pc.same_type().filter(|(a, b)| a.default != b.default) else {
            return;
        };
        let show = |v: &Option<Box<serde_json::Value>>| v.as_ref().map_or("none".to_string(), |v| v.to_string());
        let msg = of(pc, "the default of parameter ")
            .t(": ")
            .c(show(&a.default))
            .t(" → ")
            .c(show(&b.default));
        param_hit(d, Rule::DefaultChanged, pc, &pc.tool.common, msg, "default");
    }
    let Some(p) = runs(n) else { return };
    cross_rules(d, p, true, Rule::DefaultChanged);
    cross_rules(d, p, false, Rule::DefaultChanged);
}

/// `required` flipped: to required (`param-became-required`) or optional.
fn required(d: &mut Diff, n: &Node, now: bool) {
    let Some(pc) = param(n) else { return };
    let Some((_, b)) = pc
        .specs()
        .filter(|(a, b)| a.required != b.required && b.required == now)
    else {
        return;
    };
    let (rule, what) = if b.required {
        (Rule::ParamBecameRequired, " became required")
    } else {
        (Rule::ParamBecameOptional, " became optional")
    };
    param_hit(d, rule, pc, &pc.tool.common, of(pc, "parameter ").t(what), "required");
}

pub fn param_became_required(d: &mut Diff, n: &Node) {
    required(d, n, true);
}

pub fn param_became_optional(d: &mut Diff, n: &Node) {
    required(d, n, false);
}

/// `nullable` flipped (`null` is part of the parameter's type in every host's schema).
fn nullable(d: &mut Diff, n: &Node, now: bool) {
    let Some(pc) = param(n) else { return };
    let Some((_, b)) = pc
        .specs()
        .filter(|(a, b)| a.nullable != b.nullable && b.nullable == now)
    else {
        return;
    };
    let (rule, what) = if b.nullable {
        (Rule::NullableAdded, " now accepts `null`")
    } else {
        (Rule::NullableRemoved, " no longer accepts `null`")
    };
    param_hit(d, rule, pc, &pc.tool.common, of(pc, "parameter ").t(what), "nullable");
}

pub fn nullable_removed(d: &mut Diff, n: &Node) {
    nullable(d, n, false);
}

pub fn nullable_added(d: &mut Diff, n: &Node) {
    nullable(d, n, true);
}

/// `equals_context` set (`added`) or removed. What the generated tools check: only tools that run.
fn equals_context(d: &mut Diff, n: &Node, added: bool) {
    let Some(pc) = param(n).filter(|pc| !pc.tool.exec.is_empty()) else {
        return;
    };
    let Some((_, b)) = pc.specs().filter(|(a, b)| a.equals_context != b.equals_context) else {
        return;
    };
    let msg = of(pc, "parameter ");
    let (rule, msg) = match (&b.equals_context, added) {
        (Some(var), true) => (
            Rule::EqualsContextAdded,
            msg.t(" must now equal the context value ").c(var),
        ),
        (None, false) => (
            Rule::EqualsContextRemoved,
            msg.t(" no longer has to equal a context value"),
        ),
        _ => return,
    };
    param_hit(d, rule, pc, &pc.tool.exec, msg, "equals_context");
}

pub fn equals_context_added(d: &mut Diff, n: &Node) {
    equals_context(d, n, true);
}

pub fn equals_context_removed(d: &mut Diff, n: &Node) {
    equals_context(d, n, false);
}

/// How the generated tools read an empty string: only tools that run.
pub fn keep_empty_changed(d: &mut Diff, n: &Node) {
    let Some(pc) = param(n).filter(|pc| !pc.tool.exec.is_empty()) else {
        return;
    };
    let Some((_, b)) = pc.specs().filter(|(a, b)| a.keep_empty != b.keep_empty) else {
        return;
    };
    let what = if b.keep_empty {
        " now keeps an empty string as a value"
    } else {
        " now takes an empty string as not given"
    };
    param_hit(
        d,
        Rule::KeepEmptyChanged,
        pc,
        &pc.tool.exec,
        of(pc, "parameter ").t(what),
        "keep_empty",
    );
}

/// A parameter's description (or its items'), and the tool's, as written.
pub fn description_changed(d: &mut Diff, n: &Node) {
    if let Some(pc) = param(n) {
        let (Some((op, _)), Some((np, _))) = (pc.old, pc.new) else {
            return;
        };
        let (a, b) = (written(op), written(np));
        let items = |p: &crate::catalog::Param| p.items.as_ref().and_then(|i| i.description.clone());
        if a.description != b.description || items(a) != items(b) {
            let msg = of(pc, "the description of parameter ").t(" changed");
            param_hit(d, Rule::DescriptionChanged, pc, &pc.tool.common, msg, "description");
        }
    }
    let Some(p) = spec(n).filter(|p| p.old.description != p.new.description) else {
        return;
    };
    let msg = Msg::new().t("the description of ").c(p.name()).t(" changed");
    d.push(
        Rule::DescriptionChanged,
        Some(p.name()),
        None,
        &p.common,
        msg,
        p.at("description"),
    );
}

// ---------------------------------------------------------------------------------------------
// Steps, route, confirmation, rules, result: what the surfaces that run the steps see.

pub fn step_changed(d: &mut Diff, n: &Node) {
    let Some(p) = runs(n) else { return };
    let (a, b) = (&p.old.spec, &p.new.spec);
    let (sa, sb) = (&a.steps, &b.steps);
    if let Some(&(i, j)) = p.steps.same_interface.first() {
        let mut msg = Msg::new()
            .c(p.name())
            .t(" runs ")
            .c(exec_text(&sb[j].exec))
            .t(" instead of ")
            .c(exec_text(&sa[i].exec));
        if p.steps.same_interface.len() > 1 {
            let more = p.steps.same_interface.len() - 1;
            msg = msg.t(format!(" (and {more} more such change(s))"));
        }
        msg = msg.t(": the same command and options, with other values");
        let at = At::both(format!("{}.steps[{i}]", p.otp), format!("{}.steps[{j}]", p.ntp));
        d.push(Rule::StepChanged, Some(p.name()), None, &p.exec, msg, at);
    }
    if p.steps.exec_changed() || (sa == sb && a.parallel == b.parallel) {
        return;
    }
    let first = sa
        .iter()
        .zip(sb)
        .position(|(x, y)| x != y)
        .unwrap_or(sa.len().min(sb.len()));
    let expr = |steps: &[crate::model::SpecStep]| match steps.get(first).map(|s| &s.exec) {
        Some(SpecExec::Compute { expr }) => Some(expr.clone()),
        _ => None,
    };
    let msg = if sa == sb {
        Msg::new().t("the steps of ").c(p.name()).t(if b.parallel {
            " now run concurrently"
        } else {
            " now run one after another"
        })
    } else {
        let step = Msg::new().t(format!("step {} of ", first + 1)).c(p.name());
        match (expr(sa), expr(sb)) {
            (Some(x), Some(y)) if x != y && sa.len() == sb.len() => step.t(" computes ").c(y).t(" instead of ").c(x),
            _ => {
                step.t(" changed its condition, title, message, expression or order; the commands it runs are the same")
            }
        }
    };
    let key = if sa == sb {
        "parallel".to_string()
    } else {
        format!("steps[{first}]")
    };
    d.push(Rule::StepChanged, Some(p.name()), None, &p.exec, msg, p.at(&key));
}

/// Steps whose command is gone or new: CLI commands (`cli`), or store and signal steps.
fn commands(d: &mut Diff, n: &Node, cli: bool) {
    let Some(p) = runs(n) else { return };
    let (sa, sb) = (&p.old.spec.steps, &p.new.spec.steps);
    let is = |e: &SpecExec| matches!(e, SpecExec::Cli { .. }) == cli;
    let r: Vec<usize> = p.steps.removed.iter().copied().filter(|&i| is(&sa[i].exec)).collect();
    let a: Vec<usize> = p.steps.added.iter().copied().filter(|&j| is(&sb[j].exec)).collect();
    if r.is_empty() && a.is_empty() {
        return;
    }
    let mut msg = Msg::new().c(p.name());
    if r.len() == 1 && a.len() == 1 {
        msg = msg
            .t(" runs ")
            .c(exec_text(&sb[a[0]].exec))
            .t(" instead of ")
            .c(exec_text(&sa[r[0]].exec));
    } else {
        if !r.is_empty() {
            msg = msg
                .t(" no longer runs ")
                .codes(r.iter().map(|&i| exec_text(&sa[i].exec)));
        }
        if !a.is_empty() {
            msg = msg
                .t(if r.is_empty() { " now also runs " } else { "; now runs " })
                .codes(a.iter().map(|&j| exec_text(&sb[j].exec)));
        }
    }
    let before = r
        .first()
        .map_or(format!("{}.steps", p.otp), |i| format!("{}.steps[{i}]", p.otp));
    let after = a
        .first()
        .map_or(format!("{}.steps", p.ntp), |j| format!("{}.steps[{j}]", p.ntp));
    let rule = if cli {
        Rule::CliArgvChanged
    } else {
        Rule::StoreStepChanged
    };
    d.push(rule, Some(p.name()), None, &p.exec, msg, At::both(before, after));
}

pub fn cli_argv_changed(d: &mut Diff, n: &Node) {
    commands(d, n, true);
}

pub fn store_step_changed(d: &mut Diff, n: &Node) {
    commands(d, n, false);
}

fn route(r: &SpecRuntime) -> String {
    let method = match r.method {
        HttpMethod::GET => "GET",
        HttpMethod::POST => "POST",
    };
    format!("{method} {}", r.path)
}

/// A new method or path is a different endpoint.
pub fn runtime_route_changed(d: &mut Diff, n: &Node) {
    let Some(p) = runs(n) else { return };
    let (Some(x), Some(y)) = (&p.old.spec.runtime, &p.new.spec.runtime) else {
        return;
    };
    if x.method != y.method || x.path != y.path {
        let msg = Msg::new()
            .t("the runtime route of ")
            .c(p.name())
            .t(": ")
            .c(route(x))
            .t(" → ")
            .c(route(y));
        d.push(
            Rule::RuntimeRouteChanged,
            Some(p.name()),
            None,
            &p.exec,
            msg,
            p.at("runtime"),
        );
    }
}

/// A route added or removed, or the same endpoint with another body, timeout or output.
pub fn route_changed(d: &mut Diff, n: &Node) {
    let Some(p) = runs(n) else { return };
    let msg = match (&p.old.spec.runtime, &p.new.spec.runtime) {
        (Some(x), Some(y)) if x.method == y.method && x.path == y.path && x != y => {
            let f = |name, a: bool, b: bool, eq: bool| (name, a, b, eq);
            let keys = changed(&[
                f(
                    "url_env",
                    x.url_env.is_some(),
                    y.url_env.is_some(),
                    x.url_env == y.url_env,
                ),
                f(
                    "default_url",
                    x.default_url.is_some(),
                    y.default_url.is_some(),
                    x.default_url == y.default_url,
                ),
                f(
                    "timeout_ms",
                    x.timeout_ms.is_some(),
                    y.timeout_ms.is_some(),
                    x.timeout_ms == y.timeout_ms,
                ),
                f("method", true, true, true),
                f("path", true, true, true),
                f("body", x.body.is_some(), y.body.is_some(), x.body == y.body),
                f(
                    "markdown_field",
                    x.markdown_field.is_some(),
                    y.markdown_field.is_some(),
                    x.markdown_field == y.markdown_field,
                ),
                f("json", x.json, y.json, x.json == y.json),
            ]);
            Msg::new()
                .t("the runtime route ")
                .c(route(y))
                .t(" of ")
                .c(p.name())
                .t(" changed its ")
                .codes(keys)
        }
        (None, Some(y)) => Msg::new()
            .c(p.name())
            .t(" now tries the runtime route ")
            .c(route(y))
            .t(" before its steps"),
        (Some(x), None) => Msg::new()
            .c(p.name())
            .t(" no longer tries the runtime route ")
            .c(route(x)),
        _ => return,
    };
    d.push(Rule::RouteChanged, Some(p.name()), None, &p.exec, msg, p.at("runtime"));
}

/// A tool's confirmation on both sides, when it changed by itself: it follows `destructive` by
/// default, and a confirmation that only came or went with it is the hint rules' finding.
fn confirm<'n>(n: &'n Node) -> Option<(&'n Pair<'n>, Option<&'n SpecConfirm>, Option<&'n SpecConfirm>)> {
    let p = runs(n)?;
    let (a, b) = (p.old.spec.confirm.as_ref(), p.new.spec.confirm.as_ref());
    let same = a == b || (p.old.destructive != p.new.destructive && a.is_some() != b.is_some());
    (!same).then_some((p, a, b))
}

pub fn confirm_added(d: &mut Diff, n: &Node) {
    let Some((p, None, Some(_))) = confirm(n) else { return };
    let msg = Msg::new().c(p.name()).t(" now asks for confirmation before it runs");
    d.push(Rule::ConfirmAdded, Some(p.name()), None, &p.exec, msg, p.at("confirm"));
}

pub fn confirm_changed(d: &mut Diff, n: &Node) {
    let Some((p, Some(_), b)) = confirm(n) else { return };
    let msg = match b {
        None => Msg::new().c(p.name()).t(" no longer asks for confirmation"),
        Some(_) => Msg::new().t("what ").c(p.name()).t(" asks confirmation for changed"),
    };
    d.push(
        Rule::ConfirmChanged,
        Some(p.name()),
        None,
        &p.exec,
        msg,
        p.at("confirm"),
    );
}

fn rule_kind(r: &SpecRule) -> &'static str {
    match r {
        SpecRule::Default { .. } => "default",
        SpecRule::Require { .. } => "require",
        SpecRule::Forbid { .. } => "forbid",
        SpecRule::Compare { .. } => "compare",
    }
}

/// Rules across parameters that are new (`added`) or gone, of `rule`: `default` rules are a
/// `default-changed`, the others a `rule-added` or `rule-removed`.
fn cross_rules(d: &mut Diff, p: &Pair, added: bool, rule: Rule) {
    let (ra, rb) = (&p.old.spec.rules, &p.new.spec.rules);
    let (from, other) = if added { (rb, ra) } else { (ra, rb) };
    for (i, r) in from.iter().enumerate().filter(|(_, r)| !other.contains(r)) {
        let k = rule_kind(r);
        if (k == "default") != (rule == Rule::DefaultChanged) {
            continue;
        }
        let (msg, at) = if added {
            let after = format!("{}.rules[{i}]", p.ntp);
            (
                Msg::new().c(p.name()).t(" has a new ").c(k).t(" rule"),
                At::added(after),
            )
        } else {
            let before = format!("{}.rules[{i}]", p.otp);
            let msg = Msg::new().t("a ").c(k).t(" rule of ").c(p.name()).t(" was removed");
            (msg, At::gone(before, p.ntp.clone()))
        };
        d.push(rule, Some(p.name()), None, &p.exec, msg, at);
    }
}

pub fn rule_added(d: &mut Diff, n: &Node) {
    let Some(p) = runs(n) else { return };
    cross_rules(d, p, true, Rule::RuleAdded);
}

pub fn rule_removed(d: &mut Diff, n: &Node) {
    let Some(p) = runs(n) else { return };
    cross_rules(d, p, false, Rule::RuleRemoved);
}

/// What shapes the result: the spec's heading, fallback, recovery, output blocks, redaction and
/// answer (surfaces that run the steps), and the output schema (the MCP definition).
pub fn output_changed(d: &mut Diff, n: &Node) {
    let Some(p) = spec(n) else { return };
    let (a, b): (&ExecSpec, &ExecSpec) = (&p.old.spec, &p.new.spec);
    let f = |name, x: bool, y: bool, eq: bool| (name, x, y, eq);
    let keys = changed(&[
        f("version", true, true, a.version == b.version),
        f("heading", true, true, a.heading == b.heading),
        f(
            "fallback",
            a.fallback.is_some(),
            b.fallback.is_some(),
            a.fallback == b.fallback,
        ),
        f(
            "recovery",
            a.recovery.is_some(),
            b.recovery.is_some(),
            a.recovery == b.recovery,
        ),
        f(
            "output",
            !a.output.is_empty(),
            !b.output.is_empty(),
            a.output == b.output,
        ),
        f(
            "redact",
            a.redact != SpecRedact::All,
            b.redact != SpecRedact::All,
            a.redact == b.redact,
        ),
        f("answer", a.answer.is_some(), b.answer.is_some(), a.answer == b.answer),
    ]);
    if !keys.is_empty() && !p.exec.is_empty() {
        let key = if keys.contains(&"heading") { "heading" } else { keys[0] };
        let msg = Msg::new()
            .t("the result of ")
            .c(p.name())
            .t(" changed its ")
            .codes(keys.iter().copied());
        d.push(Rule::OutputChanged, Some(p.name()), None, &p.exec, msg, p.at(key));
    }
    if p.old.output_schema != p.new.output_schema && !p.shown.is_empty() {
        let msg = Msg::new().t("the output schema of ").c(p.name()).t(" changed");
        d.push(
            Rule::OutputChanged,
            Some(p.name()),
            None,
            &p.shown,
            msg,
            p.at("output_schema"),
        );
    }
}

pub fn title_changed(d: &mut Diff, n: &Node) {
    let Some(p) = spec(n).filter(|p| p.old.title != p.new.title && !p.shown.is_empty()) else {
        return;
    };
    let msg = Msg::new().t("the title of ").c(p.name()).t(" changed");
    d.push(Rule::TitleChanged, Some(p.name()), None, &p.shown, msg, p.at("title"));
}
