//! Builds the printer that a search writes to: ripgrep's own printers
//! (grep-printer), configured as ripgrep configures them, so output is
//! ripgrep's byte for byte.
//!
//! The summary printer (`-c`, `--count-matches`, `-l`, `--files-without-match`)
//! is given no path: it writes its line after [`PathFirst`] has written the
//! path, or this module writes the path line itself. grep-printer works out
//! every path it prints as a hyperlink first, even when no hyperlink is
//! printed (gsearch prints none): it makes the path absolute and resolves
//! each of its directories, a `readlink` per directory. A tree search
//! counting 1,000 words, with thousands of files matching, spent 9% of its
//! CPU time there.

use std::io;
use std::path::Path;

use grep_matcher::Matcher;
use grep_printer::{
    JSON, JSONBuilder, JSONSink, Standard, StandardBuilder, StandardSink, Stats, Summary,
    SummaryBuilder, SummaryKind, SummarySink,
};
use grep_searcher::{Searcher, Sink};
use termcolor::{ColorSpec, HyperlinkSpec, WriteColor};

use crate::cli::config::{Config, OutputMode};
use crate::output::json;
use crate::output::stats::keeps_stats;

/// One of ripgrep's three printers.
pub enum Printer<W> {
    Standard(Standard<W>),
    Summary(SummaryPrinter<W>),
    /// grep-printer's summary printer with the paths, for what only it
    /// writes: hyperlinks and `--path-separator`.
    SummaryWithPaths(Summary<W>),
    Json(JSON<W>),
    /// `--json`, formatted by gsearch ([`json::JsonSink`]; not `-U`), and
    /// `-r`'s replacement.
    JsonLines(W, Option<Vec<u8>>),
}

/// The summary printer, without paths, and how this module prints them.
pub struct SummaryPrinter<W> {
    /// Built without paths, and with the quiet kinds for the path kinds.
    printer: Summary<PathFirst<W>>,
    /// The kind asked for.
    kind: SummaryKind,
    /// Whether paths are printed before counts (`cfg.with_filename`).
    with_path: bool,
    /// The NUL of `--null`: what follows a path alone in place of the line
    /// terminator (and a path before a count, see [`PathFirst`]).
    terminator: Option<u8>,
}

/// The writer under the summary printer: the path set before a search is
/// written, colored as a path, with what follows it before a count, just
/// before the printer's first byte (its count line), and not at all when
/// the printer writes nothing.
pub struct PathFirst<W> {
    inner: W,
    color: ColorSpec,
    path: Vec<u8>,
    /// The NUL of `--null`, else `:`.
    after_count: u8,
    pending: bool,
}

impl<W: WriteColor> PathFirst<W> {
    fn write_pending(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.pending) {
            write_path(
                &mut self.inner,
                &self.color,
                &self.path,
                &[self.after_count],
            )?;
        }
        Ok(())
    }
}

/// Writes `path` colored as a path, then `after`, as grep-printer writes a
/// path.
fn write_path(
    w: &mut impl WriteColor,
    color: &ColorSpec,
    path: &[u8],
    after: &[u8],
) -> io::Result<()> {
    w.set_color(color)?;
    w.write_all(path)?;
    w.reset()?;
    w.write_all(after)
}

impl<W: WriteColor> io::Write for PathFirst<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_pending()?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: WriteColor> WriteColor for PathFirst<W> {
    fn supports_color(&self) -> bool {
        self.inner.supports_color()
    }

    fn supports_hyperlinks(&self) -> bool {
        self.inner.supports_hyperlinks()
    }

    fn set_color(&mut self, spec: &ColorSpec) -> io::Result<()> {
        self.write_pending()?;
        self.inner.set_color(spec)
    }

    fn set_hyperlink(&mut self, link: &HyperlinkSpec) -> io::Result<()> {
        self.write_pending()?;
        self.inner.set_hyperlink(link)
    }

    fn reset(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.inner.reset()
    }

    fn is_synchronous(&self) -> bool {
        self.inner.is_synchronous()
    }
}

/// What one search reports back.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub has_match: bool,
    pub stats: Option<Stats>,
}

