//! The kernel benchmark: kernels timed on device-resident text with OpenCL
//! profiling events (median of several runs), next to a device-to-device
//! copy of the same size.
//!
//! Conventions (printed with the table):
//! - kernel GB/s = text bytes scanned / kernel time (1 GB = 1e9 bytes);
//! - copy GB/s = 2 x bytes / copy time (`clEnqueueCopyBuffer` reads and
//!   writes every byte), i.e. the device's achievable memory bandwidth;
//! - "of copy" = kernel GB/s / copy GB/s: the share of that bandwidth the
//!   kernel's single read of the text uses (1.0 = as fast as memory allows).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gsearch::engine::LiteralSet;
use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::opencl::{DeviceInfo, DeviceSelector, KernelKind, KernelTimer, PAD, select};

use crate::common::{Base, gbps, median};
use crate::text::{partial_text, realistic_text};

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub base: Base,
    /// Compare match counts with the CPU engine (over the whole text).
    pub check: bool,
    /// Positions per work-item per block (`GSEARCH_BENCH_ITERS`).
    pub iters: usize,
}

impl BenchConfig {
    /// 1 GiB of text, the explicitly chosen device, a check; then the
    /// environment.
    pub fn from_env() -> Self {
        BenchConfig {
            base: Base::from_env(1 << 30, DeviceSelector::Explicit),
            check: true,
            iters: std::env::var("GSEARCH_BENCH_ITERS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(64),
        }
    }
}

const PARTIAL_PAT: &str = "partial_match_needle_0123456789";
const FOUR: [&str; 4] = ["needle", "kernel", "error:", "0x1f"];
const SIXTEEN: [&str; 16] = [
    "needle",
    "kernel",
    "error:",
    "0x1f",
    "struct",
    "memory",
    "device",
    "warning:",
    "request_id",
    "Vec<u8>",
    "println!",
    "search",
    "offset",
    "buffer",
    "2026-11",
    "zzz",
];

/// One row of the table.
struct Case {
    kind: KernelKind,
    /// 0 realistic, 1 partial.
    text: usize,
    pats: Vec<&'static str>,
    fold: bool,
    count_mode: bool,
}

fn case(kind: KernelKind, text: usize, pats: &[&'static str], fold: bool, count: bool) -> Case {
    Case {
        kind,
        text,
        pats: pats.to_vec(),
        fold,
        count_mode: count,
    }
}

fn cases() -> Vec<Case> {
    use KernelKind::{Char16, Naive, ThreePhase};
    vec![
        case(Naive, 0, &["needle"], false, false),
        case(ThreePhase, 0, &["needle"], false, false),
        case(ThreePhase, 0, &["needle"], true, false),
        case(ThreePhase, 0, &["="], false, false),
        case(
            ThreePhase,
            0,
            &["request_id=7f3a GET /api/v1 404"],
            false,
            false,
        ),
        case(Naive, 1, &[PARTIAL_PAT], false, false),
        case(ThreePhase, 1, &[PARTIAL_PAT], false, false),
        case(Naive, 0, &FOUR, false, false),
        case(Char16, 0, &FOUR, false, false),
        case(Char16, 0, &FOUR, false, true),
        case(Char16, 0, &FOUR, true, false),
        case(Char16, 0, &SIXTEEN, false, false),
    ]
}

/// What the runs over all cases gathered.
#[derive(Default)]
struct Report {
    rows: String,
    notes: Vec<String>,
    copy_gbps: f64,
    wg_used: usize,
}

/// Runs every case and returns the markdown report.
pub fn run(cfg: &BenchConfig) -> Result<String, String> {
    let info = select(&cfg.base.selector).map_err(|e| e.to_string())?;
    let max = usize::try_from(info.max_alloc)
        .unwrap_or(usize::MAX)
        .saturating_sub(PAD)
        .min((1 << 31) - 1);
    let size = cfg.base.size.clamp(1024, max);
    let runs = cfg.base.runs.max(1);
    let t = Instant::now();
    let texts = [
        realistic_text(size, 0x9E37_79B9),
        partial_text(size, PARTIAL_PAT.as_bytes()),
    ];
    let gen_time = t.elapsed();
    let mut report = Report::default();
    for (ci, c) in cases().iter().enumerate() {
        run_case(cfg, &info, (ci, c), &texts[c.text], runs, &mut report)?;
    }
    Ok(render(cfg, &info, size, gen_time, runs, report))
}

/// Times one case (and, for the first, the copy) and adds its row.
fn run_case(
    cfg: &BenchConfig,
    info: &DeviceInfo,
    (ci, c): (usize, &Case),
    text: &[u8],
    runs: usize,
    report: &mut Report,
) -> Result<(), String> {
    let pats: Vec<Vec<u8>> = c.pats.iter().map(|p| p.as_bytes().to_vec()).collect();
    let set = LiteralSet::new(pats, c.fold);
    let mut timer = KernelTimer::new(info, c.kind, &set, cfg.base.work_group, cfg.iters)?;
    report.wg_used = timer.work_group();
    let dev = timer.upload(text)?;
    if ci == 0 {
        // device-to-device copy of the same size
        let times = timer.time_copies(&dev, runs)?;
        report.copy_gbps = gbps(2 * text.len(), median(times));
    }
    let mut times = Vec::new();
    let mut found = 0u64;
    for i in 0..=runs {
        let (d, n) = if c.count_mode {
            timer.time_count(&dev, set.patterns.len())?
        } else {
            timer.time_match(&dev)?
        };
        if i > 0 {
            times.push(d);
        }
        found = n;
    }
    let k = gbps(text.len(), median(times));
    let check = if cfg.check {
        check_cell(&set, c, text, found, ci, &mut report.notes)?
    } else {
        "-".to_string()
    };
    push_row(report, c, k, found, &check);
    Ok(())
}

/// Matches (or, in count mode, occurrences) the CPU engine finds.
fn cpu_count(set: &LiteralSet, c: &Case, text: &[u8]) -> Result<u64, String> {
    if !c.count_mode {
        let cpu = CpuLiteralEngine::new(set).map_err(|e| e.to_string())?;
        return Ok(cpu.find_all(text).len() as u64);
    }
    Ok(set
        .patterns
        .iter()
        .map(|p| {
            CpuLiteralEngine::new(&LiteralSet::new(vec![p.clone()], c.fold))
                .map(|e| e.find_all(text).len() as u64)
                .unwrap_or(0)
        })
        .sum())
}

/// The "CPU check" cell: ok, or a mismatch (also noted under the table).
fn check_cell(
    set: &LiteralSet,
    c: &Case,
    text: &[u8],
    found: u64,
    ci: usize,
    notes: &mut Vec<String>,
) -> Result<String, String> {
    let want = cpu_count(set, c, text)?;
    if want == found {
        return Ok("ok".to_string());
    }
    notes.push(format!("case {ci}: device {found}, CPU {want}"));
    Ok(format!("MISMATCH (CPU {want})"))
}

/// The patterns as the table shows them (the first three of a long list).
fn shown(pats: &[&str]) -> String {
    let shown: Vec<String> = pats.iter().map(|p| format!("`{p}`")).collect();
    if shown.len() > 4 {
        format!("{} patterns ({} ...)", shown.len(), shown[..3].join(" "))
    } else {
        shown.join(" ")
    }
}

fn push_row(report: &mut Report, c: &Case, k: f64, found: u64, check: &str) {
    let copy = report.copy_gbps;
    let _ = writeln!(
        report.rows,
        "| {}{}{} | {} | {} | {:.1} | {:.2} | {} | {} |",
        c.kind.name(),
        if c.count_mode { " count" } else { "" },
        if c.fold { " -i" } else { "" },
        if c.text == 0 { "realistic" } else { "partial" },
        shown(&c.pats),
        k,
        if copy > 0.0 { k / copy } else { 0.0 },
        found,
        check
    );
}

fn render(
    cfg: &BenchConfig,
    info: &DeviceInfo,
    size: usize,
    gen_time: Duration,
    runs: usize,
    report: Report,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## gsearch kernel benchmark\n\ndevice: {} / {} ({}, {})  \ntext: {} bytes per case \
         (generated in {:.1} s), work-group {} x {} positions per work-item, median of {} runs after 1 warm-up, OpenCL profiling events  \n\
         copy (clEnqueueCopyBuffer, device to device): {:.1} GB/s counting read + write bytes \
         (2 x size / time)  \nkernel GB/s = text bytes / kernel time; \"of copy\" = kernel GB/s / copy GB/s\n",
        info.platform,
        info.name,
        info.version,
        info.driver_version,
        size,
        gen_time.as_secs_f64(),
        report.wg_used,
        cfg.iters,
        runs,
        report.copy_gbps
    );
    s.push_str("| kernel | text | pattern(s) | GB/s | of copy | matches | CPU check |\n");
    s.push_str("|---|---|---|---:|---:|---:|---|\n");
    s.push_str(&report.rows);
    push_notes(&mut s, &report.notes);
    s
}

/// The MISMATCHES list under a table (nothing when there are none).
pub fn push_notes(s: &mut String, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    s.push_str("\nMISMATCHES:\n");
    for n in notes {
        let _ = writeln!(s, "- {n}");
    }
}
