//! Semantic validation and lints of a typed catalog.
//!
//! Structural errors were already caught by the deserializer; this stage checks the
//! catalog-level rules that span fields: names every host accepts, context declarations,
//! shared parameters, toolsets, filters, the server, and the description budget (a warning; the
//! toolset budget is the hosts' check, on what each host gets). A tool's own
//! rules (parameters, steps, conditions, argv, templates) are checked by the lowering pass in
//! `crate::model`, which returns the IR node of each thing it checks. It reports by catalog
//! path; the loader turns paths into positions. It never renders anything.

use super::types::*;
use crate::diagnostic::{Diagnostic, Report, hint_for};
use crate::template::is_identifier;
use std::collections::{HashMap, HashSet};

/// Variable names the steps bind themselves.
pub const RESERVED_VARS: [&str; 3] = ["item", "result", NOW_MS];

/// The variable a store frame's meta may use for the time it is appended, in milliseconds
/// since the epoch (a loop that only honours recent frames needs it).
pub const NOW_MS: &str = "now_ms";

/// Constants the generated session file declares or imports itself: a context variable's
/// constant may not be one (it would declare the name twice, and the file would not parse).
/// `SPEC_*` (one per tool) and `__IX*` are reserved as prefixes.
pub const GENERATED_CONSTANTS: [&str; 2] = ["CONTEXT", "SHARED"];

/// The diagnostic for a name the catalog gives (a parameter, a context variable, a step id, a
/// key of a JSON template) that is unsafe in a generated language, at the key `path`; `what`
/// says which kind of name it is. Names are already `[a-z_][a-z0-9_]*`, which every language
/// ixgen writes (TypeScript, JSON, TOML, shell) takes as an identifier or bare key; what is
/// left are JavaScript's special object keys. `__proto__` in an object literal (quoted or not)
/// or an assignment sets the object's prototype instead of a value, so the argument, variable
/// or key would be lost. `constructor` and `prototype` are plain own keys in a literal and
/// when assigned, and the runtime reads every name with `Object.hasOwn`, never through the
/// prototype, so they stay allowed.
pub fn unsafe_name_diagnostic(path: &str, what: &str, name: &str) -> Option<Diagnostic> {
    unsafe_value_diagnostic(path, what, name).map(Diagnostic::at_key)
}

/// [`unsafe_name_diagnostic`] for a name that is the value at `path` (a step id).
pub fn unsafe_value_diagnostic(path: &str, what: &str, name: &str) -> Option<Diagnostic> {
    let why = "`__proto__` as a key of a JavaScript object sets the object's prototype, so its value would be lost";
    (name == "__proto__").then(|| {
        Diagnostic::error("reserved-name", path, format!("{what} `{name}` is unsafe: {why}")).help("rename it")
    })
}

/// The tool name rule every host accepts.
pub fn valid_tool_name(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| matches!(c, 'a'..='z' | '0'..='9' | '_' | '-'))
}

/// Validates the catalog-level rules; errors and warnings, unsorted and unlocated. The rules of
/// each tool live with its lowering (`crate::model`), which calls this first.
pub fn validate(cat: &Catalog) -> Vec<Diagnostic> {
    let mut v = Validator { cat, diags: Vec::new() };
    if cat.version != 1 {
        v.diags.err(
            "version",
            "version",
            format!("catalog format version {} is not supported", cat.version),
            "this ixgen reads `version: 1`",
        );
    }
    if !is_kebab(&cat.product.name) {
        v.diags.err(
            "bad-name",
            "product.name",
            format!("product name `{}` must be kebab-case", cat.product.name),
            "use lowercase letters, digits and `-`, starting with a letter (hosts use it as a plugin name)",
        );
    }
    v.product();
    v.context();
    for (name, p) in &cat.params {
        v.param(&format!("params.{name}"), name, p);
    }
    v.tools();
    v.toolsets();
    v.server();
    v.diags
}

/// The checks of one parameter declared at `path` (shared or a tool's own), unlocated.
pub fn param(cat: &Catalog, path: &str, name: &str, p: &Param) -> Vec<Diagnostic> {
    let mut v = Validator { cat, diags: Vec::new() };
    v.param(path, name, p);
    v.diags
}

