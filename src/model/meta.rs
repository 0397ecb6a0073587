//! What the model keeps of the catalog beside its tools: the product, the server, the
//! toolsets, the context declarations, the default filters, the lint limits and the hosts'
//! settings. Each is the model's own type, built from the catalog's by [`From`], so nothing
//! after lowering reads a catalog type.

use crate::catalog;
use indexmap::IndexMap;

/// Product metadata.
#[derive(Debug, Clone)]
pub struct Product {
    pub name: String,
    pub version: String,
    pub description: String,
    pub author: Option<Author>,
    pub homepage: Option<String>,
    pub repository: Option<String>,
    pub license: Option<String>,
    pub keywords: Vec<String>,
    /// The icon: its path as written, and its bytes once the loader read them.
    pub icon: Option<(String, Option<Vec<u8>>)>,
}

/// The author of the product, serialized as the Claude plugin's manifests name it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Author {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The product's MCP server as hosts launch it.
#[derive(Debug, Clone)]
pub struct Server {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: IndexMap<String, String>,
    pub toolset: String,
    /// Server flags that carry the active filters.
    pub filter_flags: Option<FilterFlags>,
}

/// Command-line flags of the MCP server that mirror ixgen's filters.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterFlags {
    pub read_only: Option<String>,
    pub enable_tools: Option<String>,
    pub disable_tools: Option<String>,
}

/// A named group of tools, in the order hosts list them.
#[derive(Debug, Clone)]
pub struct Toolset {
    pub tools: Vec<String>,
}

/// Lint limits.
#[derive(Debug, Clone)]
pub struct Lint {
    pub description_budget: usize,
    pub toolset_budget: usize,
    pub breaking: BreakingLint,
}

/// Which `ixgen diff` rules the catalog switches off.
#[derive(Debug, Clone)]
pub struct BreakingLint {
    pub ignore: Vec<String>,
    pub ignore_only: IndexMap<String, Vec<String>>,
}

/// Whether a tool changes state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// A context variable's declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextDecl {
    pub ty: ContextType,
    pub description: Option<String>,
    /// The value must be usable as one part of a store topic.
    pub topic_part: bool,
    pub min: Option<i64>,
    /// The TypeScript constant the variable is baked into.
    pub constant: String,
    /// The default as text (a relative `path` default is resolved when it is applied).
    pub default: Option<String>,
}

/// Type of a context variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextType {
    String,
    Integer,
    Path,
}

/// The context variables a catalog declares: all that checking a run's context needs, so that
/// a run that skips loading the catalog checks it the same way.
pub type ContextDecls = IndexMap<String, ContextDecl>;

/// The declarations of a catalog's `context`.
pub fn context_decls(raw: IndexMap<String, catalog::ContextVar>) -> ContextDecls {
    raw.into_iter()
        .map(|(name, v)| {
            let decl = ContextDecl {
                ty: match v.ty {
                    catalog::ContextType::String => ContextType::String,
                    catalog::ContextType::Integer => ContextType::Integer,
                    catalog::ContextType::Path => ContextType::Path,
                },
                constant: v.constant_name(&name),
                description: v.description,
                topic_part: v.format == Some(catalog::ContextFormat::TopicPart),
                min: v.min,
                default: v.default.map(|d| d.to_string()),
            };
            (name, decl)
        })
        .collect()
}

impl From<catalog::Product> for Product {
    fn from(p: catalog::Product) -> Product {
        Product {
            name: p.name,
            version: p.version,
            description: p.description,
            author: p.author.map(|a| Author {
                name: a.name,
                email: a.email,
                url: a.url,
            }),
            homepage: p.homepage,
            repository: p.repository,
            license: p.license,
            keywords: p.keywords,
            icon: p.icon.map(|i| (i.path, i.bytes)),
        }
    }
}

impl From<catalog::Server> for Server {
    fn from(s: catalog::Server) -> Server {
        Server {
            name: s.name,
            command: s.command,
            args: s.args,
            env: s.env,
            toolset: s.toolset,
            filter_flags: s.filter_flags.map(|f| FilterFlags {
                read_only: f.read_only,
                enable_tools: f.enable_tools,
                disable_tools: f.disable_tools,
            }),
        }
    }
}

impl From<catalog::Lint> for Lint {
    fn from(l: catalog::Lint) -> Lint {
        Lint {
            description_budget: l.description_budget,
            toolset_budget: l.toolset_budget,
            breaking: BreakingLint {
                ignore: l.breaking.ignore,
                ignore_only: l.breaking.ignore_only,
            },
        }
    }
}

impl From<catalog::Access> for Access {
    fn from(a: catalog::Access) -> Access {
        match a {
            catalog::Access::Read => Access::Read,
            catalog::Access::Write => Access::Write,
        }
    }
}

/// A host's settings (`targets.<name>`): as written, and the host's own typed value once the
/// hosts' check parsed them (the model cannot name the hosts' types).
#[derive(Debug)]
pub struct Target {
    pub raw: serde_json::Value,
    pub parsed: Option<Box<dyn std::any::Any + Send + Sync>>,
}
