//! The many-literal benchmark: the kernel timed on device-resident text for
//! each set size, next to a device-to-device copy, checked against the CPU
//! engine on a prefix of the text.

use std::fmt::Write as _;
use std::time::Instant;

use gsearch::engine::LiteralSet;
use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::opencl::DeviceSelector;
use gsearch::opencl::many::{ManySearcher, vocab_text, vocabulary};
use opencl3::memory::Buffer;

use crate::common::{Base, gbps, median};

/// What `gsearch-bench-many` runs.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// `base.size`: the text's bytes (generated when `text` is None; a file
    /// is cut to this).
    pub base: Base,
    pub text: Option<std::path::PathBuf>,
    /// Word list, one a line (generated when None).
    pub words: Option<std::path::PathBuf>,
    pub counts: Vec<usize>,
    pub fold: bool,
    /// Bytes of the text whose offsets are compared with the CPU engine.
    pub check_bytes: usize,
    /// Positions per work-item per block (`--steps`).
    pub iters: usize,
}

impl BenchConfig {
    /// 1 GiB of generated text, the explicitly chosen device, six set
    /// sizes from 100 to 100,000; then the environment.
    pub fn from_env() -> Self {
        BenchConfig {
            base: Base::from_env(1 << 30, DeviceSelector::Explicit),
            text: None,
            words: None,
            counts: vec![100, 1_000, 3_500, 10_000, 35_000, 100_000],
            fold: false,
            check_bytes: 32 << 20,
            iters: 64,
        }
    }
}

/// Runs the many-literal benchmark and returns a markdown report.
pub fn bench(cfg: &BenchConfig) -> Result<String, String> {
    let t = Instant::now();
    let Input {
        words,
        text,
        text_desc,
    } = prepare(cfg)?;
    let gen_time = t.elapsed();
    let n = text.len();
    let mut rows = String::new();
    let mut notes = Vec::new();
    let mut device = String::new();
    let mut copy_gbps = 0.0;
    for &count in &cfg.counts {
        let pats: Vec<Vec<u8>> = words.iter().take(count).cloned().collect();
        let set = LiteralSet::new(pats, cfg.fold);
        let tb = Instant::now();
        let s = ManySearcher::new(&cfg.base.selector, &set, cfg.base.work_group, cfg.iters)?;
        let build = tb.elapsed();
        device.clone_from(&s.device);
        let dev = s.upload(&text)?;
        if copy_gbps == 0.0 {
            copy_gbps = copy_bandwidth(&s, &dev, n, cfg.base.runs)?;
        }
        let mut times = Vec::new();
        let mut found = 0;
        for i in 0..=cfg.base.runs {
            let (d, c, _) = s.run_resident(&dev, n, 1 << 24)?;
            if i > 0 {
                times.push(d);
            }
            found = c;
        }
        let k = median(times);
        let gbps = gbps(n, k);
        let check = cpu_check(&s, &set, &text, cfg.check_bytes, &mut notes)?;
        let i = s.info();
        let _ = writeln!(
            rows,
            "| {} | {} | {} | {} KiB | {} KiB | {:.1} | {:.2} | {:.3} | {} | {:.0} ms | {} |",
            set.patterns.len(),
            i.keys,
            i.classes,
            i.local_filter_bytes >> 10,
            i.global_filter_bytes >> 10,
            gbps,
            if copy_gbps > 0.0 {
                gbps / copy_gbps
            } else {
                0.0
            },
            k.as_secs_f64() * 1e3,
            found,
            build.as_secs_f64() * 1e3,
            check
        );
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## gsearch many-literal kernel benchmark\n\ndevice: {device}  \ntext: {text_desc}, {n} \
         bytes (prepared in {:.1} s), words: {}, fold: {}  \nmedian of {} runs after 1 warm-up, \
         device-resident text, OpenCL profiling events; copy (device to device, read + write): \
         {:.1} GB/s\n",
        gen_time.as_secs_f64(),
        cfg.words
            .as_ref()
            .map_or("generated".to_string(), |p| p.display().to_string()),
        cfg.fold,
        cfg.base.runs,
        copy_gbps
    );
    s.push_str(
        "| patterns | keys | classes | local filter | global filter | GB/s | of copy | kernel ms \
         | matching positions | set-up | CPU check |\n",
    );
    s.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    s.push_str(&rows);
    if !notes.is_empty() {
        s.push_str("\nMISMATCHES:\n");
        for n in notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    Ok(s)
}

/// The word list and the text (read or generated), and how the text was
/// made.
struct Input {
    words: Vec<Vec<u8>>,
    text: Vec<u8>,
    text_desc: String,
}

fn prepare(cfg: &BenchConfig) -> Result<Input, String> {
    let (text, text_desc) = match &cfg.text {
        Some(p) => {
            let mut v = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            v.truncate(cfg.base.size.min((1 << 31) - 64));
            (v, format!("{}", p.display()))
        }
        None => (Vec::new(), String::new()),
    };
    let max_n = cfg.counts.iter().copied().max().unwrap_or(0);
    let (words, text, text_desc) = match &cfg.words {
        Some(p) => {
            let s = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let w: Vec<Vec<u8>> = s
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
            let text = if text.is_empty() {
                vocab_text(cfg.base.size, &w, 7)
            } else {
                text
            };
            let d = if text_desc.is_empty() {
                "generated from the word list".to_string()
            } else {
                text_desc
            };
            (w, text, d)
        }
        None => {
            // vocabulary 4x the largest set; the sets take every 4th word,
            // so about a quarter of the text's words match
            let vocab = vocabulary((max_n * 4).max(1000), 11);
            let text = if text.is_empty() {
                vocab_text(cfg.base.size, &vocab, 7)
            } else {
                text
            };
            let w: Vec<Vec<u8>> = vocab.into_iter().step_by(4).collect();
            let d = if text_desc.is_empty() {
                "generated identifier text (Zipf-like)".to_string()
            } else {
                text_desc
            };
            (w, text, d)
        }
    };
    Ok(Input {
        words,
        text,
        text_desc,
    })
}

/// The device's offsets against the CPU engine's over the first
/// `check_bytes` of the text: `ok`, `MISMATCH` (with a note) or `-`.
fn cpu_check(
    s: &ManySearcher,
    set: &LiteralSet,
    text: &[u8],
    check_bytes: usize,
    notes: &mut Vec<String>,
) -> Result<String, String> {
    Ok(if check_bytes > 0 {
        let m = check_bytes.min(text.len());
        let got = s.find_all(&text[..m])?;
        let cpu = CpuLiteralEngine::new(set)
            .map_err(|e| e.to_string())?
            .find_all(&text[..m]);
        if got == cpu {
            format!("ok ({} MB)", m >> 20)
        } else {
            notes.push(format!(
                "{} patterns: device {} offsets, CPU {}",
                set.patterns.len(),
                got.len(),
                cpu.len()
            ));
            "MISMATCH".to_string()
        }
    } else {
        "-".into()
    })
}

fn copy_bandwidth(
    s: &ManySearcher,
    src: &Buffer<u8>,
    n: usize,
    runs: usize,
) -> Result<f64, String> {
    let d = median(s.time_copies(src, n, runs.max(1))?);
    Ok(gbps(2 * n, d))
}
