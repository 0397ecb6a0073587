//! `ixgen diff`: what changed for the people and agents who call the tools, between the catalog
//! and an older one (a file, or the same catalog at a git ref).
//!
//! A read-only report stage beside `report`: both catalogs go through the ordinary load and
//! `model::lower`, [`side`] indexes each, [`compare`] walks both and has every [`Rule`]'s
//! detector ([`detect`]) classify what changed per host surface, [`semver`] turns the findings into the version bump they need, and [`render`]
//! prints them. Nothing here writes a file; [`source`] is the only part that reads one or runs
//! git.

mod compare;
mod detect;
mod render;
mod rules;
pub mod semver;
mod side;
mod source;

pub use render::Format;
pub use rules::{Class, Rule};

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::hosts;
use crate::model::{self, BreakingLint, Model};
use compare::Diff;
use semver::{Change, Level, Version};
use serde::Serialize;
use side::Side;
use std::path::Path;

/// A host surface: one way a tool reaches a model. The hosts define them
/// (`crate::hosts::Surface`); a comparison only orders, names and groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Surface {
    /// Its host's position in the registry, then its own among the host's surfaces: reports
    /// list surfaces in the registry's order.
    order: (usize, usize),
    /// The surface's key, as `ixgen list` shows it.
    pub key: &'static str,
    /// How people call the surface.
    pub label: &'static str,
    /// Where the surface's context cost is paid ("Claude Code session").
    pub session: &'static str,
    /// Whether the surface runs the tool's steps and route itself (the generated interpreter),
    /// only shows the definition, or launches the MCP server (which runs its own code, and
    /// whose command line reaches the host).
    kind: hosts::SurfaceKind,
}

/// Surfaces as people call them, comma-separated.
fn labels(surfaces: &[Surface]) -> String {
    surfaces.iter().map(|s| s.label).collect::<Vec<_>>().join(", ")
}

impl Serialize for Surface {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key)
    }
}

/// A position in a catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loc {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The file is a path from the command line: shown with its unprintable characters
        // escaped, so that it can neither forge a line nor reorder one.
        let file = crate::escape::terminal(&self.file);
        write!(f, "{file}:{}:{}", self.line, self.column)
    }
}

/// A message whose catalog values are kept apart from its words, so each output format can
/// quote them its own way (see `crate::escape`).
#[derive(Debug, Clone, Default)]
pub struct Msg(Vec<Seg>);

#[derive(Debug, Clone)]
enum Seg {
    /// ixgen's own words.
    Text(String),
    /// A value from a catalog (a name, an enum value, a pattern).
    Code(String),
}

impl Msg {
    /// Adds words.
    pub fn t(mut self, s: impl Into<String>) -> Msg {
        self.0.push(Seg::Text(s.into()));
        self
    }

    /// Adds a catalog value.
    pub fn c(mut self, s: impl Into<String>) -> Msg {
        self.0.push(Seg::Code(s.into()));
        self
    }

    /// Adds values, comma-separated.
    pub fn codes<S: Into<String>>(self, values: impl IntoIterator<Item = S>) -> Msg {
        let values = values.into_iter().enumerate();
        values.fold(self, |m, (i, v)| if i > 0 { m.t(", ") } else { m }.c(v))
    }

    /// `text` with each `{}` filled with the next catalog value: `Msg::of("tool {} was removed", &[name])`.
    pub fn of(text: &str, values: &[&str]) -> Msg {
        let mut words = text.split("{}");
        let first = Msg::default().t(words.next().unwrap_or_default());
        words.enumerate().fold(first, |m, (i, w)| m.c(values[i]).t(w))
    }

    /// Renders with `code` quoting each value.
    pub fn render(&self, code: impl Fn(&str) -> String) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Seg::Text(t) => t.clone(),
                Seg::Code(c) => code(c),
            })
            .collect()
    }

    /// The message with values in backticks, for JSON (serde_json escapes it).
    pub fn plain(&self) -> String {
        self.render(|c| format!("`{c}`"))
    }
}

impl Serialize for Msg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.plain())
    }
}

/// One classified change.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: Rule,
    pub class: Class,
    #[serde(flatten)]
    pub hit: compare::Hit,
    /// Switched off by the catalog's `lint.breaking`.
    pub ignored: bool,
}

impl Finding {
    fn of(rule: Rule, mut hit: compare::Hit, lint: &BreakingLint) -> Finding {
        let class = rule.class();
        // The definition's change of context cost is what a cosmetic change costs.
        hit.tokens = hit.tokens.filter(|_| class == Class::Cosmetic);
        let by_class = lint.ignore.iter().any(|i| i == rule.id() || i == class.id());
        let named = |t: &String| Some(t) == hit.tool.as_ref() || Some(t) == hit.previous_name.as_ref();
        let only = lint.ignore_only.get(rule.id());
        let by_tool = only.is_some_and(|tools| tools.iter().any(named));
        Finding {
            rule,
            class,
            hit,
            ignored: by_class || by_tool,
        }
    }
}

