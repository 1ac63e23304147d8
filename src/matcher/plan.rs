//! The pattern plan: compiled once per run and shared by every worker.
//!
//! It holds the exact matcher (grep-regex, configured as ripgrep configures
//! it, so every answer is ripgrep's) and, when the pattern set reduces to
//! literals, the [`LiteralSet`] that device kernels search for. The literal
//! set is a *line prefilter*: every match of the patterns starts with one of
//! its literals (ASCII-folded when case is ignored), so the lines holding a
//! literal occurrence are a superset of the matching lines, and the exact
//! matcher confirms them.

use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(test)]
use grep_regex::RegexMatcher;
use regex_syntax::ast::{self, Ast};
use regex_syntax::hir::Hir;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

use crate::cli::config::{Boundary, CaseMode, Config};
use crate::cli::output_opts::{LineTerm, RegexEngine};
use crate::engine::LiteralSet;
use crate::engine::hashed::{HASHED_MIN_PATTERNS, HashedLiterals};
use crate::matcher::line::LineMatcher;
use crate::matcher::pcre2::SearchMatcher;
use crate::matcher::pcre2_lines::PcreLines;
use crate::matcher::regex::Background;
pub use crate::matcher::regex::Regex;
use crate::matcher::rules::{self, Parsed, RuleSet};
use crate::matcher::spec::{MatcherSpec, neither};

/// The most literals a prefilter set may hold before the CPU engine is the
/// better choice (the many-literal kernel raises this later).
const MAX_PREFILTER_LITERALS: usize = 250_000;
/// How many case variants (Kelvin sign, long s) one literal may expand to
/// (10 letters k or s: word lists of identifiers hold a few such words).
const MAX_CASE_VARIANTS: usize = 1024;
/// How many case variants a whole set may expand to (identifiers average
/// about 3 each).
const MAX_FOLDED_LITERALS: usize = 4 * MAX_PREFILTER_LITERALS;
/// From this many regexes up, the patterns are a rule set (see
/// `matcher::rules`) rather than one alternation.
pub const RULES_MIN_PATTERNS: usize = 3;

/// The shape of a pattern set, which decides the engine path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every pattern is a literal (or a small exact set of literals).
    Literals,
    /// A regex whose matches all contain one of a finite literal set.
    RequiredLiterals,
    /// A regex with no usable literal: the CPU engine runs it.
    Regex,
}

/// The compiled patterns.
pub struct Plan {
    /// The exact matcher; see [`Regex`].
    pub matcher: Regex,
    pub literals: Option<LiteralSet>,
    pub shape: Shape,
    /// A line matches exactly when it holds an occurrence of a literal of
    /// `literals` (no `-w`/`-x`, no look-around, case variants complete), so
    /// device offsets need no confirmation by the regex.
    pub exact_lines: bool,
    /// The CPU finder for a large exact literal set (see `engine::hashed`).
    pub hashed: Option<HashedLiterals>,
    /// The patterns as a rule set, compiled in units (`matcher::rules`);
    /// `matcher` is then unused.
    pub rules: Option<RuleSet>,
    /// The patterns compiled by PCRE2 (`-P`, see `matcher::spec`), which
    /// then answers everything in place of `matcher`, on the CPU.
    pub pcre2: Option<PcreLines>,
    /// A line's answer can depend on the bytes before it
    /// (`Config::line_context`).
    pub line_context: bool,
}

/// A [`Plan`] whose regex is still being compiled on another thread: a
/// big pattern list takes most of a second to compile (an Aho-Corasick
/// automaton of 100,000 words), time the literal set, the hashed finder and
/// a device's start-up can use meanwhile.
pub struct PendingPlan {
    matcher: Regex,
    /// Searched case-insensitively (the regex is then always waited for).
    case_insensitive: bool,
    literals: Option<LiteralSet>,
    shape: Shape,
    exact_lines: bool,
    /// The hashed finder of a big set, built on its own thread.
    hashed: Background<Option<HashedLiterals>>,
    rules: Option<anyhow::Result<RuleSet>>,
    pcre2: Option<anyhow::Result<grep_pcre2::RegexMatcher>>,
    /// `--engine auto`: what PCRE2 compiles should the default engine fail.
    hybrid: Option<MatcherSpec>,
    line_context: bool,
}

