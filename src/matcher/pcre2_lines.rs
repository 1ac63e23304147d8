//! [`PcreLines`]: the plan's PCRE2 matcher, searched through a clone per
//! thread, inside the plan's `LineMatcher` (`matcher::line`, where one big
//! file is searched by every core) and the CPU loops' `SearchMatcher`.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use grep_matcher::{LineMatchKind, Match, Matcher};
use grep_pcre2::RegexMatcher as Pcre2;
use thread_local::ThreadLocal;

use crate::matcher::lines::first_line_where;

/// PCRE2 as the plan's `LineMatcher` uses it where one big file is
/// searched by every core (`search::bigfile`), and as the CPU loops'
/// `SearchMatcher` does: each thread calls a clone of its own
/// ([`PcreLines::with`]). For the `LineMatcher`, a match
/// error is remembered ([`PcreLines::take_failed`]) and read as no match, so the
/// caller can search the file again the usual way, which reports it. Its
/// candidate lines are decided line by line without their terminator, as
/// grep-searcher searches with a matcher that names no line terminator.
pub struct PcreLines {
    base: Pcre2,
    /// Each thread's clone of `base` (see [`PcreLines::with`]).
    clones: ThreadLocal<Pcre2>,
    failed: AtomicBool,
}

thread_local! {
    /// A search on this thread failed since [`PcreLines::watch`] began.
    static FAILED_HERE: Cell<bool> = const { Cell::new(false) };
}

impl PcreLines {
    pub fn new(base: Pcre2) -> PcreLines {
        PcreLines {
            base,
            clones: ThreadLocal::new(),
            failed: AtomicBool::new(false),
        }
    }

    /// The matcher, for what needs no search (its captures, its line
    /// terminator); searches go through [`PcreLines::with`].
    pub fn matcher(&self) -> &Pcre2 {
        &self.base
    }

    /// Whether a search failed since the last call (its answer was taken
    /// as no match).
    pub fn take_failed(&self) -> bool {
        self.failed.swap(false, Ordering::Relaxed)
    }

    /// `f`'s value, and whether one of this matcher's searches on this
    /// thread failed while it ran (their answers taken as no match): where
    /// one part of a file is searched on one thread, that part's output
    /// stops there.
    pub fn watch<T>(&self, f: impl FnOnce() -> T) -> (T, bool) {
        FAILED_HERE.set(false);
        let value = f();
        (value, FAILED_HERE.replace(false))
    }

    /// `f` on this thread's clone of the matcher (made on first use): a
    /// clone shares the compiled pattern and has a pool of scratch space
    /// (match data, JIT stack) of its own, which a matcher shared by every
    /// thread hands out under a lock.
    pub fn with<T>(&self, f: impl FnOnce(&Pcre2) -> T) -> T {
        f(self.clones.get_or(|| self.base.clone()))
    }

    /// `f` on this thread's clone; an error remembered and `none` returned.
    fn call<T>(&self, none: T, f: impl FnOnce(&Pcre2) -> Result<T, grep_pcre2::Error>) -> T {
        self.with(f).unwrap_or_else(|_| {
            self.failed.store(true, Ordering::Relaxed);
            FAILED_HERE.set(true);
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

    /// The first line of `haystack` that matches without its `\n` (the line
    /// alone: look-behind sees no line before it).
    pub(crate) fn find_candidate_line(&self, haystack: &[u8]) -> Option<LineMatchKind> {
        let found = first_line_where(haystack, b'\n', |line| {
            Ok::<_, std::convert::Infallible>(self.is_match_at(line, 0))
        });
        let Ok(start) = found;
        start.map(LineMatchKind::Confirmed)
    }
}
