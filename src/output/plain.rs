//! Numbered matching lines of a big file, printed by every core.
//!
//! ripgrep's searcher numbers lines by counting every line terminator of
//! the file on one thread. When the matching lines are already known (the
//! device's candidates, or `pipeline::lines::matching_lines`), the numbers can be
//! computed in parallel instead: the file is cut into windows, each window
//! into one segment per thread; the threads count the newlines of their
//! segment, a prefix sum gives each segment its first line number, and the
//! threads then format their lines. Only the common forms are done here
//! (`[PATH:]LINE:TEXT`, with `-A/-B/-C`, and for one big file with `-b`,
//! `--column`, `-r`, `-o`, `--vimgrep` or `-v`, in color, colored by
//! [`super::style`], and under a [`heading`]; no `-m` or `--stats`);
//! everything else goes through ripgrep's printer.
//! Tests compare the two byte for byte.

use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;

use grep_matcher::Matcher;

use crate::cli::config::{Config, OutputMode};
use crate::matcher::line::LineMatcher;
use crate::matcher::lines::line_is_match;
use crate::matcher::plan::Plan;
use crate::output::context::{self, LineWriter};
use crate::output::matches::{self, MatcherFailed};
use crate::output::style::{Number, Style};
use crate::pipeline::lines::{Numbered, line_end};
use crate::sys::guard::{GuardedMap, Releaser};

/// Bytes of the file handled per round (bounds the output held in memory).
const WINDOW: usize = 256 << 20;
/// Whether the output asked for is the plain numbered form handled here.
pub fn eligible(cfg: &Config) -> bool {
    lines_form(cfg) && cfg.line_number && !heading_shown(cfg)
}

/// Whether the output asked for is plain matching lines, numbered or not
/// (without numbers: the lines as they are, after the path with `-H`, as a
/// search piped into another program prints them), no context: what
/// `search::bigfile` streams.
pub fn lines_form(cfg: &Config) -> bool {
    plain_standard(cfg) && cfg.before == 0 && cfg.after == 0
}

/// Whether the output asked for is matching lines or matches (`-o`,
/// `--vimgrep`) with `-b`, `--column` or `-r`, or `-o` alone, or any
/// matching lines in color, numbered or not, no context: what
/// `search::bigfile` streams through [`Fields`].
pub fn fields_form(cfg: &Config) -> bool {
    (fields(cfg) || cfg.color != termcolor::ColorChoice::Never)
        && printable(cfg)
        && !cfg.invert
        && cfg.before == 0
        && cfg.after == 0
}

/// Whether the output asked for is matching lines with context lines
/// (`-A`, `-B`, `-C`, at most [`context::CONTEXT_MAX`] each), numbered or not, in
/// color or not, and nothing else [`fields`] adds: what `search::bigfile`
/// streams through `output::context`.
pub fn context_form(cfg: &Config) -> bool {
    context::streams(cfg.before, cfg.after)
        && printable(cfg)
        && !cfg.invert
        && !fields(cfg)
        && !printer_separates(cfg)
}

/// Whether ripgrep's printer writes the separator between files (the
/// context separator with context): several files searched on one thread
/// (`--sort`), its count of bytes written deciding; with more threads the
/// writer separates the files' buffers.
fn printer_separates(cfg: &Config) -> bool {
    cfg.file_separator.is_some() && cfg.threads == 1 && !cfg.is_one_file
}

/// Whether the lines carry more than their text and numbers: byte
/// offsets, columns, `-o`, `--vimgrep` or replacements ([`Fields`]).
fn fields(cfg: &Config) -> bool {
    cfg.byte_offset || cfg.column || cfg.only_matching || cfg.vimgrep || cfg.replace.is_some()
}

/// The standard output without anything this module does not write for
/// every file: colors, [`fields`], `-v`, `-m`, `--stats`, and headings
/// where ripgrep's printer separates the files.
fn plain_standard(cfg: &Config) -> bool {
    plain_fields(cfg) && !fields(cfg)
}

/// Whether the output asked for is the lines that do not match (`-v`),
/// numbered or not, in color or not, no context: what `search::bigfile`
/// streams ([`write_inverted`]).
pub fn inverted_form(cfg: &Config) -> bool {
    cfg.invert && printable(cfg) && !fields(cfg) && cfg.before == 0 && cfg.after == 0
}

/// [`plain_standard`], byte offsets, columns, `-o`, `--vimgrep` and `-r`
/// allowed.
fn plain_fields(cfg: &Config) -> bool {
    plain_any(cfg) && !cfg.invert
}

/// [`plain_fields`], `-v` allowed.
fn plain_any(cfg: &Config) -> bool {
    printable(cfg) && cfg.color == termcolor::ColorChoice::Never
}

/// The standard output without ripgrep's printer's own options (other
/// separators, `--trim`...), `-q`, `-m` or `--stats`: colors allowed, and
/// headings (a big file's is written before its first line, [`heading`])
/// unless ripgrep's printer separates the files.
fn printable(cfg: &Config) -> bool {
    cfg.mode == OutputMode::Standard
        && !cfg.out.needs_ripgrep_printer()
        && !cfg.quiet
        && (!cfg.heading || !printer_separates(cfg))
        && !cfg.stats
        && cfg.max_count.is_none()
}

/// Whether a heading with the file's path goes before its lines
/// (`--heading`, a terminal's default, with paths shown).
fn heading_shown(cfg: &Config) -> bool {
    cfg.heading && cfg.with_filename
}

