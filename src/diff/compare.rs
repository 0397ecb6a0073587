//! The walk of a comparison. Tools and parameters are matched (by name, or by `renamed_from`),
//! then a visitor (every rule's detector, see `rules.rs` and `detect.rs`) sees each place in
//! turn: the catalog, each tool removed, kept or added, each parameter of a kept tool, the kept
//! tool's execution spec and definition, and each older toolset. Findings come out in that order
//! (then by class), and among the rules at one place in the order of the rule table. Nothing
//! here names a rule: the visitor gives each [`Hit`] its rule.
//!
//! Everything compared is typed: the model's `ToolModel`s, their `ExecSpec`s and `SpecParam`s,
//! the hosts' surfaces, and the catalog as written where only it holds a fact.

use super::side::Side;
use super::{Loc, Msg, Surface};
use crate::hosts::SurfaceKind;
use crate::model::{ExecSpec, Param, SpecArg, SpecExec, SpecParam, SpecStep, ToolModel};
use crate::template::{Part, Template};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

/// A place the comparison visits; every detector sees each one and acts on those it knows.
pub enum Node<'a> {
    /// The catalog as a whole (surfaces, server), once before the tools.
    Catalog,
    /// A tool only the older catalog has.
    Removed(&'a ToolModel),
    /// A tool on both sides (perhaps renamed), before its parameters.
    Tool(&'a Pair<'a>),
    /// A parameter of a kept tool that a surface still has: matched, added or removed.
    Param(&'a ParamChange<'a>),
    /// A kept tool that a surface still has, after its parameters: its steps, route, rules,
    /// confirmation, result, title and description.
    Spec(&'a Pair<'a>),
    /// A tool only the current catalog has.
    Added(&'a ToolModel),
    /// A toolset of the older catalog, once the tools are done.
    Toolset(&'a str),
}

/// A tool on both sides.
pub struct Pair<'a> {
    pub old: &'a ToolModel,
    pub new: &'a ToolModel,
    /// Surfaces (on both sides) that no longer get the tool, that newly get it, that get it on both.
    pub lost: Vec<Surface>,
    pub gained: Vec<Surface>,
    pub common: Vec<Surface>,
    /// The common surfaces that run the steps, and those that only show the definition.
    pub exec: Vec<Surface>,
    pub shown: Vec<Surface>,
    pub steps: StepDiff,
    /// The old spec in the new parameter names ([`in_new_terms`]): what the detectors of steps,
    /// routes, rules, confirmation and result compare with the new spec.
    pub was: Cow<'a, ExecSpec>,
}

impl Pair<'_> {
    pub fn name(&self) -> &str {
        &self.new.name
    }
}

/// A parameter of a kept tool: both `old` and `new` when matched.
pub struct ParamChange<'a> {
    pub tool: &'a Pair<'a>,
    pub old: Option<Param<'a>>,
    pub new: Option<Param<'a>>,
    /// Its catalog path on each side.
    pub before: String,
    pub after: String,
}

impl<'a> ParamChange<'a> {
    /// The matched parameter's spec entries, old and new.
    pub fn specs(&self) -> Option<(&'a SpecParam, &'a SpecParam)> {
        Some((self.old?.spec, self.new?.spec))
    }

    /// The matched parameter's spec entries, when its type (and its items' type) is unchanged.
    pub fn same_type(&self) -> Option<(&'a SpecParam, &'a SpecParam)> {
        self.specs()
            .filter(|(a, b)| a.ty == b.ty && a.items.as_ref().map(|i| i.ty) == b.items.as_ref().map(|i| i.ty))
    }

    /// Its name: the new one when it was renamed.
    pub fn name(&self) -> &'a str {
        self.new.or(self.old).map_or("", |p| &p.spec.name)
    }

    /// `key` of the parameter on both sides.
    pub fn at(&self, key: &str) -> At {
        At::both(format!("{}.{key}", self.before), format!("{}.{key}", self.after))
    }
}

/// One place on both sides: catalog paths, and where to annotate when the new side has none.
pub struct At {
    pub before: Option<String>,
    pub after: Option<String>,
    pub anchor: String,
}

impl At {
    pub fn both(before: String, after: String) -> At {
        At {
            before: Some(before),
            ..At::added(after)
        }
    }

