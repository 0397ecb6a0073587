//! One detector per rule of `ixgen diff`, named after it. A detector sees every place of the
//! comparison ([`Node`]) and records what its rule finds there; the table in `rules.rs` names
//! the rule, its class and its summary, and points here. A detector does not name its rule:
//! the walk's visitor gives every hit the rule whose detector made it (so this file depends on
//! the comparison, and only the table on the detectors).

use super::compare::{At, Diff, Node, Pair, ParamChange, exec_text, fields_changed, same, same_json};
use super::{Msg, Surface, labels};
use crate::hosts::SurfaceKind;
use crate::model::{Access, Param, Server};
use crate::model::{ExecSpec, SpecConfirm, SpecExec, SpecParam, SpecRule, SpecRuntime};
use crate::model::{SpecStep, SpecType, ToolModel};
use crate::template::Template;
use indexmap::IndexSet;
use std::collections::{BTreeSet, HashSet};

/// A detector: reports what its rule finds at one place (`None`: nothing to see there).
pub type Detector = fn(&mut Diff, &Node) -> Option<()>;

// ---------------------------------------------------------------------------------------------
// Where a detector looks.

/// A kept tool, at its own place (before its parameters).
fn kept<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    let Node::Tool(p) = n else { return None };
    Some(p)
}

/// A kept tool that a surface still has, at its own place: its hints and tier.
fn shared<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    kept(n).filter(|p| !p.common.is_empty())
}

/// A kept tool's spec and definition, after its parameters.
fn spec<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    let Node::Spec(p) = n else { return None };
    Some(p)
}

/// A kept tool's spec, when a surface that runs the steps still has the tool.
fn runs<'n>(n: &'n Node) -> Option<&'n Pair<'n>> {
    spec(n).filter(|p| !p.exec.is_empty())
}

fn param<'n>(n: &'n Node) -> Option<&'n ParamChange<'n>> {
    let Node::Param(p) = n else { return None };
    Some(p)
}

/// The surfaces where a toolset no target is built from is used: `ixgen opencode --toolset`.
fn opencode(d: &Diff) -> Vec<Surface> {
    let keys = d.new.surfaces.keys();
    keys.filter(|s| s.key == "opencode").copied().collect()
}

// ---------------------------------------------------------------------------------------------
// Surfaces and the server.

/// Surfaces only one side generates: the older one (`surface-removed`) or the current one.
pub fn surface(d: &mut Diff, n: &Node, removed: bool) -> Option<()> {
    matches!(n, Node::Catalog).then_some(())?;
    let (from, other) = if removed { (d.old, d.new) } else { (d.new, d.old) };
    let what = if removed { "no longer" } else { "now" };
    for (s, st) in from.surfaces.iter().filter(|(s, _)| !other.surfaces.contains_key(s)) {
        let text = format!("{} is {what} generated ({{}}, {} tool(s))", s.label, st.tools.len());
        let at = match removed {
            true => At::gone(st.path.clone(), "targets".into()),
            false => At::added(st.path.clone()),
        };
        d.push(None, &[*s], Msg::of(&text, &[&st.path]), at);
    }
    Some(())
}

/// The server on both sides, and the surfaces on both that launch it.
fn server<'a>(d: &Diff<'a>, n: &Node) -> Option<(&'a Server, &'a Server, Vec<Surface>)> {
    let (old, new) = (d.old, d.new);
    matches!(n, Node::Catalog).then_some(())?;
    let (a, b) = (old.model.server.as_ref()?, new.model.server.as_ref()?);
    let launches = |s: &Surface| s.kind == SurfaceKind::Launches && old.surfaces.keys().any(|o| o.key == s.key);
    let launched: Vec<Surface> = new.surfaces.keys().copied().filter(launches).collect();
    (!launched.is_empty()).then_some((a, b, launched))
}

/// A new command line is an argv change that an installed server may not accept: the line the
/// hosts launch, with the catalog's filters (new `filter_flags` with no filter to pass change
/// nothing). The tool lists those flags pass are not the line's words: a list in another order
/// or with a tool more or less is read by the same flag, and the tools a launched server gets
/// are its surfaces' findings (`tool-added`, `tool-removed`, …).
pub fn server_command_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let (a, b, launched) = server(d, n)?;
    let (args_a, args_b) = (&d.old.server_args, &d.new.server_args);
    let words = |s: &Server, args: &[String]| -> Vec<String> {
        let flags = s.filter_flags.iter().flat_map(|f| [&f.enable_tools, &f.disable_tools]);
        let lists: Vec<&String> = flags.flatten().collect();
        // Each word, and whether the one before it is a list flag (then it is the list).
        let after_list = std::iter::once(false).chain(args.iter().map(|a| lists.contains(&a)));
        let word = |(arg, list): (&String, bool)| if list { "<tools>".to_string() } else { arg.clone() };
        args.iter().zip(after_list).map(word).collect()
    };
    let key = if a.command != b.command {
        "command"
    } else if a.args != b.args {
        "args"
    } else if words(a, args_a) != words(b, args_b) {
        "filter_flags"
    } else {
        return None;
    };
    // Each word as a shell shows it: `["mcp --stdio"]` is not `[mcp, --stdio]`.
    let line = |s: &Server, args: &[String]| {
        let word = |w: &String| crate::escape::shell_word(w);
        args.iter().fold(word(&s.command), |line, w| line + " " + &word(w))
    };
    let (now, was) = (line(b, args_b), line(a, args_a));
    let msg = Msg::of("the MCP hosts launch the server as {} instead of {}", &[&now, &was]);
    let at = At::both(format!("server.{key}"), format!("server.{key}"));
    d.push(None, &launched, msg, at);
    Some(())
}

