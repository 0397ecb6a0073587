//! Gemini CLI: an extension manifest (`gemini-extension.json`) that launches the server.
//!
//! No `cwd` on the server: it must run in the user's project, not in the extension's folder.

use super::{Host, Options, Surface, json_bytes, server_args};
use crate::catalog::Catalog;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::model::Model;
use crate::output::{Plan, PlannedFile};
use indexmap::IndexMap;
use serde::Serialize;

/// `gemini-extension.json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiExtension<'a> {
    name: &'a str,
    version: &'a str,
    description: &'a str,
    mcp_servers: IndexMap<String, GeminiServer>,
    exclude_tools: Vec<String>,
}

#[derive(Debug, Serialize)]
struct GeminiServer {
    command: String,
    args: Vec<String>,
}

/// The Gemini CLI host.
pub struct Gemini;

impl Host for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn about(&self) -> &'static str {
        "Gemini CLI extension (`gemini-extension.json`)"
    }

    fn settings_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <super::ConfigSettings as schemars::JsonSchema>::json_schema(generator)
    }

    fn check(&self, cat: &Catalog, path: &str) -> Vec<Diagnostic> {
        super::check_config(cat, self.name(), path)
    }

    fn surfaces(&self, cat: &Catalog) -> Vec<Surface> {
        super::server_surface(cat, "gemini", "Gemini CLI", "Gemini CLI session", |server, tool| {
            format!("{server}/{tool}")
        })
    }

    fn plan<'m>(&self, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        let (Some(settings), Some(server)) = (
            super::planned_settings::<super::ConfigSettings>(&model.catalog, self.name())?,
            &model.catalog.server,
        ) else {
            return Ok(());
        };
        plan.groups.insert(self.name());
        let p = &model.catalog.product;
        let ext = GeminiExtension {
            name: &p.name,
            version: &p.version,
            description: &p.description,
            mcp_servers: IndexMap::from([(
                server.name.clone(),
                GeminiServer {
                    command: server.command.clone(),
                    args: server_args(model, &opts.filter),
                },
            )]),
            exclude_tools: Vec::new(),
        };
        plan.files.push(PlannedFile::owned(
            settings.path.unwrap_or_else(|| "gemini-extension.json".into()),
            self.name(),
            json_bytes(&ext)?,
        ));
        Ok(())
    }
}