    /// Something only the older catalog has, annotated at `anchor` in the current one.
    pub fn gone(before: String, anchor: String) -> At {
        At {
            before: Some(before),
            after: None,
            anchor,
        }
    }

    /// Something only the current catalog has.
    pub fn added(after: String) -> At {
        At {
            before: None,
            anchor: after.clone(),
            after: Some(after),
        }
    }
}

/// One thing a detector found; its rule names it a finding (and a finding serializes it).
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The tool, by its new name (its old one when it was removed).
    pub tool: Option<String>,
    /// The old name of a renamed tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_name: Option<String>,
    pub param: Option<String>,
    /// The host surfaces whose callers see the change.
    pub surfaces: Vec<Surface>,
    #[serde(rename = "message")]
    pub msg: Msg,
    /// Where the changed thing is in the older catalog (none when it was added).
    pub before: Option<Loc>,
    /// Where it is in the current catalog (none when it was removed).
    pub after: Option<Loc>,
    /// The tool definition's change of context cost in estimated tokens, on every hit of a kept
    /// tool (only the cosmetic findings report it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<i64>,
    /// Where to annotate in the current catalog: `after`, or the nearest place that still exists.
    #[serde(skip)]
    pub anchor: Loc,
}

/// Called at each place of the walk.
pub type Visit<'v, 'a> = &'v mut dyn FnMut(&mut Diff<'a>, &Node);

/// The comparison in progress: both sides, and what the detectors found.
pub struct Diff<'a> {
    pub old: &'a Side,
    pub new: &'a Side,
    pub hits: Vec<Hit>,
    /// The new tools no old tool matched.
    pub added: Vec<&'a ToolModel>,
}

