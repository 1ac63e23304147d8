//! `--json`'s messages, formatted by gsearch.
//!
//! ripgrep's JSON printer serializes each message with serde, token by
//! token through the output stream: `--json e` over 100 MB of C (1.7
//! million matching lines) took ripgrep 3.2 s on the 2-core machine. Here
//! each message is formatted into a buffer and written whole, and the bytes
//! are grep-printer's (0.3): the same fields in the same order, strings
//! escaped by `serde_json` as it escapes them, text that is not UTF-8 in
//! base64 (`{"bytes":...}`), each line's submatches found as its printer
//! finds them (the matcher run over the buffer up to the line's end,
//! without its terminator, from the line's start), and its statistics.
//! - [`JsonSink`] is the sink of every `--json` search ([`sink_form`]: not
//!   `-U`, which stays with grep-printer): `begin`, `match`, `context` and
//!   `end` messages, with `-r`'s replacements.
//! - [`Messages`] writes one big file's `match` messages on every core
//!   (`search::bigfile`, [`form`]): the threads that found a segment's
//!   lines also write their messages, which `begin` and `end` frame.
//!
//! Tests compare both with grep-printer byte for byte.

use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use grep_matcher::{LineTerminator, Matcher};
use grep_printer::Stats;
use grep_searcher::{Searcher, Sink, SinkContext, SinkFinish, SinkMatch};

use crate::cli::config::{Config, OutputMode};
use crate::output::context::{self, LineWriter};
use crate::output::matches::{MatcherFailed, line_matches, replace_in_line};
use crate::pipeline::lines::Numbered;

/// Whether [`JsonSink`] writes `--json`: one line at a time (no `-U`), not
/// `-q`.
pub fn sink_form(cfg: &Config) -> bool {
    cfg.mode == OutputMode::Json && !cfg.input.multiline && !cfg.quiet
}

/// Whether one big file's `--json` is written by every core
/// ([`Messages`]): [`sink_form`] with `match` messages alone (no context,
/// `--passthru`, `-v` or `-m`) and no replacements.
pub fn form(cfg: &Config) -> bool {
    messages_form(cfg) && cfg.before == 0 && cfg.after == 0
}

/// Whether one big file's `--json` with context lines (`-A`, `-B`, `-C`,
/// at most [`context::CONTEXT_MAX`] each) is written by every core: [`form`]
/// with `context` messages too (`output::context`).
pub fn context_form(cfg: &Config) -> bool {
    messages_form(cfg) && context::streams(cfg.before, cfg.after)
}

/// [`sink_form`] without what only the sink writes: replacements,
/// `--passthru`, `-v`, `-m`.
fn messages_form(cfg: &Config) -> bool {
    sink_form(cfg)
        && cfg.replace.is_none()
        && !cfg.out.passthru
        && !cfg.invert
        && cfg.max_count.is_none()
}

/// The messages of one file: the bytes it is searched in (the whole map,
/// which the matcher sees before each line as ripgrep's printer lets it),
/// and what the `end` message counts.
pub struct Messages<'a, M> {
    /// The path's JSON value.
    path: Vec<u8>,
    data: &'a [u8],
    matcher: M,
    numbers: bool,
    lines: AtomicU64,
    matches: AtomicU64,
}

