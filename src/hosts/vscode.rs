//! VS Code: the MCP server in `.vscode/mcp.json` (shared with the user's servers: merged).

use super::{Host, Options, Surface, server_args};
use crate::catalog::Catalog;
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::model::Model;
use crate::output::Plan;
use indexmap::IndexMap;
use serde::Serialize;

/// A stdio server as VS Code writes it.
#[derive(Debug, Serialize)]
struct VscodeServer {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    args: Vec<String>,
    env: IndexMap<String, String>,
}

/// The VS Code host.
pub struct Vscode;

impl Host for Vscode {
    fn name(&self) -> &'static str {
        "vscode"
    }

    fn about(&self) -> &'static str {
        "VS Code (`.vscode/mcp.json`)"
    }

    fn settings_schema(&self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <super::ConfigSettings as schemars::JsonSchema>::json_schema(generator)
    }

    fn check(&self, cat: &Catalog, path: &str) -> Vec<Diagnostic> {
        super::check_config(cat, self.name(), path)
    }

    fn surfaces(&self, cat: &Catalog) -> Vec<Surface> {
        super::server_surface(cat, "vscode", "VS Code", "VS Code session", |server, tool| {
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
            settings.path.unwrap_or_else(|| ".vscode/mcp.json".into()),
            self.name(),
            ["servers", &server.name],
            VscodeServer {
                kind: "stdio",
                command: server.command.clone(),
                args: server_args(model, &opts.filter),
                env: server.env.clone(),
            },
        )?);
        Ok(())
    }
}
