//! The execution spec: the intermediate representation of one tool as every generated runtime
//! executes it. These Rust types are its only definition.
//!
//! A generated tool file carries its tool's spec as data; the runtime file ixgen emits beside
//! it (`templates/opencode/runtime.ts` today) interprets it. The JSON Schema of the spec comes
//! from these types through schemars and is committed as `generated/schema/exec-spec.schema.json`;
//! the runtime's TypeScript types are generated from that schema (`crate::targets::ts_types`),
//! so the interpreter cannot drift from what ixgen emits without failing its type check.
//! `docs/exec-spec.md` describes the semantics.
//!
//! Field rules: a field that would be `null` or `false` is left out, so that a reviewer reading a
//! generated file sees only what the tool does.
//!
//! Settings every tool of a catalog shares (the runtime's URL and timeout, the CLI's program,
//! the fallback) are [`SpecShared`], written once per catalog: a spec as written leaves out a
//! field that equals it ([`ExecSpec::without_shared`]) and the runtime fills it back in. The
//! model keeps every spec whole, so a changed setting still changes each tool's spec where
//! `diff` compares them.

use crate::template::Template;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The version of the spec format. A runtime refuses a spec of another version instead of
/// guessing: a tool file and a runtime file from two ixgen releases must not half-work.
/// Version 4: the fields [`SpecShared`] holds may be left out of a spec.
pub const SPEC_VERSION: u32 = 4;

fn is_false(b: &bool) -> bool {
    !*b
}

/// One tool, ready for a runtime: validated, defaults resolved, every template parsed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecSpec {
    /// The format version, [`SPEC_VERSION`].
    pub version: u32,
    /// The catalog's tool name.
    pub name: String,
    /// The text of the result's `##` heading.
    pub heading: Template,
    /// The parameters, in the order the model sees them.
    pub params: Vec<SpecParam>,
    /// The HTTP route tried before the steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<SpecRuntime>,
    /// Run the selected steps concurrently.
    #[serde(default, skip_serializing_if = "is_false")]
    pub parallel: bool,
    /// The steps, in order.
    pub steps: Vec<SpecStep>,
    /// Markdown returned when a step's program is not installed. Left out: the shared
    /// `fallback` when the tool has a `cli` step, else none.
    // Shared (`Arc`): most tools of a catalog have the catalog's (a plain comment: a doc
    // comment would change the spec's schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Arc<Template>>,
    /// Markdown added after the error of a failed step: how to recover.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Arc<Template>>,
    /// The rendered output: when present, these blocks replace the steps' sections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<SpecBlock>,
    /// Ask the user through the host before any step runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirm: Option<SpecConfirm>,
    /// Rules across parameters, applied in order once each argument has passed on its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<SpecRule>,
    /// How far secret redaction reaches; `all` is left out.
    #[serde(default, skip_serializing_if = "SpecRedact::is_all")]
    pub redact: SpecRedact,
    /// How the answer is put together (heading, trimming, empty text, errors); left out: as always.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<SpecAnswer>,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

/// How a tool's answer is put together. Every field left out is the behaviour a spec without
/// `answer` has: a `## heading`, trimmed sections, `_(no output)_` for nothing, failures as text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecAnswer {
    /// `false`: no `## heading` line before the answer.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub heading: bool,
    /// `false`: a section is the program's output as printed (indentation and trailing newline
    /// kept), not trimmed.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub trim: bool,
    /// The text of an empty section or an empty answer instead of `_(no output)_`; `[]` is "".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<Template>,
    /// How a failed call reaches the host.
    #[serde(default, skip_serializing_if = "SpecErrors::is_text")]
    pub errors: SpecErrors,
}

/// How a failed call reaches the host. MCP always marks it (`isError: true`); the choice is for
/// hosts whose tools answer a string (OpenCode), where an error is a thrown exception.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecErrors {
    /// An ordinary answer that says what failed.
    #[default]
    Text,
    /// The host's own error: OpenCode's `execute` throws with the answer as its message.
    Error,
}

impl SpecErrors {
    fn is_text(&self) -> bool {
        *self == SpecErrors::Text
    }
}

