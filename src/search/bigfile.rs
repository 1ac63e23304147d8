//! One big file searched by every core. ripgrep gives a file one thread;
//! here a large file is cut at line starts into segments and every core
//! finds the matching lines of the segments it claims.
//!
//! Every form streams. The plain forms (`-c`, `--count-matches`, lines
//! with or without `-n`, `-b`, `--column` and `-r`, `-o` and `--vimgrep`,
//! in color or not: what `output::plain` writes; lines with context:
//! `output::context`) and `--json`'s
//! match messages, with their context messages (`output::json`), are written here: segments are claimed
//! in file order, and their lines are formatted by the threads that
//! searched them and written as soon as they and all before them are done
//! (`pipeline::segments`), a heading first. The others (`-m`, `--json
//! -r`, `--trim`...; `-q`, `-l` and `-L`, unless the file's start holds
//! enough matching lines: [`found_early`]; of a file a walk found, these
//! four only where the reads stop before a NUL: [`read_until_stop`]) are
//! printed by ripgrep's searcher on this thread while the other
//! threads find the segments' matching lines: it jumps from one matching
//! line to the next as they arrive ([`FedMatcher`]). Either way the first
//! lines leave at once, a closed pipe stops the search, and the memory
//! held for order is at most [`AHEAD`] (or `2 x cores + 2`, if more)
//! segments' output, or twice `cores + 1` segments' line starts for
//! the printed forms (a segment is at most
//! `GSEARCH_SEGMENT`, default 256 KiB, 4 MiB for a rule set, of the file). `-v` is counted as
//! every line less the matching ones, and its lines are those the
//! segments did not find; its other forms are left to the usual search.
//!
//! Matches never span a line terminator, so cutting at line starts changes
//! nothing: `^`, `$` and `\b` see a line start where a segment starts.
//! PCRE2 (`-P`) decides each line alone, as ripgrep's searcher decides it
//! (`matcher::pcre2_lines`); the matches in a line (colors, `-o`,
//! `--json`) are found with the map before it in view, as ripgrep's
//! printer finds them in the map (`output::matches`). A PCRE2 match error hands the file to the
//! usual search, which reports it, from the segment where it occurred:
//! the output written before it stands, and the search drops the same
//! bytes of its own output; in the printed forms, ripgrep's searcher
//! decides the lines from that segment on itself and reports the error
//! ([`FedMatcher`]), unless after-context lines are due (ripgrep prints
//! those before it meets the error): then every matching line is
//! collected first.

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use grep_searcher::Searcher;
use termcolor::WriteColor;

use crate::cli::config::{Config, OutputMode};
use crate::matcher::fed::{FedMatcher, Piece};
use crate::matcher::lines::line_bounds;
use crate::matcher::offsets::OffsetMatcher;
use crate::matcher::pcre2_lines::PcreLines;
use crate::matcher::plan::Plan;
use crate::matcher::searcher::binary_detection;
use crate::output::context::{self, Context};
use crate::output::printer::{Input, Printer, SearchResult};
use crate::output::style::Style;
use crate::output::writer::ReaderGone;
use crate::output::{json, plain};
use crate::pipeline::lines::{
    Numbered, STOP_BLOCK, blocks, for_each_matching_line, matching_lines, matching_lines_until,
    prev_line_start,
};
use crate::pipeline::literal::Literal;
use crate::pipeline::readahead::ReadAhead;
use crate::pipeline::segments;
use crate::search::haystack::{opens_mid_char, reader_options_differ};
use crate::sys::guard::{GuardedMap, RELEASE_STEP, Releaser};
use crate::walk::Haystack;

/// Segments of `-n` output searched ahead of the one written next, at
/// least: a thread descheduled in the middle of a segment (another
/// program's turn on a busy machine) holds up the writing, not the other
/// threads' searching. Bounds the output held for order to this many
/// segments' (at most [`segments::max`] of the file each).
const AHEAD: usize = 32;

/// Files from this size up are split across threads.
pub const MIN_BYTES: u64 = 32 << 20;
/// The same for a rule set, whose matcher, not reading, bounds the search
/// (hundreds of regexes: 24 MB took 0.3 s on one core).
pub const RULES_MIN_BYTES: u64 = 4 << 20;
/// The bytes in which ripgrep's searcher looks for a NUL before searching
/// a map (grep-searcher's buffer size); past them, only the lines it
/// prints are looked at.
const BINARY_PROBE: usize = 64 << 10;

/// The size from which a file is split over the cores: smaller for a
/// rule set or PCRE2, whose matcher, not reading, bounds the search.
pub fn min_bytes(plan: &Plan) -> u64 {
    if plan.rules.is_some() || plan.pcre2.is_some() {
        RULES_MIN_BYTES
    } else {
        MIN_BYTES
    }
}