impl PendingPlan {
    /// A plan whose single regex is never compiled (`why` not): a rule set's
    /// or PCRE2's, which fill in their own matcher.
    fn without_regex(cfg: &Config, why: &str) -> PendingPlan {
        let none = anyhow::anyhow!("internal error: {why}");
        PendingPlan {
            matcher: Regex::new(Background::Done(Err(none))),
            case_insensitive: false,
            literals: None,
            shape: Shape::Regex,
            exact_lines: false,
            hashed: Background::Done(None),
            rules: None,
            pcre2: None,
            hybrid: None,
            line_context: cfg.line_context,
        }
    }

    /// The literal set (known before the regex is compiled).
    pub fn literals(&self) -> Option<&LiteralSet> {
        self.literals.as_ref()
    }

    /// The plan, once its regex compiled (a bad pattern's error here, as
    /// ripgrep reports it), unless the regex is not needed yet.
    pub fn finish(self) -> anyhow::Result<Plan> {
        let hashed = self.hashed.join()?;
        let rules = self.rules.transpose()?;
        let pcre2 = self.pcre2.transpose()?;
        // A case-sensitive set the hashed finder answers by itself needs no
        // regex to start searching (see [`Regex::get`]).
        let defer = !self.case_insensitive && hashed.as_ref().is_some_and(HashedLiterals::ranked);
        if !defer
            && rules.is_none()
            && pcre2.is_none()
            && let Err(default) = self.matcher.wait()
        {
            return match &self.hybrid {
                Some(spec) => Plan::fallen_back(spec, &default, self.line_context),
                None => Err(default),
            };
        }
        Ok(Plan {
            matcher: self.matcher,
            literals: self.literals,
            shape: self.shape,
            exact_lines: self.exact_lines,
            hashed,
            rules,
            pcre2: pcre2.map(PcreLines::new),
            line_context: self.line_context,
        })
    }
}

impl Plan {
    pub fn new(cfg: &Config) -> anyhow::Result<Plan> {
        Plan::start(cfg).finish()
    }

    /// Starts compiling the regex on its own thread and works out the rest
    /// of the plan meanwhile.
    pub fn start(cfg: &Config) -> PendingPlan {
        if cfg.out.pcre2 {
            return Plan::start_pcre2(cfg);
        }
        if is_rule_set(cfg) {
            return Plan::start_rules(cfg);
        }
        // A few short patterns compile in less time than a thread takes to
        // start and join (a one-line search is all start-up).
        let small =
            cfg.patterns.len() <= 8 && cfg.patterns.iter().map(String::len).sum::<usize>() <= 256;
        let matcher = Regex::new(if small {
            Background::Done(MatcherSpec::of(cfg).build())
        } else {
            let spec = MatcherSpec::of(cfg);
            Background::spawn(
                "gsearch-regex",
                move || spec.build(),
                || MatcherSpec::of(cfg).build(),
            )
        });
        let case_insensitive = is_case_insensitive(cfg);
        let (literals, shape) = match extract(cfg, case_insensitive) {
            Some((set, exact)) => {
                let shape = if exact {
                    Shape::Literals
                } else {
                    Shape::RequiredLiterals
                };
                (Some(set), shape)
            }
            None => (None, Shape::Regex),
        };
        // Inline flags (`(?-i)`) change case handling inside a pattern,
        // which the ASCII-folded literal set does not model.
        let inline_flags = !cfg.fixed_strings && cfg.patterns.iter().any(|p| p.contains("(?"));
        // A multiline search asks the regex for matches, never for lines.
        let exact_lines = shape == Shape::Literals
            && !cfg.input.multiline
            && cfg.boundary == Boundary::None
            // Lines end at `\n` only, and case folds as Unicode says.
            && cfg.out.line_term == LineTerm::Lf
            && !cfg.out.no_unicode
            && !inline_flags
            && (!case_insensitive || cfg.patterns.iter().all(|p| p.is_ascii()));
        // Built on its own thread too (sorting and ranking 100,000 words
        // takes a while), while the caller starts a device.
        let hashed = match literals.as_ref() {
            Some(set) if exact_lines && set.patterns.len() >= HASHED_MIN_PATTERNS => {
                let (own, fixed, patterns) = (set.clone(), cfg.fixed_strings, cfg.patterns.clone());
                Background::spawn(
                    "gsearch-literals",
                    move || hashed_finder(&own, fixed, &patterns, case_insensitive),
                    || hashed_finder(set, cfg.fixed_strings, &cfg.patterns, case_insensitive),
                )
            }
            _ => Background::Done(None),
        };
        PendingPlan {
            matcher,
            case_insensitive,
            literals,
            shape,
            exact_lines,
            hashed,
            rules: None,
            pcre2: None,
            hybrid: (cfg.out.regex_engine == RegexEngine::Hybrid).then(|| MatcherSpec::of(cfg)),
            line_context: cfg.line_context,
        }
    }

