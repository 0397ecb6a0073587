//! `ixgen serve` with the real MCP clients: the pinned SDK 1.x client (`tests/hosts/mcp-list.mjs`)
//! and the 2.x client (`tests/hosts/next/mcp-list.mjs`, pinned to revision 2026-07-28) list and
//! call the tools of the ix catalog (with the fake `ix` on PATH), of ipuaro and of git-iris,
//! over stdio and over Streamable HTTP; and the server's guards and controls, each shown.

mod support;

use serde_json::Value;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use support::{argv_log, fake_ix, path_with, root};

const IXGEN: &str = env!("CARGO_BIN_EXE_ixgen");

fn catalog(name: &str) -> PathBuf {
    match name {
        "ix" => root().join("catalog/ix.yaml"),
        other => root().join("tests/fixtures").join(other).join("catalog.yaml"),
    }
}

/// The `tools` of `mcp/tools.json` as `ixgen mcp` writes it for `catalog`, with `extra` flags.
/// The JSON lines `out` prints, as they come (a line that is not JSON as `null`).
fn json_lines(out: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Value> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&line).unwrap_or(Value::Null));
        }
    });
    rx
}

/// A copy of the git-iris catalog to edit, in a folder of its own, and the description of
/// `git_status` in it.
fn editable_git_iris() -> (tempfile::TempDir, PathBuf, String, &'static str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("catalog.yaml");
    let original = std::fs::read_to_string(catalog("git-iris")).unwrap();
    let old = "Branch and changed files; staged only unless include_unstaged.";
    assert!(original.contains(old));
    std::fs::write(&file, &original).unwrap();
    (dir, file, original, old)
}

fn generated_tools(catalog: &Path, extra: &[&str]) -> Value {
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(IXGEN)
        .args([
            OsStr::new("--catalog"),
            catalog.as_os_str(),
            OsStr::new("--out"),
            out.path().as_os_str(),
        ])
        .arg("mcp")
        .args(extra)
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "ixgen mcp: {}", String::from_utf8_lossy(&o.stderr));
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("mcp/tools.json")).unwrap()).unwrap();
    file["tools"].clone()
}

/// A whole `tools/list` file as `ixgen mcp <extra>` writes it at `file`.
fn generated_list(catalog: &Path, extra: &[&str], file: &str) -> Value {
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(IXGEN)
        .args([
            OsStr::new("--catalog"),
            catalog.as_os_str(),
            OsStr::new("--out"),
            out.path().as_os_str(),
        ])
        .arg("mcp")
        .args(extra)
        .arg("-q")
        .output()
        .unwrap();
    assert!(o.status.success(), "ixgen mcp: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(out.path().join(file)).unwrap()).unwrap()
}

/// A client run: `script` is `mcp-list.mjs` (SDK 1.x) or `next/mcp-list.mjs` (2.x).
struct Client<'a> {
    script: &'a str,
    cwd: &'a Path,
    env: Vec<(&'a str, String)>,
}

impl Client<'_> {
    fn run(&self, call: Option<(&str, &Value)>, target: &[&OsStr]) -> Output {
        support::ensure_npm_hosts();
        let mut cmd = Command::new("node");
        cmd.arg(support::script(self.script)).current_dir(self.cwd);
        if let Some((tool, args)) = call {
            cmd.args(["--call", tool, &args.to_string()]);
        }
        cmd.args(target).env("NO_COLOR", "1");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.output().expect("node runs")
    }

    /// Over stdio: the client spawns `ixgen serve --catalog <catalog> <extra>`.
    fn stdio(&self, catalog: &Path, extra: &[&str], call: Option<(&str, &Value)>) -> Value {
        let mut target: Vec<&OsStr> = vec![OsStr::new("--"), OsStr::new(IXGEN), OsStr::new("serve")];
        target.extend([OsStr::new("--catalog"), catalog.as_os_str()]);
        target.extend(extra.iter().map(OsStr::new));
        json_of(self.run(call, &target), self.script)
    }

    fn http(&self, url: &str, token: Option<&str>, call: Option<(&str, &Value)>) -> Value {
        let mut target: Vec<&OsStr> = vec![OsStr::new("--url"), OsStr::new(url)];
        if let Some(t) = token {
            target.extend([OsStr::new("--token"), OsStr::new(t)]);
        }
        json_of(self.run(call, &target), self.script)
    }
}

fn json_of(o: Output, what: &str) -> Value {
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{what} failed ({}):\n{stdout}\n{stderr}", o.status);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what} printed no JSON ({e}):\n{stdout}\n{stderr}"))
}

/// The listed tools and the call result, whichever client printed them.
fn parts(v: &Value) -> (&Value, &Value) {
    let list = if v.get("list").is_some() { &v["list"] } else { v };
    (&list["tools"], &v["call"])
}

fn call_text(call: &Value) -> &str {
    call["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {call}"))
}

fn is_error(call: &Value) -> bool {
    call["isError"] == Value::Bool(true)
}

