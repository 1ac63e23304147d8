// Differential checks shared by the cargo-fuzz targets (`fuzz/fuzz_targets`)
// and the fixed-seed random test in `tests/reliability.rs` (which includes
// this file with `#[path]`), so the same generator and the same oracles run
// under libFuzzer on nightly and under plain `cargo test` on stable.
//
// Oracles:
// - engines: `gsearch::engine::cpu` against `gsearch::engine::naive`, and the
//   OpenCL engine (any device, PoCL in CI) against the CPU engine, for
//   random haystacks and literal sets (ASCII folding on or off).
// - cli: the `gsearch` binary with `--engine cpu` against `--engine opencl`
//   (random tiny `GSEARCH_BATCH_BYTES`, so files are packed and chunked in
//   every way), byte for byte and exit status; and for `-F -c`-style runs,
//   the counts against a naive line-by-line count.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::engine::{Batch, BatchEngine, LiteralSet, naive};

/// A byte reader over the fuzz input; yields zeros once exhausted.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, at: 0 }
    }
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = (self.byte() as usize) | ((self.byte() as usize) << 8);
        v % n
    }
    pub fn chance(&mut self, per256: u8) -> bool {
        self.byte() < per256
    }
    pub fn left(&self) -> usize {
        self.data.len().saturating_sub(self.at)
    }
}

