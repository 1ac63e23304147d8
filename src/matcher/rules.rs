//! Rule sets: hundreds or thousands of regexes (`-f rules.txt`), as secret
//! scanners and log classifiers ship them. Joined into one alternation they
//! outgrow the regex size limit, and the literal prefilter of the whole
//! alternation explodes; here they are compiled in *units* instead, each a
//! grep-regex matcher within the limits, behind one [`Matcher`] whose
//! answers are the alternation's:
//!
//! * a rule with required literal factors (see [`factors`]) is a unit of
//!   its own, run only on the lines where one of its factors occurs (one
//!   Aho-Corasick automaton finds every rule's factors);
//! * the rules without factors are compiled in groups of [`GROUP`] rules
//!   (split further when a group exceeds the size limit), run everywhere.
//!
//! Which lines match does not depend on the rules' order. Match bounds do:
//! the alternation's match is leftmost-first, so the earliest start wins
//! and, at equal starts, the first rule (in the given order) matching
//! there. A unit answers with its own leftmost-first match; when units tie
//! at the leftmost start, the rules involved are tried one by one (each
//! compiled alone on first use) in order.

use std::cell::OnceCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, Input, MatchKind};
use grep_matcher::{Captures, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::RegexMatcher;
use regex_syntax::hir::{Hir, HirKind};
use thread_local::ThreadLocal;

use crate::cli::config::PatternOrigins;
use crate::matcher::lines::{line_bounds, line_is_match, reads_before};

/// How many factor-less rules share one matcher.
pub const GROUP: usize = 16;
/// Fewer rules than this are grouped whatever their factors: their
/// alternation searches faster than each rule behind its factors, whose
/// lines are confirmed one by one (100 MB of C, 2 cores: 3 to 7 rules
/// 1.4-4.6x faster as one alternation, 8 rules 2.2x slower).
const FEW_RULES: usize = 8;
/// The most NFA bytes (see [`nfa_size`]) a group of rules is given: a
/// tenth of grep-regex's default size limit.
const GROUP_BUDGET: usize = 10 << 20;
/// The most factors (after ASCII case folding) one rule may have.
const MAX_RULE_FACTORS: usize = 64;
/// The shortest factor worth a prefilter.
const MIN_FACTOR_LEN: usize = 3;
/// How far `find_candidate_line` looks before it compares what the units
/// found (bounds the work of a unit that matches far ahead).
const WINDOW: usize = 256 << 10;

/// Compiles patterns into one matcher (an alternation), as the plan
/// configures its regex, the case decision made for the whole set.
pub type Compile = dyn Fn(&[&str]) -> anyhow::Result<RegexMatcher> + Send + Sync;

/// See the module documentation.
pub struct RuleSet {
    rules: Vec<String>,
    origins: PatternOrigins,
    units: Vec<Unit>,
    /// The units without factors, run on every line.
    always: Vec<usize>,
    prefilter: Option<Prefilter>,
    /// Each rule compiled alone, on first use (ties and captures).
    singles: Vec<OnceLock<Option<RegexMatcher>>>,
    /// The alternation's capture index of each rule's first group.
    cap_base: Vec<usize>,
    names: Vec<(String, usize)>,
    captures: usize,
    line_terminated: bool,
    /// Some rule sees Unicode word boundaries (`\b`, `-w`), which the
    /// lazy DFA gives up on at a non-ASCII byte, leaving the rest of the
    /// haystack to the PikeVM: lines with non-ASCII bytes are then
    /// searched one by one.
    pub unicode_words: bool,
    /// A line's answer can depend on the line before it (the plan's
    /// `line_context`): see [`RuleSet::seen_after_a_line`].
    pub reads_before: bool,
    /// See [`RuleSet::searches_on`].
    searches_on: OnceLock<bool>,
    /// Nanoseconds spent compiling units ([`RuleSet::compile_time`]).
    compiling: std::sync::atomic::AtomicU64,
    /// Each thread's clones of the units it has searched with: a clone's
    /// pool of search caches is then its own (see `matcher::regex::Regex`).
    clones: ThreadLocal<Box<[OnceCell<RegexMatcher>]>>,
    compile: Box<Compile>,
    /// What `--stats` reports.
    pub info: RuleInfo,
}

/// Figures `--stats` reports about a rule set.
#[derive(Clone, Debug, Default)]
pub struct RuleInfo {
    pub rules: usize,
    pub units: usize,
    pub filtered: usize,
    pub factors: usize,
    pub compile: Duration,
}

struct Unit {
    /// Compiled up front for the groups, on first use for a rule with
    /// factors (most never see one of their factors).
    m: OnceLock<RegexMatcher>,
    /// The rules it holds, in order.
    rules: Vec<usize>,
    /// The factors of its one rule, if it is run only where they occur.
    factors: Option<Vec<Vec<u8>>>,
}

/// The rules of a unit to be, and their factors.
type Planned = (Vec<usize>, Option<Vec<Vec<u8>>>);

struct Prefilter {
    /// Every occurrence of each factor (ASCII case folded), for a line's
    /// units.
    ac: AhoCorasick,
    /// Where a factor may occur next, when regex-automata's prefilter of
    /// their alternation is a fast one (memchr, or Teddy on short pieces
    /// of the factors): its candidates may be such a piece only, and their
    /// lines are decided as any other. The automaton above, folding ASCII
    /// case, scans without one (3 rules with rare factors over 100 MB of C
    /// on 2 cores: 186 ms against 52 ms).
    next: Option<regex_automata::util::prefilter::Prefilter>,
    /// The units each factor belongs to.
    owners: Vec<Vec<usize>>,
}

/// One rule as parsed for the plan: its HIR (with the set's case
/// decision), or `None` when it does not parse.
pub struct Parsed {
    pub hir: Option<Hir>,
    pub factors: Option<Vec<Vec<u8>>>,
}

impl RuleSet {
    /// Compiles `rules`; `origins` name where each came from, for the
    /// error of a bad rule (`rules.txt:17: regex parse error: ...`).
    pub fn new(
        rules: &[String],
        origins: &PatternOrigins,
        parsed: Vec<Parsed>,
        compile: Box<Compile>,
    ) -> anyhow::Result<RuleSet> {
        let started = Instant::now();
        report_bad_rule(rules, origins, &parsed, &compile)?;
        let (cap_base, names, captures) = capture_layout(&parsed);
        let units = compile_units(rules, origins, layout(&parsed), &compile)?;
        let (always, prefilter) = prefilter(&units)?;
        let info = RuleInfo {
            rules: rules.len(),
            units: units.len(),
            filtered: units.len() - always.len(),
            factors: prefilter.as_ref().map_or(0, |p| p.owners.len()),
            compile: started.elapsed(),
        };
        // What grep-regex decides: text anchors (`\A`, `\z`) take the slow
        // line-by-line path.
        let unicode_words = parsed.iter().any(|p| {
            p.hir
                .as_ref()
                .is_some_and(|h| h.properties().look_set().contains_word_unicode())
        });
        let line_terminated = parsed.iter().all(|p| {
            p.hir
                .as_ref()
                .is_some_and(|h| !h.properties().look_set().contains_anchor_haystack())
        });
        Ok(RuleSet {
            rules: rules.to_vec(),
            origins: origins.clone(),
            singles: rules.iter().map(|_| OnceLock::new()).collect(),
            units,
            always,
            prefilter,
            cap_base,
            names,
            captures,
            line_terminated,
            unicode_words,
            reads_before: false,
            searches_on: OnceLock::new(),
            compiling: 0.into(),
            clones: ThreadLocal::new(),
            compile,
            info,
        })
    }

    /// Unit `u`'s matcher: this thread's clone of [`RuleSet::compiled`].
    fn unit(&self, u: usize) -> &RegexMatcher {
        let clones = self
            .clones
            .get_or(|| self.units.iter().map(|_| OnceCell::new()).collect());
        clones[u].get_or_init(|| self.compiled(u).clone())
    }

    /// Unit `u`'s matcher, compiled now if need be. A rule that parsed
    /// but does not compile alone (over the size limit) is reported then,
    /// and the process ends with status 2, as for a bad pattern.
    fn compiled(&self, u: usize) -> &RegexMatcher {
        self.units[u].m.get_or_init(|| {
            let started = Instant::now();
            let rules = &self.units[u].rules;
            let m = (self.compile)(&self.patterns(rules)).unwrap_or_else(|e| {
                crate::err_message!("{}: {e}", self.origins.name(rules[0]));
                std::process::exit(2)
            });
            let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.compiling.fetch_add(nanos, Ordering::Relaxed);
            m
        })
    }

    /// The time spent so far compiling units on first use (or warming
    /// them), on every thread: the part of a measured pace that the whole
    /// search pays once.
    pub fn compile_time(&self) -> Duration {
        Duration::from_nanos(self.compiling.load(Ordering::Relaxed))
    }

    /// Whether the line `buf[from..to]`, which follows a line of `buf`
    /// and did not match alone, matches as ripgrep's searcher decides it
    /// with the alternation of all the rules. That searcher may look for
    /// the next match from the end of the last line it examined, and then
    /// sees the `\n` before this line, which can change a Unicode half word
    /// boundary's answer at a line opening with a continuation byte (see
    /// `matcher::lines::reads_before`). The units answer in view of the
    /// `\n`; whether ripgrep looks so is [`RuleSet::searches_on`].
    fn seen_after_a_line(&self, buf: &[u8], from: usize, to: usize) -> bool {
        // Once the alternation is known to confirm lines alone, no line
        // needs the look in view of its `\n`.
        if !self.reads_before || !reads_before(buf, from) || self.searches_on.get() == Some(&false)
        {
            return false;
        }
        let hay = &buf[from - 1..line_bounds(buf, from).1.min(to)];
        let body = hay.strip_suffix(b"\n").unwrap_or(hay);
        self.is_match_at(body, 1).unwrap_or(false) && self.searches_on(hay)
    }

    /// Whether ripgrep's searcher, with the alternation of all the rules,
    /// searches on from the last line it examined (grep-regex found the
    /// alternation no fast line regex of inner literals, and answers
    /// `Confirmed`) rather than confirming candidate lines alone. Only the
    /// alternation can say: it is compiled once, the first time a line
    /// `hay` (its `\n` before it) matches in view of the `\n` and not
    /// alone (200 rules with `-w`: 20 ms). `false` when it does not
    /// compile (ripgrep stops there).
    fn searches_on(&self, hay: &[u8]) -> bool {
        *self.searches_on.get_or_init(|| {
            let all: Vec<usize> = (0..self.rules.len()).collect();
            (self.compile)(&self.patterns(&all)).is_ok_and(|m| {
                matches!(
                    m.find_candidate_line(hay),
                    Ok(Some(LineMatchKind::Confirmed(_)))
                )
            })
        })
    }

    /// Compiles, on `threads` threads, the units still waiting for their
    /// first use, until all are compiled or `stop` is set: for a search
    /// whose candidate lines will need most of them (a device stream,
    /// which confirms its candidates when the file ends), so that their
    /// compiles run beside the stream instead of after it. A unit that
    /// does not compile is left for its first use to report.
    pub fn warm(&self, threads: usize, stop: &AtomicBool) {
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let Some(unit) = self.units.get(next.fetch_add(1, Ordering::Relaxed))
                        else {
                            break;
                        };
                        if unit.m.get().is_none()
                            && let Ok(c) = (self.compile)(&self.patterns(&unit.rules))
                        {
                            let _ = unit.m.set(c);
                        }
                    }
                });
            }
        });
    }

    /// The text of `rules` (indexes into the set).
    fn patterns(&self, rules: &[usize]) -> Vec<&str> {
        rules.iter().map(|&r| self.rules[r].as_str()).collect()
    }

    /// How many units wait for their first use (tests of `warm`).
    #[cfg(test)]
    pub(crate) fn units_waiting(&self) -> usize {
        self.units.iter().filter(|u| u.m.get().is_none()).count()
    }

    /// Rule `r` compiled alone.
    fn single(&self, r: usize) -> Option<&RegexMatcher> {
        self.singles[r]
            .get_or_init(|| (self.compile)(&[self.rules[r].as_str()]).ok())
            .as_ref()
    }

    /// The units whose factors occur in `hay`, ascending.
    fn units_in(&self, hay: &[u8]) -> Vec<usize> {
        let Some(pf) = &self.prefilter else {
            return Vec::new();
        };
        let mut units: Vec<usize> = pf
            .ac
            .find_overlapping_iter(hay)
            .flat_map(|m| pf.owners[m.pattern().as_usize()].iter().copied())
            .collect();
        units.sort_unstable();
        units.dedup();
        units
    }

    /// The next factor occurrence in `hay[from..to]`.
    fn next_factor(&self, hay: &[u8], from: usize, to: usize) -> Option<usize> {
        let pf = self.prefilter.as_ref()?;
        if let Some(next) = &pf.next {
            let span = regex_automata::Span {
                start: from,
                end: to,
            };
            return next.find(hay, span).map(|m| m.start);
        }
        pf.ac
            .find(Input::new(hay).span(from..to))
            .map(|m| m.start())
    }

    /// The leftmost-first match from `at`, with the units that found it.
    fn leftmost(&self, hay: &[u8], at: usize) -> Leftmost {
        self.leftmost_with(hay, at, &mut Memo::default())
    }

    /// [`RuleSet::leftmost`], reusing what `memo` holds from earlier calls
    /// on the same haystack (an iteration over its matches: without it, a
    /// line of megabytes with many matches cost a scan of the rest of the
    /// line per match).
    fn leftmost_with(&self, hay: &[u8], at: usize, memo: &mut Memo) -> Leftmost {
        let mut best = Leftmost::default();
        for &u in &self.always {
            best.offer(u, self.unit_find(&mut memo.found, u, hay, at));
        }
        let mut pos = at;
        while let Some(h) = self.next_factor_memo(memo, hay, pos) {
            let (ls, le) = self.line_units(memo, hay, h);
            if best.start().is_some_and(|s| ls > s) {
                break;
            }
            let from = at.max(ls);
            for &(u, last) in &memo.units {
                if last >= from {
                    best.offer(u, self.unit_find(&mut memo.found, u, &hay[..le], from));
                }
            }
            pos = le;
        }
        best
    }

    /// Unit `u`'s match in `hay` from `from`, or the one `found` holds: a
    /// search from `from0` that found nothing, or a match starting at or
    /// after `from`, answers every search from `from0 <= from` too.
    fn unit_find(&self, found: &mut Found, u: usize, hay: &[u8], from: usize) -> Option<Match> {
        let key = (u, hay.len());
        if let Some(&(from0, m)) = found.get(&key)
            && from0 <= from
            && m.is_none_or(|m| from <= m.start())
        {
            return m;
        }
        let m = self.unit(u).find_at(hay, from).ok().flatten();
        found.insert(key, (from, m));
        m
    }

    /// The next factor occurrence at or after `pos`, through `memo`.
    fn next_factor_memo(&self, memo: &mut Memo, hay: &[u8], pos: usize) -> Option<usize> {
        if let Some((from0, h)) = memo.next
            && from0 <= pos
            && h.is_none_or(|h| pos <= h)
        {
            return h;
        }
        let h = self.next_factor(hay, pos, hay.len());
        memo.next = Some((pos, h));
        h
    }

    /// The bounds of the line holding `h`, with `memo.units` set to the
    /// units whose factors occur in it and where the last one starts.
    fn line_units(&self, memo: &mut Memo, hay: &[u8], h: usize) -> (usize, usize) {
        if let Some((ls, le)) = memo.line
            && ls <= h
            && h < le
        {
            return (ls, le);
        }
        let (ls, le) = line_bounds(hay, h);
        let mut last: Vec<(usize, usize)> = Vec::new();
        if let Some(pf) = &self.prefilter {
            for m in pf.ac.find_overlapping_iter(&hay[ls..le]) {
                for &u in &pf.owners[m.pattern().as_usize()] {
                    last.push((u, ls + m.start()));
                }
            }
        }
        // Per unit, ascending, its last occurrence (first after this sort).
        last.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        last.dedup_by_key(|(u, _)| *u);
        memo.line = Some((ls, le));
        memo.units = last;
        (ls, le)
    }

    /// The alternation's match among tied units: the first rule, in
    /// order, that matches at the common start.
    fn resolve(&self, hay: &[u8], best: &Leftmost) -> Option<(Match, Option<usize>)> {
        let (first_unit, first) = *best.found.first()?;
        if best.found.len() == 1 {
            let rules = &self.units[first_unit].rules;
            return Some((first, (rules.len() == 1).then(|| rules[0])));
        }
        let mut rules: Vec<usize> = best
            .found
            .iter()
            .flat_map(|(u, _)| self.units[*u].rules.iter().copied())
            .collect();
        rules.sort_unstable();
        self.first_rule_at(hay, first.start(), &rules)
            .or(Some((first, None)))
    }

    /// The first of `rules` that matches at `start`, and its match.
    fn first_rule_at(
        &self,
        hay: &[u8],
        start: usize,
        rules: &[usize],
    ) -> Option<(Match, Option<usize>)> {
        rules.iter().find_map(|&r| {
            let m = self.single(r)?.find_at(hay, start).ok().flatten()?;
            (m.start() == start).then_some((m, Some(r)))
        })
    }

    /// Whether `line` holds a match of a rule with factors.
    fn filtered_match(&self, line: &[u8]) -> bool {
        self.units_in(line)
            .into_iter()
            .any(|u| self.unit(u).is_match(line).unwrap_or(false))
    }

    /// The first line of `w` that may match (see `find_candidate_line`).
    fn candidate_in(&self, w: &[u8]) -> Option<LineMatchKind> {
        let mut end = w.len();
        let mut found = None;
        for &u in &self.always {
            if let Ok(Some(k)) = self.unit(u).find_candidate_line(&w[..end]) {
                let p = kind_pos(&k);
                // An empty match after the window's last line terminator
                // (`^$`) lies on no line of it.
                if p >= end && w[..end].ends_with(b"\n") {
                    continue;
                }
                end = line_bounds(w, p).1;
                found = Some(k);
            }
        }
        let mut pos = 0;
        while let Some(h) = self.next_factor(w, pos, end) {
            let (ls, le) = line_bounds(w, h);
            if self.filtered_match(&w[ls..le]) {
                return Some(LineMatchKind::Confirmed(ls));
            }
            pos = le;
        }
        found
    }

    /// Where the window `find_candidate_line` searches from `from` ends:
    /// [`WINDOW`] bytes on (at a line end), and with Unicode word
    /// boundaries, before the first line with a non-ASCII byte, or after
    /// it when it is the first line.
    fn window_end(&self, buf: &[u8], from: usize) -> usize {
        let end = if buf.len() - from <= WINDOW {
            buf.len()
        } else {
            line_bounds(buf, from + WINDOW).1
        };
        if !self.unicode_words {
            return end;
        }
        match first_non_ascii(&buf[from..end]) {
            None => end,
            Some(i) => match line_bounds(buf, from + i) {
                (ls, _) if ls > from => ls,
                (_, le) => le,
            },
        }
    }

    /// Rule `r`'s captures of the match `m`, placed where the
    /// alternation numbers them.
    fn fill_captures(&self, hay: &[u8], m: Match, r: usize, caps: &mut RuleCaptures) {
        let Some(single) = self.single(r) else { return };
        let Ok(mut local) = single.new_captures() else {
            return;
        };
        if !single
            .captures_at(hay, m.start(), &mut local)
            .unwrap_or(false)
        {
            return;
        }
        for k in 1..local.len() {
            caps.slots[self.cap_base[r] + k - 1] = local.get(k);
        }
    }
}

