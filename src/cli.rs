//! The command line: clap's definitions of the commands and flags, and parsing them. What a
//! command does is `crate::app`'s; this module runs nothing.
//!
//! The context flags are not written here: each context variable the catalog declares gets a
//! flag of its own name (see [`parse_from`]), so this module knows no variable by name.

use crate::catalog;
use crate::hosts::{self, mcp::Profile};
use crate::model;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{ArgAction, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

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
    /// The command line as given, program name first (`check` repeats it in its hint).
    #[arg(skip)]
    pub args: Vec<OsString>,
}

/// When to use color: clap's own `auto`, `always` and `never`.
pub use clap::ColorChoice;

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
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
    /// Report what each host's toolset costs in model context.
    Budget {
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
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
        #[arg(long = "profile", value_enum, default_values_t = [Profile::V2025_11_25])]
        profiles: Vec<Profile>,
        #[command(flatten)]
        filters: FilterArgs,
        #[command(flatten)]
        write: WriteArgs,
    },
    /// Serve the catalog's MCP toolset as an MCP server (stdio; Streamable HTTP with --http).
    ///
    /// `<PRODUCT>_TOOLS_DISABLED=1` turns the server off; `IXGEN_SERVE_TOKEN` sets the HTTP bearer token;
    /// `~/.config/ixgen/serve.toml` (or `$IXGEN_SERVE_CONFIG`) sets the controls per product.
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
    #[arg(long = "profile", value_enum, default_values_t = [Profile::V2025_11_25])]
    pub profiles: Vec<Profile>,
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

/// Output format of `validate` and the write commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Output format of `list` and `budget`: a table for people, or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// `text` is the same table (what the other commands call their output for people).
    #[value(alias = "text")]
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
    let before_end = args
        .iter()
        .enumerate()
        .skip(1)
        .take_while(|(_, a)| a.to_str() != Some("--"));
    let mut given = before_end.filter_map(|(i, a)| match a.to_str()? {
        "--catalog" => args.get(i + 1).map(PathBuf::from),
        a => a.strip_prefix("--catalog=").map(PathBuf::from),
    });
    given.next()
}

