//! VS Code: the MCP server in `.vscode/mcp.json` (shared with the user's servers: merged).

use super::{Options, ServerConfigHost, server_args};
use crate::error::Error;
use crate::model::Model;
use crate::model::Server;
use crate::plan::PlannedFile;
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
pub static HOST: ServerConfigHost = ServerConfigHost {
    name: "vscode",
    about: "VS Code (`.vscode/mcp.json`)",
    label: "VS Code",
    session: "VS Code session",
    name_limit: None,
    file,
};

fn file(model: &Model, opts: &Options, server: &Server, path: Option<String>) -> Result<PlannedFile<'static>, Error> {
    super::merged(
        path.unwrap_or_else(|| ".vscode/mcp.json".into()),
        HOST.name,
        ["servers", &server.name],
        VscodeServer {
            kind: "stdio",
            command: server.command.clone(),
            args: server_args(model, &opts.filter),
            env: server.env.clone(),
        },
    )
}
