//! One big file's matching lines printed by ripgrep's searcher while its
//! chunks are still being searched, for the drivers that search a file in
//! chunks on the device: the hybrid queue ([`super::hybrid`]) and the
//! device loop ([`super::device`], through [`Stream`]). Each chunk's
//! answer goes, in file order, over a bounded channel to a [`FedMatcher`]
//! on the printing thread, so the first lines leave after the first chunk,
//! the memory held for order is bounded, and a closed pipe drops the
//! channel, which tells the searchers to stop. The device loop writes
//! plain numbered lines itself, chunk by chunk, with the device's line
//! numbers ([`NumberedStream`]).

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use grep_matcher::Matcher;

use crate::cli::config::{Config, OutputMode};
use crate::matcher::fed::{FedMatcher, Piece};
use crate::matcher::plan::Plan;
use crate::matcher::searcher::{binary_detection, searcher};
use crate::output::printer::{Input, Printer, SearchResult};
use crate::output::writer::{FlushOnWait, flush_watched, stdout};
use crate::sys::guard::GuardedMap;

/// Chunks answered ahead of the printer at most (each up to 32 MiB of the
/// file, its offsets a few per matching line).
const AHEAD: usize = 4;

/// Whether `cfg`'s output streams: lines (or JSON) in a form only
/// ripgrep's printer writes (counts and plain lines, numbered or not, are
/// written by every core once the file is answered), whose lines are
/// decided each alone (no line whose answer depends on the line before it:
/// `Plan::line_context`), from a map of the file: ripgrep's reads (with
/// `--no-mmap`) cut a line at a NUL, which a search of the map does not.
pub fn streams(cfg: &Config, plan: &Plan) -> bool {
    streamable(cfg, plan) && !crate::output::plain::eligible(cfg)
}

/// Whether `cfg`'s output is plain numbered lines that the device loop
/// writes chunk by chunk ([`NumberedStream`]) where the device numbers
/// them.
pub fn streams_numbered(cfg: &Config, plan: &Plan) -> bool {
    streamable(cfg, plan) && crate::output::plain::eligible(cfg)
}

/// Lines (or JSON) of a mapped file, each decided alone.
fn streamable(cfg: &Config, plan: &Plan) -> bool {
    matches!(cfg.mode, OutputMode::Standard | OutputMode::Json)
        && !cfg.quiet
        && cfg.use_mmap
        && (plan.exact_lines || !plan.line_context)
}

/// A channel for the chunks' answers, in file order.
pub fn channel() -> (SyncSender<Piece>, Receiver<Piece>) {
    sync_channel(AHEAD)
}

/// What ripgrep's searcher looks at for binary data in a map before it
/// prints any line (grep-searcher's `DEFAULT_BUFFER_CAPACITY`).
const BINARY_HEAD: usize = 64 << 10;

/// Whether the first [`BINARY_HEAD`] bytes of a mapped file hold a NUL:
/// then ripgrep's searcher decides the whole file (it prints no line of it
/// before seeing that NUL), so a stream hands it the file from its start,
/// whatever the first chunks' answers.
pub fn binary_head(data: &[u8]) -> bool {
    memchr::memchr(0, &data[..data.len().min(BINARY_HEAD)]).is_some()
}

/// The piece that hands the rest of `data` to the searcher from the line
/// holding byte `at` (a chunk holding a NUL: the searcher's own binary
/// detection then decides, as a search of the whole file would).
pub fn undecided_from(data: &[u8], at: usize) -> Piece {
    Piece::Undecided(crate::pipeline::lines::prev_line_start(data, at) as u64)
}

/// Prints the lines of `map` that `from` sends (see [`FedMatcher`]): the
/// matching lines, or with `candidates` lines the searcher decides with
/// the plan's matcher (the DFA kernels' candidate lines). What is printed
/// is flushed whenever the printer waits for the next chunk, and a reader
/// that has gone ends the search as a closed pipe ([`FlushOnWait`]).
pub fn print_fed(
    (cfg, plan): (&Config, &Plan),
    path: &Path,
    map: &GuardedMap,
    (from, candidates): (Receiver<Piece>, bool),
    printer: &mut Printer<FlushOnWait>,
) -> io::Result<SearchResult> {
    let mut srch = searcher(cfg);
    srch.set_binary_detection(binary_detection(cfg, true));
    let term = Matcher::line_terminator(&plan.line_matcher());
    let out = printer.get_mut().clone();
    let idle = || out.idle();
    let fed = FedMatcher::new(plan.search_matcher(), map, term, from).idling(&idle);
    let fed = if candidates { fed.candidates() } else { fed };
    let data: &[u8] = map;
    let r = printer.search(&mut srch, fed, path, Input::Slice(data));
    match out.gone() {
        true => Err(io::ErrorKind::BrokenPipe.into()),
        false => r,
    }
}

