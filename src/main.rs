//! The `ixgen` binary: parse the command line, run it, exit with its code.

/// Glibc's malloc or mimalloc, chosen before the first allocation (see `ixgen::alloc`).
#[global_allocator]
static ALLOCATOR: ixgen::alloc::Allocator = ixgen::alloc::Allocator;

ixgen::choose_allocator_before_main!();

fn main() {
    // Behave like other Unix filters when the reader goes away (`ixgen list | head`): end
    // quietly instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; it only restores the default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(ixgen::cli::main());
}
