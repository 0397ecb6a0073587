//! Semantic validation and lints of a typed catalog.
//!
//! Structural errors were already caught by the deserializer; this stage checks what spans
//! fields: names every host accepts, references that resolve, defaults that fit their
//! parameter, well-formed steps, and the budgets and host name limits (warnings). It reports
//! by catalog path; the loader turns paths into positions. It never renders anything.

use super::load::did_you_mean;
use super::types::*;
use crate::diagnostic::Diagnostic;
use crate::template::{Template, is_identifier};
use std::collections::{HashMap, HashSet};

/// Variable names the steps bind themselves.
pub const RESERVED_VARS: [&str; 2] = ["item", "result"];

/// The tool name rule every host accepts.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Validates a catalog; errors and warnings, unsorted and unlocated.
pub fn validate(cat: &Catalog) -> Vec<Diagnostic> {
    let mut v = Validator { cat, diags: Vec::new() };
    v.catalog();
    v.diags
}

struct Validator<'a> {
    cat: &'a Catalog,
    diags: Vec<Diagnostic>,
}

/// What a template inside a tool may refer to.
struct Scope<'a> {
    params: &'a HashMap<&'a str, &'a Param>,
    extra: &'a [&'a str],
}

impl<'a> Validator<'a> {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn catalog(&mut self) {
        let cat = self.cat;
        if cat.version != 1 {
            self.err(
                Diagnostic::error(
                    "version",
                    "version",
                    format!("catalog format version {} is not supported", cat.version),
                )
                .help("this ixgen reads `version: 1`"),
            );
        }
        if !is_kebab(&cat.product.name) {
            self.err(
                Diagnostic::error(
                    "bad-name",
                    "product.name",
                    format!("product name `{}` must be kebab-case", cat.product.name),
                )
                .help("use lowercase letters, digits and `-`, starting with a letter (hosts use it as a plugin name)"),
            );
        }
        self.context();
        if let Some(fallback) = cat.cli.as_ref().and_then(|c| c.fallback.as_ref()) {
            // Every tool with a `run` step shows it: it may name context variables only.
            let none = HashMap::new();
            self.template(
                "cli.fallback",
                fallback,
                &Scope {
                    params: &none,
                    extra: &[],
                },
            );
        }
        for (name, p) in &cat.params {
            self.param(&format!("params.{name}"), name, p);
        }
        self.tools();
        self.toolsets();
        self.filters();
        self.server();
    }

    fn server(&mut self) {
        let Some(server) = &self.cat.server else { return };
        self.toolset_ref("server.toolset", &server.toolset);
        if !valid_tool_name(&server.name) {
            self.err(
                Diagnostic::error(
                    "bad-name",
                    "server.name",
                    format!("server name `{}` is not accepted by every host", server.name),
                )
                .help("use ^[a-z][a-z0-9_-]*$"),
            );
        }
    }

    fn context(&mut self) {
        let mut constants = HashSet::new();
        for (name, var) in &self.cat.context {
            let path = format!("context.{name}");
            if !is_identifier(name) {
                self.err(
                    Diagnostic::error(
                        "bad-name",
                        &path,
                        format!("context variable `{name}` is not a valid name"),
                    )
                    .at_key()
                    .help("use [a-z_][a-z0-9_]*"),
                );
            }
            if RESERVED_VARS.contains(&name.as_str()) {
                self.err(
                    Diagnostic::error("reserved-name", &path, format!("`{name}` is reserved for step results"))
                        .at_key()
                        .help("rename the context variable"),
                );
            }
            if var.format.is_some() && var.ty != ContextType::String {
                self.err(
                    Diagnostic::error(
                        "bad-format",
                        format!("{path}.format"),
                        "`format` applies to string variables",
                    )
                    .help("remove `format` or make the variable a string"),
                );
            }
            if var.min.is_some() && var.ty != ContextType::Integer {
                self.err(
                    Diagnostic::error("bad-bound", format!("{path}.min"), "`min` applies to integer variables")
                        .help("remove `min`"),
                );
            }
            let constant = var.constant_name(name);
            if !is_ts_constant(&constant) {
                self.err(
                    Diagnostic::error(
                        "bad-name",
                        format!("{path}.constant"),
                        format!("`{constant}` is not a usable TypeScript constant name"),
                    )
                    .help("use [A-Z_][A-Z0-9_]*"),
                );
            } else if constant == "CONTEXT" || constant.starts_with("SPEC_") || constant.starts_with("__IX") {
                self.err(
                    Diagnostic::error(
                        "reserved-name",
                        format!("{path}.constant"),
                        format!("constant `{constant}` clashes with a name of the generated code"),
                    )
                    .help("set `constant:` to another name"),
                );
            } else if !constants.insert(constant.clone()) {
                self.err(
                    Diagnostic::error(
                        "duplicate-name",
                        format!("{path}.constant"),
                        format!("constant `{constant}` is used by two context variables"),
                    )
                    .help("give one of them another `constant`"),
                );
            }
        }
    }

