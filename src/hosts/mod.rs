//! The hosts: one module each, and the registry that lists them.
//!
//! A host is everything ixgen knows about one place tools end up: the settings a catalog gives
//! it under `targets.<name>` (a serde + schemars type of the host's own), the ids it gives
//! tools and the limits on them, its lints, and its plan (the files it wants, rendered in
//! memory; `crate::output` decides what reaches the disk). Nothing outside a host's module
//! knows its settings or its naming rules: `list`, `budget`, the lints and the files all read
//! them through [`Host`]. To add a host, write its module, add one line to [`REGISTRY`]
//! (see `docs/adding-a-host.md`).
//!
//! Layering: the CLI calls this module; this module reads the model (`crate::model`) and the
//! utilities, never the other way round. It loads a catalog (`load`), but reads none: each
//! host's settings are parsed from the model's `targets`, once, by [`DynHost`].

pub mod claude;
pub mod codex;
pub mod cursor;
pub mod gemini;
pub mod mcp;
pub mod opencode;
pub mod registry;
pub mod rust;
pub mod session;
pub mod vscode;

use crate::diagnostic::{Diagnostic, Report, Severity, hint_for};
use crate::error::Error;
use crate::escape::{Ts, comment};
use crate::model::{Context, Filter, Model, Server};
use crate::paths::RelPath;
use crate::plan::{Plan, PlannedFile};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Every host, in the order `generate` writes them and `list` shows them.
pub static REGISTRY: &[&dyn DynHost] = &[
    &opencode::Opencode,
    &session::Session,
    &mcp::Mcp,
    &claude::Claude,
    &cursor::Cursor,
    &vscode::Vscode,
    &gemini::Gemini,
    &codex::Codex,
    &registry::McpRegistry,
    &rust::Rust,
];

/// One host. Its settings (`targets.<name>`) are parsed once, when the catalog is checked,
/// into its own typed [`Host::Settings`], which `check`, `surfaces` and `plan` receive.
pub trait Host: Sync {
    /// The host's settings under `targets.<name>`; their JSON Schema is the catalog schema's.
    type Settings: DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static;

    /// The host's name: its key under `targets`, its command-line target name and its
    /// manifest group.
    const NAME: &'static str;

    /// One line for `--help` and the docs.
    const ABOUT: &'static str;

    /// Whether `generate` writes the host without being asked; a host that needs the run's
    /// context (the session tools) is written only when that context is given.
    const BY_DEFAULT: bool = true;

    /// Checks the host's settings against the model, with the host's lints. Runs only when
    /// the catalog enables the host and its settings parsed; `path` is `targets.<name>`.
    fn check(&self, s: &Self::Settings, model: &Model, path: &str) -> Vec<Diagnostic>;

    /// The tools this host exposes and the id it gives each, one entry per surface (OpenCode
    /// has its custom tools and the MCP server's tools).
    fn surfaces(&self, s: &Self::Settings, model: &Model) -> Vec<Surface>;

    /// Adds the host's files to the plan.
    fn plan<'m>(
        &self,
        s: &'m Self::Settings,
        model: &'m Model,
        opts: &Options,
        plan: &mut Plan<'m>,
    ) -> Result<(), Error>;

    /// Covers every manifest group of the host in a run that plans none of its files, once the
    /// catalog no longer enables it: the run removes the files the host wrote before (`check`
    /// reports them as extra). One group, the host's name, unless the host writes more.
    fn retire(&self, plan: &mut Plan<'_>) {
        plan.groups.insert(Self::NAME);
    }
}

/// A host as the registry holds it: [`Host`] with its settings type hidden. Every [`Host`] is
/// one; only this adapter parses and reads the typed settings kept in the model.
pub trait DynHost: Sync {
    fn name(&self) -> &'static str;
    fn about(&self) -> &'static str;
    fn by_default(&self) -> bool;
    /// The JSON Schema of the host's settings (`targets.<name>`).
    fn settings_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema;
    /// Parses the host's settings into the model, or says why they do not parse.
    fn configure(&self, model: &mut Model) -> Vec<Diagnostic>;
    /// [`Host::check`], when the settings parsed.
    fn check(&self, model: &Model) -> Vec<Diagnostic>;
    /// [`Host::surfaces`]; none when the settings did not parse.
    fn surfaces(&self, model: &Model) -> Vec<Surface>;
    /// [`Host::plan`].
    fn plan<'m>(&self, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error>;
    /// [`Host::retire`].
    fn retire(&self, plan: &mut Plan<'_>);
}

/// A host's parsed settings, when the catalog enables it and they parsed.
pub fn settings<H: Host>(model: &Model) -> Option<&H::Settings> {
    model.targets.get(H::NAME)?.parsed.as_ref()?.downcast_ref()
}

impl<H: Host> DynHost for H {
    fn name(&self) -> &'static str {
        H::NAME
    }

