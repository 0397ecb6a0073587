//! `ixgen serve`: any catalog as a live MCP server (issue 26), on the official Rust SDK (rmcp),
//! over stdio or Streamable HTTP. Its `tools/list` is the MCP host's (`hosts::mcp::list_tools`,
//! the code path that writes `mcp/tools.json`); a call runs the tool's execution spec through the
//! Rust runtime (`ixgen_runtime`), which answers the same text as the OpenCode tool.
//!
//! The controls of seed 004, for every catalog:
//! - kill switch: `<PRODUCT>_TOOLS_DISABLED=1` (the product's name in upper case, other
//!   characters as `_`: `IX_TOOLS_DISABLED`, `GIT_IRIS_TOOLS_DISABLED`), or `enabled = false` in
//!   the product's table of the user's config file, makes `serve` exit at once with a message on
//!   stderr, so a client sees no server;
//! - `--read-only` (or `<PRODUCT>_TOOLS_READ_ONLY=1`) leaves out every tool that changes state;
//! - `--enable-tools` / `--disable-tools`: the allowlist wins, with a warning on stderr;
//! - the user's config file (`$IXGEN_SERVE_CONFIG`, else `~/.config/ixgen/serve.toml`) sets
//!   the same controls once for every session, in one table per product (seed 004's
//!   `~/.ix/config`); the flags and environment variables override it;
//! - annotations: `readOnlyHint`/`destructiveHint` as the catalog lowers them, so that clients
//!   ask before a destructive call; a tool with `confirm` asks through MCP elicitation when the
//!   client offers it, and otherwise runs only when it is annotated destructive.
//!
//! Hot reload: with `--catalog`, the file is watched; a valid change is served at once and every
//! connected client gets `notifications/tools/list_changed`; an invalid one is logged on stderr
//! and the previous catalog stays.
//!
//! A tool failure is a result with `isError: true` and the tool's markdown; an unknown tool is a
//! JSON-RPC error. A tool with an `outputSchema` answers its structured result beside the text:
//! the data of the step that declares that schema (`ToolModel::structured_step`).
//!
//! Over stdio, a client that goes away ends the session normally (exit 0); one that sends what is
//! not MCP is the peer's fault (exit 2), never ixgen's (70).
//!
//! Over HTTP (`--http ADDR`, 127.0.0.1 unless an address says otherwise) a request whose `Origin`
//! is not a loopback origin is refused with 403 (DNS rebinding: a web page may reach a local
//! port, but its Origin names its own site), and when `IXGEN_SERVE_TOKEN` is set, a request
//! without `Authorization: Bearer <that token>` is refused with 401.

use crate::cli::FilterArgs;
use crate::error::Error;
use crate::hosts::{self, Options, mcp};
use crate::model::{Filter, Model};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
    ToolListChangedNotification,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock, Weak};

/// The environment variable that holds the HTTP transport's bearer token.
pub const TOKEN_ENV: &str = "IXGEN_SERVE_TOKEN";

/// What `ixgen serve` was asked for.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub catalog: Option<PathBuf>,
    /// Streamable HTTP on this address instead of stdio.
    pub http: Option<String>,
    pub filters: FilterArgs,
}

/// A loaded catalog, as served.
struct Served {
    /// `tools/list` for revision 2025-11-25 and older (`mcp/tools.json`).
    list: ListToolsResult,
    /// `tools/list` for revision 2026-07-28 (`mcp/tools.2026-07-28.json`: with its cache hints).
    list_2026: ListToolsResult,
    /// The names of the tools served: the toolset, filtered.
    tools: HashSet<String>,
    /// The catalog, whose tools' specs a call runs.
    model: Model,
    /// The served tools' output schemas, compiled.
    output: OutputSchemas,
}

/// The served tools' output schemas, compiled: a structured result is checked against its tool's
/// before it is answered. MCP requires it to conform, and the SDK clients refuse the whole call
/// (text and all) when it does not.
struct OutputSchemas {
    schemas: boon::Schemas,
    by_tool: HashMap<String, boon::SchemaIndex>,
}

impl OutputSchemas {
    fn compile(model: &Model, served: &HashSet<String>) -> OutputSchemas {
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        // A schema is the catalog's, whole: a `$ref` to a file or the web is not followed.
        compiler.use_loader(Box::new(boon::SchemeUrlLoader::new()));
        let (mut schemas, mut by_tool) = (boon::Schemas::new(), HashMap::new());
        for t in model.tools.iter().filter(|t| served.contains(&t.name)) {
            let Some(schema) = &t.output_schema else { continue };
            let url = format!("urn:ixgen:output-schema:{}", t.name);
            let compiled = match compiler.add_resource(&url, schema.clone()) {
                Ok(()) => compiler.compile(&url, &mut schemas),
                Err(e) => Err(e),
            };
            match compiled {
                Ok(index) => {
                    by_tool.insert(t.name.clone(), index);
                }
                Err(e) => eprintln!(
                    "ixgen serve: warning: the output schema of `{}` is not a JSON Schema its results can be checked against ({e})",
                    t.name
                ),
            }
        }
        OutputSchemas { schemas, by_tool }
    }

