//! The `ixgen` binary: parse the command line, run it, exit with its code.

/// mimalloc (see `ixgen::alloc`).
#[global_allocator]
static ALLOCATOR: ixgen::alloc::Allocator = mimalloc::MiMalloc;

fn main() {
    ixgen::alloc::configure();
    let cli = ixgen::cli::parse_from(std::env::args_os());
    // Behave like other Unix filters when the reader goes away (`ixgen list | head`): end
    // quietly instead of panicking on a broken pipe. Not `serve`: its tools feed programs on
    // stdin that may exit before reading it all, which must fail that write, not end the server.
    #[cfg(unix)]
    if !matches!(cli.command, ixgen::cli::Command::Serve { .. }) {
        // SAFETY: no thread exists yet (parsing starts none); it only restores the default
        // action. Needed because std ignores SIGPIPE before `main`, and neither std nor rustix
        // has a safe way to set a signal's disposition: the one use of libc left.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    std::process::exit(ixgen::app::run(cli));
}
