//! PCRE2 beside the plan's matcher: [`SearchMatcher`] is what the CPU loops
//! search files with, the plan's [`LineMatcher`] or the PCRE2 matcher of a
//! `-P` search. A PCRE2 search can fail where the default engine cannot
//! (its match limit, its JIT stack): the error is the file's, reported as
//! ripgrep reports it. [`PcreLines`] is PCRE2 inside the plan's
//! `LineMatcher`, for one big file searched by every core.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_pcre2::RegexMatcher as Pcre2;

use crate::matcher::line::{LineCaptures, LineMatcher};

/// See the module documentation. PCRE2's is the plan's, cloned: a clone
/// shares the compiled pattern and has a pool of scratch space of its own
/// (match data, JIT stack) for the thread that uses it.
#[derive(Clone)]
pub enum SearchMatcher<'a> {
    Line(LineMatcher<'a>),
    Pcre2(Pcre2),
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
            SearchMatcher::Pcre2($m) => $call.map_err(MatchError),
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
            SearchMatcher::Pcre2(m) => m
                .new_captures()
                .map(LineCaptures::Pcre2)
                .map_err(MatchError),
        }
    }

    fn capture_count(&self) -> usize {
        match self {
            SearchMatcher::Line(m) => m.capture_count(),
            SearchMatcher::Pcre2(m) => m.capture_count(),
        }
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        match self {
            SearchMatcher::Line(m) => m.capture_index(name),
            SearchMatcher::Pcre2(m) => m.capture_index(name),
        }
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut LineCaptures,
    ) -> Result<bool, MatchError> {
        match (self, caps) {
            (SearchMatcher::Pcre2(m), LineCaptures::Pcre2(c)) => {
                m.captures_at(haystack, at, c).map_err(MatchError)
            }
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
            SearchMatcher::Pcre2(m) => m.line_terminator(),
        }
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        match self {
            SearchMatcher::Line(m) => m.non_matching_bytes(),
            SearchMatcher::Pcre2(m) => m.non_matching_bytes(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, MatchError> {
        either!(self, m => m.find_candidate_line(haystack))
    }
}

/// PCRE2 as the plan's [`LineMatcher`] uses it where one big file is
/// searched by every core (`search::bigfile`): each thread calls a clone of
/// its own (kept per thread; see [`SearchMatcher`] for why), and a match
/// error is remembered ([`PcreLines::take_failed`]) and read as no match, so the
/// caller can search the file again the usual way, which reports it. Its
/// candidate lines are decided line by line without their terminator, as
/// grep-searcher searches with a matcher that names no line terminator.
pub struct PcreLines {
    base: Pcre2,
    /// Tells this matcher's clones from another's in the per-thread cache.
    id: usize,
    failed: AtomicBool,
}

thread_local! {
    /// This thread's clone of the last [`PcreLines`] it used, by id.
    static CLONE: RefCell<Option<(usize, Pcre2)>> = const { RefCell::new(None) };
}

impl PcreLines {
    pub fn new(base: Pcre2) -> PcreLines {
        static IDS: AtomicUsize = AtomicUsize::new(0);
        PcreLines {
            base,
            id: IDS.fetch_add(1, Ordering::Relaxed),
            failed: AtomicBool::new(false),
        }
    }

    /// The matcher (to clone for a search thread).
    pub fn matcher(&self) -> &Pcre2 {
        &self.base
    }

    /// Whether a search failed since the last call (its answer was taken
    /// as no match).
    pub fn take_failed(&self) -> bool {
        self.failed.swap(false, Ordering::Relaxed)
    }

    /// `f` on this thread's clone; an error remembered and `none` returned.
    fn call<T>(&self, none: T, f: impl FnOnce(&Pcre2) -> Result<T, grep_pcre2::Error>) -> T {
        let r = CLONE.with(|cell| {
            let mut mine = cell.borrow_mut();
            if mine.as_ref().is_none_or(|(id, _)| *id != self.id) {
                *mine = Some((self.id, self.base.clone()));
            }
            let (_, m) = mine.as_ref().expect("set above");
            f(m)
        });
        r.unwrap_or_else(|_| {
            self.failed.store(true, Ordering::Relaxed);
            none
        })
    }

    pub(crate) fn find_at(&self, haystack: &[u8], at: usize) -> Option<Match> {
        self.call(None, |m| m.find_at(haystack, at))
    }

    pub(crate) fn new_captures(&self) -> grep_pcre2::RegexCaptures {
        self.base
            .new_captures()
            .expect("PCRE2 captures are made without fail")
    }

    pub(crate) fn capture_count(&self) -> usize {
        self.base.capture_count()
    }

    pub(crate) fn capture_index(&self, name: &str) -> Option<usize> {
        self.base.capture_index(name)
    }

    pub(crate) fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut grep_pcre2::RegexCaptures,
    ) -> bool {
        self.call(false, |m| m.captures_at(haystack, at, caps))
    }

    pub(crate) fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Option<usize> {
        self.call(None, |m| m.shortest_match_at(haystack, at))
    }

    pub(crate) fn is_match_at(&self, haystack: &[u8], at: usize) -> bool {
        self.call(false, |m| m.is_match_at(haystack, at))
    }

    /// The first line of `haystack` that matches without its `\n`.
    pub(crate) fn find_candidate_line(&self, haystack: &[u8]) -> Option<LineMatchKind> {
        let mut start = 0;
        while start < haystack.len() {
            let end =
                memchr::memchr(b'\n', &haystack[start..]).map_or(haystack.len(), |i| start + i);
            // The line alone: look-behind sees no line before it.
            if self.is_match_at(&haystack[start..end], 0) {
                return Some(LineMatchKind::Confirmed(start));
            }
            start = end + 1;
        }
        None
    }
}