impl<'a> Diff<'a> {
    /// Walks both sides, calling `visit` at every place.
    pub fn run(old: &'a Side, new: &'a Side, visit: Visit<'_, 'a>) -> Diff<'a> {
        let mut d = Diff {
            old,
            new,
            hits: Vec::new(),
            added: Vec::new(),
        };
        visit(&mut d, &Node::Catalog);
        let pairs = d.match_tools();
        let (matched_old, matched_new): (BTreeSet<&str>, BTreeSet<&str>) =
            pairs.iter().map(|(o, n)| (o.name.as_str(), n.name.as_str())).unzip();
        let unmatched = |s: &'a Side, m: &BTreeSet<&str>| -> Vec<&'a ToolModel> {
            s.model.tools.iter().filter(|t| !m.contains(t.name.as_str())).collect()
        };
        d.added = unmatched(new, &matched_new);
        for t in unmatched(old, &matched_old) {
            visit(&mut d, &Node::Removed(t));
        }
        for (o, n) in pairs {
            d.pair(o, n, visit);
        }
        for t in d.added.clone() {
            visit(&mut d, &Node::Added(t));
        }
        for name in old.model.toolsets.keys() {
            visit(&mut d, &Node::Toolset(name));
        }
        d
    }

    /// Records what a detector found.
    pub fn push(&mut self, tool: Option<&str>, surfaces: &[Surface], msg: Msg, at: At) -> &mut Hit {
        self.hits.push(Hit {
            tool: tool.map(str::to_string),
            previous_name: None,
            param: None,
            surfaces: surfaces.to_vec(),
            msg,
            before: at.before.map(|p| self.old.loc(&p)),
            after: at.after.as_deref().map(|p| self.new.loc(p)),
            anchor: self.new.loc(&at.anchor),
            tokens: None,
        });
        self.hits.last_mut().expect("just pushed")
    }

    /// Records something about kept tool `p`, at `key` of it on both sides.
    pub fn tool(&mut self, p: &Pair, surfaces: &[Surface], msg: Msg, key: &str) -> Option<()> {
        let at = At::both(format!("{}.{key}", p.old.path), format!("{}.{key}", p.new.path));
        self.push(Some(p.name()), surfaces, msg, at);
        Some(())
    }

    /// Records something about parameter `pc` of a kept tool, on the surfaces that have the tool.
    pub fn param(&mut self, pc: &ParamChange, msg: Msg, at: At) -> Option<()> {
        self.push(Some(pc.tool.name()), &pc.tool.common, msg, at).param = Some(pc.name().to_string());
        Some(())
    }

    /// Old tool → new tool of every tool on both sides: by name, or by `renamed_from`.
    fn match_tools(&self) -> Vec<(&'a ToolModel, &'a ToolModel)> {
        let (old, new) = (self.old, self.new);
        let mut pairs: Vec<(&ToolModel, &ToolModel)> = Vec::new();
        for n in &new.model.tools {
            // By name, else by `renamed_from` (`validate` refuses one naming a tool still in the
            // catalog): one naming a tool the old catalog does not have is an older rename that
            // was already released, it matches nothing and the tool is new.
            let o = n.renamed_from.as_ref().and_then(|f| old.model.tool(f));
            let renamed = || o.filter(|o| !pairs.iter().any(|(p, _)| p.name == o.name));
            if let Some(o) = old.model.tool(&n.name).or_else(renamed) {
                pairs.push((o, n));
            }
        }
        pairs
    }

    fn pair(&mut self, o: &'a ToolModel, n: &'a ToolModel, visit: Visit<'_, 'a>) {
        let (old, new) = (self.old, self.new);
        let (on_old, on_new) = (old.on(&o.name), new.on(&n.name));
        let lost = on_old.difference(&on_new).filter(|s| new.surfaces.contains_key(s));
        let gained = on_new.difference(&on_old).filter(|s| old.surfaces.contains_key(s));
        let common: Vec<Surface> = on_old.intersection(&on_new).copied().collect();
        let was = in_new_terms(o, n);
        let pair = Pair {
            old: o,
            new: n,
            lost: lost.copied().collect(),
            gained: gained.copied().collect(),
            exec: common.iter().copied().filter(|s| s.kind == SurfaceKind::Runs).collect(),
            shown: common.iter().copied().filter(|s| s.kind != SurfaceKind::Runs).collect(),
            common,
            steps: StepDiff::new(&was.steps, &n.spec.steps),
            was,
        };
        let from = self.hits.len();
        visit(self, &Node::Tool(&pair));
        if pair.common.is_empty() {
            // No surface had the tool and still has it: nobody calls both versions.
            return;
        }
        for p in self.params(&pair) {
            visit(self, &Node::Param(&p));
        }
        visit(self, &Node::Spec(&pair));
        let cost = |t| crate::report::tokens(crate::report::definition_chars(t)) as i64;
        let delta = cost(n) - cost(o);
        for h in &mut self.hits[from..] {
            h.tokens = Some(delta);
        }
    }

    /// The parameters of a kept tool: each new one (matched by name or `renamed_from`, or
    /// added), then each old one no new one matched (removed).
    fn params<'p>(&mut self, pair: &'p Pair<'a>) -> Vec<ParamChange<'p>> {
        let (o, n) = (pair.old, pair.new);
        let by_old: HashMap<&str, Param<'a>> = o.params().map(|p| (p.spec.name.as_str(), p)).collect();
        let mut matched_old = BTreeSet::new();
        let mut out = Vec::new();
        for np in n.params() {
            // A `renamed_from` naming a parameter the tool still has is refused by lowering.
            let by_rename = || by_old.get(np.doc.renamed_from.as_ref()?.as_str());
            let found = by_old.get(np.name.as_str()).or_else(by_rename).copied();
            let op = found.filter(|op| matched_old.insert(op.spec.name.as_str()));
            out.push(ParamChange {
                tool: pair,
                old: op,
                new: Some(np),
                before: op.map_or_else(String::new, |op| op.path()),
                after: np.path(),
            });
        }
        for op in o.params().filter(|p| !matched_old.contains(p.name.as_str())) {
            out.push(ParamChange {
                tool: pair,
                old: Some(op),
                new: None,
                before: op.path(),
                after: String::new(),
            });
        }
        out
    }
}

