//! The search loop for an OpenCL device: files are read straight into the
//! engine's pinned staging buffers (many small files packed per batch, big
//! files cut into overlapping chunks), the device finds candidate offsets,
//! and the host finishes each file with ripgrep's searcher and printers,
//! visiting only the candidate lines (see `offsets::OffsetMatcher`).
//!
//! Files that contain a NUL byte are finished exactly as the CPU engine
//! would search them (same bytes, same binary detection), so binary-file
//! behaviour never depends on the engine.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crossbeam_channel::Receiver;
use grep_printer::Stats;

use crate::sys::count_of;
use grep_searcher::Searcher;

use crate::cli::config::{Config, OutputMode};
use crate::err_message;
use crate::matcher::offsets::OffsetMatcher;
use crate::matcher::plan::Plan;
use crate::matcher::searcher::{binary_detection, searcher};
use crate::opencl::{BatchLines, BatchResult, BatchSource, OpenClEngine, StageStats};
use crate::output::printer::{Input, Printer, SearchResult};
use crate::output::stats::{finish, keeps_stats};
use crate::output::writer::buffer_writer;
use crate::search::haystack::search_haystack;
use crate::walk::{self, Haystack};

/// One file (or stdin) in a batch, or one chunk of a file too big for one.
pub struct Piece {
    hay: Haystack,
    /// Offset of the piece in the batch.
    start: usize,
    /// Bytes of the piece in the batch.
    len: usize,
    /// For a chunk: where the batch bytes start in the file, which starts
    /// it owns, and whether it is the last.
    chunk: Option<Chunk>,
    /// Why reading failed, if it did (reported by the sink, in order).
    error: Option<io::Error>,
    /// Whether the bytes hold a NUL (binary detection applies).
    has_nul: bool,
    /// Nothing staged: the finisher searches the haystack itself on the
    /// CPU (standard input, FIFOs and other non-regular files, which cannot
    /// be re-read; files needing chunks when a pattern is too long for the
    /// batch to make progress).
    cpu: bool,
    /// The last chunk of a big file carries the file it was read from, so
    /// the finisher maps the same file (not whatever the path names by
    /// then: a file deleted or replaced meanwhile is finished as read).
    file: Option<File>,
}

#[derive(Clone, Copy)]
struct Chunk {
    /// Which big file (numbered as opened), for [`Source::cut`].
    file_no: u64,
    file_offset: u64,
    /// Occurrences starting before this chunk offset belong to this chunk.
    owned: usize,
    last: bool,
}

/// A file being read in chunks across batches.
struct OpenBig {
    hay: Haystack,
    file: File,
    /// Numbered in the order the big files are opened.
    no: u64,
    /// Next byte of the file to read (before the overlap is added back).
    next: u64,
}

/// Reads haystacks into staging buffers.
struct Source {
    rx: Receiver<Haystack>,
    pending: Option<Haystack>,
    big: Option<OpenBig>,
    overlap: usize,
    /// Chunks of big files come back as distinct matching lines numbered
    /// on the device (not under `--verify`, which checks the offsets path).
    chunk_lines: bool,
    /// Of those lines only the count matters (`Finisher::streams_count`).
    count_only: bool,
    /// Big files opened so far.
    opened: u64,
    /// The big file the finisher no longer needs read (`-l`,
    /// `--files-without-match` and `-q` once it matched; `u64::MAX`: none):
    /// its next chunk is its last, and the finisher answers it exactly from
    /// the file itself, as a file that changed size, which stops at the
    /// first match as the CPU engine does.
    cut: Arc<AtomicU64>,
}

impl Source {
    /// Starts reading `hay` in chunks: its first chunk.
    fn open_big(&mut self, hay: Haystack, file: File, buf: &mut [u8]) -> (usize, Vec<Piece>) {
        self.big = Some(OpenBig {
            hay,
            file,
            no: self.opened,
            next: 0,
        });
        self.opened += 1;
        self.fill_chunk(buf)
    }

    fn next_hay(&mut self) -> Option<Haystack> {
        self.pending.take().or_else(|| self.rx.recv().ok())
    }

    /// Whether chunks of a `cap`-byte batch can overlap by the longest
    /// literal - 1 and still advance (a pattern longer than half a batch,
    /// e.g. with a tiny `GSEARCH_BATCH_BYTES`, cannot be chunked: such a
    /// file is searched on the CPU instead, so no match is lost).
    fn chunks_progress(&self, cap: usize) -> bool {
        self.overlap <= cap / 2 && cap > 1
    }

