//! The lowering pass: a typed catalog → the model, or every diagnostic at once.
//!
//! Each function here both checks one catalog node and returns its IR node: `Some` when the
//! node and everything below it lowered without an error, `None` when an error was reported.
//! Nothing is checked in one place and rebuilt in another, and every template is parsed once,
//! here. The catalog-level rules that need no IR (names, context declarations, shared
//! parameters, toolsets, filters, server) stay in `crate::catalog::validate`; this pass runs
//! them first so that one call reports everything.
//!
//! A tool that comes back `None` without an error diagnostic is a bug in this pass, reported as
//! [`Error::Internal`], never as the user's mistake.

mod render;
mod rules;

use super::{Lowered, Model, ParamDoc, ToolModel};
use crate::catalog::rules::check_value;
use crate::catalog::validate::{self, value_help};
use crate::catalog::{Access, Arg, Catalog, Cond, Confirm, Loaded, Param, ParamType, RouteOutput, Step, Stream, Tool};
use crate::diagnostic::{Diagnostic, Report, Severity, hint_for};
use crate::error::Error;
use crate::escape::one_line;
use crate::spec::*;
use crate::template::{Part, Template, is_identifier, line_col, placeholder_offset};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// How to write the placeholders of a template that names parameters and context variables, and
/// of one that also reads step data.
const NAME_HELP: &str = "placeholders are `{name}`; `{{` and `}}` are literal braces";
const STEP_DATA_HELP: &str = "placeholders are `{name}` or `{step.field}`; `{{` and `}}` are literal braces";

/// What a template inside a tool may refer to.
struct Scope<'a> {
    params: &'a HashMap<&'a str, &'a Param>,
    extra: &'a [&'a str],
}

/// Catalog-level nodes every tool shares, lowered once.
struct Shared {
    /// `cli.fallback`: `Some(None)` when the catalog has none, `None` when it failed to lower.
    /// Each tool with a `run` step holds it (`Arc`: 10,000 tools, one template).
    cli_fallback: Option<Option<Arc<Template>>>,
    /// `cli.recovery`, as `cli_fallback`.
    cli_recovery: Option<Option<Arc<Template>>>,
    /// The store's program and path template; `None` without a store or when its path failed.
    store: Option<(String, Template)>,
}

/// The one lowering pass: turns a loaded catalog into the model, or into every diagnostic at
/// once (catalog-level rules, each tool's parameters, steps, conditions, argv elements and
/// templates, and `later`'s findings), located in the catalog's text. Every template is parsed
/// here, once. `later` is the hosts' check, run on the model once the catalog-level rules
/// passed (the model stage cannot name the hosts): it parses each host's settings into the
/// model's `targets`; `source_name` is the catalog's file name for generated headers. The
/// shared nodes are lowered once, then each tool. An `Error::Internal` is a bug in this pass.
pub fn lower(
    loaded: Loaded,
    source_name: &str,
    later: impl FnOnce(&mut Model) -> Vec<Diagnostic>,
) -> Result<Lowered, Error> {
    let Loaded { mut catalog, file } = loaded;
    // Keys that do nothing, read (and taken out) before lowering takes the tools.
    let idle = crate::catalog::rules::no_effect(&mut catalog);
    crate::catalog::rules::whole_defaults(&mut catalog);
    let mut diags = validate::validate(&catalog);
    let catalog_ok = !diags.iter().any(|d| d.severity == Severity::Error);
    // Each tool is freed as soon as its model is built (its parameters move into the model),
    // so a large catalog's typed tools and their models are never all in memory at once.
    // Nothing after lowering reads the catalog's tools: the model has them.
    let tools = std::mem::take(&mut catalog.tools);
    let cat = &catalog;
    let mut top = Lower::new(cat);
    let none = HashMap::new();
    let context_only = Scope {
        params: &none,
        extra: &[],
    };
    // Every tool with a `run` step shows it: it may name context variables only.
    let fallback = cat.cli.as_ref().and_then(|c| c.fallback.as_deref());
    let cli_fallback = top
        .optional_template("cli", "fallback", fallback, &context_only)
        .map(|f| f.map(Arc::new));
    // Shown after a failed `run` step, with the values of that tool (a syntax error here was
    // once no error at all, and every tool that runs the CLI failed to lower).
    let cli_recovery = optional(cat.cli.as_ref().and_then(|c| c.recovery.as_ref()), |r| {
        top.parse("cli.recovery", r, NAME_HELP)
    })
    .map(|r| r.map(Arc::new));
    let store = (cat.store.as_ref())
        .and_then(|s| (top.template("store.path", &s.path, &context_only)).map(|path| (s.program.clone(), path)));
    diags.extend(top.diags);
    let shared = Shared {
        cli_fallback,
        cli_recovery,
        store,
    };
    // Each tool lowers independently: run them on every core for a large catalog, keeping
    // the catalog's order of tools and diagnostics.
    let count = tools.len();
    let per_tool = crate::par::map_owned(tools, |i, t| {
        let mut l = Lower::new(cat);
        let tool = l.tool(i, *t, &shared);
        (tool, l.diags)
    });
    let (mut tools, mut missing) = (Vec::with_capacity(count), None);
    for (i, (tool, found)) in per_tool.enumerate() {
        diags.extend(found);
        missing = missing.or(tool.is_none().then_some(i));
        tools.extend(tool);
    }
    // What the catalog holds beside the tools moves into the model.
    let by_name = tools.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
    let f = catalog.filters;
    let mut model = Model {
        product: catalog.product.into(),
        server: catalog.server.map(Into::into),
        toolsets: (catalog.toolsets.into_iter())
            .map(|(name, ts)| (name, super::Toolset { tools: ts.tools }))
            .collect(),
        context: super::context_decls(catalog.context),
        filters: super::Filter {
            read_only: f.read_only,
            enable: f.enable,
            disable: f.disable,
            tier: f.tier,
        },
        lint: catalog.lint.into(),
        targets: (catalog.targets.into_iter())
            .map(|(name, raw)| (name, super::Target { raw, parsed: None }))
            .collect(),
        source_name: source_name.to_string(),
        tools,
        shared: SpecShared {
            runtime: catalog.runtime.map(|rt| SharedRuntime {
                url_env: rt.url_env,
                default_url: rt.default_url,
                timeout_ms: rt.timeout_ms,
                markdown_field: rt.markdown_field,
            }),
            fallback: shared.cli_fallback.flatten(),
            program: catalog.cli.map(|c| c.binary),
        },
        by_name,
    };
    // The hosts' checks read the names and toolsets the catalog-level rules check, and the
    // tools that lowered; their findings come after the tools' own.
    let later = if catalog_ok { later(&mut model) } else { Vec::new() };
    // Warnings are ordered by position only once the later checks or the keys that do nothing
    // added some, which keeps the order `validate` has always printed.
    let sort = !later.is_empty() || !idle.is_empty();
    diags.extend(later);
    let failed = diags.iter().any(|d| d.severity == Severity::Error);
    if let Some(i) = missing.filter(|_| !failed) {
        return Err(Error::internal(format!(
            "tools[{i}] did not lower, but no check reported why"
        )));
    }
    diags.extend(idle);
    crate::catalog::load::locate(&mut diags, &file.text);
    if failed {
        diags.sort_by_key(|d| (d.severity != Severity::Error, d.pos));
        return Err(Error::Catalog {
            file,
            diagnostics: diags,
        });
    }
    if sort {
        diags.sort_by_key(|d| d.pos);
    }
    Ok(Lowered {
        model,
        file,
        warnings: diags,
    })
}