    /// A PCRE2 plan: the one matcher, nothing for a device.
    fn start_pcre2(cfg: &Config) -> PendingPlan {
        PendingPlan {
            pcre2: Some(MatcherSpec::of(cfg).build_pcre2_or_explain()),
            ..PendingPlan::without_regex(cfg, "PCRE2 runs the search")
        }
    }

    /// `--engine auto` whose patterns the default engine parsed and could
    /// not compile (a size limit): PCRE2's plan, as ripgrep falls back, or
    /// both engines' errors. The caller sees `pcre2` and searches on the
    /// CPU.
    fn fallen_back(
        spec: &MatcherSpec,
        default: &anyhow::Error,
        line_context: bool,
    ) -> anyhow::Result<Plan> {
        let pcre2 = spec.build_pcre2().map_err(|e| neither(default, &e))?;
        Ok(Plan {
            matcher: Regex::new(Background::Done(Err(anyhow::anyhow!("{default}")))),
            literals: None,
            shape: Shape::Regex,
            exact_lines: false,
            hashed: None,
            rules: None,
            pcre2: Some(PcreLines::new(pcre2)),
            line_context,
        })
    }

    /// A rule set's plan: each rule parsed with the set's case decision,
    /// its factors found, and the units compiled (see `matcher::rules`).
    fn start_rules(cfg: &Config) -> PendingPlan {
        let case_insensitive = is_case_insensitive(cfg);
        let case = if case_insensitive {
            CaseMode::Insensitive
        } else {
            CaseMode::Sensitive
        };
        let spec = MatcherSpec {
            case,
            patterns: Vec::new(),
            ..MatcherSpec::of(cfg)
        };
        let started = std::time::Instant::now();
        let parsed = cfg
            .patterns
            .iter()
            .map(|p| parse_rule(p, case_insensitive))
            .collect();
        let compile = Box::new(move |p: &[&str]| spec.build_many(p));
        let rules =
            RuleSet::new(&cfg.patterns, &cfg.pattern_origins, parsed, compile).map(|mut r| {
                r.unicode_words |= cfg.boundary == Boundary::Word;
                r.reads_before = cfg.line_context;
                r.info.compile = started.elapsed();
                r
            });
        PendingPlan {
            case_insensitive,
            rules: Some(rules),
            ..PendingPlan::without_regex(cfg, "a rule set has no single regex")
        }
    }