/// What ripgrep's printer writes before a file's first line: with a
/// heading, the path in its color and a line terminator (NUL with
/// `--null`); else nothing.
pub fn heading(cfg: &Config, path: &Path, style: Style<'_>) -> Vec<u8> {
    if !heading_shown(cfg) {
        return Vec::new();
    }
    let mut h = Vec::new();
    style.path(&mut h, &path_bytes(path));
    h.push(if cfg.null { 0 } else { b'\n' });
    h
}

/// Whether `data` can be printed here: no byte-order mark (the searcher
/// transcodes or strips it) and the caller checked there is no NUL.
pub fn plain_text(data: &[u8]) -> bool {
    !(data.starts_with(b"\xEF\xBB\xBF")
        || data.starts_with(b"\xFF\xFE")
        || data.starts_with(b"\xFE\xFF"))
}

/// Prints the lines holding `starts` (sorted offsets: line starts when
/// `confirm` is `None`, else candidate positions whose lines `confirm`
/// must match). Returns whether any line was printed.
pub fn print<W: Write>(
    cfg: &Config,
    path: &Path,
    data: &[u8],
    starts: &[u64],
    confirm: Option<&LineMatcher<'_>>,
    map: Option<&GuardedMap>,
    wtr: &mut W,
) -> io::Result<bool> {
    let threads = crate::sys::core_share();
    let prefix = path_prefix(cfg, path);
    let mut line_base = 1u64;
    let mut any = false;
    let mut next = 0usize;
    let mut w0 = 0usize;
    while w0 < data.len() {
        let w1 = crate::pipeline::lines::next_line_start(data, (w0 + WINDOW).min(data.len()));
        let bounds = crate::pipeline::lines::split(data, w0, w1, threads);
        let (counts, bufs) = window(data, &bounds, &starts[next..], confirm, &prefix, line_base);
        for b in &bufs {
            any |= !b.is_empty();
            wtr.write_all(b)?;
        }
        line_base += counts;
        next += starts[next..].partition_point(|&s| (s as usize) < w1);
        if let Some(m) = map {
            m.release(w0..w1);
        }
        w0 = w1;
    }
    Ok(any)
}

/// `PATH:` when paths are shown (`PATH` NUL with `--null`), else nothing:
/// what goes before each numbered line.
pub fn path_prefix(cfg: &Config, path: &Path) -> Vec<u8> {
    prefix_with(cfg, path, b':')
}

/// [`path_prefix`], the path in `style`'s color, `sep` after it (`:` for
/// a matching line, `-` for a context line); nothing under a [`heading`].
pub fn styled_path_prefix(cfg: &Config, path: &Path, style: Style<'_>, sep: u8) -> Vec<u8> {
    if cfg.heading {
        return Vec::new();
    }
    path_field(cfg, path, style, sep)
}

/// `PATH` and `sep` (NUL with `--null`) when paths are shown.
fn path_field(cfg: &Config, path: &Path, style: Style<'_>, sep: u8) -> Vec<u8> {
    if !cfg.with_filename {
        return Vec::new();
    }
    let mut p = Vec::new();
    style.path(&mut p, &path_bytes(path));
    p.push(if cfg.null { 0 } else { sep });
    p
}

fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

/// One round: newline counts per segment, then formatted lines per
/// segment. Returns the window's newline count and the buffers in order.
fn window(
    data: &[u8],
    bounds: &[usize],
    starts: &[u64],
    confirm: Option<&LineMatcher<'_>>,
    prefix: &[u8],
    line_base: u64,
) -> (u64, Vec<Vec<u8>>) {
    let counts: Vec<u64> = std::thread::scope(|s| {
        let hs: Vec<_> = bounds
            .windows(2)
            .map(|w| s.spawn(move || count_nl(&data[w[0]..w[1]])))
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("count thread"))
            .collect()
    });
    let mut bases = Vec::with_capacity(counts.len());
    let mut acc = line_base;
    for c in &counts {
        bases.push(acc);
        acc += c;
    }
    let bufs = std::thread::scope(|s| {
        let hs: Vec<_> = bounds
            .windows(2)
            .zip(&bases)
            .map(|(w, &base)| {
                let (a, b) = (w[0], w[1]);
                let lo = starts.partition_point(|&x| (x as usize) < a);
                let hi = starts.partition_point(|&x| (x as usize) < b).max(lo);
                let mine = &starts[lo..hi];
                s.spawn(move || format_segment(data, a, mine, confirm, prefix, base))
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("format thread"))
            .collect()
    });
    (acc - line_base, bufs)
}

fn count_nl(bytes: &[u8]) -> u64 {
    crate::pipeline::lines::count_lines(bytes)
}

/// Formats the lines at `starts` (all inside the segment starting at `a`,
/// whose first line number is `base`).
fn format_segment(
    data: &[u8],
    a: usize,
    starts: &[u64],
    confirm: Option<&LineMatcher<'_>>,
    prefix: &[u8],
    base: u64,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = a;
    let mut line = base;
    let mut printed_until = 0usize;
    let mut num = itoa::Buffer::new();
    for &s in starts {
        let s = s as usize;
        // Offsets are sorted; anything else (a file that changed under us)
        // is skipped rather than trusted.
        if s < printed_until || s < pos || s >= data.len() {
            continue;
        }
        // Segments start at line starts, so the line lies in this segment.
        // (A mapped file written to meanwhile can change between two
        // reads: never step back before `pos`.)
        let ls = memchr::memrchr(b'\n', &data[a..s])
            .map_or(a, |i| a + i + 1)
            .max(pos);
        line += count_nl(&data[pos..ls]);
        pos = ls;
        printed_until = push_numbered(&mut out, data, (ls, s), prefix, num.format(line), confirm);
    }
    out
}