pub fn server_env_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let (a, b, launched) = server(d, n).filter(|(a, b, _)| a.env != b.env)?;
    let keys = fields_changed(&a.env, &b.env);
    let msg = Msg::default().t("the server's environment changed: ").codes(keys);
    let at = At::both("server.env".into(), "server.env".into());
    d.push(None, &launched, msg, at);
    Some(())
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

/// `msg` about the removed `name`, and when a new `twin` does the same under another name (most
/// likely a rename the catalog did not declare), how to declare it.
fn or_renamed(msg: Msg, twin: Option<&String>, name: &str) -> Msg {
    let Some(twin) = twin else { return msg };
    let msg = msg.t(" (if ").c(twin).t(" is its new name, declare ");
    msg.c(format!("renamed_from: {name}")).t(" on it)")
}

pub fn tool_removed(d: &mut Diff, n: &Node) -> Option<()> {
    let Node::Removed(t) = n else { return None };
    // A tool no host had (`unsupported`, or in no target's toolset): no caller loses it.
    let on: Vec<Surface> = d.old.on(&t.name).into_iter().collect();
    (!on.is_empty()).then_some(())?;
    let twin = d
        .added
        .iter()
        .find(|n| n.description == t.description || unnamed(n) == unnamed(t));
    let msg = Msg::of("tool {} was removed", &[&t.name]);
    let msg = or_renamed(msg, twin.map(|n| &n.name), &t.name);
    let at = At::gone(t.path.clone(), "tools".into());
    d.push(Some(&t.name), &on, msg, at);
    Some(())
}

pub fn tool_added(d: &mut Diff, n: &Node) -> Option<()> {
    let Node::Added(t) = n else { return None };
    let on: Vec<Surface> = d.new.on(&t.name).into_iter().collect();
    (!on.is_empty()).then_some(())?;
    let at = At::added(t.path.clone());
    let msg = Msg::of("new tool {}", &[&t.name]);
    d.push(Some(&t.name), &on, msg, at);
    Some(())
}

pub fn tool_renamed(d: &mut Diff, n: &Node) -> Option<()> {
    // A tool no host had under both names (`unsupported`): nobody calls it by either.
    let p = kept(n).filter(|p| p.old.name != p.new.name && !p.common.is_empty())?;
    let msg = Msg::of("tool {} was renamed to {}", &[&p.old.name, p.name()]);
    let at = At::both(p.old.path.clone(), format!("{}.renamed_from", p.new.path));
    d.push(Some(p.name()), &p.common, msg, at).previous_name = Some(p.old.name.clone());
    Some(())
}

pub fn tool_id_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let (p, old, new) = (kept(n).filter(|p| p.old.name == p.new.name)?, d.old, d.new);
    let ids = |s: &Surface| (old.id(*s, &p.old.name), new.id(*s, p.name()));
    let changed: Vec<Surface> = p.common.iter().copied().filter(|s| ids(s).0 != ids(s).1).collect();
    (!changed.is_empty()).then_some(())?;
    let mut msg = Msg::of("tool {} has a new id:", &[p.name()]);
    for (k, s) in changed.iter().enumerate() {
        let (was, is) = ids(s);
        let sep = if k == 0 { " " } else { "; " };
        msg = msg.t(format!("{sep}{} ", s.label)).c(was).t(" → ").c(is);
    }
    let at = At::both(p.old.path.clone(), p.new.path.clone());
    d.push(Some(p.name()), &changed, msg, at);
    Some(())
}

