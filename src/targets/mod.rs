//! The render stage: one module per host, each turning the model into planned files.
//!
//! Targets are pure: they read the model and the run's options and return [`PlannedFile`]s;
//! `crate::output` decides what reaches the disk. Adding a host means one module here (its
//! naming rules and typed file structs) and, for code files, one template folder.

pub mod claude_extras;
pub mod hosts;
pub mod mcp;
pub mod opencode;

use crate::error::Error;
use crate::escape::{Ts, comment};
use crate::model::{Context, Filter, Model};
use crate::output::Plan;
use clap::ValueEnum;

/// A host surface ixgen can generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Target {
    /// OpenCode custom tools (`.opencode/tools/*.ts`) and the MCP server in `opencode.json`.
    Opencode,
    /// OpenCode session tools with the run's context baked in (needs the context flags).
    Session,
    /// MCP `tools/list` definitions (`mcp/tools.json`).
    Mcp,
    /// Claude Code plugin (`.claude-plugin/plugin.json`, `.mcp.json`, marketplace).
    Claude,
    /// Cursor (`.cursor/mcp.json`).
    Cursor,
    /// VS Code (`.vscode/mcp.json`).
    Vscode,
    /// Gemini CLI extension (`gemini-extension.json`).
    Gemini,
    /// Codex (`.codex/config.toml`).
    Codex,
}

impl Target {
    /// The manifest group of the target's files.
    pub fn group(self) -> &'static str {
        match self {
            Target::Opencode => "opencode",
            Target::Session => "session",
            Target::Mcp => "mcp",
            Target::Claude => "claude",
            Target::Cursor => "cursor",
            Target::Vscode => "vscode",
            Target::Gemini => "gemini",
            Target::Codex => "codex",
        }
    }

    /// All targets, in a fixed order.
    pub fn all() -> [Target; 8] {
        [
            Target::Opencode,
            Target::Session,
            Target::Mcp,
            Target::Claude,
            Target::Cursor,
            Target::Vscode,
            Target::Gemini,
            Target::Codex,
        ]
    }

    /// Whether the catalog enables this target.
    pub fn enabled(self, model: &Model) -> bool {
        let t = &model.catalog.targets;
        match self {
            Target::Opencode => t.opencode.is_some(),
            Target::Session => t.session.is_some(),
            Target::Mcp => t.mcp.is_some(),
            Target::Claude => t.claude.is_some(),
            Target::Cursor => t.cursor.is_some(),
            Target::Vscode => t.vscode.is_some(),
            Target::Gemini => t.gemini.is_some(),
            Target::Codex => t.codex.is_some(),
        }
    }
}

/// MCP protocol revisions the `mcp` target can emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum McpProfile {
    /// Revision 2025-11-25, what the MCP SDK 1.32 speaks (the default).
    #[value(name = "2025-11-25")]
    V2025_11_25,
    /// Revision 2026-07-28 (`ttlMs`, `cacheScope`, `resultType` in the result).
    #[value(name = "2026-07-28")]
    V2026_07_28,
}

/// What one run was asked for, beyond the catalog.
#[derive(Debug, Clone)]
pub struct Options {
    pub filter: Filter,
    pub context: Context,
    /// Overrides the toolset of the OpenCode target.
    pub toolset: Option<String>,
    pub profiles: Vec<McpProfile>,
}

/// Plans the files of `targets`.
pub fn plan<'m>(model: &'m Model, targets: &[Target], opts: &Options) -> Result<Plan<'m>, Error> {
    let mut plan = Plan::default();
    for &t in targets {
        if !t.enabled(model) {
            return Err(Error::usage(
                format!("the catalog does not enable the `{}` target", t.group()),
                format!("add `targets.{}` to the catalog", t.group()),
            ));
        }
        // Each MCP revision is its own group, so writing one never prunes the other's file.
        if t == Target::Mcp {
            plan.groups.extend(opts.profiles.iter().map(|p| mcp::group(*p)));
        } else {
            plan.groups.insert(t.group());
        }
        match t {
            Target::Opencode => opencode::plan(model, opts, &mut plan.files)?,
            Target::Session => opencode::plan_session(model, opts, &mut plan.files)?,
            Target::Mcp => mcp::plan(model, opts, &mut plan.files)?,
            Target::Claude => hosts::plan_claude(model, opts, &mut plan.files)?,
            Target::Cursor | Target::Vscode | Target::Gemini | Target::Codex => {
                hosts::plan_config(model, t, opts, &mut plan.files)?
            }
        }
    }
    plan.files.sort_by(|a, b| a.path.cmp(&b.path));
    if let Some(w) = plan.files.windows(2).find(|w| w[0].path == w[1].path) {
        return Err(Error::usage(
            format!("two targets write `{}`", w[0].path),
            "give one of them another path in the catalog's `targets`",
        ));
    }
    Ok(plan)
}

/// The first comment line of generated code files.
pub fn header_text(model: &Model) -> Ts {
    comment(&format!(
        "{} from catalog {} ({} {}).",
        crate::output::MARKER,
        model.source_name,
        model.catalog.product.name,
        model.catalog.product.version
    ))
}

/// The server's arguments, with the active filters passed on as the server's own flags, so a
/// host launches the server already filtered. A filter the server has no flag for (a tier, or
/// read-only without `read_only`) is passed as the exact allowlist of the tools it keeps.
pub fn server_args(model: &Model, filter: &Filter) -> Vec<String> {
    let Some(server) = &model.catalog.server else {
        return Vec::new();
    };
    let mut args = server.args.clone();
    let Some(flags) = &server.filter_flags else {
        return args;
    };
    let expressible = filter.tier.is_none()
        && (!filter.read_only || flags.read_only.is_some())
        && (filter.enable.is_empty() || flags.enable_tools.is_some())
        && (filter.disable.is_empty() || flags.disable_tools.is_some());
    if !expressible {
        if let Some(f) = &flags.enable_tools {
            let kept: Vec<String> = model
                .toolset(&server.toolset, filter)
                .iter()
                .map(|t| t.name.clone())
                .collect();
            args.push(f.clone());
            args.push(kept.join(","));
        }
        return args;
    }
    if filter.read_only
        && let Some(f) = &flags.read_only
    {
        args.push(f.clone());
    }
    if !filter.enable.is_empty() {
        if let Some(f) = &flags.enable_tools {
            args.push(f.clone());
            args.push(filter.enable.join(","));
        }
    } else if !filter.disable.is_empty()
        && let Some(f) = &flags.disable_tools
    {
        args.push(f.clone());
        args.push(filter.disable.join(","));
    }
    args
}

/// The error for a toolset name the catalog does not have.
pub fn unknown_toolset(model: &Model, name: &str) -> Error {
    let known: Vec<&String> = model.catalog.toolsets.keys().collect();
    Error::usage(
        format!("no toolset `{name}` in the catalog"),
        match crate::catalog::load::did_you_mean(name, &known) {
            Some(m) => format!("did you mean `{m}`?"),
            None => format!(
                "the toolsets are: {}",
                known.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ),
        },
    )
}