    /// The matcher CPU searches use (see `matcher::line`).
    pub fn line_matcher(&self) -> LineMatcher<'_> {
        LineMatcher {
            regex: &self.matcher,
            fast: self.hashed.as_ref(),
            rules: self.rules.as_ref(),
            pcre2: self.pcre2.as_ref(),
            reads_before: self.line_context,
        }
    }

    /// The matcher the CPU loops search files with: PCRE2's when it runs
    /// the search, else [`Plan::line_matcher`].
    pub fn search_matcher(&self) -> SearchMatcher<'_> {
        match &self.pcre2 {
            Some(m) => SearchMatcher::Pcre2(m),
            None => SearchMatcher::Line(self.line_matcher()),
        }
    }

    /// Runs `f` while a quarter of the cores compile the rule set's units
    /// still waiting for their first use (`RuleSet::warm`; nothing without
    /// a rule set): for a device search, whose candidate lines are
    /// confirmed when its stream ends, so the compiles no longer follow
    /// the stream (H200, 1,000 rules over 4.34 GB: 256 of its 754 ms).
    pub fn warming<R>(&self, f: impl FnOnce() -> R) -> R {
        self.warming_once(&|| true, f)
    }

    /// [`Plan::warming`], the compiles starting only once `ready` says so
    /// (a device is searching): while the CPU searches alone, it compiles
    /// only the units whose factors occur, and compiling the others took
    /// cores from it (2 cores, 200 rules over 210 MB with no device: 1.0-1.2 s
    /// against 0.77 s).
    pub fn warming_once<R>(&self, ready: &(dyn Fn() -> bool + Sync), f: impl FnOnce() -> R) -> R {
        let Some(rules) = &self.rules else { return f() };
        let (stop, threads) = (AtomicBool::new(false), (crate::sys::cores() / 4).max(1));
        std::thread::scope(|s| {
            s.spawn(|| {
                while !ready() {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                rules.warm(threads, &stop)
            });
            let r = f();
            stop.store(true, Ordering::Relaxed);
            r
        })
    }

    /// The one literal that decides matching lines and matches by itself:
    /// a single case-sensitive pattern whose line test is exact
    /// (`exact_lines`: no `-w`/`-x`, `\n` lines, no inline flags), as the
    /// big-file path counts and finds it with `memchr` alone
    /// (`pipeline::literal`).
    pub fn single_literal(&self) -> Option<&[u8]> {
        let set = self.literals.as_ref()?;
        let one = self.exact_lines
            && !set.fold_ascii
            && set.patterns.len() == 1
            && self.rules.is_none()
            && self.hashed.is_none();
        one.then(|| set.patterns[0].as_slice())
    }

    /// A one-line description for `--stats`.
    pub fn describe(&self) -> String {
        if self.pcre2.is_some() {
            return "PCRE2 regex, searched on the CPU".to_string();
        }
        if let Some(r) = &self.rules {
            let i = &r.info;
            return format!(
                "rule set of {} in {}, {} behind {}, built in {:.1} ms (a rule with factors \
                 compiles where one first occurs, or beside a device's stream)",
                crate::sys::count_of(i.rules, "regex"),
                crate::sys::count_of(i.units, "matcher"),
                i.filtered,
                crate::sys::count_of(i.factors, "literal factor"),
                i.compile.as_secs_f64() * 1000.0
            );
        }
        let lengths = |s: &LiteralSet| match (s.min_len(), s.max_len()) {
            (a, b) if a == b => format!("{} long", crate::sys::count_of(a, "byte")),
            (a, b) => format!("{a} to {b} bytes long"),
        };
        match (&self.shape, &self.literals) {
            (Shape::Literals, Some(s)) => format!(
                "{}, {}{}",
                crate::sys::count_of(s.patterns.len(), "literal"),
                lengths(s),
                if s.fold_ascii {
                    ", ASCII case folded"
                } else {
                    ""
                }
            ),
            (Shape::RequiredLiterals, Some(s)) => format!(
                "a regex needing one of {}, {}, confirmed on the CPU",
                crate::sys::count_of(s.patterns.len(), "literal"),
                lengths(s)
            ),
            _ => "regex without a usable literal".to_string(),
        }
    }
}

/// Whether the patterns are a rule set: several regexes (literal lists
/// have their own finders), searched line by line with lines ending in
/// `\n` (what the units' line arithmetic assumes; `-U`, `--crlf` and
/// `--null-data` take the one regex, as ripgrep does).
fn is_rule_set(cfg: &Config) -> bool {
    let regexes = || {
        cfg.patterns
            .iter()
            .filter(|p| p.chars().any(regex_syntax::is_meta_character))
            .count()
    };
    !cfg.fixed_strings
        && !cfg.input.multiline
        && cfg.out.line_term == LineTerm::Lf
        && cfg.patterns.len() >= RULES_MIN_PATTERNS
        && cfg.patterns.iter().all(|p| !p.contains('\n'))
        && regexes() > 0
}

/// One rule parsed as grep-regex parses it (with the set's case
/// decision), and its literal factors.
fn parse_rule(pattern: &str, case_insensitive: bool) -> Parsed {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .unicode(true)
        .octal(false)
        .multi_line(true)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
        .ok();
    let factors = hir
        .as_ref()
        .and_then(|h| rules::factors(required(h, RULE_LIMITS)));
    Parsed { hir, factors }
}

/// Literals one of which every match of `pattern` holds (ASCII
/// lower-cased, 3 bytes or more, a few), as the rule matcher finds them
/// (`matcher::rules::factors`); `None` when there are none worth a search.
/// The device's near groups search for them (`engine::dfa_table`).
pub fn pattern_factors(pattern: &str, case_insensitive: bool) -> Option<Vec<Vec<u8>>> {
    parse_rule(pattern, case_insensitive).factors
}

/// Whether the patterns are searched without regard to case, decided as
/// grep-regex decides it (smart case: some literal and no upper case).
pub fn is_case_insensitive(cfg: &Config) -> bool {
    match cfg.case {
        CaseMode::Insensitive => true,
        CaseMode::Sensitive => false,
        CaseMode::Smart => {
            let joined = joined_pattern(cfg);
            match ast::parse::Parser::new().parse(&joined) {
                Ok(a) => {
                    let Ok(scan) = ast::visit(&a, CaseScan::default());
                    scan.any_literal && !scan.any_upper
                }
                Err(_) => false,
            }
        }
    }
}

