//! `--sorted`: print the lines of a sorted file that begin with a key (like
//! look(1)), for one key or for millions, in O(log n) per key.
//!
//! # Contract
//! * The file must be sorted bytewise (`LC_ALL=C sort`), or, with
//!   [`SortedOptions::fold_case`], case-insensitively as `LC_ALL=C sort -f`
//!   sorts (ASCII letters folded to UPPER case; see [`text`]).
//! * A line matches key K when it begins with K (with `fold_case`, ignoring
//!   ASCII case). Each matching line is printed once, in file order, however
//!   many keys it matches (keys that are prefixes of each other, duplicate
//!   keys).
//! * Output: exactly the line's bytes followed by `\n` (a last line without
//!   a `\n` gets one, as grep prints it); no path prefix: a caller that
//!   wants `path:` wraps `out`. With [`SortedOptions::count`] nothing but the
//!   count is written, as one line `N\n`.
//! * The return value is the number of matching lines: exit status 0 when
//!   it is > 0, 1 when it is 0; any [`SortedError`] is exit status 2
//!   ([`SortedReport::exit_code`], [`SortedError::exit_code`]).
//! * A file found out of order where the search reads it is an error
//!   ([`SortedError::NotSorted`]), never a silently wrong answer. The CPU
//!   path checks every line it reads (probes against the lines that bracket
//!   them, and every scanned line against the one before it); the device
//!   path checks its sampled lines in order and then every line it reads as
//!   the CPU path does (a small file is sampled at every line, so checked
//!   whole). Threads read lines only between brackets checked in order
//!   before they start ([`chunks`]), so the lines read by all of them are
//!   checked as one search would check them.
//!
//! # Engines
//! Keys are sorted and de-duplicated (on all threads), then split into
//! consecutive chunks searched by [`SortedOptions::threads`] threads over
//! the memory-mapped file; each chunk yields byte ranges of matching lines
//! and [`chunks::merge`] prints them in file order, each line once.
//! * CPU: for each key a binary search over byte offsets of the map (a
//!   probe lands anywhere in a line and scans back to the previous `\n`),
//!   starting from the previous key's answer; then a forward scan of the
//!   matching lines. No pass over the whole file.
//! * Device (OpenCL): a sparse sample index ([`sample`]: the first line
//!   after every block of ~len/(4 keys) bytes, its first 8 bytes as a
//!   big-endian u64, built by all threads from the map), the keys' 8-byte
//!   prefixes likewise, then one batched lower-bound search of all keys
//!   among the samples on the device ([`DeviceSearch::pick_for`]);
//!   the threads then resolve ties beyond 8 bytes and finish each key by a
//!   binary search inside its sample interval.
//!
//! [`DeviceChoice::Auto`] uses the device for at least
//! [`SortedOptions::auto_min_keys`] keys when OpenCL is present. If the
//! device fails for any reason, the CPU answers and a warning says why
//! ([`SortedReport::warnings`]; [`run`] prints them to stderr).

pub mod chunks;
pub mod sample;
pub mod text;

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::opencl::sorted::{DeviceSearch, MAX_LEN, Method, Timing};
use crate::opencl::{DeviceError, open_device};
use chunks::{Lookup, Ranges, Split};
use text::{Disorder, Text, cmp_text, prefix_key};

/// Where the search runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Always the CPU.
    #[default]
    Cpu,
    /// The device when there are many keys and OpenCL is present.
    Auto,
    /// The OpenCL device chosen by the selector (an index or a name
    /// substring, see [`crate::opencl::select_device`]); `None`: the environment
    /// variable `GSEARCH_OPENCL_DEVICE`, else the preferred device.
    Device(Option<String>),
}

/// Options of [`run`].
#[derive(Clone, Debug)]
pub struct SortedOptions {
    /// `-i`: the file is sorted as by `sort -f`; keys match ignoring ASCII
    /// case.
    pub fold_case: bool,
    /// `-c`: write only the count of matching lines.
    pub count: bool,
    pub use_device: DeviceChoice,
    /// With [`DeviceChoice::Auto`], the fewest keys for which the device is
    /// used (starting OpenCL costs ~0.3 s).
    pub auto_min_keys: usize,
    /// Threads that search (0: [`crate::sys::cores`]).
    pub threads: usize,
    /// Fewest keys a thread's chunk gets (fewer keys: fewer threads).
    pub min_chunk_keys: usize,
}

impl SortedOptions {
    fn split(&self) -> Split {
        Split {
            threads: if self.threads == 0 {
                crate::sys::cores()
            } else {
                self.threads
            },
            min_chunk: self.min_chunk_keys.max(1),
        }
    }
}

