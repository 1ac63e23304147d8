//! One big file's matching lines with their context lines (`-A`, `-B`,
//! `-C`), written segment by segment by the threads that found them
//! (`search::bigfile`), as ripgrep's standard printer writes them (`N:`
//! before a matching line, `N-` before a context line, the context
//! separator between lines that do not follow one another: `plain::Plain`) or
//! its JSON printer (`match` and `context` messages: `json::Messages`).
//!
//! A line is printed when a match lies at most `-B` lines after it or at
//! most `-A` lines before it (itself included), so each segment can write
//! the printed lines that lie in it alone: it looks `-A` + 1 lines back
//! and `-B` lines ahead for the matches of its neighbours that reach into
//! it. Whether a separator goes before its first printed line depends on
//! whether any line was printed before it, which only the writer knows:
//! that separator is the segment's *lead*, dropped when nothing was.

use std::ops::Range;

use grep_matcher::Matcher;

use crate::pipeline::lines::{
    Numbered, count_lines, for_each_matching_line, line_end, prev_line_start,
};

/// The most context lines a big file's segments write themselves: each
/// segment reads as many lines before and after it, whether or not any
/// is printed (200 lines of 80 bytes: 6% of a 256 KiB segment).
pub const CONTEXT_MAX: usize = 200;

/// Whether context lines are asked for (`-B before`, `-A after`) and the
/// segments write them: at most [`CONTEXT_MAX`] each side.
pub fn streams(before: usize, after: usize) -> bool {
    (before > 0 || after > 0) && before.max(after) <= CONTEXT_MAX
}

/// What writes a segment's printed lines; `None` where ripgrep's printer
/// is to write the segment (the matcher failed).
pub trait LineWriter {
    /// The whole file.
    fn data(&self) -> &[u8];
    /// Appends the matching line `data[line]`, numbered `n`.
    fn matched(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) -> Option<()>;
    /// Appends the context line `data[line]`, numbered `n`.
    fn context(&self, n: u64, line: Range<usize>, out: &mut Vec<u8>) -> Option<()>;
}

/// What a segment's context lines are written with.
pub struct Context<'a, W, L> {
    /// `-B` and `-A`.
    pub before: u64,
    pub after: u64,
    /// The context separator (none with `--no-context-separator` or
    /// `--json`).
    pub separator: Option<&'a [u8]>,
    /// Writes the lines.
    pub writer: W,
    /// Decides the lines around the segment as its search decided its own.
    pub lines: L,
}

/// Where a segment's writing stands.
struct Walk<'o> {
    out: &'o mut Vec<u8>,
    /// The number and end of the last line printed (`first - 1` and the
    /// segment's start when the line before the segment is printed).
    last: Option<(u64, usize)>,
    /// The length of the lead (see the module's text).
    lead: usize,
    /// The next line not yet printed or passed: its number and start.
    next: (u64, usize),
    /// The line through which after-context runs.
    after_until: Option<u64>,
}

