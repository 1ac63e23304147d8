//! The device loop's work on a batch that needs its bytes, done by
//! [`Prep`] (a [`SplitSink`]) in the thread of the device that searched
//! it, as soon as it is collected: finishing its small files into output
//! buffers, and reading what each chunk of a big file tells about its
//! lines. What it hands on ([`Ready`]) is committed in order by
//! `device::Finisher`, which no longer needs the batch's bytes.

use std::io;

use grep_searcher::Searcher;
use termcolor::{Buffer, BufferWriter};

use crate::cli::config::{Config, OutputMode};
use crate::matcher::offsets::OffsetMatcher;
use crate::matcher::plan::Plan;
use crate::matcher::searcher::{binary_detection, searcher};
use crate::opencl::{BatchLines, BatchResult, SplitSink};
use crate::output::printer::{Input, Printer, SearchResult, without_timings};
use crate::output::writer::buffer_writer;
use crate::search::haystack::search_haystack;
use crate::search::staging::{Chunk, Piece};
use crate::walk::Haystack;

/// What finishing a file needs besides its bytes (shared by every thread).
#[derive(Clone, Copy)]
pub struct Prep<'a> {
    pub cfg: &'a Config,
    pub plan: &'a Plan,
}

/// A printer and a searcher: the finisher's own, and one per device thread.
pub struct Desk {
    pub printer: Printer<Buffer>,
    pub searcher: Searcher,
    /// Stdout (the finisher's writes) and where fresh buffers come from.
    pub bufwtr: BufferWriter,
}

impl Desk {
    pub fn new(cfg: &Config) -> Desk {
        // With one thread ripgrep's printer writes the separator between
        // files itself (none before a file whose only output is a binary
        // notice); with several, the buffer writer separates whole buffers.
        let bufwtr = if cfg.threads == 1 {
            BufferWriter::stdout(cfg.color)
        } else {
            buffer_writer(cfg)
        };
        Desk {
            printer: Printer::new(cfg, bufwtr.buffer()),
            searcher: searcher(cfg),
            bufwtr,
        }
    }
}

/// Where a device thread's files are finished.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// In the commit, from the batch's bytes (one device).
    Defer,
    /// In the commit, from a copy of the file's bytes (several devices
    /// with one thread: the one printer must print every file, in order,
    /// as it writes the separators between them).
    DeferCopy,
    /// Here, into a buffer of their own (several devices and threads).
    Finish,
}

/// A device thread's state.
pub struct Local {
    desk: Desk,
    mode: Mode,
}

/// A batch, prepared: for each piece, in order, what the commit does.
pub struct Ready {
    /// Offsets (or distinct lines) the engine returned.
    pub candidates: u64,
    pub items: Vec<Item>,
}

pub enum Item {
    /// A read error, reported in order (a chunk's ends its file).
    Error(Piece),
    /// A file finished in the device's thread.
    Output {
        hay: Haystack,
        out: Buffer,
        r: io::Result<SearchResult>,
        /// `--verify` found the engines disagree.
        disagreed: bool,
    },
    /// A file the commit finishes (see [`Mode`]): its candidate offsets,
    /// and its bytes unless they are the batch's the commit gets.
    Deferred {
        piece: Piece,
        offsets: Vec<u64>,
        bytes: Option<Vec<u8>>,
    },
    Chunk(ChunkPart),
}

/// What one chunk tells about its file's lines, merged in order by the
/// finisher (see `Finisher::merge_chunk`).
pub struct ChunkPart {
    pub piece: Piece,
    pub chunk: Chunk,
    /// Bytes of the chunk.
    pub len: usize,
    /// The first chunk starts with a byte-order mark (or is not plain).
    pub bom: bool,
    pub found: Found,
}

pub enum Found {
    /// Distinct matching lines numbered on the device (or the host), and
    /// the newlines in the bytes the chunk owns.
    Lines { lines: BatchLines, owned_nl: u64 },
    /// From match offsets (`--verify`): the first owned offset of each
    /// distinct line (absolute), the end of its line and whether that line
    /// runs past the chunk; and where a line left open by the chunk before
    /// ends (the first newline after the shared lead; open: none).
    Offsets {
        lines: Vec<(u64, u64, bool)>,
        lead_end: (u64, bool),
    },
}

