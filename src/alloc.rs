//! The allocator, chosen once per process before its first allocation: glibc's malloc for an
//! ordinary catalog, mimalloc (set up to hand memory back soon after it is freed) for a large
//! one.
//!
//! A large catalog is parsed, lowered and rendered on worker threads (`crate::par`), each
//! stage freeing most of what the one before allocated. glibc's malloc keeps an arena per
//! thread and reuses memory freed in one arena only for that arena's thread: 10,000 tools
//! peaked at 130 MB resident for about 80 MB of live heap. Limiting glibc to one arena brought
//! the peak under 100 MB but cost a third more CPU time (every thread then contends for one
//! lock). mimalloc shares freed pages between threads and returns them to the system soon
//! after they are freed: about 96 MB, in less CPU time than glibc's default. Returned at once
//! (no purge delay), the peak was 94 MB, but every page the parse frees and takes again costs a
//! page fault: 62,000 of them, a tenth of the first `generate` of 10,000 tools. A delay of
//! 2 ms halves the faults; [`release_freed`] then returns what is still held between the
//! stages, where it would add to the next stage's peak.
//!
//! But mimalloc's start-up touches about 110 pages more than glibc's, 0.26 ms of the 1.8 ms
//! per-iteration run of a ralph loop on the ix catalog, which never starts a thread. So the
//! choice depends on the catalog's size: [`choose`] runs before Rust's own start-up code
//! (from the ELF `.init_array`, which glibc calls with the command line) and settles it for
//! the life of the process. Every block is therefore freed by the allocator that made it.
//! README, "Speed", has the figures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// A catalog file at least this large is read with mimalloc (10,000 tools are 7.7 MB; the ix
/// catalog is 0.1 MB).
pub const LARGE_CATALOG_BYTES: u64 = 1 << 20;

/// Set once by [`choose`], before the first allocation, and never changed after.
static MIMALLOC: AtomicBool = AtomicBool::new(false);
/// Whether glibc's malloc has handed out a block: from then on the choice is made, whatever
/// runs [`choose`] (a block must be freed by the allocator that made it).
static SYSTEM_USED: AtomicBool = AtomicBool::new(false);

/// The process's allocator (`#[global_allocator]` in `src/main.rs`): glibc's or mimalloc, as
/// [`choose`] decided.
pub struct Allocator;

impl Allocator {
    /// The allocator [`choose`] settled on. Every path through it goes by here, so a block
    /// handed out by glibc's malloc is always noted (a dealloc or realloc implies one was).
    #[inline]
    fn chosen() -> &'static dyn GlobalAlloc {
        if MIMALLOC.load(Relaxed) {
            &mimalloc::MiMalloc
        } else {
            mark_system_used();
            &System
        }
    }
}

// SAFETY: each method forwards to one allocator, the same for the whole process (MIMALLOC is
// only set while SYSTEM_USED is not, and never cleared), so every block is resized and freed
// by the allocator that made it.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        unsafe { Self::chosen().alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        unsafe { Self::chosen().alloc_zeroed(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { Self::chosen().dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        unsafe { Self::chosen().realloc(p, l, n) }
    }
}

/// Notes that glibc's malloc handed out a block: read first, so that the threads of a run do
/// not write one shared cache line on every allocation.
#[inline]
fn mark_system_used() {
    if !SYSTEM_USED.load(Relaxed) {
        SYSTEM_USED.store(true, Relaxed);
    }
}

/// Chooses the allocator from the command line (`argc`/`argv` as C passes them): mimalloc
/// when `--catalog` names a file of at least [`LARGE_CATALOG_BYTES`]. Allocates nothing, and
/// must run before anything else allocates (see the module's documentation).
///
/// # Safety
/// `argv` holds `argc` pointers to NUL-terminated strings, as `main` receives them.
#[cfg(unix)]
pub unsafe fn choose(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) {
    use std::ffi::CStr;
    let mut catalog: Option<&CStr> = None;
    let mut i = 1;
    while i < argc as isize {
        // SAFETY: the caller's promise: `argv` has `argc` valid strings.
        let arg = unsafe { CStr::from_ptr(*argv.offset(i)) };
        let bytes = arg.to_bytes();
        if bytes == b"--" {
            break;
        }
        if bytes == b"--catalog" && i + 1 < argc as isize {
            // SAFETY: as above.
            catalog = Some(unsafe { CStr::from_ptr(*argv.offset(i + 1)) });
            i += 1;
        } else if let Some(rest) = bytes.strip_prefix(b"--catalog=") {
            // SAFETY: `rest` is the tail of a NUL-terminated string, so it ends with its NUL.
            catalog = Some(unsafe { CStr::from_ptr(rest.as_ptr().cast()) });
        }
        i += 1;
    }
    let Some(path) = catalog else { return };
    // SAFETY: `stat` fills a plain struct through a valid pointer; `path` is NUL-terminated.
    let large = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::stat(path.as_ptr(), &mut st) == 0 && st.st_size as u64 >= LARGE_CATALOG_BYTES
    };
    // Start-up is single-threaded, and nothing may have allocated yet; if something did, the
    // process stays with glibc's malloc.
    if large && !SYSTEM_USED.load(Relaxed) {
        start_mimalloc();
        configure_mimalloc();
        MIMALLOC.store(true, Relaxed);
    }
}