impl SearchResult {
    /// The result with its statistics' time (`--stats`' "seconds spent
    /// searching") at least `elapsed`: a search whose printer ran after the
    /// lines were found (one big file over every core) counts both.
    pub fn searched_for(mut self, elapsed: std::time::Duration) -> SearchResult {
        if let Some(s) = self.stats.as_mut() {
            s.add_elapsed(elapsed.saturating_sub(s.elapsed()));
        }
        self
    }
}

impl<W: WriteColor> Printer<W> {
    /// The printer for this run's output mode. With one thread the printer
    /// writes the separator between files itself, as ripgrep's does.
    pub fn new(cfg: &Config, wtr: W) -> Printer<W> {
        Printer::build(cfg, wtr, cfg.threads == 1)
    }

    /// A printer for output that a `termcolor::BufferWriter` separates.
    pub fn new_unseparated(cfg: &Config, wtr: W) -> Printer<W> {
        Printer::build(cfg, wtr, false)
    }

    fn build(cfg: &Config, wtr: W, own_separator: bool) -> Printer<W> {
        let colors = cfg.out.colors.clone();
        let terminator = cfg.null.then_some(b'\x00');
        let summary_kind = if cfg.quiet {
            if cfg.mode == OutputMode::FilesWithoutMatch {
                SummaryKind::QuietWithoutMatch
            } else {
                SummaryKind::QuietWithMatch
            }
        } else {
            match cfg.mode {
                OutputMode::FilesWithMatches => SummaryKind::PathWithMatch,
                OutputMode::FilesWithoutMatch => SummaryKind::PathWithoutMatch,
                OutputMode::Count => SummaryKind::Count,
                OutputMode::CountMatches => SummaryKind::CountMatches,
                OutputMode::Json if json::sink_form(cfg) => {
                    return Printer::JsonLines(wtr, cfg.replace.clone());
                }
                OutputMode::Json => {
                    return Printer::Json(
                        JSONBuilder::new()
                            .pretty(false)
                            .replacement(cfg.replace.clone())
                            .always_begin_end(false)
                            .build(wtr),
                    );
                }
                OutputMode::Standard => {
                    return Printer::Standard(standard(cfg, wtr, own_separator));
                }
            }
        };
        if cfg.out.hyperlinks || cfg.out.path_separator.is_some() {
            return Printer::SummaryWithPaths(summary_with_paths(cfg, wtr, summary_kind));
        }
        let wtr = PathFirst {
            inner: wtr,
            color: colors.path().clone(),
            path: Vec::new(),
            after_count: terminator.unwrap_or(b':'),
            pending: false,
        };
        // The path kinds as the quiet ones: they quit as early and count
        // the same way, and need no path.
        let pathless = match summary_kind {
            SummaryKind::PathWithMatch => SummaryKind::QuietWithMatch,
            SummaryKind::PathWithoutMatch => SummaryKind::QuietWithoutMatch,
            k => k,
        };
        Printer::Summary(SummaryPrinter {
            printer: SummaryBuilder::new()
                .color_specs(colors)
                .exclude_zero(!cfg.include_zero)
                .kind(pathless)
                .path(false)
                // `--json -q` prints the summary too, as ripgrep does.
                .stats(keeps_stats(cfg))
                .build(wtr),
            kind: summary_kind,
            with_path: cfg.with_filename,
            terminator,
        })
    }

    pub fn get_mut(&mut self) -> &mut W {
        match self {
            Printer::Standard(p) => p.get_mut(),
            Printer::Summary(p) => &mut p.printer.get_mut().inner,
            Printer::SummaryWithPaths(p) => p.get_mut(),
            Printer::Json(p) => p.get_mut(),
            Printer::JsonLines(w, _) => w,
        }
    }

    /// Searches `input` with `matcher`, printing results for `path`.
    pub fn search<M: Matcher>(
        &mut self,
        searcher: &mut Searcher,
        matcher: M,
        path: &Path,
        input: Input<'_>,
    ) -> io::Result<SearchResult> {
        let m = &matcher;
        match self {
            Printer::Standard(p) => finish(searcher, m, input, p.sink_with_path(m, path)),
            Printer::Summary(p) => {
                p.search(searcher, m, path.as_os_str().as_encoded_bytes(), input)
            }
            Printer::SummaryWithPaths(p) => finish(searcher, m, input, p.sink_with_path(m, path)),
            Printer::Json(p) => finish(searcher, m, input, p.sink_with_path(m, path)),
            Printer::JsonLines(w, r) => {
                let sink = json::JsonSink::new(m, path, r.as_deref(), w);
                finish(searcher, m, input, sink)
            }
        }
    }
}