/// Confirmation before a tool runs. The runtime refuses a subject that matches `deny`, runs
/// one that matches `allow`, and asks the host (OpenCode: `ctx.ask`) about anything else.
/// Patterns are the host's wildcards (`*` any text, `?` one character; a trailing ` *` also
/// matches nothing), so the same patterns can be written into the host's permission rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecConfirm {
    /// The host's permission name: the tool's id in that host, so the user's rules apply.
    pub permission: String,
    /// What is asked about, the text the patterns are matched against.
    pub subject: Template,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    /// How many of the tool's first steps run before the question (they compute the preview and
    /// change nothing); left out: it is asked before any step and before the runtime route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u32>,
    /// What the user is shown with the question (OpenCode: `metadata.preview` of `ctx.ask`; MCP:
    /// the elicitation's message), rendered once the steps before it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Template>,
}

/// A rule across parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum SpecRule {
    /// Set these parameters when they are unset (and `when` holds); a value may be another
    /// parameter's (`{"var": "start_line"}`).
    Default {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<SpecCond>,
        values: IndexMap<String, JsonT>,
    },
    /// These parameters must be set (when `when` holds); `message` says why otherwise.
    Require {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<SpecCond>,
        params: Vec<String>,
        message: String,
    },
    /// These parameters must not be set (when `when` holds).
    Forbid {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<SpecCond>,
        params: Vec<String>,
        message: String,
    },
    /// `left op right` must hold when both numbers are set.
    Compare {
        left: String,
        op: SpecCompareOp,
        right: String,
        message: String,
    },
}

/// A comparison of two numeric parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SpecCompareOp {
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = "<")]
    Lt,
}

/// What secret redaction covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecRedact {
    /// What is sent to the runtime and everything returned (the default).
    #[default]
    All,
    /// What is sent, and error sections only (a stderr excerpt may echo the environment):
    /// a tool that returns source text keeps it as written.
    Errors,
    /// Nothing.
    None,
}

impl SpecRedact {
    fn is_all(&self) -> bool {
        *self == SpecRedact::All
    }
}

/// A number from the catalog or from a numeric parameter (already bounded or clamped by it),
/// times `scale` (seconds to milliseconds: 1000).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SpecAmount {
    Lit(u64),
    Var {
        var: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        scale: Option<u32>,
    },
}

/// Which output stream of a CLI step is its result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecStream {
    #[default]
    Stdout,
    Stderr,
    /// Standard output, then standard error.
    Both,
}

impl SpecStream {
    fn is_stdout(&self) -> bool {
        *self == SpecStream::Stdout
    }
}

/// The type of a parameter as the runtime checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecType {
    String,
    Integer,
    Number,
    Boolean,
    Enum,
    Array,
    /// A string that must name a path inside the worktree.
    Path,
}

/// A parameter as the runtime checks it: the host does not validate arguments, so the runtime
/// applies defaults, bounds and patterns itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecParam {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: SpecType,
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    // Boxed, as the catalog's: most parameters have none (a plain comment: a doc comment would
    // change the spec's schema).
    pub default: Option<Box<serde_json::Value>>,
    /// The allowed values of an enum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// The element type of an array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<SpecItems>,
    /// Lower bound: the value of a number, the length of a string or an array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<serde_json::Number>,
    /// Upper bound, as `min`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<serde_json::Number>,
    /// A number out of bounds is clamped rather than refused.
    #[serde(default, skip_serializing_if = "is_false")]
    pub clamp: bool,
    /// An ECMAScript regular expression a string must match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// Given, the argument must equal this context variable's baked value (a model told to
    /// pass `session_name` is checked, never obeyed blindly).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equals_context: Option<String>,
    /// `null` is accepted (and means unset).
    #[serde(default, skip_serializing_if = "is_false")]
    pub nullable: bool,
    /// `""` is a value, not a missing argument.
    #[serde(default, skip_serializing_if = "is_false")]
    pub keep_empty: bool,
}

/// The element type of an array parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecItems {
    #[serde(rename = "type")]
    pub ty: SpecType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

/// The runtime route tried first. A field left out is the shared runtime's (`SpecShared`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecRuntime {
    /// Environment variable that overrides `default_url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_env: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
    pub method: HttpMethod,
    /// Path below the base URL.
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<JsonT>,
    /// The answer's field that holds ready-made markdown; left out, the shared one; with
    /// neither, the answer is shown as JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown_field: Option<String>,
    /// The answer is shown as JSON, whatever `markdown_field` is (the route's `output: json`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub json: bool,
}

