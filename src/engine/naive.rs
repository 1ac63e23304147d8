//! The naive reference: every start position, every pattern, compared byte
//! by byte. Obviously correct and slow; every other engine is tested
//! against it.

use super::{Batch, LiteralSet, MatchSet};

/// True when `pat` occurs in `hay` at `at` (ASCII-folded if asked; `pat` is
/// then already lower case).
pub fn occurs_at(hay: &[u8], at: usize, pat: &[u8], fold_ascii: bool) -> bool {
    if pat.is_empty() || at + pat.len() > hay.len() {
        return false;
    }
    hay[at..at + pat.len()].iter().zip(pat).all(|(&h, &p)| {
        if fold_ascii {
            h.to_ascii_lowercase() == p
        } else {
            h == p
        }
    })
}

/// Every start offset of every pattern in `hay`, sorted, deduplicated.
pub fn find_all(hay: &[u8], set: &LiteralSet) -> Vec<u64> {
    (0..hay.len())
        .filter(|&at| {
            set.patterns
                .iter()
                .any(|p| occurs_at(hay, at, p, set.fold_ascii))
        })
        .map(|at| at as u64)
        .collect()
}

/// The naive engine over a batch (spans are ignored: separators are `\n`,
/// which no pattern contains).
pub fn search(batch: &Batch<'_>, set: &LiteralSet) -> MatchSet {
    MatchSet {
        offsets: find_all(batch.data, set),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_and_folded() {
        let set = LiteralSet::new(vec![b"aa".to_vec()], false);
        assert_eq!(find_all(b"aaaa", &set), vec![0, 1, 2]);
        let set = LiteralSet::new(vec![b"Ab".to_vec(), b"b".to_vec()], true);
        assert_eq!(find_all(b"xaBb", &set), vec![1, 2, 3]);
    }
}