struct Validator<'a> {
    cat: &'a Catalog,
    diags: Vec<Diagnostic>,
}

impl<'a> Validator<'a> {
    /// Values the hosts take as they are: an empty one, or a web address that is not one, gets
    /// past every other check and then makes a host refuse the plugin (Claude Code: "Author
    /// name cannot be empty", "homepage: Invalid URL") or drop the server without a word.
    fn product(&mut self) {
        let (cat, p) = (self.cat, &self.cat.product);
        let author = p.author.as_ref();
        let texts = [
            ("product.description", Some(&p.description)),
            ("product.license", p.license.as_ref()),
            ("product.author.name", author.map(|a| &a.name)),
            ("cli.binary", cat.cli.as_ref().map(|c| &c.binary)),
            ("server.command", cat.server.as_ref().map(|s| &s.command)),
        ];
        for (path, value) in texts {
            if value.is_some_and(|v| v.trim().is_empty()) {
                self.diags.err(
                    "empty-value",
                    path,
                    format!("`{path}` is empty"),
                    "give it a value, or leave the key out",
                );
            }
        }
        let urls = [
            ("product.homepage", p.homepage.as_ref()),
            ("product.repository", p.repository.as_ref()),
            ("product.author.url", author.and_then(|a| a.url.as_ref())),
        ];
        for (path, value) in urls {
            let Some(url) = value else { continue };
            let host = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
            if !host.is_some_and(|h| !h.is_empty() && !h.starts_with('/') && !h.contains(char::is_whitespace)) {
                self.diags.err(
                    "bad-url",
                    path,
                    format!("`{path}` is not a web address: `{url}`"),
                    "write an address starting with `https://`",
                );
            }
        }
    }

    fn server(&mut self) {
        let Some(server) = &self.cat.server else { return };
        let name = &server.toolset;
        if !self.cat.toolsets.contains_key(name) {
            let known: Vec<&String> = self.cat.toolsets.keys().collect();
            self.diags.err(
                "unknown-toolset",
                "server.toolset",
                format!("no toolset `{name}`"),
                hint_for(name, &known, "declare it under `toolsets`"),
            );
        }
        if !valid_tool_name(&server.name) {
            self.diags.err(
                "bad-name",
                "server.name",
                format!("server name `{}` is not accepted by every host", server.name),
                "use ^[a-z][a-z0-9_-]*$",
            );
        }
    }

    fn context(&mut self) {
        let mut constants = HashSet::new();
        for (name, var) in &self.cat.context {
            let path = format!("context.{name}");
            if !is_identifier(name) {
                self.diags.err_at_key(
                    "bad-name",
                    &path,
                    format!("context variable `{name}` is not a valid name"),
                    "use [a-z_][a-z0-9_]*",
                );
            }
            self.diags
                .extend(unsafe_name_diagnostic(&path, "context variable", name));
            if RESERVED_VARS.contains(&name.as_str()) {
                self.diags.err_at_key(
                    "reserved-name",
                    &path,
                    format!("`{name}` is reserved for values the steps bind"),
                    "rename the context variable",
                );
            }
            if var.format.is_some() && var.ty != ContextType::String {
                self.diags.err(
                    "bad-format",
                    format!("{path}.format"),
                    "`format` applies to string variables",
                    "remove `format` or make the variable a string",
                );
            }
            if var.min.is_some() && var.ty != ContextType::Integer {
                self.diags.err(
                    "bad-bound",
                    format!("{path}.min"),
                    "`min` applies to integer variables",
                    "remove `min`",
                );
            }
            let why = var.default.as_ref().and_then(|d| match (var.ty, d) {
                // An integer outside JavaScript's safe range was refused where the YAML is read.
                (ContextType::Integer, ContextDefault::Integer(n)) => var
                    .min
                    .filter(|min| n < min)
                    .map(|min| format!("{n} is below the minimum {min}")),
                (ContextType::Integer, ContextDefault::Text(_)) => Some("an integer variable needs an integer".into()),
                (_, ContextDefault::Integer(_)) => Some("a string or path variable needs a string".into()),
                (ContextType::String, ContextDefault::Text(t)) => {
                    var.format.and_then(|ContextFormat::TopicPart| topic_part(t).err())
                }
                (ContextType::Path, ContextDefault::Text(t)) => t.is_empty().then(|| "is empty".to_string()),
            });
            if let Some(why) = why {
                self.diags.err(
                    "bad-default",
                    format!("{path}.default"),
                    format!("bad default: {why}"),
                    "give a value of the variable's type that its own checks accept",
                );
            }
            let constant = var.constant_name(name);
            if !is_ts_constant(&constant) {
                self.diags.err(
                    "bad-name",
                    format!("{path}.constant"),
                    format!("`{constant}` is not a usable TypeScript constant name"),
                    "use [A-Z_][A-Z0-9_]*",
                );
            } else if GENERATED_CONSTANTS.contains(&constant.as_str())
                || constant.starts_with("SPEC_")
                || constant.starts_with("__IX")
            {
                self.diags.err(
                    "reserved-name",
                    format!("{path}.constant"),
                    format!("constant `{constant}` clashes with a name of the generated code"),
                    "set `constant:` to another name",
                );
            } else if !constants.insert(constant.clone()) {
                self.diags.err(
                    "duplicate-name",
                    format!("{path}.constant"),
                    format!("constant `{constant}` is used by two context variables"),
                    "give one of them another `constant`",
                );
            }
        }
    }

