//! The ralph session tools end to end, with the real programs: a real `xs serve` store at the
//! loop's `.ralph/store`, the generated `.opencode/tool/ralph.ts` run by the real OpenCode
//! 1.18.33 (one tool per `opencode debug agent build` call), and the real Nushell reading the
//! same store with the real loop's rules (`examples/ralph/ralph.nu`, a stand-in for
//! mark3labs/ralph.nu at 19983b4).
//!
//! One #[test] drives a whole session (tasks, an ambiguous prefix, `session_name`, notes, a
//! message sent as `ralph.nu message` sends it, a regeneration for the next iteration,
//! completion seen by the loop's 5-minute rule, and a loop pid that is signalled); a second one
//! checks that hostile session names are refused before anything is written (no hosts needed);
//! a third runs `task_add` through an `xs` that stores the frame but prints nothing, as xs
//! 0.13.4's `append` now and then does.

mod support;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use support::{OpencodeProject, isolate, path_with};

const SESSION: &str = "e2e";
const TASKS: &str = "ralph.e2e.task";
const NOTES: &str = "ralph.e2e.note";
const INBOX: &str = "ralph.e2e.inbox";
const CONTROL: &str = "ralph.e2e.control";

/// Every process the test starts; killed and reaped on drop, so a failing assertion does not
/// leave `xs serve`, `nu` or `sleep` running.
#[derive(Default)]
struct Procs(Vec<Child>);

impl Procs {
    fn add(&mut self, child: Child) -> usize {
        self.0.push(child);
        self.0.len() - 1
    }
    fn get(&mut self, i: usize) -> &mut Child {
        &mut self.0[i]
    }
}

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The real `xs` against one store. Its stdout is always a pipe: xs 0.13.4 polls stdout and
/// fails with "Operation not permitted" on a regular file or /dev/null.
struct Xs {
    bin: PathBuf,
    store: PathBuf,
}

impl Xs {
    fn run(&self, args: &[&str], body: Option<&[u8]>) -> Vec<u8> {
        let mut cmd = Command::new(&self.bin);
        cmd.arg(args[0]).arg(&self.store).args(&args[1..]);
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if body.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.bin.display()));
        if let Some(body) = body {
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(body).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "xs {args:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    fn frames(&self) -> Vec<Value> {
        String::from_utf8(self.run(&["cat"], None))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn on(&self, topic: &str) -> Vec<Value> {
        self.frames().into_iter().filter(|f| f["topic"] == topic).collect()
    }

    fn append(&self, topic: &str, meta: &Value, body: Option<&[u8]>) -> String {
        let out = self.run(&["append", topic, "--meta", &meta.to_string()], body);
        if out.is_empty() {
            // xs 0.13.4 sometimes exits 0 without printing the frame it stored (it does not
            // flush its stdout). This test appends one frame at a time: the newest one on
            // the topic with this meta is the one just appended.
            let last = self.on(topic).into_iter().rfind(|f| f["meta"] == *meta);
            return last.expect("xs append printed nothing and stored nothing")["id"]
                .as_str()
                .unwrap()
                .to_string();
        }
        let frame: Value = serde_json::from_slice(&out)
            .unwrap_or_else(|e| panic!("xs append printed {:?}: {e}", String::from_utf8_lossy(&out)));
        frame["id"].as_str().expect("the appended frame has an id").to_string()
    }

    fn body(&self, frame: &Value) -> Vec<u8> {
        self.run(&["cas", frame["hash"].as_str().expect("the frame has a hash")], None)
    }

    fn frame(&self, id: &str) -> Value {
        self.frames()
            .into_iter()
            .find(|f| f["id"] == id)
            .unwrap_or_else(|| panic!("no frame {id} in the store"))
    }
}