impl Default for SortedOptions {
    fn default() -> Self {
        SortedOptions {
            fold_case: false,
            count: false,
            use_device: DeviceChoice::Cpu,
            auto_min_keys: 100_000,
            threads: 0,
            min_chunk_keys: 2048,
        }
    }
}

/// Why `--sorted` failed. Display gives `PATH: reason` (the caller adds
/// `gsearch: `).
#[derive(Debug)]
pub enum SortedError {
    /// The file could not be opened or read.
    Io { path: PathBuf, err: io::Error },
    /// The file is not in the order the search requires. `line` is the
    /// 1-based number of the line found to sort before `earlier_line`.
    NotSorted {
        path: PathBuf,
        line: u64,
        earlier_line: u64,
        fold_case: bool,
    },
    /// Writing the output failed (a closed pipe included: the caller decides
    /// whether to be quiet about it).
    Output(io::Error),
}

impl SortedError {
    /// grep's exit status for an error.
    pub fn exit_code(&self) -> i32 {
        2
    }
}

impl fmt::Display for SortedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SortedError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            SortedError::NotSorted {
                path,
                line,
                earlier_line,
                fold_case,
            } => write!(
                f,
                "{}: not sorted (line {line} sorts before line {earlier_line}{}); \
                 sort it with `LC_ALL=C sort{}`",
                path.display(),
                if *fold_case { ", ignoring case" } else { "" },
                if *fold_case { " -f" } else { "" },
            ),
            SortedError::Output(err) => write!(f, "write error: {err}"),
        }
    }
}

impl std::error::Error for SortedError {}

/// What a search did, for `--stats`.
#[derive(Clone, Debug, Default)]
pub struct SortedReport {
    /// Matching lines (printed or counted).
    pub lines: u64,
    /// Which engine answered: `cpu` or `opencl:<method> on <device>`.
    pub engine: String,
    /// How it searched: threads, chunks, and for the device its sample
    /// index.
    pub method: String,
    /// Device time of the search kernels, when the device answered.
    pub device_ns: Option<u64>,
    /// Device failures that made the CPU answer instead.
    pub warnings: Vec<String>,
    /// Wall time of each phase: sorting the keys, the search (sample
    /// index and device included), printing.
    pub phases: Vec<(&'static str, std::time::Duration)>,
}

impl SortedReport {
    /// grep's exit status: 0 when something matched, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.lines > 0 { 0 } else { 1 }
    }
}

/// Search `path` for the lines that begin with any of `keys`; write them
/// (or their count) to `out`. Warnings (device fallback) go to stderr.
/// Returns the number of matching lines.
pub fn run<K: AsRef<[u8]>>(
    path: &Path,
    keys: &[K],
    opts: &SortedOptions,
    out: &mut dyn Write,
) -> Result<u64, SortedError> {
    let report = run_with_report(path, keys, opts, out)?;
    for w in &report.warnings {
        eprintln!("gsearch: warning: {w}");
    }
    Ok(report.lines)
}

/// [`run`], returning what ran where instead of printing warnings.
pub fn run_with_report<K: AsRef<[u8]>>(
    path: &Path,
    keys: &[K],
    opts: &SortedOptions,
    out: &mut dyn Write,
) -> Result<SortedReport, SortedError> {
    let io_error = |err| SortedError::Io {
        path: path.to_path_buf(),
        err,
    };
    let data = FileData::open(path).map_err(io_error)?;
    let text = Text::new(data.bytes());
    let (fold, split) = (opts.fold_case, opts.split());
    let mut report = SortedReport::default();
    let mut laps = Laps::start();
    let keys = prepare_keys(keys, fold, split.threads);
    laps.lap(&mut report, "sort keys");
    let not_sorted = |d: Disorder| SortedError::NotSorted {
        path: path.to_path_buf(),
        line: text.line_number(d.second),
        earlier_line: text.line_number(d.first),
        fold_case: fold,
    };
    let lookup = Lookup {
        text,
        keys: &keys,
        fold,
    };
    let on_device = match device_selector(opts, keys.len()) {
        Some(sel) => try_device(sel, &lookup, opts, &mut report, &mut laps).map_err(not_sorted)?,
        None => None,
    };
    let ranges = match on_device {
        Some(r) => r,
        None => {
            let r = chunks::cpu_ranges(&lookup, split).map_err(not_sorted)?;
            report.engine = "cpu".into();
            report.method = format!("binary search over byte offsets, {}", chunks_of(split, &r));
            laps.lap(&mut report, "search");
            r
        }
    };
    report.lines = print_ranges(&ranges, text.bytes, opts.count, out)?;
    laps.lap(&mut report, "print");
    if let FileData::Map(m) = &data
        && m.faulted()
    {
        return Err(io_error(crate::sys::guard::shrank_error()));
    }
    Ok(report)
}