/// `ixgen serve --http 127.0.0.1:0` started by the test; killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(catalog: &Path, cwd: &Path, env: &[(&str, String)]) -> HttpServer {
        let mut cmd = Command::new(IXGEN);
        cmd.args([
            OsStr::new("serve"),
            OsStr::new("--catalog"),
            catalog.as_os_str(),
            OsStr::new("--http"),
        ])
        .arg("127.0.0.1:0")
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("ixgen serve starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        // The catalog's warnings (an `unsupported` tool's) come before the address.
        let line = lines
            .by_ref()
            .map(|l| l.unwrap())
            .find(|l| l.contains("listening on ") || !l.starts_with("ixgen serve: warning: "))
            .expect("a line on stderr");
        let url = line
            .split_once("listening on ")
            .map(|(_, u)| u.trim().to_string())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        // The rest of stderr is drained, so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        HttpServer { child, url }
    }

    /// A raw POST of an `initialize` request with these extra headers; the status code.
    fn post_status(&self, headers: &[(&str, &str)]) -> u16 {
        self.post_status_at("", headers)
    }

    /// [`Self::post_status`] at the endpoint's path followed by `suffix`.
    fn post_status_at(&self, suffix: &str, headers: &[(&str, &str)]) -> u16 {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
        self.post(suffix, headers, body).0
    }

    /// A raw POST of `body` (as JSON, by a client that accepts JSON and events): the status
    /// code, and the answer's body.
    fn post(&self, suffix: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
        let url = format!("{}{suffix}", self.url);
        let rest = url.strip_prefix("http://").unwrap();
        let (host, path) = rest.split_once('/').unwrap();
        let mut req = format!(
            "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        let mut s = std::net::TcpStream::connect(host).unwrap();
        s.write_all(req.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        let status = answer
            .split_whitespace()
            .nth(1)
            .unwrap_or_else(|| panic!("an HTTP answer: {answer:?}"));
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        (status.parse().unwrap(), body.to_string())
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn clients<'a>(cwd: &'a Path, env: Vec<(&'a str, String)>) -> [Client<'a>; 2] {
    [
        Client {
            script: "mcp-list.mjs",
            cwd,
            env: env.clone(),
        },
        Client {
            script: "next/mcp-list.mjs",
            cwd,
            env,
        },
    ]
}

/// The ix catalog over stdio and HTTP, with the fake `ix`: both clients list exactly the tools of
/// `mcp/tools.json`, and a hostile symbol reaches `ix` as one argv element.
#[test]
fn both_sdk_clients_list_and_call_the_ix_tools_over_stdio_and_http() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    fake_ix(&bin);
    let log = dir.path().join("argv.log");
    let env = vec![("PATH", path_with(&bin)), ("IX_ARGV_LOG", log.display().to_string())];
    let ix = catalog("ix");
    let want = generated_tools(&ix, &[]);
    let want_2026 = generated_list(&ix, &["--profile", "2026-07-28"], "mcp/tools.2026-07-28.json");
    let hostile = "Foo; rm -rf / $(whoami) `id` \"quoted\" --format text\nnext";
    let args = serde_json::json!({"symbol": hostile});
    let server = HttpServer::start(&ix, dir.path(), &env);
    for client in clients(dir.path(), env.clone()) {
        for (how, v) in [
            ("stdio", client.stdio(&ix, &[], Some(("locate", &args)))),
            ("http", client.http(&server.url, None, Some(("locate", &args)))),
        ] {
            let (tools, call) = parts(&v);
            if client.script.starts_with("next/") {
                assert_eq!(v["protocolVersion"], "2026-07-28", "the 2.x client over {how}");
                // The 2026-07-28 result is that revision's file, but for its cache hints. (Its `resultType`, which
                // the client consumes and does not print, is there: the client refuses a list without one.) A
                // release's file may be cached for an hour by anyone; the list `serve` answers changes when the
                // catalog is saved and follows this user's settings, so it is stale at once and private.
                assert_eq!(
                    (&want_2026["ttlMs"], &want_2026["cacheScope"]),
                    (&3_600_000.into(), &"public".into())
                );
                assert_eq!(
                    (&v["list"]["ttlMs"], &v["list"]["cacheScope"]),
                    (&0.into(), &"private".into()),
                    "{how}"
                );
                assert_eq!(v["list"]["tools"], want_2026["tools"]);
            }
            assert_eq!(
                tools, &want,
                "{} over {how}: tools/list is mcp/tools.json",
                client.script
            );
            assert!(!is_error(call), "{} over {how}: {call}", client.script);
            assert!(call_text(call).starts_with("## locate"), "{}", call_text(call));
        }
    }
    let calls = argv_log(&log);
    for argv in &calls {
        // Every argv that names the symbol holds it whole, as one element.
        if argv.iter().any(|a| a.contains("rm -rf")) {
            assert!(argv.iter().any(|a| a == hostile), "split or altered: {argv:?}");
        }
    }
    assert!(
        calls.iter().any(|a| a.iter().any(|x| x == hostile)),
        "the symbol reached ix: {calls:?}"
    );
}

/// ipuaro and git-iris, whose tools run ordinary programs: a real call (awk, git), and a failing
/// call (an argument outside the worktree, a program that is not installed) is `isError` with
/// the OpenCode tool's text.
#[test]
fn both_sdk_clients_list_and_call_the_ipuaro_and_git_iris_tools() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
    let git = |args: &[&str]| {
        let o = Command::new("git").args(args).current_dir(dir.path()).output().unwrap();
        assert!(
            o.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "a.txt"]);
    let env = vec![("PATH", std::env::var("PATH").unwrap())];
    let (ipuaro, iris) = (catalog("ipuaro"), catalog("git-iris"));
    let (want_ipuaro, want_iris) = (generated_tools(&ipuaro, &[]), generated_tools(&iris, &[]));
    let servers = [
        HttpServer::start(&ipuaro, dir.path(), &env),
        HttpServer::start(&iris, dir.path(), &env),
    ];
    for client in clients(dir.path(), env.clone()) {
        let lines = serde_json::json!({"path": "a.txt", "start": 2});
        let outside = serde_json::json!({"path": "../../etc/passwd"});
        let status = serde_json::json!({});
        for (how, v) in [
            ("stdio", client.stdio(&ipuaro, &[], Some(("get_lines", &lines)))),
            ("http", client.http(&servers[0].url, None, Some(("get_lines", &lines)))),
        ] {
            let (tools, call) = parts(&v);
            assert_eq!(tools, &want_ipuaro, "{} over {how}", client.script);
            assert_eq!(
                call_text(call),
                "## get_lines: a.txt\n\n2\ttwo\n3\tthree",
                "{} over {how}",
                client.script
            );
            assert!(!is_error(call));
        }
        let v = client.stdio(&ipuaro, &[], Some(("get_lines", &outside)));
        let call = parts(&v).1;
        assert!(is_error(call), "{call}");
        assert!(
            call_text(call).contains("**Invalid arguments:** `path` must stay inside the worktree"),
            "{call}"
        );
        for (how, v) in [
            ("stdio", client.stdio(&iris, &[], Some(("git_status", &status)))),
            (
                "http",
                client.http(&servers[1].url, None, Some(("git_status", &status))),
            ),
        ] {
            let (tools, call) = parts(&v);
            assert_eq!(tools, &want_iris, "{} over {how}", client.script);
            assert!(!is_error(call), "{call}");
            assert!(
                call_text(call).contains("**Staged**\n\nA\ta.txt"),
                "{}",
                call_text(call)
            );
        }
        // get_function parses with the project's own `typescript`, which this folder has not:
        // an error that says what to install.
        let v = client.stdio(
            &ipuaro,
            &[],
            Some(("get_function", &serde_json::json!({"path": "a.txt", "name": "f"}))),
        );
        let call = parts(&v).1;
        assert!(is_error(call), "{call}");
        assert!(
            call_text(call).contains("npm install --save-dev typescript"),
            "{}",
            call_text(call)
        );
    }
}

/// Over HTTP: a foreign `Origin` is refused with 403, a loopback one passes, a path below `/mcp`
/// is not found; with a token set, a
/// missing or wrong bearer is refused with 401 and the right one lets the SDK client in.
#[test]
fn http_refuses_a_foreign_origin_and_a_missing_or_wrong_token() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![("PATH", std::env::var("PATH").unwrap())];
    let iris = catalog("git-iris");
    let open = HttpServer::start(&iris, dir.path(), &env);
    assert_eq!(open.post_status(&[("Origin", "http://evil.example")]), 403);
    assert_eq!(
        open.post_status(&[("Origin", "http://localhost.evil.example:8080")]),
        403
    );
    assert_eq!(open.post_status(&[("Origin", "http://localhost:3000")]), 200);
    assert_eq!(open.post_status(&[]), 200);
    // The endpoint is `/mcp` itself, nothing below it.
    assert_eq!(open.post_status_at("/tools", &[]), 404);

    let mut with_token = env.clone();
    with_token.push(("IXGEN_SERVE_TOKEN", "s3cret-token-for-tests".into()));
    let guarded = HttpServer::start(&iris, dir.path(), &with_token);
    assert_eq!(guarded.post_status(&[]), 401);
    assert_eq!(guarded.post_status(&[("Authorization", "Bearer wrong")]), 401);
    assert_eq!(
        guarded.post_status(&[("Authorization", "Bearer s3cret-token-for-tests")]),
        200
    );
    // The scheme's name is case-insensitive (RFC 9110 §11.1); the token is not.
    for (header, status) in [
        ("bearer s3cret-token-for-tests", 200),
        ("BEARER s3cret-token-for-tests", 200),
        ("Bearer S3CRET-TOKEN-FOR-TESTS", 401),
        ("Basic s3cret-token-for-tests", 401),
    ] {
        assert_eq!(guarded.post_status(&[("Authorization", header)]), status, "{header}");
    }
    let [one, _] = clients(dir.path(), env);
    let v = one.http(&guarded.url, Some("s3cret-token-for-tests"), None);
    assert_eq!(parts(&v).0, &generated_tools(&iris, &[]));
    let refused = one.run(None, &[OsStr::new("--url"), OsStr::new(&guarded.url)]);
    assert!(!refused.status.success(), "the client got in without the token");
}