/// Searches `hay` with every core when it is a big regular file and the
/// output needs the whole file; `None` means "search it the usual way".
/// A file that ripgrep reads rather than maps (one a walk finds, or one
/// of more than ten paths) is split too where its reads answer as its map
/// does ([`reads_as_mapped`]); `rewinds` says the caller drops what was
/// written for the file when `None` comes back (a walker thread's buffer),
/// so the search may find that out as it goes. `-m`, `-q`, `-l` and `-L`
/// of such a file only where it rewinds and a walk found the file: they
/// stop early, and the bytes up to where ripgrep's reads stop are looked
/// at after the search ([`read_until_stop`]).
pub fn search<W: WriteColor>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    plan: &Plan,
    hay: &Haystack,
    rewinds: bool,
) -> Option<io::Result<SearchResult>> {
    let threads = crate::sys::cores();
    // The map decides first: a tree is searched without maps, and its
    // files are then spared a `stat` each.
    if hay.stdin
        || threads < 2
        || (cfg.invert && !plain::count_form(cfg) && !plain::inverted_form(cfg))
        || cfg.no_mmap
        || !cfg.use_mmap && (reader_options_differ(cfg) || !stop_checked(cfg, hay, rewinds))
        || cfg.input.needs_searcher()
        || cfg.out.searcher_flags()
    {
        return None;
    }
    let map = big_map(plan, hay)?;
    let _splitting = match cfg.use_mmap {
        true => None,
        false => Some(ReadSplit::claim()?),
    };
    if wanted(cfg).is_some_and(|n| found_early(&map, plan, n)) {
        return None;
    }
    // A file ripgrep reads: scanned now, or where the stream meets every
    // NUL itself, only when it hands the file over.
    let later = !cfg.use_mmap && checks_as_it_goes(cfg, hay, rewinds);
    if !cfg.use_mmap && !later && !reads_as_mapped(cfg, &map, threads) {
        return None;
    }
    let started = std::time::Instant::now();
    if !cfg.use_mmap && wanted(cfg).is_some() {
        let r = read_until_stop(cfg, (searcher, printer), plan, hay, &map)?;
        return Some(r.map(|r| r.searched_for(started.elapsed())));
    }
    let result = match stream(cfg, plan, hay, &map, printer) {
        Streamed::Partly(..) if later && !reads_as_mapped(cfg, &map, threads) => return None,
        Streamed::Done(r) => r,
        Streamed::Usual => return None,
        // (`-v`'s lines: FedMatcher feeds matching lines to the printed
        // forms; ripgrep's searcher decides the rest alone.)
        Streamed::Partly(written, _) if cfg.invert => {
            usual(cfg, searcher, printer, plan, hay, &map, written)?
        }
        Streamed::Partly(written, Handover::Printer) if collects(cfg, plan) => {
            collected(cfg, searcher, printer, plan, hay, &map, written)?
        }
        Streamed::Partly(written, Handover::Printer) => {
            printed(cfg, (searcher, printer), plan, (hay, &map), written, None)
        }
        Streamed::Partly(written, Handover::Failed) => {
            usual(cfg, searcher, printer, plan, hay, &map, written)?
        }
    };
    if map.faulted() {
        return Some(Err(crate::sys::guard::shrank_error()));
    }
    Some(result.map(|r| r.searched_for(started.elapsed())))
}

/// Whether a file that ripgrep reads is being split: one at a time, the
/// others searched whole as before. A walk that finds several big files
/// keeps the cores busy with them already; splitting each as well (every
/// walker thread starting a thread per core) made six 40 MB files on 2
/// cores 5-13% slower than searching them whole; the split is for the big
/// file among small ones.
static READ_SPLIT: AtomicBool = AtomicBool::new(false);

/// [`READ_SPLIT`] held until dropped.
struct ReadSplit;

impl ReadSplit {
    fn claim() -> Option<ReadSplit> {
        READ_SPLIT
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .ok()
            .map(|_| ReadSplit)
    }
}

impl Drop for ReadSplit {
    fn drop(&mut self) {
        READ_SPLIT.store(false, Ordering::Release);
    }
}

/// The size from which a file is split: [`min_bytes`], or
/// `GSEARCH_BIGFILE_MIN_BYTES` (tests: small files through this path, and
/// a huge value keeps every file on ripgrep's searcher, their reference).
pub fn split_from(plan: &Plan) -> u64 {
    static SET: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let set = *SET.get_or_init(|| crate::sys::env_count("GSEARCH_BIGFILE_MIN_BYTES"));
    set.map_or_else(|| min_bytes(plan), |n| n as u64)
}

/// The map of `hay` when it is a regular file big enough to split.
fn big_map(plan: &Plan, hay: &Haystack) -> Option<GuardedMap> {
    let meta = std::fs::metadata(&hay.path).ok()?;
    if !meta.is_file() || meta.len() < split_from(plan) {
        return None;
    }
    let file = std::fs::File::open(&hay.path).ok()?;
    // Mapped under the SIGBUS guard: a file that shrinks now is reported.
    let map = GuardedMap::map(&file).ok().flatten()?;
    crate::sys::trace::mark("big file mapped");
    Some(map)
}

/// Whether the stream of a file ripgrep reads meets all that
/// [`reads_as_mapped`] looks for (each NUL, each line opening with
/// continuation bytes under `Config::line_context`), so that the scan is
/// asked only when it hands the file over: a count looks at every block
/// and writes its line at the end; the lines of a file a walk found are
/// looked at whole, and what they wrote is dropped (`rewinds`).
fn checks_as_it_goes(cfg: &Config, hay: &Haystack, rewinds: bool) -> bool {
    plain::count_form(cfg) || rewinds && !hay.explicit
}

/// Whether ripgrep's reads of a file it does not map (one a walk finds, or
/// one of more than ten paths) answer as a search of its map does: no NUL
/// anywhere (a read quits or converts at the buffer holding one, a map's
/// search looks at its first 64 KiB and the lines it prints), and nothing
/// else `haystack::reader_differs` names (the options were asked before).
/// Scanned by every core, ended by the first NUL.
fn reads_as_mapped(cfg: &Config, data: &[u8], threads: usize) -> bool {
    let differs = AtomicBool::new(false);
    segments::each(data, threads, segments::max(false), |seg| {
        if differs.load(Ordering::Relaxed) {
            return;
        }
        if reads_differ(data, seg.start..seg.end, cfg.line_context) {
            differs.store(true, Ordering::Relaxed);
        }
    });
    !differs.into_inner()
}

/// Whether ripgrep's reads may answer `data[range]` otherwise than its map:
/// it holds a NUL, or (with `line_context`) a line opening with
/// continuation bytes.
fn reads_differ(data: &[u8], range: std::ops::Range<usize>, line_context: bool) -> bool {
    memchr::memchr(0, &data[range.clone()]).is_some() || line_context && opens_mid_char(data, range)
}

/// How many matching lines end the search when the output needs only the
/// first few: `-m`'s limit, or one for `-q`, `-l` and `-L`.
fn wanted(cfg: &Config) -> Option<u64> {
    match cfg.quiet || cfg.lists_files() {
        true => Some(cfg.max_count.unwrap_or(u64::MAX).min(1)),
        false => cfg.max_count,
    }
}