fn joined_pattern(cfg: &Config) -> String {
    cfg.patterns
        .iter()
        .map(|p| {
            if cfg.fixed_strings {
                format!("(?:{})", regex_syntax::escape(p))
            } else {
                format!("(?:{p})")
            }
        })
        .collect::<Vec<_>>()
        .join("|")
}

#[derive(Default)]
struct CaseScan {
    any_literal: bool,
    any_upper: bool,
}

/// Every literal of a pattern, in or out of a class, as
/// `regex_syntax::ast::visit` walks it.
impl ast::Visitor for CaseScan {
    type Output = CaseScan;
    type Err = std::convert::Infallible;

    fn finish(self) -> Result<CaseScan, Self::Err> {
        Ok(self)
    }

    fn visit_pre(&mut self, a: &Ast) -> Result<(), Self::Err> {
        if let Ast::Literal(l) = a {
            self.literal(l);
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, i: &ast::ClassSetItem) -> Result<(), Self::Err> {
        match i {
            ast::ClassSetItem::Literal(l) => self.literal(l),
            ast::ClassSetItem::Range(r) => {
                self.literal(&r.start);
                self.literal(&r.end);
            }
            _ => {}
        }
        Ok(())
    }
}

impl CaseScan {
    fn literal(&mut self, l: &ast::Literal) {
        self.any_literal = true;
        self.any_upper |= l.c.is_uppercase();
    }
}

/// The prefilter literal set and whether it is exact (the patterns are
/// literals), or `None` when no finite literal set covers every match.
fn extract(cfg: &Config, case_insensitive: bool) -> Option<(LiteralSet, bool)> {
    if cfg.patterns.iter().any(|p| p.contains('\n')) {
        return None;
    }
    let (lits, exact) = if cfg.fixed_strings {
        (
            cfg.patterns.iter().map(|p| p.as_bytes().to_vec()).collect(),
            true,
        )
    } else {
        per_pattern_literals(&cfg.patterns)?
    };
    if lits.is_empty() {
        return Some((LiteralSet::new(Vec::new(), case_insensitive), exact));
    }
    if lits.iter().any(|l| l.is_empty()) || lits.len() > MAX_PREFILTER_LITERALS {
        return None;
    }
    if !case_insensitive {
        return Some((LiteralSet::new(lits, false), exact));
    }
    let mut folded = Vec::with_capacity(lits.len());
    for l in &lits {
        folded.extend(case_variants(l)?);
        if folded.len() > MAX_FOLDED_LITERALS {
            return None;
        }
    }
    Some((LiteralSet::new(folded, true), exact))
}

/// The hashed finder of a big exact set, ranked by the patterns' order
/// where it can be (see [`rank_by_pattern`]).
fn hashed_finder(
    set: &LiteralSet,
    fixed_strings: bool,
    patterns: &[String],
    case_insensitive: bool,
) -> Option<HashedLiterals> {
    let mut h = HashedLiterals::new(set)?;
    rank_by_pattern(&mut h, fixed_strings, patterns, case_insensitive);
    Some(h)
}

/// Tells `hashed` the order the patterns were given in, so that it finds
/// the regex's leftmost-first matches itself, when every pattern is its own
/// literal (`-F`, or no metacharacters; each ASCII pattern's case variants
/// share its rank under `-i`). Patterns that are regexes keep the order of
/// their alternatives inside the regex, which the finder does not model.
fn rank_by_pattern(
    hashed: &mut HashedLiterals,
    fixed_strings: bool,
    patterns: &[String],
    case_insensitive: bool,
) {
    let own_literals = fixed_strings
        || patterns
            .iter()
            .all(|p| !p.chars().any(regex_syntax::is_meta_character));
    if !own_literals {
        return;
    }
    let mut listed: Vec<(u32, Vec<u8>)> = Vec::with_capacity(patterns.len());
    for (r, p) in patterns.iter().enumerate() {
        let Ok(r) = u32::try_from(r) else { return };
        if !case_insensitive {
            listed.push((r, p.as_bytes().to_vec()));
            continue;
        }
        let Some(variants) = case_variants(p.as_bytes()) else {
            return;
        };
        listed.extend(variants.into_iter().map(|v| (r, v.to_ascii_lowercase())));
    }
    hashed.rank(listed.iter().map(|(r, p)| (*r, p.as_slice())));
}

/// The union of every pattern's literals (each pattern extracted on its own,
/// so the cost grows linearly with the pattern count), and whether all of
/// them are exact. A pattern without metacharacters is its own literal.
fn per_pattern_literals(patterns: &[String]) -> Option<(Vec<Vec<u8>>, bool)> {
    let mut lits = Vec::new();
    let mut exact = true;
    for p in patterns {
        if !p.chars().any(regex_syntax::is_meta_character) {
            lits.push(p.as_bytes().to_vec());
            continue;
        }
        let (l, e) = prefix_literals(p, false)?;
        exact &= e;
        lits.extend(l);
        if lits.len() > MAX_PREFILTER_LITERALS {
            return None;
        }
    }
    Some((lits, exact))
}

/// Literals every match must contain, and whether they are the whole
/// pattern set (exact). Prefixes come first; failing those, suffixes and
/// inner literals (regex-syntax's extractor applied to the pieces every
/// match must go through), whichever has the longest shortest literal.
fn prefix_literals(pattern: &str, case_insensitive: bool) -> Option<(Vec<Vec<u8>>, bool)> {
    let hir: Hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .unicode(true)
        .multi_line(true)
        .case_insensitive(case_insensitive)
        .build()
        .parse(pattern)
        .ok()?;
    // The extractor treats look-around (`^`, `$`, `\b`) as empty, so only
    // a pattern without any is exactly its literals.
    let no_look = hir.properties().look_set().is_empty();
    if let Some((seq, true)) = extract_seq(&hir, ExtractKind::Prefix, PLAN_LIMITS) {
        return Some((seq, no_look));
    }
    Some((required(&hir, PLAN_LIMITS)?, false))
}

/// The extractor limits: the plan's (whole sets) or a rule's (see
/// `matcher::rules`: small sets of factors, no class expansion beyond
/// case variants).
#[derive(Clone, Copy)]
struct Limits {
    class: usize,
    repeat: usize,
    total: usize,
}

/// A class of more than four characters (a letter's case variants are at
/// most three) is not spelled out: its products made a literal set of a
/// common regex (`id_[0-9]{5}`: 100,000 literals, `0x[0-9a-f]{4}`: 65,536)
/// that took 30-40 ms to extract and hash before a one-line file was
/// searched, and the hashed finder then searched 100 MB of C in 155 ms
/// where the regex, led by its literal prefix (`id_`), takes 25 ms.
const PLAN_LIMITS: Limits = Limits {
    class: 4,
    repeat: 16,
    total: MAX_PREFILTER_LITERALS,
};
const RULE_LIMITS: Limits = Limits {
    class: 3,
    repeat: 4,
    total: 256,
};

fn extractor(kind: ExtractKind, limits: Limits) -> Extractor {
    let mut ex = Extractor::new();
    ex.kind(kind)
        .limit_class(limits.class)
        .limit_repeat(limits.repeat)
        .limit_literal_len(64)
        .limit_total(limits.total);
    ex
}

/// The finite literal sequence of `kind` for `hir`, if every literal is
/// non-empty, and whether it is exact.
fn extract_seq(hir: &Hir, kind: ExtractKind, limits: Limits) -> Option<(Vec<Vec<u8>>, bool)> {
    let seq = extractor(kind, limits).extract(hir);
    let lits = seq.literals()?;
    if lits.is_empty() || lits.iter().any(|l| l.as_bytes().is_empty()) {
        return None;
    }
    let exact = seq.is_exact();
    Some((lits.iter().map(|l| l.as_bytes().to_vec()).collect(), exact))
}

/// The best set of literals every match of `hir` must contain.
fn required(hir: &Hir, limits: Limits) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::HirKind;
    let mut options: Vec<Vec<Vec<u8>>> = Vec::new();
    for kind in [ExtractKind::Prefix, ExtractKind::Suffix] {
        if let Some((l, _)) = extract_seq(hir, kind, limits) {
            options.push(l);
        }
    }
    let sub = |h: &Hir| required(h, limits);
    match hir.kind() {
        HirKind::Concat(parts) => {
            options.extend(parts.iter().filter_map(sub));
            options.extend(inner_prefixes(parts, limits));
        }
        HirKind::Capture(c) => options.extend(sub(&c.sub)),
        HirKind::Repetition(r) if r.min >= 1 => options.extend(sub(&r.sub)),
        HirKind::Alternation(branches) => {
            let mut union = Vec::new();
            for b in branches {
                union.extend(sub(b)?);
            }
            options.push(union);
        }
        _ => {}
    }
    options.into_iter().max_by_key(|l| score(l))
}