/// The units that found the leftmost start so far.
#[derive(Default)]
struct Leftmost {
    found: Vec<(usize, Match)>,
}

/// Each unit's last answer: (unit, haystack length) -> (searched from, the
/// answer).
type Found = std::collections::HashMap<(usize, usize), (usize, Option<Match>)>;

/// What [`RuleSet::leftmost_with`] keeps between calls on one haystack.
#[derive(Default)]
struct Memo {
    found: Found,
    /// The last factor search: (from, the occurrence found).
    next: Option<(usize, Option<usize>)>,
    /// The line last looked at, and its units with their last factor.
    line: Option<(usize, usize)>,
    units: Vec<(usize, usize)>,
}

impl Leftmost {
    fn start(&self) -> Option<usize> {
        self.found.first().map(|(_, m)| m.start())
    }

    fn offer(&mut self, unit: usize, m: Option<Match>) {
        let Some(m) = m else { return };
        match self.start() {
            Some(s) if m.start() > s => {}
            Some(s) if m.start() == s => self.found.push((unit, m)),
            _ => self.found = vec![(unit, m)],
        }
    }
}

fn first_non_ascii(b: &[u8]) -> Option<usize> {
    let mut at = 0;
    for c in b.chunks(256) {
        if !c.is_ascii() {
            return c.iter().position(|&x| x >= 0x80).map(|i| at + i);
        }
        at += c.len();
    }
    None
}