    fn about(&self) -> &'static str {
        H::ABOUT
    }

    fn by_default(&self) -> bool {
        H::BY_DEFAULT
    }

    fn settings_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        H::Settings::json_schema(generator)
    }

    fn configure(&self, model: &mut Model) -> Vec<Diagnostic> {
        let Some(target) = model.targets.get_mut(H::NAME) else {
            return Vec::new();
        };
        // serde_json would fill a struct's fields in order from a list (`codex: [x]`).
        let parsed = if target.raw.is_array() {
            Err("invalid type: sequence, expected a mapping of settings".to_string())
        } else {
            H::Settings::deserialize(&target.raw).map_err(|e| e.to_string())
        };
        let message = match parsed {
            Ok(s) => {
                target.parsed = Some(Box::new(s));
                return Vec::new();
            }
            Err(message) => message,
        };
        let path = format!("targets.{}", H::NAME);
        // serde names the field it did not expect: point at it and suggest the closest.
        let d = if let Some(rest) = message.strip_prefix("unknown field `")
            && let Some((field, expected)) = rest.split_once('`')
        {
            let expected: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            let allowed = format!("the keys allowed here are: {}", expected.join(", "));
            Diagnostic::error(
                "unknown-key",
                format!("{path}.{field}"),
                format!("`{path}`: unknown field `{field}`"),
            )
            .at_key()
            .help(hint_for(field, &expected, allowed))
        } else {
            Diagnostic::error("bad-target", &path, format!("`{path}`: {message}"))
                .help("run `ixgen schema` to see what each target takes")
        };
        vec![d]
    }

    fn check(&self, model: &Model) -> Vec<Diagnostic> {
        settings::<H>(model).map_or_else(Vec::new, |s| {
            Host::check(self, s, model, &format!("targets.{}", H::NAME))
        })
    }

    fn surfaces(&self, model: &Model) -> Vec<Surface> {
        settings::<H>(model).map_or_else(Vec::new, |s| Host::surfaces(self, s, model))
    }

    fn plan<'m>(&self, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        let s = settings::<H>(model)
            .ok_or_else(|| Error::internal(format!("the settings of `{}` were never parsed", H::NAME)))?;
        Host::plan(self, s, model, opts, plan)
    }

    fn retire(&self, plan: &mut Plan<'_>) {
        Host::retire(self, plan)
    }
}

/// Tools as one host's model sees them.
#[derive(Debug, Clone)]
pub struct Surface {
    /// Key in `ixgen list`, `ixgen budget` and `ixgen diff`: the host's name, or a name of its
    /// own for a second surface (`opencode-mcp`).
    pub key: &'static str,
    /// How people call it, for reports ("Claude Code").
    pub label: &'static str,
    /// Where its context cost is paid: "+312 tokens in every Claude Code session".
    pub session: &'static str,
    /// What the surface does with the tools, which decides which changes reach it.
    pub kind: SurfaceKind,
    /// The toolset the surface shows.
    pub toolset: String,
    /// Ids that share a namespace must be unique across surfaces (OpenCode's tool ids).
    pub namespace: &'static str,
    /// Tool name → the id the host gives it, in toolset order.
    pub ids: Vec<(String, String)>,
}

/// What a surface does with a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SurfaceKind {
    /// Generated code runs the tool's steps and route (the OpenCode runtime).
    Runs,
    /// A file lists the tool definitions (`tools/list`).
    Lists,
    /// The host launches the product's MCP server, which runs the tools itself.
    Launches,
}

/// What one run was asked for, beyond the catalog.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub filter: Filter,
    pub context: Context,
    /// Overrides the toolset of the OpenCode target.
    pub toolset: Option<String>,
    /// MCP revisions to write.
    pub profiles: Vec<mcp::Profile>,
}

/// The host of a name.
pub fn get(name: &str) -> Option<&'static dyn DynHost> {
    REGISTRY.iter().copied().find(|h| h.name() == name)
}

/// The names of every host.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|h| h.name()).collect()
}

/// Whether the catalog enables a host.
pub fn enabled(model: &Model, host: &dyn DynHost) -> bool {
    model.targets.contains_key(host.name())
}

