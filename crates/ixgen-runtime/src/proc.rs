//! Running a program: an argument vector, never a shell; the PATH looked up at each call;
//! standard input written from a thread, both outputs read whole; a timeout that stops the
//! program's whole process group (so a script's own children do not keep the pipes open).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

/// Cancellation of a call (the TypeScript runtime's abort signal): [`Cancel::cancel`] stops the
/// programs running for the call (their process groups) and every one started after.
#[derive(Debug, Default)]
pub struct Cancel {
    cancelled: AtomicBool,
    /// The process groups running now.
    groups: Mutex<Vec<u32>>,
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the running programs; later steps do not run.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        if let Ok(groups) = self.groups.lock() {
            for &g in groups.iter() {
                #[cfg(unix)]
                // SAFETY: kill(2) on a process group this call started and has not reaped yet (it is
                // removed from the list under this lock right after its wait returns).
                unsafe {
                    libc::kill(-(g as i32), libc::SIGKILL);
                }
                #[cfg(not(unix))]
                let _ = g;
            }
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    fn register(&self, pid: u32) {
        if let Ok(mut g) = self.groups.lock() {
            g.push(pid);
        }
    }

    fn unregister(&self, pid: u32) {
        if let Ok(mut g) = self.groups.lock() {
            g.retain(|&x| x != pid);
        }
    }
}

/// What a run gave, as the TypeScript runtime's `__IxProc`.
#[derive(Debug, Default)]
pub struct Proc {
    /// The program is not installed.
    pub missing: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Why the run failed; `None` when it exited 0.
    pub why: Option<String>,
    /// The timeout stopped it.
    pub timed_out: bool,
}

/// The program's path on the current PATH (`Bun.which`), or the program itself when it names a path.
pub fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// `Response.text()`: UTF-8 with replacement characters, a leading byte-order mark dropped.
fn text(bytes: Vec<u8>) -> String {
    let s = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    match s.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => s,
    }
}

/// The signals by name, as Node and Bun name them: what a `signal` step may send, and how a
/// program stopped by one is described.
#[cfg(unix)]
pub(crate) const SIGNALS: &[(&str, i32)] = &[
    ("SIGHUP", libc::SIGHUP),
    ("SIGINT", libc::SIGINT),
    ("SIGQUIT", libc::SIGQUIT),
    ("SIGILL", libc::SIGILL),
    ("SIGTRAP", libc::SIGTRAP),
    ("SIGABRT", libc::SIGABRT),
    ("SIGBUS", libc::SIGBUS),
    ("SIGFPE", libc::SIGFPE),
    ("SIGKILL", libc::SIGKILL),
    ("SIGUSR1", libc::SIGUSR1),
    ("SIGSEGV", libc::SIGSEGV),
    ("SIGUSR2", libc::SIGUSR2),
    ("SIGPIPE", libc::SIGPIPE),
    ("SIGALRM", libc::SIGALRM),
    ("SIGTERM", libc::SIGTERM),
    ("SIGCHLD", libc::SIGCHLD),
    ("SIGCONT", libc::SIGCONT),
    ("SIGSTOP", libc::SIGSTOP),
    ("SIGTSTP", libc::SIGTSTP),
    ("SIGTTIN", libc::SIGTTIN),
    ("SIGTTOU", libc::SIGTTOU),
    ("SIGURG", libc::SIGURG),
    ("SIGXCPU", libc::SIGXCPU),
    ("SIGXFSZ", libc::SIGXFSZ),
    ("SIGVTALRM", libc::SIGVTALRM),
    ("SIGPROF", libc::SIGPROF),
    ("SIGWINCH", libc::SIGWINCH),
    ("SIGIO", libc::SIGIO),
    ("SIGSYS", libc::SIGSYS),
];

#[cfg(unix)]
fn signal_name(sig: i32) -> String {
    match SIGNALS.iter().find(|(_, n)| *n == sig) {
        Some((name, _)) => name.to_string(),
        None => format!("signal {sig}"),
    }
}

/// One output of a program, read to its end on a thread of its own, which tells `closed` when
/// it ends.
struct Drain {
    read: Arc<Mutex<Vec<u8>>>,
    thread: std::thread::JoinHandle<()>,
}

