//! The catalog as its author writes it: the serde + schemars types of the YAML file.
//!
//! These types mirror the file one-to-one so that structural errors (unknown keys, wrong types)
//! come straight from the deserializer with a location, and `ixgen schema` can describe the
//! format. They hold no logic: the lowering pass in `crate::model` checks every rule that spans
//! more than one field (the catalog-level ones through `super::validate`), resolves defaults,
//! and turns these types into the typed IR.
//!
//! Steps, conditions and structured argv elements stay structs of optional fields here, one
//! field per YAML key, and become enums in the IR (`SpecExec`, `SpecCond`, `SpecArg`). An enum
//! with a custom `Deserialize` would have to refuse "no kind" or "two kinds" as a serde error:
//! serde stops at the first one (so a catalog's other faults would go unreported), and the
//! error would be a generic `yaml` diagnostic at the position the deserializer happens to be on, not
//! `bad-step` at the step with a hint. Lowering reports each of them, located, in one run.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A hand-written `Deserialize` over `deserialize_any`: a visitor of the `visit_*` methods
/// given, which expects `$expecting` (the message for anything else).
macro_rules! deserialize_any {
    ($ty:ty, $expecting:literal, { $($method:item)+ }) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    $($method)+
                }
                deserializer.deserialize_any(V)
            }
        }
    };
}

/// A product's agent tools, and how each host gets them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Version of the catalog format. Only `1` exists.
    #[schemars(schema_with = "format_version")]
    pub version: u32,
    /// Who ships the tools: names the plugin, the manifest metadata and the generated headers.
    pub product: Product,
    /// The product's command-line program, which CLI steps run.
    #[serde(default)]
    pub cli: Option<Cli>,
    /// The product's HTTP runtime, tried first by tools that declare a `runtime` route.
    #[serde(default)]
    pub runtime: Option<Runtime>,
    /// An append-only event store (the `xs` program) used by store steps.
    #[serde(default)]
    pub store: Option<Store>,
    /// Values baked into generated files at generation time (`--session`, `--iteration`, ...).
    #[serde(default)]
    pub context: IndexMap<String, ContextVar>,
    /// JSON Schemas of step results, by name: a step's `json: <name>` declares its stdout has
    /// this shape, and references into it are checked against it.
    #[serde(default)]
    pub schemas: IndexMap<String, serde_json::Value>,
    /// Parameters shared by many tools; a tool pulls them in with `use_params`.
    #[serde(default)]
    pub params: IndexMap<String, Param>,
    /// The product's MCP server, written into every host's MCP configuration.
    #[serde(default)]
    pub server: Option<Server>,
    /// Named groups of tools: each host surface is given one.
    pub toolsets: IndexMap<String, Toolset>,
    /// Which hosts get files, and their settings: one key per host. Each host reads and checks
    /// its own settings (`crate::hosts`), so the catalog stage treats them as opaque.
    #[serde(default)]
    pub targets: IndexMap<String, serde_json::Value>,
    /// Default tool filters; command-line flags override them.
    #[serde(default)]
    pub filters: Filters,
    /// Limits that `ixgen validate` warns about (errors under `--strict`).
    #[serde(default)]
    pub lint: Lint,
    /// The tools.
    // Boxed (a plain comment: a doc comment would change the catalog's schema): lowering frees
    // each tool as it lowers it, where a list of the tools themselves (7 MB for 10,000) stays
    // whole until the last one is done, at the run's peak.
    pub tools: Vec<Box<Tool>>,
}

/// Product metadata.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Product {
    /// Kebab-case product name, e.g. `ix`.
    pub name: String,
    /// Semantic version of the tool surface.
    pub version: String,
    /// One-sentence description.
    pub description: String,
    #[serde(default)]
    pub author: Option<Author>,
    /// Project home page (a URL).
    #[serde(default)]
    pub homepage: Option<String>,
    /// Source repository (a URL).
    #[serde(default)]
    pub repository: Option<String>,
    /// SPDX license identifier.
    #[serde(default)]
    pub license: Option<String>,
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The product's icon: a square PNG, 512 to 2048 px a side and under 2 MB, relative to the
    /// catalog file. The Claude Code plugin carries it as `.claude-plugin/icon.png`, where
    /// Claude Code's plugin directory looks for the listing icon.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub icon: Option<Asset>,
}

/// A file the catalog names by a path relative to itself. The loader reads it (the catalog
/// stage is the only one that reads), so the targets get its bytes without touching the disk.
/// Its path must stay inside the catalog's folder, which the loader checks before it reads
/// anything (`load::asset_path_problem`).
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct Asset {
    /// The path as written in the catalog.
    pub path: String,
    /// The file's bytes; `None` until the loader has read it.
    #[serde(skip)]
    pub bytes: Option<Vec<u8>>,
}