    fn param(&mut self, path: &str, name: &str, p: &Param) {
        if !is_identifier(name) {
            self.diags.err_at_key(
                "bad-name",
                path,
                format!("parameter name `{name}` is not valid"),
                "use [a-z_][a-z0-9_]* so every host and the generated code accept it",
            );
        }
        self.diags.extend(unsafe_name_diagnostic(path, "parameter", name));
        if self.cat.context.contains_key(name) || RESERVED_VARS.contains(&name) {
            self.diags.err_at_key(
                "shadowed-name",
                path,
                format!("parameter `{name}` has the name of a context variable or step result"),
                "rename the parameter: `{name}` in a template must mean one thing",
            );
        }
        if let Some(var) = &p.equals_context {
            if !self.cat.context.contains_key(var) {
                let known: Vec<&String> = self.cat.context.keys().collect();
                self.diags.err(
                    "unknown-context",
                    format!("{path}.equals_context"),
                    format!("no context variable `{var}`"),
                    hint_for(var, &known, "declare it under `context`"),
                );
            }
            if p.ty != ParamType::String {
                self.diags.err(
                    "bad-type",
                    format!("{path}.equals_context"),
                    "`equals_context` applies to string parameters",
                    "make the parameter a string",
                );
            }
        }
        if p.required && p.default.is_some() {
            self.diags.err(
                "required-default",
                format!("{path}.default"),
                format!("required parameter `{name}` has a default"),
                "remove `default`, or make the parameter optional (`required: false`)",
            );
        }
        let what = format!("enum parameter `{name}` has");
        self.values(path, p.ty, &p.values, &what, "the parameter");
        match (p.ty, &p.items) {
            (ParamType::Array, None) => self.diags.err(
                "array-items",
                path,
                format!("array parameter `{name}` has no `items`"),
                "add `items: {type: string}`: OpenAI and VS Code refuse arrays without items",
            ),
            (ParamType::Array, Some(items)) if items.ty == ParamType::Array => self.diags.err(
                "array-items",
                format!("{path}.items.type"),
                "arrays of arrays are not supported",
                "use a string or enum item type",
            ),
            (ParamType::Array, Some(items)) => {
                let ipath = format!("{path}.items");
                self.values(&ipath, items.ty, &items.values, "enum items have", "the items");
            }
            (_, Some(_)) => self.diags.err_at_key(
                "array-items",
                format!("{path}.items"),
                "`items` applies to `type: array`",
                "remove `items`, or make the parameter an array",
            ),
            _ => {}
        }
        if let (Some(min), Some(max)) = (p.min, p.max)
            && min > max
        {
            self.diags.err(
                "bad-bound",
                format!("{path}.min"),
                format!("`min` ({min}) is greater than `max` ({max})"),
                "swap them",
            );
        }
        // An integer's bounds are whole numbers, and so is a length or a count (a string's,
        // a path's, an array's), which is also never negative: `min: 1.5` on an integer would
        // clamp a call to 1.5 and send that, and a length of 1.5 or -1 means nothing.
        let length = matches!(p.ty, ParamType::String | ParamType::Path | ParamType::Array);
        for (key, bound) in [("min", p.min), ("max", p.max)] {
            let Some(b) = bound.filter(|_| length || p.ty == ParamType::Integer) else {
                continue;
            };
            if b.fract() != 0.0 || (length && b < 0.0) {
                let message = match length {
                    true => format!(
                        "`{key}` ({b}) bounds the length of a {}: a whole number, 0 or more",
                        super::rules::type_name(p.ty)
                    ),
                    false => format!("`{key}` ({b}) of an integer parameter must be a whole number"),
                };
                self.diags
                    .err("bad-bound", format!("{path}.{key}"), message, "write a whole number");
            }
        }
        if (p.min.is_some() || p.max.is_some()) && matches!(p.ty, ParamType::Boolean | ParamType::Enum) {
            self.diags.err(
                "bad-bound",
                path,
                format!("bounds do not apply to a {} parameter", super::rules::type_name(p.ty)),
                "remove `min`/`max`",
            );
        }
        if p.clamp.is_some() && !matches!(p.ty, ParamType::Integer | ParamType::Number) {
            self.diags.err_at_key(
                "bad-bound",
                format!("{path}.clamp"),
                "`clamp` applies to numbers",
                "remove `clamp`",
            );
        }
        if let Some(pat) = &p.pattern {
            if !matches!(p.ty, ParamType::String | ParamType::Path) {
                self.diags.err_at_key(
                    "bad-pattern",
                    format!("{path}.pattern"),
                    "`pattern` applies to strings",
                    "remove `pattern`",
                );
            } else if let Err(e) = super::values::check_regex(pat, "", true) {
                self.diags.err(
                    "bad-pattern",
                    format!("{path}.pattern"),
                    format!("`pattern` is not a valid regular expression: {}", e),
                    "fix the expression",
                );
            }
        }
        if p.keep_empty && !matches!(p.ty, ParamType::String) {
            self.diags.err_at_key(
                "bad-keep-empty",
                format!("{path}.keep_empty"),
                "`keep_empty` applies to strings",
                "remove it",
            );
        }
        if p.keep_empty && p.min.is_some_and(|m| m > 0.0) {
            self.diags.err_at_key(
                "bad-keep-empty",
                format!("{path}.keep_empty"),
                "`keep_empty` keeps `\"\"`, but `min` refuses it",
                "remove `min`, or `keep_empty`",
            );
        }
        if p.nullable && p.required {
            self.diags.err_at_key(
                "bad-nullable",
                format!("{path}.nullable"),
                "a required parameter cannot be null (null means unset)",
                "make the parameter optional, or remove `nullable`",
            );
        }
        if let Some(def) = &p.default
            && let Err(why) = super::rules::check_value(p, def)
        {
            self.diags.err(
                "bad-default",
                format!("{path}.default"),
                format!("default of `{name}` {why}"),
                value_help(p),
            );
        }
    }

