//! Cursor: the MCP server in `.cursor/mcp.json` (shared with the user's servers: merged).
//!
//! Naming rules: Cursor drops a tool whose server and tool name together pass 60 characters.

use super::{Options, ServerConfigHost, server_args};
use crate::error::Error;
use crate::model::{Model, Server};
use crate::plan::PlannedFile;

/// Longest server + tool name Cursor keeps.
pub const NAME_LIMIT: usize = 60;

pub struct Cursor;

impl ServerConfigHost for Cursor {
    const NAME: &'static str = "cursor";
    const ABOUT: &'static str = "Cursor (`.cursor/mcp.json`)";
    const LABEL: &'static str = "Cursor";
    const SESSION: &'static str = "Cursor session";
    const PATH: &'static str = ".cursor/mcp.json";
    const NAME_LIMIT: Option<(usize, &'static str)> = Some((
        NAME_LIMIT,
        "Cursor's limit of 60 for server and tool name together (it drops longer tools)",
    ));

    fn file(model: &Model, opts: &Options, server: &Server, path: String) -> Result<PlannedFile<'static>, Error> {
        super::merged(
            path,
            Self::NAME,
            ["mcpServers", &server.name],
            super::claude::StdioServer {
                command: server.command.clone(),
                args: server_args(model, &opts.filter),
                env: server.env.clone(),
            },
        )
    }
}
