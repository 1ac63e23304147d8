//! [`ReleaseBehind`]: a matcher that drops the pages of a mapped file
//! behind a multiline search from this process's resident set.
//!
//! grep-searcher's multiline strategy searches one slice from the front:
//! each step asks the matcher for the next match in `slice[pos..]`. Seeing
//! where that sub-slice starts is seeing how far the search has come, so
//! the pages well behind it can go (`sys::guard::Releaser`); the page cache
//! keeps them, and a context line read again maps them back.

use std::cell::RefCell;

use grep_matcher::Matcher;

use crate::matcher::wrap::{Wrapped, Wrapper};
use crate::sys::guard::{GuardedMap, RELEASE_STEP, Releaser};

/// `inner`, releasing the pages of `map` that the searcher has left more
/// than [`RELEASE_STEP`] behind.
pub type ReleaseBehind<'a, M> = Wrapped<Behind<'a, M>>;

/// What [`ReleaseBehind`] keeps beside its inner matcher.
pub struct Behind<'a, M> {
    inner: M,
    trail: Trail<'a>,
}

impl<'a, M: Matcher> ReleaseBehind<'a, M> {
    pub fn new(inner: M, map: &'a GuardedMap) -> ReleaseBehind<'a, M> {
        Wrapped(Behind {
            inner,
            trail: Trail::new(map),
        })
    }

    /// Done: every page of the map leaves the resident set.
    pub fn finish(self) {
        self.0.trail.finish();
    }
}

/// How far a search of one map has come, seen from the haystacks the
/// searcher hands its matcher, and the pages it has left behind released.
pub struct Trail<'a> {
    map: &'a GuardedMap,
    releaser: RefCell<Releaser<'a>>,
}

impl<'a> Trail<'a> {
    pub fn new(map: &'a GuardedMap) -> Trail<'a> {
        Trail {
            map,
            releaser: RefCell::new(Releaser::new(Some(map), 0)),
        }
    }

    /// Where `haystack` starts in the map when it is a tail of it (the
    /// searcher's `slice[pos..]`; the printer's slices of matched lines end
    /// earlier and say nothing); the pages more than [`RELEASE_STEP`]
    /// before it go (context lines before the next match are read back
    /// from there).
    pub fn reached(&self, haystack: &[u8]) -> Option<usize> {
        let map = self.map.as_ptr_range();
        let hay = haystack.as_ptr_range();
        if hay.end != map.end || hay.start < map.start {
            return None;
        }
        let pos = hay.start as usize - map.start as usize;
        self.releaser
            .borrow_mut()
            .passed(pos.saturating_sub(RELEASE_STEP));
        Some(pos)
    }

    /// Done: every page of the map leaves the resident set.
    pub fn finish(self) {
        self.releaser.into_inner().finish(self.map.len());
    }
}

impl<M: Matcher> Wrapper for Behind<'_, M> {
    type Inner = M;

    fn inner(&self) -> &M {
        &self.inner
    }

    /// Notes how far the search has come ([`Trail::reached`]).
    fn before_find(&self, haystack: &[u8]) {
        self.trail.reached(haystack);
    }
}
