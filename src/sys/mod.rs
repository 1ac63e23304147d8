//! What the search stages stand on: the SIGBUS guard for memory maps,
//! per-thread file descriptor tables, messages on stderr, start-up tracing,
//! and the few process-wide facts (core count, tuning variables).

pub mod fdtable;
pub mod guard;
pub mod logger;
pub mod messages;
pub mod trace;

/// A positive whole number from the environment variable `name` (the
/// tuning knobs of tests and benchmarks); `None` when unset, not a number
/// or 0.
pub fn env_count(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// Whether `fd` is a pipe whose reader has gone (standard output after
/// `| head -1` took its line): Linux reports `POLLERR` on a pipe's write
/// end with no reader left. False for anything else, and where poll fails.
pub fn reader_gone(fd: std::os::fd::RawFd) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: `p` is one valid pollfd for the call's count of 1, and a
    // zero timeout returns at once; poll keeps no pointer.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n == 1 && p.revents & libc::POLLERR != 0
}

/// `n` and `noun`, plural unless `n` is 1 ("1 file", "2 files", "3
/// matches", "0 regexes"): the `--stats` lines are plain English.
pub fn count_of(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" {
        return format!("1 {noun}");
    }
    let es = ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|e| noun.ends_with(e));
    format!("{n} {noun}{}", if es { "es" } else { "s" })
}

/// The number of cores this process may use (at least 1): those the OS
/// lets it use (asked once: the answer reads cgroup files), at most the
/// `-j` given ([`limit_cores`]).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let os = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    match CORE_LIMIT.load(std::sync::atomic::Ordering::Relaxed) {
        0 => os,
        n => os.min(n),
    }
}

/// `-j` given on the command line (0: none).
static CORE_LIMIT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Caps [`cores`] at `n` for the rest of the run: `-j N` bounds every pool
/// of threads, the one that splits a big file and those that fill a
/// device's staging buffers included, as ripgrep's `-j` bounds its
/// threads.
pub fn limit_cores(n: usize) {
    CORE_LIMIT.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// Bytes below which a staging fill's read is not split among threads.
pub const FILL_PIECE: usize = 4 << 20;

/// Threads that fill a device's staging buffers (`GSEARCH_FILL_THREADS`
/// overrides): the cores up to 8, and half the cores up to 16 beyond
/// that. One H200 on a 16-core host streamed as fast with 16 as with 8
/// (`bench/results/2026-11-27-h200-fill-study.md`); on a 32-core host, 16
/// threads filling 64 MiB batches took one GPU's stream of 32.3 GB from 29
/// to 37-41 GB/s (`2026-11-27-h200x2-fill-32-cores.md`).
pub fn fill_threads() -> usize {
    env_count("GSEARCH_FILL_THREADS").unwrap_or_else(|| (cores() / 2).max(cores().min(8)).min(16))
}

/// Jobs that share the cores at the moment (big files finishing beside a
/// device stream, each holding a [`CoreShare`]).
static SHARING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A job's claim on its share of the cores while it lives: several at
/// once split the cores between them, so that their threads together do
/// not crowd out the threads that feed the devices.
pub struct CoreShare(());

impl CoreShare {
    pub fn take() -> CoreShare {
        SHARING.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CoreShare(())
    }
}

impl Drop for CoreShare {
    fn drop(&mut self) {
        SHARING.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The threads one piece of host work may start: every core, or an equal
/// share of them while several jobs hold a [`CoreShare`].
pub fn core_share() -> usize {
    let jobs = SHARING.load(std::sync::atomic::Ordering::Relaxed).max(1);
    (cores() / jobs).max(1)
}

/// `f` applied to every item on up to `threads` threads (items taken in
/// order from a shared counter, so slow items do not hold up a fixed
/// share); the results in item order.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut all: Vec<(usize, R)> = parts.into_iter().flatten().collect();
    all.sort_unstable_by_key(|&(i, _)| i);
    all.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::reader_gone;

    #[test]
    fn a_pipe_without_its_reader_is_seen_as_gone() {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe writes.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let [read, write] = fds;
        assert!(!reader_gone(write));
        // SAFETY: `read` is this test's own descriptor, closed once.
        unsafe { libc::close(read) };
        assert!(reader_gone(write));
        // SAFETY: as above, for `write`.
        unsafe { libc::close(write) };
        let file = tempfile::tempfile().unwrap();
        assert!(!reader_gone(std::os::fd::AsRawFd::as_raw_fd(&file)));
    }

    #[test]
    fn count_of_plurals() {
        assert_eq!(super::count_of(1, "batch"), "1 batch");
        assert_eq!(super::count_of(2, "batch"), "2 batches");
        assert_eq!(super::count_of(0u64, "regex"), "0 regexes");
        assert_eq!(super::count_of(3, "thread"), "3 threads");
        assert_eq!(super::count_of(1usize, "match"), "1 match");
    }
}
