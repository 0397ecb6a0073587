//! Cursor: the MCP server in `.cursor/mcp.json` (shared with the user's servers: merged).
//!
//! Naming rules: Cursor drops a tool whose server and tool name together pass 60 characters.

use super::{Options, ServerConfigHost, server_args};
use crate::error::Error;
use crate::model::Model;
use crate::model::Server;
use crate::plan::PlannedFile;

/// Longest server + tool name Cursor keeps.
pub const NAME_LIMIT: usize = 60;

/// The Cursor host.
pub static HOST: ServerConfigHost = ServerConfigHost {
    name: "cursor",
    about: "Cursor (`.cursor/mcp.json`)",
    label: "Cursor",
    session: "Cursor session",
    name_limit: Some((
        NAME_LIMIT,
        "Cursor's limit of 60 for server and tool name together (it drops longer tools)",
    )),
    file,
};

fn file(model: &Model, opts: &Options, server: &Server, path: Option<String>) -> Result<PlannedFile<'static>, Error> {
    super::merged(
        path.unwrap_or_else(|| ".cursor/mcp.json".into()),
        HOST.name,
        ["mcpServers", &server.name],
        super::claude::StdioServer {
            command: server.command.clone(),
            args: server_args(model, &opts.filter),
            env: server.env.clone(),
        },
    )
}