pub fn toolset_member_removed(d: &mut Diff, n: &Node) -> Option<()> {
    let (old, new) = (d.old, d.new);
    if let Some(p) = kept(n).filter(|p| !p.lost.is_empty()) {
        let toolsets: BTreeSet<&str> = p.lost.iter().map(|s| new.surfaces[s].toolset.as_str()).collect();
        let text = format!("tool {{}} is no longer given to {} (toolset ", labels(&p.lost));
        let mut msg = Msg::of(&text, &[p.name()]).codes(toolsets).t(")");
        // A tool that became `unsupported` leaves every surface it was on: a removal from
        // each, pointed at the reason.
        let mut after = p.new.path.clone();
        if let Some(why) = &p.new.unsupported {
            msg = msg.t(": it is now ").c("unsupported").t(format!(" ({why})"));
            after = format!("{after}.unsupported");
        }
        let at = At::both(p.old.path.clone(), after);
        d.push(Some(p.name()), &p.lost, msg, at);
    }
    // A toolset no surface is built from, chosen with `ixgen opencode --toolset`. (A removed
    // or renamed tool is reported once, as such: its old name is no tool of the new catalog.)
    let Node::Toolset(name) = n else { return None };
    let built = new.surfaces.values().any(|s| s.toolset == *name);
    let now = new.model.toolsets.get(*name).filter(|_| !built)?;
    let (surfaces, path) = (opencode(d), format!("toolsets.{name}.tools"));
    let choose = format!("ixgen opencode --toolset {name}");
    let now: HashSet<&String> = now.tools.iter().collect();
    for t in &old.model.toolsets[*name].tools {
        if !now.contains(t) && new.model.tool(t).is_some() {
            let msg = Msg::of("toolset {} ({}) no longer has tool {}", &[name, &choose, t]);
            let at = At::both(path.clone(), path.clone());
            d.push(Some(t), &surfaces, msg, at);
        }
    }
    Some(())
}

pub fn toolset_member_added(d: &mut Diff, n: &Node) -> Option<()> {
    let p = kept(n).filter(|p| !p.gained.is_empty())?;
    let mut msg = Msg::of(&format!("tool {{}} is now given to {}", labels(&p.gained)), &[p.name()]);
    if p.old.unsupported.is_some() {
        msg = msg.t(": it is no longer ").c("unsupported");
    }
    let at = At::both(p.old.path.clone(), p.new.path.clone());
    d.push(Some(p.name()), &p.gained, msg, at);
    Some(())
}

pub fn toolset_removed(d: &mut Diff, n: &Node) -> Option<()> {
    let Node::Toolset(name) = n else { return None };
    (!d.new.model.toolsets.contains_key(*name)).then_some(())?;
    let choose = format!("ixgen opencode --toolset {name}");
    let msg = Msg::of("toolset {} was removed ({})", &[name, &choose]);
    let at = At::gone(format!("toolsets.{name}"), "toolsets".into());
    d.push(None, &opencode(d), msg, at);
    Some(())
}

// ---------------------------------------------------------------------------------------------
// Hints and tier.

fn became_write(p: &Pair) -> bool {
    p.old.access == Access::Read && p.new.access == Access::Write
}

fn became_destructive(p: &Pair) -> bool {
    p.new.destructive && !p.old.destructive
}

pub fn tool_became_write(d: &mut Diff, n: &Node) -> Option<()> {
    let p = shared(n).filter(|p| became_write(p))?;
    let also = if became_destructive(p) { " and destructive" } else { "" };
    let msg = Msg::of(&format!("tool {{}} became a write tool{also}"), &[p.name()]);
    d.tool(p, &p.common, msg, "access")
}

pub fn tool_became_destructive(d: &mut Diff, n: &Node) -> Option<()> {
    let p = shared(n).filter(|p| !became_write(p) && became_destructive(p))?;
    let msg = Msg::of("tool {} became destructive", &[p.name()]);
    d.tool(p, &p.common, msg, "destructive")
}

pub fn hints_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let p = shared(n)?;
    let (o, t) = (p.old, p.new);
    let relaxed = if o.access == Access::Write && t.access == Access::Read {
        Some("became a read tool")
    } else {
        (o.destructive && !t.destructive).then_some("is no longer destructive")
    };
    if let Some(relaxed) = relaxed {
        let msg = Msg::of(&format!("tool {{}} {relaxed}"), &[p.name()]);
        d.tool(p, &p.common, msg, "access");
    }
    // Idempotent and open-world are MCP annotations: only the MCP hosts show them. Idempotent
    // defaults to the opposite of write: when access changed, the access finding tells it.
    let idempotent = o.idempotent != t.idempotent && o.access == t.access;
    let now = |on: bool, what: &str| format!("is {}{what}", if on { "now " } else { "no longer " });
    let mut hints = Vec::new();
    if idempotent {
        hints.push(now(t.idempotent, "idempotent"));
    }
    if o.open_world != t.open_world {
        hints.push(now(t.open_world, "open-world"));
    }
    if !hints.is_empty() && !p.shown.is_empty() {
        let key = if idempotent { "idempotent" } else { "open_world" };
        let msg = Msg::of(&format!("tool {{}} {}", hints.join(" and ")), &[p.name()]);
        d.tool(p, &p.shown, msg, key);
    }
    Some(())
}

