//! The search loop for OpenCL devices: files are read straight into the
//! engines' pinned staging buffers (`staging`: many small files packed per
//! batch, big files cut into overlapping chunks), the devices find
//! candidate offsets, each batch is prepared in its device's thread
//! (`prepare`: small files finished into buffers, chunks' lines read) and
//! committed here in order, where ripgrep's searcher and printers finish
//! what is left, visiting only the candidate lines (see
//! `offsets::OffsetMatcher`).
//!
//! Files that contain a NUL byte are finished exactly as the CPU engine
//! would search them (same bytes, same binary detection), so binary-file
//! behaviour never depends on the engine.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use grep_printer::Stats;
use termcolor::Buffer;

use crate::sys::count_of;

use crate::cli::config::{Config, OutputMode};
use crate::err_message;
use crate::matcher::plan::Plan;
use crate::opencl::{BatchLines, OpenClEngine, StageStats};
use crate::output::printer::SearchResult;
use crate::output::stats::{finish, keeps_stats};
use crate::search::early::Early;
use crate::search::prepare::{ChunkPart, Desk, Found, Item, Prep, Ready};
use crate::search::staging::{Chunk, Piece, Source};
use crate::search::streamed::{ChunkLines, Stream};
use crate::walk::{self, Haystack, Notes};

type WalkResult = Result<ignore::DirEntry, ignore::Error>;

/// Candidate offsets of a big file, gathered chunk by chunk (one per line).
#[derive(Default)]
struct BigOffsets {
    offsets: Vec<u64>,
    has_nul: bool,
    /// Bytes of the file the device saw (end of the last chunk read).
    len: u64,
    /// Distinct lines holding an offset (exact for an exact literal set).
    lines: u64,
    /// Absolute end of the last line counted; with `open`, that line's end
    /// has not been seen yet and it extends at least this far.
    line_end: u64,
    open: bool,
    /// The file starts with a byte-order mark (the searcher transcodes).
    bom: bool,
    /// Device line mode: 1-based number of the line holding each offset.
    numbers: Vec<u64>,
    /// Every chunk so far came back as lines (so `numbers` is complete).
    numbered: bool,
    /// Newlines in the owned bytes of the chunks so far.
    nl_before: u64,
    /// Number (0-based) of the last line counted, if any.
    last_line: Option<u64>,
    /// The chunks do not fit together (the file changed while it was
    /// read): the file is searched exactly from its bytes.
    changed: bool,
}

/// Searches everything through `engines` (one per device, all taking
/// batches from one [`Source`]), with `notes` (why `auto` chose the
/// device) added to what `--stats` says; returns whether anything matched.
pub fn search(
    cfg: &Config,
    plan: &Plan,
    engines: &[OpenClEngine],
    notes: &[String],
) -> anyhow::Result<bool> {
    let started = Instant::now();
    if engines.is_empty() {
        anyhow::bail!("no OpenCL engine to search with");
    }
    let (tx, rx) = crossbeam_channel::bounded::<Haystack>(4096);
    let walk_notes = Arc::new(Notes::default());
    let walk_thread = spawn_walk(cfg, tx, Arc::clone(&walk_notes))?;
    plan.warming(|| {
        std::thread::scope(|scope| {
            let mut fin = Finisher::new(cfg, plan, Some(scope));
            fin.notes = walk_notes;
            stream_and_report(fin, engines, notes, rx, walk_thread, started)
        })
    })
}