    fn param(&mut self, path: &str, name: &str, p: &Param) {
        if !is_identifier(name) {
            self.err(
                Diagnostic::error("bad-name", path, format!("parameter name `{name}` is not valid"))
                    .at_key()
                    .help("use [a-z_][a-z0-9_]* so every host and the generated code accept it"),
            );
        }
        if self.cat.context.contains_key(name) || RESERVED_VARS.contains(&name) {
            self.err(
                Diagnostic::error(
                    "shadowed-name",
                    path,
                    format!("parameter `{name}` has the name of a context variable or step result"),
                )
                .at_key()
                .help("rename the parameter: `{name}` in a template must mean one thing"),
            );
        }
        if p.required && p.default.is_some() {
            self.err(
                Diagnostic::error(
                    "required-default",
                    format!("{path}.default"),
                    format!("required parameter `{name}` has a default"),
                )
                .help("remove `default`, or make the parameter optional (`required: false`)"),
            );
        }
        match p.ty {
            ParamType::Enum => match &p.values {
                None => self.err(
                    Diagnostic::error("enum-values", path, format!("enum parameter `{name}` has no `values`"))
                        .help("add `values: [a, b]`"),
                ),
                Some(vals) => self.enum_values(&format!("{path}.values"), vals),
            },
            _ if p.values.is_some() => self.err(
                Diagnostic::error(
                    "enum-values",
                    format!("{path}.values"),
                    "`values` applies to `type: enum`",
                )
                .at_key()
                .help("make the parameter an enum, or remove `values`"),
            ),
            _ => {}
        }
        match (p.ty, &p.items) {
            (ParamType::Array, None) => self.err(
                Diagnostic::error("array-items", path, format!("array parameter `{name}` has no `items`"))
                    .help("add `items: {type: string}`: OpenAI and VS Code refuse arrays without items"),
            ),
            (ParamType::Array, Some(items)) => {
                let ipath = format!("{path}.items");
                match (items.ty, &items.values) {
                    (ParamType::Array, _) => self.err(
                        Diagnostic::error(
                            "array-items",
                            format!("{ipath}.type"),
                            "arrays of arrays are not supported",
                        )
                        .help("use a string or enum item type"),
                    ),
                    (ParamType::Enum, None) => self.err(
                        Diagnostic::error("enum-values", &ipath, "enum items have no `values`")
                            .help("add `values: [a, b]`"),
                    ),
                    (ParamType::Enum, Some(vals)) => self.enum_values(&format!("{ipath}.values"), vals),
                    (_, Some(_)) => self.err(
                        Diagnostic::error(
                            "enum-values",
                            format!("{ipath}.values"),
                            "`values` applies to `type: enum`",
                        )
                        .at_key()
                        .help("make the items an enum, or remove `values`"),
                    ),
                    _ => {}
                }
            }
            (_, Some(_)) => self.err(
                Diagnostic::error(
                    "array-items",
                    format!("{path}.items"),
                    "`items` applies to `type: array`",
                )
                .at_key()
                .help("remove `items`, or make the parameter an array"),
            ),
            _ => {}
        }
        if let (Some(min), Some(max)) = (p.min, p.max)
            && min > max
        {
            self.err(
                Diagnostic::error(
                    "bad-bound",
                    format!("{path}.min"),
                    format!("`min` ({min}) is greater than `max` ({max})"),
                )
                .help("swap them"),
            );
        }
        if (p.min.is_some() || p.max.is_some()) && matches!(p.ty, ParamType::Boolean | ParamType::Enum) {
            self.err(
                Diagnostic::error(
                    "bad-bound",
                    path,
                    format!("bounds do not apply to a {} parameter", type_name(p.ty)),
                )
                .help("remove `min`/`max`"),
            );
        }
        if p.clamp.is_some() && !matches!(p.ty, ParamType::Integer | ParamType::Number) {
            self.err(
                Diagnostic::error("bad-bound", format!("{path}.clamp"), "`clamp` applies to numbers")
                    .at_key()
                    .help("remove `clamp`"),
            );
        }
        if let Some(pat) = &p.pattern {
            if !matches!(p.ty, ParamType::String | ParamType::Path) {
                self.err(
                    Diagnostic::error("bad-pattern", format!("{path}.pattern"), "`pattern` applies to strings")
                        .at_key()
                        .help("remove `pattern`"),
                );
            } else if let Err(e) = super::values::check_regex(pat, "", true) {
                self.err(
                    Diagnostic::error(
                        "bad-pattern",
                        format!("{path}.pattern"),
                        format!("`pattern` is not a valid regular expression: {}", e),
                    )
                    .help("fix the expression"),
                );
            }
        }
        if let Some(def) = &p.default
            && let Err(why) = check_value(p, def)
        {
            self.err(
                Diagnostic::error(
                    "bad-default",
                    format!("{path}.default"),
                    format!("default of `{name}` {why}"),
                )
                .help(value_help(p)),
            );
        }
    }

