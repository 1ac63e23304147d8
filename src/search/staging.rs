//! What the device loop reads into the engine's staging buffers: many
//! small files packed per batch, big files cut into overlapping chunks.
//! [`Source`] is a [`SplitSource`]: claiming a batch (which files, which
//! range of a big file) is a few `stat`s under the queue's lock, and
//! reading it ([`Source::read`]) needs nothing of the source, so devices
//! sharing it read at once.

use std::fs::File;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::Receiver;

use crate::opencl::{BatchSource, SplitSource};
use crate::pipeline::fill::{pread_parallel, read_full};
use crate::pipeline::readahead::ReadAhead;
use crate::walk::Haystack;

/// One file (or stdin) in a batch, or one chunk of a file too big for one.
pub struct Piece {
    pub hay: Haystack,
    /// Offset of the piece in the batch.
    pub start: usize,
    /// Bytes of the piece in the batch.
    pub len: usize,
    /// For a chunk: where the batch bytes start in the file, which starts
    /// it owns, and whether it is the last.
    pub chunk: Option<Chunk>,
    /// Why reading failed, if it did (reported by the commit, in order).
    pub error: Option<io::Error>,
    /// Whether the bytes hold a NUL (binary detection applies).
    pub has_nul: bool,
    /// Nothing staged: the finisher searches the haystack itself on the
    /// CPU (standard input, FIFOs and other non-regular files, which cannot
    /// be re-read; a file that grew while it was read into a batch; files
    /// needing chunks when a pattern is too long for the batch to make
    /// progress).
    pub cpu: bool,
    /// The first and the last chunk of a big file carry the file it was
    /// read from, so the finisher maps the same file (not whatever the path
    /// names by then: a file deleted or replaced meanwhile is finished as
    /// read), early to confirm candidates (`search::early`) and at the end.
    pub file: Option<Arc<File>>,
}

#[derive(Clone, Copy)]
pub struct Chunk {
    /// Which big file (numbered as opened), for [`Source::cut`].
    pub file_no: u64,
    pub file_offset: u64,
    /// Occurrences starting before this chunk offset belong to this chunk.
    pub owned: usize,
    /// Bytes at the start this chunk shares with the one before.
    pub lead: usize,
    pub last: bool,
    /// Fewer bytes than claimed came back before the last chunk: the file
    /// changed while it was read, and is finished from the file itself.
    pub short: bool,
}

/// A file being read in chunks across batches.
struct OpenBig {
    hay: Haystack,
    file: Arc<File>,
    /// Numbered in the order the big files are opened.
    no: u64,
    /// Its size when opened: the chunk reaching it is the last.
    size: u64,
    /// Next byte of the file to claim.
    next: u64,
    /// On a file not in the page cache, the kernel reads ahead of the
    /// claims, which move through the file in order (`pipeline::readahead`).
    ahead: Option<ReadAhead<'static>>,
}

/// A batch as [`Source::claim`] decided it, for [`Source::read`].
pub enum Claim {
    /// Small files packed one after another, each at `start` with the size
    /// the claim saw (a file separated from the one before by one `\n`).
    Packed(Vec<(Haystack, usize, usize)>),
    /// A range of a big file.
    Chunk(ChunkClaim),
    /// A haystack the finisher searches itself.
    Cpu(Haystack),
    /// A big file that could not be opened.
    Failed(Haystack, io::Error),
}

pub struct ChunkClaim {
    hay: Haystack,
    file: Arc<File>,
    no: u64,
    from: u64,
    overlap: usize,
    lead: usize,
    last: bool,
}

/// Reads haystacks into staging buffers.
pub struct Source {
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
    /// its next chunk claimed is its last, and the finisher answers it
    /// exactly from the file itself, as a file that changed size, which
    /// stops at the first match as the CPU engine does.
    cut: Arc<AtomicU64>,
}