/// [`search`]'s stream through every engine (at least one), finished by
/// `fin`, and its report.
fn stream_and_report(
    mut fin: Finisher<'_, '_>,
    engines: &[OpenClEngine],
    notes: &[String],
    rx: crossbeam_channel::Receiver<Haystack>,
    walk_thread: std::thread::JoinHandle<bool>,
    started: Instant,
) -> anyhow::Result<bool> {
    let (cfg, plan, engine) = (fin.cfg, fin.plan, &engines[0]);
    let prep = fin.prep;
    let mut src = Source::new(
        rx,
        engine.max_pattern_len().saturating_sub(1),
        (!cfg.verify, fin.streams_count()),
        Arc::clone(&fin.cut),
    );
    crate::pipeline::fill::widen(engines.len());
    let stages = OpenClEngine::stream_lines_all(engines, &mut src, &prep, |ready, bytes| {
        fin.commit(ready, bytes)
    });
    drop(src);
    fin.settle();
    // (Ended at its last chunk, unless the stream broke off before.)
    fin.end_stream();
    let searched = walk_thread.join().unwrap_or(true);
    if !fin.stop {
        fin.notes.before(u64::MAX);
    }
    let mut report = device_report(engines, plan, &fin, &stages);
    report.extend_from_slice(notes);
    if !cfg.stats {
        crate::sys::trace::lines(&report);
    }
    let mut buf = fin.desk.bufwtr.buffer();
    finish(
        cfg,
        searched,
        fin.stats.as_ref(),
        started,
        &mut buf,
        &report,
    )?;
    let _ = fin.desk.bufwtr.print(&buf);
    if fin.verify_failed {
        crate::sys::messages::set_errored();
    }
    Ok(fin.matched)
}

/// The walk on its own thread, sending every haystack to `tx`, its
/// messages held in `notes` for the finisher to print in their place; the
/// thread answers whether anything was found to search.
fn spawn_walk(
    cfg: &Config,
    tx: crossbeam_channel::Sender<Haystack>,
    notes: Arc<Notes>,
) -> anyhow::Result<std::thread::JoinHandle<bool>> {
    let walker = walk::walk_builder(cfg)?;
    let presorted = walk::presorted(cfg, &walker);
    let loops = walk::LoopCheck::of(cfg);
    let implicit = cfg.implicit_path;
    let threads = cfg.threads;
    let walk_thread = std::thread::spawn(move || {
        // The same walk the CPU engine uses (parallel unless sorting or
        // one file), so errors and order read the same as ripgrep's.
        let send = |hay: Haystack| {
            notes.sent();
            tx.send(hay).is_ok()
        };
        let hold = |r| walk::haystack_noting(r, implicit, &mut |n| notes.hold(n));
        if threads != 1 {
            return walk_parallel(walker, &hold, &send);
        }
        let hays: Box<dyn Iterator<Item = Haystack> + '_> = match presorted {
            Some(list) => Box::new(list.into_iter()),
            None => Box::new(loops.entries(walker.build()).filter_map(hold)),
        };
        let mut any = false;
        for hay in hays {
            any = true;
            if !send(hay) {
                break;
            }
        }
        any
    });
    Ok(walk_thread)
}

/// [`spawn_walk`]'s parallel walk: each entry to a haystack by `hold`,
/// sent by `send` (false: the search stopped); whether any was sent.
fn walk_parallel(
    walker: ignore::WalkBuilder,
    hold: &(dyn Fn(WalkResult) -> Option<Haystack> + Sync),
    send: &(dyn Fn(Haystack) -> bool + Sync),
) -> bool {
    let any = std::sync::atomic::AtomicBool::new(false);
    walker.build_parallel().run(|| {
        let any = &any;
        Box::new(move |r| {
            let Some(hay) = hold(r) else {
                return ignore::WalkState::Continue;
            };
            any.store(true, std::sync::atomic::Ordering::Relaxed);
            if send(hay) {
                ignore::WalkState::Continue
            } else {
                ignore::WalkState::Quit
            }
        })
    });
    any.into_inner()
}

