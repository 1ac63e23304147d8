//! One big file's matching lines printed by ripgrep's searcher while its
//! chunks are still being searched, for the drivers that search a file in
//! chunks on the device: the hybrid queue ([`super::hybrid`]) and the
//! device loop ([`super::device`], through [`BigStream`]). Each chunk's
//! answer goes, in file order, over a bounded channel to a [`FedMatcher`]
//! on the printing thread, so the first lines leave after the first chunk,
//! the memory held for order is bounded, and a closed pipe drops the
//! channel, which tells the searchers to stop.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use grep_matcher::Matcher;
use termcolor::WriteColor;

use crate::cli::config::{Config, OutputMode};
use crate::matcher::fed::{FedMatcher, Piece};
use crate::matcher::plan::Plan;
use crate::matcher::searcher::{binary_detection, searcher};
use crate::output::printer::{Input, Printer, SearchResult};
use crate::output::writer::stdout;
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
    matches!(cfg.mode, OutputMode::Standard | OutputMode::Json)
        && !cfg.quiet
        && cfg.use_mmap
        && !crate::output::plain::eligible(cfg)
        && (plan.exact_lines || !plan.line_context)
}

/// A channel for the chunks' answers, in file order.
pub fn channel() -> (SyncSender<Piece>, Receiver<Piece>) {
    sync_channel(AHEAD)
}

/// The piece that hands the rest of `data` to the searcher from the line
/// holding byte `at` (a chunk holding a NUL: the searcher's own binary
/// detection then decides, as a search of the whole file would).
pub fn undecided_from(data: &[u8], at: usize) -> Piece {
    Piece::Undecided(crate::pipeline::lines::prev_line_start(data, at) as u64)
}

/// Prints the lines of `map` that `from` sends (see [`FedMatcher`]): the
/// matching lines, or with `candidates` lines the searcher decides with
/// the plan's matcher (the DFA kernels' candidate lines).
pub fn print_fed<W: WriteColor>(
    (cfg, plan): (&Config, &Plan),
    path: &Path,
    map: &GuardedMap,
    (from, candidates): (Receiver<Piece>, bool),
    printer: &mut Printer<W>,
) -> io::Result<SearchResult> {
    let mut srch = searcher(cfg);
    srch.set_binary_detection(binary_detection(cfg, true));
    let term = Matcher::line_terminator(&plan.line_matcher());
    let fed = FedMatcher::new(plan.search_matcher(), map, term, from);
    let fed = if candidates { fed.candidates() } else { fed };
    let data: &[u8] = map;
    printer.search(&mut srch, fed, path, Input::Slice(data))
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
            let mut printer = Printer::new(cfg, stdout(cfg));
            let candidates = !plan.exact_lines;
            let r = print_fed((cfg, plan), &path, &shared, (rx, candidates), &mut printer)?;
            printer.get_mut().flush()?;
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
