//! Many-literal kernel benchmark: times `kernels/many_literals.cl` on
//! device-resident text for 100 .. 100,000 patterns, next to a
//! device-to-device copy, and checks the offsets against the CPU engine on a
//! prefix of the text. Prints a markdown table.
//!
//! Usage: gsearch-bench-many [--size 1G] [--runs 5] [--device SEL]
//!        [--text FILE] [--words FILE] [--counts 100,1000,...] [-i]
//!        [--check BYTES] [--wg N] [--steps N]
//! Without --text/--words, identifier-like text and words are generated
//! (the sets take every 4th word of the text's vocabulary). With --words,
//! sets are the first N words of the file (one a line).
//! Environment: GSEARCH_BENCH_SIZE, GSEARCH_BENCH_RUNS, GSEARCH_BENCH_WG,
//! GSEARCH_OPENCL_DEVICE.

mod bench;
#[path = "../common/mod.rs"]
mod common;

use bench::{BenchConfig, bench};
use common::{parse_size, print_or_exit, read_args};

fn usage() -> ! {
    eprintln!(
        "usage: gsearch-bench-many [--size BYTES|64M|1G] [--runs N] [--device SEL] [--text FILE] \
         [--words FILE] [--counts N,N,...] [-i] [--check BYTES] [--wg N] [--steps N]"
    );
    std::process::exit(2);
}

fn main() {
    let mut cfg = BenchConfig::from_env();
    read_args(&mut cfg.base, usage, |a, args| {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a {
            "--text" => cfg.text = Some(val().into()),
            "--words" => cfg.words = Some(val().into()),
            "--counts" => {
                cfg.counts = val()
                    .split(',')
                    .map(|s| s.trim().parse().unwrap_or_else(|_| usage()))
                    .collect()
            }
            "-i" | "--ignore-case" => cfg.fold = true,
            "--check" => cfg.check_bytes = parse_size(&val()).unwrap_or_else(|| usage()),
            "--steps" => cfg.iters = val().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    });
    print_or_exit("gsearch-bench-many", bench(&cfg));
}