fn drain(r: Option<impl Read + Send + 'static>, closed: mpsc::Sender<()>) -> Drain {
    let read = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&read);
    let thread = std::thread::spawn(move || {
        let mut chunk = [0u8; 64 << 10];
        if let Some(mut r) = r {
            loop {
                match r.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Ok(mut b) = into.lock() {
                            b.extend_from_slice(&chunk[..n]);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = closed.send(());
    });
    Drain { read, thread }
}

impl Drain {
    /// Everything, once the output has ended.
    fn join(self) -> std::thread::Result<Vec<u8>> {
        self.thread.join()?;
        Ok(taken(&self.read))
    }

    /// What was read so far.
    fn take(&self) -> Vec<u8> {
        taken(&self.read)
    }
}

fn taken(read: &Mutex<Vec<u8>>) -> Vec<u8> {
    read.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default()
}

/// Runs `program` with `argv` in `cwd`; `stdin` `None` gives it no input at all.
pub fn spawn(
    program: &str,
    argv: &[String],
    cwd: &Path,
    stdin: Option<&str>,
    timeout: Option<Duration>,
    cancel: Option<&Cancel>,
) -> Proc {
    if cancel.is_some_and(Cancel::is_cancelled) {
        return Proc {
            why: Some("was cancelled".into()),
            ..Proc::default()
        };
    }
    let Some(exe) = which(program) else {
        return Proc {
            missing: true,
            ..Proc::default()
        };
    };
    let mut cmd = Command::new(&exe);
    cmd.args(argv)
        .current_dir(cwd)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so that a timeout stops its children too.
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && program.contains('/') => {
            return Proc {
                missing: true,
                ..Proc::default()
            };
        }
        Err(e) => {
            return Proc {
                why: Some(format!("could not be started: {e}")),
                ..Proc::default()
            };
        }
    };
    let pid = child.id();
    if let Some(c) = cancel {
        c.register(pid);
        // Cancelled between the check above and the registration: stop it now.
        if c.is_cancelled() {
            c.cancel();
        }
    }
    if let (Some(mut w), Some(input)) = (child.stdin.take(), stdin) {
        let input = input.to_string();
        // A program that does not read its input must not block the run: the writer gives up on a closed pipe.
        std::thread::spawn(move || {
            let _ = w.write_all(input.as_bytes());
        });
    }
    let mut timed_out = false;
    let (stdout, stderr, status) = match timeout {
        // Without a timeout, standard output is read on this thread and the program waited for here: each
        // thread handed a call costs a wake-up, which on a busy machine is most of a call's overhead.
        None => {
            let (tx, _) = mpsc::channel();
            let err = drain(child.stderr.take(), tx);
            let mut buf = Vec::new();
            if let Some(mut r) = child.stdout.take() {
                let _ = r.read_to_end(&mut buf);
            }
            let status = Some(child.wait());
            (buf, err.join().unwrap_or_default(), status)
        }
        // The timeout covers the run until both outputs close, not only until the program exits:
        // a child it left running in the background can hold them open for any time.
        Some(t) => {
            let deadline = Instant::now() + t;
            let (tx, closed) = mpsc::channel();
            let (out, err) = (drain(child.stdout.take(), tx.clone()), drain(child.stderr.take(), tx));
            let (tx, exited) = mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx.send(child.wait());
            });
            let left = || deadline.saturating_duration_since(Instant::now());
            let mut status = exited.recv_timeout(t).ok();
            if status.is_none() || (0..2).any(|_| closed.recv_timeout(left()).is_err()) {
                timed_out = true;
                #[cfg(unix)]
                // SAFETY: kill(2) on the group this run created; no memory is involved.
                unsafe {
                    libc::kill(-(pid as i32), libc::SIGKILL);
                }
                #[cfg(not(unix))]
                let _ = pid;
                status = status.or_else(|| exited.recv().ok());
                // What was read so far: a child that left the group (setsid) can hold the pipes
                // still, and its reader is left to end with it.
                for _ in 0..2 {
                    if closed.recv_timeout(Duration::from_millis(100)).is_err() {
                        break;
                    }
                }
            }
            (out.take(), err.take(), status)
        }
    };
    if let Some(c) = cancel {
        c.unregister(pid);
    }
    let (stdout, stderr) = (text(stdout), text(stderr));
    let status = match status {
        Some(Ok(s)) => s,
        _ => {
            return Proc {
                stdout,
                stderr,
                why: Some("could not be waited for".into()),
                ..Proc::default()
            };
        }
    };
    let code = status.code();
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    };
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    let why = match (code, signal) {
        (Some(0), _) => None,
        _ if cancel.is_some_and(Cancel::is_cancelled) => Some("was cancelled".into()),
        #[cfg(unix)]
        (None, Some(s)) => Some(format!("was stopped by {}", signal_name(s))),
        (c, _) => Some(format!(
            "exited with code {}",
            c.map_or("null".into(), |c| c.to_string())
        )),
    };
    Proc {
        missing: false,
        code,
        stdout,
        stderr,
        why,
        timed_out,
    }
}