/// ripgrep's standard printer, configured as ripgrep configures it.
fn standard<W: WriteColor>(cfg: &Config, wtr: W, own_separator: bool) -> Standard<W> {
    let mut b = StandardBuilder::new();
    b.byte_offset(cfg.byte_offset)
        .color_specs(cfg.out.colors.clone())
        .column(cfg.column)
        .heading(cfg.heading)
        .hyperlink(cfg.out.hyperlink.clone())
        .max_columns(cfg.out.max_columns)
        .max_columns_preview(cfg.out.max_columns_preview)
        .only_matching(cfg.only_matching)
        .path(cfg.with_filename)
        .path_terminator(cfg.null.then_some(b'\x00'))
        .per_match_one_line(true)
        .per_match(cfg.vimgrep)
        .replacement(cfg.replace.clone())
        .separator_context(cfg.context_separator.clone())
        .separator_field_context(cfg.out.field_context_separator.clone())
        .separator_field_match(cfg.out.field_match_separator.clone())
        .separator_path(cfg.out.path_separator)
        .stats(cfg.stats)
        .trim_ascii(cfg.out.trim);
    if own_separator {
        b.separator_search(cfg.file_separator.clone());
    }
    b.build(wtr)
}

/// ripgrep's summary printer as ripgrep configures it, paths and all.
fn summary_with_paths<W: WriteColor>(cfg: &Config, wtr: W, kind: SummaryKind) -> Summary<W> {
    SummaryBuilder::new()
        .color_specs(cfg.out.colors.clone())
        .exclude_zero(!cfg.include_zero)
        .hyperlink(cfg.out.hyperlink.clone())
        .kind(kind)
        .path(cfg.with_filename)
        .path_terminator(cfg.null.then_some(b'\x00'))
        .separator_field(b":".to_vec())
        .separator_path(cfg.out.path_separator)
        .stats(keeps_stats(cfg))
        .build(wtr)
}

impl<W: WriteColor> SummaryPrinter<W> {
    /// [`Printer::search`]: the path goes before a count line, or after
    /// the search on a line of its own, where grep-printer would put it.
    fn search<M: Matcher>(
        &mut self,
        searcher: &mut Searcher,
        matcher: &M,
        path: &[u8],
        input: Input<'_>,
    ) -> io::Result<SearchResult> {
        let counts = matches!(self.kind, SummaryKind::Count | SummaryKind::CountMatches);
        if self.with_path && counts {
            let w = self.printer.get_mut();
            w.path.clear();
            w.path.extend_from_slice(path);
            w.pending = true;
        }
        let mut sink = self.printer.sink(matcher);
        let fed = feed(searcher, matcher, input, &mut sink);
        let result = sink.result();
        // A file left at binary data (the searcher quits there) prints
        // nothing, not even as a file without a match.
        let quit_at_binary = sink.binary_byte_offset().is_some()
            && searcher.binary_detection().quit_byte().is_some();
        drop(sink);
        let w = self.printer.get_mut();
        // Not written: the printer wrote no count line.
        w.pending = false;
        fed?;
        // `has_match` is whether the file is one to list (for the kinds
        // without a match: that it has none), a count of 0 where binary
        // data ended the search; such a file is not listed as without a
        // match either.
        let line = match self.kind {
            SummaryKind::PathWithMatch => result.has_match,
            SummaryKind::PathWithoutMatch => result.has_match && !quit_at_binary,
            _ => false,
        };
        // The path kinds print the path whatever `with_path` says (a
        // single file, standard input), as grep-printer's do.
        if line {
            // ripgrep ends the line with the searcher's terminator: `\r\n`
            // with `--crlf`.
            let line_term = searcher.line_terminator();
            let nul = self.terminator.map(|t| [t]);
            let term = match &nul {
                Some(t) => &t[..],
                None => line_term.as_bytes(),
            };
            write_path(&mut w.inner, &w.color, path, term)?;
        }
        Ok(result)
    }
}

