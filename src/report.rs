//! Read-only reports on the model: `ixgen list` and `ixgen budget`. Prints; writes no file.

use crate::error::Error;
use crate::hosts::{self, Surface, mcp};
use crate::model::{Filter, Model, ToolModel};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

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
    /// Why no target gets the tool (the catalog's `unsupported`); absent for a tool that runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<&'a str>,
    /// The catalog's `filters` leave the tool out of every target (absent when they keep it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
}

/// The surfaces of every host the catalog enables, in registry order.
pub fn surfaces(model: &Model) -> Vec<Surface> {
    hosts::enabled_hosts(model).flat_map(|h| h.surfaces(model)).collect()
}

/// `ixgen list`.
pub fn list(model: &Model, toolset: Option<&str>, json: bool) -> Result<(), Error> {
    let tools: Vec<&ToolModel> = match toolset {
        Some(ts) if !model.toolsets.contains_key(ts) => return Err(hosts::unknown_toolset(model, ts)),
        // The toolset as declared: an unsupported tool is listed, with its reason.
        Some(ts) => model.toolset_declared(ts),
        None => model.tools.iter().collect(),
    };
    // Tool → the id each surface that shows it gives it, and the toolsets that name it: each
    // gathered once, not looked up in every surface and toolset for every tool.
    let mut ids: HashMap<&str, BTreeMap<&'static str, String>> = HashMap::new();
    let surfaces = surfaces(model);
    for s in &surfaces {
        // Backwards, so that a name a surface lists twice keeps its first id.
        for (name, id) in s.ids.iter().rev() {
            ids.entry(name).or_default().insert(s.key, id.clone());
        }
    }
    // What every target gets by default: the catalog's own filters.
    let (filter, _) = Filter::resolve(model, false, &[], &[], None)?;
    let mut toolsets: HashMap<&str, Vec<&str>> = HashMap::new();
    for (ts, set) in &model.toolsets {
        // Once each: the catalog refuses a toolset that lists a tool twice (`duplicate-tool`).
        for name in &set.tools {
            toolsets.entry(name).or_default().push(ts);
        }
    }
    let rows: Vec<ListRow> = tools
        .iter()
        .map(|t| ListRow {
            name: &t.name,
            // No host gets an unsupported or filtered tool, so it has no id anywhere.
            ids: (ids
                .get(t.name.as_str())
                .filter(|_| t.unsupported.is_none() && filter.keeps(t)))
            .cloned()
            .unwrap_or_default(),
            access: if t.is_write() { "write" } else { "read" },
            destructive: t.destructive,
            tier: &t.tier,
            toolsets: toolsets.get(t.name.as_str()).cloned().unwrap_or_default(),
            description_chars: t.description.chars().count(),
            unsupported: t.unsupported.as_deref(),
            filtered: !filter.keeps(t),
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
        let ids = match r.unsupported {
            // The reason is catalog text: escaped like every catalog string printed.
            Some(why) => format!("unsupported: {}", crate::escape::terminal(why)),
            None if r.filtered => "left out by the catalog's `filters`".to_string(),
            None => ids.join(" "),
        };
        // Tiers are free text in the catalog: escaped like every catalog string printed.
        let tier = crate::escape::terminal(r.tier);
        println!(
            "{:<width$}  {:<5}  {tier:<4}  {:>4}  {ids}",
            r.name, r.access, r.description_chars
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
    pub toolset: String,
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

/// Characters of a tool's definition as the model receives it (name, description, input
/// schema): what `ixgen budget` and `ixgen diff` measure.
pub fn definition_chars(t: &ToolModel) -> usize {
    serde_json::to_string(&mcp::tool(t)).map_or(0, |s| s.chars().count())
}

/// `ixgen budget`: the cost of every surface's toolset, what each host puts in the model's
/// context.
pub fn budget(model: &Model, json: bool) -> Result<(), Error> {
    // Each host's toolset as it is generated: with the catalog's own filters.
    let (filter, _) = Filter::resolve(model, false, &[], &[], None)?;
    let costs: Vec<HostCost> = surfaces(model)
        .into_iter()
        .map(|Surface { key: host, toolset, .. }| {
            let tools: Vec<ToolCost> = model
                .toolset(&toolset, &filter)
                .into_iter()
                .map(|t| {
                    let chars = definition_chars(t);
                    ToolCost {
                        name: &t.name,
                        description_chars: t.description.chars().count(),
                        definition_chars: chars,
                        tokens: tokens(chars),
                    }
                })
                .collect();
            let definition_chars = tools.iter().map(|t| t.definition_chars).sum();
            HostCost {
                host,
                toolset,
                description_chars: tools.iter().map(|t| t.description_chars).sum(),
                definition_chars,
                tokens: tokens(definition_chars),
                tools,
            }
        })
        .collect();
    if json {
        let out = serde_json::json!({
            "description_budget": model.lint.description_budget,
            "toolset_budget": model.lint.toolset_budget,
            "hosts": costs,
        });
        println!("{}", serde_json::to_string_pretty(&out).expect("serializes"));
        return Ok(());
    }
    for h in &costs {
        println!(
            "{} (toolset `{}`): {} tools, {} description chars (budget {}), {} definition chars, ≈{} tokens",
            h.host,
            crate::escape::terminal(&h.toolset),
            h.tools.len(),
            h.description_chars,
            model.lint.toolset_budget,
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
    Ok(())
}
