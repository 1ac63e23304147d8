//! The kernel benchmark behind `gsearch-bench-kernels`: kernels timed on
//! device-resident text with OpenCL profiling events (median of several
//! runs), next to a device-to-device copy of the same size.
//!
//! Conventions (printed with the table):
//! - kernel GB/s = text bytes scanned / kernel time (1 GB = 1e9 bytes);
//! - copy GB/s = 2 x bytes / copy time (`clEnqueueCopyBuffer` reads and
//!   writes every byte), i.e. the device's achievable memory bandwidth;
//! - "of copy" = kernel GB/s / copy GB/s: the share of that bandwidth the
//!   kernel's single read of the text uses (1.0 = as fast as memory allows).

use std::fmt::Write as _;
use std::ptr;
use std::time::{Duration, Instant};

use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

use crate::engine::LiteralSet;
use crate::engine::cpu::CpuLiteralEngine;

use super::cache::ProgramCache;
use super::device::{DeviceSelector, select};
use super::error::cl;
use super::gpu::{Gpu, GpuConfig};
use super::host::time_copies;
use super::kernels::{KernelKind, PAD};

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Text size in bytes.
    pub size: usize,
    /// Timed runs per case (the median is reported), after one warm-up.
    pub runs: usize,
    pub selector: DeviceSelector,
    /// Compare match counts with the CPU engine (over the whole text).
    pub check: bool,
    /// Work-group size cap and positions per work-item per block
    /// (`GSEARCH_BENCH_WG`, `GSEARCH_BENCH_ITERS`).
    pub work_group: Option<usize>,
    pub iters: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            size: 1 << 30,
            runs: 5,
            selector: DeviceSelector::Explicit,
            check: true,
            work_group: None,
            iters: 64,
        }
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

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "fn",
    "let",
    "mut",
    "self",
    "return",
    "struct",
    "impl",
    "match",
    "Some",
    "None",
    "Ok(())",
    "Err(e)",
    "error:",
    "warning:",
    "INFO",
    "2026-11-22T10:15:00Z",
    "request_id=7f3a",
    "GET",
    "/api/v1",
    "200",
    "404",
    "{",
    "}",
    "();",
    "=>",
    "//",
    "0x1f",
    "Vec<u8>",
    "String",
    "println!",
    "config",
    "value",
    "result",
    "buffer",
    "offset",
    "length",
    "search",
    "pattern",
    "device",
    "kernel",
    "memory",
    "needle",
];

/// Realistic ASCII: words (English and code/log tokens) separated by spaces
/// and punctuation, lines of 40-100 bytes. "needle" is about 1 word in 100.
pub fn realistic_text(n: usize, seed: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 128);
    let mut x = seed | 1;
    let mut line = 0usize;
    let mut target = 60;
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = WORDS[(x % WORDS.len() as u64) as usize];
        v.extend_from_slice(w.as_bytes());
        line += w.len() + 1;
        if line >= target {
            v.push(b'\n');
            line = 0;
            target = 40 + ((x >> 20) % 60) as usize;
        } else {
            v.push(if (x >> 40).is_multiple_of(13) {
                b','
            } else {
                b' '
            });
        }
    }
    v.truncate(n);
    v
}

/// A worst case for prefix filters: `pat` without its last byte, repeated
/// (every position near a match; phases 1-2 pass, phase 3 fails), with a
/// real match every 4096 copies.
pub fn partial_text(n: usize, pat: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + pat.len());
    let prefix = &pat[..pat.len().saturating_sub(1)];
    let mut i = 0u64;
    while v.len() < n {
        if i % 4096 == 4095 {
            v.extend_from_slice(pat);
        } else {
            v.extend_from_slice(prefix);
        }
        v.push(b' ');
        i += 1;
    }
    v.truncate(n);
    v
}