/// The wall clock between the phases of a run.
struct Laps(std::time::Instant);

impl Laps {
    fn start() -> Laps {
        Laps(std::time::Instant::now())
    }

    /// Ends the phase `what` (not recorded when empty) and starts the next.
    fn lap(&mut self, report: &mut SortedReport, what: &'static str) {
        let now = std::time::Instant::now();
        if !what.is_empty() {
            report.phases.push((what, now - self.0));
        }
        self.0 = now;
    }
}

/// `N threads, M key chunks` for the report.
fn chunks_of(split: Split, r: &[Ranges]) -> String {
    format!(
        "{}, {}",
        crate::sys::count_of(split.threads.min(r.len()).max(1), "thread"),
        crate::sys::count_of(r.len(), "key chunk")
    )
}

/// Whether to try a device, and which (`Some(None)`: the default one):
/// never for `Cpu`, always for an explicit device, and for `Auto` from
/// `auto_min_keys` keys when an OpenCL runtime is there.
fn device_selector(opts: &SortedOptions, nkeys: usize) -> Option<Option<String>> {
    match &opts.use_device {
        DeviceChoice::Cpu => None,
        DeviceChoice::Auto => (nkeys >= opts.auto_min_keys.max(1)
            && cl3::is_opencl_runtime_available())
        .then_some(None),
        DeviceChoice::Device(sel) => Some(sel.clone()),
    }
}

/// The device's ranges, or `None` (with a warning in the report) when no
/// device opened or the device could not answer: the CPU answers then.
fn try_device(
    sel: Option<String>,
    l: &Lookup<'_, '_>,
    opts: &SortedOptions,
    report: &mut SortedReport,
    laps: &mut Laps,
) -> Result<Option<Vec<Ranges>>, Disorder> {
    let split = opts.split();
    let opened = device_searcher(sel.as_deref());
    laps.lap(report, "open device");
    let ds = match opened {
        Ok(ds) => ds,
        Err(e) => {
            let w = format!("no OpenCL device ({e}); searching on the CPU");
            report.warnings.push(w);
            return Ok(None);
        }
    };
    match device_search(&ds, l, split)? {
        DeviceOutcome::Done {
            method,
            timing,
            samples,
            block,
            ranges,
            phases,
        } => {
            report.engine = format!("opencl:{} on {}", method.name(), ds.device().describe());
            report.method = format!(
                "sample index of {samples} lines (one per {block} bytes) searched \
                 on the device, finished by {}",
                chunks_of(split, &ranges)
            );
            report.device_ns = Some(timing.device_ns);
            report.phases.extend(phases);
            laps.lap(report, "");
            Ok(Some(ranges))
        }
        DeviceOutcome::Failed(msg) => {
            let w = format!("device search failed ({msg}); searching on the CPU");
            report.warnings.push(w);
            Ok(None)
        }
    }
}

/// Prints (or, with `count_only`, counts and then prints the count) the
/// lines of `ranges` in file order, each once; returns how many.
fn print_ranges(
    ranges: &[Ranges],
    bytes: &[u8],
    count_only: bool,
    out: &mut dyn Write,
) -> Result<u64, SortedError> {
    let mut sink = Sink {
        out: io::BufWriter::with_capacity(256 * 1024, out),
        count_only,
        lines: 0,
    };
    chunks::merge(ranges, |s, e| sink.emit_lines(&bytes[s..e])).map_err(SortedError::Output)?;
    if count_only {
        writeln!(sink.out, "{}", sink.lines).map_err(SortedError::Output)?;
    }
    sink.out.flush().map_err(SortedError::Output)?;
    Ok(sink.lines)
}

/// Keys in the file's order, duplicates (under that order) removed; sorted
/// on `threads` threads.
fn prepare_keys<K: AsRef<[u8]>>(keys: &[K], fold: bool, threads: usize) -> Vec<&[u8]> {
    // Sorted with their 8-byte prefix keys beside them: most comparisons
    // are decided without following the pointers to the keys' bytes.
    let v: Vec<Keyed<'_>> = keys
        .iter()
        .map(|k| (prefix_key(k.as_ref(), fold), k.as_ref()))
        .collect();
    let mut v = par_sort(v, fold, threads);
    v.dedup_by(|a, b| cmp_keyed(a, b, fold) == std::cmp::Ordering::Equal);
    v.into_iter().map(|(_, k)| k).collect()
}

