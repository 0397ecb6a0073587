//! The `ixgen` binary: parse the command line, run it, exit with its code.

/// mimalloc (see `ixgen::alloc`).
#[global_allocator]
static ALLOCATOR: ixgen::alloc::Allocator = mimalloc::MiMalloc;

fn main() {
    // Behave like other Unix filters when the reader goes away (`ixgen list | head`): end
    // quietly instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; it only restores the default action.
    // Needed because std ignores SIGPIPE before `main`, and neither std nor rustix has a safe
    // way to set a signal's disposition: the one use of libc left.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    ixgen::alloc::configure();
    std::process::exit(ixgen::app::main());
}