/// The author of the product.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Author {
    pub name: String,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
}

/// The product's CLI.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cli {
    /// The program name looked up on `PATH`, e.g. `ix`.
    pub binary: String,
    /// Markdown returned when the program is not installed (a tool can override it).
    #[serde(default)]
    pub fallback: Option<String>,
    /// Markdown added after the error of a failed `run` step: how to recover.
    #[serde(default)]
    pub recovery: Option<String>,
}

/// The product's HTTP runtime.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// Environment variable that overrides the base URL, e.g. `IX_RUNTIME_URL`.
    pub url_env: String,
    /// Base URL used when the variable is unset.
    pub default_url: String,
    /// Time allowed for one request before the tool falls back to the CLI.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u32,
    /// JSON field of a response that holds ready-made markdown.
    #[serde(default)]
    pub markdown_field: Option<String>,
}

fn default_timeout_ms() -> u32 {
    3000
}

/// The event store used by store steps.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Store {
    /// The store program, `xs` by default.
    #[serde(default = "default_store_program")]
    pub program: String,
    /// Template of the store's path, usually a context variable: `"{store}"`.
    pub path: String,
}

fn default_store_program() -> String {
    "xs".to_string()
}

/// A value baked in at generation time.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextVar {
    #[serde(rename = "type")]
    pub ty: ContextType,
    #[serde(default)]
    pub description: Option<String>,
    /// A named format the value must have.
    #[serde(default)]
    pub format: Option<ContextFormat>,
    /// Smallest allowed value (integers).
    #[serde(default)]
    pub min: Option<i64>,
    /// Name of the TypeScript constant; defaults to the variable's name in SCREAMING_SNAKE_CASE.
    #[serde(default)]
    pub constant: Option<String>,
    /// Value used when the run does not give one (a relative `path` default is resolved
    /// against the output folder). A variable with no default that the session target does
    /// not list is optional: its constant is left out when it is not given.
    #[serde(default)]
    #[schemars(schema_with = "integer_or_text")]
    pub default: Option<ContextDefault>,
}

/// A context variable's default, as written in the catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextDefault {
    Integer(i64),
    Text(String),
}

// By hand (not serde's untagged form), so that a wrong value is reported where it is and says
// what it is; `deserialize_any!` is defined below.
deserialize_any!(ContextDefault, "a whole number or text", {
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ContextDefault, E> {
        Ok(ContextDefault::Integer(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ContextDefault, E> {
        i64::try_from(v)
            .map(ContextDefault::Integer)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ContextDefault, E> {
        Ok(ContextDefault::Text(v.to_string()))
    }
});

impl std::fmt::Display for ContextDefault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContextDefault::Integer(n) => write!(f, "{n}"),
            ContextDefault::Text(s) => f.write_str(s),
        }
    }
}

impl ContextVar {
    /// The TypeScript constant the variable is baked into.
    pub fn constant_name(&self, name: &str) -> String {
        use heck::ToShoutySnakeCase;
        self.constant.clone().unwrap_or_else(|| name.to_shouty_snake_case())
    }
}

/// Type of a context variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextType {
    String,
    Integer,
    /// A filesystem path, made absolute at generation time.
    Path,
}

/// Named formats for context values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ContextFormat {
    /// Usable as one part of an `xs` topic: `[A-Za-z_][A-Za-z0-9_-]*`, at most 128 bytes, no dot.
    TopicPart,
}

/// A tool parameter.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Param {
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// A short human-readable name (JSON Schema's `title`), for clients that show the arguments.
    #[serde(default)]
    pub title: Option<String>,
    /// What the model should pass. Counts toward the description budget.
    #[serde(default)]
    pub description: Option<String>,
    /// The model must pass it. A required parameter has no default.
    #[serde(default)]
    pub required: bool,
    /// Value used when the model passes nothing.
    // Boxed: most parameters have none, and a large catalog has tens of thousands of them, each
    // of which would hold room for a value (a plain comment: a doc comment is the schema's).
    // A written `default: null` reads as `Some(Null)`, so that the lint which reports it
    // (`rules::no_effect`, which then takes it out) needs no second look at the text.
    #[serde(default, deserialize_with = "written")]
    pub default: Option<Box<serde_json::Value>>,
    /// Allowed values of an `enum`.
    #[serde(default)]
    pub values: Option<Vec<String>>,
    /// Element type of an `array`.
    #[serde(default)]
    pub items: Option<Box<Items>>,
    /// Lower bound: the value for numbers, the length for strings and arrays.
    #[serde(default)]
    pub min: Option<f64>,
    /// Upper bound: the value for numbers, the length for strings and arrays.
    #[serde(default)]
    pub max: Option<f64>,
    /// Out-of-range numbers are clamped (true, the default) or refused (false).
    #[serde(default)]
    pub clamp: Option<bool>,
    /// Regular expression a string must match (JavaScript syntax, anchor it yourself).
    #[serde(default)]
    pub pattern: Option<String>,
    /// `null` is a value the model may send (it means unset); schemas say `[type, "null"]`.
    #[serde(default)]
    pub nullable: bool,
    /// `""` is a real value (e.g. content that empties a range) rather than "not given".
    #[serde(default)]
    pub keep_empty: bool,
    /// The parameter's previous name: `ixgen diff` then reports a rename (still breaking)
    /// instead of a removal plus an addition, and compares the rest of the parameter.
    #[serde(default)]
    pub renamed_from: Option<String>,
    /// A context variable this argument names: given, it must equal the value baked in for
    /// that variable (a model told to pass `session_name` is checked, never obeyed blindly).
    #[serde(default)]
    pub equals_context: Option<String>,
}