    /// Why `value` does not conform to the output schema of `tool`, if it does not.
    fn mismatch(&self, tool: &str, value: &serde_json::Value) -> Option<String> {
        let index = *self.by_tool.get(tool)?;
        let e = self.schemas.validate(value, index).err()?;
        // The error's first line names the schema; the lines below it, each place that fails.
        let causes = e
            .to_string()
            .lines()
            .skip(1)
            .map(|l| l.trim().trim_start_matches("- "))
            .collect::<Vec<_>>()
            .join("; ");
        Some(if causes.is_empty() { e.to_string() } else { causes })
    }
}

/// The product's name as an environment variable prefix: `git-iris` → `GIT_IRIS`.
pub fn env_prefix(product: &str) -> String {
    product
        .to_ascii_uppercase()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
}

/// An on/off environment variable: `None` when unset, so that it can override a config file
/// either way (`IX_TOOLS_DISABLED=0` serves the tools a config file turned off).
fn env_flag(name: &str) -> Option<bool> {
    let v = std::env::var(name).ok()?;
    Some(!matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "" | "0" | "false" | "no" | "off"
    ))
}

/// The environment variable that names the user's config file, instead of the default
/// `$XDG_CONFIG_HOME/ixgen/serve.toml` (`~/.config/ixgen/serve.toml`).
pub const CONFIG_ENV: &str = "IXGEN_SERVE_CONFIG";

/// A product's table in the user's config file: seed 004's controls, set once for every session
/// (the flags and environment variables override them).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct UserControls {
    /// `false` is the kill switch.
    enabled: Option<bool>,
    #[serde(default)]
    read_only: bool,
    /// The tool lists, with where each name is: a name the catalog does not have is reported at
    /// its line and column, as any other mistake in the file.
    #[serde(default)]
    enable_tools: Vec<toml::Spanned<String>>,
    #[serde(default)]
    disable_tools: Vec<toml::Spanned<String>>,
}

fn config_path() -> Option<PathBuf> {
    let env = |name| std::env::var_os(name).filter(|p| !p.is_empty()).map(PathBuf::from);
    env(CONFIG_ENV).or_else(|| {
        let home = || std::env::var_os("HOME").map(|h| Path::new(&h).join(".config"));
        Some(env("XDG_CONFIG_HOME").or_else(home)?.join("ixgen").join("serve.toml"))
    })
}

/// The controls of `product` in the user's config file; none when there is no file or no table.
/// A file that is not valid is a usage error (exit 2), with its line and column. With `tools`,
/// the file's tool lists are checked against them (when they are the lists in use: the command
/// line's replace them).
fn user_controls(product: &str, tools: Option<&[&str]>) -> Result<UserControls, Error> {
    let Some(path) = config_path() else {
        return Ok(UserControls::default());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(UserControls::default()),
        Err(source) => return Err(crate::output::io_error("read", path.display().to_string())(source)),
    };
    // The file, and the line and column of a place in it.
    let at = |offset: usize| {
        let at = crate::catalog::yaml::Mark::after(&text[..offset.min(text.len())]);
        format!("{}:{}:{}", path.display(), at.line, at.col)
    };
    let invalid = |e: toml::de::Error| {
        let place = e
            .span()
            .map_or_else(|| path.display().to_string(), |span| at(span.start));
        Error::usage(
            format!("{place}: {}", e.message()),
            format!(
                "one table per product, e.g. `[{product}]` with `enabled = false` (the kill switch), \
                 `read_only = true`, `enable_tools = [..]`, `disable_tools = [..]`"
            ),
        )
    };
    // Every product's table is checked, not only this one's: a mistake is found the first time.
    let mut tables: HashMap<String, UserControls> = toml::from_str(&text).map_err(invalid)?;
    let user = tables.remove(product).unwrap_or_default();
    if let Some(name) = (user.enable_tools.iter().chain(&user.disable_tools))
        .find(|n| tools.is_some_and(|t| !t.contains(&n.get_ref().as_str())))
    {
        let (at, name) = (at(name.span().start), name.get_ref());
        let list = "run `ixgen list` to see the tool names";
        let hint = crate::diagnostic::hint_for(name, tools.unwrap_or_default(), list);
        let message = format!("{at}: no tool `{name}` in the catalog of {product}");
        return Err(Error::usage(message, hint));
    }
    Ok(user)
}