/// Starts `xs serve <store>` with both outputs drained by threads, and waits until
/// `xs version <store>` answers.
fn start_xs(procs: &mut Procs, bin: &Path, store: &Path) {
    let mut child = Command::new(bin)
        .arg("serve")
        .arg(store)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xs serve");
    let log = Arc::new(Mutex::new(Vec::<u8>::new()));
    for mut r in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let log = log.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                log.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
    }
    let i = procs.add(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = Command::new(bin)
            .arg("version")
            .arg(store)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        if v.status.success() {
            return;
        }
        if let Some(status) = procs.get(i).try_wait().unwrap() {
            panic!(
                "xs serve exited ({status}): {}",
                String::from_utf8_lossy(&log.lock().unwrap())
            );
        }
        assert!(
            Instant::now() < deadline,
            "xs serve did not answer `xs version` within 20 s: {}",
            String::from_utf8_lossy(&log.lock().unwrap())
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The real `xs` serving the loop's store, `.ralph/store` in the project (the real loop's
/// layout).
fn serve_store(procs: &mut Procs, p: &OpencodeProject) -> Xs {
    let bin = support::xs();
    let store = p.dir().join(".ralph/store");
    std::fs::create_dir_all(&store).unwrap();
    start_xs(procs, &bin, &store);
    Xs { bin, store }
}

/// The id in "Added task `<id>` (remaining)." and the like: the first word that is a SCRU128 id in backticks.
fn added_id(out: &str) -> String {
    let id = out
        .split_whitespace()
        .find_map(|w| {
            let w = w.trim_end_matches(['.', ')']);
            w.strip_prefix('`').and_then(|w| w.strip_suffix('`'))
        })
        .unwrap_or_default()
        .to_string();
    assert!(
        id.len() == 25 && id.chars().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()),
        "no SCRU128 id in backticks in {out:?}"
    );
    id
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes()
        .zip(b.bytes())
        .take_while(|(x, y)| x.eq_ignore_ascii_case(y))
        .count()
}

/// The shortest prefix of `id`, 8 characters or more, that no other id starts with.
fn shortest_unique_prefix<'a>(id: &'a str, all: &[String]) -> &'a str {
    let longest = all
        .iter()
        .filter(|o| o.as_str() != id)
        .map(|o| common_prefix(id, o))
        .max()
        .unwrap_or(0);
    &id[..(longest + 1).max(8)]
}

/// `### <group> (n)` headings and `- \`<id>\` …` lines of a store_fold listing, as group → ids.
fn parse_listing(md: &str) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            let (name, count) = h.rsplit_once(" (").unwrap_or_else(|| panic!("bad heading {line:?}"));
            groups.push((name.to_string(), Vec::new()));
            assert!(count.ends_with(')'), "bad heading {line:?}");
        } else if let Some(rest) = line.strip_prefix("- `") {
            let id = rest.split('`').next().unwrap().to_string();
            groups
                .last_mut()
                .unwrap_or_else(|| panic!("item before any heading: {md}"))
                .1
                .push(id);
        }
    }
    for (name, ids) in &groups {
        assert!(
            md.contains(&format!("### {name} ({})", ids.len())),
            "count of {name} is wrong in {md}"
        );
    }
    groups
}