/// The `--stats` lines of a device search: engine, kernel, patterns, the
/// DFA's candidates, the stream's stages (each device's share, with
/// several) and the device-numbered files.
fn device_report(
    engines: &[OpenClEngine],
    plan: &Plan,
    fin: &Finisher<'_, '_>,
    stages: &[StageStats],
) -> Vec<String> {
    let engine = &engines[0];
    let names: Vec<&str> = engines.iter().map(OpenClEngine::device_name).collect();
    let on = match names.as_slice() {
        [one] => one.to_string(),
        many => format!("{} devices ({})", many.len(), many.join(", ")),
    };
    let mut report = vec![
        format!("engine: opencl on {on}"),
        format!("kernel: {}", engine.kernel_name()),
        format!("patterns: {}", plan.describe()),
    ];
    if let Some(d) = engine.dfa_set() {
        report.push(format!(
            "dfa: the device decided candidate lines with {}; {} confirmed on the CPU ({} \
             as the stream went){}",
            d.describe(),
            count_of(fin.candidates, "candidate line"),
            fin.early_confirmed,
            match &fin.stats {
                Some(s) => format!(", {} matched", s.matched_lines()),
                None => String::new(),
            }
        ));
    }
    match stages {
        [one] => report.extend(stage_lines(one)),
        many => report.extend(device_shares(engines, many)),
    }
    if fin.numbered_files + fin.counted_files > 0 {
        report.push(format!(
            "line numbers from the device's newline counts: {} printed with -n, {} counted \
             with -c",
            count_of(fin.numbered_files, "file"),
            fin.counted_files
        ));
    }
    report
}

/// Each device's share of a search on several (`device N (name): ...`,
/// then its stages indented).
fn device_shares(engines: &[OpenClEngine], stages: &[StageStats]) -> Vec<String> {
    let total = stages.iter().map(|s| s.bytes).sum::<u64>().max(1);
    let mut lines = Vec::new();
    for (i, (e, s)) in engines.iter().zip(stages).enumerate() {
        lines.push(format!(
            "device {i} ({}): {} ({} on the CPU), {} ({:.0}%), {:.1} ms",
            e.device_name(),
            count_of(s.batches, "batch"),
            s.cpu_batches,
            count_of(s.bytes, "byte"),
            s.bytes as f64 * 100.0 / total as f64,
            s.wall.as_secs_f64() * 1e3
        ));
        lines.extend(stage_lines(s).into_iter().map(|l| format!("  {l}")));
    }
    lines
}

fn stage_lines(s: &StageStats) -> Vec<String> {
    s.summary().lines().map(str::to_string).collect()
}

/// Host finishing, in the source's order: takes each prepared batch
/// ([`Ready`]), prints the files finished in device threads, finishes the
/// others, and merges big files' chunks, finishing each at its last chunk.
struct Finisher<'a, 's> {
    prep: Prep<'a>,
    cfg: &'a Config,
    plan: &'a Plan,
    /// The printer of files finished here; its writer is stdout's.
    desk: Desk,
    stats: Option<Stats>,
    matched: bool,
    stop: bool,
    big: BigOffsets,
    /// The big file whose read failed: its later chunks are dropped.
    failed_file: Option<u64>,
    verify_failed: bool,
    /// Bytes printed so far (ripgrep's closed-pipe exit status depends on
    /// whether its output buffer was ever flushed).
    written: u64,
    /// Big files whose `-n` lines / `-c` counts came from device lines.
    numbered_files: u64,
    counted_files: u64,
    /// See `Source::cut`.
    cut: Arc<AtomicU64>,
    /// Offsets (or distinct lines, for line batches) the engine returned:
    /// for the DFA kernel, the candidate lines the CPU confirmed.
    candidates: u64,
    /// Where big files' finishes may run beside the stream (see
    /// [`Finisher::beside`]), and those running, oldest first, with their
    /// files.
    scope: Option<&'s std::thread::Scope<'s, 'a>>,
    pending: VecDeque<(Haystack, std::thread::ScopedJoinHandle<'s, Finished>)>,
    /// The current big file's candidates confirmed as its chunks stream,
    /// and how many candidates were (all files).
    early: Option<Early<'a, 's>>,
    early_confirmed: u64,
    /// The only file, big, printed as its chunks are committed.
    streaming: Option<(Haystack, Stream<'a, 's>)>,
    /// The walk's messages, each printed before the first file the walk
    /// found after it, and the files committed so far.
    notes: Arc<Notes>,
    files: u64,
}

/// Big files finishing beside the stream at once, at most, each on its
/// share of the cores ([`crate::sys::CoreShare`]). One at a time left two
/// H200s waiting on a tree of rule sets: a file of 256 MiB took about 9 ms
/// to finish, and two devices streamed it in less.
const FINISHING_AT_ONCE: usize = 4;

/// A big file finished beside the stream: its output and what it adds to
/// the finisher's tallies.
struct Finished {
    r: io::Result<SearchResult>,
    out: Buffer,
    verify_failed: bool,
    numbered_files: u64,
    counted_files: u64,
    early_confirmed: u64,
}

impl<'a, 's> Finisher<'a, 's> {
    fn new(
        cfg: &'a Config,
        plan: &'a Plan,
        scope: Option<&'s std::thread::Scope<'s, 'a>>,
    ) -> Finisher<'a, 's> {
        Finisher {
            prep: Prep { cfg, plan },
            cfg,
            plan,
            desk: Desk::new(cfg),
            stats: keeps_stats(cfg).then(Stats::new),
            matched: false,
            stop: false,
            big: BigOffsets::default(),
            failed_file: None,
            verify_failed: false,
            written: 0,
            numbered_files: 0,
            counted_files: 0,
            cut: Arc::new(AtomicU64::new(u64::MAX)),
            candidates: 0,
            scope,
            pending: VecDeque::new(),
            early: None,
            early_confirmed: 0,
            streaming: None,
            notes: Arc::default(),
            files: 0,
        }
    }

