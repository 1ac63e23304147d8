//! Dense DFA tables for the device's line filter (`kernels/dfa.cl`).
//!
//! Each pattern is parsed as the exact matcher parses it (grep-regex's
//! settings: Unicode, multi-line, case as decided by the plan) and then
//! *over-approximated* so that its DFA stays small:
//! - a Unicode class with at most [`EXACT_UNICODE_RANGES`] non-ASCII ranges
//!   (`(?i)k`, `(?i)s`) stays exact (its UTF-8 sequences); a bigger one
//!   becomes its ASCII part (without `\n`) or any UTF-8 sequence (a lead
//!   byte `[\xC0-\xFF]` and continuation bytes `[\x80-\xBF]*`) when it
//!   holds a non-ASCII character;
//! - look-around assertions (`^`, `$`, `\b`, `\B`, ...) become empty;
//! - `\n` is removed from byte classes (a match never spans a line) and a
//!   literal holding `\n` can never match.
//!
//! Every line the exact regex matches is therefore accepted by the
//! approximation (a superset); the CPU confirms every candidate line.
//! `-w` / `-x` are dropped the same way (they only remove matches).
//!
//! Counted repetitions are relaxed too when a pattern's DFA would be big:
//! at once for a pattern that starts with a literal of 3 bytes or more
//! (the literal keeps false candidates rare; `KEY[A-Z0-9]{32}` becomes
//! `KEY[A-Z0-9]{2,}`), step by step for the others (see [`approximate`]).
//! The DFAs are built leftmost-first with lazy repetitions: the kernel stops
//! a line at its first match state, and leftmost-first drops the states a
//! search only needs after a match (every line with a match still reaches
//! a match state), which keeps groups small.
//!
//! Patterns are grouped so that each group's table (states x byte classes)
//! fits [`DfaLimits::group_bytes`]: in local memory (`u16` entries) when it
//! fits there, else in global memory (`u32` entries); a pattern whose table
//! is too big for a group alone gets a group of its own in global memory;
//! a pattern bigger than [`DfaLimits::max_table_bytes`] makes the whole set
//! unsupported (the CPU engine runs it, no match lost). The patterns are
//! relaxed, and the groups built, on every core ([`DfaSet::build`]); the
//! device engine caches the result on disk (`opencl::dfa`, serialised by
//! `engine::dfa_bytes`).
//!
//! Table layout of one group (see `kernels/dfa.cl`): `classes[256]` maps a
//! byte to its class; `table[s + c]` (`s` a premultiplied state index:
//! state number x class count) is the next state's premultiplied index,
//! with the top bit (bit 15 of a `u16`, bit 31 of a `u32`) set when that
//! state is a match state (a match ended just before the byte consumed).
//! The search resets to `start` after every `\n`.

use std::time::{Duration, Instant};

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::{self, Class, ClassBytes, ClassBytesRange, Hir, HirKind};

/// Match flag of a `u16` entry.
pub const MATCH16: u32 = 0x8000;
/// Match flag of a `u32` entry.
pub const MATCH32: u32 = 0x8000_0000;

/// How the patterns are parsed (as the exact matcher parses them), and
/// their literal factors.
#[derive(Clone, Debug)]
pub struct DfaSpec {
    pub patterns: Vec<String>,
    pub fixed_strings: bool,
    pub case_insensitive: bool,
    /// Per pattern, literals one of which every match holds, ASCII
    /// lower-cased (`matcher::plan::pattern_factors`); empty, or `None` for
    /// a pattern, where there are none. Such patterns may become "near"
    /// groups (see [`DfaGroup::near`]).
    pub factors: Vec<Option<Vec<Vec<u8>>>>,
}

/// Version of the tables this module builds: part of the on-disk cache's
/// key, raised whenever the approximation, the grouping or the layout
/// changes what a build gives.
pub const BUILDER_VERSION: u32 = 4;

/// Whether patterns with literal factors go to near groups
/// (`GSEARCH_DFA_NEAR`: `0` never, `1` whenever some pattern has factors;
/// unset: when they need [`NEAR_MIN_GROUPS`] groups or more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NearMode {
    Never,
    Always,
    Auto,
}