/// The context cost of one surface before and after.
#[derive(Debug, Clone, Serialize)]
pub struct BudgetDelta {
    pub surface: Surface,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub delta: i64,
}

/// One catalog of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct SideInfo {
    pub file: String,
    pub product: String,
    pub version: String,
}

/// The version bump the changes need, and whether `product.version` has it.
#[derive(Debug, Clone, Serialize)]
pub struct Bump {
    /// What the changes need (breaking accepted with `--allow-breaking` needs a minor bump).
    pub required: Level,
    /// The smallest version that satisfies `required`.
    pub suggested_version: String,
    /// How `product.version` moved.
    pub actual: Change,
    /// Whether `product.version` was raised enough for `required`.
    pub satisfied: bool,
}

/// The whole result of `ixgen diff`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub before: SideInfo,
    pub after: SideInfo,
    pub findings: Vec<Finding>,
    pub budget: Vec<BudgetDelta>,
    pub bump: Bump,
    /// Why the check fails (empty when it passes).
    pub failures: Vec<String>,
    pub ok: bool,
    /// Where `product.version` is in the current catalog (for annotations).
    #[serde(skip)]
    pub version_loc: Loc,
}

/// What `ixgen diff` was asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Fail unless `product.version` was raised as much as the changes need.
    pub require_bump: bool,
    /// Accept breaking changes without a major bump.
    pub allow_breaking: bool,
}

/// What to print, and the exit code.
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `ixgen diff`: loads both catalogs, compares, renders.
pub fn run(
    catalog: Option<&Path>,
    against: &str,
    opts: Options,
    format: Format,
    color: bool,
) -> Result<Outcome, Error> {
    let new = source::current(catalog)?;
    let old = source::against(catalog, against)?;
    let report = compare_loaded(old, new, opts)?;
    Ok(render::render(&report, format, color))
}

/// The rules as `ixgen diff --list-rules` prints them: by class, or (`json`) as an array of
/// `{"rule", "class", "summary"}` in the same order.
pub fn list_rules(json: bool) -> String {
    if json {
        let rules = Class::ALL
            .iter()
            .flat_map(|&c| Rule::ALL.iter().filter(move |r| r.class() == c));
        let rules: Vec<_> = rules
            .map(|r| serde_json::json!({"rule": r.id(), "class": r.class().id(), "summary": r.summary()}))
            .collect();
        return serde_json::to_string_pretty(&rules).expect("JSON values serialize") + "\n";
    }
    let mut out = String::new();
    for class in Class::ALL {
        out.push_str(&format!("{}:\n", class.label()));
        for r in Rule::ALL.iter().filter(|r| r.class() == class) {
            out.push_str(&format!("  {:<24} {}\n", r.id(), r.summary()));
        }
    }
    out
}

fn side(s: source::Source) -> Result<Side, Error> {
    let source::Source { loaded, name } = s;
    // `diff` compares tool surfaces; the hosts' lints are `validate`'s business, their errors
    // not: a catalog a host refuses is refused here too.
    let mut lowered = model::lower(loaded, &name, |m| {
        let mut found = crate::hosts::check(m);
        found.retain(|d| d.severity == crate::diagnostic::Severity::Error);
        found
    })?;
    lowered.file.name = name;
    Side::new(lowered.model, lowered.file)
}

fn invalid(side: &Side, mut diags: Vec<Diagnostic>) -> Error {
    crate::catalog::load::locate(&mut diags, &side.file.text);
    Error::Catalog {
        file: side.file.clone(),
        diagnostics: diags,
    }
}

fn version(side: &Side) -> Result<Version, Error> {
    let v = &side.model.product.version;
    semver::parse(v).ok_or_else(|| invalid(side, vec![not_semver(v)]))
}

fn not_semver(v: &str) -> Diagnostic {
    let why = format!(
        "product.version {} is not a semantic version",
        crate::escape::debug_quote(v)
    );
    let help = "write MAJOR.MINOR.PATCH, e.g. `1.4.0` (ixgen diff suggests the bump from it)";
    Diagnostic::error("not-semver", "product.version", why).help(help)
}

/// What `diff` would refuse in a catalog before comparing anything, for `validate` (unlocated):
/// an unknown rule in `lint.breaking`, and a `product.version` that is not a semantic version
/// (a warning there: only `diff` needs one).
pub fn catalog_problems(model: &Model) -> Vec<Diagnostic> {
    let mut diags = lint_problems(model);
    if semver::parse(&model.product.version).is_none() {
        let mut d = not_semver(&model.product.version);
        d.severity = crate::diagnostic::Severity::Warning;
        diags.push(d);
    }
    diags
}

