//! Comparing two built models, tool by tool and surface by surface.
//!
//! The comparison stays at a level that survives refactors of the model: tools and parameters
//! by their resolved fields, steps and routes by the serde_json form of their execution spec
//! (the documented contract of `docs/exec-spec.md`), never by matching on internal enums.

use super::rules::Rule;
use super::{Finding, Loc, Msg, Surface};
use crate::catalog::Tool;
use crate::catalog::yaml::Located;
use crate::diagnostic::{Diagnostic, SourceFile};
use crate::error::Error;
use crate::model::{Access, Filter, Model, ParamModel, ParamModel as Param, SpecType as ParamType, ToolModel};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One catalog, built and indexed for comparison.
pub struct Side {
    pub model: Model,
    /// The catalog's tools as written (`renamed_from`, which parameters are the tool's own),
    /// which the model no longer holds: lowering consumes them.
    pub tools: Vec<Tool>,
    pub file: SourceFile,
    /// The name reports give the file.
    pub name: String,
    index: Located,
    /// Tool name → position in the catalog's `tools`.
    positions: HashMap<String, usize>,
    /// Surface → the tools it gets, in order.
    pub surfaces: BTreeMap<Surface, SurfaceTools>,
}

/// What one surface gets.
pub struct SurfaceTools {
    pub toolset: String,
    /// The catalog path that enables the surface.
    pub path: String,
    /// Tool → the id the host gives it.
    pub ids: HashMap<String, String>,
    pub tools: Vec<String>,
}

impl Side {
    pub fn new(model: Model, tools: Vec<Tool>, file: SourceFile, name: String) -> Result<Side, Error> {
        let cat = &model;
        // The catalog's own filters are what every generated host gets by default.
        let (filter, _) = Filter::resolve(&model, false, &[], &[], None)?;
        let mut surfaces = BTreeMap::new();
        let mut order = 0;
        for host in crate::hosts::REGISTRY {
            if !crate::hosts::enabled(cat, *host) {
                continue;
            }
            for hs in host.surfaces(cat) {
                let tools = model
                    .toolset(&hs.toolset, &filter)
                    .into_iter()
                    .map(|t| t.name.clone())
                    .collect();
                surfaces.insert(
                    Surface::of(&hs, order),
                    SurfaceTools {
                        toolset: hs.toolset.clone(),
                        path: format!("targets.{}", host.name()),
                        ids: hs.ids.iter().cloned().collect(),
                        tools,
                    },
                );
                order += 1;
            }
        }
        let positions = tools.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
        let index = Located::new(&file.text);
        Ok(Side {
            model,
            tools,
            file,
            name,
            index,
            positions,
            surfaces,
        })
    }

    /// The position of a catalog path, or of its nearest ancestor that exists.
    pub fn loc(&self, path: &str) -> Loc {
        let (line, column) = self
            .index
            .find(path)
            .map(|l| {
                let p = l.key.unwrap_or(l.value);
                (p.line as usize, p.col as usize)
            })
            .unwrap_or((1, 1));
        Loc {
            file: self.name.clone(),
            line,
            column,
        }
    }

    pub fn tool_path(&self, tool: &str) -> String {
        match self.positions.get(tool) {
            Some(i) => format!("tools[{i}]"),
            None => "tools".to_string(),
        }
    }

    /// A parameter's path: the tool's own, or the shared one it uses.
    pub fn param_path(&self, tool: &str, param: &str) -> String {
        let Some(&i) = self.positions.get(tool) else {
            return "tools".to_string();
        };
        let t = &self.tools[i];
        if t.params.contains_key(param) || !t.use_params.iter().any(|p| p == param) {
            format!("tools[{i}].params.{param}")
        } else {
            format!("params.{param}")
        }
    }

    /// The surfaces that get a tool.
    pub fn on(&self, tool: &str) -> BTreeSet<Surface> {
        self.surfaces
            .iter()
            .filter(|(_, st)| st.tools.iter().any(|t| t == tool))
            .map(|(s, _)| *s)
            .collect()
    }

    /// The id a surface gives a tool, as its host computes it.
    pub fn id(&self, s: Surface, tool: &str) -> String {
        self.surfaces
            .iter()
            .find(|(k, _)| k.key() == s.key())
            .and_then(|(_, st)| st.ids.get(tool).cloned())
            .unwrap_or_else(|| tool.to_string())
    }

    /// Characters of a tool's definition as the model receives it: the measure of `ixgen budget`.
    pub fn definition_chars(t: &ToolModel) -> usize {
        serde_json::to_string(&crate::hosts::mcp::tool(t))
            .map(|s| s.chars().count())
            .unwrap_or(0)
    }

    /// The context cost of a surface, in estimated tokens.
    pub fn tokens(&self, s: Surface) -> usize {
        let chars = self.surfaces.get(&s).map_or(0, |st| {
            st.tools
                .iter()
                .filter_map(|n| self.model.tool(n))
                .map(Side::definition_chars)
                .sum()
        });
        crate::report::tokens(chars)
    }
}

/// The comparison in progress.
pub struct Compare<'a> {
    pub old: &'a Side,
    pub new: &'a Side,
    pub findings: Vec<Finding>,
    /// Problems in the new catalog found while matching (a `renamed_from` that cannot hold).
    pub errors: Vec<Diagnostic>,
}

/// One place on both sides: catalog paths, and where to annotate when the new side has none.
struct At {
    before: Option<String>,
    after: Option<String>,
    anchor: String,
}

impl At {
    fn both(before: String, after: String) -> At {
        At {
            anchor: after.clone(),
            before: Some(before),
            after: Some(after),
        }
    }
}

fn set(s: &BTreeSet<Surface>) -> Vec<Surface> {
    s.iter().copied().collect()
}

