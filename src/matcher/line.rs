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

use grep_matcher::{ByteSet, Captures, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher};

use crate::engine::hashed::HashedLiterals;
use crate::matcher::pcre2_lines::PcreLines;
use crate::matcher::regex::Regex;
use crate::matcher::rules::{RuleCaptures, RuleSet, iter_matches};

/// See the module documentation.
#[derive(Clone, Copy)]
pub struct LineMatcher<'a> {
    pub(crate) regex: &'a Regex,
    pub(crate) fast: Option<&'a HashedLiterals>,
    /// A rule set answers everything in place of the regex.
    pub(crate) rules: Option<&'a RuleSet>,
    /// So does PCRE2 (`-P`; a big file searched by every core).
    pub(crate) pcre2: Option<&'a PcreLines>,

    /// A line's answer can depend on the bytes before it (the plan's
    /// `line_context`).
    pub(crate) reads_before: bool,
}

/// The captures of the regex, of a rule set or of PCRE2 (for
/// [`SearchMatcher`](crate::matcher::pcre2::SearchMatcher), which
/// answers with one or the other).
#[derive(Clone, Debug)]
pub enum LineCaptures {
    Regex(RegexCaptures),
    Rules(RuleCaptures),
    Pcre2(grep_pcre2::RegexCaptures),
}

impl Captures for LineCaptures {
    fn len(&self) -> usize {
        match self {
            LineCaptures::Regex(c) => c.len(),
            LineCaptures::Rules(c) => c.len(),
            LineCaptures::Pcre2(c) => c.len(),
        }
    }

    fn get(&self, i: usize) -> Option<Match> {
        match self {
            LineCaptures::Regex(c) => c.get(i),
            LineCaptures::Rules(c) => c.get(i),
            LineCaptures::Pcre2(c) => c.get(i),
        }
    }
}

impl<'a> LineMatcher<'a> {
    /// The plan's regex (waited for if still compiling).
    pub(crate) fn inner(&self) -> &'a RegexMatcher {
        self.regex.get()
    }

    /// Whether a line's answer can depend on the bytes before it (see
    /// [`reads_before`](crate::matcher::lines::reads_before)).
    pub fn reads_before(&self) -> bool {
        self.reads_before
    }
}

impl Matcher for LineMatcher<'_> {
    type Captures = LineCaptures;
    type Error = NoError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        if let Some(p) = self.pcre2 {
            return Ok(p.find_at(haystack, at));
        }
        if let Some(r) = self.rules {
            return r.find_at(haystack, at);
        }
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

    /// A rule set's iteration remembers between its searches
    /// (`RuleSet::try_find_iter_at`); otherwise grep-matcher's loop.
    fn try_find_iter_at<F, E>(
        &self,
        haystack: &[u8],
        at: usize,
        matched: F,
    ) -> Result<Result<(), E>, NoError>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        if let Some(r) = self.rules {
            return r.try_find_iter_at(haystack, at, matched);
        }
        let find = |from| self.find_at(haystack, from).ok().flatten();
        Ok(iter_matches(haystack.len(), at, find, matched))
    }

    fn new_captures(&self) -> Result<LineCaptures, NoError> {
        if let Some(p) = self.pcre2 {
            return Ok(LineCaptures::Pcre2(p.new_captures()));
        }
        Ok(match self.rules {
            Some(r) => LineCaptures::Rules(r.new_captures()?),
            None => LineCaptures::Regex(self.inner().new_captures()?),
        })
    }

    fn capture_count(&self) -> usize {
        if let Some(p) = self.pcre2 {
            return p.capture_count();
        }
        match self.rules {
            Some(r) => r.capture_count(),
            None => self.inner().capture_count(),
        }
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        if let Some(p) = self.pcre2 {
            return p.capture_index(name);
        }
        match self.rules {
            Some(r) => r.capture_index(name),
            None => self.inner().capture_index(name),
        }
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut LineCaptures,
    ) -> Result<bool, NoError> {
        if let (Some(p), LineCaptures::Pcre2(c)) = (self.pcre2, &mut *caps) {
            return Ok(p.captures_at(haystack, at, c));
        }
        match (self.rules, caps) {
            (Some(r), LineCaptures::Rules(c)) => r.captures_at(haystack, at, c),
            (None, LineCaptures::Regex(c)) => self.inner().captures_at(haystack, at, c),
            _ => unreachable!("captures made by another matcher"),
        }
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        if let Some(p) = self.pcre2 {
            return Ok(p.shortest_match_at(haystack, at));
        }
        match self.rules {
            Some(r) => r.shortest_match_at(haystack, at),
            None => self.inner().shortest_match_at(haystack, at),
        }
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, NoError> {
        if let Some(p) = self.pcre2 {
            return Ok(p.is_match_at(haystack, at));
        }
        if let Some(r) = self.rules {
            return r.is_match_at(haystack, at);
        }
        match self.fast {
            Some(f) => Ok(f.find(haystack, at).is_some()),
            None => self.inner().is_match_at(haystack, at),
        }
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        // PCRE2's candidate lines are decided line by line (`PcreLines`).
        if self.pcre2.is_some() {
            return Some(LineTerminator::byte(b'\n'));
        }
        if let Some(r) = self.rules {
            return r.line_terminator();
        }
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
            _ if self.pcre2.is_some() => None,
            Some(_) => None,
            None => self.inner().non_matching_bytes(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        if let Some(p) = self.pcre2 {
            return Ok(p.find_candidate_line(haystack));
        }
        if let Some(r) = self.rules {
            return r.find_candidate_line(haystack);
        }
        match self.fast {
            // An occurrence of an exact literal set confirms its line.
            Some(f) => Ok(f.find(haystack, 0).map(LineMatchKind::Confirmed)),
            None => self.inner().find_candidate_line(haystack),
        }
    }
}