/// Element type of an array parameter.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Items {
    #[serde(rename = "type")]
    pub ty: ParamType,
    #[serde(default)]
    pub values: Option<Vec<String>>,
    #[serde(default)]
    pub description: Option<String>,
}

/// Parameter types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    Enum,
    Array,
    /// A path that must stay inside the worktree.
    Path,
}

/// The product's MCP server as hosts launch it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// Server name in host configurations, e.g. `ix`.
    pub name: String,
    /// Program to run, e.g. `ix`.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: IndexMap<String, String>,
    /// The toolset the server exposes (its tools/list).
    pub toolset: String,
    /// Server flags that carry the active filters, so a host launches the server already filtered.
    #[serde(default)]
    pub filter_flags: Option<FilterFlags>,
}

/// Command-line flags of the MCP server that mirror ixgen's filters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FilterFlags {
    pub read_only: Option<String>,
    pub enable_tools: Option<String>,
    pub disable_tools: Option<String>,
}

/// A named group of tools.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Toolset {
    #[serde(default)]
    pub description: Option<String>,
    /// Tool names, in the order hosts list them.
    pub tools: Vec<String>,
}

/// Tool filters.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Filters {
    /// Leave out tools with `access: write`.
    pub read_only: bool,
    /// Keep only these tools (wins over `disable`).
    pub enable: Vec<String>,
    /// Leave out these tools.
    pub disable: Vec<String>,
    /// Keep only tools of this tier.
    pub tier: Option<String>,
}

/// Lint limits.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Lint {
    /// Characters allowed in one tool's description.
    pub description_budget: usize,
    /// Characters allowed in all descriptions of one toolset together.
    pub toolset_budget: usize,
    /// Rules of `ixgen diff` (breaking-change detection) switched off for this catalog.
    pub breaking: BreakingLint,
}

impl Default for Lint {
    fn default() -> Self {
        Lint {
            description_budget: 150,
            toolset_budget: 4096,
            breaking: BreakingLint::default(),
        }
    }
}

/// Which `ixgen diff` rules to switch off, like `buf breaking`'s `except` and `ignore_only`.
/// An ignored finding is still listed (marked ignored) but neither fails the check nor counts
/// toward the suggested version bump. Run `ixgen diff --list-rules` for the rule ids.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BreakingLint {
    /// Rule ids (`tool-removed`, `param-required-added`, ...) or whole classes (`breaking`,
    /// `behaviour`, `compatible`, `cosmetic`) switched off for every tool.
    pub ignore: Vec<String>,
    /// Rule id → the tools (by name, old or new) it is switched off for:
    /// `{tool-removed: [old-search]}`.
    pub ignore_only: IndexMap<String, Vec<String>>,
}