/// [`print_fed`] to stdout, flushed.
fn print_fed_stdout(
    (cfg, plan): (&Config, &Plan),
    path: &Path,
    map: &GuardedMap,
    feed: (Receiver<Piece>, bool),
) -> io::Result<SearchResult> {
    let mut printer = Printer::new(cfg, FlushOnWait::stdout(cfg));
    let r = print_fed((cfg, plan), path, map, feed, &mut printer)?;
    printer.get_mut().flush()?;
    Ok(r)
}

/// The device loop's one big file printed as its chunks are committed: a
/// thread of the loop's scope prints to stdout through [`print_fed`] while
/// the committing thread sends each chunk's line offsets.
pub struct BigStream<'s> {
    tx: Option<SyncSender<Piece>>,
    printing: std::thread::ScopedJoinHandle<'s, io::Result<SearchResult>>,
    map: Arc<GuardedMap>,
}

impl<'s> BigStream<'s> {
    /// Starts printing `path`, read from `file`, on a thread of `scope`;
    /// `None` when the file cannot be mapped (it is then finished as
    /// usual, after its last chunk).
    pub fn start<'a: 's>(
        scope: &'s std::thread::Scope<'s, 'a>,
        (cfg, plan): (&'a Config, &'a Plan),
        path: std::path::PathBuf,
        file: &std::fs::File,
    ) -> Option<BigStream<'s>> {
        let map = Arc::new(GuardedMap::map(file).ok().flatten()?);
        crate::sys::trace::mark("big file: printed as its chunks are committed");
        let (tx, rx) = channel();
        let shared = Arc::clone(&map);
        let printing = scope.spawn(move || {
            let candidates = !plan.exact_lines;
            let r = print_fed_stdout((cfg, plan), &path, &shared, (rx, candidates))?;
            if shared.faulted() {
                return Err(crate::sys::guard::shrank_error());
            }
            Ok(r)
        });
        Some(BigStream {
            tx: Some(tx),
            printing,
            map,
        })
    }

    /// Sends the line offsets of the chunk that starts at `chunk_start`
    /// (sorted, one or more in each matching line, none before the lines
    /// sent already), or with `nul` the rest of the file from there to the
    /// searcher. False when the printer takes no more: it stopped (a
    /// closed pipe, binary data), or decides the rest itself.
    pub fn send(&mut self, offsets: Vec<u64>, (chunk_start, nul): (u64, bool)) -> bool {
        let Some(tx) = self.tx.as_ref() else {
            return false;
        };
        let nul = nul || (chunk_start == 0 && binary_head(&self.map));
        let piece = match nul {
            true => undecided_from(&self.map, chunk_start as usize),
            false => Piece::Starts(offsets),
        };
        let sent = tx.send(piece).is_ok();
        if nul || !sent {
            self.tx = None;
        }
        sent && !nul
    }

    /// Ends the feed and waits for the printer's result.
    pub fn finish(mut self) -> io::Result<SearchResult> {
        self.tx = None;
        self.printing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

/// A chunk of the device loop's streamed file, as it is committed.
pub struct ChunkLines {
    /// Sorted offsets, one or more in each matching line, none in the
    /// lines sent already.
    pub offsets: Vec<u64>,
    /// The 1-based numbers of their lines, where the device numbered them.
    pub numbers: Vec<u64>,
    /// The chunk came with line numbers (a batch the CPU answered for the
    /// device did not).
    pub numbered: bool,
    /// The chunk's first byte in the file.
    pub start: u64,
    /// The chunk holds a NUL: from its first line on, ripgrep's searcher
    /// decides the rest of the file, binary detection included.
    pub nul: bool,
}

/// The device loop's one big file printed as its chunks are committed:
/// through ripgrep's printer on a thread of its own, or (plain numbered
/// lines) written here with the device's line numbers.
pub enum Stream<'a, 's> {
    Printed(BigStream<'s>),
    Numbered(NumberedStream<'a>),
}

impl<'a: 's, 's> Stream<'a, 's> {
    /// The stream for `cfg`'s output, if it streams ([`streams`],
    /// [`streams_numbered`]); `None` also when the file cannot be mapped.
    pub fn start(
        scope: &'s std::thread::Scope<'s, 'a>,
        (cfg, plan): (&'a Config, &'a Plan),
        path: std::path::PathBuf,
        file: &std::fs::File,
    ) -> Option<Stream<'a, 's>> {
        if streams(cfg, plan) {
            return BigStream::start(scope, (cfg, plan), path, file).map(Stream::Printed);
        }
        let numbered =
            streams_numbered(cfg, plan).then(|| NumberedStream::start((cfg, plan), path, file));
        numbered.flatten().map(Stream::Numbered)
    }

    /// Prints (or hands to the printer) one chunk's lines; false when the
    /// output takes no more: it stopped (a closed pipe, binary data) or
    /// the rest of the file was handed to ripgrep's searcher.
    pub fn send(&mut self, chunk: ChunkLines) -> bool {
        match self {
            Stream::Printed(s) => s.send(chunk.offsets, (chunk.start, chunk.nul)),
            Stream::Numbered(s) => s.send(chunk),
        }
    }

    /// Ends the output and gives its result.
    pub fn finish(self) -> io::Result<SearchResult> {
        match self {
            Stream::Printed(s) => s.finish(),
            Stream::Numbered(s) => s.finish(),
        }
    }
}

/// Plain numbered lines of one big file, each chunk's written to stdout
/// by `output::plain::print_numbered` as it comes, in file order, and
/// flushed: nothing held but the chunk's. The device loop's chunks carry
/// the device's line numbers; the others (the hybrid queue's, a batch the
/// CPU answered for the device) are numbered here, by counting the lines
/// from the last one numbered. A chunk holding a NUL, or whose candidates'
/// answers need the line before, hands the rest of the file to ripgrep's
/// searcher, which counts the lines before it.
pub struct NumberedStream<'a> {
    cfg: &'a Config,
    plan: &'a Plan,
    path: std::path::PathBuf,
    map: Held<'a>,
    out: grep_cli::StandardStream,
    printed: bool,
    /// Where the lines decided so far end.
    decided_to: usize,
    /// An offset and the 1-based number of its line, from which the
    /// lines of a chunk without numbers are counted.
    anchor: (usize, u64),
    /// The output's result once it took its last chunk early.
    ended: Option<io::Result<SearchResult>>,
}

/// The map a [`NumberedStream`] prints from: its own, or its caller's
/// (who then reports a file that shrank).
enum Held<'a> {
    Own(GuardedMap),
    Lent(&'a GuardedMap),
}

impl std::ops::Deref for Held<'_> {
    type Target = GuardedMap;

    fn deref(&self) -> &GuardedMap {
        match self {
            Held::Own(m) => m,
            Held::Lent(m) => m,
        }
    }
}