/// Candidate lines a format thread of [`print_numbered`] confirms at
/// least (H200 machine, 8 cores, 200 rules over 964.6 MB: about 770
/// candidates a chunk, which a floor of 4,096 lines left to one thread:
/// the whole `-n` took 1.39x the time of confirming them all on every core
/// after the search).
const CONFIRM_PER_THREAD: usize = 64;

/// Lines formatted per round of [`print_numbered`] (bounds the output held
/// in memory).
const NUMBERED_ROUND: usize = 1 << 20;

/// Lines of one file whose numbers are already known, as
/// [`print_numbered`] and [`print_context`] print them.
#[derive(Clone, Copy)]
pub struct NumberedLines<'a> {
    pub path: &'a Path,
    pub text: Text<'a>,
    /// The offsets of the lines: ascending, one offset per line (e.g. from
    /// the device's line index).
    pub offsets: &'a [u64],
    /// `numbers[i]`, 1-based, is the number of the line holding
    /// `offsets[i]`.
    pub numbers: &'a [u64],
}

impl<'a> NumberedLines<'a> {
    /// The lines in pieces of at most `size`.
    fn chunks(self, size: usize) -> impl Iterator<Item = NumberedLines<'a>> {
        let numbers = self.numbers.chunks(size);
        self.offsets
            .chunks(size)
            .zip(numbers)
            .map(move |(offsets, numbers)| NumberedLines {
                offsets,
                numbers,
                ..self
            })
    }
}

