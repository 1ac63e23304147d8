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

/// `n` and `noun`, plural unless `n` is 1 ("1 file", "2 files"): the
/// `--stats` lines are plain English.
pub fn count_of(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The number of cores the OS lets this process use (at least 1), asked
/// once (the answer reads cgroup files).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
