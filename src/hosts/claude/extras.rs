//! What Claude Code's plugin directory asks of a plugin beyond its manifest: a README, an icon
//! and the network hosts its parts reach (`claude plugin validate --strict --profile directory`
//! on Claude Code 2.1.330). Every choice here also passes `--strict` on 2.1.197, which knows
//! neither `icon` nor `network` in `plugin.json` and refuses both as unknown fields:
//!
//! - the icon is the file `.claude-plugin/icon.png`, where 2.1.330 looks without a manifest
//!   field;
//! - the hosts are declared on the server in `.mcp.json` (`network.hosts`), which 2.1.330
//!   reads and 2.1.197's validator does not, and which both start the server from.
//!
//! Pure: returns planned files, touches no disk. Markdown text comes from `crate::escape`.

use super::Settings;
use crate::error::Error;
use crate::escape::{Md, md_code, md_line, md_link, md_text};
use crate::hosts::{Options, server_args};
use crate::model::{Model, Server};
use crate::plan::{Plan, PlannedFile};
use askama::Template;
use serde::Serialize;

/// Where 2.1.330 looks for a plugin's icon when `plugin.json` names none.
pub const ICON_PATH: &str = ".claude-plugin/icon.png";

/// A server entry of `.mcp.json` with the hosts it reaches, for Claude Code's validator to
/// list. Claude Code 2.1.330 shows them only (it checks, allows and passes on nothing).
#[derive(Debug, Serialize)]
pub struct WithNetwork<S> {
    #[serde(flatten)]
    server: S,
    #[serde(skip_serializing_if = "Option::is_none")]
    network: Option<Network>,
}

#[derive(Debug, Serialize)]
struct Network {
    /// Hosts in `sandbox.network.allowedDomains` syntax: `host` or `host:port`.
    hosts: Vec<String>,
}

/// `server` with the network hosts the catalog knows of.
pub fn with_network<S: Serialize>(model: &Model, server: S) -> WithNetwork<S> {
    let hosts = network_hosts(model);
    WithNetwork {
        server,
        network: (!hosts.is_empty()).then_some(Network { hosts }),
    }
}

/// The hosts the product's server reaches, as far as the catalog says: its runtime's default
/// URL. An empty list would claim that no host is needed, which the catalog cannot know, so
/// a catalog without a runtime declares nothing.
pub fn network_hosts(model: &Model) -> Vec<String> {
    let runtime = model.shared.runtime.as_ref();
    runtime.and_then(|r| url_host(&r.default_url)).into_iter().collect()
}

/// `host[:port]` of an absolute URL (`http://127.0.0.1:7743/x` → `127.0.0.1:7743`), or `None`
/// when there is no host.
fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The plugin's `README.md`.
#[derive(Template)]
#[template(path = "claude/README.md", escape = "none")]
struct Readme {
    /// The first line, which the directory shows as the listing summary.
    summary: Md,
    name: Md,
    version: Md,
    install: Option<Md>,
    server: Md,
    command: Md,
    /// The program the user installs, when the server is not shipped inside the plugin.
    program: Option<Md>,
    env: Vec<Md>,
    hosts: Vec<Md>,
    runtime: Option<RuntimeLine>,
    tools: Vec<ToolLine>,
    links: Vec<Md>,
    license: Option<Md>,
    footer: Md,
}

struct RuntimeLine {
    url: Md,
    env: Md,
}

struct ToolLine {
    name: Md,
    writes: bool,
    summary: Md,
}

/// A tool's one line: its description's first sentence, else its title (the description says
/// what the tool does; a title is often only a name).
fn one_line(title: Option<&str>, description: &str) -> String {
    let d = description.trim();
    if d.is_empty() {
        return title.unwrap_or_default().to_string();
    }
    d.find(". ").map_or(d, |i| &d[..=i]).to_string()
}

/// `owner/repo` of a GitHub repository URL, when every character is one GitHub allows, so the
/// install line names the marketplace exactly.
fn github_repo(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://github.com/")
        .or_else(|| url.strip_prefix("http://github.com/"))?;
    let rest = rest.trim_end_matches('/').trim_end_matches(".git");
    let (owner, repo) = rest.split_once('/')?;
    let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    (ok(owner) && ok(repo)).then(|| format!("{owner}/{repo}"))
}

