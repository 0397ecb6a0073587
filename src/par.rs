//! The only code that starts threads: an order-keeping parallel map for large catalogs.

/// Maps `f` over `items` on every core when there are enough items to pay for the threads (a
/// large catalog renders and compares thousands of independent files); results are in order,
/// as with `iter().map()`.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_owned(items.iter().collect(), |_, x| f(x)).collect()
}

/// Maps `f` over `items` with each one's index, consuming them: an item is dropped as soon as
/// `f` has turned it into its result, so a large input and its results are never both whole in
/// memory (lowering frees each tool as its model is built). Threads take the next items from a
/// shared queue, a few at a time; results come in order, as with `into_iter().map()`, and in
/// the small batches they were made in, each freed as the caller moves past it (collecting
/// them into one vector first would hold every result twice).
pub fn map_owned<T: Send, R: Send>(items: Vec<T>, f: impl Fn(usize, T) -> R + Sync) -> impl Iterator<Item = R> {
    /// Items taken from the queue at once: enough that the lock is rarely contended.
    const BATCH: usize = 16;
    // One thread per core, as long as each gets at least [`MIN_PER_THREAD`] items; one (this
    // thread) for fewer. Asking for the core count reads cgroup files under /proc: a cost the
    // per-iteration run of a small catalog, which never runs threads, does not pay.
    let threads = match items.len() {
        n if n < 2 * MIN_PER_THREAD => 1,
        n => std::thread::available_parallelism()
            .map_or(1, |c| c.get())
            .min(n / MIN_PER_THREAD),
    };
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let work = || {
        let mut done = Vec::new();
        loop {
            // The lock is held only while taking items, never while mapping them.
            let taken: Vec<(usize, T)> = queue
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .by_ref()
                .take(BATCH)
                .collect();
            let Some(&(first, _)) = taken.first() else {
                break done;
            };
            done.push((first, taken.into_iter().map(|(i, x)| f(i, x)).collect()));
        }
    };
    let mut batches: Vec<(usize, Vec<R>)> = std::thread::scope(|s| {
        let work = &work;
        let handles: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        // This thread works too (alone, for few items): one thread fewer to start, and the items
        // it frees were allocated here, so their pages serve its allocations at once.
        let mut all = work();
        for h in handles {
            all.extend(h.join().expect("a worker thread panicked"));
        }
        all
    });
    batches.sort_unstable_by_key(|(first, _)| *first);
    batches.into_iter().flat_map(|(_, batch)| batch)
}

/// Fewest items worth a thread of their own.
const MIN_PER_THREAD: usize = 64;

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
            let owned: Vec<String> = items.iter().map(|x| x.to_string()).collect();
            assert_eq!(
                super::map_owned(owned, |i, s| (i, s.len())).collect::<Vec<_>>(),
                items.iter().map(|&x| (x, x.to_string().len())).collect::<Vec<_>>()
            );
        }
    }
}