    /// The `values` of the enum (a parameter, or its items) declared at `path`, which only an
    /// enum has; `what` names it with its verb (``enum parameter `x` has``), `noun` as a noun.
    fn values(&mut self, path: &str, ty: ParamType, values: &Option<Vec<String>>, what: &str, noun: &str) {
        let vals = match (ty, values) {
            (ParamType::Enum, Some(vals)) => vals,
            (ParamType::Enum, None) => {
                return self.diags.err(
                    "enum-values",
                    path,
                    format!("{what} no `values`"),
                    "add `values: [a, b]`",
                );
            }
            (_, Some(_)) => {
                return self.diags.err_at_key(
                    "enum-values",
                    format!("{path}.values"),
                    "`values` applies to `type: enum`",
                    format!("make {noun} an enum, or remove `values`"),
                );
            }
            (_, None) => return,
        };
        let path = format!("{path}.values");
        if vals.is_empty() {
            self.diags.err(
                "enum-values",
                &path,
                "an enum needs at least one value",
                "list the allowed values",
            );
        }
        let mut seen = HashSet::new();
        for (i, v) in vals.iter().enumerate() {
            if !seen.insert(v) {
                self.diags.err(
                    "enum-values",
                    format!("{path}[{i}]"),
                    format!("enum value `{v}` is listed twice"),
                    "remove the repeat",
                );
            }
        }
    }