fn kind_pos(k: &LineMatchKind) -> usize {
    match *k {
        LineMatchKind::Confirmed(p) | LineMatchKind::Candidate(p) => p,
    }
}

/// grep-matcher's `try_find_iter_at` loop over the matches `find` gives
/// from a position, in a haystack of `len` bytes (an empty match right
/// after a match is skipped; the next search starts past an empty one).
pub(crate) fn iter_matches<E>(
    len: usize,
    at: usize,
    mut find: impl FnMut(usize) -> Option<Match>,
    mut matched: impl FnMut(Match) -> Result<bool, E>,
) -> Result<(), E> {
    let (mut last_end, mut last_match) = (at, None);
    while last_end <= len {
        let Some(m) = find(last_end) else {
            break;
        };
        if m.is_empty() {
            last_end = m.end() + 1;
            if Some(m.end()) == last_match {
                continue;
            }
        } else {
            last_end = m.end();
        }
        last_match = Some(m.end());
        if !matched(m)? {
            break;
        }
    }
    Ok(())
}

/// The first rule that does not parse, reported with where it came from
/// and grep-regex's error for the rule alone (ripgrep's text).
fn report_bad_rule(
    rules: &[String],
    origins: &PatternOrigins,
    parsed: &[Parsed],
    compile: &Compile,
) -> anyhow::Result<()> {
    // A rule that does not parse alone may still compile (grep-regex
    // wraps it in a group): the first that fails is reported.
    // A rule that may match NUL or the line terminator is compiled now
    // too: grep-regex refuses the first unless searching binary files as
    // text, the second unless searching in multiline mode, and a rule with
    // factors is otherwise compiled only where its factors occur.
    let suspect = |p: &Parsed| {
        p.hir
            .as_ref()
            .is_none_or(|h| matches_byte(h, 0) || matches_byte(h, b'\n'))
    };
    for (r, _) in parsed.iter().enumerate().filter(|(_, p)| suspect(p)) {
        rule_error(rules, origins, r, compile)?;
    }
    Ok(())
}