impl NearMode {
    pub fn from_env() -> NearMode {
        match std::env::var("GSEARCH_DFA_NEAR").as_deref().map(str::trim) {
            Ok("0") => NearMode::Never,
            Ok("1") => NearMode::Always,
            _ => NearMode::Auto,
        }
    }
}

/// Near groups pay once they replace this many passes over the text: the
/// factor search is one pass (`many_literals_fold`), and the near groups
/// then step only the lines holding a factor.
pub const NEAR_MIN_GROUPS: usize = 2;

/// Size limits of the grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DfaLimits {
    /// Bytes a group's table may take in local memory (at most 64 KiB:
    /// `u16` entries).
    pub local_bytes: usize,
    /// Bytes a group of several patterns may take: `local_bytes` keeps
    /// every group in local memory; more lets bigger groups (fewer launches
    /// over the text) live in global memory (`GSEARCH_DFA_GROUP_BYTES`).
    pub group_bytes: usize,
    /// Bytes a single pattern's table may take at all (global memory).
    pub max_table_bytes: usize,
}

/// How a [`DfaSet`] came to be (`--stats`, the benchmark).
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildInfo {
    /// Parsing and relaxing every pattern (its own DFA built to size it).
    pub relax: Duration,
    /// Building the groups' DFAs.
    pub group: Duration,
    /// Threads the two stages ran on.
    pub threads: usize,
    /// The tables were read from the on-disk cache (then `relax` is 0 and
    /// `group` the load).
    pub from_cache: bool,
}

impl BuildInfo {
    pub fn total(&self) -> Duration {
        self.relax + self.group
    }

    /// One line for `--stats`.
    pub fn describe(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        if self.from_cache {
            return format!("DFA tables read from the cache in {:.1} ms", ms(self.group));
        }
        format!(
            "DFA tables built in {:.1} ms on {} (patterns relaxed in {:.1} ms, groups \
             built in {:.1} ms)",
            ms(self.total()),
            crate::sys::count_of(self.threads, "thread"),
            ms(self.relax),
            ms(self.group)
        )
    }
}

/// Threads for building tables: `GSEARCH_DFA_THREADS`, else every core.
pub fn build_threads() -> usize {
    crate::sys::env_count("GSEARCH_DFA_THREADS").unwrap_or_else(crate::sys::cores)
}

impl DfaLimits {
    /// Limits for a device with `local_mem` bytes of local memory.
    pub fn for_local_mem(local_mem: u64) -> DfaLimits {
        let local = usize::try_from(local_mem).unwrap_or(usize::MAX);
        // Leave room for the class map and the kernel's own locals.
        let local_bytes = local.saturating_sub(1024).min(64 << 10);
        DfaLimits {
            local_bytes,
            group_bytes: local_bytes,
            max_table_bytes: 16 << 20,
        }
    }

    /// Bytes the table of a group of several patterns may take.
    fn group_cap(&self) -> usize {
        self.group_bytes.max(self.local_bytes)
    }
}

/// One group's DFA: patterns searched together by one launch dimension.
#[derive(Clone, Debug)]
pub struct DfaGroup {
    /// Indexes (into the spec's patterns) of the patterns of this group.
    pub patterns: Vec<usize>,
    pub classes: [u8; 256],
    pub nclasses: u32,
    pub states: u32,
    /// Premultiplied start state.
    pub start: u32,
    /// `states x nclasses` entries (premultiplied next state | match flag).
    pub table: Vec<u32>,
    /// The table goes to local memory as `u16` entries (flag [`MATCH16`]);
    /// otherwise it stays in global memory as `u32` (flag [`MATCH32`]).
    pub local: bool,
    /// A near group: its patterns all have literal factors, and it is run
    /// only on the lines where one of the set's factors occurs
    /// ([`DfaSet::factors`]), not over the whole text.
    pub near: bool,
}

impl DfaGroup {
    /// Bytes of the table on the device.
    pub fn table_bytes(&self) -> usize {
        self.table.len() * if self.local { 2 } else { 4 }
    }

    fn flag(&self) -> u32 {
        if self.local { MATCH16 } else { MATCH32 }
    }