impl<'a, M: Matcher> Messages<'a, M> {
    /// Messages for `path`, whose bytes are `data`, matched with `matcher`
    /// (the one ripgrep's printer would take), with line numbers when
    /// `numbers`.
    pub fn new(path: &Path, data: &'a [u8], matcher: M, numbers: bool) -> Messages<'a, M> {
        Messages {
            path: path_value(path),
            data,
            matcher,
            numbers,
            lines: AtomicU64::new(0),
            matches: AtomicU64::new(0),
        }
    }

    /// The `begin` message, written before the first `match`.
    pub fn begin(&self) -> Vec<u8> {
        let mut out = Vec::new();
        push_begin(&mut out, &self.path);
        out
    }

    /// Appends a `match` message for each of `found`, lines of the bytes
    /// from `at` on numbered from `first` (see
    /// `pipeline::lines::matching_lines_until`). `Err` when the matcher
    /// fails: ripgrep's printer then reports it.
    pub fn matches(
        &self,
        at: usize,
        found: &[Numbered],
        first: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), MatcherFailed> {
        let mut subs = Vec::new();
        let mut found_matches = 0;
        let term = LineTerminator::byte(b'\n');
        for f in found {
            let line = at + f.start..at + f.end;
            let drop_from = self.data.len();
            line_matches(
                &self.matcher,
                (self.data, line.clone(), term),
                (usize::MAX, drop_from),
                &mut subs,
            )?;
            found_matches += subs.len() as u64;
            let number = self.numbers.then_some(first + f.line);
            let m = MatchMessage {
                kind: "match",
                path: &self.path,
                line: &self.data[line.clone()],
                number,
                offset: line.start as u64,
            };
            m.push(&subs, None, out);
        }
        self.lines.fetch_add(found.len() as u64, Ordering::Relaxed);
        self.matches.fetch_add(found_matches, Ordering::Relaxed);
        Ok(())
    }

    /// A `context` message for the line `data[line]`, numbered `n`.
    fn context(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) {
        let m = MatchMessage {
            kind: "context",
            path: &self.path,
            line: &self.data[line.clone()],
            number: self.numbers.then_some(n),
            offset: line.start as u64,
        };
        m.push(&[], None, out);
    }

    /// The search's statistics as the JSON printer keeps them for one
    /// file, `printed` being the bytes of its `begin` and `match`
    /// messages, and (when it printed any) the `end` message.
    pub fn end(&self, elapsed: Duration, printed: u64) -> (Stats, Vec<u8>) {
        let mut stats = Stats::new();
        stats.add_elapsed(elapsed);
        stats.add_searches(1);
        stats.add_searches_with_match(u64::from(printed > 0));
        stats.add_bytes_searched(self.data.len() as u64);
        stats.add_bytes_printed(printed);
        stats.add_matched_lines(self.lines.load(Ordering::Relaxed));
        stats.add_matches(self.matches.load(Ordering::Relaxed));
        let mut out = Vec::new();
        if printed > 0 {
            push_end(&mut out, &self.path, None, &stats);
        }
        (stats, out)
    }
}

/// A segment's `match` and `context` messages (`output::context`).
impl<M: Matcher> LineWriter for &Messages<'_, M> {
    fn data(&self) -> &[u8] {
        self.data
    }

    fn matched(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) -> Option<()> {
        self.matches(0, &[Numbered::alone(line)], n, out).ok()
    }

    fn context(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) -> Option<()> {
        Messages::context(self, n, line, out);
        Some(())
    }
}

/// grep-printer's JSON sink for the `match` messages alone (where
/// [`sink_form`] holds), writing the same bytes: each message is formatted
/// into a buffer and written whole, where serde writes it token by token
/// (`--json e` over 20 MB of C: 0.86 s of CPU against ripgrep's 0.67).
pub struct JsonSink<'a, M: Matcher, W> {
    matcher: M,
    path: Vec<u8>,
    /// `-r`'s replacement.
    replacement: Option<&'a [u8]>,
    wtr: &'a mut W,
    out: Vec<u8>,
    subs: Vec<(usize, usize)>,
    /// With `-r`: the matches replaced (`rsubs`, in `rbuf`), and the
    /// captures that interpolate them.
    rbuf: Vec<u8>,
    rsubs: Vec<(usize, usize)>,
    caps: Option<M::Captures>,
    begun: bool,
    match_count: u64,
    /// Bytes written since the search began (`bytes_printed`).
    printed: u64,
    started: Instant,
    stats: Stats,
}

