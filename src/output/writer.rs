//! Where output goes: standard output, line-buffered on a terminal and
//! block-buffered otherwise (as ripgrep does; `--line-buffered` and
//! `--block-buffered` decide instead), and the buffer writer of
//! parallel searches, whose per-file buffers are written whole, and the
//! standard output of one file printed while it is searched, flushed
//! whenever its printer waits.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use termcolor::{ColorSpec, HyperlinkSpec, WriteColor};

use crate::cli::config::Config;

/// The standard output stream, line-buffered on a terminal.
pub fn stdout(cfg: &Config) -> grep_cli::StandardStream {
    if cfg.out.line_buffered.unwrap_or(cfg.is_terminal_stdout) {
        grep_cli::stdout_buffered_line(cfg.color)
    } else {
        grep_cli::stdout_buffered_block(cfg.color)
    }
}

/// The writer used by parallel searches: whole per-file buffers, separated
/// as ripgrep separates files (blank line with headings, `--` with context).
pub fn buffer_writer(cfg: &Config) -> termcolor::BufferWriter {
    let mut w = termcolor::BufferWriter::stdout(cfg.color);
    w.separator(cfg.file_separator.clone());
    w
}

/// Standard output for one file printed while other threads still search
/// it ([`crate::search::streamed`]): block-buffered as [`stdout`] is, and
/// flushed whenever the printer is about to wait for them
/// ([`FlushOnWait::idle`]). The lines found so far then leave at once
/// rather than when 8 KiB have gathered, and a reader that has gone (a
/// closed pipe, `| head -1`) is seen while waiting rather than at the
/// next write, which may come only once the device has started. Shared
/// by the printer and the matcher that waits, on one thread.
pub struct FlushOnWait<W = grep_cli::StandardStream>(std::rc::Rc<Shared<W>>);

struct Shared<W> {
    stream: std::cell::RefCell<W>,
    /// Whether `stream` is standard output, whose reader is looked for.
    stdout: bool,
    /// The reader has gone: every later write fails as a closed pipe.
    gone: std::cell::Cell<bool>,
}

/// Flushes `out`, and fails as a closed pipe where it is standard output
/// (`stdout`) and its reader has gone (`| head -1` took its line): a
/// stream that writes nothing more would not learn it otherwise.
pub fn flush_watched<W: Write + ?Sized>(out: &mut W, stdout: bool) -> io::Result<()> {
    out.flush()?;
    if stdout && crate::sys::reader_gone(libc::STDOUT_FILENO) {
        return Err(io::ErrorKind::BrokenPipe.into());
    }
    Ok(())
}

/// Whether standard output's reader has gone (`| head -1` took its
/// line), for threads that search ahead of what is written: they stop at
/// their next block instead of finishing their segments first, and the
/// writer stops before its next write. `poll` is asked at most once a
/// millisecond, whichever thread asks.
pub struct ReaderGone {
    started: std::time::Instant,
    /// Milliseconds after `started` before which nobody asks again.
    next: AtomicU64,
    gone: AtomicBool,
}

impl Default for ReaderGone {
    fn default() -> Self {
        ReaderGone {
            started: std::time::Instant::now(),
            next: AtomicU64::new(0),
            gone: AtomicBool::new(false),
        }
    }
}