/// The hosts the catalog enables, in the registry's order.
pub fn enabled_hosts(model: &Model) -> impl Iterator<Item = &'static dyn DynHost> + '_ {
    REGISTRY.iter().copied().filter(|h| enabled(model, *h))
}

/// Parses each enabled host's settings into the model, without checking them (`ixgen diff`,
/// which leaves the hosts' lints to `validate`, reads the surfaces).
pub fn configure(model: &mut Model) {
    for host in REGISTRY {
        host.configure(model);
    }
}

/// Loads a catalog, lowers it and checks it against every host it enables: the model, or the
/// catalog's, the lowering's and the hosts' diagnostics at once.
pub fn load(path: Option<&std::path::Path>) -> Result<(Model, crate::diagnostic::SourceFile, Vec<Diagnostic>), Error> {
    let loaded = crate::catalog::load(path)?;
    let file_name = std::path::Path::new(&loaded.file.name).file_name();
    let name = file_name.map_or_else(|| loaded.file.name.clone(), |n| n.to_string_lossy().into_owned());
    let lowered = crate::model::lower(loaded, &name, check)?;
    // The typed catalog is gone, the model is whole: planning and rendering come next.
    crate::alloc::release_freed();
    Ok((lowered.model, lowered.file, lowered.warnings))
}

/// Every host's diagnostics for a catalog, unlocated: unknown hosts, each enabled host's
/// settings (parsed here, once, into the model) and check, and ids that collide within a
/// namespace.
pub fn check(model: &mut Model) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for name in model.targets.keys().filter(|name| get(name).is_none()) {
        let known = names();
        let hint = hint_for(name, &known, format!("the hosts are: {}", known.join(", ")));
        let d = Diagnostic::error("unknown-target", format!("targets.{name}"), format!("no host `{name}`"));
        diags.push(d.at_key().help(hint));
    }
    // Each host's findings, and its surfaces when it has no error: kept, so that the map of ids
    // below borrows them, and reported host by host as before.
    let mut hosts = Vec::new();
    for host in REGISTRY {
        let found = host.configure(model);
        let found = if found.is_empty() { host.check(model) } else { found };
        let broken = found.iter().any(|d| d.severity == Severity::Error);
        hosts.push((found, if broken { Vec::new() } else { host.surfaces(model) }));
    }
    let ids = hosts.iter().flat_map(|h| &h.1).map(|s| s.ids.len()).sum();
    let mut seen: HashMap<(&str, &str), (&str, &str)> = HashMap::with_capacity(ids);
    for (found, surfaces) in &mut hosts {
        diags.append(found);
        for surface in surfaces.iter() {
            for (i, (tool, id)) in surface.ids.iter().enumerate() {
                if let Some((other_key, other_tool)) = seen.insert((surface.namespace, id), (surface.key, tool))
                    && (other_key, other_tool) != (surface.key, tool.as_str())
                {
                    let message = format!(
                        "in {} the tool `{tool}` ({}) gets the id `{id}`, which `{other_tool}` ({other_key}) already has",
                        surface.namespace, surface.key
                    );
                    let help = "rename one of the tools, or the server or file that prefixes the id (e.g. `server.name: ix-memory`)";
                    diags.err(
                        "host-id-collision",
                        format!("toolsets.{}.tools[{i}]", surface.toolset),
                        message,
                        help,
                    );
                }
            }
        }
    }
    diags.extend(unpassed_filters(model));
    diags.extend(toolset_budgets(model));
    diags
}

/// A toolset whose tools' descriptions together are over `lint.toolset_budget`: counted over
/// the tools the hosts get ([`Model::toolset`]: the catalog's filters applied, `unsupported`
/// tools left out), which is what every session pays for.
fn toolset_budgets(model: &Model) -> Vec<Diagnostic> {
    // A catalog tier no tool has is refused when a run resolves its filters; here, unfiltered.
    let filter = Filter::resolve(model, false, &[], &[], None).map_or_else(|_| Filter::default(), |(f, _)| f);
    let budget = model.lint.toolset_budget;
    (model.toolsets.keys())
        .filter_map(|set| {
            let tools = model.toolset(set, &filter);
            let total: usize = tools.iter().map(|t| t.description.chars().count()).sum();
            (total > budget).then(|| {
                let message = format!(
                    "the descriptions of toolset `{set}` add up to {total} characters, over the budget of {budget}"
                );
                Diagnostic::warning("toolset-budget", format!("toolsets.{set}"), message)
                    .at_key()
                    .help("shorten descriptions, or raise `lint.toolset_budget`")
            })
        })
        .collect()
}