    /// Fills the next chunk of the big file being read. Consecutive chunks
    /// overlap by `overlap` bytes (longest literal - 1): a chunk owns the
    /// starts before its last `overlap` bytes (all of them when it is the
    /// last chunk), so every occurrence is whole in the chunk that owns it.
    fn fill_chunk(&mut self, buf: &mut [u8]) -> (usize, Vec<Piece>) {
        let overlap = self.overlap.min(buf.len() / 2);
        let big = self.big.as_mut().expect("a big file is open");
        let from = big.next;
        let (n, err, has_nul) = crate::pipeline::fill::pread_parallel(&big.file, buf, from);
        let cut = self.cut.load(Ordering::Acquire) == big.no;
        let last = n < buf.len() || err.is_some() || cut;
        let owned = if last { n } else { n - overlap };
        let piece = Piece {
            hay: big.hay.clone(),
            start: 0,
            len: n,
            chunk: Some(Chunk {
                file_no: big.no,
                file_offset: from,
                owned,
                last,
            }),
            error: err,
            has_nul,
            cpu: false,
            file: None,
        };
        big.next = from + owned as u64;
        let mut piece = piece;
        if last {
            piece.file = self.big.take().map(|b| b.file);
        }
        (n, vec![piece])
    }
}

impl BatchSource for Source {
    type Tag = Vec<Piece>;

    fn wants_lines(&self, tag: &Vec<Piece>) -> bool {
        self.chunk_lines && matches!(tag.as_slice(), [p] if p.chunk.is_some() && !p.cpu)
    }

    fn counts_only(&self, tag: &Vec<Piece>) -> bool {
        self.count_only && self.wants_lines(tag)
    }

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, Vec<Piece>)> {
        if self.big.is_some() {
            return Some(self.fill_chunk(buf));
        }
        let mut pieces = Vec::new();
        let mut used = 0;
        while let Some(hay) = self.next_hay() {
            let start = if used == 0 { 0 } else { used + 1 };
            // Standard input and non-regular files (an explicit FIFO or
            // device) are read once, as a stream, by the finisher.
            let regular = !hay.stdin && std::fs::metadata(&hay.path).is_ok_and(|m| m.is_file());
            if hay.stdin || !regular {
                if !pieces.is_empty() {
                    self.pending = Some(hay);
                    break;
                }
                return Some(cpu_piece(hay));
            }
            let file = match File::open(&hay.path) {
                Ok(f) => f,
                Err(e) => {
                    pieces.push(Piece::failed(hay, e));
                    continue;
                }
            };
            let size = file.metadata().map(|m| m.len()).unwrap_or(0) as usize;
            if start + size >= buf.len() {
                if !pieces.is_empty() {
                    self.pending = Some(hay);
                    break;
                }
                if size >= buf.len() && !self.chunks_progress(buf.len()) {
                    return Some(cpu_piece(hay));
                }
                if size >= buf.len() {
                    return Some(self.open_big(hay, file, buf));
                }
            }
            if start > 0 {
                buf[used] = b'\n';
            }
            let (n, err) = crate::pipeline::fill::read_full(&file, &mut buf[start..]);
            let grew = n == buf.len() - start;
            if grew && err.is_none() {
                // The file grew past the space left: read it in chunks.
                if pieces.is_empty() && !self.chunks_progress(buf.len()) {
                    return Some(cpu_piece(hay));
                }
                if pieces.is_empty() {
                    return Some(self.open_big(hay, file, buf));
                }
                self.pending = Some(hay);
                break;
            }
            let has_nul = memchr::memchr(0, &buf[start..start + n]).is_some();
            pieces.push(Piece {
                hay,
                start,
                len: n,
                chunk: None,
                error: err,
                has_nul,
                cpu: false,
                file: None,
            });
            used = start + n;
        }
        if pieces.is_empty() {
            None
        } else {
            Some((used, pieces))
        }
    }
}

impl Piece {
    fn failed(hay: Haystack, e: io::Error) -> Piece {
        Piece {
            hay,
            start: 0,
            len: 0,
            chunk: None,
            error: Some(e),
            has_nul: false,
            cpu: false,
            file: None,
        }
    }
}