/// Prints the `lines` (candidates confirmed by `text.matcher` when
/// `text.confirm`): no newline of the file is counted, only the printed
/// lines are read. Returns whether any line was printed.
pub fn print_numbered<W: Write>(
    cfg: &Config,
    lines: NumberedLines<'_>,
    wtr: &mut W,
) -> io::Result<bool> {
    let threads = crate::sys::core_share();
    let prefix = path_prefix(cfg, lines.path);
    let mut any = false;
    for round in lines.chunks(NUMBERED_ROUND) {
        // (Candidates cost a match each: a few lines make a thread's work.)
        let least = if lines.text.confirm {
            CONFIRM_PER_THREAD
        } else {
            1 << 12
        };
        let per = round.offsets.len().div_ceil(threads).max(least);
        let bufs: Vec<Vec<u8>> = std::thread::scope(|s| {
            let hs: Vec<_> = round
                .chunks(per)
                .map(|part| {
                    let prefix = &prefix;
                    s.spawn(move || format_numbered(part, prefix))
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("format thread"))
                .collect()
        });
        for b in &bufs {
            any |= !b.is_empty();
            wtr.write_all(b)?;
        }
    }
    Ok(any)
}

/// Whether the output is plain matching lines with context (`-A`, `-B`,
/// `-C`) of one file, as [`print_context`] writes them.
pub fn context_eligible(cfg: &Config) -> bool {
    plain_standard(cfg)
        && (cfg.before > 0 || cfg.after > 0)
        && cfg.is_one_file
        && !heading_shown(cfg)
}

/// Prints the matching `lines` (every one a match: e.g. an exact literal
/// set's device lines) with their context lines, as ripgrep's standard
/// printer does for one file: `N:` before a matching line, `N-` before a
/// context line, the context separator between groups that do not touch.
/// Only the printed lines are read; their numbers come from the matches'.
pub fn print_context<W: Write>(
    cfg: &Config,
    lines: NumberedLines<'_>,
    wtr: &mut W,
) -> io::Result<bool> {
    let data = lines.text.data;
    let mut release = Releaser::new(lines.text.map, 0);
    let (before, after) = (cfg.before as u64, cfg.after as u64);
    let sep_match = prefix_with(cfg, lines.path, b':');
    let sep_context = prefix_with(cfg, lines.path, b'-');
    let mut out = Vec::new();
    let mut num = itoa::Buffer::new();
    // Number and end of the last line printed.
    let mut last: Option<(u64, usize)> = None;
    let (offsets, numbers) = (lines.offsets, lines.numbers);
    for (k, (&o, &n)) in offsets.iter().zip(numbers).enumerate() {
        let s = o as usize;
        if s >= data.len() || last.is_some_and(|(ln, _)| n <= ln) {
            continue; // out of order: a file that changed under the search
        }
        release.passed(last.map_or(0, |(_, e)| e));
        let ls = memchr::memrchr(b'\n', &data[..s]).map_or(0, |i| i + 1);
        // Before-context: up to `before` lines, not reaching back into
        // lines already printed.
        let first = n
            .saturating_sub(before)
            .max(last.map_or(1, |(ln, _)| ln + 1))
            .max(1);
        let mut starts = vec![ls];
        let mut at = ls;
        for _ in first..n {
            if at == 0 {
                break;
            }
            // The previous line ends with the newline at `at - 1`.
            at = memchr::memrchr(b'\n', &data[..at - 1]).map_or(0, |i| i + 1);
            starts.push(at);
        }
        starts.reverse();
        let first = n + 1 - starts.len() as u64;
        if let (Some((ln, _)), Some(sep)) = (last, cfg.context_separator.as_ref())
            && first > ln + 1
        {
            out.extend_from_slice(sep);
            out.push(b'\n');
        }
        let mut end = ls;
        for (j, &a) in starts.iter().enumerate() {
            let b = line_end(data, a);
            let is_match = j + 1 == starts.len();
            let (prefix, sep) = if is_match {
                (&sep_match, b':')
            } else {
                (&sep_context, b'-')
            };
            let number = cfg.line_number.then(|| (num.format(first + j as u64), sep));
            push_line_sep(&mut out, prefix, number, &data[a..b]);
            end = b;
        }
        let mut ln = n;
        // After-context: up to `after` lines, stopping before the next
        // matching line (printed as a match).
        let next = offsets.get(k + 1).map(|_| numbers[k + 1]);
        while ln < n + after && end < data.len() && next.is_none_or(|m| ln + 1 < m) {
            let b = line_end(data, end);
            ln += 1;
            let number = cfg.line_number.then(|| (num.format(ln), b'-'));
            push_line_sep(&mut out, &sep_context, number, &data[end..b]);
            end = b;
        }
        last = Some((ln, end));
        if out.len() >= 1 << 20 {
            wtr.write_all(&out)?;
            out.clear();
        }
    }
    wtr.write_all(&out)?;
    release.finish(last.map_or(0, |(_, e)| e));
    Ok(last.is_some())
}

/// The path prefix with `sep` after it (NUL with `--null`), or nothing.
fn prefix_with(cfg: &Config, path: &Path, sep: u8) -> Vec<u8> {
    styled_path_prefix(cfg, path, Style::new(None), sep)
}

/// Formats the lines holding `offsets`, numbered by `numbers`.
fn format_numbered(lines: NumberedLines<'_>, prefix: &[u8]) -> Vec<u8> {
    let NumberedLines {
        text,
        offsets,
        numbers,
        ..
    } = lines;
    let (data, confirm) = (text.data, text.confirmer());
    let mut release = Releaser::new(text.map, offsets.first().map_or(0, |&o| o as usize));
    let mut out = Vec::new();
    let mut printed_until = 0usize;
    let mut num = itoa::Buffer::new();
    for (&o, &line) in offsets.iter().zip(numbers) {
        let s = o as usize;
        // Anything out of order or range (a file that changed under us) is
        // skipped rather than trusted.
        if s < printed_until || s >= data.len() {
            continue;
        }
        release.passed(printed_until);
        let ls = memchr::memrchr(b'\n', &data[..s]).map_or(0, |i| i + 1);
        printed_until = push_numbered(&mut out, data, (ls, s), prefix, num.format(line), confirm);
    }
    release.finish(printed_until);
    out
}

/// Appends `PREFIX LINE:TEXT` (TEXT gets a `\n` when the file's last line
/// lacks one), as ripgrep's standard printer writes a numbered line.
/// Appends the line that starts at `ls` and holds offset `s`, numbered
/// `number`, unless `confirm` is given and rejects it; returns where the
/// line ends.
fn push_numbered(
    out: &mut Vec<u8>,
    data: &[u8],
    (ls, s): (usize, usize),
    prefix: &[u8],
    number: &str,
    confirm: Option<&LineMatcher<'_>>,
) -> usize {
    let end = line_end(data, s);
    push_confirmed(out, prefix, number, &data[ls..end], confirm);
    end
}

/// [`push_line`] for a line that `confirm`, when given, matches.
fn push_confirmed(
    out: &mut Vec<u8>,
    prefix: &[u8],
    number: &str,
    text: &[u8],
    confirm: Option<&LineMatcher<'_>>,
) {
    if confirm.is_none_or(|m| line_is_match(m, text)) {
        push_line(out, prefix, number, text);
    }
}

fn push_line(out: &mut Vec<u8>, prefix: &[u8], number: &str, text: &[u8]) {
    push_line_sep(out, prefix, Some((number, b':')), text);
}

/// `PREFIX[NUMBER SEP]TEXT\n`: `sep` is `:` for a matching line, `-` for
/// a context line (the prefix, from [`prefix_with`], carries the same).
fn push_line_sep(out: &mut Vec<u8>, prefix: &[u8], number: Option<(&str, u8)>, text: &[u8]) {
    out.extend_from_slice(prefix);
    if let Some((n, sep)) = number {
        out.extend_from_slice(n.as_bytes());
        out.push(sep);
    }
    out.extend_from_slice(text);
    if !text.ends_with(b"\n") {
        out.push(b'\n');
    }
}

/// The bytes whose lines are printed or counted, and how to read them.
#[derive(Clone, Copy)]
pub struct Text<'a> {
    pub data: &'a [u8],
    /// The map `data` is, if mapped: pages already read are dropped from
    /// the resident set as the work moves on (see
    /// [`GuardedMap::release`]), so a pass over a whole big file holds a
    /// few windows, not the file.
    pub map: Option<&'a GuardedMap>,
    /// The plan's matcher: it confirms candidate lines and counts matches.
    pub matcher: LineMatcher<'a>,
    /// The offsets are only candidates, whose lines the matcher confirms
    /// (else they are occurrences of an exact literal set).
    pub confirm: bool,
}

impl<'a> Text<'a> {
    /// `data` (the map `map`, if mapped) with the plan's candidate lines:
    /// confirmed by its matcher unless they are exact.
    pub fn of_plan(plan: &'a Plan, data: &'a [u8], map: Option<&'a GuardedMap>) -> Text<'a> {
        Text {
            data,
            map,
            matcher: plan.line_matcher(),
            confirm: !plan.exact_lines,
        }
    }

    fn confirmer(&self) -> Option<&LineMatcher<'a>> {
        self.confirm.then_some(&self.matcher)
    }