/// Whether a file ripgrep reads may be split for the output asked: any
/// but `-m`, `-q`, `-l` and `-L`, which are for a file a walk found whose
/// output the caller drops when the split gives it up (`rewinds`), and
/// not `-m` with after-context lines (its reads go on past the last
/// match).
fn stop_checked(cfg: &Config, hay: &Haystack, rewinds: bool) -> bool {
    wanted(cfg).is_none()
        || rewinds && !hay.explicit && (cfg.after == 0 || cfg.quiet || cfg.lists_files())
}

/// `-m`, `-q`, `-l` or `-L` of a file ripgrep reads ([`stop_checked`]):
/// printed by ripgrep's searcher over the map as [`printed`] does, then
/// given up (`None`: the caller drops what was written) unless ripgrep's
/// reads answer as the map did up to where they stop: the end of the
/// line where the search stopped (the file's end when it did not), and
/// at least the first [`BINARY_PROBE`] bytes, must hold nothing that
/// [`reads_as_mapped`] looks for. A read truncates the file at its first
/// NUL; the lines before it are the map's. The segments' threads look at
/// their blocks as they search them ([`Reads`]).
fn read_until_stop<W: WriteColor>(
    cfg: &Config,
    (searcher, printer): (&mut Searcher, &mut Printer<W>),
    plan: &Plan,
    hay: &Haystack,
    map: &GuardedMap,
) -> Option<io::Result<SearchResult>> {
    let data: &[u8] = map;
    // (A byte-order mark: see `stream`.)
    if !plain::plain_text(data) {
        return None;
    }
    let reads = Reads::new(wanted(cfg)?, cfg.line_context);
    let result = printed(cfg, (searcher, printer), plan, (hay, map), 0, Some(&reads));
    let probe = 0..data.len().min(BINARY_PROBE);
    if result.is_ok() && (reads.differ_before(data) || reads.differ(data, probe)) {
        return None;
    }
    Some(result)
}

/// What ripgrep's reads of a file would meet before a search that stops
/// at its `wanted`-th matching line stops, noted as [`printed`]'s
/// segments are searched: each segment's blocks are looked at, and its
/// line starts counted as they pass to ripgrep's searcher in file order.
/// Every segment up to the one holding the line where the search stopped
/// (all of them when it did not) was searched whole before the searcher
/// had its lines.
struct Reads {
    wanted: u64,
    /// Whether lines opening with continuation bytes differ too
    /// (`Config::line_context`).
    line_context: bool,
    /// Matching lines passed so far.
    seen: AtomicU64,
    /// The `wanted`-th one's start; `u64::MAX` until it passes (or when a
    /// segment was not decided: the whole file counts then).
    at: AtomicU64,
    /// The start of the first block holding a NUL or a line opening with
    /// continuation bytes; `u64::MAX` while none.
    first_differing: AtomicU64,
}

impl Reads {
    fn new(wanted: u64, line_context: bool) -> Reads {
        Reads {
            wanted,
            line_context,
            seen: 0.into(),
            at: u64::MAX.into(),
            first_differing: u64::MAX.into(),
        }
    }

    /// [`reads_differ`] with this search's `line_context`.
    fn differ(&self, data: &[u8], range: std::ops::Range<usize>) -> bool {
        reads_differ(data, range, self.line_context)
    }

    /// Looks at a block a segment's thread searched.
    fn look_at(&self, data: &[u8], range: std::ops::Range<usize>) {
        if self.differ(data, range.clone()) {
            self.first_differing
                .fetch_min(range.start as u64, Ordering::Relaxed);
        }
    }

    /// Notes a segment's answer (in file order, before the searcher has it).
    fn note(&self, piece: &Piece) {
        let Piece::Starts(starts) = piece else {
            self.seen.store(u64::MAX, Ordering::Relaxed);
            return;
        };
        let seen = self.seen.load(Ordering::Relaxed);
        let now = seen.saturating_add(starts.len() as u64);
        if seen < self.wanted && now >= self.wanted {
            let at = starts[(self.wanted - seen - 1) as usize];
            self.at.store(at, Ordering::Relaxed);
        }
        self.seen.store(now, Ordering::Relaxed);
    }

    /// Whether a block the reads meet before they stop (up to the end of
    /// the line where the search stopped, else the file's end) differs.
    fn differ_before(&self, data: &[u8]) -> bool {
        let end = match self.at.load(Ordering::Relaxed) {
            u64::MAX => data.len(),
            at => line_bounds(data, at as usize).1,
        };
        self.first_differing.load(Ordering::Relaxed) < end as u64
    }
}

/// The bytes at the file's start in which [`found_early`] counts the
/// matching lines.
const EARLY_PROBE: usize = 32 << 10;

/// Whether the usual search, which stops at the `wanted`-th matching line,
/// likely stops within the first [`EARLY_PROBE`] x [`EARLY_REACH`] bytes,
/// as the lines matching in the first [`EARLY_PROBE`] bytes let expect:
/// then ripgrep's searcher alone is done sooner than threads start and
/// feed it. A pattern rare there goes to [`printed`]: the other threads
/// find its lines over the whole file (2 cores, 100 MB of C, `-m 5000 -n
/// e`: 4.4 ms alone, 5.4 ms fed; `-m 5 -c` of a rare regex: 223 ms alone,
/// 156 ms fed). A PCRE2 match error there leaves the file to the usual
/// search, which reports it.
fn found_early(data: &[u8], plan: &Plan, wanted: u64) -> bool {
    let probe = &data[..prev_line_start(data, EARLY_PROBE.min(data.len()))];
    let (n, failed) = watched(plan, || {
        let mut n = 0;
        for_each_matching_line(probe, &plan.line_matcher(), |_, _| n += 1);
        n
    });
    if let Some(p) = plan.pcre2.as_ref().filter(|_| failed) {
        p.take_failed();
        return true;
    }
    n * EARLY_REACH >= wanted
}

/// See [`found_early`].
const EARLY_REACH: u64 = 8;

/// How the segments of an ordered output are claimed: by `threads`, at
/// most [`AHEAD`] (or `2 x threads + 2`) ahead of the output.
fn order(plan: &Plan, threads: usize) -> segments::Order {
    segments::Order {
        threads,
        ahead: AHEAD.max(2 * threads + 2),
        max: segments::max(plan.rules.is_some()),
    }
}

