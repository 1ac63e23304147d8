//! The chunks of one big file that the hybrid queue (`search::hybrid`)
//! hands to the CPU threads and the devices, and a CPU thread's search of
//! one chunk.
//!
//! The layout ([`Layout`]): small chunks first, each twice the one before
//! (from [`first_chunk`]), which a CPU thread searches while a regex's
//! device starts, so the first lines of the output need not wait for it;
//! then chunks of [`chunk`] bytes. (Chunks shrinking towards the end, which spared the
//! CPU threads a last chunk alone, made 110 more device batches on 4.34 GB
//! and `-c` 1.06x as slow; with no device the CPU engine now searches as
//! alone, so they are not used.)

use std::fs::File;
use std::io;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use grep_matcher::Matcher;

/// Bytes per chunk: what one CPU thread searches between two claims, and
/// at most a device batch minus the overlap.
const CHUNK_DEFAULT: usize = 32 << 20;

/// The first chunk's size by default (see [`first_chunk`]): for a regex,
/// the cost model's probe answers the first chunks, a MiB or more
/// (`search::hybrid::probe_chunks`), and a thread searches the next ones
/// while the device starts.
/// (8 MiB took 256 ms on 2 cores of the H200 machine beside the device's
/// start, 200 rules: the first line at 0.35 s, against 0.10 s on the CPU
/// engine. 256 KiB against 1 MiB, 200 rules over 1.26 GB on the same
/// machine: the whole-file rows 0.81-0.91x the time on 16 cores and
/// 0.77-1.02x on 2, `| head -1` within 5%: the chunk the eager thread holds
/// when the device comes up is smaller.)
const FIRST_DEFAULT: usize = 256 << 10;

/// Bytes a CPU thread searches between two looks at whether the output
/// still wants its chunk (a closed pipe).
const PIECE: usize = 1 << 20;

/// The chunk size: [`CHUNK_DEFAULT`], or `GSEARCH_HYBRID_CHUNK` (tests use
/// small chunks so that lines and matches cross chunk boundaries).
pub fn chunk() -> usize {
    static C: OnceLock<usize> = OnceLock::new();
    *C.get_or_init(|| crate::sys::env_count("GSEARCH_HYBRID_CHUNK").unwrap_or(CHUNK_DEFAULT))
}

/// Bytes of the first chunk: `GSEARCH_HYBRID_FIRST`, else
/// [`FIRST_DEFAULT`], at most [`chunk`]; 0 makes it a chunk like the
/// others.
pub fn first_chunk() -> usize {
    static C: OnceLock<usize> = OnceLock::new();
    let first = *C.get_or_init(|| {
        std::env::var("GSEARCH_HYBRID_FIRST")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(FIRST_DEFAULT)
    });
    match first {
        0 => chunk(),
        n => n.min(chunk()),
    }
}

/// Where each chunk of a file starts (see the module's doc).
pub struct Layout {
    /// Chunk `i` is `starts[i]..starts[i + 1]`; the last entry is the size.
    starts: Vec<usize>,
}

impl Layout {
    /// The chunks of a file of `size` bytes: the first [`first_chunk`]
    /// bytes, each next twice the one before up to [`chunk`] (the last
    /// what is left).
    pub fn new(size: usize) -> Layout {
        let chunk = chunk();
        let (mut starts, mut at, mut next) = (vec![0], 0, first_chunk());
        while at < size {
            at = (at + next).min(size);
            starts.push(at);
            next = (next * 2).min(chunk);
        }
        Layout { starts }
    }

    /// How many chunks there are.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Whether there are none (an empty file).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Chunk `i`'s own bytes.
    pub fn bytes(&self, i: usize) -> (usize, usize) {
        (self.starts[i], self.starts[i + 1])
    }

    /// The file's size.
    pub fn size(&self) -> usize {
        self.starts[self.len()]
    }

    /// The bytes from chunk `i` to the end (none past the last chunk).
    pub fn bytes_from(&self, i: usize) -> usize {
        self.starts.get(i).map_or(0, |&s| self.size() - s)
    }
}

/// The byte range of the lines that touch the chunk whose own bytes are
/// `own`: from the start of the line holding its first byte to the end of
/// the line holding its last, each moved over lines whose answer needs the
/// line before them (`pipeline::lines::prev_line_start`,
/// `next_line_start`). Lines that cross a chunk boundary are examined by
/// both chunks, so a line is never lost between a CPU chunk (which reports
/// whole lines) and a device chunk (which reports occurrences starting in
/// its bytes).
pub fn chunk_lines(data: &[u8], (first, end): (usize, usize)) -> (usize, usize) {
    let a = crate::pipeline::lines::prev_line_start(data, first);
    let b = crate::pipeline::lines::next_line_start(data, end);
    (a, b)
}

/// The offset the chunk whose own bytes are `own` reports for its matching
/// line `start..end`: the line's start, or the chunk's first byte for the
/// line that began before the chunk; none for a line outside the chunk's
/// bytes ([`chunk_lines`] may reach past them, to start where a search may
/// begin).
fn chunk_offset((first, last): (usize, usize), (start, end): (usize, usize)) -> Option<u64> {
    (end > first && start < last).then_some(start.max(first) as u64)
}

/// How CPU threads read their chunks: through the memory map (default) or
/// with `pread` into a small per-thread buffer that stays in cache
/// (`GSEARCH_HYBRID_READ=pread`), which spares page-table work on very
/// large files.
pub fn read_mode_pread() -> bool {
    std::env::var("GSEARCH_HYBRID_READ").is_ok_and(|v| v == "pread")
}