    /// Whether the line `line` (no `\n` inside) reaches a match state, as
    /// the kernel decides it (the line end counts as a `\n`).
    pub fn accepts(&self, line: &[u8]) -> bool {
        let flag = self.flag();
        let mut s = self.start;
        for &b in line.iter().chain(std::iter::once(&b'\n')) {
            let e = self.table[(s + u32::from(self.classes[b as usize])) as usize];
            if e & flag != 0 {
                return true;
            }
            s = e;
        }
        false
    }
}

/// The groups of a pattern set: first the groups run over the whole text,
/// then the near groups (run on the lines holding one of `factors`).
#[derive(Clone, Debug)]
pub struct DfaSet {
    pub groups: Vec<DfaGroup>,
    /// The near groups' factors (ASCII lower-cased, sorted, distinct);
    /// empty when there is no near group.
    pub factors: Vec<Vec<u8>>,
    /// Finds `factors`, ASCII case folded (the host's reference).
    finder: Option<aho_corasick::AhoCorasick>,
    /// How the groups were made (not part of the tables).
    pub info: BuildInfo,
}

impl DfaSet {
    /// Builds the approximated DFAs of `spec` in groups that respect
    /// `limits`; an error when a pattern does not parse or its table is too
    /// big (the caller searches on the CPU).
    /// Patterns are relaxed, and blocks of patterns grouped, on
    /// [`build_threads`] threads.
    pub fn build(spec: &DfaSpec, limits: DfaLimits) -> Result<DfaSet, String> {
        Self::build_on(spec, limits, build_threads())
    }

    /// [`DfaSet::build`] on `threads` threads (the benchmark's scaling).
    pub fn build_on(spec: &DfaSpec, limits: DfaLimits, threads: usize) -> Result<DfaSet, String> {
        Self::build_mode(spec, limits, threads, NearMode::from_env())
    }

    /// [`DfaSet::build_on`] with near groups as `mode` says.
    pub fn build_mode(
        spec: &DfaSpec,
        limits: DfaLimits,
        threads: usize,
        mode: NearMode,
    ) -> Result<DfaSet, String> {
        let t0 = Instant::now();
        let idx: Vec<usize> = (0..spec.patterns.len()).collect();
        let hirs = crate::sys::par_map(&idx, threads, |&i| {
            relaxed_pattern(i, &spec.patterns[i], spec, limits)
        })
        .into_iter()
        .collect::<Result<Vec<Hir>, String>>()?;
        // A pattern whose over-approximation matches the empty string
        // makes every line a candidate: the device would decide nothing.
        if hirs.iter().any(|h| h.properties().minimum_len() == Some(0)) {
            return Err("a pattern matches the empty string (every line a candidate)".into());
        }
        let relax = t0.elapsed();
        let (near_pats, always_pats): (Vec<usize>, Vec<usize>) = if mode == NearMode::Never {
            (Vec::new(), idx)
        } else {
            idx.iter().partition(|&&i| factors_of(spec, i).is_some())
        };
        let mut groups = group_patterns(&hirs, &always_pats, limits, threads)?;
        let mut near = group_patterns(&hirs, &near_pats, limits, threads)?;
        let use_near = match mode {
            NearMode::Never => false,
            NearMode::Always => !near.is_empty(),
            NearMode::Auto => near.len() >= NEAR_MIN_GROUPS,
        };
        let mut factors = Vec::new();
        if use_near {
            near.iter_mut().for_each(|g| g.near = true);
            factors = near_pats
                .iter()
                .filter_map(|&i| factors_of(spec, i))
                .flatten()
                .cloned()
                .collect();
            factors.sort_unstable();
            factors.dedup();
        }
        groups.extend(near);
        let info = BuildInfo {
            relax,
            group: t0.elapsed() - relax,
            threads: threads.max(1),
            from_cache: false,
        };
        Ok(DfaSet::new(groups, factors, info))
    }

