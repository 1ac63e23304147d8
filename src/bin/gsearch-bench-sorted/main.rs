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
use opencl3::memory::Buffer;

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

/// The seed's figures in microseconds, one per row it timed.
struct SeedUs {
    copy: f64,
    binary: f64,
    eytzinger: f64,
    eytzinger_build: f64,
}

/// The seed's figures on an NVIDIA RTX 2080 Ti (futhark bench, -r 100).
const SEED_US: SeedUs = SeedUs {
    copy: 534.0,
    binary: 2670.0,
    eytzinger: 2107.0,
    eytzinger_build: 1698.0,
};

struct Row {
    name: String,
    segs: Option<u32>,
    median_us: f64,
    min_us: f64,
    seed_us: Option<f64>,
    verified: Option<bool>,
}

impl Row {
    /// A row timed at `(median, min)` µs, with no segments or seed figure.
    fn new(name: &str, (median_us, min_us): (f64, f64), verified: Option<bool>) -> Row {
        Row {
            name: name.into(),
            segs: None,
            median_us,
            min_us,
            seed_us: None,
            verified,
        }
    }

    /// The seed's figure for the same method.
    fn seed(self, us: f64) -> Row {
        Row {
            seed_us: Some(us),
            ..self
        }
    }
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
    let (n, runs) = (args.n, args.runs);
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
    let data = Data::new(n, args.seed, !args.no_verify);
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!(
        "keys: the array itself (sorted: {}) unless a row says \"Eytzinger order\" (sorted: {}); \
         checked on the host",
        yes_no(keys_sorted(&data.hay)),
        yes_no(keys_sorted(&data.eyt_keys))
    );
    println!();
    let mut t = Table {
        ds: &ds,
        n,
        runs,
        verify: !args.no_verify,
        all_ok: true,
        out: ds.alloc::<u32>(n).map_err(e)?,
        rows: Vec::new(),
    };
    let bufs = Bufs {
        hay: ds.upload(&data.hay).map_err(e)?,
        eyt_keys: ds.upload(&data.eyt_keys).map_err(e)?,
    };
    t.seed_rows(&data, &bufs)?;
    t.blocked_rows(&data, &bufs);
    t.nary_rows(&data, &bufs, &args.segs);
    print_table(&t.rows);
    let study_ok =
        args.study_n.is_empty() || study::run(&ds, &args.study_n, &args.study_wg, runs, args.seed)?;
    if !t.all_ok || !study_ok {
        eprintln!("gsearch-bench-sorted: some answers differ from the CPU reference");
    }
    Ok(t.all_ok && study_ok)
}

fn e(x: gsearch::opencl::DeviceError) -> String {
    x.to_string()
}

/// The array and the keys, as the seed makes them, with the CPU's answers.
struct Data {
    /// n random values bounded by n - 1, sorted.
    hay: Vec<i32>,
    /// The array's elements in Eytzinger order: the seed searches the
    /// Eytzinger array for its own elements.
    eyt_keys: Vec<i32>,
    /// `partition_point` of each key (empty without checks).
    want_sorted: Vec<u32>,
    want_eyt: Vec<u32>,
}

impl Data {
    fn new(n: usize, seed: u64, verify: bool) -> Data {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut hay: Vec<i32> = (0..n)
            .map(|_| {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                (state.wrapping_mul(0x2545_f491_4f6c_dd1d) % (n.max(1) as u64)) as i32
            })
            .collect();
        hay.sort_unstable();
        let eyt_keys: Vec<i32> = (1..=n as u32)
            .map(|node| hay[eytzinger_rank(node, n as u32) as usize])
            .collect();
        let answers = |keys: &[i32]| -> Vec<u32> {
            if !verify {
                return Vec::new();
            }
            keys.iter()
                .map(|k| hay.partition_point(|x| x < k) as u32)
                .collect()
        };
        let (want_sorted, want_eyt) = (answers(&hay), answers(&eyt_keys));
        Data {
            hay,
            eyt_keys,
            want_sorted,
            want_eyt,
        }
    }
}

/// The device's copies of the array and of the Eytzinger-order keys.
struct Bufs {
    hay: Buffer<i32>,
    eyt_keys: Buffer<i32>,
}

/// The rows timed so far, and what they need.
struct Table<'a> {
    ds: &'a DeviceSearch<i32>,
    n: usize,
    runs: usize,
    verify: bool,
    /// Every checked answer was right.
    all_ok: bool,
    out: Buffer<u32>,
    rows: Vec<Row>,
}