    fn enum_values(&mut self, path: &str, vals: &[String]) {
        if vals.is_empty() {
            self.err(
                Diagnostic::error("enum-values", path, "an enum needs at least one value")
                    .help("list the allowed values"),
            );
        }
        let mut seen = HashSet::new();
        for (i, v) in vals.iter().enumerate() {
            if !seen.insert(v) {
                self.err(
                    Diagnostic::error(
                        "enum-values",
                        format!("{path}[{i}]"),
                        format!("enum value `{v}` is listed twice"),
                    )
                    .help("remove the repeat"),
                );
            }
        }
    }

    fn tools(&mut self) {
        let mut names: HashMap<&str, usize> = HashMap::new();
        let budget = self.cat.lint.description_budget;
        for (i, tool) in self.cat.tools.iter().enumerate() {
            let path = format!("tools[{i}]");
            if !valid_tool_name(&tool.name) {
                self.err(
                    Diagnostic::error("bad-tool-name", format!("{path}.name"), format!("tool name `{}` is not accepted by every host", tool.name))
                        .help(format!("use ^[a-z][a-z0-9_-]*$ and at most 64 characters, e.g. `{}` (Codex and OpenAI reject dots, Claude Code rejects anything else)", suggest_name(&tool.name))),
                );
            } else if let Some(first) = names.insert(&tool.name, i) {
                self.err(
                    Diagnostic::error(
                        "duplicate-tool",
                        format!("{path}.name"),
                        format!("tool `{}` is defined twice", tool.name),
                    )
                    .help(format!("the first definition is tools[{first}]; rename or remove one")),
                );
            }
            let len = tool.description.chars().count();
            if len > budget {
                self.err(
                    Diagnostic::warning("description-budget", format!("{path}.description"), format!("description of `{}` is {len} characters, over the budget of {budget}", tool.name))
                        .help("every description is context paid in every session: shorten it, or raise `lint.description_budget`"),
                );
            }
            if tool.description.trim().is_empty() {
                self.err(
                    Diagnostic::error(
                        "empty-description",
                        format!("{path}.description"),
                        format!("tool `{}` has an empty description", tool.name),
                    )
                    .help("say what the tool does, for the model"),
                );
            }
        }
        // Each tool's own checks are independent: run them on every core for a large catalog,
        // keeping the catalog's order of diagnostics.
        let cat = self.cat;
        let per_tool = crate::par::map(&cat.tools.iter().enumerate().collect::<Vec<_>>(), |(i, tool)| {
            let mut v = Validator { cat, diags: Vec::new() };
            v.tool(&format!("tools[{i}]"), tool);
            v.diags
        });
        self.diags.extend(per_tool.into_iter().flatten());
    }