    /// A set of `groups` (the near ones last) and the near groups' factors.
    pub fn new(groups: Vec<DfaGroup>, factors: Vec<Vec<u8>>, info: BuildInfo) -> DfaSet {
        let finder = (!factors.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .ascii_case_insensitive(true)
                    .build(&factors)
                    .ok()
            })
            .flatten();
        DfaSet {
            groups,
            factors,
            finder,
            info,
        }
    }

    /// The groups run over the whole text (they come first).
    pub fn full_groups(&self) -> usize {
        self.groups.iter().filter(|g| !g.near).count()
    }

    /// The near groups (after the full ones).
    pub fn near_groups(&self) -> usize {
        self.groups.len() - self.full_groups()
    }

    /// Passes over the whole text a batch costs: one per full group, and
    /// the factor search when there are near groups (which step only the
    /// lines holding a factor).
    pub fn passes(&self) -> usize {
        self.full_groups() + usize::from(self.near_groups() > 0)
    }

    pub fn local_groups(&self) -> usize {
        self.groups.iter().filter(|g| g.local).count()
    }

    /// One line for `--stats`: groups, states and table bytes.
    pub fn describe(&self) -> String {
        let states: u64 = self.groups.iter().map(|g| u64::from(g.states)).sum();
        let bytes: usize = self.groups.iter().map(DfaGroup::table_bytes).sum();
        let max = self
            .groups
            .iter()
            .map(DfaGroup::table_bytes)
            .max()
            .unwrap_or(0);
        let near = match self.near_groups() {
            0 => String::new(),
            g => format!(
                ", {g} of them near groups run only on lines holding one of {}",
                crate::sys::count_of(self.factors.len(), "literal factor")
            ),
        };
        format!(
            "{} ({} in local memory{near}), {}, {} (largest {max})",
            crate::sys::count_of(self.groups.len(), "DFA group"),
            self.local_groups(),
            crate::sys::count_of(states, "state"),
            crate::sys::count_of(bytes, "table byte"),
        )
    }

    /// The kernel's answer computed on the host: the sorted start offsets
    /// of the candidate lines of `hay` (lines some full group accepts, or
    /// some near group accepts and one of the factors occurs in, plus
    /// offset 0 and an unterminated last line, which may continue in
    /// another chunk). The device engine's CPU fallback and its reference
    /// (for lines shorter than the kernel's span, `opencl::dfa`).
    pub fn candidate_lines(&self, hay: &[u8]) -> Vec<u64> {
        let mut out = Vec::new();
        let mut start = 0usize;
        while start < hay.len() {
            let end = memchr::memchr(b'\n', &hay[start..]).map(|i| start + i);
            let line = &hay[start..end.unwrap_or(hay.len())];
            if start == 0 || end.is_none() || self.accepts(line) {
                out.push(start as u64);
            }
            match end {
                Some(e) => start = e + 1,
                None => break,
            }
        }
        out
    }
}

impl DfaSet {
    /// Whether `line` (no `\n` inside) is a candidate.
    fn accepts(&self, line: &[u8]) -> bool {
        let (full, near) = self.groups.split_at(self.full_groups());
        full.iter().any(|g| g.accepts(line))
            || (self.finder.as_ref().is_some_and(|f| f.is_match(line))
                && near.iter().any(|g| g.accepts(line)))
    }
}

/// Pattern `i`'s factors when it can be a near group's: some, none
/// holding a `\n` (a line never does).
fn factors_of(spec: &DfaSpec, i: usize) -> Option<&Vec<Vec<u8>>> {
    spec.factors
        .get(i)?
        .as_ref()
        .filter(|f| !f.is_empty() && f.iter().all(|l| !l.is_empty() && !l.contains(&b'\n')))
}

/// The groups of patterns `pats` (indexes into `hirs`): blocks of
/// patterns, each split in halves until its table fits; a block holds
/// about as many patterns as a group can (at least 8). Built on `threads`.
fn group_patterns(
    hirs: &[Hir],
    pats: &[usize],
    limits: DfaLimits,
    threads: usize,
) -> Result<Vec<DfaGroup>, String> {
    let block = (limits.group_cap() / 6144).clamp(8, 512);
    let blocks: Vec<&[usize]> = pats.chunks(block).collect();
    let parts = crate::sys::par_map(&blocks, threads, |b| {
        let mut groups = Vec::new();
        fit(hirs, b, limits, &mut groups).map(|()| groups)
    });
    let mut groups = Vec::new();
    for p in parts {
        groups.extend(p?);
    }
    Ok(groups)
}