/// The clap command with one flag per declared context variable on every command that takes
/// context. A variable whose name is already a flag of the command gets no flag of its own
/// (it is still reachable with `--context NAME=VALUE`).
pub fn command(decls: &model::ContextDecls) -> clap::Command {
    let mut cmd = Cli::command();
    let global: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(String::from))
        .chain(["help".into(), "version".into()])
        .collect();
    for sub in CONTEXT_COMMANDS {
        cmd = cmd.mut_subcommand(sub, |mut s| {
            for (name, var) in decls {
                if global.contains(name) || s.get_arguments().any(|a| a.get_long() == Some(name.as_str())) {
                    continue;
                }
                let mut help = var.description.clone().unwrap_or_default();
                if let Some(d) = &var.default {
                    help = format!("{help} [default: {d}]").trim_start().to_string();
                }
                let value_name = match var.ty {
                    model::ContextType::Integer => "N".to_string(),
                    model::ContextType::Path => "PATH".to_string(),
                    model::ContextType::String => name.to_uppercase(),
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
    let found = catalog::context_declarations(path.as_deref()).map(model::context_decls);
    let decls = found.clone().unwrap_or_default();
    // Every run builds clap's whole command tree to parse one command line. Dropping it
    // again is about a tenth of a per-iteration run's instructions, and the process is about
    // to end: the tree is leaked on purpose (`mem::forget`), and the matches are taken apart
    // in place instead of cloned.
    let mut cmd = command(&decls).color(prescan_color(&args));
    let parsed = cmd.try_get_matches_from_mut(&args);
    std::mem::forget(cmd);
    let mut matches = match parsed {
        Ok(m) => m,
        Err(e) => {
            if let (None, Some(p), clap::error::ErrorKind::UnknownArgument) = (&found, &path, e.kind()) {
                let p = p.display();
                eprintln!(
                    "note: the context of `{p}` could not be read, so its context flags are unknown; `ixgen --catalog {p} validate` says why"
                );
            }
            // A command line asking for JSON gets its failure as JSON too (not `--help`).
            let json = args.windows(2).any(|w| w[0] == "--format" && w[1] == "json")
                || args.iter().any(|a| a == "--format=json");
            if json && e.use_stderr() {
                // Its first paragraph, which may go on over lines (the missing arguments).
                let text = e.render().to_string();
                let first = text.split("\n\n").next().unwrap_or_default();
                let first = first.lines().map(str::trim).collect::<Vec<_>>().join(" ");
                crate::diagnostic::JsonFailure {
                    error: first.strip_prefix("error: ").unwrap_or(&first).to_string(),
                    help: Some("run the command with --help for its arguments".to_string()),
                    exit_code: e.exit_code(),
                    diagnostics: Vec::new(),
                }
                .print();
            }
            e.exit()
        }
    };
    // The context flags first: `from_arg_matches_mut` takes the subcommand out of the matches.
    let mut context_flags = Vec::new();
    if let Some((_, sub)) = matches.subcommand() {
        for name in decls.keys() {
            if let Ok(Some(values)) = sub.try_get_many::<String>(&context_id(name)) {
                context_flags.extend(values.map(|v| (name.clone(), format!("--{name}"), v.clone())));
            }
        }
    }
    let mut cli = Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|e| e.exit());
    cli.context_decls = found;
    cli.context_flags = context_flags;
    cli.args = args;
    cli
}

/// The `--color` a command line gives (the last one), for clap's own help and errors, which
/// it prints before the flag is parsed.
fn prescan_color(args: &[OsString]) -> ColorChoice {
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return ColorChoice::Never;
    }
    let given = args.iter().enumerate().filter_map(|(i, a)| match a.to_str()? {
        "--color" => args.get(i + 1)?.to_str(),
        a => a.strip_prefix("--color="),
    });
    let mut valid = given.filter_map(|v| <ColorChoice as clap::ValueEnum>::from_str(v, false).ok());
    valid.next_back().unwrap_or(ColorChoice::Auto)
}

/// The arguments of a `check` command line (`args`, program name first) as the `generate`
/// that brings the output up to date: the same ones, `generate` in place of `check`, and
/// without check's `--format` (generate's takes other values, for another purpose).
pub fn generate_for_check(args: &[OsString], force: bool) -> Vec<String> {
    // Before the command name come only the global options, some with a value: `check` there
    // may be a value (`--out check`).
    let cmd = Cli::command();
    let valued: Vec<String> = cmd
        .get_arguments()
        .filter(|a| a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut words = Vec::new();
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = it.next() {
        if a == "check" {
            words.push("generate".to_string());
            // Right after the command it belongs to: a word before it may be an option's value
            // that reads `generate` (`--out generate`).
            words.extend(force.then(|| "--force".to_string()));
            break;
        }
        let value = valued.contains(&a).then(|| it.next()).flatten();
        words.extend(std::iter::once(a).chain(value));
    }
    while let Some(a) = it.next() {
        if a == "--" {
            words.push(a);
            words.extend(it.by_ref());
        } else if a == "--format" {
            it.next();
        } else if !a.starts_with("--format=") {
            words.push(a);
        }
    }
    words
}

/// Prints the shell completions of the command line a catalog with these context variables
/// gets (each variable has its own flag).
pub fn print_completions(shell: clap_complete::Shell, decls: &model::ContextDecls) {
    clap_complete::generate(shell, &mut command(decls), "ixgen", &mut std::io::stdout());
}

/// Tool filters (the catalog's `filters` are the defaults).
#[derive(Debug, Clone, Args, Default, serde::Serialize)]
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

impl FilterArgs {
    /// The filter flags given, as written on the command line (`--read-only --tier free`).
    pub fn given(&self) -> String {
        let list = |flag: &str, tools: &[String]| (!tools.is_empty()).then(|| format!("{flag} {}", tools.join(",")));
        let given = [
            self.read_only.then(|| "--read-only".to_string()),
            list("--enable-tools", &self.enable_tools),
            list("--disable-tools", &self.disable_tools),
            self.tier.as_ref().map(|t| format!("--tier {t}")),
        ];
        given.into_iter().flatten().collect::<Vec<_>>().join(" ")
    }
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

/// `--profile`'s values: the MCP host's protocol revisions (the host module knows no clap).
impl ValueEnum for Profile {
    fn value_variants<'a>() -> &'a [Self] {
        &Profile::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.about()))
    }
}
