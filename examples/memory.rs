//! Where a `generate` run's memory goes, stage by stage: a counting global allocator prints
//! the bytes live after each stage and the peak during it (the heap only; GNU time's `%M`
//! also counts the binary, stacks and the allocator's slack). A `realloc` counts both blocks,
//! as the allocator may hold both while it copies.
//!
//! ```sh
//! python3 benches/gen_catalog.py 10000 /tmp/x/icon.png > /tmp/x/c.yaml
//! cargo run --release --example memory -- --catalog /tmp/x/c.yaml /tmp/x/out   # twice: first, then no-op
//! ```
use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The binary's allocator (`src/main.rs`), counted.
static INNER: ixgen::alloc::Allocator = mimalloc::MiMalloc;

/// The binary's allocator, counting the bytes it hands out.
struct Counting;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { INNER.alloc(l) };
        let c = CUR.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(c, Relaxed);
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CUR.fetch_sub(l.size(), Relaxed);
        unsafe { INNER.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let q = unsafe { INNER.realloc(p, l, n) };
        let c = CUR.fetch_add(n, Relaxed) + n;
        PEAK.fetch_max(c, Relaxed);
        CUR.fetch_sub(l.size(), Relaxed);
        q
    }
}
#[global_allocator]
static A: Counting = Counting;

static T0: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
/// Prints the time, the bytes live and the peak since the last mark, then starts a new peak.
fn mark(what: &str) {
    // The process's resident set, now and at its highest, as the kernel counts it.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |k| k / 1024.0)
    };
    eprintln!(
        "{what:<28} {:>6} ms  heap now {:>6.1} MB, peak {:>6.1} MB  RSS now {:>6.1} MiB, peak {:>6.1} MiB",
        T0.get_or_init(std::time::Instant::now).elapsed().as_millis(),
        CUR.load(Relaxed) as f64 / 1e6,
        PEAK.load(Relaxed) as f64 / 1e6,
        kb("VmRSS:"),
        kb("VmHWM:"),
    );
    PEAK.store(CUR.load(Relaxed), Relaxed);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some("--catalog"), Some(cat), Some(out)) = (args.get(1).map(String::as_str), args.get(2), args.get(3)) else {
        eprintln!("usage: memory --catalog CATALOG OUT");
        std::process::exit(2);
    };
    let (cat, out) = (std::path::PathBuf::from(cat), std::path::PathBuf::from(out));
    ixgen::alloc::configure();
    // The inline sizes of the types a catalog has thousands of.
    use std::mem::size_of;
    eprintln!(
        "Tool {} Param {} Step {} Arg {} Cond {} ToolModel {} ParamDoc {} ExecSpec {} SpecParam {} SpecStep {}",
        size_of::<ixgen::catalog::types::Tool>(),
        size_of::<ixgen::catalog::types::Param>(),
        size_of::<ixgen::catalog::types::Step>(),
        size_of::<ixgen::catalog::types::Arg>(),
        size_of::<ixgen::catalog::types::Cond>(),
        size_of::<ixgen::model::ToolModel>(),
        size_of::<ixgen::model::ParamDoc>(),
        size_of::<ixgen::spec::ExecSpec>(),
        size_of::<ixgen::spec::SpecParam>(),
        size_of::<ixgen::spec::SpecStep>()
    );
    mark("start");
    let loaded = ixgen::catalog::load(Some(&cat)).unwrap();
    mark("catalog::load");
    let name = cat
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let lowered = ixgen::model::lower(loaded, &name, ixgen::hosts::check).unwrap();
    let model = lowered.model;
    mark("model::lower");
    let targets: Vec<&'static dyn ixgen::hosts::DynHost> = ixgen::hosts::REGISTRY
        .iter()
        .copied()
        .filter(|h| ixgen::hosts::enabled(&model, *h) && h.by_default())
        .collect();
    let opts = ixgen::hosts::Options {
        filter: Default::default(),
        context: Default::default(),
        toolset: None,
        profiles: vec![ixgen::hosts::mcp::Profile::V2025_11_25],
    };
    let plan = ixgen::hosts::plan(&model, &targets, &opts).unwrap();
    mark("hosts::plan");
    let outcome = ixgen::output::write(plan, &out, Default::default()).unwrap();
    mark("output::write");
    drop(outcome);
    mark("end");
}