pub fn tier_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let p = shared(n).filter(|p| p.old.tier != p.new.tier)?;
    let text = "tool {} moved from tier {} to {}";
    let msg = Msg::of(text, &[p.name(), &p.old.tier, &p.new.tier]);
    d.tool(p, &p.common, msg, "tier")
}

// ---------------------------------------------------------------------------------------------
// Parameters.

/// A finding of a matched parameter at `key`, on the surfaces that have the tool: `text` with
/// the parameter, the tool, then `values` in its `{}`s.
fn param_hit(d: &mut Diff, pc: &ParamChange, text: &str, values: &[&str], key: &str) -> Option<()> {
    let msg = Msg::of(text, &[&[pc.name(), pc.tool.name()], values].concat());
    d.param(pc, msg, pc.at(key))
}

/// [`param_hit`] on the surfaces that run the steps (what the generated tools check), if any.
fn param_exec(d: &mut Diff, pc: &ParamChange, text: &str, values: &[&str], key: &str) -> Option<()> {
    (!pc.tool.exec.is_empty()).then_some(())?;
    param_hit(d, pc, text, values, key)?;
    d.hits.last_mut()?.surfaces = pc.tool.exec.clone();
    Some(())
}

pub fn param_removed(d: &mut Diff, n: &Node) -> Option<()> {
    let pc = param(n).filter(|pc| pc.new.is_none())?;
    let op = pc.old?;
    let (o, t) = (pc.tool.old, pc.tool.new);
    // A parameter's shape: its spec entry without its name, and its description.
    let shape = |p: Param<'_>| {
        let entry = SpecParam {
            name: String::new(),
            ..p.spec.clone()
        };
        (entry, p.doc.description.clone())
    };
    let twin = t.params().find(|np| {
        let new = o.param(&np.name).is_none() && np.doc.renamed_from.is_none();
        new && shape(*np) == shape(op)
    });
    let msg = Msg::of("parameter {} of {} was removed", &[&op.name, &t.name]);
    let msg = or_renamed(msg, twin.map(|np| &np.spec.name), &op.name);
    let at = At::gone(pc.before.clone(), pc.tool.new.path.clone());
    d.param(pc, msg, at)
}

pub fn param_renamed(d: &mut Diff, n: &Node) -> Option<()> {
    let pc = param(n)?;
    let (op, np) = (pc.old?, pc.new?);
    (op.name != np.name).then_some(())?;
    let text = "parameter {} of {} was renamed to {}";
    let msg = Msg::of(text, &[&op.name, pc.tool.name(), &np.name]);
    let at = At::both(pc.before.clone(), format!("{}.renamed_from", pc.after));
    d.param(pc, msg, at)
}

/// A new parameter: required (`param-required-added`) or not (`param-added-optional`).
pub fn param_added(d: &mut Diff, n: &Node, required: bool) -> Option<()> {
    let pc = param(n).filter(|pc| pc.old.is_none())?;
    pc.new.filter(|s| s.required == required)?;
    let kind = if required { "required" } else { "optional" };
    let text = format!("new {kind} parameter {{}} of {{}}");
    let msg = Msg::of(&text, &[pc.name(), pc.tool.name()]);
    d.param(pc, msg, At::added(pc.after.clone()))
}

/// A parameter's type as messages name it (a type's `Debug` is its name).
fn type_text(p: &SpecParam) -> String {
    let name = |ty: SpecType| format!("{ty:?}").to_lowercase();
    match (&p.items, p.ty) {
        (Some(i), SpecType::Array) => format!("array of {}", name(i.ty)),
        _ => name(p.ty),
    }
}

pub fn param_type_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let pc = param(n).filter(|pc| pc.same_type().is_none())?;
    let (a, b) = pc.specs()?;
    let text = "the type of parameter {} of {}: {} → {}";
    // A `path` is a `string` in every schema: only the surfaces that run the steps check it.
    let paths = [a.ty, b.ty]
        .iter()
        .all(|t| matches!(t, SpecType::Path | SpecType::String));
    let (a, b) = (type_text(a), type_text(b));
    match paths {
        true => param_exec(d, pc, text, &[&a, &b], "type"),
        false => param_hit(d, pc, text, &[&a, &b], "type"),
    }
}

/// An enum's values, or the values of an array's enum items, with their key.
fn values(p: &SpecParam) -> Option<(&[String], &'static str)> {
    match (p.ty, &p.items) {
        (SpecType::Enum, _) => p.values.as_deref().map(|v| (v, "values")),
        (SpecType::Array, Some(i)) if i.ty == SpecType::Enum => i.values.as_deref().map(|v| (v, "items.values")),
        _ => None,
    }
}