    /// Where a big file's finish (mapping it, confirming its candidate
    /// lines on its share of the cores, printing) runs on a thread of its
    /// own while the stream goes on to the next files, its output printed
    /// before anything that comes after it (`None`: here, in the stream). On a tree of 121 files of 256 MiB
    /// with a 200-rule set, the finishes took 1.1 s of one H200's 3.05 s
    /// stream, during which the device waited. Not with one search thread
    /// (the printer then separates files itself, so each file's output
    /// depends on the one before) nor when a match may end the search.
    fn beside(&self) -> Option<&'s std::thread::Scope<'s, 'a>> {
        self.scope
            .filter(|_| self.cfg.threads != 1 && !self.cfg.quit_after_match)
    }

    /// Prints the big files finishing beside the stream, in order, once
    /// each is done.
    fn settle(&mut self) {
        while !self.pending.is_empty() {
            self.settle_oldest();
        }
    }

    /// Prints the oldest big file finishing beside the stream, once done.
    fn settle_oldest(&mut self) {
        let Some((hay, handle)) = self.pending.pop_front() else {
            return;
        };
        let f = handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        self.verify_failed |= f.verify_failed;
        self.numbered_files += f.numbered_files;
        self.counted_files += f.counted_files;
        self.early_confirmed += f.early_confirmed;
        if !self.stop {
            self.emit(&hay, f.r, Some(&f.out));
        }
    }

    /// Finishes a big file at its last chunk: beside the stream when
    /// [`Finisher::beside`] gives a scope (after the oldest of [`FINISHING_AT_ONCE`]
    /// running is done), else here.
    fn finish_last(&mut self, p: Piece, mut big: BigOffsets, early: Option<Early<'a, 's>>) {
        while self.pending.len() >= FINISHING_AT_ONCE {
            self.settle_oldest();
        }
        if self.stop {
            return;
        }
        match self.beside() {
            Some(scope) => {
                let (cfg, plan, hay) = (self.cfg, self.plan, p.hay.clone());
                let handle = scope.spawn(move || {
                    let _share = crate::sys::CoreShare::take();
                    let mut fin = Finisher::new(cfg, plan, None);
                    if let Some(e) = early {
                        fin.early_confirmed = e.apply(&mut big.offsets, &mut big.numbers);
                    }
                    let r = fin.finish_big(&p.hay, p.file, big);
                    Finished {
                        r,
                        out: std::mem::replace(
                            fin.desk.printer.get_mut(),
                            fin.desk.bufwtr.buffer(),
                        ),
                        verify_failed: fin.verify_failed,
                        numbered_files: fin.numbered_files,
                        counted_files: fin.counted_files,
                        early_confirmed: fin.early_confirmed,
                    }
                });
                self.pending.push_back((hay, handle));
            }
            None => {
                if let Some(e) = early {
                    self.early_confirmed += e.apply(&mut big.offsets, &mut big.numbers);
                }
                let r = self.finish_big(&p.hay, p.file, big);
                self.emit(&p.hay, r, None);
            }
        }
    }

