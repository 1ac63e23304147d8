//! The CPU batch engine for literal sets: `memchr::memmem` for one
//! case-sensitive literal, `aho-corasick` for everything else. It is the
//! fallback when a device fails and the second reference in device tests.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;

use super::{Batch, BatchEngine, EngineError, LiteralSet, MatchSet};

enum Strategy {
    One(Box<memmem::Finder<'static>>),
    Many(AhoCorasick),
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
        }
    }
}

impl BatchEngine for CpuLiteralEngine {
    fn name(&self) -> String {
        match self.strategy {
            Strategy::One(_) => "cpu (memchr::memmem)".into(),
            Strategy::Many(_) => "cpu (aho-corasick)".into(),
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
}
