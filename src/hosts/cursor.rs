//! Cursor: the MCP server in `.cursor/mcp.json` (shared with the user's servers: merged).
//!
//! Naming rules: Cursor drops a tool whose server and tool name together pass 60 characters.

use super::ServerConfigHost;

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
}
