//! Cursor: the MCP server in `.cursor/mcp.json` (shared with the user's servers: merged).
//!
//! Naming rules: Cursor drops a tool whose server and tool name together pass 60 characters.

use super::{Host, Options, Surface, server_args};
use crate::catalog::Catalog;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::model::Model;
use crate::output::Plan;

/// Longest server + tool name Cursor keeps.
pub const NAME_LIMIT: usize = 60;

/// The Cursor host.
pub struct Cursor;

impl Host for Cursor {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn about(&self) -> &'static str {
        "Cursor (`.cursor/mcp.json`)"
    }

    fn settings_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <super::ConfigSettings as schemars::JsonSchema>::json_schema(generator)
    }

    fn check(&self, cat: &Catalog, path: &str) -> Vec<Diagnostic> {
        let mut diags = super::check_config(cat, self.name(), path);
        diags.extend(super::check_name_lengths(
            cat,
            "Cursor",
            NAME_LIMIT,
            "Cursor's limit of 60 for server and tool name together (it drops longer tools)",
            |server, tool| format!("{server}{tool}"),
        ));
        diags
    }

    fn surfaces(&self, cat: &Catalog) -> Vec<Surface> {
        super::server_surface(cat, "cursor", "Cursor", "Cursor session", |server, tool| {
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
        plan.files.push(super::merged(
            settings.path.unwrap_or_else(|| ".cursor/mcp.json".into()),
            self.name(),
            ["mcpServers", &server.name],
            super::claude::StdioServer {
                command: server.command.clone(),
                args: server_args(model, &opts.filter),
                env: server.env.clone(),
            },
        )?);
        Ok(())
    }
}
