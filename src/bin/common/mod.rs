//! What the benchmark binaries share (each includes this file with
//! `#[path = "../common/mod.rs"]`): the settings every kernel benchmark
//! takes, sizes on the command line, the median of timed runs, throughput,
//! and printing the report or the error.

// Each binary uses a part of this file.
#![allow(dead_code)]

use std::fmt::Display;
use std::time::Duration;

use gsearch::opencl::{DEVICE_ENV, DeviceSelector};

/// What every kernel benchmark takes: the text size, the timed runs (the
/// median is reported), the device and the work-group size cap.
#[derive(Clone, Debug)]
pub struct Base {
    pub size: usize,
    pub runs: usize,
    pub selector: DeviceSelector,
    pub work_group: Option<usize>,
}

impl Base {
    /// `size` and `selector` by default, 5 runs, the device's work-group
    /// size; then `GSEARCH_BENCH_SIZE`, `GSEARCH_BENCH_RUNS`,
    /// `GSEARCH_BENCH_WG` and `GSEARCH_OPENCL_DEVICE` where set.
    pub fn from_env(size: usize, selector: DeviceSelector) -> Base {
        let env = |k: &str| std::env::var(k).ok();
        Base {
            size: env("GSEARCH_BENCH_SIZE")
                .and_then(|s| parse_size(&s))
                .unwrap_or(size),
            runs: env("GSEARCH_BENCH_RUNS")
                .and_then(|s| s.parse().ok())
                .unwrap_or(5),
            selector: env(DEVICE_ENV).map_or(selector, |d| DeviceSelector::parse(&d)),
            work_group: env("GSEARCH_BENCH_WG").and_then(|s| s.parse().ok()),
        }
    }

    /// Reads `flag` when it is one of `--size`, `--runs`, `--device` and
    /// `--wg`, its value from `value`: whether it was; `None` for a missing
    /// or bad value.
    pub fn flag(&mut self, flag: &str, value: impl FnOnce() -> Option<String>) -> Option<bool> {
        match flag {
            "--size" => self.size = parse_size(&value()?)?,
            "--runs" => self.runs = value()?.parse().ok()?,
            "--device" => self.selector = DeviceSelector::parse(&value()?),
            "--wg" => self.work_group = Some(value()?.parse().ok()?),
            _ => return Some(false),
        }
        Some(true)
    }
}

/// Parses sizes like `1G`, `64M`, `512K`, `1000`.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()?.to_ascii_uppercase() {
        'G' => (&s[..s.len() - 1], 1usize << 30),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'K' => (&s[..s.len() - 1], 1 << 10),
        _ => (s, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

/// Reads the command line: the flags `base` knows into it, every other
/// one to `own` (with the rest of the arguments, for its value); `usage`
/// for a missing or bad value of a flag of `base`.
pub fn read_args(
    base: &mut Base,
    usage: fn() -> !,
    mut own: impl FnMut(&str, &mut dyn Iterator<Item = String>),
) {
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match base.flag(&a, || args.next()) {
            Some(true) => {}
            Some(false) => own(&a, &mut args),
            None => usage(),
        }
    }
}

/// The median of timed runs (zero for none).
pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// `bytes` in `d` as GB/s (0 for no time).
pub fn gbps(bytes: usize, d: Duration) -> f64 {
    if d.is_zero() {
        0.0
    } else {
        bytes as f64 / d.as_secs_f64() / 1e9
    }
}

/// Prints the report, or `name: error` and exits with status 1.
pub fn print_or_exit<R: Display, E: Display>(name: &str, result: Result<R, E>) {
    match result {
        Ok(report) => print!("{report}"),
        Err(e) => {
            eprintln!("{name}: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("64m"), Some(64 << 20));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("x"), None);
    }
}