    fn tools(&mut self) {
        let mut names: HashMap<&str, usize> = HashMap::new();
        // `diff` matches an old tool to the one that names it in `renamed_from`: two that name
        // the same one leave it no answer.
        let mut renames: HashMap<&str, usize> = HashMap::new();
        let budget = self.cat.lint.description_budget;
        let every: HashSet<&str> = self.cat.tools.iter().map(|t| t.name.as_str()).collect();
        for (i, tool) in self.cat.tools.iter().enumerate() {
            let path = format!("tools[{i}]");
            if !valid_tool_name(&tool.name) {
                let help = format!(
                    "use ^[a-z][a-z0-9_-]*$ and at most 64 characters, e.g. `{}` \
                     (Codex and OpenAI reject dots, Claude Code rejects anything else)",
                    suggest_name(&tool.name)
                );
                let message = format!("tool name `{}` is not accepted by every host", tool.name);
                self.diags.err("bad-tool-name", format!("{path}.name"), message, help);
            } else if let Some(first) = names.insert(&tool.name, i) {
                self.diags.err(
                    "duplicate-tool",
                    format!("{path}.name"),
                    format!("tool `{}` is defined twice", tool.name),
                    format!("the first definition is tools[{first}]; rename or remove one"),
                );
            }
            if let Some(old) = &tool.renamed_from
                && let Some(first) = renames.insert(old, i)
            {
                self.diags.err(
                    "duplicate-rename",
                    format!("{path}.renamed_from"),
                    format!(
                        "tool `{}` and tool `{}` (tools[{first}]) are both `renamed_from: {old}`",
                        tool.name, self.cat.tools[first].name
                    ),
                    format!("one tool took the place of `{old}`: keep `renamed_from` on that one and remove it from the other"),
                );
            }
            // A rename from a tool that is still there contradicts itself: `diff` could not
            // tell the old tool from the one that says it took its place.
            if let Some(old) = tool.renamed_from.as_deref().filter(|old| every.contains(old)) {
                self.diags.push(renamed_from_exists(
                    format!("{path}.renamed_from"),
                    format!(
                        "tool `{}` says it was renamed from `{old}`, but `{old}` is still in the catalog",
                        tool.name
                    ),
                    "tool",
                ));
            }
            let len = tool.description.chars().count();
            if len > budget {
                self.diags.push(
                    Diagnostic::warning("description-budget", format!("{path}.description"), format!("description of `{}` is {len} characters, over the budget of {budget}", tool.name))
                        .help("every description is context paid in every session: shorten it, or raise `lint.description_budget`"),
                );
            }
            if tool.description.trim().is_empty() {
                self.diags.err(
                    "empty-description",
                    format!("{path}.description"),
                    format!("tool `{}` has an empty description", tool.name),
                    "say what the tool does, for the model",
                );
            }
        }
        // Each tool's parameters, steps, conditions, argv and templates are checked where they
        // are lowered (`crate::model`), so that nothing is checked here and rebuilt there.
    }

