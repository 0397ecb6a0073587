//! The allocator: mimalloc, set up through its public options to hand memory back soon after
//! it is freed.
//!
//! A large catalog is parsed, lowered and rendered on worker threads (`crate::par`), each
//! stage freeing most of what the one before allocated. glibc's malloc keeps an arena per
//! thread and reuses memory freed in one arena only for that arena's thread: 10,000 tools
//! peaked at 130 MB resident for about 80 MB of live heap. mimalloc 3 shares freed pages between
//! threads and returns them to the system after a purge delay. Its default delay, 10 ms, keeps
//! freed pages resident for longer than a stage takes, so one stage's garbage adds to the
//! next one's peak; 0 returns every page at once, and the next allocation faults it in again.
//! [`configure`] sets 2 ms, and [`release_freed`] returns what is still held between stages.
//!
//! Version 2 did not: it gave a freed page back only to the thread that allocated it, so the
//! catalog the main thread parsed could not hold the model the lowering threads built, and the
//! ix catalog scaled to 10,000 tools peaked at 121–133 MB for 78 MB of live heap, against 103 MB
//! with version 3.
//!
//! Transparent huge pages are off twice. mimalloc asks for them on its arena
//! (`madvise(MADV_HUGEPAGE)`) unless built with `MI_NO_THP` (the crate's `no_thp` feature), and
//! it reserves that arena before `main`, too early for its runtime option: the first 2 MiB a
//! run touched became resident whole (`ixgen --version` was 11.2 MB resident, 7.4 MB without).
//! On a system whose huge pages are `always` rather than `madvise`, the kernel would still give
//! them; the process's own switch ([`configure`]) refuses them there too.
//!
//! An earlier round chose glibc's malloc for small catalogs from an ELF constructor, to save
//! mimalloc's start-up (about 0.2 ms of a 1.5 ms ralph-loop iteration), by calling mimalloc's
//! internal start-up functions. That needed a repository-wide `CFLAGS` and two allocators in
//! one process; README "Speed" gives what the plain setup costs instead.

/// The process's allocator (`#[global_allocator]` in `src/main.rs`).
pub type Allocator = mimalloc::MiMalloc;

/// Sets mimalloc's options: called first thing in `main`, before a run allocates much (the
/// purge delay is read at each purge).
pub fn configure() {
    // Huge pages make each 2 MiB region a thread touches resident whole: an idle `ixgen serve`
    // (a few hundred KB of heap on five threads) was 26 MB resident with them, 12 MB without.
    // mimalloc no longer asks for them (`no_thp`); this refuses the ones a system whose setting
    // is `always` would give. The programs a tool runs inherit it; short runs of git or rg gain
    // nothing from huge pages.
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
    // Options of the public `mi_option_e` enum in mimalloc.h (the same in v2 and v3), which
    // libmimalloc-sys does not name; its numbering is stable (retired options keep their place).
    // (The arena's options, such as its eager commit, would come too late here: the arena is
    // reserved before `main`, and a run never needs a second one.)
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: mi_option_set only stores an integer option; any value is valid for this one.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 2) }
}

/// Returns to the system the freed memory mimalloc still holds (its purge delay): called
/// between the stages of a run, so that what one stage freed does not add to the next one's
/// peak.
pub fn release_freed() {
    // SAFETY: mi_collect only walks mimalloc's own heaps; any thread may call it.
    unsafe { libmimalloc_sys::mi_collect(true) }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// Without the switch, an idle `ixgen serve` doubles its resident set (see `configure`).
    #[test]
    fn configure_turns_transparent_huge_pages_off() {
        super::configure();
        assert_eq!(rustix::thread::transparent_huge_pages_are_disabled().ok(), Some(true));
    }
}
