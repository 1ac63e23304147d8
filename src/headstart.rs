//! `auto`, `-c` with a big literal set on one big file: the CPU counts the
//! file's last lines while the device starts.
//!
//! Starting OpenCL takes about 0.4 s on the GPU machine (loading the
//! drivers, the context, the staging buffers), in which the device engine
//! would count 10,000 words in several GB. The cores are idle meanwhile.
//! So every core takes line-aligned chunks of the file from its END (read
//! with `pread`, counted with the CPU's hashed finder) until the device is
//! ready; then the claims
//! close, the device streams the bytes before the lowest chunk claimed
//! (its last chunk ends at that line start), and the two counts of
//! disjoint lines add up. With no device the cores simply count the whole
//! file. Only `-c` of an exact literal set takes this path (the device
//! streams such a count without reading lines back, `Finisher::
//! streams_count` in offload.rs); every other output keeps the
//! existing paths.

use std::fs::File;
use std::path::Path;
use std::sync::{Condvar, Mutex};

use crate::config::{Config, OutputMode};
use crate::engine::LiteralSet;
use crate::plan::{PendingPlan, Plan};

/// Bytes per CPU chunk: small, so that the cores stop soon after the
/// device is ready (the hashed finder counts 10,000 words at about
/// 0.5 GB/s per core: 16 ms a chunk).
const CHUNK_DEFAULT: usize = 8 << 20;

fn chunk() -> usize {
    crate::env_count("GSEARCH_HEADSTART_CHUNK").unwrap_or(CHUNK_DEFAULT)
}

/// At most this many chunks are claimed before the device is ready
/// (`GSEARCH_HEADSTART_MAX_CHUNKS`; tests use it to split a small file
/// between both sides, whatever the timing). Lifted if no device comes.
fn max_chunks() -> usize {
    std::env::var("GSEARCH_HEADSTART_MAX_CHUNKS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(usize::MAX)
}

/// Whether a search suits the head start (checked before the plan is
/// finished; [`search`] re-checks what only the plan knows).
pub fn suits(cfg: &Config, pending: &PendingPlan, size: u64) -> bool {
    pending
        .literals()
        .is_some_and(|s| s.patterns.len() >= crate::plan::HASHED_MIN_PATTERNS)
        && pending.exact_lines()
        && cfg.paths.len() == 1
        && cfg.mode == OutputMode::Count
        && crate::linefast::count_eligible(cfg)
        && !cfg.stats
        && !cfg.verify
        && size >= crate::choose::auto_min_bytes()
        && std::env::var_os("GSEARCH_HEADSTART").is_none_or(|v| v != "0")
}

/// What the cores counted: lines of `[start, size)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TailCount {
    pub lines: u64,
    /// Bytes counted (`size - start`).
    pub bytes: u64,
    /// A NUL byte was seen: binary detection applies, and the count is not
    /// used (the file is searched again exactly).
    pub nul: bool,
}

struct State {
    /// The lowest chunk claimed (chunks `low..` are the CPU's).
    low: usize,
    closed: bool,
    /// Chunks being counted now.
    busy: usize,
    /// Chunks claimed, and how many may be before the claims close.
    claimed: usize,
    cap: usize,
    lines: u64,
    nul: bool,
    chunks: usize,
}

/// The cores' share of the file: chunks claimed from the end down, until
/// [`Tail::close`].
pub struct Tail {
    /// Read with `pread` only: no page of it is mapped into the process
    /// (a map would count toward the RSS, and its page faults would contend
    /// with the driver's loading for the process's memory-map lock).
    file: File,
    size: usize,
    chunk: usize,
    state: Mutex<State>,
    /// Signalled when no chunk is being counted.
    idle: Condvar,
    /// Signalled when the claims close or the cap is lifted.
    wake: Condvar,
}

impl Tail {
    fn new(file: File, size: usize) -> Tail {
        let chunk = chunk();
        Tail {
            file,
            size,
            chunk,
            state: Mutex::new(State {
                low: size.div_ceil(chunk),
                closed: false,
                busy: 0,
                claimed: 0,
                cap: max_chunks(),
                lines: 0,
                nul: false,
                chunks: 0,
            }),
            idle: Condvar::new(),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where chunk `k` starts: the first line start at or after `k` chunks
    /// (the size when there is none).
    fn bound(&self, k: usize) -> usize {
        use std::os::unix::fs::FileExt;
        let at = (k * self.chunk).min(self.size);
        if at == 0 || at == self.size {
            return at;
        }
        // The first newline at or after `at - 1`.
        let mut buf = [0u8; 4096];
        let mut pos = at - 1;
        while pos < self.size {
            let n = match self.file.read_at(&mut buf, pos as u64) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                return (pos + i + 1).min(self.size);
            }
            pos += n;
        }
        self.size
    }

    /// One core's loop: claim the highest chunk left, count its matching
    /// lines, until the claims close or none is left (or a NUL shows the
    /// count will not be used).
    fn work<M: grep_matcher::Matcher>(&self, matcher: &M) {
        let mut buf = Vec::new();
        loop {
            let k = {
                let mut s = self.lock();
                while !s.closed && s.claimed >= s.cap {
                    s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
                }
                if s.closed || s.low == 0 || s.nul {
                    return;
                }
                s.low -= 1;
                s.busy += 1;
                s.claimed += 1;
                s.low
            };
            let (a, b) = (self.bound(k), self.bound(k + 1));
            let mut n = 0u64;
            let nul =
                crate::lines::matching_lines_pread(&self.file, a, b, matcher, &mut buf, |_| n += 1);
            let mut s = self.lock();
            s.lines += n;
            s.nul |= nul;
            s.chunks += 1;
            s.busy -= 1;
            if s.busy == 0 {
                self.idle.notify_all();
            }
        }
    }

    /// Stops the claims; returns where the CPU's share starts (a line
    /// start; the size when the cores claimed nothing).
    fn close(&self) -> usize {
        let low = {
            let mut s = self.lock();
            s.closed = true;
            s.low
        };
        self.wake.notify_all();
        self.bound(low)
    }

    /// No device: the cores count every chunk.
    fn uncap(&self) {
        self.lock().cap = usize::MAX;
        self.wake.notify_all();
    }

    /// Waits for the chunks being counted; the CPU's count.
    pub fn wait(&self, start: u64) -> TailCount {
        let mut s = self.lock();
        while s.busy > 0 {
            s = self.idle.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        TailCount {
            lines: s.lines,
            bytes: self.size as u64 - start,
            nul: s.nul,
        }
    }

    fn chunks(&self) -> usize {
        self.lock().chunks
    }
}

/// The CPU's share handed to the device search: the device reads the
/// file up to `start`, the finisher adds [`Tail::wait`]'s count.
pub struct TailShare<'a> {
    pub tail: &'a Tail,
    pub start: u64,
}

impl TailShare<'_> {
    pub fn count(&self) -> TailCount {
        self.tail.wait(self.start)
    }
}

