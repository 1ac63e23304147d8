//! DFA kernel benchmark: times `kernels/dfa.cl` on device-resident text for
//! generated secret-scanner rule sets (~15, ~200 and ~1,000 rules by
//! default) next to a device-to-device copy of the same text, and prints a
//! markdown table with the groups and table sizes of each set.
//!
//! Usage: gsearch-bench-dfa [--size 256M] [--runs 5] [--rules 15,200,1000]
//!        [--rules-file F,F] [--group-bytes 0,256K,1M] [--threads 1,2,16]
//!        [--seg 256,1024,4096] [--near 0,1] [--device SEL] [--wg N] [--no-check]
//!        [--build-only]
//!
//! Every table row says the groups and the build time for its group size
//! (`--group-bytes`: 0 is the device's local memory, the default; more lets
//! groups grow into global memory, as `GSEARCH_DFA_GROUP_BYTES` does).
//! `--near 0,1`: without near groups, and as the engine builds them
//! (patterns with literal factors run only on the lines holding one).
//! `--rules-file` takes rule files (one regex a line, e.g. bench/rules)
//! instead of the generated sets. `--build-only` times the table build
//! alone, with no device or text (local memory `--local-mem`, default 48K,
//! the H100's), once per `--threads` count.
//! Environment: GSEARCH_BENCH_SIZE, GSEARCH_BENCH_RUNS, GSEARCH_BENCH_WG,
//! GSEARCH_OPENCL_DEVICE. `--check` (on unless `--no-check`) compares the
//! kernel's line count with the host's tables on the same text (slow on
//! big texts with many rules).

mod build;
#[path = "../common/mod.rs"]
mod common;
mod rules;
#[allow(dead_code)]
#[path = "../gsearch-bench-kernels/text.rs"]
mod text;

use std::time::Instant;

use common::{Base, gbps, median, parse_size, read_args};
use gsearch::engine::dfa_table::{DfaLimits, DfaSet, DfaSpec, NearMode};
use gsearch::opencl::{DeviceSelector, KernelTimer, select};

struct Config {
    base: Base,
    rules: Vec<usize>,
    files: Vec<String>,
    group_bytes: Vec<usize>,
    threads: Vec<usize>,
    build_only: bool,
    local_mem: u64,
    segs: Vec<usize>,
    check: bool,
    near: Vec<usize>,
}

fn usage() -> ! {
    eprintln!(
        "usage: gsearch-bench-dfa [--size BYTES|64M|1G] [--runs N] [--rules N,N,..] \
         [--rules-file F,F,..] [--group-bytes B,B,..] [--threads N,N,..] [--seg N,N,..] \
         [--near 0,1] [--device SEL] [--wg N] [--no-check] [--build-only] [--local-mem B]"
    );
    std::process::exit(2);
}

fn list(s: &str) -> Vec<usize> {
    let v: Vec<usize> = s.split(',').filter_map(parse_size).collect();
    if v.is_empty() {
        usage()
    }
    v
}

fn config() -> Config {
    let mut c = Config {
        base: Base::from_env(256 << 20, DeviceSelector::Auto),
        rules: vec![15, 200, 1000],
        files: Vec::new(),
        group_bytes: vec![0],
        threads: vec![gsearch::engine::dfa_table::build_threads()],
        build_only: false,
        local_mem: 48 << 10,
        segs: vec![128],
        check: true,
        near: vec![1],
    };
    read_args(&mut c.base, usage, |a, args| {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a {
            "--rules" => c.rules = list(&val()),
            "--rules-file" => c.files = val().split(',').map(String::from).collect(),
            "--group-bytes" => c.group_bytes = list(&val()),
            "--threads" => c.threads = list(&val()),
            "--build-only" => c.build_only = true,
            "--local-mem" => c.local_mem = parse_size(&val()).unwrap_or_else(|| usage()) as u64,
            "--seg" => c.segs = list(&val()),
            "--no-check" => c.check = false,
            "--near" => c.near = list(&val()),
            _ => usage(),
        }
    });
    c
}

/// What the kernel counts: per group, the lines it accepts (and an
/// unterminated last line), plus offset 0 once.
fn host_count(set: &DfaSet, text: &[u8]) -> u64 {
    let mut n = 1;
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let last_open = !text.ends_with(b"\n");
    for g in &set.groups {
        for (i, l) in lines.iter().enumerate() {
            let last = i + 1 == lines.len();
            if last && l.is_empty() && !last_open {
                continue;
            }
            if (last && last_open) || g.accepts(l) {
                n += 1;
            }
        }
    }
    n
}

/// The rule sets to run: (name, patterns).
fn rule_sets(c: &Config) -> Result<Vec<(String, Vec<String>)>, String> {
    if c.files.is_empty() {
        return Ok(c
            .rules
            .iter()
            .map(|&n| (n.to_string(), rules::rules(n)))
            .collect());
    }
    c.files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
            let name = f.rsplit('/').next().unwrap_or(f).to_string();
            Ok((
                name,
                text.lines()
                    .filter(|l| !l.is_empty())
                    .map(String::from)
                    .collect(),
            ))
        })
        .collect()
}

fn spec(patterns: Vec<String>) -> DfaSpec {
    let factors = patterns
        .iter()
        .map(|p| gsearch::matcher::plan::pattern_factors(p, false))
        .collect();
    DfaSpec {
        patterns,
        fixed_strings: false,
        case_insensitive: false,
        factors,
    }
}