/// Loads the catalog and selects its tools; the warnings go to stderr.
fn load(opts: &ServeOptions) -> Result<Served, Error> {
    let (mut model, _file, warnings) = hosts::load(opts.catalog.as_deref())?;
    for w in &warnings {
        eprintln!("ixgen serve: warning: {}", w.message);
    }
    let product = model.product.name.clone();
    let f = &opts.filters;
    let from_file = f.enable_tools.is_empty() && f.disable_tools.is_empty();
    let user = user_controls(&product, from_file.then(|| model.all_tool_names()).as_deref())?;
    let read_only = f.read_only
        || env_flag(&format!("{}_TOOLS_READ_ONLY", env_prefix(&product))).unwrap_or(false)
        || user.read_only;
    // The command line's lists replace the config file's (together: one list can be meant
    // against the other).
    let names = |l: &[toml::Spanned<String>]| l.iter().map(|n| n.get_ref().clone()).collect();
    let (enable, disable) = if from_file {
        (names(&user.enable_tools), names(&user.disable_tools))
    } else {
        (f.enable_tools.clone(), f.disable_tools.clone())
    };
    let (filter, notes) = Filter::resolve(&model, read_only, &enable, &disable, f.tier.as_deref())?;
    for n in &notes {
        eprintln!("ixgen serve: warning: {n}");
    }
    // The toolset the catalog's `server` exposes: every host config ixgen writes launches that server,
    // and names its tools from `server.toolset` (Codex's `enabled_tools`, a filter passed as the exact
    // list), so `ixgen serve` launched by one must serve those. Without a `server`, the MCP target's.
    let settings = model
        .server
        .as_ref()
        .map(|s| s.toolset.clone())
        .or_else(|| hosts::settings::<mcp::Mcp>(&model).map(|s| s.toolset.clone()))
        .ok_or_else(|| {
            Error::usage(
                "the catalog has neither a `server.toolset` nor `targets.mcp.toolset`",
                "ixgen serve serves the server's toolset: add `server: {…, toolset: NAME}` or `targets: {mcp: {toolset: NAME}}`",
            )
        })?;
    // Each `tools/list` below is for the revision it names.
    let options = Options {
        filter,
        ..Options::default()
    };
    // One code path with `mcp/tools.json` (and its 2026-07-28 file): the MCP host's own `tools/list`
    // results, as JSON.
    let list_of = |profile: mcp::Profile| -> Result<ListToolsResult, Error> {
        let mut result = mcp::list_tools(&model, &settings, &options, profile)?;
        // Unlike a release's file, this list changes when the catalog is saved, and follows this
        // user's serve.toml and environment: never cached for long, nor across users.
        if result.ttl_ms.is_some() {
            (result.ttl_ms, result.cache_scope) = (Some(0), Some("private"));
        }
        let value = serde_json::to_value(&result).map_err(|e| Error::internal(format!("tools/list: {e}")))?;
        serde_json::from_value(value).map_err(|e| Error::internal(format!("tools/list does not read back: {e}")))
    };
    let list = list_of(mcp::Profile::V2025_11_25)?;
    let list_2026 = list_of(mcp::Profile::V2026_07_28)?;
    let tools = list.tools.iter().map(|t| t.name.to_string()).collect();
    // A runtime route answers the daemon's own text, not the data a tool's output schema
    // describes: a tool with a structured result is answered by its steps, which give that data.
    for t in model.tools.iter_mut().filter(|t| t.structured_step.is_some()) {
        t.spec.runtime = None;
    }
    let output = OutputSchemas::compile(&model, &tools);
    Ok(Served {
        list,
        list_2026,
        tools,
        model,
        output,
    })
}

/// The MCP handler: the served catalog, shared by every session.
#[derive(Clone)]
struct Server {
    served: Arc<RwLock<Arc<Served>>>,
    /// The connected clients of the 2025 revisions, told when the tool list changes.
    peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    /// The `subscriptions/listen` streams of 2026-07-28 clients, told on the stream instead (that
    /// revision forbids a notification the client did not ask for).
    subscriptions: Arc<Mutex<Vec<Arc<SubscriptionSink>>>>,
    /// Where the tools run: the folder `serve` started in.
    cwd: Arc<PathBuf>,
    /// The first line a stdio client sent that is not a JSON-RPC message (see `Watched`).
    not_mcp: Arc<Mutex<Option<NotMcp>>>,
    /// The calls running now, stopped when `serve` is (see [`stop_on_signal`]).
    calls: Arc<Mutex<Vec<Weak<ixgen_runtime::Cancel>>>>,
}