/// Compiles rule `r` alone and reports its error, if it has one.
fn rule_error(
    rules: &[String],
    origins: &PatternOrigins,
    r: usize,
    compile: &Compile,
) -> anyhow::Result<()> {
    match compile(&[rules[r].as_str()]) {
        Ok(_) => Ok(()),
        Err(e) => {
            anyhow::bail!("{}: {e}", origins.name(r))
        }
    }
}

/// Whether `hir` holds a literal with byte `b` or a class of `b` alone
/// (what grep-regex refuses for NUL and the line terminator).
fn matches_byte(hir: &Hir, b: u8) -> bool {
    use regex_syntax::hir::Class;
    match hir.kind() {
        HirKind::Literal(l) => l.0.contains(&b),
        HirKind::Class(Class::Unicode(c)) => {
            matches!(c.ranges(), [r] if r.start() == char::from(b) && r.end() == char::from(b))
        }
        HirKind::Class(Class::Bytes(c)) => {
            matches!(c.ranges(), [r] if r.start() == b && r.end() == b)
        }
        HirKind::Repetition(r) => matches_byte(&r.sub, b),
        HirKind::Capture(c) => matches_byte(&c.sub, b),
        HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().any(|h| matches_byte(h, b)),
        _ => false,
    }
}

/// Where each rule's groups sit in the alternation, the named groups,
/// and the alternation's group count.
fn capture_layout(parsed: &[Parsed]) -> (Vec<usize>, Vec<(String, usize)>, usize) {
    let mut base = Vec::with_capacity(parsed.len());
    let mut names = Vec::new();
    let mut next = 1;
    for p in parsed {
        base.push(next);
        if let Some(hir) = &p.hir {
            collect_names(hir, next, &mut names);
            next += hir.properties().explicit_captures_len();
        }
    }
    (base, names, next)
}