/// Adds groups for `block` (indexes into `hirs`): one when the block's
/// table fits local memory, else the halves, down to single patterns
/// (which go to global memory when they must).
fn fit(
    hirs: &[Hir],
    block: &[usize],
    limits: DfaLimits,
    groups: &mut Vec<DfaGroup>,
) -> Result<(), String> {
    let sub: Vec<&Hir> = block.iter().map(|&i| &hirs[i]).collect();
    // regex-automata's own tables are bigger than ours (4-byte entries,
    // its alphabet plus the end-of-input class): give it room, then check.
    let cap = if block.len() == 1 {
        limits.max_table_bytes * 4
    } else {
        limits.group_cap() * 8
    };
    if let Some(mut g) = build_group(&sub, cap) {
        g.patterns = block.to_vec();
        if g.table.len() * 2 <= limits.local_bytes && g.table.len() <= 0x8000 {
            g.make_local();
            groups.push(g);
            return Ok(());
        }
        if block.len() > 1 && g.table.len() * 4 <= limits.group_cap() {
            groups.push(g);
            return Ok(());
        }
        if block.len() == 1 {
            if g.table.len() * 4 > limits.max_table_bytes {
                return Err(format!(
                    "pattern {}: its DFA needs {} bytes",
                    block[0] + 1,
                    g.table.len() * 4
                ));
            }
            groups.push(g);
            return Ok(());
        }
    } else if block.len() == 1 {
        return Err(format!("pattern {}: its DFA is too big", block[0] + 1));
    }
    let (a, b) = block.split_at(block.len() / 2);
    fit(hirs, a, limits, groups)?;
    fit(hirs, b, limits, groups)
}

/// The dense DFA of `hirs` (unanchored, every match kind) as our table,
/// or `None` when it exceeds `cap` bytes or cannot be built.
fn build_group(hirs: &[&Hir], cap: usize) -> Option<DfaGroup> {
    let nfa = thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .utf8(false)
                .which_captures(thompson::WhichCaptures::None)
                .nfa_size_limit(Some(cap.max(1 << 20) * 4)),
        )
        .build_many_from_hir(hirs)
        .ok()?;
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                .match_kind(MatchKind::LeftmostFirst)
                .accelerate(false)
                .minimize(false)
                .dfa_size_limit(Some(cap))
                .determinize_size_limit(Some(cap * 2)),
        )
        .build_from_nfa(&nfa)
        .ok()?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::No))
        .ok()?;
    // Number the states reachable from the start, breadth first.
    let mut ids: Vec<StateID> = vec![start];
    let mut index = std::collections::HashMap::new();
    index.insert(start, 0u32);
    let mut rows: Vec<[u32; 256]> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let s = ids[i];
        if dfa.is_quit_state(s) {
            return None;
        }
        let mut row = [0u32; 256];
        for b in 0..=255u8 {
            let t = dfa.next_state(s, b);
            let n = *index.entry(t).or_insert_with(|| {
                ids.push(t);
                (ids.len() - 1) as u32
            });
            row[b as usize] = n;
        }
        rows.push(row);
        i += 1;
        if ids.len() * 8 > cap.max(1024) {
            return None;
        }
    }
    // Byte classes: bytes whose columns are equal.
    let mut classes = [0u8; 256];
    let mut reps: Vec<u8> = Vec::new();
    for b in 0..256usize {
        let same = reps
            .iter()
            .position(|&r| rows.iter().all(|row| row[r as usize] == row[b]));
        classes[b] = match same {
            Some(c) => c as u8,
            None => {
                reps.push(b as u8);
                (reps.len() - 1) as u8
            }
        };
    }
    let nc = reps.len() as u32;
    let states = ids.len() as u32;
    let is_match: Vec<bool> = ids.iter().map(|&s| dfa.is_match_state(s)).collect();
    let entries = states as usize * nc as usize;
    if entries > (1 << 30) {
        return None;
    }
    // The `u32` flag; `make_local` moves it for a `u16` table.
    let mut table = Vec::with_capacity(entries);
    for row in &rows {
        for &r in &reps {
            let n = row[r as usize];
            let f = if is_match[n as usize] { MATCH32 } else { 0 };
            table.push((n * nc) | f);
        }
    }
    Some(DfaGroup {
        patterns: Vec::new(),
        classes,
        nclasses: nc,
        states,
        start: 0,
        table,
        local: false,
        near: false,
    })
}