fn cpu_piece(hay: Haystack) -> (usize, Vec<Piece>) {
    (
        0,
        vec![Piece {
            hay,
            start: 0,
            len: 0,
            chunk: None,
            error: None,
            has_nul: false,
            cpu: true,
            file: None,
        }],
    )
}

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
}

/// Searches everything through `engines` (one per device, all taking
/// batches from one [`Source`]); returns whether anything matched.
pub fn search(cfg: &Config, plan: &Plan, engines: &[OpenClEngine]) -> anyhow::Result<bool> {
    let started = Instant::now();
    let Some(engine) = engines.first() else {
        anyhow::bail!("no OpenCL engine to search with");
    };
    let (tx, rx) = crossbeam_channel::bounded::<Haystack>(4096);
    let walk_thread = spawn_walk(cfg, tx)?;
    let mut fin = Finisher::new(cfg, plan);
    let mut src = Source {
        rx,
        pending: None,
        big: None,
        opened: 0,
        cut: Arc::clone(&fin.cut),
        overlap: engine.max_pattern_len().saturating_sub(1),
        chunk_lines: !cfg.verify,
        count_only: fin.streams_count(),
    };
    let stages = OpenClEngine::stream_lines_all(engines, &mut src, |pieces, bytes, r| match r {
        BatchResult::Offsets(set) => fin.batch(pieces, bytes, &set.offsets),
        BatchResult::Lines(lines) => fin.batch_lines(pieces, bytes, lines),
    });
    drop(src);
    let searched = walk_thread.join().unwrap_or(true);
    let report = device_report(engines, plan, &fin, &stages);
    let mut buf = fin.bufwtr.buffer();
    finish(
        cfg,
        searched,
        fin.stats.as_ref(),
        started,
        &mut buf,
        &report,
    )?;
    let _ = fin.bufwtr.print(&buf);
    if fin.verify_failed {
        crate::sys::messages::set_errored();
    }
    Ok(fin.matched)
}

/// The walk on its own thread, sending every haystack to `tx`; the thread
/// answers whether anything was found to search.
fn spawn_walk(
    cfg: &Config,
    tx: crossbeam_channel::Sender<Haystack>,
) -> anyhow::Result<std::thread::JoinHandle<bool>> {
    let walker = walk::walk_builder(cfg)?;
    let presorted = walk::presorted(cfg)?;
    let implicit = cfg.implicit_path;
    let threads = cfg.threads;
    let walk_thread = std::thread::spawn(move || {
        // The same walk the CPU engine uses (parallel unless sorting or
        // one file), so errors and order read the same as ripgrep's.
        let any = std::sync::atomic::AtomicBool::new(false);
        if threads == 1 {
            let hays: Box<dyn Iterator<Item = Haystack> + Send> = match presorted {
                Some(list) => Box::new(list.into_iter()),
                None => Box::new(
                    walker
                        .build()
                        .filter_map(move |r| walk::haystack(r, implicit)),
                ),
            };
            for hay in hays {
                any.store(true, std::sync::atomic::Ordering::Relaxed);
                if tx.send(hay).is_err() {
                    break;
                }
            }
        } else {
            walker.build_parallel().run(|| {
                let (tx, any) = (tx.clone(), &any);
                Box::new(move |r| {
                    let Some(hay) = walk::haystack(r, implicit) else {
                        return ignore::WalkState::Continue;
                    };
                    any.store(true, std::sync::atomic::Ordering::Relaxed);
                    match tx.send(hay) {
                        Ok(()) => ignore::WalkState::Continue,
                        Err(_) => ignore::WalkState::Quit,
                    }
                })
            });
        }
        any.into_inner()
    });
    Ok(walk_thread)
}