/// The prefixes of the concatenation's tails that start a run of
/// literal pieces (`\w+rule250\s` gives `rule250`, where each piece alone
/// gives one letter; a tail starting inside a run gives less).
fn inner_prefixes(parts: &[Hir], limits: Limits) -> Vec<Vec<Vec<u8>>> {
    let small = |h: &Hir| is_small(h, limits.class);
    (1..parts.len())
        .filter(|&k| small(&parts[k]) && !small(&parts[k - 1]))
        .filter_map(|k| {
            extract_seq(
                &Hir::concat(parts[k..].to_vec()),
                ExtractKind::Prefix,
                limits,
            )
        })
        .map(|(l, _)| l)
        .collect()
}

/// A literal, or a class of at most `class` characters (a letter's
/// case variants).
fn is_small(hir: &Hir, class: usize) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Literal(_) => true,
        HirKind::Class(Class::Unicode(c)) => c.iter().map(|r| r.len()).sum::<usize>() <= class,
        HirKind::Class(Class::Bytes(c)) => c.iter().map(|r| r.len()).sum::<usize>() <= class,
        _ => false,
    }
}

/// Longer shortest literals filter better; fewer literals cost less.
fn score(lits: &[Vec<u8>]) -> (usize, std::cmp::Reverse<usize>) {
    let min = lits.iter().map(Vec::len).min().unwrap_or(0);
    (min.min(8), std::cmp::Reverse(lits.len()))
}