impl<'a, M: Matcher, W: io::Write> JsonSink<'a, M, W> {
    /// The sink of one search of `path` with `matcher`, into `wtr`, with
    /// `-r`'s `replacement`.
    pub fn new(
        matcher: M,
        path: &Path,
        replacement: Option<&'a [u8]>,
        wtr: &'a mut W,
    ) -> JsonSink<'a, M, W> {
        JsonSink {
            matcher,
            path: path_value(path),
            replacement,
            wtr,
            out: Vec::new(),
            subs: Vec::new(),
            rbuf: Vec::new(),
            rsubs: Vec::new(),
            caps: None,
            begun: false,
            match_count: 0,
            printed: 0,
            started: Instant::now(),
            stats: Stats::new(),
        }
    }

    /// Whether the search found a matching line.
    pub fn has_match(&self) -> bool {
        self.match_count > 0
    }

    /// The search's statistics, as grep-printer's sink keeps them.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The matches of `buffer[line]` and, with `-r`, their replacements.
    fn find(&mut self, searcher: &Searcher, buffer: &[u8], line: Range<usize>) -> io::Result<()> {
        let term = searcher.line_terminator();
        let failed = |e: MatcherFailed| io::Error::other(e.0);
        let whole = (usize::MAX, buffer.len());
        line_matches(
            &self.matcher,
            (buffer, line.clone(), term),
            whole,
            &mut self.subs,
        )
        .map_err(failed)?;
        let Some(replacement) = self.replacement else {
            return Ok(());
        };
        let caps = match &mut self.caps {
            Some(c) => c,
            None => {
                let c = self.matcher.new_captures();
                self.caps
                    .insert(c.map_err(|e| io::Error::other(e.to_string()))?)
            }
        };
        let spans = (&mut self.rbuf, &mut self.rsubs);
        let hay = (buffer, line, term);
        replace_in_line(&self.matcher, hay, (replacement, false), caps, spans).map_err(failed)
    }

    /// Writes a message of `kind` for `line` with what [`JsonSink::find`]
    /// found (nothing, when `found` is false), after the `begin` message
    /// for the first.
    fn write(
        &mut self,
        kind: &'static str,
        line: &[u8],
        at: (Option<u64>, u64),
        found: bool,
    ) -> io::Result<()> {
        self.out.clear();
        if !self.begun {
            push_begin(&mut self.out, &self.path);
            self.begun = true;
        }
        if !found {
            self.subs.clear();
        }
        let m = MatchMessage {
            kind,
            path: &self.path,
            line,
            number: at.0,
            offset: at.1,
        };
        let replaced = self.replacement.map(|_| (&self.rbuf[..], &self.rsubs[..]));
        m.push(&self.subs, replaced, &mut self.out);
        self.wtr.write_all(&self.out)?;
        self.printed += self.out.len() as u64;
        Ok(())
    }
}

impl<M: Matcher, W: io::Write> Sink for JsonSink<'_, M, W> {
    type Error = io::Error;

    fn matched(&mut self, searcher: &Searcher, mat: &SinkMatch<'_>) -> io::Result<bool> {
        self.match_count += 1;
        self.find(searcher, mat.buffer(), mat.bytes_range_in_buffer())?;
        self.stats.add_matches(self.subs.len() as u64);
        self.stats.add_matched_lines(mat.lines().count() as u64);
        let at = (mat.line_number(), mat.absolute_byte_offset());
        self.write("match", mat.bytes(), at, true)?;
        Ok(true)
    }

    /// A `context` message; its submatches only when the search is
    /// inverted (the line is then one that matches), found in the line
    /// alone, as grep-printer finds them.
    fn context(&mut self, searcher: &Searcher, ctx: &SinkContext<'_>) -> io::Result<bool> {
        let line = ctx.bytes();
        let inverted = searcher.invert_match();
        if inverted {
            self.find(searcher, line, 0..line.len())?;
        }
        let at = (ctx.line_number(), ctx.absolute_byte_offset());
        self.write("context", line, at, inverted)?;
        Ok(true)
    }

    fn begin(&mut self, _: &Searcher) -> io::Result<bool> {
        self.printed = 0;
        self.started = Instant::now();
        self.match_count = 0;
        Ok(true)
    }

    fn finish(&mut self, _: &Searcher, finish: &SinkFinish) -> io::Result<()> {
        self.stats.add_elapsed(self.started.elapsed());
        self.stats.add_searches(1);
        if self.match_count > 0 {
            self.stats.add_searches_with_match(1);
        }
        self.stats.add_bytes_searched(finish.byte_count());
        self.stats.add_bytes_printed(self.printed);
        if !self.begun {
            return Ok(());
        }
        self.out.clear();
        push_end(
            &mut self.out,
            &self.path,
            finish.binary_byte_offset(),
            &self.stats,
        );
        self.wtr.write_all(&self.out)
    }
}

