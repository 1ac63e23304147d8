//! PCRE2 beside the plan's matcher: [`SearchMatcher`] is what the CPU loops
//! search files with, the plan's [`LineMatcher`] or the PCRE2 matcher of a
//! `-P` search. A PCRE2 search can fail where the default engine cannot
//! (its match limit, its JIT stack): the error is the file's, reported as
//! ripgrep reports it. PCRE2 inside the plan's `LineMatcher`, for
//! one big file searched by every core, is `matcher::pcre2_lines`.

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};

use crate::matcher::line::{LineCaptures, LineMatcher};
use crate::matcher::pcre2_lines::PcreLines;

/// See the module documentation. PCRE2's searches run on the calling
/// thread's clone of the plan's matcher ([`PcreLines::with`]).
#[derive(Clone, Copy)]
pub enum SearchMatcher<'a> {
    Line(LineMatcher<'a>),
    Pcre2(&'a PcreLines),
}

/// A PCRE2 search that failed (the plan's matcher never fails).
#[derive(Debug)]
pub struct MatchError(grep_pcre2::Error);

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The plan's matcher's error, which is never made.
fn impossible(_: NoError) -> MatchError {
    unreachable!("the plan's matcher never fails")
}

/// One call on whichever matcher it is, its error made a [`MatchError`].
macro_rules! either {
    ($self:ident, $m:ident => $call:expr) => {
        match $self {
            SearchMatcher::Line($m) => $call.map_err(impossible),
            SearchMatcher::Pcre2(p) => p.with(|$m| $call).map_err(MatchError),
        }
    };
}

impl Matcher for SearchMatcher<'_> {
    type Captures = LineCaptures;
    type Error = MatchError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, MatchError> {
        either!(self, m => m.find_at(haystack, at))
    }

    fn try_find_iter_at<F, E>(
        &self,
        haystack: &[u8],
        at: usize,
        matched: F,
    ) -> Result<Result<(), E>, MatchError>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        either!(self, m => m.try_find_iter_at(haystack, at, matched))
    }

    fn new_captures(&self) -> Result<LineCaptures, MatchError> {
        match self {
            SearchMatcher::Line(m) => m.new_captures().map_err(impossible),
            SearchMatcher::Pcre2(p) => Ok(LineCaptures::Pcre2(p.new_captures())),
        }
    }

    fn capture_count(&self) -> usize {
        match self {
            SearchMatcher::Line(m) => m.capture_count(),
            SearchMatcher::Pcre2(p) => p.capture_count(),
        }
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        match self {
            SearchMatcher::Line(m) => m.capture_index(name),
            SearchMatcher::Pcre2(p) => p.capture_index(name),
        }
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut LineCaptures,
    ) -> Result<bool, MatchError> {
        match (self, caps) {
            (SearchMatcher::Pcre2(p), LineCaptures::Pcre2(c)) => p
                .with(|m| m.captures_at(haystack, at, c))
                .map_err(MatchError),
            (SearchMatcher::Line(m), c) => m.captures_at(haystack, at, c).map_err(impossible),
            _ => unreachable!("captures made by another matcher"),
        }
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, MatchError> {
        either!(self, m => m.shortest_match_at(haystack, at))
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, MatchError> {
        either!(self, m => m.is_match_at(haystack, at))
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        match self {
            SearchMatcher::Line(m) => m.line_terminator(),
            SearchMatcher::Pcre2(p) => p.matcher().line_terminator(),
        }
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        match self {
            SearchMatcher::Line(m) => m.non_matching_bytes(),
            SearchMatcher::Pcre2(p) => p.matcher().non_matching_bytes(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, MatchError> {
        either!(self, m => m.find_candidate_line(haystack))
    }
}
