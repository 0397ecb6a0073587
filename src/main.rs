//! The `ixgen` binary: parse the command line, run it, exit with its code.

fn main() {
    // Behave like other Unix filters when the reader goes away (`ixgen list | head`): end
    // quietly instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; it only restores the default action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // One malloc arena for every thread. Parsing and lowering a large catalog allocate on worker
    // threads and free on others: with glibc's default of an arena per thread, memory freed in
    // one arena is not reused by the next stage's threads, and a 10,000-tool catalog peaked
    // 10 to 40 MB higher (and by a varying amount). The threads are few and allocate mostly
    // through their caches, so sharing the arena costs no measurable time.
    // And a fixed threshold for mapping large blocks on their own: glibc otherwise raises it to
    // the size of the largest block freed, so the second rendering of a 10 MB file (`mcp/tools.json`,
    // rendered to compare and again to write) grew inside the heap, which then kept it.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called before any thread exists; mallopt only sets allocator parameters.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    std::process::exit(ixgen::cli::main());
}
