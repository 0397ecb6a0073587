//! Gemini CLI: an extension manifest (`gemini-extension.json`) that launches the server.
//!
//! No `cwd` on the server: it must run in the user's project, not in the extension's folder.

use super::{Options, ServerConfigHost, json_file, server_args};
use crate::error::Error;
use crate::model::{Model, Server};
use crate::plan::PlannedFile;
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

pub struct Gemini;

impl ServerConfigHost for Gemini {
    const NAME: &'static str = "gemini";
    const ABOUT: &'static str = "Gemini CLI extension (`gemini-extension.json`)";
    const LABEL: &'static str = "Gemini CLI";
    const SESSION: &'static str = "Gemini CLI session";
    const PATH: &'static str = "gemini-extension.json";

    fn file(model: &Model, opts: &Options, server: &Server, path: String) -> Result<PlannedFile<'static>, Error> {
        let p = &model.product;
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
        json_file(path, Self::NAME, &ext)
    }
}