/// What a printer's sink knows once a search is over.
trait Finished {
    fn result(&self) -> SearchResult;
}

impl<M: Matcher, W: WriteColor> Finished for StandardSink<'_, '_, M, W> {
    fn result(&self) -> SearchResult {
        SearchResult {
            has_match: self.has_match(),
            stats: self.stats().cloned(),
        }
    }
}

impl<M: Matcher, W: WriteColor> Finished for SummarySink<'_, '_, M, W> {
    fn result(&self) -> SearchResult {
        SearchResult {
            has_match: self.has_match(),
            stats: self.stats().cloned(),
        }
    }
}

impl<M: Matcher, W: io::Write> Finished for json::JsonSink<'_, M, W> {
    fn result(&self) -> SearchResult {
        SearchResult {
            has_match: self.has_match(),
            stats: Some(self.stats().clone()),
        }
    }
}

impl<M: Matcher, W: io::Write> Finished for JSONSink<'_, '_, M, W> {
    fn result(&self) -> SearchResult {
        SearchResult {
            has_match: self.has_match(),
            stats: Some(self.stats().clone()),
        }
    }
}

/// Where the bytes of one search come from.
pub enum Input<'a> {
    /// A file path (the searcher decides between a memory map and reads).
    Path(&'a Path),
    /// A reader, e.g. standard input.
    Reader(&'a mut dyn io::Read),
    /// Bytes already in memory (a staging buffer, a memory map).
    Slice(&'a [u8]),
}

/// Feeds `input` to a printer's `sink`: what the sink knows when it is over.
fn finish<M: Matcher, S: Sink<Error = io::Error> + Finished>(
    searcher: &mut Searcher,
    matcher: &M,
    input: Input<'_>,
    mut sink: S,
) -> io::Result<SearchResult> {
    feed(searcher, matcher, input, &mut sink)?;
    Ok(sink.result())
}

fn feed<M: Matcher, S: Sink<Error = io::Error>>(
    searcher: &mut Searcher,
    matcher: &M,
    input: Input<'_>,
    sink: &mut S,
) -> io::Result<()> {
    match input {
        Input::Path(p) => searcher.search_path(matcher, p, sink),
        Input::Reader(r) => searcher.search_reader(matcher, r, sink),
        Input::Slice(s) => searcher.search_slice(matcher, s, sink),
    }
}

/// `out` without the JSON printer's timings (each `"elapsed":{...}` of an
/// `end` message, which has no braces inside): two searches of the same
/// bytes print the same but for them (`--verify` compares two printers).
/// Text from the input is escaped in JSON, so an unescaped `"elapsed":{`
/// is always the printer's own.
pub fn without_timings(out: &[u8]) -> Vec<u8> {
    const KEY: &[u8] = b"\"elapsed\":{";
    let mut kept = Vec::with_capacity(out.len());
    let mut rest = out;
    while let Some(at) = memchr::memmem::find(rest, KEY) {
        kept.extend_from_slice(&rest[..at + KEY.len()]);
        let after = &rest[at + KEY.len()..];
        let end = memchr::memchr(b'}', after).map_or(after.len(), |e| e);
        rest = &after[end..];
    }
    kept.extend_from_slice(rest);
    kept
}

#[cfg(test)]
mod tests {
    use super::without_timings;

    #[test]
    fn without_timings_blanks_each_elapsed_object_and_nothing_else() {
        let a = br#"{"type":"end","data":{"text":"\"elapsed\":{1}","stats":{"elapsed":{"secs":0,"nanos":7,"human":"0.000000s"},"searches":1}}}"#;
        let b = br#"{"type":"end","data":{"text":"\"elapsed\":{1}","stats":{"elapsed":{"secs":1,"nanos":9,"human":"1.000000s"},"searches":1}}}"#;
        let c = br#"{"type":"end","data":{"text":"\"elapsed\":{2}","stats":{"elapsed":{"secs":1,"nanos":9,"human":"1.000000s"},"searches":1}}}"#;
        assert_eq!(without_timings(a), without_timings(b));
        assert_ne!(without_timings(b), without_timings(c));
        assert_eq!(without_timings(b"plain"), b"plain");
    }
}
