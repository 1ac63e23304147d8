//! `auto` on one big file: the CPU starts at once, the device joins when
//! it is ready, and both take chunks from one queue.
//!
//! Starting OpenCL costs about a third of a second on an H100, as long as
//! ripgrep needs for 1.5 GB. So the device is started on a background
//! thread while every core already searches chunks of the file (through a
//! memory map, with the exact matcher). When the device is up, its feeder
//! takes chunks from the same counter and reads them into pinned staging
//! buffers; whoever is faster simply takes more chunks. If the device never
//! comes up, the CPU finishes alone. With several devices (`auto`: every
//! GPU of the host) each has its own feeder on the same counter. The answers are merged per chunk and
//! printed by ripgrep's searcher (or `output::plain` for numbered lines and
//! counts, once every chunk is answered), which visits only the candidate
//! lines. The forms only ripgrep's printer writes (lines without `-n`,
//! `-o`, context, `--json`...) stream: the chunks' lines are handed to it in
//! file order as they are answered ([`streamed::print_fed`]), so the first lines
//! leave after the first chunk and a closed pipe stops the claims.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use termcolor::WriteColor;

use crate::cli::config::Config;
use crate::engine::dfa_table::DfaSpec;
use crate::engine::{EngineError, LiteralSet, MatchSet};
use crate::matcher::fed::Piece;
use crate::matcher::offsets::OffsetMatcher;
use crate::matcher::plan::Plan;
use crate::matcher::searcher::{binary_detection, searcher};
use crate::opencl::{BatchSource, DeviceInfo, DeviceSelector, DiscoveryError, OpenClEngine};
use crate::output::printer::{Input, Printer, SearchResult};
use crate::output::stats::keeps_stats;
use crate::output::writer::FlushOnWait;
use crate::pipeline::readahead::ReadAhead;
use crate::search::chunks::{Layout, chunk, chunk_lines, first_chunk};
use crate::search::streamed::{ChunkLines, NumberedStream};
use crate::search::{chunks, cost, streamed};
use crate::sys::guard::GuardedMap;

/// Whether this search suits the hybrid path: a small literal set, or
/// regexes (a rule set included) the DFA kernel can run.
pub fn suits(cfg: &Config, literals: Option<&LiteralSet>, size: u64) -> bool {
    let work = match literals {
        // A big literal set is the device's work: its CPU chunks are slow
        // and come back as every occurrence, while the device engine alone
        // returns distinct numbered lines (H100, 8 GB: 100,000 words 6.4 s
        // here vs 3.0 s on the device engine; 1,000 words 1.02 vs 0.96 s).
        Some(s) => s.patterns.len() < crate::engine::hashed::HASHED_MIN_PATTERNS,
        None => crate::search::choose::dfa_possible(cfg),
    };
    work && cfg.paths.len() == 1
        && !cfg.needs_cpu_searcher()
        && !cfg.quiet
        // `--verify` checks the device's answers file by file (`search::device`).
        && !cfg.verify
        && cfg.max_count.is_none()
        && !cfg.lists_files()
        && cfg.use_mmap
        && size >= crate::search::choose::hybrid_min_bytes(cfg, literals)
        && crate::search::choose::auto_may_look_for_device(cfg)
}

/// State the CPU threads and the device thread share. The device thread
/// is not scoped: when the CPU has taken every chunk before the device is
/// up, the search ends without waiting for OpenCL to finish starting (see
/// [`device_detached`]).
struct Shared {
    /// Bytes a second all CPU workers search, as [`cost::cpu_pace`] measured
    /// (`f64` bits; 0 until measured: a regex's device starts beside the
    /// measurement).
    cpu_rate: AtomicU64,
    /// The CPU engine searches alone after all (the device started beside
    /// the measurement does not pay): the device thread stops.
    cancelled: AtomicBool,
    /// The next chunk to claim.
    next: AtomicUsize,
    /// Where each chunk lies.
    layout: Layout,
    /// Per chunk: its answer, once it has one.
    slots: Vec<OnceLock<Answer>>,
    /// Chunks answered (by either side).
    done: AtomicUsize,
    /// Told each time a chunk is answered, and when none will be.
    answered: (Mutex<bool>, std::sync::Condvar),
    /// See [`Shared::stop_claims`].
    stopped: AtomicBool,
    /// Set when a device is ready or the output stopped: the eager thread
    /// then leaves the chunk it is searching (see [`eager_chunks`]).
    eager_stop: AtomicBool,
    /// Chunks the eager thread left unsearched when a device came up; the
    /// devices' feeders take them first.
    given_back: Mutex<Vec<usize>>,
    cpu_chunks: AtomicUsize,
    device_chunks: AtomicUsize,
    /// Bytes of the chunks the device answered (the first chunks are
    /// smaller: its pace is taken in bytes).
    device_bytes: AtomicU64,
    /// Whether the device thread found a device to open (set once it has
    /// listed them).
    found: OnceLock<bool>,
    /// When the device started taking chunks.
    device_ready: OnceLock<Instant>,
    device_note: Mutex<Vec<String>>,
    /// On a file not in the page cache: the kernel reads ahead of the
    /// chunks claimed, whoever claims them (`pipeline::readahead`).
    ahead: Option<ReadAhead<'static>>,
}

/// One chunk's answer.
struct Answer {
    /// Sorted offsets of its matching lines, each inside the chunk's own
    /// bytes (see [`cpu_chunk`](super::chunks::cpu_chunk) and the device sink); taken by whoever
    /// prints them ([`Answer::take`]), so no chunk's are held twice.
    offsets: Mutex<Vec<u64>>,
    /// Its bytes hold a NUL.
    nul: bool,
}