impl SplitSink<Vec<Piece>> for Prep<'_> {
    type Local = Local;
    type Ready = Ready;

    fn local(&self, shared: bool) -> Local {
        let mode = match (shared, self.cfg.threads) {
            (false, _) => Mode::Defer,
            (true, 1) => Mode::DeferCopy,
            (true, _) => Mode::Finish,
        };
        Local {
            desk: Desk::new(self.cfg),
            mode,
        }
    }

    fn prepare(
        &self,
        local: &mut Local,
        pieces: Vec<Piece>,
        bytes: &[u8],
        r: BatchResult,
    ) -> Ready {
        match r {
            BatchResult::Offsets(set) => self.batch(local, pieces, bytes, &set.offsets),
            BatchResult::Lines(lines) => self.batch_lines(local, pieces, bytes, lines),
        }
    }

    fn weight(ready: &Ready) -> usize {
        ready.items.iter().map(Item::weight).sum()
    }
}

impl Item {
    /// Bytes held (roughly).
    fn weight(&self) -> usize {
        match self {
            Item::Error(_) => 0,
            Item::Output { out, .. } => out.as_slice().len(),
            Item::Deferred { offsets, bytes, .. } => {
                offsets.len() * 8 + bytes.as_ref().map_or(0, Vec::len)
            }
            Item::Chunk(c) => match &c.found {
                Found::Lines { lines, .. } => lines.lines.len() * 8,
                Found::Offsets { lines, .. } => lines.len() * 24,
            },
        }
    }
}

impl Prep<'_> {
    /// A batch's offsets, cut per piece.
    fn batch(&self, local: &mut Local, pieces: Vec<Piece>, bytes: &[u8], offsets: &[u64]) -> Ready {
        let mut items = Vec::with_capacity(pieces.len());
        let mut i = 0;
        for p in pieces {
            let end = (p.start + p.len) as u64;
            let first = i + offsets[i..].partition_point(|&o| o < p.start as u64);
            i = first + offsets[first..].partition_point(|&o| o < end);
            let local_offsets: Vec<u64> = offsets[first..i]
                .iter()
                .map(|&o| o - p.start as u64)
                .collect();
            let data = &bytes[p.start..p.start + p.len];
            items.push(self.piece(local, p, data, local_offsets));
        }
        Ready {
            candidates: offsets.len() as u64,
            items,
        }
    }

    /// A batch that came back as distinct matching lines (a chunk of a big
    /// file, see `Source::wants_lines`).
    fn batch_lines(
        &self,
        local: &mut Local,
        mut pieces: Vec<Piece>,
        bytes: &[u8],
        lines: BatchLines,
    ) -> Ready {
        let candidates = lines.distinct() as u64;
        let whole = match pieces.as_slice() {
            [p] if p.error.is_none() && !p.cpu && p.start == 0 && p.len == bytes.len() => p.chunk,
            _ => None,
        };
        if let Some(c) = whole
            && let Some(p) = pieces.pop()
        {
            let part = ChunkPart::from_lines(p, c, bytes, lines);
            return Ready {
                candidates,
                items: vec![Item::Chunk(part)],
            };
        }
        // Not a whole-batch chunk (never asked for): the first offset of
        // each line is a complete set of candidates.
        let items = pieces
            .into_iter()
            .map(|p| {
                let (start, end) = (p.start as u64, (p.start + p.len) as u64);
                let local_offsets = lines
                    .first
                    .iter()
                    .map(|&o| u64::from(o))
                    .filter(|&o| o >= start && o < end)
                    .map(|o| o - start)
                    .collect();
                let data = &bytes[p.start..p.start + p.len];
                self.piece(local, p, data, local_offsets)
            })
            .collect();
        Ready { candidates, items }
    }

    /// One piece of a batch, with its offsets.
    fn piece(&self, local: &mut Local, p: Piece, data: &[u8], offsets: Vec<u64>) -> Item {
        if p.error.is_some() {
            return Item::Error(p);
        }
        if let (Some(c), false) = (p.chunk, p.cpu) {
            return Item::Chunk(ChunkPart::from_offsets(p, c, data, &offsets));
        }
        match local.mode {
            Mode::Defer => Item::Deferred {
                piece: p,
                offsets,
                bytes: None,
            },
            Mode::DeferCopy => Item::Deferred {
                piece: p,
                offsets,
                bytes: Some(data.to_vec()),
            },
            Mode::Finish => {
                let (r, disagreed) = self.finish_piece(&mut local.desk, &p, data, &offsets);
                let fresh = local.desk.bufwtr.buffer();
                let out = std::mem::replace(local.desk.printer.get_mut(), fresh);
                Item::Output {
                    hay: p.hay,
                    out,
                    r,
                    disagreed,
                }
            }
        }
    }

    /// Finishes a file (or a haystack the CPU searches itself) with
    /// `desk`'s printer; whether `--verify` found the engines disagree.
    pub fn finish_piece(
        &self,
        desk: &mut Desk,
        p: &Piece,
        data: &[u8],
        offsets: &[u64],
    ) -> (io::Result<SearchResult>, bool) {
        if p.hay.stdin || p.cpu {
            let matcher = self.plan.line_matcher();
            let r = search_haystack(
                self.cfg,
                &mut desk.searcher,
                &mut desk.printer,
                matcher,
                &p.hay,
            );
            return (r, false);
        }
        self.finish_bytes(desk, &p.hay, data, offsets, p.has_nul)
    }

    /// Finishes a file whose bytes are all in memory.
    pub fn finish_bytes(
        &self,
        desk: &mut Desk,
        hay: &Haystack,
        data: &[u8],
        offsets: &[u64],
        has_nul: bool,
    ) -> (io::Result<SearchResult>, bool) {
        desk.searcher
            .set_binary_detection(binary_detection(self.cfg, hay.explicit));
        let reads_differ =
            !self.cfg.use_mmap && crate::search::haystack::reader_differs(self.cfg, data);
        if has_nul || reads_differ {
            // Exactly what the CPU engine would do with these bytes.
            let input = if self.cfg.use_mmap {
                Input::Slice(data)
            } else {
                Input::Reader(&mut &data[..])
            };
            let matcher = self.plan.line_matcher();
            let r = desk
                .printer
                .search(&mut desk.searcher, matcher, &hay.path, input);
            return (r, false);
        }
        let m = OffsetMatcher::for_plan(self.plan, data, offsets);
        let r = desk
            .printer
            .search(&mut desk.searcher, m, &hay.path, Input::Slice(data));
        let disagreed = self.cfg.verify && self.disagree(desk, hay, data, r.as_ref().ok());
        (r, disagreed)
    }

    /// `--verify`: searches the same bytes with the CPU engine and compares;
    /// whether they disagree (reported here).
    fn disagree(
        &self,
        desk: &mut Desk,
        hay: &Haystack,
        data: &[u8],
        device: Option<&SearchResult>,
    ) -> bool {
        let device_out = desk.printer.get_mut().as_slice().to_vec();
        let mut cpu = Printer::new_unseparated(self.cfg, desk.bufwtr.buffer());
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
        let cpu_out = cpu.get_mut().as_slice();
        let same_out = if self.cfg.mode == OutputMode::Json {
            without_timings(cpu_out) == without_timings(dev)
        } else {
            cpu_out == dev
        };
        let disagree = !same_match || !same_out;
        if disagree {
            crate::err_message!(
                "verify: {}: the device and the CPU engine disagree",
                hay.path.display()
            );
        }
        disagree
    }
}