impl<'a> Compare<'a> {
    pub fn new(old: &'a Side, new: &'a Side) -> Self {
        Compare {
            old,
            new,
            findings: Vec::new(),
            errors: Vec::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        rule: Rule,
        tool: Option<&str>,
        previous: Option<&str>,
        param: Option<&str>,
        surfaces: Vec<Surface>,
        msg: Msg,
        at: At,
    ) {
        self.findings.push(Finding {
            rule,
            class: rule.class(),
            tool: tool.map(str::to_string),
            previous_name: previous.map(str::to_string),
            param: param.map(str::to_string),
            surfaces,
            message: msg.plain(),
            msg,
            before: at.before.map(|p| self.old.loc(&p)),
            after: at.after.as_deref().map(|p| self.new.loc(p)),
            anchor: self.new.loc(&at.anchor),
            tokens: None,
            ignored: false,
        });
    }

    /// Runs every comparison.
    pub fn run(&mut self) {
        self.surfaces();
        self.server();
        let pairs = self.match_tools();
        let matched_old: BTreeSet<&str> = pairs.iter().map(|(o, _)| o.as_str()).collect();
        let matched_new: BTreeSet<&str> = pairs.iter().map(|(_, n)| n.as_str()).collect();
        for t in &self.old.model.tools {
            if !matched_old.contains(t.name.as_str()) {
                let on = self.old.on(&t.name);
                let mut msg = Msg::new().t("tool ").c(&t.name).t(" was removed");
                // A new tool that does the same under another name is most likely a rename the
                // catalog did not declare: say how to declare it.
                let twin = self
                    .new
                    .model
                    .tools
                    .iter()
                    .filter(|n| !matched_new.contains(n.name.as_str()))
                    .find(|n| {
                        n.description == t.description
                            || spec_without(&n.spec, &["name", "heading"])
                                == spec_without(&t.spec, &["name", "heading"])
                    });
                if let Some(n) = twin {
                    msg = msg
                        .t(" (if ")
                        .c(&n.name)
                        .t(" is its new name, declare ")
                        .c(format!("renamed_from: {}", t.name))
                        .t(" on it)");
                }
                self.push(
                    Rule::ToolRemoved,
                    Some(&t.name),
                    None,
                    None,
                    set(&on),
                    msg,
                    At {
                        before: Some(self.old.tool_path(&t.name)),
                        after: None,
                        anchor: "tools".into(),
                    },
                );
            }
        }
        for (o, n) in &pairs {
            self.tool_pair(o, n);
        }
        for t in &self.new.model.tools {
            if !matched_new.contains(t.name.as_str()) {
                let on = self.new.on(&t.name);
                self.push(
                    Rule::ToolAdded,
                    Some(&t.name),
                    None,
                    None,
                    set(&on),
                    Msg::new().t("new tool ").c(&t.name),
                    At {
                        before: None,
                        after: Some(self.new.tool_path(&t.name)),
                        anchor: self.new.tool_path(&t.name),
                    },
                );
            }
        }
        self.toolsets();
    }

    /// How the MCP hosts launch the server: a new command line is an argv change that an
    /// installed server may not accept; a new environment is a behaviour change.
    fn server(&mut self) {
        let (old, new) = (self.old, self.new);
        let (Some(a), Some(b)) = (&old.model.server, &new.model.server) else {
            return;
        };
        let launched: Vec<Surface> = new
            .surfaces
            .keys()
            .copied()
            .filter(|s| s.launches_server() && old.surfaces.keys().any(|o| o.key() == s.key()))
            .collect();
        if launched.is_empty() {
            return;
        }
        let flags = |s: &crate::model::Server| {
            s.filter_flags
                .as_ref()
                .map(|f| [f.read_only.clone(), f.enable_tools.clone(), f.disable_tools.clone()])
        };
        let line = |s: &crate::model::Server| {
            std::iter::once(s.command.as_str())
                .chain(s.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if a.command != b.command || a.args != b.args || flags(a) != flags(b) {
            let key = if a.command != b.command {
                "command"
            } else if a.args != b.args {
                "args"
            } else {
                "filter_flags"
            };
            let mut msg = Msg::new().t("the MCP hosts launch the server as ").c(line(b));
            msg = if line(a) == line(b) {
                msg.t(" with other filter flags")
            } else {
                msg.t(" instead of ").c(line(a))
            };
            self.push(
                Rule::ServerCommandChanged,
                None,
                None,
                None,
                launched.clone(),
                msg,
                At::both(format!("server.{key}"), format!("server.{key}")),
            );
        }
        if a.env != b.env {
            let keys: Vec<&str> = a
                .env
                .keys()
                .chain(b.env.keys().filter(|k| !a.env.contains_key(*k)))
                .filter(|k| a.env.get(*k) != b.env.get(*k))
                .map(String::as_str)
                .collect();
            self.push(
                Rule::ServerEnvChanged,
                None,
                None,
                None,
                launched,
                Msg::new().t("the server's environment changed: ").codes(keys),
                At::both("server.env".into(), "server.env".into()),
            );
        }
    }

    fn surfaces(&mut self) {
        let (old, new) = (self.old, self.new);
        for (s, st) in &old.surfaces {
            if !new.surfaces.contains_key(s) {
                self.push(
                    Rule::SurfaceRemoved,
                    None,
                    None,
                    None,
                    vec![*s],
                    Msg::new()
                        .t(format!("{} is no longer generated (", s.label()))
                        .c(&st.path)
                        .t(format!(", {} tool(s))", st.tools.len())),
                    At {
                        before: Some(st.path.to_string()),
                        after: None,
                        anchor: "targets".into(),
                    },
                );
            }
        }
        for (s, st) in &new.surfaces {
            if !old.surfaces.contains_key(s) {
                self.push(
                    Rule::SurfaceAdded,
                    None,
                    None,
                    None,
                    vec![*s],
                    Msg::new()
                        .t(format!("{} is now generated (", s.label()))
                        .c(&st.path)
                        .t(format!(", {} tool(s))", st.tools.len())),
                    At {
                        before: None,
                        after: Some(st.path.to_string()),
                        anchor: st.path.to_string(),
                    },
                );
            }
        }
    }

    /// Old name → new name of every tool present on both sides: by name, or by `renamed_from`.
    fn match_tools(&mut self) -> Vec<(String, String)> {
        let (old, new) = (self.old, self.new);
        let mut pairs = Vec::new();
        for (i, t) in new.tools.iter().enumerate() {
            // A rename from a tool that is still there contradicts itself, whatever it matches.
            if let Some(from) = t.renamed_from.as_ref().filter(|f| new.model.tool(f).is_some()) {
                self.errors.push(
                    Diagnostic::error(
                        "renamed-from-exists",
                        format!("tools[{i}].renamed_from"),
                        format!(
                            "tool `{}` says it was renamed from `{from}`, but `{from}` is still in the catalog",
                            t.name
                        ),
                    )
                    .help("remove `renamed_from`, or remove or rename the other tool"),
                );
                continue;
            }
            if old.model.tool(&t.name).is_some() {
                pairs.push((t.name.clone(), t.name.clone()));
                continue;
            }
            let Some(from) = &t.renamed_from else { continue };
            if old.model.tool(from).is_some() && !pairs.iter().any(|(o, _)| o == from) {
                pairs.push((from.clone(), t.name.clone()));
            }
            // A `renamed_from` naming a tool the old catalog does not have is an older rename
            // that was already released: it matches nothing, and the tool is new.
        }
        pairs
    }

    fn tool_pair(&mut self, old_name: &str, new_name: &str) {
        let (old, new) = (self.old, self.new);
        let (Some(o), Some(n)) = (old.model.tool(old_name), new.model.tool(new_name)) else {
            return;
        };
        let on_old = old.on(old_name);
        let on_new = new.on(new_name);
        let tp = At::both(old.tool_path(old_name), new.tool_path(new_name));
        let lost: BTreeSet<Surface> = on_old
            .difference(&on_new)
            .filter(|s| new.surfaces.contains_key(s))
            .copied()
            .collect();
        let gained: BTreeSet<Surface> = on_new
            .difference(&on_old)
            .filter(|s| old.surfaces.contains_key(s))
            .copied()
            .collect();
        let common: BTreeSet<Surface> = on_old.intersection(&on_new).copied().collect();
        if !lost.is_empty() {
            let toolsets: BTreeSet<&str> = lost.iter().map(|s| new.surfaces[s].toolset.as_str()).collect();
            let mut msg = Msg::new()
                .t("tool ")
                .c(new_name)
                .t(" is no longer given to ")
                .t(labels(&lost));
            msg = msg.t(" (toolset ").codes(toolsets.iter().copied()).t(")");
            // A tool that became `unsupported` leaves every surface it was on: a removal from
            // each, pointed at the reason.
            let mut after = new.tool_path(new_name);
            if let Some(why) = &n.unsupported {
                msg = msg.t(": it is now ").c("unsupported").t(format!(" ({why})"));
                after = format!("{after}.unsupported");
            }
            self.push(
                Rule::ToolsetMemberRemoved,
                Some(new_name),
                None,
                None,
                set(&lost),
                msg,
                At {
                    before: Some(old.tool_path(old_name)),
                    after: Some(after.clone()),
                    anchor: after,
                },
            );
        }
        if !gained.is_empty() {
            self.push(
                Rule::ToolsetMemberAdded,
                Some(new_name),
                None,
                None,
                set(&gained),
                {
                    let msg = Msg::new()
                        .t("tool ")
                        .c(new_name)
                        .t(" is now given to ")
                        .t(labels(&gained));
                    match o.unsupported {
                        Some(_) => msg.t(": it is no longer ").c("unsupported"),
                        None => msg,
                    }
                },
                At::both(old.tool_path(old_name), new.tool_path(new_name)),
            );
        }
        if old_name != new_name {
            self.push(
                Rule::ToolRenamed,
                Some(new_name),
                Some(old_name),
                None,
                set(&common),
                Msg::new().t("tool ").c(old_name).t(" was renamed to ").c(new_name),
                At::both(
                    old.tool_path(old_name),
                    format!("{}.renamed_from", new.tool_path(new_name)),
                ),
            );
        } else {
            let changed: Vec<Surface> = common
                .iter()
                .copied()
                .filter(|s| old.id(*s, old_name) != new.id(*s, new_name))
                .collect();
            if !changed.is_empty() {
                let mut msg = Msg::new().t("tool ").c(new_name).t(" has a new id:");
                for (k, s) in changed.iter().enumerate() {
                    msg = msg
                        .t(if k == 0 { " " } else { "; " })
                        .t(format!("{} ", s.label()))
                        .c(old.id(*s, old_name))
                        .t(" → ")
                        .c(new.id(*s, new_name));
                }
                self.push(
                    Rule::ToolIdChanged,
                    Some(new_name),
                    None,
                    None,
                    changed,
                    msg,
                    At::both(old.tool_path(old_name), new.tool_path(new_name)),
                );
            }
        }
        if common.is_empty() {
            // No surface had the tool and still has it: nobody calls both versions.
            return;
        }
        let all = set(&common);
        let exec: Vec<Surface> = common.iter().copied().filter(|s| s.executes()).collect();
        let mcp: Vec<Surface> = common.iter().copied().filter(|s| !s.executes()).collect();
        self.hints(o, n, &all, &mcp, &tp);
        self.params(o, n, &all, &exec);
        if !exec.is_empty() {
            self.spec(o, n, &exec);
        }
        let tpath = new.tool_path(new_name);
        if o.title != n.title && !mcp.is_empty() {
            self.push(
                Rule::TitleChanged,
                Some(new_name),
                None,
                None,
                mcp.clone(),
                Msg::new().t("the title of ").c(new_name).t(" changed"),
                At::both(format!("{}.title", old.tool_path(old_name)), format!("{tpath}.title")),
            );
        }
        if o.description != n.description {
            self.push(
                Rule::DescriptionChanged,
                Some(new_name),
                None,
                None,
                all.clone(),
                Msg::new().t("the description of ").c(new_name).t(" changed"),
                At::both(
                    format!("{}.description", old.tool_path(old_name)),
                    format!("{tpath}.description"),
                ),
            );
        }
        // The output schema is part of the MCP definition only.
        if o.output_schema != n.output_schema && !mcp.is_empty() {
            self.push(
                Rule::OutputChanged,
                Some(new_name),
                None,
                None,
                mcp.clone(),
                Msg::new().t("the output schema of ").c(new_name).t(" changed"),
                At::both(
                    format!("{}.output_schema", old.tool_path(old_name)),
                    format!("{tpath}.output_schema"),
                ),
            );
        }
        // Every cosmetic finding of the tool carries its definition's token delta.
        let delta = crate::report::tokens(Side::definition_chars(n)) as i64
            - crate::report::tokens(Side::definition_chars(o)) as i64;
        for f in self.findings.iter_mut().rev() {
            if f.tool.as_deref() != Some(new_name) {
                break;
            }
            if f.class == super::Class::Cosmetic {
                f.tokens = Some(delta);
            }
        }
    }

    fn hints(&mut self, o: &ToolModel, n: &ToolModel, all: &[Surface], mcp: &[Surface], tp: &At) {
        let name = n.name.as_str();
        let at = |key: &str| At {
            before: tp.before.as_ref().map(|p| format!("{p}.{key}")),
            after: tp.after.as_ref().map(|p| format!("{p}.{key}")),
            anchor: format!("{}.{key}", tp.anchor),
        };
        let became_write = o.access == Access::Read && n.access == Access::Write;
        if became_write {
            let mut msg = Msg::new().t("tool ").c(name).t(" became a write tool");
            if n.destructive && !o.destructive {
                msg = msg.t(" and destructive");
            }
            self.push(
                Rule::ToolBecameWrite,
                Some(name),
                None,
                None,
                all.to_vec(),
                msg,
                at("access"),
            );
        } else if n.destructive && !o.destructive {
            self.push(
                Rule::ToolBecameDestructive,
                Some(name),
                None,
                None,
                all.to_vec(),
                Msg::new().t("tool ").c(name).t(" became destructive"),
                at("destructive"),
            );
        }
        let mut relaxed = Vec::new();
        if o.access == Access::Write && n.access == Access::Read {
            relaxed.push("became a read tool");
        }
        if o.destructive && !n.destructive && !(o.access == Access::Write && n.access == Access::Read) {
            relaxed.push("is no longer destructive");
        }
        if !relaxed.is_empty() {
            self.push(
                Rule::HintsChanged,
                Some(name),
                None,
                None,
                all.to_vec(),
                Msg::new().t("tool ").c(name).t(format!(" {}", relaxed.join(" and "))),
                at("access"),
            );
        }
        // Idempotent and open-world are MCP annotations: only the MCP hosts show them.
        let mut hints = Vec::new();
        // Idempotent defaults to the opposite of write: when access changed, the access finding
        // already tells it.
        if o.idempotent != n.idempotent && o.access == n.access {
            hints.push(if n.idempotent {
                "is now idempotent"
            } else {
                "is no longer idempotent"
            });
        }
        if o.open_world != n.open_world {
            hints.push(if n.open_world {
                "is now open-world"
            } else {
                "is no longer open-world"
            });
        }
        if !hints.is_empty() && !mcp.is_empty() {
            let key = if o.idempotent != n.idempotent && o.access == n.access {
                "idempotent"
            } else {
                "open_world"
            };
            self.push(
                Rule::HintsChanged,
                Some(name),
                None,
                None,
                mcp.to_vec(),
                Msg::new().t("tool ").c(name).t(format!(" {}", hints.join(" and "))),
                at(key),
            );
        }
        if o.tier != n.tier {
            self.push(
                Rule::TierChanged,
                Some(name),
                None,
                None,
                all.to_vec(),
                Msg::new()
                    .t("tool ")
                    .c(name)
                    .t(" moved from tier ")
                    .c(&o.tier)
                    .t(" to ")
                    .c(&n.tier),
                at("tier"),
            );
        }
    }

    fn params(&mut self, o: &ToolModel, n: &ToolModel, all: &[Surface], exec: &[Surface]) {
        let (old, new) = (self.old, self.new);
        let tool = n.name.as_str();
        let by_old: HashMap<&str, &ParamModel> = o.params.iter().map(|p| (p.name.as_str(), p)).collect();
        let new_names: BTreeSet<&str> = n.params.iter().map(|p| p.name.as_str()).collect();
        let mut matched_old = BTreeSet::new();
        for np in &n.params {
            let after = new.param_path(tool, &np.name);
            if let Some(from) = np.renamed_from.as_ref().filter(|f| new_names.contains(f.as_str())) {
                self.errors.push(
                    Diagnostic::error(
                        "renamed-from-exists",
                        format!("{after}.renamed_from"),
                        format!(
                            "parameter `{}` says it was renamed from `{from}`, but tool `{tool}` still has `{from}`",
                            np.name
                        ),
                    )
                    .help("remove `renamed_from`, or remove or rename the other parameter"),
                );
            }
            let found = match by_old.get(np.name.as_str()) {
                Some(op) => Some(*op),
                None => np
                    .renamed_from
                    .as_ref()
                    .filter(|f| !new_names.contains(f.as_str()))
                    .and_then(|f| by_old.get(f.as_str()).copied()),
            };
            match found {
                Some(op) if matched_old.insert(op.name.as_str()) => {
                    let before = old.param_path(&o.name, &op.name);
                    if op.name != np.name {
                        self.push(
                            Rule::ParamRenamed,
                            Some(tool),
                            None,
                            Some(&np.name),
                            all.to_vec(),
                            Msg::new()
                                .t("parameter ")
                                .c(&op.name)
                                .t(" of ")
                                .c(tool)
                                .t(" was renamed to ")
                                .c(&np.name),
                            At::both(before.clone(), format!("{after}.renamed_from")),
                        );
                    }
                    self.param_pair(tool, op, np, &before, &after, all, exec);
                }
                _ => {
                    let (rule, what) = if np.required {
                        (Rule::ParamRequiredAdded, "new required parameter ")
                    } else {
                        (Rule::ParamAddedOptional, "new optional parameter ")
                    };
                    self.push(
                        rule,
                        Some(tool),
                        None,
                        Some(&np.name),
                        all.to_vec(),
                        Msg::new().t(what).c(&np.name).t(" of ").c(tool),
                        At {
                            before: None,
                            after: Some(after.clone()),
                            anchor: after,
                        },
                    );
                }
            }
        }
        // A parameter's shape: its spec entry without its name, and its description.
        let shape = |t: &ToolModel, p: &ParamModel| {
            let spec = serde_json::to_value(&t.spec).unwrap_or_default();
            let entry = spec["params"]
                .as_array()
                .and_then(|ps| ps.iter().find(|e| e["name"] == p.name.as_str()).cloned())
                .map(|mut e| {
                    if let Some(o) = e.as_object_mut() {
                        o.remove("name");
                    }
                    e
                });
            (entry, p.description.clone())
        };
        for op in &o.params {
            if !matched_old.contains(op.name.as_str()) {
                let mut msg = Msg::new()
                    .t("parameter ")
                    .c(&op.name)
                    .t(" of ")
                    .c(tool)
                    .t(" was removed");
                let twin = n.params.iter().find(|np| {
                    !by_old.contains_key(np.name.as_str()) && np.renamed_from.is_none() && shape(n, np) == shape(o, op)
                });
                if let Some(np) = twin {
                    msg = msg
                        .t(" (if ")
                        .c(&np.name)
                        .t(" is its new name, declare ")
                        .c(format!("renamed_from: {}", op.name))
                        .t(" on it)");
                }
                self.push(
                    Rule::ParamRemoved,
                    Some(tool),
                    None,
                    Some(&op.name),
                    all.to_vec(),
                    msg,
                    At {
                        before: Some(old.param_path(&o.name, &op.name)),
                        after: None,
                        anchor: new.tool_path(tool),
                    },
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn param_pair(
        &mut self,
        tool: &str,
        op: &ParamModel,
        np: &ParamModel,
        before: &str,
        after: &str,
        all: &[Surface],
        exec: &[Surface],
    ) {
        let (a, b) = (op, np);
        let pname = np.name.as_str();
        let at = |key: &str| At {
            before: Some(format!("{before}.{key}")),
            after: Some(format!("{after}.{key}")),
            anchor: format!("{after}.{key}"),
        };
        let of = |m: Msg| m.t(" of ").c(tool);
        let items_ty = |p: &Param| p.items.as_ref().map(|i| i.ty);
        if a.ty != b.ty || items_ty(a) != items_ty(b) {
            self.push(
                Rule::ParamTypeChanged,
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                of(Msg::new().t("the type of parameter ").c(pname))
                    .t(": ")
                    .c(type_text(a))
                    .t(" → ")
                    .c(type_text(b)),
                at("type"),
            );
        } else {
            self.values(tool, pname, a, b, all, &at);
            self.bounds(tool, pname, a, b, all, exec, &at);
            match (&a.pattern, &b.pattern) {
                (None, Some(p)) => self.push(
                    Rule::PatternAdded,
                    Some(tool),
                    None,
                    Some(pname),
                    all.to_vec(),
                    of(Msg::new().t("parameter ").c(pname)).t(" must now match ").c(p),
                    at("pattern"),
                ),
                (Some(x), Some(y)) if x != y => self.push(
                    Rule::PatternChanged,
                    Some(tool),
                    None,
                    Some(pname),
                    all.to_vec(),
                    of(Msg::new().t("the pattern of parameter ").c(pname))
                        .t(": ")
                        .c(x)
                        .t(" → ")
                        .c(y),
                    at("pattern"),
                ),
                (Some(x), None) => self.push(
                    Rule::PatternRemoved,
                    Some(tool),
                    None,
                    Some(pname),
                    all.to_vec(),
                    of(Msg::new().t("parameter ").c(pname))
                        .t(" no longer has to match ")
                        .c(x),
                    at("pattern"),
                ),
                _ => {}
            }
            if a.default != b.default {
                let show = |v: &Option<Value>| v.as_ref().map_or("none".to_string(), |v| v.to_string());
                self.push(
                    Rule::DefaultChanged,
                    Some(tool),
                    None,
                    Some(pname),
                    all.to_vec(),
                    of(Msg::new().t("the default of parameter ").c(pname))
                        .t(": ")
                        .c(show(&a.default))
                        .t(" → ")
                        .c(show(&b.default)),
                    at("default"),
                );
            }
        }
        if a.required != b.required {
            let (rule, what) = if b.required {
                (Rule::ParamBecameRequired, " became required")
            } else {
                (Rule::ParamBecameOptional, " became optional")
            };
            self.push(
                rule,
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                of(Msg::new().t("parameter ").c(pname)).t(what),
                at("required"),
            );
        }
        // `null` is part of the parameter's type in every host's schema.
        if a.nullable != b.nullable {
            let (rule, what) = if b.nullable {
                (Rule::NullableAdded, " now accepts `null`")
            } else {
                (Rule::NullableRemoved, " no longer accepts `null`")
            };
            self.push(
                rule,
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                of(Msg::new().t("parameter ").c(pname)).t(what),
                at("nullable"),
            );
        }
        // What the generated tools check and how they read a value: only tools that run.
        if a.equals_context != b.equals_context && !exec.is_empty() {
            let msg = Msg::new().t("parameter ").c(pname);
            let (rule, msg) = match &b.equals_context {
                Some(var) => (
                    Rule::EqualsContextAdded,
                    of(msg).t(" must now equal the context value ").c(var),
                ),
                None => (
                    Rule::EqualsContextRemoved,
                    of(msg).t(" no longer has to equal a context value"),
                ),
            };
            self.push(
                rule,
                Some(tool),
                None,
                Some(pname),
                exec.to_vec(),
                msg,
                at("equals_context"),
            );
        }
        if a.keep_empty != b.keep_empty && !exec.is_empty() {
            let what = if b.keep_empty {
                " now keeps an empty string as a value"
            } else {
                " now takes an empty string as not given"
            };
            self.push(
                Rule::KeepEmptyChanged,
                Some(tool),
                None,
                Some(pname),
                exec.to_vec(),
                of(Msg::new().t("parameter ").c(pname)).t(what),
                at("keep_empty"),
            );
        }
        let item_desc = |p: &Param| p.items.as_ref().and_then(|i| i.description.clone());
        if a.description != b.description || item_desc(a) != item_desc(b) {
            self.push(
                Rule::DescriptionChanged,
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                of(Msg::new().t("the description of parameter ").c(pname)).t(" changed"),
                at("description"),
            );
        }
    }

    fn values(&mut self, tool: &str, pname: &str, a: &Param, b: &Param, all: &[Surface], at: &dyn Fn(&str) -> At) {
        // An enum's values, or the values of an array's enum items.
        let vals = |p: &Param| -> Option<(Vec<String>, &'static str)> {
            match p.ty {
                ParamType::Enum => p.values.clone().map(|v| (v, "values")),
                ParamType::Array => p
                    .items
                    .as_ref()
                    .filter(|i| i.ty == ParamType::Enum)
                    .and_then(|i| i.values.clone())
                    .map(|v| (v, "items.values")),
                _ => None,
            }
        };
        let (Some((va, key)), Some((vb, _))) = (vals(a), vals(b)) else {
            return;
        };
        let removed: Vec<&String> = va.iter().filter(|v| !vb.contains(v)).collect();
        let added: Vec<&String> = vb.iter().filter(|v| !va.contains(v)).collect();
        if !removed.is_empty() {
            self.push(
                Rule::EnumValueRemoved,
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                Msg::new()
                    .t("parameter ")
                    .c(pname)
                    .t(" of ")
                    .c(tool)
                    .t(" no longer accepts ")
                    .codes(removed.iter().map(|s| s.as_str())),
                at(key),
            );
        }
        if !added.is_empty() {
            self.push(
                Rule::EnumValueAdded,
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                Msg::new()
                    .t("parameter ")
                    .c(pname)
                    .t(" of ")
                    .c(tool)
                    .t(" now also accepts ")
                    .codes(added.iter().map(|s| s.as_str())),
                at(key),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn bounds(
        &mut self,
        tool: &str,
        pname: &str,
        a: &Param,
        b: &Param,
        all: &[Surface],
        exec: &[Surface],
        at: &dyn Fn(&str) -> At,
    ) {
        let number = matches!(a.ty, ParamType::Integer | ParamType::Number);
        let what = if number { "" } else { " length" };
        if matches!(a.ty, ParamType::Boolean | ParamType::Enum) {
            return;
        }
        let num = |x: f64| crate::model::json_number(x).to_string();
        // (key, old, new, whether a larger value is tighter)
        for (key, x, y, larger_is_tighter) in [("min", a.min, b.min, true), ("max", a.max, b.max, false)] {
            let word = if key == "min" { "minimum" } else { "maximum" };
            let tighter = match (x, y) {
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (Some(p), Some(q)) if p != q => (q > p) == larger_is_tighter,
                _ => continue,
            };
            let show = |v: Option<f64>| v.map_or("none".to_string(), num);
            self.push(
                if tighter {
                    Rule::BoundTightened
                } else {
                    Rule::BoundRelaxed
                },
                Some(tool),
                None,
                Some(pname),
                all.to_vec(),
                Msg::new()
                    .t(format!("the {word}{what} of parameter "))
                    .c(pname)
                    .t(" of ")
                    .c(tool)
                    .t(": ")
                    .c(show(x))
                    .t(" → ")
                    .c(show(y)),
                at(key),
            );
        }
        // Clamping is done by the generated tools' interpreter: only the surfaces that run it.
        let bounded = b.min.is_some() || b.max.is_some();
        let (ca, cb) = (a.clamp, b.clamp);
        if number && bounded && ca != cb && !exec.is_empty() {
            let (rule, text) = if ca {
                (
                    Rule::BoundTightened,
                    " now refuses out-of-range numbers instead of clamping them",
                )
            } else {
                (
                    Rule::BoundRelaxed,
                    " now clamps out-of-range numbers instead of refusing them",
                )
            };
            self.push(
                rule,
                Some(tool),
                None,
                Some(pname),
                exec.to_vec(),
                Msg::new().t("parameter ").c(pname).t(" of ").c(tool).t(text),
                at("clamp"),
            );
        }
    }

    /// Steps, route and output, from the serialized execution spec.
    fn spec(&mut self, o: &ToolModel, n: &ToolModel, exec: &[Surface]) {
        let (old, new) = (self.old, self.new);
        let tool = n.name.as_str();
        let (Ok(a), Ok(b)) = (serde_json::to_value(&o.spec), serde_json::to_value(&n.spec)) else {
            return;
        };
        let (otp, ntp) = (old.tool_path(&o.name), new.tool_path(tool));
        let steps = |v: &Value| v.get("steps").and_then(Value::as_array).cloned().unwrap_or_default();
        let (sa, sb) = (steps(&a), steps(&b));
        // A step's `exec` is what it runs; anything else (condition, title) is how it is used.
        let exec_of = |s: &Value| s.get("exec").cloned().unwrap_or_else(|| s.clone());
        let ea: Vec<Value> = sa.iter().map(exec_of).collect();
        let eb: Vec<Value> = sb.iter().map(exec_of).collect();
        let mut left: Vec<Option<&Value>> = eb.iter().map(Some).collect();
        let mut removed = Vec::new();
        for (i, e) in ea.iter().enumerate() {
            match left.iter_mut().find(|x| x.is_some_and(|x| x == e)) {
                Some(slot) => *slot = None,
                None => removed.push(i),
            }
        }
        let mut added: Vec<usize> = left.iter().enumerate().filter_map(|(i, x)| x.map(|_| i)).collect();
        let is_cli = |e: &Value| e.get("kind").and_then(Value::as_str) == Some("cli");
        // Commands that differ only in values (what fills a placeholder, an option's value,
        // stdin) keep their interface: a CLI that accepted one accepts the other.
        let mut same_interface: Vec<(usize, usize)> = Vec::new();
        removed.retain(|&i| {
            let Some(sig) = cli_signature(&ea[i]) else { return true };
            match added.iter().position(|&j| cli_signature(&eb[j]).as_ref() == Some(&sig)) {
                Some(pos) => {
                    same_interface.push((i, added.remove(pos)));
                    false
                }
                None => true,
            }
        });
        // A compute step runs no program and touches no store: a changed expression changes
        // what the tool answers, which the steps' comparison below reports (step-changed).
        let is_compute = |e: &Value| e.get("kind").and_then(Value::as_str) == Some("compute");
        removed.retain(|&i| !is_compute(&ea[i]));
        added.retain(|&j| !is_compute(&eb[j]));
        let mut exec_changed = !same_interface.is_empty();
        if let Some(&(i, j)) = same_interface.first() {
            let mut msg = Msg::new()
                .c(tool)
                .t(" runs ")
                .c(exec_text(&eb[j]))
                .t(" instead of ")
                .c(exec_text(&ea[i]));
            if same_interface.len() > 1 {
                msg = msg.t(format!(" (and {} more such change(s))", same_interface.len() - 1));
            }
            msg = msg.t(": the same command and options, with other values");
            self.push(
                Rule::StepChanged,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                msg,
                At::both(format!("{otp}.steps[{i}]"), format!("{ntp}.steps[{j}]")),
            );
        }
        for (rule, cli) in [(Rule::CliArgvChanged, true), (Rule::StoreStepChanged, false)] {
            let r: Vec<usize> = removed.iter().copied().filter(|&i| is_cli(&ea[i]) == cli).collect();
            let d: Vec<usize> = added.iter().copied().filter(|&i| is_cli(&eb[i]) == cli).collect();
            if r.is_empty() && d.is_empty() {
                continue;
            }
            exec_changed = true;
            let mut msg = Msg::new().c(tool);
            if r.len() == 1 && d.len() == 1 {
                msg = msg
                    .t(" runs ")
                    .c(exec_text(&eb[d[0]]))
                    .t(" instead of ")
                    .c(exec_text(&ea[r[0]]));
            } else {
                if !r.is_empty() {
                    msg = msg.t(" no longer runs ").codes(r.iter().map(|&i| exec_text(&ea[i])));
                }
                if !d.is_empty() {
                    msg = msg
                        .t(if r.is_empty() { " now also runs " } else { "; now runs " })
                        .codes(d.iter().map(|&i| exec_text(&eb[i])));
                }
            }
            let before = r.first().map(|i| format!("{otp}.steps[{i}]"));
            let after = d.first().map(|i| format!("{ntp}.steps[{i}]"));
            self.push(
                rule,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                msg,
                At {
                    before: before.or_else(|| Some(format!("{otp}.steps"))),
                    anchor: after.clone().unwrap_or_else(|| format!("{ntp}.steps")),
                    after: after.or_else(|| Some(format!("{ntp}.steps"))),
                },
            );
        }
        let parallel = |v: &Value| v.get("parallel").cloned();
        if !exec_changed && (sa != sb || parallel(&a) != parallel(&b)) {
            let first = sa
                .iter()
                .zip(&sb)
                .position(|(x, y)| x != y)
                .unwrap_or(sa.len().min(sb.len()));
            let msg = if sa == sb {
                Msg::new()
                    .t("the steps of ")
                    .c(tool)
                    .t(if b.get("parallel") == Some(&Value::Bool(true)) {
                        " now run concurrently"
                    } else {
                        " now run one after another"
                    })
            } else {
                let expr = |steps: &[Value]| {
                    steps
                        .get(first)
                        .and_then(|s| s.pointer("/exec/expr"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                match (expr(&sa), expr(&sb)) {
                    (Some(x), Some(y)) if x != y && sa.len() == sb.len() => Msg::new()
                        .t(format!("step {} of ", first + 1))
                        .c(tool)
                        .t(" computes ")
                        .c(y)
                        .t(" instead of ")
                        .c(x),
                    _ => Msg::new()
                        .t(format!("step {} of ", first + 1))
                        .c(tool)
                        .t(" changed its condition, title, message, expression or order; the commands it runs are the same"),
                }
            };
            let key = if sa == sb {
                "parallel".to_string()
            } else {
                format!("steps[{first}]")
            };
            self.push(
                Rule::StepChanged,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                msg,
                At::both(format!("{otp}.{key}"), format!("{ntp}.{key}")),
            );
        }
        // The runtime route: a new method or path is a different endpoint.
        let ra = a.get("runtime").filter(|v| !v.is_null());
        let rb = b.get("runtime").filter(|v| !v.is_null());
        let route = |r: &Value| {
            format!(
                "{} {}",
                r.get("method").and_then(Value::as_str).unwrap_or("?"),
                r.get("path").and_then(Value::as_str).unwrap_or("?")
            )
        };
        let rat = At::both(format!("{otp}.runtime"), format!("{ntp}.runtime"));
        match (ra, rb) {
            (Some(x), Some(y)) if x != y => {
                if x.get("method") != y.get("method") || x.get("path") != y.get("path") {
                    self.push(
                        Rule::RuntimeRouteChanged,
                        Some(tool),
                        None,
                        None,
                        exec.to_vec(),
                        Msg::new()
                            .t("the runtime route of ")
                            .c(tool)
                            .t(": ")
                            .c(route(x))
                            .t(" → ")
                            .c(route(y)),
                        rat,
                    );
                } else {
                    let keys = changed_keys(x, y);
                    self.push(
                        Rule::RouteChanged,
                        Some(tool),
                        None,
                        None,
                        exec.to_vec(),
                        Msg::new()
                            .t("the runtime route ")
                            .c(route(y))
                            .t(" of ")
                            .c(tool)
                            .t(" changed its ")
                            .codes(keys.iter().map(String::as_str)),
                        rat,
                    );
                }
            }
            (None, Some(y)) => self.push(
                Rule::RouteChanged,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                Msg::new()
                    .c(tool)
                    .t(" now tries the runtime route ")
                    .c(route(y))
                    .t(" before its steps"),
                rat,
            ),
            (Some(x), None) => self.push(
                Rule::RouteChanged,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                Msg::new().c(tool).t(" no longer tries the runtime route ").c(route(x)),
                rat,
            ),
            _ => {}
        }
        self.confirm(o, n, &a, &b, exec);
        self.rules(tool, &a, &b, &otp, &ntp, exec);
        // Everything else the spec carries shapes the result (heading, fallback, and whatever a
        // later version of the spec adds); parameters were compared through the model.
        let (oa, ob) = (a.as_object(), b.as_object());
        let skip = ["name", "params", "steps", "parallel", "runtime", "confirm", "rules"];
        let mut keys: Vec<String> = Vec::new();
        if let (Some(oa), Some(ob)) = (oa, ob) {
            for k in oa.keys().chain(ob.keys().filter(|k| !oa.contains_key(*k))) {
                if !skip.contains(&k.as_str()) && oa.get(k) != ob.get(k) {
                    keys.push(k.clone());
                }
            }
        }
        if !keys.is_empty() {
            let key = if keys.iter().any(|k| k == "heading") {
                "heading"
            } else {
                keys[0].as_str()
            };
            self.push(
                Rule::OutputChanged,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                Msg::new()
                    .t("the result of ")
                    .c(tool)
                    .t(" changed its ")
                    .codes(keys.iter().map(String::as_str)),
                At::both(format!("{otp}.{key}"), format!("{ntp}.{key}")),
            );
        }
    }

    /// A tool's confirmation, as its spec carries it. It follows `destructive` by default:
    /// when that flipped, the annotation rules have reported it, and a confirmation that only
    /// came or went with it is not reported again.
    fn confirm(&mut self, o: &ToolModel, n: &ToolModel, a: &Value, b: &Value, exec: &[Surface]) {
        let tool = n.name.as_str();
        let of = |v: &Value| v.get("confirm").filter(|c| !c.is_null()).cloned();
        let (ca, cb) = (of(a), of(b));
        if ca == cb || (o.destructive != n.destructive && ca.is_some() != cb.is_some()) {
            return;
        }
        let (rule, msg) = match (&ca, &cb) {
            (None, Some(_)) => (
                Rule::ConfirmAdded,
                Msg::new().c(tool).t(" now asks for confirmation before it runs"),
            ),
            (Some(_), None) => (
                Rule::ConfirmChanged,
                Msg::new().c(tool).t(" no longer asks for confirmation"),
            ),
            _ => (
                Rule::ConfirmChanged,
                Msg::new().t("what ").c(tool).t(" asks confirmation for changed"),
            ),
        };
        let at = At::both(
            format!("{}.confirm", self.old.tool_path(&o.name)),
            format!("{}.confirm", self.new.tool_path(tool)),
        );
        self.push(rule, Some(tool), None, None, exec.to_vec(), msg, at);
    }

    /// Rules across parameters: one added can refuse a call that passed, one removed lets more
    /// calls through, and a `default` rule changes a default.
    fn rules(&mut self, tool: &str, a: &Value, b: &Value, otp: &str, ntp: &str, exec: &[Surface]) {
        let of = |v: &Value| v.get("rules").and_then(Value::as_array).cloned().unwrap_or_default();
        let (ra, rb) = (of(a), of(b));
        let kind = |r: &Value| r.get("rule").and_then(Value::as_str).unwrap_or("rule").to_string();
        for (j, r) in rb.iter().enumerate().filter(|(_, r)| !ra.contains(r)) {
            let k = kind(r);
            let rule = if k == "default" {
                Rule::DefaultChanged
            } else {
                Rule::RuleAdded
            };
            let after = format!("{ntp}.rules[{j}]");
            self.push(
                rule,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                Msg::new().c(tool).t(" has a new ").c(k).t(" rule"),
                At {
                    before: None,
                    after: Some(after.clone()),
                    anchor: after,
                },
            );
        }
        for (i, r) in ra.iter().enumerate().filter(|(_, r)| !rb.contains(r)) {
            let k = kind(r);
            let rule = if k == "default" {
                Rule::DefaultChanged
            } else {
                Rule::RuleRemoved
            };
            self.push(
                rule,
                Some(tool),
                None,
                None,
                exec.to_vec(),
                Msg::new().t("a ").c(k).t(" rule of ").c(tool).t(" was removed"),
                At {
                    before: Some(format!("{otp}.rules[{i}]")),
                    after: None,
                    anchor: ntp.to_string(),
                },
            );
        }
    }

    /// Toolsets no surface is built from: they are chosen with `ixgen opencode --toolset`.
    fn toolsets(&mut self) {
        let (old, new) = (self.old, self.new);
        let backing: BTreeSet<&str> = new.surfaces.values().map(|s| s.toolset.as_str()).collect();
        // `ixgen opencode --toolset` is where such a toolset is used.
        let surfaces: Vec<Surface> = new.surfaces.keys().copied().filter(|s| s.key() == "opencode").collect();
        for (name, ts) in &old.model.toolsets {
            let path = format!("toolsets.{name}");
            let Some(now) = new.model.toolsets.get(name) else {
                self.push(
                    Rule::ToolsetRemoved,
                    None,
                    None,
                    None,
                    surfaces.clone(),
                    Msg::new()
                        .t("toolset ")
                        .c(name)
                        .t(" was removed (")
                        .c(format!("ixgen opencode --toolset {name}"))
                        .t(")"),
                    At {
                        before: Some(path),
                        after: None,
                        anchor: "toolsets".into(),
                    },
                );
                continue;
            };
            if backing.contains(name.as_str()) {
                continue;
            }
            for t in &ts.tools {
                // A removed tool is reported once, as removed; a renamed one as renamed.
                let renamed = new
                    .tools
                    .iter()
                    .any(|n| n.renamed_from.as_deref() == Some(t.as_str()) && now.tools.contains(&n.name));
                if !now.tools.contains(t) && new.model.tool(t).is_some() && !renamed {
                    self.push(
                        Rule::ToolsetMemberRemoved,
                        Some(t),
                        None,
                        None,
                        surfaces.clone(),
                        Msg::new()
                            .t("toolset ")
                            .c(name)
                            .t(" (")
                            .c(format!("ixgen opencode --toolset {name}"))
                            .t(") no longer has tool ")
                            .c(t),
                        At::both(format!("{path}.tools"), format!("{path}.tools")),
                    );
                }
            }
        }
    }
}

/// A tool's serialized spec without some keys, to compare what it does apart from its name.
fn spec_without(spec: &crate::model::ExecSpec, keys: &[&str]) -> Value {
    let mut v = serde_json::to_value(spec).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        for k in keys {
            o.remove(*k);
        }
    }
    v
}

/// Names of the keys whose values differ between two JSON objects.
fn changed_keys(a: &Value, b: &Value) -> Vec<String> {
    let (Some(oa), Some(ob)) = (a.as_object(), b.as_object()) else {
        return vec!["value".into()];
    };
    oa.keys()
        .chain(ob.keys().filter(|k| !oa.contains_key(*k)))
        .filter(|k| oa.get(*k) != ob.get(*k))
        .cloned()
        .collect()
}

fn labels(s: &BTreeSet<Surface>) -> String {
    s.iter().map(|s| s.label()).collect::<Vec<_>>().join(", ")
}

fn type_text(p: &Param) -> String {
    let name = crate::model::type_name(p.ty);
    match (&p.items, p.ty) {
        (Some(i), ParamType::Array) => format!("{name} of {}", crate::model::type_name(i.ty)),
        _ => name.to_string(),
    }
}

/// A template from its serialized parts: text as is, variables as `{name}`.
fn template_text(v: &Value) -> String {
    match v {
        Value::Array(parts) => parts
            .iter()
            .map(|p| {
                if let Some(t) = p.as_str() {
                    t.to_string()
                } else if let Some(n) = p.get("var").and_then(Value::as_str) {
                    format!("{{{n}}}")
                } else {
                    p.to_string()
                }
            })
            .collect(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The interface of a CLI step: its program and its words (subcommands, option and flag
/// names), with every value (placeholders, an option's argument, spread and JSON elements)
/// replaced by a marker. Two commands with the same signature are accepted by the same CLI.
/// `None` for other steps, whose whole `exec` is their interface.
fn cli_signature(e: &Value) -> Option<Value> {
    if e.get("kind").and_then(Value::as_str) != Some("cli") {
        return None;
    }
    let argv = e.get("argv")?.as_array()?;
    let value = || Value::String("<value>".into());
    let mut words = Vec::new();
    // A literal right after an option is that option's value (`--format json`).
    let mut after_option = false;
    for a in argv {
        // A literal is a string, a template with variables an array of parts (src/spec.rs).
        let word = if a.is_string() || a.is_array() {
            let literal = a.is_string() || a.as_array().is_some_and(|parts| parts.iter().all(Value::is_string));
            let text = template_text(a);
            if literal && text.starts_with('-') {
                after_option = true;
                words.push(Value::String(text));
                continue;
            }
            if literal && !after_option {
                Value::String(text)
            } else {
                value()
            }
        } else if let Some(opt) = a.get("opt").and_then(Value::as_str) {
            Value::String(format!("{opt} <value>"))
        } else if let Some(flag) = a.get("flag").and_then(Value::as_str) {
            Value::String(flag.to_string())
        } else if a.get("spread").is_some() || a.get("json").is_some() {
            value()
        } else {
            // A shape this version does not know: compare it whole, so a change stays breaking.
            a.clone()
        };
        after_option = false;
        words.push(word);
    }
    Some(serde_json::json!({ "program": e.get("program"), "words": words }))
}

/// A step's command for messages: `ix locate {symbol} [--kind {kind}]`, or its kind and topic.
/// Only for display: a shape it does not know is shown as JSON.
fn exec_text(e: &Value) -> String {
    if let Some(argv) = e.get("argv").and_then(Value::as_array) {
        let mut words = vec![e.get("program").and_then(Value::as_str).unwrap_or("?").to_string()];
        for a in argv {
            words.push(if a.is_string() || a.is_array() {
                template_text(a)
            } else if let (Some(opt), Some(v)) = (a.get("opt").and_then(Value::as_str), a.get("value")) {
                format!("[{opt} {}]", template_text(v))
            } else if let Some(flag) = a.get("flag").and_then(Value::as_str) {
                format!("[{flag}]")
            } else if let Some(p) = a.get("spread").and_then(Value::as_str) {
                format!("{{{p}…}}")
            } else {
                a.to_string()
            });
        }
        return words.join(" ");
    }
    let kind = e.get("kind").and_then(Value::as_str).unwrap_or("step");
    match e.get("topic") {
        Some(t) => format!("{kind} {}", template_text(t)),
        None => e.to_string(),
    }
}