/// The byte strings that, compared with ASCII case folding, find every
/// Unicode case variant of `lit`: ASCII literals need extra variants only
/// for the letters whose case class leaves ASCII (K: KELVIN SIGN, S: LONG S);
/// other literals are expanded by regex-syntax.
fn case_variants(lit: &[u8]) -> Option<Vec<Vec<u8>>> {
    if lit.is_ascii() {
        let mut out: Vec<Vec<u8>> = vec![Vec::new()];
        for &b in lit {
            let extra: &[u8] = match b.to_ascii_lowercase() {
                b'k' => "\u{212A}".as_bytes(),
                b's' => "\u{17F}".as_bytes(),
                _ => &[],
            };
            let mut next = Vec::with_capacity(out.len() * 2);
            for v in &out {
                let mut a = v.clone();
                a.push(b.to_ascii_lowercase());
                next.push(a);
                if !extra.is_empty() {
                    let mut c = v.clone();
                    c.extend_from_slice(extra);
                    next.push(c);
                }
            }
            if next.len() > MAX_CASE_VARIANTS {
                return None;
            }
            out = next;
        }
        return Some(out);
    }
    let text = std::str::from_utf8(lit).ok()?;
    let (lits, _) = prefix_literals(&regex_syntax::escape(text), true)?;
    if lits.len() > MAX_CASE_VARIANTS || lits.iter().any(|l| l.is_empty()) {
        return None;
    }
    Some(lits)
}

