//! [`Wrapped`]: a matcher that is another matcher with one or two answers
//! changed. A [`Wrapper`] names the inner matcher and overrides only the
//! hooks it changes; [`Wrapped`] passes every other call through, written
//! once here for [`ReleaseBehind`](crate::matcher::behind::ReleaseBehind)
//! and [`OffsetMatcher`](crate::matcher::offsets::OffsetMatcher).

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher};

/// The error type of a wrapper's inner matcher.
type ErrorOf<W> = <<W as Wrapper>::Inner as Matcher>::Error;

/// What a wrapping matcher changes; each hook defaults to the inner
/// matcher's answer.
pub trait Wrapper {
    type Inner: Matcher;

    /// The matcher every call not overridden goes to.
    fn inner(&self) -> &Self::Inner;

    /// Sees each haystack `find_at` is asked about, before the inner
    /// matcher searches it.
    fn before_find(&self, _haystack: &[u8]) {}

    /// ripgrep's `find_candidate_line` hook.
    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, ErrorOf<Self>> {
        self.inner().find_candidate_line(haystack)
    }

    /// The bytes no match holds (binary detection and the multiline
    /// decision of grep-searcher read it).
    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.inner().non_matching_bytes()
    }

    /// The line terminator no match crosses (grep-searcher asks
    /// `find_candidate_line` only of a matcher that names one).
    fn line_terminator(&self) -> Option<LineTerminator> {
        self.inner().line_terminator()
    }
}

/// A [`Wrapper`] as a [`Matcher`].
pub struct Wrapped<W>(pub W);

impl<W: Wrapper> Matcher for Wrapped<W> {
    type Captures = <W::Inner as Matcher>::Captures;
    type Error = ErrorOf<W>;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Self::Error> {
        self.0.before_find(haystack);
        self.0.inner().find_at(haystack, at)
    }

    fn try_find_iter_at<F, E>(
        &self,
        haystack: &[u8],
        at: usize,
        matched: F,
    ) -> Result<Result<(), E>, Self::Error>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        self.0.before_find(haystack);
        self.0.inner().try_find_iter_at(haystack, at, matched)
    }

    fn new_captures(&self) -> Result<Self::Captures, Self::Error> {
        self.0.inner().new_captures()
    }

    fn capture_count(&self) -> usize {
        self.0.inner().capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.0.inner().capture_index(name)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut Self::Captures,
    ) -> Result<bool, Self::Error> {
        self.0.inner().captures_at(haystack, at, caps)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, Self::Error> {
        self.0.inner().shortest_match_at(haystack, at)
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, Self::Error> {
        self.0.inner().is_match_at(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.0.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.0.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, Self::Error> {
        self.0.find_candidate_line(haystack)
    }
}