/// A path's JSON value.
fn path_value(path: &Path) -> Vec<u8> {
    let mut p = Vec::new();
    push_data(&mut p, path.as_os_str().as_encoded_bytes());
    p
}

/// The `begin` message.
fn push_begin(out: &mut Vec<u8>, path: &[u8]) {
    out.extend_from_slice(b"{\"type\":\"begin\",\"data\":{\"path\":");
    out.extend_from_slice(path);
    out.extend_from_slice(b"}}\n");
}

/// The `end` message.
fn push_end(out: &mut Vec<u8>, path: &[u8], binary_offset: Option<u64>, stats: &Stats) {
    out.extend_from_slice(b"{\"type\":\"end\",\"data\":{\"path\":");
    out.extend_from_slice(path);
    out.extend_from_slice(b",\"binary_offset\":");
    match binary_offset {
        Some(n) => out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"stats\":");
    // (Writing to a Vec cannot fail.)
    let _ = serde_json::to_writer(&mut *out, stats);
    out.extend_from_slice(b"}}\n");
}

/// Spans of a line or buffer: (start, end).
type Spans = [(usize, usize)];

/// One `match` (or `context`: `kind`) message: the path's JSON value, the
/// line, its number and its offset in the file.
struct MatchMessage<'a> {
    kind: &'static str,
    path: &'a [u8],
    line: &'a [u8],
    number: Option<u64>,
    offset: u64,
}

impl MatchMessage<'_> {
    /// Appends the message with `subs` (the matches in the line) and,
    /// with `-r`, their replacements (`replaced`: spans of a buffer, one
    /// per match).
    fn push(&self, subs: &[(usize, usize)], replaced: Option<(&[u8], &Spans)>, out: &mut Vec<u8>) {
        let mut num = itoa::Buffer::new();
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(self.kind.as_bytes());
        out.extend_from_slice(b"\",\"data\":{\"path\":");
        out.extend_from_slice(self.path);
        out.extend_from_slice(b",\"lines\":");
        push_data(out, self.line);
        out.extend_from_slice(b",\"line_number\":");
        match self.number {
            Some(n) => out.extend_from_slice(num.format(n).as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"absolute_offset\":");
        out.extend_from_slice(num.format(self.offset).as_bytes());
        out.extend_from_slice(b",\"submatches\":[");
        for (k, &(s, e)) in subs.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"match\":");
            push_data(out, &self.line[s..e]);
            if let Some((rbuf, spans)) = replaced {
                let (rs, re) = spans[k];
                out.extend_from_slice(b",\"replacement\":");
                push_data(out, &rbuf[rs..re]);
            }
            out.extend_from_slice(b",\"start\":");
            out.extend_from_slice(num.format(s).as_bytes());
            out.extend_from_slice(b",\"end\":");
            out.extend_from_slice(num.format(e).as_bytes());
            out.push(b'}');
        }
        out.extend_from_slice(b"]}}\n");
    }
}

/// A JSON value for bytes of the input, as grep-printer writes one:
/// `{"text":"..."}` when they are UTF-8, else `{"bytes":"BASE64"}`.
fn push_data(out: &mut Vec<u8>, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            out.extend_from_slice(b"{\"text\":");
            // (Writing to a Vec cannot fail.)
            let _ = serde_json::to_writer(&mut *out, text);
        }
        Err(_) => {
            out.extend_from_slice(b"{\"bytes\":\"");
            push_base64(out, bytes);
            out.push(b'"');
        }
    }
    out.push(b'}');
}

