//! One haystack through ripgrep's searcher on the CPU: standard input, a
//! file through a guarded memory map, or a file read with as few system
//! calls as the searcher's own reader would make.

use std::io;

use grep_matcher::Matcher;
use grep_searcher::Searcher;
use termcolor::WriteColor;

use crate::cli::config::Config;
use crate::cli::input::EncodingMode;
use crate::matcher::behind::ReleaseBehind;
use crate::matcher::searcher::binary_detection;
use crate::output::printer::{Input, Printer, SearchResult};
use crate::walk::Haystack;

/// Searches one haystack on the CPU.
pub fn search_haystack<M: Matcher, W: WriteColor>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    matcher: M,
    hay: &Haystack,
) -> io::Result<SearchResult> {
    search_haystack_or(cfg, (searcher, printer), matcher, hay, None)
}

/// What a file that is read (not mapped) may be handed to after its first
/// read: asked with its size, `None` when the search goes on as before
/// (one big file split over the cores, `search::bigfile`).
pub type BigFile<'a, W> =
    &'a mut dyn FnMut(&mut Searcher, &mut Printer<W>, u64) -> Option<io::Result<SearchResult>>;

/// [`search_haystack`], a file that is read offered to `big` first.
pub fn search_haystack_or<M: Matcher, W: WriteColor>(
    cfg: &Config,
    (searcher, printer): (&mut Searcher, &mut Printer<W>),
    matcher: M,
    hay: &Haystack,
    big: Option<BigFile<'_, W>>,
) -> io::Result<SearchResult> {
    searcher.set_binary_detection(binary_detection(cfg, hay.explicit));
    if hay.stdin {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        printer.search(searcher, matcher, &hay.path, Input::Reader(&mut lock))
    } else if let Some(converted) = crate::search::converted::open(cfg, &hay.path) {
        let mut reader = converted?;
        let result = printer.search(searcher, matcher, &hay.path, Input::Reader(&mut reader));
        reader.finish(result)
    } else if cfg.use_mmap {
        search_mapped(searcher, printer, matcher, &hay.path)
    } else {
        search_read(cfg, (searcher, printer), matcher, &hay.path, big)
    }
}

/// Whether the searcher decodes a file that starts with `head` (an
/// encoding given, or a byte-order mark sniffed): the NULs of its raw
/// bytes then say nothing about the text searched (UTF-16 is full of them).
fn decodes(encoding: &EncodingMode, head: &[u8]) -> bool {
    match encoding {
        EncodingMode::Some(_) => true,
        EncodingMode::Disabled => false,
        EncodingMode::Auto => [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"]
            .iter()
            .any(|bom| head.starts_with(bom)),
    }
}

/// What grep-searcher's `search_path` does without a memory map, with one
/// system call fewer per small file. Its decoder first reads 3 bytes to
/// look for a byte-order mark, then the rest, then reads the 0 that ends
/// the file: three reads for a file of a few KiB. Here the first 64 KiB are
/// read at once (and the end confirmed by a read of 0, as the searcher's
/// loop would). A file that ended there and holds no NUL is searched as a
/// slice: without a NUL, binary detection has nothing to find and where
/// the reads were cut cannot matter. Anything else goes to the searcher's
/// reader through [`ReadAhead`], which hands out the same bytes in the same
/// pieces as the file would (the 3-byte sniff is where ripgrep prints a
/// match of `x\n` before quitting at a NUL after it). On the Linux tree:
/// 244,664 reads before, 167,019 after; ripgrep makes 244,650. A file whose
/// name says it is binary gets a first read of [`SNIFF`] bytes instead.
fn search_read<M: Matcher, W: WriteColor>(
    cfg: &Config,
    (searcher, printer): (&mut Searcher, &mut Printer<W>),
    matcher: M,
    path: &std::path::Path,
    big: Option<BigFile<'_, W>>,
) -> io::Result<SearchResult> {
    const HEAD: usize = 64 << 10;
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; HEAD]);
    }
    // Quitting at a NUL, the searcher looks at nothing after the first one
    // (it cuts its buffer there and reads no more). Only then is a small
    // first read of a binary-named file enough.
    let quits_at_nul = searcher.binary_detection().quit_byte() == Some(0);
    let head = if quits_at_nul && named_binary(path) {
        SNIFF
    } else {
        HEAD
    };
    let mut file = std::fs::File::open(path)?;
    BUF.with(|buf| {
        let mut buf = buf.borrow_mut();
        let (n, err) = crate::pipeline::fill::read_full(&file, &mut buf[..head]);
        if let Some(e) = err {
            return Err(e);
        }
        // A short read is the file's end (`read_full` saw its 0).
        let ended = n < head;
        let nul = memchr::memchr(0, &buf[..n]).is_some();
        // (Its size: the bytes read when they end the file, so that a tree
        // of small files is spared a `stat` each.)
        let size = || match ended {
            true => Some(n as u64),
            false => file.metadata().ok().map(|m| m.len()),
        };
        if !nul
            && let Some(big) = big
            && let Some(size) = size()
            && let Some(r) = big(searcher, printer, size)
        {
            return r;
        }
        if ended && !nul && !reader_differs(cfg, &buf[..n]) {
            return printer.search(searcher, matcher, path, Input::Slice(&buf[..n]));
        }
        // Bytes read that hold the NUL the searcher quits at: the rest of
        // the file is not read (unless the searcher decodes them first).
        let quits_here = nul && quits_at_nul && !decodes(&cfg.input.encoding, &buf[..n]);
        if !ended && !quits_here && maps_rest(cfg, searcher, &matcher, &buf[..n]) {
            // Not a FIFO or a device (no map), nor a file whose size says
            // less than was read (`/proc`'s say 0): read on from the head.
            if let Ok(Some(map)) = crate::sys::guard::GuardedMap::map(&file)
                && map.len() > n
            {
                return search_map(searcher, printer, matcher, path, &map);
            }
        }
        let mut rest = ReadAhead {
            head: &buf[..n],
            file: &mut file,
            ended: ended || quits_here,
        };
        printer.search(searcher, matcher, path, Input::Reader(&mut rest))
    })
}