/// What every tool of a catalog shares, written once per catalog instead of in each spec. A
/// spec leaves out a field equal to one of these, and the runtime reads it from here: the same
/// values in 10,000 tool files were a tenth of their bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecShared {
    /// The catalog's `runtime`: where every route goes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<SharedRuntime>,
    /// The fallback of a tool with a `cli` step that leaves its own out (`cli.fallback`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Arc<Template>>,
    /// The program of a `cli` step that leaves it out (`cli.binary`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

/// The catalog's runtime, as routes share it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SharedRuntime {
    /// Environment variable that overrides `default_url`.
    pub url_env: String,
    pub default_url: String,
    pub timeout_ms: u32,
    /// The answer's field that holds ready-made markdown, for a route that does not answer JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown_field: Option<String>,
}

impl ExecSpec {
    /// The spec as a tool file carries it: every field equal to the shared one left out. A
    /// value of the tool's own (another program on a step, a fallback of its own) stays.
    pub fn without_shared(&self, shared: &SpecShared) -> ExecSpec {
        let mut spec = self.clone();
        if let (Some(rt), Some(sh)) = (&mut spec.runtime, &shared.runtime) {
            fn drop_equal<T: PartialEq>(field: &mut Option<T>, shared: &T) {
                if field.as_ref() == Some(shared) {
                    *field = None;
                }
            }
            drop_equal(&mut rt.url_env, &sh.url_env);
            drop_equal(&mut rt.default_url, &sh.default_url);
            drop_equal(&mut rt.timeout_ms, &sh.timeout_ms);
            if rt.markdown_field == sh.markdown_field {
                rt.markdown_field = None;
            }
        }
        let has_cli = spec.steps.iter().any(|s| matches!(s.exec, SpecExec::Cli { .. }));
        if has_cli && spec.fallback.is_some() && spec.fallback == shared.fallback {
            spec.fallback = None;
        }
        for step in &mut spec.steps {
            if let SpecExec::Cli { program, .. } = &mut step.exec
                && program.is_some()
                && *program == shared.program
            {
                *program = None;
            }
        }
        spec
    }
}

/// A JSON value built from parameters: literals, variables (keeping their type) and string
/// templates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JsonT {
    Lit(serde_json::Value),
    Var(String),
    Tpl(Template),
    Obj(IndexMap<String, JsonT>),
    Arr(Vec<JsonT>),
}

/// One step of a tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SpecStep {
    /// The name conditions of later steps use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Bold title of the step's section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<Template>,
    // Boxed here and in blocks and values: most have none, and a catalog of 10,000 tools
    // holds tens of thousands of each (a plain comment: a doc comment would change the
    // spec's schema).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<Box<SpecCond>>,
    /// Run once per element of this array (a parameter or a path into an earlier result),
    /// with `item` bound to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub for_each: Option<String>,
    /// Run for at most this many elements of `for_each`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Stdout is JSON: the parsed value becomes the variable named by `id` (an array of values
    /// under `for_each`); output that does not parse fails the step.
    #[serde(default, skip_serializing_if = "is_false")]
    pub json: bool,
    /// Text of the section instead of the step's output; `result` is bound to the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Template>,
    /// The output is read as records (JSON Lines, delimited lines, regular-expression captures):
    /// the array of records becomes the variable named by `id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse: Option<Box<SpecParse>>,
    /// The run itself is the step's data: `{exit_code, stdout, stderr, duration_ms}` becomes the
    /// variable named by `id`, also when the run failed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub capture: bool,
    /// A helper step: it runs and keeps its data, but its output is no section of the answer
    /// (its error still is, unless handled).
    #[serde(default, skip_serializing_if = "is_false")]
    pub hidden: bool,
    /// The working directory, relative to the project root; a directory outside it is refused.
    /// Unset (or a variable of it unset): the root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<Template>,
    pub exec: SpecExec,
    /// Where the step is in the catalog (`tools[3].steps[1]`), so a later stage can locate an
    /// error. Not part of the spec a runtime reads.
    #[serde(skip)]
    #[schemars(skip)]
    pub path: String,
}

