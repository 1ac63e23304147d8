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
//!   path, which reads the whole file to index it, checks the whole file.
//!
//! # Engines
//! * CPU: keys sorted and de-duplicated, then for each key a binary search
//!   over byte offsets of the memory-mapped file (a probe lands anywhere in
//!   a line and scans back to the previous `\n`), starting from the previous
//!   key's answer; then a forward scan of the matching lines.
//! * Device (OpenCL): a line-start index of the file (memchr on the CPU),
//!   the first 8 bytes of each line as a big-endian u64, the keys' 8-byte
//!   prefixes likewise, then one batched lower-bound search of all keys on
//!   the device ([`search::DeviceSearch::pick`] chooses binary, Eytzinger or
//!   an N-ary form per device); the host resolves ties beyond 8 bytes by a
//!   galloping search and prints.
//!
//! [`DeviceChoice::Auto`] uses the device for at least
//! [`SortedOptions::auto_min_keys`] keys when OpenCL is present. If the
//! device fails for any reason, the CPU answers and a warning says why
//! ([`SortedReport::warnings`]; [`run`] prints them to stderr).

pub mod device;
pub mod search;
pub mod text;

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use search::{DeviceSearch, MAX_LEN, Method};
use text::{Disorder, OffsetSearch, Text, cmp_text, prefix_key, starts_with};

/// Where the search runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Always the CPU.
    #[default]
    Cpu,
    /// The device when there are many keys and OpenCL is present.
    Auto,
    /// The OpenCL device chosen by the selector (an index or a name
    /// substring, see [`device::select_device`]); `None`: the environment
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
}