impl Server {
    fn current(&self) -> Arc<Served> {
        Arc::clone(&self.served.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let product = self.current().model.product.name.clone();
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            format!("ixgen-serve-{product}"),
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let served = self.current();
        // ISO dates compare as strings.
        let version = context.protocol_version();
        let v2026 = version.is_some_and(|v| v.as_str() >= mcp::Profile::V2026_07_28.name());
        Ok(if v2026 { &served.list_2026 } else { &served.list }.clone())
    }

    /// A request rmcp could not read as one of MCP's. rmcp takes a request whose params do not
    /// fit its method for a method of its own, and would answer a malformed `tools/call` "method
    /// not found" (-32601); it is invalid params (-32602), as the reference SDK answers it
    /// ("Invalid tools/call request: …").
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let why = match (request.method.as_str(), request.params) {
            ("tools/call", None | Some(serde_json::Value::Null)) => Some("missing `params`".to_string()),
            ("tools/call", Some(params)) => serde_json::from_value::<CallToolRequestParams>(params)
                .err()
                .map(|e| e.to_string()),
            _ => None,
        };
        Err(match why {
            Some(why) => ErrorData::invalid_params(format!("Invalid {} request: {why}", request.method), None),
            None => ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None),
        })
    }

    /// A 2026-07-28 client's `subscriptions/listen`: of what it asks for, the tool list's
    /// changes are all there is to tell (rmcp keeps only what was asked and advertised).
    fn accepted_subscription_filter(&self, _requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = Some(true);
        Some(accepted)
    }

    /// Holds the stream open, told of each reload (see [`watch`]), until the client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let sink = Arc::new(context.sink().clone());
        if let Ok(mut subscriptions) = self.subscriptions.lock() {
            subscriptions.push(Arc::clone(&sink));
        }
        // Cancelled by the client, or with its session.
        context.cancelled().await;
        if let Ok(mut subscriptions) = self.subscriptions.lock() {
            subscriptions.retain(|s| !Arc::ptr_eq(s, &sink));
        }
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Ok(mut peers) = self.peers.lock() {
            peers.push(context.peer);
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let served = self.current();
        let found = served.model.tool(&request.name);
        let Some(tool) = found.filter(|t| served.tools.contains(&t.name)) else {
            let message = format!("no tool `{}` on this server", request.name);
            return Err(ErrorData::invalid_params(message, None));
        };
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let peer = context.peer.clone();
        // A client that declared elicitation is asked through it (revision 2025-11-25; 2026-07-28 forbids a
        // server's requests, and rmcp refuses them there).
        // The question is a form: a client that declared only URL elicitation cannot show it (an empty
        // `elicitation: {}` means forms, as before the modes were named).
        let elicits = peer.peer_info().is_some_and(|i| {
            (i.capabilities.elicitation.as_ref()).is_some_and(|e| e.form.is_some() || e.url.is_none())
        });
        let handle = tokio::runtime::Handle::current();
        // `notifications/cancelled` (rmcp cancels the request's token) stops the call's programs.
        let cancel = Arc::new(ixgen_runtime::Cancel::new());
        if let Ok(mut calls) = self.calls.lock() {
            calls.retain(|c| c.strong_count() > 0);
            calls.push(Arc::downgrade(&cancel));
        }
        let watcher = {
            let (cancel, ct) = (Arc::clone(&cancel), context.ct.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                cancel.cancel();
            })
        };
        // The runtime is synchronous (programs, pipes, timeouts): it blocks this worker in place, which the
        // other worker covers meanwhile, instead of a hand-off to the blocking pool (a thread wake-up per call).
        let answer = tokio::task::block_in_place(|| {
            let ask = move |a: &ixgen_runtime::Ask| {
                if elicits {
                    return handle.block_on(confirm_by_elicitation(&peer, a));
                }
                // Otherwise confirmation is the client's: it asks before a call it sees annotated destructive.
                // A tool that asks but is not so annotated is not run (nothing would have asked the user).
                if tool.destructive {
                    Ok(())
                } else {
                    Err("the MCP client offers no elicitation, and this tool is not annotated destructive".to_string())
                }
            };
            let ctx = ixgen_runtime::Ctx {
                cwd: Some(self.cwd.as_path()),
                ask: Some(&ask),
                cancel: Some(&cancel),
            };
            ixgen_runtime::run_tool(&tool.spec, &serde_json::Map::new(), &args, &ctx, &served.model.shared)
        });
        watcher.abort();
        if answer.is_error {
            return Ok(CallToolResult::error(vec![ContentBlock::text(answer.text)]).into());
        }
        let Some(step) = &tool.structured_step else {
            return Ok(CallToolResult::success(vec![ContentBlock::text(answer.text)]).into());
        };
        // A tool with an `outputSchema` must answer its structured result (MCP): its step's data,
        // an object. The text stays, for the clients that read only text (the spec recommends it).
        // Without that value (the step was skipped, or printed nothing) the call cannot succeed.
        let why = match answer.data.get(step.as_str()) {
            Some(value @ serde_json::Value::Object(_)) => match served.output.mismatch(&request.name, value) {
                None => {
                    let mut result = CallToolResult::success(vec![ContentBlock::text(answer.text)]);
                    result.structured_content = Some(value.clone());
                    return Ok(result.into());
                }
                // The program's answer is not what the catalog says it is: the text still reaches
                // the model, as an error that says why.
                Some(why) => format!(
                    "the structured result does not match the tool's output schema: {}",
                    crate::escape::one_line(&why)
                ),
            },
            _ => format!(
                "no structured result: the step `{step}`, whose data the tool's output schema describes, gave no \
                 JSON object."
            ),
        };
        let text = format!("{}\n\n**Error:** {why}", answer.text);
        Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into())
    }
}

/// Why a catalog cannot be served, in one text for the log: the error and each diagnostic.
fn why(e: &Error) -> String {
    let mut s = e.to_string();
    if let Error::Catalog { diagnostics, .. } = e {
        s.extend(diagnostics.iter().map(|d| format!("\n  - {}", d.message)));
    }
    s
}

/// What identifies a version of the catalog file: its bytes' hash (`None` while it is unreadable,
/// as in the middle of an editor's save).
fn fingerprint(path: &Path) -> Option<blake3::Hash> {
    std::fs::read(path).ok().map(|b| blake3::hash(&b))
}

