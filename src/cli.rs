//! The command line: clap definitions, and each command as a call into the library.
//!
//! Commands print and return an exit code; they never write files themselves (that is
//! `crate::output`). Exit codes: 0 success, 1 a check found something, 2 bad input.
//!
//! The context flags are not written here: each context variable the catalog declares gets a
//! flag of its own name (see [`parse_from`]), so this module knows no variable by name.

use crate::catalog;
use crate::diagnostic::{self, Diagnostic, JsonDiagnostic, Severity};
use crate::error::Error;
use crate::escape;
use crate::hosts::{self, Host, Options, mcp::Profile};
use crate::model::{self, Filter, Model};
use crate::output::{self, Action, WriteOptions};
use crate::record;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{ArgAction, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use indexmap::IndexMap;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// One YAML catalog of agent tools, generated for every host.
///
/// ixgen reads a catalog of tools (names, typed parameters, CLI and HTTP mappings) and writes
/// each host's files: OpenCode custom tools, an agent loop's session tools, a Claude Code plugin,
/// MCP tool schemas, and Cursor, VS Code, Gemini and Codex MCP configs. Without --catalog it
/// uses the ix catalog built into the binary.
#[derive(Debug, Parser)]
#[command(name = "ixgen", version, max_term_width = 100)]
pub struct Cli {
    /// The catalog to read (default: the embedded ix catalog).
    #[arg(long, global = true, value_name = "PATH")]
    pub catalog: Option<PathBuf>,
    /// The folder generated paths are relative to.
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,
    /// When to color messages (never when NO_COLOR is set).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
    /// The values of the per-variable context flags, as (variable, flag, value) in the order
    /// given; filled by [`parse_from`], which adds those flags.
    #[arg(skip)]
    pub context_flags: Vec<(String, String, String)>,
    /// The catalog's context declarations as [`parse_from`] read them (before the catalog is
    /// loaded); a run that replays the run record checks its context against them.
    #[arg(skip)]
    pub context_decls: Option<model::ContextDecls>,
}

/// When to use color.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check the catalog: structure, references, host limits and budgets.
    Validate {
        /// Treat warnings (budgets, host name lengths) as errors.
        #[arg(long)]
        strict: bool,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print a JSON Schema: the catalog format's (point editors at it) or the execution spec's.
    Schema {
        #[arg(value_enum, default_value_t = SchemaKind::Catalog)]
        kind: SchemaKind,
    },
    /// List the tools and the id each host gives them.
    List {
        /// Only the tools of this toolset.
        #[arg(long, value_name = "NAME")]
        toolset: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Report what each host's toolset costs in model context.
    Budget {
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Write OpenCode tools (and, given any context value, the session tools).
    Opencode {
        /// Generate this toolset instead of the target's.
        #[arg(long, value_name = "NAME")]
        toolset: Option<String>,
        #[command(flatten)]
        context: ContextArgs,
        #[command(flatten)]
        filters: FilterArgs,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Write the Claude Code plugin (.claude-plugin/plugin.json, .mcp.json, marketplace).
    Claude {
        #[command(flatten)]
        filters: FilterArgs,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Write the MCP tool definitions (mcp/tools.json).
    Mcp {
        /// MCP revisions to emit; each gets its own file.
        #[arg(long = "profile", value_enum, default_values_t = [McpProfile::V2025_11_25])]
        profiles: Vec<McpProfile>,
        #[command(flatten)]
        filters: FilterArgs,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Serve the catalog's MCP toolset as an MCP server (stdio; Streamable HTTP with --http).
    ///
    /// `<PRODUCT>_TOOLS_DISABLED=1` turns the server off; `IXGEN_SERVE_TOKEN` sets the HTTP bearer token.
    Serve {
        /// Listen for Streamable HTTP on this address (`127.0.0.1:8765`, or a port) at `/mcp`; alone, 127.0.0.1:8765.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
        http: Option<String>,
        #[command(flatten)]
        filters: FilterArgs,
    },
    /// Write every target the catalog enables (or the ones named).
    Generate {
        #[command(flatten)]
        selection: Selection,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Compare the files on disk with what the catalog gives: exit 1 when any is stale.
    Check {
        #[command(flatten)]
        selection: Selection,
        /// `text` (unified diffs), `json`, or `github` (workflow annotations).
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// Report changes since an older catalog, per host surface, and the version bump needed.
    ///
    /// Changes are breaking, behaviour changes, compatible or cosmetic, each under a named rule
    /// (`--list-rules`; switch rules off in the catalog's `lint.breaking`). Exit 1 on a breaking
    /// change without a major bump of `product.version` (or any change short of its bump, with
    /// --require-bump); exit 2 on an unknown ref or an invalid catalog.
    Diff {
        /// The older catalog: a git ref (`main`, `v1.4.0`, `HEAD~1`) at which the same catalog
        /// path is read, or a catalog file.
        #[arg(long, value_name = "REF|FILE", required_unless_present = "list_rules")]
        against: Option<String>,
        /// Fail unless product.version was raised as much as the changes need.
        #[arg(long)]
        require_bump: bool,
        /// Accept breaking changes without a major version bump.
        #[arg(long)]
        allow_breaking: bool,
        /// `text`, `json`, `github` (workflow annotations on the catalog's lines) or `markdown`
        /// (a changelog section).
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
        /// Print the rules (id, class, what each detects) and exit.
        #[arg(long, conflicts_with = "against")]
        list_rules: bool,
    },
    /// Print a shell completion script.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// MCP protocol revisions (see `crate::hosts::mcp::Profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum McpProfile {
    /// Revision 2025-11-25, what the MCP SDK 1.32 speaks (the default).
    #[value(name = "2025-11-25")]
    V2025_11_25,
    /// Revision 2026-07-28 (`ttlMs`, `cacheScope`, `resultType` in the result).
    #[value(name = "2026-07-28")]
    V2026_07_28,
}

impl McpProfile {
    fn profile(self) -> Profile {
        match self {
            McpProfile::V2025_11_25 => Profile::V2025_11_25,
            McpProfile::V2026_07_28 => Profile::V2026_07_28,
        }
    }
}

/// The hosts' names and what each writes, as clap's possible values.
fn host_values() -> PossibleValuesParser {
    PossibleValuesParser::new(
        hosts::REGISTRY
            .iter()
            .map(|h| PossibleValue::new(h.name()).help(h.about())),
    )
}

/// What `generate` and `check` cover.
#[derive(Debug, Args)]
pub struct Selection {
    /// Targets (default: all the catalog enables; `session` only with its context).
    #[arg(value_parser = host_values())]
    pub targets: Vec<String>,
    /// MCP revisions to emit; each gets its own file.
    #[arg(long = "profile", value_enum, default_values_t = [McpProfile::V2025_11_25])]
    pub profiles: Vec<McpProfile>,
    #[command(flatten)]
    pub context: ContextArgs,
    #[command(flatten)]
    pub filters: FilterArgs,
}

/// Which JSON Schema `ixgen schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// The catalog format (`generated/schema/catalog.schema.json`).
    Catalog,
    /// The execution spec every generated runtime reads (`generated/schema/exec-spec.schema.json`).
    ExecSpec,
}

/// Output format of reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Table,
    Json,
}

/// Output format of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Github,
}

/// Output format of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    Github,
    Markdown,
}

/// The run's context, baked into session tools. Each variable the catalog declares also gets
/// its own flag, added by [`parse_from`].
#[derive(Debug, Args, Default)]
pub struct ContextArgs {
    /// Set a context variable by name (the same as its own flag).
    #[arg(long = "context", value_name = "NAME=VALUE", help_heading = CONTEXT_HEADING)]
    pub other: Vec<String>,
}

/// The help section that lists the context flags.
const CONTEXT_HEADING: &str = "Context (baked into the session tools)";

/// The subcommands that take context.
const CONTEXT_COMMANDS: [&str; 3] = ["opencode", "generate", "check"];

/// The clap id of a context variable's own flag; the prefix cannot clash with a field name.
fn context_id(name: &str) -> String {
    format!("context:{name}")
}

/// The `--catalog` value in raw arguments, found before parsing: the catalog decides which
/// context flags exist, so it must be known before clap sees the rest.
fn prescan_catalog(args: &[OsString]) -> Option<PathBuf> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let Some(s) = a.to_str() else { continue };
        if s == "--" {
            break;
        }
        if s == "--catalog" {
            return it.next().map(PathBuf::from);
        }
        if let Some(v) = s.strip_prefix("--catalog=") {
            return Some(PathBuf::from(v));
        }
    }
    None
}

/// The clap command with one flag per declared context variable on every command that takes
/// context. A variable whose name is already a flag of the command gets no flag of its own
/// (it is still reachable with `--context NAME=VALUE`).
pub fn command(decls: &IndexMap<String, catalog::ContextVar>) -> clap::Command {
    let mut cmd = Cli::command();
    let global: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(String::from))
        .chain(["help".into(), "version".into()])
        .collect();
    for sub in CONTEXT_COMMANDS {
        cmd = cmd.mut_subcommand(sub, |mut s| {
            let taken: Vec<String> = s
                .get_arguments()
                .filter_map(|a| a.get_long().map(String::from))
                .chain(global.iter().cloned())
                .collect();
            for (name, var) in decls {
                if taken.contains(name) {
                    continue;
                }
                let mut help = var.description.clone().unwrap_or_default();
                if let Some(d) = &var.default {
                    help = format!("{help} [default: {d}]").trim_start().to_string();
                }
                let value_name = match var.ty {
                    catalog::ContextType::Integer => "N".to_string(),
                    catalog::ContextType::Path => "PATH".to_string(),
                    catalog::ContextType::String => name.to_uppercase(),
                };
                s = s.arg(
                    clap::Arg::new(context_id(name))
                        .long(name.clone())
                        .value_name(value_name)
                        .action(ArgAction::Append)
                        .help(help)
                        .help_heading(CONTEXT_HEADING),
                );
            }
            s
        });
    }
    cmd
}

/// Parses a command line (program name first). Exits like clap on `--help`, `--version` and
/// malformed arguments (exit 2).
pub fn parse_from(args: impl IntoIterator<Item = impl Into<OsString>>) -> Cli {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // A catalog that cannot be read yields no context flags; the full load reports why.
    let path = prescan_catalog(&args);
    let found = catalog::context_declarations(path.as_deref());
    let decls = found.clone().unwrap_or_default();
    // Every run builds clap's whole command tree to parse one command line. Dropping it
    // again is about a tenth of a per-iteration run's instructions, and the process is about
    // to end: the tree is leaked on purpose (`mem::forget`), and the matches are taken apart
    // in place instead of cloned.
    let mut cmd = command(&decls);
    let parsed = cmd.try_get_matches_from_mut(args);
    std::mem::forget(cmd);
    let mut matches = match parsed {
        Ok(m) => m,
        Err(e) => {
            if let (None, Some(p), clap::error::ErrorKind::UnknownArgument) = (&found, &path, e.kind()) {
                eprintln!(
                    "note: the context of `{}` could not be read, so its context flags are unknown; `ixgen --catalog {} validate` says why",
                    p.display(),
                    p.display()
                );
            }
            e.exit()
        }
    };
    // The context flags first: `from_arg_matches_mut` takes the subcommand out of the matches.
    let mut context_flags = Vec::new();
    if let Some((_, sub)) = matches.subcommand() {
        for name in decls.keys() {
            if let Ok(Some(values)) = sub.try_get_many::<String>(&context_id(name)) {
                for v in values {
                    context_flags.push((name.clone(), format!("--{name}"), v.clone()));
                }
            }
        }
    }
    let mut cli = Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.exit());
    cli.context_decls = found;
    cli.context_flags = context_flags;
    cli
}