/// [`order`] for the printed forms: ripgrep's printer searches each
/// matching line again (colors) and is the slower side, so segments
/// searched further ahead than one each and one to spare only take the
/// cycles it needs (2 cores, 100 MB of C, `--color=always '\w+_\w+' |
/// head -1`: first line after 10.2 ms with [`AHEAD`], 8.5 ms with 3,
/// ripgrep 7.8 ms; the whole file unchanged).
fn printed_order(plan: &Plan, threads: usize) -> segments::Order {
    segments::Order {
        ahead: threads + 1,
        ..order(plan, threads)
    }
}

/// Whether the forms ripgrep's printer writes collect every matching line
/// first: PCRE2 with after-context (see the module's text).
fn collects(cfg: &Config, plan: &Plan) -> bool {
    plan.pcre2.is_some() && cfg.after > 0
}

/// The forms ripgrep's printer writes: the other threads find the
/// matching lines segment by segment while ripgrep's searcher prints them
/// on this one (see the module's text). The first `skip` bytes of the
/// output were already written (by [`lines`], before it met a NUL):
/// ripgrep's searcher, which then takes over, handles binary data as the
/// usual search of the map does (the first 64 KiB, then the lines it
/// prints).
fn printed<W: WriteColor>(
    cfg: &Config,
    (searcher, printer): (&mut Searcher, &mut Printer<W>),
    plan: &Plan,
    (hay, map): (&Haystack, &GuardedMap),
    skip: u64,
    reads: Option<&Reads>,
) -> io::Result<SearchResult> {
    let data: &[u8] = map;
    let threads = crate::sys::cores();
    let order = printed_order(plan, threads);
    let ahead = ReadAhead::cold(map);
    let matcher = plan.line_matcher();
    // Set once the printer is done: a segment being searched then ends at
    // its next block, so a closed pipe (`| head -1`) is not held up by the
    // segments in flight; so it does once the reader is seen gone.
    let printed = AtomicBool::new(false);
    let gone = ReaderGone::default();
    let work = segments::Work {
        search: |seg: &segments::Segment| {
            if let Some(a) = &ahead {
                a.reached(seg.start);
            }
            let (starts, failed) = watched(plan, || {
                let mut starts = Vec::new();
                for (a, b) in blocks(data, seg.start, seg.end, STOP_BLOCK) {
                    if printed.load(Ordering::Relaxed) || gone.gone() {
                        break;
                    }
                    for_each_matching_line(&data[a..b], &matcher, |s, _| {
                        starts.push((a + s) as u64);
                    });
                    if let Some(reads) = reads {
                        reads.look_at(data, a..b);
                    }
                }
                starts
            });
            match failed {
                true => (0, Piece::Undecided(seg.start as u64)),
                false => (0, Piece::Starts(starts)),
            }
        },
        finish: |piece: Piece, _| piece,
    };
    let result = std::thread::scope(|s| {
        // Segments received and not yet printed, besides those the threads
        // hold: the bound on the memory kept for order doubles.
        let (tx, rx) = std::sync::mpsc::sync_channel(order.ahead);
        // (The printer's thread writes; nothing to flush here when idle.)
        s.spawn(move || {
            segments::in_order(data, order, work, |piece| match piece {
                Some(piece) => {
                    if let Some(reads) = reads {
                        reads.note(&piece);
                    }
                    tx.send(piece).map(|_| 0)
                }
                None => Ok(0),
            })
        });
        // The usual search's matcher (PCRE2's reports its errors) decides
        // what the segments did not.
        let term = grep_matcher::Matcher::line_terminator(&plan.line_matcher());
        let fed = FedMatcher::new(plan.search_matcher(), map, term, rx);
        let result = search_map(cfg, searcher, printer, skip, fed, hay, map);
        printed.store(true, Ordering::Relaxed);
        result
    });
    if let Some(p) = &plan.pcre2 {
        // Answered here: the next file starts afresh.
        p.take_failed();
    }
    result
}

/// PCRE2's printed forms with after-context: every matching line first (a
/// match error then hands the file to the usual search before anything is
/// printed), then ripgrep's searcher prints them. The first `skip` bytes of the output
/// were already written (by [`lines`], before it met a NUL).
fn collected<W: WriteColor>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    plan: &Plan,
    hay: &Haystack,
    map: &GuardedMap,
    skip: u64,
) -> Option<io::Result<SearchResult>> {
    let threads = crate::sys::cores();
    let lines = matching_lines(map, &plan.line_matcher(), threads, Some(map));
    if plan.pcre2.as_ref().is_some_and(PcreLines::take_failed) {
        return usual(cfg, searcher, printer, plan, hay, map, skip);
    }
    let m = OffsetMatcher::confirmed(plan.line_matcher(), map, &lines.starts);
    Some(search_map(cfg, searcher, printer, skip, m, hay, map))
}

/// After a PCRE2 match error, or where `-v`'s lines stop streaming: the
/// file searched the usual way (`None` when nothing was written yet: the
/// caller's own search), which reports the error where it occurs, its
/// first `skip` bytes of output dropped.
fn usual<W: WriteColor>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    plan: &Plan,
    hay: &Haystack,
    map: &GuardedMap,
    skip: u64,
) -> Option<io::Result<SearchResult>> {
    if let Some(p) = &plan.pcre2 {
        p.take_failed();
    }
    if skip == 0 {
        return None;
    }
    let m = plan.search_matcher();
    Some(search_map(cfg, searcher, printer, skip, m, hay, map))
}

/// `hay`'s map searched with `m` by ripgrep's searcher and printer, with
/// the usual search's binary detection; the first `skip` bytes of its
/// output (already written) dropped.
fn search_map<W: WriteColor, M: grep_matcher::Matcher>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    skip: u64,
    m: M,
    hay: &Haystack,
    map: &GuardedMap,
) -> io::Result<SearchResult> {
    searcher.set_binary_detection(binary_detection(cfg, hay.explicit));
    if skip == 0 {
        return printer.search(searcher, m, &hay.path, Input::Slice(map));
    }
    let mut rest = Printer::new_unseparated(cfg, Skip::new(skip, printer.get_mut()));
    rest.search(searcher, m, &hay.path, Input::Slice(map))
}