/// `--near`'s values: 0 no near groups, 1 as the engine decides.
fn near_mode(v: usize) -> NearMode {
    if v == 0 {
        NearMode::Never
    } else {
        NearMode::Auto
    }
}

/// The grouping limits for a group size of `b` bytes (0: local memory).
fn limits(local_mem: u64, b: usize) -> DfaLimits {
    let mut l = DfaLimits::for_local_mem(local_mem);
    if b > 0 {
        l.group_bytes = b;
    }
    l
}

fn build_only(c: &Config) -> Result<String, String> {
    let mut s = format!(
        "# DFA table build ({} cores here, local memory {} KiB)\n\n{}",
        gsearch::sys::cores(),
        c.local_mem >> 10,
        build::HEADER
    );
    for (name, pats) in rule_sets(c)? {
        let spec = spec(pats);
        for &b in &c.group_bytes {
            for &t in &c.threads {
                s += &build::row(&name, &spec, limits(c.local_mem, b), t)?;
            }
        }
    }
    Ok(s)
}

fn main() {
    let c = config();
    let r = if c.build_only {
        build_only(&c)
    } else {
        run(&c)
    };
    match r {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("gsearch-bench-dfa: {e}");
            std::process::exit(1);
        }
    }
}

fn run(c: &Config) -> Result<String, String> {
    let info = select(&c.base.selector).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let hay = rules::plant(text::realistic_text(c.base.size, 0x9E37_79B9), 97);
    let gen_time = t.elapsed();
    let mut s = format!(
        "# DFA kernel on {} ({}; local memory {} KiB)\n\n{} MiB of text (generated in {:.1} s, \
         one line in 97 a planted secret), median of {} runs; build on {} threads\n\n",
        info.name,
        info.platform,
        info.local_mem >> 10,
        c.base.size >> 20,
        gen_time.as_secs_f64(),
        c.base.runs,
        gsearch::engine::dfa_table::build_threads(),
    );
    s += "| rules | group bytes | groups (local, near) | states | table bytes (largest) \
          | build ms | seg | work-group | kernel GB/s | copy GB/s | lines found | check |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (name, pats) in rule_sets(c)? {
        let spec = spec(pats);
        for (&gb, &near) in c
            .group_bytes
            .iter()
            .flat_map(|g| c.near.iter().map(move |n| (g, n)))
        {
            let lim = limits(info.local_mem, gb);
            let t = Instant::now();
            let threads = gsearch::engine::dfa_table::build_threads();
            let set = DfaSet::build_mode(&spec, lim, threads, near_mode(near))?;
            let head = format!(
                "| {name} | {} | {} ({}, {}) | {} | {} | {:.0} |",
                lim.group_bytes,
                set.groups.len(),
                set.local_groups(),
                set.near_groups(),
                set.groups.iter().map(|g| u64::from(g.states)).sum::<u64>(),
                table_bytes(&set),
                t.elapsed().as_secs_f64() * 1e3,
            );
            s += &kernel_rows(c, &head, &set, &hay, &info)?;
        }
    }
    s += "\nlines found: candidate lines recorded by the kernel, once per group that accepts \
          them (the engine sorts and dedupes); the copy is a device-to-device copy of the same \
          text. `GSEARCH_DFA_SEG` / `--seg`: bytes per work-item. group bytes: the bytes a \
          group's table may take (the local memory's size unless `--group-bytes`).\n";
    Ok(s)
}

/// "total (largest)" table bytes of `set`.
fn table_bytes(set: &DfaSet) -> String {
    let bytes: usize = set.groups.iter().map(|g| g.table_bytes()).sum();
    let largest = set.groups.iter().map(|g| g.table_bytes()).max();
    format!("{bytes} ({})", largest.unwrap_or(0))
}

/// One row per segment size for `set`'s tables, after `head`'s cells.
fn kernel_rows(
    c: &Config,
    head: &str,
    set: &DfaSet,
    hay: &[u8],
    info: &gsearch::opencl::DeviceInfo,
) -> Result<String, String> {
    let mut s = String::new();
    // Near groups record a line once per factor in it: no count to check.
    let expect = (c.check && set.near_groups() == 0).then(|| host_count(set, hay));
    for &seg in &c.segs {
        // SAFETY: single-threaded here; read when the timer is built.
        unsafe { std::env::set_var("GSEARCH_DFA_SEG", seg.to_string()) };
        let mut timer = KernelTimer::new_dfa(info, set, c.base.work_group)?;
        let text = timer.upload(hay)?;
        let copy = median(timer.time_copies(&text, c.base.runs)?);
        let mut times = Vec::new();
        let mut found = 0;
        for i in 0..=c.base.runs {
            let (d, n) = timer.time_match(&text)?;
            found = n;
            if i > 0 {
                times.push(d);
            }
        }
        let check = match expect {
            Some(e) if e == found => "ok".to_string(),
            Some(e) => format!("MISMATCH (host {e})"),
            None => "-".to_string(),
        };
        s += &format!(
            "{head} {seg} | {} | {:.2} | {:.2} | {found} | {check} |\n",
            timer.work_group(),
            gbps(hay.len(), median(times)),
            gbps(hay.len(), copy),
        );
    }
    Ok(s)
}