impl ChunkPart {
    /// A chunk's distinct matching lines, and the newlines it owns (all
    /// but those of the overlap the next chunk reads again).
    fn from_lines(piece: Piece, chunk: Chunk, data: &[u8], lines: BatchLines) -> ChunkPart {
        let overlap = &data[chunk.owned.min(data.len())..];
        let overlap_nl = memchr::memchr_iter(b'\n', overlap).count() as u64;
        let owned_nl = lines.newlines.saturating_sub(overlap_nl);
        ChunkPart {
            bom: bom(chunk, data),
            len: data.len(),
            piece,
            chunk,
            found: Found::Lines { lines, owned_nl },
        }
    }

    /// The distinct lines holding the chunk's owned offsets, as if no line
    /// ran in from the chunk before (the merge drops those that did: a
    /// line that did ends at or before every line start after it).
    fn from_offsets(piece: Piece, chunk: Chunk, data: &[u8], offsets: &[u64]) -> ChunkPart {
        let base = chunk.file_offset;
        let line_after = |from: usize| match memchr::memchr(b'\n', &data[from..]) {
            Some(k) => (base + (from + k + 1) as u64, false),
            None => (base + data.len() as u64, true),
        };
        let mut lines = Vec::new();
        let mut line_end = 0;
        for &o in offsets.iter().filter(|&&o| (o as usize) < chunk.owned) {
            let abs = base + o;
            if abs < line_end {
                continue;
            }
            let (end, open) = line_after(o as usize);
            line_end = end;
            lines.push((abs, end, open));
        }
        let lead_end = line_after(chunk.lead.min(data.len()));
        ChunkPart {
            bom: bom(chunk, data),
            len: data.len(),
            piece,
            chunk,
            found: Found::Offsets { lines, lead_end },
        }
    }
}

/// Whether a file's first chunk starts with a byte-order mark (or is
/// otherwise not plain text: the searcher transcodes it).
fn bom(chunk: Chunk, data: &[u8]) -> bool {
    chunk.file_offset == 0 && !crate::output::plain::plain_text(data)
}
