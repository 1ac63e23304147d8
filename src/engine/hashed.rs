//! A CPU finder for large literal sets (hundreds to hundreds of thousands
//! of patterns), the host-side sibling of `kernels/many_literals.cl`.
//!
//! An Aho-Corasick automaton for thousands of patterns outgrows the CPU's
//! caches, and every text byte then costs a cache miss (ripgrep counts
//! 10,000 words at about 0.1 GB/s per thread). Here every position costs
//! one unaligned load, a multiply and one bit test in a filter that stays
//! in L1/L2:
//!
//! 1. Filter: the first `q` bytes of each pattern (`q` = the shortest
//!    pattern's length, at most 8: short prefixes of identifiers are as
//!    common in source text as the identifiers' own first bytes) hashed into a bit set of about 256 bits
//!    per pattern. With `fold_ascii` every byte is OR-ed with `0x20` on both
//!    sides first, which maps ASCII case variants together (and a few other
//!    pairs, e.g. `@` and `` ` ``: the filter only has to be a superset).
//! 2. Verification, only where the filter bit is set: the patterns sharing
//!    the position's first (up to 4) bytes, exactly folded, are one contiguous
//!    range of the sorted pattern list, found in a small hash table; a
//!    binary search finds the largest pattern not above the text, and
//!    "parent" links (each pattern's longest proper prefix in the set) lead
//!    from it to the longest pattern that is a prefix of the text, if any.
//!
//! The answer is the same as the naive reference's: every position where
//! some pattern occurs.

use std::cmp::Ordering;

use super::LiteralSet;

const NONE: u32 = u32::MAX;
const MUL: u32 = 0x9E37_79B1;
const MUL64: u64 = 0x9E37_79B9_7F4A_7C15;

/// See the module documentation.
pub struct HashedLiterals {
    /// Bytes of each position that feed the filter (1..=8).
    q: usize,
    min_len: usize,
    fold: bool,
    /// `0x20` in each of the `q` bytes under `fold_ascii`, else 0.
    fold_or: u64,
    /// The low `q` bytes of a little-endian load.
    mask: u64,
    shift: u32,
    filter: Vec<u64>,
    /// Sorted bytewise (lower-cased under `fold_ascii`), distinct.
    pats: Vec<Vec<u8>>,
    /// Index of each pattern's longest proper prefix in `pats`, or NONE.
    parent: Vec<u32>,
    /// Open addressing: (first `q` bytes, start, end) of each run of
    /// patterns sharing them; `end == 0` marks an empty entry.
    table: Vec<(u32, u32, u32)>,
    table_shift: u32,
}