    fn tool(&mut self, path: &str, tool: &Tool) {
        let mut params: HashMap<&str, &Param> = HashMap::new();
        for (j, shared) in tool.use_params.iter().enumerate() {
            match self.cat.params.get(shared) {
                Some(p) => {
                    params.insert(shared.as_str(), p);
                }
                None => {
                    let known: Vec<&String> = self.cat.params.keys().collect();
                    self.err(
                        Diagnostic::error(
                            "unknown-param",
                            format!("{path}.use_params[{j}]"),
                            format!("no shared parameter `{shared}`"),
                        )
                        .help(hint_for(
                            shared,
                            &known,
                            "declare it under the top-level `params`",
                        )),
                    );
                }
            }
        }
        for (name, p) in &tool.params {
            self.param(&format!("{path}.params.{name}"), name, p);
            if params.insert(name.as_str(), p).is_some() {
                self.err(
                    Diagnostic::error(
                        "duplicate-param",
                        format!("{path}.params.{name}"),
                        format!("parameter `{name}` is also pulled in by `use_params`"),
                    )
                    .at_key()
                    .help("remove one of them"),
                );
            }
        }
        if let Some(tier) = &tool.tier
            && !is_identifier(tier)
        {
            self.err(
                Diagnostic::error(
                    "bad-name",
                    format!("{path}.tier"),
                    format!("tier `{tier}` is not a valid name"),
                )
                .help("use a lowercase word such as `free` or `pro`"),
            );
        }
        let scope = Scope {
            params: &params,
            extra: &[],
        };
        if let Some(h) = &tool.heading {
            self.template(&format!("{path}.heading"), h, &scope);
        }
        if let Some(f) = &tool.fallback {
            self.template(&format!("{path}.fallback"), f, &scope);
        }
        if let Some(route) = &tool.runtime {
            let rpath = format!("{path}.runtime");
            if self.cat.runtime.is_none() {
                self.err(
                    Diagnostic::error(
                        "no-runtime",
                        &rpath,
                        format!(
                            "tool `{}` has a runtime route but the catalog declares no `runtime`",
                            tool.name
                        ),
                    )
                    .at_key()
                    .help("add a top-level `runtime: {url_env, default_url}`"),
                );
            }
            if !route.path.starts_with('/') {
                self.err(
                    Diagnostic::error(
                        "bad-route",
                        format!("{rpath}.path"),
                        format!("route path `{}` must start with `/`", route.path),
                    )
                    .help(format!("write `/{}`", route.path)),
                );
            }
            if let Some(body) = &route.body {
                self.json_template(&format!("{rpath}.body"), body, &scope);
            }
            if route.output == RouteOutput::Markdown
                && self.cat.runtime.as_ref().is_some_and(|r| r.markdown_field.is_none())
            {
                self.err(
                    Diagnostic::error(
                        "no-markdown-field",
                        rpath.as_str(),
                        "the route returns markdown but `runtime.markdown_field` is not set",
                    )
                    .at_key()
                    .help("set `runtime.markdown_field`, or `output: json` on the route"),
                );
            }
        }
        if tool.steps.is_empty() && tool.runtime.is_none() {
            self.err(
                Diagnostic::error(
                    "no-steps",
                    path,
                    format!("tool `{}` has neither `steps` nor a `runtime` route", tool.name),
                )
                .help("add a step such as `run: [command, \"{param}\"]`"),
            );
        }
        // Step data flow and `output` blocks are checked in their own module.
        self.diags.extend(super::render::check_tool(self.cat, path, tool));
        let mut step_ids: HashSet<&str> = HashSet::new();
        for (k, step) in tool.steps.iter().enumerate() {
            let spath = format!("{path}.steps[{k}]");
            self.step(&spath, tool, step, &params, &step_ids);
            if let Some(id) = &step.id {
                if !is_identifier(id) {
                    self.err(
                        Diagnostic::error(
                            "bad-name",
                            format!("{spath}.id"),
                            format!("step id `{id}` is not valid"),
                        )
                        .help("use [a-z_][a-z0-9_]*"),
                    );
                }
                if !step_ids.insert(id) {
                    self.err(
                        Diagnostic::error(
                            "duplicate-step",
                            format!("{spath}.id"),
                            format!("step id `{id}` is used twice"),
                        )
                        .help("give each step its own id"),
                    );
                }
            }
        }
    }

