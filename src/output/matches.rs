//! The matches of one line as ripgrep's printers find them (grep-printer's
//! `find_iter_at_in_context` and `record_matches`), for the output gsearch
//! formats itself: `--json`'s submatches and replacements ([`super::json`]),
//! and a big file's `-o`, `--column` and `-r` ([`super::plain`]).

use std::ops::Range;

use grep_matcher::{Captures, LineTerminator, Matcher};

/// The matcher failed on a line (PCRE2's limits; never the default
/// engine), with its message.
#[derive(Debug)]
pub struct MatcherFailed(pub String);

/// The first `most` matches of the line `buffer[line]` into `subs`,
/// relative to its start, as grep-printer finds them: the matcher runs over
/// the buffer up to the line's end without its terminator (`term`; with
/// CRLF, a `\r` before the `\n` too), from the line's start. Once every
/// match was seen (fewer than `most`), an empty one found last is dropped
/// when its start, relative to the line, is at or past `drop_from`, as
/// `record_matches` drops it: the JSON printer from the buffer's length,
/// the standard printer from the line's end in the buffer (a relative
/// start set against an offset, which only a line at the buffer's start
/// without a terminator reaches).
pub fn line_matches<M: Matcher>(
    matcher: &M,
    (buffer, line, term): (&[u8], Range<usize>, LineTerminator),
    (most, drop_from): (usize, usize),
    subs: &mut Vec<(usize, usize)>,
) -> Result<(), MatcherFailed> {
    subs.clear();
    let (start, end) = (line.start, line.end);
    let trimmed = unterminated(buffer, end, term);
    matcher
        .find_iter_at(&buffer[..trimmed], start, |m| {
            if m.start() >= end {
                return false;
            }
            subs.push((m.start() - start, m.end() - start));
            subs.len() < most
        })
        .map_err(|e| MatcherFailed(e.to_string()))?;
    if subs.len() < most && subs.last().is_some_and(|&(s, e)| s == e && s >= drop_from) {
        subs.pop();
    }
    Ok(())
}

/// `-r`'s replacement of each match in the line `buffer[line]`, as
/// grep-printer's `Replacer` makes them (`replace_with_captures_in_context`:
/// the matches of the captures over the line without its terminator, from
/// its start, each `replacement` interpolated with its captures), into
/// `dst`, with each replacement's span in it in `spans`. With `whole`, the
/// line as the standard printer writes it: the bytes between the matches
/// and the terminator kept (else the replacements alone, as the JSON
/// printer reports them).
pub fn replace_in_line<M: Matcher>(
    matcher: &M,
    (buffer, line, term): (&[u8], Range<usize>, LineTerminator),
    (replacement, whole): (&[u8], bool),
    caps: &mut M::Captures,
    (dst, spans): (&mut Vec<u8>, &mut Vec<(usize, usize)>),
) -> Result<(), MatcherFailed> {
    dst.clear();
    spans.clear();
    let trimmed = unterminated(buffer, line.end, term);
    let hay = &buffer[..trimmed];
    let mut last = line.start;
    matcher
        .captures_iter_at(hay, line.start, caps, |caps| {
            let Some(m) = caps.get(0) else {
                return false;
            };
            if m.start() >= line.end {
                return false;
            }
            if whole {
                dst.extend_from_slice(&hay[last..m.start()]);
            }
            last = m.end();
            let start = dst.len();
            caps.interpolate(|name| matcher.capture_index(name), hay, replacement, dst);
            spans.push((start, dst.len()));
            true
        })
        .map_err(|e| MatcherFailed(e.to_string()))?;
    if whole {
        dst.extend_from_slice(&buffer[last.min(trimmed)..line.end]);
    }
    Ok(())
}

/// Where a line ending at `end` ends without its terminator, as
/// grep-printer trims it (`trim_line_terminator`).
pub fn unterminated(buffer: &[u8], end: usize, term: LineTerminator) -> usize {
    let mut trimmed = end;
    if trimmed > 0 && buffer[trimmed - 1] == term.as_byte() {
        trimmed -= 1;
        if term.is_crlf() && trimmed > 0 && buffer[trimmed - 1] == b'\r' {
            trimmed -= 1;
        }
    }
    trimmed
}