/// A body `serve` cannot read gets the reference SDK's answer (@modelcontextprotocol/server
/// 2.4.0, `handlePostRequest`: 400 and JSON-RPC's parse error, `Invalid JSON` or `Invalid
/// JSON-RPC message`), where rmcp alone answered `415 Unsupported Media Type` in plain text; and a
/// lone surrogate escape is read as on stdio.
#[test]
fn http_answers_a_body_it_cannot_read_as_the_reference_sdk_does() {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![("PATH", std::env::var("PATH").unwrap())];
    let server = HttpServer::start(&catalog("git-iris"), dir.path(), &env);
    let error = |message: &str| serde_json::json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": message}, "id": null});
    for (body, message) in [
        ("garbage", "Parse error: Invalid JSON"),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,", "Parse error: Invalid JSON"),
        ("{\"a\":1}", "Parse error: Invalid JSON-RPC message"),
        ("1", "Parse error: Invalid JSON-RPC message"),
    ] {
        let (status, answer) = server.post("", &[], body);
        assert_eq!(status, 400, "{body}: {answer}");
        let answer: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{body}: {e}: {answer}"));
        assert_eq!(answer, error(message), "{body}");
    }
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"half \ud83d","version":"0"}}}"#;
    let (status, answer) = server.post("", &[], init);
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(r#""serverInfo""#), "{answer}");
}

/// Seed 004's controls: the kill switch, --read-only (flag and environment), the allowlist over
/// the blocklist with a warning, and the destructive annotation clients confirm with.
#[test]
fn the_kill_switch_read_only_filters_and_annotations() {
    let dir = tempfile::tempdir().unwrap();
    let ipuaro = catalog("ipuaro");

    let o = Command::new(IXGEN)
        .args([OsStr::new("serve"), OsStr::new("--catalog"), ipuaro.as_os_str()])
        .env("IPUARO_TOOLS_DISABLED", "1")
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("disabled by IPUARO_TOOLS_DISABLED"),
        "{o:?}"
    );

    let [one, two] = clients(dir.path(), vec![("PATH", std::env::var("PATH").unwrap())]);
    let read_only = generated_tools(&ipuaro, &["--read-only"]);
    let all = generated_tools(&ipuaro, &[]);
    assert!(read_only.as_array().unwrap().len() < all.as_array().unwrap().len());
    assert_eq!(parts(&one.stdio(&ipuaro, &["--read-only"], None)).0, &read_only);
    let env_ro = Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: vec![("IPUARO_TOOLS_READ_ONLY", "1".into())],
    };
    assert_eq!(parts(&env_ro.stdio(&ipuaro, &[], None)).0, &read_only);

    // The allowlist wins; the warning goes to stderr (the client passes the server's stderr on).
    let o = one.run(
        None,
        &[
            OsStr::new("--"),
            OsStr::new(IXGEN),
            OsStr::new("serve"),
            OsStr::new("--catalog"),
            ipuaro.as_os_str(),
            OsStr::new("--enable-tools"),
            OsStr::new("get_lines,delete_file"),
            OsStr::new("--disable-tools"),
            OsStr::new("get_lines"),
        ],
    );
    let v = json_of(
        Output {
            status: o.status,
            stdout: o.stdout.clone(),
            stderr: o.stderr.clone(),
        },
        "allowlist",
    );
    let names: Vec<&str> = parts(&v)
        .0
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_lines", "delete_file"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("the allowlist wins"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let listed = parts(&two.stdio(&ipuaro, &[], None)).0.clone();
    let delete = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "delete_file")
        .expect("delete_file");
    assert_eq!(delete["annotations"]["destructiveHint"], true);
    assert_eq!(delete["annotations"]["readOnlyHint"], false);
    let lines = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_lines")
        .expect("get_lines");
    assert_eq!(lines["annotations"]["readOnlyHint"], true);
    assert_eq!(lines["annotations"]["destructiveHint"], false);
}

/// The same controls from the user's config file (seed 004: set once, not per session): its
/// kill switch, which the environment variable overrides either way; its read-only mode and
/// lists, which the command line's lists replace; a mistake in it is a usage error with its line
/// and column, and nothing is served.
#[test]
fn the_user_config_file_sets_the_controls_and_the_environment_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    let ipuaro = catalog("ipuaro");
    let config = dir.path().join("serve.toml");
    let serve = |envs: &[(&str, &str)]| {
        let mut cmd = Command::new(IXGEN);
        cmd.args([OsStr::new("serve"), OsStr::new("--catalog"), ipuaro.as_os_str()])
            .env("IXGEN_SERVE_CONFIG", &config)
            .env_remove("IPUARO_TOOLS_DISABLED")
            .stdin(Stdio::null());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let names = |v: &Value| -> Vec<String> {
        parts(v)
            .0
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let client = |envs: Vec<(&'static str, String)>| Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: [vec![("IXGEN_SERVE_CONFIG", config.display().to_string())], envs].concat(),
    };

    // Another product's table does not touch this one.
    std::fs::write(&config, "[git-iris]\nenabled = false\n").unwrap();
    let all = generated_tools(&ipuaro, &[]);
    assert_eq!(parts(&client(vec![]).stdio(&ipuaro, &[], None)).0, &all);

    std::fs::write(&config, "[ipuaro]\nenabled = false\n").unwrap();
    let o = serve(&[]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`enabled = false` in [ipuaro] of") && err.contains("serve.toml"),
        "{err}"
    );
    // The environment variable wins either way.
    let on = client(vec![("IPUARO_TOOLS_DISABLED", "0".into())]).stdio(&ipuaro, &[], None);
    assert_eq!(parts(&on).0, &all);

    std::fs::write(
        &config,
        "[ipuaro]\nread_only = true\nenable_tools = [\"get_lines\", \"git_status\", \"delete_file\"]\n",
    )
    .unwrap();
    // Read-only leaves delete_file out of the allowlist.
    assert_eq!(
        names(&client(vec![]).stdio(&ipuaro, &[], None)),
        ["get_lines", "git_status"]
    );
    // The command line's list replaces the file's.
    assert_eq!(
        names(&client(vec![]).stdio(&ipuaro, &["--enable-tools", "get_structure"], None)),
        ["get_structure"]
    );

    std::fs::write(&config, "[ipuaro]\nread_only = true\nenable = false\n").unwrap();
    let o = serve(&[]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("serve.toml:3:1") && err.contains("unknown field `enable`"),
        "{err}"
    );
    // A tool the catalog does not have, at its line and column too.
    std::fs::write(&config, "[ipuaro]\nenable_tools = [\"get_lines\",\n  \"get_line\"]\n").unwrap();
    let o = serve(&[]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("serve.toml:3:3: no tool `get_line`") && err.contains("did you mean `get_lines`?"),
        "{err}"
    );
    // Unless the command line's list replaces the file's: then the file's is not in use.
    assert_eq!(
        names(&client(vec![]).stdio(&ipuaro, &["--enable-tools", "get_structure"], None)),
        ["get_structure"]
    );
}

/// `type: path` means the same as in OpenCode: an absolute path inside the project is served
/// like a relative one (the schema no longer refuses it), and one outside is refused with the
/// runtime's message.
#[test]
fn an_absolute_path_inside_the_project_is_accepted_and_one_outside_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "first\n  second\n").unwrap();
    let ipuaro = catalog("ipuaro");
    let [one, _] = clients(dir.path(), vec![("PATH", std::env::var("PATH").unwrap())]);
    let inside = dir.path().join("notes.txt");
    for path in [
        serde_json::json!("notes.txt"),
        serde_json::json!(inside.display().to_string()),
    ] {
        let v = one.stdio(&ipuaro, &[], Some(("get_lines", &serde_json::json!({"path": path}))));
        let call = parts(&v).1;
        assert!(!is_error(call), "{path}: {call}");
        assert!(call_text(call).contains("1\tfirst"), "{path}: {call}");
    }
    let v = one.stdio(
        &ipuaro,
        &[],
        Some(("get_lines", &serde_json::json!({"path": "/etc/hostname"}))),
    );
    let call = parts(&v).1;
    assert!(call_text(call).contains("must stay inside the worktree"), "{call}");
}

