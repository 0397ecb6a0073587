//! Read-only reports on the model: `ixgen list` and `ixgen budget`. Prints; writes no file.

use crate::error::Error;
use crate::model::{self, Filter, Model, ToolModel};
use crate::targets::mcp;
use serde::Serialize;
use std::collections::BTreeMap;

/// One row of `ixgen list`.
#[derive(Debug, Serialize)]
pub struct ListRow<'a> {
    pub name: &'a str,
    /// Host → the id that host gives the tool.
    pub ids: BTreeMap<&'static str, String>,
    pub access: &'static str,
    pub destructive: bool,
    pub tier: &'a str,
    pub toolsets: Vec<&'a str>,
    pub description_chars: usize,
}

fn toolsets_of<'a>(model: &'a Model, t: &ToolModel) -> Vec<&'a str> {
    model
        .catalog
        .toolsets
        .iter()
        .filter(|(_, ts)| ts.tools.contains(&t.name))
        .map(|(n, _)| n.as_str())
        .collect()
}

/// The id each host gives a tool, for the hosts whose toolset holds it.
pub fn host_ids(model: &Model, t: &ToolModel) -> BTreeMap<&'static str, String> {
    let cat = &model.catalog;
    let sets = toolsets_of(model, t);
    let mut ids = BTreeMap::new();
    if let Some(oc) = &cat.targets.opencode
        && sets.contains(&oc.toolset.as_str())
    {
        ids.insert("opencode", model::opencode_id(&t.name));
    }
    if let Some(s) = &cat.targets.session
        && sets.contains(&s.toolset.as_str())
    {
        ids.insert("opencode", model::session_id(&s.file, &t.name));
    }
    if let Some(server) = &cat.server
        && sets.contains(&server.toolset.as_str())
    {
        ids.insert("mcp", t.name.clone());
        if cat.targets.claude.is_some() {
            ids.insert("claude", model::claude_id(&cat.product.name, &server.name, &t.name));
        }
        if cat.targets.opencode.as_ref().is_some_and(|o| o.config.is_some()) {
            ids.insert("opencode_mcp", format!("{}_{}", server.name, t.name));
        }
    }
    ids
}

/// `ixgen list`.
pub fn list(model: &Model, toolset: Option<&str>, json: bool) -> Result<(), Error> {
    let tools: Vec<&ToolModel> = match toolset {
        Some(ts) => {
            if !model.catalog.toolsets.contains_key(ts) {
                return Err(crate::targets::unknown_toolset(model, ts));
            }
            model.toolset(ts, &Filter::default())
        }
        None => model.tools.iter().collect(),
    };
    let rows: Vec<ListRow> = tools
        .iter()
        .map(|t| ListRow {
            name: &t.name,
            ids: host_ids(model, t),
            access: if t.is_write() { "write" } else { "read" },
            destructive: t.destructive,
            tier: &t.tier,
            toolsets: toolsets_of(model, t),
            description_chars: t.description.chars().count(),
        })
        .collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&rows).expect("serializes"));
        return Ok(());
    }
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    println!("{:<width$}  {:<5}  {:<4}  {:>4}  IDS", "TOOL", "RW", "TIER", "DESC");
    for r in &rows {
        let ids: Vec<String> = r.ids.iter().map(|(h, id)| format!("{h}={id}")).collect();
        println!(
            "{:<width$}  {:<5}  {:<4}  {:>4}  {}",
            r.name,
            r.access,
            // Tiers are free text in the catalog: escaped like every catalog string printed.
            crate::escape::terminal(r.tier),
            r.description_chars,
            ids.join(" ")
        );
    }
    println!("{} tool(s)", rows.len());
    Ok(())
}

/// What one tool costs a host's context.
#[derive(Debug, Serialize)]
pub struct ToolCost<'a> {
    pub name: &'a str,
    pub description_chars: usize,
    /// The tool definition as the model receives it (name, description, input schema).
    pub definition_chars: usize,
    pub tokens: usize,
}

/// What a host's toolset costs.
#[derive(Debug, Serialize)]
pub struct HostCost<'a> {
    pub host: &'static str,
    pub toolset: &'a str,
    pub tools: Vec<ToolCost<'a>>,
    pub description_chars: usize,
    pub definition_chars: usize,
    pub tokens: usize,
}

/// Tokens of a definition, estimated at four characters a token (the usual rule for English
/// and JSON with these tokenizers; the figure is for watching growth, not billing).
pub fn tokens(chars: usize) -> usize {
    chars.div_ceil(4)
}

/// The cost of every host's toolset.
pub fn costs(model: &Model) -> Vec<HostCost<'_>> {
    let cat = &model.catalog;
    let mut hosts: Vec<(&'static str, &str)> = Vec::new();
    if let Some(t) = &cat.targets.opencode {
        hosts.push(("opencode", &t.toolset));
    }
    if let Some(t) = &cat.targets.session {
        hosts.push(("session", &t.toolset));
    }
    if let Some(s) = &cat.server {
        hosts.push(("mcp", &s.toolset));
    }
    hosts
        .into_iter()
        .map(|(host, toolset)| {
            let tools: Vec<ToolCost> = model
                .toolset(toolset, &Filter::default())
                .into_iter()
                .map(|t| {
                    let def = serde_json::to_string(&mcp::tool(t)).expect("serializes");
                    let chars = def.chars().count();
                    ToolCost {
                        name: &t.name,
                        description_chars: t.description.chars().count(),
                        definition_chars: chars,
                        tokens: tokens(chars),
                    }
                })
                .collect();
            let description_chars = tools.iter().map(|t| t.description_chars).sum();
            let definition_chars = tools.iter().map(|t| t.definition_chars).sum();
            HostCost {
                host,
                toolset,
                description_chars,
                definition_chars,
                tokens: tokens(definition_chars),
                tools,
            }
        })
        .collect()
}

/// `ixgen budget`.
pub fn budget(model: &Model, json: bool) {
    let costs = costs(model);
    if json {
        let out = serde_json::json!({
            "description_budget": model.catalog.lint.description_budget,
            "toolset_budget": model.catalog.lint.toolset_budget,
            "hosts": costs,
        });
        println!("{}", serde_json::to_string_pretty(&out).expect("serializes"));
        return;
    }
    for h in &costs {
        println!(
            "{} (toolset `{}`): {} tools, {} description chars (budget {}), {} definition chars, ≈{} tokens",
            h.host,
            crate::escape::terminal(h.toolset),
            h.tools.len(),
            h.description_chars,
            model.catalog.lint.toolset_budget,
            h.definition_chars,
            h.tokens
        );
        for t in &h.tools {
            println!(
                "  {:<24} {:>4} desc  {:>5} def  ≈{:>4} tok",
                crate::escape::terminal(t.name),
                t.description_chars,
                t.definition_chars,
                t.tokens
            );
        }
    }
}
