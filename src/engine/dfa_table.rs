//! Dense DFA tables for the device's line filter (`kernels/dfa.cl`).
//!
//! Each pattern is parsed as the exact matcher parses it (grep-regex's
//! settings: Unicode, multi-line, case as decided by the plan) and then
//! *over-approximated* so that its DFA stays small:
//! - a Unicode class becomes its ASCII part (without `\n`) or any run of
//!   non-ASCII bytes (`[\x80-\xFF]+`) when it holds a non-ASCII character;
//! - look-around assertions (`^`, `$`, `\b`, `\B`, ...) become empty;
//! - `\n` is removed from byte classes (a match never spans a line) and a
//!   literal holding `\n` can never match.
//!
//! Every line the exact regex matches is therefore accepted by the
//! approximation (a superset); the CPU confirms every candidate line.
//! `-w` / `-x` are dropped the same way (they only remove matches).
//!
//! Patterns are grouped so that each group's table (states x byte classes,
//! `u16` entries) fits the device's local memory; a pattern whose table is
//! too big for local memory alone gets a group of its own in global memory
//! (`u32` entries); a pattern bigger than [`DfaLimits::max_table_bytes`]
//! makes the whole set unsupported (the CPU engine runs it, no match lost).
//!
//! Table layout of one group (see `kernels/dfa.cl`): `classes[256]` maps a
//! byte to its class; `table[s + c]` (`s` a premultiplied state index:
//! state number x class count) is the next state's premultiplied index,
//! with the top bit (bit 15 of a `u16`, bit 31 of a `u32`) set when that
//! state is a match state (a match ended just before the byte consumed).
//! The search resets to `start` after every `\n`.

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

/// How the patterns are parsed (as the exact matcher parses them).
#[derive(Clone, Debug)]
pub struct DfaSpec {
    pub patterns: Vec<String>,
    pub fixed_strings: bool,
    pub case_insensitive: bool,
}

/// Size limits of the grouping.
#[derive(Clone, Copy, Debug)]
pub struct DfaLimits {
    /// Bytes a group's table may take in local memory (at most 64 KiB:
    /// `u16` entries).
    pub local_bytes: usize,
    /// Bytes a single pattern's table may take at all (global memory).
    pub max_table_bytes: usize,
}

impl DfaLimits {
    /// Limits for a device with `local_mem` bytes of local memory.
    pub fn for_local_mem(local_mem: u64) -> DfaLimits {
        let local = usize::try_from(local_mem).unwrap_or(usize::MAX);
        DfaLimits {
            // Leave room for the class map and the kernel's own locals.
            local_bytes: local.saturating_sub(1024).min(64 << 10),
            max_table_bytes: 16 << 20,
        }
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

/// The groups of a pattern set.
#[derive(Clone, Debug)]
pub struct DfaSet {
    pub groups: Vec<DfaGroup>,
}

impl DfaSet {
    /// Builds the approximated DFAs of `spec` in groups that respect
    /// `limits`; an error when a pattern does not parse or its table is too
    /// big (the caller searches on the CPU).
    pub fn build(spec: &DfaSpec, limits: DfaLimits) -> Result<DfaSet, String> {
        let hirs = spec
            .patterns
            .iter()
            .enumerate()
            .map(|(i, p)| relaxed_pattern(i, p, spec, limits))
            .collect::<Result<Vec<Hir>, String>>()?;
        let mut groups = Vec::new();
        let idx: Vec<usize> = (0..hirs.len()).collect();
        // Start from blocks of at most 64 patterns; each is split in halves
        // until its table fits.
        for block in idx.chunks(64) {
            fit(&hirs, block, limits, &mut groups)?;
        }
        Ok(DfaSet { groups })
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
        format!(
            "{} ({} in local memory), {}, {} (largest {max})",
            crate::sys::count_of(self.groups.len(), "DFA group"),
            self.local_groups(),
            crate::sys::count_of(states, "state"),
            crate::sys::count_of(bytes, "table byte"),
        )
    }

    /// The kernel's answer computed on the host: the sorted start offsets
    /// of the candidate lines of `hay` (lines some group accepts, plus
    /// offset 0 and an unterminated last line, which may continue in
    /// another chunk). The device engine's CPU fallback and its reference.
    pub fn candidate_lines(&self, hay: &[u8]) -> Vec<u64> {
        let mut out = Vec::new();
        let mut start = 0usize;
        while start < hay.len() {
            let end = memchr::memchr(b'\n', &hay[start..]).map(|i| start + i);
            let line = &hay[start..end.unwrap_or(hay.len())];
            if start == 0 || end.is_none() || self.groups.iter().any(|g| g.accepts(line)) {
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
        limits.local_bytes * 8
    };
    if let Some(mut g) = build_group(&sub, cap) {
        g.patterns = block.to_vec();
        if g.table.len() * 2 <= limits.local_bytes && g.table.len() <= 0x8000 {
            g.make_local();
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
                .match_kind(MatchKind::All)
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
    for relax in 0..=MAX_RELAX {
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
        HirKind::Class(Class::Unicode(c)) => {
            let ranges = c.ranges();
            let ascii: Vec<ClassBytesRange> = ranges
                .iter()
                .filter(|r| (r.start() as u32) < 0x80)
                .map(|r| ClassBytesRange::new(r.start() as u8, (r.end() as u32).min(0x7F) as u8))
                .collect();
            let mut ascii = ClassBytes::new(ascii);
            ascii.difference(&newline());
            let high = ranges.iter().any(|r| r.end() as u32 >= 0x80);
            let a = Hir::class(Class::Bytes(ascii));
            if !high {
                return a;
            }
            let run = Hir::repetition(hir::Repetition {
                min: 1,
                max: None,
                greedy: true,
                sub: Box::new(Hir::class(Class::Bytes(ClassBytes::new([
                    ClassBytesRange::new(0x80, 0xFF),
                ])))),
            });
            Hir::alternation(vec![a, run])
        }
        HirKind::Repetition(r) => {
            let min = match relax {
                0 | 1 => r.min,
                2 => r.min.min(8),
                _ => r.min.min(2),
            };
            Hir::repetition(hir::Repetition {
                min,
                max: if relax == 0 { r.max } else { None },
                greedy: r.greedy,
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
        let s = set(&["a*"], false);
        assert_eq!(lines(&s, "x\n\nb\n"), vec![0, 2, 3]);
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
        assert_eq!(lines(&s, "z\nk17deadbeef\nk17dead\n"), vec![0, 2]);
    }
}