/// Started in a folder of a git repository, `serve` runs the tools at the repository's top, as
/// OpenCode runs them in its worktree: a repository-relative path (what git prints) reads the
/// same file from any folder, and a path in the repository outside that folder is inside.
#[test]
fn started_in_a_subfolder_of_a_repository_the_tools_run_at_its_top() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success());
    std::fs::write(dir.path().join("notes.txt"), "top\n").unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/notes.txt"), "package\n").unwrap();
    let pkg = dir.path().join("pkg");
    let [one, _] = clients(&pkg, vec![("PATH", std::env::var("PATH").unwrap())]);
    let ipuaro = catalog("ipuaro");
    let read = |path: &str| {
        let v = one.stdio(&ipuaro, &[], Some(("get_lines", &serde_json::json!({"path": path}))));
        parts(&v).1.clone()
    };
    let call = read("notes.txt");
    assert!(call_text(&call).contains("1\ttop"), "{call}");
    let call = read("pkg/notes.txt");
    assert!(call_text(&call).contains("1\tpackage"), "{call}");
    // The repository's top is as far as it goes.
    let call = read("../notes.txt");
    assert!(call_text(&call).contains("must stay inside the worktree"), "{call}");
}

/// Hot reload over stdio (a raw JSON-RPC session, which stays open across the edits): a valid
/// edit of the catalog is served and announced with `notifications/tools/list_changed`; an
/// invalid edit is logged on stderr and the previous catalog stays.
#[test]
fn a_valid_edit_is_served_and_announced_and_an_invalid_one_is_refused() {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};
    let (dir, file, original, old) = editable_git_iris();
    let mut child = Command::new(IXGEN)
        .args([OsStr::new("serve"), OsStr::new("--catalog"), file.as_os_str()])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = json_lines(child.stdout.take().unwrap());
    let (etx, erx) = mpsc::channel::<String>();
    let err = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in err.lines().map_while(Result::ok) {
            let _ = etx.send(line);
        }
    });
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    let wait = |what: &dyn Fn(&Value) -> bool| -> Value {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let v = rx.recv_timeout(left).expect("an answer in time");
            if what(&v) {
                return v;
            }
        }
    };
    let description = |list: &Value| {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "git_status")
            .unwrap()["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "reload", "version": "0"}}}),
    );
    let init = wait(&|v| v["id"] == 1);
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(description(&wait(&|v| v["id"] == 2)), old);

    std::fs::write(
        &file,
        original.replace(old, "Edited, the branch and the changed files."),
    )
    .unwrap();
    wait(&|v| v["method"] == "notifications/tools/list_changed");
    send(serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert_eq!(
        description(&wait(&|v| v["id"] == 3)),
        "Edited, the branch and the changed files."
    );

    std::fs::write(&file, original.replace("tools:\n", "tools: [\n")).unwrap();
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let line = erx
            .recv_timeout(end.saturating_duration_since(Instant::now()))
            .expect("the refusal is logged");
        if line.contains("cannot be served; still serving the previous catalog") {
            break;
        }
    }
    send(serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
    assert_eq!(
        description(&wait(&|v| v["id"] == 4)),
        "Edited, the branch and the changed files."
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// Hot reload for a 2026-07-28 client, which is told of a change only on a `subscriptions/listen`
/// stream it opened: the real SDK 2.x client (`next/mcp-listen.mjs`) opens one for the tool
/// list's changes, over stdio and over Streamable HTTP, and an edit of the catalog reaches it
/// there, the tools listed again with the edit in them.
#[test]
fn a_2026_client_listening_for_changes_is_told_of_an_edit() {
    use std::time::Duration;
    for http in [false, true] {
        let (dir, file, original, old) = editable_git_iris();
        // Over HTTP the server runs on its own; over stdio the client starts it.
        let server = http.then(|| HttpServer::start(&file, dir.path(), &[]));
        let mut client = Command::new("node");
        client.arg(support::script("next/mcp-listen.mjs"));
        match &server {
            Some(s) => client.args(["--url", &s.url]),
            None => client
                .args([OsStr::new("--"), OsStr::new(IXGEN), OsStr::new("serve")])
                .args([OsStr::new("--catalog"), file.as_os_str()]),
        };
        let mut child = client
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let rx = json_lines(child.stdout.take().unwrap());
        let err = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let (log, mut stderr) = (std::sync::Arc::clone(&err), child.stderr.take().unwrap());
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            *log.lock().unwrap() = text;
        });
        let next = |what: &str| match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(v) => v[what].clone(),
            Err(_) => panic!("http: {http}: no `{what}` line in time: {}", err.lock().unwrap()),
        };
        assert_eq!(next("listening")["git_status"], old, "http: {http}");
        std::fs::write(
            &file,
            original.replace(old, "Edited, the branch and the changed files."),
        )
        .unwrap();
        assert_eq!(
            next("changed")["git_status"],
            "Edited, the branch and the changed files.",
            "http: {http}"
        );
        drop(stdin);
        let status = child.wait().unwrap();
        assert!(status.success(), "http: {http}: {}", err.lock().unwrap());
    }
}

