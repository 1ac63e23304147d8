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
    map: &'a GuardedMap,
    releaser: RefCell<Releaser<'a>>,
}

impl<'a, M: Matcher> ReleaseBehind<'a, M> {
    pub fn new(inner: M, map: &'a GuardedMap) -> ReleaseBehind<'a, M> {
        Wrapped(Behind {
            inner,
            map,
            releaser: RefCell::new(Releaser::new(Some(map), 0)),
        })
    }

    /// Done: every page of the map leaves the resident set.
    pub fn finish(self) {
        let b = self.0;
        b.releaser.into_inner().finish(b.map.len());
    }
}

impl<M: Matcher> Wrapper for Behind<'_, M> {
    type Inner = M;

    fn inner(&self) -> &M {
        &self.inner
    }

    /// Notes how far the search has come when `haystack` is a tail of the
    /// map (the searcher's `slice[pos..]`; the printer's slices of matched
    /// lines end earlier and say nothing).
    fn before_find(&self, haystack: &[u8]) {
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
}