fn collect_names(hir: &Hir, base: usize, out: &mut Vec<(String, usize)>) {
    match hir.kind() {
        HirKind::Capture(c) => {
            if let Some(n) = &c.name {
                out.push((n.to_string(), base + c.index as usize - 1));
            }
            collect_names(&c.sub, base, out);
        }
        HirKind::Repetition(r) => collect_names(&r.sub, base, out),
        HirKind::Concat(v) | HirKind::Alternation(v) => {
            v.iter().for_each(|h| collect_names(h, base, out))
        }
        _ => {}
    }
}

/// Which rules share a unit (each rule with factors alone, the others in
/// groups, in order), and each unit's factors.
fn layout(parsed: &[Parsed]) -> Vec<Planned> {
    let few = parsed.len() < FEW_RULES;
    let mut plan = Vec::new();
    let mut group: Vec<usize> = Vec::new();
    let mut groups = Vec::new();
    let mut size = 0;
    for (r, p) in parsed.iter().enumerate() {
        if let Some(f) = p.factors.as_ref().filter(|_| !few) {
            plan.push((vec![r], Some(f.clone())));
            continue;
        }
        let w = p.hir.as_ref().map_or(GROUP_BUDGET, nfa_size);
        if !group.is_empty() && (group.len() == GROUP || size + w > GROUP_BUDGET) {
            groups.push((std::mem::take(&mut group), None));
            size = 0;
        }
        group.push(r);
        size += w;
    }
    groups.extend((!group.is_empty()).then_some((group, None)));
    plan.extend(groups);
    plan
}