impl<W: LineWriter, L: Matcher> Context<'_, W, L> {
    /// Appends the printed lines of the segment `data[s..e]` (whole lines;
    /// `found` its matching lines, the first numbered `first`). Returns the
    /// lead's length, or `None` where ripgrep's printer is to write the
    /// segment (a context line holds a NUL, or the matcher failed).
    pub fn write(
        &self,
        (s, e): (usize, usize),
        found: &[Numbered],
        first: u64,
        out: &mut Vec<u8>,
    ) -> Option<usize> {
        let data = self.data();
        let prev = self.match_before(s, first);
        let ahead = self.match_after(e);
        let next_match = match found.first() {
            Some(f) => Some(first + f.line),
            None => ahead.map(|k| line_at(data, (first, s), e) + k),
        };
        let printed_before =
            first > 1 && (prev.is_some() || next_match.is_some_and(|m| m < first + self.before));
        let mut w = Walk {
            out,
            last: printed_before.then_some((first - 1, s)),
            lead: 0,
            next: (first, s),
            after_until: prev.map(|m| m + self.after),
        };
        for f in found {
            let (n, start, end) = (first + f.line, s + f.start, s + f.end);
            self.after_context(&mut w, n, e)?;
            self.before_context(&mut w, n, (n, start))?;
            self.separate(&mut w, n);
            self.writer.matched(n, start..end, w.out)?;
            w.last = Some((n, end));
            w.next = (n + 1, end);
            w.after_until = Some(n + self.after);
        }
        self.after_context(&mut w, u64::MAX, e)?;
        if let Some(k) = ahead {
            let at_e = line_at(data, w.next, e);
            self.before_context(&mut w, at_e + k, (at_e, e))?;
        }
        Some(w.lead)
    }

    fn data(&self) -> &[u8] {
        self.writer.data()
    }

    /// The after-context from `w.next` on: lines through `w.after_until`,
    /// before line `limit` and the byte `end`.
    fn after_context(&self, w: &mut Walk<'_>, limit: u64, end: usize) -> Option<()> {
        let until = w.after_until.unwrap_or(0);
        while w.next.0 <= until && w.next.0 < limit && w.next.1 < end {
            let (n, a) = w.next;
            let b = line_end(self.data(), a);
            self.context_line(w, n, a..b)?;
            w.next = (n + 1, b);
        }
        Some(())
    }

    /// The before-context of a match on line `m`: the lines from `w.next`
    /// on, at most `-B` before `m`, up to line `n` (exclusive), which
    /// starts at `start`.
    fn before_context(&self, w: &mut Walk<'_>, m: u64, (n, start): (u64, usize)) -> Option<()> {
        let from = m.saturating_sub(self.before).max(w.next.0);
        let mut a = start;
        for _ in from..n {
            a = line_start_before(self.data(), a);
        }
        for k in from..n {
            let b = line_end(self.data(), a);
            self.context_line(w, k, a..b)?;
            a = b;
        }
        Some(())
    }

    /// A context line, after the separator it needs; `None` when it holds
    /// a NUL.
    fn context_line(&self, w: &mut Walk<'_>, n: u64, line: Range<usize>) -> Option<()> {
        if memchr::memchr(0, &self.data()[line.clone()]).is_some() {
            return None;
        }
        self.separate(w, n);
        self.writer.context(n, line.clone(), w.out)?;
        w.last = Some((n, line.end));
        Some(())
    }

    /// The separator before line `n` where the last line printed is not
    /// the one before it (the lead when none was printed yet).
    fn separate(&self, w: &mut Walk<'_>, n: u64) {
        let Some(sep) = self.separator else {
            return;
        };
        let first_printed = w.last.is_none();
        if first_printed || w.last.is_some_and(|(l, _)| n > l + 1) {
            w.out.extend_from_slice(sep);
            w.out.push(b'\n');
            if first_printed {
                w.lead = w.out.len();
            }
        }
    }

    /// The number of the last matching line among the `-A` + 1 lines
    /// before `s` (the line numbered `first`). The lines are searched from
    /// a line that does not open with a continuation byte, as segments are
    /// cut (`prev_line_start`), so each is decided as in the whole file.
    fn match_before(&self, s: usize, first: u64) -> Option<u64> {
        let mut from = s;
        for _ in 0..=self.after {
            if from == 0 {
                break;
            }
            from = line_start_before(self.data(), from);
        }
        let search_from = prev_line_start(self.data(), from);
        let mut last = None;
        for_each_matching_line(&self.data()[search_from..s], &self.lines, |a, _| {
            last = Some(search_from + a)
        });
        last.filter(|&a| a >= from)
            .map(|a| first - count_lines(&self.data()[a..s]))
    }

    /// The first matching line among the `-B` lines from `e`: how many
    /// lines lie between `e` and it.
    fn match_after(&self, e: usize) -> Option<u64> {
        let mut to = e;
        for _ in 0..self.before {
            if to >= self.data().len() {
                break;
            }
            to = line_end(self.data(), to);
        }
        let mut first = None;
        for_each_matching_line(&self.data()[e..to], &self.lines, |a, _| {
            first.get_or_insert(e + a);
        });
        first.map(|a| count_lines(&self.data()[e..a]))
    }
}

/// The number of the line starting at `to`, from the line `(number,
/// start)` before it.
fn line_at(data: &[u8], (number, start): (u64, usize), to: usize) -> u64 {
    number + count_lines(&data[start..to])
}

/// The start of the line before the one starting at `a` (`a` > 0).
fn line_start_before(data: &[u8], a: usize) -> usize {
    memchr::memrchr(b'\n', &data[..a - 1]).map_or(0, |i| i + 1)
}