/// A value that is written, even as `null` (serde's `Option` reads a null as absent).
fn written<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<serde_json::Value>>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// One tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// `^[a-z][a-z0-9_-]*$`; each host derives its id from it.
    pub name: String,
    /// The tool's previous name: `ixgen diff` then reports a rename (still breaking) instead of
    /// a removal plus an addition, and compares the rest of the tool with the old one.
    #[serde(default)]
    pub renamed_from: Option<String>,
    /// Human-readable title (MCP `title`).
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does, for the model. Counts toward the description budget.
    pub description: String,
    /// Free-form grouping, e.g. `navigate`.
    #[serde(default)]
    pub category: Option<String>,
    /// `free` (default) or another tier such as `pro`.
    #[serde(default)]
    pub tier: Option<String>,
    /// `read` (default) or `write`.
    #[serde(default)]
    pub access: Access,
    /// Defaults to true for write tools.
    #[serde(default)]
    pub destructive: Option<bool>,
    /// Defaults to true for read tools.
    #[serde(default)]
    pub idempotent: Option<bool>,
    /// Talks to things outside the local workspace. Defaults to false.
    #[serde(default)]
    pub open_world: Option<bool>,
    /// Ask the user before running it: `true`, `false`, or `{subject, allow, deny}` (ask
    /// unless the subject matches an `allow` pattern; refuse it when it matches `deny`).
    /// Defaults to `destructive`.
    #[serde(default)]
    pub confirm: Option<Confirm>,
    /// Rules across parameters: defaults that depend on another parameter, parameters
    /// required or refused together, and order between two numbers.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// Secret redaction: `all` (default), `errors` (only error sections), `none`.
    #[serde(default)]
    pub redact: Option<Redact>,
    /// Markdown heading of the result, a template: `"ix-impact: {target}"`.
    #[serde(default)]
    pub heading: Option<String>,
    /// How the answer is put together: `{heading: false, trim: false, empty: "", errors: error}`.
    #[serde(default)]
    pub answer: Option<Box<AnswerShape>>,
    /// Shared parameters (from the top-level `params`) this tool takes.
    #[serde(default)]
    pub use_params: Vec<String>,
    #[serde(default)]
    pub params: IndexMap<String, Param>,
    /// HTTP route tried before the steps.
    #[serde(default)]
    pub runtime: Option<Route>,
    /// Run the selected steps concurrently.
    #[serde(default)]
    pub parallel: bool,
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Markdown returned when a step's program is not installed; overrides `cli.fallback`.
    #[serde(default)]
    pub fallback: Option<String>,
    /// The result as markdown, rendered from parameters and step results; replaces the
    /// steps' sections (docs/catalog/output.md).
    #[serde(default)]
    pub output: Vec<Block>,
    /// The JSON Schema of the tool's structured result (a name from `schemas`, or inline):
    /// MCP hosts get it as `outputSchema`.
    #[serde(default)]
    pub output_schema: Option<Shape>,
    /// Why no catalog can run this tool (`"needs the host's LLM"`): it stays in the catalog
    /// as documentation (description, parameters, rules) and is left out of every target and
    /// of `ixgen serve`, each run warning once with this reason. It takes no `steps`,
    /// `runtime`, `fallback`, `output` or `parallel`: nothing of it ever runs.
    #[serde(default)]
    pub unsupported: Option<String>,
}

/// Whether a tool changes state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    #[default]
    Read,
    Write,
}

/// An HTTP route of the runtime.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Route {
    pub method: HttpMethod,
    /// Path below the runtime's base URL, e.g. `/v2/ix_query`.
    pub path: String,
    /// JSON body; strings are templates, and a string that is exactly `"{param}"` keeps its type.
    #[serde(default)]
    pub body: Option<serde_json::Value>,
    /// `markdown` (the runtime's markdown field) or `json` (the whole response in a code block).
    #[serde(default)]
    pub output: RouteOutput,
}

/// A route's method is the execution spec's own type (the same name, values and schema).
pub use ixgen_runtime::spec::HttpMethod;

/// What a route returns to the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RouteOutput {
    #[default]
    Markdown,
    Json,
}