/// Runs [`choose`] before Rust's start-up code allocates anything, in a binary that installs
/// [`Allocator`] (`src/main.rs`, `examples/memory.rs`): glibc calls every function of the ELF
/// `.init_array` before `main`, with the command line. Elsewhere the process keeps the system
/// allocator. A macro because the function must be in the binary itself: the linker may leave
/// out a library's `#[used]` static when nothing else of its object file is used.
#[macro_export]
macro_rules! choose_allocator_before_main {
    () => {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        #[used]
        #[unsafe(link_section = ".init_array")]
        static CHOOSE_ALLOCATOR: unsafe extern "C" fn(std::ffi::c_int, *const *const std::ffi::c_char) = {
            unsafe extern "C" fn choose(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) {
                // SAFETY: glibc passes the process's own argc and argv.
                unsafe { $crate::alloc::choose(argc, argv) }
            }
            choose
        };
    };
}

/// Whether this process allocates with mimalloc.
pub fn is_mimalloc() -> bool {
    MIMALLOC.load(Relaxed)
}

/// Starts mimalloc, which this build (`.cargo/config.toml`: `MI_PRIM_HAS_PROCESS_ATTACH`) does
/// not start from its own `.init_array` constructor: that constructor reads about 30 options
/// from the environment, `/proc/sys/vm/overcommit_memory` and `getrandom` in every process,
/// about 0.03 ms of a per-iteration run that then never allocates with mimalloc. A build
/// without the define (a `CFLAGS` of the user's own takes its place) has started it already.
#[cfg(unix)]
fn start_mimalloc() {
    // mimalloc's internal start-up functions (`mimalloc/internal.h`), the ones its constructor
    // calls; libmimalloc-sys compiles them into the same static library.
    unsafe extern "C" {
        fn _mi_preloading() -> bool;
        fn _mi_auto_process_init();
    }
    // SAFETY: both take no arguments; start-up is single-threaded, and `_mi_preloading` is
    // true exactly until `_mi_auto_process_init` has run.
    unsafe {
        if _mi_preloading() {
            _mi_auto_process_init();
        }
    }
}

/// Sets mimalloc's options and the process's huge-page policy, before mimalloc reserves its
/// first arena.
#[cfg(unix)]
fn configure_mimalloc() {
    // Options of mimalloc.h's `mi_option_e`, whose numbering is stable (retired options keep
    // their place as `deprecated_…`).
    // `mi_option_purge_delay`: the default, 10 ms, keeps freed pages resident for longer than
    // a stage of a run takes, so one stage's garbage adds to the next one's peak; 0 returns
    // every page at once, and the next allocation faults it in again (see the module's
    // documentation). 2 ms keeps the pages a stage frees and takes again.
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // `mi_option_arena_eager_commit`: on a system that overcommits, mimalloc otherwise commits
    // its first arena whole when it reserves it.
    const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    // SAFETY: mi_option_set only stores an integer option; any value is valid for these.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 2);
        libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
    }
    // Transparent huge pages, where the system makes them always: a 2 MiB page is resident
    // as a whole once one byte of it is touched, which the arena's scattered small blocks
    // do. The flag only affects this process.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and changes only this flag.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Returns to the system the freed memory mimalloc still holds (its purge delay, see
/// [`configure_mimalloc`]): called between the stages of a large run, so that what one stage
/// freed does not add to the next one's peak. Nothing with glibc's malloc.
pub fn release_freed() {
    if is_mimalloc() {
        // SAFETY: mi_collect only walks mimalloc's own heaps; any thread may call it.
        unsafe { libmimalloc_sys::mi_collect(true) }
    }
}