/// Confirmation: a `confirm` tool asks through MCP elicitation when the client offers it (runs on
/// accept, refused on decline, with the OpenCode tool's refusal text); without elicitation it
/// runs only when annotated destructive, which is the client's cue to ask.
#[test]
fn confirm_tools_ask_by_elicitation_or_rely_on_the_destructive_annotation() {
    let dir = tempfile::tempdir().unwrap();
    let ipuaro = catalog("ipuaro");
    let client = Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: vec![],
    };
    let run_with = |elicit: Option<&str>, modes: Option<&str>, tool: &str, args: Value| -> Value {
        let mut target: Vec<&OsStr> = Vec::new();
        if let Some(e) = elicit {
            target.extend([OsStr::new("--elicit"), OsStr::new(e)]);
        }
        if let Some(m) = modes {
            target.extend([OsStr::new("--elicit-modes"), OsStr::new(m)]);
        }
        target.extend([
            OsStr::new("--"),
            OsStr::new(IXGEN),
            OsStr::new("serve"),
            OsStr::new("--catalog"),
        ]);
        target.push(ipuaro.as_os_str());
        json_of(client.run(Some((tool, &args)), &target), "mcp-list.mjs")
    };
    let run = |elicit: Option<&str>, tool: &str, args: Value| run_with(elicit, None, tool, args);
    let v = run(
        Some("accept"),
        "create_file",
        serde_json::json!({"path": "made.txt", "content": "hello"}),
    );
    assert!(!is_error(&v["call"]), "{v}");
    // create_file's preview is the content it will write, after the question.
    assert_eq!(
        v["elicited"][0],
        "Allow `create_file` to run: create made.txt?\n\nhello"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("made.txt")).unwrap(), "hello");

    let v = run(
        Some("decline"),
        "create_file",
        serde_json::json!({"path": "no.txt", "content": "x"}),
    );
    assert!(is_error(&v["call"]), "{v}");
    assert_eq!(
        call_text(&v["call"]),
        "## create_file: no.txt\n\n**Not run:** permission for `create no.txt` was refused (the user declined)."
    );
    assert!(!dir.path().join("no.txt").exists());

    // No elicitation: the client's cue to ask is the destructive annotation, which every tool with `confirm`
    // of this catalog carries; the tool runs (its `deny` patterns still apply: run_command below).
    let v = run(
        None,
        "create_file",
        serde_json::json!({"path": "plain.txt", "content": "x"}),
    );
    assert!(!is_error(&v["call"]), "{v}");
    assert!(dir.path().join("plain.txt").exists());
    let tools = parts(&v).0.as_array().unwrap().clone();
    for t in tools
        .iter()
        .filter(|t| ["create_file", "delete_file", "run_command"].contains(&t["name"].as_str().unwrap()))
    {
        assert_eq!(t["annotations"]["destructiveHint"], true, "{t}");
    }
    let v = run(None, "run_command", serde_json::json!({"command": "sudo rm -rf /"}));
    assert!(is_error(&v["call"]), "{v}");
    assert!(
        call_text(&v["call"]).contains("**Refused:** `sudo rm -rf /` matches the blocked pattern"),
        "{v}"
    );
    let v = run(None, "delete_file", serde_json::json!({"path": "made.txt"}));
    assert!(!is_error(&v["call"]), "{v}");
    assert!(!dir.path().join("made.txt").exists());
    // A client that declared URL elicitation alone cannot show the question's form: it is not
    // asked, and the destructive annotation decides, as without elicitation. One that names
    // `form` is asked.
    let args = serde_json::json!({"path": "url.txt", "content": "x"});
    let v = run_with(Some("decline"), Some("url"), "create_file", args.clone());
    assert!(!is_error(&v["call"]), "{v}");
    assert_eq!(v["elicited"], serde_json::json!([]), "{v}");
    assert!(dir.path().join("url.txt").exists());
    let v = run_with(Some("decline"), Some("form,url"), "create_file", args);
    assert!(is_error(&v["call"]), "{v}");
    assert_eq!(v["elicited"].as_array().map(Vec::len), Some(1), "{v}");
}

/// Confirmation with a preview, in a real MCP client: the elicitation's message carries the diff
/// ipuaro's `edit_lines` will make (computed before the question, the file untouched); declined,
/// the file stays as it was; accepted, the edit is made.
#[test]
fn the_elicitation_shows_the_diff_of_an_edit_and_a_refusal_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "one\ntwo\nthree\n").unwrap();
    let ipuaro = catalog("ipuaro");
    let client = Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: vec![],
    };
    let run = |elicit: &str| -> Value {
        let mut target: Vec<&OsStr> = vec![OsStr::new("--elicit"), OsStr::new(elicit)];
        target.extend([
            OsStr::new("--"),
            OsStr::new(IXGEN),
            OsStr::new("serve"),
            OsStr::new("--catalog"),
        ]);
        target.push(ipuaro.as_os_str());
        let args = serde_json::json!({"path": "a.txt", "start": 2, "end": 2, "content": "TWO"});
        json_of(client.run(Some(("edit_lines", &args)), &target), "mcp-list.mjs")
    };
    let asked = "Allow `edit_lines` to run: edit a.txt lines 2-2?\n\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let v = run("decline");
    assert_eq!(v["elicited"][0], asked, "{v}");
    assert!(is_error(&v["call"]), "{v}");
    assert_eq!(
        call_text(&v["call"]),
        "## edit_lines: a.txt\n\n**Not run:** permission for `edit a.txt lines 2-2` was refused (the user declined)."
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\ntwo\nthree\n");
    let v = run("accept");
    assert_eq!(v["elicited"][0], asked, "{v}");
    assert!(!is_error(&v["call"]), "{v}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\nTWO\nthree\n");
}

