//! Runtime routes (docs/exec-spec.md, "Runtime route"), which the conformance suite leaves out
//! (it needs no network): a small HTTP server on 127.0.0.1 answers as a product's runtime would,
//! and each answer reads as the TypeScript runtime's `__ixgenRuntime` makes it — markdown, JSON,
//! an HTTP error, a timeout, the steps as the fallback with `{runtime.why}`, a redacted body.

use ixgen_runtime::spec::{ExecSpec, SpecShared};
use ixgen_runtime::{Cancel, Ctx, run_tool};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The length of the `/big` answer's markdown: more than ureq reads by default (10 MB).
const BIG: usize = 12 << 20;

/// The requests a server saw: (path, body).
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// Serves every connection on its own thread; records each request's body by path.
fn server() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                reader.read_line(&mut first).unwrap();
                let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
                let mut len = 0;
                loop {
                    let mut h = String::new();
                    reader.read_line(&mut h).unwrap();
                    if h.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                log.lock()
                    .unwrap()
                    .push((path.clone(), String::from_utf8(body).unwrap()));
                // Redirects: to `/ok`, to nowhere (no `location`), and to itself.
                let location = match path.as_str() {
                    "/temp" => "location: /ok\r\n",
                    "/loop" => "location: loop\r\n",
                    _ => "",
                };
                let (status, answer) = match path.as_str() {
                    "/temp" => ("307 Temporary Redirect", String::new()),
                    "/moved" => ("301 Moved Permanently", String::new()),
                    "/loop" => ("302 Found", String::new()),
                    "/ok" => ("200 OK", json!({"markdown": "hello **there**", "other": 1}).to_string()),
                    "/title" => ("200 OK", json!({"markdown": "# Own title\n\nbody"}).to_string()),
                    "/json" => ("200 OK", json!({"a": 1.0, "b": [true, null], "c": {}}).to_string()),
                    "/nomd" => ("200 OK", json!({"markdown": "  "}).to_string()),
                    "/notjson" => ("200 OK", "{\"markdown\": ".to_string()),
                    "/deep" => ("200 OK", format!("{}{}", "[".repeat(5000), "]".repeat(5000))),
                    "/big" => ("200 OK", json!({"markdown": "x".repeat(BIG)}).to_string()),
                    "/slow" => {
                        std::thread::sleep(Duration::from_secs(3));
                        ("200 OK", json!({"markdown": "too late"}).to_string())
                    }
                    _ => ("503 Service Unavailable", "{}".to_string()),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\n{location}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            });
        }
    });
    (base, seen)
}

fn spec(base: &str, path: &str, json_out: bool, steps: Value) -> ExecSpec {
    serde_json::from_value(json!({
        "version": 4,
        "name": "route",
        "heading": ["route: ", {"var": "q"}],
        "params": [{"name": "q", "type": "string", "required": true}],
        "runtime": {
            "url_env": "IXGEN_ROUTES_TEST_URL_UNSET",
            "default_url": format!("{base}/"),
            "timeout_ms": 500,
            "method": "POST",
            "path": path,
            "body": {"obj": {"query": {"var": "q"}, "kind": {"lit": "x"}}},
            "markdown_field": "markdown",
            "json": json_out
        },
        "steps": steps,
        "output": if steps.as_array().is_some_and(|s| !s.is_empty()) {
            json!([{"text": ["fell back (", {"var": "runtime.why"}, ")"]}])
        } else {
            json!([])
        }
    }))
    .unwrap()
}

fn run(spec: &ExecSpec, q: &str) -> ixgen_runtime::Answer {
    run_with(spec, q, None)
}

fn run_with(spec: &ExecSpec, q: &str, cancel: Option<&Cancel>) -> ixgen_runtime::Answer {
    let dir = std::env::temp_dir();
    let ctx = Ctx {
        cwd: Some(dir.as_path()),
        ask: None,
        cancel,
    };
    run_tool(
        spec,
        &serde_json::Map::new(),
        &json!({"q": q}),
        &ctx,
        &SpecShared::default(),
    )
}