/// One step of a tool. Exactly one of `run`, `append`, `fold`, `update`, `signal`, `compute`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Step {
    /// Name other steps' conditions refer to.
    pub id: Option<String>,
    /// Bold heading of the step's section.
    pub title: Option<String>,
    /// Run only when this holds.
    pub when: Option<Box<Cond>>,
    /// Run once per element of this array: a parameter, or a path into an earlier step's
    /// JSON result (`overview.keyItems`); `{item}` is bound to the element.
    pub for_each: Option<String>,
    /// Run `for_each` for at most this many elements.
    pub limit: Option<u32>,
    /// Stdout is JSON: `true`, or the name of a schema in `schemas`, or an inline JSON Schema.
    /// Later steps, conditions and `output` refer to it by the step's `id`.
    pub json: Option<Box<Shape>>,
    /// Text of the section instead of the step's output; `{result}` is the step's result.
    pub message: Option<String>,
    /// Program of a `run` step; defaults to `cli.binary`.
    pub program: Option<String>,
    /// Argument vector of a CLI step.
    pub run: Option<Vec<Arg>>,
    /// Text sent on standard input (a template).
    pub stdin: Option<String>,
    /// Exit codes of a `run` step that are a normal answer (`[0, 1]`: rg's "no match"), or
    /// `all` (the exit code is data: `capture`).
    pub ok_exit: OkExit,
    /// Which stream of a `run` step is its output: `stdout` (default), `stderr`, `both`.
    pub output: Option<Stream>,
    /// Characters of output kept (a number, or `"{param}"` naming an integer parameter).
    pub max_output: Option<Amount>,
    /// Milliseconds before the program is stopped (a number or `"{param}"`).
    pub timeout_ms: Option<Amount>,
    /// Seconds before the program is stopped (a number or `"{param}"`).
    pub timeout_secs: Option<Amount>,
    /// Text of the section when an accepted run printed nothing (a template).
    pub if_empty: Option<String>,
    /// How a `run` step's output becomes records, the variable named by its `id`:
    /// `{format: jsonl}`, `{format: delimited, separator: ":", fields: [path, line, text]}`,
    /// `{format: regex, pattern: '^(\S+):(\d+):(.*)$', fields: [path, line, text]}`.
    pub parse: Option<Box<Parse>>,
    /// The run is the step's data: `{exit_code, stdout, stderr, duration_ms}` under its `id`.
    pub capture: bool,
    /// A helper step: no section in the answer (its error still shows).
    pub hidden: bool,
    /// The step changes state (writes a file, commits, deletes). A tool whose `confirm` has
    /// `after` asks before the first such step: every step up to `after` must not change state,
    /// and `ixgen validate` refuses a `changes: true` step (or a store append, update or signal)
    /// among them.
    pub changes: bool,
    /// Working directory of a `run` step, relative to the project (a template); never outside it.
    pub cwd: Option<String>,
    /// Programs tried in order when the step's program is not installed:
    /// `[{program: grep, run: [-rn, "{pattern}", .]}]`.
    pub when_missing: Vec<Alternative>,
    /// Append a frame to the store.
    pub append: Option<Box<Append>>,
    /// Fold a topic's frames into items and list them.
    pub fold: Option<Box<Fold>>,
    /// Append a frame that updates one item, found by id or unique id prefix.
    pub update: Option<Box<Update>>,
    /// Signal a process.
    pub signal: Option<Box<Signal>>,
    /// Compute a value: a CEL expression over the parameters, the context and earlier steps'
    /// data (docs/expressions.md). The value becomes the variable named by `id`.
    pub compute: Option<String>,
}

/// How a step's output becomes records.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parse {
    pub format: ParseFormat,
    /// `delimited`: the text between fields.
    #[serde(default)]
    pub separator: Option<String>,
    /// `delimited`: the field names in order (the last keeps the rest of the line); `regex`:
    /// the name of each capture group in order.
    #[serde(default)]
    pub fields: Vec<String>,
    /// `regex`: an ECMAScript regular expression matched against each line.
    #[serde(default)]
    pub pattern: Option<String>,
    /// `regex`: its flags, e.g. `i`.
    #[serde(default)]
    pub flags: Option<String>,
}

/// The format `parse` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParseFormat {
    /// One JSON value a line.
    Jsonl,
    /// Fields split at a separator.
    Delimited,
    /// Regular-expression captures.
    Regex,
}

/// Another program for a `run` step, used when the ones before it are not installed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Alternative {
    pub program: String,
    /// Its argument vector, as `run`.
    pub run: Vec<Arg>,
}

/// The exit codes of a `run` step that are a normal answer.
#[derive(Debug, Clone, PartialEq, Eq, Default, JsonSchema)]
#[schemars(untagged)]
pub enum OkExit {
    /// These codes (0 always is).
    #[default]
    #[schemars(skip)]
    None_,
    Codes(Vec<i32>),
    /// `all`: every exit code.
    All(AllWord),
}

/// The word `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, JsonSchema)]
pub enum AllWord {
    #[serde(rename = "all")]
    All,
}

impl OkExit {
    /// The listed codes (none for `all` or when unset).
    pub fn codes(&self) -> &[i32] {
        match self {
            OkExit::Codes(c) => c,
            _ => &[],
        }
    }
    pub fn is_all(&self) -> bool {
        matches!(self, OkExit::All(_))
    }
    pub fn is_set(&self) -> bool {
        !matches!(self, OkExit::None_)
    }
}

deserialize_any!(OkExit, "a list of exit codes or `all`", {
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<OkExit, E> {
        if v == "all" {
            Ok(OkExit::All(AllWord::All))
        } else {
            Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
        }
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<OkExit, A::Error> {
        Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(OkExit::Codes)
    }
});

/// How a tool's answer is put together (all optional).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AnswerShape {
    /// `false`: no `## heading` line.
    pub heading: Option<bool>,
    /// `false`: sections are the programs' output as printed, not trimmed.
    pub trim: Option<bool>,
    /// The text of an empty section or answer instead of `_(no output)_` (`""` allowed).
    pub empty: Option<String>,
    /// `text` (default): a failure is an ordinary answer in OpenCode; `error`: OpenCode's
    /// `execute` throws it. MCP always marks a failure `isError`.
    pub errors: Option<AnswerErrors>,
}

/// How a failed call reaches a host that takes strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnswerErrors {
    Text,
    Error,
}