/// Values one side accepts and the other does not: `removed` (old only) or added (new only).
pub fn enum_values(d: &mut Diff, n: &Node, removed: bool) -> Option<()> {
    let pc = param(n)?;
    let (a, b) = pc.same_type()?;
    let ((va, key), (vb, _)) = (values(a)?, values(b)?);
    let (from, to, what) = if removed {
        (va, vb, "parameter {} of {} no longer accepts ")
    } else {
        (vb, va, "parameter {} of {} now also accepts ")
    };
    let diff: Vec<&str> = from.iter().filter(|v| !to.contains(v)).map(String::as_str).collect();
    (!diff.is_empty()).then_some(())?;
    let msg = Msg::of(what, &[pc.name(), pc.tool.name()]).codes(diff);
    d.param(pc, msg, pc.at(key))
}

/// Bounds that moved, tighter (`bound-tightened`) or looser: a minimum or maximum (of a
/// number, or of a length), and clamping, which the generated tools' interpreter does (only
/// the surfaces that run it).
pub fn bound(d: &mut Diff, n: &Node, tighter: bool) -> Option<()> {
    let pc = param(n)?;
    let (a, b) = pc
        .same_type()
        .filter(|(a, _)| !matches!(a.ty, SpecType::Boolean | SpecType::Enum))?;
    let number = matches!(a.ty, SpecType::Integer | SpecType::Number);
    let length = if number { "" } else { " length" };
    for (key, word, x, y) in [("min", "minimum", &a.min, &b.min), ("max", "maximum", &a.max, &b.max)] {
        let is_tighter = match (x.as_ref().and_then(|x| x.as_f64()), y.as_ref().and_then(|y| y.as_f64())) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            // A larger minimum, or a smaller maximum.
            (Some(p), Some(q)) if p != q => (q > p) == (key == "min"),
            _ => continue,
        };
        if is_tighter == tighter {
            let text = format!("the {word}{length} of parameter {{}} of {{}}: {{}} → {{}}");
            let show = |v: &Option<serde_json::Number>| v.as_ref().map_or("none".to_string(), |n| n.to_string());
            param_hit(d, pc, &text, &[&show(x), &show(y)], key);
        }
    }
    if number && (b.min.is_some() || b.max.is_some()) && a.clamp != b.clamp && a.clamp == tighter {
        let text = match a.clamp {
            true => "parameter {} of {} now refuses out-of-range numbers instead of clamping them",
            false => "parameter {} of {} now clamps out-of-range numbers instead of refusing them",
        };
        // Every surface: the generated tools clamp or refuse, and the MCP definitions carry a
        // bound as `minimum`/`maximum` only when it is not clamped (a client then refuses what
        // is out of range), in the description otherwise.
        param_hit(d, pc, text, &[], "clamp");
    }
    Some(())
}

/// Which of a field's changes one rule reports: where the two sides differ in whether they have
/// it at all, each direction is its own rule (one breaking, one not).
#[derive(Clone, Copy, PartialEq)]
pub enum Delta {
    Added,
    Removed,
    Changed,
}

/// A pattern added, removed or changed, when the type is unchanged.
pub fn pattern(d: &mut Diff, n: &Node, which: Delta) -> Option<()> {
    let pc = param(n)?;
    let (a, b) = pc.same_type()?;
    let (text, values) = match (a.pattern.as_deref(), b.pattern.as_deref(), which) {
        (None, Some(y), Delta::Added) => ("parameter {} of {} must now match {}", vec![y]),
        (Some(x), Some(y), Delta::Changed) if x != y => ("the pattern of parameter {} of {}: {} → {}", vec![x, y]),
        (Some(x), None, Delta::Removed) => ("parameter {} of {} no longer has to match {}", vec![x]),
        _ => return None,
    };
    param_hit(d, pc, text, &values, "pattern")
}

/// A parameter's default, or a `default` rule across parameters added or removed.
pub fn default_changed(d: &mut Diff, n: &Node) -> Option<()> {
    if let Some(pc) = param(n) {
        let (a, b) = pc.same_type().filter(|(a, b)| !same(&a.default, &b.default))?;
        let show = |v: &Option<Box<serde_json::Value>>| v.as_ref().map_or("none".to_string(), |v| v.to_string());
        let text = "the default of parameter {} of {}: {} → {}";
        let (a, b) = (show(&a.default), show(&b.default));
        param_hit(d, pc, text, &[&a, &b], "default");
    }
    cross_rules(d, n, Delta::Changed)
}

/// A yes-or-no field (`key`, read by `get`) of a matched parameter flipped to `now`, reported
/// as `texts`: the one for off, then the one for on.
fn flipped(d: &mut Diff, n: &Node, now: bool, key: &str, get: fn(&SpecParam) -> bool, texts: [&str; 2]) -> Option<()> {
    let pc = param(n)?;
    pc.specs().filter(|(a, b)| get(a) != get(b) && get(b) == now)?;
    param_hit(d, pc, texts[usize::from(now)], &[], key)
}