impl HashedLiterals {
    /// `None` for an empty set or one holding the empty pattern.
    pub fn new(set: &LiteralSet) -> Option<HashedLiterals> {
        let min_len = set.min_len();
        if set.patterns.is_empty() || min_len == 0 || set.patterns.len() >= NONE as usize {
            return None;
        }
        let q = min_len.min(8);
        let mask = if q == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * q)) - 1
        };
        let fold_or = if set.fold_ascii {
            0x2020_2020_2020_2020 & mask
        } else {
            0
        };
        let mut pats = set.patterns.clone();
        if set.fold_ascii {
            pats.iter_mut().for_each(|p| p.make_ascii_lowercase());
        }
        pats.sort_unstable();
        pats.dedup();

        let bits = (usize::BITS - (pats.len() * 256 - 1).leading_zeros()).clamp(12, 24);
        let mut filter = vec![0u64; (1usize << bits) / 64];
        let shift = 64 - bits;
        for p in &pats {
            let h = (((key8(p, q) | fold_or) & mask).wrapping_mul(MUL64) >> shift) as usize;
            filter[h >> 6] |= 1 << (h & 63);
        }

        // Parent links: in sorted order the prefixes of a pattern that are
        // in the set come before it, on the stack of the previous chain.
        let mut parent = vec![NONE; pats.len()];
        let mut stack: Vec<usize> = Vec::new();
        for (j, p) in pats.iter().enumerate() {
            while let Some(&top) = stack.last() {
                if p.starts_with(&pats[top]) {
                    break;
                }
                stack.pop();
            }
            parent[j] = stack.last().map_or(NONE, |&t| t as u32);
            stack.push(j);
        }

        // Runs of patterns sharing their first q bytes.
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        for (j, p) in pats.iter().enumerate() {
            let k = key_of(p, q.min(4));
            match runs.last_mut() {
                Some(r) if r.0 == k => r.2 = j as u32 + 1,
                _ => runs.push((k, j as u32, j as u32 + 1)),
            }
        }
        let tbits = (usize::BITS - (runs.len() * 2).leading_zeros()).max(4);
        let table_shift = 32 - tbits;
        let mut table = vec![(0u32, 0u32, 0u32); 1 << tbits];
        for r in runs {
            let mut h = (r.0.wrapping_mul(MUL) >> table_shift) as usize;
            while table[h].2 != 0 {
                h = (h + 1) & (table.len() - 1);
            }
            table[h] = r;
        }
        Some(HashedLiterals {
            q,
            min_len,
            fold: set.fold_ascii,
            fold_or,
            mask,
            shift,
            filter,
            pats,
            parent,
            table,
            table_shift,
        })
    }

    /// The first position at or after `at` where some pattern occurs.
    pub fn find(&self, hay: &[u8], at: usize) -> Option<usize> {
        let n = hay.len();
        if at >= n {
            return None;
        }
        // Positions with 8 bytes to load; the last few are done one by one.
        if n - at >= 8 {
            let hit = hay[at..].windows(8).enumerate().position(|(i, w)| {
                let w: [u8; 8] = w.try_into().expect("a window of 8");
                let k = (u64::from_le_bytes(w) | self.fold_or) & self.mask;
                let h = (k.wrapping_mul(MUL64) >> self.shift) as usize;
                self.filter[h >> 6] & (1 << (h & 63)) != 0 && self.occurs_at(hay, at + i)
            });
            if let Some(i) = hit {
                return Some(at + i);
            }
        }
        let from = at.max(n.saturating_sub(7));
        (from..n).find(|&i| self.occurs_at(hay, i))
    }

    /// Calls `f` with every position where some pattern occurs, in order.
    pub fn for_each(&self, hay: &[u8], mut f: impl FnMut(usize)) {
        let mut at = 0;
        while let Some(i) = self.find(hay, at) {
            f(i);
            at = i + 1;
        }
    }

    /// Whether some pattern occurs at `hay[i..]`.
    fn occurs_at(&self, hay: &[u8], i: usize) -> bool {
        let t = &hay[i..];
        if t.len() < self.min_len {
            return false;
        }
        let key = if self.fold {
            key_of_folded(t, self.q.min(4))
        } else {
            key_of(t, self.q.min(4))
        };
        let Some((s, e)) = self.run_of(key) else {
            return false;
        };
        let run = &self.pats[s..e];
        let k = run.partition_point(|p| self.cmp(p, t) != Ordering::Greater);
        if k == 0 {
            return false;
        }
        let j = s + k - 1;
        let p = &self.pats[j];
        let l = self.common_prefix(p, t);
        if l == p.len() {
            return true;
        }
        // The longest pattern that is a prefix of `t` is the longest
        // ancestor of `p` no longer than their common prefix.
        let mut a = self.parent[j];
        while a != NONE && self.pats[a as usize].len() > l {
            a = self.parent[a as usize];
        }
        a != NONE
    }

    fn run_of(&self, key: u32) -> Option<(usize, usize)> {
        let mut h = (key.wrapping_mul(MUL) >> self.table_shift) as usize;
        loop {
            let (k, s, e) = self.table[h];
            if e == 0 {
                return None;
            }
            if k == key {
                return Some((s as usize, e as usize));
            }
            h = (h + 1) & (self.table.len() - 1);
        }
    }

    fn fold_byte(&self, b: u8) -> u8 {
        if self.fold { b.to_ascii_lowercase() } else { b }
    }

    /// Pattern `p` against the text `t` (folded), as whole strings.
    fn cmp(&self, p: &[u8], t: &[u8]) -> Ordering {
        for (&a, &b) in p.iter().zip(t) {
            match a.cmp(&self.fold_byte(b)) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        p.len().cmp(&t.len())
    }

    fn common_prefix(&self, p: &[u8], t: &[u8]) -> usize {
        p.iter()
            .zip(t)
            .take_while(|&(&a, &b)| a == self.fold_byte(b))
            .count()
    }
}