/// Two steps are the same step when they do the same thing: `path` says only where one is
/// written (`ixgen diff` compares steps of a tool that moved in the catalog).
impl PartialEq for SpecStep {
    fn eq(&self, other: &Self) -> bool {
        let SpecStep {
            id,
            title,
            when,
            for_each,
            limit,
            json,
            message,
            parse,
            capture,
            hidden,
            cwd,
            exec,
            path: _,
        } = self;
        (
            id, title, when, for_each, limit, json, message, parse, capture, hidden, cwd, exec,
        ) == (
            &other.id,
            &other.title,
            &other.when,
            &other.for_each,
            &other.limit,
            &other.json,
            &other.message,
            &other.parse,
            &other.capture,
            &other.hidden,
            &other.cwd,
            &other.exec,
        )
    }
}

/// How a step's output becomes records. Lines are split on `\n` (a trailing `\r` dropped);
/// blank lines are skipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "format", rename_all = "snake_case")]
pub enum SpecParse {
    /// One JSON value a line; a line that is not JSON fails the step.
    Jsonl,
    /// Fields split at `separator`, at most `fields.len()` parts (the last keeps the rest); a
    /// line with fewer parts is skipped.
    Delimited { separator: String, fields: Vec<String> },
    /// An ECMAScript regular expression matched against each line: capture group N is field
    /// N; a line that does not match is skipped, a group that took no part is `null`.
    Regex {
        pattern: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        flags: String,
        fields: Vec<String>,
    },
}

/// Another program for a `cli` step, tried in order when the ones before it are not installed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecAlt {
    pub program: String,
    pub argv: Vec<SpecArg>,
}

/// A condition on parameters or on earlier steps. `param` names a variable: a parameter, a
/// context variable, or a path into an earlier step's JSON result (`impact.riskLevel`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SpecCond {
    /// A number compared with a bound; false when the value is not a number.
    Compare {
        param: String,
        op: CmpOp,
        than: serde_json::Number,
    },
    ParamIn {
        param: String,
        #[serde(rename = "in")]
        values: Vec<serde_json::Value>,
    },
    ParamEquals {
        param: String,
        equals: serde_json::Value,
    },
    ParamContains {
        param: String,
        contains: serde_json::Value,
    },
    ParamSet {
        param: String,
        set: bool,
    },
    StepMatches {
        step: String,
        /// An ECMAScript regular expression.
        matches: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        flags: String,
    },
    StepFailed {
        step: String,
        failed: bool,
    },
    All {
        all: Vec<SpecCond>,
    },
    Any {
        any: Vec<SpecCond>,
    },
    Not {
        not: Box<SpecCond>,
    },
}

/// A numeric comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    Lt,
    Lte,
    Gt,
    Gte,
}

/// One block of rendered output, shown when its `when` holds. Variables in a block's
/// templates are markdown-escaped by the runtime (one function), so data cannot add structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SpecBlock {
    /// A paragraph.
    Text {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<Box<SpecCond>>,
        text: Template,
    },
    /// `**Label:** value` lines; a line whose value is unset is left out.
    Fields {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<Box<SpecCond>>,
        fields: Vec<SpecField>,
    },
    /// A bulleted list of the elements of an array, one `item` row each.
    List {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<Box<SpecCond>>,
        /// Path to the array.
        list: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<Template>,
        /// The row; an object element's fields are variables of it.
        item: Box<SpecValue>,
        /// A path to the total count when the array is already cut short.
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<String>,
        /// A number, or a number parameter (`{"var": "limit"}`).
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<JsonT>,
        /// Shown instead when the array is empty.
        #[serde(skip_serializing_if = "Option::is_none")]
        empty: Option<Template>,
    },
    /// A table of the elements of an array, one column per entry.
    Table {
        #[serde(skip_serializing_if = "Option::is_none")]
        when: Option<Box<SpecCond>>,
        table: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<Template>,
        columns: Vec<SpecField>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<JsonT>,
        #[serde(skip_serializing_if = "Option::is_none")]
        empty: Option<Template>,
    },
}

/// A labelled value: a field line or a table column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecField {
    pub label: String,
    pub value: SpecValue,
}

/// A value: a template, or a variable mapped through a table of values; with an optional
/// marker appended when a condition holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecValue {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpl: Option<Template>,
    /// The variable looked up in `to`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<String>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub to: IndexMap<String, Template>,
    /// Used when the mapped value is unset or not in `to`; without it the value is unset.
    #[serde(rename = "else", default, skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<Template>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mark: Option<Box<SpecMark>>,
}