/// A catalog whose `server:` is `ixgen serve --catalog <path>` (the existing `server` block, no new
/// syntax): `ixgen generate claude` writes a plugin whose `.mcp.json` launches it with the run's
/// filters (`filter_flags`), and both pinned Claude Code versions connect to it and fetch its tools.
#[test]
fn claude_code_connects_to_ixgen_serve_from_the_generated_plugin() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let cat_dir = t.join("cat");
    std::fs::create_dir_all(&cat_dir).unwrap();
    let cat = cat_dir.join("ix.yaml");
    let yaml = std::fs::read_to_string(catalog("ix")).unwrap();
    let block = "server:\n  name: ix-memory\n  command: ix\n  args: [mcp]\n";
    assert_eq!(
        yaml.matches(block).count(),
        1,
        "catalog/ix.yaml's server block changed; update this test"
    );
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let serving = format!(
        "server:\n  name: ix-memory\n  command: {}\n  args: [serve, --catalog, {}]\n",
        q(IXGEN),
        q(cat.to_str().unwrap())
    );
    std::fs::write(&cat, yaml.replace(block, &serving)).unwrap();
    std::fs::copy(root().join("catalog/ix-icon.png"), cat_dir.join("ix-icon.png")).unwrap();
    let plugin = t.join("plugin");
    let o = Command::new(IXGEN)
        .args([
            OsStr::new("--catalog"),
            cat.as_os_str(),
            OsStr::new("--out"),
            plugin.as_os_str(),
        ])
        .args(["generate", "claude", "--read-only", "-q"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let config: Value = serde_json::from_str(&std::fs::read_to_string(plugin.join(".mcp.json")).unwrap()).unwrap();
    let server = &config["mcpServers"]["ix-memory"];
    assert_eq!(server["command"], IXGEN, "{config}");
    assert_eq!(
        server["args"],
        serde_json::json!(["serve", "--catalog", cat.to_str().unwrap(), "--read-only"]),
        "{config}"
    );

    // The SDK client, launched exactly as the config says, gets the read-only list.
    let client = Client {
        script: "mcp-list.mjs",
        cwd: t,
        env: vec![],
    };
    let mut target: Vec<&OsStr> = vec![OsStr::new("--"), OsStr::new(IXGEN)];
    let args: Vec<String> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    target.extend(args.iter().map(OsStr::new));
    let v = json_of(client.run(None, &target), "mcp-list.mjs");
    assert_eq!(parts(&v).0, &generated_tools(&cat, &["--read-only"]));

    for (version, bin) in support::claude_versions() {
        let scratch = t.join(format!("claude-{version}"));
        let cwd = scratch.join("cwd");
        std::fs::create_dir_all(&cwd).unwrap();
        let mut cmd = Command::new(&bin);
        support::isolate(&mut cmd, &scratch);
        let out = cmd
            .current_dir(&cwd)
            .args([
                OsStr::new("--plugin-dir"),
                plugin.as_os_str(),
                OsStr::new("mcp"),
                OsStr::new("list"),
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find(|l| l.starts_with("plugin:ix:ix-memory:"))
            .unwrap_or_else(|| {
                panic!(
                    "Claude Code {version}: no server line\n{stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        assert!(
            line.contains(&format!("{IXGEN} serve --catalog")),
            "Claude Code {version}: {line}"
        );
        assert!(
            line.ends_with("- ✔ Connected"),
            "Claude Code {version} connected and fetched the tools: {line}"
        );
    }
}

/// A program that exits before reading all its stdin (a filter that wants the first bytes, a
/// preview step that gives up on a binary file) fails that write: the server lives on and
/// answers with what the program printed.
#[test]
fn a_program_that_leaves_its_stdin_unread_does_not_end_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("c.yaml");
    std::fs::write(
        &catalog,
        "version: 1
product: {name: p, version: 0.1.0, description: d, license: MIT}
toolsets: {all: {tools: [first]}}
targets: {mcp: {toolset: all}}
tools:
  - name: first
    description: The first bytes of a text
    params: {text: {type: string, required: true}}
    steps:
      - {program: sh, run: [-c, \"head -c 5; echo\"], stdin: \"{text}\"}
",
    )
    .unwrap();
    let client = Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: vec![],
    };
    // More than a pipe holds (64 KiB), so the write is still going when `head` exits.
    let text = "x".repeat(100_000);
    let v = client.stdio(&catalog, &[], Some(("first", &serde_json::json!({ "text": text }))));
    let call = parts(&v).1;
    assert!(!is_error(call), "{call}");
    assert!(call_text(call).ends_with("xxxxx"), "{call}");
}

/// Cancellation: the SDK client aborts a long call (it sends `notifications/cancelled`); the
/// server stops the program's process group at once, and keeps serving.
#[test]
fn a_cancelled_call_stops_its_program() {
    let dir = tempfile::tempdir().unwrap();
    let ipuaro = catalog("ipuaro");
    let env = vec![("PATH", std::env::var("PATH").unwrap())];
    let server = HttpServer::start(&ipuaro, dir.path(), &env);
    let client = Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: env.clone(),
    };
    // A duration no other process on the machine uses (this test process's id in it), to find
    // this one and not a leftover of an earlier run.
    let marker = format!("sleep 31.{}", std::process::id());
    let marker = marker.as_str();
    let args = serde_json::json!({"command": format!("{marker}; touch after-sleep")});
    let target = [
        // The call must have started when the abort comes (a cancellation of a request the
        // server has not seen yet is ignored, as the protocol says): generous on a loaded machine.
        OsStr::new("--cancel-after"),
        OsStr::new("3000"),
        OsStr::new("--url"),
        OsStr::new(&server.url),
    ];
    let v = json_of(
        client.run(Some(("run_command", &args)), &target),
        "mcp-list.mjs --cancel-after",
    );
    assert!(v["call"]["aborted"].is_string(), "the client aborted the call: {v}");
    let running = |_: ()| {
        Command::new("pgrep")
            .args(["-f", marker])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    // Well before the program would end by itself (31 s), with room for a loaded machine.
    let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while running(()) && std::time::Instant::now() < end {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!running(()), "`{marker}` still runs after the call was cancelled");
    assert!(!dir.path().join("after-sleep").exists());
    // The server is not wedged: the next call answers.
    let v = client.http(&server.url, None, Some(("git_status", &serde_json::json!({}))));
    assert!(parts(&v).1["content"][0]["text"].is_string(), "{v}");
}

/// A host stops `serve` with SIGTERM (after closing stdin) or Ctrl-C: the programs of a call still
/// running stop with it, rather than run on, orphaned, and finish what nobody waits for.
#[test]
fn stopping_serve_stops_the_programs_of_a_running_call() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("sleep 32.{}", std::process::id());
    let small = dir.path().join("catalog.yaml");
    std::fs::write(
        &small,
        format!(
            r#"version: 1
product: {{name: demo, version: 0.1.0, description: d}}
toolsets: {{all: {{tools: [slow]}}}}
targets: {{mcp: {{toolset: all}}}}
tools:
  - name: slow
    description: Slow write.
    access: write
    destructive: false
    steps: [{{program: sh, run: [-c, "{marker}; echo late > side-effect"]}}]
"#
        ),
    )
    .unwrap();
    let running = || {
        Command::new("pgrep")
            .args(["-f", &marker])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    for signal in ["TERM", "INT"] {
        let mut child = Command::new(IXGEN)
            .args([OsStr::new("serve"), OsStr::new("--catalog"), small.as_os_str()])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        for line in [
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#,
        ] {
            writeln!(stdin, "{line}").unwrap();
        }
        // The call has started: its program runs.
        let end = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !running() && std::time::Instant::now() < end {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(running(), "the call's program started");
        let kill = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status();
        assert!(kill.unwrap().success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "SIG{signal} ends serve normally");
        let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while running() && std::time::Instant::now() < end {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(!running(), "`{marker}` still runs after SIG{signal} stopped serve");
        assert!(!dir.path().join("side-effect").exists());
        drop(stdin);
    }
}

/// Half a character, as `JSON.stringify` writes it (a lone surrogate escape: a text cut by
/// `slice`), reaches the program as U+FFFD: the request is answered, not dropped, and the
/// session goes on.
#[test]
fn a_lone_surrogate_in_the_arguments_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("catalog.yaml");
    std::fs::write(
        &small,
        r#"version: 1
product: {name: demo, version: 0.1.0, description: d}
toolsets: {all: {tools: [echo]}}
targets: {mcp: {toolset: all}}
tools:
  - name: echo
    description: Echo.
    params: {text: {type: string, required: true}}
    steps: [{program: echo, run: ["{text}"]}]
"#,
    )
    .unwrap();
    let env = vec![("PATH", std::env::var("PATH").unwrap())];
    for client in clients(dir.path(), env) {
        // The arguments as the client parses them (JavaScript strings hold lone surrogates, which
        // serde_json's `Value` cannot): half an emoji, then a word.
        let target = [
            OsStr::new("--call"),
            OsStr::new("echo"),
            OsStr::new(r#"{"text": "\ud83d ok"}"#),
            OsStr::new("--"),
            OsStr::new(IXGEN),
            OsStr::new("serve"),
            OsStr::new("--catalog"),
            small.as_os_str(),
        ];
        let v = json_of(client.run(None, &target), client.script);
        let call = parts(&v).1;
        assert!(!is_error(call), "{}: {call}", client.script);
        assert_eq!(
            call_text(call),
            "## echo: \u{fffd} ok\n\n\u{fffd} ok",
            "{}",
            client.script
        );
    }
}

/// A request nested deeper than serde_json reads (128 levels), or with a number past f64's
/// (`1e400`; JavaScript reads both), does not end the session: the requests after it are answered.
#[test]
fn a_deeply_nested_request_does_not_end_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
    let input = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"git_status","arguments":{{"x":{deep}}}}}}}"#),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"git_status","arguments":{"x":1e400}}}"#
            .to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#.to_string(),
    ]
    .join("\n")
        + "\n";
    let mut child = Command::new(IXGEN)
        .args([
            OsStr::new("serve"),
            OsStr::new("--catalog"),
            catalog("ipuaro").as_os_str(),
        ])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let answers: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        answers.iter().any(|a| a["id"] == 3 && a["result"]["tools"].is_array()),
        "{answers:?}"
    );
}