    /// Whether a candidate line at `offsets` must be decided in order,
    /// which the parallel paths here do not do: its answer depends on
    /// whether the line before it was reported (see
    /// [`reads_before`](crate::matcher::lines::reads_before)). ripgrep's
    /// searcher over an [`OffsetMatcher`](crate::matcher::offsets::OffsetMatcher)
    /// decides such lines.
    /// The pages read leave the resident set as the check moves on
    /// ([`Releaser`]): candidates lie every
    /// few tens of KB, and a read of a big file's page cache can map a 2 MB
    /// folio, so reading them all maps in most of the file (with `-w` and 15
    /// rules over 8.68 GB, 6.6 GiB of peak RSS against 0.5 GiB on the CPU
    /// engine).
    pub fn needs_order(&self, offsets: &[u64]) -> bool {
        if !self.confirm || !self.matcher.reads_before() {
            return false;
        }
        let data = self.data;
        let first = offsets.first().map_or(0, |&o| o as usize);
        let mut release = crate::sys::guard::Releaser::new(self.map, first.min(data.len()));
        let found = offsets.iter().any(|&o| {
            let o = (o as usize).min(data.len());
            let ls = memchr::memrchr(b'\n', &data[..o]).map_or(0, |i| i + 1);
            release.passed(ls);
            crate::matcher::lines::reads_before(data, ls)
        });
        release.finish(offsets.last().map_or(0, |&o| o as usize + 1));
        found
    }
}

/// Prints the result for `text` through the parallel count or
/// numbered-lines path when the output allows one (see [`count_eligible`],
/// [`eligible`]) and the bytes are plain text; `None` means "use ripgrep's
/// printer". `offsets` are sorted.
pub fn try_print<W: Write>(
    cfg: &Config,
    path: &Path,
    text: Text<'_>,
    offsets: &[u64],
    wtr: &mut W,
) -> Option<io::Result<crate::output::printer::SearchResult>> {
    if !plain_text(text.data) || text.needs_order(offsets) {
        return None;
    }
    if count_eligible(cfg) {
        return Some(print_count(cfg, path, text, offsets, wtr));
    }
    if !eligible(cfg) {
        return None;
    }
    let printed = print(
        cfg,
        path,
        text.data,
        offsets,
        text.confirmer(),
        text.map,
        wtr,
    );
    Some(
        printed.map(|has_match| crate::output::printer::SearchResult {
            has_match,
            stats: None,
        }),
    )
}

/// Whether the output is a plain per-file count of matching lines or of
/// matches (`--stats` allowed: its figures are gathered here too), no
/// colors.
pub fn count_eligible(cfg: &Config) -> bool {
    count_form(cfg) && !cfg.invert && cfg.color == termcolor::ColorChoice::Never
}

/// [`count_eligible`], `-v` and colors allowed: the count of the lines
/// that do not match (and, for `--count-matches` and `--stats`, as many
/// matches), which `search::bigfile` counts as every line less the
/// matching ones; the path in its color ([`write_count`]).
pub fn count_form(cfg: &Config) -> bool {
    matches!(cfg.mode, OutputMode::Count | OutputMode::CountMatches)
        && !cfg.out.count_needs_ripgrep_printer()
        && !cfg.quiet
        && cfg.max_count.is_none()
}

/// Prints `[PATH:]COUNT` for the lines holding `offsets` (sorted), with
/// every core: each offset is moved back to its line start, duplicates go,
/// candidate lines are confirmed, and (for `--count-matches` or `--stats`)
/// each line's matches are counted as ripgrep's summary printer counts
/// them. With `--stats` the result carries the printer's statistics.
pub fn print_count<W: Write>(
    cfg: &Config,
    path: &Path,
    text: Text<'_>,
    offsets: &[u64],
    wtr: &mut W,
) -> io::Result<crate::output::printer::SearchResult> {
    let started = std::time::Instant::now();
    let threads = crate::sys::core_share();
    let matches = cfg.stats || cfg.mode == OutputMode::CountMatches;
    let per = offsets
        .len()
        .div_ceil(threads)
        .max(least_per_thread(text.confirm || matches));
    let parts: Vec<Tally> = std::thread::scope(|s| {
        let hs: Vec<_> = offsets
            .chunks(per)
            .map(|part| s.spawn(move || tally(text, part, matches)))
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("count thread"))
            .collect()
    });
    // Each part's lines are sorted and distinct; only a part's first line
    // can be the previous part's last.
    let (mut lines, mut found) = (0u64, 0u64);
    let mut last = None;
    for t in parts.iter().filter(|t| t.lines > 0) {
        lines += t.lines;
        found += t.matches;
        if last == Some(t.first) {
            lines -= 1;
            found -= t.first_matches;
        }
        last = Some(t.last);
    }
    let mut out = Vec::new();
    let shown = if cfg.mode == OutputMode::CountMatches {
        found
    } else {
        lines
    };
    write_count(cfg, path, shown, Style::new(None), &mut out);
    wtr.write_all(&out)?;
    Ok(count_result(cfg, started, text.data.len(), lines, found))
}

/// Candidate offsets a count thread takes at least. Finding an exact
/// offset's line is cheap, and a thread pays for 4,096 of them; running
/// the matcher on a line is not (a rule set of 200 regexes: about 8 µs a
/// line), and 128 lines pay for a thread. With 4,096, a 256 MiB file of a
/// tree with 6,400 candidate lines of a rule set was confirmed by two
/// threads on 32 cores: 2.5 s of the device engine's 4.4 s over 121 files.
fn least_per_thread(runs_matcher: bool) -> usize {
    if runs_matcher { 128 } else { 4096 }
}