/// The catalog's filters leave tools of the server's toolset out, but the server has no flag
/// to pass them on (`server.filter_flags`): every host that launches it would get every tool.
fn unpassed_filters(model: &Model) -> Option<Diagnostic> {
    let server = model.server.as_ref()?;
    if launchers(model, REGISTRY).is_empty() {
        return None;
    }
    let (filter, _) = Filter::resolve(model, false, &[], &[], None).ok()?;
    not_passed(model, server, &filter, &Filter::default()).then(|| {
        let message = format!(
            "the catalog's filters leave tools of toolset `{}` out, but the server has no flag to pass them on: the hosts that launch it get every tool",
            server.toolset
        );
        Diagnostic::warning("filters-not-passed", "filters", message)
            .at_key()
            .help("add `server.filter_flags` (at least `enable_tools: --enable-tools`) with the flags the server reads")
    })
}

/// The labels of the surfaces of `hosts` that launch the product's server.
fn launchers(model: &Model, hosts: &[&'static dyn DynHost]) -> Vec<&'static str> {
    (hosts.iter().flat_map(|h| h.surfaces(model)))
        .filter(|s| s.kind == SurfaceKind::Launches)
        .map(|s| s.label)
        .collect()
}

/// Whether `filter` keeps other tools of the server's toolset than `base` does, while the
/// server would be launched with the same arguments: the difference never reaches it.
fn not_passed(model: &Model, server: &Server, filter: &Filter, base: &Filter) -> bool {
    model.tool_names(&server.toolset, filter) != model.tool_names(&server.toolset, base)
        && server_args(model, filter) == server_args(model, base)
}

/// Plans the files of the named hosts.
pub fn plan<'m>(model: &'m Model, hosts: &[&'static dyn DynHost], opts: &Options) -> Result<Plan<'m>, Error> {
    let mut plan = Plan {
        product: model.product.name.clone(),
        ..Plan::default()
    };
    for &host in hosts {
        if !enabled(model, host) {
            return Err(Error::usage(
                format!("the catalog does not enable the `{}` target", host.name()),
                format!("add `targets.{}` to the catalog", host.name()),
            ));
        }
        host.plan(model, opts, &mut plan)?;
    }
    // Each path in its one spelling (`./a//b` is `a/b`), so that two targets naming one file
    // in two spellings are the collision they are here, and `validate` reports it; a path that
    // is not usable is left as it is, for the writer to refuse with its reason.
    for f in &mut plan.files {
        if let Ok(rel) = RelPath::file(&f.path) {
            f.path = rel.to_string();
        }
    }
    crate::plan::fold_merges(&mut plan.files);
    plan.files.sort_by(|a, b| a.path.cmp(&b.path));
    if let Some(w) = plan.files.windows(2).find(|w| w[0].path == w[1].path) {
        return Err(Error::Collision {
            path: w[0].path.clone(),
            targets: (target_of(w[0].group), target_of(w[1].group)),
            inside: None,
        });
    }
    // A file where another file needs its folder (`targets.mcp.path: .opencode/tools` beside
    // the OpenCode tools): the writer could only fail midway, and `validate` would not see it.
    let groups: HashMap<&str, &'static str> = plan.files.iter().map(|f| (f.path.as_str(), f.group)).collect();
    for f in &plan.files {
        if let Some((folder, group)) =
            (f.path.match_indices('/')).find_map(|(i, _)| groups.get(&f.path[..i]).map(|g| (&f.path[..i], *g)))
        {
            return Err(Error::Collision {
                path: folder.to_string(),
                targets: (target_of(f.group), target_of(group)),
                inside: Some(f.path.clone()),
            });
        }
    }
    Ok(plan)
}

/// Covers the groups of every host the catalog does not enable (see [`Host::retire`]): a run
/// of every target the catalog enables then removes what a target dropped from the catalog
/// wrote. A run of named targets must not call it: it leaves the other targets' files alone.
pub fn retire_disabled(model: &Model, plan: &mut Plan<'_>) {
    for host in REGISTRY.iter().filter(|h| !enabled(model, **h)) {
        host.retire(plan);
    }
}

/// The catalog target (`targets.<name>`) a planned file's group belongs to: the host's name,
/// which is also its group, but for the OpenCode runtime file and MCP's other revision.
fn target_of(group: &'static str) -> &'static str {
    match group {
        opencode::RUNTIME_GROUP => "opencode",
        g if g == mcp::group(mcp::Profile::V2026_07_28) => "mcp",
        g => g,
    }
}

/// An allowlist (`--enable-tools`) that keeps none of a surface's tools would write an empty
/// tool list without a word: that is an error when it keeps no tool of any target of the run,
/// and a note naming each emptied surface otherwise.
pub fn check_allowlist(model: &Model, hosts: &[&'static dyn DynHost], filter: &Filter) -> Result<Vec<String>, Error> {
    if filter.enable.is_empty() {
        return Ok(Vec::new());
    }
    let (mut emptied, mut kept_any) = (Vec::new(), false);
    for s in hosts.iter().flat_map(|h| h.surfaces(model)) {
        if !model.toolset(&s.toolset, filter).is_empty() {
            kept_any = true;
        } else if !model.toolset(&s.toolset, &Filter::default()).is_empty() {
            emptied.push(s);
        }
    }
    if !kept_any && !emptied.is_empty() {
        return Err(Error::usage(
            format!(
                "--enable-tools keeps no tool of any target of this run ({})",
                emptied
                    .iter()
                    .map(|s| format!("{}: toolset `{}`", s.key, s.toolset))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "name tools of those toolsets (`ixgen list` shows each tool's toolsets), or leave --enable-tools out",
        ));
    }
    Ok(emptied
        .iter()
        .map(|s| {
            format!(
                "--enable-tools keeps none of the tools of {} (toolset `{}`): it gets an empty tool list",
                s.label, s.toolset
            )
        })
        .collect())
}

/// The run's own filters (`--read-only`, `--enable-tools`, …, named in `given`) leave tools of
/// the server's toolset out, and the server has no flag to pass that on: a target of the run
/// that launches the server (`.mcp.json`, …) would get every tool the filter was asked to keep
/// out. An error, not the catalog's `filters-not-passed` warning: the filter was asked for on
/// this command line, and half of it would be silently dropped.
pub fn check_passed(model: &Model, hosts: &[&'static dyn DynHost], filter: &Filter, given: &str) -> Result<(), Error> {
    let Some(server) = &model.server else { return Ok(()) };
    let launchers = launchers(model, hosts);
    let (catalog_only, _) = Filter::resolve(model, false, &[], &[], None)?;
    if launchers.is_empty() || !not_passed(model, server, filter, &catalog_only) {
        return Ok(());
    }
    Err(Error::usage(
        format!(
            "{given} leaves tools of toolset `{}` out, but server `{}` has no flag to pass that on: {} would launch it with every tool",
            server.toolset,
            server.name,
            launchers.join(", ")
        ),
        "add `server.filter_flags` to the catalog (at least `enable_tools: --enable-tools`) with the flags the server reads, or name only targets that do not launch it",
    ))
}

/// What the first line of a generated code file says: ixgen's marker, the catalog, the product.
pub fn header(model: &Model) -> String {
    format!(
        "{} from catalog {} ({} {}).",
        crate::plan::MARKER,
        model.source_name,
        model.product.name,
        model.product.version
    )
}

/// The first comment line of generated code files.
pub fn header_text(model: &Model) -> Ts {
    comment(&header(model))
}

/// The server's arguments, with the active filters passed on as the server's own flags, so a
/// host launches the server already filtered. A filter the server has no flag for (a tier, or
/// read-only without `read_only`) is passed as the exact allowlist of the tools it keeps.
pub fn server_args(model: &Model, filter: &Filter) -> Vec<String> {
    let Some(server) = &model.server else {
        return Vec::new();
    };
    let mut args = server.args.clone();
    let Some(flags) = &server.filter_flags else {
        return args;
    };
    let expressible = filter.tier.is_none()
        && (!filter.read_only || flags.read_only.is_some())
        && (filter.enable.is_empty() || flags.enable_tools.is_some())
        && (filter.disable.is_empty() || flags.disable_tools.is_some());
    if !expressible {
        if let Some(f) = &flags.enable_tools {
            args.extend([f.clone(), model.tool_names(&server.toolset, filter).join(",")]);
        }
        return args;
    }
    args.extend(flags.read_only.clone().filter(|_| filter.read_only));
    let (flag, tools) = if filter.enable.is_empty() {
        (&flags.disable_tools, &filter.disable)
    } else {
        (&flags.enable_tools, &filter.enable)
    };
    if let Some(f) = flag.as_ref().filter(|_| !tools.is_empty()) {
        args.extend([f.clone(), tools.join(",")]);
    }
    args
}

/// The error for a toolset name the catalog does not have.
pub fn unknown_toolset(model: &Model, name: &str) -> Error {
    let known: Vec<&str> = model.toolsets.keys().map(String::as_str).collect();
    Error::usage(
        format!("no toolset `{name}` in the catalog"),
        hint_for(name, &known, format!("the toolsets are: {}", known.join(", "))),
    )
}

// ---------------------------------------------------------------------------------------------
// Checks hosts share.

/// The checks of a host that writes a toolset: its `toolset` reference, then where it writes
/// (`{path}.{key}`, a `dir` or a file path: [`check_rel_path`]).
pub fn check_toolset(cat: &Model, path: &str, name: &str, key: &str, value: &str) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    if !cat.toolsets.contains_key(name) {
        let known: Vec<&String> = cat.toolsets.keys().collect();
        let d = Diagnostic::error(
            "unknown-toolset",
            format!("{path}.toolset"),
            format!("no toolset `{name}`"),
        );
        diags.push(d.help(hint_for(name, &known, "declare it under `toolsets`")));
    }
    check_rel_path(&format!("{path}.{key}"), value, &mut diags);
    diags
}

/// A path in a host's settings: relative, inside the output folder (a folder when `path` names
/// a `dir`), in the form `RelPath` accepts.
pub fn check_rel_path(path: &str, value: &str, diags: &mut Vec<Diagnostic>) {
    let dir = path.ends_with(".dir");
    let check = if dir { RelPath::dir } else { RelPath::file };
    if let Err(why) = check(value) {
        diags.err(
            "bad-path",
            path,
            format!("`{value}` is not a usable path inside the output folder: {why}"),
            why.help(),
        );
    }
}

/// The MCP server a host launches: an error at the host's settings when the catalog has none.
pub fn check_server(cat: &Model, path: &str) -> Vec<Diagnostic> {
    Vec::from_iter(cat.server.is_none().then(|| {
        Diagnostic::error(
            "no-server",
            path,
            format!(
                "the `{}` target writes the MCP server, but the catalog declares no `server`",
                path.trim_start_matches("targets.")
            ),
        )
        .at_key()
        .help("add a top-level `server: {name, command, args, toolset}`")
    }))
}

/// Ids of the server's tools, for hosts that only launch the server. Hosts that show a tool
/// under its server without a documented id get `server/tool`, ixgen's own notation: renaming
/// the server changes what the user sees there.
pub fn server_surface(
    cat: &Model,
    key: &'static str,
    label: &'static str,
    session: &'static str,
    id: impl Fn(&str, &str) -> String,
) -> Vec<Surface> {
    let Some(server) = &cat.server else { return Vec::new() };
    Vec::from_iter(cat.toolsets.get(&server.toolset).map(|ts| Surface {
        key,
        label,
        session,
        kind: SurfaceKind::Launches,
        toolset: server.toolset.clone(),
        namespace: key,
        ids: ts.tools.iter().map(|t| (t.clone(), id(&server.name, t))).collect(),
    }))
}

/// A lint for a host whose full tool name (server and tool, with any prefix) has a limit: the
/// ids of `surfaces` are those names, and `over` names the limit in the message ("the model
/// API's limit of 64").
pub fn check_name_lengths(surfaces: &[Surface], limit: usize, over: &str) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for s in surfaces {
        for (i, (_, full)) in s.ids.iter().enumerate().filter(|(_, (_, full))| full.len() > limit) {
            let (label, n) = (s.label, full.len());
            diags.push(
                Diagnostic::warning(
                    "host-name-length",
                    format!("toolsets.{}.tools[{i}]", s.toolset),
                    format!("{label} calls this tool `{full}`, {n} characters, over {over}"),
                )
                .help("shorten the tool, server or product name"),
            );
        }
    }
    diags
}

/// A file the host owns whole: the pretty JSON of a typed struct, with a final newline.
pub fn json_file(
    path: impl Into<String>,
    group: &'static str,
    value: &impl Serialize,
) -> Result<PlannedFile<'static>, Error> {
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::internal(format!("a typed file does not serialize: {e}")))?;
    bytes.push(b'\n');
    Ok(PlannedFile::owned(path, group, bytes))
}

/// The catalog format's JSON Schema, with each host's settings under `targets`.
pub fn catalog_schema() -> serde_json::Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let root = generator.root_schema_for::<crate::catalog::Catalog>();
    let mut props = serde_json::Map::new();
    for host in REGISTRY {
        let mut s = host.settings_schema(&mut generator);
        s.insert("description".into(), host.about().into());
        props.insert(host.name().to_string(), s.to_value());
    }
    let mut value = root.to_value();
    value["properties"]["targets"] = serde_json::json!({
        "description": "Which hosts get files, and their settings: one key per host.",
        "type": "object",
        "properties": props,
        "additionalProperties": false,
    });
    // Every definition: the catalog's, which the root already has, and the hosts' settings'.
    value["$defs"] = generator.take_definitions(true).into();
    loosen(&mut value);
    value
}

/// Widens the derived schema to what the loader reads (`catalog::yaml`), so that an editor
/// marks no catalog ixgen accepts: any scalar where text is wanted (`version: 2.0`, enum
/// `values: [1, 2]`; a null is empty text) when the text has no format of its own to meet,
/// and an empty value (`params:` with nothing after it) where a list, a map or a struct with
/// no required key is wanted. Nothing is narrowed: an editor may still pass what the loader
/// refuses (a name a pattern would fail when written as a number).
fn loosen(schema: &mut serde_json::Value) {
    use serde_json::Value;
    match schema {
        Value::Object(s) => {
            let types: Vec<String> = match s.get("type") {
                Some(Value::String(t)) => vec![t.clone()],
                Some(Value::Array(ts)) => ts.iter().filter_map(|t| t.as_str().map(str::to_owned)).collect(),
                _ => Vec::new(),
            };
            let has = |t: &str| types.iter().any(|x| x == t);
            let constrained = ["pattern", "enum", "const", "format"]
                .iter()
                .any(|k| s.contains_key(*k));
            let required = s
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty());
            let mut wider = types.clone();
            if has("string") && !constrained {
                wider.extend(["number", "boolean", "null"].map(String::from));
            }
            if has("array") || (has("object") && !required) {
                wider.push("null".into());
            }
            let mut seen = std::collections::HashSet::new();
            wider.retain(|t| seen.insert(t.clone()));
            if wider.len() > types.len() {
                s.insert("type".into(), wider.into());
            }
            // Into subschemas only: a `default` or an example is data, not a schema.
            for (k, v) in s.iter_mut() {
                if !matches!(k.as_str(), "default" | "examples" | "const" | "enum") {
                    loosen(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(loosen),
        _ => {}
    }
}

/// Settings of a host that only writes an MCP configuration file: where to write it.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigSettings {
    /// Where to write the file, relative to the output folder; each host has a default.
    #[serde(default)]
    pub path: Option<String>,
}

/// A JSON file shared with the user, in which the host sets one value.
pub fn merged(
    path: String,
    group: &'static str,
    pointer: [&str; 2],
    value: impl Serialize,
) -> Result<PlannedFile<'static>, Error> {
    let value =
        serde_json::to_value(value).map_err(|e| Error::internal(format!("a typed file does not serialize: {e}")))?;
    Ok(PlannedFile::merged(path, group, &pointer, value, Default::default()))
}

/// A host that only launches the product's MCP server from a configuration file (Cursor, VS
/// Code, Gemini CLI, Codex). What differs between them is data and the file itself, so each of
/// their modules implements this with consts and a `file` function, and is a [`Host`] by it.
pub trait ServerConfigHost: Sync {
    const NAME: &'static str;
    const ABOUT: &'static str;
    /// How people call the host, and where its context cost is paid.
    const LABEL: &'static str;
    const SESSION: &'static str;
    /// The host's limit on a server + tool name, with the words that name it in the lint.
    const NAME_LIMIT: Option<(usize, &'static str)> = None;
    /// Where the file goes unless the settings say otherwise.
    const PATH: &'static str;
    /// The JSON file's key of the servers, and the `type` its entries start with, if any.
    const SERVERS: &'static str = "mcpServers";
    const TYPE: Option<&'static str> = None;

    /// The host's file at `path`: what it holds (by default a JSON file that merges the server
    /// under [`Self::SERVERS`], as Claude Code's `.mcp.json` has it).
    fn file(model: &Model, opts: &Options, server: &Server, path: String) -> Result<PlannedFile<'static>, Error> {
        merged(
            path,
            <Self as ServerConfigHost>::NAME,
            [Self::SERVERS, &server.name],
            claude::StdioServer {
                kind: Self::TYPE,
                command: server.command.clone(),
                args: server_args(model, &opts.filter),
                env: server.env.clone(),
            },
        )
    }
}

impl<C: ServerConfigHost> Host for C {
    type Settings = ConfigSettings;
    const NAME: &'static str = <C as ServerConfigHost>::NAME;
    const ABOUT: &'static str = <C as ServerConfigHost>::ABOUT;

    fn check(&self, s: &ConfigSettings, model: &Model, path: &str) -> Vec<Diagnostic> {
        let mut diags = check_server(model, path);
        if let Some(p) = &s.path {
            check_rel_path(&format!("{path}.path"), p, &mut diags);
        }
        if let Some((limit, over)) = C::NAME_LIMIT {
            // The limit is on the name the host sends, without the `/` of the surface's ids.
            let names = server_surface(model, <C as Host>::NAME, C::LABEL, C::SESSION, |server, tool| {
                format!("{server}{tool}")
            });
            diags.extend(check_name_lengths(&names, limit, over));
        }
        diags
    }

    fn surfaces(&self, _: &ConfigSettings, model: &Model) -> Vec<Surface> {
        server_surface(model, <C as Host>::NAME, C::LABEL, C::SESSION, |server, tool| {
            format!("{server}/{tool}")
        })
    }

    fn plan<'m>(
        &self,
        s: &'m ConfigSettings,
        model: &'m Model,
        opts: &Options,
        plan: &mut Plan<'m>,
    ) -> Result<(), Error> {
        let Some(server) = &model.server else {
            return Ok(());
        };
        plan.groups.insert(<C as Host>::NAME);
        let path = s.path.clone().unwrap_or_else(|| C::PATH.into());
        plan.files.push(C::file(model, opts, server, path)?);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    /// The toolset budget counts the tools the hosts get: an unsupported tool reaches no host,
    /// and one the catalog's filters leave out reaches none either, so neither costs a
    /// session's context.
    #[test]
    fn the_toolset_budget_counts_only_the_tools_the_hosts_get() {
        let codes = |filters: &str, b: &str| -> Vec<&'static str> {
            let text = format!(
                "version: 1\nproduct: {{name: demo, version: 1.0.0, description: d}}\ncli: {{binary: demo}}\nlint: {{toolset_budget: 10}}\n{filters}toolsets: {{main: {{tools: [a, b]}}}}\ntargets: {{opencode: {{toolset: main}}}}\ntools:\n  - {{name: a, description: AAAA, steps: [{{run: [a]}}]}}\n  - {{name: b, description: a long description of the tool{b}}}\n"
            );
            let loaded = crate::catalog::load_text("b.yaml", text.as_bytes()).unwrap();
            let lowered = crate::model::lower(loaded, "b.yaml", super::check).unwrap();
            let warnings = lowered.warnings.iter().map(|d| d.code);
            warnings.filter(|&c| c == "toolset-budget").collect()
        };
        let runs = ", steps: [{run: [b]}]";
        assert_eq!(codes("", runs), ["toolset-budget"]);
        assert!(codes("", ", unsupported: needs a model").is_empty());
        assert!(codes("filters: {disable: [b]}\n", runs).is_empty());
        assert!(codes("filters: {enable: [a]}\n", runs).is_empty());
        assert!(codes("filters: {read_only: true}\n", &format!(", access: write{runs}")).is_empty());
        assert_eq!(codes("filters: {disable: [a]}\n", runs), ["toolset-budget"]);
    }

    /// Loading a catalog parses each enabled host's settings once, into the model, where the
    /// host gets them typed; a host the catalog does not enable has none.
    #[test]
    fn loading_keeps_each_enabled_hosts_typed_settings_in_the_model() {
        let (mut model, _, _) = super::load(None).unwrap();
        for host in super::REGISTRY {
            let parsed = model.targets.get(host.name()).is_some_and(|t| t.parsed.is_some());
            assert_eq!(parsed, super::enabled(&model, *host), "{}", host.name());
        }
        let mcp = super::settings::<super::mcp::Mcp>(&model).map(|s| s.toolset.clone());
        assert_eq!(mcp.as_deref(), Some("mcp"));
        let opencode = super::settings::<super::opencode::Opencode>(&model).map(|s| s.config.clone());
        assert_eq!(opencode, Some(Some("opencode.json".to_string())));
        // Without the parsed value, planning is ixgen's bug, not a silent empty plan.
        model.targets.get_mut("mcp").unwrap().parsed = None;
        let opts = super::Options {
            profiles: vec![super::mcp::Profile::V2025_11_25],
            ..Default::default()
        };
        let err = super::plan(&model, &[super::get("mcp").unwrap()], &opts).err().unwrap();
        assert!(err.to_string().contains("never parsed"), "{err}");
    }

    /// A collision is reported at a key the catalog has: every group a host plans maps to a
    /// target of the registry.
    #[test]
    fn every_group_belongs_to_a_target() {
        let names = super::names();
        let groups = [
            super::opencode::RUNTIME_GROUP,
            super::mcp::group(super::mcp::Profile::V2025_11_25),
            super::mcp::group(super::mcp::Profile::V2026_07_28),
        ];
        for group in names.iter().copied().chain(groups) {
            assert!(names.contains(&super::target_of(group)), "{group}");
        }
    }
}
