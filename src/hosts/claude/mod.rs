//! Claude Code: a plugin (`.claude-plugin/plugin.json`), its MCP server in `.mcp.json`, and
//! optionally a marketplace listing this plugin.
//!
//! Naming rules: Claude Code calls a plugin server's tool `mcp__plugin_<plugin>_<server>__<tool>`,
//! and the model API refuses names over 64 characters. `.mcp.json` is shared with the user's
//! own servers, so it is merged (ixgen sets its server's key). Every file is a typed struct
//! serialized by serde_json. What Claude Code's plugin directory asks beyond that (a README,
//! the icon, the network hosts) is in [`extras`]. Pure.

pub mod extras;

use super::{Host, Options, Surface, json_file, server_args};
use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::model::{Author, Model};
use crate::plan::Plan;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `targets.claude`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Also write `.claude-plugin/marketplace.json` listing this plugin.
    #[serde(default)]
    pub marketplace: bool,
    /// Prefix relative server commands with `${CLAUDE_PLUGIN_ROOT}/`.
    #[serde(default)]
    pub plugin_root: bool,
    /// Write the plugin's `README.md`, which Claude Code's plugin directory requires. Turn it
    /// off when the output folder is a project whose own README describes the plugin.
    #[serde(default = "yes")]
    pub readme: bool,
}

fn yes() -> bool {
    true
}

/// Longest tool name the model API accepts once Claude Code prefixes it.
pub const NAME_LIMIT: usize = 64;

/// The name Claude Code shows for a plugin's MCP tool.
pub fn tool_id(plugin: &str, server: &str, name: &str) -> String {
    format!("mcp__plugin_{plugin}_{server}__{name}")
}

/// `.claude-plugin/plugin.json`.
#[derive(Debug, Serialize)]
struct PluginManifest<'a> {
    name: &'a str,
    version: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a Author>,
    #[serde(skip_serializing_if = "Option::is_none")]
    homepage: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    license: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    keywords: &'a [String],
}

/// A stdio server as Claude Code writes it (and Cursor; VS Code with `"type": "stdio"` first).
#[derive(Debug, Serialize)]
pub struct StdioServer {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    pub command: String,
    pub args: Vec<String>,
    pub env: IndexMap<String, String>,
}

/// `.claude-plugin/marketplace.json`.
#[derive(Debug, Serialize)]
struct Marketplace<'a> {
    name: String,
    /// The plugin's author, without a URL.
    owner: Author,
    metadata: MarketMeta<'a>,
    plugins: Vec<MarketPlugin<'a>>,
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

pub struct Claude;

impl Host for Claude {
    type Settings = Settings;

    const NAME: &'static str = "claude";
    const ABOUT: &'static str = "Claude Code plugin (`.claude-plugin/plugin.json`, `.mcp.json`, marketplace)";

    fn check(&self, s: &Settings, cat: &Model, path: &str) -> Vec<Diagnostic> {
        let mut diags = super::check_server(cat, path);
        // What Claude Code's plugin directory asks that only the catalog's author can supply
        // (`claude plugin validate --profile directory`, 2.1.330): an icon (`ICON_MISSING`, a
        // warning, an error under `--strict`) and a license (`LICENSE_MISSING`, an error there).
        let p = &cat.product;
        if p.icon.is_none() {
            diags.push(
                Diagnostic::warning("no-icon", "product", "the Claude Code plugin has no icon; Claude Code's plugin directory asks for one")
                    .at_key()
                    .help("add `product.icon: <path>`: a square PNG, 512 to 2048 px a side, under 2 MB, relative to the catalog"),
            );
        }
        if p.license.is_none() {
            diags.push(
                Diagnostic::warning("no-license", "product", "the Claude Code plugin has no license; Claude Code's plugin directory refuses a plugin without one")
                    .at_key()
                    .help("add `product.license: <SPDX id>`, e.g. `MIT`"),
            );
        }
        // Its surface's ids are the names Claude Code sends to the model API.
        let over = "the model API's limit of 64";
        diags.extend(super::check_name_lengths(&self.surfaces(s, cat), NAME_LIMIT, over));
        diags
    }

    fn surfaces(&self, _: &Settings, cat: &Model) -> Vec<Surface> {
        let plugin = cat.product.name.as_str();
        super::server_surface(cat, "claude", "Claude Code", "Claude Code session", |server, tool| {
            tool_id(plugin, server, tool)
        })
    }

    fn plan<'m>(&self, s: &'m Settings, model: &'m Model, opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        let Some(server) = &model.server else {
            return Ok(());
        };
        plan.groups.insert(Self::NAME);
        let p = &model.product;
        let manifest = PluginManifest {
            name: &p.name,
            version: &p.version,
            description: &p.description,
            author: p.author.as_ref(),
            homepage: p.homepage.as_deref(),
            repository: p.repository.as_deref(),
            license: p.license.as_deref(),
            keywords: &p.keywords,
        };
        plan.files
            .push(json_file(".claude-plugin/plugin.json", Self::NAME, &manifest)?);
        // An absolute command is a program installed on the machine, not one in the plugin.
        let command = if s.plugin_root && !server.command.starts_with('/') {
            format!("${{CLAUDE_PLUGIN_ROOT}}/{}", server.command.trim_start_matches("./"))
        } else {
            server.command.clone()
        };
        extras::plan(model, s, server, opts, &command, plan)?;
        plan.files.push(super::merged(
            ".mcp.json".into(),
            Self::NAME,
            ["mcpServers", &server.name],
            extras::with_network(
                model,
                StdioServer {
                    kind: None,
                    command,
                    args: server_args(model, &opts.filter),
                    env: server.env.clone(),
                },
            ),
        )?);
        if s.marketplace {
            let market = Marketplace {
                name: format!("{}-marketplace", p.name),
                owner: p.author.clone().map_or(
                    Author {
                        name: p.name.clone(),
                        email: None,
                        url: None,
                    },
                    |a| Author { url: None, ..a },
                ),
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
            plan.files
                .push(json_file(".claude-plugin/marketplace.json", Self::NAME, &market)?);
        }
        Ok(())
    }
}