/// `f`'s value, and whether a PCRE2 search failed on this thread while it
/// ran (see [`PcreLines::watch`]).
fn watched<T>(plan: &Plan, f: impl FnOnce() -> T) -> (T, bool) {
    match &plan.pcre2 {
        Some(p) => p.watch(f),
        None => (f(), false),
    }
}

/// How [`lines`] formats a segment: its bytes, their offset in the file,
/// its matching lines and the first one's number, the output to append
/// to; the length of its lead (see `output::context`), or who takes the
/// segment over.
trait Format:
    Fn(&[u8], usize, &[Numbered], u64, &mut Vec<u8>) -> Result<usize, Handover> + Sync
{
}

impl<F> Format for F where
    F: Fn(&[u8], usize, &[Numbered], u64, &mut Vec<u8>) -> Result<usize, Handover> + Sync
{
}

/// What [`stream`] did.
enum Streamed {
    Done(io::Result<SearchResult>),
    /// Nothing: the usual search does it all.
    Usual,
    /// This many bytes of output (none: the output or the bytes need
    /// ripgrep's printer from the start), up to where the rest is handed
    /// over, and to whom.
    Partly(u64, Handover),
}

/// Who a streamed search hands the rest of a file to.
#[derive(Clone, Copy, Debug)]
enum Handover {
    /// ripgrep's printer ([`printed`]): a NUL, whose binary handling it
    /// decides, or an output only it writes.
    Printer,
    /// The usual search, which reports a PCRE2 match error ([`usual`]).
    Failed,
}

/// The streaming forms (see the module's text).
fn stream<W: WriteColor>(
    cfg: &Config,
    plan: &Plan,
    hay: &Haystack,
    map: &GuardedMap,
    printer: &mut Printer<W>,
) -> Streamed {
    let data: &[u8] = map;
    let probe = &data[..data.len().min(BINARY_PROBE)];
    // A byte-order mark: ripgrep's searcher strips or transcodes it, so
    // its offsets are not the map's (PCRE2's lines fed to it at the
    // map's offsets gave `--json` a line that does not match).
    if !plain::plain_text(data) {
        return Streamed::Usual;
    }
    if memchr::memchr(0, probe).is_some() {
        return Streamed::Partly(0, Handover::Printer);
    }
    // The colors, where the writer takes them.
    let colors = printer.get_mut().supports_color();
    let style = Style::new(colors.then_some(&cfg.out.colors));
    if plain::count_form(cfg) {
        return match count(cfg, plan, &hay.path, map, style, printer.get_mut()) {
            Ok(r) => Streamed::Done(r),
            Err(Handover::Printer) if cfg.invert => Streamed::Usual,
            Err(h) => Streamed::Partly(0, h),
        };
    }
    if json::form(cfg) || json::context_form(cfg) {
        return json_lines(cfg, plan, hay, map, printer.get_mut());
    }
    if plain::inverted_form(cfg) {
        return inverted_lines((cfg, plan, hay, map), style, printer.get_mut());
    }
    if plain::fields_form(cfg) {
        return fields_lines((cfg, plan, hay, map), style, printer.get_mut());
    }
    if plain::context_form(cfg) {
        return context_lines((cfg, plan, hay, map), style, printer.get_mut());
    }
    if !plain::lines_form(cfg) {
        return Streamed::Partly(0, Handover::Printer);
    }
    let prefix = plain::path_prefix(cfg, &hay.path);
    let numbers = cfg.line_number;
    let format = |seg: &[u8], _: usize, found: &[Numbered], first: u64, out: &mut Vec<u8>| {
        match numbers {
            true => plain::write_numbered(seg, found, &prefix, first, out),
            false => plain::write_unnumbered(seg, found, &prefix, out),
        }
        Ok(0)
    };
    let heading = plain::heading(cfg, &hay.path, Style::new(None));
    streamed_lines(
        (plan, hay, map),
        (numbers, &heading),
        format,
        printer.get_mut(),
    )
}

/// [`lines`] with `prelude` (a heading), its outcome as [`stream`]
/// answers it: a match when any byte was written.
fn streamed_lines<W: Write>(
    (plan, hay, map): (&Plan, &Haystack, &GuardedMap),
    (numbers, prelude): (bool, &[u8]),
    format: impl Format,
    wtr: &mut W,
) -> Streamed {
    let found = lines(plan, hay, map, numbers, prelude, format, wtr);
    streamed(found, |written| {
        Ok(SearchResult {
            has_match: written > 0,
            stats: None,
        })
    })
}

/// What [`stream`] answers for [`lines`]' outcome: `done` makes the
/// result from the bytes written.
fn streamed(
    found: Result<u64, Stop>,
    done: impl FnOnce(u64) -> io::Result<SearchResult>,
) -> Streamed {
    match found {
        Ok(written) => Streamed::Done(done(written)),
        Err(Stop::Io(e)) => Streamed::Done(Err(e)),
        Err(Stop::Handover(written, h)) => Streamed::Partly(written, h),
    }
}

/// The lines that do not match (`-v`), with or without numbers, in color
/// where the writer takes them (`style`); a NUL in one of them hands the
/// rest of the file to the usual search.
fn inverted_lines<W: Write>(
    (cfg, plan, hay, map): (&Config, &Plan, &Haystack, &GuardedMap),
    style: Style<'_>,
    wtr: &mut W,
) -> Streamed {
    let prefix = plain::styled_path_prefix(cfg, &hay.path, style, b':');
    let numbers = cfg.line_number;
    let format = |seg: &[u8], _: usize, found: &[Numbered], first: u64, out: &mut Vec<u8>| {
        let first = numbers.then_some(first);
        match plain::write_inverted(seg, found, (&prefix, style), first, out) {
            true => Ok(0),
            false => Err(Handover::Printer),
        }
    };
    let heading = plain::heading(cfg, &hay.path, style);
    streamed_lines((plan, hay, map), (numbers, &heading), format, wtr)
}