impl ReaderGone {
    /// Whether the reader is gone, as last seen. Once true, it stays true,
    /// and every write to standard output fails as a closed pipe.
    pub fn gone(&self) -> bool {
        if self.gone.load(Ordering::Relaxed) {
            return true;
        }
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let next = self.next.load(Ordering::Relaxed);
        if now < next
            || self
                .next
                .compare_exchange(next, now + 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        let gone = crate::sys::reader_gone(libc::STDOUT_FILENO);
        if gone {
            self.gone.store(true, Ordering::Relaxed);
        }
        gone
    }
}

impl<W> Clone for FlushOnWait<W> {
    fn clone(&self) -> Self {
        FlushOnWait(std::rc::Rc::clone(&self.0))
    }
}

impl FlushOnWait {
    /// Standard output as [`stdout`] buffers it.
    pub fn stdout(cfg: &Config) -> FlushOnWait {
        FlushOnWait::over(stdout(cfg), true)
    }
}

impl<W: WriteColor> FlushOnWait<W> {
    /// `stream`, standard output or not (whose reader is then not looked
    /// for: tests).
    pub fn over(stream: W, stdout: bool) -> FlushOnWait<W> {
        FlushOnWait(std::rc::Rc::new(Shared {
            stream: std::cell::RefCell::new(stream),
            stdout,
            gone: std::cell::Cell::new(false),
        }))
    }

    /// Called where the printer would wait: what is buffered is written,
    /// and false once the reader has gone (the write failed as a closed
    /// pipe, or standard output is a pipe nobody reads any more).
    pub fn idle(&self) -> bool {
        if self.gone() {
            return false;
        }
        let flushed = match self.0.stream.try_borrow_mut() {
            Ok(mut s) => flush_watched(&mut *s, self.0.stdout),
            Err(_) => Ok(()),
        };
        if matches!(&flushed, Err(e) if e.kind() == io::ErrorKind::BrokenPipe) {
            self.0.gone.set(true);
        }
        !self.gone()
    }

    /// Whether the reader has gone ([`FlushOnWait::idle`]).
    pub fn gone(&self) -> bool {
        self.0.gone.get()
    }

    fn stream(&self) -> io::Result<std::cell::RefMut<'_, W>> {
        match self.gone() {
            true => Err(io::ErrorKind::BrokenPipe.into()),
            false => Ok(self.0.stream.borrow_mut()),
        }
    }
}

impl<W: WriteColor> Write for FlushOnWait<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.stream()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream()?.flush()
    }
}

impl<W: WriteColor> WriteColor for FlushOnWait<W> {
    fn supports_color(&self) -> bool {
        self.0.stream.borrow().supports_color()
    }

    fn supports_hyperlinks(&self) -> bool {
        self.0.stream.borrow().supports_hyperlinks()
    }

    fn set_color(&mut self, spec: &ColorSpec) -> io::Result<()> {
        self.stream()?.set_color(spec)
    }

    fn set_hyperlink(&mut self, link: &HyperlinkSpec) -> io::Result<()> {
        self.stream()?.set_hyperlink(link)
    }

    fn reset(&mut self) -> io::Result<()> {
        self.stream()?.reset()
    }

    fn is_synchronous(&self) -> bool {
        self.0.stream.borrow().is_synchronous()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Bytes written through to a shared vector; flushes fail as a closed
    /// pipe with `broken`.
    #[derive(Clone, Default)]
    struct Sink {
        got: Rc<RefCell<Vec<u8>>>,
        broken: bool,
    }

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.broken {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            self.got.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn buffered(sink: &Sink) -> FlushOnWait<termcolor::NoColor<io::BufWriter<Sink>>> {
        let stream = termcolor::NoColor::new(io::BufWriter::new(sink.clone()));
        FlushOnWait::over(stream, false)
    }

    #[test]
    fn what_is_buffered_leaves_when_the_printer_waits() {
        let sink = Sink::default();
        let mut out = buffered(&sink);
        out.write_all(b"first line\n").unwrap();
        assert!(sink.got.borrow().is_empty(), "block-buffered until then");
        assert!(out.idle());
        assert_eq!(&sink.got.borrow()[..], b"first line\n");
        assert!(!out.gone());
    }

    #[test]
    fn a_closed_pipe_seen_while_waiting_fails_every_later_write() {
        let sink = Sink {
            broken: true,
            ..Sink::default()
        };
        let mut out = buffered(&sink);
        out.write_all(b"line\n").unwrap();
        assert!(!out.idle());
        assert!(out.gone());
        let e = out.write_all(b"more\n").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }
}