    /// Commits one prepared batch (`bytes`: the batch's, with one device;
    /// see `Item::Deferred`); returns false to stop the stream.
    fn commit(&mut self, ready: Ready, bytes: &[u8]) -> bool {
        self.candidates += ready.candidates;
        for item in ready.items {
            if !matches!(item, Item::Chunk(_)) {
                self.settle();
            }
            if self.stop {
                break;
            }
            self.count_file(&item);
            match item {
                Item::Error(p) => self.read_error(p),
                Item::Output {
                    hay,
                    out,
                    r,
                    disagreed,
                } => {
                    self.verify_failed |= disagreed;
                    self.emit(&hay, r, Some(&out));
                }
                Item::Deferred {
                    piece,
                    offsets,
                    bytes: copy,
                } => {
                    let range = piece.start..piece.start + piece.len;
                    let data = copy.as_deref().or_else(|| bytes.get(range)).unwrap_or(&[]);
                    let (r, disagreed) =
                        self.prep
                            .finish_piece(&mut self.desk, &piece, data, &offsets);
                    self.verify_failed |= disagreed;
                    self.emit(&piece.hay, r, None);
                }
                Item::Chunk(part) => self.merge_chunk(part),
            }
        }
        !self.stop
    }

    /// Counts the file `item` starts (any but a big file's later chunks),
    /// after printing the walk's messages found before it.
    fn count_file(&mut self, item: &Item) {
        let chunk = match item {
            Item::Error(p) | Item::Deferred { piece: p, .. } => p.chunk,
            Item::Chunk(part) => Some(part.chunk),
            Item::Output { .. } => None,
        };
        if chunk.is_none_or(|c| c.file_offset == 0) {
            self.notes.before(self.files);
            self.files += 1;
        }
    }

    /// A piece that could not be read: reported once, in order; a big
    /// file's later chunks are dropped.
    fn read_error(&mut self, p: Piece) {
        if let Some(c) = p.chunk {
            if self.failed_file == Some(c.file_no) {
                return;
            }
            self.failed_file = Some(c.file_no);
            // The lines before the error are printed already.
            self.end_stream();
            self.big = BigOffsets::default();
            self.early = None;
        }
        if let Some(e) = p.error {
            err_message!("{}: {}", p.hay.path.display(), e);
        }
    }

    /// Merges a chunk into its file's candidates; the last finishes it.
    fn merge_chunk(&mut self, part: ChunkPart) {
        let c = part.chunk;
        if self.failed_file == Some(c.file_no) {
            return;
        }
        if c.file_offset == 0 {
            self.streaming = self.streams(&part);
            if self.streaming.is_none() {
                self.early = self.confirms_early(&part);
            }
        }
        let big = &mut self.big;
        big.has_nul |= part.piece.has_nul;
        big.len = c.file_offset + part.len as u64;
        big.changed |= c.short;
        if c.file_offset == 0 {
            big.bom = part.bom;
            big.numbered = true;
        }
        let numbered = matches!(part.found, Found::Lines { .. });
        match part.found {
            Found::Lines { lines, owned_nl } => self.chunk_lines(c, &lines, owned_nl),
            Found::Offsets { lines, lead_end } => {
                self.big.numbered = false;
                self.track_lines(c, &lines, lead_end);
            }
        }
        if let Some(e) = self.early.as_mut() {
            e.hand(&self.big.offsets);
        }
        self.cut_if_answered(c);
        if self.streaming.is_some() {
            self.stream_chunk(c, (part.piece.has_nul, numbered));
        } else if c.last {
            let big = std::mem::take(&mut self.big);
            let early = self.early.take();
            self.finish_last(part.piece, big, early);
        }
    }

