//! gsearch: a ripgrep-compatible search tool whose matcher runs on GPUs
//! through OpenCL. See ARCHITECTURE.md for the map of modules.

pub mod bigfile;
pub mod choose;
pub mod cli;
pub mod config;
pub mod engine;
pub mod fdtable;
pub mod fill;
pub mod generate;
pub mod guard;
pub mod hybrid;
pub mod linefast;
pub mod linematcher;
pub mod lines;
pub mod lookup;
pub mod messages;
pub mod offload;
pub mod offsets;
pub mod opencl;
pub mod plan;
pub mod printer;
pub mod radix;
pub mod run;
pub mod sorted;
pub mod stats;
pub mod trace;
pub mod walk;

/// A positive whole number from the environment variable `name` (the
/// tuning knobs of tests and benchmarks); `None` when unset, not a number
/// or 0.
pub fn env_count(name: &str) -> Option<usize> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// The number of cores the OS lets this process use (at least 1), asked
/// once (the answer reads cgroup files).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