    fn step(&mut self, path: &str, tool: &Tool, step: &Step, params: &HashMap<&str, &Param>, earlier: &HashSet<&str>) {
        let kinds = [
            ("run", step.run.is_some()),
            ("append", step.append.is_some()),
            ("fold", step.fold.is_some()),
            ("update", step.update.is_some()),
            ("signal", step.signal.is_some()),
        ];
        let present: Vec<&str> = kinds.iter().filter(|k| k.1).map(|k| k.0).collect();
        match present.len() {
            0 => {
                self.err(
                    Diagnostic::error(
                        "bad-step",
                        path,
                        "a step needs one of `run`, `append`, `fold`, `update`, `signal`",
                    )
                    .help("add `run: [command, \"{param}\"]` for a CLI call"),
                );
                return;
            }
            1 => {}
            _ => self.err(
                Diagnostic::error(
                    "bad-step",
                    path,
                    format!("a step does exactly one thing, this one has {}", present.join(" and ")),
                )
                .help("split it into several steps"),
            ),
        }
        let mut extra: Vec<&str> = Vec::new();
        if let Some(fe) = &step.for_each {
            extra.push("item");
            // A path into an earlier step's result is checked by `super::render`.
            let data = fe.contains('.') || earlier.contains(fe.as_str());
            match params.get(fe.as_str()) {
                _ if data => {}
                Some(p) if p.ty == ParamType::Array => {}
                Some(_) => self.err(
                    Diagnostic::error(
                        "bad-for-each",
                        format!("{path}.for_each"),
                        format!("`for_each` needs an array parameter, `{fe}` is not one"),
                    )
                    .help("point it at an array parameter"),
                ),
                None => self.err(
                    Diagnostic::error(
                        "unknown-param",
                        format!("{path}.for_each"),
                        format!("`for_each` names no parameter `{fe}`"),
                    )
                    .help(hint_for(
                        fe,
                        &params.keys().collect::<Vec<_>>(),
                        "declare the array parameter",
                    )),
                ),
            }
        }
        let scope = Scope { params, extra: &extra };
        if let Some(when) = &step.when {
            self.cond(&format!("{path}.when"), when, tool, params, earlier);
        }
        if let Some(m) = &step.message {
            let mut with_result = extra.clone();
            with_result.push("result");
            self.template(
                &format!("{path}.message"),
                m,
                &Scope {
                    params,
                    extra: &with_result,
                },
            );
        }
        if step.program.is_some() && step.run.is_none() {
            self.err(
                Diagnostic::error(
                    "bad-step",
                    format!("{path}.program"),
                    "`program` applies to `run` steps",
                )
                .at_key()
                .help("remove it; store steps use the top-level `store.program`"),
            );
        }
        if step.stdin.is_some() && step.run.is_none() {
            self.err(
                Diagnostic::error("bad-step", format!("{path}.stdin"), "`stdin` applies to `run` steps")
                    .at_key()
                    .help("use `body` on an `append` step"),
            );
        }
        if let Some(argv) = &step.run {
            if step.program.is_none() && self.cat.cli.is_none() {
                self.err(
                    Diagnostic::error(
                        "no-cli",
                        format!("{path}.run"),
                        "a `run` step needs a program, and the catalog declares no `cli`",
                    )
                    .at_key()
                    .help("add `cli: {binary: NAME}` or `program:` on the step"),
                );
            }
            if argv.is_empty() && step.program.is_none() {
                self.err(
                    Diagnostic::error("bad-step", format!("{path}.run"), "`run` is empty")
                        .help("give the command's arguments"),
                );
            }
            for (a, arg) in argv.iter().enumerate() {
                self.arg(&format!("{path}.run[{a}]"), arg, &scope);
            }
            if let Some(s) = &step.stdin {
                self.template(&format!("{path}.stdin"), s, &scope);
            }
        }
        let store_step = step.append.is_some() || step.fold.is_some() || step.update.is_some();
        if store_step && self.cat.store.is_none() {
            self.err(
                Diagnostic::error("no-store", path, "store steps need a top-level `store`")
                    .help("add `store: {program: xs, path: \"{store}\"}`"),
            );
        }
        if let Some(a) = &step.append {
            self.template(&format!("{path}.append.topic"), &a.topic, &scope);
            self.json_template(&format!("{path}.append.meta"), &a.meta, &scope);
            if let Some(b) = &a.body {
                self.template(&format!("{path}.append.body"), b, &scope);
            }
        }
        if let Some(f) = &step.fold {
            self.template(&format!("{path}.fold.topic"), &f.topic, &scope);
            if let Some(filter) = &f.filter {
                self.template(&format!("{path}.fold.filter.equals"), &filter.equals, &scope);
            }
        }
        if let Some(u) = &step.update {
            self.template(&format!("{path}.update.topic"), &u.topic, &scope);
            self.template(&format!("{path}.update.id"), &u.id, &scope);
            self.json_template(&format!("{path}.update.meta"), &u.meta, &scope);
        }
        if let Some(s) = &step.signal {
            self.template(&format!("{path}.signal.pid"), &s.pid, &scope);
            if !s.signal.starts_with("SIG")
                || !s.signal[3..]
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            {
                self.err(
                    Diagnostic::error(
                        "bad-signal",
                        format!("{path}.signal.signal"),
                        format!("`{}` is not a signal name", s.signal),
                    )
                    .help("use a name such as `SIGTERM` or `SIGINT`"),
                );
            }
        }
    }

    fn arg(&mut self, path: &str, arg: &Arg, scope: &Scope) {
        let s = match arg {
            Arg::Text(t) => {
                self.template(path, t, scope);
                return;
            }
            Arg::Special(s) => s,
        };
        let kinds = [s.opt.is_some(), s.flag.is_some(), s.spread.is_some(), s.json.is_some()];
        if kinds.iter().filter(|k| **k).count() != 1 {
            self.err(
                Diagnostic::error(
                    "bad-arg",
                    path,
                    "a structured argument is exactly one of `opt`, `flag`, `spread`, `json`",
                )
                .help("e.g. `{opt: --kind, value: \"{kind}\"}` or `{flag: --silent, if: silent}`"),
            );
            return;
        }
        if s.opt.is_some() {
            match &s.value {
                Some(v) => self.template(&format!("{path}.value"), v, scope),
                None => self.err(
                    Diagnostic::error("bad-arg", path, "`opt` needs a `value`")
                        .help("e.g. `{opt: --kind, value: \"{kind}\"}`"),
                ),
            }
        } else if s.value.is_some() {
            self.err(
                Diagnostic::error("bad-arg", format!("{path}.value"), "`value` goes with `opt`")
                    .at_key()
                    .help("remove it"),
            );
        }
        if s.flag.is_some() {
            match &s.if_param {
                None => self.err(
                    Diagnostic::error("bad-arg", path, "`flag` needs `if: <boolean parameter>`")
                        .help("e.g. `{flag: --silent, if: silent}`"),
                ),
                Some(p) => match scope.params.get(p.as_str()) {
                    Some(param) if param.ty == ParamType::Boolean => {}
                    Some(_) => self.err(
                        Diagnostic::error(
                            "bad-arg",
                            format!("{path}.if"),
                            format!("`if` needs a boolean parameter, `{p}` is not one"),
                        )
                        .help("point it at a boolean parameter"),
                    ),
                    None => self.unknown_var(&format!("{path}.if"), p, scope),
                },
            }
        } else if s.if_param.is_some() {
            self.err(
                Diagnostic::error("bad-arg", format!("{path}.if"), "`if` goes with `flag`")
                    .at_key()
                    .help("remove it"),
            );
        }
        if let Some(sp) = &s.spread {
            match scope.params.get(sp.as_str()) {
                Some(p) if p.ty == ParamType::Array => {}
                Some(_) => self.err(
                    Diagnostic::error(
                        "bad-arg",
                        format!("{path}.spread"),
                        format!("`spread` needs an array parameter, `{sp}` is not one"),
                    )
                    .help("point it at an array parameter"),
                ),
                None => self.unknown_var(&format!("{path}.spread"), sp, scope),
            }
        }
        if let Some(j) = &s.json {
            self.json_template(&format!("{path}.json"), j, scope);
        }
    }

