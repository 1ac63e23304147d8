//! The search loops: walk, search each haystack, print, and keep the
//! statistics. One thread when sorting or searching one file, a parallel
//! walk otherwise (each thread prints into its own buffer, written whole),
//! exactly as ripgrep schedules its work.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use grep_matcher::Matcher;
use grep_printer::Stats;
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};
use ignore::WalkState;
use termcolor::WriteColor;

use crate::cli::config::{BinaryMode, Config, OutputMode};
use crate::err_message;
use crate::matcher::plan::{Plan, Shape};
use crate::output::printer::{Input, Printer, SearchResult};
use crate::walk::{self, Haystack};

/// Builds the line searcher as ripgrep does.
pub fn searcher(cfg: &Config) -> Searcher {
    let mut b = SearcherBuilder::new();
    b.max_matches(cfg.max_count)
        .line_terminator(grep_matcher::LineTerminator::byte(b'\n'))
        .invert_match(cfg.invert)
        .line_number(cfg.line_number)
        .multi_line(false)
        // grep-searcher never maps files itself: `search_haystack` maps
        // them under the SIGBUS guard and searches the slice.
        .memory_map(MmapChoice::never())
        .before_context(cfg.before)
        .after_context(cfg.after);
    b.build()
}

/// Whether files are searched through a memory map, decided as ripgrep
/// decides (`--mmap`, `--no-mmap`, or at most 10 paths that are all files).
/// The maps are made by `guard::GuardedMap`, never by grep-searcher, so
/// that a file shrinking under its map is reported instead of killing the
/// process with SIGBUS.
pub fn uses_mmap(cfg: &Config) -> bool {
    cfg.use_mmap
}

/// Binary detection for a haystack: explicit files are never skipped.
pub fn binary_detection(cfg: &Config, explicit: bool) -> BinaryDetection {
    match cfg.binary {
        BinaryMode::AsText => BinaryDetection::none(),
        BinaryMode::SearchAndSuppress => BinaryDetection::convert(b'\x00'),
        BinaryMode::Auto if explicit => BinaryDetection::convert(b'\x00'),
        BinaryMode::Auto => BinaryDetection::quit(b'\x00'),
    }
}

/// Searches one haystack on the CPU.
pub fn search_haystack<M: Matcher, W: WriteColor>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    matcher: M,
    hay: &Haystack,
) -> io::Result<SearchResult> {
    searcher.set_binary_detection(binary_detection(cfg, hay.explicit));
    if hay.stdin {
        let stdin = io::stdin();
        let mut lock = stdin.lock();
        printer.search(searcher, matcher, &hay.path, Input::Reader(&mut lock))
    } else if uses_mmap(cfg) {
        search_mapped(searcher, printer, matcher, &hay.path)
    } else {
        search_read(searcher, printer, matcher, &hay.path)
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
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    matcher: M,
    path: &std::path::Path,
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
        if ended && !nul {
            return printer.search(searcher, matcher, path, Input::Slice(&buf[..n]));
        }
        // Bytes read that hold the NUL the searcher quits at: the rest of
        // the file is not read.
        let mut rest = ReadAhead {
            head: &buf[..n],
            file: &mut file,
            ended: ended || (nul && quits_at_nul),
        };
        printer.search(searcher, matcher, path, Input::Reader(&mut rest))
    })
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
        Ok(Some(map)) => {
            let r = printer.search(searcher, matcher, path, Input::Slice(&map))?;
            if map.faulted() {
                return Err(crate::sys::guard::shrank_error());
            }
            Ok(r)
        }
        _ => printer.search(searcher, matcher, path, Input::Reader(&mut file)),
    }
}

/// Whether statistics are kept (`--stats`, and always for `--json`).
pub fn keeps_stats(cfg: &Config) -> bool {
    cfg.stats || cfg.mode == OutputMode::Json
}

/// The standard output stream, line-buffered on a terminal.
pub fn stdout(cfg: &Config) -> grep_cli::StandardStream {
    if cfg.is_terminal_stdout {
        grep_cli::stdout_buffered_line(cfg.color)
    } else {
        grep_cli::stdout_buffered_block(cfg.color)
    }
}