/// `required` flipped: to required (`param-became-required`) or optional.
pub fn required(d: &mut Diff, n: &Node, now: bool) -> Option<()> {
    let texts = [
        "parameter {} of {} became optional",
        "parameter {} of {} became required",
    ];
    flipped(d, n, now, "required", |p| p.required, texts)
}

/// `nullable` flipped (`null` is part of the parameter's type in every host's schema).
pub fn nullable(d: &mut Diff, n: &Node, now: bool) -> Option<()> {
    let texts = [
        "parameter {} of {} no longer accepts `null`",
        "parameter {} of {} now accepts `null`",
    ];
    flipped(d, n, now, "nullable", |p| p.nullable, texts)
}

/// `equals_context` set or changed (`added`), or removed. What the generated tools check:
/// only tools that run.
pub fn equals_context(d: &mut Diff, n: &Node, added: bool) -> Option<()> {
    let pc = param(n)?;
    let (_, b) = pc.specs().filter(|(a, b)| a.equals_context != b.equals_context)?;
    let (text, values) = match (&b.equals_context, added) {
        (Some(var), true) => (
            "parameter {} of {} must now equal the context value {}",
            vec![var.as_str()],
        ),
        (None, false) => ("parameter {} of {} no longer has to equal a context value", vec![]),
        _ => return None,
    };
    param_exec(d, pc, text, &values, "equals_context")
}

/// How the generated tools read an empty string: only tools that run.
pub fn keep_empty_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let pc = param(n)?;
    let (_, b) = pc.specs().filter(|(a, b)| a.keep_empty != b.keep_empty)?;
    let text = match b.keep_empty {
        true => "parameter {} of {} now keeps an empty string as a value",
        false => "parameter {} of {} now takes an empty string as not given",
    };
    param_exec(d, pc, text, &[], "keep_empty")
}

/// A parameter's description (or its items'), and the tool's, as written.
pub fn description_changed(d: &mut Diff, n: &Node) -> Option<()> {
    if let Some(pc) = param(n) {
        let (a, b) = (pc.old?, pc.new?);
        if a.doc.description != b.doc.description {
            let text = "the description of parameter {} of {} changed";
            param_hit(d, pc, text, &[], "description");
        }
        if a.doc.items_description != b.doc.items_description {
            let text = "the description of the items of parameter {} of {} changed";
            param_hit(d, pc, text, &[], "items.description");
        }
    }
    let p = spec(n).filter(|p| p.old.description != p.new.description)?;
    let msg = Msg::of("the description of {} changed", &[p.name()]);
    d.tool(p, &p.common, msg, "description")
}

// ---------------------------------------------------------------------------------------------
// Steps, route, confirmation, rules, result: what the surfaces that run the steps see.

pub fn step_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let p = runs(n)?;
    let (a, b) = (&p.was, &p.new.spec);
    let (sa, sb) = (&a.steps, &b.steps);
    if let Some(&(i, j)) = p.steps.same_interface.first() {
        let mut msg = runs_instead(p.name(), &sa[i].exec, &sb[j].exec);
        let more = p.steps.same_interface.len() - 1;
        if more > 0 {
            msg = msg.t(format!(" (and {more} more such change(s))"));
        }
        msg = msg.t(": the same command and options, with other values");
        let at = At::both(
            format!("{}.steps[{i}]", p.old.path),
            format!("{}.steps[{j}]", p.new.path),
        );
        d.push(Some(p.name()), &p.exec, msg, at);
    }
    // Numbers by value: a condition's `equals: 5` is `equals: 5.0`.
    let same_steps = same(sa, sb);
    if p.steps.exec_changed() || (same_steps && a.parallel == b.parallel) {
        return None;
    }
    let first = sa
        .iter()
        .zip(sb)
        .position(|(x, y)| !same(x, y))
        .unwrap_or(sa.len().min(sb.len()));
    let expr = |steps: &[SpecStep]| match steps.get(first).map(|s| &s.exec) {
        Some(SpecExec::Compute { expr }) => Some(expr.clone()),
        _ => None,
    };
    let step = format!("step {} of {{}}", first + 1);
    let msg = match (expr(sa), expr(sb)) {
        _ if same_steps && b.parallel => Msg::of("the steps of {} now run concurrently", &[p.name()]),
        _ if same_steps => Msg::of("the steps of {} now run one after another", &[p.name()]),
        (Some(x), Some(y)) if x != y && sa.len() == sb.len() => {
            Msg::of(&format!("{step} computes {{}} instead of {{}}"), &[p.name(), &y, &x])
        }
        _ => Msg::of(
            &format!(
                "{step} changed its condition, title, message, expression or order; the commands it runs are the same"
            ),
            &[p.name()],
        ),
    };
    let key = if same_steps {
        "parallel".to_string()
    } else {
        format!("steps[{first}]")
    };
    d.tool(p, &p.exec, msg, &key)
}