/// The size of `hir`'s Thompson NFA ([`GROUP_BUDGET`] if bigger), which
/// the size limit bounds: groups are kept well under it, so that no group
/// is compiled, found too big and split (each try of a big group of
/// Unicode classes takes a good part of a second).
fn nfa_size(hir: &Hir) -> usize {
    use regex_automata::nfa::thompson;
    let config = thompson::Config::new()
        .nfa_size_limit(Some(GROUP_BUDGET))
        .shrink(false);
    thompson::Compiler::new()
        .configure(config)
        .build_from_hir(hir)
        .map_or(GROUP_BUDGET, |n| n.memory_usage())
}

/// Compiles each unit; a group that does not compile (over the size
/// limit) is split in halves, down to the rule at fault, which is then
/// reported alone.
fn compile_units(
    rules: &[String],
    origins: &PatternOrigins,
    plan: Vec<Planned>,
    compile: &Compile,
) -> anyhow::Result<Vec<Unit>> {
    let mut units = Vec::with_capacity(plan.len());
    let mut work: Vec<Planned> = plan.into_iter().rev().collect();
    while let Some((group, factors)) = work.pop() {
        let m = OnceLock::new();
        if factors.is_some() {
            units.push(Unit {
                m,
                rules: group,
                factors,
            });
            continue;
        }
        let pats: Vec<&str> = group.iter().map(|&r| rules[r].as_str()).collect();
        match compile(&pats) {
            Ok(c) => {
                let _ = m.set(c);
                units.push(Unit {
                    m,
                    rules: group,
                    factors,
                });
            }
            Err(_) if group.len() > 1 => {
                let (a, b) = group.split_at(group.len() / 2);
                work.push((b.to_vec(), None));
                work.push((a.to_vec(), None));
            }
            Err(e) => {
                rule_error(rules, origins, group[0], compile)?;
                return Err(e);
            }
        }
    }
    Ok(units)
}

