//! The pipeline behind each command: load the catalog, lower it, plan every host, and write,
//! check or report; the run record's replay for a write that can change nothing. Commands
//! print and return an exit code; they never write files themselves (that is
//! `crate::output`). Exit codes: 0 success, 1 a check found something, 2 bad input, 70 a bug.

use crate::catalog;
use crate::cli::{
    CheckFormat, Cli, ColorChoice, Command, ContextArgs, DiffFormat, FilterArgs, Format, ListFormat, SchemaKind,
    Selection, WriteArgs,
};
use crate::diagnostic::{self, Diagnostic, JsonDiagnostic, JsonFailure, Severity};
use crate::error::Error;
use crate::escape;
use crate::hosts::{self, DynHost, Options, mcp::Profile};
use crate::model::{self, Filter, Model};
use crate::output::{self, Action, WriteOptions};
use crate::record;
use std::io::{IsTerminal, Write};

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
    model: &'static Model,
    plan: crate::plan::Plan<'static>,
    /// Warnings about the options, printed before the results.
    notes: Vec<String>,
    /// The catalog's warnings as printed, with and without colors (a run record keeps them).
    warnings: record::Warnings,
}

/// What a write or check command asks for (see [`App::asked`]). Serialized, without the
/// context values and how to write, it is part of the run record's key.
#[derive(serde::Serialize)]
struct Asked<'a> {
    /// The command's name: a host's own command (`opencode`, `claude`, `mcp`) writes that host.
    command: &'static str,
    /// The targets `generate` or `check` names (none: every one the catalog enables).
    targets: &'a [String],
    profiles: &'a [Profile],
    filters: &'a FilterArgs,
    toolset: Option<&'a str>,
    #[serde(skip)]
    context: Option<&'a ContextArgs>,
    /// How to write; `None` for `check`.
    #[serde(skip)]
    write: Option<&'a WriteArgs>,
}