/// Whether grep-searcher can answer differently for `bytes` read than for
/// the same bytes as a slice, so a file a walk finds (which ripgrep reads)
/// must be read: an inverted search that stops (`-m`, with after context:
/// the line it stopped at is printed as a match when read;
/// `--stop-on-nonmatch`: reading stops at the first matching line), or a
/// line whose answer needs the line before it
/// (`matcher::lines::reads_before`), which a read may begin a buffer with
/// (the 3-byte sniff, each refill). PCRE2 always: its look-behind sees the
/// buffer before a line, where ripgrep's printer finds the matches to
/// replace, color or print alone (`-r`, `-o`, `--column`...). And the
/// bytes searched that `--json` and `--stats` report, where `-m` stops
/// before after-context lines.
pub fn reader_differs(cfg: &Config, bytes: &[u8]) -> bool {
    reader_options_differ(cfg) || cfg.line_context && opens_mid_char(bytes, 0..bytes.len())
}

/// The part of [`reader_differs`] that the options decide alone.
pub fn reader_options_differ(cfg: &Config) -> bool {
    // (After `-m`'s last match, a read counts the after-context lines it
    // went on to in the bytes searched, which `--json` and `--stats` show.)
    let shows_bytes = cfg.stats || cfg.mode == crate::cli::config::OutputMode::Json;
    cfg.out.pcre2
        || cfg.invert && (cfg.max_count.is_some() || cfg.out.stop_on_nonmatch)
        || cfg.max_count.is_some() && cfg.after > 0 && shows_bytes
}

/// Whether a line starting in `data[range]` (after a `\n` in it) opens
/// with a UTF-8 continuation byte (`matcher::lines::reads_before`).
pub fn opens_mid_char(data: &[u8], range: std::ops::Range<usize>) -> bool {
    // ASCII text (most files) has no such line, and `is_ascii` looks at
    // a word at a time where the scan stops at every line.
    let bytes = &data[range.clone()];
    !bytes.is_ascii()
        && memchr::memchr_iter(b'\n', bytes)
            .any(|i| crate::matcher::lines::reads_before(data, range.start + i + 1))
}

/// The first read of a file whose name says it is binary ([`named_binary`]):
/// its first NUL is in its first bytes, and binary detection (quitting
/// there, as it does for files found by walking) needs no more. On the
/// GPU machine's site-packages tree, 19,513 compiled Python files made up
/// 289 MB of the 875 MB that 64 KiB first reads brought in.
const SNIFF: usize = 1 << 10;