/// Modification times of every file under `dir` (symlinks not followed).
fn mtimes(dir: &Path) -> BTreeMap<PathBuf, SystemTime> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, SystemTime>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_path_buf(), m.modified().unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn ixgen_ok(p: &OpencodeProject, args: &[&str]) -> String {
    let out = p.ixgen(args);
    assert!(
        out.status.success(),
        "ixgen {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `ixgen opencode --session e2e --iteration N [--pid P]`: the store is left to its default,
/// `.ralph/store` under the project, as in the real loop.
fn generate(p: &OpencodeProject, iteration: u32, pid: Option<u32>) -> String {
    let it = iteration.to_string();
    let mut args = vec!["opencode", "--session", SESSION, "--iteration", &it];
    let pid = pid.map(|p| p.to_string());
    if let Some(pid) = &pid {
        args.extend(["--pid", pid]);
    }
    ixgen_ok(p, &args)
}

/// Runs one session tool in OpenCode with the xs binary's folder first on PATH.
fn tool(p: &OpencodeProject, path: &str, id: &str, params: Value) -> String {
    let t = Instant::now();
    let out = p
        .run_tool(id, &params, &[("PATH", path)])
        .unwrap_or_else(|e| panic!("{id} {params}: {e}"));
    eprintln!("{id} ({:.1} s): {out}", t.elapsed().as_secs_f64());
    out
}

/// Runs `nu -c <script>` with the loop's module (`examples/ralph/ralph.nu`, the real loop's
/// reading rules) loaded: isolated home, the xs binary first on PATH, the store in
/// `$env.RALPH_STORE`.
fn nu(tmp: &Path, path: &str, store: &Path, script: &str) -> String {
    let module = support::root().join("examples/ralph/ralph.nu");
    let mut cmd = Command::new(support::nu());
    isolate(&mut cmd, &tmp.join("nu"));
    let full = format!("use r#'{}'#; {script}", module.display());
    let out = cmd
        .arg("-c")
        .arg(&full)
        .env("PATH", path)
        .env("RALPH_STORE", store)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "nu -c {full:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn nu_json(tmp: &Path, path: &str, store: &Path, script: &str) -> Value {
    let text = nu(tmp, path, store, &format!("{script} | to json"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn wait_exit(child: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn a_ralph_session_runs_end_to_end_in_opencode_xs_and_nushell() {
    let started = Instant::now();
    let mut procs = Procs::default();
    let p = OpencodeProject::new();
    let tmp = p.tmp.path().to_path_buf();
    let xs = serve_store(&mut procs, &p);
    let store = xs.store.clone();
    let path = path_with(xs.bin.parent().unwrap());

    // Only the session and the iteration, as the loop's changed `generate-tools` passes them.
    generate(&p, 1, None);
    let ralph_ts = p.dir().join(".opencode/tool/ralph.ts");
    assert!(
        !p.dir().join(".opencode/tools/ralph.ts").exists(),
        "one set of ralph tools, in the loop's own place"
    );
    let src1 = std::fs::read_to_string(&ralph_ts).unwrap();
    for want in [
        format!(
            "const STORE_PATH = {}\n",
            serde_json::to_string(store.to_str().unwrap()).unwrap()
        ),
        "const SESSION_NAME = \"e2e\"\n".into(),
        "const ITERATION = 1\n".into(),
    ] {
        assert!(src1.contains(&want), "ralph.ts lacks {want:?}");
    }
    assert!(!src1.contains("PARENT_PID"), "no pid was given");

    // ── Three tasks through OpenCode, one with shell syntax and a newline in it. ──
    let hostile = "it's \"quoted\" $(touch pwned) `touch pwned2` back\\slash $HOME\nsecond line\ttab";
    let a_out = tool(&p, &path, "ralph_task_add", json!({"content": hostile}));
    let a = added_id(&a_out);
    assert_eq!(a_out, format!("## ralph: task_add\n\nAdded task `{a}` (remaining)."));
    let b = added_id(&tool(
        &p,
        &path,
        "ralph_task_add",
        json!({"content": "blocked on the schema", "status": "blocked", "session_name": SESSION}),
    ));
    let c = added_id(&tool(&p, &path, "ralph_task_add", json!({"content": "write the docs"})));
    assert!(
        !p.dir().join("pwned").exists() && !p.dir().join("pwned2").exists(),
        "task content ran as a command"
    );
    let a_frame = xs.frame(&a);
    assert_eq!(a_frame["topic"], TASKS);
    assert_eq!(a_frame["meta"], json!({"action": "add", "status": "remaining"}));
    assert_eq!(
        xs.body(&a_frame),
        hostile.as_bytes(),
        "the stored body is not byte-identical"
    );
    assert_eq!(xs.frame(&b)["meta"], json!({"action": "add", "status": "blocked"}));

    // ── session_name: another session's name is refused before anything is appended. ──
    let before = xs.frames().len();
    let other = tool(
        &p,
        &path,
        "ralph_task_add",
        json!({"content": "not for us", "session_name": "other"}),
    );
    assert_eq!(
        other,
        "## ralph: task_add\n\n**Invalid arguments:** `session_name` is \"other\", but these tools were generated for session \"e2e\"; pass \"e2e\" or leave `session_name` out"
    );
    assert_eq!(xs.frames().len(), before, "a refused call appended a frame");

    // ── A task added without `action`, which the loop also counts as an add. ──
    let legacy = xs.append(TASKS, &json!({}), Some(b"legacy task"));

    // ── Two tasks whose ids share 8+ leading characters: appended back to back with xs. ──
    let mut remaining_extra = Vec::new(); // earlier attempts that did not share enough
    let (d, e, common) = (0..20)
        .find_map(|attempt| {
            let add = json!({"action": "add", "status": "remaining"});
            let d = xs.append(TASKS, &add, Some(format!("twin one #{attempt}").as_bytes()));
            let e = xs.append(TASKS, &add, Some(format!("twin two #{attempt}").as_bytes()));
            let n = common_prefix(&d, &e);
            if n >= 8 {
                Some((d, e, n))
            } else {
                remaining_extra.extend([d, e]);
                None
            }
        })
        .expect("20 pairs of back-to-back appends never shared 8 leading id characters");
    let ambiguous = d[..common].to_string();
    let all: Vec<String> = [&a, &b, &c, &legacy, &d, &e]
        .into_iter()
        .cloned()
        .chain(remaining_extra.iter().cloned())
        .collect();

    // ── A status change by the shortest unique prefix (8+ characters) of the hostile task. ──
    let a_prefix = shortest_unique_prefix(&a, &all);
    assert!(a_prefix.len() >= 8);
    let st = tool(
        &p,
        &path,
        "ralph_task_status",
        json!({"id": a_prefix, "status": "in_progress"}),
    );
    assert_eq!(
        st,
        format!("## ralph: task_status\n\nTask `{a}` marked as in_progress.")
    );
    assert_eq!(
        xs.on(TASKS).pop().unwrap()["meta"],
        json!({"action": "status", "id": a, "status": "in_progress", "iteration": 1}),
        "the frame carries the full id"
    );
    let done_c = tool(&p, &path, "ralph_task_status", json!({"id": c, "status": "completed"}));
    assert_eq!(
        done_c,
        format!("## ralph: task_status\n\nTask `{c}` marked as completed.")
    );

    // ── An ambiguous prefix is refused and nothing is appended. ──
    let before = xs.on(TASKS).len();
    let amb = tool(
        &p,
        &path,
        "ralph_task_status",
        json!({"id": ambiguous, "status": "completed"}),
    );
    assert!(
        amb.contains(&format!("`{ambiguous}` matches")) && amb.contains("nothing was changed"),
        "{amb}"
    );
    for (id, first_line) in [(&d, "twin one"), (&e, "twin two")] {
        assert!(
            amb.contains(&format!("- `{id}` {first_line}")),
            "the refusal does not list {id}: {amb}"
        );
    }
    assert_eq!(xs.on(TASKS).len(), before, "an ambiguous prefix appended a frame");

    // An ambiguous update written by someone else (the loop's own tools append prefixes as
    // given): the loop applies it to the first match, and so does task_list.
    xs.append(
        TASKS,
        &json!({"action": "status", "id": ambiguous, "status": "blocked", "iteration": 1}),
        None,
    );

    // ── task_list groups them exactly as the loop's own fold (real nu) does. ──
    // Tasks in the order they were added, and the status each ends with; the ambiguous update
    // lands on the first task whose id starts with it (the loop's rule; any task appended
    // within the same second may share the prefix, the legacy one included).
    let mut order = vec![a.clone(), b.clone(), c.clone(), legacy.clone()];
    order.extend(remaining_extra.iter().cloned());
    order.extend([d.clone(), e.clone()]);
    let first_match = order.iter().find(|id| id.starts_with(&ambiguous)).unwrap().clone();
    let status_of = |id: &String| -> &str {
        if *id == a {
            "in_progress"
        } else if *id == b || *id == first_match {
            "blocked"
        } else if *id == c {
            "completed"
        } else {
            "remaining"
        }
    };
    let expected: Vec<(String, Vec<String>)> = ["in_progress", "remaining", "blocked", "completed"]
        .into_iter()
        .map(|g| {
            (
                g.to_string(),
                order.iter().filter(|id| status_of(id) == g).cloned().collect(),
            )
        })
        .collect();
    let list = tool(&p, &path, "ralph_task_list", json!({}));
    assert!(
        list.starts_with("## ralph: task_list\n\n### in_progress (1)\n\n"),
        "{list}"
    );
    assert!(
        list.contains(&format!(
            "- `{a}` it's \"quoted\" $(touch pwned) `touch pwned2` back\\slash $HOME\n"
        )),
        "first line of the hostile task: {list}"
    );
    assert!(
        !list.contains("second line"),
        "a listing shows first lines only: {list}"
    );
    assert_eq!(parse_listing(&list), expected, "task_list grouping:\n{list}");
    // The same session named explicitly gives the same answer.
    assert_eq!(
        tool(&p, &path, "ralph_task_list", json!({"session_name": SESSION})),
        list
    );

    let state = nu_json(&tmp, &path, &store, "ralph task-state $env.RALPH_STORE e2e");
    let nu_ids: BTreeMap<String, Vec<String>> = state
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, tasks)| !tasks.as_array().unwrap().is_empty())
        .map(|(status, tasks)| {
            let tasks = tasks.as_array().unwrap();
            for t in tasks {
                assert_eq!(t["status"].as_str(), Some(status.as_str()));
            }
            (
                status.clone(),
                tasks.iter().map(|t| t["id"].as_str().unwrap().to_string()).collect(),
            )
        })
        .collect();
    let tool_ids: BTreeMap<String, Vec<String>> = expected.iter().cloned().collect();
    assert_eq!(
        nu_ids, tool_ids,
        "the loop's fold (nu) and task_list disagree:\nnu: {state}\ntool: {list}"
    );
    let nu_hostile = state["in_progress"][0]["content"].as_str().unwrap();
    assert_eq!(
        nu_hostile.trim_end_matches('\n'),
        hostile,
        "nu reads the hostile body back"
    );
    assert_eq!(state["in_progress"][0]["iteration"], json!(1));

    // ── Notes: one through the tool, read back by the loop's rule; a filtered listing. ──
    let n_out = tool(
        &p,
        &path,
        "ralph_note_add",
        json!({"content": "xs must print to a pipe", "type": "learning"}),
    );
    let n1 = added_id(&n_out);
    assert_eq!(n_out, format!("## ralph: note_add\n\nAdded learning note `{n1}`."));
    assert_eq!(
        xs.frame(&n1)["meta"],
        json!({"action": "add", "type": "learning", "iteration": 1})
    );
    let n2 = xs.append(
        NOTES,
        &json!({"action": "add", "type": "stuck", "iteration": 1}),
        Some(b"the schema is unclear"),
    );
    let notes = tool(&p, &path, "ralph_note_list", json!({"type": "learning"}));
    assert_eq!(
        notes,
        format!("## ralph: note_list\n\n### learning (1)\n\n- `{n1}` xs must print to a pipe")
    );
    assert!(!notes.contains(&n2));
    let nu_notes = nu_json(&tmp, &path, &store, "ralph note-state $env.RALPH_STORE e2e");
    assert_eq!(nu_notes[0]["id"], json!(n1));
    assert_eq!(nu_notes[0]["type"], json!("learning"));
    assert_eq!(nu_notes[0]["iteration"], json!(1));

    // ── Inbox: a message sent the way `ralph.nu message` sends it (no action). ──
    let m = nu(
        &tmp,
        &path,
        &store,
        "ralph message --name e2e --store $env.RALPH_STORE \"Please also cover the README\nthanks\"",
    )
    .trim()
    .to_string();
    let m_meta = xs.frame(&m)["meta"].clone();
    assert_eq!(m_meta["status"], json!("unread"), "{m_meta}");
    assert!(
        m_meta.get("action").is_none(),
        "ralph.nu message writes no action: {m_meta}"
    );
    let unread = nu_json(&tmp, &path, &store, "ralph inbox-state $env.RALPH_STORE e2e | get id");
    assert_eq!(unread, json!([m]), "the loop sees the message unread");
    let inbox = tool(&p, &path, "ralph_inbox_list", json!({}));
    assert_eq!(
        inbox,
        format!("## ralph: inbox_list\n\n### unread (1)\n\n- `{m}` Please also cover the README")
    );
    let m_prefix = &m[..12];
    let read = tool(&p, &path, "ralph_inbox_mark_read", json!({"id": m_prefix}));
    assert_eq!(
        read,
        format!("## ralph: inbox_mark_read\n\nMessage `{m}` marked as read.")
    );
    assert_eq!(
        xs.on(INBOX).pop().unwrap()["meta"],
        json!({"action": "mark_read", "id": m})
    );
    let unread = nu_json(&tmp, &path, &store, "ralph inbox-state $env.RALPH_STORE e2e | get id");
    assert_eq!(unread, json!([]), "the loop still sees the message unread");
    assert_eq!(
        tool(&p, &path, "ralph_inbox_list", json!({})),
        format!("## ralph: inbox_list\n\n### read (1)\n\n- `{m}` Please also cover the README")
    );

    // ── The next iteration: only the session file changes. ──
    let before = mtimes(&p.dir());
    std::thread::sleep(Duration::from_millis(20));
    let report = generate(&p, 2, None);
    let after = mtimes(&p.dir());
    let changed: BTreeSet<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| !k.starts_with(".ralph"))
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| k.to_string_lossy().into_owned())
        .collect();
    // The manifest records the session file by its shape (the same for every iteration), not
    // its bytes, so it stays as it was too.
    let want: BTreeSet<String> = [".opencode/tool/ralph.ts"].map(String::from).into();
    assert_eq!(
        changed, want,
        "regenerating for iteration 2 touched other files; ixgen said:\n{report}"
    );
    let src2 = std::fs::read_to_string(&ralph_ts).unwrap();
    assert_eq!(
        src2,
        src1.replace("const ITERATION = 1\n", "const ITERATION = 2\n"),
        "only the iteration changes in ralph.ts"
    );

    // ── session_complete without a pid: the frame the loop's 5-minute rule accepts. ──
    // A completion frame without `ts` (what older tools wrote) is never seen by the loop.
    xs.append(CONTROL, &json!({"action": "session_complete", "iteration": 1}), None);
    let completed = "ralph completed $env.RALPH_STORE e2e";
    assert_eq!(
        nu(&tmp, &path, &store, completed).trim(),
        "false",
        "a frame without ts counted"
    );
    let t0 = now_ms();
    let done = tool(&p, &path, "ralph_session_complete", json!({"session_name": SESSION}));
    let ctl = xs.on(CONTROL).pop().unwrap();
    let ctl_id = ctl["id"].as_str().unwrap();
    assert_eq!(
        done,
        format!("## ralph: session_complete\n\nRecorded session completion (frame `{ctl_id}`).")
    );
    let ts = ctl["meta"]["ts"].as_u64().expect("ts is a number of milliseconds");
    assert!(
        ts >= t0 && ts <= now_ms(),
        "ts {ts} is not the time of the call ({t0}..)"
    );
    assert_eq!(
        ctl["meta"],
        json!({"action": "session_complete", "ts": ts, "iteration": 2})
    );
    assert_eq!(
        nu(&tmp, &path, &store, completed).trim(),
        "true",
        "the loop does not see the completion"
    );

    // ── With a pid (a loop that waits for SIGTERM): the Nushell process is signalled, a
    // process that is not Nushell is not. ──
    let mut loop_cmd = Command::new(support::nu());
    isolate(&mut loop_cmd, &tmp.join("loop"));
    let loop_i = procs.add(
        loop_cmd
            .args(["-c", "sleep 10min"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let loop_pid = procs.get(loop_i).id();
    let sleep_i = procs.add(Command::new("sleep").arg("600").stdin(Stdio::null()).spawn().unwrap());
    let sleep_pid = procs.get(sleep_i).id();
    generate(&p, 2, Some(loop_pid));
    assert!(
        std::fs::read_to_string(&ralph_ts)
            .unwrap()
            .contains(&format!("const PARENT_PID = {loop_pid}\n"))
    );
    let done = tool(&p, &path, "ralph_session_complete", json!({}));
    let ctl_id = xs.on(CONTROL).pop().unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(
        done,
        format!(
            "## ralph: session_complete\n\nRecorded session completion (frame `{ctl_id}`).\n\nSignalled the ralph loop (pid {loop_pid}) to stop."
        )
    );
    let status = wait_exit(procs.get(loop_i), Duration::from_secs(10))
        .expect("the nu loop is still running after session_complete");
    assert_eq!(
        status.signal(),
        Some(15),
        "the nu loop should end by SIGTERM, got {status}"
    );

    generate(&p, 2, Some(sleep_pid));
    let refused = tool(&p, &path, "ralph_session_complete", json!({}));
    assert!(
        refused.contains(&format!("**Not signalled:** process {sleep_pid} is `sleep`, not `nu`.")),
        "{refused}"
    );
    assert!(!refused.contains("Signalled the ralph loop"), "{refused}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        procs.get(sleep_i).try_wait().unwrap().is_none(),
        "the non-Nushell process was signalled"
    );

    eprintln!(
        "host_session: the whole session took {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A folder holding an `xs` that runs the real one, except that `append` prints nothing: with
/// `store: true` it stores the frame (what xs 0.13.4's `append` does about once in 400 runs on
/// a busy machine, when its unflushed stdout is lost), with `store: false` it stores nothing.
fn xs_append_prints_nothing(dir: &Path, real: &Path, store: bool) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    // The real one beside it, so that the script names no path (and quotes none).
    std::os::unix::fs::symlink(real, dir.join("xs-real")).unwrap();
    let append = if store {
        // Through a pipe: xs refuses a stdout that is /dev/null.
        "set -o pipefail; \"$REAL\" \"$@\" | cat > /dev/null; exit $?"
    } else {
        "exit 0"
    };
    let script = format!(
        "#!/usr/bin/env bash\nREAL=\"$(dirname \"$0\")/xs-real\"\nif [ \"$1\" = append ]; then {append}; fi\nexec \"$REAL\" \"$@\"\n"
    );
    let bin = dir.join("xs");
    std::fs::write(&bin, script).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.to_path_buf()
}

#[test]
fn task_add_reports_the_id_when_xs_append_prints_nothing() {
    let mut procs = Procs::default();
    let p = OpencodeProject::new();
    let xs = serve_store(&mut procs, &p);
    generate(&p, 1, None);
    let quiet = path_with(&xs_append_prints_nothing(&p.tmp.path().join("quiet"), &xs.bin, true));

    // The same content twice: the second append must not be taken for the first.
    let mut ids = Vec::new();
    for status in ["remaining", "blocked"] {
        let out = tool(
            &p,
            &quiet,
            "ralph_task_add",
            json!({"content": "same words", "status": status}),
        );
        let id = added_id(&out);
        assert_eq!(out, format!("## ralph: task_add\n\nAdded task `{id}` ({status})."));
        let frame = xs.frame(&id);
        assert_eq!(frame["topic"], TASKS);
        assert_eq!(frame["meta"], json!({"action": "add", "status": status}));
        assert_eq!(xs.body(&frame), b"same words");
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
    let again = tool(
        &p,
        &quiet,
        "ralph_task_add",
        json!({"content": "same words", "status": "blocked"}),
    );
    let third = added_id(&again);
    assert!(
        !ids.contains(&third),
        "an earlier identical frame was reported: {again}"
    );
    assert_eq!(xs.on(TASKS).len(), 3, "each call appended exactly one frame");

    // An `xs append` that stored nothing: the tool says the id is unknown instead of inventing one.
    let lost = path_with(&xs_append_prints_nothing(&p.tmp.path().join("lost"), &xs.bin, false));
    let out = tool(&p, &lost, "ralph_task_add", json!({"content": "never stored"}));
    assert!(
        out.contains("**Error:**")
            && out.contains("exited 0 without printing the new frame")
            && out.contains("no frame"),
        "{out}"
    );
    assert_eq!(xs.on(TASKS).len(), 3);
}

#[test]
fn hostile_session_names_exit_2_and_write_nothing() {
    let names = [
        "it's",
        "say\"hi",
        "a$(touch pwned)",
        "$(id)",
        "a`id`",
        "a/b",
        "..",
        "a..b",
        "../escape",
        "two\nlines",
        "a\nb",
    ];
    for name in names {
        let tmp = tempfile::tempdir().unwrap();
        let out_dir = tmp.path().join("out");
        let store = tmp.path().join("store");
        let out = Command::new(env!("CARGO_BIN_EXE_ixgen"))
            .arg("--out")
            .arg(&out_dir)
            .args(["opencode", "--session", name, "--iteration", "1", "--store"])
            .arg(&store)
            .args(["--pid", "4242"])
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "--session {name:?}: exit {} ({stderr})",
            out.status
        );
        assert!(
            stderr.contains("--session"),
            "the message for {name:?} does not name --session: {stderr}"
        );
        assert!(
            stderr.contains("store topic"),
            "the message for {name:?} does not say why: {stderr}"
        );
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "--session {name:?} wrote {left:?}");
    }
}
