//! Codex: `[mcp_servers.<name>]` in `.codex/config.toml`, serialized by the toml crate.
//!
//! Codex takes the exact list of tools it may call (`enabled_tools`), so active filters are
//! written as that list.

use super::{Options, ServerConfigHost, header_text, server_args};
use crate::error::Error;
use crate::model::{Model, Server};
use crate::plan::PlannedFile;
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

pub struct Codex;

impl ServerConfigHost for Codex {
    const NAME: &'static str = "codex";
    const ABOUT: &'static str = "Codex (`.codex/config.toml`)";
    const LABEL: &'static str = "Codex";
    const SESSION: &'static str = "Codex session";
    const PATH: &'static str = ".codex/config.toml";

    fn file(model: &Model, opts: &Options, server: &Server, path: String) -> Result<PlannedFile<'static>, Error> {
        let filter = &opts.filter;
        let enabled_tools = filter.is_active().then(|| model.tool_names(&server.toolset, filter));
        let config = CodexConfig {
            mcp_servers: IndexMap::from([(
                server.name.clone(),
                CodexServer {
                    command: server.command.clone(),
                    args: server_args(model, filter),
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
        Ok(PlannedFile::owned(path, Self::NAME, text.into_bytes()))
    }
}