/// The steps fixture (`tests/fixtures/steps/catalog.yaml`) served to the SDK client: a failed
/// call is `isError` with its text, a file comes back as printed (no heading, not trimmed), the
/// `rg`-else-`grep` records are listed, and git runs in the folder a step names.
#[test]
fn steps_that_read_program_output_are_served_with_failures_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let o = Command::new("git").args(args).current_dir(dir.path()).output().unwrap();
        assert!(o.status.success(), "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(dir.path().join("src/sub")).unwrap();
    std::fs::write(
        dir.path().join("src/a.py"),
        "    def f():\n        return 1  # TODO: x:y\n\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("src/sub/new.txt"), "x\n").unwrap();
    // No `rg` on PATH: the step's `when_missing` alternative, grep, runs.
    let no_rg = support::path_without(&["rg"]);
    let steps = catalog("steps");
    let client = Client {
        script: "mcp-list.mjs",
        cwd: dir.path(),
        env: vec![("PATH", no_rg)],
    };
    let call = |tool: &str, args: Value| {
        let v = client.stdio(&steps, &[], Some((tool, &args)));
        parts(&v).1.clone()
    };
    let c = call("failing", serde_json::json!({}));
    assert!(is_error(&c), "{c}");
    assert!(call_text(&c).contains("**Error:** `false` exited with code 1"), "{c}");
    let c = call("untrimmed", serde_json::json!({"file": "src/a.py"}));
    assert!(!is_error(&c), "{c}");
    assert_eq!(call_text(&c), "    def f():\n        return 1  # TODO: x:y\n\n");
    let c = call("search", serde_json::json!({"pattern": "TODO"}));
    assert_eq!(
        call_text(&c),
        "## search: TODO\n\n**Matches** (1):\n\n- `./src/a.py` line 2:         return 1  # TODO: x:y"
    );
    let c = call("status", serde_json::json!({"dir": "src/sub"}));
    assert_eq!(call_text(&c), "## status\n\n?? new.txt");
    let c = call("status", serde_json::json!({"dir": "../.."}));
    assert!(is_error(&c), "{c}");
    // `answer: {heading: false, empty: ""}`: nothing printed is an empty answer.
    let c = call("quiet", serde_json::json!({}));
    assert!(!is_error(&c), "{c}");
    assert_eq!(call_text(&c), "");
}

/// A stdio client that goes away, before the handshake or after it, ends `serve` as a normal end
/// does (exit 0); one that sends something that is not MCP is told so on stderr (exit 2). Neither
/// is ixgen's bug (70).
#[test]
fn a_client_that_goes_away_ends_serve_and_one_that_is_not_mcp_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let serve = |stdin: &str| {
        let mut child = Command::new(IXGEN)
            .args([
                OsStr::new("serve"),
                OsStr::new("--catalog"),
                catalog("steps").as_os_str(),
            ])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        let o = child.wait_with_output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    for (how, stdin) in [
        ("closed at once", String::new()),
        ("closed after initialize", format!("{init}\n")),
        ("closed after the handshake", format!("{init}\n{initialized}\n")),
    ] {
        let (code, err) = serve(&stdin);
        assert_eq!(code, Some(0), "{how}: {err}");
        assert!(!err.contains("internal error"), "{how}: {err}");
    }
    for (how, stdin) in [
        ("garbage first", "garbage\n".to_string()),
        (
            "garbage after the handshake",
            format!("{init}\n{initialized}\ngarbage\n"),
        ),
    ] {
        let (code, err) = serve(&stdin);
        assert_eq!(code, Some(2), "{how}: {err}");
        assert!(
            err.contains("the client sent a line that is not a JSON-RPC message: `garbage`"),
            "{how}: {err}"
        );
        assert!(err.contains("help: "), "{how}: {err}");
    }
    // A JSON-RPC message, but not the start of an MCP session.
    let (code, err) = serve("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the MCP handshake failed"), "{err}");

    // A client that sends garbage and keeps stdin open: answered with JSON-RPC's parse error and
    // ended at once (exit 2), not when it closes stdin.
    // A request that is not UTF-8 is not JSON either (RFC 8259), however JSON-like: rmcp
    // dropped it unanswered, and the session went on.
    let not_utf8: Vec<u8> =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"p":"a?"}}}"#
            .iter()
            .map(|&b| if b == b'?' { 0xff } else { b })
            .chain([b'\n'])
            .collect();
    // A line past rmcp's limit (16 MiB), which rmcp drops unanswered: its client waited for ever,
    // and serve held the whole line, however long.
    let too_long = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"x","arguments":{{"p":"{}"}}}}}}"#,
        "a".repeat(16 << 20)
    );
    let parse_error =
        serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
    let not_json = "the client sent a line that is not a JSON-RPC message";
    for (how, stdin, answer, why) in [
        ("garbage first", b"garbage\n".to_vec(), &parse_error, not_json),
        (
            "garbage after the handshake",
            format!("{init}\n{initialized}\ngarbage\n").into_bytes(),
            &parse_error,
            not_json,
        ),
        (
            "a request that is not UTF-8",
            [format!("{init}\n{initialized}\n").as_bytes(), &not_utf8].concat(),
            &parse_error,
            not_json,
        ),
        (
            "a line longer than 16 MiB",
            format!("{init}\n{initialized}\n{too_long}\n").into_bytes(),
            &serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request: a message longer than 16 MiB"}}),
            "the client sent a line longer than 16 MiB",
        ),
    ] {
        let mut child = Command::new(IXGEN)
            .args([
                OsStr::new("serve"),
                OsStr::new("--catalog"),
                catalog("steps").as_os_str(),
            ])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut open = child.stdin.take().unwrap();
        // serve may end before it has read everything (the long line): the rest is not read.
        let _ = open.write_all(&stdin);
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if start.elapsed() > std::time::Duration::from_secs(10) {
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        drop(open);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(status.is_some(), "{how}: serve waited for stdin to close: {err}");
        assert_eq!(o.status.code(), Some(2), "{how}: {err}");
        assert!(err.contains(why), "{how}: {err}");
        let last: Value =
            serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap_or("")).unwrap();
        assert_eq!(&last, answer, "{how}");
    }
}

/// A request a client gets wrong is answered with the reference SDK's error code: the same raw
/// lines go to `ixgen serve` and to a server on @modelcontextprotocol/server 2.4.0
/// (`next/mcp-reference.mjs`). A malformed `tools/call` (no `name`, a `name` that is no string,
/// `arguments` that are no object, no `params`) is invalid params, -32602 "Invalid tools/call
/// request: …" (rmcp alone answered -32601, no such method), and an unknown method is -32601.
#[test]
fn a_malformed_request_gets_the_reference_sdks_error_code() {
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":7}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"nope/x","params":{}}"#,
    ];
    // Each answer by its id, once there is one for every request (stdin stays open until then:
    // a server may end at the end of its input before it answered).
    let answers = |mut cmd: Command| {
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        for line in lines {
            writeln!(stdin, "{line}").unwrap();
        }
        let rx = json_lines(child.stdout.take().unwrap());
        let mut by_id = std::collections::BTreeMap::new();
        while by_id.len() < 6 {
            let v = rx
                .recv_timeout(std::time::Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("{cmd:?} answered only {by_id:?}"));
            by_id.insert(v["id"].as_i64().expect("an answer has its request's id"), v);
        }
        drop(stdin);
        child.wait().unwrap();
        by_id
    };
    let dir = tempfile::tempdir().unwrap();
    let mut ours = Command::new(IXGEN);
    ours.args([
        OsStr::new("serve"),
        OsStr::new("--catalog"),
        catalog("steps").as_os_str(),
    ])
    .current_dir(dir.path());
    let ours = answers(ours);
    let mut reference = Command::new("node");
    reference
        .arg(support::script("next/mcp-reference.mjs"))
        .current_dir(dir.path());
    let reference = answers(reference);
    let codes = |a: &std::collections::BTreeMap<i64, Value>| {
        a.iter()
            .map(|(id, v)| (*id, v["error"]["code"].as_i64()))
            .collect::<Vec<_>>()
    };
    assert_eq!(codes(&ours), codes(&reference), "{ours:#?}\n{reference:#?}");
    assert_eq!(
        codes(&ours)[1..],
        [
            (2, Some(-32602)),
            (3, Some(-32602)),
            (4, Some(-32602)),
            (5, Some(-32602)),
            (6, Some(-32601))
        ]
    );
    for id in 2..=5 {
        let message = ours[&id]["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Invalid tools/call request: "), "{message}");
    }
}