impl Table<'_> {
    /// Whether `got` (read back by `get`) equals `want`; `None` unchecked.
    fn check<T: PartialEq>(
        &mut self,
        get: impl FnOnce(&Self) -> Option<Vec<T>>,
        want: &[T],
    ) -> Option<bool> {
        if !self.verify {
            return None;
        }
        let ok = get(self).is_some_and(|got| got == want);
        self.all_ok &= ok;
        Some(ok)
    }

    /// Times `m` over `keys` and checks its answers against `want`.
    fn search(
        &mut self,
        label: &str,
        m: Method,
        (hay, keys): (&Buffer<i32>, &Buffer<i32>),
        want: &[u32],
    ) -> Result<Row, String> {
        let (ds, n) = (self.ds, self.n);
        let out = &mut self.out;
        let t = time_runs(self.runs, || {
            ds.run_buffers(m, hay, n, keys, n, out).map_err(e)
        })?;
        let verified = self.check(|t| t.ds.download(&t.out, n).ok(), want);
        Ok(Row::new(label, t, verified))
    }

    /// A row for `m` when the device supports it (a line saying why not,
    /// or why it failed, otherwise).
    fn try_search(
        &mut self,
        label: &str,
        segs: Option<u32>,
        m: Method,
        bufs: (&Buffer<i32>, &Buffer<i32>),
        want: &[u32],
    ) {
        let n_part = segs.map(|s| format!(" N={s}")).unwrap_or_default();
        if !self.ds.supports(m) {
            println!("(skipped {label}{n_part}: not supported on this device)");
            return;
        }
        match self.search(label, m, bufs, want) {
            Ok(row) => self.rows.push(Row { segs, ..row }),
            Err(err) => println!("({label}{n_part} failed: {err})"),
        }
    }

    /// The seed's rows: the copy, binary search, the Eytzinger layout and
    /// Eytzinger search.
    fn seed_rows(&mut self, data: &Data, bufs: &Bufs) -> Result<(), String> {
        let (ds, n) = (self.ds, self.n);
        let mut dst = ds.alloc::<i32>(n).map_err(e)?;
        let t = time_runs(self.runs, || ds.copy(&bufs.hay, &mut dst, n).map_err(e))?;
        self.rows
            .push(Row::new("copy (clEnqueueCopyBuffer)", t, None).seed(SEED_US.copy));
        let sorted = (&bufs.hay, &bufs.hay);
        let row = self.search("binary search", Method::Binary, sorted, &data.want_sorted)?;
        self.rows.push(row.seed(SEED_US.binary));
        let mut eyt = ds.alloc::<i32>(n).map_err(e)?;
        let t = time_runs(self.runs, || {
            ds.build_eytzinger(&bufs.hay, n, &mut eyt).map_err(e)
        })?;
        let layout_ok = self.check(|t| t.ds.download(&eyt, n).ok(), &data.eyt_keys);
        self.rows.push(
            Row::new("Eytzinger layout build (on device)", t, layout_ok)
                .seed(SEED_US.eytzinger_build),
        );
        // The Eytzinger array searched for both key batches.
        for (label, keys, want, seed_us) in [
            (
                "Eytzinger search (keys in Eytzinger order, as the seed)",
                &bufs.eyt_keys,
                &data.want_eyt,
                Some(SEED_US.eytzinger),
            ),
            (
                "Eytzinger search (sorted keys)",
                &bufs.hay,
                &data.want_sorted,
                None,
            ),
        ] {
            let row = self.search(label, Method::Eytzinger, (&eyt, keys), want)?;
            self.rows.push(Row { seed_us, ..row });
        }
        Ok(())
    }

    /// The blocked search, two launches and one, on both key batches.
    fn blocked_rows(&mut self, data: &Data, bufs: &Bufs) {
        let sorted = (&bufs.hay, &bufs.hay);
        let eyt_order = (&bufs.hay, &bufs.eyt_keys);
        // Per method, its label on the sorted keys and on the keys in
        // Eytzinger order; the sorted keys' rows first.
        let methods = [
            (
                Method::Blocked,
                "blocked: bounds + local-memory search, 2 launches (sorted keys)",
                "blocked, 2 launches (keys in Eytzinger order: unsorted, fallback)",
            ),
            (
                Method::BlockedFused,
                "blocked, 1 launch, cooperative bounds (sorted keys)",
                "blocked, 1 launch (keys in Eytzinger order: unsorted, fallback)",
            ),
        ];
        for eyt in [false, true] {
            for (m, sorted_label, eyt_label) in methods {
                if eyt {
                    self.try_search(eyt_label, None, m, eyt_order, &data.want_eyt);
                } else {
                    self.try_search(sorted_label, None, m, sorted, &data.want_sorted);
                }
            }
        }
    }

    /// The N-ary forms for each segment count.
    fn nary_rows(&mut self, data: &Data, bufs: &Bufs, segs: &[u32]) {
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
            for &s in segs {
                let sorted = (&bufs.hay, &bufs.hay);
                self.try_search(label, Some(s), make(s), sorted, &data.want_sorted);
            }
        }
    }
}

/// The markdown table, each row beside the copy's time.
fn print_table(rows: &[Row]) {
    let copy = rows[0].median_us;
    println!();
    println!(
        "| method | N | µs (median) | µs (min) | ratio to copy | RTX 2080 Ti µs (seed) | seed ratio to copy | verified |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for r in rows {
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
                .map(|v| format!("{:.2}", v / SEED_US.copy))
                .unwrap_or_else(|| "–".into()),
            match r.verified {
                Some(true) => "ok",
                Some(false) => "WRONG",
                None => "–",
            }
        );
    }
}