impl<'a> Asked<'a> {
    /// A host's own command: that host, in the default MCP revision, without context.
    fn own(command: &'static str, filters: &'a FilterArgs, write: Option<&'a WriteArgs>) -> Asked<'a> {
        Asked {
            command,
            targets: &[],
            profiles: &[Profile::V2025_11_25],
            filters,
            toolset: None,
            context: None,
            write,
        }
    }

    /// `generate` or `check`: the targets they name, or every one the catalog enables.
    fn selection(command: &'static str, s: &'a Selection, write: Option<&'a WriteArgs>) -> Asked<'a> {
        Asked {
            targets: &s.targets,
            profiles: &s.profiles,
            context: Some(&s.context),
            ..Asked::own(command, &s.filters, write)
        }
    }
}

struct App {
    cli: Cli,
    color: bool,
    loaded: Option<diagnostic::SourceFile>,
}

impl App {
    /// The model is never dropped, by any command: it lives until the process ends, which
    /// frees it at once, where dropping it freed a large catalog's tools one allocation at a
    /// time (a tenth of a 10,000-tool `validate`).
    fn load(&mut self) -> Result<(&'static Model, Vec<Diagnostic>), Error> {
        let (model, file, warnings) = hosts::load(self.cli.catalog.as_deref())?;
        self.loaded = Some(file);
        Ok((Box::leak(Box::new(model)), warnings))
    }

    /// An error the catalog's text can show where it comes from, as a diagnostic there (with
    /// its line and column): two targets that write one path are pointed at in `targets`.
    fn on_catalog(&self, e: Error) -> Error {
        match (self.located_collision(&e), &self.loaded) {
            (Some(diagnostic), Some(file)) => Error::Catalog {
                file: file.clone(),
                diagnostics: vec![diagnostic],
            },
            _ => e,
        }
    }

    /// The diagnostic of an [`Error::Collision`] (two targets that write one path, or a file where
    /// a folder is needed), at the
    /// second target's key in the loaded catalog's text.
    fn located_collision(&self, e: &Error) -> Option<Diagnostic> {
        let Error::Collision { path, targets, inside } = e else {
            return None;
        };
        let mut diagnostic = Diagnostic::error(
            "path-collision",
            format!("targets.{}", targets.1),
            crate::error::collision_message(path, targets, inside.as_deref()),
        )
        .at_key()
        .help(crate::error::COLLISION_HELP);
        catalog::load::locate(std::slice::from_mut(&mut diagnostic), &self.loaded.as_ref()?.text);
        Some(diagnostic)
    }

    /// Two paths one `generate` of every enabled target would write twice, for `validate`:
    /// every enabled target is planned, the session tools with a stand-in for each context
    /// value without a default (no path depends on a value).
    fn planned_collision(&self, model: &Model) -> Option<Diagnostic> {
        let targets: Vec<&'static dyn DynHost> = hosts::enabled_hosts(model).collect();
        let decls = &model.context;
        let stand_ins = decls
            .iter()
            .filter(|(_, d)| d.default.is_none())
            .map(|(name, d)| {
                let value = match d.ty {
                    model::ContextType::Integer => model::ContextValue::Integer(1),
                    _ => model::ContextValue::Text("validate".into()),
                };
                (name.clone(), value)
            })
            .collect();
        let opts = Options {
            context: model::apply_defaults(decls, &stand_ins, &self.cli.out).ok()?,
            profiles: vec![Profile::V2025_11_25],
            ..Options::default()
        };
        self.located_collision(&hosts::plan(model, &targets, &opts).err()?)
    }

    /// Loads the catalog and prints its warnings.
    fn load_warned(&mut self) -> Result<&'static Model, Error> {
        let (model, warnings) = self.load()?;
        if let (Some(file), false) = (&self.loaded, warnings.is_empty()) {
            eprint!("{}", diagnostic::render(&warnings, file, self.color));
        }
        Ok(model)
    }

    /// Prints a catalog's diagnostics, then how many are errors in a line that ends with `then`.
    fn print_problems(&self, diags: &[Diagnostic], file: &diagnostic::SourceFile, then: &str) {
        eprint!("{}", diagnostic::render(diags, file, self.color));
        let n = errors(diags);
        eprintln!("error: {n} problem(s) in {}{then}", escape::terminal(&file.name));
    }

    /// Reports a failure on stderr, and on stdout too as the command's format asks: JSON
    /// ([`JsonFailure`]) or GitHub Actions annotations.
    fn report(&self, e: &Error) {
        let write = self.asked().and_then(|a| a.write);
        let (json, github) = match &self.cli.command {
            Command::Validate { format, .. } => (*format == Format::Json, false),
            Command::List { format, .. } | Command::Budget { format } => (*format == ListFormat::Json, false),
            Command::Check { format, .. } => (*format == CheckFormat::Json, *format == CheckFormat::Github),
            Command::Diff { format, .. } => (*format == DiffFormat::Json, *format == DiffFormat::Github),
            _ => (write.is_some_and(|w| w.format == Format::Json), false),
        };
        // Said only by a command that writes (`validate`, `diff` or `serve` never do).
        let then = if write.is_some() { "; nothing was written" } else { "" };
        if json {
            let (error, help, diagnostics) = match e {
                Error::Catalog { file, diagnostics } => (
                    format!("{} problem(s) in {}{then}", errors(diagnostics), file.name),
                    None,
                    diagnostics.iter().map(|d| JsonDiagnostic::new(d, file)).collect(),
                ),
                other => (other.to_string(), other.help(), Vec::new()),
            };
            let exit_code = e.exit_code();
            JsonFailure {
                error,
                help,
                exit_code,
                diagnostics,
            }
            .print();
        } else if github {
            report_github(e);
        }
        match e {
            Error::Catalog { file, diagnostics } => self.print_problems(diagnostics, file, then),
            other => {
                // Messages quote catalog text, paths and values from the tree: escaped, one line.
                let label = diagnostic::error_label(self.color);
                eprintln!("{label}: {}", escape::terminal(&other.to_string()));
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
                let decls = catalog::context_declarations(self.cli.catalog.as_deref())
                    .map(model::context_decls)
                    .unwrap_or_default();
                crate::cli::print_completions(*shell, &decls);
                Ok(0)
            }
            &Command::Validate { strict, format } => self.validate(strict, format),
            Command::List { toolset, format } => {
                let (toolset, json) = (toolset.clone(), *format == ListFormat::Json);
                crate::report::list(self.load_warned()?, toolset.as_deref(), json)?;
                Ok(0)
            }
            &Command::Budget { format } => {
                crate::report::budget(self.load_warned()?, format == ListFormat::Json)?;
                Ok(0)
            }
            Command::Opencode { .. } | Command::Claude { .. } | Command::Mcp { .. } | Command::Generate { .. } => {
                self.generate()
            }
            &Command::Check { format, .. } => self.check(format),
            Command::Serve { http, filters } => crate::serve::run(crate::serve::ServeOptions {
                catalog: self.cli.catalog.clone(),
                http: http.clone(),
                filters: filters.clone(),
            }),
            Command::Diff {
                against,
                require_bump,
                allow_breaking,
                format,
                list_rules,
            } => {
                if *list_rules {
                    print!("{}", crate::diff::list_rules(*format == DiffFormat::Json));
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
        // Exit 2 for a catalog that is invalid; exit 1 for a valid one whose warnings `--strict`
        // makes findings (a check that found something, as `check`'s drift is).
        let (mut diags, file, invalid) = match self.load() {
            Ok((model, mut warnings)) => {
                let file = self.loaded.clone().expect("loaded");
                // What `diff` (the release check) would refuse, found here before it runs.
                let mut later = crate::diff::catalog_problems(model);
                catalog::load::locate(&mut later, &file.text);
                let mut invalid = later.iter().any(|d| d.severity == Severity::Error);
                warnings.extend(later);
                if let Some(d) = self.planned_collision(model) {
                    warnings.push(d);
                    invalid = true;
                }
                (warnings, file, invalid)
            }
            Err(Error::Catalog { file, diagnostics }) => (diagnostics, file, true),
            Err(e) => return Err(e),
        };
        let code = match (invalid, strict && !diags.is_empty()) {
            (true, _) => 2,
            (false, true) => 1,
            (false, false) => 0,
        };
        if strict {
            diags.iter_mut().for_each(|d| d.severity = Severity::Error);
        }
        let summary = match code {
            2 => format!("{} problem(s) in {}", errors(&diags), file.name),
            _ => format!("{} warning(s) in {}, errors under --strict", diags.len(), file.name),
        };
        if format == Format::Json {
            let report = diagnostic::JsonValidated {
                file: &file.name,
                valid: code == 0,
                diagnostics: diags.iter().map(|d| JsonDiagnostic::new(d, &file)).collect(),
                failure: (code != 0).then_some(JsonFailure {
                    error: summary,
                    help: None,
                    exit_code: code,
                    diagnostics: Vec::new(),
                }),
            };
            println!("{}", serde_json::to_string_pretty(&report).expect("serializes"));
        } else {
            eprint!("{}", diagnostic::render(&diags, &file, self.color));
            if code != 0 {
                eprintln!("error: {}", escape::terminal(&summary));
                return Ok(code);
            }
            let warned = match diags.len() {
                0 => String::new(),
                w => format!(" ({w} warning(s))"),
            };
            println!("{} is valid{warned}", escape::terminal(&file.name));
        }
        Ok(code)
    }

    /// The plan of the current write or check command: its hosts' files and, when it covers
    /// every target the catalog enables (`generate` or `check` naming none), the groups of the
    /// targets it no longer enables, so that what they wrote is removed (`generate`) or
    /// reported as extra (`check`).
    fn prepare(&mut self) -> Result<Prepared, Error> {
        let (model, warnings) = self.load()?;
        // Rendered once in each style: the run record replays both.
        let warnings = match &self.loaded {
            Some(file) if !warnings.is_empty() => record::Warnings {
                plain: diagnostic::render(&warnings, file, false),
                color: diagnostic::render(&warnings, file, true),
            },
            _ => record::Warnings::default(),
        };
        warnings.print(self.color);
        let asked = self
            .asked()
            .ok_or_else(|| Error::internal("a command that does not plan reached prepare"))?;
        let host =
            |name: &str| hosts::get(name).ok_or_else(|| Error::internal(format!("no host `{name}` in the registry")));
        let every = matches!(asked.command, "generate" | "check") && asked.targets.is_empty();
        let mut targets: Vec<&'static dyn DynHost> = if !matches!(asked.command, "generate" | "check") {
            vec![host(asked.command)?]
        } else if every {
            hosts::enabled_hosts(model).filter(|h| h.by_default()).collect()
        } else {
            // A target named twice is one target (`generate mcp mcp`), not two that collide.
            let first = |(i, t): &(usize, &String)| !asked.targets[..*i].contains(t);
            let named = asked.targets.iter().enumerate().filter(first);
            named.map(|(_, t)| host(t)).collect::<Result<_, _>>()?
        };
        let (context, filters) = (model::check_context(&model.context, &self.flags()?)?, asked.filters);
        let (filter, mut notes) = Filter::resolve(
            model,
            filters.read_only,
            &filters.enable_tools,
            &filters.disable_tools,
            filters.tier.as_deref(),
        )?;
        // Hosts that need the run's context come with it: given the context, `opencode`, and
        // `generate` or `check` of every enabled target (whether or not that includes
        // `opencode`), write them too.
        let names: Vec<&str> = targets.iter().map(|h| h.name()).collect();
        if !context.is_empty() && (every || names.contains(&"opencode")) {
            let missing = |h: &&'static dyn DynHost| !h.by_default() && !names.contains(&h.name());
            targets.extend(hosts::enabled_hosts(model).filter(missing));
        }
        if !context.is_empty() && targets.iter().all(|h| h.by_default()) {
            let takers: Vec<String> = hosts::enabled_hosts(model)
                .filter(|h| !h.by_default())
                .map(|h| format!("`{}`", h.name()))
                .collect();
            let help = if takers.is_empty() {
                "the catalog enables no target that takes them (`targets.session`): leave them out".to_string()
            } else {
                format!(
                    "name {} among the targets (or name none), or leave them out",
                    takers.join(", ")
                )
            };
            return Err(Error::usage(
                format!(
                    "context values ({}) only apply to the session tools, which this command does not write",
                    context.keys().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ),
                help,
            ));
        }
        // The session tools get the catalog's defaults for what the run did not give.
        let context = if targets.iter().any(|h| !h.by_default()) {
            model::apply_defaults(&model.context, &context, &self.cli.out)?
        } else {
            context
        };
        notes.extend(hosts::check_allowlist(model, &targets, &filter)?);
        hosts::check_passed(model, &targets, &filter, &filters.given())?;
        let opts = Options {
            filter,
            context,
            toolset: asked.toolset.map(str::to_string),
            // As the targets: a revision named twice is written once.
            profiles: Profile::ALL
                .into_iter()
                .filter(|p| asked.profiles.contains(p))
                .collect(),
        };
        let mut plan = hosts::plan(model, &targets, &opts).map_err(|e| self.on_catalog(e))?;
        if every {
            hosts::retire_disabled(model, &mut plan);
        }
        Ok(Prepared {
            model,
            plan,
            notes,
            warnings,
        })
    }

    /// The context values the command line gives, as (variable, flag, value): each variable's
    /// own flag, then `--context` (none for a command that takes no context). A variable given
    /// twice must be given the same value both times.
    fn flags(&self) -> Result<Vec<(String, String, String)>, Error> {
        let Some(c) = self.asked().and_then(|a| a.context) else {
            return Ok(Vec::new());
        };
        let mut raw = self.cli.context_flags.clone();
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
            let sep = if flag.starts_with("--context ") { '=' } else { ' ' };
            format!("{flag}{sep}{}", escape::debug_quote(value))
        };
        let mut unique: Vec<(String, String, String)> = Vec::new();
        for (name, flag, value) in raw {
            match unique.iter().find(|(n, _, _)| *n == name) {
                Some((_, f0, v0)) if *v0 != value => {
                    let (first, second) = (shown(f0, v0), shown(&flag, &value));
                    return Err(Error::usage(
                        format!("`{name}` is given two values: {first} and {second}"),
                        format!("give `{name}` once"),
                    ));
                }
                Some(_) => {}
                None => unique.push((name, flag, value)),
            }
        }
        Ok(unique)
    }

    /// The run record's key for this write (see `crate::record`), with the hash of the
    /// catalog bytes it covers; `None` when the run neither replays nor keeps a record: a dry
    /// run, `--force`, or input the full path must report on.
    fn record_key(&self) -> Option<(String, Option<blake3::Hash>)> {
        let asked = self.asked()?;
        let write = asked.write?;
        // A replay needs the context declarations read before loading (the command line's).
        self.cli.context_decls.as_ref()?;
        if write.dry_run || write.force {
            return None;
        }
        // The names of the context variables given (their values reach only per-run files).
        let given: Vec<String> = self.flags().ok()?.into_iter().map(|(name, _, _)| name).collect();
        let path = self.cli.catalog.as_deref();
        let bytes = path.map(catalog::load::catalog_bytes).transpose().ok()?;
        let name = path.map(|p| p.display().to_string());
        // The context declarations are not in the key: they are the catalog's, whose bytes are.
        let run = serde_json::to_vec(&(&asked, given)).expect("a run key serializes");
        let key = record::key(name.as_deref().zip(bytes.as_deref()), &run);
        Some((key, bytes.map(|b| blake3::hash(&b))))
    }

    /// Replays the run record when it matches this run: `None` when the run must render.
    fn replay(&self, key: &str) -> Result<Option<(output::Outcome, record::Warnings)>, Error> {
        // Values the full path would refuse are its to report.
        let Some(Ok(values)) = self.cli.context_decls.as_ref().map(|decls| {
            let given = self.flags().and_then(|raw| model::check_context(decls, &raw));
            given.and_then(|given| model::apply_defaults(decls, &given, &self.cli.out))
        }) else {
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
            && let Some((outcome, warnings)) = self.replay(k)?
        {
            warnings.print(self.color);
            return Ok(self.report_written(&outcome, true));
        }
        let mut p = self.prepare()?;
        // The notes about the options are warnings too, and are replayed with the catalog's.
        for n in p.notes {
            let line = format!("warning: {}\n", escape::terminal(&n));
            eprint!("{line}");
            p.warnings.plain.push_str(&line);
            p.warnings.color.push_str(&line);
        }
        // The catalog is read once for the key and again to load it: a record may only say
        // what the run rendered, so a catalog that changed in between (an editor saving,
        // a checkout) keeps none.
        let loaded = self.loaded.as_ref();
        let same_catalog = match &key {
            Some((_, Some(hashed))) => loaded.is_some_and(|file| blake3::hash(file.text.as_bytes()) == *hashed),
            _ => true,
        };
        // The catalog's text was kept to locate diagnostics, and every one is printed by now:
        // a large catalog's text is memory the write can use.
        self.loaded = None;
        crate::alloc::release_freed();
        let write = self.write_args();
        let outcome = output::write(
            p.plan,
            &self.cli.out,
            WriteOptions {
                force: write.force,
                dry_run: write.dry_run,
            },
        )?;
        // A replay checks its context against the declarations read before loading (the
        // command line's); it may rely on them only if they are what the full load read.
        let same_declarations = self.cli.context_decls.as_ref().is_some_and(|d| *d == p.model.context);
        if let Some((k, _)) = key
            && same_catalog
            && same_declarations
            && outcome.notes.is_empty()
        {
            let icon = p.model.product.icon.iter();
            let inputs = icon
                .filter_map(|(path, bytes)| Some((path.clone(), output::content_hash(bytes.as_deref()?))))
                .collect();
            record::save(&self.cli.out, &outcome, k, inputs, p.warnings);
        }
        Ok(self.report_written(&outcome, false))
    }

    fn write_args(&self) -> &WriteArgs {
        self.asked().and_then(|a| a.write).expect("only write commands write")
    }

    /// What the current write or check command asks for, whichever command it is; `None` for
    /// a command that writes nothing.
    fn asked(&self) -> Option<Asked<'_>> {
        Some(match &self.cli.command {
            Command::Opencode {
                toolset,
                context,
                filters,
                write,
            } => Asked {
                toolset: toolset.as_deref(),
                context: Some(context),
                ..Asked::own("opencode", filters, Some(write))
            },
            Command::Claude { filters, write } => Asked::own("claude", filters, Some(write)),
            Command::Mcp {
                profiles,
                filters,
                write,
            } => Asked {
                profiles,
                ..Asked::own("mcp", filters, Some(write))
            },
            Command::Generate { selection, write } => Asked::selection("generate", selection, Some(write)),
            Command::Check { selection, .. } => Asked::selection("check", selection, None),
            _ => return None,
        })
    }

    /// Prints what a write did (`replayed`: from the run record, without rendering).
    fn report_written(&self, outcome: &output::Outcome, replayed: bool) -> i32 {
        let write = self.write_args();
        for n in &outcome.notes {
            eprintln!("note: {}", escape::terminal(n));
        }
        let mut stdout = std::io::stdout().lock();
        if write.format == Format::Json {
            let change = |c: &output::Change| serde_json::json!({ "path": c.path, "action": c.action });
            let changes: Vec<_> = outcome.changes.iter().map(change).collect();
            let json = serde_json::json!({ "dry_run": write.dry_run, "replayed": replayed, "files": changes });
            let _ = writeln!(stdout, "{}", serde_json::to_string_pretty(&json).expect("serializes"));
            return 0;
        }
        let verb = if write.dry_run { "would " } else { "" };
        for c in outcome.changed().filter(|_| !write.quiet) {
            let word = match c.action {
                Action::Create => "create",
                Action::Update => "update",
                _ => "remove",
            };
            let _ = writeln!(stdout, "{verb}{word:<7} {}", c.path);
        }
        let count = |action| outcome.changes.iter().filter(|c| c.action == action).count();
        if !write.quiet || write.dry_run {
            let dry = if write.dry_run { "dry run: " } else { "" };
            let [created, updated, removed, unchanged] =
                [Action::Create, Action::Update, Action::Remove, Action::Unchanged].map(count);
            let out = escape::display_path(&self.cli.out);
            let replay = match replayed {
                true => " (same catalog and options as the last run: nothing rendered)",
                false => "",
            };
            let counts = format!("{created} created, {updated} updated, {removed} removed, {unchanged} unchanged");
            let _ = writeln!(stdout, "{dry}{counts} in {out}{replay}");
        }
        0
    }

    fn check(&mut self, format: CheckFormat) -> Result<i32, Error> {
        let p = self.prepare()?;
        // A writer holds the lock exclusively: waiting for it means never reporting a
        // half-applied run as drift.
        let _lock = output::lock_shared(&self.cli.out)?;
        let (outcome, _) = output::compare(p.plan, &self.cli.out, true)?;
        for n in &outcome.notes {
            eprintln!("note: {}", escape::terminal(n));
        }
        // Drift that only a forced `generate` brings up to date: an edit ixgen will not replace
        // or remove otherwise, or a file it does not own.
        let forced: Vec<&crate::paths::RelPath> = outcome.changed().filter(|c| c.forced).map(|c| &c.path).collect();
        for path in &forced {
            eprintln!(
                "note: `{path}` holds changes ixgen did not write (or is not ixgen's); `generate` replaces them only with --force"
            );
        }
        let drift = output::drift(&outcome);
        let out = &self.cli.out;
        // What brings the output up to date: this command line, as `generate` (built only for
        // drift: it parses the command-line definitions again).
        let generate = if drift.is_empty() {
            String::new()
        } else {
            // Another product's folder, or an edit: `generate` refuses them without `--force`.
            let force = outcome.other_product.is_some() || !forced.is_empty();
            let words = crate::cli::generate_for_check(&self.cli.args, force);
            let words: Vec<String> = words.iter().map(|w| escape::shell_word(w)).collect();
            escape::terminal(&format!("ixgen {}", words.join(" ")))
        };
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
                    let file = escape::display_path(&out.join(&d.path));
                    let msg = match d.kind {
                        "stale" => "is out of date",
                        "missing" => "is missing",
                        _ => "is no longer generated",
                    };
                    let message = format!("{} {msg}; run `{generate}` and commit the result", d.path);
                    let line = escape::gh_annotation("error", Some(&file), None, "ixgen drift", &message);
                    println!("{line}");
                }
            }
            CheckFormat::Text => {
                let mut stdout = std::io::stdout().lock();
                for d in &drift {
                    let _ = match d.kind {
                        "stale" => write!(stdout, "{}", d.diff.as_deref().unwrap_or_default()),
                        "missing" => writeln!(stdout, "missing: {}", d.path),
                        _ => writeln!(stdout, "extra:   {} (owned by ixgen, no longer generated)", d.path),
                    };
                }
                let shown = escape::display_path(out);
                if drift.is_empty() {
                    let n = outcome.changes.len();
                    let _ = writeln!(stdout, "{n} generated file(s) are up to date in {shown}");
                } else {
                    eprintln!("error: {} file(s) in {shown} are stale, missing or extra", drift.len());
                    eprintln!("  help: run `{generate}` and commit the result");
                }
            }
        }
        Ok(if drift.is_empty() { 0 } else { 1 })
    }
}