/// The README and the icon of the plugin; `command` is the server command as `.mcp.json` runs it.
pub fn plan(
    model: &Model,
    target: &Settings,
    server: &Server,
    opts: &Options,
    command: &str,
    plan: &mut Plan<'_>,
) -> Result<(), Error> {
    let p = &model.product;
    if let Some((icon, bytes)) = &p.icon {
        // `catalog::load` reads every file the catalog names; a catalog typed some other way
        // has no bytes, and a plugin without its icon must not pass as complete.
        let bytes = bytes.clone().ok_or_else(|| {
            Error::usage(
                format!("the catalog's icon `{icon}` was never read"),
                "load the catalog with `ixgen::catalog::load`, which reads the files a catalog names",
            )
        })?;
        plan.files.push(PlannedFile::owned(ICON_PATH, "claude", bytes));
    }
    if !target.readme {
        return Ok(());
    }
    let full_command = [vec![command.to_string()], server_args(model, &opts.filter)]
        .concat()
        .join(" ");
    let install = (p.repository.as_deref().and_then(github_repo))
        .filter(|_| target.marketplace)
        .map(|repo| md_code(&format!("/plugin install {} --marketplace {repo}", p.name)));
    let tools = model
        .toolset(&server.toolset, &opts.filter)
        .iter()
        .map(|t| ToolLine {
            name: md_code(&t.name),
            writes: t.is_write(),
            summary: md_text(&one_line(t.title.as_deref(), &t.description)),
        })
        .collect();
    let source = p.repository.as_ref().filter(|r| Some(*r) != p.homepage.as_ref());
    let links = (p.homepage.iter().map(|h| md_link("Homepage", h)))
        .chain(source.map(|r| md_link("Source", r)))
        .collect();
    let readme = Readme {
        summary: md_line(&p.description),
        name: md_text(&p.name),
        version: md_text(&p.version),
        install,
        server: md_code(&server.name),
        command: md_code(&full_command),
        program: (!target.plugin_root).then(|| md_code(&server.command)),
        env: server.env.keys().map(|k| md_code(k)).collect(),
        hosts: network_hosts(model).iter().map(|h| md_code(h)).collect(),
        runtime: model.shared.runtime.as_ref().map(|r| RuntimeLine {
            url: md_code(&r.default_url),
            env: md_code(&r.url_env),
        }),
        tools,
        links,
        license: p.license.as_deref().map(md_text),
        footer: md_line(&format!(
            "Generated by ixgen from the catalog {} ({} {}).",
            model.source_name, p.name, p.version
        )),
    };
    let text = crate::hosts::opencode::render(&readme)?;
    plan.files.push(PlannedFile::owned("README.md", "claude", text));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_hosts_keep_the_port_and_drop_the_rest() {
        assert_eq!(url_host("http://127.0.0.1:7743").as_deref(), Some("127.0.0.1:7743"));
        assert_eq!(
            url_host("https://u:p@API.example.com/v2?x#y").as_deref(),
            Some("api.example.com")
        );
        assert_eq!(url_host("http://[::1]:80/").as_deref(), Some("[::1]:80"));
        assert_eq!(url_host("127.0.0.1:7743"), None);
        assert_eq!(url_host("file:///tmp/x"), None);
    }

    #[test]
    fn github_repos_are_exact_or_absent() {
        assert_eq!(
            github_repo("https://github.com/ix-infrastructure/ix").as_deref(),
            Some("ix-infrastructure/ix")
        );
        assert_eq!(github_repo("https://github.com/o/r.git/").as_deref(), Some("o/r"));
        assert_eq!(github_repo("https://gitlab.com/o/r"), None);
        assert_eq!(github_repo("https://github.com/o/r`; rm"), None);
        assert_eq!(github_repo("https://github.com/o"), None);
    }

    #[test]
    fn a_tool_line_is_its_title_or_first_sentence() {
        assert_eq!(one_line(Some("Find it"), "Long one. Text."), "Long one.");
        assert_eq!(one_line(Some("Find it"), " "), "Find it");
        assert_eq!(one_line(None, "First one. Second one."), "First one.");
        assert_eq!(one_line(None, "  Only one  "), "Only one");
    }
}
