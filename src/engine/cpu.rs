//! The CPU batch engine for literal sets: `memchr::memmem` for one
//! case-sensitive literal, `aho-corasick` for everything else (the second
//! reference in device tests). As the fallback of a device engine
//! ([`CpuLiteralEngine::fallback`]) a big set uses the hashed finder
//! instead, which builds several times faster than an automaton of
//! thousands of patterns (a start-up cost every device run would pay) and
//! searches faster too.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;

use super::dfa_table::DfaSet;
use super::hashed::HashedLiterals;
use super::{Batch, BatchEngine, EngineError, LiteralSet, MatchSet};

enum Strategy {
    One(Box<memmem::Finder<'static>>),
    Many(AhoCorasick),
    Hashed(Box<HashedLiterals>),
    /// Not literals: the start offsets of the candidate lines of a DFA set
    /// (the DFA engine's fallback, the kernel's answer computed here).
    Lines(std::sync::Arc<DfaSet>),
    Empty,
}

/// Finds every occurrence start (overlapping ones included) of a literal set.
pub struct CpuLiteralEngine {
    strategy: Strategy,
}

impl CpuLiteralEngine {
    pub fn new(set: &LiteralSet) -> Result<CpuLiteralEngine, EngineError> {
        let strategy = match set.patterns.as_slice() {
            [] => Strategy::Empty,
            [one] if !set.fold_ascii => {
                Strategy::One(Box::new(memmem::Finder::new(one).into_owned()))
            }
            pats => Strategy::Many(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::Standard)
                    .ascii_case_insensitive(set.fold_ascii)
                    .build(pats)
                    .map_err(|e| EngineError::Unsupported(e.to_string()))?,
            ),
        };
        Ok(CpuLiteralEngine { strategy })
    }

    /// The engine a device engine falls back to: the hashed finder for
    /// sets of [`HASHED_MIN_PATTERNS`](crate::engine::hashed::HASHED_MIN_PATTERNS) or
    /// more, else as [`Self::new`].
    pub fn fallback(set: &LiteralSet) -> Result<CpuLiteralEngine, EngineError> {
        if set.patterns.len() >= crate::engine::hashed::HASHED_MIN_PATTERNS
            && let Some(h) = HashedLiterals::new(set)
        {
            return Ok(CpuLiteralEngine {
                strategy: Strategy::Hashed(Box::new(h)),
            });
        }
        Self::new(set)
    }

    /// The fallback of the DFA engine: [`Self::find_all`] answers the start
    /// offsets of `set`'s candidate lines ([`DfaSet::candidate_lines`]).
    pub fn dfa_lines(set: std::sync::Arc<DfaSet>) -> CpuLiteralEngine {
        CpuLiteralEngine {
            strategy: Strategy::Lines(set),
        }
    }

    /// Every occurrence start in `hay`, sorted and deduplicated.
    pub fn find_all(&self, hay: &[u8]) -> Vec<u64> {
        match &self.strategy {
            Strategy::Empty => Vec::new(),
            Strategy::One(f) => {
                let mut out = Vec::new();
                let mut at = 0;
                while let Some(i) = f.find(&hay[at..]) {
                    out.push((at + i) as u64);
                    at += i + 1;
                }
                out
            }
            Strategy::Many(ac) => {
                let mut out: Vec<u64> = ac
                    .find_overlapping_iter(hay)
                    .map(|m| m.start() as u64)
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            }
            Strategy::Hashed(h) => {
                let mut out = Vec::new();
                h.for_each(hay, |i| out.push(i as u64));
                out
            }
            Strategy::Lines(d) => d.candidate_lines(hay),
        }
    }
}

impl BatchEngine for CpuLiteralEngine {
    fn name(&self) -> String {
        match self.strategy {
            Strategy::One(_) => "cpu (memchr::memmem)".into(),
            Strategy::Many(_) => "cpu (aho-corasick)".into(),
            Strategy::Hashed(_) => "cpu (hashed literal finder)".into(),
            Strategy::Lines(_) => "cpu (DFA line filter)".into(),
            Strategy::Empty => "cpu (empty set)".into(),
        }
    }

    fn search(&self, batch: &Batch<'_>) -> Result<MatchSet, EngineError> {
        Ok(MatchSet {
            offsets: self.find_all(batch.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::naive;
    use proptest::prelude::*;

    fn check(hay: &[u8], pats: Vec<Vec<u8>>, fold: bool) {
        let set = LiteralSet::new(pats, fold);
        let e = CpuLiteralEngine::new(&set).unwrap();
        assert_eq!(e.find_all(hay), naive::find_all(hay, &set));
    }

    proptest! {
        #[test]
        fn equals_naive(hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'B'), Just(b'\n'), Just(0xC3u8), any::<u8>()], 0..300),
                        pats in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'A'), any::<u8>()], 1..5), 1..6),
                        fold in any::<bool>()) {
            check(&hay, pats, fold);
        }
    }

    /// The fallback of a big set (the hashed finder) finds what the
    /// automaton finds.
    #[test]
    fn big_set_fallback_equals_the_automaton() {
        let pats: Vec<Vec<u8>> = (0..3000u32)
            .map(|i| format!("k{}", i * 7919 % 10007).into_bytes())
            .chain([b"k1".to_vec(), b"k".to_vec()])
            .collect();
        let hay = b"k1 K17 k9999k10006 kk\nk123456 x".repeat(50);
        for fold in [false, true] {
            let set = LiteralSet::new(pats.clone(), fold);
            let fb = CpuLiteralEngine::fallback(&set).unwrap();
            assert!(fb.name().contains("hashed"));
            let ac = CpuLiteralEngine::new(&set).unwrap();
            assert_eq!(fb.find_all(&hay), ac.find_all(&hay), "fold {fold}");
        }
    }
}
