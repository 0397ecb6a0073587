//! One catalog of a comparison, built and indexed: its model, where each catalog path is, and
//! what every host surface gets.

use super::{Loc, Surface};
use crate::catalog::yaml::Located;
use crate::diagnostic::SourceFile;
use crate::error::Error;
use crate::model::{Filter, Model};
use indexmap::IndexSet;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One catalog, built and indexed for comparison.
pub struct Side {
    pub model: Model,
    /// The file, named as reports name it.
    pub file: SourceFile,
    index: Located,
    /// Surface → the tools it gets, in order.
    pub surfaces: BTreeMap<Surface, SurfaceTools>,
    /// The server's arguments as the MCP hosts launch it, with the catalog's own filters.
    pub server_args: Vec<String>,
}

/// What one surface gets.
pub struct SurfaceTools {
    pub toolset: String,
    /// The catalog path that enables the surface.
    pub path: String,
    /// Tool → the id the host gives it.
    pub ids: HashMap<String, String>,
    /// In order; a set, since every tool of a catalog asks which surfaces get it.
    pub tools: IndexSet<String>,
}

impl Side {
    pub fn new(model: Model, file: SourceFile) -> Result<Side, Error> {
        // The catalog's own filters are what every generated host gets by default.
        let (filter, _) = Filter::resolve(&model, false, &[], &[], None)?;
        // A surface's order is its host's place in the registry, then its own in the host: the
        // same on both sides, whichever other hosts either enables (a count of the enabled ones
        // would shift every later surface when one is dropped, and report each as removed and
        // added).
        let hosts = (crate::hosts::REGISTRY.iter().enumerate()).filter(|(_, h)| crate::hosts::enabled(&model, **h));
        let all = hosts.flat_map(|(i, h)| {
            let surfaces = h.surfaces(&model).into_iter().enumerate();
            surfaces.map(move |(j, hs)| ((i, j), h.name(), hs))
        });
        let surfaces = all
            .map(|(order, host, hs)| {
                let tools = SurfaceTools {
                    path: format!("targets.{host}"),
                    tools: model.tool_names(&hs.toolset, &filter).into_iter().collect(),
                    ids: hs.ids.iter().cloned().collect(),
                    toolset: hs.toolset.clone(),
                };
                let surface = Surface {
                    order,
                    key: hs.key,
                    label: hs.label,
                    session: hs.session,
                    kind: hs.kind,
                };
                (surface, tools)
            })
            .collect();
        let index = Located::new(&file.text);
        Ok(Side {
            server_args: crate::hosts::server_args(&model, &filter),
            model,
            file,
            index,
            surfaces,
        })
    }

    /// The position of a catalog path, or of its nearest ancestor that exists.
    pub fn loc(&self, path: &str) -> Loc {
        let p = self.index.find(path).map(|l| l.key.unwrap_or(l.value));
        let (line, column) = p.map_or((1, 1), |p| (p.line as usize, p.col as usize));
        Loc {
            file: self.file.name.clone(),
            line,
            column,
        }
    }

    /// The surfaces that get a tool.
    pub fn on(&self, tool: &str) -> BTreeSet<Surface> {
        let on = self.surfaces.iter().filter(|(_, st)| st.tools.contains(tool));
        on.map(|(s, _)| *s).collect()
    }

    /// The id a surface of both sides gives a tool, as its host computes it.
    pub fn id(&self, s: Surface, tool: &str) -> String {
        let id = self.surfaces.get(&s).and_then(|st| st.ids.get(tool));
        id.map_or_else(|| tool.to_string(), String::clone)
    }

    /// The context cost of a surface, in estimated tokens.
    pub fn tokens(&self, s: Surface) -> usize {
        let chars = self.surfaces.get(&s).map_or(0, |st| {
            st.tools
                .iter()
                .filter_map(|n| self.model.tool(n))
                .map(crate::report::definition_chars)
                .sum()
        });
        crate::report::tokens(chars)
    }
}
