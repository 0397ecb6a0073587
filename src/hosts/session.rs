//! OpenCode session tools: one file whose tools share the run's context (a loop's session,
//! iteration, store), baked in as constants at every generation, so the model never passes
//! them and never gets them wrong. Written only when the run is given that context.
//!
//! Naming rules: the file's tools are named exports, so OpenCode ids are `<file>_<tool>`.
//! The file imports the same runtime and shared settings files as the product's tools; the
//! per-run template (`crate::record`) holds those imports like any other line. Pure.

use super::opencode::{Constant, ToolFile, entry, ident, plan_runtime, render, runtime_import, tool_id};
use super::{Host, Options, Surface, header_text};
use crate::diagnostic::{Diagnostic, Report};
use crate::error::Error;
use crate::escape::{Ts, placeholder, ts_int, ts_placeholder, ts_str};
use crate::model::{ContextValue, Model};
use crate::plan::{Plan, PlannedFile, RunTemplate};
use crate::template::is_identifier;
use schemars::JsonSchema;
use serde::Deserialize;

/// `targets.session`: the session tools file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The toolset of the session tools.
    pub toolset: String,
    /// Folder of the file.
    #[serde(default = "super::opencode::default_dir")]
    pub dir: String,
    /// File name without `.ts`; tool ids become `<file>_<tool>`.
    pub file: String,
    /// Context variables the session tools need: each must be given or have a default.
    pub context: Vec<String>,
    /// What a file already at the session file's path, not written by ixgen, usually is; the
    /// error that refuses to overwrite it says so.
    #[serde(default)]
    pub replaces: Option<String>,
}

/// The OpenCode id of a session tool: `<file>_<export>`.
pub fn session_id(file: &str, name: &str) -> String {
    format!("{file}_{}", tool_id(name))
}

pub struct Session;

impl Host for Session {
    type Settings = Settings;

    const NAME: &'static str = "session";
    const ABOUT: &'static str =
        "OpenCode session tools with the run's context baked in (written when the context flags are given)";

    const BY_DEFAULT: bool = false;

    fn check(&self, s: &Settings, cat: &Model, path: &str) -> Vec<Diagnostic> {
        let mut diags = super::check_toolset(cat, path, &s.toolset, "dir", &s.dir);
        if !is_identifier(&s.file) {
            diags.err(
                "bad-name",
                format!("{path}.file"),
                format!("`{}` is not a usable OpenCode tool file name", s.file),
                "use [a-z_][a-z0-9_]* (OpenCode does not sanitize file names into tool ids)",
            );
        }
        // The file exports each tool under its id; `default` is the module's default export,
        // which OpenCode names after the file (`ralph`), not `ralph_default`.
        let tools = cat.toolsets.get(&s.toolset).map_or(&[][..], |ts| &ts.tools);
        for (i, t) in tools.iter().enumerate().filter(|(_, t)| tool_id(t) == "default") {
            diags.err(
                "reserved-name",
                format!("toolsets.{}.tools[{i}]", s.toolset),
                format!(
                    "tool `{t}` would be the session file's default export, which OpenCode names `{}`, not `{}`",
                    s.file,
                    session_id(&s.file, t)
                ),
                "rename the tool",
            );
        }
        for (i, c) in s.context.iter().enumerate() {
            if !cat.context.contains_key(c) {
                let known: Vec<&String> = cat.context.keys().collect();
                let hint = crate::diagnostic::hint_for(c, &known, "declare it under `context`");
                let (at, message) = (format!("{path}.context[{i}]"), format!("no context variable `{c}`"));
                diags.err("unknown-context", at, message, hint);
            }
        }
        diags
    }

    fn surfaces(&self, s: &Settings, cat: &Model) -> Vec<Surface> {
        Vec::from_iter(cat.toolsets.get(&s.toolset).map(|ts| Surface {
            key: "session",
            label: "OpenCode session tools",
            session: "ralph-loop session (session tools)",
            kind: super::SurfaceKind::Runs,
            toolset: s.toolset.clone(),
            namespace: "OpenCode",
            ids: ts.tools.iter().map(|t| (t.clone(), session_id(&s.file, t))).collect(),
        }))
    }

    fn plan<'m>(&self, s: &'m Settings, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        // Defaults are already filled in: what is missing has none.
        let missing = s.context.iter().filter(|c| !opts.context.contains_key(*c));
        let missing: Vec<String> = missing.map(|c| format!("--{c}")).collect();
        if !missing.is_empty() {
            return Err(Error::usage(
                format!("the session tools need {}", missing.join(", ")),
                "pass them (or no context at all, to write only the product's tools)",
            ));
        }
        plan.groups.insert(Self::NAME);
        let shared_import = plan_runtime(model, &s.dir, plan)?;
        // The file is rendered with a marker where each value goes, then filled in: the run
        // record keeps the unfilled file, and a later run fills it with its own values the
        // same way (`crate::record`).
        let (mut constants, mut vars) = (Vec::new(), Vec::new());
        for (name, decl) in model.context.iter().filter(|(n, _)| opts.context.contains_key(*n)) {
            constants.push(Constant {
                key: ts_str(name),
                name: ident(&decl.constant)?,
                value: ts_placeholder(name),
            });
            vars.push(name.clone());
        }
        let tools = model
            .toolset(&s.toolset, &opts.filter)
            .into_iter()
            .map(|t| entry(model, t, Some(&tool_id(&t.name)), &session_id(&s.file, &t.name)))
            .collect::<Result<Vec<_>, Error>>()?;
        let file = ToolFile {
            header: header_text(model),
            command: Ts::code("ixgen opencode --session …"),
            runtime_import: runtime_import()?,
            shared_import,
            constants,
            tools,
        };
        let marked =
            String::from_utf8(render(&file)?).map_err(|_| Error::internal("a rendered session file is not UTF-8"))?;
        // Values are quoted and markers hold a NUL, which quoting never leaves bare: each
        // marker is in the file exactly once, where its constant is.
        let template = RunTemplate::split(&marked, &vars, placeholder)
            .ok_or_else(|| Error::internal("a context value's marker is not in the session file exactly once"))?;
        let bytes = template
            .fill(|var| opts.context.get(var).map(context_literal))
            .ok_or_else(|| Error::internal("a session file names a context variable the run has no value for"))?;
        let path = format!("{}/{}.ts", s.dir.trim_end_matches('/'), s.file);
        plan.files.push(PlannedFile {
            template: Some(template),
            foreign: s.replaces.clone(),
            ..PlannedFile::owned(path, Self::NAME, bytes)
        });
        Ok(())
    }

    /// With the runtime, which the OpenCode tools keep while they may import it.
    fn retire(&self, plan: &mut Plan<'_>) {
        plan.groups.insert(Self::NAME);
        super::opencode::cover_runtime(plan);
    }
}

/// How a context value is spelled in the session file (TypeScript). The run that renders and
/// the run record's replay both spell it with this.
pub fn context_literal(value: &ContextValue) -> String {
    match value {
        ContextValue::Integer(n) => ts_int(*n).to_string(),
        ContextValue::Text(s) => ts_str(s).to_string(),
    }
}
