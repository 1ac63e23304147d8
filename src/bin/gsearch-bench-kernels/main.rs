//! Kernel benchmark: times gsearch's OpenCL kernels on device-resident text
//! against a device-to-device copy and prints a markdown table.
//!
//! Usage: gsearch-bench-kernels [--size 1G] [--runs 5] [--device SEL] [--no-check]
//! Environment: GSEARCH_BENCH_SIZE, GSEARCH_BENCH_RUNS, GSEARCH_OPENCL_DEVICE
//! (SEL: `auto`, `any`, a device index from `--list-devices`, or a name part).

mod bench;
mod size;
mod text;

use gsearch::opencl::DeviceSelector;

use bench::{BenchConfig, run};
use size::parse_size;

fn usage() -> ! {
    eprintln!(
        "usage: gsearch-bench-kernels [--size BYTES|64M|1G] [--runs N] [--device SEL] [--no-check] [--list]"
    );
    std::process::exit(2);
}

fn main() {
    let mut cfg = BenchConfig::default();
    if let Some(s) = std::env::var("GSEARCH_BENCH_SIZE")
        .ok()
        .and_then(|s| parse_size(&s))
    {
        cfg.size = s;
    }
    if let Some(r) = std::env::var("GSEARCH_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        cfg.runs = r;
    }
    if let Some(w) = std::env::var("GSEARCH_BENCH_WG")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        cfg.work_group = Some(w);
    }
    if let Some(i) = std::env::var("GSEARCH_BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        cfg.iters = i;
    }
    if let Ok(d) = std::env::var("GSEARCH_OPENCL_DEVICE") {
        cfg.selector = DeviceSelector::parse(&d);
    }
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--size" => {
                cfg.size = args
                    .next()
                    .and_then(|s| parse_size(&s))
                    .unwrap_or_else(|| usage())
            }
            "--runs" => {
                cfg.runs = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--device" => {
                cfg.selector = DeviceSelector::parse(&args.next().unwrap_or_else(|| usage()))
            }
            "--no-check" => cfg.check = false,
            "--list" => {
                print!("{}", gsearch::opencl::list_devices_text());
                return;
            }
            _ => usage(),
        }
    }
    match run(&cfg) {
        Ok(report) => print!("{report}"),
        Err(e) => {
            eprintln!("gsearch-bench-kernels: {e}");
            std::process::exit(1);
        }
    }
}