/// `o`'s spec written as `n`'s writes what did not change, for the detectors of steps, routes,
/// rules, confirmation and result to compare with `n`'s:
/// - Each parameter `n` renamed (`renamed_from`) has its new name in its entry and in every
///   placeholder, condition, rule and `for_each`: a rename is its own breaking `param-renamed`
///   and by itself changes nothing else, in a compute expression too.
/// - A compute step's expression is `n`'s text when the two are one program (`limit*2` and
///   `limit * 2`, or a block scalar's trailing line break).
/// - A tool `n` renamed has its new name where the spec names it: at the start of its heading
///   (the default one is `name: {param}`) and confirmation subject, and as its permission. The
///   rename is its own breaking `tool-renamed`, and was also reported as a changed result.
fn in_new_terms<'s>(o: &'s ToolModel, n: &ToolModel) -> Cow<'s, ExecSpec> {
    let names: HashMap<&str, &str> = n
        .params()
        .filter_map(|np| Some((np.doc.renamed_from.as_deref()?, np.spec.name.as_str())))
        .filter(|&(from, to)| o.param(from).is_some() && o.param(to).is_none())
        .collect();
    let mut was = match names.is_empty() {
        true => Cow::Borrowed(&o.spec),
        false => Cow::Owned(renamed(&o.spec, &names)),
    };
    for i in 0..was.steps.len() {
        let (SpecExec::Compute { expr: a }, Some(id)) = (&was.steps[i].exec, &was.steps[i].id) else {
            continue;
        };
        let twin = n.spec.steps.iter().find(|s| s.id.as_ref() == Some(id));
        let Some(SpecExec::Compute { expr: b }) = twin.map(|s| &s.exec) else {
            continue;
        };
        if a == b {
            continue;
        }
        // Read with the renamed parameters' new names, as the rest of the spec is.
        let renamed = ixgen_runtime::expr::with_variables_renamed(a, &names);
        let a = renamed.as_ref().unwrap_or(a);
        if a == b || ixgen_runtime::expr::same_program(a, b) {
            was.to_mut().steps[i].exec = SpecExec::Compute { expr: b.clone() };
        }
    }
    if o.name != n.name {
        let named = |t: &Template| {
            let mut t = t.clone();
            if let Some(Part::Text(text)) = t.0.first_mut()
                && let Some(rest) = text.strip_prefix(o.name.as_str())
            {
                *text = format!("{}{rest}", n.name);
            }
            t
        };
        let heading = named(&was.heading);
        if heading == n.spec.heading {
            was.to_mut().heading = heading;
        }
        if let (Some(a), Some(b)) = (&was.confirm, &n.spec.confirm) {
            let mut c = a.clone();
            if c.permission == o.name {
                c.permission.clone_from(&n.name);
            }
            // A subject of its own may start with the old name and be kept (`wipe {scope}`).
            if c.subject != b.subject {
                c.subject = named(&c.subject);
            }
            if c == *b {
                was.to_mut().confirm = Some(c);
            }
        }
    }
    was
}

/// `spec` with the parameters of `names` renamed.
fn renamed(spec: &ExecSpec, names: &HashMap<&str, &str>) -> ExecSpec {
    let mut spec = spec.clone();
    for p in &mut spec.params {
        if let Some(to) = names.get(p.name.as_str()) {
            p.name = to.to_string();
        }
    }
    let Ok(Value::Object(mut fields)) = serde_json::to_value(&spec) else {
        return spec;
    };
    for (key, v) in fields
        .iter_mut()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "params"))
    {
        rename(key, v, names);
    }
    serde_json::from_value(Value::Object(fields)).unwrap_or(spec)
}

/// Writes the renamed parameters of `names` by their new names in `v`, the value of `key` in a
/// serialized spec. Literal values (a `lit`, what a condition compares with, a default) are
/// left alone.
fn rename(key: &str, v: &mut Value, names: &HashMap<&str, &str>) {
    let to = |s: &str| names.get(s).map(|t| t.to_string());
    match (key, v) {
        ("lit" | "equals" | "in" | "contains" | "default", _) => {}
        // A variable or `for_each` is a parameter, or a path that starts at one (`p.field`).
        ("var" | "for_each", Value::String(s)) => {
            let (head, rest) = s.split_once('.').map_or((s.as_str(), None), |(h, r)| (h, Some(r)));
            if let Some(t) = to(head) {
                *s = rest.map_or_else(|| t.clone(), |r| format!("{t}.{r}"));
            }
        }
        ("param" | "left" | "right", Value::String(s)) => *s = to(s).unwrap_or(std::mem::take(s)),
        // A rule's parameters, each a `param`.
        ("params", Value::Array(a)) => a.iter_mut().for_each(|x| rename("param", x, names)),
        // A default rule's values, by the parameter each sets.
        ("values", Value::Object(m)) => {
            *m = std::mem::take(m)
                .into_iter()
                .map(|(k, mut x)| {
                    rename("", &mut x, names);
                    (to(&k).unwrap_or(k), x)
                })
                .collect();
        }
        (_, Value::Array(a)) => a.iter_mut().for_each(|x| rename("", x, names)),
        (_, Value::Object(m)) => m.iter_mut().for_each(|(k, x)| rename(k, x, names)),
        _ => {}
    }
}