/// Watches the catalog file and reloads it on change. Polling one file twice a second costs
/// nothing measurable and sees every way an editor saves (in place, or a new file renamed over
/// the old one), which a watch on the file's inode would miss.
async fn watch(server: Server, opts: ServeOptions) {
    let Some(path) = opts.catalog.clone() else { return };
    let mut seen = fingerprint(&path);
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let now = fingerprint(&path);
        if now.is_none() || now == seen {
            continue;
        }
        seen = now;
        let o = opts.clone();
        let loaded = (tokio::task::spawn_blocking(move || load(&o)).await)
            .unwrap_or_else(|e| Err(Error::internal(format!("the reload did not finish: {e}"))));
        match loaded {
            Err(e) => eprintln!(
                "ixgen serve: {} changed, but it cannot be served; still serving the previous catalog: {}",
                path.display(),
                why(&e)
            ),
            Ok(served) => {
                let count = served.tools.len();
                if let Ok(mut current) = server.served.write() {
                    *current = Arc::new(served);
                }
                eprintln!("ixgen serve: reloaded {} ({count} tools)", path.display());
                let peers: Vec<Peer<RoleServer>> = server.peers.lock().map(|p| p.clone()).unwrap_or_default();
                for peer in &peers {
                    // A client that has gone cannot be told; it is dropped below.
                    let _ = peer.notify_tool_list_changed().await;
                }
                if let Ok(mut p) = server.peers.lock() {
                    p.retain(|x| !x.is_transport_closed());
                }
                let streams = server.subscriptions.lock().map(|s| s.clone()).unwrap_or_default();
                for sink in streams {
                    // A stream that ended meanwhile cannot be told; `listen` drops it.
                    let _ = sink.send(ToolListChangedNotification::default().into()).await;
                }
            }
        }
    }
}

/// Asks the user through the client (MCP elicitation): a form with no fields, accepted or not.
async fn confirm_by_elicitation(peer: &Peer<RoleServer>, a: &ixgen_runtime::Ask) -> Result<(), String> {
    use rmcp::model::{ElicitRequestParams, ElicitationAction};
    let schema = serde_json::from_value(serde_json::json!({"type": "object", "properties": {}}))
        .map_err(|e| format!("the elicitation form: {e}"))?;
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        // The preview (the diff of an edit, the files of a commit) follows the question: the message is
        // all a client shows of a form with no fields.
        message: match &a.preview {
            Some(p) if !p.trim().is_empty() => format!("Allow `{}` to run: {}?\n\n{p}", a.permission, a.subject),
            _ => format!("Allow `{}` to run: {}?", a.permission, a.subject),
        },
        requested_schema: schema,
    };
    match peer.create_elicitation(params).await {
        Ok(r) if r.action == ElicitationAction::Accept => Ok(()),
        Ok(r) if r.action == ElicitationAction::Decline => Err("the user declined".into()),
        Ok(_) => Err("the user cancelled".into()),
        Err(e) => Err(format!("the client could not ask: {e}")),
    }
}

/// Where the tools run and `path` arguments must stay, as in OpenCode (`context.worktree`, or
/// `context.directory` outside a repository): the nearest folder at or above the one `serve`
/// started in that holds `.git` (a folder, or the file of a linked worktree or submodule), or
/// that folder when there is none. A host that starts the server in a package of a monorepo gets
/// the repository-relative paths git prints. Found by looking, not by running git: a process
/// costs milliseconds of the time to `initialize`.
fn worktree(start: PathBuf) -> PathBuf {
    let top = start.ancestors().find(|dir| dir.join(".git").exists());
    top.map(Path::to_path_buf).unwrap_or(start)
}

/// Runs `ixgen serve`; returns the exit code.
pub fn run(opts: ServeOptions) -> Result<i32, Error> {
    let served = load(&opts)?;
    let product = served.model.product.name.clone();
    // The kill switch: the environment variable either way, else the user's config file.
    let kill = format!("{}_TOOLS_DISABLED", env_prefix(&product));
    let off = match env_flag(&kill) {
        Some(true) => Some(format!("{kill}; unset it")),
        Some(false) => None,
        None => (user_controls(&product, None)?.enabled == Some(false)).then(|| {
            let file = config_path().map(|p| p.display().to_string()).unwrap_or_default();
            format!("`enabled = false` in [{product}] of {file}; remove it or set {kill}=0")
        }),
    };
    if let Some(why) = off {
        eprintln!("ixgen serve: the tools of {product} are disabled by {why} to serve them");
        return Ok(1);
    }
    let cwd = std::env::current_dir().map_err(|e| Error::internal(format!("the current folder: {e}")))?;
    let server = Server {
        served: Arc::new(RwLock::new(Arc::new(served))),
        peers: Arc::new(Mutex::new(Vec::new())),
        subscriptions: Arc::new(Mutex::new(Vec::new())),
        cwd: Arc::new(worktree(cwd)),
        not_mcp: Arc::new(Mutex::new(None)),
        calls: Arc::new(Mutex::new(Vec::new())),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("the async runtime: {e}")))?;
    rt.block_on(async move {
        tokio::spawn(watch(server.clone(), opts.clone()));
        tokio::spawn(stop_on_signal(Arc::clone(&server.calls)));
        match &opts.http {
            None => serve_stdio(server).await,
            Some(addr) => serve_http(server, addr).await,
        }
    })
}