#[test]
fn a_route_answers_markdown_json_or_falls_back() {
    let (base, seen) = server();
    let a = run(&spec(&base, "/ok", false, json!([])), "x");
    assert_eq!(a.text, "## route: x\n\nhello **there**");
    assert!(!a.is_error);

    // Markdown that brings its own heading is returned as it is.
    assert_eq!(
        run(&spec(&base, "/title", false, json!([])), "x").text,
        "# Own title\n\nbody"
    );

    // `json`: the whole answer, as JSON.stringify(data, null, 2) prints it.
    let a = run(&spec(&base, "/json", true, json!([])), "x");
    assert_eq!(
        a.text,
        "## route: x\n\n```json\n{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"c\": {}\n}\n```"
    );

    // No steps to fall back on: the error, with the URL and why.
    let a = run(&spec(&base, "/down", false, json!([])), "x");
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/down (HTTP 503).")
    );
    assert!(a.is_error);
    let a = run(&spec(&base, "/nomd", false, json!([])), "x");
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/nomd (no `markdown` in the answer).")
    );
    // The reasons are the TypeScript runtime's words (`__ixgenRuntime`), not serde_json's or ureq's.
    let a = run(&spec(&base, "/notjson", false, json!([])), "x");
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/notjson (the answer is not JSON).")
    );
    // JSON nested deeper than both runtimes read (100 levels) is refused, and safely: no stack
    // overflow at any depth.
    let a = run(&spec(&base, "/deep", true, json!([])), "x");
    assert_eq!(
        a.text,
        format!(
            "## route: x\n\n**Error:** the runtime is unreachable at {base}/deep (the answer is nested deeper than 100 levels)."
        )
    );
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let a = run(&spec(&nobody, "/x", false, json!([])), "x");
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {nobody}/x (the connection failed).")
    );

    // Steps after a failed route: they run, and `runtime.why` says why.
    let steps = json!([{"exec": {"kind": "cli", "program": "true", "argv": []}}]);
    let a = run(&spec(&base, "/down", false, steps), "x");
    assert_eq!(a.text, "## route: x\n\nfell back (HTTP 503)");

    // What is sent is redacted: a secret in an argument never leaves.
    run(&spec(&base, "/ok", false, json!([])), "api_key=abcdefgh12345678");
    let bodies = seen.lock().unwrap().clone();
    let sent: Value = serde_json::from_str(&bodies.last().unwrap().1).unwrap();
    assert_eq!(sent, json!({"query": "api_key=[REDACTED]", "kind": "x"}));
}

/// Redirects as fetch follows them: a 307 keeps the POST and its body (a FastAPI route answers
/// one to a path without its trailing slash); a redirect with no `location` is the answer; an
/// endless one fails as fetch's does.
#[test]
fn redirects_are_followed_as_fetch_follows_them() {
    let (base, seen) = server();
    let a = run(&spec(&base, "/temp", false, json!([])), "x");
    assert_eq!(a.text, "## route: x\n\nhello **there**");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["/temp", "/ok"]
    );
    assert_eq!(seen[1].1, r#"{"query":"x","kind":"x"}"#);
    let a = run(&spec(&base, "/moved", false, json!([])), "x");
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/moved (HTTP 301).")
    );
    let a = run(&spec(&base, "/loop", false, json!([])), "x");
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/loop (the connection failed).")
    );
}

#[test]
fn a_route_that_does_not_answer_in_time_is_abandoned() {
    let (base, _) = server();
    let start = Instant::now();
    let a = run(&spec(&base, "/slow", false, json!([])), "x");
    let took = start.elapsed();
    assert!(took < Duration::from_millis(2500), "the 500 ms timeout held: {took:?}");
    assert!(a.is_error);
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/slow (timed out after 500 ms).")
    );
}

#[test]
fn a_large_answer_is_read_whole_as_fetch_reads_it() {
    let (base, _) = server();
    let mut big = spec(&base, "/big", false, json!([]));
    big.runtime.as_mut().unwrap().timeout_ms = Some(30_000);
    let a = run(&big, "x");
    assert!(!a.is_error, "{}", &a.text[..a.text.len().min(300)]);
    assert_eq!(a.text.len(), "## route: x\n\n".len() + BIG);
    assert!(a.text.starts_with("## route: x\n\nxxx") && a.text.ends_with("xxx"));
}

#[test]
fn a_cancelled_call_gives_up_on_its_route_at_once() {
    let (base, _) = server();
    // `/slow` answers after 3 s, well within this timeout: only the cancel can end the wait.
    let mut slow = spec(&base, "/slow", false, json!([]));
    slow.runtime.as_mut().unwrap().timeout_ms = Some(20_000);
    let cancel = Cancel::new();
    let start = Instant::now();
    let a = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            cancel.cancel();
        });
        run_with(&slow, "x", Some(&cancel))
    });
    let took = start.elapsed();
    assert!(
        took < Duration::from_millis(2500),
        "the route was given up when cancelled: {took:?}"
    );
    assert!(a.is_error);
    assert_eq!(
        a.text,
        format!("## route: x\n\n**Error:** the runtime is unreachable at {base}/slow (the call was cancelled).")
    );

    // Cancelled before it starts: no request is made at all.
    let a = run_with(&slow, "x", Some(&cancel));
    assert!(a.text.ends_with("/slow (the call was cancelled)."), "{}", a.text);
}