/// The single alternation of `cfg`'s patterns, as the plan compiles it
/// when they are not a rule set (the reference of `rules_props`).
#[cfg(test)]
pub(super) fn joined_regex(cfg: &Config) -> anyhow::Result<RegexMatcher> {
    MatcherSpec::of(cfg).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big case-sensitive word list leaves its regex compiling past
    /// `finish`; the regex is there when asked for, and answers as the
    /// finder does.
    #[test]
    fn deferred_regex_is_waited_for_where_used() {
        use grep_matcher::Matcher;
        let dir = tempfile::tempdir().unwrap();
        let list = &crate::matcher::testing::word_list(dir.path(), "w", 300);
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["gsearch", "-F", "-f", list, "f"]);
        let cfg = Config::from_cli(cli).unwrap();
        let plan = Plan::start(&cfg).finish().unwrap();
        assert!(!plan.matcher.is_compiled(), "not waited for");
        let hay = b"a w17x b w299x w3";
        let fast = plan.line_matcher().find(hay).unwrap();
        assert_eq!(fast, plan.matcher.get().find(hay).unwrap());
        assert_eq!(fast.map(|m| (m.start(), m.end())), Some((2, 6)));
        // -i keeps waiting in finish (case folding can outgrow the limits).
        let cli =
            <crate::cli::Cli as clap::Parser>::parse_from(["gsearch", "-i", "-F", "-f", list, "f"]);
        let plan = Plan::new(&Config::from_cli(cli).unwrap()).unwrap();
        assert!(plan.matcher.is_compiled(), "waited for");
    }

    /// Warming compiles every unit a rule set left for its first use,
    /// nothing once told to stop, and leaves the answers as they were.
    #[test]
    fn warming_compiles_the_units_left_for_first_use() {
        use grep_matcher::Matcher;
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join("rules.txt");
        // (Eight rules: fewer are one unit, `rules::FEW_RULES`.)
        let text = "alpha[0-9]+\nbeta_x+\ngamma(ray|ma)\nd[e]lta\nepsil[o]n\nzeta_y+\nthet(a|o)\niota\\d\n";
        std::fs::write(&rules, text).unwrap();
        let path = rules.to_str().unwrap();
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["gsearch", "-f", path, "f"]);
        let plan = Plan::new(&Config::from_cli(cli).unwrap()).unwrap();
        let set = plan.rules.as_ref().expect("a rule set");
        let waiting = set.units_waiting();
        assert!(waiting >= 8, "{waiting} units wait");
        set.warm(2, &AtomicBool::new(true));
        assert_eq!(set.units_waiting(), waiting);
        assert_eq!(plan.warming(|| 7), 7);
        set.warm(2, &AtomicBool::new(false));
        assert_eq!(set.units_waiting(), 0);
        let found = plan.line_matcher().find(b"x gammaray alpha7").unwrap();
        assert_eq!(found.map(|m| (m.start(), m.end())), Some((2, 10)));
    }

    /// Smart case sees every literal, in classes, ranges and nested
    /// classes too, and a pattern with none stays case sensitive.
    #[test]
    fn smart_case_reads_literals_everywhere() {
        let smart = |pat: &str| {
            let cli = <crate::cli::Cli as clap::Parser>::parse_from(["gsearch", "-S", pat, "f"]);
            is_case_insensitive(&Config::from_cli(cli).unwrap())
        };
        for (pat, insensitive) in [
            ("foo", true),
            ("Foo", false),
            ("x[A-Z]", false),
            ("x[a-z]+", true),
            ("(?:a|b(c))*", true),
            ("a|B", false),
            ("[a&&[Q]]", false),
            ("[^[b]c]", true),
            (r"\pL", false),
            (r"\w+[[:upper:]]", false),
        ] {
            assert_eq!(smart(pat), insensitive, "{pat}");
        }
    }

    #[test]
    fn ascii_variants_cover_kelvin_and_long_s() {
        let v = case_variants(b"Ks").unwrap();
        assert!(v.contains(&b"ks".to_vec()));
        assert!(v.contains(&"\u{212A}\u{17F}".as_bytes().to_vec()));
        assert_eq!(v.len(), 4);
        // Identifiers with many k and s (`sessions_tasks_keys`) still make
        // a literal set under -i; only absurd ones give up.
        assert_eq!(case_variants(b"sessions_tasks").unwrap().len(), 128);
        assert!(case_variants(&[b'k'; 11]).is_none());
    }

    #[test]
    fn non_ascii_variants() {
        let v = case_variants("ß".as_bytes()).unwrap();
        assert!(v.contains(&"ẞ".as_bytes().to_vec()));
    }

    #[test]
    fn look_around_is_never_exact() {
        for p in ["^foo", "foo$", "\\bfoo", "(?m:^)a|b"] {
            let (_, exact) = prefix_literals(p, false).unwrap();
            assert!(!exact, "{p}");
        }
        assert!(prefix_literals("foo|bar", false).unwrap().1);
        assert!(prefix_literals("(?i)ab", false).unwrap().1);
    }

    #[test]
    fn prefixes_of_a_regex() {
        let (l, exact) = prefix_literals("foo(bar|baz)\\w+", false).unwrap();
        assert!(!exact);
        assert!(l.contains(&b"foobar".to_vec()));
        let (l, exact) = prefix_literals("\\w+foo", false).unwrap();
        assert!(!exact);
        assert_eq!(l, vec![b"foo".to_vec()]);
        let (l, _) = prefix_literals("[A-Z][a-z]+Error", false).unwrap();
        assert_eq!(l, vec![b"Error".to_vec()]);
        let (l, _) = prefix_literals("\\w+\\.cuda\\(", false).unwrap();
        assert_eq!(l, vec![b".cuda(".to_vec()]);
        assert!(prefix_literals("\\w{5}\\s+\\w{5}", false).is_none());
    }

    #[test]
    fn classes_of_more_than_four_characters_stay_in_the_regex() {
        let (l, exact) = prefix_literals("id_[0-9]{5}", false).unwrap();
        assert!(!exact);
        assert_eq!(l, vec![b"id_".to_vec()]);
        let (l, exact) = prefix_literals("gr[ae]y", false).unwrap();
        assert!(exact);
        assert_eq!(l, vec![b"gray".to_vec(), b"grey".to_vec()]);
    }
}