/// The matching lines with `-b`, `--column` or `-r`, or their matches
/// (`-o`, `--vimgrep`), or the lines in color (see `plain::Fields`); a
/// matcher that fails on a line hands the segment to ripgrep's printer,
/// which reports it.
fn fields_lines<W: Write>(
    (cfg, plan, hay, map): (&Config, &Plan, &Haystack, &GuardedMap),
    style: Style<'_>,
    wtr: &mut W,
) -> Streamed {
    let fields = fields(cfg, plan, hay, map, style);
    let format = |_: &[u8], at: usize, found: &[Numbered], first: u64, out: &mut Vec<u8>| {
        fields
            .write(at, found, first, out)
            .map_or(Err(Handover::Printer), |_| Ok(0))
    };
    let heading = plain::heading(cfg, &hay.path, fields.style);
    streamed_lines((plan, hay, map), (cfg.line_number, &heading), format, wtr)
}

/// What writes the matching lines of [`fields_lines`] and
/// [`context_lines`].
fn fields<'a>(
    cfg: &'a Config,
    plan: &'a Plan,
    hay: &Haystack,
    map: &'a GuardedMap,
    style: Style<'a>,
) -> plain::Fields<'a, impl grep_matcher::Matcher + 'a> {
    plain::Fields {
        data: map,
        prefix: plain::styled_path_prefix(cfg, &hay.path, style, b':'),
        numbers: cfg.line_number,
        column: cfg.column,
        offsets: cfg.byte_offset,
        only_matching: cfg.only_matching,
        per_match: cfg.vimgrep,
        replacement: cfg.replace.as_deref(),
        matcher: plan.search_matcher(),
        style,
    }
}

/// The matching lines with their context lines (`-A`, `-B`, `-C`; see
/// `output::context`), in color or not; a NUL in a context line, or a
/// matcher that fails, hands the segment to ripgrep's printer. The lines
/// are numbered whatever `-n` says: the context is counted in lines.
fn context_lines<W: Write>(
    (cfg, plan, hay, map): (&Config, &Plan, &Haystack, &GuardedMap),
    style: Style<'_>,
    wtr: &mut W,
) -> Streamed {
    let fields = fields(cfg, plan, hay, map, style);
    let writer = plain::Plain {
        context_prefix: plain::styled_path_prefix(cfg, &hay.path, fields.style, b'-'),
        fields,
    };
    let heading = plain::heading(cfg, &hay.path, writer.fields.style);
    let context = with_context(cfg, plan, cfg.context_separator.as_deref(), writer);
    streamed_lines((plan, hay, map), (true, &heading), context, wtr)
}

/// The format of a segment's lines with their context lines, written by
/// `writer` (see `output::context`).
fn with_context<'a, W: context::LineWriter + Sync + 'a>(
    cfg: &Config,
    plan: &'a Plan,
    separator: Option<&'a [u8]>,
    writer: W,
) -> impl Format + 'a {
    let context = Context {
        before: cfg.before as u64,
        after: cfg.after as u64,
        separator,
        writer,
        lines: plan.line_matcher(),
    };
    move |seg: &[u8], at: usize, found: &[Numbered], first: u64, out: &mut Vec<u8>| {
        context
            .write((at, at + seg.len()), found, first, out)
            .ok_or(Handover::Printer)
    }
}

/// `--json`'s `match` messages (see `output::json`), with `context` ones
/// among them where context lines are asked for ([`context_lines`]'
/// lines), framed by its `begin` and `end` messages, with the statistics
/// its printer keeps.
fn json_lines<W: Write>(
    cfg: &Config,
    plan: &Plan,
    hay: &Haystack,
    map: &GuardedMap,
    wtr: &mut W,
) -> Streamed {
    let started = std::time::Instant::now();
    let messages = json::Messages::new(&hay.path, map, plan.search_matcher(), cfg.line_number);
    let begin = messages.begin();
    let found = if json::context_form(cfg) {
        let context = with_context(cfg, plan, None, &messages);
        lines(plan, hay, map, true, &begin, context, wtr)
    } else {
        let format = |_: &[u8], at: usize, found: &[Numbered], first: u64, out: &mut Vec<u8>| {
            messages
                .matches(at, found, first, out)
                .map_or(Err(Handover::Printer), |_| Ok(0))
        };
        lines(plan, hay, map, cfg.line_number, &begin, format, wtr)
    };
    streamed(found, |written| {
        let (stats, end) = messages.end(started.elapsed(), written);
        wtr.write_all(&end)?;
        Ok(SearchResult {
            has_match: written > 0,
            stats: Some(stats),
        })
    })
}