struct Case {
    kind: KernelKind,
    text: usize, // 0 realistic, 1 partial
    pats: Vec<&'static str>,
    fold: bool,
    count_mode: bool,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn gbps(bytes: usize, d: Duration) -> f64 {
    if d.is_zero() {
        0.0
    } else {
        bytes as f64 / d.as_secs_f64() / 1e9
    }
}

/// Runs every case and returns the markdown report.
pub fn run(cfg: &BenchConfig) -> Result<String, String> {
    let info = select(&cfg.selector).map_err(|e| e.to_string())?;
    let max = usize::try_from(info.max_alloc)
        .unwrap_or(usize::MAX)
        .saturating_sub(PAD)
        .min((1 << 31) - 1);
    let size = cfg.size.clamp(1024, max);
    let runs = cfg.runs.max(1);
    let partial_pat = "partial_match_needle_0123456789";
    let t = Instant::now();
    let texts = [
        realistic_text(size, 0x9E37_79B9),
        partial_text(size, partial_pat.as_bytes()),
    ];
    let gen_time = t.elapsed();

    let cases = vec![
        Case {
            kind: KernelKind::Naive,
            text: 0,
            pats: vec!["needle"],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::ThreePhase,
            text: 0,
            pats: vec!["needle"],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::ThreePhase,
            text: 0,
            pats: vec!["needle"],
            fold: true,
            count_mode: false,
        },
        Case {
            kind: KernelKind::ThreePhase,
            text: 0,
            pats: vec!["="],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::ThreePhase,
            text: 0,
            pats: vec!["request_id=7f3a GET /api/v1 404"],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::Naive,
            text: 1,
            pats: vec![partial_pat],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::ThreePhase,
            text: 1,
            pats: vec![partial_pat],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::Naive,
            text: 0,
            pats: vec!["needle", "kernel", "error:", "0x1f"],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::Char16,
            text: 0,
            pats: vec!["needle", "kernel", "error:", "0x1f"],
            fold: false,
            count_mode: false,
        },
        Case {
            kind: KernelKind::Char16,
            text: 0,
            pats: vec!["needle", "kernel", "error:", "0x1f"],
            fold: false,
            count_mode: true,
        },
        Case {
            kind: KernelKind::Char16,
            text: 0,
            pats: vec!["needle", "kernel", "error:", "0x1f"],
            fold: true,
            count_mode: false,
        },
        Case {
            kind: KernelKind::Char16,
            text: 0,
            pats: vec![
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
            ],
            fold: false,
            count_mode: false,
        },
    ];

    let mut rows = String::new();
    let mut copy_gbps = 0.0;
    let mut notes = Vec::new();
    let mut wg_used = 0;
    for (ci, c) in cases.iter().enumerate() {
        let pats: Vec<Vec<u8>> = c.pats.iter().map(|p| p.as_bytes().to_vec()).collect();
        let set = LiteralSet::new(pats, c.fold);
        let gcfg = GpuConfig {
            cache: &ProgramCache::default_location(),
            work_group: cfg.work_group,
            iters: cfg.iters,
            fault: None,
        };
        let gpu = Gpu::new(&info, c.kind, &set.patterns, c.fold, &gcfg)?;
        wg_used = gpu.geo.wg;
        let text = &texts[c.text];
        let mut padded_tail = vec![b'\n'; PAD];
        // SAFETY: fresh device buffers, no host pointers.
        let (mut dev, out, mut count) = unsafe {
            (
                Buffer::<u8>::create(gpu.context(), CL_MEM_READ_ONLY, size + PAD, ptr::null_mut())
                    .map_err(cl("allocating the text buffer"))?,
                Buffer::<u32>::create(gpu.context(), CL_MEM_READ_WRITE, 1 << 20, ptr::null_mut())
                    .map_err(cl("allocating the result buffer"))?,
                Buffer::<u32>::create(gpu.context(), CL_MEM_READ_WRITE, 16, ptr::null_mut())
                    .map_err(cl("allocating the counter"))?,
            )
        };
        let q = gpu.exec_queue();
        // SAFETY: blocking writes from live host memory.
        unsafe {
            q.enqueue_write_buffer(&mut dev, CL_BLOCKING, 0, &text[..size], &[])
                .map_err(cl("uploading the text"))?;
            q.enqueue_write_buffer(&mut dev, CL_BLOCKING, size, &padded_tail[..], &[])
                .map_err(cl("uploading the padding"))?;
        }
        padded_tail.clear();

        if ci == 0 {
            // device-to-device copy of the same size
            let times = time_copies(gpu.context(), q, &dev, size, runs)?;
            copy_gbps = gbps(2 * size, median(times));
        }

        let mut times = Vec::new();
        let mut found = 0u64;
        for i in 0..=runs {
            let (d, n) = if c.count_mode {
                let (d, v) = gpu.run_resident_count(&dev, size, &mut count, set.patterns.len())?;
                (d, v.iter().sum())
            } else {
                gpu.run_resident(&dev, size, &out, 1 << 20, &mut count)?
            };
            if i > 0 {
                times.push(d);
            }
            found = n;
        }
        let k = gbps(size, median(times.clone()));
        let check = if cfg.check {
            let cpu = CpuLiteralEngine::new(&set).map_err(|e| e.to_string())?;
            let want: u64 = if c.count_mode {
                set.patterns
                    .iter()
                    .map(|p| {
                        CpuLiteralEngine::new(&LiteralSet::new(vec![p.clone()], c.fold))
                            .map(|e| e.find_all(&text[..size]).len() as u64)
                            .unwrap_or(0)
                    })
                    .sum()
            } else {
                cpu.find_all(&text[..size]).len() as u64
            };
            if want == found {
                "ok".to_string()
            } else {
                notes.push(format!("case {ci}: device {found}, CPU {want}"));
                format!("MISMATCH (CPU {want})")
            }
        } else {
            "-".to_string()
        };
        let shown: Vec<String> = c.pats.iter().map(|p| format!("`{p}`")).collect();
        let shown = if shown.len() > 4 {
            format!("{} patterns ({} ...)", shown.len(), shown[..3].join(" "))
        } else {
            shown.join(" ")
        };
        let _ = writeln!(
            rows,
            "| {}{}{} | {} | {} | {:.1} | {:.2} | {} | {} |",
            c.kind.name(),
            if c.count_mode { " count" } else { "" },
            if c.fold { " -i" } else { "" },
            if c.text == 0 { "realistic" } else { "partial" },
            shown,
            k,
            if copy_gbps > 0.0 { k / copy_gbps } else { 0.0 },
            found,
            check
        );
    }

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
        wg_used,
        cfg.iters,
        runs,
        copy_gbps
    );
    s.push_str("| kernel | text | pattern(s) | GB/s | of copy | matches | CPU check |\n");
    s.push_str("|---|---|---|---:|---:|---:|---|\n");
    s.push_str(&rows);
    if !notes.is_empty() {
        s.push_str("\nMISMATCHES:\n");
        for n in notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    Ok(s)
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

    #[test]
    fn generators() {
        let t = realistic_text(10_000, 1);
        assert_eq!(t.len(), 10_000);
        assert!(t.is_ascii());
        assert!(t.windows(6).any(|w| w == b"needle"));
        let p = partial_text(200_000, b"abcdef");
        assert!(p.windows(6).any(|w| w == b"abcdef"));
    }
}
