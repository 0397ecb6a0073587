//! The only code that starts threads: an order-keeping parallel map for large catalogs.

/// Maps `f` over `items` on every core when there are enough items to pay for the threads (a
/// large catalog renders and compares thousands of independent files); results are in order,
/// as with `iter().map()`.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    const MIN_PER_THREAD: usize = 64;
    // Asking for the core count reads cgroup files under /proc: a cost the per-iteration run
    // of a small catalog, which never runs threads, does not pay.
    if items.len() < 2 * MIN_PER_THREAD {
        return items.iter().map(f).collect();
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len() / MIN_PER_THREAD);
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order_in_parallel_and_sequentially() {
        for n in [0, 5, 1000] {
            let items: Vec<usize> = (0..n).collect();
            assert_eq!(
                super::map(&items, |x| x * 2),
                items.iter().map(|x| x * 2).collect::<Vec<_>>()
            );
        }
    }
}
