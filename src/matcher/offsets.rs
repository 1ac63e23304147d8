//! A matcher that answers "where is the next candidate line" from offsets an
//! engine already found, and delegates everything else (confirming a line,
//! finding match bounds for `-o`, colors, `--column`) to the exact matcher
//! (the plan's [`LineMatcher`]).
//!
//! This is ripgrep's `find_candidate_line` hook: the searcher skips straight
//! to the next offset instead of scanning the text, so the host's work is
//! proportional to the matching lines, not to the input.

use std::cell::Cell;

use grep_matcher::{ByteSet, LineMatchKind, Matcher, NoError};

use crate::matcher::line::LineMatcher;
use crate::matcher::lines::{line_bounds, line_is_match_in};
use crate::matcher::wrap::{Wrapped, Wrapper};

/// Candidate lines from precomputed offsets into one slice.
pub type OffsetMatcher<'a, M> = Wrapped<Offsets<'a, M>>;

/// What [`OffsetMatcher`] keeps beside its inner matcher.
pub struct Offsets<'a, M> {
    inner: M,
    slice: &'a [u8],
    offsets: &'a [u64],
    /// The offsets are starts of lines known to match.
    confirmed: bool,
    /// A line's answer can depend on whether the line before it was
    /// reported (`matcher::lines::reads_before`): candidates are then
    /// decided here, in order, instead of alone by the searcher.
    context: bool,
    /// Where the last line reported here ends (decided with `context`).
    reported_end: Cell<usize>,
}

impl<'a> OffsetMatcher<'a, LineMatcher<'a>> {
    /// Candidate or confirmed offsets, as the plan allows: occurrences of
    /// an exact literal set mark exactly the matching lines.
    pub fn for_plan(
        plan: &'a crate::matcher::plan::Plan,
        slice: &'a [u8],
        offsets: &'a [u64],
    ) -> Self {
        let Wrapped(m) = OffsetMatcher::new(plan.line_matcher(), slice, offsets);
        Wrapped(Offsets {
            confirmed: plan.exact_lines,
            context: !plan.exact_lines && plan.line_context,
            ..m
        })
    }
}

impl<'a, M: Matcher<Error = NoError>> OffsetMatcher<'a, M> {
    /// `offsets` are sorted positions inside `slice`, the exact bytes that
    /// will be handed to `Searcher::search_slice`.
    pub fn new(inner: M, slice: &'a [u8], offsets: &'a [u64]) -> Self {
        Wrapped(Offsets {
            inner,
            slice,
            offsets,
            confirmed: false,
            context: false,
            reported_end: Cell::new(0),
        })
    }

    /// `line_starts` are the starts of exactly the matching lines, so the
    /// searcher need not confirm them.
    pub fn confirmed(inner: M, slice: &'a [u8], line_starts: &'a [u64]) -> Self {
        let Wrapped(m) = OffsetMatcher::new(inner, slice, line_starts);
        Wrapped(Offsets {
            confirmed: true,
            ..m
        })
    }
}

impl<M: Matcher<Error = NoError>> Wrapper for Offsets<'_, M> {
    type Inner = M;

    fn inner(&self) -> &M {
        &self.inner
    }

    /// Not the inner matcher's set: this matcher answers with the
    /// [`Matcher`] default.
    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        None
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        let (start, base) = (haystack.as_ptr() as usize, self.slice.as_ptr() as usize);
        // The searcher hands us sub-slices of the slice we were built for;
        // anything else (never expected) is searched exactly.
        if start < base || start + haystack.len() > base + self.slice.len() {
            return self.inner.find_candidate_line(haystack);
        }
        let rel = start - base;
        let end = rel + haystack.len();
        let mut i = self.offsets.partition_point(|&o| (o as usize) < rel);
        while let Some(&o) = self.offsets.get(i).filter(|&&o| (o as usize) < end) {
            let at = o as usize - rel;
            if self.confirmed {
                return Ok(Some(LineMatchKind::Confirmed(at)));
            }
            if !self.context {
                return Ok(Some(LineMatchKind::Candidate(at)));
            }
            let (ls, le) = line_bounds(haystack, at);
            let line = rel + ls..rel + le;
            let at_line = line.start == 0 || line.start == self.reported_end.get();
            if line_is_match_in(&self.inner, self.slice, line.clone(), at_line) {
                self.reported_end.set(line.end);
                return Ok(Some(LineMatchKind::Confirmed(at)));
            }
            i += self.offsets[i..].partition_point(|&o| (o as usize) < line.end);
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grep_searcher::{Searcher, sinks::UTF8};

    fn lines(text: &[u8], offsets: &[u64], pat: &str) -> Vec<(u64, String)> {
        let m = crate::matcher::testing::line_matcher(pat);
        let om = OffsetMatcher::new(&m, text, offsets);
        let mut out = Vec::new();
        Searcher::new()
            .search_slice(
                &om,
                text,
                UTF8(|n, l| {
                    out.push((n, l.to_string()));
                    Ok(true)
                }),
            )
            .unwrap();
        out
    }

    #[test]
    fn only_candidate_lines_are_reported_and_confirmed() {
        let text = b"foo\nbar\nfoo bar\nbaz\n";
        // offsets of "foo": 0 and 8; a bogus candidate at 4 is rejected.
        assert_eq!(
            lines(text, &[0, 4, 8], "foo"),
            vec![(1, "foo\n".into()), (3, "foo bar\n".into())]
        );
        // A candidate missing from the offsets is not found: the offsets
        // are trusted as the complete set of candidate positions.
        assert_eq!(lines(text, &[8], "foo"), vec![(3, "foo bar\n".into())]);
    }
}