/// The diagnostic of two targets that write one path, at the second target's key.
fn collision_diagnostic(e: &Error) -> Option<Diagnostic> {
    let Error::Collision { path, targets } = e else {
        return None;
    };
    Some(
        Diagnostic::error(
            "path-collision",
            format!("targets.{}", targets.1),
            crate::error::collision_message(path, targets),
        )
        .at_key()
        .help(crate::error::COLLISION_HELP),
    )
}

/// Tool filters (the catalog's `filters` are the defaults).
#[derive(Debug, Args, Default)]
pub struct FilterArgs {
    /// Leave out tools that change state.
    #[arg(long)]
    pub read_only: bool,
    /// Keep only these tools (comma-separated; wins over --disable-tools).
    #[arg(long, value_delimiter = ',', value_name = "TOOLS")]
    pub enable_tools: Vec<String>,
    /// Leave out these tools (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "TOOLS")]
    pub disable_tools: Vec<String>,
    /// Keep only tools of this tier (e.g. `free` leaves out Pro tools).
    #[arg(long, value_name = "TIER")]
    pub tier: Option<String>,
}

/// How to write.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// Show what would be created, updated and removed; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Take over (overwrite or remove) files ixgen did not write.
    #[arg(long)]
    pub force: bool,
    /// Report as `text` or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print nothing when all is well.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Parses the process's arguments and runs them; returns the exit code.