impl Default for SortedOptions {
    fn default() -> Self {
        SortedOptions {
            fold_case: false,
            count: false,
            use_device: DeviceChoice::Cpu,
            auto_min_keys: 100_000,
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
    /// Device time of the search kernels, when the device answered.
    pub device_ns: Option<u64>,
    /// Device failures that made the CPU answer instead.
    pub warnings: Vec<String>,
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
pub fn run(
    path: &Path,
    keys: &[Vec<u8>],
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
pub fn run_with_report(
    path: &Path,
    keys: &[Vec<u8>],
    opts: &SortedOptions,
    out: &mut dyn Write,
) -> Result<SortedReport, SortedError> {
    let data = FileData::open(path).map_err(|err| SortedError::Io {
        path: path.to_path_buf(),
        err,
    })?;
    let text = Text::new(data.bytes());
    let fold = opts.fold_case;
    let keys = prepare_keys(keys, fold);
    let mut sink = Sink {
        out: io::BufWriter::with_capacity(64 * 1024, out),
        count_only: opts.count,
        lines: 0,
    };
    let mut report = SortedReport::default();
    let not_sorted = |d: Disorder| SortedError::NotSorted {
        path: path.to_path_buf(),
        line: text.line_number(d.second),
        earlier_line: text.line_number(d.first),
        fold_case: fold,
    };

    let selector = match &opts.use_device {
        DeviceChoice::Cpu => None,
        DeviceChoice::Auto => (keys.len() >= opts.auto_min_keys.max(1)
            && cl3::is_opencl_runtime_available())
        .then_some(None),
        DeviceChoice::Device(sel) => Some(sel.clone()),
    };
    let mut done = false;
    if let Some(sel) = selector {
        match device_searcher(sel.as_deref()) {
            Ok(ds) => match device_search(&ds, &text, &keys, fold, &mut sink) {
                Ok(DeviceOutcome::Done { method, timing }) => {
                    report.engine =
                        format!("opencl:{} on {}", method.name(), ds.device().describe());
                    report.device_ns = Some(timing.device_ns);
                    done = true;
                }
                Ok(DeviceOutcome::Failed(msg)) => report.warnings.push(format!(
                    "device search failed ({msg}); searching on the CPU"
                )),
                Err(DeviceSearchError::Disorder(d)) => return Err(not_sorted(d)),
                Err(DeviceSearchError::Output(e)) => return Err(SortedError::Output(e)),
            },
            Err(e) => report
                .warnings
                .push(format!("no OpenCL device ({e}); searching on the CPU")),
        }
    }
    if !done {
        cpu_search(&text, &keys, fold, &mut sink).map_err(|e| match e {
            CpuError::Disorder(d) => not_sorted(d),
            CpuError::Output(e) => SortedError::Output(e),
        })?;
        report.engine = "cpu".into();
    }
    report.lines = sink.lines;
    if opts.count {
        writeln!(sink.out, "{}", sink.lines).map_err(SortedError::Output)?;
    }
    sink.out.flush().map_err(SortedError::Output)?;
    if let FileData::Map(m) = &data {
        if m.faulted() {
            return Err(SortedError::Io {
                path: path.to_path_buf(),
                err: crate::guard::shrank_error(),
            });
        }
    }
    Ok(report)
}

/// Keys in the file's order, duplicates (under that order) removed.
fn prepare_keys(keys: &[Vec<u8>], fold: bool) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    v.sort_unstable_by(|a, b| cmp_text(a, b, fold));
    v.dedup_by(|a, b| cmp_text(a, b, fold) == std::cmp::Ordering::Equal);
    v
}

/// The file's bytes: memory-mapped when possible, read otherwise (pipes,
/// special files).
enum FileData {
    Empty,
    Map(crate::guard::GuardedMap),
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
            if let Ok(Some(m)) = crate::guard::GuardedMap::map(&file) {
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
    #[inline]
    fn emit(&mut self, line: &[u8]) -> io::Result<()> {
        self.lines += 1;
        if !self.count_only {
            self.out.write_all(line)?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

enum CpuError {
    Disorder(Disorder),
    Output(io::Error),
}

/// The CPU engine: binary search over byte offsets per key (keys sorted, so
/// each search starts where the previous one ended), then a scan.
fn cpu_search(
    text: &Text<'_>,
    keys: &[&[u8]],
    fold: bool,
    sink: &mut Sink<'_>,
) -> Result<(), CpuError> {
    let mut search = OffsetSearch::new(*text, fold);
    let mut printed_until = 0usize;
    for &key in keys {
        let lb = search.lower_bound(key).map_err(CpuError::Disorder)?;
        // Lines in [lb, printed_until) matched an earlier key (a prefix of
        // this one) and were printed already.
        let mut pos = lb.max(printed_until);
        let mut prev = (pos > 0).then(|| text.line_start_back(pos - 1, 0));
        while pos < text.len() {
            let (line, next) = text.line_at(pos);
            if let Some(p) = prev {
                if cmp_text(text.line_at(p).0, line, fold) == std::cmp::Ordering::Greater {
                    return Err(CpuError::Disorder(Disorder {
                        first: p,
                        second: pos,
                    }));
                }
            }
            if !starts_with(line, key, fold) {
                break;
            }
            sink.emit(line).map_err(CpuError::Output)?;
            prev = Some(pos);
            pos = next;
        }
        search.scanned_to(pos).map_err(CpuError::Disorder)?;
        printed_until = printed_until.max(pos);
    }
    Ok(())
}

/// Process-wide cache of opened devices with their built kernels, keyed by
/// selector: a second `run` reuses them.
fn device_searcher(selector: Option<&str>) -> Result<Arc<DeviceSearch<u64>>, device::DeviceError> {
    type Cache = Mutex<HashMap<Option<String>, Arc<DeviceSearch<u64>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = selector.map(str::to_string);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(ds) = map.get(&key) {
        return Ok(ds.clone());
    }
    let dev = Arc::new(device::open_device(selector)?);
    let ds = Arc::new(DeviceSearch::<u64>::new(dev)?);
    map.insert(key, ds.clone());
    Ok(ds)
}

enum DeviceOutcome {
    Done {
        method: Method,
        timing: search::Timing,
    },
    /// The device could not answer; nothing was written yet.
    Failed(String),
}

enum DeviceSearchError {
    Disorder(Disorder),
    Output(io::Error),
}

/// Start offsets of every line (none for an empty file).
pub fn line_starts(bytes: &[u8]) -> Vec<usize> {
    let mut v = Vec::with_capacity(bytes.len() / 32 + 1);
    if !bytes.is_empty() {
        v.push(0);
    }
    v.extend(
        memchr::memchr_iter(b'\n', bytes)
            .map(|i| i + 1)
            .filter(|&s| s < bytes.len()),
    );
    v
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
    text: &Text<'_>,
    keys: &[&[u8]],
    fold: bool,
    sink: &mut Sink<'_>,
) -> Result<DeviceOutcome, DeviceSearchError> {
    let bytes = text.bytes;
    let starts = line_starts(bytes);
    let n = starts.len();
    let content_end = if bytes.last() == Some(&b'\n') {
        bytes.len() - 1
    } else {
        bytes.len()
    };
    let line = |i: usize| -> &[u8] {
        let end = if i + 1 < n {
            starts[i + 1] - 1
        } else {
            content_end
        };
        &bytes[starts[i]..end]
    };
    let pfx: Vec<u64> = (0..n).map(|i| prefix_key(line(i), fold)).collect();
    for i in 1..n {
        let bad = pfx[i - 1] > pfx[i]
            || (pfx[i - 1] == pfx[i]
                && cmp_text(line(i - 1), line(i), fold) == std::cmp::Ordering::Greater);
        if bad {
            return Err(DeviceSearchError::Disorder(Disorder {
                first: starts[i - 1],
                second: starts[i],
            }));
        }
    }
    if n > MAX_LEN {
        return Ok(DeviceOutcome::Failed(format!(
            "{n} lines exceed the device search's limit of {MAX_LEN}"
        )));
    }
    let kp: Vec<u64> = keys.iter().map(|k| prefix_key(k, fold)).collect();
    let method = ds.pick_for(n, &kp);
    let (bounds, timing) = match ds.lower_bound_timed(method, &pfx, &kp) {
        Ok(r) => r,
        Err(e) => return Ok(DeviceOutcome::Failed(e.to_string())),
    };
    let mut printed_until = 0usize;
    for (k, &key) in keys.iter().enumerate() {
        let lb = gallop(bounds[k] as usize, n, |j| {
            cmp_text(line(j), key, fold) == std::cmp::Ordering::Less
        });
        let mut j = lb.max(printed_until);
        while j < n && starts_with(line(j), key, fold) {
            sink.emit(line(j)).map_err(DeviceSearchError::Output)?;
            j += 1;
        }
        printed_until = printed_until.max(j);
    }
    Ok(DeviceOutcome::Done { method, timing })
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
    fn line_starts_cases() {
        assert_eq!(line_starts(b""), Vec::<usize>::new());
        assert_eq!(line_starts(b"\n"), vec![0]);
        assert_eq!(line_starts(b"a\nb"), vec![0, 2]);
        assert_eq!(line_starts(b"a\nb\n"), vec![0, 2]);
        assert_eq!(line_starts(b"\n\n"), vec![0, 1]);
    }

    #[test]
    fn keys_sorted_and_deduplicated() {
        let keys = vec![b"b".to_vec(), b"A".to_vec(), b"a".to_vec(), b"b".to_vec()];
        assert_eq!(prepare_keys(&keys, false), vec![&b"A"[..], b"a", b"b"]);
        assert_eq!(prepare_keys(&keys, true).len(), 2);
    }
}