/// The first `q` (<= 8) bytes as a little-endian number.
fn key8(b: &[u8], q: usize) -> u64 {
    b[..q]
        .iter()
        .rev()
        .fold(0u64, |k, &x| (k << 8) | u64::from(x))
}

/// The first `q` (<= 4) bytes as a little-endian number.
fn key_of(b: &[u8], q: usize) -> u32 {
    b[..q]
        .iter()
        .rev()
        .fold(0u32, |k, &x| (k << 8) | u32::from(x))
}

fn key_of_folded(b: &[u8], q: usize) -> u32 {
    b[..q]
        .iter()
        .rev()
        .fold(0u32, |k, &x| (k << 8) | u32::from(x.to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(set: &LiteralSet, hay: &[u8]) -> Vec<usize> {
        (0..hay.len())
            .filter(|&i| {
                set.patterns.iter().any(|p| {
                    hay.len() - i >= p.len()
                        && if set.fold_ascii {
                            hay[i..i + p.len()].eq_ignore_ascii_case(p)
                        } else {
                            &hay[i..i + p.len()] == p.as_slice()
                        }
                })
            })
            .collect()
    }

    fn found(h: &HashedLiterals, hay: &[u8]) -> Vec<usize> {
        let mut v = Vec::new();
        h.for_each(hay, |i| v.push(i));
        v
    }

    fn byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            4 => Just(b'a'),
            3 => Just(b'b'),
            2 => Just(b'A'),
            1 => Just(b'@'),
            1 => Just(b'`'),
            1 => Just(b'\n'),
            1 => 0x80u8..=0xFF,
            1 => any::<u8>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn equals_the_naive_reference(
            pats in proptest::collection::vec(proptest::collection::vec(byte(), 1..9), 1..60),
            hay in proptest::collection::vec(byte(), 0..600),
            fold in any::<bool>(),
        ) {
            let pats: Vec<Vec<u8>> = pats.into_iter().filter(|p| !p.contains(&b'\n')).collect();
            prop_assume!(!pats.is_empty());
            let set = LiteralSet::new(pats, fold);
            let h = HashedLiterals::new(&set).unwrap();
            prop_assert_eq!(found(&h, &hay), naive(&set, &hay));
        }
    }

    #[test]
    fn prefixes_of_each_other_and_the_ends() {
        let set = LiteralSet::new(
            vec![
                b"ab".to_vec(),
                b"aba".to_vec(),
                b"abaca".to_vec(),
                b"abz".to_vec(),
            ],
            false,
        );
        let h = HashedLiterals::new(&set).unwrap();
        for hay in [&b"abb"[..], b"ab", b"xabacab", b"abac", b"a", b"", b"zzab"] {
            assert_eq!(found(&h, hay), naive(&set, hay), "{hay:?}");
        }
    }

    #[test]
    fn many_patterns_with_shared_prefixes() {
        let pats: Vec<Vec<u8>> = (0..5000)
            .map(|i| format!("get_{}", i * 7919 % 100_003).into_bytes())
            .collect();
        let set = LiteralSet::new(pats, true);
        let h = HashedLiterals::new(&set).unwrap();
        let hay = b"x = GET_17 + get_7919 - get_ + Get_15838get_0\n".repeat(3);
        assert_eq!(found(&h, &hay), naive(&set, &hay));
    }
}