/// Whether the file's name says it holds binary data: compiled Python,
/// object code, shared libraries, archives, images, serialized tensors.
/// Only the size of the first read depends on it, never an answer: a file
/// so named that is text is read on from there.
fn named_binary(path: &std::path::Path) -> bool {
    const EXTENSIONS: &[&str] = &[
        "pyc", "pyo", "pyd", "so", "o", "a", "dll", "dylib", "exe", "lib", "class", "jar", "whl",
        "zip", "gz", "xz", "bz2", "zst", "png", "jpg", "jpeg", "gif", "ico", "ttf", "otf", "woff",
        "woff2", "npy", "npz", "pt", "pth", "onnx", "pb", "mo", "db", "sqlite", "wasm", "bin",
    ];
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    // `libfoo.so.12`
    name.contains(".so.")
        || name
            .rsplit_once('.')
            .is_some_and(|(_, ext)| EXTENSIONS.iter().any(|e| ext.eq_ignore_ascii_case(e)))
}

fn read_retrying(file: &mut std::fs::File, buf: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// A file whose first bytes were read ahead: reads are served from them
/// and then from the file, full as a regular file's reads are (a read that
/// runs past the bytes read ahead is topped up from the file in the same
/// call), so the reader sees the pieces it would have seen.
struct ReadAhead<'a> {
    head: &'a [u8],
    file: &'a mut std::fs::File,
    /// The file has answered 0 (its end), or its bytes read ahead hold a
    /// NUL the searcher quits at: nothing more is read from it.
    ended: bool,
}

impl io::Read for ReadAhead<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.head.len().min(out.len());
        out[..n].copy_from_slice(&self.head[..n]);
        self.head = &self.head[n..];
        if n == out.len() || self.ended {
            return Ok(n);
        }
        match read_retrying(self.file, &mut out[n..]) {
            Ok(0) => {
                self.ended = true;
                Ok(n)
            }
            Ok(k) => Ok(n + k),
            // The bytes first; the error comes back on the next read.
            Err(_) if n > 0 => Ok(n),
            Err(e) => Err(e),
        }
    }
}

/// Whether a file bigger than its first read (`head`) is mapped although
/// `Config::use_mmap` said no: a multiline search would otherwise read the
/// whole file into the heap (grep-searcher's multiline strategy needs one
/// slice), and a file larger than memory could not be searched at all. Not
/// with `--no-mmap`, nor where the searcher decodes the bytes (it reads the
/// decoded text into the heap whatever the source).
fn maps_rest<M: Matcher>(cfg: &Config, searcher: &Searcher, matcher: &M, head: &[u8]) -> bool {
    !cfg.no_mmap && searcher.multi_line_with_matcher(matcher) && !decodes(&cfg.input.encoding, head)
}

/// What grep-searcher's `search_path` does when memory maps are enabled
/// (open, map, advise sequential, `search_slice`; read the file when it
/// cannot be mapped), with the map registered with the SIGBUS guard: a
/// file that shrinks during the search is an error for that file.
fn search_mapped<M: Matcher, W: WriteColor>(
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    matcher: M,
    path: &std::path::Path,
) -> io::Result<SearchResult> {
    let mut file = std::fs::File::open(path)?;
    match crate::sys::guard::GuardedMap::map(&file) {
        Ok(Some(map)) => search_map(searcher, printer, matcher, path, &map),
        _ => printer.search(searcher, matcher, path, Input::Reader(&mut file)),
    }
}

/// Searches a file's map. A multiline search drops the pages it has left
/// behind from the resident set as it goes ([`ReleaseBehind`]).
fn search_map<M: Matcher, W: WriteColor>(
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    matcher: M,
    path: &std::path::Path,
    map: &crate::sys::guard::GuardedMap,
) -> io::Result<SearchResult> {
    let r = if searcher.multi_line_with_matcher(&matcher) {
        let behind = ReleaseBehind::new(matcher, map);
        let r = printer.search(searcher, &behind, path, Input::Slice(map));
        behind.finish();
        r
    } else {
        printer.search(searcher, matcher, path, Input::Slice(map))
    }?;
    if map.faulted() {
        return Err(crate::sys::guard::shrank_error());
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_say_binary() {
        for name in [
            "a.pyc",
            "x/_C.cpython-312.so",
            "libnccl.so.2",
            "W.PNG",
            "m.pt",
        ] {
            assert!(named_binary(std::path::Path::new(name)), "{name}");
        }
        for name in ["a.py", "so", "README", "x.socket", "notes.txt"] {
            assert!(!named_binary(std::path::Path::new(name)), "{name}");
        }
    }
}