    fn cond(&mut self, path: &str, c: &Cond, tool: &Tool, params: &HashMap<&str, &Param>, earlier: &HashSet<&str>) {
        // A condition on a field of step data is checked by `super::render`.
        if c.field.is_some() {
            return;
        }
        let combos = [
            c.param.is_some(),
            c.step.is_some(),
            c.all.is_some(),
            c.any.is_some(),
            c.not.is_some(),
        ];
        if combos.iter().filter(|x| **x).count() != 1 {
            self.err(
                Diagnostic::error(
                    "bad-condition",
                    path,
                    "a condition is exactly one of `param`, `step`, `all`, `any`, `not`",
                )
                .help("e.g. `{param: direction, in: [callers, all]}` or `{step: impact, failed: true}`"),
            );
            return;
        }
        for (key, list) in [("all", &c.all), ("any", &c.any)] {
            if let Some(list) = list {
                for (i, sub) in list.iter().enumerate() {
                    self.cond(&format!("{path}.{key}[{i}]"), sub, tool, params, earlier);
                }
            }
        }
        if let Some(sub) = &c.not {
            self.cond(&format!("{path}.not"), sub, tool, params, earlier);
        }
        if let Some(pname) = &c.param {
            let tests = [
                c.in_values.is_some(),
                c.equals.is_some(),
                c.contains.is_some(),
                c.set.is_some(),
            ];
            if tests.iter().filter(|x| **x).count() != 1 || c.matches.is_some() || c.failed.is_some() {
                self.err(
                    Diagnostic::error(
                        "bad-condition",
                        path,
                        "a parameter condition has exactly one of `in`, `equals`, `contains`, `set`",
                    )
                    .help("e.g. `{param: refresh, equals: true}`"),
                );
            }
            let Some(p) = params.get(pname.as_str()) else {
                let known: Vec<&str> = params.keys().copied().collect();
                self.err(
                    Diagnostic::error(
                        "unknown-param",
                        format!("{path}.param"),
                        format!("condition names no parameter `{pname}`"),
                    )
                    .help(hint_for(pname, &known, "declare the parameter")),
                );
                return;
            };
            if let Some(vals) = &c.in_values {
                for (i, v) in vals.iter().enumerate() {
                    if let Err(why) = check_value(p, v) {
                        self.err(
                            Diagnostic::error(
                                "bad-condition",
                                format!("{path}.in[{i}]"),
                                format!("`{pname}` can never be this: {why}"),
                            )
                            .help(value_help(p)),
                        );
                    }
                }
            }
            if let Some(v) = &c.equals
                && let Err(why) = check_value(p, v)
            {
                self.err(
                    Diagnostic::error(
                        "bad-condition",
                        format!("{path}.equals"),
                        format!("`{pname}` can never be this: {why}"),
                    )
                    .help(value_help(p)),
                );
            }
            if let Some(v) = &c.contains {
                match (&p.ty, &p.items) {
                    (ParamType::Array, Some(items)) => {
                        if let (ParamType::Enum, Some(vals), Some(s)) = (items.ty, &items.values, v.as_str())
                            && !vals.iter().any(|x| x == s)
                        {
                            self.err(
                                Diagnostic::error(
                                    "bad-condition",
                                    format!("{path}.contains"),
                                    format!("`{s}` is not one of the values of `{pname}`"),
                                )
                                .help(format!("use one of: {}", vals.join(", "))),
                            );
                        }
                    }
                    _ => self.err(
                        Diagnostic::error(
                            "bad-condition",
                            format!("{path}.contains"),
                            format!("`contains` needs an array parameter, `{pname}` is not one"),
                        )
                        .at_key()
                        .help("use `equals` or `in`"),
                    ),
                }
            }
        }
        if let Some(sname) = &c.step {
            if c.matches.is_some() == c.failed.is_some()
                || c.in_values.is_some()
                || c.equals.is_some()
                || c.contains.is_some()
                || c.set.is_some()
            {
                self.err(
                    Diagnostic::error(
                        "bad-condition",
                        path,
                        "a step condition has exactly one of `matches`, `failed`",
                    )
                    .help("e.g. `{step: impact, matches: \"high\"}`"),
                );
            }
            if tool.parallel {
                self.err(
                    Diagnostic::error(
                        "bad-condition",
                        format!("{path}.step"),
                        "a parallel tool's steps cannot depend on each other",
                    )
                    .help("remove `parallel: true`, or the step condition"),
                );
            }
            if !earlier.contains(sname.as_str()) {
                let known: Vec<&&str> = earlier.iter().collect();
                self.err(
                    Diagnostic::error(
                        "unknown-step",
                        format!("{path}.step"),
                        format!("no earlier step has id `{sname}`"),
                    )
                    .help(hint_for(
                        sname,
                        &known,
                        "a condition can only look at a step that runs before it",
                    )),
                );
            }
            if let Some(re) = &c.matches
                && let Err(e) = super::values::check_regex(re, c.flags.as_deref().unwrap_or(""), false)
            {
                self.err(
                    Diagnostic::error(
                        "bad-pattern",
                        format!("{path}.matches"),
                        format!("not a valid regular expression: {}", e),
                    )
                    .help("fix the expression"),
                );
            }
            if let Some(flags) = &c.flags
                && let Err(e) = super::values::check_flags(flags)
            {
                self.err(
                    Diagnostic::error(
                        "bad-pattern",
                        format!("{path}.flags"),
                        format!("`{flags}` are not usable regular expression flags: {e}"),
                    )
                    .help("use each of `i`, `m`, `s`, `u` at most once"),
                );
            }
        }
    }