pub fn main() -> i32 {
    run(parse_from(std::env::args_os()))
}

/// Runs the command line; returns the exit code.
pub fn run(cli: Cli) -> i32 {
    let color = match cli.color {
        ColorChoice::Never => false,
        ColorChoice::Always => true,
        ColorChoice::Auto => std::io::stderr().is_terminal(),
    } && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut app = App {
        cli,
        color,
        loaded: None,
    };
    match app.dispatch() {
        Ok(code) => code,
        Err(e) => {
            app.report(&e);
            e.exit_code()
        }
    }
}

/// What a write or check command will do.
struct Prepared {
    model: Model,
    hosts: Vec<&'static dyn Host>,
    opts: Options,
    /// Warnings about the options, printed before the results.
    notes: Vec<String>,
    /// Whether loading the catalog warned about anything (a run that warns keeps no run
    /// record: replaying it would drop the warnings).
    warned: bool,
}

struct App {
    cli: Cli,
    color: bool,
    loaded: Option<(String, diagnostic::SourceFile)>,
}

impl App {
    fn load(&mut self) -> Result<(Model, Vec<Diagnostic>), Error> {
        let (model, file, warnings) = hosts::load(self.cli.catalog.as_deref())?;
        self.loaded = Some((model.source_name.clone(), file));
        Ok((model, warnings))
    }