fn lint_problems(model: &Model) -> Vec<Diagnostic> {
    let lint: &BreakingLint = &model.lint.breaking;
    let classes = Class::ALL.map(Class::id);
    let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).chain(classes).collect();
    let mut diags = Vec::new();
    let mut unknown = |id: &str, path: String, or_class: bool| {
        let ok = Rule::from_id(id).is_some() || (or_class && classes.contains(&id));
        if !ok {
            let help = match crate::diagnostic::did_you_mean(id, &ids) {
                Some(m) => format!("did you mean `{m}`? (`ixgen diff --list-rules` lists them)"),
                None => "run `ixgen diff --list-rules` for the rule ids".to_string(),
            };
            diags.push(Diagnostic::error("unknown-rule", path, format!("no `ixgen diff` rule `{id}`")).help(help));
        }
    };
    for (i, id) in lint.ignore.iter().enumerate() {
        unknown(id, format!("lint.breaking.ignore[{i}]"), true);
    }
    for id in lint.ignore_only.keys() {
        unknown(id, format!("lint.breaking.ignore_only.{id}"), false);
    }
    diags
}

fn compare_loaded(old: source::Source, new: source::Source, opts: Options) -> Result<Report, Error> {
    let old = side(old)?;
    let new = side(new)?;
    // `lint.breaking` of the current catalog: every id must name a rule or a class.
    let lint = lint_problems(&new.model);
    if !lint.is_empty() {
        return Err(invalid(&new, lint));
    }
    let (vo, vn) = (version(&old)?, version(&new)?);
    // Every rule's detector at each place of the walk; each hit is a finding of its rule.
    let mut rules = Vec::new();
    let diff = Diff::run(&old, &new, &mut |d, node| {
        for rule in Rule::ALL {
            let from = d.hits.len();
            (rule.detector())(d, node);
            rules.extend(std::iter::repeat_n(*rule, d.hits.len() - from));
        }
    });
    let lint = &new.model.lint.breaking;
    let mut findings: Vec<Finding> = diff
        .hits
        .into_iter()
        .zip(rules)
        .map(|(h, r)| Finding::of(r, h, lint))
        .collect();
    findings.sort_by_key(|f| f.class);

    let surfaces: std::collections::BTreeSet<Surface> =
        old.surfaces.keys().chain(new.surfaces.keys()).copied().collect();
    let budget = surfaces
        .into_iter()
        .map(|s| {
            let (b, a) = (old.tokens(s), new.tokens(s));
            BudgetDelta {
                surface: s,
                tokens_before: b,
                tokens_after: a,
                delta: a as i64 - b as i64,
            }
        })
        .collect();

    let active = || findings.iter().filter(|f| !f.ignored);
    let level_of = |c: Class| match c {
        Class::Breaking if opts.allow_breaking => Level::Minor,
        Class::Breaking => Level::Major,
        Class::Behaviour | Class::Compatible => Level::Minor,
        Class::Cosmetic => Level::Patch,
    };
    let required = active().map(|f| level_of(f.class)).max().unwrap_or(Level::None);
    let bump = Bump {
        required,
        suggested_version: semver::bumped(&vo, required).to_string(),
        actual: semver::change(&vo, &vn),
        satisfied: semver::allows(&vo, &vn, required),
    };
    let mut failures = Vec::new();
    let breaking = active().filter(|f| f.class == Class::Breaking).count();
    if breaking > 0 && !opts.allow_breaking && !semver::allows(&vo, &vn, Level::Major) {
        failures.push(format!(
            "{breaking} breaking change(s), but product.version went {vo} → {vn}, not to {} or later",
            semver::bumped(&vo, Level::Major)
        ));
    }
    if opts.require_bump && failures.is_empty() {
        if bump.actual == Change::Lowered {
            failures.push(format!("product.version went down: {vo} → {vn}"));
        } else if !bump.satisfied {
            failures.push(format!(
                "the changes need a {} bump, but product.version went {vo} → {vn}, not to {} or later",
                required.id(),
                bump.suggested_version
            ));
        }
    }
    let info = |s: &Side| SideInfo {
        file: s.file.name.clone(),
        product: s.model.product.name.clone(),
        version: s.model.product.version.clone(),
    };
    Ok(Report {
        before: info(&old),
        after: info(&new),
        version_loc: new.loc("product.version"),
        ok: failures.is_empty(),
        failures,
        findings,
        budget,
        bump,
    })
}