/// How many of the diagnostics are errors.
fn errors(diags: &[Diagnostic]) -> usize {
    diags.iter().filter(|d| d.severity == Severity::Error).count()
}

/// A failure as GitHub Actions annotations on stdout (`check` and `diff` with `--format
/// github`): one a diagnostic, on its line, so that a pull request that breaks the catalog shows
/// where, and not only a failed step. The text still goes to stderr.
fn report_github(e: &Error) {
    let with_help = |message: &str, help: Option<&str>| match help {
        Some(h) => format!("{message} (help: {h})"),
        None => message.to_owned(),
    };
    match e {
        Error::Catalog { file, diagnostics } => {
            // Annotated on the file when it is one in the checkout; an older catalog read from
            // git (`diff --against main`: `main:tools.yaml`) or the embedded one is not, and its
            // place goes into the message instead.
            let in_tree = std::path::Path::new(&file.name).is_file();
            for d in diagnostics {
                let kind = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                let message = match (in_tree, d.pos) {
                    (true, _) => d.message.clone(),
                    (false, Some((line, col))) => format!("{}:{line}:{col}: {}", file.name, d.message),
                    (false, None) => format!("{}: {}", file.name, d.message),
                };
                let at = d.pos.map(|(line, col)| (line, Some(col)));
                let title = format!("ixgen {}", d.code);
                let message = with_help(&message, d.help.as_deref());
                let on = in_tree.then_some(&*file.name);
                println!("{}", escape::gh_annotation(kind, on, at, &title, &message));
            }
        }
        // On the file it is about, when that is one in the checkout (a corrupt manifest, a file
        // edited since ixgen wrote it).
        other => {
            let file = other.path().filter(|p| std::path::Path::new(p).is_file());
            let message = with_help(&other.to_string(), other.help().as_deref());
            println!("{}", escape::gh_annotation("error", file, None, "ixgen", &message));
        }
    }
}
