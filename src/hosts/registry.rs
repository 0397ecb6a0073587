//! The MCP Registry: `server.json`, the file a product publishes to list its MCP server
//! (schema revision 2025-12-11, `modelcontextprotocol/registry`).
//!
//! Only catalogs whose product ships its MCP server as a package have one: the settings name
//! the registry entry and each package (registry, identifier, version, transport). The
//! server's arguments become positional package arguments, so a client launches it as every
//! other host does. The registry knows tools by no id of its own: it lists the server, not
//! its tools. Pure.

use super::{Host, Options, Surface, json_file};
use crate::diagnostic::{Diagnostic, Report};
use crate::error::Error;
use crate::model::Model;
use crate::plan::Plan;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The revision of the `server.json` schema written.
pub const SCHEMA_URL: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The registry's longest description.
pub const DESCRIPTION_LIMIT: usize = 100;

/// `targets.mcp-registry`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The server's name in the registry, reverse-DNS with one `/`: `io.github.owner/name`.
    pub name: String,
    /// The registry's description (at most 100 characters); defaults to the product's.
    #[serde(default)]
    pub description: Option<String>,
    /// The server's version (the registry's `version`); defaults to the first package's.
    #[serde(default)]
    pub version: Option<String>,
    /// How the server ships: one entry per package.
    pub distribution: Vec<Package>,
    /// Where to write the file.
    #[serde(default = "default_path")]
    pub path: String,
}

fn default_path() -> String {
    "server.json".to_string()
}

/// One package that runs the server.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// The package registry: `npm`, `pypi`, `oci`, `nuget`, `mcpb`.
    pub registry: String,
    /// The package's name there, e.g. `@ix/cli`.
    pub identifier: String,
    /// The exact version published (no ranges, not `latest`).
    pub version: String,
    /// How a client talks to the server.
    #[serde(default)]
    pub transport: Transport,
    /// The runtime that starts the package, e.g. `npx`.
    #[serde(default)]
    pub runtime_hint: Option<String>,
}

/// A package's transport.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    #[default]
    Stdio,
}

/// `server.json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerJson<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    name: &'a str,
    description: &'a str,
    version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    repository: Option<Repository<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    website_url: Option<&'a str>,
    packages: Vec<PackageJson<'a>>,
}

#[derive(Debug, Serialize)]
struct Repository<'a> {
    url: &'a str,
    source: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PackageJson<'a> {
    registry_type: &'a str,
    identifier: &'a str,
    version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime_hint: Option<&'a str>,
    transport: TransportJson,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    package_arguments: Vec<Argument<'a>>,
}

#[derive(Debug, Serialize)]
struct TransportJson {
    #[serde(rename = "type")]
    kind: Transport,
}

/// A package argument: `{"type": "positional", "value": …}`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "positional")]
struct Argument<'a> {
    value: &'a str,
}

/// The registry's name rule: `namespace/name`, reverse-DNS namespace, each part starting
/// and ending with a letter or digit (the registry's `namespacePattern` and `namePartPattern`).
fn valid_name(name: &str) -> bool {
    let part = |s: &str, inner: &str| {
        let alnum = |c: char| c.is_ascii_alphanumeric();
        s.len() >= 2 && s.starts_with(alnum) && s.ends_with(alnum) && s.chars().all(|c| alnum(c) || inner.contains(c))
    };
    name.split_once('/')
        .is_some_and(|(ns, rest)| (3..=200).contains(&name.len()) && part(ns, ".-") && part(rest, "._-"))
}

/// Whether the registry refuses `v` as a version: empty, `latest`, or what its
/// `looksLikeVersionRange` takes for a range (a comparator such as `^`, `~`, `>=` or `=`, a
/// hyphen or `||` range, or a wildcard part `x`, `X` or `*` in a dotted version).
fn not_one_version(v: &str) -> bool {
    let v = v.trim();
    let release = v.split('-').next().unwrap_or(v);
    v.is_empty()
        || v == "latest"
        || v.starts_with(['^', '~', '>', '<', '='])
        || v.contains([' ', '*'])
        || v.contains("||")
        || (release.contains('.') && release.split('.').any(|p| matches!(p, "x" | "X")))
}

