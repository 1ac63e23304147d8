//! The matcher the CPU searches with: the plan's regex, except that the
//! question ripgrep's searcher asks first ("where is the next matching
//! line?") is answered by [`HashedLiterals`] when the plan is a large
//! literal set that decides lines exactly (an Aho-Corasick automaton for
//! thousands of patterns is cache-bound; see `engine::hashed`). Match
//! bounds (`-o`, colors, `--count-matches`, `--stats`) come from the
//! finder too when it knows the patterns' order (each pattern its own
//! literal); otherwise from the regex, started where the finder saw the
//! next occurrence, so that it decides only the end, a few bytes, instead
//! of scanning with an automaton that thousands of patterns push out of the
//! caches.

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher};

use crate::engine::hashed::HashedLiterals;
use crate::matcher::regex::Regex;

/// See the module documentation.
#[derive(Clone, Copy)]
pub struct LineMatcher<'a> {
    pub(crate) regex: &'a Regex,
    pub(crate) fast: Option<&'a HashedLiterals>,
}

impl<'a> LineMatcher<'a> {
    /// The plan's regex (waited for if still compiling).
    pub(crate) fn inner(&self) -> &'a RegexMatcher {
        self.regex.get()
    }
}

impl Matcher for LineMatcher<'_> {
    type Captures = RegexCaptures;
    type Error = NoError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        match self.fast {
            // The set decides lines exactly and has no look-around, so the
            // leftmost match starts at the first occurrence the finder sees.
            Some(f) if f.ranked() => Ok(f.find_match(haystack, at).map(|(s, e)| Match::new(s, e))),
            Some(f) => match f.find(haystack, at) {
                Some(i) => self.inner().find_at(haystack, i),
                None => Ok(None),
            },
            None => self.inner().find_at(haystack, at),
        }
    }

    fn new_captures(&self) -> Result<RegexCaptures, NoError> {
        self.inner().new_captures()
    }

    fn capture_count(&self) -> usize {
        self.inner().capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.inner().capture_index(name)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut RegexCaptures,
    ) -> Result<bool, NoError> {
        self.inner().captures_at(haystack, at, caps)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        self.inner().shortest_match_at(haystack, at)
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, NoError> {
        match self.fast {
            Some(f) => Ok(f.find(haystack, at).is_some()),
            None => self.inner().is_match_at(haystack, at),
        }
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        match self.fast {
            // What the plan configures the regex with (a literal set holds
            // no line terminator).
            Some(_) => Some(LineTerminator::byte(b'\n')),
            None => self.inner().line_terminator(),
        }
    }

    /// The bytes no match holds: a multiline search whose patterns can
    /// never match a line terminator is searched line by line, as
    /// ripgrep's searcher decides (`-U -c` then counts lines).
    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        match self.fast {
            Some(_) => None,
            None => self.inner().non_matching_bytes(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        match self.fast {
            // An occurrence of an exact literal set confirms its line.
            Some(f) => Ok(f.find(haystack, 0).map(LineMatchKind::Confirmed)),
            None => self.inner().find_candidate_line(haystack),
        }
    }
}
