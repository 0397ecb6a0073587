//! Codex: `[mcp_servers.<name>]` in `.codex/config.toml`, serialized by the toml crate.
//!
//! Codex takes the exact list of tools it may call (`enabled_tools`), so active filters are
//! written as that list.

use super::{Host, Options, Surface, header_text, server_args};
use crate::catalog::Catalog;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::model::Model;
use crate::output::{Plan, PlannedFile};
use indexmap::IndexMap;
use serde::Serialize;

/// Codex `config.toml` fragment: `[mcp_servers.<name>]`.
#[derive(Debug, Serialize)]
struct CodexConfig {
    mcp_servers: IndexMap<String, CodexServer>,
}

#[derive(Debug, Serialize)]
struct CodexServer {
    command: String,
    args: Vec<String>,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    env: IndexMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enabled_tools: Option<Vec<String>>,
}

/// The Codex host.
pub struct Codex;

impl Host for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn about(&self) -> &'static str {
        "Codex (`.codex/config.toml`)"
    }

    fn settings_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <super::ConfigSettings as schemars::JsonSchema>::json_schema(generator)
    }

    fn check(&self, cat: &Catalog, path: &str) -> Vec<Diagnostic> {
        super::check_config(cat, self.name(), path)
    }

    fn surfaces(&self, cat: &Catalog) -> Vec<Surface> {
        super::server_surface(cat, "codex", "Codex", "Codex session", |server, tool| {
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
        let enabled_tools = opts.filter.is_active().then(|| {
            model
                .toolset(&server.toolset, &opts.filter)
                .iter()
                .map(|t| t.name.clone())
                .collect()
        });
        let config = CodexConfig {
            mcp_servers: IndexMap::from([(
                server.name.clone(),
                CodexServer {
                    command: server.command.clone(),
                    args: server_args(model, &opts.filter),
                    env: server.env.clone(),
                    enabled_tools,
                },
            )]),
        };
        let body = toml::to_string(&config).map_err(|e| Error::internal(format!("config.toml: {e}")))?;
        let text = format!(
            "# {} Do not edit: regenerate with `ixgen generate codex`.\n{body}",
            header_text(model)
        );
        plan.files.push(PlannedFile::owned(
            settings.path.unwrap_or_else(|| ".codex/config.toml".into()),
            self.name(),
            text.into_bytes(),
        ));
        Ok(())
    }
}