/// What a count search reports: whether a line matched and, with
/// `--stats`, what ripgrep's summary printer records for one file (its
/// count is written after the bytes printed are taken: 0).
pub fn count_result(
    cfg: &Config,
    started: std::time::Instant,
    bytes: usize,
    lines: u64,
    found: u64,
) -> crate::output::printer::SearchResult {
    let stats = cfg.stats.then(|| {
        let mut st = grep_printer::Stats::new();
        st.add_elapsed(started.elapsed());
        st.add_searches(1);
        st.add_searches_with_match(u64::from(lines > 0));
        st.add_bytes_searched(bytes as u64);
        st.add_matched_lines(lines);
        st.add_matches(found);
        st
    });
    crate::output::printer::SearchResult {
        has_match: lines > 0,
        stats,
    }
}

/// Appends `[PATH:]N:LINE` for each of `found` (lines of `seg`, from
/// `pipeline::lines::matching_lines_until`; the first line of `seg` is
/// numbered `first`), as ripgrep's standard printer writes them; `prefix`
/// is [`path_prefix`]'s.
pub fn write_numbered(
    seg: &[u8],
    found: &[Numbered],
    prefix: &[u8],
    first: u64,
    out: &mut Vec<u8>,
) {
    let mut num = itoa::Buffer::new();
    for f in found {
        push_line(
            out,
            prefix,
            num.format(first + f.line),
            &seg[f.start..f.end],
        );
    }
}

/// Appends `[PATH:]LINE` for each of `found` (lines of `seg`), as
/// ripgrep's standard printer writes them without line numbers; `prefix`
/// is [`path_prefix`]'s.
pub fn write_unnumbered(seg: &[u8], found: &[Numbered], prefix: &[u8], out: &mut Vec<u8>) {
    for f in found {
        push_line_sep(out, prefix, None, &seg[f.start..f.end]);
    }
}

/// What `-o`, `--vimgrep`, `--column`, `-b` and `-r` make of the matching
/// lines of one big file, and their colors, written by the threads that
/// found the lines (`search::bigfile`).
pub struct Fields<'a, M> {
    /// The whole file (a line's offset in it is its `-b`).
    pub data: &'a [u8],
    /// [`styled_path_prefix`]'s.
    pub prefix: Vec<u8>,
    pub numbers: bool,
    pub column: bool,
    pub offsets: bool,
    /// `-o`: each match on a line of its own.
    pub only_matching: bool,
    /// `--vimgrep`: the line once per match.
    pub per_match: bool,
    /// `-r`: each match replaced by this, interpolated with its captures.
    pub replacement: Option<&'a [u8]>,
    /// The matcher ripgrep's printer finds the matches with.
    pub matcher: M,
    /// The colors, if any.
    pub style: Style<'a>,
}

impl<M: Matcher> Fields<'_, M> {
    /// Appends, for each of `found` (lines of the bytes from `at` on, the
    /// first numbered `first`), what ripgrep's standard printer writes:
    /// `[PATH:][LINE:][COLUMN:][OFFSET:]TEXT`, the matches found as it
    /// finds them ([`matches::line_matches`]) and colored as it colors
    /// them ([`Style`]). The column is the first match's (none where the
    /// printer finds no match) and the offset the line's in the file; with
    /// `-o`, one line per match, with its own column and offset, and with
    /// `--vimgrep` the whole line so for each match (the whole line once
    /// where the printer finds no match). With `-r` the line and its
    /// matches are the replaced ones ([`matches::replace_in_line`]; columns
    /// and offsets too are counted in the replaced line, as the printer
    /// counts them). `Err` when the matcher fails.
    pub fn write(
        &self,
        at: usize,
        found: &[Numbered],
        first: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), MatcherFailed> {
        let (mut subs, mut replaced) = (Vec::new(), Vec::new());
        let mut replacing = match self.replacement {
            Some(r) => {
                let caps = self.matcher.new_captures();
                Some((r, caps.map_err(|e| MatcherFailed(e.to_string()))?))
            }
            None => None,
        };
        let each = self.only_matching || self.per_match;
        let every = each || self.style.colors_matches();
        for f in found {
            let line = at + f.start..at + f.end;
            let number = self.numbers.then_some(first + f.line);
            let hay = (
                self.data,
                line.clone(),
                grep_matcher::LineTerminator::byte(b'\n'),
            );
            let bytes = match &mut replacing {
                Some((r, caps)) => {
                    let spans = (&mut replaced, &mut subs);
                    matches::replace_in_line(&self.matcher, hay, (r, true), caps, spans)?;
                    &replaced[..]
                }
                _ if !self.column && !every => {
                    self.push(out, (number, None, line.start), &self.data[line], &[]);
                    continue;
                }
                // (The first two say where the first is, and whether it stays.)
                _ => {
                    let most = if every { usize::MAX } else { 2 };
                    matches::line_matches(&self.matcher, hay, (most, line.end), &mut subs)?;
                    &self.data[line.clone()]
                }
            };
            if !each || subs.is_empty() {
                let column = subs.first().map(|&(s, _)| s as u64 + 1);
                self.push(out, (number, column, line.start), bytes, &subs);
                continue;
            }
            for &(s, e) in &subs {
                let at = (number, Some(s as u64 + 1), line.start + s);
                match self.only_matching {
                    true => self.push(out, at, &bytes[s..e], &[(0, e - s)]),
                    false => self.push(out, at, bytes, &[(s, e)]),
                }
            }
        }
        Ok(())
    }

    /// `PREFIX[LINE:][COLUMN:][OFFSET:]TEXT` and a line terminator, with
    /// the fields asked for, `matches` (spans of `text`) colored when the
    /// style colors them.
    fn push(
        &self,
        out: &mut Vec<u8>,
        (number, column, offset): (Option<u64>, Option<u64>, usize),
        text: &[u8],
        matches: &[(usize, usize)],
    ) {
        out.extend_from_slice(&self.prefix);
        let column = column.filter(|_| self.column);
        let offset = self.offsets.then_some(offset as u64);
        let fields = [
            (number, Number::Line),
            (column, Number::Column),
            (offset, Number::Column),
        ];
        for (n, kind) in fields {
            if let Some(n) = n {
                self.style.number(out, n, kind);
                out.push(b':');
            }
        }
        self.style.text(out, text, matches);
    }
}