impl DfaGroup {
    /// Makes the group a local-memory one: the match flag moves to bit 15
    /// (the table has at most 32 Ki entries).
    fn make_local(&mut self) {
        debug_assert!(self.table.len() <= 0x8000);
        for e in &mut self.table {
            if *e & MATCH32 != 0 {
                *e = (*e & !MATCH32) | MATCH16;
            }
        }
        self.local = true;
    }
}

/// The least relaxed approximation of pattern `i` (see [`approximate`]'s
/// `relax`) whose DFA takes at most 1/8 of the local memory budget (so
/// that groups hold several patterns), else the smallest one that fits
/// local memory, else the most relaxed one if it fits global memory.
fn relaxed_pattern(i: usize, p: &str, spec: &DfaSpec, limits: DfaLimits) -> Result<Hir, String> {
    let hir = parse_pattern(p, spec)?;
    let target = limits.local_bytes / 32;
    let mut best: Option<(usize, Hir)> = None;
    let first = if literal_prefix(&approximate(&hir, MAX_RELAX)) {
        MAX_RELAX
    } else {
        0
    };
    for relax in first..=MAX_RELAX {
        let h = approximate(&hir, relax);
        // A small cap: a DFA that blows up fails fast.
        let Some(g) = build_group(&[&h], limits.local_bytes * 8) else {
            continue;
        };
        let bytes = g.table.len() * 2;
        if bytes <= target {
            return Ok(h);
        }
        if bytes <= limits.local_bytes
            && g.table.len() <= 0x8000
            && best.as_ref().is_none_or(|(b, _)| bytes < *b)
        {
            best = Some((bytes, h));
        }
    }
    if let Some((_, h)) = best {
        return Ok(h);
    }
    let h = approximate(&hir, MAX_RELAX);
    match build_group(&[&h], limits.max_table_bytes * 4) {
        Some(g) if g.table.len() * 4 <= limits.max_table_bytes => Ok(h),
        _ => Err(format!("pattern {}: its DFA is too big", i + 1)),
    }
}

/// Whether every match of `h` starts with one of a few known literals of 3
/// bytes or more (then relaxing its counted repetitions costs few false
/// candidates).
fn literal_prefix(h: &Hir) -> bool {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(h);
    seq.is_finite() && seq.min_literal_len().is_some_and(|n| n >= 3)
}

/// The strongest relaxation of counted repetitions.
const MAX_RELAX: u8 = 3;

/// Parses `p` as the exact matcher does.
fn parse_pattern(p: &str, spec: &DfaSpec) -> Result<Hir, String> {
    let text = if spec.fixed_strings {
        regex_syntax::escape(p)
    } else {
        p.to_string()
    };
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .unicode(true)
        .multi_line(true)
        .octal(false)
        .case_insensitive(spec.case_insensitive)
        .build()
        .parse(&text)
        .map_err(|e| e.to_string())
}

/// The over-approximation of `h` (see the module docs). `relax` widens
/// counted repetitions further when a DFA is too big (each step still a
/// superset): 1: `X{n,m}` becomes `X{n,}`; 2: also `X{n,}` with n > 8
/// becomes `X{8,}`; 3: n > 2 becomes 2.
pub fn approximate(h: &Hir, relax: u8) -> Hir {
    match h.kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Look(_) => Hir::empty(),
        HirKind::Literal(hir::Literal(bytes)) => {
            if bytes.contains(&b'\n') {
                Hir::fail()
            } else {
                h.clone()
            }
        }
        HirKind::Class(Class::Bytes(c)) => {
            let mut c = c.clone();
            c.difference(&newline());
            Hir::class(Class::Bytes(c))
        }
        HirKind::Class(Class::Unicode(c)) => unicode_class(c),
        HirKind::Repetition(r) => {
            let min = match relax {
                0 | 1 => r.min,
                2 => r.min.min(8),
                _ => r.min.min(2),
            };
            Hir::repetition(hir::Repetition {
                min,
                max: if relax == 0 { r.max } else { None },
                // Lazy: with leftmost-first, a match state ends the search.
                greedy: false,
                sub: Box::new(approximate(&r.sub, relax)),
            })
        }
        HirKind::Capture(c) => approximate(&c.sub, relax),
        HirKind::Concat(v) => Hir::concat(v.iter().map(|h| approximate(h, relax)).collect()),
        HirKind::Alternation(v) => {
            Hir::alternation(v.iter().map(|h| approximate(h, relax)).collect())
        }
    }
}