    fn source(&self) -> Option<&diagnostic::SourceFile> {
        self.loaded.as_ref().map(|(_, f)| f)
    }

    /// An error the catalog's text can show where it comes from, as a diagnostic there (with
    /// its line and column): two targets that write one path are pointed at in `targets`.
    fn on_catalog(&self, e: Error) -> Error {
        match (self.located_collision(&e), self.source()) {
            (Some(diagnostic), Some(file)) => Error::Catalog {
                file: file.clone(),
                diagnostics: vec![diagnostic],
            },
            _ => e,
        }
    }

    /// The diagnostic of an [`Error::Collision`], placed in the loaded catalog's text.
    fn located_collision(&self, e: &Error) -> Option<Diagnostic> {
        let mut diagnostic = collision_diagnostic(e)?;
        catalog::load::locate(std::slice::from_mut(&mut diagnostic), &self.source()?.text);
        Some(diagnostic)
    }

    /// Two paths one `generate` of every enabled target would write twice, for `validate`:
    /// every enabled target is planned, the session tools with a stand-in for each context
    /// value without a default (no path depends on a value).
    fn planned_collision(&self, model: &Model) -> Option<Diagnostic> {
        let targets: Vec<&'static dyn Host> = hosts::REGISTRY
            .iter()
            .copied()
            .filter(|h| hosts::enabled(&model.catalog, *h))
            .collect();
        let decls = &model.catalog.context;
        let stand_ins = decls
            .iter()
            .filter(|(_, d)| d.default.is_none())
            .map(|(name, d)| {
                let value = match d.ty {
                    catalog::ContextType::Integer => model::ContextValue::Integer(1),
                    _ => model::ContextValue::Text("validate".into()),
                };
                (name.clone(), value)
            })
            .collect();
        let opts = Options {
            filter: Filter::default(),
            context: model::apply_defaults(decls, &stand_ins, &self.cli.out).ok()?,
            toolset: None,
            profiles: vec![McpProfile::V2025_11_25.profile()],
        };
        self.located_collision(&hosts::plan(model, &targets, &opts).err()?)
    }

    fn print_warnings(&self, warnings: &[Diagnostic]) {
        if let (Some(file), false) = (self.source(), warnings.is_empty()) {
            eprint!("{}", diagnostic::render(warnings, file, self.color));
        }
    }

    fn report(&self, e: &Error) {
        match e {
            Error::Catalog { file, diagnostics } => {
                eprint!("{}", diagnostic::render(diagnostics, file, self.color));
                let n = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
                eprintln!(
                    "error: {n} problem(s) in {}; nothing was written",
                    escape::terminal(&file.name)
                );
            }
            other => {
                let (red, bold, reset) = if self.color {
                    ("\x1b[31m", "\x1b[1m", "\x1b[0m")
                } else {
                    ("", "", "")
                };
                // Messages quote catalog text, paths and values from the tree: escaped, one line.
                eprintln!("{red}{bold}error{reset}: {}", escape::terminal(&other.to_string()));
                if let Some(h) = other.help() {
                    eprintln!("  help: {}", escape::terminal(&h));
                }
            }
        }
    }