/// Ends `serve` on SIGTERM or SIGINT (a host closes stdin, waits, then sends SIGTERM; Ctrl-C in
/// a terminal) with exit 0, stopping first the programs of the calls still running: each runs in
/// a process group of its own, so that a cancelled call can stop it, and would otherwise outlive
/// the server and finish what the client gave up on.
async fn stop_on_signal(calls: Arc<Mutex<Vec<Weak<ixgen_runtime::Cancel>>>>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    if let Ok(calls) = calls.lock() {
        calls.iter().filter_map(Weak::upgrade).for_each(|c| c.cancel());
    }
    // The calls end once their programs are stopped. Waiting for them (briefly) also stops a
    // program started just now: it is registered with its call's cancel after it is spawned,
    // and stopped then.
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
    let running = || calls.lock().is_ok_and(|c| c.iter().any(|w| w.strong_count() > 0));
    while running() && tokio::time::Instant::now() < until {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    std::process::exit(0);
}

async fn serve_stdio(server: Server) -> Result<i32, Error> {
    use rmcp::service::{QuitReason, ServerInitializeError};
    let stdin = Watched::new(tokio::io::stdin(), Arc::clone(&server.not_mcp));
    // A client that goes away (stdin closed, before or after `initialize`) ends the session as a
    // normal end does; what it sent decides the exit code below.
    let ended = match server.clone().serve((stdin, tokio::io::stdout())).await {
        Ok(running) => match running.waiting().await {
            Ok(QuitReason::JoinError(e)) | Err(e) => {
                return Err(Error::internal(format!("the MCP session failed: {e}")));
            }
            // Closed or cancelled: the session is over.
            Ok(_) => None,
        },
        Err(
            ServerInitializeError::ConnectionClosed(_)
            | ServerInitializeError::Cancelled
            | ServerInitializeError::TransportError { .. },
        ) => None,
        // The peer answered the handshake with something else than MCP's.
        Err(e) => Some(e.to_string()),
    };
    let not_mcp = server.not_mcp.lock().ok().and_then(|l| l.clone());
    // JSON-RPC's answer to a line rmcp drops without one (JSON that is no message, it answers
    // itself with `-32600`); its id cannot be known.
    let answer = match &not_mcp {
        Some(NotMcp::NotJson(_)) => {
            Some(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
        }
        Some(NotMcp::TooLong) => Some(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message longer than 16 MiB"}}"#,
        ),
        Some(NotMcp::NotMessage(_)) | None => None,
    };
    if let Some(answer) = answer {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // After everything rmcp wrote. A client that is already gone cannot read it; the exit
        // code and stderr still say why.
        let _ = writeln!(out, "{answer}").and_then(|()| out.flush());
    }
    let message = match (not_mcp, ended) {
        (Some(NotMcp::NotJson(text) | NotMcp::NotMessage(text)), _) => {
            let text = crate::escape::term_code(&text);
            format!("the client sent a line that is not a JSON-RPC message: {text}")
        }
        (Some(NotMcp::TooLong), _) => {
            let mib = MAX_LINE >> 20;
            format!("the client sent a line longer than {mib} MiB, the most a message may be")
        }
        (None, Some(why)) => {
            let hint = "an MCP client starts with `initialize`; start `ixgen serve` from one";
            return Err(Error::usage(format!("the MCP handshake failed: {why}"), hint));
        }
        (None, None) => return Ok(0),
    };
    let hint =
        "`ixgen serve` speaks MCP on stdin and stdout: start it from an MCP client, one JSON-RPC message per line";
    Err(Error::usage(message, hint))
}

/// The first line a stdio client sent that is not a JSON-RPC message (its first 80 characters).
#[derive(Clone)]
enum NotMcp {
    /// Not JSON: answered with JSON-RPC's parse error, which rmcp does not send.
    NotJson(String),
    /// JSON that is no message (`1`): rmcp answers it (`-32600`).
    NotMessage(String),
    /// Longer than [`MAX_LINE`]: rmcp drops it unanswered, and its client would wait for ever.
    TooLong,
}

/// The longest line a stdio client may send, its newline included: rmcp's own limit.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Stdin as rmcp reads it, a whole line at a time, noting the first line that is not a JSON-RPC
/// message. rmcp reads on after such a line, but a peer that sends it is not speaking MCP: stdin
/// ends there (`ended`), so the session ends at once instead of when the peer closes stdin, and
/// `serve` exits 2 (after JSON-RPC's parse error when the line is not JSON, which rmcp does not
/// answer). A line is handed on only once it is whole, with its lone surrogate escapes mended
/// ([`mend_surrogates`]).
struct Watched<R> {
    inner: R,
    /// What was read of the current line, up to its newline.
    line: Vec<u8>,
    /// Whole lines, checked and mended, that rmcp has not read yet (from `at`).
    ready: Vec<u8>,
    at: usize,
    not_mcp: Arc<Mutex<Option<NotMcp>>>,
    /// A line that is not JSON-RPC was read (or stdin ended): nothing after it is read.
    ended: bool,
}

impl<R> Watched<R> {
    fn new(inner: R, not_mcp: Arc<Mutex<Option<NotMcp>>>) -> Self {
        Watched {
            inner,
            line: Vec::new(),
            ready: Vec::new(),
            at: 0,
            not_mcp,
            ended: false,
        }
    }

    /// Takes in what was read: each whole line is checked, mended and made ready.
    fn scan(&mut self, bytes: &[u8]) {
        for chunk in bytes.split_inclusive(|b| *b == b'\n') {
            self.line.extend_from_slice(chunk);
            // Not held whole past the limit: the session ends there.
            if self.line.len() > MAX_LINE && !self.ended {
                self.ended = true;
                self.line = Vec::new();
                if let Ok(mut first) = self.not_mcp.lock() {
                    first.get_or_insert(NotMcp::TooLong);
                }
            }
            if chunk.ends_with(b"\n") && !self.ended {
                let line = mend_surrogates(std::mem::take(&mut self.line));
                self.check(&line);
                self.ready.extend_from_slice(&line);
            }
        }
    }

    fn check(&mut self, line: &[u8]) {
        // Text that is not UTF-8 is not JSON (RFC 8259), however it looks: rmcp drops it
        // unanswered, and the session went on as if nothing had been sent.
        let utf8 = std::str::from_utf8(line).is_ok();
        let text = String::from_utf8_lossy(line);
        let text = text.trim_start_matches('\u{feff}').trim();
        // A JSON object (a message) or array (a batch) is JSON-RPC's to judge, and rmcp's. One
        // nested past serde_json's limit (128), or with a number past f64's (`1e400`), is JSON
        // too (JavaScript reads both): that request goes unanswered, as rmcp cannot read it
        // either, but the session goes on.
        let parsed = utf8.then(|| serde_json::from_str::<serde_json::Value>(text));
        let unreadable = matches!(&parsed, Some(Err(e))
            if ["recursion limit exceeded", "number out of range"].iter().any(|m| e.to_string().starts_with(m)));
        let value = parsed.and_then(Result::ok);
        let rpc = unreadable || value.as_ref().is_some_and(|v| v.is_object() || v.is_array());
        if !text.is_empty() && !rpc {
            self.ended = true;
            if let Ok(mut first) = self.not_mcp.lock() {
                let text = text.chars().take(80).collect();
                first.get_or_insert(if value.is_some() {
                    NotMcp::NotMessage(text)
                } else {
                    NotMcp::NotJson(text)
                });
            }
        }
    }
}

/// A line with each lone UTF-16 surrogate escape (`\ud83d` not followed by a low one, or a low
/// one alone) written as U+FFFD's (`\ufffd`, as long). `JSON.stringify` writes them for a string
/// that holds half of a character (a text cut by `slice`), and serde_json refuses them: the
/// whole request would go unanswered.
fn mend_surrogates(mut line: Vec<u8>) -> Vec<u8> {
    let escape_at = |line: &[u8], i: usize| match line.get(i..i + 6)? {
        [b'\\', b'u', hex @ ..] => u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok(),
        _ => None,
    };
    let mut i = 0;
    while i < line.len() {
        if line[i] != b'\\' {
            i += 1;
            continue;
        }
        let lone = match escape_at(&line, i) {
            Some(0xD800..=0xDBFF) => match escape_at(&line, i + 6) {
                Some(0xDC00..=0xDFFF) => {
                    i += 12;
                    continue;
                }
                _ => true,
            },
            Some(0xDC00..=0xDFFF) => true,
            // Another escape: `\\` must not make the next character look escaped.
            _ => false,
        };
        if lone {
            line[i + 2..i + 6].copy_from_slice(b"fffd");
            i += 6;
        } else {
            i += 2;
        }
    }
    line
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Watched<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        loop {
            let this = &mut *self;
            if this.at < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.at);
                buf.put_slice(&this.ready[this.at..this.at + n]);
                this.at += n;
                if this.at == this.ready.len() {
                    this.ready.clear();
                    this.at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                // End of input: the lines already read are rmcp's, and then the session ends.
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 8192];
            let mut read = tokio::io::ReadBuf::new(&mut chunk);
            match std::pin::Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                // Stdin closed: a last line without its newline is still a line.
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    if !this.line.is_empty() {
                        this.scan(b"\n");
                    }
                    this.ended = true;
                }
                Poll::Ready(Ok(())) => this.scan(read.filled()),
            }
        }
    }
}