/// A key and its [`prefix_key`].
type Keyed<'k> = (u64, &'k [u8]);

/// The file's order on keys with their prefix keys.
#[inline]
fn cmp_keyed(a: &Keyed<'_>, b: &Keyed<'_>, fold: bool) -> std::cmp::Ordering {
    a.0.cmp(&b.0).then_with(|| cmp_text(a.1, b.1, fold))
}

/// Sort `v` in the file's order: parts sorted on `threads` threads, then
/// merged pairwise (the pairs of a round in parallel).
fn par_sort(mut v: Vec<Keyed<'_>>, fold: bool, threads: usize) -> Vec<Keyed<'_>> {
    const MIN_PART: usize = 1 << 15;
    let parts = threads.min(v.len() / MIN_PART).max(1);
    let cmp = |a: &Keyed<'_>, b: &Keyed<'_>| cmp_keyed(a, b, fold);
    if parts == 1 {
        v.sort_unstable_by(cmp);
        return v;
    }
    let size = v.len().div_ceil(parts);
    let mut runs: Vec<Vec<Keyed<'_>>> = v.chunks(size).map(<[_]>::to_vec).collect();
    std::thread::scope(|s| {
        for run in runs.iter_mut() {
            s.spawn(move || run.sort_unstable_by(cmp));
        }
    });
    while runs.len() > 1 {
        let done = &runs;
        runs = chunks::par_map(done.len().div_ceil(2), threads, |i| {
            merge_sorted(&done[2 * i], done.get(2 * i + 1).map_or(&[], |b| b), fold)
        });
    }
    runs.pop().unwrap_or_default()
}

/// Merge two sorted runs.
fn merge_sorted<'k>(a: &[Keyed<'k>], b: &[Keyed<'k>], fold: bool) -> Vec<Keyed<'k>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if cmp_keyed(&b[j], &a[i], fold) == std::cmp::Ordering::Less {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The file's bytes: memory-mapped when possible, read otherwise (pipes,
/// special files).
enum FileData {
    Empty,
    Map(crate::sys::guard::GuardedMap),
    Owned(Vec<u8>),
}

impl FileData {
    fn open(path: &Path) -> io::Result<FileData> {
        let file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_dir() {
            return Err(io::Error::other("is a directory"));
        }
        if meta.is_file() {
            if meta.len() == 0 {
                return Ok(FileData::Empty);
            }
            // Mapped under the SIGBUS guard: a concurrent writer could change
            // the bytes (we would report "not sorted" or print what is there,
            // as grep tools do); a truncation reads zeros and is reported
            // after the lookup instead of killing the process.
            if let Ok(Some(m)) = crate::sys::guard::GuardedMap::map(&file) {
                return Ok(FileData::Map(m));
            }
        }
        let mut v = Vec::new();
        io::Read::read_to_end(&mut &file, &mut v)?;
        Ok(FileData::Owned(v))
    }

    fn bytes(&self) -> &[u8] {
        match self {
            FileData::Empty => &[],
            FileData::Map(m) => m,
            FileData::Owned(v) => v,
        }
    }
}

struct Sink<'a> {
    out: io::BufWriter<&'a mut dyn Write>,
    count_only: bool,
    lines: u64,
}

impl Sink<'_> {
    /// Whole lines of the file (the last one may lack its `\n`: it gets
    /// one).
    fn emit_lines(&mut self, block: &[u8]) -> io::Result<()> {
        let newlines = memchr::memchr_iter(b'\n', block).count() as u64;
        let open = !block.is_empty() && !block.ends_with(b"\n");
        self.lines += newlines + u64::from(open);
        if !self.count_only {
            self.out.write_all(block)?;
            if open {
                self.out.write_all(b"\n")?;
            }
        }
        Ok(())
    }
}

/// Process-wide cache of opened devices with their built kernels, keyed by
/// selector: a second `run` reuses them.
fn device_searcher(selector: Option<&str>) -> Result<Arc<DeviceSearch<u64>>, DeviceError> {
    type Cache = Mutex<HashMap<Option<String>, Arc<DeviceSearch<u64>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = selector.map(str::to_string);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(ds) = map.get(&key) {
        return Ok(ds.clone());
    }
    let dev = Arc::new(open_device(selector)?);
    let ds = Arc::new(DeviceSearch::<u64>::new(dev)?);
    map.insert(key, ds.clone());
    Ok(ds)
}

