//! MCP-aware hosts that only need to know how to launch the server: the Claude Code plugin
//! (manifest, `.mcp.json`, marketplace), Cursor, VS Code, Gemini CLI and Codex.
//!
//! Every file is a typed struct serialized by serde_json (or the toml crate for Codex). Files
//! a user's project shares with other tools (`.mcp.json`, `.cursor/mcp.json`,
//! `.vscode/mcp.json`) are merged: ixgen sets its own server's key and keeps the rest. Pure.

use super::{Options, Target, server_args};
use crate::error::Error;
use crate::model::Model;
use crate::output::PlannedFile;
use indexmap::IndexMap;
use serde::Serialize;

/// `.claude-plugin/plugin.json`.
#[derive(Debug, Serialize)]
struct PluginManifest<'a> {
    name: &'a str,
    version: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<Author<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    homepage: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    keywords: &'a [String],
}

#[derive(Debug, Serialize)]
struct Author<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
}

/// A stdio server as Claude Code and Cursor write it.
#[derive(Debug, Serialize)]
struct StdioServer {
    command: String,
    args: Vec<String>,
    env: IndexMap<String, String>,
}

/// A stdio server as VS Code writes it.
#[derive(Debug, Serialize)]
struct VscodeServer {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    args: Vec<String>,
    env: IndexMap<String, String>,
}

/// `.claude-plugin/marketplace.json`.
#[derive(Debug, Serialize)]
struct Marketplace<'a> {
    name: String,
    owner: Owner<'a>,
    metadata: MarketMeta<'a>,
    plugins: Vec<MarketPlugin<'a>>,
}

#[derive(Debug, Serialize)]
struct Owner<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct MarketMeta<'a> {
    description: &'a str,
    version: &'a str,
}

#[derive(Debug, Serialize)]
struct MarketPlugin<'a> {
    name: &'a str,
    source: &'static str,
    description: &'a str,
    version: &'a str,
}

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

/// No `cwd`: the server must run in the user's project, not in the extension's folder.
#[derive(Debug, Serialize)]
struct GeminiServer {
    command: String,
    args: Vec<String>,
}

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

fn json(value: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("typed structs serialize");
    bytes.push(b'\n');
    bytes
}

fn merged(path: String, group: &'static str, pointer: [&str; 2], value: impl Serialize) -> PlannedFile<'static> {
    PlannedFile::merged(
        path,
        group,
        &pointer,
        serde_json::to_value(value).expect("typed structs serialize"),
        serde_json::Map::new(),
    )
}

/// The Claude Code plugin.
pub fn plan_claude(model: &Model, opts: &Options, files: &mut Vec<PlannedFile<'_>>) -> Result<(), Error> {
    let (Some(target), Some(server)) = (&model.catalog.targets.claude, &model.catalog.server) else {
        return Ok(());
    };
    let p = &model.catalog.product;
    let manifest = PluginManifest {
        name: &p.name,
        version: &p.version,
        description: &p.description,
        author: p.author.as_ref().map(|a| Author {
            name: &a.name,
            email: a.email.as_deref(),
            url: a.url.as_deref(),
        }),
        homepage: p.homepage.as_deref(),
        repository: p.repository.as_deref(),
        license: p.license.as_deref(),
        keywords: &p.keywords,
    };
    files.push(PlannedFile::owned(
        ".claude-plugin/plugin.json",
        "claude",
        json(&manifest),
    ));
    let command = if target.plugin_root {
        format!("${{CLAUDE_PLUGIN_ROOT}}/{}", server.command.trim_start_matches("./"))
    } else {
        server.command.clone()
    };
    super::claude_extras::plan(model, opts, &command, files)?;
    files.push(merged(
        ".mcp.json".into(),
        "claude",
        ["mcpServers", &server.name],
        super::claude_extras::with_network(
            model,
            StdioServer {
                command,
                args: server_args(model, &opts.filter),
                env: server.env.clone(),
            },
        ),
    ));
    if target.marketplace {
        let owner = p.author.as_ref().map(|a| Owner {
            name: &a.name,
            email: a.email.as_deref(),
        });
        let market = Marketplace {
            name: format!("{}-marketplace", p.name),
            owner: owner.unwrap_or(Owner {
                name: &p.name,
                email: None,
            }),
            metadata: MarketMeta {
                description: &p.description,
                version: &p.version,
            },
            plugins: vec![MarketPlugin {
                name: &p.name,
                source: "./",
                description: &p.description,
                version: &p.version,
            }],
        };
        files.push(PlannedFile::owned(
            ".claude-plugin/marketplace.json",
            "claude",
            json(&market),
        ));
    }
    Ok(())
}

/// Cursor, VS Code, Gemini CLI and Codex.
pub fn plan_config(
    model: &Model,
    target: Target,
    opts: &Options,
    files: &mut Vec<PlannedFile<'_>>,
) -> Result<(), Error> {
    let Some(server) = &model.catalog.server else {
        return Ok(());
    };
    let t = &model.catalog.targets;
    let custom = |c: &Option<crate::catalog::ConfigTarget>| c.as_ref().and_then(|c| c.path.clone());
    let args = server_args(model, &opts.filter);
    let p = &model.catalog.product;
    match target {
        Target::Cursor => files.push(merged(
            custom(&t.cursor).unwrap_or_else(|| ".cursor/mcp.json".into()),
            "cursor",
            ["mcpServers", &server.name],
            StdioServer {
                command: server.command.clone(),
                args,
                env: server.env.clone(),
            },
        )),
        Target::Vscode => files.push(merged(
            custom(&t.vscode).unwrap_or_else(|| ".vscode/mcp.json".into()),
            "vscode",
            ["servers", &server.name],
            VscodeServer {
                kind: "stdio",
                command: server.command.clone(),
                args,
                env: server.env.clone(),
            },
        )),
        Target::Gemini => {
            let ext = GeminiExtension {
                name: &p.name,
                version: &p.version,
                description: &p.description,
                mcp_servers: IndexMap::from([(
                    server.name.clone(),
                    GeminiServer {
                        command: server.command.clone(),
                        args,
                    },
                )]),
                exclude_tools: Vec::new(),
            };
            files.push(PlannedFile::owned(
                custom(&t.gemini).unwrap_or_else(|| "gemini-extension.json".into()),
                "gemini",
                json(&ext),
            ));
        }
        Target::Codex => {
            let enabled_tools = opts.filter.is_active().then(|| {
                model
                    .toolset(&server.toolset, &opts.filter)
                    .iter()
                    .map(|t| t.name.clone())
                    .collect()
            });
            let config = CodexConfig {
                mcp_servers: IndexMap::from([(
                    server.name.clone(),
                    CodexServer {
                        command: server.command.clone(),
                        args,
                        env: server.env.clone(),
                        enabled_tools,
                    },
                )]),
            };
            let body = toml::to_string(&config).expect("typed structs serialize");
            let text = format!(
                "# {} Do not edit: regenerate with `ixgen generate codex`.\n{body}",
                super::header_text(model)
            );
            files.push(PlannedFile::owned(
                custom(&t.codex).unwrap_or_else(|| ".codex/config.toml".into()),
                "codex",
                text.into_bytes(),
            ));
        }
        Target::Opencode | Target::Session | Target::Mcp | Target::Claude => {}
    }
    Ok(())
}