/// Appends `[PATH:][N:]LINE` for each line of `seg` (whole lines) that is
/// not one of `found` (its matching lines, in order), as ripgrep's standard
/// printer writes the lines of `-v` (the path and number in `style`'s
/// colors, the text as it is: the printer finds no match in it); `first`
/// numbers the first line of `seg` (`None`: no numbers); `prefix` is
/// [`styled_path_prefix`]'s. False where a line to print holds a NUL
/// (ripgrep's searcher, which looks for NULs in the lines it prints, is
/// then to take over).
pub fn write_inverted(
    seg: &[u8],
    found: &[Numbered],
    (prefix, style): (&[u8], Style<'_>),
    first: Option<u64>,
    out: &mut Vec<u8>,
) -> bool {
    let mut matching = found.iter().map(|f| f.start).peekable();
    let (mut pos, mut line) = (0, first.unwrap_or(0));
    while pos < seg.len() {
        let end = memchr::memchr(b'\n', &seg[pos..]).map_or(seg.len(), |i| pos + i + 1);
        if matching.next_if_eq(&pos).is_none() {
            if memchr::memchr(0, &seg[pos..end]).is_some() {
                return false;
            }
            out.extend_from_slice(prefix);
            if first.is_some() {
                style.number(out, line, Number::Line);
                out.push(b':');
            }
            style.text(out, &seg[pos..end], &[]);
        }
        (pos, line) = (end, line + 1);
    }
    true
}

/// The matching lines of `data[a..b]` (whole lines) and, with `matches`,
/// their matches as ripgrep's summary printer counts them.
pub fn count_segment(
    data: &[u8],
    (a, b): (usize, usize),
    matcher: &LineMatcher<'_>,
    matches: bool,
) -> (u64, u64) {
    let (mut lines, mut found) = (0u64, 0u64);
    crate::pipeline::lines::for_each_matching_line(&data[a..b], matcher, |s, e| {
        lines += 1;
        if matches {
            found += line_matches(matcher, data, a + s, a + e);
        }
    });
    (lines, found)
}

/// One counting thread's distinct lines and their matches.
#[derive(Default)]
struct Tally {
    lines: u64,
    matches: u64,
    first: u64,
    first_matches: u64,
    last: u64,
}

/// Counts the distinct (confirmed) lines holding `offsets` and, with
/// `matches`, their matches; releases the pages passed every
/// [`RELEASE_STEP`](crate::sys::guard::RELEASE_STEP) bytes when `text` is mapped.
fn tally(text: Text<'_>, offsets: &[u64], matches: bool) -> Tally {
    let data = text.data;
    let confirm = text.confirmer();
    let mut t = Tally::default();
    let mut done_until = 0usize;
    let mut release = Releaser::new(text.map, offsets.first().map_or(0, |&o| o as usize));
    for &o in offsets {
        let o = o as usize;
        if o >= data.len() || (o < done_until && t.lines > 0) {
            continue;
        }
        // Lines before the previous line's end are done with.
        release.passed(done_until);
        let ls = memchr::memrchr(b'\n', &data[..o]).map_or(0, |i| i + 1);
        let le = line_end(data, o);
        done_until = le;
        if t.lines > 0 && t.last == ls as u64 {
            continue;
        }
        let line = &data[ls..le];
        if let Some(m) = confirm
            && !line_is_match(m, line)
        {
            continue;
        }
        let n = if matches {
            line_matches(&text.matcher, data, ls, le)
        } else {
            0
        };
        if t.lines == 0 {
            (t.first, t.first_matches) = (ls as u64, n);
        }
        t.lines += 1;
        t.matches += n;
        t.last = ls as u64;
    }
    release.finish(done_until);
    t
}

/// The matches in the matching line `ls..le` of `data` as ripgrep's
/// summary printer counts them: searched from the line start to its end
/// without the terminator (earlier bytes visible to look-behind), at
/// least one. A match must start before the line's end: at the end of a
/// last line without a terminator (an empty match at the end of the
/// file) it is not counted.
fn line_matches(matcher: &LineMatcher<'_>, data: &[u8], ls: usize, le: usize) -> u64 {
    let end = if data[..le].ends_with(b"\n") {
        le - 1
    } else {
        le
    };
    let mut n = 0u64;
    let _ = matcher.find_iter_at(&data[..end], ls, |m| {
        n += u64::from(m.start() < le);
        m.start() < le
    });
    n.max(1)
}

/// `[PATH:]COUNT\n` as ripgrep's summary printer writes it, the path in
/// `style`'s color (nothing for a zero count unless `--include-zero`).
pub fn write_count(cfg: &Config, path: &Path, count: u64, style: Style<'_>, out: &mut Vec<u8>) {
    if count > 0 || cfg.include_zero {
        out.extend_from_slice(&path_field(cfg, path, style, b':'));
        out.extend_from_slice(itoa::Buffer::new().format(count).as_bytes());
        out.push(b'\n');
    }
}

/// The standard printer's lines with context (`output::context`): the
/// matching ones through [`Fields`] (which holds the file, numbers and
/// colors), the context lines after their own prefix.
pub struct Plain<'a, M> {
    pub fields: Fields<'a, M>,
    /// `PATH-` (or `PATH` NUL) when paths are shown, in the path's color
    /// ([`styled_path_prefix`]).
    pub context_prefix: Vec<u8>,
}