/// "`tool` runs `new` instead of `old`", or, when the two read the same (what changed is not
/// in the command line: `stdin`, `ok_exit`, a store step's `meta`), which of its fields changed.
fn runs_instead(tool: &str, old: &SpecExec, new: &SpecExec) -> Msg {
    let (is, was) = (exec_text(new), exec_text(old));
    match is == was {
        true => Msg::of("{} runs {} with a changed ", &[tool, &is]).codes(fields_changed(old, new)),
        false => Msg::of("{} runs {} instead of {}", &[tool, &is, &was]),
    }
}

/// Steps whose command is gone or new: CLI commands (`cli`), or store and signal steps.
pub fn commands(d: &mut Diff, n: &Node, cli: bool) -> Option<()> {
    let p = runs(n)?;
    let (sa, sb) = (&p.was.steps, &p.new.spec.steps);
    let is = |e: &SpecExec| matches!(e, SpecExec::Cli { .. }) == cli;
    // The steps of `ix` (removed or added) that are of this kind, and their commands.
    let of = |ix: &[usize], st: &[SpecStep]| ix.iter().copied().filter(|&i| is(&st[i].exec)).collect::<Vec<_>>();
    let (ri, ai) = (of(&p.steps.removed, sa), of(&p.steps.added, sb));
    let r: Vec<String> = ri.iter().map(|&i| exec_text(&sa[i].exec)).collect();
    let a: Vec<String> = ai.iter().map(|&j| exec_text(&sb[j].exec)).collect();
    let msg = match (&r[..], &a[..]) {
        ([], []) => return None,
        ([_], [_]) => runs_instead(p.name(), &sa[ri[0]].exec, &sb[ai[0]].exec),
        ([], _) => Msg::of("{} now also runs ", &[p.name()]).codes(&a),
        (_, []) => Msg::of("{} no longer runs ", &[p.name()]).codes(&r),
        _ => Msg::of("{} no longer runs ", &[p.name()])
            .codes(&r)
            .t("; now runs ")
            .codes(&a),
    };
    let steps = |tp: &str, ix: &[usize]| ix.first().map_or(format!("{tp}.steps"), |i| format!("{tp}.steps[{i}]"));
    let at = At::both(steps(&p.old.path, &ri), steps(&p.new.path, &ai));
    d.push(Some(p.name()), &p.exec, msg, at);
    Some(())
}

/// `GET /path` (a method's `Debug` is its name).
fn route(r: &SpecRuntime) -> String {
    format!("{:?} {}", r.method, r.path)
}

/// A new method or path is a different endpoint.
pub fn runtime_route_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let p = runs(n)?;
    let (x, y) = (p.was.runtime.as_ref()?, p.new.spec.runtime.as_ref()?);
    (x.method != y.method || x.path != y.path).then_some(())?;
    let msg = Msg::of("the runtime route of {}: {} → {}", &[p.name(), &route(x), &route(y)]);
    d.tool(p, &p.exec, msg, "runtime")
}

/// A route added or removed, or the same endpoint with another body, timeout or output.
pub fn route_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let p = runs(n)?;
    let msg = match (&p.was.runtime, &p.new.spec.runtime) {
        (Some(x), Some(y)) if x.method == y.method && x.path == y.path && x != y => {
            // The method and path are the same: what differs is among the others, named as the
            // catalog names them (the spec's `json`, and the `markdown_field` it then leaves out,
            // are the route's `output`).
            let named = |k: String| match k.as_str() {
                "json" | "markdown_field" => "output".into(),
                _ => k,
            };
            let keys: IndexSet<String> = fields_changed(x, y).into_iter().map(named).collect();
            Msg::of("the runtime route {} of {} changed its ", &[&route(y), p.name()]).codes(keys)
        }
        (None, Some(y)) => Msg::of(
            "{} now tries the runtime route {} before its steps",
            &[p.name(), &route(y)],
        ),
        (Some(x), None) => Msg::of("{} no longer tries the runtime route {}", &[p.name(), &route(x)]),
        _ => return None,
    };
    d.tool(p, &p.exec, msg, "runtime")
}

/// A tool's confirmation on both sides, when it changed by itself: it follows `destructive` by
/// default, and a confirmation that only came with `destructive: true` or went with
/// `destructive: false` is the hint rules' finding (one that came as the tool stopped being
/// destructive is its own).
type Confirms<'n> = (&'n Pair<'n>, Option<&'n SpecConfirm>, Option<&'n SpecConfirm>);

fn confirm<'n>(n: &'n Node) -> Option<Confirms<'n>> {
    let p = runs(n)?;
    let (a, b) = (p.was.confirm.as_ref(), p.new.spec.confirm.as_ref());
    let followed =
        p.old.destructive != p.new.destructive && p.old.destructive == a.is_some() && p.new.destructive == b.is_some();
    let same = a == b || followed;
    (!same).then_some((p, a, b))
}