/// The `--stats` lines of a device search: engine, kernel, patterns, the
/// DFA's candidates, the stream's stages (each device's share, with
/// several) and the device-numbered files.
fn device_report(
    engines: &[OpenClEngine],
    plan: &Plan,
    fin: &Finisher<'_>,
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
            "dfa: the device decided candidate lines with {}; {} confirmed on the CPU{}",
            d.describe(),
            count_of(fin.candidates, "candidate line"),
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

/// Host finishing: turns each batch's offsets into ripgrep's output.
struct Finisher<'a> {
    cfg: &'a Config,
    plan: &'a Plan,
    bufwtr: termcolor::BufferWriter,
    printer: Printer<termcolor::Buffer>,
    searcher: Searcher,
    stats: Option<Stats>,
    matched: bool,
    stop: bool,
    big: BigOffsets,
    verify_failed: bool,
    /// Bytes printed so far (ripgrep's closed-pipe exit status depends on
    /// whether its output buffer was ever flushed).
    written: u64,
    /// Big files whose `-n` lines / `-c` counts came from device lines.
    numbered_files: u64,
    counted_files: u64,
    /// See [`Source::cut`].
    cut: Arc<AtomicU64>,
    /// Offsets (or distinct lines, for line batches) the engine returned:
    /// for the DFA kernel, the candidate lines the CPU confirmed.
    candidates: u64,
}