/// How the steps of a kept tool changed, by what they run: each step's `exec` is what it runs,
/// anything else (condition, title) how it is used.
pub struct StepDiff {
    /// (old, new) step of each CLI command that differs only in values (what fills a
    /// placeholder, an option's value, stdin): a CLI that accepted one accepts the other.
    pub same_interface: Vec<(usize, usize)>,
    /// Old steps whose command no new step runs, and new steps no old one ran. Compute steps
    /// are left out: they run no program and touch no store (a changed expression is a
    /// `step-changed`).
    pub removed: Vec<usize>,
    pub added: Vec<usize>,
}

impl StepDiff {
    fn new(sa: &[SpecStep], sb: &[SpecStep]) -> StepDiff {
        let mut left: Vec<Option<&SpecExec>> = sb.iter().map(|s| Some(&s.exec)).collect();
        let mut removed = Vec::new();
        for (i, s) in sa.iter().enumerate() {
            match left.iter_mut().find(|x| x.is_some_and(|x| *x == s.exec)) {
                Some(slot) => *slot = None,
                None => removed.push(i),
            }
        }
        let mut added: Vec<usize> = left.iter().enumerate().filter_map(|(i, x)| x.map(|_| i)).collect();
        let mut same_interface = Vec::new();
        removed.retain(|&i| {
            let sig = cli_signature(&sa[i].exec);
            let Some(pos) = added
                .iter()
                .position(|&j| sig.is_some() && cli_signature(&sb[j].exec) == sig)
            else {
                return true;
            };
            same_interface.push((i, added.remove(pos)));
            false
        });
        let compute = |s: &SpecStep| matches!(s.exec, SpecExec::Compute { .. });
        removed.retain(|&i| !compute(&sa[i]));
        added.retain(|&j| !compute(&sb[j]));
        StepDiff {
            same_interface,
            removed,
            added,
        }
    }

    /// Whether a step now runs another command or touches the store differently.
    pub fn exec_changed(&self) -> bool {
        !(self.same_interface.is_empty() && self.removed.is_empty() && self.added.is_empty())
    }
}

/// A word of a CLI command's interface.
#[derive(PartialEq)]
enum Word<'s> {
    Text(String),
    /// An argument of a shape this version does not name: compared whole, so a change stays
    /// breaking.
    Whole(&'s SpecArg),
}

/// The interface of a CLI step: its program and its words (subcommands, option and flag
/// names), with every value (placeholders, an option's argument, spread and JSON elements)
/// replaced by a marker. Two commands with the same signature are accepted by the same CLI.
/// `None` for other steps, whose whole `exec` is their interface.
fn cli_signature(e: &SpecExec) -> Option<(Option<&str>, Vec<Word<'_>>)> {
    let SpecExec::Cli { program, argv, .. } = e else {
        return None;
    };
    let mut words = Vec::new();
    // A literal right after an option is that option's value (`--format json`).
    let mut after_option = false;
    for a in argv {
        // The text of a literal word (a template without placeholders is one too).
        let literal = match a {
            SpecArg::Lit(s) => Some(s.clone()),
            SpecArg::Tpl(t) if t.0.iter().all(|p| matches!(p, Part::Text(_))) => Some(template_text(t)),
            _ => None,
        };
        let option = literal.as_ref().is_some_and(|text| text.starts_with('-'));
        let word = match (a, literal) {
            (_, Some(text)) if option || !after_option => Word::Text(text),
            // `--symbol={symbol}`: the option's name is a word, its value a value.
            (SpecArg::Tpl(t), None) if !after_option && let Some(name) = option_name(t) => {
                Word::Text(format!("{name}=<value>"))
            }
            (SpecArg::Lit(_) | SpecArg::Tpl(_) | SpecArg::Spread { .. } | SpecArg::Json { .. }, _) => {
                Word::Text("<value>".into())
            }
            // The words `--kind {kind}` are: the option and its value.
            (SpecArg::Opt { opt, .. }, _) => {
                words.push(Word::Text(opt.clone()));
                Word::Text("<value>".into())
            }
            (SpecArg::Flag { flag, .. }, _) => Word::Text(flag.clone()),
            (SpecArg::File { .. }, _) => Word::Whole(a),
        };
        after_option = option;
        words.push(word);
    }
    Some((program.as_deref(), words))
}