/// A loopback origin (`http://localhost:3000`, `http://127.0.0.1`, `http://[::1]:8080`), the only
/// kind a page may send to a local server.
fn loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") {
        return false;
    }
    let host = match rest.strip_prefix('[') {
        Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or_default()),
        None => rest.split([':', '/']).next().unwrap_or_default().to_string(),
    };
    matches!(host.to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

/// The address to listen on: a bare port is 127.0.0.1's.
fn listen_address(addr: &str) -> String {
    if addr.parse::<u16>().is_ok() {
        format!("127.0.0.1:{addr}")
    } else {
        addr.to_string()
    }
}

/// A POST's body read ahead of rmcp, which answers one it cannot read with `415 Unsupported Media
/// Type` in plain text, as if its type were wrong: the request back when it is a JSON-RPC message
/// (with its lone surrogate escapes mended; a request that is not a JSON POST, or not acceptable
/// to rmcp, is rmcp's to answer), else the reference SDK's
/// answer (@modelcontextprotocol/server's `handlePostRequest`), `400` with JSON-RPC's parse error.
async fn read_message(req: axum::extract::Request) -> Result<axum::extract::Request, axum::response::Response> {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    // As rmcp checks them first: a POST of JSON, by a client that accepts JSON and events.
    let checked = {
        let get = |name| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
        let json = get(header::CONTENT_TYPE)
            .split(';')
            .next()
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        let accept = get(header::ACCEPT).to_ascii_lowercase();
        let accepted = accept.contains("application/json") && accept.contains("text/event-stream");
        req.method() == axum::http::Method::POST && json && accepted
    };
    if !checked {
        return Ok(req);
    }
    let refuse = |status: StatusCode, code: i32, message: &str| {
        let error = serde_json::json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": null});
        (status, [(header::CONTENT_TYPE, "application/json")], error.to_string()).into_response()
    };
    // rmcp's limit on a body (4 MiB), which it answers with 413 too.
    const MAX_BODY: usize = 4 << 20;
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        let message = format!("Payload Too Large: request body exceeds {MAX_BODY} bytes");
        return Err(refuse(StatusCode::PAYLOAD_TOO_LARGE, -32000, &message));
    };
    // Lone surrogate escapes mended, as on stdio ([`mend_surrogates`]).
    let bytes = mend_surrogates(bytes.to_vec());
    let message = if serde_json::from_slice::<serde_json::Value>(&bytes).is_err() {
        "Parse error: Invalid JSON"
    } else if serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(&bytes).is_err() {
        "Parse error: Invalid JSON-RPC message"
    } else {
        return Ok(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes)));
    };
    Err(refuse(StatusCode::BAD_REQUEST, -32700, message))
}