/// Runs the search of [`suits`]: returns whether anything matched.
pub fn search(cfg: &Config, pending: PendingPlan, path: &Path) -> anyhow::Result<bool> {
    let set: Option<LiteralSet> = pending.literals().cloned();
    std::thread::scope(|outer| {
        // The device starts on its own thread while the plan finishes and
        // the cores count.
        let device = outer.spawn(|| crate::choose::engine(cfg, set.as_ref()));
        let plan = pending.finish();
        crate::trace::mark("plan finished");
        let plan = match plan {
            Ok(p) => p,
            Err(e) => {
                // A bad pattern is reported before a missing device.
                let _ = device.join();
                return Err(e);
            }
        };
        let file = File::open(path).ok().filter(|_| plan.exact_lines);
        let size = file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map(|m| m.len());
        let (Some(file), Some(size)) = (file, size.and_then(|n| usize::try_from(n).ok())) else {
            // The usual paths (and their messages for a file that cannot
            // be opened).
            return plain(cfg, &plan, join(device)?);
        };
        let tail = Tail::new(file, size);
        std::thread::scope(|s| counted(s, cfg, &plan, path, &tail, device))
    })
}

/// The cores count from the end while the device starts; then the device
/// search of the rest, or the cores' count of everything.
fn counted<'s>(
    s: &'s std::thread::Scope<'s, '_>,
    cfg: &Config,
    plan: &'s Plan,
    path: &Path,
    tail: &'s Tail,
    device: DeviceStart<'_>,
) -> anyhow::Result<bool> {
    // One core is left to the device's start-up.
    let threads = crate::env_count("GSEARCH_HEADSTART_THREADS")
        .unwrap_or_else(|| crate::cores().saturating_sub(1).max(1));
    let workers: Vec<_> = (0..threads)
        .map(|_| s.spawn(move || tail.work(&plan.line_matcher())))
        .collect();
    let engine = join(device)?;
    let size = tail.size;
    // With no device the claims stay open: the cores count it all.
    let start = if engine.is_some() {
        tail.close()
    } else {
        tail.uncap();
        // This thread, done waiting for a device, counts too.
        tail.work(&plan.line_matcher());
        0
    };
    crate::trace::mark(&format!(
        "device {}: the CPU claimed the last {} bytes ({} chunks counted so far)",
        if engine.is_some() {
            "ready"
        } else {
            "not used"
        },
        size - start,
        tail.chunks()
    ));
    if let (Some(e), true) = (&engine, start > 0) {
        let share = TailShare {
            tail,
            start: start as u64,
        };
        let r = crate::offload::search(cfg, plan, e, Some(&share));
        // See main.rs: the process ends without releasing it.
        std::mem::forget(engine);
        return r;
    }
    std::mem::forget(engine);
    // The cores have (or will have) claimed the whole file: their count
    // is the answer.
    for w in workers {
        let _ = w.join();
    }
    let count = tail.wait(0);
    // A NUL (binary detection), or a file that changed size meanwhile:
    // the CPU engine searches it again and says what it finds.
    let same_size = tail.file.metadata().is_ok_and(|m| m.len() == size as u64);
    if count.nul || !same_size {
        return crate::run::search_cpu(cfg, plan);
    }
    let mut out = Vec::new();
    crate::linefast::write_count(cfg, path, count.lines, &mut out);
    write_out(&out)?;
    Ok(count.lines > 0)
}

type DeviceStart<'a> =
    std::thread::ScopedJoinHandle<'a, anyhow::Result<Option<crate::opencl::OpenClEngine>>>;

fn join(device: DeviceStart<'_>) -> anyhow::Result<Option<crate::opencl::OpenClEngine>> {
    device
        .join()
        .map_err(|_| anyhow::anyhow!("the device start-up thread failed"))?
}

/// The search without a head start (a plan the CPU count does not cover).
fn plain(
    cfg: &Config,
    plan: &Plan,
    engine: Option<crate::opencl::OpenClEngine>,
) -> anyhow::Result<bool> {
    match engine {
        Some(engine) => {
            let matched = crate::offload::search(cfg, plan, &engine, None)?;
            std::mem::forget(engine);
            Ok(matched)
        }
        None => crate::run::search_cpu(cfg, plan),
    }
}

fn write_out(out: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(out).and_then(|()| o.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