/// One element of an argument vector.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(untagged)]
pub enum Arg {
    /// A template: literal text and `{param}` references, one argv element (a whole number is
    /// its digits: `run: [log, -n, 20]`).
    Text(#[schemars(schema_with = "text_or_integer")] String),
    /// A structured element.
    Special(Box<SpecialArg>),
}

/// The only catalog format version.
fn format_version(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"const": 1})
}

/// A whole number or a string (a context variable's default).
fn integer_or_text(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["integer", "string", "null"]})
}

/// A string, or a whole number read as its digits.
fn text_or_integer(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["string", "integer"]})
}

/// A structured argv element. Exactly one of `opt`, `flag`, `spread`, `json`, `file`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SpecialArg {
    /// Emit this option and `value` only when `value` is set: `{opt: --kind, value: "{kind}"}`.
    pub opt: Option<String>,
    pub value: Option<String>,
    /// Emit this flag when the boolean parameter `if` is true: `{flag: --silent, if: silent}`.
    pub flag: Option<String>,
    #[serde(rename = "if")]
    pub if_param: Option<String>,
    /// Each element of this array parameter as its own argv element.
    pub spread: Option<String>,
    /// A JSON template serialized into one argv element.
    pub json: Option<serde_json::Value>,
    /// A template written to a private temporary file whose path is the argument
    /// (`[commit, -F, {file: "{message}"}]`); the file is removed after the step.
    pub file: Option<String>,
}

/// A condition on parameters, earlier steps or fields of their JSON results.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Cond {
    pub param: Option<String>,
    /// A path into a step's JSON result (`impact.riskLevel`), or a field of the current row
    /// inside a list or table; tested with `in`, `equals`, `set`, `lt`, `lte`, `gt`, `gte`.
    pub field: Option<String>,
    pub lt: Option<f64>,
    pub lte: Option<f64>,
    pub gt: Option<f64>,
    pub gte: Option<f64>,
    #[serde(rename = "in")]
    pub in_values: Option<Vec<serde_json::Value>>,
    pub equals: Option<serde_json::Value>,
    pub contains: Option<serde_json::Value>,
    pub set: Option<bool>,
    pub step: Option<String>,
    /// Regular expression (JavaScript syntax) the step's output must match.
    pub matches: Option<String>,
    /// Regular expression flags, e.g. `i`.
    pub flags: Option<String>,
    pub failed: Option<bool>,
    pub all: Option<Vec<Cond>>,
    pub any: Option<Vec<Cond>>,
    pub not: Option<Box<Cond>>,
}

/// Append a frame.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Append {
    pub topic: String,
    pub meta: serde_json::Value,
    #[serde(default)]
    pub body: Option<String>,
}

/// Fold a topic into items.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fold {
    pub topic: String,
    /// Meta field to group items by.
    #[serde(default)]
    pub group_by: Option<String>,
    /// Order of the groups; groups not named come after, in order of appearance.
    #[serde(default)]
    pub groups: Vec<String>,
    /// Keep only items whose meta `field` equals `equals` (a template; skipped when unset).
    #[serde(default)]
    pub filter: Option<FoldFilter>,
    /// Fields an item gets when its `add` frame does not set them, e.g. `{status: remaining}`.
    #[serde(default)]
    pub defaults: IndexMap<String, serde_json::Value>,
    /// The actions that update an item (found by the frame's `id`), each with the fields it
    /// sets besides the frame's own, e.g. `{status: {}, mark_read: {status: read}}`. Frames
    /// with any other action are ignored.
    #[serde(default)]
    pub updates: IndexMap<String, IndexMap<String, serde_json::Value>>,
}

/// Filter of a fold.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FoldFilter {
    pub field: String,
    pub equals: String,
}

/// Update one item.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Update {
    pub topic: String,
    /// The id or id prefix (a template).
    pub id: String,
    pub meta: serde_json::Value,
}

/// Signal a process.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Signal {
    /// The pid (a template).
    pub pid: String,
    #[serde(default = "default_signal")]
    pub signal: String,
    /// Signal only if the process has this name (e.g. `nu`), so a reused pid is never hit.
    #[serde(default)]
    pub process: Option<String>,
}

fn default_signal() -> String {
    "SIGTERM".to_string()
}

