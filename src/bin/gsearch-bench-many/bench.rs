//! The many-literal benchmark: the kernel timed on device-resident text for
//! each set size, next to a device-to-device copy, checked against the CPU
//! engine on a prefix of the text.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gsearch::engine::LiteralSet;
use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::opencl::DeviceSelector;
use gsearch::opencl::many::{ManySearcher, vocab_text, vocabulary};
use opencl3::memory::Buffer;

/// What `gsearch-bench-many` runs.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub selector: DeviceSelector,
    /// Text bytes (generated when `text` is None; a file is cut to this).
    pub size: usize,
    pub text: Option<std::path::PathBuf>,
    /// Word list, one a line (generated when None).
    pub words: Option<std::path::PathBuf>,
    pub counts: Vec<usize>,
    pub runs: usize,
    pub fold: bool,
    /// Bytes of the text whose offsets are compared with the CPU engine.
    pub check_bytes: usize,
    pub wg: Option<usize>,
    pub iters: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            selector: DeviceSelector::Explicit,
            size: 1 << 30,
            text: None,
            words: None,
            counts: vec![100, 1_000, 3_500, 10_000, 35_000, 100_000],
            runs: 5,
            fold: false,
            check_bytes: 32 << 20,
            wg: None,
            iters: 64,
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Runs the many-literal benchmark and returns a markdown report.
pub fn bench(cfg: &BenchConfig) -> Result<String, String> {
    let t = Instant::now();
    let (text, text_desc) = match &cfg.text {
        Some(p) => {
            let mut v = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            v.truncate(cfg.size.min((1 << 31) - 64));
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
                vocab_text(cfg.size, &w, 7)
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
                vocab_text(cfg.size, &vocab, 7)
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
        let s = ManySearcher::new(&cfg.selector, &set, cfg.wg, cfg.iters)?;
        let build = tb.elapsed();
        device.clone_from(&s.device);
        let dev = s.upload(&text)?;
        if copy_gbps == 0.0 {
            copy_gbps = copy_bandwidth(&s, &dev, n, cfg.runs)?;
        }
        let mut times = Vec::new();
        let mut found = 0;
        for i in 0..=cfg.runs {
            let (d, c, _) = s.run_resident(&dev, n, 1 << 24)?;
            if i > 0 {
                times.push(d);
            }
            found = c;
        }
        let k = median(times);
        let gbps = n as f64 / k.as_secs_f64().max(1e-12) / 1e9;
        let check = if cfg.check_bytes > 0 {
            let m = cfg.check_bytes.min(n);
            let got = s.find_all(&text[..m])?;
            let cpu = CpuLiteralEngine::new(&set)
                .map_err(|e| e.to_string())?
                .find_all(&text[..m]);
            if got == cpu {
                format!("ok ({} MB)", m >> 20)
            } else {
                notes.push(format!(
                    "{count} patterns: device {} offsets, CPU {}",
                    got.len(),
                    cpu.len()
                ));
                "MISMATCH".to_string()
            }
        } else {
            "-".into()
        };
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
        cfg.runs,
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

fn copy_bandwidth(
    s: &ManySearcher,
    src: &Buffer<u8>,
    n: usize,
    runs: usize,
) -> Result<f64, String> {
    let d = median(s.time_copies(src, n, runs.max(1))?);
    Ok(2.0 * n as f64 / d.as_secs_f64().max(1e-12) / 1e9)
}