    fn dispatch(&mut self) -> Result<i32, Error> {
        match &self.cli.command {
            Command::Schema { kind } => {
                let schema = match kind {
                    SchemaKind::Catalog => hosts::catalog_schema(),
                    SchemaKind::ExecSpec => crate::spec::schema(),
                };
                println!("{}", serde_json::to_string_pretty(&schema).expect("serializes"));
                Ok(0)
            }
            Command::Completions { shell } => {
                let decls = catalog::context_declarations(self.cli.catalog.as_deref()).unwrap_or_default();
                let mut cmd = command(&decls);
                clap_complete::generate(*shell, &mut cmd, "ixgen", &mut std::io::stdout());
                Ok(0)
            }
            Command::Validate { strict, format } => {
                let (strict, format) = (*strict, *format);
                self.validate(strict, format)
            }
            Command::List { toolset, format } => {
                let (toolset, format) = (toolset.clone(), *format);
                let (model, warnings) = self.load()?;
                self.print_warnings(&warnings);
                crate::report::list(&model, toolset.as_deref(), format == Format::Json)?;
                Ok(0)
            }
            Command::Budget { format } => {
                let format = *format;
                let (model, warnings) = self.load()?;
                self.print_warnings(&warnings);
                crate::report::budget(&model, format == Format::Json);
                Ok(0)
            }
            Command::Opencode { .. } | Command::Claude { .. } | Command::Mcp { .. } | Command::Generate { .. } => {
                self.generate()
            }
            Command::Check { .. } => self.check(),
            Command::Serve { http, filters } => crate::serve::run(crate::serve::ServeOptions::new(
                self.cli.catalog.as_deref(),
                http.as_deref(),
                filters,
            )),
            Command::Diff {
                against,
                require_bump,
                allow_breaking,
                format,
                list_rules,
            } => {
                if *list_rules {
                    print!("{}", crate::diff::list_rules());
                    return Ok(0);
                }
                let format = match format {
                    DiffFormat::Text => crate::diff::Format::Text,
                    DiffFormat::Json => crate::diff::Format::Json,
                    DiffFormat::Github => crate::diff::Format::Github,
                    DiffFormat::Markdown => crate::diff::Format::Markdown,
                };
                let opts = crate::diff::Options {
                    require_bump: *require_bump,
                    allow_breaking: *allow_breaking,
                };
                let against = against.as_deref().unwrap_or_default();
                let out = crate::diff::run(self.cli.catalog.as_deref(), against, opts, format, self.color)?;
                print!("{}", out.stdout);
                eprint!("{}", out.stderr);
                Ok(out.code)
            }
        }
    }

    fn validate(&mut self, strict: bool, format: Format) -> Result<i32, Error> {
        let result = self.load();
        let (diags, file, failed) = match result {
            Ok((model, mut warnings)) => {
                let file = self.source().cloned().expect("loaded");
                let mut failed = strict && !warnings.is_empty();
                if let Some(d) = self.planned_collision(&model) {
                    warnings.push(d);
                    failed = true;
                }
                (warnings, file, failed)
            }
            Err(Error::Catalog { file, diagnostics }) => (diagnostics, file, true),
            Err(e) => return Err(e),
        };
        let diags: Vec<Diagnostic> = diags
            .into_iter()
            .map(|mut d| {
                if strict {
                    d.severity = Severity::Error;
                }
                d
            })
            .collect();
        if format == Format::Json {
            let json: Vec<JsonDiagnostic> = diags.iter().map(|d| JsonDiagnostic::new(d, &file)).collect();
            let out = serde_json::json!({ "file": file.name, "valid": !failed, "diagnostics": json });
            println!("{}", serde_json::to_string_pretty(&out).expect("serializes"));
        } else {
            eprint!("{}", diagnostic::render(&diags, &file, self.color));
            if failed {
                let n = diags.iter().filter(|d| d.severity == Severity::Error).count();
                eprintln!("error: {n} problem(s) in {}", escape::terminal(&file.name));
            } else {
                let w = diags.len();
                println!(
                    "{} is valid{}",
                    escape::terminal(&file.name),
                    if w > 0 {
                        format!(" ({w} warning(s))")
                    } else {
                        String::new()
                    }
                );
            }
        }
        Ok(if failed { 2 } else { 0 })
    }