/// Lowers an optional catalog field: `Some(None)` when it is absent, `None` when it failed.
fn optional<X, T>(x: Option<X>, f: impl FnOnce(X) -> Option<T>) -> Option<Option<T>> {
    x.map_or(Some(None), |x| f(x).map(Some))
}

/// The test of a condition on `param` (a parameter, or a field of step data): its `in` or
/// `equals`, else `contains`, else `set` (a field condition passes no `contains` and a `set`
/// of its own); `None` without one (the condition's check reported it).
fn value_test(param: String, c: &Cond, contains: Option<&serde_json::Value>, set: Option<bool>) -> Option<SpecCond> {
    Some(match (&c.in_values, &c.equals, contains) {
        (Some(v), ..) => SpecCond::ParamIn {
            param,
            values: v.clone(),
        },
        (_, Some(v), _) => SpecCond::ParamEquals {
            param,
            equals: v.clone(),
        },
        (.., Some(v)) => SpecCond::ParamContains {
            param,
            contains: v.clone(),
        },
        _ => SpecCond::ParamSet { param, set: set? },
    })
}

/// Lowers every element, reporting on all of them: `None` when any failed, else them collected.
fn all<T, C: FromIterator<T>>(items: Vec<Option<T>>) -> Option<C> {
    items.into_iter().collect()
}

struct Lower<'a> {
    cat: &'a Catalog,
    diags: Vec<Diagnostic>,
    /// Lowering a tool's output blocks, which run after all its steps.
    in_output: bool,
}

impl<'a> Lower<'a> {
    fn new(cat: &'a Catalog) -> Self {
        Lower {
            cat,
            diags: Vec::new(),
            in_output: false,
        }
    }

    /// When exactly one of the `kinds` (key, present) of the node at `path` is there, a mark for
    /// [`Self::clean_since`]; else reports `code`: `what` (the node, "a rule") is exactly one of the keys.
    fn exactly_one(
        &mut self,
        code: &'static str,
        path: &str,
        what: &str,
        kinds: &[(&str, bool)],
        help: &str,
    ) -> Option<usize> {
        if kinds.iter().filter(|k| k.1).count() == 1 {
            return Some(self.diags.len());
        }
        let keys: Vec<String> = kinds.iter().map(|(k, _)| format!("`{k}`")).collect();
        let message = format!("{what} is exactly one of {}", keys.join(", "));
        self.diags.err(code, path, message, help);
        None
    }

    /// `Some(())` when no error was reported since `mark` (a length of `self.diags`): a node
    /// whose checks added one does not lower.
    fn clean_since(&self, mark: usize) -> Option<()> {
        self.diags[mark..]
            .iter()
            .all(|d| d.severity != Severity::Error)
            .then_some(())
    }

    /// Lowers one tool, consuming it: its parameters and texts move into the model.
    fn tool(&mut self, i: usize, owned: Tool, shared: &Shared) -> Option<ToolModel> {
        let tool = &owned;
        let path = format!("tools[{i}]");
        let mark = self.diags.len();
        let cat = self.cat;
        let mut params: HashMap<&str, &Param> = HashMap::new();
        let mut shared_params = Vec::new();
        for (j, name) in tool.use_params.iter().enumerate() {
            match cat.params.get_key_value(name) {
                Some((name, p)) => {
                    params.insert(name.as_str(), p);
                    shared_params.push((name, p));
                }
                None => {
                    let known: Vec<&String> = cat.params.keys().collect();
                    let help = hint_for(name, &known, "declare it under the top-level `params`");
                    self.diags.err(
                        "unknown-param",
                        format!("{path}.use_params[{j}]"),
                        format!("no shared parameter `{name}`"),
                        help,
                    );
                }
            }
        }
        // The tool's own parameters first: a model reads `query` before a shared `format`.
        for (name, p) in &tool.params {
            let ppath = format!("{path}.params.{name}");
            // The catalog-level rules of a parameter (shared with the top-level `params`); the
            // parameter itself moves into the model once the tool lowered.
            self.diags.extend(validate::param(cat, &ppath, name, p));
            if params.insert(name.as_str(), p).is_some() {
                self.diags.err_at_key(
                    "duplicate-param",
                    &ppath,
                    format!("parameter `{name}` is also pulled in by `use_params`"),
                    "remove one of them",
                );
            }
        }
        // Every parameter in the model's order, borrowed until the tool's own move into it.
        let ordered = || tool.params.iter().chain(shared_params.iter().copied());
        for (name, p) in ordered() {
            if let Some(old) = p.renamed_from.as_deref().filter(|old| params.contains_key(old)) {
                let own = tool.params.contains_key(name);
                let at = if own {
                    format!("{path}.params.{name}")
                } else {
                    format!("params.{name}")
                };
                self.diags.push(validate::renamed_from_exists(
                    format!("{at}.renamed_from"),
                    format!(
                        "parameter `{name}` says it was renamed from `{old}`, but tool `{}` still has `{old}`",
                        tool.name
                    ),
                    "parameter",
                ));
            }
        }
        if let Some(tier) = &tool.tier
            && !is_identifier(tier)
        {
            self.diags.err(
                "bad-name",
                format!("{path}.tier"),
                format!("tier `{tier}` is not a valid name"),
                "use a lowercase word such as `free` or `pro`",
            );
        }
        let scope = Scope {
            params: &params,
            extra: &[],
        };
        let heading = self.optional_template(&path, "heading", tool.heading.as_deref(), &scope);
        let own_fallback = self.optional_template(&path, "fallback", tool.fallback.as_deref(), &scope);
        // Confirmation and cross-parameter rules (`rules`); their templates and
        // conditions are checked and lowered here, in the tool's scope.
        self.diags.extend(rules::check_confirm(&path, tool));
        let (subject, preview) = match &tool.confirm {
            Some(Confirm::Rules(c)) => (
                self.optional_template(&path, "confirm.subject", c.subject.as_deref(), &scope),
                // The preview reads step data too: its names are checked by `render`, which
                // knows the steps up to `after`; only the template's syntax is checked here.
                optional(c.preview.as_ref(), |text| {
                    self.parse(&format!("{path}.confirm.preview"), text, STEP_DATA_HELP)
                }),
            ),
            _ => (Some(None), Some(None)),
        };
        let rules = all((tool.rules.iter().enumerate())
            .map(|(i, rule)| self.rule(&format!("{path}.rules[{i}]"), rule, tool, &scope))
            .collect());
        let runtime = optional(tool.runtime.as_ref(), |route| self.route(&path, tool, route, &scope));
        if let Some(why) = &tool.unsupported {
            self.unsupported(&path, tool, why);
        } else if tool.steps.is_empty() && tool.runtime.is_none() {
            self.diags.err(
                "no-steps",
                &path,
                format!("tool `{}` has neither `steps` nor a `runtime` route", tool.name),
                "add a step such as `run: [command, \"{param}\"]`",
            );
        }
        // Step data flow is checked in its own module, which then checks and lowers the
        // `output` blocks.
        let made: Vec<_> = tool.steps.iter().map(render::step_data_schema).collect();
        let parsed_preview = preview.as_ref().and_then(Option::as_ref);
        let mut data = render::Checker::new(cat, &path, tool, &params, &made, parsed_preview);
        let mut step_ids: HashSet<&str> = HashSet::new();
        let mut steps = Vec::with_capacity(tool.steps.len());
        for (k, step) in tool.steps.iter().enumerate() {
            let spath = format!("{path}.steps[{k}]");
            steps.push(self.step(&spath, tool, step, &params, &step_ids, shared));
            if let Some(id) = &step.id {
                let ipath = format!("{spath}.id");
                if !is_identifier(id) {
                    self.diags.err(
                        "bad-name",
                        &ipath,
                        format!("step id `{id}` is not valid"),
                        "use [a-z_][a-z0-9_]*",
                    );
                }
                self.diags
                    .extend(validate::unsafe_value_diagnostic(&ipath, "step id", id));
                if !step_ids.insert(id) {
                    self.diags.err(
                        "duplicate-step",
                        &ipath,
                        format!("step id `{id}` is used twice"),
                        "give each step its own id",
                    );
                }
            }
        }
        let steps = all(steps);
        // Output blocks: every step's result (`step_ids` now has each id) is there to read, and
        // conditions on parameters and steps inside blocks are lowered (and checked) like a step's.
        let mut blocks = Vec::with_capacity(tool.output.len());
        self.in_output = true;
        for (b, block) in tool.output.iter().enumerate() {
            let bpath = format!("{path}.output[{b}]");
            let mut cond = |c: &Cond| self.cond(&format!("{bpath}.when"), c, tool, &params, &step_ids);
            blocks.push(data.block(&bpath, block, &mut cond));
        }
        self.in_output = false;
        self.diags.extend(data.diags);
        self.clean_since(mark)?;
        // The render check passed: a block that does not lower is ixgen's bug (reported as an
        // internal error by the caller, which sees a tool without a diagnostic).
        let output = all(blocks)?;
        // The catalog's `cli.recovery`, for tools that run the CLI.
        let runs_cli = tool.steps.iter().any(|s| s.run.is_some() && s.program.is_none());
        let recovery = if runs_cli { shared.cli_recovery.clone()? } else { None };
        let answer = self.answer(&path, tool, &scope);

        let first = ordered().find(|(_, p)| p.required && matches!(p.ty, ParamType::String | ParamType::Path));
        let heading = heading?.unwrap_or_else(|| match first {
            Some((name, _)) => Template(vec![Part::Text(format!("{}: ", tool.name)), Part::Var(name.clone())]),
            None => Template(vec![Part::Text(tool.name.clone())]),
        });
        let has_run = tool.steps.iter().any(|s| s.run.is_some());
        let fallback = match own_fallback? {
            Some(f) => Some(Arc::new(f)),
            None if has_run => shared.cli_fallback.clone()?,
            None => None,
        };
        let write = tool.access == Access::Write;
        let destructive = tool.destructive.unwrap_or(write);
        let confirm = rules::confirm(tool, destructive, &heading, subject?, preview?);
        let spec = ExecSpec {
            version: SPEC_VERSION,
            name: tool.name.clone(),
            heading,
            params: ordered().map(|(name, p)| super::spec_param(name, p)).collect(),
            runtime: runtime?,
            parallel: tool.parallel,
            steps: steps?,
            fallback,
            confirm,
            rules: rules?,
            redact: rules::redact(tool),
            answer: answer?,
            recovery,
            output,
        };
        let (output_schema, structured_step) = (data.output_schema, data.structured_step);
        let (access, idempotent, open_world) = (tool.access, tool.idempotent, tool.open_world);
        let Tool {
            name,
            title,
            description,
            tier,
            params: own,
            unsupported,
            renamed_from,
            ..
        } = owned;
        // In `ordered()`'s order, the spec's: its entries and these are read side by side.
        let mut param_docs: Vec<ParamDoc> = own.into_values().map(|p| ParamDoc::new(p, false)).collect();
        param_docs.extend(shared_params.into_iter().map(|(_, p)| ParamDoc::new(p.clone(), true)));
        debug_assert_eq!(param_docs.len(), spec.params.len());
        Some(ToolModel {
            name,
            title,
            description,
            tier: tier.unwrap_or_else(|| "free".into()),
            access: access.into(),
            destructive,
            idempotent: idempotent.unwrap_or(!write),
            open_world: open_world.unwrap_or(false),
            confirm: spec.confirm.is_some(),
            param_docs,
            output_schema,
            structured_step,
            spec,
            path,
            renamed_from,
            unsupported: unsupported.as_deref().map(one_line),
        })
    }