// A hand-written `Deserialize` so that a mistake inside a structured element reports the real
// problem (an unknown key, a wrong type) instead of serde's "did not match any variant".
deserialize_any!(
    Arg,
    "a string template or one of {opt, value}, {flag, if}, {spread}, {json}, {file}",
    {
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Arg, E> {
            Ok(Arg::Text(v.to_string()))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Arg, E> {
            Ok(Arg::Text(v.to_string()))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Arg, E> {
            Ok(Arg::Text(v.to_string()))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Arg, A::Error> {
            SpecialArg::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                .map(|s| Arg::Special(Box::new(s)))
        }
    }
);

// ---------------------------------------------------------------------------------------------
// The `output` blocks and a step's `json` shape (their references are checked where they are
// lowered, in `crate::model`'s `lower/render.rs`).

/// The shape of a step's JSON stdout: `true` (JSON, unchecked), the name of a schema under the
/// catalog's `schemas`, or an inline JSON Schema.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Shape {
    /// `true`: the output is JSON of any shape.
    Any(bool),
    /// The name of a schema in `schemas`.
    Named(String),
    /// An inline JSON Schema.
    Inline(#[schemars(with = "serde_json::Map<String, Value>")] Value),
}

/// One block of a tool's rendered output. Exactly one of `text`, `fields`, `list`, `table`.
///
/// ```yaml
/// output:
///   - fields: {Risk level: "{impact.riskLevel|upper}", Dependents: "{impact.summary.directDependents}"}
///   - list: impact.callerList
///     title: Key callers
///     item: "{name|code} ({kind})"
///     limit: 5
///     empty: _No callers._
/// ```
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Block {
    /// Show the block only when this holds.
    // Boxed: a condition is 400 bytes, and most of a large catalog's blocks have none.
    pub when: Option<Box<Cond>>,
    /// A paragraph (a template).
    pub text: Option<String>,
    /// `**Label:** value` lines, label → value; a line whose value is unset is left out.
    pub fields: Option<IndexMap<String, Value_>>,
    /// A bulleted list of the elements of this array (a path into a step result).
    pub list: Option<String>,
    /// A table of the elements of this array.
    pub table: Option<String>,
    /// Bold title of a list or table; the count follows it: `(18)` or `(showing 5 of 18)`.
    pub title: Option<String>,
    /// A list's row: a template whose variables are the element's fields.
    pub item: Option<Value_>,
    /// A table's columns, header → value; variables are the row's fields.
    pub columns: Option<IndexMap<String, Value_>>,
    /// The total count when the array is already cut short (a CLI `--limit`): a path to a
    /// number, e.g. `callers.summary.total`; the title then says "showing 15 of 18".
    pub total: Option<String>,
    /// Show at most this many rows: a number, or `"{param}"` naming a number parameter.
    pub limit: Option<Limit>,
    /// Shown instead of the list or table when the array is empty.
    pub empty: Option<String>,
}

/// A row limit.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(untagged)]
pub enum Limit {
    Fixed(u32),
    /// `"{limit}"`: the value of a number parameter.
    Param(String),
}

// By hand, as `Amount` is: a wrong value is reported where it is and says what it is.
deserialize_any!(Limit, "a whole number, 0 or more, or \"{param}\"", {
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Limit, E> {
        u32::try_from(v)
            .map(Limit::Fixed)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Limit, E> {
        u64::try_from(v)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            .and_then(|v| self.visit_u64(v))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Limit, E> {
        Ok(Limit::Param(v.to_string()))
    }
});

/// A rendered value: a template, or a rich value with a value map or a marker.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(untagged)]
pub enum Value_ {
    /// A template: `"{impact.riskLevel|upper}"`.
    Template(String),
    /// A value map or a marked value.
    Rich(Box<RichValue>),
}

// By hand, as `Arg` is: serde's untagged form would fill `RichValue`'s fields in order from a
// list (`item: [x]`), and say only "did not match any variant" of a mistake inside a mapping.
deserialize_any!(Value_, "a template or one of {value, map, to, else, mark}", {
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value_, E> {
        Ok(Value_::Template(v.to_string()))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value_, E> {
        Ok(Value_::Template(v.to_string()))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value_, E> {
        Ok(Value_::Template(v.to_string()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value_, E> {
        Ok(Value_::Template(v.to_string()))
    }
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value_, E> {
        Ok(Value_::Template(v.to_string()))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Value_, A::Error> {
        RichValue::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(|r| Value_::Rich(Box::new(r)))
    }
});

/// A value map (`map` + `to` + `else`) or a template (`value`), with an optional `mark`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RichValue {
    /// A template.
    pub value: Option<String>,
    /// A variable whose value is looked up in `to`: `map: impact.riskLevel`.
    pub map: Option<String>,
    /// Value → text (a template): `{low: SAFE TO PROCEED, high: NEEDS CHANGE PLAN}`.
    pub to: IndexMap<String, String>,
    /// Text when the value is unset or not in `to`; without it the value is unset.
    #[serde(rename = "else")]
    pub otherwise: Option<String>,
    /// A marker appended when a condition holds: `{when: {field: cohesion, lt: 0.4}, text: " ⚠"}`.
    pub mark: Option<Mark>,
}

/// A marker appended to a value when its condition holds.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    pub when: Cond,
    /// The marker, ` ⚠` by default.
    #[serde(default = "default_mark")]
    pub text: String,
}

fn default_mark() -> String {
    " ⚠".to_string()
}

// ---------------------------------------------------------------------------------------------
// Around the steps: confirmation, rules, exit codes, limits, redaction (checked and lowered in
// `crate::model`'s `lower/rules.rs`).

/// `confirm:` of a tool.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(untagged)]
pub enum Confirm {
    /// Always ask (`true`) or never (`false`).
    Always(bool),
    /// Ask unless the subject matches `allow`; refuse it when it matches `deny`.
    Rules(ConfirmRules),
}

/// The conditional form of `confirm`, like ipuaro's `run_command`: allow-listed commands run,
/// deny-listed ones are refused, anything else is asked about.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConfirmRules {
    /// What the user is asked about and the patterns are matched against (a template,
    /// e.g. `"{command}"`); defaults to the tool's heading.
    pub subject: Option<String>,
    /// Patterns that run without asking. OpenCode's wildcards: `*` is any text, `?` one
    /// character, and a trailing ` *` also matches nothing (`"git status *"` matches
    /// `git status`).
    pub allow: Vec<String>,
    /// Patterns that are refused without asking; they win over `allow`.
    pub deny: Vec<String>,
    /// The id of the last step that runs before the user is asked: the steps up to it compute
    /// the preview and must not change state (none is `changes: true`); the steps after it run
    /// only once the user agreed, and at least one of them is `changes: true`.
    pub after: Option<String>,
    /// What the user sees before agreeing (a template over the parameters and the data of the
    /// steps up to `after`): the diff an edit will make, the files a commit will include.
    pub preview: Option<String>,
}

impl Confirm {
    /// Whether the tool asks at all.
    pub fn asks(&self) -> bool {
        !matches!(self, Confirm::Always(false))
    }
}

deserialize_any!(Confirm, "true, false, or {subject, allow, deny, after, preview}", {
    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Confirm, E> {
        Ok(Confirm::Always(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Confirm, A::Error> {
        ConfirmRules::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Confirm::Rules)
    }
});

/// One rule across parameters: exactly one of `default`, `require`, `forbid`, `check`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Rule {
    /// The rule applies only when this parameter condition holds (`{param: from, set: true}`).
    pub when: Option<Cond>,
    /// Values given to parameters that are unset: `{to: HEAD}`.
    pub default: Option<IndexMap<String, serde_json::Value>>,
    /// Parameters that must be set.
    pub require: Option<Vec<String>>,
    /// Parameters that must not be set.
    pub forbid: Option<Vec<String>>,
    /// A comparison of two numeric parameters, checked when both are set: `"end >= start"`
    /// (`>=`, `>`, `<=`, `<`).
    pub check: Option<String>,
    /// The error shown when a `require`, `forbid` or `check` rule fails; ixgen writes one
    /// from the rule otherwise.
    pub message: Option<String>,
}

/// A number, or `"{param}"` naming a numeric parameter.
#[derive(Debug, Clone, JsonSchema)]
#[schemars(untagged)]
pub enum Amount {
    Fixed(u64),
    /// `"{param}"`.
    Param(String),
}

deserialize_any!(Amount, "a positive whole number or \"{param}\"", {
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Amount, E> {
        Ok(Amount::Fixed(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Amount, E> {
        u64::try_from(v)
            .map(Amount::Fixed)
            .map_err(|_| E::custom(format!("{v} is negative; give a positive whole number")))
    }
    /// `4000.0`: the whole number, as JSON Schema reads it (the `integer` in this type's schema).
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Amount, E> {
        match v {
            _ if v.fract() != 0.0 || v.abs() > 2f64.powi(53) => {
                Err(E::invalid_type(serde::de::Unexpected::Float(v), &self))
            }
            _ if v < 0.0 => self.visit_i64(v as i64),
            _ => self.visit_u64(v as u64),
        }
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Amount, E> {
        Ok(Amount::Param(v.to_string()))
    }
});

impl Amount {
    /// The parameter named by `"{name}"`, if that is the form.
    pub fn param(&self) -> Option<&str> {
        match self {
            Amount::Fixed(_) => None,
            Amount::Param(s) => s.strip_prefix('{').and_then(|r| r.strip_suffix('}')),
        }
    }
}

/// Which stream of a CLI step is its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    Stdout,
    /// For tools that write their findings there (`cargo clippy`).
    Stderr,
    /// Standard output, then standard error.
    Both,
}

/// What secret redaction covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Redact {
    /// What is sent to the runtime and everything returned.
    All,
    /// What is sent, and error sections only: source text comes back as written.
    Errors,
    /// Nothing is redacted.
    None,
}