    /// The output of a big file whose lines are printed as its chunks are
    /// committed, from its first chunk (`search::streamed`): the only file
    /// searched, given on the command line, in a form only ripgrep's
    /// printer writes or as plain numbered lines, without `--verify`, `-v`,
    /// `-m` or a byte-order mark.
    fn streams(&self, first: &ChunkPart) -> Option<(Haystack, Stream<'a, 's>)> {
        let (cfg, hay) = (self.cfg, &first.piece.hay);
        let wanted = cfg.paths.len() == 1
            && hay.explicit
            && !cfg.verify
            && !cfg.invert
            && cfg.max_count.is_none()
            && !cfg.quit_after_match
            && !first.bom;
        let (scope, file) = (self.scope.filter(|_| wanted)?, first.piece.file.as_deref()?);
        let stream = Stream::start(scope, (cfg, self.plan), hay.path.clone(), file)?;
        Some((hay.clone(), stream))
    }

    /// Hands a streamed file's chunk to its output (the lines it added and
    /// their numbers, if `numbered`; with a NUL, the rest of the file); at
    /// the last chunk, or when the output takes no more (a closed pipe, or
    /// ripgrep's searcher took the rest of the file), the file's output is
    /// done and so is the search.
    fn stream_chunk(&mut self, c: Chunk, (nul, numbered): (bool, bool)) {
        let Some((_, stream)) = self.streaming.as_mut() else {
            return;
        };
        let chunk = ChunkLines {
            offsets: std::mem::take(&mut self.big.offsets),
            numbers: std::mem::take(&mut self.big.numbers),
            numbered,
            start: c.file_offset,
            nul,
        };
        if stream.send(chunk) && !c.last {
            return;
        }
        self.end_stream();
        self.stop = true;
    }