    fn template(&mut self, path: &str, text: &str, scope: &Scope) {
        match Template::parse(text) {
            Err(e) => self.err(
                Diagnostic::error("bad-template", path, e.message)
                    .help("placeholders are `{name}`; `{{` and `}}` are literal braces"),
            ),
            Ok(t) => {
                for var in t.vars() {
                    // Paths into step results (`{locate.resolvedTarget.name}`) are checked by
                    // `super::render`.
                    if var.contains('.') {
                        continue;
                    }
                    if !scope.params.contains_key(var)
                        && !self.cat.context.contains_key(var)
                        && !scope.extra.contains(&var)
                    {
                        self.unknown_var(path, var, scope);
                    }
                }
            }
        }
    }

    fn unknown_var(&mut self, path: &str, var: &str, scope: &Scope) {
        let mut known: Vec<String> = scope.params.keys().map(|k| k.to_string()).collect();
        known.extend(self.cat.context.keys().cloned());
        known.extend(scope.extra.iter().map(|s| s.to_string()));
        known.sort();
        let help = match did_you_mean(var, &known) {
            Some(m) => format!("did you mean `{m}`?"),
            None if known.is_empty() => "declare it as a parameter of the tool or a context variable".to_string(),
            None => format!(
                "declare it as a parameter or context variable; known here: {}",
                known.join(", ")
            ),
        };
        self.err(
            Diagnostic::error(
                "undeclared-placeholder",
                path,
                format!("`{{{var}}}` refers to no parameter or context variable"),
            )
            .help(help),
        );
    }

    fn json_template(&mut self, path: &str, value: &serde_json::Value, scope: &Scope) {
        match value {
            serde_json::Value::String(s) => self.template(path, s, scope),
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.json_template(&format!("{path}[{i}]"), item, scope);
                }
            }
            serde_json::Value::Object(map) => {
                for (k, item) in map {
                    self.json_template(&format!("{path}.{k}"), item, scope);
                }
            }
            _ => {}
        }
    }

    fn toolsets(&mut self) {
        let names: Vec<&String> = self.cat.tools.iter().map(|t| &t.name).collect();
        let by_name: HashMap<&str, &Tool> = self.cat.tools.iter().map(|t| (t.name.as_str(), t)).collect();
        let budget = self.cat.lint.toolset_budget;
        for (set, ts) in &self.cat.toolsets {
            let path = format!("toolsets.{set}");
            if !is_identifier(&set.replace('-', "_")) {
                self.err(
                    Diagnostic::error("bad-name", &path, format!("toolset name `{set}` is not valid"))
                        .at_key()
                        .help("use lowercase letters, digits, `_` and `-`"),
                );
            }
            let mut seen = HashSet::new();
            let mut total = 0;
            for (i, t) in ts.tools.iter().enumerate() {
                match by_name.get(t.as_str()) {
                    Some(tool) => total += tool.description.chars().count(),
                    None => self.err(
                        Diagnostic::error(
                            "unknown-tool",
                            format!("{path}.tools[{i}]"),
                            format!("toolset `{set}` names no tool `{t}`"),
                        )
                        .help(hint_for(t, &names, "define the tool under `tools`")),
                    ),
                }
                if !seen.insert(t) {
                    self.err(
                        Diagnostic::error(
                            "duplicate-tool",
                            format!("{path}.tools[{i}]"),
                            format!("`{t}` is listed twice in toolset `{set}`"),
                        )
                        .help("remove the repeat"),
                    );
                }
            }
            if total > budget {
                self.err(Diagnostic::warning("toolset-budget", &path, format!("the descriptions of toolset `{set}` add up to {total} characters, over the budget of {budget}")).at_key().help("shorten descriptions, or raise `lint.toolset_budget`"));
            }
        }
    }

    fn toolset_ref(&mut self, path: &str, name: &str) -> bool {
        if self.cat.toolsets.contains_key(name) {
            return true;
        }
        let known: Vec<&String> = self.cat.toolsets.keys().collect();
        self.err(
            Diagnostic::error("unknown-toolset", path, format!("no toolset `{name}`")).help(hint_for(
                name,
                &known,
                "declare it under `toolsets`",
            )),
        );
        false
    }

    fn filters(&mut self) {
        let names: Vec<&String> = self.cat.tools.iter().map(|t| &t.name).collect();
        for (key, list) in [
            ("enable", &self.cat.filters.enable),
            ("disable", &self.cat.filters.disable),
        ] {
            for (i, n) in list.iter().enumerate() {
                if !names.contains(&n) {
                    self.err(
                        Diagnostic::error("unknown-tool", format!("filters.{key}[{i}]"), format!("no tool `{n}`"))
                            .help(hint_for(n, &names, "name a tool of the catalog")),
                    );
                }
            }
        }
    }
}