/// `-c` / `--count-matches` (with `--stats`), `-v` too: segments in any
/// order, one line at the end; nothing written when a segment must be
/// handed over.
fn count<W: Write>(
    cfg: &Config,
    plan: &Plan,
    path: &Path,
    map: &GuardedMap,
    style: Style<'_>,
    wtr: &mut W,
) -> Result<io::Result<SearchResult>, Handover> {
    let started = std::time::Instant::now();
    let data: &[u8] = map;
    let matcher = plan.line_matcher();
    // Inverted: the lines that match are counted, then taken from all.
    let matches = !cfg.invert && (cfg.stats || cfg.mode == OutputMode::CountMatches);
    // No order to keep: segments as big as a release step (each release
    // is an madvise whose TLB shootdown reaches every core: at 256 KiB a
    // step, 16 cores counted 8.7 GB at 5 GB/s instead of 45).
    let size = crate::sys::env_count("GSEARCH_SEGMENT").unwrap_or(RELEASE_STEP);
    let ahead = ReadAhead::cold(map);
    let literal = plan.single_literal().and_then(Literal::new);
    // A file ripgrep reads: a line whose reads may answer differently is
    // handed over as a NUL is (see `reads_as_mapped`).
    let read = !cfg.use_mmap;
    let parts = segments::each(data, crate::sys::cores(), size, |seg| {
        if let Some(a) = &ahead {
            a.reached(seg.start);
        }
        // In blocks that stay in the cache between the NUL check and the
        // count (a segment is too big for it: the file would be read from
        // memory twice).
        let (mut counts, mut nul) = ((0, 0), false);
        for (a, b) in blocks(data, seg.start, seg.end, BLOCK) {
            nul |= reads_differ(data, a..b, read && plan.line_context);
            let (l, f) = match &literal {
                Some(l) => literal_counts(l, &data[a..b], matches, cfg.stats),
                None => plain::count_segment(data, (a, b), &matcher, matches),
            };
            let (l, f) = match cfg.invert {
                // Each line that does not match is one match of `-v`.
                true => {
                    let others = lines_in(data, a, b) - l;
                    (others, others)
                }
                false => (l, f),
            };
            counts = (counts.0 + l, counts.1 + f);
        }
        map.release(seg.start..seg.end);
        (counts, nul)
    });
    if plan.pcre2.as_ref().is_some_and(PcreLines::take_failed) {
        return Err(Handover::Failed);
    }
    if parts.iter().any(|p| p.1) {
        return Err(Handover::Printer);
    }
    let (lines, found) = parts
        .iter()
        .fold((0, 0), |(l, f), ((pl, pf), _)| (l + pl, f + pf));
    let shown = if cfg.mode == OutputMode::CountMatches {
        found
    } else {
        lines
    };
    let mut out = Vec::new();
    plain::write_count(cfg, path, shown, style, &mut out);
    let result = plain::count_result(cfg, started, data.len(), lines, found);
    Ok(wtr.write_all(&out).map(|()| result))
}

/// The lines of `data[a..b]` (whole lines): its terminators, and one more
/// for a last line of the file without one.
fn lines_in(data: &[u8], a: usize, b: usize) -> u64 {
    let ended = b == data.len() && b > a && data[b - 1] != b'\n';
    crate::pipeline::lines::count_lines(&data[a..b]) + u64::from(ended)
}

/// Bytes counted at a time while they are in the cache (L2: half of a
/// typical 512 KiB to 2 MiB).
const BLOCK: usize = 256 << 10;

/// A segment's matching lines and (with `matches`) matches of a literal
/// that decides lines alone: per matching line only a search for its end
/// (`-c`), no per-line work at all for `--count-matches` (without
/// `--stats`, whose figures need the lines too, the lines only say whether
/// there was a match: 1 or 0).
fn literal_counts(literal: &Literal<'_>, bytes: &[u8], matches: bool, stats: bool) -> (u64, u64) {
    if !matches {
        return (literal.count_lines(bytes), 0);
    }
    let found = literal.count_matches(bytes);
    let lines = if stats && found > 0 {
        literal.count_lines(bytes)
    } else {
        u64::from(found > 0)
    };
    (lines, found)
}

/// Why [`lines`] stopped early.
enum Stop {
    /// Writing failed (a closed pipe, most often).
    Io(io::Error),
    /// A segment must be handed over: the output bytes written so far.
    Handover(u64, Handover),
}

/// The matching lines, numbered when `numbers` (`-n`), written segment by
/// segment in file order: `format(segment, its start, its lines, the
/// number of its first line, out)` writes a segment's (or says who takes
/// over) and returns the length of its lead, the bytes at its start that
/// go only after earlier output (a context separator); `prelude` goes
/// before the first byte written. Returns the bytes written.
fn lines<W: Write>(
    plan: &Plan,
    hay: &Haystack,
    map: &GuardedMap,
    numbers: bool,
    prelude: &[u8],
    format: impl Format,
    wtr: &mut W,
) -> Result<u64, Stop> {
    let data: &[u8] = map;
    let threads = crate::sys::cores();
    let matcher = plan.line_matcher();
    let released = Mutex::new(Releaser::new(Some(map), 0));
    let order = order(plan, threads);
    let ahead = ReadAhead::cold(map);
    let literal = plan.single_literal().and_then(Literal::new);
    let gone = ReaderGone::default();
    let work = segments::Work {
        search: |seg: &segments::Segment| {
            if let Some(a) = &ahead {
                a.reached(seg.start);
            }
            let bytes = &data[seg.start..seg.end];
            let span = (seg.start, seg.end);
            let stop = || gone.gone();
            let (searched, failed) = watched(plan, || {
                matching_lines_until(data, span, &matcher, literal.as_ref(), numbers, &stop)
            });
            if failed {
                return (0, Err(Handover::Failed));
            }
            // Nothing more can be written: the emit stops the search.
            let Some((lines, found)) = searched else {
                return (0, Ok((seg.start, seg.start, Vec::new())));
            };
            // A file given by name: ripgrep's searcher looks for NULs only
            // in the lines it prints; else (a file a walk found) any NUL
            // hands the search over, and so does a line whose reads may
            // answer differently (see `reads_as_mapped`).
            let nul = if hay.explicit {
                nul_in_lines(bytes, &found)
            } else {
                reads_differ(data, seg.start..seg.end, plan.line_context)
            };
            if nul {
                return (0, Err(Handover::Printer));
            }
            (lines, Ok((seg.start, seg.end, found)))
        },
        finish: |found: Result<(usize, usize, Vec<_>), Handover>, before: u64| {
            let (a, b, found) = found?;
            let mut out = Vec::new();
            let lead = format(&data[a..b], a, &found, before + 1, &mut out)?;
            // Segments finish in file order, give or take the threads
            // finishing side by side: releases in steps (each is an madvise
            // whose TLB shootdown reaches every core), not per segment.
            released
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .passed(b);
            Ok((out, lead))
        },
    };
    let mut written = 0u64;
    segments::in_order(data, order, work, |out| {
        // Nothing more ready: what is buffered leaves now (`| head -1`).
        let Some(out) = out else {
            return wtr.flush().map(|_| 0).map_err(Stop::Io);
        };
        let (out, lead) = out.map_err(|h| Stop::Handover(written, h))?;
        if gone.gone() {
            return Err(Stop::Io(io::ErrorKind::BrokenPipe.into()));
        }
        let out = if written == 0 { &out[lead..] } else { &out[..] };
        let before = written;
        if written == 0 && !out.is_empty() {
            wtr.write_all(prelude).map_err(Stop::Io)?;
            written += prelude.len() as u64;
            crate::sys::trace::mark("big file: first output written");
        }
        wtr.write_all(out).map_err(Stop::Io)?;
        written += out.len() as u64;
        Ok(written - before)
    })?;
    Ok(written)
}