/// A tool with an `output_schema` answers its structured result (MCP `structuredContent`, the
/// data of the step whose `json` declares that schema) beside its text, and the SDK client, which
/// refuses a call without it and checks it against the schema, accepts it; a call that has no
/// such value is an error result. The ix catalog's `smells`, served by plain `ixgen serve` with
/// the fake `ix`, answers `ix smells --format json`'s data.
#[test]
fn a_tool_with_an_output_schema_answers_its_structured_result() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("catalog.yaml");
    std::fs::write(
        &small,
        r#"version: 1
product: {name: demo, version: 0.1.0, description: d}
runtime: {url_env: DEMO_URL, default_url: "http://127.0.0.1:9", timeout_ms: 5000}
schemas: {hits: {type: object, properties: {total: {type: integer}}}}
toolsets: {all: {tools: [search, nothing, routed, wrong]}}
targets: {mcp: {toolset: all}}
tools:
  - name: wrong
    description: Answers a total that is not a number.
    output_schema: hits
    steps:
      - {id: found, program: sh, run: [-c, "echo '{{\"total\": \"3\"}}'"], json: hits}
  - name: routed
    description: Search, through the runtime's route when it answers.
    output_schema: hits
    runtime: {method: GET, path: /v1/hits, output: json}
    steps:
      - {id: found, program: sh, run: [-c, "echo '{{\"total\": 5}}'"], json: hits}
  - name: search
    description: Search.
    output_schema: hits
    steps:
      - {id: found, program: sh, run: [-c, "echo '{{\"total\": 3}}'"], json: hits}
  - name: nothing
    description: Finds nothing.
    output_schema: hits
    steps:
      - {id: found, program: sh, run: [-c, "true"], json: hits}
"#,
    )
    .unwrap();
    let bin = dir.path().join("bin");
    fake_ix(&bin);
    let env = vec![("PATH", path_with(&bin))];
    for client in clients(dir.path(), env) {
        let what = client.script;
        let v = client.stdio(&small, &[], Some(("search", &serde_json::json!({}))));
        let (tools, call) = parts(&v);
        assert_eq!(
            tools[0]["outputSchema"]["properties"]["total"]["type"], "integer",
            "{what}"
        );
        assert!(!is_error(call), "{what}: {call}");
        assert_eq!(
            call["structuredContent"],
            serde_json::json!({"total": 3}),
            "{what}: {call}"
        );
        assert_eq!(call_text(call), "## search\n\n{\"total\": 3}", "{what}");
        // `true` prints nothing (data `null`): no structured result, so no success either.
        let v = client.stdio(&small, &[], Some(("nothing", &serde_json::json!({}))));
        let call = parts(&v).1;
        assert!(is_error(call), "{what}: {call}");
        assert!(call.get("structuredContent").is_none(), "{what}: {call}");
        assert!(call_text(call).contains("no structured result"), "{what}: {call}");
        // A result the schema does not describe is an error that says why, with the text: as
        // `structuredContent`, the clients would refuse the whole call.
        let v = client.stdio(&small, &[], Some(("wrong", &serde_json::json!({}))));
        let call = parts(&v).1;
        assert!(is_error(call), "{what}: {call}");
        assert!(call.get("structuredContent").is_none(), "{what}: {call}");
        assert!(
            call_text(call).starts_with("## wrong\n\n{\"total\": \"3\"}\n\n**Error:** the structured result does not match the tool's output schema: at '/total': want integer, but got string"),
            "{what}: {call}"
        );
        // A route answers the daemon's own JSON, which the output schema does not describe: a tool
        // with a structured result is answered by its steps, also while the route is up.
        let (url, requests) = support::runtime_server(r#"{"total": "seven", "other": 1}"#.to_string());
        let routed = Client {
            env: vec![("PATH", path_with(&bin)), ("DEMO_URL", url)],
            ..client
        };
        let v = routed.stdio(&small, &[], Some(("routed", &serde_json::json!({}))));
        let call = parts(&v).1;
        assert!(!is_error(call), "{what}: {call}");
        assert_eq!(
            call["structuredContent"],
            serde_json::json!({"total": 5}),
            "{what}: {call}"
        );
        assert!(requests.try_recv().is_err(), "{what}: the route was asked");
        // The ix catalog, as plain `ixgen serve` serves it.
        let v = client.stdio(
            &catalog("ix"),
            &[],
            Some(("smells", &serde_json::json!({"path": "src"}))),
        );
        let (tools, call) = parts(&v);
        let smells = tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "smells")
            .unwrap();
        assert_eq!(smells["outputSchema"]["type"], "object", "{what}");
        assert!(!is_error(call), "{what}: {call}");
        let data = &call["structuredContent"];
        assert_eq!(
            (&data["rev"], &data["count"]),
            (&serde_json::json!(42), &serde_json::json!(60)),
            "{what}"
        );
        assert_eq!(data["candidates"].as_array().map(Vec::len), Some(60), "{what}");
        let text = call_text(call);
        let json = text
            .strip_prefix("## smells\n\n")
            .unwrap_or_else(|| panic!("{what}: {text}"));
        assert_eq!(
            &serde_json::from_str::<Value>(json).unwrap(),
            data,
            "{what}: the text is the same JSON"
        );
    }
}

/// A catalog whose `server` (launched as `ixgen serve` by every host config ixgen writes) has
/// another toolset than `targets.mcp`: a client that launches it from the generated `.mcp.json`
/// gets the server's tools, the ones its config names, not the MCP target's.
#[test]
fn serve_serves_the_toolset_the_generated_configs_launch_it_for() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("catalog.yaml");
    let text = std::fs::read_to_string(catalog("steps")).unwrap();
    let text = text
        .replace("toolsets:\n", "toolsets:\n  served:\n    tools: [search, lines]\n")
        .replace(
            "  mcp: {toolset: main}\n",
            "  mcp: {toolset: main}\n  claude: {readme: false}\n  codex: {}\n",
        )
        .replace(
            "  args: [serve]\n  toolset: main\n",
            "  args: [serve]\n  toolset: served\n",
        );
    assert!(text.contains("toolset: served") && text.contains("claude: {readme: false}"));
    std::fs::write(&file, &text).unwrap();
    let out = dir.path().join("out");
    let o = Command::new(IXGEN)
        .args([
            OsStr::new("--catalog"),
            file.as_os_str(),
            OsStr::new("--out"),
            out.as_os_str(),
        ])
        .args(["generate", "--read-only"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The plugin's config launches `ixgen serve`; Codex's names the tools it keeps.
    let mcp: Value = serde_json::from_str(&std::fs::read_to_string(out.join(".mcp.json")).unwrap()).unwrap();
    let server = &mcp["mcpServers"]["steps"];
    assert_eq!(server["command"], "ixgen", "{mcp}");
    assert_eq!(server["args"][0], "serve", "{mcp}");
    let codex = std::fs::read_to_string(out.join(".codex/config.toml")).unwrap();
    assert!(codex.contains(r#"enabled_tools = ["search", "lines"]"#), "{codex}");

    // What that client gets.
    let args: Vec<String> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let mut child = Command::new(IXGEN)
        .args(&args)
        .args([OsStr::new("--catalog"), file.as_os_str()])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for m in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ] {
        writeln!(stdin, "{m}").unwrap();
    }
    let list = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .map(|l| serde_json::from_str::<Value>(&l).unwrap_or(Value::Null))
        .find(|v| v["id"] == 2)
        .expect("the tools/list answer");
    drop(stdin);
    let _ = child.wait();
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["search", "lines"], "{list}");
}