    /// The checks of a tool declared `unsupported`, and its warning: the reason must say
    /// something, and nothing that would run may be declared (a step, a route, a fallback, an
    /// output, `parallel`), since no target ever gets the tool. Its description, parameters and
    /// rules stay and are checked as any tool's: they document it.
    fn unsupported(&mut self, path: &str, tool: &Tool, why: &str) {
        let name = &tool.name;
        if why.trim().is_empty() {
            self.diags.err(
                "empty-unsupported",
                format!("{path}.unsupported"),
                format!("tool `{name}` is `unsupported` without a reason"),
                "say what no catalog can express, e.g. `unsupported: \"needs the host's LLM\"`",
            );
        }
        let runs = [
            ("steps", !tool.steps.is_empty()),
            ("runtime", tool.runtime.is_some()),
            ("fallback", tool.fallback.is_some()),
            ("output", !tool.output.is_empty()),
            ("parallel", tool.parallel),
        ];
        for (key, _) in runs.iter().filter(|(_, present)| *present) {
            let message = format!(
                "tool `{name}` is `unsupported`, but its `{key}` would run: \
                 no target gets the tool, so nothing of it ever runs"
            );
            let help = format!(
                "remove `{key}` (keep the description and `params` to document the tool), \
                 or remove `unsupported` if the tool works"
            );
            self.diags
                .err_at_key("unsupported-runs", format!("{path}.{key}"), message, help);
        }
        // The warning of a declaration that is right: a wrong one has its error to fix first.
        if !why.trim().is_empty() && !runs.iter().any(|(_, present)| *present) {
            self.diags.push(
                Diagnostic::warning(
                    "unsupported-tool",
                    format!("{path}.unsupported"),
                    format!(
                        "tool `{name}` is left out of every target and of `ixgen serve`: {}",
                        one_line(why)
                    ),
                )
                .help("`ixgen list` shows it; remove `unsupported` once steps can do what the tool does"),
            );
        }
    }

    fn route(&mut self, path: &str, tool: &Tool, route: &crate::catalog::Route, scope: &Scope) -> Option<SpecRuntime> {
        let rpath = format!("{path}.runtime");
        let mark = self.diags.len();
        if self.cat.runtime.is_none() {
            self.diags.err_at_key(
                "no-runtime",
                &rpath,
                format!(
                    "tool `{}` has a runtime route but the catalog declares no `runtime`",
                    tool.name
                ),
                "add a top-level `runtime: {url_env, default_url}`",
            );
        }
        if !route.path.starts_with('/') {
            self.diags.err(
                "bad-route",
                format!("{rpath}.path"),
                format!("route path `{}` must start with `/`", route.path),
                format!("write `/{}`", route.path),
            );
        }
        // The path is sent as written: a `{param}` in it would reach the service literally.
        if route.path.contains(['{', '}']) {
            self.diags.err(
                "bad-route",
                format!("{rpath}.path"),
                format!(
                    "route path `{}` has a `{{` or `}}`: a path is not a template",
                    route.path
                ),
                "pass values in the route's `body` (a POST), or call the CLI in `steps` instead",
            );
        }
        let body = optional(route.body.as_ref(), |b| {
            self.json_template(&format!("{rpath}.body"), b, scope)
        });
        let markdown = route.output == RouteOutput::Markdown;
        if markdown && self.cat.runtime.as_ref().is_some_and(|r| r.markdown_field.is_none()) {
            self.diags.err_at_key(
                "no-markdown-field",
                rpath.as_str(),
                "the route returns markdown but `runtime.markdown_field` is not set",
                "set `runtime.markdown_field`, or `output: json` on the route",
            );
        }
        self.clean_since(mark)?;
        let rt = self.cat.runtime.as_ref()?;
        Some(SpecRuntime {
            url_env: Some(rt.url_env.clone()),
            default_url: Some(rt.default_url.clone()),
            timeout_ms: Some(rt.timeout_ms),
            method: route.method,
            path: route.path.clone(),
            body: body?,
            markdown_field: rt.markdown_field.clone().filter(|_| markdown),
            json: !markdown,
        })
    }

