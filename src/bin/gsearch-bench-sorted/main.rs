//! Benchmark of the batched sorted-search kernels, after the Futhark
//! "binary search vs Eytzinger" table (seed 002): 2^25 - 1 sorted i32,
//! every element looked up, device time from OpenCL profiling events
//! (median of --runs runs after one warm-up), beside a plain device copy of
//! the array (clEnqueueCopyBuffer) and the published RTX 2080 Ti figures.
//! Every method's answers are checked against the CPU
//! (`slice::partition_point`). The blocked search (`blocked`, two launches;
//! `blocked-fused`, one) is timed on the sorted key batch (the array
//! itself) and on the unsorted one (the seed's Eytzinger-order keys, where
//! it falls back to global binary search); each row says which keys.
//!
//! ```text
//! gsearch-bench-sorted [--n N] [--runs R] [--segs 4,8,16,32] [--device SEL] [--no-verify]
//!                      [--study-n N,N,.. [--study-wg W,W,..] [--study-only]]
//! ```
//! Environment: GSEARCH_BENCH_N, GSEARCH_BENCH_RUNS, GSEARCH_OPENCL_DEVICE.
//! On PoCL here: `GSEARCH_BENCH_N=100000 cargo run --release --bin gsearch-bench-sorted`.

use std::process::ExitCode;
use std::sync::Arc;

mod study;

use clap::Parser;
use gsearch::opencl::sorted::{DeviceSearch, Method, Timing, eytzinger_rank, keys_sorted};
use gsearch::opencl::{ClDevice, all_devices, select_device};

#[derive(Parser, Debug)]
#[command(about = "Benchmark gsearch's sorted-search kernels (binary, Eytzinger, blocked, N-ary)")]
struct Args {
    /// Array length (the seed uses 2^25 - 1 = 33554431).
    #[arg(long, env = "GSEARCH_BENCH_N", default_value_t = (1 << 25) - 1)]
    n: usize,
    /// Timed runs per method (the median is reported).
    #[arg(long, env = "GSEARCH_BENCH_RUNS", default_value_t = 10)]
    runs: usize,
    /// Segment counts N for the N-ary forms.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32")]
    segs: Vec<u32>,
    /// Device: index or name substring (default: GSEARCH_OPENCL_DEVICE,
    /// else the first GPU, else the first device).
    #[arg(long)]
    device: Option<String>,
    /// Skip checking the answers against the CPU.
    #[arg(long)]
    no_verify: bool,
    /// Random seed for the data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Array sizes of the binary-vs-Eytzinger study (empty: no study).
    #[arg(long, value_delimiter = ',')]
    study_n: Vec<usize>,
    /// Work-group sizes of the study.
    #[arg(long, value_delimiter = ',', default_value = "256")]
    study_wg: Vec<usize>,
    /// Only the study, not the main table.
    #[arg(long)]
    study_only: bool,
}

/// The seed's figures on an NVIDIA RTX 2080 Ti (futhark bench, -r 100).
const SEED_COPY_US: f64 = 534.0;
const SEED_BINARY_US: f64 = 2670.0;
const SEED_EYTZINGER_US: f64 = 2107.0;
const SEED_EYTZINGER_BUILD_US: f64 = 1698.0;