/// Searches everything with the CPU engine. Returns whether any match was
/// found.
pub fn search_cpu(cfg: &Config, plan: &Plan) -> anyhow::Result<bool> {
    if cfg.threads == 1 {
        search_sequential(cfg, plan)
    } else if let Some(n) = widened_threads(cfg, plan) {
        search_parallel(
            &Config {
                threads: n,
                ..cfg.clone()
            },
            plan,
        )
    } else {
        search_parallel(cfg, plan)
    }
}

/// Every core, in place of ripgrep's default of at most 12 threads, when
/// the matcher rather than reading bounds the search: a large literal set
/// (the hashed finder) or a regex without a literal. On the H100 machine's
/// 16 cores, the site-packages tree with 1,000 words took 240 ms on 12
/// threads and 195 ms on 16; with one literal, 106 and 103 ms.
fn widened_threads(cfg: &Config, plan: &Plan) -> Option<usize> {
    widened_to(cfg, plan, crate::sys::cores())
}

fn widened_to(cfg: &Config, plan: &Plan, cores: usize) -> Option<usize> {
    let heavy = plan.hashed.is_some() || plan.shape == Shape::Regex;
    (cfg.threads_default && heavy && cores > cfg.threads).then_some(cores)
}

fn search_sequential(cfg: &Config, plan: &Plan) -> anyhow::Result<bool> {
    let started = Instant::now();
    let mut searcher = searcher(cfg);
    let mut printer = Printer::new(cfg, stdout(cfg));
    let mut stats = keeps_stats(cfg).then(Stats::new);
    let (mut matched, mut searched) = (false, false);
    let mut split_files = 0usize;
    let walker = walk::walk_builder(cfg)?.build();
    for hay in walker.filter_map(|r| walk::haystack(r, cfg.implicit_path)) {
        searched = true;
        let big = crate::search::bigfile::search(cfg, &mut searcher, &mut printer, plan, &hay);
        split_files += usize::from(big.is_some());
        let result = match big.unwrap_or_else(|| {
            search_haystack(cfg, &mut searcher, &mut printer, plan.line_matcher(), &hay)
        }) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break,
            Err(e) => {
                err_message!("{}: {}", hay.path.display(), e);
                continue;
            }
        };
        matched |= result.has_match;
        if let (Some(s), Some(r)) = (stats.as_mut(), result.stats.as_ref()) {
            *s += r;
        }
        if matched && cfg.quit_after_match {
            break;
        }
    }
    finish(
        cfg,
        searched,
        stats.as_ref(),
        started,
        printer.get_mut(),
        &cpu_report(cfg, plan, split_files),
    )?;
    Ok(matched)
}