    /// Hosts, options and write settings of the current write or check command.
    fn prepare(&mut self) -> Result<Prepared, Error> {
        let (model, warnings) = self.load()?;
        self.print_warnings(&warnings);
        let warned = !warnings.is_empty();
        let cmd = &self.cli.command;
        let host =
            |name: &str| hosts::get(name).ok_or_else(|| Error::internal(format!("no host `{name}` in the registry")));
        let (context, filters, explicit, profiles, toolset) = match cmd {
            Command::Opencode {
                context,
                filters,
                toolset,
                ..
            } => (
                Some(context),
                filters,
                vec![host("opencode")?],
                vec![McpProfile::V2025_11_25],
                toolset.clone(),
            ),
            Command::Claude { filters, .. } => (
                None,
                filters,
                vec![host("claude")?],
                vec![McpProfile::V2025_11_25],
                None,
            ),
            Command::Mcp { filters, profiles, .. } => (None, filters, vec![host("mcp")?], profiles.clone(), None),
            Command::Generate { selection: s, .. } | Command::Check { selection: s, .. } => (
                Some(&s.context),
                &s.filters,
                s.targets.iter().map(|t| host(t)).collect::<Result<Vec<_>, _>>()?,
                s.profiles.clone(),
                None,
            ),
            _ => return Err(Error::internal("a command that does not plan reached prepare")),
        };
        let context = match context {
            Some(c) => model::check_context(&model.catalog.context, &context_flags(&self.cli.context_flags, c)?)?,
            None => model::Context::new(),
        };
        let (filter, mut notes) = Filter::resolve(
            &model,
            filters.read_only,
            &filters.enable_tools,
            &filters.disable_tools,
            filters.tier.as_deref(),
        )?;
        let generate_like = matches!(cmd, Command::Generate { .. } | Command::Check { .. });
        let enabled = |h: &&'static dyn Host| hosts::enabled(&model.catalog, *h);
        let mut targets: Vec<&'static dyn Host> = if generate_like && explicit.is_empty() {
            hosts::REGISTRY
                .iter()
                .copied()
                .filter(enabled)
                .filter(|h| h.by_default())
                .collect()
        } else {
            explicit
        };
        // Hosts that need the run's context come with it: given the context, `opencode` and
        // `generate` write them too.
        let names: Vec<&str> = targets.iter().map(|h| h.name()).collect();
        if !context.is_empty()
            && (matches!(cmd, Command::Opencode { .. }) || (generate_like && names.contains(&"opencode")))
        {
            for h in hosts::REGISTRY
                .iter()
                .copied()
                .filter(enabled)
                .filter(|h| !h.by_default())
            {
                if !names.contains(&h.name()) {
                    targets.push(h);
                }
            }
        }
        if !context.is_empty() && targets.iter().all(|h| h.by_default()) {
            return Err(Error::usage(
                format!(
                    "context values ({}) only apply to the session tools, which this command does not write",
                    context.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ),
                "run `ixgen opencode` with them, or leave them out",
            ));
        }
        // The session tools get the catalog's defaults for what the run did not give.
        let context = if targets.iter().any(|h| !h.by_default()) {
            model::apply_defaults(&model.catalog.context, &context, &self.cli.out)?
        } else {
            context
        };
        notes.extend(hosts::check_allowlist(&model, &targets, &filter)?);
        let opts = Options {
            filter,
            context,
            toolset,
            profiles: profiles.iter().map(|p| p.profile()).collect(),
        };
        Ok(Prepared {
            model,
            hosts: targets,
            opts,
            notes,
            warned,
        })
    }

    /// The run record's key for this write (see `crate::record`), with the hash of the
    /// catalog bytes it covers; `None` when the run neither replays nor keeps a record: a dry
    /// run, `--force`, or input the full path must report on.
    fn record_key(&self) -> Option<(String, Option<blake3::Hash>)> {
        let decls = self.cli.context_decls.as_ref()?;
        let (command, context, write) = match &self.cli.command {
            Command::Opencode {
                toolset,
                context,
                filters,
                write,
            } => (format!("opencode {toolset:?} {filters:?}"), Some(context), write),
            Command::Claude { filters, write } => (format!("claude {filters:?}"), None, write),
            Command::Mcp {
                profiles,
                filters,
                write,
            } => (format!("mcp {profiles:?} {filters:?}"), None, write),
            Command::Generate { selection: s, write } => (
                format!("generate {:?} {:?} {:?}", s.targets, s.profiles, s.filters),
                Some(&s.context),
                write,
            ),
            _ => return None,
        };
        if write.dry_run || write.force {
            return None;
        }
        let given = match context {
            Some(c) => context_flags(&self.cli.context_flags, c)
                .ok()?
                .into_iter()
                .map(|(name, _, _)| name)
                .collect(),
            None => Vec::new(),
        };
        let bytes = match &self.cli.catalog {
            Some(p) => Some(catalog::load::catalog_bytes(p)?),
            None => None,
        };
        let name = self.cli.catalog.as_ref().map(|p| p.display().to_string());
        let key = record::key(&record::KeyParts {
            catalog: name.as_deref().zip(bytes.as_deref()),
            declarations: format!("{decls:?}"),
            command,
            given,
        });
        Some((key, bytes.map(|b| blake3::hash(&b))))
    }

    /// Replays the run record when it matches this run: `None` when the run must render.
    fn replay(&self, key: &str) -> Result<Option<output::Outcome>, Error> {
        let Some(decls) = self.cli.context_decls.as_ref() else {
            return Ok(None);
        };
        let context = match &self.cli.command {
            Command::Opencode { context, .. } => Some(context),
            Command::Generate { selection, .. } => Some(&selection.context),
            _ => None,
        };
        // Values the full path would refuse are its to report.
        let given = match context {
            Some(c) => {
                match context_flags(&self.cli.context_flags, c).and_then(|raw| model::check_context(decls, &raw)) {
                    Ok(ctx) => ctx,
                    Err(_) => return Ok(None),
                }
            }
            None => model::Context::new(),
        };
        let Ok(values) = model::apply_defaults(decls, &given, &self.cli.out) else {
            return Ok(None);
        };
        let catalog = self.cli.catalog.as_deref();
        record::replay(
            &self.cli.out,
            key,
            |rel| catalog::load::asset_bytes(catalog, rel),
            |var| values.get(var).map(hosts::session::context_literal),
        )
    }

    fn generate(&mut self) -> Result<i32, Error> {
        // A run that can change nothing but its per-run files replays the last run's record
        // instead of loading and rendering the catalog (`crate::record`).
        let key = self.record_key();
        if let Some((k, _)) = &key
            && let Some(outcome) = self.replay(k)?
        {
            return Ok(self.report_written(&outcome, true));
        }
        let Prepared {
            model,
            hosts: targets,
            opts,
            notes,
            warned,
        } = self.prepare()?;
        let plan = hosts::plan(&model, &targets, &opts).map_err(|e| self.on_catalog(e))?;
        let quiet_run = !warned && notes.is_empty();
        for n in notes {
            eprintln!("warning: {}", escape::terminal(&n));
        }
        // The catalog is read once for the key and again to load it: a record may only say
        // what the run rendered, so a catalog that changed in between (an editor saving,
        // a checkout) keeps none.
        let same_catalog = match &key {
            Some((_, Some(hashed))) => self
                .loaded
                .as_ref()
                .is_some_and(|(_, file)| blake3::hash(file.text.as_bytes()) == *hashed),
            _ => true,
        };
        // The catalog's text was kept to locate diagnostics, and every one is printed by now:
        // a large catalog's text is memory the write can use.
        self.loaded = None;
        crate::alloc::release_freed();
        let write = self.write_args();
        let outcome = output::write(
            plan,
            &self.cli.out,
            WriteOptions {
                force: write.force,
                dry_run: write.dry_run,
            },
        )?;
        // A replay checks its context against the declarations read before loading (the
        // command line's); it may rely on them only if they are what the full load read.
        let same_declarations = self
            .cli
            .context_decls
            .as_ref()
            .is_some_and(|d| *d == model.catalog.context);
        if let Some((k, _)) = key
            && quiet_run
            && same_catalog
            && same_declarations
            && outcome.notes.is_empty()
        {
            let inputs = model
                .catalog
                .product
                .icon
                .iter()
                .filter_map(|icon| Some((icon.path.clone(), output::content_hash(icon.bytes.as_deref()?))))
                .collect();
            record::save(&self.cli.out, &outcome, k, inputs);
        }
        // The process ends soon: freeing the model piece by piece would only cost time.
        std::mem::forget(model);
        Ok(self.report_written(&outcome, false))
    }

    fn write_args(&self) -> &WriteArgs {
        match &self.cli.command {
            Command::Opencode { write, .. }
            | Command::Claude { write, .. }
            | Command::Mcp { write, .. }
            | Command::Generate { write, .. } => write,
            _ => unreachable!("only write commands write"),
        }
    }

    /// Prints what a write did (`replayed`: from the run record, without rendering).
    fn report_written(&self, outcome: &output::Outcome, replayed: bool) -> i32 {
        let write = self.write_args();
        for n in &outcome.notes {
            eprintln!("note: {}", escape::terminal(n));
        }
        let mut stdout = std::io::stdout().lock();
        if write.format == Format::Json {
            let changes: Vec<serde_json::Value> = outcome
                .changes
                .iter()
                .map(|c| serde_json::json!({ "path": c.path, "action": c.action }))
                .collect();
            let _ = writeln!(
                stdout,
                "{}",
                serde_json::to_string_pretty(
                    &serde_json::json!({ "dry_run": write.dry_run, "replayed": replayed, "files": changes })
                )
                .expect("serializes")
            );
            return 0;
        }
        let (mut counts, verb) = ([0usize; 4], if write.dry_run { "would " } else { "" });
        for c in &outcome.changes {
            let (i, word) = match c.action {
                Action::Create => (0, "create"),
                Action::Update => (1, "update"),
                Action::Remove => (2, "remove"),
                Action::Unchanged => (3, ""),
            };
            counts[i] += 1;
            if i < 3 && !write.quiet {
                let _ = writeln!(stdout, "{verb}{word:<7} {}", c.path);
            }
        }
        if !write.quiet || write.dry_run {
            let _ = writeln!(
                stdout,
                "{}{} created, {} updated, {} removed, {} unchanged in {}{}",
                if write.dry_run { "dry run: " } else { "" },
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                escape::display_path(&self.cli.out),
                if replayed {
                    " (same catalog and options as the last run: nothing rendered)"
                } else {
                    ""
                }
            );
        }
        0
    }

    fn check(&mut self) -> Result<i32, Error> {
        let Prepared {
            model,
            hosts: targets,
            opts,
            ..
        } = self.prepare()?;
        let plan = hosts::plan(&model, &targets, &opts).map_err(|e| self.on_catalog(e))?;
        let format = match &self.cli.command {
            Command::Check { format, .. } => *format,
            _ => unreachable!(),
        };
        // A writer holds the lock exclusively: waiting for it means never reporting a
        // half-applied run as drift.
        let _lock = output::lock_shared(&self.cli.out)?;
        let (outcome, _) = output::compare(plan, &self.cli.out, true)?;
        std::mem::forget(model);
        for n in &outcome.notes {
            eprintln!("note: {}", escape::terminal(n));
        }
        let drift = output::drift(&outcome);
        let out = &self.cli.out;
        match format {
            CheckFormat::Json => {
                let json = serde_json::json!({
                    "ok": drift.is_empty(),
                    "out": out.to_string_lossy(),
                    "stale": drift.iter().filter(|d| d.kind == "stale").collect::<Vec<_>>(),
                    "missing": drift.iter().filter(|d| d.kind == "missing").map(|d| &d.path).collect::<Vec<_>>(),
                    "extra": drift.iter().filter(|d| d.kind == "extra").map(|d| &d.path).collect::<Vec<_>>(),
                });
                println!("{}", serde_json::to_string_pretty(&json).expect("serializes"));
            }
            CheckFormat::Github => {
                for d in &drift {
                    let path = out.join(&d.path);
                    let msg = match d.kind {
                        "stale" => "is out of date",
                        "missing" => "is missing",
                        _ => "is no longer generated",
                    };
                    println!(
                        "::error file={},title=ixgen drift::{}",
                        crate::escape::gh_property(&path.display().to_string()),
                        crate::escape::gh_message(&format!(
                            "{} {msg}; run ixgen generate and commit the result",
                            d.path
                        ))
                    );
                }
            }
            CheckFormat::Text => {
                let mut stdout = std::io::stdout().lock();
                for d in &drift {
                    match d.kind {
                        "stale" => {
                            let _ = write!(stdout, "{}", d.diff.as_deref().unwrap_or_default());
                        }
                        "missing" => {
                            let _ = writeln!(stdout, "missing: {}", d.path);
                        }
                        _ => {
                            let _ = writeln!(stdout, "extra:   {} (owned by ixgen, no longer generated)", d.path);
                        }
                    }
                }
                if drift.is_empty() {
                    let _ = writeln!(
                        stdout,
                        "{} generated file(s) are up to date in {}",
                        outcome.changes.len(),
                        escape::display_path(out)
                    );
                }
            }
        }
        if drift.is_empty() {
            Ok(0)
        } else {
            if format == CheckFormat::Text {
                eprintln!(
                    "error: {} file(s) in {} are stale, missing or extra",
                    drift.len(),
                    escape::display_path(out)
                );
                eprintln!(
                    "  help: run `ixgen generate{}` and commit the result",
                    if out == Path::new(".") {
                        String::new()
                    } else {
                        format!(" --out {}", escape::display_path(out))
                    }
                );
            }
            Ok(1)
        }
    }
}