/// A deterministic generator for the `cargo test` mode (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Random input bytes for `Case::from_bytes`.
    pub fn input(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// Alphabet for haystacks and patterns: few letters so matches are dense,
/// upper case for `-i`, line ends, and now and then a NUL, a non-ASCII
/// UTF-8 letter or an invalid byte.
const ALPHA: &[&[u8]] = &[
    b"a", b"b", b"a", b"b", b"c", b"A", b"B", b" ", b"\n", b"\n", b"ab", b"ba", b"-", b"_",
];
const RARE: &[&[u8]] = &[b"\x00", "é".as_bytes(), "É".as_bytes(), b"\xff", b"\r"];

fn token(b: &mut Bytes<'_>, rare_ok: bool) -> &'static [u8] {
    if rare_ok && b.chance(6) {
        RARE[b.below(RARE.len())]
    } else {
        ALPHA[b.below(ALPHA.len())]
    }
}

/// One generated test case.
#[derive(Clone, Debug)]
pub struct Case {
    /// Haystack files (1 to 3), as bytes.
    pub files: Vec<Vec<u8>>,
    /// Literal patterns (no `\n`).
    pub patterns: Vec<Vec<u8>>,
    pub fold: bool,
    /// CLI flags beyond the pattern and the engine.
    pub flags: Vec<String>,
    /// `GSEARCH_BATCH_BYTES` for the OpenCL run.
    pub batch: usize,
}

impl Case {
    pub fn from_bytes(data: &[u8]) -> Case {
        let mut b = Bytes::new(data);
        let nfiles = 1 + b.below(3);
        let many = b.chance(40);
        let npats = 1 + b.below(if many { 40 } else { 4 });
        let fold = b.chance(80);
        let mut patterns = Vec::new();
        for _ in 0..npats {
            let long = b.chance(30);
            let len = 1 + b.below(if long { 40 } else { 6 });
            let mut p = Vec::new();
            while p.len() < len {
                let t = token(&mut b, true);
                if t != b"\n" {
                    p.extend_from_slice(t);
                }
            }
            patterns.push(p);
        }
        let mut files = Vec::new();
        for _ in 0..nfiles {
            let big = b.chance(40);
            let len = b.below(if big { 6000 } else { 300 });
            let mut f = Vec::new();
            while f.len() < len {
                if b.chance(40) && !patterns.is_empty() {
                    let p = &patterns[b.below(patterns.len())];
                    f.extend_from_slice(p);
                } else {
                    f.extend_from_slice(token(&mut b, true));
                }
            }
            files.push(f);
        }
        let mut flags = Vec::new();
        let pool: &[&str] = &[
            "-c",
            "-n",
            "-o",
            "-b",
            "-v",
            "-w",
            "-x",
            "--count-matches",
            "-l",
            "-a",
            "--binary",
            "--column",
            "-H",
            "--no-mmap",
            "--mmap",
        ];
        for _ in 0..b.below(4) {
            flags.push(pool[b.below(pool.len())].to_string());
        }
        if b.chance(40) {
            flags.push(format!("-m{}", b.below(4)));
        }
        if b.chance(40) {
            flags.push(format!("-C{}", b.below(3)));
        }
        if fold {
            flags.push("-i".to_string());
        }
        let batch = match b.below(5) {
            0 => 1 + b.below(16),
            1 => 16 + b.below(256),
            2 => 256 + b.below(4096),
            3 => 64,
            _ => 1 << 16,
        };
        Case {
            files,
            patterns,
            fold,
            flags,
            batch,
        }
    }

    fn set(&self) -> LiteralSet {
        LiteralSet::new(self.patterns.clone(), self.fold)
    }
}

/// CPU engine against the naive reference, every file and all files packed
/// into one batch with `\n` separators.
pub fn check_cpu_engine(case: &Case) -> Result<(), String> {
    let set = case.set();
    let cpu = CpuLiteralEngine::new(&set).map_err(|e| e.to_string())?;
    let mut packed = Vec::new();
    for f in &case.files {
        if !packed.is_empty() {
            packed.push(b'\n');
        }
        packed.extend_from_slice(f);
        let (want, got) = (naive::find_all(f, &set), cpu.find_all(f));
        if want != got {
            return Err(format!("cpu engine != naive: want {want:?} got {got:?}"));
        }
    }
    let (want, got) = (naive::find_all(&packed, &set), cpu.find_all(&packed));
    if want != got {
        return Err(format!(
            "cpu engine != naive (packed): want {want:?} got {got:?}"
        ));
    }
    Ok(())
}

/// The OpenCL engine (explicit device selection) against the CPU engine on
/// the packed batch. `Ok(false)` when there is no device.
pub fn check_opencl_engine(case: &Case) -> Result<bool, String> {
    use gsearch::opencl::{DeviceSelector, EngineOptions, OpenClEngine};
    let set = case.set();
    if set.patterns.iter().all(|p| p.is_empty()) {
        return Ok(true);
    }
    let mut packed = Vec::new();
    for f in &case.files {
        if !packed.is_empty() {
            packed.push(b'\n');
        }
        packed.extend_from_slice(f);
    }
    let opts = EngineOptions {
        batch_bytes: packed.len().max(1) + 64,
        warn_on_stderr: false,
        ..EngineOptions::default()
    };
    let engine = match OpenClEngine::with_options(&DeviceSelector::Explicit, &set, opts) {
        Ok(e) => e,
        Err(gsearch::engine::EngineError::Device(_)) => return Ok(false),
        Err(e) => return Err(format!("engine: {e}")),
    };
    let cpu = CpuLiteralEngine::new(&set).map_err(|e| e.to_string())?;
    let want = cpu.find_all(&packed);
    let got = engine
        .search(&Batch {
            data: &packed,
            spans: &[],
        })
        .map_err(|e| format!("opencl search: {e}"))?
        .offsets;
    if let Some(f) = engine.device_failure() {
        return Err(format!("device failed: {f}"));
    }
    if want != got {
        return Err(format!(
            "opencl ({}) != cpu engine: want {want:?} got {got:?}",
            engine.kernel_name()
        ));
    }
    Ok(true)
}

/// What one CLI run gave.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

pub fn run_cli(bin: &Path, dir: &Path, args: &[String], env: &[(&str, String)]) -> Run {
    let mut cmd = Command::new(bin);
    cmd.current_dir(dir).args(args).env_remove("GSEARCH_FAULT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run gsearch");
    Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Writes the case into `dir` (files `f0`..; patterns in `pats`) and
/// returns the arguments common to both engines.
fn write_case(case: &Case, dir: &Path) -> Vec<String> {
    for (i, f) in case.files.iter().enumerate() {
        std::fs::write(dir.join(format!("f{i}")), f).unwrap();
    }
    let mut pats = Vec::new();
    for p in &case.patterns {
        pats.extend_from_slice(p);
        pats.push(b'\n');
    }
    std::fs::write(dir.join("pats"), pats).unwrap();
    let mut args: Vec<String> = vec!["--sort".into(), "path".into(), "-F".into(), "-f".into()];
    args.push("pats".into());
    args.extend(case.flags.iter().cloned());
    for i in 0..case.files.len() {
        args.push(format!("f{i}"));
    }
    args
}

/// Naive `-F -c` (ASCII folding only when every byte of patterns and files
/// is ASCII): per file, the lines holding any pattern.
fn naive_counts(case: &Case) -> Option<Vec<u64>> {
    let ascii = case
        .patterns
        .iter()
        .chain(&case.files)
        .all(|b| b.is_ascii());
    if case.fold && !ascii {
        return None;
    }
    // NUL bytes engage binary detection; invalid UTF-8 patterns fail.
    if case.files.iter().any(|f| f.contains(&0)) {
        return None;
    }
    if case
        .patterns
        .iter()
        .any(|p| std::str::from_utf8(p).is_err())
    {
        return None;
    }
    // A NUL in a pattern cannot match under binary detection: ripgrep (and
    // gsearch) then refuse it ("pattern contains \0 ...", exit 2).
    if case.patterns.iter().any(|p| p.contains(&0)) {
        return None;
    }
    let set = case.set();
    Some(
        case.files
            .iter()
            .map(|f| {
                let mut lines: Vec<&[u8]> = f.split(|&b| b == b'\n').collect();
                if f.ends_with(b"\n") || f.is_empty() {
                    lines.pop();
                }
                lines
                    .iter()
                    .filter(|l| !naive::find_all(l, &set).is_empty())
                    .count() as u64
            })
            .collect(),
    )
}

/// The full CLI, CPU engine against the OpenCL engine; plus the naive
/// count for the plain `-F -c` shape. `opencl` false skips the device run.
pub fn check_cli(case: &Case, bin: &Path, dir: &Path, opencl: bool) -> Result<(), String> {
    let args = write_case(case, dir);
    let mut cpu_args = args.clone();
    cpu_args.insert(0, "--engine=cpu".into());
    let cpu = run_cli(bin, dir, &cpu_args, &[]);
    if cpu.code.is_none() || cpu.code == Some(101) || cpu.stderr.contains("panicked") {
        return Err(format!("cpu run crashed: {cpu:?} args {cpu_args:?}"));
    }
    if opencl {
        let mut cl_args = args.clone();
        cl_args.insert(0, "--engine=opencl".into());
        let cl = run_cli(
            bin,
            dir,
            &cl_args,
            &[("GSEARCH_BATCH_BYTES", case.batch.to_string())],
        );
        if cl != cpu {
            return Err(format!(
                "opencl != cpu for args {cl_args:?} batch {}\n cpu: {:?} {:?} {}\n  cl: {:?} {:?} {}",
                case.batch,
                cpu.code,
                String::from_utf8_lossy(&cpu.stdout),
                cpu.stderr,
                cl.code,
                String::from_utf8_lossy(&cl.stdout),
                cl.stderr
            ));
        }
    }
    // Naive oracle for the shape it models exactly.
    let plain = case
        .flags
        .iter()
        .all(|f| f == "-i" || f == "--no-mmap" || f == "--mmap");
    if plain && let Some(want) = naive_counts(case) {
        let mut c_args = args.clone();
        c_args.insert(0, "--engine=cpu".into());
        c_args.push("-c".into());
        c_args.push("-H".into());
        c_args.push("--include-zero".into());
        let r = run_cli(bin, dir, &c_args, &[]);
        let text = String::from_utf8_lossy(&r.stdout);
        let got: Vec<u64> = text
            .lines()
            .map(|l| l.rsplit(':').next().unwrap().parse().unwrap_or(u64::MAX))
            .collect();
        if got != want {
            return Err(format!(
                "cli -c != naive: want {want:?} got {got:?} ({text:?}, {})",
                r.stderr
            ));
        }
    }
    Ok(())
}