fn search_parallel(cfg: &Config, plan: &Plan) -> anyhow::Result<bool> {
    let started = Instant::now();
    let bufwtr = buffer_writer(cfg);
    let stats = keeps_stats(cfg).then(|| Mutex::new(Stats::new()));
    let matched = AtomicBool::new(false);
    let searched = AtomicBool::new(false);
    walk::walk_builder(cfg)?.build_parallel().run(|| {
        let (bufwtr, stats, matched, searched) = (&bufwtr, &stats, &matched, &searched);
        let mut searcher = searcher(cfg);
        let mut printer = Printer::new(cfg, bufwtr.buffer());
        Box::new(move |result| {
            let Some(hay) = walk::haystack(result, cfg.implicit_path) else {
                return WalkState::Continue;
            };
            // Here, about to open a file, the walker holds nothing open for
            // this thread (see `fdtable`).
            crate::sys::fdtable::own_table();
            searched.store(true, Ordering::SeqCst);
            printer.get_mut().clear();
            let result = match search_haystack(
                cfg,
                &mut searcher,
                &mut printer,
                plan.line_matcher(),
                &hay,
            ) {
                Ok(r) => r,
                Err(e) => {
                    err_message!("{}: {}", hay.path.display(), e);
                    return WalkState::Continue;
                }
            };
            if result.has_match {
                matched.store(true, Ordering::SeqCst);
            }
            if let (Some(s), Some(r)) = (stats.as_ref(), result.stats.as_ref()) {
                *s.lock().unwrap() += r;
            }
            if let Err(e) = bufwtr.print(printer.get_mut()) {
                if e.kind() == io::ErrorKind::BrokenPipe {
                    return WalkState::Quit;
                }
                err_message!("{}: {}", hay.path.display(), e);
            }
            if matched.load(Ordering::SeqCst) && cfg.quit_after_match {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    let stats = stats.map(|s| s.into_inner().unwrap());
    let mut buf = bufwtr.buffer();
    finish(
        cfg,
        searched.load(Ordering::SeqCst),
        stats.as_ref(),
        started,
        &mut buf,
        &cpu_report(cfg, plan, 0),
    )?;
    let _ = bufwtr.print(&buf);
    Ok(matched.load(Ordering::SeqCst))
}

/// What `--stats` says about a CPU search.
fn cpu_report(cfg: &Config, plan: &Plan, split_files: usize) -> Vec<String> {
    let mut v = vec![
        format!("engine: cpu ({} search thread(s))", cfg.threads),
        format!("patterns: {}", plan.describe()),
    ];
    if split_files > 0 {
        let cores = crate::sys::cores();
        v.push(format!(
            "{split_files} big file(s) split at line boundaries across {cores} threads"
        ));
    }
    if cfg.engine == crate::cli::EngineArg::Opencl && plan.literals.is_none() {
        v.push("no literal for a device kernel: the CPU engine ran the regex".into());
    }
    v
}

/// The writer used by parallel searches: whole per-file buffers, separated
/// as ripgrep separates files (blank line with headings, `--` with context).
pub fn buffer_writer(cfg: &Config) -> termcolor::BufferWriter {
    let mut w = termcolor::BufferWriter::stdout(cfg.color);
    w.separator(cfg.file_separator.clone());
    w
}

/// End-of-run duties: the "nothing searched" warning and `--stats`.
pub fn finish<W: io::Write>(
    cfg: &Config,
    searched: bool,
    stats: Option<&Stats>,
    started: Instant,
    wtr: &mut W,
    engine: &[String],
) -> io::Result<()> {
    if cfg.implicit_path && !searched {
        err_message!(
            "No files were searched, which means gsearch probably applied a filter you didn't expect.\nRunning with -uuu searches hidden, ignored and binary files too."
        );
    }
    if let Some(stats) = stats {
        let _ = crate::output::stats::print(cfg, stats, started, engine, wtr);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(args: &[&str]) -> (Config, Plan) {
        let argv = std::iter::once("gsearch").chain(args.iter().copied());
        let cfg = Config::from_cli(<crate::cli::Cli as clap::Parser>::parse_from(argv)).unwrap();
        let plan = Plan::new(&cfg).unwrap();
        (cfg, plan)
    }

    #[test]
    fn cpu_bound_matchers_take_every_core_unless_told() {
        let dir = tempfile::tempdir().unwrap();
        let words: Vec<String> = (0..300).map(|i| format!("word{i}x")).collect();
        let list = dir.path().join("words");
        std::fs::write(&list, words.join("\n")).unwrap();
        let (list, tree) = (list.to_str().unwrap(), dir.path().to_str().unwrap());
        let widened = |args: &[&str]| {
            let (cfg, plan) = setup(args);
            widened_to(&cfg, &plan, 16).map(|n| (cfg.threads, n))
        };
        assert_eq!(widened(&["-F", "-f", list, tree]).map(|w| w.1), Some(16));
        assert_eq!(widened(&[r"\w{5}\s+\w{5}", tree]).map(|w| w.1), Some(16));
        assert_eq!(widened(&["needle", tree]), None, "one literal");
        assert_eq!(widened(&["-j3", "-F", "-f", list, tree]), None, "-j given");
        assert_eq!(widened(&["-F", "-f", list, list]), None, "one file");
        assert_eq!(widened(&["--sort", "path", "-F", "-f", list, tree]), None);
    }

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