/// Standard base64 with padding.
fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let group = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(group >> (18 - 6 * k)) as usize & 63]);
            } else {
                out.push(b'=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &[u8]) -> String {
        let mut out = Vec::new();
        push_base64(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn base64_pads_as_the_standard_says() {
        assert_eq!(b64(b""), "");
        assert_eq!(b64(b"f"), "Zg==");
        assert_eq!(b64(b"fo"), "Zm8=");
        assert_eq!(b64(b"foo"), "Zm9v");
        assert_eq!(b64(b"foob"), "Zm9vYg==");
        assert_eq!(b64(b"fooba"), "Zm9vYmE=");
        assert_eq!(b64(b"\xff\xfe\x00"), "//4A");
    }

    /// `out` without the timings (each `"elapsed":{...}`).
    fn masked(out: &[u8]) -> String {
        let text = String::from_utf8(out.to_vec()).unwrap();
        let mut rest = text.as_str();
        let mut kept = String::new();
        while let Some(i) = rest.find("\"elapsed\":{") {
            kept.push_str(&rest[..i]);
            let tail = &rest[i..];
            rest = &tail[tail.find('}').unwrap() + 1..];
        }
        kept + rest
    }

    /// What grep-printer's JSON printer and [`JsonSink`] write for one
    /// search of `data`.
    fn both(
        pattern: &str,
        data: &[u8],
        replacement: Option<&[u8]>,
        setup: impl Fn(&mut grep_searcher::SearcherBuilder),
    ) -> (String, String) {
        // (No line terminator: the CRLF searcher would refuse `\n`.)
        let m = grep_regex::RegexMatcher::new(pattern).unwrap();
        let mut b = grep_searcher::SearcherBuilder::new();
        b.line_number(true);
        setup(&mut b);
        let path = Path::new("dir/file.txt");
        let mut printer = grep_printer::JSONBuilder::new()
            .replacement(replacement.map(<[u8]>::to_vec))
            .build(Vec::new());
        b.build()
            .search_slice(&m, data, printer.sink_with_path(&m, path))
            .unwrap();
        let mut ours = Vec::new();
        b.build()
            .search_slice(&m, data, JsonSink::new(&m, path, replacement, &mut ours))
            .unwrap();
        (masked(printer.get_mut()), masked(&ours))
    }

    #[test]
    fn the_sink_writes_what_grep_printer_writes() {
        let data: &[u8] = b"caf\xc3\xa9 needle \"q\" \\ \t\x01\nbad \xff needle\n\ncrlf needle\r\nneedle needle\nlast needle";
        type Setup = fn(&mut grep_searcher::SearcherBuilder);
        let setups: [Setup; 9] = [
            |_| {},
            |b| {
                b.line_number(false);
            },
            |b| {
                b.invert_match(true);
            },
            |b| {
                b.line_terminator(grep_matcher::LineTerminator::crlf());
            },
            |b| {
                b.max_matches(Some(2));
            },
            |b| {
                b.before_context(1).after_context(2);
            },
            |b| {
                b.invert_match(true).after_context(1);
            },
            |b| {
                b.passthru(true);
            },
            |b| {
                b.invert_match(true).passthru(true).line_number(false);
            },
        ];
        for pattern in [
            "needle",
            "e",
            "",
            "x*",
            "\\w+",
            "(?-u:\\xff)",
            "$",
            "\\b",
            "absent",
        ] {
            for (k, setup) in setups.iter().enumerate() {
                let (want, got) = both(pattern, data, None, setup);
                assert_eq!(got, want, "{pattern:?}, setup {k}");
            }
        }
        for pattern in ["needle", "(n)(e+)", "x*", "", "(?P<w>\\w+)"] {
            for replacement in [&b"[$0]"[..], b"<$2$1>", b"", b"${w}_$w", b"\xff"] {
                for (k, setup) in setups.iter().enumerate() {
                    let (want, got) = both(pattern, data, Some(replacement), setup);
                    assert_eq!(got, want, "{pattern:?} -r {replacement:?}, setup {k}");
                }
            }
        }
    }

    #[test]
    fn data_is_text_when_utf8_else_base64() {
        let mut out = Vec::new();
        push_data(&mut out, "a\"\\\t\u{1}é\n".as_bytes());
        assert_eq!(out, b"{\"text\":\"a\\\"\\\\\\t\\u0001\xc3\xa9\\n\"}");
        out.clear();
        push_data(&mut out, b"a\xffb");
        assert_eq!(out, b"{\"bytes\":\"Yf9i\"}");
    }
}