async fn serve_http(server: Server, addr: &str) -> Result<i32, Error> {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let token = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty());
    let factory = server.clone();
    let service = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let guard = move |req: axum::extract::Request, next: axum::middleware::Next| {
        let token = token.clone();
        async move {
            if let Some(origin) = req.headers().get("origin") {
                let origin = origin.to_str().unwrap_or("");
                if !loopback_origin(origin) {
                    return (StatusCode::FORBIDDEN, format!("origin `{origin}` is not allowed\n")).into_response();
                }
            }
            if let Some(want) = &token {
                let got = req.headers().get("authorization").and_then(|v| v.to_str().ok());
                // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` is `Bearer`.
                let given = (got.and_then(|g| g.split_once(' ')))
                    .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                    .map_or("", |(_, token)| token.trim_start());
                // Compared as hashes: `blake3::Hash` equality takes the same time wherever they differ.
                if blake3::hash(given.as_bytes()) != blake3::hash(want.as_bytes()) {
                    return (
                        StatusCode::UNAUTHORIZED,
                        [("www-authenticate", "Bearer")],
                        format!("a bearer token ({TOKEN_ENV}) is required\n"),
                    )
                        .into_response();
                }
            }
            match read_message(req).await {
                Ok(req) => next.run(req).await,
                Err(refused) => refused,
            }
        }
    };
    let router = axum::Router::new()
        .route_service("/mcp", service)
        .layer(axum::middleware::from_fn(guard));
    let listener = tokio::net::TcpListener::bind(listen_address(addr)).await.map_err(|e| {
        Error::usage(
            format!("cannot listen on {addr}: {e}"),
            "give a free address, e.g. --http 127.0.0.1:8765",
        )
    })?;
    let local = listener.local_addr().map_err(|e| Error::internal(e.to_string()))?;
    // The address on stderr, so that a caller that asked for port 0 learns the one it got.
    eprintln!("ixgen serve: listening on http://{local}/mcp");
    // It ends by a signal ([`stop_on_signal`]).
    axum::serve(listener, router)
        .await
        .map_err(|e| Error::internal(format!("the HTTP server failed: {e}")))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_escapes_are_mended_and_pairs_kept() {
        let mend = |s: &str| String::from_utf8(mend_surrogates(s.as_bytes().to_vec())).unwrap();
        assert_eq!(mend(r#"{"t":"\ud83d ok"}"#), r#"{"t":"\ufffd ok"}"#);
        assert_eq!(mend(r#"{"t":"\uD83D\uDE00"}"#), r#"{"t":"\uD83D\uDE00"}"#);
        assert_eq!(mend(r#"{"t":"\ude00\ud83d"}"#), r#"{"t":"\ufffd\ufffd"}"#);
        assert_eq!(mend(r#"{"t":"\\ud83d \"\u0041"}"#), r#"{"t":"\\ud83d \"\u0041"}"#);
        assert_eq!(mend(r#"{"t":"\ud83d"#), r#"{"t":"\ufffd"#);
        let value: serde_json::Value = serde_json::from_str(&mend(r#"{"t":"\ud83d ok"}"#)).unwrap();
        assert_eq!(value["t"], "\u{fffd} ok");
    }

    #[test]
    fn only_loopback_origins_pass() {
        assert!(loopback_origin("http://localhost:3000"));
        assert!(loopback_origin("http://127.0.0.1"));
        assert!(loopback_origin("https://[::1]:8443"));
        assert!(!loopback_origin("http://evil.example"));
        assert!(!loopback_origin("http://localhost.evil.example"));
        assert!(!loopback_origin("null"));
        assert_eq!(env_prefix("git-iris"), "GIT_IRIS");
        assert_eq!(listen_address("8765"), "127.0.0.1:8765");
    }
}