/// The matching lines that touch the chunk whose own bytes are `own`, each
/// as its start, or as the chunk's first byte for the line that began
/// before the chunk (every offset lies in the chunk's own bytes, so the
/// chunks' answers in chunk order are sorted), and whether those lines
/// hold a NUL. Searched a piece at a time; `None` once `stop` is set
/// between two pieces (the output wants no more).
pub fn cpu_chunk<M: Matcher>(
    data: &[u8],
    own: (usize, usize),
    matcher: &M,
    stop: &AtomicBool,
) -> Option<(Vec<u64>, bool)> {
    let (a, b) = chunk_lines(data, own);
    let (mut hits, mut has_nul, mut pos) = (Vec::new(), false, a);
    while pos < b {
        if stop.load(Ordering::Acquire) {
            return None;
        }
        let end = crate::pipeline::lines::next_line_start(data, (pos + PIECE).min(b)).min(b);
        has_nul |= search_lines(&data[pos..end], pos, (own, matcher), &mut hits);
        pos = end;
    }
    Some((hits, has_nul))
}

/// [`cpu_chunk`] reading the file with `pread` into a buffer of a piece
/// or more: whole lines are searched while they are in cache, the partial
/// last line is carried to the next read. (The map is only used to find
/// the chunk's line boundaries.)
pub fn cpu_chunk_pread<M: Matcher>(
    (file, data): (&File, &[u8]),
    own: (usize, usize),
    matcher: &M,
    stop: &AtomicBool,
) -> Option<(Vec<u64>, bool)> {
    use std::os::unix::fs::FileExt;
    let (a, b) = chunk_lines(data, own);
    let mut out = Vec::new();
    let mut has_nul = false;
    let mut buf = vec![0u8; PIECE * 2];
    let (mut pos, mut carry) = (a, 0usize);
    while pos < b || carry > 0 {
        if stop.load(Ordering::Acquire) {
            return None;
        }
        if buf.len() - carry < PIECE {
            buf.resize(buf.len() * 2, 0);
        }
        let want = (buf.len() - carry).min(b - pos);
        let n = match file.read_at(&mut buf[carry..carry + want], pos as u64) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        let last = n == 0 || pos + n >= b;
        let region = &buf[..carry + n];
        let base = pos - carry;
        pos += n;
        // Complete lines only (all of it once the range is read), up to
        // where a search may begin afresh.
        let end = if last {
            region.len()
        } else {
            crate::pipeline::lines::prev_line_start(region, region.len())
        };
        has_nul |= search_lines(&region[..end], base, (own, matcher), &mut out);
        if last {
            break;
        }
        let rest = region.len() - end;
        buf.copy_within(end..end + rest, 0);
        carry = rest;
    }
    Some((out, has_nul))
}

/// Adds to `hits` the offsets that the chunk whose own bytes are `own`
/// reports for the matching lines of `lines` (whole lines, from byte
/// `base` of the file); whether `lines` hold a NUL.
fn search_lines<M: Matcher>(
    lines: &[u8],
    base: usize,
    (own, matcher): ((usize, usize), &M),
    hits: &mut Vec<u64>,
) -> bool {
    crate::pipeline::lines::for_each_matching_line(lines, matcher, |s, e| {
        hits.extend(chunk_offset(own, (base + s, base + e)));
    });
    memchr::memchr(0, lines).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Small chunks first, doubling, then chunks of the full size; they
    /// tile the file.
    #[test]
    fn small_chunks_first_then_full_ones() {
        if std::env::var_os("GSEARCH_HYBRID_CHUNK").is_some()
            || std::env::var_os("GSEARCH_HYBRID_FIRST").is_some()
        {
            return;
        }
        const MIB: usize = 1 << 20;
        const Q: usize = MIB / 4;
        let size = 210 * MIB + 12_345;
        let l = Layout::new(size);
        let sizes: Vec<usize> = (0..l.len()).map(|i| l.bytes(i).1 - l.bytes(i).0).collect();
        assert_eq!(
            &sizes[..7],
            &[Q, 2 * Q, 4 * Q, 8 * Q, 16 * Q, 32 * Q, 64 * Q]
        );
        assert_eq!(&sizes[7..12], &[32 * MIB; 5]);
        assert_eq!(sizes[12], 18 * MIB + Q + 12_345);
        assert_eq!(sizes.iter().sum::<usize>(), size);
        assert_eq!(
            (l.size(), l.bytes_from(1), l.bytes_from(l.len())),
            (size, size - Q, 0)
        );
        assert!(Layout::new(0).is_empty());
        assert_eq!(Layout::new(5).bytes(0), (0, 5));
    }

    /// A chunk's lines are the same whether searched at once or a piece
    /// at a time, through the map or by `pread`; a stop ends the search
    /// without an answer.
    #[test]
    fn pieces_answer_as_one_search() {
        use std::io::Write;
        let mut text = Vec::new();
        for i in 0..200_000 {
            writeln!(
                text,
                "line {i} {}",
                if i % 7 == 0 { "needle" } else { "hay" }
            )
            .unwrap();
        }
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&text).unwrap();
        let m = grep_regex::RegexMatcher::new("needle").unwrap();
        let own = (1000, text.len() - 999);
        let go = AtomicBool::new(false);
        let whole = crate::pipeline::lines::matching_line_starts(&text, &m);
        let want: Vec<u64> = whole
            .iter()
            .filter_map(|&s| {
                let e = s + memchr::memchr(b'\n', &text[s..]).unwrap() + 1;
                chunk_offset(own, (s, e))
            })
            .collect();
        let (map, nul) = cpu_chunk(&text, own, &m, &go).unwrap();
        assert!(!nul);
        assert_eq!(map, want);
        let (read, _) = cpu_chunk_pread((f.as_file(), &text), own, &m, &go).unwrap();
        assert_eq!(read, want);
        assert!(cpu_chunk(&text, own, &m, &AtomicBool::new(true)).is_none());
    }
}