impl<'a> Finisher<'a> {
    fn new(cfg: &'a Config, plan: &'a Plan) -> Finisher<'a> {
        // With one thread ripgrep's printer writes the separator between
        // files itself (none before a file whose only output is a binary
        // notice); with several, the buffer writer separates whole buffers.
        let bufwtr = if cfg.threads == 1 {
            termcolor::BufferWriter::stdout(cfg.color)
        } else {
            buffer_writer(cfg)
        };
        let printer = Printer::new(cfg, bufwtr.buffer());
        Finisher {
            cfg,
            plan,
            bufwtr,
            printer,
            searcher: searcher(cfg),
            stats: keeps_stats(cfg).then(Stats::new),
            matched: false,
            stop: false,
            big: BigOffsets::default(),
            verify_failed: false,
            written: 0,
            numbered_files: 0,
            counted_files: 0,
            cut: Arc::new(AtomicU64::new(u64::MAX)),
            candidates: 0,
        }
    }

    /// Finishes one batch; returns false to stop the stream.
    fn batch(&mut self, pieces: Vec<Piece>, bytes: &[u8], offsets: &[u64]) -> bool {
        self.candidates += offsets.len() as u64;
        let mut i = 0;
        for p in pieces {
            if self.stop {
                break;
            }
            let end = (p.start + p.len) as u64;
            let first = i + offsets[i..].partition_point(|&o| o < p.start as u64);
            i = first + offsets[first..].partition_point(|&o| o < end);
            let local: Vec<u64> = offsets[first..i]
                .iter()
                .map(|&o| o - p.start as u64)
                .collect();
            let data = &bytes[p.start..p.start + p.len];
            self.piece(p, data, local);
        }
        !self.stop
    }

    /// Finishes one batch that came back as distinct matching lines (a
    /// chunk of a big file, see `Source::wants_lines`).
    fn batch_lines(&mut self, pieces: Vec<Piece>, bytes: &[u8], lines: BatchLines) -> bool {
        self.candidates += lines.distinct() as u64;
        for p in pieces {
            if self.stop {
                break;
            }
            let data = &bytes[p.start..p.start + p.len];
            match (p.chunk, &p.error) {
                (Some(c), None) if !p.cpu && p.start == 0 && p.len == bytes.len() => {
                    self.chunk_seen(&p, c, data);
                    self.chunk_lines(c, data, &lines);
                    self.cut_if_answered(c);
                    if c.last {
                        self.big_done(p);
                    }
                }
                _ => {
                    // Not a whole-batch chunk (never asked for): the first
                    // offset of each line is a complete set of candidates.
                    let local = lines
                        .first
                        .iter()
                        .map(|&o| u64::from(o))
                        .filter(|&o| o >= p.start as u64 && o < (p.start + p.len) as u64)
                        .map(|o| o - p.start as u64)
                        .collect();
                    self.piece(p, data, local);
                }
            }
        }
        !self.stop
    }

    /// A search that ends a file at its first matching line needs no more
    /// of a big file once a chunk matched (see [`Source::cut`]).
    fn cut_if_answered(&self, c: Chunk) {
        let early = self.cfg.quiet || self.cfg.lists_files();
        if early && self.big.lines > 0 && !c.last {
            self.cut.store(c.file_no, Ordering::Release);
        }
    }

    /// Bookkeeping shared by both kinds of chunk results.
    fn chunk_seen(&mut self, p: &Piece, c: Chunk, data: &[u8]) {
        self.big.has_nul |= p.has_nul;
        self.big.len = c.file_offset + data.len() as u64;
        if c.file_offset == 0 {
            self.big.bom = !crate::output::plain::plain_text(data);
            self.big.numbered = true;
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
    fn chunk_lines(&mut self, c: Chunk, data: &[u8], lines: &BatchLines) {
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
        let overlap = &data[c.owned.min(data.len())..];
        let overlap_nl = memchr::memchr_iter(b'\n', overlap).count() as u64;
        big.nl_before += lines.newlines.saturating_sub(overlap_nl);
    }

    /// The last chunk of a big file was seen: finish the file.
    fn big_done(&mut self, p: Piece) {
        let big = std::mem::take(&mut self.big);
        let r = self.finish_big(&p.hay, p.file, big);
        self.emit(&p.hay, r);
    }

    fn piece(&mut self, p: Piece, data: &[u8], offsets: Vec<u64>) {
        if let Some(e) = p.error {
            err_message!("{}: {}", p.hay.path.display(), e);
            if p.chunk.is_some() {
                self.big = BigOffsets::default();
            }
            return;
        }
        if p.hay.stdin || p.cpu {
            let r = search_haystack(
                self.cfg,
                &mut self.searcher,
                &mut self.printer,
                self.plan.line_matcher(),
                &p.hay,
            );
            self.emit(&p.hay, r);
            return;
        }
        match p.chunk {
            None => {
                let r = self.finish_bytes(&p.hay, data, &offsets, p.has_nul);
                self.emit(&p.hay, r);
            }
            Some(c) => {
                self.chunk_seen(&p, c, data);
                self.big.numbered = false;
                self.track_lines(c, data, &offsets);
                self.cut_if_answered(c);
                if c.last {
                    self.big_done(p);
                }
            }
        }
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
    /// unless only a count is wanted, keeps one offset per line).
    fn track_lines(&mut self, c: Chunk, data: &[u8], offsets: &[u64]) {
        let base = c.file_offset;
        let keep = !self.streams_count();
        let big = &mut self.big;
        if big.open {
            // The previous chunk's last counted line runs into this one.
            let from = (big.line_end.saturating_sub(base) as usize).min(data.len());
            match memchr::memchr(b'\n', &data[from..]) {
                Some(k) => {
                    big.line_end = base + (from + k + 1) as u64;
                    big.open = false;
                }
                None => big.line_end = base + data.len() as u64,
            }
        }
        for &o in offsets.iter().filter(|&&o| (o as usize) < c.owned) {
            let abs = base + o;
            if abs < big.line_end {
                continue;
            }
            big.lines += 1;
            if keep {
                big.offsets.push(abs);
            }
            match memchr::memchr(b'\n', &data[o as usize..]) {
                Some(k) => {
                    big.line_end = abs + k as u64 + 1;
                    big.open = false;
                }
                None => {
                    big.line_end = base + data.len() as u64;
                    big.open = true;
                }
            }
        }
    }

    /// Finishes a file whose bytes are all in memory.
    fn finish_bytes(
        &mut self,
        hay: &Haystack,
        data: &[u8],
        offsets: &[u64],
        has_nul: bool,
    ) -> io::Result<SearchResult> {
        self.searcher
            .set_binary_detection(binary_detection(self.cfg, hay.explicit));
        if has_nul {
            // Exactly what the CPU engine would do with these bytes.
            let input = if self.cfg.use_mmap {
                Input::Slice(data)
            } else {
                Input::Reader(&mut &data[..])
            };
            return self.printer.search(
                &mut self.searcher,
                self.plan.line_matcher(),
                &hay.path,
                input,
            );
        }
        let m = OffsetMatcher::for_plan(self.plan, data, offsets);
        let r = self
            .printer
            .search(&mut self.searcher, m, &hay.path, Input::Slice(data));
        if self.cfg.verify {
            self.verify(hay, data, r.as_ref().ok());
        }
        r
    }

    /// Finishes a file read in chunks: the host reads it again through a
    /// memory map (or into memory when mapping fails) and visits only the
    /// candidate lines.
    fn finish_big(
        &mut self,
        hay: &Haystack,
        file: Option<File>,
        big: BigOffsets,
    ) -> io::Result<SearchResult> {
        let mut file = match file {
            Some(f) => f,
            None => File::open(&hay.path)?,
        };
        let unchanged = file.metadata().is_ok_and(|m| m.len() == big.len);
        if self.streams_count() && !big.has_nul && !big.bom && unchanged {
            // Counted while streaming: nothing to map or re-read.
            if big.numbered {
                self.counted_files += 1;
            }
            let mut out = Vec::new();
            crate::output::plain::write_count(self.cfg, &hay.path, big.lines, &mut out);
            self.printer.get_mut().write_all(&out)?;
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
                io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
                file.read_to_end(&mut v)?;
                owned = v;
                &owned
            }
        };
        let consistent = big.offsets.windows(2).all(|w| w[0] <= w[1])
            && big.offsets.last().is_none_or(|&o| o < data.len() as u64);
        let r = if data.len() as u64 != big.len || !consistent {
            // The file changed size since the device read it: the offsets
            // no longer describe these bytes, so search them exactly.
            self.finish_bytes(hay, data, &[], true)
        } else if let Some(r) = self.print_numbered(hay, data, map.as_ref(), &big) {
            r
        } else if let Some(r) = (!big.has_nul && !self.cfg.verify)
            .then(|| {
                // Counts or numbered lines by every core, no single-threaded
                // rescan of the file.
                let text = crate::output::plain::Text {
                    data,
                    map: map.as_ref(),
                    matcher: self.plan.line_matcher(),
                    confirm: !self.plan.exact_lines,
                };
                let w = self.printer.get_mut();
                crate::output::plain::try_print(self.cfg, &hay.path, text, &big.offsets, w)
            })
            .flatten()
        {
            r
        } else {
            self.finish_bytes(hay, data, &big.offsets, big.has_nul)
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
        let usable = big.numbered
            && big.numbers.len() == big.offsets.len()
            && !big.has_nul
            && !big.bom
            && !self.cfg.verify
            && crate::output::plain::plain_text(data);
        // With context, the device lines must be exactly the matching lines.
        let context = crate::output::plain::context_eligible(self.cfg) && self.plan.exact_lines;
        if !usable || !(context || crate::output::plain::eligible(self.cfg)) {
            return None;
        }
        self.numbered_files += 1;
        let text = crate::output::plain::Text {
            data,
            map,
            matcher: self.plan.line_matcher(),
            confirm: !self.plan.exact_lines,
        };
        let w = self.printer.get_mut();
        let (cfg, path) = (self.cfg, &hay.path);
        let r = if context {
            crate::output::plain::print_context(cfg, path, text, &big.offsets, &big.numbers, w)
        } else {
            crate::output::plain::print_numbered(cfg, path, text, &big.offsets, &big.numbers, w)
        };
        Some(r.map(|has_match| SearchResult {
            has_match,
            stats: None,
        }))
    }

    /// `--verify`: searches the same bytes with the CPU engine and compares.
    fn verify(&mut self, hay: &Haystack, data: &[u8], device: Option<&SearchResult>) {
        let device_out = self.printer.get_mut().as_slice().to_vec();
        let mut cpu = Printer::new_unseparated(self.cfg, self.bufwtr.buffer());
        let mut searcher = searcher(self.cfg);
        searcher.set_binary_detection(binary_detection(self.cfg, hay.explicit));
        let r = cpu.search(
            &mut searcher,
            self.plan.line_matcher(),
            &hay.path,
            Input::Slice(data),
        );
        let same_match = r.as_ref().ok().map(|r| r.has_match) == device.map(|d| d.has_match);
        // The device printer separates files itself with one thread; a
        // fresh CPU printer never starts with that separator.
        let mut dev = device_out.as_slice();
        if let (1, Some(sep)) = (self.cfg.threads, self.cfg.file_separator.as_deref()) {
            let line = [sep, b"\n"].concat();
            if dev.starts_with(&line) && !cpu.get_mut().as_slice().starts_with(&line) {
                dev = &dev[line.len()..];
            }
        }
        if !same_match || cpu.get_mut().as_slice() != dev {
            err_message!(
                "verify: {}: the device and the CPU engine disagree",
                hay.path.display()
            );
            self.verify_failed = true;
        }
    }

    fn emit(&mut self, hay: &Haystack, r: io::Result<SearchResult>) {
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
        let len = self.printer.get_mut().as_slice().len() as u64;
        match self.bufwtr.print(self.printer.get_mut()) {
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
        self.printer.get_mut().clear();
        if self.matched && self.cfg.quit_after_match {
            self.stop = true;
        }
    }
}