/// A marker appended to a value when a condition holds (a threshold).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecMark {
    pub when: SpecCond,
    pub text: String,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SpecExec {
    /// Run a program with an argument vector (never a shell). Without `program`, the shared one.
    Cli {
        #[serde(skip_serializing_if = "Option::is_none")]
        program: Option<String>,
        argv: Vec<SpecArg>,
        #[serde(skip_serializing_if = "Option::is_none")]
        stdin: Option<Template>,
        /// Exit codes that are a normal answer; empty means only 0.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        ok_exit: Vec<i32>,
        /// Every exit code is a normal answer (the exit code is data, `capture`).
        #[serde(default, skip_serializing_if = "is_false")]
        any_exit: bool,
        /// Programs tried in order when `program` is not installed (`rg`, else `grep`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        otherwise: Vec<SpecAlt>,
        /// Which stream is the step's output.
        #[serde(default, skip_serializing_if = "SpecStream::is_stdout")]
        output: SpecStream,
        /// Characters of output kept; the rest is cut with a note.
        #[serde(skip_serializing_if = "Option::is_none")]
        max_output: Option<SpecAmount>,
        /// Milliseconds before the program is stopped.
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<SpecAmount>,
        /// The section's text when an accepted run printed nothing.
        #[serde(skip_serializing_if = "Option::is_none")]
        if_empty: Option<Template>,
    },
    /// Append a frame to the store.
    StoreAppend {
        program: String,
        store: Template,
        topic: Template,
        meta: JsonT,
        #[serde(skip_serializing_if = "Option::is_none")]
        body: Option<Template>,
    },
    /// Fold a topic's frames into items and list them.
    StoreFold {
        program: String,
        store: Template,
        topic: Template,
        #[serde(skip_serializing_if = "Option::is_none")]
        group_by: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        groups: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        filter: Option<SpecFilter>,
        /// Fields an item gets when its add frame does not set them.
        #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
        defaults: IndexMap<String, serde_json::Value>,
        /// The actions that update an item, each with the fields it sets besides the frame's.
        #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
        updates: IndexMap<String, IndexMap<String, serde_json::Value>>,
    },
    /// Append a frame that updates one item, found by its id or a unique id prefix.
    StoreUpdate {
        program: String,
        store: Template,
        topic: Template,
        id: Template,
        meta: JsonT,
    },
    /// Compute a value: a CEL expression over the call's variables (docs/expressions.md). The
    /// value becomes the variable named by the step's `id` (an array under `for_each`); the
    /// section shows it as text. An expression that fails fails the step.
    Compute {
        /// The expression's source, compiled by `ixgen validate`.
        expr: String,
    },
    /// Signal a process.
    Signal {
        pid: Template,
        signal: String,
        /// Signal only a process of this name, so a reused pid is never hit.
        #[serde(skip_serializing_if = "Option::is_none")]
        process: Option<String>,
    },
}

/// The filter of a fold: keep items whose field equals the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SpecFilter {
    pub field: String,
    pub equals: Template,
}

/// One argv element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SpecArg {
    /// Literal text, always present.
    Lit(String),
    /// A template with variables, left out when one of them is unset.
    Tpl(Template),
    /// An option and its value, both left out when the value is unset.
    Opt { opt: String, value: Template },
    /// A flag, present when the boolean parameter is true.
    Flag {
        flag: String,
        #[serde(rename = "if")]
        if_param: String,
    },
    /// Each element of an array parameter as its own argument.
    Spread { spread: String },
    /// A JSON value serialized into one argument.
    Json { json: JsonT },
    /// The rendered text written to a private temporary file, whose path is the argument;
    /// the file is removed when the step ends. Left out when a variable is unset.
    File { file: Template },
}

/// HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum HttpMethod {
    GET,
    POST,
}

/// The JSON Schema of the spec (committed as `generated/schema/exec-spec.schema.json`), with
/// [`SpecShared`] among its definitions: the runtime reads both.
pub fn schema() -> serde_json::Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().for_serialize();
    let mut generator = settings.into_generator();
    generator.subschema_for::<SpecShared>();
    let schema = generator.into_root_schema_for::<ExecSpec>();
    serde_json::to_value(schema).expect("a schema serializes")
}
