//! VS Code: the MCP server in `.vscode/mcp.json` (shared with the user's servers: merged).

use super::{Options, ServerConfigHost, server_args};
use crate::error::Error;
use crate::model::{Model, Server};
use crate::plan::PlannedFile;
use indexmap::IndexMap;
use serde::Serialize;

/// A stdio server as VS Code writes it (`"type": "stdio"`).
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "stdio")]
struct VscodeServer {
    command: String,
    args: Vec<String>,
    env: IndexMap<String, String>,
}

pub struct Vscode;

impl ServerConfigHost for Vscode {
    const NAME: &'static str = "vscode";
    const ABOUT: &'static str = "VS Code (`.vscode/mcp.json`)";
    const LABEL: &'static str = "VS Code";
    const SESSION: &'static str = "VS Code session";
    const PATH: &'static str = ".vscode/mcp.json";

    fn file(model: &Model, opts: &Options, server: &Server, path: String) -> Result<PlannedFile<'static>, Error> {
        super::merged(
            path,
            Self::NAME,
            ["servers", &server.name],
            VscodeServer {
                command: server.command.clone(),
                args: server_args(model, &opts.filter),
                env: server.env.clone(),
            },
        )
    }
}
