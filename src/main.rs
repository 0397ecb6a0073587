//! The `ixgen` binary: parse the command line, run it, exit with its code.

/// Glibc's malloc or mimalloc, chosen before the first allocation (see `ixgen::alloc`).
#[global_allocator]
static ALLOCATOR: ixgen::alloc::Allocator = ixgen::alloc::Allocator;

/// Runs [`ixgen::alloc::choose`] before Rust's start-up code allocates anything: glibc calls
/// every function of the ELF `.init_array` before `main`, with the command line. Elsewhere the
/// process keeps the system allocator.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[unsafe(link_section = ".init_array")]
static CHOOSE_ALLOCATOR: unsafe extern "C" fn(std::ffi::c_int, *const *const std::ffi::c_char) = {
    unsafe extern "C" fn choose(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) {
        // SAFETY: glibc passes the process's own argc and argv.
        unsafe { ixgen::alloc::choose(argc, argv) }
    }
    choose
};

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
