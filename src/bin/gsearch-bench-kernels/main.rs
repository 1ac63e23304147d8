//! Kernel benchmark: times gsearch's OpenCL kernels on device-resident text
//! against a device-to-device copy and prints a markdown table.
//!
//! Usage: gsearch-bench-kernels [--size 1G] [--runs 5] [--device SEL] [--wg N] [--no-check]
//! Environment: GSEARCH_BENCH_SIZE, GSEARCH_BENCH_RUNS, GSEARCH_BENCH_WG,
//! GSEARCH_BENCH_ITERS, GSEARCH_OPENCL_DEVICE
//! (SEL: `auto`, `any`, a device index from `--list-devices`, or a name part).

mod bench;
#[path = "../common/mod.rs"]
mod common;
mod text;

use bench::{BenchConfig, run};
use common::{print_or_exit, read_args};

fn usage() -> ! {
    eprintln!(
        "usage: gsearch-bench-kernels [--size BYTES|64M|1G] [--runs N] [--device SEL] [--wg N] \
         [--no-check] [--list]"
    );
    std::process::exit(2);
}

fn main() {
    let mut cfg = BenchConfig::from_env();
    let mut check = cfg.check;
    read_args(&mut cfg.base, usage, |a, _| match a {
        "--no-check" => check = false,
        "--list" => {
            print!("{}", gsearch::opencl::list_devices_text());
            std::process::exit(0);
        }
        _ => usage(),
    });
    cfg.check = check;
    print_or_exit("gsearch-bench-kernels", run(&cfg));
}