pub fn confirm_added(d: &mut Diff, n: &Node) -> Option<()> {
    let (p, a, b) = confirm(n)?;
    (a.is_none() && b.is_some()).then_some(())?;
    let msg = Msg::of("{} now asks for confirmation before it runs", &[p.name()]);
    d.tool(p, &p.exec, msg, "confirm")
}

pub fn confirm_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let (p, a, b) = confirm(n)?;
    a?;
    let msg = match b {
        None => Msg::of("{} no longer asks for confirmation", &[p.name()]),
        Some(_) => Msg::of("what {} asks confirmation for changed", &[p.name()]),
    };
    d.tool(p, &p.exec, msg, "confirm")
}

/// Rules across parameters added, then removed: those other than `default` added
/// (`rule-added`) or removed (`rule-removed`), or the `default` rules either way (a change of
/// defaults, `default-changed`).
pub fn cross_rules(d: &mut Diff, n: &Node, which: Delta) -> Option<()> {
    let p = runs(n)?;
    let (ra, rb) = (&p.was.rules, &p.new.spec.rules);
    for (added, from, other) in [(true, rb, ra), (false, ra, rb)] {
        for (i, r) in from
            .iter()
            .enumerate()
            .filter(|(_, r)| !other.iter().any(|o| same_json(&accepts(o), &accepts(r))))
        {
            let kind = match r {
                SpecRule::Default { .. } => "default",
                SpecRule::Require { .. } => "require",
                SpecRule::Forbid { .. } => "forbid",
                SpecRule::Compare { .. } => "compare",
            };
            let change = match (kind, added) {
                ("default", _) => Delta::Changed,
                (_, true) => Delta::Added,
                (_, false) => Delta::Removed,
            };
            if change != which {
                continue;
            }
            let (msg, at) = match added {
                true => (
                    Msg::of("{} has a new {} rule", &[p.name(), kind]),
                    At::added(format!("{}.rules[{i}]", p.new.path)),
                ),
                false => (
                    Msg::of("a {} rule of {} was removed", &[kind, p.name()]),
                    At::gone(format!("{}.rules[{i}]", p.old.path), p.new.path.clone()),
                ),
            };
            d.push(Some(p.name()), &p.exec, msg, at);
        }
    }
    Some(())
}

/// What a rule accepts, without its message (what a refused call reads) and with its parameters
/// in one order: `forbid: [a, b]` is `forbid: [b, a]`.
fn accepts(r: &SpecRule) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap_or_default();
    if let Some(rule) = v.as_object_mut() {
        rule.remove("message");
        if let Some(serde_json::Value::Array(params)) = rule.get_mut("params") {
            params.sort_by_key(|p| p.to_string());
        }
    }
    v
}

/// What shapes the result: the spec's heading, fallback, recovery, output blocks, redaction and
/// answer (surfaces that run the steps), and the output schema (the MCP definition).
pub fn output_changed(d: &mut Diff, n: &Node) -> Option<()> {
    let p = spec(n)?;
    const RESULT: [&str; 7] = [
        "version", "heading", "fallback", "recovery", "output", "redact", "answer",
    ];
    // Those of the spec's fields that changed, by their serialized names, in the order the
    // messages have always used: first those the old side has, then those only the new has.
    let changed = fields_changed(&p.was, &p.new.spec).into_iter();
    let keys: Vec<String> = changed.filter(|k| RESULT.contains(&k.as_str())).collect();
    if !keys.is_empty() && !p.exec.is_empty() {
        let key = keys.iter().find(|k| *k == "heading").unwrap_or(&keys[0]);
        let msg = Msg::of("the result of {} changed its ", &[p.name()]).codes(&keys);
        d.tool(p, &p.exec, msg, key);
    }
    // By value, as defaults are: `minimum: 0` is `minimum: 0.0`.
    if !same(&p.old.output_schema, &p.new.output_schema) && !p.shown.is_empty() {
        let msg = Msg::of("the output schema of {} changed", &[p.name()]);
        d.tool(p, &p.shown, msg, "output_schema");
    }
    Some(())
}

pub fn title_changed(d: &mut Diff, n: &Node) -> Option<()> {
    if let Some(pc) = param(n) {
        let (a, b) = (pc.old?, pc.new?);
        if a.doc.title != b.doc.title {
            param_hit(d, pc, "the title of parameter {} of {} changed", &[], "title");
        }
    }
    let p = spec(n).filter(|p| p.old.title != p.new.title && !p.shown.is_empty())?;
    let msg = Msg::of("the title of {} changed", &[p.name()]);
    d.tool(p, &p.shown, msg, "title")
}
