//! How ripgrep's searcher decides one line: the line alone without its
//! terminator (`line_is_match`), or with the bytes before it in view where
//! that can change the answer (`line_is_match_in`, `reads_before`); and
//! where the line holding an offset starts and ends (`line_bounds`).

use grep_matcher::{LineMatchKind, Matcher};

/// The line holding `pos`: its start and its end (after its terminator).
pub fn line_bounds(hay: &[u8], pos: usize) -> (usize, usize) {
    let pos = pos.min(hay.len());
    let start = memchr::memrchr(b'\n', &hay[..pos]).map_or(0, |k| k + 1);
    let end = memchr::memchr(b'\n', &hay[pos..]).map_or(hay.len(), |k| pos + k + 1);
    (start, end)
}

/// Whether `matcher` matches `line` as ripgrep's searcher asks it: without
/// the line's terminator (with `-w`, a pattern that matches the empty
/// string would otherwise match after the `\n` of every line).
pub fn line_is_match<M: Matcher>(matcher: &M, line: &[u8]) -> bool {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    matcher.is_match(body).unwrap_or(false)
}

/// The start of the first line of `lines` (whole lines) that `is_match`
/// accepts, each line given alone without its terminator `term`, as
/// grep-searcher's line-by-line search asks a matcher that names no line
/// terminator; the first error is returned where that search meets it.
pub fn first_line_where<E>(
    lines: &[u8],
    term: u8,
    mut is_match: impl FnMut(&[u8]) -> Result<bool, E>,
) -> Result<Option<usize>, E> {
    let mut start = 0;
    while start < lines.len() {
        let end = memchr::memchr(term, &lines[start..]).map_or(lines.len(), |i| start + i);
        if is_match(&lines[start..end])? {
            return Ok(Some(start));
        }
        start = end + 1;
    }
    Ok(None)
}

/// Whether the line starting at `s` can match differently when ripgrep's
/// searcher sees the bytes before it: it follows another line and begins
/// with a UTF-8 continuation byte. The searcher looks for the next match
/// from the end of the last line it examined, so it sees the `\n` before
/// a line that follows unexamined lines; Unicode half word boundaries
/// (`-w`) read that `\n` as a non-word character, but a haystack that
/// starts with an invalid byte as no boundary at all (regex-automata's
/// `is_word_start_half_unicode`).
pub fn reads_before(data: &[u8], s: usize) -> bool {
    s > 0 && s < data.len() && (0x80..0xC0).contains(&data[s])
}

/// Whether `matcher` matches the line `data[range]` as ripgrep's searcher
/// decides it in a haystack holding all of `data`, given whether the
/// search starts at the line (`at_line`: the line before it was examined,
/// or there is none) or before it (see [`reads_before`]). Seeing the `\n`
/// before the line only adds matches. A matcher whose answer for the line
/// is a candidate, not a match, has the line confirmed alone, as the
/// searcher does.
pub fn line_is_match_in<M: Matcher>(
    matcher: &M,
    data: &[u8],
    range: std::ops::Range<usize>,
    at_line: bool,
) -> bool {
    if line_is_match(matcher, &data[range.clone()]) {
        return true;
    }
    if at_line || !reads_before(data, range.start) {
        return false;
    }
    let hay = &data[range.start - 1..range.end];
    let body = hay.strip_suffix(b"\n").unwrap_or(hay);
    match matcher.find_candidate_line(hay) {
        Ok(Some(LineMatchKind::Confirmed(_))) => matcher.is_match_at(body, 1).unwrap_or(false),
        _ => false,
    }
}