    /// Ends a streamed file's feed (if one is open) and takes its output's
    /// result: its lines are printed already.
    fn end_stream(&mut self) {
        let Some((hay, stream)) = self.streaming.take() else {
            return;
        };
        self.big = BigOffsets::default();
        match stream.finish() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => self.stop = true,
            r => {
                let empty = self.desk.bufwtr.buffer();
                self.emit(&hay, r, Some(&empty));
            }
        }
    }

    /// Whether a big file's candidate lines are confirmed as its chunks
    /// stream (`search::early`), from its first chunk: candidates that the
    /// finish would confirm (not exact lines, not `--verify`, not `-v`, not
    /// a file the searcher transcodes), in a file the chunk carries.
    fn confirms_early(&self, first: &ChunkPart) -> Option<Early<'a, 's>> {
        let wanted = !self.plan.exact_lines && !self.cfg.verify && !self.cfg.invert && !first.bom;
        let (scope, file) = (self.scope.filter(|_| wanted)?, first.piece.file.as_deref()?);
        Early::start(scope, self.plan, file)
    }

    /// A search that ends a file at its first matching line needs no more
    /// of a big file once a chunk matched (see `Source::cut`).
    fn cut_if_answered(&self, c: Chunk) {
        let early = self.cfg.quiet || self.cfg.lists_files();
        if early && self.big.lines > 0 && !c.last {
            self.cut.store(c.file_no, Ordering::Release);
        }
    }

    /// Takes a chunk's distinct matching lines: those whose first match is
    /// owned by this chunk and that no earlier chunk counted (a line
    /// crossing a chunk boundary has the same absolute number in both).
    /// Absolute numbers come from the newlines of the owned bytes of the
    /// chunks before plus the device's number within the chunk. Lines
    /// not read back (a count-only batch) lie strictly between the first
    /// line and the last few, so each is counted, none is owned by another
    /// chunk, and the last line counted is among those read.
    fn chunk_lines(&mut self, c: Chunk, lines: &BatchLines, owned_nl: u64) {
        let base = c.file_offset;
        let keep = !self.streams_count();
        debug_assert!(lines.omitted == 0 || !keep);
        let big = &mut self.big;
        for (i, (&line, &first)) in lines.lines.iter().zip(&lines.first).enumerate() {
            if i == lines.omitted_at {
                big.lines += lines.omitted as u64;
            }
            // Lines are sorted, so first offsets are too.
            if first as usize >= c.owned {
                break;
            }
            let abs = big.nl_before + u64::from(line);
            if big.last_line.is_some_and(|l| abs <= l) {
                continue;
            }
            big.last_line = Some(abs);
            big.lines += 1;
            if keep {
                big.offsets.push(base + u64::from(first));
                big.numbers.push(abs + 1);
            }
        }
        big.nl_before += owned_nl;
    }

    /// Whether a `-c` over a chunked file is answered by counting lines as
    /// the chunks stream by, holding no offsets and mapping nothing.
    fn streams_count(&self) -> bool {
        self.plan.exact_lines
            && crate::output::plain::count_eligible(self.cfg)
            && self.cfg.mode == OutputMode::Count
            && !self.cfg.stats
            && !self.cfg.verify
    }

    /// Counts the distinct lines holding the chunk's owned offsets (and,
    /// unless only a count is wanted, keeps one offset per line): the
    /// chunk's lines (see `ChunkPart::from_offsets`) but those a line
    /// running in from the chunk before already holds.
    fn track_lines(&mut self, c: Chunk, lines: &[(u64, u64, bool)], lead_end: (u64, bool)) {
        let keep = !self.streams_count();
        let big = &mut self.big;
        if big.open {
            // The previous chunk's last counted line runs into this one,
            // which starts `lead` bytes before that chunk ended.
            big.changed |= big.line_end != c.file_offset + c.lead as u64;
            (big.line_end, big.open) = lead_end;
        }
        for &(abs, end, open) in lines {
            if abs < big.line_end {
                continue;
            }
            big.lines += 1;
            if keep {
                big.offsets.push(abs);
            }
            (big.line_end, big.open) = (end, open);
        }
    }

    /// Finishes a file read in chunks: the host reads it again through a
    /// memory map (or into memory when mapping fails) and visits only the
    /// candidate lines.
    fn finish_big(
        &mut self,
        hay: &Haystack,
        file: Option<Arc<File>>,
        big: BigOffsets,
    ) -> io::Result<SearchResult> {
        let file = match file {
            Some(f) => f,
            None => Arc::new(File::open(&hay.path)?),
        };
        let unchanged = !big.changed && file.metadata().is_ok_and(|m| m.len() == big.len);
        if self.streams_count() && !big.has_nul && !big.bom && unchanged {
            // Counted while streaming: nothing to map or re-read.
            if big.numbered {
                self.counted_files += 1;
            }
            let mut out = Vec::new();
            let plain = crate::output::style::Style::new(None);
            crate::output::plain::write_count(self.cfg, &hay.path, big.lines, plain, &mut out);
            self.desk.printer.get_mut().write_all(&out)?;
            return Ok(SearchResult {
                has_match: big.lines > 0,
                stats: None,
            });
        }
        // The map is made under the SIGBUS guard (see `sys::guard` for the
        // SAFETY reasoning): a file that shrinks now is reported, not fatal.
        let map = crate::sys::guard::GuardedMap::map(&file).ok().flatten();
        let owned;
        let data: &[u8] = match &map {
            Some(m) => m,
            None => {
                let mut v = Vec::new();
                io::Seek::seek(&mut &*file, io::SeekFrom::Start(0))?;
                (&*file).read_to_end(&mut v)?;
                owned = v;
                &owned
            }
        };
        let consistent = big.offsets.windows(2).all(|w| w[0] <= w[1])
            && big.offsets.last().is_none_or(|&o| o < data.len() as u64);
        let r = if data.len() as u64 != big.len || !consistent || big.changed {
            // The file changed since the device read it: the offsets no
            // longer describe these bytes, so search them exactly.
            self.finish_big_bytes(hay, data, &[], true)
        } else if let Some(r) = self.print_numbered(hay, data, map.as_ref(), &big) {
            r
        } else if let Some(r) = (!big.has_nul && !self.cfg.verify)
            .then(|| {
                // Counts or numbered lines by every core, no single-threaded
                // rescan of the file.
                let text = crate::output::plain::Text::of_plan(self.plan, data, map.as_ref());
                let w = self.desk.printer.get_mut();
                crate::output::plain::try_print(self.cfg, &hay.path, text, &big.offsets, w)
            })
            .flatten()
        {
            r
        } else {
            self.finish_big_bytes(hay, data, &big.offsets, big.has_nul)
        };
        if map.as_ref().is_some_and(|m| m.faulted()) {
            return Err(crate::sys::guard::shrank_error());
        }
        r
    }

    /// `-n`, or context lines, on a big file whose line numbers came with
    /// its device lines: only the lines printed are read, no newline is
    /// counted on the host.
    /// `None` when the output or the bytes need another path.
    fn print_numbered(
        &mut self,
        hay: &Haystack,
        data: &[u8],
        map: Option<&crate::sys::guard::GuardedMap>,
        big: &BigOffsets,
    ) -> Option<io::Result<SearchResult>> {
        let text = crate::output::plain::Text::of_plan(self.plan, data, map);
        // With context, the device lines must be exactly the matching lines.
        let context = crate::output::plain::context_eligible(self.cfg) && self.plan.exact_lines;
        let usable = (context || crate::output::plain::eligible(self.cfg))
            && big.numbered
            && big.numbers.len() == big.offsets.len()
            && !big.has_nul
            && !big.bom
            && !self.cfg.verify
            && crate::output::plain::plain_text(data)
            // Last: it reads each candidate's line start.
            && !text.needs_order(&big.offsets);
        if !usable {
            return None;
        }
        self.numbered_files += 1;
        let lines = crate::output::plain::NumberedLines {
            path: &hay.path,
            text,
            offsets: &big.offsets,
            numbers: &big.numbers,
        };
        let w = self.desk.printer.get_mut();
        let r = if context {
            crate::output::plain::print_context(self.cfg, lines, w)
        } else {
            crate::output::plain::print_numbered(self.cfg, lines, w)
        };
        Some(r.map(|has_match| SearchResult {
            has_match,
            stats: None,
        }))
    }

    /// `Prep::finish_bytes` with the finisher's printer.
    fn finish_big_bytes(
        &mut self,
        hay: &Haystack,
        data: &[u8],
        offsets: &[u64],
        has_nul: bool,
    ) -> io::Result<SearchResult> {
        let (r, disagreed) = self
            .prep
            .finish_bytes(&mut self.desk, hay, data, offsets, has_nul);
        self.verify_failed |= disagreed;
        r
    }

    /// Prints a file's output: `out`, or (none given) what the finisher's
    /// printer holds, which is then cleared.
    fn emit(&mut self, hay: &Haystack, r: io::Result<SearchResult>, out: Option<&Buffer>) {
        let mut has_match = false;
        match r {
            Ok(r) => {
                has_match = r.has_match;
                if let (Some(s), Some(rs)) = (self.stats.as_mut(), r.stats.as_ref()) {
                    *s += rs;
                }
            }
            Err(e) => err_message!("{}: {}", hay.path.display(), e),
        }
        let out: &Buffer = match out {
            Some(b) => b,
            None => self.desk.printer.get_mut(),
        };
        let len = out.as_slice().len() as u64;
        match self.desk.bufwtr.print(out) {
            Ok(()) => {
                self.matched |= has_match;
                self.written += len;
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                // ripgrep's single-threaded search writes as it searches and
                // so does not count a file whose output hit a closed pipe;
                // its parallel search prints whole buffers after counting.
                // Its stdout is block-buffered (8 KiB) when not a terminal:
                // output that fits there only fails at the final flush,
                // after the file was counted.
                let buffered = !self.cfg.is_terminal_stdout && self.written + len <= 8192;
                if self.cfg.threads != 1 || buffered {
                    self.matched |= has_match;
                }
                self.stop = true;
            }
            Err(e) => {
                self.matched |= has_match;
                err_message!("{}: {}", hay.path.display(), e);
            }
        }
        self.desk.printer.get_mut().clear();
        if self.matched && self.cfg.quit_after_match {
            self.stop = true;
        }
    }
}