    fn step(
        &mut self,
        path: &str,
        tool: &Tool,
        step: &Step,
        params: &HashMap<&str, &Param>,
        earlier: &HashSet<&str>,
        shared: &Shared,
    ) -> Option<SpecStep> {
        let mark = self.diags.len();
        let kinds = [
            ("run", step.run.is_some()),
            ("append", step.append.is_some()),
            ("fold", step.fold.is_some()),
            ("update", step.update.is_some()),
            ("signal", step.signal.is_some()),
            ("compute", step.compute.is_some()),
        ];
        let present: Vec<&str> = kinds.iter().filter(|k| k.1).map(|k| k.0).collect();
        match present.len() {
            0 => {
                self.diags.err(
                    "bad-step",
                    path,
                    "a step needs one of `run`, `append`, `fold`, `update`, `signal`, `compute`",
                    "add `run: [command, \"{param}\"]` for a CLI call",
                );
                return None;
            }
            1 => {}
            _ => self.diags.err(
                "bad-step",
                path,
                format!("a step does exactly one thing, this one has {}", present.join(" and ")),
                "split it into several steps",
            ),
        }
        let mut extra: Vec<&str> = Vec::new();
        if let Some(fe) = &step.for_each {
            extra.push("item");
            // A path into an earlier step's result is checked by `render::Checker`.
            let data = fe.contains('.') || earlier.contains(fe.as_str());
            match params.get(fe.as_str()) {
                _ if data => {}
                Some(p) if p.ty == ParamType::Array => {}
                Some(_) => self.diags.err(
                    "bad-for-each",
                    format!("{path}.for_each"),
                    format!("`for_each` needs an array parameter, `{fe}` is not one"),
                    "point it at an array parameter",
                ),
                None => self.diags.err(
                    "unknown-param",
                    format!("{path}.for_each"),
                    format!("`for_each` names no parameter `{fe}`"),
                    hint_for(fe, &params.keys().collect::<Vec<_>>(), "declare the array parameter"),
                ),
            }
        }
        let scope = Scope { params, extra: &extra };
        // Exit codes, streams, limits and timeouts (`rules`).
        self.diags.extend(rules::check_step(path, step, params));
        let when = optional(step.when.as_ref(), |c| {
            self.cond(&format!("{path}.when"), c, tool, params, earlier)
        });
        // The title was never checked against the scope before lowering existed; it is parsed
        // here once, with the same scope as the step's other templates.
        let title = self.optional_template(path, "title", step.title.as_deref(), &scope);
        let with_result = [&extra[..], &["result"]].concat();
        let result_scope = Scope {
            params,
            extra: &with_result,
        };
        let message = self.optional_template(path, "message", step.message.as_deref(), &result_scope);
        let mut exec = None;
        if let Some(argv) = &step.run {
            exec = self.run(path, step, argv, &scope);
        }
        let store_step = step.append.is_some() || step.fold.is_some() || step.update.is_some();
        if store_step && self.cat.store.is_none() {
            self.diags.err(
                "no-store",
                path,
                "store steps need a top-level `store`",
                "add `store: {program: xs, path: \"{store}\"}`",
            );
        }
        // A frame's meta may also say when it was appended (`{now_ms}`): the loop only honours
        // recent completion frames.
        let with_now = [scope.extra, &[crate::catalog::validate::NOW_MS]].concat();
        let meta_scope = Scope {
            params,
            extra: &with_now,
        };
        if let Some(a) = &step.append {
            let topic = self.template(&format!("{path}.append.topic"), &a.topic, &scope);
            let meta = self.json_template(&format!("{path}.append.meta"), &a.meta, &meta_scope);
            let body = self.optional_template(path, "append.body", a.body.as_deref(), &scope);
            exec = shared.store.clone().and_then(|(program, store)| {
                Some(SpecExec::StoreAppend {
                    program,
                    store,
                    topic: topic?,
                    meta: meta?,
                    body: body?,
                })
            });
        }
        if let Some(f) = &step.fold {
            let topic = self.template(&format!("{path}.fold.topic"), &f.topic, &scope);
            let filter = optional(f.filter.as_ref(), |filter| {
                self.template(&format!("{path}.fold.filter.equals"), &filter.equals, &scope)
                    .map(|equals| SpecFilter {
                        field: filter.field.clone(),
                        equals,
                    })
            });
            exec = shared.store.clone().and_then(|(program, store)| {
                Some(SpecExec::StoreFold {
                    program,
                    store,
                    topic: topic?,
                    group_by: f.group_by.clone(),
                    groups: f.groups.clone(),
                    filter: filter?,
                    defaults: f.defaults.clone(),
                    updates: f.updates.clone(),
                })
            });
        }
        if let Some(u) = &step.update {
            let topic = self.template(&format!("{path}.update.topic"), &u.topic, &scope);
            let id = self.template(&format!("{path}.update.id"), &u.id, &scope);
            let meta = self.json_template(&format!("{path}.update.meta"), &u.meta, &meta_scope);
            exec = shared.store.clone().and_then(|(program, store)| {
                Some(SpecExec::StoreUpdate {
                    program,
                    store,
                    topic: topic?,
                    id: id?,
                    meta: meta?,
                })
            });
        }
        if let Some(s) = &step.signal {
            let pid = self.template(&format!("{path}.signal.pid"), &s.pid, &scope);
            let name = s.signal.strip_prefix("SIG");
            if !name.is_some_and(|n| n.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())) {
                self.diags.err(
                    "bad-signal",
                    format!("{path}.signal.signal"),
                    format!("`{}` is not a signal name", s.signal),
                    "use a name such as `SIGTERM` or `SIGINT`",
                );
            }
            exec = pid.map(|pid| SpecExec::Signal {
                pid,
                signal: s.signal.clone(),
                process: s.process.clone(),
            });
        }
        if let Some(src) = &step.compute {
            exec = self.compute(&format!("{path}.compute"), src);
        }
        let cwd = self.optional_template(path, "cwd", step.cwd.as_deref(), &scope);
        let parse = step.parse.as_deref().and_then(rules::parse);
        self.clean_since(mark)?;
        Some(SpecStep {
            id: step.id.clone(),
            title: title?,
            when: when?.map(Box::new),
            for_each: step.for_each.clone(),
            limit: step.limit,
            json: step.json.is_some(),
            message: message?,
            parse: parse.map(Box::new),
            capture: step.capture,
            hidden: step.hidden,
            cwd: cwd?,
            exec: exec?,
            path: path.to_string(),
        })
    }

    /// The tool's `answer`: how its answer is put together. `None` when `empty` does not lower.
    fn answer(&mut self, path: &str, tool: &Tool, scope: &Scope) -> Option<Option<SpecAnswer>> {
        optional(tool.answer.as_deref(), |a| {
            Some(SpecAnswer {
                heading: a.heading.unwrap_or(true),
                trim: a.trim.unwrap_or(true),
                empty: self.optional_template(path, "answer.empty", a.empty.as_deref(), scope)?,
                errors: match a.errors {
                    Some(crate::catalog::AnswerErrors::Error) => SpecErrors::Error,
                    _ => SpecErrors::Text,
                },
            })
        })
    }

    /// A `compute` step: its expression compiled here (with the Rust runtime's CEL library), so a
    /// syntax error is reported where it is, and a function only one runtime has is refused.
    fn compute(&mut self, path: &str, src: &str) -> Option<SpecExec> {
        if let Err(e) = ixgen_runtime::expr::check(src) {
            // An error at the very end of an expression that ends with line breaks (a `|` block
            // keeps one) is at the end of its last line, not on a line the file may not have.
            let text = src.trim_end();
            let lines = text.lines().count().max(1);
            let (line, column) = if e.line > lines {
                (lines, text.lines().last().map_or(0, |l| l.chars().count()) + 1)
            } else {
                (e.line, e.column)
            };
            self.diags.push(
                Diagnostic::inside("bad-expression", path, line, column, format!("the expression does not parse: {}", e.message))
                    .help("`compute:` takes a CEL expression (docs/expressions.md), e.g. `size(todos.filter(t, t.kind == 'TODO'))`; quote it in YAML when it has `:`, `#` or starts with `[`/`{`"),
            );
            return None;
        }
        if let Some(f) = ixgen_runtime::expr::not_portable(src) {
            self.diags.err(
                "bad-expression",
                path,
                format!("`{f}` exists in the Rust runtime's CEL library only, so the OpenCode runtime would fail"),
                "use the functions docs/expressions.md lists, which both runtimes have",
            );
            return None;
        }
        Some(SpecExec::Compute { expr: src.to_string() })
    }

    /// The `run` part of a step: its program, argv and stdin.
    fn run(&mut self, path: &str, step: &Step, argv: &[Arg], scope: &Scope) -> Option<SpecExec> {
        let program = (step.program.clone()).or_else(|| self.cat.cli.as_ref().map(|c| c.binary.clone()));
        if program.is_none() {
            self.diags.err_at_key(
                "no-cli",
                format!("{path}.run"),
                "a `run` step needs a program, and the catalog declares no `cli`",
                "add `cli: {binary: NAME}` or `program:` on the step",
            );
        }
        if argv.is_empty() && step.program.is_none() {
            self.diags.err(
                "bad-step",
                format!("{path}.run"),
                "`run` is empty",
                "give the command's arguments",
            );
        }
        let args = self.argv(&format!("{path}.run"), argv, scope);
        let stdin = self.optional_template(path, "stdin", step.stdin.as_deref(), scope);
        let if_empty = self.optional_template(path, "if_empty", step.if_empty.as_deref(), scope)?;
        // `when_missing`: each alternative's argv is lowered and checked as `run` is.
        let otherwise: Vec<_> = (step.when_missing.iter().enumerate())
            .map(|(k, alt)| {
                Some(SpecAlt {
                    program: alt.program.clone(),
                    argv: self.argv(&format!("{path}.when_missing[{k}].run"), &alt.run, scope)?,
                })
            })
            .collect();
        Some(SpecExec::Cli {
            program: Some(program?),
            argv: args?,
            stdin: stdin?,
            // Listing only 0 is the same as listing nothing: keep the spec short.
            ok_exit: match step.ok_exit.codes() {
                [0] => Vec::new(),
                codes => codes.to_vec(),
            },
            any_exit: step.ok_exit.is_all(),
            otherwise: all(otherwise)?,
            output: match step.output {
                None | Some(Stream::Stdout) => SpecStream::Stdout,
                Some(Stream::Stderr) => SpecStream::Stderr,
                Some(Stream::Both) => SpecStream::Both,
            },
            max_output: step.max_output.as_ref().map(|a| rules::amount(a, None)),
            timeout_ms: (step.timeout_ms.as_ref().map(|a| rules::amount(a, None)))
                .or_else(|| step.timeout_secs.as_ref().map(|a| rules::amount(a, Some(1000)))),
            if_empty,
        })
    }

    /// Lowers every element of the argv at `path`: `None` when any failed.
    fn argv(&mut self, path: &str, argv: &[Arg], scope: &Scope) -> Option<Vec<SpecArg>> {
        all((argv.iter().enumerate())
            .map(|(a, arg)| self.arg(&format!("{path}[{a}]"), arg, scope))
            .collect())
    }

    fn arg(&mut self, path: &str, arg: &Arg, scope: &Scope) -> Option<SpecArg> {
        let s = match arg {
            Arg::Text(t) => {
                let t = self.template(path, t, scope)?;
                return Some(match t.0.as_slice() {
                    [] => SpecArg::Lit(String::new()),
                    [Part::Text(text)] => SpecArg::Lit(text.clone()),
                    _ => SpecArg::Tpl(t),
                });
            }
            Arg::Special(s) => s,
        };
        let kinds = [
            ("opt", s.opt.is_some()),
            ("flag", s.flag.is_some()),
            ("spread", s.spread.is_some()),
            ("json", s.json.is_some()),
            ("file", s.file.is_some()),
        ];
        let help = "e.g. `{opt: --kind, value: \"{kind}\"}` or `{flag: --silent, if: silent}`";
        let mark = self.exactly_one("bad-arg", path, "a structured argument", &kinds, help)?;
        let mut lowered = None;
        // `opt` and `flag` each take a second key, which goes with them only.
        match (&s.opt, &s.value) {
            (Some(opt), Some(v)) => {
                lowered = (self.template(&format!("{path}.value"), v, scope)).map(|value| SpecArg::Opt {
                    opt: opt.clone(),
                    value,
                })
            }
            (Some(_), None) => {
                let help = "e.g. `{opt: --kind, value: \"{kind}\"}`";
                self.diags.err("bad-arg", path, "`opt` needs a `value`", help)
            }
            (None, Some(_)) => self.diags.err_at_key(
                "bad-arg",
                format!("{path}.value"),
                "`value` goes with `opt`",
                "remove it",
            ),
            (None, None) => {}
        }
        match (&s.flag, &s.if_param) {
            (Some(flag), Some(p)) if self.arg_param(path, "if", p, ParamType::Boolean, "a boolean", scope) => {
                lowered = Some(SpecArg::Flag {
                    flag: flag.clone(),
                    if_param: p.clone(),
                })
            }
            (Some(_), Some(_)) | (None, None) => {}
            (Some(_), None) => {
                let help = "e.g. `{flag: --silent, if: silent}`";
                self.diags
                    .err("bad-arg", path, "`flag` needs `if: <boolean parameter>`", help)
            }
            (None, Some(_)) => {
                self.diags
                    .err_at_key("bad-arg", format!("{path}.if"), "`if` goes with `flag`", "remove it")
            }
        }
        if let Some(sp) = &s.spread
            && self.arg_param(path, "spread", sp, ParamType::Array, "an array", scope)
        {
            lowered = Some(SpecArg::Spread { spread: sp.clone() });
        }
        if let Some(j) = &s.json {
            lowered = self
                .json_template(&format!("{path}.json"), j, scope)
                .map(|json| SpecArg::Json { json });
        }
        if let Some(f) = &s.file {
            lowered = self
                .template(&format!("{path}.file"), f, scope)
                .map(|file| SpecArg::File { file });
        }
        self.clean_since(mark).and(lowered)
    }

    /// Whether the `key` of the structured argument at `path` names a parameter of type `ty`
    /// (`a`: "a boolean"); otherwise reports why not.
    fn arg_param(&mut self, path: &str, key: &str, name: &str, ty: ParamType, a: &str, scope: &Scope) -> bool {
        match scope.params.get(name) {
            Some(p) if p.ty == ty => return true,
            Some(_) => self.diags.err(
                "bad-arg",
                format!("{path}.{key}"),
                format!("`{key}` needs {a} parameter, `{name}` is not one"),
                format!("point it at {a} parameter"),
            ),
            None => self.unknown_var(&format!("{path}.{key}"), name, None, scope),
        }
        false
    }

    fn cond(
        &mut self,
        path: &str,
        c: &Cond,
        tool: &Tool,
        params: &HashMap<&str, &Param>,
        earlier: &HashSet<&str>,
    ) -> Option<SpecCond> {
        // A condition on a field of step data is checked by `render::Checker`, and lowered here:
        // `{field: x.y, gte: 3}` → `{param: "x.y", op, than}`.
        if let Some(param) = c.field.clone() {
            let cmp = [
                (CmpOp::Lt, c.lt),
                (CmpOp::Lte, c.lte),
                (CmpOp::Gt, c.gt),
                (CmpOp::Gte, c.gte),
            ];
            return match cmp.into_iter().find_map(|(op, v)| v.map(|v| (op, v))) {
                Some((op, v)) => Some(SpecCond::Compare {
                    param,
                    op,
                    than: super::json_number(v),
                }),
                None => value_test(param, c, None, Some(c.set.unwrap_or(true))),
            };
        }
        let kinds = [
            ("param", c.param.is_some()),
            ("step", c.step.is_some()),
            ("all", c.all.is_some()),
            ("any", c.any.is_some()),
            ("not", c.not.is_some()),
        ];
        let help = "e.g. `{param: direction, in: [callers, all]}` or `{step: impact, failed: true}`";
        let mark = self.exactly_one("bad-condition", path, "a condition", &kinds, help)?;
        let mut lowered = None;
        for (key, list) in [("all", &c.all), ("any", &c.any)] {
            let subs = (list.iter().flatten().enumerate())
                .map(|(i, sub)| self.cond(&format!("{path}.{key}[{i}]"), sub, tool, params, earlier))
                .collect();
            if list.is_some() {
                lowered = all(subs).map(|subs| match key {
                    "all" => SpecCond::All { all: subs },
                    _ => SpecCond::Any { any: subs },
                });
            }
        }
        if let Some(sub) = &c.not {
            lowered = self
                .cond(&format!("{path}.not"), sub, tool, params, earlier)
                .map(|not| SpecCond::Not { not: Box::new(not) });
        }
        if let Some(pname) = &c.param {
            lowered = self.param_cond(path, pname, c, params);
        }
        if let Some(sname) = &c.step {
            lowered = self.step_cond(path, sname, c, tool, earlier);
        }
        self.clean_since(mark).and(lowered)
    }

    fn param_cond(&mut self, path: &str, pname: &str, c: &Cond, params: &HashMap<&str, &Param>) -> Option<SpecCond> {
        let tests = [
            c.in_values.is_some(),
            c.equals.is_some(),
            c.contains.is_some(),
            c.set.is_some(),
        ];
        if tests.iter().filter(|x| **x).count() != 1 || c.matches.is_some() || c.failed.is_some() {
            self.diags.err(
                "bad-condition",
                path,
                "a parameter condition has exactly one of `in`, `equals`, `contains`, `set`",
                "e.g. `{param: refresh, equals: true}`",
            );
        }
        // An optional context variable may be absent: a step can be made to depend on it
        // (`session_complete` signals the loop only when a pid was baked in).
        if let Some(set) = c.set
            && !params.contains_key(pname)
            && self.cat.context.contains_key(pname)
        {
            return Some(SpecCond::ParamSet {
                param: pname.to_string(),
                set,
            });
        }
        let Some(p) = params.get(pname) else {
            let known: Vec<&str> = params.keys().copied().collect();
            self.diags.err(
                "unknown-param",
                format!("{path}.param"),
                format!("condition names no parameter `{pname}`"),
                hint_for(pname, &known, "declare the parameter"),
            );
            return None;
        };
        // Its values read as the parameter's type, as a default is (`10.0` for an integer).
        let mut c = c.clone();
        (c.equals.iter_mut().chain(c.in_values.iter_mut().flatten()))
            .for_each(|v| crate::catalog::rules::as_type(p.ty, v));
        let c = &c;
        let ins = (c.in_values.iter().flatten().enumerate()).map(|(i, v)| (format!("{path}.in[{i}]"), v));
        for (at, v) in ins.chain(c.equals.iter().map(|v| (format!("{path}.equals"), v))) {
            if let Err(why) = check_value(p, v) {
                self.diags.err(
                    "bad-condition",
                    at,
                    format!("`{pname}` can never be this: {why}"),
                    value_help(p),
                );
            }
        }
        if let Some(v) = &c.contains {
            match (&p.ty, &p.items) {
                (ParamType::Array, Some(items)) => {
                    if let (ParamType::Enum, Some(vals), Some(s)) = (items.ty, &items.values, v.as_str())
                        && !vals.iter().any(|x| x == s)
                    {
                        self.diags.err(
                            "bad-condition",
                            format!("{path}.contains"),
                            format!("`{s}` is not one of the values of `{pname}`"),
                            format!("use one of: {}", vals.join(", ")),
                        );
                    }
                }
                _ => self.diags.err_at_key(
                    "bad-condition",
                    format!("{path}.contains"),
                    format!("`contains` needs an array parameter, `{pname}` is not one"),
                    "use `equals` or `in`",
                ),
            }
        }
        value_test(pname.to_string(), c, c.contains.as_ref(), c.set)
    }

    fn step_cond(
        &mut self,
        path: &str,
        sname: &str,
        c: &Cond,
        tool: &Tool,
        earlier: &HashSet<&str>,
    ) -> Option<SpecCond> {
        if c.matches.is_some() == c.failed.is_some()
            || c.in_values.is_some()
            || c.equals.is_some()
            || c.contains.is_some()
            || c.set.is_some()
        {
            self.diags.err(
                "bad-condition",
                path,
                "a step condition has exactly one of `matches`, `failed`",
                "e.g. `{step: impact, matches: \"high\"}`",
            );
        }
        let at = format!("{path}.step");
        // Output blocks are rendered after every step, parallel or not.
        if tool.parallel && !self.in_output {
            self.diags.err(
                "bad-condition",
                &at,
                "a parallel tool's steps cannot depend on each other",
                "remove `parallel: true`, or the step condition",
            );
        }
        if !earlier.contains(sname) {
            let known: Vec<&&str> = earlier.iter().collect();
            let help = hint_for(sname, &known, "a condition can only look at a step that runs before it");
            self.diags
                .err("unknown-step", at, format!("no earlier step has id `{sname}`"), help);
        }
        if let Some(re) = &c.matches
            && let Err(e) = crate::catalog::values::check_regex(re, c.flags.as_deref().unwrap_or(""), false)
        {
            self.diags.err(
                "bad-pattern",
                format!("{path}.matches"),
                format!("not a valid regular expression: {}", e),
                "fix the expression",
            );
        }
        if let Some(flags) = &c.flags
            && let Err(e) = crate::catalog::values::check_flags(flags)
        {
            self.diags.err(
                "bad-pattern",
                format!("{path}.flags"),
                format!("`{flags}` are not usable regular expression flags: {e}"),
                "use each of `i`, `m`, `s`, `u` at most once",
            );
        }
        let step = sname.to_string();
        match (&c.matches, c.failed) {
            (Some(m), _) => Some(SpecCond::StepMatches {
                step,
                matches: m.clone(),
                // No flags is the empty set, not a value validation had to supply.
                flags: c.flags.clone().unwrap_or_default(),
            }),
            (None, Some(failed)) => Some(SpecCond::StepFailed { step, failed }),
            (None, None) => None,
        }
    }

    /// Parses a template, or reports why it does not parse; `help` says what its placeholders
    /// may name.
    fn parse(&mut self, path: &str, text: &str, help: &str) -> Option<Template> {
        parse_template(&mut self.diags, path, text, help)
    }

    /// Parses a template once and checks its variables against the scope.
    fn template(&mut self, path: &str, text: &str, scope: &Scope) -> Option<Template> {
        let t = self.parse(path, text, NAME_HELP)?;
        let mark = self.diags.len();
        // Paths into step data (`{locate.resolvedTarget.name}`) are checked by `render::Checker`.
        for var in t.vars().filter(|v| !v.contains('.')) {
            if !scope.params.contains_key(var) && !self.cat.context.contains_key(var) && !scope.extra.contains(&var) {
                let at = template_place(text, placeholder_offset(text, var));
                self.unknown_var(path, var, at, scope);
            }
        }
        self.clean_since(mark).map(|()| t)
    }

    /// [`Lower::template`] of the optional `key` below `path`: `Some(None)` when it is absent.
    fn optional_template(
        &mut self,
        path: &str,
        key: &str,
        text: Option<&str>,
        scope: &Scope,
    ) -> Option<Option<Template>> {
        optional(text, |t| self.template(&format!("{path}.{key}"), t, scope))
    }

    /// `at`: where the placeholder is in the template's text ([`template_place`]).
    fn unknown_var(&mut self, path: &str, var: &str, at: Option<(usize, usize)>, scope: &Scope) {
        let context = self.cat.context.keys().map(String::as_str);
        let mut known: Vec<&str> = scope.params.keys().chain(scope.extra).copied().chain(context).collect();
        known.sort();
        // A key that takes a name (`if`, `spread`) given a placeholder: the name is declared.
        if let Some(name) = var.strip_prefix('{').and_then(|v| v.strip_suffix('}'))
            && known.contains(&name)
        {
            self.diags.err(
                "undeclared-placeholder",
                path,
                format!("`{var}` is a placeholder where the name of a parameter or context variable is expected"),
                format!("write the name alone: `{name}`"),
            );
            return;
        }
        let help = match crate::diagnostic::did_you_mean(var, &known) {
            Some(m) => format!("did you mean `{m}`?"),
            None if known.is_empty() => "declare it as a parameter of the tool or a context variable".to_string(),
            None => format!(
                "declare it as a parameter or context variable; known here: {}",
                known.join(", ")
            ),
        };
        let message = format!("`{{{var}}}` refers to no parameter or context variable");
        self.diags
            .push(template_fault("undeclared-placeholder", path, at, message).help(help));
    }

    /// Lowers a catalog JSON template: a string that is exactly `"{name}"` keeps the variable's
    /// type; other strings with placeholders become string templates.
    fn json_template(&mut self, path: &str, value: &serde_json::Value, scope: &Scope) -> Option<JsonT> {
        match value {
            serde_json::Value::String(s) => {
                let t = self.template(path, s, scope)?;
                Some(if let Some(var) = t.single_var() {
                    JsonT::Var(var.to_string())
                } else if t.vars().next().is_none() {
                    JsonT::Lit(value.clone())
                } else {
                    JsonT::Tpl(t)
                })
            }
            serde_json::Value::Array(items) => {
                let items = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| self.json_template(&format!("{path}[{i}]"), item, scope))
                    .collect();
                all(items).map(JsonT::Arr)
            }
            serde_json::Value::Object(map) => {
                let entries = (map.iter())
                    .map(|(k, item)| {
                        let kpath = format!("{path}.{k}");
                        let unsafe_key =
                            validate::unsafe_name_diagnostic(&kpath, "JSON key", k).map(|d| self.diags.push(d));
                        let v = self.json_template(&kpath, item, scope);
                        v.filter(|_| unsafe_key.is_none()).map(|v| (k.clone(), v))
                    })
                    .collect();
                all(entries).map(JsonT::Obj)
            }
            other => Some(JsonT::Lit(other.clone())),
        }
    }
}