struct Row {
    name: String,
    segs: Option<u32>,
    median_us: f64,
    min_us: f64,
    seed_us: Option<f64>,
    verified: Option<bool>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Run `f` once to warm up, then `runs` times; (median, min) in µs.
pub(crate) fn time_runs(
    runs: usize,
    mut f: impl FnMut() -> Result<Timing, String>,
) -> Result<(f64, f64), String> {
    f()?;
    let mut v = Vec::with_capacity(runs);
    for _ in 0..runs.max(1) {
        v.push(f()?.micros());
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((median(v), min))
}

fn main() -> ExitCode {
    let args = Args::parse();
    match bench(&args) {
        Ok(ok) => {
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("gsearch-bench-sorted: {e}");
            ExitCode::from(2)
        }
    }
}

fn bench(args: &Args) -> Result<bool, String> {
    let devices = all_devices();
    let env = std::env::var(gsearch::opencl::DEVICE_ENV).ok();
    let sel = args.device.as_deref().or(env.as_deref());
    let info = select_device(&devices, sel).map_err(|e| e.to_string())?;
    let dev = Arc::new(ClDevice::open(info).map_err(|e| e.to_string())?);
    let ds = DeviceSearch::<i32>::new(dev.clone()).map_err(|e| e.to_string())?;
    let n = args.n;
    let runs = args.runs;
    println!(
        "device: {}  (device enqueue: {})",
        dev.describe(),
        if info.device_enqueue { "yes" } else { "no" }
    );
    if args.study_only {
        return study::run(&ds, &args.study_n, &args.study_wg, runs, args.seed);
    }
    println!("n = {n} sorted i32 in [0, n), every element looked up; median of {runs} runs");
    println!();

    // Data as the seed makes it: n random values bounded by n - 1, sorted.
    let mut state = args.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut hay: Vec<i32> = (0..n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) % (n.max(1) as u64)) as i32
        })
        .collect();
    hay.sort_unstable();
    // The seed searches the Eytzinger array for its own elements (keys in
    // Eytzinger order); build that order on the host for the key buffer.
    let eyt_keys: Vec<i32> = (1..=n as u32)
        .map(|node| hay[eytzinger_rank(node, n as u32) as usize])
        .collect();
    let want_sorted: Vec<u32> = if args.no_verify {
        Vec::new()
    } else {
        hay.iter()
            .map(|k| hay.partition_point(|x| x < k) as u32)
            .collect()
    };
    let want_eyt: Vec<u32> = if args.no_verify {
        Vec::new()
    } else {
        eyt_keys
            .iter()
            .map(|k| hay.partition_point(|x| x < k) as u32)
            .collect()
    };
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!(
        "keys: the array itself (sorted: {}) unless a row says \"Eytzinger order\" (sorted: {}); \
         checked on the host",
        yes_no(keys_sorted(&hay)),
        yes_no(keys_sorted(&eyt_keys))
    );
    println!();

    let e = |x: gsearch::opencl::DeviceError| x.to_string();
    let hay_buf = ds.upload(&hay).map_err(e)?;
    let eyt_keys_buf = ds.upload(&eyt_keys).map_err(e)?;
    let mut dst = ds.alloc::<i32>(n).map_err(e)?;
    let mut eyt = ds.alloc::<i32>(n).map_err(e)?;
    let mut out = ds.alloc::<u32>(n).map_err(e)?;
    let mut rows = Vec::new();
    let all_ok = std::cell::Cell::new(true);
    let check = |out: &opencl3::memory::Buffer<u32>, want: &[u32]| -> Option<bool> {
        if args.no_verify {
            return None;
        }
        let got = ds.download(out, n).ok()?;
        let ok = got == want;
        all_ok.set(all_ok.get() && ok);
        Some(ok)
    };

    let (med, min) = time_runs(runs, || ds.copy(&hay_buf, &mut dst, n).map_err(e))?;
    rows.push(Row {
        name: "copy (clEnqueueCopyBuffer)".into(),
        segs: None,
        median_us: med,
        min_us: min,
        seed_us: Some(SEED_COPY_US),
        verified: None,
    });

    let (med, min) = time_runs(runs, || {
        ds.run_buffers(Method::Binary, &hay_buf, n, &hay_buf, n, &mut out)
            .map_err(e)
    })?;
    rows.push(Row {
        name: "binary search".into(),
        segs: None,
        median_us: med,
        min_us: min,
        seed_us: Some(SEED_BINARY_US),
        verified: check(&out, &want_sorted),
    });

    let (med, min) = time_runs(runs, || {
        ds.build_eytzinger(&hay_buf, n, &mut eyt).map_err(e)
    })?;
    let layout_ok = if args.no_verify {
        None
    } else {
        let ok = ds.download(&eyt, n).map_err(e)? == eyt_keys;
        all_ok.set(all_ok.get() && ok);
        Some(ok)
    };
    rows.push(Row {
        name: "Eytzinger layout build (on device)".into(),
        segs: None,
        median_us: med,
        min_us: min,
        seed_us: Some(SEED_EYTZINGER_BUILD_US),
        verified: layout_ok,
    });

    let (med, min) = time_runs(runs, || {
        ds.run_buffers(Method::Eytzinger, &eyt, n, &eyt_keys_buf, n, &mut out)
            .map_err(e)
    })?;
    rows.push(Row {
        name: "Eytzinger search (keys in Eytzinger order, as the seed)".into(),
        segs: None,
        median_us: med,
        min_us: min,
        seed_us: Some(SEED_EYTZINGER_US),
        verified: check(&out, &want_eyt),
    });
    let (med, min) = time_runs(runs, || {
        ds.run_buffers(Method::Eytzinger, &eyt, n, &hay_buf, n, &mut out)
            .map_err(e)
    })?;
    rows.push(Row {
        name: "Eytzinger search (sorted keys)".into(),
        segs: None,
        median_us: med,
        min_us: min,
        seed_us: None,
        verified: check(&out, &want_sorted),
    });

    for (label, m, keys_buf, want) in [
        (
            "blocked: bounds + local-memory search, 2 launches (sorted keys)",
            Method::Blocked,
            &hay_buf,
            &want_sorted,
        ),
        (
            "blocked, 1 launch, cooperative bounds (sorted keys)",
            Method::BlockedFused,
            &hay_buf,
            &want_sorted,
        ),
        (
            "blocked, 2 launches (keys in Eytzinger order: unsorted, fallback)",
            Method::Blocked,
            &eyt_keys_buf,
            &want_eyt,
        ),
        (
            "blocked, 1 launch (keys in Eytzinger order: unsorted, fallback)",
            Method::BlockedFused,
            &eyt_keys_buf,
            &want_eyt,
        ),
    ] {
        if !ds.supports(m) {
            println!("(skipped {label}: not supported on this device)");
            continue;
        }
        match time_runs(runs, || {
            ds.run_buffers(m, &hay_buf, n, keys_buf, n, &mut out)
                .map_err(e)
        }) {
            Ok((med, min)) => rows.push(Row {
                name: label.into(),
                segs: None,
                median_us: med,
                min_us: min,
                seed_us: None,
                verified: check(&out, want),
            }),
            Err(err) => println!("({label} failed: {err})"),
        }
    }

    for (label, make) in [
        (
            "N-ary, host-enqueued passes",
            (|s| Method::NaryHost { segs: s }) as fn(u32) -> Method,
        ),
        ("N-ary, one launch (local memory)", |s| Method::NaryLocal {
            segs: s,
        }),
        ("N-ary, device-side enqueue", |s| {
            Method::NaryDeviceEnqueue { segs: s }
        }),
    ] {
        for &s in &args.segs {
            let m = make(s);
            if !ds.supports(m) {
                println!("(skipped {} N={s}: not supported on this device)", label);
                continue;
            }
            match time_runs(runs, || {
                ds.run_buffers(m, &hay_buf, n, &hay_buf, n, &mut out)
                    .map_err(e)
            }) {
                Ok((med, min)) => rows.push(Row {
                    name: label.into(),
                    segs: Some(s),
                    median_us: med,
                    min_us: min,
                    seed_us: None,
                    verified: check(&out, &want_sorted),
                }),
                Err(err) => println!("({label} N={s} failed: {err})"),
            }
        }
    }

    let copy = rows[0].median_us;
    println!();
    println!(
        "| method | N | µs (median) | µs (min) | ratio to copy | RTX 2080 Ti µs (seed) | seed ratio to copy | verified |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.2} | {} | {} | {} |",
            r.name,
            r.segs.map(|s| s.to_string()).unwrap_or_else(|| "–".into()),
            r.median_us,
            r.min_us,
            r.median_us / copy,
            r.seed_us
                .map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "–".into()),
            r.seed_us
                .map(|v| format!("{:.2}", v / SEED_COPY_US))
                .unwrap_or_else(|| "–".into()),
            match r.verified {
                Some(true) => "ok",
                Some(false) => "WRONG",
                None => "–",
            }
        );
    }
    let study_ok =
        args.study_n.is_empty() || study::run(&ds, &args.study_n, &args.study_wg, runs, args.seed)?;
    if !all_ok.get() || !study_ok {
        eprintln!("gsearch-bench-sorted: some answers differ from the CPU reference");
    }
    Ok(all_ok.get() && study_ok)
}