impl<'a> NumberedStream<'a> {
    fn start(
        (cfg, plan): (&'a Config, &'a Plan),
        path: std::path::PathBuf,
        file: &std::fs::File,
    ) -> Option<NumberedStream<'a>> {
        let map = GuardedMap::map(file).ok().flatten()?;
        NumberedStream::over((cfg, plan), path, Held::Own(map))
    }

    /// The numbered lines of `map`, which the caller mapped (and checks
    /// for a file that shrank); `None` as for [`NumberedStream::over`].
    pub fn of_map(
        (cfg, plan): (&'a Config, &'a Plan),
        path: std::path::PathBuf,
        map: &'a GuardedMap,
    ) -> Option<NumberedStream<'a>> {
        NumberedStream::over((cfg, plan), path, Held::Lent(map))
    }

    /// `None` for a file that opens with a byte-order mark: ripgrep's
    /// searcher strips it, so its printer writes such a file's lines.
    fn over(
        (cfg, plan): (&'a Config, &'a Plan),
        path: std::path::PathBuf,
        map: Held<'a>,
    ) -> Option<NumberedStream<'a>> {
        if !crate::output::plain::plain_text(&map) {
            return None;
        }
        crate::sys::trace::mark("big file: numbered lines written as its chunks come");
        Some(NumberedStream {
            cfg,
            plan,
            path,
            map,
            out: stdout(cfg),
            printed: false,
            decided_to: 0,
            anchor: (0, 1),
            ended: None,
        })
    }

    /// Prints one chunk's lines, numbered by the device or here; false
    /// when the output takes no more: the reader has gone, or the rest of
    /// the file was handed to ripgrep's searcher.
    pub fn send(&mut self, chunk: ChunkLines) -> bool {
        if self.ended.is_some() {
            return false;
        }
        let text = crate::output::plain::Text::of_plan(self.plan, &self.map, Some(&self.map));
        let nul = chunk.nul || (chunk.start == 0 && binary_head(&self.map));
        if nul || text.needs_order(&chunk.offsets) {
            self.ended = Some(self.rest_from(chunk.start));
            return false;
        }
        let (offsets, numbers) = self.lines_of(chunk);
        let (offsets, numbers) = (&offsets[..], &numbers[..]);
        let lines = crate::output::plain::NumberedLines {
            path: &self.path,
            text,
            offsets,
            numbers,
        };
        match crate::output::plain::print_numbered(self.cfg, lines, &mut self.out) {
            Ok(any) => self.printed |= any,
            Err(e) => self.ended = Some(Err(e)),
        }
        if let (Some(&last), Some(&number)) = (offsets.last(), numbers.last()) {
            let last = last as usize;
            self.decided_to = crate::pipeline::lines::line_end(&self.map, last);
            self.map.release(self.anchor.0..last);
            self.anchor = (last, number);
        }
        // Each chunk's lines leave at once; a reader that has gone ends it.
        if self.ended.is_none()
            && let Err(e) = flush_watched(&mut self.out, true)
        {
            self.ended = Some(Err(e));
        }
        self.ended.is_none()
    }

    /// One offset in each of the chunk's lines not decided yet (a line
    /// that crosses into the chunk may have been decided with the chunk
    /// before, and a line may hold several matches, or be reported by the
    /// chunks on both sides of a boundary), with its line's number: the
    /// device's, or counted here. Offsets of one line share its number, so
    /// no line is read to tell them apart (reading each candidate's line
    /// would map in most of the file).
    fn lines_of(&self, chunk: ChunkLines) -> (Vec<u64>, Vec<u64>) {
        let fresh = chunk
            .offsets
            .partition_point(|&o| (o as usize) < self.decided_to);
        let offsets = &chunk.offsets[fresh..];
        let counted;
        let numbers = match chunk.numbered && chunk.numbers.len() == chunk.offsets.len() {
            true => &chunk.numbers[fresh..],
            false => {
                counted = self.count_to(offsets);
                &counted[..]
            }
        };
        let (mut firsts, mut their) = (Vec::new(), Vec::new());
        for (&o, &n) in offsets.iter().zip(numbers) {
            if their.last() != Some(&n) {
                firsts.push(o);
                their.push(n);
            }
        }
        (firsts, their)
    }

    /// The 1-based numbers of the lines holding `offsets` (sorted, none
    /// before the last line numbered), counted from the last line
    /// numbered.
    fn count_to(&self, offsets: &[u64]) -> Vec<u64> {
        let threads = crate::sys::core_share();
        let map: &GuardedMap = &self.map;
        crate::pipeline::lines::line_numbers((map, Some(map)), self.anchor, offsets, threads)
    }

    /// The file from the line holding `start` on (past the lines decided
    /// already: one that runs into the chunk was the chunk before's), by
    /// ripgrep's searcher.
    fn rest_from(&mut self, start: u64) -> io::Result<SearchResult> {
        self.out.flush()?;
        let (tx, rx) = channel();
        let from = crate::pipeline::lines::prev_line_start(&self.map, start as usize);
        let _ = tx.send(Piece::Undecided(from.max(self.decided_to) as u64));
        drop(tx);
        let (cfg, plan) = (self.cfg, self.plan);
        let r = print_fed_stdout((cfg, plan), &self.path, &self.map, (rx, false))?;
        Ok(SearchResult {
            has_match: r.has_match || self.printed,
            stats: r.stats,
        })
    }

    /// Ends the output (flushed) and gives its result.
    pub fn finish(mut self) -> io::Result<SearchResult> {
        if let Some(r) = self.ended.take() {
            return r;
        }
        self.out.flush()?;
        if matches!(&self.map, Held::Own(m) if m.faulted()) {
            return Err(crate::sys::guard::shrank_error());
        }
        Ok(SearchResult {
            has_match: self.printed,
            stats: None,
        })
    }
}