impl Source {
    /// `overlap`: the longest literal - 1; `chunk_lines`, `count_only`: see
    /// the fields; `cut`: shared with the finisher.
    pub fn new(
        rx: Receiver<Haystack>,
        overlap: usize,
        (chunk_lines, count_only): (bool, bool),
        cut: Arc<AtomicU64>,
    ) -> Source {
        Source {
            rx,
            pending: None,
            big: None,
            overlap,
            chunk_lines,
            count_only,
            opened: 0,
            cut,
        }
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

    /// Claims the next chunk of the big file being read. Consecutive
    /// chunks overlap by `overlap` bytes (longest literal - 1): a chunk
    /// owns the starts before its last `overlap` bytes (all of them when it
    /// is the last chunk), so every occurrence is whole in the chunk that
    /// owns it.
    fn claim_chunk(&mut self, mut big: OpenBig, cap: usize) -> Claim {
        let overlap = self.overlap.min(cap / 2);
        let from = big.next;
        if let Some(a) = &big.ahead {
            a.reached(usize::try_from(from).unwrap_or(usize::MAX));
        }
        let cut = self.cut.load(Ordering::Acquire) == big.no;
        let last = cut || from + cap as u64 >= big.size;
        big.next = from + (cap - overlap) as u64;
        let claim = ChunkClaim {
            hay: big.hay.clone(),
            file: Arc::clone(&big.file),
            no: big.no,
            from,
            overlap,
            lead: if from == 0 { 0 } else { overlap },
            last,
        };
        if !last {
            self.big = Some(big);
        }
        Claim::Chunk(claim)
    }

    /// Claims small files while they fit in `cap` bytes (or the one
    /// haystack that does not go in a packed batch).
    fn claim_packed(&mut self, cap: usize) -> Option<Claim> {
        let mut packed = Vec::new();
        let mut used = 0;
        while let Some(hay) = self.next_hay() {
            let start = if used == 0 { 0 } else { used + 1 };
            // Standard input and non-regular files (an explicit FIFO or
            // device) are read once, as a stream, by the finisher.
            let meta = (!hay.stdin)
                .then(|| std::fs::metadata(&hay.path).ok())
                .flatten()
                .filter(std::fs::Metadata::is_file);
            let Some(meta) = meta else {
                if !packed.is_empty() {
                    self.pending = Some(hay);
                    break;
                }
                return Some(Claim::Cpu(hay));
            };
            let size = meta.len() as usize;
            if start + size >= cap {
                if !packed.is_empty() {
                    self.pending = Some(hay);
                    break;
                }
                return Some(self.open_big(hay, size as u64, cap));
            }
            packed.push((hay, start, size));
            used = start + size;
        }
        (!packed.is_empty()).then_some(Claim::Packed(packed))
    }

    /// A file of `cap` bytes or more: its first chunk.
    fn open_big(&mut self, hay: Haystack, size: u64, cap: usize) -> Claim {
        if !self.chunks_progress(cap) {
            return Claim::Cpu(hay);
        }
        let file = match File::open(&hay.path) {
            Ok(f) => f,
            Err(e) => return Claim::Failed(hay, e),
        };
        let big = OpenBig {
            hay,
            ahead: ReadAhead::cold_file(&file, usize::try_from(size).unwrap_or(usize::MAX)),
            file: Arc::new(file),
            no: self.opened,
            size,
            next: 0,
        };
        self.opened += 1;
        self.claim_chunk(big, cap)
    }
}

impl SplitSource for Source {
    type Claim = Claim;

    fn claim(&mut self, cap: usize) -> Option<Claim> {
        match self.big.take() {
            Some(big) => Some(self.claim_chunk(big, cap)),
            None => self.claim_packed(cap),
        }
    }

    fn modes(&self, claim: &Claim) -> (bool, bool) {
        let lines = self.chunk_lines && matches!(claim, Claim::Chunk(_));
        (lines, lines && self.count_only)
    }

    fn read(claim: Claim, buf: &mut [u8]) -> (usize, Vec<Piece>) {
        match claim {
            Claim::Packed(files) => read_packed(files, buf),
            Claim::Chunk(c) => read_chunk(c, buf),
            Claim::Cpu(hay) => (0, vec![Piece::cpu(hay, 0)]),
            Claim::Failed(hay, e) => (0, vec![Piece::failed(hay, 0, e)]),
        }
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
        let claim = self.claim(buf.len())?;
        Some(Source::read(claim, buf))
    }
}

/// Reads a claimed chunk (with the fill threads).
fn read_chunk(c: ChunkClaim, buf: &mut [u8]) -> (usize, Vec<Piece>) {
    let (n, error, has_nul) = pread_parallel(&c.file, buf, c.from);
    let short = n < buf.len() && !c.last;
    let owned = if c.last || short || error.is_some() {
        n
    } else {
        n - c.overlap
    };
    let piece = Piece {
        hay: c.hay,
        start: 0,
        len: n,
        chunk: Some(Chunk {
            file_no: c.no,
            file_offset: c.from,
            owned,
            lead: c.lead,
            last: c.last,
            short,
        }),
        error,
        has_nul,
        cpu: false,
        file: (c.last || c.from == 0).then_some(c.file),
    };
    (n, vec![piece])
}

/// Reads claimed small files into their places, one `\n` between them. A
/// file read one byte past the size claimed grew meanwhile and is searched
/// on the CPU; the room a file left (it shrank, or could not be read) is
/// filled with `\n`, so no bytes of an older batch are searched.
fn read_packed(files: Vec<(Haystack, usize, usize)>, buf: &mut [u8]) -> (usize, Vec<Piece>) {
    let used = files.last().map_or(0, |&(_, start, size)| start + size);
    let mut pieces = Vec::with_capacity(files.len());
    for (hay, start, size) in files {
        let room = (start + size + 1).min(buf.len());
        let piece = match File::open(&hay.path) {
            Err(e) => Piece::failed(hay, start, e),
            Ok(file) => {
                let (n, error) = read_full(&file, &mut buf[start..room]);
                if n > size {
                    Piece::cpu(hay, start)
                } else {
                    let has_nul = memchr::memchr(0, &buf[start..start + n]).is_some();
                    Piece {
                        hay,
                        start,
                        len: n,
                        chunk: None,
                        error,
                        has_nul,
                        cpu: false,
                        file: None,
                    }
                }
            }
        };
        buf[start + piece.len..start + size].fill(b'\n');
        pieces.push(piece);
    }
    for p in pieces.iter().skip(1).filter(|p| p.start > 0) {
        buf[p.start - 1] = b'\n';
    }
    (used, pieces)
}

impl Piece {
    fn failed(hay: Haystack, start: usize, e: io::Error) -> Piece {
        Piece {
            error: Some(e),
            cpu: false,
            ..Piece::cpu(hay, start)
        }
    }

    fn cpu(hay: Haystack, start: usize) -> Piece {
        Piece {
            hay,
            start,
            len: 0,
            chunk: None,
            error: None,
            has_nul: false,
            cpu: true,
            file: None,
        }
    }
}
