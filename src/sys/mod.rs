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

/// The number of cores the OS lets this process use (at least 1), asked
/// once (the answer reads cgroup files).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn count_of_plurals() {
        assert_eq!(super::count_of(1, "batch"), "1 batch");
        assert_eq!(super::count_of(2, "batch"), "2 batches");
        assert_eq!(super::count_of(0u64, "regex"), "0 regexes");
        assert_eq!(super::count_of(3, "thread"), "3 threads");
        assert_eq!(super::count_of(1usize, "match"), "1 match");
    }
}