/// Where a fault at byte `offset` of a template's text is reported: a template of several
/// lines (a block scalar, `stdin: |`) at the fault's own line and column, which the catalog's
/// reader maps back to the file; one of a single line at its whole value (`None`), which the
/// diagnostic underlines.
pub(super) fn template_place(text: &str, offset: Option<usize>) -> Option<(usize, usize)> {
    text.contains('\n').then_some(())?;
    Some(line_col(text, offset?))
}

/// A template parsed, or `None` with its `bad-template` error (where in the text, and `help`).
pub(super) fn parse_template(diags: &mut Vec<Diagnostic>, path: &str, text: &str, help: &str) -> Option<Template> {
    Template::parse(text)
        .map_err(|e| {
            let at = template_place(text, Some(e.offset));
            diags.push(template_fault("bad-template", path, at, e.message).help(help));
        })
        .ok()
}

/// A diagnostic about a template at `path`: inside its text at `at`, or at the whole value.
fn template_fault(
    code: &'static str,
    path: &str,
    at: Option<(usize, usize)>,
    message: impl Into<String>,
) -> Diagnostic {
    match at {
        Some((line, col)) => Diagnostic::inside(code, path, line, col, message),
        None => Diagnostic::error(code, path, message),
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;
    use crate::error::Error;
    use crate::model::Model;

    /// What lowering `text` reports, with `later` as the hosts' check; it must not lower.
    fn errors(text: &str, later: fn(&mut Model) -> Vec<Diagnostic>) -> Vec<Diagnostic> {
        let loaded = crate::catalog::load_text("t.yaml", text.as_bytes()).unwrap();
        let Err(Error::Catalog { diagnostics, .. }) = super::lower(loaded, "t.yaml", later) else {
            panic!("a broken catalog must not lower");
        };
        diagnostics
    }

    /// A condition's value is read as its parameter's type, as a default is: `10.0` for an
    /// integer is 10 (it was refused as "a fractional number"), `2` for an enum is `"2"`.
    #[test]
    fn condition_values_are_read_as_the_parameters_type() {
        let text = "version: 1\nproduct: {name: d, version: 1.0.0, description: d}\ntoolsets: {all: {tools: [t]}}\n\
                    tools:\n  - name: t\n    description: d\n    params: {n: {type: integer}, k: {type: enum, values: [1, 2]}}\n    steps:\n\
                    \x20     - {when: {param: n, equals: 10.0}, program: echo, run: [a]}\n\
                    \x20     - {when: {param: n, in: [10.0, 11]}, program: echo, run: [b]}\n\
                    \x20     - {when: {param: k, equals: 2}, program: echo, run: [c]}\n";
        let loaded = crate::catalog::load_text("c.yaml", text.as_bytes()).unwrap();
        let lowered = match super::lower(loaded, "c.yaml", |_| Vec::new()) {
            Ok(l) => l,
            Err(e) => panic!("{e:?}"),
        };
        let conds: Vec<String> = lowered.model.tools[0]
            .spec
            .steps
            .iter()
            .map(|s| serde_json::to_string(&s.when).unwrap())
            .collect();
        assert!(
            conds[0].contains(r#""equals":10}"#) && conds[1].contains("[10,11]"),
            "{conds:?}"
        );
        assert!(conds[2].contains(r#""equals":"2""#), "{conds:?}");
    }

    /// A catalog with one fault of each kind, in unrelated places: one run reports them all.
    const BROKEN: &str = r#"version: 1
product: {name: Demo, version: 1.0.0, description: d}
cli: {binary: demo}
toolsets: {main: {tools: [a, b]}}
tools:
  - name: a
    description: A
    params:
      q: {type: string}
    steps:
      - title: nothing to do
      - run: [a, {opt: --x, flag: --y, value: "{q}"}]
        when: {param: q, step: s}
  - name: b
    description: B
    params:
      q: {type: string}
    steps:
      - run: [b, "{q"]
"#;

    #[test]
    fn every_independent_fault_in_one_run() {
        let diagnostics = errors(BROKEN, |_| Vec::new());
        let found: Vec<(&str, Option<(usize, usize)>)> = diagnostics.iter().map(|d| (d.code, d.pos)).collect();
        assert_eq!(
            found,
            [
                // Catalog-level: the product name.
                ("bad-name", Some((2, 17))),
                // A step with no kind.
                ("bad-step", Some((11, 9))),
                // An argv element that is two kinds at once.
                ("bad-arg", Some((12, 18))),
                // A condition on a parameter and a step at once.
                ("bad-condition", Some((13, 15))),
                // A template that does not parse.
                ("bad-template", Some((19, 18))),
            ],
            "{diagnostics:#?}"
        );
        assert!(diagnostics.iter().all(|d| d.help.is_some()));
    }

    #[test]
    fn later_checks_join_tool_errors_once_the_catalog_level_passes() {
        let host = |_: &mut Model| vec![Diagnostic::error("host", "toolsets.main", "a host finding")];
        // The product name is fixed, so only tool-level faults are left: the host's finding
        // joins them.
        let diagnostics = errors(&BROKEN.replace("name: Demo", "name: demo"), host);
        let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["host", "bad-step", "bad-arg", "bad-condition", "bad-template"]);
        // With a catalog-level fault the hosts, which read the catalog-level names, do not run.
        assert!(errors(BROKEN, host).iter().all(|d| d.code != "host"));
    }

    /// A `cli.recovery` that does not parse is an error at its key; it used to be no error, and
    /// every tool that runs the CLI then failed to lower (an internal error).
    #[test]
    fn a_recovery_that_does_not_parse_is_reported() {
        let text = "version: 1\nproduct: {name: demo, version: 1.0.0, description: d}\ncli: {binary: demo, recovery: \"run {oops\"}\ntoolsets: {main: {tools: [a]}}\ntools:\n  - {name: a, description: A, steps: [{run: [a]}]}\n";
        let found: Vec<_> = errors(text, |_| Vec::new()).iter().map(|d| (d.code, d.pos)).collect();
        assert_eq!(found, [("bad-template", Some((3, 31)))]);
    }

    /// An `unsupported` tool with `body` (indented as a tool's keys) in a small catalog: the
    /// codes and positions of what lowering reports, and the tool's reason when it lowered.
    type Found = Vec<(&'static str, (usize, usize))>;

    fn unsupported(body: &str) -> (Found, Option<Option<String>>) {
        let text = format!(
            "version: 1\nproduct: {{name: demo, version: 1.0.0, description: d}}\ncli: {{binary: demo}}\ntoolsets: {{main: {{tools: [a]}}}}\ntools:\n  - name: a\n    description: A\n{body}"
        );
        let loaded = crate::catalog::load_text("u.yaml", text.as_bytes()).unwrap();
        match super::super::lower(loaded, "u.yaml", |_| Vec::new()) {
            Ok(l) => (
                l.warnings.iter().map(|d| (d.code, d.pos.unwrap())).collect(),
                Some(l.model.tools[0].unsupported.clone()),
            ),
            Err(Error::Catalog { diagnostics, .. }) => {
                assert!(diagnostics.iter().all(|d| d.help.is_some()), "{diagnostics:#?}");
                (diagnostics.iter().map(|d| (d.code, d.pos.unwrap())).collect(), None)
            }
            Err(e) => panic!("{e}"),
        }
    }

    fn codes(found: &Found) -> Vec<&str> {
        found.iter().map(|(c, _)| *c).collect()
    }

    #[test]
    fn an_unsupported_tool_needs_a_reason_and_nothing_that_runs() {
        // Clean: no steps needed, parameters and rules allowed, one warning at the reason.
        let (found, tool) = unsupported(
            "    unsupported: |\n      needs the host's\n      LLM\n    params:\n      q: {type: string}\n      r: {type: string}\n    rules:\n      - {when: {param: q, set: true}, require: [r]}\n",
        );
        // (A block scalar is located at its first line of text.)
        assert_eq!(found, [("unsupported-tool", (9, 7))]);
        // The reason on one line.
        assert_eq!(tool, Some(Some("needs the host's LLM".to_string())));
        // An empty reason.
        assert_eq!(
            unsupported("    unsupported: \"\"\n").0,
            [("empty-unsupported", (8, 18))]
        );
        // Each key that would run, at its key, and no warning while there is an error.
        let (found, _) = unsupported(
            "    unsupported: no model\n    parallel: true\n    fallback: x\n    runtime: {method: GET, path: /a}\n    output:\n      - text: x\n    steps:\n      - run: [a]\n",
        );
        // (The route also has no top-level `runtime`: `no-runtime`, not what is checked here.)
        let mut found: Vec<_> = found.into_iter().filter(|(c, _)| *c != "no-runtime").collect();
        found.sort_by_key(|(_, pos)| *pos);
        assert_eq!(
            found,
            [
                ("unsupported-runs", (9, 5)),
                ("unsupported-runs", (10, 5)),
                ("unsupported-runs", (11, 5)),
                ("unsupported-runs", (12, 5)),
                ("unsupported-runs", (14, 5)),
            ]
        );
        // Parameters are still checked: a bad default is an error of the unsupported tool too.
        let (found, _) = unsupported("    unsupported: no model\n    params:\n      n: {type: integer, default: x}\n");
        assert_eq!(codes(&found), ["bad-default", "unsupported-tool"]);
        // A tool that is not unsupported still needs steps.
        assert_eq!(codes(&unsupported("    params: {}\n").0), ["no-steps"]);
    }

    #[test]
    fn steps_and_tools_keep_their_catalog_path() {
        let loaded = crate::catalog::load(None).unwrap();
        let model = super::super::lower(loaded, "ix.yaml", |_| Vec::new()).unwrap().model;
        for (i, t) in model.tools.iter().enumerate() {
            for (k, s) in t.spec.steps.iter().enumerate() {
                assert_eq!(s.path, format!("tools[{i}].steps[{k}]"));
            }
            for p in t.params() {
                let path = p.path();
                assert!(
                    path == format!("params.{}", p.name) || path == format!("{}.params.{}", t.path, p.name),
                    "{path}"
                );
            }
        }
    }
}