pub struct McpRegistry;

impl Host for McpRegistry {
    type Settings = Settings;

    const NAME: &'static str = "mcp-registry";
    const ABOUT: &'static str = "MCP Registry entry (`server.json`) for a server that ships as a package";

    fn check(&self, s: &Settings, cat: &Model, path: &str) -> Vec<Diagnostic> {
        let mut diags = super::check_server(cat, path);
        super::check_rel_path(&format!("{path}.path"), &s.path, &mut diags);
        if !valid_name(&s.name) {
            diags.err(
                "bad-name",
                format!("{path}.name"),
                format!("`{}` is not a registry server name", s.name),
                "use reverse-DNS with one `/`, e.g. `io.github.owner/server`",
            );
        }
        let (description, at) = match &s.description {
            Some(d) => (d.as_str(), format!("{path}.description")),
            None => (cat.product.description.as_str(), format!("{path}.name")),
        };
        let len = description.chars().count();
        if len == 0 || len > DESCRIPTION_LIMIT {
            diags.err(
                "registry-description",
                at,
                format!("the registry takes a description of 1 to {DESCRIPTION_LIMIT} characters; this one has {len}"),
                format!("set `{path}.description` to a shorter one"),
            );
        }
        if s.distribution.is_empty() {
            diags.err(
                "registry-package",
                format!("{path}.distribution"),
                "no package to run the server from",
                "list at least one `{registry, identifier, version}`",
            );
        }
        let versions = s.version.iter().map(|v| (v, format!("{path}.version")));
        let packages =
            (s.distribution.iter().enumerate()).map(|(i, p)| (&p.version, format!("{path}.distribution[{i}].version")));
        for (v, at) in versions.chain(packages).filter(|(v, _)| not_one_version(v)) {
            diags.err(
                "registry-package",
                at,
                format!("`{v}` is not one exact version"),
                "give the exact published version, e.g. `1.2.3` (the registry rejects ranges and `latest`)",
            );
        }
        for (i, p) in s.distribution.iter().enumerate() {
            if p.identifier.is_empty() || p.identifier.contains(char::is_whitespace) {
                diags.err(
                    "registry-package",
                    format!("{path}.distribution[{i}].identifier"),
                    format!("`{}` is not a package name", p.identifier),
                    "give the package's name in its registry, e.g. `@owner/server` (the registry refuses spaces)",
                );
            }
        }
        diags
    }

    fn surfaces(&self, _: &Settings, _: &Model) -> Vec<Surface> {
        Vec::new()
    }

    fn plan<'m>(&self, s: &'m Settings, model: &'m Model, _opts: &Options, plan: &mut Plan<'m>) -> Result<(), Error> {
        let Some(server) = &model.server else {
            return Ok(());
        };
        plan.groups.insert(Self::NAME);
        let p = &model.product;
        let first = s.distribution.first().map(|d| d.version.as_str());
        let json = ServerJson {
            schema: SCHEMA_URL,
            name: &s.name,
            description: s.description.as_deref().unwrap_or(&p.description),
            version: s.version.as_deref().or(first).unwrap_or(&p.version),
            // Only a repository at a source the registry can inspect.
            repository: p.repository.as_deref().and_then(|url| {
                let sources = [("https://github.com/", "github"), ("https://gitlab.com/", "gitlab")];
                let source = sources.into_iter().find_map(|(p, s)| url.starts_with(p).then_some(s))?;
                Some(Repository { url, source })
            }),
            website_url: p.homepage.as_deref(),
            packages: s
                .distribution
                .iter()
                .map(|pkg| PackageJson {
                    registry_type: &pkg.registry,
                    identifier: &pkg.identifier,
                    version: &pkg.version,
                    runtime_hint: pkg.runtime_hint.as_deref(),
                    transport: TransportJson { kind: pkg.transport },
                    package_arguments: server.args.iter().map(|value| Argument { value }).collect(),
                })
                .collect(),
        };
        plan.files.push(json_file(s.path.clone(), Self::NAME, &json)?);
        Ok(())
    }
}