    /// The toolsets and the catalog's filters: both name tools of the catalog.
    fn toolsets(&mut self) {
        let names: Vec<&String> = self.cat.tools.iter().map(|t| &t.name).collect();
        let known: HashSet<&str> = names.iter().map(|n| n.as_str()).collect();
        for (set, ts) in &self.cat.toolsets {
            let path = format!("toolsets.{set}");
            if !is_identifier(&set.replace('-', "_")) {
                self.diags.err_at_key(
                    "bad-name",
                    &path,
                    format!("toolset name `{set}` is not valid"),
                    "use lowercase letters, digits, `_` and `-`",
                );
            }
            // The toolset's budget is checked on the model (`hosts::check`), over the tools the
            // catalog's filters let through.
            let mut seen = HashSet::new();
            for (i, t) in ts.tools.iter().enumerate() {
                if !known.contains(t.as_str()) {
                    self.diags.err(
                        "unknown-tool",
                        format!("{path}.tools[{i}]"),
                        format!("toolset `{set}` names no tool `{t}`"),
                        hint_for(t, &names, "define the tool under `tools`"),
                    );
                }
                if !seen.insert(t) {
                    self.diags.err(
                        "duplicate-tool",
                        format!("{path}.tools[{i}]"),
                        format!("`{t}` is listed twice in toolset `{set}`"),
                        "remove the repeat",
                    );
                }
            }
        }
        for (key, list) in [
            ("enable", &self.cat.filters.enable),
            ("disable", &self.cat.filters.disable),
        ] {
            for (i, n) in list.iter().enumerate() {
                if !known.contains(n.as_str()) {
                    self.diags.err(
                        "unknown-tool",
                        format!("filters.{key}[{i}]"),
                        format!("no tool `{n}`"),
                        hint_for(n, &names, "name a tool of the catalog"),
                    );
                }
            }
        }
    }
}

/// A tool or parameter whose `renamed_from` names one that is still there (`other`: what it is).
pub fn renamed_from_exists(path: String, message: String, other: &str) -> Diagnostic {
    let help = format!("remove `renamed_from`, or remove or rename the other {other}");
    Diagnostic::error("renamed-from-exists", path, message).help(help)
}

