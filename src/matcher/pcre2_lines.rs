//! [`PcreLines`]: PCRE2 inside the plan's `LineMatcher` (`matcher::line`),
//! where one big file is searched by every core (`search::bigfile`).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_matcher::{LineMatchKind, Match, Matcher};
use grep_pcre2::RegexMatcher as Pcre2;

/// PCRE2 as the plan's [`LineMatcher`] uses it where one big file is
/// searched by every core (`search::bigfile`): each thread calls a clone of
/// its own (kept per thread; see `matcher::pcre2::SearchMatcher` for why), and a match
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