/// Whether one of the lines `found` in `bytes` holds a NUL: past the
/// first [`BINARY_PROBE`] bytes (checked before streaming), ripgrep's
/// searcher looks for binary data only in the lines it prints, so the
/// other lines are not read again. One `memchr` per run of adjacent lines.
fn nul_in_lines(bytes: &[u8], found: &[Numbered]) -> bool {
    let mut i = 0;
    while let Some(first) = found.get(i) {
        let mut end = first.end;
        i += 1;
        while let Some(next) = found.get(i).filter(|n| n.start == end) {
            end = next.end;
            i += 1;
        }
        if memchr::memchr(0, &bytes[first.start..end]).is_some() {
            return true;
        }
    }
    false
}

/// A writer that drops the first `skip` bytes written to it (output that
/// is already out), then passes the rest on.
struct Skip<'a, W> {
    skip: u64,
    inner: &'a mut W,
}

impl<'a, W> Skip<'a, W> {
    fn new(skip: u64, inner: &'a mut W) -> Skip<'a, W> {
        Skip { skip, inner }
    }
}

impl<W: Write> Write for Skip<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let dropped = buf
            .len()
            .min(usize::try_from(self.skip).unwrap_or(usize::MAX));
        self.skip -= dropped as u64;
        if dropped == buf.len() {
            return Ok(dropped);
        }
        self.inner.write_all(&buf[dropped..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Colors are escape sequences among the bytes skipped, as the streamed
/// output wrote them (`output::style`, through termcolor's `Ansi`): each
/// is written as those bytes, so that the count skips them too (a
/// colored line lost its colors after the handover, and the skip then
/// ended past the lines already out).
impl<W: WriteColor> WriteColor for Skip<'_, W> {
    fn supports_color(&self) -> bool {
        self.inner.supports_color()
    }

    fn set_color(&mut self, spec: &termcolor::ColorSpec) -> io::Result<()> {
        self.escape(|a| a.set_color(spec))
    }

    fn reset(&mut self) -> io::Result<()> {
        self.escape(termcolor::WriteColor::reset)
    }
}

impl<W: WriteColor> Skip<'_, W> {
    /// Writes what `f` writes through termcolor's `Ansi`, where the
    /// output takes colors.
    fn escape(
        &mut self,
        f: impl FnOnce(&mut termcolor::Ansi<Vec<u8>>) -> io::Result<()>,
    ) -> io::Result<()> {
        if !self.inner.supports_color() {
            return Ok(());
        }
        let mut ansi = termcolor::Ansi::new(Vec::new());
        f(&mut ansi)?;
        self.write_all(&ansi.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::lines::PIECE;
    use crate::sys::guard::GuardedMap;

    fn reference(data: &[u8], m: &grep_regex::RegexMatcher) -> Vec<u64> {
        let mut out = Vec::new();
        let mut start = 0;
        for line in data.split_inclusive(|&b| b == b'\n') {
            if crate::matcher::lines::line_is_match(m, line) {
                out.push(start as u64);
            }
            start += line.len();
        }
        out
    }

    /// Released pages read back the same: a mapped file bigger than a few
    /// pieces gives the same lines, and the same count, with and without
    /// releasing.
    #[test]
    fn releasing_searched_pages_changes_nothing() {
        use std::io::Write;
        let m = crate::matcher::testing::line_matcher("needle");
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut block = Vec::new();
        for i in 0..100_000u32 {
            let word = if i % 37 == 0 { "needle" } else { "hay" };
            writeln!(block, "{i} some {word} text").unwrap();
        }
        while f.as_file().metadata().unwrap().len() < 3 * PIECE as u64 + 12345 {
            f.write_all(&block).unwrap();
        }
        f.flush().unwrap();
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        let kept = matching_lines(&map, &m, 2, None);
        let released = matching_lines(&map, &m, 2, Some(&map));
        assert_eq!(kept.starts, released.starts);
        assert!(!kept.starts.is_empty());
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["gsearch", "-c", "needle", "f"]);
        let cfg = crate::cli::config::Config::from_cli(cli).unwrap();
        let path = std::path::Path::new("f");
        let plan = crate::matcher::plan::Plan::new(&cfg).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let plain = crate::output::plain::Text {
            data: &map,
            map: None,
            matcher: plan.line_matcher(),
            confirm: false,
        };
        let releasing = crate::output::plain::Text {
            map: Some(&map),
            ..plain
        };
        crate::output::plain::print_count(&cfg, path, plain, &kept.starts, &mut a).unwrap();
        crate::output::plain::print_count(&cfg, path, releasing, &kept.starts, &mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, format!("{}\n", kept.starts.len()).into_bytes());
    }

    #[test]
    fn segments_agree_with_a_line_by_line_scan() {
        let m = grep_regex::RegexMatcherBuilder::new()
            .multi_line(true)
            .line_terminator(Some(b'\n'))
            .build(r"^fo+\b|bar$")
            .unwrap();
        let mut data = Vec::new();
        for i in 0..5000 {
            let line: &[u8] = match i % 7 {
                0 => b"foo x\n",
                1 => b"xbar\n",
                2 => b"\n",
                3 => b"foox\n",
                4 => b"bar baz\n",
                _ => b"nothing here\n",
            };
            data.extend_from_slice(line);
        }
        data.extend_from_slice(b"last foo bar");
        for threads in [1, 2, 3, 8, 64] {
            let got = matching_lines(&data, &m, threads, None);
            assert_eq!(got.starts, reference(&data, &m), "threads {threads}");
            assert!(!got.has_nul);
        }
    }
}