/// How to write a value that fits the parameter.
pub fn value_help(p: &Param) -> String {
    match (p.ty, &p.values, p.min, p.max) {
        (ParamType::Enum, Some(vals), ..) => format!("use one of: {}", vals.join(", ")),
        (.., Some(a), Some(b)) => format!("use {} between {a} and {b}", article(p.ty)),
        _ => format!("use {}", article(p.ty)),
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

fn is_kebab(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase()) && s.chars().all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-'))
}

fn is_ts_constant(s: &str) -> bool {
    s.starts_with(|c: char| matches!(c, 'A'..='Z' | '_')) && s.chars().all(|c| matches!(c, 'A'..='Z' | '0'..='9' | '_'))
}

/// A name every host accepts, derived from a rejected one.
fn suggest_name(name: &str) -> String {
    // Lowercased: no ASCII capital is left.
    let s = name
        .to_lowercase()
        .replace(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-' | '_'), "_");
    let s = s.trim_start_matches(|c: char| !c.is_ascii_lowercase());
    if s.is_empty() {
        "my_tool".into()
    } else {
        s.chars().take(64).collect()
    }
}

/// Checks that a value can be one part of an `xs` topic (`ralph.<part>.task`).
pub fn topic_part(v: &str) -> Result<(), String> {
    let Some(first) = v.chars().next() else {
        return Err("is empty".into());
    };
    if v.len() > 128 {
        return Err("is longer than 128 bytes".into());
    }
    if !(first.is_ascii_alphabetic() || first == '_') {
        return Err(format!(
            "must start with a letter or `_`, not {}",
            crate::escape::debug_quote(&first.to_string())
        ));
    }
    if let Some(bad) = v
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "contains {}, which a store topic part cannot hold",
            crate::escape::debug_quote(&bad.to_string())
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context constant may not be any name the generated tool file declares or imports at
    /// its top level: [`GENERATED_CONSTANTS`] and its prefixes must cover each one a constant
    /// could spell, or a new name in the template would make such a catalog's file not parse.
    #[test]
    fn every_name_the_tool_file_declares_is_reserved() {
        let template = include_str!("../../templates/opencode/tool.ts");
        let mut names = Vec::new();
        for line in template.lines() {
            if let Some(rest) = line.strip_prefix("import ") {
                let inside = rest.split('{').nth(1).and_then(|r| r.split('}').next()).unwrap_or("");
                names.extend(inside.split(',').filter_map(|n| n.split_whitespace().last()));
            } else if let Some(rest) = line.strip_prefix("const ") {
                names.extend(rest.split([':', ' ', '=']).next());
            }
        }
        assert!(names.contains(&"SHARED") && names.contains(&"CONTEXT"), "{names:?}");
        for name in names {
            // A placeholder the backend fills: `{{ t.spec_name }}` is `SPEC_*`, and a context
            // constant is the catalog's own.
            if name != "{{" && is_ts_constant(name) {
                assert!(
                    GENERATED_CONSTANTS.contains(&name) || name.starts_with("SPEC_") || name.starts_with("__IX"),
                    "`{name}` is declared by the tool file but a context constant may be named so"
                );
            }
        }
    }

    /// An integer's bounds and a length are whole numbers (a length is never negative); a
    /// number's bounds may be anything.
    #[test]
    fn bounds_that_are_lengths_or_integers_are_whole_numbers() {
        let paths = |params: &str| -> Vec<String> {
            let text = format!(
                "version: 1\nproduct: {{name: demo, version: 1.0.0, description: d}}\ntoolsets: {{main: {{tools: [a]}}}}\ntools:\n  - {{name: a, description: d, steps: [{{run: [a]}}], params: {{{params}}}}}\n"
            );
            let cat = crate::catalog::load_text("b.yaml", text.as_bytes()).unwrap().catalog;
            let params = cat.tools[0].params.iter();
            let diags = params.flat_map(|(name, p)| param(&cat, &format!("params.{name}"), name, p));
            diags
                .filter(|d| d.code == "bad-bound")
                .map(|d| d.path.to_string())
                .collect()
        };
        let broken = paths(
            "i: {type: integer, min: 1.5, max: 30}, s: {type: string, min: -1, max: 10.5}, l: {type: array, max: 0.5}",
        );
        assert_eq!(broken, ["params.i.min", "params.s.min", "params.s.max", "params.l.max"]);
        assert!(paths("n: {type: number, min: -0.5, max: 1.5}, i: {type: integer, min: -3, max: 3}, s: {type: string, min: 0, max: 8}").is_empty());
    }

    /// What the hosts would take as it is and then refuse: empty values, and web addresses that
    /// are not one.
    #[test]
    fn empty_values_and_addresses_that_are_not_web_addresses_are_refused() {
        let found = |product: &str, rest: &str| -> Vec<(&'static str, String)> {
            let text = format!(
                "version: 1\nproduct: {{name: demo, version: 1.0.0, description: d{product}}}\n{rest}toolsets: {{main: {{tools: [a]}}}}\ntools:\n  - {{name: a, description: d, steps: [{{run: [a]}}]}}\n"
            );
            let cat = crate::catalog::load_text("b.yaml", text.as_bytes()).unwrap().catalog;
            validate(&cat)
                .into_iter()
                .map(|d| (d.code, d.path.to_string()))
                .collect()
        };
        let product =
            ", license: '', author: {name: ' ', url: 'example.com'}, homepage: not a url, repository: 'https://'";
        let rest = "cli: {binary: ''}\nserver: {name: demo, command: '', toolset: main}\n";
        let want = [
            ("empty-value", "product.license"),
            ("empty-value", "product.author.name"),
            ("empty-value", "cli.binary"),
            ("empty-value", "server.command"),
            ("bad-url", "product.homepage"),
            ("bad-url", "product.repository"),
            ("bad-url", "product.author.url"),
        ];
        let want: Vec<(&str, String)> = want.iter().map(|(c, p)| (*c, p.to_string())).collect();
        assert_eq!(found(product, rest), want);
        let good = ", license: MIT, author: {name: X, url: 'https://x.dev'}, homepage: 'http://localhost:8080/demo'";
        assert_eq!(found(good, "cli: {binary: demo}\n"), []);
    }

    #[test]
    fn proto_is_the_unsafe_name() {
        assert!(unsafe_value_diagnostic("p", "name", "__proto__").is_some());
        for ok in ["constructor", "prototype", "proto", "__proto", "name"] {
            assert!(unsafe_value_diagnostic("p", "name", ok).is_none(), "{ok}");
        }
    }
}
