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

mod bench;
#[path = "../gsearch-bench-kernels/size.rs"]
mod size;

use gsearch::opencl::DeviceSelector;

use bench::{BenchConfig, bench};
use size::parse_size;

fn usage() -> ! {
    eprintln!(
        "usage: gsearch-bench-many [--size BYTES|64M|1G] [--runs N] [--device SEL] [--text FILE] \
         [--words FILE] [--counts N,N,...] [-i] [--check BYTES] [--wg N] [--steps N]"
    );
    std::process::exit(2);
}

fn main() {
    let mut cfg = BenchConfig::default();
    if let Ok(d) = std::env::var("GSEARCH_OPENCL_DEVICE") {
        cfg.selector = DeviceSelector::parse(&d);
    }
    let mut args = std::env::args().skip(1);
    let val = |args: &mut dyn Iterator<Item = String>| args.next().unwrap_or_else(|| usage());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--size" => cfg.size = parse_size(&val(&mut args)).unwrap_or_else(|| usage()),
            "--runs" => cfg.runs = val(&mut args).parse().unwrap_or_else(|_| usage()),
            "--device" => cfg.selector = DeviceSelector::parse(&val(&mut args)),
            "--text" => cfg.text = Some(val(&mut args).into()),
            "--words" => cfg.words = Some(val(&mut args).into()),
            "--counts" => {
                cfg.counts = val(&mut args)
                    .split(',')
                    .map(|s| s.trim().parse().unwrap_or_else(|_| usage()))
                    .collect()
            }
            "-i" | "--ignore-case" => cfg.fold = true,
            "--check" => cfg.check_bytes = parse_size(&val(&mut args)).unwrap_or_else(|| usage()),
            "--wg" => cfg.wg = Some(val(&mut args).parse().unwrap_or_else(|_| usage())),
            "--steps" => cfg.iters = val(&mut args).parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    match bench(&cfg) {
        Ok(report) => print!("{report}"),
        Err(e) => {
            eprintln!("gsearch-bench-many: {e}");
            std::process::exit(1);
        }
    }
}