impl Answer {
    /// The chunk's offsets, left empty behind.
    fn take(&self) -> Vec<u64> {
        std::mem::take(&mut *self.offsets.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Shared {
    /// Nothing claimed yet, for a file of `size` bytes.
    fn new(size: usize, ahead: Option<ReadAhead<'static>>) -> Shared {
        let layout = Layout::new(size);
        Shared {
            cpu_rate: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            slots: (0..layout.len()).map(|_| OnceLock::new()).collect(),
            layout,
            done: AtomicUsize::new(0),
            answered: (Mutex::new(false), std::sync::Condvar::new()),
            stopped: AtomicBool::new(false),
            eager_stop: AtomicBool::new(false),
            given_back: Mutex::new(Vec::new()),
            cpu_chunks: AtomicUsize::new(0),
            device_chunks: AtomicUsize::new(0),
            device_bytes: AtomicU64::new(0),
            found: OnceLock::new(),
            device_ready: OnceLock::new(),
            device_note: Mutex::new(Vec::new()),
            ahead,
        }
    }

    fn cpu_rate(&self) -> f64 {
        f64::from_bits(self.cpu_rate.load(Ordering::Acquire))
    }

    fn set_cpu_rate(&self, rate: f64) {
        self.cpu_rate.store(rate.to_bits(), Ordering::Release);
    }

    /// Every chunk's offsets, in order, taken from the chunks. Chunk i's
    /// offsets lie in its own bytes and are sorted, so the result is sorted
    /// (several offsets may share a line).
    fn take_offsets(&self) -> Vec<u64> {
        let mut offsets = Vec::new();
        for a in self.slots.iter().filter_map(OnceLock::get) {
            offsets.append(&mut a.take());
        }
        offsets
    }

    /// The `--stats` lines: who searched how many chunks, and the device's
    /// notes.
    fn report(&self, plan: &Plan, threads: usize) -> Vec<String> {
        let mut report = vec![
            "engine: auto (CPU and device sharing one chunk queue)".to_string(),
            format!(
                "chunks: {} on the CPU ({}), {} on the device",
                self.cpu_chunks.load(Ordering::Relaxed),
                crate::sys::count_of(threads, "thread"),
                self.device_chunks.load(Ordering::Relaxed)
            ),
            format!("patterns: {}", plan.describe()),
        ];
        if self.ahead.is_some() {
            report.push(format!(
                "read-ahead: the file was not in the page cache; {} MiB ahead of the chunks",
                crate::pipeline::readahead::window() >> 20
            ));
        }
        report.extend(self.notes());
        report
    }

    /// Claims the next chunk (`None` when none is left), with the kernel
    /// reading ahead of it on a cold file.
    fn claim(&self) -> Option<usize> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i >= self.slots.len() {
            return None;
        }
        if let Some(a) = &self.ahead {
            a.reached(self.layout.bytes(i).0);
        }
        Some(i)
    }

    /// Leaves chunk `i`, claimed and not answered, to the devices.
    fn give_back(&self, i: usize) {
        if let Ok(mut back) = self.given_back.lock() {
            back.push(i);
        }
        let (a, b) = self.layout.bytes(i);
        self.note(format!(
            "cpu: the chunk it was searching when the device came up ({:.1} MiB) left to the device",
            (b - a) as f64 / f64::from(1 << 20)
        ));
    }

    /// A device's next chunk: one the eager thread gave back, else the next
    /// one ([`Shared::claim`]).
    fn claim_for_device(&self) -> Option<usize> {
        let back = self.given_back.lock().map(|mut v| v.pop());
        match back {
            Ok(Some(i)) if !self.stopped.load(Ordering::Acquire) => Some(i),
            _ => self.claim(),
        }
    }

    /// Records chunk `i`'s answer; false when it already had one.
    fn answer(&self, i: usize, offsets: Vec<u64>, nul: bool, device: bool) -> bool {
        let offsets = Mutex::new(offsets);
        let first = self.slots[i].set(Answer { offsets, nul }).is_ok();
        if first {
            let _held = self.answered.0.lock().unwrap_or_else(|e| e.into_inner());
            self.answered.1.notify_all();
            self.done.fetch_add(1, Ordering::AcqRel);
            let tally = if device {
                let (a, b) = self.layout.bytes(i);
                self.device_bytes
                    .fetch_add((b - a) as u64, Ordering::Relaxed);
                &self.device_chunks
            } else {
                &self.cpu_chunks
            };
            tally.fetch_add(1, Ordering::Relaxed);
        }
        first
    }

    /// Whether any chunk answered holds a NUL.
    fn nul(&self) -> bool {
        self.slots.iter().any(|s| s.get().is_some_and(|a| a.nul))
    }

    /// Chunk `i`'s answer, once it has one; `None` if it never will
    /// ([`Shared::close`]).
    fn wait_answer(&self, i: usize) -> Option<&Answer> {
        let mut closed = self.answered.0.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(a) = self.slots[i].get() {
                return Some(a);
            }
            if *closed {
                return None;
            }
            closed = self
                .answered
                .1
                .wait(closed)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// No chunk will be answered any more.
    fn close(&self) {
        *self.answered.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.answered.1.notify_all();
    }

    /// No chunk is claimed any more, nor answered by the CPU after the
    /// search: the output has stopped, or needs no more answers.
    fn stop_claims(&self) {
        self.stopped.store(true, Ordering::Release);
        self.eager_stop.store(true, Ordering::Release);
        self.next.fetch_max(self.slots.len(), Ordering::Relaxed);
    }

    /// Whether the device, at the rate it has shown so far, will finish
    /// the chunks left sooner than a CPU thread would finish one more chunk
    /// (taking `cpu_chunk` per chunk): then the CPU thread stops claiming,
    /// so that a slow CPU matcher (thousands of patterns) neither delays the
    /// end nor takes cores from the threads that feed the device.
    fn device_outpaces(&self, cpu_chunk: std::time::Duration) -> bool {
        let Some(per_byte) = self.device_pace() else {
            return false;
        };
        let left = self.layout.bytes_from(self.next.load(Ordering::Relaxed));
        left as f64 * per_byte < cpu_chunk.as_secs_f64()
    }

    /// The device's seconds a byte so far, once it has answered two chunks.
    fn device_pace(&self) -> Option<f64> {
        let t0 = self.device_ready.get()?;
        if self.device_chunks.load(Ordering::Relaxed) < 2 {
            return None;
        }
        let bytes = self.device_bytes.load(Ordering::Relaxed).max(1);
        Some(t0.elapsed().as_secs_f64() / bytes as f64)
    }

    /// Whether the device alone searches more than 1.5 times as fast as
    /// all `threads` CPU workers, each taking `cpu_chunk` per chunk: then
    /// the CPU's share is small and its claims on the cores and the memory
    /// bandwidth cost the device's feeders and finisher more (H100, 8.68
    /// GB, 15 rules: device 10 GB/s, CPU 3 GB/s; auto 1.23-1.28 s with
    /// every worker searching, the device alone 0.94 s; H200, 1,000 rules
    /// in near groups: device 4.7 GB/s, CPU 2.3 GB/s, auto 2.05-2.10 s
    /// with a chunk on each of 16 workers, the device alone 1.85-1.88 s).
    fn device_outruns_cpu(&self, cpu_chunk: std::time::Duration, threads: usize) -> bool {
        self.device_worth_cores(cpu_chunk, 3 * threads / 2)
    }

    /// Whether the device, at the pace it has shown so far, searches more
    /// chunks a second than the `yielders` CPU workers that would make room
    /// for its feeder's copies, each taking `cpu_chunk` per chunk. A slow
    /// device (a rule set of a thousand regexes: 0.45 GB/s on an H100
    /// against 1.3 GB/s on its 16 cores) then keeps every core searching.
    fn device_worth_cores(&self, cpu_chunk: std::time::Duration, yielders: usize) -> bool {
        let Some(per_byte) = self.device_pace() else {
            return false;
        };
        cpu_chunk.as_secs_f64() > yielders as f64 * chunk() as f64 * per_byte
    }

    /// The device's notes so far.
    fn notes(&self) -> Vec<String> {
        self.device_note
            .lock()
            .map(|n| n.clone())
            .unwrap_or_default()
    }

    fn note(&self, line: String) {
        if let Ok(mut n) = self.device_note.lock() {
            n.push(line);
        }
    }
}

/// Set when a search returned while its device thread was still starting
/// OpenCL, or still running batches after the output stopped: the process
/// should then end with [`std::process::exit`]'s low-level cousin
/// (`_exit`) once its output is flushed, rather than wait for the driver
/// or run its teardown under a thread still inside it.
static DETACHED: AtomicBool = AtomicBool::new(false);

/// Whether a device thread was left running (see [`DETACHED`]).
pub fn device_detached() -> bool {
    DETACHED.load(Ordering::Acquire)
}

/// The devices' listing, started before the plan is compiled (see
/// [`list_ahead`]).
pub struct Listing(Option<std::thread::JoinHandle<Result<Vec<DeviceInfo>, DiscoveryError>>>);

/// Starts listing the devices while the plan compiles, where the search
/// will start them beside its probe anyway (a regex on a file of a GiB or
/// more, see [`start_device`]; `literals` and `size` as for [`suits`]):
/// the driver's listing (0.14-0.17 s with NVIDIA's) then overlaps the
/// compile of the rules (13-19 ms for 200 rules) and the file's map.
pub fn list_ahead(cfg: &Config, literals: Option<&LiteralSet>, size: u64) -> Listing {
    // (A search without literals is a regex's: see `DeviceWork::of`.)
    if !starts_beside_probe(cfg, literals.is_none(), size) {
        return Listing(None);
    }
    let sels = selectors(cfg);
    // (A bad pattern may end the process before the thread lists them.)
    crate::opencl::driver_loading();
    let listing = std::thread::Builder::new()
        .name("gsearch-listing".into())
        .spawn(move || crate::opencl::select_all(&sels));
    Listing(listing.ok())
}

/// Whether the device starts beside the CPU's measurement rather than
/// after it: for a regex, or a rule set of [`BESIDE_MIN_RULES`] rules or
/// more, on a file of a GiB or more (its start-up is the longer; a rule
/// set's first MiB compiles the rules whose factors occur there). On a
/// smaller file, or with fewer rules, the measurement often says no, and
/// a driver left starting takes a core from the CPU's search and holds up
/// the process's end.
fn starts_beside_probe(cfg: &Config, regex: bool, size: u64) -> bool {
    let rules = cfg.patterns.len();
    let weighed = (crate::matcher::plan::RULES_MIN_PATTERNS..BESIDE_MIN_RULES).contains(&rules);
    regex && !weighed && size >= crate::search::choose::auto_min_bytes()
}

/// The fewest rules for which the device starts beside the CPU's
/// measurement. H200 machine, 16 cores, 1.26 GB of C: started beside it,
/// 4 rules took `auto` 120 ms against the CPU's 69 ms, 15 rules 653 ms
/// against 446 ms, while 200 rules took 576 ms against 821 ms.
const BESIDE_MIN_RULES: usize = 100;

/// Searches the single file of `cfg` with the CPU and, once ready, the
/// device (`listing`: the devices listed already, or being listed).
/// Returns whether anything matched.
pub fn search(
    cfg: &Config,
    plan: &Plan,
    path: &std::path::Path,
    listing: Listing,
) -> anyhow::Result<bool> {
    let started = Instant::now();
    let file = Arc::new(File::open(path)?);
    let map = match crate::sys::guard::GuardedMap::map(&file) {
        Ok(Some(m)) => m,
        _ => return crate::search::cpu::search_cpu(cfg, plan),
    };
    let threads = crate::sys::cores();
    let ahead = ReadAhead::cold_file(&file, map.len());
    let shared = Arc::new(Shared::new(map.len(), ahead));
    let Started {
        device,
        waits,
        pace,
    } = match start_device((cfg, plan), (&file, &map), &shared, listing) {
        Ok(s) => s,
        Err(notes) => {
            // The CPU engine alone, as `--engine cpu` runs it.
            drop(map);
            return crate::search::cpu::search_cpu_noted(cfg, plan, &notes);
        }
    };
    let run = || {
        let search = || {
            // Regexes: the file's first chunks (small ones) are searched
            // here while the device starts, so the first lines need not
            // wait for it; the workers then decide at once whether to
            // search, from the device's first chunks and the CPU's pace.
            if waits {
                eager_chunks(&shared, (&file, &map), plan, device.as_ref());
                crate::sys::trace::mark("hybrid: eager chunks done");
            }
            let first = waits && wait_for_device(&shared, device.as_ref());
            let first = first.then(|| std::time::Duration::from_secs_f64(pace * chunk() as f64));
            cpu_workers(&shared, (&file, &map), plan, (threads, first));
            settle_device(device, &shared);
        };
        if waits {
            // The device's candidates are confirmed after the search, or
            // chunk by chunk where the output streams.
            plan.warming_once(&|| shared.device_ready.get().is_some(), search);
        } else {
            search();
        }
        crate::sys::trace::mark("hybrid: CPU workers and device settled");
        answer_unanswered(&shared, &map, plan);
        shared.close();
    };
    let mut printer = Printer::new(cfg, FlushOnWait::stdout(cfg));
    let numbered = streamed::streams_numbered(cfg, plan);
    let stream = numbered
        .then(|| NumberedStream::of_map((cfg, plan), path.to_path_buf(), &map))
        .flatten();
    let result = if let Some(stream) = stream {
        print_numbered(stream, &shared, run)
    } else if numbered || streamed::streams(cfg, plan) {
        // (Numbered lines that `NumberedStream` does not write go to
        // ripgrep's printer.)
        print_streaming(cfg, plan, path, (&map, &shared), run, &mut printer)
    } else {
        run();
        print_collected(cfg, plan, path, (&map, &shared), waits, &mut printer)
    };
    let printed = (result, printer, started);
    finish(cfg, plan, path, (&map, &shared), printed)
}

/// The end of a search: a file that shrank reported, the `--stats` lines
/// (or the trace's), whether anything matched (a closed pipe ends it
/// quietly, as nothing matched).
fn finish<W: WriteColor>(
    cfg: &Config,
    plan: &Plan,
    path: &std::path::Path,
    (map, shared): (&GuardedMap, &Shared),
    (result, mut printer, started): (io::Result<SearchResult>, Printer<W>, Instant),
) -> anyhow::Result<bool> {
    let threads = crate::sys::cores();
    if map.faulted() {
        crate::err_message!("{}: {}", path.display(), crate::sys::guard::shrank_error());
    }
    if !cfg.stats && crate::sys::trace::enabled() {
        crate::sys::trace::lines(&shared.report(plan, threads));
    }
    let result = match result {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(false),
        Err(e) => {
            crate::err_message!("{}: {}", path.display(), e);
            SearchResult::default()
        }
    };
    if keeps_stats(cfg) {
        let stats = result.stats.clone().unwrap_or_default();
        let report = shared.report(plan, threads);
        crate::output::stats::finish(cfg, true, Some(&stats), started, printer.get_mut(), &report)?;
    }
    Ok(result.has_match)
}

/// What [`start_device`] started.
struct Started {
    /// The device thread, if one was started.
    device: Option<std::thread::JoinHandle<()>>,
    /// The CPU workers wait for the device's start-up (regexes).
    waits: bool,
    /// The CPU's pace (seconds a byte on one thread, [`cost::cpu_pace`]).
    pace: f64,
}

/// Measures the CPU's pace and starts the device thread when the cost
/// model says the device pays; `Err` with the `--stats` notes when the
/// CPU engine is to search alone (the device does not pay, or, for
/// regexes, none was found).
fn start_device(
    (cfg, plan): (&Config, &Plan),
    (file, map): (&Arc<File>, &GuardedMap),
    shared: &Arc<Shared>,
    listing: Listing,
) -> Result<Started, Vec<String>> {
    let threads = crate::sys::cores();
    let mut work = DeviceWork::of(cfg, plan);
    let waits = work.as_ref().is_some_and(DeviceWork::holds_cpu_back);
    let mut device = None;
    if starts_beside_probe(cfg, waits, map.len() as u64) {
        device = work
            .take()
            .and_then(|w| spawn_device(cfg, w, (file, shared), listing));
    }
    // (The workers share chunks by the pace as measured. Whether a device
    // not started beside the measurement is started at all is weighed by
    // the pace less the rules' compiles: fewer rules compile in the first
    // MiB what the search needs; with a device beside it, by the pace as
    // measured, which paid off there: 200 rules over 1.26 GB on 16 cores
    // took 0.41-0.48 s so, 0.89 s when the pace less the compiles left
    // them to the CPU.)
    let (pace, steady) = match waits {
        true => probe_chunks(shared, (file, map), plan),
        false => {
            let pace = cost::cpu_pace(map, plan);
            (pace, pace)
        }
    };
    crate::sys::trace::mark("hybrid: the CPU's pace measured");
    shared.set_cpu_rate(threads as f64 / pace.max(1e-12));
    let weighed = if device.is_some() { pace } else { steady };
    if let Err(why) = cost::device_pays(map.len(), weighed, threads) {
        if device.is_some() {
            shared.cancelled.store(true, Ordering::Release);
            DETACHED.store(true, Ordering::Release);
        }
        return Err(vec![format!("device: not started ({why})")]);
    }
    if device.is_none() {
        device = work.and_then(|w| spawn_device(cfg, w, (file, shared), Listing(None)));
    }
    // Regexes, and no device found (a machine without a GPU, listed
    // while the CPU's pace was measured): the CPU engine searches as it
    // does alone, its big-file path streaming small segments, rather than
    // in the queue's chunks. While the thread still lists the devices, the
    // queue starts: one CPU thread searches its first chunks beside the
    // listing, and if no device comes, every core searches the rest.
    if waits && !device_may_come(shared, &mut device) {
        return Err(shared.notes());
    }
    Ok(Started {
        device,
        waits,
        pace,
    })
}

/// A regex's CPU pace (seconds a byte on one thread), as measured and
/// less the time the rules' units took to compile on first use, measured on the
/// file's first chunks, a MiB or more, which this thread claims and
/// answers: the first lines are ready when the output starts, and those
/// bytes are not searched twice (timed with `cost::cpu_pace`, the first
/// MiB was searched again by the eager thread: 35 ms for 200 rules on the
/// 2-core machine). Their pages are read in before the clock
/// starts, so that a file not yet in the page cache times the matcher,
/// not the disk. At most an eighth of the file: the rest of a small one
/// (the tests') is left to the queue, devices included.
fn probe_chunks(shared: &Shared, (file, map): (&File, &GuardedMap), plan: &Plan) -> (f64, f64) {
    let data: &[u8] = map;
    let bytes = cost::PROBE_BYTES.min(data.len() / 8).max(1);
    let mut end = 0;
    for i in shared.next.load(Ordering::Relaxed)..shared.slots.len() {
        end = shared.layout.bytes(i).1;
        if end >= bytes {
            break;
        }
    }
    cost::read_in(&data[..end]);
    // A rule set's units compile where their factors first occur: the
    // search pays that once, not per byte (15 rules over 1.26 GB, 16
    // cores: a pace with it projected 1.9 s where the CPU took 0.4 s, and
    // the device was started).
    let compiling = || {
        plan.rules
            .as_ref()
            .map_or(Duration::ZERO, |r| r.compile_time())
    };
    let (t, before, mut searched) = (Instant::now(), compiling(), 0);
    while searched < bytes {
        let Some(len) = search_claimed(shared, (file, map), plan) else {
            break;
        };
        searched += len;
    }
    let (spent, bytes) = (t.elapsed(), searched.max(1) as f64);
    let steady = spent.saturating_sub(compiling().saturating_sub(before));
    (spent.as_secs_f64() / bytes, steady.as_secs_f64() / bytes)
}

/// What the devices search for: the plan's literal set (occurrences), or
/// the DFA tables of its regexes (candidate lines; every answer is then
/// confirmed by the exact matcher, as `Plan::exact_lines` is false for
/// regexes).
enum DeviceWork {
    Literals(LiteralSet),
    Dfa(DfaSpec),
}

impl DeviceWork {
    fn of(cfg: &Config, plan: &Plan) -> Option<DeviceWork> {
        match &plan.literals {
            Some(set) => Some(DeviceWork::Literals(set.clone())),
            None => crate::search::choose::dfa_spec(cfg).map(DeviceWork::Dfa),
        }
    }

    /// Whether the CPU workers wait for the device's start-up (regexes:
    /// see [`wait_for_device`]).
    fn holds_cpu_back(&self) -> bool {
        matches!(self, DeviceWork::Dfa(_))
    }

    /// One engine per device, with batches that hold a chunk and its
    /// overlap (a DFA batch needs none: the kernel always reports the line
    /// a batch ends inside).
    fn open(&self, infos: Vec<DeviceInfo>) -> Result<Vec<OpenClEngine>, EngineError> {
        match self {
            DeviceWork::Literals(set) => {
                let longest = set.patterns.iter().map(Vec::len).max().unwrap_or(0);
                OpenClEngine::open_selected(infos, set, chunk() + longest)
            }
            DeviceWork::Dfa(spec) => OpenClEngine::open_selected_dfa(infos, spec, chunk()),
        }
    }
}

/// Starts the device thread (not scoped; see [`Shared`]).
fn spawn_device(
    cfg: &Config,
    work: DeviceWork,
    (file, shared): (&Arc<File>, &Arc<Shared>),
    listing: Listing,
) -> Option<std::thread::JoinHandle<()>> {
    let (shared, file, sels) = (Arc::clone(shared), Arc::clone(file), selectors(cfg));
    std::thread::Builder::new()
        .name("gsearch-device".into())
        .spawn(move || device_thread((&sels, listing), &work, &file, &shared))
        .ok()
}

/// Whether the device thread may still bring a device: it found one, or
/// it is still listing them (the first chunks are then searched beside
/// the listing, which takes 0.15-0.25 s with NVIDIA's driver: H200
/// machine, 200 rules over 1.26 GB, `| head -1`'s first line after 121 ms
/// instead of 232 ms once listed). Where it found none, its thread is
/// joined (its notes are complete).
fn device_may_come(shared: &Shared, device: &mut Option<std::thread::JoinHandle<()>>) -> bool {
    let Some(handle) = device else {
        return false;
    };
    let listing = shared.found.get().is_none() && !handle.is_finished();
    if listing || shared.found.get() == Some(&true) {
        return true;
    }
    if let Some(h) = device.take() {
        let _ = h.join();
    }
    false
}

/// Holds the CPU workers back until the device is ready (or its thread
/// ended, or twice its assumed start-up passed), for regexes: with every
/// core busy on them, the device's start-up took 4.5 times as long (two
/// H100s, 32 cores, 15 rules over 8.68 GB: ready after 1,256 ms, against
/// 279 ms for the device alone), and the CPU finished first at a third of
/// the device's speed. `--stats` tells the wait.
/// It then waits for the device's first two chunks (its pace), and says
/// whether the device is running.
fn wait_for_device(shared: &Shared, device: Option<&std::thread::JoinHandle<()>>) -> bool {
    let Some(handle) = device else {
        return false;
    };
    let t0 = Instant::now();
    let limit = 2 * cost::device_startup();
    let paced =
        || shared.device_ready.get().is_some() && shared.device_chunks.load(Ordering::Relaxed) >= 2;
    let stopped = || shared.stopped.load(Ordering::Acquire);
    while !paced() && !handle.is_finished() && !stopped() && t0.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    shared.note(format!(
        "cpu: waited {:.1} ms for the device's start-up and first chunks before searching",
        t0.elapsed().as_secs_f64() * 1e3
    ));
    paced() && !handle.is_finished()
}

/// Every core takes chunks until none are left, or until the device is up
/// and this worker's core is worth more to the feeder's copies, or until
/// the device would finish the rest sooner.
/// `first`: a worker's time for one chunk, estimated from the CPU's pace,
/// when the workers are to decide before their first chunk.
fn cpu_workers(
    shared: &Shared,
    (file, map): (&File, &GuardedMap),
    plan: &Plan,
    (threads, first): (usize, Option<std::time::Duration>),
) {
    // Once the device runs, its feeder copies chunks into staging
    // buffers with `fill_threads` threads; that many CPU workers step
    // back so the copies are not starved of cores, if the device searches
    // more than they would (`Shared::device_worth_cores`).
    let keep = threads.saturating_sub(crate::sys::fill_threads()).max(1);
    let yielders = threads - keep;
    std::thread::scope(|s| {
        for w in 0..threads {
            let yields = if w >= keep { yielders } else { 0 };
            s.spawn(move || cpu_worker(shared, (file, map), plan, (yields, threads), first));
        }
    });
}

/// One CPU worker's loop (see [`cpu_workers`]); `yields`: how many workers
/// step back with this one when the device is worth their cores (0: only
/// when the device outruns the whole CPU), and of how many.
fn cpu_worker(
    shared: &Shared,
    (file, map): (&File, &GuardedMap),
    plan: &Plan,
    (yields, threads): (usize, usize),
    first: Option<std::time::Duration>,
) {
    let mut took = first;
    loop {
        let step_back = |t| {
            (yields > 0 && shared.device_worth_cores(t, yields))
                || shared.device_outruns_cpu(t, threads)
                || shared.device_outpaces(t)
        };
        if took.is_some_and(step_back) {
            break;
        }
        let t = Instant::now();
        let Some(len) = search_claimed(shared, (file, map), plan) else {
            break;
        };
        // (As for a whole chunk: the first chunks are smaller.)
        took = Some(t.elapsed().mul_f64(chunk() as f64 / len.max(1) as f64));
    }
}

/// Searches the next chunk on this thread, if one is left (`None` if
/// not), and records its answer; its size.
fn search_claimed(
    shared: &Shared,
    (file, map): (&File, &GuardedMap),
    plan: &Plan,
) -> Option<usize> {
    search_claimed_until(shared, (file, map), plan, &shared.stopped)
}

/// [`search_claimed`], leaving the chunk when `stop` is set: given back
/// unanswered for a device to take, unless the output stopped.
fn search_claimed_until(
    shared: &Shared,
    (file, map): (&File, &GuardedMap),
    plan: &Plan,
    stop: &AtomicBool,
) -> Option<usize> {
    let i = shared.claim()?;
    let (data, own): (&[u8], _) = (map, shared.layout.bytes(i));
    let answer = if chunks::read_mode_pread() {
        chunks::cpu_chunk_pread((file, data), own, &plan.line_matcher(), stop)
    } else {
        let r = chunks::cpu_chunk(data, own, &plan.line_matcher(), stop);
        // Searched: its pages leave the RSS (the device reads with
        // pread, so only these were mapped in).
        let (a, b) = chunk_lines(data, own);
        map.release(a..b);
        r
    };
    match answer {
        Some((lines, has_nul)) => {
            shared.answer(i, lines, has_nul, false);
        }
        // Left for a device (the output stopped: left for no one).
        None if !shared.stopped.load(Ordering::Acquire) => shared.give_back(i),
        None => {}
    }
    Some(own.1 - own.0)
}

/// While a regex's device starts: chunks on this thread, the small first
/// ones of the layout (see `chunks`), until the device is ready or its
/// thread has ended (no device to use after all), so that the first lines
/// of the output need not wait for it (the other workers wait: see
/// [`wait_for_device`]). The chunk in hand when a device comes up is left
/// to it (`Shared::eager_stop`): at a rule set's pace on one core (110 MB/s
/// for 200 rules on the H200 machine) the 8 or 16 MiB chunk this thread
/// may hold then took up to 0.14 s after the device had searched the rest.
fn eager_chunks(
    shared: &Shared,
    (file, map): (&File, &GuardedMap),
    plan: &Plan,
    device: Option<&std::thread::JoinHandle<()>>,
) {
    let Some(handle) = device.filter(|_| first_chunk() < chunk()) else {
        return;
    };
    let starting = || shared.device_ready.get().is_none() && !handle.is_finished();
    while starting() && !shared.stopped.load(Ordering::Acquire) {
        if search_claimed_until(shared, (file, map), plan, &shared.eager_stop).is_none() {
            break;
        }
    }
}

/// The CPU threads are done: every chunk is claimed, or the rest is left
/// to a faster device. Waits for the device only if it holds some.
fn settle_device(device: Option<std::thread::JoinHandle<()>>, shared: &Shared) {
    let Some(handle) = device else {
        return;
    };
    // A device that came up is finishing its last batches: waited for,
    // unless the output stopped (a closed pipe): its batches in flight are
    // then left to the process's end, as is a device still starting (its
    // thread reads the file itself and answers into `shared`).
    let stopped = shared.stopped.load(Ordering::Acquire);
    let ready = shared.device_ready.get().is_some();
    let searching = shared.done.load(Ordering::Acquire) < shared.slots.len();
    if handle.is_finished() || (!stopped && (searching || ready)) {
        if handle.join().is_err() {
            shared.note("device: its thread failed; the CPU searched its chunks".into());
        }
        return;
    }
    DETACHED.store(true, Ordering::Release);
    shared.note(match (stopped, ready) {
        (true, true) => "device: its batches in flight not waited for (the output stopped)".into(),
        (true, false) => "device: still starting when the output stopped (not waited for)".into(),
        _ => "device: still starting when the CPU had searched every chunk (not waited for)".into(),
    });
}

/// The `offsets` whose lines the plan's matcher matches, decided on every
/// core ([`crate::search::early::confirm_in`]): the DFA kernels answer
/// candidate lines, which the printer would otherwise confirm one by one
/// after the search (H200, 1,000 rules over 8.68 GB: 208k candidates, 0.4 s
/// on one thread).
fn confirm_lines(offsets: &[u64], map: &GuardedMap, plan: &Plan, threads: usize) -> Vec<u64> {
    let keep = crate::search::early::confirm_in(map, offsets, plan, threads);
    offsets
        .iter()
        .zip(keep)
        .filter_map(|(&o, k)| k.then_some(o))
        .collect()
}

/// A chunk nobody answered (the device thread died): the CPU does it,
/// unless the output stopped ([`Shared::stop_claims`]).
fn answer_unanswered(shared: &Shared, data: &[u8], plan: &Plan) {
    for i in 0..shared.slots.len() {
        if shared.stopped.load(Ordering::Acquire) {
            return;
        }
        if shared.slots[i].get().is_some() {
            continue;
        }
        let own = shared.layout.bytes(i);
        if let Some((lines, has_nul)) =
            chunks::cpu_chunk(data, own, &plan.line_matcher(), &shared.stopped)
        {
            shared.answer(i, lines, has_nul, false);
        }
    }
}

/// Prints every chunk's answer once all are in: the DFA's candidates
/// (`waits`) confirmed on every core first.
fn print_collected<W: WriteColor>(
    cfg: &Config,
    plan: &Plan,
    path: &std::path::Path,
    (map, shared): (&GuardedMap, &Shared),
    waits: bool,
    printer: &mut Printer<W>,
) -> io::Result<SearchResult> {
    let mut offsets = shared.take_offsets();
    let nul = shared.nul();
    // (A file with a NUL is searched whole by the printer.)
    if waits && !nul {
        offsets = confirm_lines(&offsets, map, plan, crate::sys::cores());
        crate::sys::trace::mark("hybrid: candidates confirmed");
    }
    print_lines(cfg, plan, path, map, &offsets, nul, printer)
}

/// Prints the matching lines of the whole file, given the sorted offsets
/// of its candidate lines: ripgrep's own handling of binary data, else the
/// parallel plain writer where it applies, else ripgrep's searcher visiting
/// only the candidate lines.
fn print_lines<W: WriteColor>(
    cfg: &Config,
    plan: &Plan,
    path: &std::path::Path,
    map: &GuardedMap,
    offsets: &[u64],
    nul: bool,
    printer: &mut Printer<W>,
) -> io::Result<SearchResult> {
    let data: &[u8] = map;
    let mut srch = searcher(cfg);
    srch.set_binary_detection(binary_detection(cfg, true));
    if nul {
        return printer.search(&mut srch, plan.line_matcher(), path, Input::Slice(data));
    }
    let text = crate::output::plain::Text::of_plan(plan, data, Some(map));
    if let Some(r) = crate::output::plain::try_print(cfg, path, text, offsets, printer.get_mut()) {
        return r;
    }
    let m = OffsetMatcher::for_plan(plan, data, offsets);
    printer.search(&mut srch, m, path, Input::Slice(data))
}

/// Prints while `run` searches the chunks: each chunk's matching lines
/// (candidates confirmed first; with the chunks after it answered already,
/// [`answered_from`]) go to ripgrep's searcher in file order as soon as
/// the chunk and all before it are answered
/// ([`streamed::print_fed`]); from a chunk holding a NUL on, the searcher
/// decides the lines itself, as the whole-file search of [`print_lines`]
/// would. When the printer stops early (a closed pipe), no chunk is
/// claimed any more.
fn print_streaming(
    cfg: &Config,
    plan: &Plan,
    path: &std::path::Path,
    (map, shared): (&GuardedMap, &Shared),
    run: impl FnOnce() + Send,
    printer: &mut Printer<FlushOnWait>,
) -> io::Result<SearchResult> {
    let data: &[u8] = map;
    std::thread::scope(|s| {
        s.spawn(run);
        let (tx, rx) = streamed::channel();
        s.spawn(move || {
            for chunk in answered_in_order(shared, GROUP_BYTES) {
                // The output has ended: no chunk is confirmed for it.
                if shared.stopped.load(Ordering::Acquire) {
                    break;
                }
                let offsets = chunk.offsets;
                let nul = chunk.nul || (chunk.start == 0 && streamed::binary_head(data));
                let piece = match nul {
                    true => streamed::undecided_from(data, chunk.start as usize),
                    false if plan.exact_lines => Piece::Starts(offsets),
                    false => Piece::Starts(confirm_lines(&offsets, map, plan, crate::sys::cores())),
                };
                if tx.send(piece).is_err() || nul {
                    break;
                }
            }
            shared.stop_claims();
        });
        // The DFA's candidates left after confirmation (a line too long to
        // confirm is kept) are decided again where they are printed.
        let candidates = !plan.exact_lines;
        let printed = streamed::print_fed((cfg, plan), path, map, (rx, candidates), printer);
        crate::sys::trace::mark("hybrid: printer done");
        // Printed, or the pipe closed: the chunks being searched are left
        // (H200, 2 cores, `| head -1`: the next chunk's confirmation took
        // 130 ms more before the closed pipe was seen).
        shared.stop_claims();
        printed
    })
}

/// Writes plain numbered lines while `run` searches the chunks: each
/// chunk's, numbered by counting the lines from the chunk before's, as soon
/// as it and all before it are answered ([`NumberedStream`], which confirms
/// a DFA's candidates). When the output stops (a closed pipe, or a NUL that
/// hands the rest of the file to ripgrep's searcher) no chunk is claimed
/// any more.
fn print_numbered(
    mut stream: NumberedStream<'_>,
    shared: &Shared,
    run: impl FnOnce() + Send,
) -> io::Result<SearchResult> {
    std::thread::scope(|s| {
        s.spawn(run);
        for chunk in answered_in_order(shared, usize::MAX) {
            if !stream.send(chunk) {
                break;
            }
        }
        shared.stop_claims();
        stream.finish()
    })
}

/// Every chunk's lines in file order, as [`answered_from`] takes them
/// (`most` bytes together at most), until one will never be answered.
fn answered_in_order(shared: &Shared, most: usize) -> impl Iterator<Item = ChunkLines> + '_ {
    let mut next = 0;
    std::iter::from_fn(move || answered_from(shared, &mut next, most))
}

/// The bytes whose chunks [`print_streaming`] confirms together at most:
/// the pages each thread reads to confirm its part stay mapped until that
/// part is done (H200 machine, 16 cores, 200 rules over 4.34 GB: without a
/// bound, lines took a peak RSS of 951 MiB against 409 MiB one chunk at a
/// time, and 516-535 MiB with it). `-n`'s groups are not bounded: its
/// count releases the pages as it goes, and with this bound it took 1.10x
/// the time of unbounded groups (0.97 against 0.88 s, 561 against 764 MiB).
const GROUP_BYTES: usize = 256 << 20;

/// Chunk `next`'s lines, waited for, with those of the chunks after it
/// answered already (none holding a NUL, `most` bytes in all at most):
/// a printer that fell behind catches up in bigger steps, each spread over
/// more threads. `next` moves past them; `None` past the last chunk, or
/// when chunk `next` will never be answered.
fn answered_from(shared: &Shared, next: &mut usize, most: usize) -> Option<ChunkLines> {
    if *next >= shared.slots.len() {
        return None;
    }
    let answer = shared.wait_answer(*next)?;
    let mut chunk = ChunkLines {
        offsets: answer.take(),
        numbers: Vec::new(),
        numbered: false,
        start: shared.layout.bytes(*next).0 as u64,
        nul: answer.nul,
    };
    *next += 1;
    while let Some(a) = shared.slots.get(*next).and_then(OnceLock::get) {
        let end = shared.layout.bytes(*next).1;
        if chunk.nul || a.nul || end - chunk.start as usize > most {
            break;
        }
        chunk.offsets.extend(a.take());
        *next += 1;
    }
    Some(chunk)
}

/// The devices' side (started when [`cost::device_pays`] says it can pay): start
/// OpenCL on every device `--opencl-device` lists (`auto`: every GPU and
/// accelerator), then each device takes chunks from the shared counter on its own
/// thread until none are left.
fn device_thread(
    (sels, listing): (&[DeviceSelector], Listing),
    work: &DeviceWork,
    file: &File,
    shared: &Shared,
) {
    let t = Instant::now();
    let found = match listing.0.and_then(|h| h.join().ok()) {
        Some(listed) => listed,
        None => crate::opencl::select_all(sels),
    };
    let _ = shared.found.set(found.is_ok());
    let opened = found
        .map_err(|e| EngineError::Device(e.to_string()))
        .and_then(|infos| work.open(infos));
    let engines = match opened {
        Ok(e) => e,
        Err(e) => {
            let named = |s: &DeviceSelector| !matches!(s, DeviceSelector::Auto);
            if sels.iter().any(named) {
                crate::search::choose::warn_named_device_unused(&e);
            }
            shared.note(format!("device: not used ({e})"));
            return;
        }
    };
    let ready = t.elapsed();
    if shared.cancelled.load(Ordering::Acquire) {
        return;
    }
    if let Some(d) = engines[0].dfa_set() {
        shared.note(format!(
            "dfa: the device decides candidate lines with {}",
            d.describe()
        ));
        if let Err(why) = dfa_worth_it(d.passes(), engines.len(), shared.cpu_rate()) {
            shared.note(format!("device: not used ({why})"));
            // The CPU workers wait for this thread to end: the driver's
            // teardown of the contexts is left to the process's end, as
            // `main` does for the device path.
            std::mem::forget(engines);
            return;
        }
    }
    let _ = shared.device_ready.set(Instant::now());
    shared.eager_stop.store(true, Ordering::Release);
    crate::sys::trace::mark("hybrid: device ready");
    let several = engines.len() > 1;
    std::thread::scope(|s| {
        for (no, engine) in engines.iter().enumerate() {
            let label = if several {
                format!("device {no}")
            } else {
                "device".to_string()
            };
            s.spawn(move || feed_device(engine, file, shared, (label, ready)));
        }
    });
    // Their buffers, queues and contexts go with the process, as on the
    // device path (`main`): released here, they held the search's end back
    // by 19-31 ms (H200, 200 rules over 1.26 GB: 192 MiB of pinned slots).
    std::mem::forget(engines);
}

/// Bytes a second one device's DFA kernel scans per pass over the text (a
/// full group, or the factor search of the near groups; H100: 15 rules in
/// 4 full groups, 23.6 GB/s of kernel time over 8.68 GB; 200 rules in 49,
/// 3.5 GB/s).
const DFA_GROUP_RATE: f64 = 94e9;

/// Whether `devices` devices making `passes` passes over the text
/// (`DfaSet::passes`) can take a share worth having: at least a quarter of
/// what the CPU searches (`cpu_rate`, bytes a second). Below that (1,000
/// rules in about 250 full groups) the device's feeders only take memory
/// bandwidth and cores from the CPU workers (two H100s, 32 cores, 8.68 GB:
/// the CPU alone 2.40 s, CPU and devices 3.5 s).
fn dfa_worth_it(passes: usize, devices: usize, cpu_rate: f64) -> Result<(), String> {
    let device_rate = devices as f64 * DFA_GROUP_RATE / passes.max(1) as f64;
    if device_rate >= cpu_rate / 4.0 {
        return Ok(());
    }
    Err(format!(
        "{} of DFA tables over the text scan about {:.1} GB/s, under a quarter of the CPU's {:.1} GB/s",
        crate::sys::count_of(passes, "pass"),
        device_rate / 1e9,
        cpu_rate / 1e9
    ))
}

/// One device's chunks, until none are left; its share and stages go to
/// the `--stats` notes.
fn feed_device(
    engine: &OpenClEngine,
    file: &File,
    shared: &Shared,
    (label, ready): (String, std::time::Duration),
) {
    let overlap = engine.max_pattern_len().saturating_sub(1);
    let mut src = Feeder {
        file,
        shared,
        overlap,
    };
    let mut chunks = 0u64;
    let stats = engine.stream(
        &mut src,
        &mut |(i, owned_end, has_nul), _bytes, set: MatchSet| {
            // The owned occurrences, as they are: sorted, inside the chunk.
            let mut offsets = set.offsets;
            let owned = offsets.partition_point(|&o| (o as usize) < owned_end);
            offsets.truncate(owned);
            let base = shared.layout.bytes(i).0 as u64;
            offsets.iter_mut().for_each(|o| *o += base);
            chunks += u64::from(shared.answer(i, offsets, has_nul, true));
            true
        },
    );
    let mut notes = vec![format!(
        "{label}: {} ({} kernel), ready after {:.1} ms, {chunks} chunks",
        engine.device_name(),
        engine.kernel_name(),
        ready.as_secs_f64() * 1e3
    )];
    notes.extend(stats.summary().lines().map(|l| format!("  {l}")));
    // One device's lines together, whichever device ends first.
    if let Ok(mut n) = shared.device_note.lock() {
        n.extend(notes);
    }
}

fn selectors(cfg: &Config) -> Vec<DeviceSelector> {
    crate::search::choose::selectors(cfg, DeviceSelector::Auto)
}

/// Feeds the device chunks claimed from the shared counter.
struct Feeder<'a> {
    file: &'a File,
    shared: &'a Shared,
    overlap: usize,
}

impl BatchSource for Feeder<'_> {
    /// (chunk index, offsets below this belong to the chunk, a NUL was read)
    type Tag = (usize, usize, bool);

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, (usize, usize, bool))> {
        if buf.len() < chunk() + self.overlap {
            // Batches too small for a chunk and its overlap: the CPU takes
            // every chunk.
            return None;
        }
        let i = self.shared.claim_for_device()?;
        let size = self.shared.layout.size();
        let (from, end) = self.shared.layout.bytes(i);
        let owned = end - from;
        let want = (owned + self.overlap).min(size - from);
        let (n, err, has_nul) =
            crate::pipeline::fill::pread_parallel(self.file, &mut buf[..want], from as u64);
        // A short read means the file shrank: the bytes that were read are
        // searched, and the host's final pass reports the change.
        let _ = err;
        Some((n, (i, owned.min(n), has_nul)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk given back goes to the next device claim, before the
    /// counter's next chunk; none once the output stopped.
    #[test]
    fn a_chunk_given_back_goes_to_the_device_first() {
        let size = 8 * chunk();
        let shared = Shared::new(size, None);
        let (a, b) = (shared.claim(), shared.claim());
        assert_eq!((a, b), (Some(0), Some(1)));
        shared.give_back(0);
        assert_eq!(shared.claim(), Some(2));
        assert_eq!(shared.claim_for_device(), Some(0));
        assert_eq!(shared.claim_for_device(), Some(3));
        assert!(
            shared
                .notes()
                .iter()
                .any(|n| n.contains("left to the device"))
        );
        shared.give_back(1);
        shared.stop_claims();
        assert_eq!(shared.claim_for_device(), None);
        assert!(shared.eager_stop.load(Ordering::Acquire));
    }
}