impl<M: Matcher> LineWriter for Plain<'_, M> {
    fn data(&self) -> &[u8] {
        self.fields.data
    }

    fn matched(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) -> Option<()> {
        self.fields.write(0, &[Numbered::alone(line)], n, out).ok()
    }

    fn context(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) -> Option<()> {
        let style = self.fields.style;
        out.extend_from_slice(&self.context_prefix);
        if self.fields.numbers {
            style.number(out, n, Number::Line);
            out.push(b'-');
        }
        style.text(out, &self.fields.data[line], &[]);
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::cli::config::Config;
    use crate::output::printer::{Input, Printer};
    use clap::Parser;

    fn config(args: &[&str]) -> Config {
        let mut argv = vec!["gsearch", "--color", "never"];
        argv.extend_from_slice(args);
        Config::from_cli(Cli::parse_from(argv)).unwrap()
    }

    /// ripgrep's printer on the same bytes.
    fn reference(cfg: &Config, plan: &crate::matcher::plan::Plan, data: &[u8]) -> Vec<u8> {
        let mut printer = Printer::new(cfg, termcolor::NoColor::new(Vec::new()));
        let mut searcher = crate::matcher::searcher::searcher(cfg);
        printer
            .search(
                &mut searcher,
                plan.matcher.get(),
                Path::new("f"),
                Input::Slice(data),
            )
            .unwrap();
        printer.get_mut().get_ref().clone()
    }

    fn text(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed;
        let words: [&[u8]; 6] = [b"foo", b"bar", b"\n", b" ", b"Foo baz", b"\n\n"];
        let mut v = Vec::new();
        for _ in 0..n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            v.extend_from_slice(words[(x >> 33) as usize % words.len()]);
        }
        v
    }

    #[test]
    fn same_bytes_as_ripgreps_printer() {
        for (seed, args) in [
            (1, &["-n", "foo", "f", "g"][..]),
            (2, &["-n", "-i", "foo", "f"][..]),
            (3, &["-n", "--null", "-H", "ba", "f"][..]),
            (4, &["-n", "-w", "foo", "f"][..]),
        ] {
            let cfg = config(args);
            assert!(eligible(&cfg));
            let plan = crate::matcher::plan::Plan::new(&cfg).unwrap();
            for len in [0, 1, 7, 500, 20_000] {
                let mut data = text(seed + len as u64, len);
                if seed % 2 == 0 {
                    data.extend_from_slice(b"foo at the end");
                }
                let lines =
                    crate::pipeline::lines::matching_lines(&data, plan.matcher.get(), 3, None);
                let mut got = Vec::new();
                print(
                    &cfg,
                    Path::new("f"),
                    &data,
                    &lines.starts,
                    None,
                    None,
                    &mut got,
                )
                .unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&reference(&cfg, &plan, &data)),
                    "{args:?} len {len}"
                );
                // Candidates (every occurrence) confirmed here give the same.
                let cands: Vec<u64> = (0..data.len() as u64).collect();
                let mut got2 = Vec::new();
                print(
                    &cfg,
                    Path::new("f"),
                    &data,
                    &cands,
                    Some(&plan.line_matcher()),
                    None,
                    &mut got2,
                )
                .unwrap();
                assert_eq!(got2, got);
            }
        }
    }

    /// Known line numbers give what counting gives.
    #[test]
    fn numbered_lines_equal_counted_ones() {
        for args in [&["-n", "foo", "f"][..], &["-n", "-H", "ba", "f"][..]] {
            let cfg = config(args);
            let plan = crate::matcher::plan::Plan::new(&cfg).unwrap();
            for len in [0, 1, 7, 500, 20_000] {
                let data = text(len as u64, len);
                let lines =
                    crate::pipeline::lines::matching_lines(&data, plan.matcher.get(), 3, None);
                let numbers: Vec<u64> = lines
                    .starts
                    .iter()
                    .map(|&s| 1 + count_nl(&data[..s as usize]))
                    .collect();
                let mut got = Vec::new();
                let t = Text {
                    data: &data,
                    map: None,
                    matcher: plan.line_matcher(),
                    confirm: false,
                };
                let numbered = NumberedLines {
                    path: Path::new("f"),
                    text: t,
                    offsets: &lines.starts,
                    numbers: &numbers,
                };
                print_numbered(&cfg, numbered, &mut got).unwrap();
                assert_eq!(got, reference(&cfg, &plan, &data), "{args:?} len {len}");
            }
        }
    }

    /// Offsets from a file that changed under the search (out of order,
    /// out of range) are skipped, never sliced with (a soak-test panic).
    #[test]
    fn untrustworthy_offsets_do_not_panic() {
        let cfg = config(&["-n", "foo", "f"]);
        let data = text(9, 3000);
        let bad = [5000u64, 3, 90, 2, u64::MAX / 2, 40, 41, 7];
        let mut out = Vec::new();
        print(&cfg, Path::new("f"), &data, &bad, None, None, &mut out).unwrap();
        let ccfg = config(&["-c", "foo", "f"]);
        let plan = crate::matcher::plan::Plan::new(&ccfg).unwrap();
        let text = Text {
            data: &data,
            map: None,
            matcher: plan.line_matcher(),
            confirm: false,
        };
        print_count(&ccfg, Path::new("f"), text, &bad, &mut out).unwrap();
    }
}