/// The context values as (variable, flag, value): each variable's own flag, then `--context`.
/// A variable given twice must be given the same value both times.
fn context_flags(own: &[(String, String, String)], c: &ContextArgs) -> Result<Vec<(String, String, String)>, Error> {
    let mut raw: Vec<(String, String, String)> = own.to_vec();
    for kv in &c.other {
        let Some((k, v)) = kv.split_once('=') else {
            return Err(Error::usage(
                format!("--context {kv}: expected NAME=VALUE"),
                "e.g. --context model=opus",
            ));
        };
        raw.push((k.to_string(), format!("--context {k}"), v.to_string()));
    }
    // How the user wrote it: `--session "a"`, `--context session="b"`.
    let shown = |flag: &str, value: &str| {
        let q = crate::escape::debug_quote(value);
        if flag.starts_with("--context ") {
            format!("{flag}={q}")
        } else {
            format!("{flag} {q}")
        }
    };
    let mut first: IndexMap<&str, (&str, &str)> = IndexMap::new();
    let mut unique = Vec::new();
    for (name, flag, value) in &raw {
        match first.get(name.as_str()) {
            Some((f0, v0)) if v0 != value => {
                return Err(Error::usage(
                    format!(
                        "`{name}` is given two values: {} and {}",
                        shown(f0, v0),
                        shown(flag, value)
                    ),
                    format!("give `{name}` once"),
                ));
            }
            Some(_) => {}
            None => {
                first.insert(name, (flag, value));
                unique.push((name.clone(), flag.clone(), value.clone()));
            }
        }
    }
    Ok(unique)
}
