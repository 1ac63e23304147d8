//! [`ReleaseBehind`]: a matcher that drops the pages of a mapped file
//! behind a multiline search from this process's resident set.
//!
//! grep-searcher's multiline strategy searches one slice from the front:
//! each step asks the matcher for the next match in `slice[pos..]`. Seeing
//! where that sub-slice starts is seeing how far the search has come, so
//! the pages well behind it can go (`sys::guard::Releaser`); the page cache
//! keeps them, and a context line read again maps them back.

use std::cell::RefCell;

use grep_matcher::{LineMatchKind, LineTerminator, Match, Matcher};

use crate::sys::guard::{GuardedMap, RELEASE_STEP, Releaser};

/// `inner`, releasing the pages of `map` that the searcher has left more
/// than [`RELEASE_STEP`] behind.
pub struct ReleaseBehind<'a, M> {
    inner: M,
    map: &'a GuardedMap,
    releaser: RefCell<Releaser<'a>>,
}

impl<'a, M: Matcher> ReleaseBehind<'a, M> {
    pub fn new(inner: M, map: &'a GuardedMap) -> ReleaseBehind<'a, M> {
        ReleaseBehind {
            inner,
            map,
            releaser: RefCell::new(Releaser::new(Some(map), 0)),
        }
    }

    /// Notes how far the search has come when `haystack` is a tail of the
    /// map (the searcher's `slice[pos..]`; the printer's slices of matched
    /// lines end earlier and say nothing).
    fn saw(&self, haystack: &[u8]) {
        let map = self.map.as_ptr_range();
        let hay = haystack.as_ptr_range();
        if hay.end == map.end && hay.start >= map.start {
            let pos = hay.start as usize - map.start as usize;
            // Context lines before the next match are read back from here.
            self.releaser
                .borrow_mut()
                .passed(pos.saturating_sub(RELEASE_STEP));
        }
    }

    /// Done: every page of the map leaves the resident set.
    pub fn finish(self) {
        self.releaser.into_inner().finish(self.map.len());
    }
}

impl<M: Matcher> Matcher for ReleaseBehind<'_, M> {
    type Captures = M::Captures;
    type Error = M::Error;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, M::Error> {
        self.saw(haystack);
        self.inner.find_at(haystack, at)
    }

    fn new_captures(&self) -> Result<M::Captures, M::Error> {
        self.inner.new_captures()
    }

    fn capture_count(&self) -> usize {
        self.inner.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.inner.capture_index(name)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut M::Captures,
    ) -> Result<bool, M::Error> {
        self.inner.captures_at(haystack, at, caps)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, M::Error> {
        self.inner.shortest_match_at(haystack, at)
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, M::Error> {
        self.inner.is_match_at(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        self.inner.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.inner.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, M::Error> {
        self.inner.find_candidate_line(haystack)
    }
}