/// The units run everywhere, and the finder of the others' factors.
fn prefilter(units: &[Unit]) -> anyhow::Result<(Vec<usize>, Option<Prefilter>)> {
    let mut ids: std::collections::HashMap<&[u8], usize> = Default::default();
    let mut owners: Vec<Vec<usize>> = Vec::new();
    let mut always = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let Some(f) = &unit.factors else {
            always.push(u);
            continue;
        };
        for lit in f {
            let id = *ids.entry(lit.as_slice()).or_insert_with(|| {
                owners.push(Vec::new());
                owners.len() - 1
            });
            owners[id].push(u);
        }
    }
    if owners.is_empty() {
        return Ok((always, None));
    }
    let mut lits: Vec<(&[u8], usize)> = ids.into_iter().collect();
    lits.sort_by_key(|&(_, id)| id);
    let ac = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .ascii_case_insensitive(true)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(lits.iter().map(|(l, _)| l))?;
    let next = factor_finder(lits.iter().map(|(l, _)| *l));
    Ok((always, Some(Prefilter { ac, next, owners })))
}

/// The fast prefilter of the factors' alternation (byte literals, ASCII
/// case folded), if regex-automata finds one.
fn factor_finder<'a>(
    lits: impl Iterator<Item = &'a [u8]>,
) -> Option<regex_automata::util::prefilter::Prefilter> {
    use std::fmt::Write as _;
    let mut alternation = String::new();
    for (i, lit) in lits.enumerate() {
        alternation.push_str(if i == 0 { "" } else { "|" });
        for &b in lit {
            match b.is_ascii_alphanumeric() {
                true => alternation.push(b as char),
                false => write!(alternation, "\\x{b:02x}").ok()?,
            }
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(true)
        .build()
        .parse(&alternation)
        .ok()?;
    let kind = regex_automata::MatchKind::LeftmostFirst;
    regex_automata::util::prefilter::Prefilter::from_hir_prefix(kind, &hir).filter(|p| p.is_fast())
}

/// A rule's required literal factors, ASCII-lowercased (the finder folds
/// ASCII case, which only widens the candidates), from `required`, a
/// literal set every match of `hir` contains; `None` when there is none
/// worth searching for.
pub fn factors(required: Option<Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    let mut lits: Vec<Vec<u8>> = required?
        .into_iter()
        .map(|l| l.to_ascii_lowercase())
        .collect();
    lits.sort_unstable();
    lits.dedup();
    let short = lits.iter().any(|l| l.len() < MIN_FACTOR_LEN);
    (!short && !lits.is_empty() && lits.len() <= MAX_RULE_FACTORS).then_some(lits)
}

/// The alternation's captures, filled for the winning rule.
#[derive(Clone, Debug)]
pub struct RuleCaptures {
    slots: Vec<Option<Match>>,
}

impl Captures for RuleCaptures {
    fn len(&self) -> usize {
        self.slots.len()
    }

    fn get(&self, i: usize) -> Option<Match> {
        self.slots.get(i).copied().flatten()
    }
}

impl Matcher for RuleSet {
    type Captures = RuleCaptures;
    type Error = NoError;

    fn find_at(&self, hay: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        let best = self.leftmost(hay, at);
        Ok(self.resolve(hay, &best).map(|(m, _)| m))
    }

    /// Each search of the iteration reuses what the ones before learned
    /// about this haystack ([`Memo`]).
    fn try_find_iter_at<F, E>(
        &self,
        hay: &[u8],
        at: usize,
        matched: F,
    ) -> Result<Result<(), E>, NoError>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        let mut memo = Memo::default();
        let find = |from: usize| {
            let best = self.leftmost_with(hay, from, &mut memo);
            self.resolve(hay, &best).map(|(m, _)| m)
        };
        Ok(iter_matches(hay.len(), at, find, matched))
    }

    fn new_captures(&self) -> Result<RuleCaptures, NoError> {
        Ok(RuleCaptures {
            slots: vec![None; self.captures],
        })
    }

    fn capture_count(&self) -> usize {
        self.captures
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.names.iter().find(|(n, _)| n == name).map(|(_, i)| *i)
    }

    fn captures_at(&self, hay: &[u8], at: usize, caps: &mut RuleCaptures) -> Result<bool, NoError> {
        caps.slots.iter_mut().for_each(|s| *s = None);
        let best = self.leftmost(hay, at);
        let Some((m, rule)) = self.resolve(hay, &best) else {
            return Ok(false);
        };
        caps.slots[0] = Some(m);
        let rule = rule.or_else(|| {
            let unit = &self.units[best.found.first()?.0];
            self.first_rule_at(hay, m.start(), &unit.rules)?.1
        });
        if let Some(r) = rule {
            self.fill_captures(hay, m, r, caps);
        }
        Ok(true)
    }

    fn shortest_match_at(&self, hay: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        let units = self.always.iter().copied().chain(self.units_in(&hay[at..]));
        Ok(units
            .filter_map(|u| self.unit(u).shortest_match_at(hay, at).ok().flatten())
            .min())
    }

    fn is_match_at(&self, hay: &[u8], at: usize) -> Result<bool, NoError> {
        let mut units = self.always.iter().copied().chain(self.units_in(&hay[at..]));
        Ok(units.any(|u| self.unit(u).is_match_at(hay, at).unwrap_or(false)))
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.line_terminated.then(|| LineTerminator::byte(b'\n'))
    }

    fn find_candidate_line(&self, buf: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        let mut from = 0;
        while from < buf.len() {
            let to = self.window_end(buf, from);
            // An empty match at a window's end (`^` after its last line
            // terminator) is the next window's business.
            let found = self.candidate_in(&buf[from..to]).or_else(|| {
                self.seen_after_a_line(buf, from, to)
                    .then_some(LineMatchKind::Confirmed(0))
            });
            let inside = |k: &LineMatchKind| to == buf.len() || kind_pos(k) < to - from;
            match found.filter(inside) {
                Some(LineMatchKind::Confirmed(p)) => {
                    return Ok(Some(LineMatchKind::Confirmed(from + p)));
                }
                // Where a line's answer can depend on the line before it,
                // a candidate is decided here and the search goes on past
                // it, as ripgrep's searcher goes on with an alternation that
                // answers only `Confirmed` (see `seen_after_a_line`): handed
                // back, the searcher would start again after it, and the
                // next line would lose the `\n` before it.
                Some(LineMatchKind::Candidate(p)) if self.reads_before => {
                    let (ls, le) = line_bounds(buf, from + p);
                    if line_is_match(self, &buf[ls..le]) || self.seen_after_a_line(buf, ls, le) {
                        return Ok(Some(LineMatchKind::Confirmed(ls)));
                    }
                    from = le;
                }
                Some(LineMatchKind::Candidate(p)) => {
                    return Ok(Some(LineMatchKind::Candidate(from + p)));
                }
                None => from = to,
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence of a factor, in any ASCII case, is found or
    /// preceded by a candidate (the prefilter may find a piece of it).
    #[test]
    fn the_factor_finder_misses_no_occurrence() {
        let lits: [&[u8]; 3] = [b"qumq", b"getf", b"a.b\x00"];
        let finder = factor_finder(lits.iter().copied()).expect("a fast prefilter");
        let hay = b"xx GeTf yy a.b\x00 zz QuMq";
        for (at, len) in [(3, 4), (11, 4), (19, 4)] {
            let span = regex_automata::Span {
                start: at - 1,
                end: at + len,
            };
            let found = finder.find(hay, span).map(|s| s.start);
            assert!(found.is_some_and(|p| p <= at), "{at}: {found:?}");
        }
        let none = regex_automata::Span { start: 0, end: 2 };
        assert_eq!(finder.find(b"xx", none), None);
    }
}
