//! VS Code: the MCP server in `.vscode/mcp.json` (shared with the user's servers: merged), under
//! `servers`, each entry starting with `"type": "stdio"`.

use super::ServerConfigHost;

pub struct Vscode;

impl ServerConfigHost for Vscode {
    const NAME: &'static str = "vscode";
    const ABOUT: &'static str = "VS Code (`.vscode/mcp.json`)";
    const LABEL: &'static str = "VS Code";
    const SESSION: &'static str = "VS Code session";
    const PATH: &'static str = ".vscode/mcp.json";
    const SERVERS: &'static str = "servers";
    const TYPE: Option<&'static str> = Some("stdio");
}
