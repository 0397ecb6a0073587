//! The real hosts, installed on first use.
//!
//! `tests/hosts/` pins OpenCode, Claude Code, the MCP SDK, Ajv, TypeScript, Bun and Nushell
//! with a lockfile, and `tests/hosts/next/` the newest version of each host that has a newer
//! one (Claude Code, the split 2026-07-28 MCP SDK) with its own; the first test that needs
//! them runs `tests/hosts/install.mjs` (once, under a file lock, and again only when a
//! manifest or lockfile changes), which fails when any host is not at its pinned version. The `xs` store is a Rust program: it is built once with
//! `cargo install` into a cache folder and reused while the pinned version is there. A host
//! that cannot be installed or found fails the test with a message that says what to do; no
//! test skips.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Every file below `dir`: relative path → bytes.
pub fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/hosts`.
pub fn hosts_dir() -> PathBuf {
    root().join("tests/hosts")
}

/// The pinned `xs` version (0.14 needs a newer Rust than the machine's).
pub const XS_VERSION: &str = "0.13.4";

fn run_or_die(cmd: &mut Command, what: &str) {
    let status = cmd.status().unwrap_or_else(|e| {
        panic!(
            "{what}: cannot start {:?}: {e}. Install Node 20 and npm (and Rust for xs).",
            cmd.get_program()
        )
    });
    assert!(status.success(), "{what} failed ({status}); see the output above");
}

/// Every npm folder of `tests/hosts` (relative, with a trailing `/`). One stamp covers their
/// manifests and lockfiles, so changing any of them reinstalls.
pub const NPM_FOLDERS: [&str; 3] = ["", "opencode-seed/", "next/"];

/// Runs `tests/hosts/install.mjs` on the npm folders under `dir` (`npm install` from the
/// lockfiles, then every pinned host's installed version checked); `npm_args` go to npm.
pub fn install_hosts(dir: &Path, npm_args: &[&str]) {
    let mut cmd = Command::new("node");
    cmd.arg(hosts_dir().join("install.mjs"))
        .arg("--root")
        .arg(dir)
        .args(npm_args);
    run_or_die(
        &mut cmd,
        &format!("node tests/hosts/install.mjs --root {}", dir.display()),
    );
}

fn lockfile_stamp() -> String {
    let mut stamp = String::new();
    for f in NPM_FOLDERS
        .iter()
        .flat_map(|dir| [format!("{dir}package.json"), format!("{dir}package-lock.json")])
    {
        let bytes = std::fs::read(hosts_dir().join(&f)).unwrap_or_else(|e| panic!("tests/hosts/{f}: {e}"));
        stamp.push_str(&blake3::hash(&bytes).to_hex());
        stamp.push('\n');
    }
    stamp
}

/// Installs the pinned npm hosts when they are missing or their lockfiles changed.
pub fn ensure_npm_hosts() -> &'static Path {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let dir = hosts_dir();
        let stamp_path = dir.join("node_modules/.ixgen-installed");
        let want = lockfile_stamp();
        if std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(want.as_str()) {
            return dir;
        }
        // Several test binaries may get here at once: one installs, the others wait.
        let lock = std::fs::File::create(dir.join(".install.lock")).expect("tests/hosts is writable");
        lock.lock().expect("lock tests/hosts/.install.lock");
        if std::fs::read_to_string(&stamp_path).ok().as_deref() != Some(want.as_str()) {
            eprintln!("installing the pinned hosts into tests/hosts (install.mjs, about a minute)…");
            install_hosts(&dir, &[]);
            std::fs::write(&stamp_path, &want).expect("write the install stamp");
        }
        dir
    })
}

/// A pinned host program, relative to `tests/hosts`; fails loudly when it is not there.
pub fn host_bin(rel: &str) -> PathBuf {
    let p = ensure_npm_hosts().join(rel);
    assert!(
        p.is_file(),
        "host program {} is missing after `node tests/hosts/install.mjs`; delete tests/hosts/node_modules (its install stamp) and run the tests again",
        p.display()
    );
    p
}

pub fn opencode() -> PathBuf {
    host_bin("node_modules/opencode-linux-x64/bin/opencode")
}
/// Claude Code at the pinned version (2.1.197).
pub fn claude() -> PathBuf {
    host_bin("node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}
/// Claude Code at the newest version (2.1.330, `tests/hosts/next`).
pub fn claude_next() -> PathBuf {
    host_bin("next/node_modules/@anthropic-ai/claude-code-linux-x64/claude")
}

/// The Claude Code versions every Claude test runs against: (version, binary).
pub fn claude_versions() -> [(&'static str, PathBuf); 2] {
    [("2.1.197", claude()), ("2.1.330", claude_next())]
}
pub fn nu() -> PathBuf {
    host_bin("node_modules/@nushell/linux-x64/bin/nu")
}
pub fn bun() -> PathBuf {
    host_bin("node_modules/.bin/bun")
}
pub fn tsc_js() -> PathBuf {
    host_bin("node_modules/typescript/bin/tsc")
}
/// A helper script of `tests/hosts` (run with `node`).
pub fn script(name: &str) -> PathBuf {
    let p = ensure_npm_hosts().join(name);
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// The `xs` binary at the pinned version, built into a cache on first use (about half an
/// hour on two cores) and reused after that. `IXGEN_XS_ROOT` moves the cache.
pub fn xs() -> PathBuf {
    static XS: OnceLock<PathBuf> = OnceLock::new();
    XS.get_or_init(|| {
        let cache = std::env::var_os("IXGEN_XS_ROOT").map(PathBuf::from).unwrap_or_else(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from).expect("HOME is set");
            home.join(".cache/ixgen-hosts").join(format!("xs-{XS_VERSION}"))
        });
        let bin = cache.join("bin/xs");
        let ok = |bin: &Path| {
            Command::new(bin)
                .arg("--version")
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(XS_VERSION))
        };
        if ok(&bin) {
            return bin;
        }
        std::fs::create_dir_all(&cache).expect("create the xs cache folder");
        let lock = std::fs::File::create(cache.with_extension("lock")).expect("create the xs build lock");
        lock.lock().expect("lock the xs build");
        if !ok(&bin) {
            eprintln!("building xs {XS_VERSION} (cargo install cross-stream, about 30 minutes, once)…");
            run_or_die(
                Command::new("cargo")
                    .args(["install", "cross-stream", "--locked", "--version", XS_VERSION, "--root"])
                    .arg(&cache),
                "cargo install cross-stream",
            );
        }
        assert!(
            ok(&bin),
            "{} does not report version {XS_VERSION} after building it",
            bin.display()
        );
        bin
    })
    .clone()
}

/// The pinned ripgrep version, which the seed catalogs' search tools run.
pub const RG_VERSION: &str = "14.1.1";

/// The folder holding `rg` at the pinned version, built once with `cargo install ripgrep` into
/// a cache folder (a few minutes) and reused after that, like `xs`. `IXGEN_RG_ROOT` moves it.
pub fn rg_dir() -> PathBuf {
    static RG: OnceLock<PathBuf> = OnceLock::new();
    RG.get_or_init(|| {
        let cache = std::env::var_os("IXGEN_RG_ROOT").map(PathBuf::from).unwrap_or_else(|| {
            let home = std::env::var_os("HOME").map(PathBuf::from).expect("HOME is set");
            home.join(".cache/ixgen-hosts").join(format!("rg-{RG_VERSION}"))
        });
        let bin = cache.join("bin/rg");
        let ok = |bin: &Path| {
            Command::new(bin)
                .arg("--version")
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(RG_VERSION))
        };
        if !ok(&bin) {
            std::fs::create_dir_all(&cache).expect("create the rg cache folder");
            let lock = std::fs::File::create(cache.with_extension("lock")).expect("create the rg build lock");
            lock.lock().expect("lock the rg build");
            if !ok(&bin) {
                eprintln!("building ripgrep {RG_VERSION} (cargo install ripgrep, a few minutes, once)…");
                run_or_die(
                    Command::new("cargo")
                        .args(["install", "ripgrep", "--locked", "--version", RG_VERSION, "--root"])
                        .arg(&cache),
                    "cargo install ripgrep",
                );
            }
        }
        assert!(ok(&bin), "{} does not report version {RG_VERSION}", bin.display());
        cache.join("bin")
    })
    .clone()
}

/// An isolated home for a host: `HOME`, `XDG_CONFIG_HOME`, `TMPDIR` under `dir`.
pub fn isolate(cmd: &mut Command, dir: &Path) {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join("xdg")).unwrap();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    cmd.env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("xdg"))
        .env("TMPDIR", dir.join("tmp"))
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1");
}

/// Copies a folder with `cp -a` (keeps the symlinks npm made).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    run_or_die(Command::new("cp").arg("-a").arg(from).arg(to), "cp -a");
}

/// A project folder in which the real OpenCode runs generated tools.
pub struct OpencodeProject {
    pub tmp: tempfile::TempDir,
}

impl OpencodeProject {
    /// A git repository (so `ctx.worktree` is the project) with OpenCode's plugin package
    /// pre-seeded where OpenCode would install it, so no run waits on the registry.
    pub fn new() -> OpencodeProject {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        run_or_die(
            Command::new("git").args(["init", "-q"]).current_dir(&project),
            "git init",
        );
        let seed = ensure_npm_hosts().join("opencode-seed");
        for dest in [project.join(".opencode"), tmp.path().join("home/xdg/opencode")] {
            std::fs::create_dir_all(&dest).unwrap();
            for f in ["package.json", "package-lock.json", "node_modules"] {
                run_or_die(
                    Command::new("cp").arg("-a").arg(seed.join(f)).arg(&dest),
                    "seed OpenCode's plugin package",
                );
            }
        }
        OpencodeProject { tmp }
    }

    pub fn dir(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    /// Runs `ixgen <args> --out <project>`.
    pub fn ixgen(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ixgen"))
            .arg("--out")
            .arg(self.dir())
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs one tool through `opencode debug agent build`; `Ok(output)` is the tool's string,
    /// `Err(stderr)` a host failure.
    pub fn run_tool(&self, id: &str, params: &serde_json::Value, env: &[(&str, &str)]) -> Result<String, String> {
        let mut cmd = Command::new(opencode());
        isolate(&mut cmd, self.tmp.path());
        cmd.current_dir(self.dir())
            .args(["debug", "agent", "build", "--tool", id, "--params"])
            .arg(params.to_string());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            return Err(format!("opencode exited {}: {stderr}{stdout}", out.status));
        }
        // Anything the tool logs comes first; the result is the last pretty-printed object.
        let start = stdout
            .rfind("{\n  \"tool\": ")
            .ok_or_else(|| format!("no result object in opencode's output: {stdout}{stderr}"))?;
        let v: serde_json::Value = serde_json::from_str(&stdout[start..]).map_err(|e| format!("{e}: {stdout}"))?;
        v["result"]["output"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no result.output: {v}"))
    }
}

/// Writes an executable fake `ix` (`tests/support/fake_ix.js`) that appends its argv (one
/// JSON array per line) to `$IX_ARGV_LOG` and answers `--format json` with the real CLI's JSON
/// shapes; environment knobs pick its scenario (see the script's header).
pub fn fake_ix(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("ix");
    std::fs::write(&path, include_str!("fake_ix.js")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

/// The argv lines a fake `ix` recorded.
pub fn argv_log(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `PATH` with `dir` first.
pub fn path_with(dir: &Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

/// `PATH` without any folder that holds an `ix`.
pub fn path_without_ix() -> String {
    path_without(&["ix"])
}

/// `PATH` on which none of `programs` is found and every other program still is (a missing
/// program's test). A folder that holds one of them is replaced by a folder of links to its
/// other entries: the program may share its folder with node, git and sh (`/usr/bin/rg`, from
/// a distribution's package), which dropping the folder would lose too.
pub fn path_without(programs: &[&str]) -> String {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| match programs.iter().any(|p| Path::new(d).join(p).exists()) {
            true => links_without(Path::new(d), programs),
            false => d.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// A folder of links to every entry of `dir` but `hidden`, made once (for the folder as it was
/// last changed) under the target's temporary folder.
fn links_without(dir: &Path, hidden: &[&str]) -> String {
    use std::hash::{Hash, Hasher};
    static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = MAKING.lock().unwrap_or_else(|e| e.into_inner());
    let mut key = std::hash::DefaultHasher::new();
    (dir, hidden, std::fs::metadata(dir).and_then(|m| m.modified()).ok()).hash(&mut key);
    let links = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("path-without-{:016x}", key.finish()));
    if !links.exists() {
        // Made aside and renamed into place, so that a test binary running beside this one
        // never sees half of it.
        let making = links.with_extension(std::process::id().to_string());
        let _ = std::fs::remove_dir_all(&making);
        std::fs::create_dir_all(&making).unwrap();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if !hidden.iter().any(|h| entry.file_name() == *h) {
                std::os::unix::fs::symlink(entry.path(), making.join(entry.file_name())).unwrap();
            }
        }
        if std::fs::rename(&making, &links).is_err() {
            let _ = std::fs::remove_dir_all(&making);
        }
    }
    links.to_string_lossy().into_owned()
}

/// Runs `node <script> <args>`.
pub fn node(script_name: &str, args: &[&std::ffi::OsStr]) -> Output {
    Command::new("node")
        .arg(script(script_name))
        .args(args)
        .output()
        .expect("node is installed")
}

/// A one-shot HTTP server on loopback: answers every request with `body`, records requests.
pub fn runtime_server(body: String) -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // Bounded: the test makes one call; a few more are tolerated, then the thread ends.
        for stream in listener.incoming().take(4) {
            let Ok(mut s) = stream else { break };
            s.set_read_timeout(Some(std::time::Duration::from_secs(5))).ok();
            let mut req = Vec::new();
            let mut buf = [0u8; 8192];
            loop {
                let n = s.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break;
                }
                req.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&req);
                if let Some(h) = text.find("\r\n\r\n") {
                    let len = text[..h]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if req.len() >= h + 4 + len {
                        break;
                    }
                }
            }
            let _ = tx.send(String::from_utf8_lossy(&req).into_owned());
            let resp = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(resp.as_bytes());
        }
    });
    (url, rx)
}