/// Non-ASCII ranges (of at most 64 characters in all) a Unicode class may
/// have and still be compiled exactly (as UTF-8 sequences: `(?i)k` and
/// `(?i)s` fold to one non-ASCII letter each); a bigger class (`\w`, `\S`,
/// `.`) becomes any non-ASCII character.
pub const EXACT_UNICODE_RANGES: usize = 4;

/// A Unicode class without `\n`: exact when its non-ASCII part is small,
/// else its ASCII part or any UTF-8 sequence (a lead byte and its
/// continuation bytes). Lead and continuation bytes are disjoint, so the
/// class repeated (`\S{12,}`) counts characters without the DFA guessing
/// where a character ends.
fn unicode_class(c: &hir::ClassUnicode) -> Hir {
    let mut c = c.clone();
    c.difference(&hir::ClassUnicode::new([hir::ClassUnicodeRange::new(
        '\n', '\n',
    )]));
    let ranges = c.ranges();
    let high: Vec<(u32, u32)> = ranges
        .iter()
        .filter(|r| r.end() as u32 >= 0x80)
        .map(|r| ((r.start() as u32).max(0x80), r.end() as u32))
        .collect();
    let wide: u32 = high.iter().map(|(lo, hi)| hi - lo + 1).sum();
    if high.len() <= EXACT_UNICODE_RANGES && wide <= 64 {
        return Hir::class(Class::Unicode(c));
    }
    let ascii: Vec<ClassBytesRange> = ranges
        .iter()
        .filter(|r| (r.start() as u32) < 0x80)
        .map(|r| ClassBytesRange::new(r.start() as u8, (r.end() as u32).min(0x7F) as u8))
        .collect();
    let mut ascii = ClassBytes::new(ascii);
    ascii.difference(&newline());
    let bytes = |lo, hi| {
        Hir::class(Class::Bytes(ClassBytes::new([ClassBytesRange::new(
            lo, hi,
        )])))
    };
    let multi = Hir::concat(vec![
        bytes(0xC0, 0xFF),
        Hir::repetition(hir::Repetition {
            min: 0,
            max: None,
            greedy: false,
            sub: Box::new(bytes(0x80, 0xBF)),
        }),
    ]);
    Hir::alternation(vec![Hir::class(Class::Bytes(ascii)), multi])
}