/// The option a template starts with when it is `--name=` and a value (`--symbol={symbol}`).
fn option_name(t: &Template) -> Option<&str> {
    let Some(Part::Text(head)) = t.0.first() else {
        return None;
    };
    let (name, _) = head.split_once('=')?;
    name.starts_with('-').then_some(name)
}

/// A template as the catalog writes it: variables as `{name}` or `{name|fmt}`, literal braces
/// doubled, so that two templates that differ never read the same (`{{x}}` is not `{x}`).
pub fn template_text(t: &Template) -> String {
    t.0.iter()
        .map(|p| match p {
            Part::Text(s) => literal_text(s),
            Part::Var(n) => format!("{{{n}}}"),
            Part::Fmt(n, f) => format!("{{{n}|{}}}", f.name()),
        })
        .collect()
}

/// Literal text as a template writes it: its braces doubled.
fn literal_text(s: &str) -> String {
    s.replace('{', "{{").replace('}', "}}")
}

/// A step's command for messages: `ix locate {symbol} [--kind {kind}]`, or its kind and topic.
/// Only for display: what has no short form is shown as its spec JSON.
pub fn exec_text(e: &SpecExec) -> String {
    match e {
        SpecExec::Cli { program, argv, .. } => {
            let mut words = vec![program.as_deref().unwrap_or("?").to_string()];
            for a in argv {
                words.push(match a {
                    SpecArg::Lit(s) => literal_text(s),
                    SpecArg::Tpl(t) => template_text(t),
                    SpecArg::Opt { opt, value } => format!("[{opt} {}]", template_text(value)),
                    SpecArg::Flag { flag, if_param } => format!("[{flag} if {{{if_param}}}]"),
                    SpecArg::Spread { spread } => format!("{{{spread}…}}"),
                    SpecArg::Json { .. } | SpecArg::File { .. } => json(a),
                });
            }
            words.join(" ")
        }
        SpecExec::StoreAppend { topic, .. } => format!("store_append {}", template_text(topic)),
        SpecExec::StoreFold { topic, .. } => format!("store_fold {}", template_text(topic)),
        SpecExec::StoreUpdate { topic, .. } => format!("store_update {}", template_text(topic)),
        SpecExec::Compute { .. } | SpecExec::Signal { .. } => json(e),
    }
}

/// The fields two values differ in, by their serialized names (a step's `kind` among them):
/// what a message names when what it shows of both sides reads the same (a step that runs the
/// same command line with another `stdin`).
pub fn fields_changed(a: &impl Serialize, b: &impl Serialize) -> Vec<String> {
    let (Ok(serde_json::Value::Object(x)), Ok(serde_json::Value::Object(y))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return Vec::new();
    };
    let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
    keys.filter(|k| x.get(*k) != y.get(*k)).cloned().collect()
}

/// A spec value as compact JSON, for messages.
fn json(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Whether two JSON values are the same value: numbers compare by value (`10` and `10.0` are
/// the same number to JSON Schema, zod and the runtimes), everything else as `==` does.
pub fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        // The reader refuses integers past 2^53, so every catalog number is exact as an f64.
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// [`same_json`] of two serializable values (a rule, a default).
pub fn same<T: Serialize>(a: &T, b: &T) -> bool {
    match (serde_json::to_value(a), serde_json::to_value(b)) {
        (Ok(a), Ok(b)) => same_json(&a, &b),
        _ => false,
    }
}