enum DeviceOutcome {
    Done {
        method: Method,
        timing: Timing,
        samples: usize,
        block: usize,
        ranges: Vec<Ranges>,
        /// Wall time of the sample index, the device search and the finish.
        phases: Vec<(&'static str, std::time::Duration)>,
    },
    /// The device could not answer; nothing was written yet.
    Failed(String),
}

/// First index `j >= start` with `!below(j)` (`below` monotone: true then
/// false on `[start, n)`), by galloping then bisecting: O(log distance).
fn gallop(start: usize, n: usize, below: impl Fn(usize) -> bool) -> usize {
    if start >= n || !below(start) {
        return start;
    }
    // below(lo) holds; find hi with !below(hi) or hi == n
    let mut lo = start;
    let mut step = 1usize;
    let mut hi = loop {
        let probe = lo.saturating_add(step);
        if probe >= n {
            break n;
        }
        if !below(probe) {
            break probe;
        }
        lo = probe;
        step *= 2;
    };
    // below(lo), !below(hi) (or hi == n)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The device engine; see the module docs.
fn device_search(
    ds: &DeviceSearch<u64>,
    l: &Lookup<'_, '_>,
    split: Split,
) -> Result<DeviceOutcome, Disorder> {
    let Lookup { text, keys, fold } = *l;
    let block = sample::block_size(text.len(), keys.len());
    let clock = std::time::Instant::now();
    let samples = sample::build(&text, fold, block, split.threads)?;
    let indexed = clock.elapsed();
    let n = samples.starts.len();
    if n > MAX_LEN {
        return Ok(DeviceOutcome::Failed(format!(
            "{n} samples exceed the device search's limit of {MAX_LEN}"
        )));
    }
    let kp: Vec<u64> = keys.iter().map(|k| prefix_key(k, fold)).collect();
    let method = ds.pick_for(n, &kp);
    let (bounds, timing) = match ds.lower_bound_timed(method, &samples.prefixes, &kp) {
        Ok(r) => r,
        Err(e) => return Ok(DeviceOutcome::Failed(e.to_string())),
    };
    if bounds.len() != keys.len() {
        return Ok(DeviceOutcome::Failed(format!(
            "the device answered {} of {} keys",
            bounds.len(),
            keys.len()
        )));
    }
    // The device compared 8-byte prefixes: every sample before bounds[k]
    // sorts below key k; the first sample at or above it is found by
    // comparing whole lines from there.
    let searched = clock.elapsed();
    let slots = slots(l, &samples.starts, &bounds, split.threads);
    let ranges = chunks::sampled_ranges(l, &samples.starts, &slots, split)?;
    Ok(DeviceOutcome::Done {
        method,
        timing,
        samples: n,
        phases: vec![
            ("sample index", indexed),
            ("device search", searched - indexed),
            ("finish", clock.elapsed() - searched),
        ],
        block,
        ranges,
    })
}

/// For each key, the first sample whose line sorts at or above it, galloping
/// from the device's prefix answer `bounds[k]`, on `threads` threads.
fn slots(l: &Lookup<'_, '_>, starts: &[usize], bounds: &[u32], threads: usize) -> Vec<usize> {
    let Lookup { text, keys, fold } = *l;
    const PART: usize = 1 << 14;
    let n = starts.len();
    let parts = chunks::par_map(keys.len().div_ceil(PART), threads, |p| {
        let range = p * PART..((p + 1) * PART).min(keys.len());
        range
            .map(|k| {
                gallop((bounds[k] as usize).min(n), n, |j| {
                    cmp_text(text.line_at(starts[j]).0, keys[k], fold) == std::cmp::Ordering::Less
                })
            })
            .collect::<Vec<usize>>()
    });
    parts.concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_boundary() {
        for n in 0..40usize {
            for t in 0..=n {
                for s in 0..=n {
                    let got = gallop(s, n, |j| j < t);
                    assert_eq!(got, s.max(t), "n={n} t={t} s={s}");
                }
            }
        }
    }

    #[test]
    fn keys_sorted_and_deduplicated() {
        let keys = vec![b"b".to_vec(), b"A".to_vec(), b"a".to_vec(), b"b".to_vec()];
        assert_eq!(prepare_keys(&keys, false, 1), vec![&b"A"[..], b"a", b"b"]);
        assert_eq!(prepare_keys(&keys, true, 1).len(), 2);
    }

    #[test]
    fn parallel_sort_equals_sort() {
        let keys: Vec<Vec<u8>> = (0..100_000u32)
            .map(|i| format!("{:x}", i.wrapping_mul(2_654_435_761) % 50_000).into_bytes())
            .collect();
        for fold in [false, true] {
            let one = prepare_keys(&keys, fold, 1);
            for threads in [2, 3, 7] {
                assert_eq!(prepare_keys(&keys, fold, threads), one, "{threads} threads");
            }
        }
    }
}