fn newline() -> ClassBytes {
    ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(pats: &[&str], ci: bool) -> DfaSet {
        let spec = DfaSpec {
            patterns: pats.iter().map(|s| s.to_string()).collect(),
            fixed_strings: false,
            case_insensitive: ci,
            factors: Vec::new(),
        };
        DfaSet::build(&spec, DfaLimits::for_local_mem(48 << 10)).unwrap()
    }

    fn lines(s: &DfaSet, text: &str) -> Vec<u64> {
        s.candidate_lines(text.as_bytes())
    }

    #[test]
    fn accepts_what_the_regex_matches() {
        let s = set(&[r"\bfo+\b", r"(?i)bar\d{2}"], false);
        assert_eq!(lines(&s, "x\nfoo\nzz\nBAR12\nbar1\n"), vec![0, 2, 9]);
        // Look-around dropped: `\bfoo\b` also accepts "xfoox".
        assert_eq!(lines(&s, "a\nxfoox\n"), vec![0, 2]);
    }

    #[test]
    fn unicode_classes_over_approximate() {
        let s = set(&[r"^\w+é$", r"\p{Greek}{3}x"], false);
        assert_eq!(lines(&s, "a\nabcé\nzz\n"), vec![0, 2]);
        assert_eq!(lines(&s, "a\nαβγx\nzz\nab"), vec![0, 2, 13]);
    }

    #[test]
    fn empty_and_newline_patterns() {
        // Every line would be a candidate: the build refuses (the CPU
        // engine searches instead).
        let spec = DfaSpec {
            patterns: vec!["x".into(), "a*".into()],
            fixed_strings: false,
            case_insensitive: false,
            factors: Vec::new(),
        };
        assert!(DfaSet::build(&spec, DfaLimits::for_local_mem(48 << 10)).is_err());
        let s = set(&[r"a\nb", r"[^a]q"], false);
        assert_eq!(lines(&s, "x\na\nb\n\nq\nzq\n"), vec![0, 9]);
    }

    #[test]
    fn many_patterns_make_several_groups() {
        let pats: Vec<String> = (0..200)
            .map(|i| format!(r"\bk{i}[0-9a-f]{{8}}\b"))
            .collect();
        let refs: Vec<&str> = pats.iter().map(String::as_str).collect();
        let s = set(&refs, false);
        assert!(s.groups.len() > 1);
        assert!(s.groups.iter().all(|g| g.table_bytes() <= 48 << 10));
        // `k17` is a literal prefix of 3 bytes: the count is relaxed to 2+.
        assert_eq!(lines(&s, "z\nk17deadbeef\nk17d\nk17de\n"), vec![0, 2, 19]);
        // `k1` is not: its count stays.
        assert_eq!(lines(&s, "z\nk1deadbeef\nk1dead\n"), vec![0, 2]);
    }

    #[test]
    fn small_unicode_classes_stay_exact() {
        // `(?i)k` holds the Kelvin sign: exact, so another non-ASCII
        // letter is no candidate; `\S` is wide: any UTF-8 sequence counts.
        let s = set(&[r"(?i)xk", r"y\S{3}"], false);
        assert_eq!(lines(&s, "a\nx\u{212A}\nxé\nyééé\nyéé\n"), vec![0, 2, 11]);
    }

    #[test]
    fn near_groups_need_a_factor_in_the_line() {
        let spec = DfaSpec {
            patterns: vec![r"tok_\d{3}".into(), r"\bkey=\w+".into(), r"\d{4}x".into()],
            fixed_strings: false,
            case_insensitive: false,
            factors: vec![
                Some(vec![b"tok_".to_vec()]),
                Some(vec![b"key=".to_vec()]),
                None,
            ],
        };
        let lim = DfaLimits::for_local_mem(48 << 10);
        let s = DfaSet::build_mode(&spec, lim, 1, NearMode::Always).unwrap();
        assert_eq!((s.full_groups(), s.near_groups()), (1, 1));
        assert_eq!(s.factors, vec![b"key=".to_vec(), b"tok_".to_vec()]);
        assert_eq!(s.passes(), 2);
        // `TOK_123` holds the factor (ASCII case folded) but the DFA wants
        // `tok_`; `1234x` is the full group's.
        let hay = "z\ntok_123\nTOK_123\nKEY=v\nkey=v\n1234x\n";
        assert_eq!(lines(&s, hay), vec![0, 2, 24, 30]);
        let never = DfaSet::build_mode(&spec, lim, 1, NearMode::Never).unwrap();
        assert_eq!(
            (never.near_groups(), never.passes()),
            (0, never.groups.len())
        );
        assert_eq!(lines(&never, hay), vec![0, 2, 24, 30]);
    }

    #[test]
    fn threads_give_the_same_tables() {
        let pats: Vec<String> = (0..60).map(|i| format!(r"w{i}x[a-z]{{4}}")).collect();
        let spec = DfaSpec {
            patterns: pats,
            fixed_strings: false,
            case_insensitive: true,
            factors: Vec::new(),
        };
        let lim = DfaLimits::for_local_mem(16 << 10);
        let a = DfaSet::build_on(&spec, lim, 1).unwrap();
        let b = DfaSet::build_on(&spec, lim, 3).unwrap();
        assert_eq!(a.groups.len(), b.groups.len());
        for (x, y) in a.groups.iter().zip(&b.groups) {
            assert_eq!(
                (&x.patterns, &x.table, x.start),
                (&y.patterns, &y.table, y.start)
            );
        }
    }
}