/// Checks a literal value against a parameter's type, enum and bounds.
pub fn check_value(p: &Param, v: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value as J;
    match (p.ty, v) {
        (ParamType::String | ParamType::Path, J::String(s)) => bounds(p, s.chars().count() as f64, "length"),
        (ParamType::Integer, J::Number(n)) if n.is_i64() || n.is_u64() => bounds(p, n.as_f64().unwrap_or(0.0), "value"),
        (ParamType::Number, J::Number(n)) => bounds(p, n.as_f64().unwrap_or(0.0), "value"),
        (ParamType::Boolean, J::Bool(_)) => Ok(()),
        (ParamType::Enum, J::String(s)) => {
            let vals = p.values.as_deref().unwrap_or_default();
            if vals.iter().any(|x| x == s) {
                Ok(())
            } else {
                Err(format!("`{s}` is not one of its values ({})", vals.join(", ")))
            }
        }
        (ParamType::Array, J::Array(items)) => {
            bounds(p, items.len() as f64, "length")?;
            if let Some(it) = &p.items {
                let item_param = Param {
                    ty: it.ty,
                    values: it.values.clone(),
                    description: None,
                    required: false,
                    default: None,
                    items: None,
                    min: None,
                    max: None,
                    clamp: None,
                    pattern: None,
                    renamed_from: None,
                };
                for x in items {
                    check_value(&item_param, x)?;
                }
            }
            Ok(())
        }
        (ty, v) => Err(format!("is {}, not {}", json_kind(v), type_name(ty))),
    }
}

fn bounds(p: &Param, x: f64, what: &str) -> Result<(), String> {
    if let Some(min) = p.min
        && x < min
    {
        return Err(format!("has {what} {x}, below `min` {min}"));
    }
    if let Some(max) = p.max
        && x > max
    {
        return Err(format!("has {what} {x}, above `max` {max}"));
    }
    Ok(())
}

fn value_help(p: &Param) -> String {
    match (p.ty, &p.values) {
        (ParamType::Enum, Some(vals)) => format!("use one of: {}", vals.join(", ")),
        _ => match (p.min, p.max) {
            (Some(a), Some(b)) => format!("use {} between {a} and {b}", article(p.ty)),
            _ => format!("use {}", article(p.ty)),
        },
    }
}

fn article(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String | ParamType::Path => "a string",
        ParamType::Integer => "an integer",
        ParamType::Number => "a number",
        ParamType::Boolean => "true or false",
        ParamType::Enum => "one of the values",
        ParamType::Array => "a list",
    }
}

/// The catalog's name of a parameter type.
pub fn type_name(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String => "string",
        ParamType::Integer => "integer",
        ParamType::Number => "number",
        ParamType::Boolean => "boolean",
        ParamType::Enum => "enum",
        ParamType::Array => "array",
        ParamType::Path => "path",
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(n) if n.is_f64() => "a fractional number",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}

pub(crate) fn hint_for<S: AsRef<str>>(found: &str, known: &[S], otherwise: &str) -> String {
    match did_you_mean(found, known) {
        Some(m) => format!("did you mean `{m}`?"),
        None => otherwise.to_string(),
    }
}

fn is_kebab(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

fn is_ts_constant(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A name every host accepts, derived from a rejected one.
fn suggest_name(name: &str) -> String {
    let s: String = name
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_start_matches(|c: char| !c.is_ascii_lowercase()).to_string();
    if s.is_empty() {
        "my_tool".into()
    } else {
        s.chars().take(64).collect()
    }
}
