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
//! When the shortest pattern has 5 bytes or more, a sampled pre-filter runs
//! before step 1 and step 1 then runs only near its hits: with a stride
//! `s` and a gram length `g = m - s + 1` (`m` the shortest pattern's length,
//! `g` at most 8), every occurrence starting at `p` contains the sampled
//! position `i` (a multiple of `s` from the start) with `p <= i < p + s`,
//! and the `g` bytes at `i` are the pattern's bytes at `i - p`. So the
//! grams at offsets `0..s` of every pattern go into a second bit set, only
//! every `s`-th text position is looked up in it, and a hit is followed by
//! step 1 at the `s` positions ending there. For 1,000 identifiers of 6
//! bytes and more (`s = 3`, `g = 4`) about 4% of the samples hit in source
//! text, so the scan costs about 0.37 look-ups per byte instead of 1.
//! Patterns with room for 8-byte grams at every offset (`s + 7` bytes and
//! more) put those in the bit set instead, as a second bit in the word of
//! their first `g` bytes, and each sample tests two bits of one word (its
//! `g`-byte gram's and its 8 bytes'): in Python text the short grams of
//! long identifiers (`self`, `_get`) hit one sample in ten, the 8-byte
//! grams one in three hundred. On CPUs with AVX-512 eight samples are
//! hashed and looked up at a time ([`HashedLiterals::sample_avx512`]), and
//! sixteen with 4-byte grams, in 32-bit lanes and 32-bit words of the bit
//! set ([`HashedLiterals::sample_avx512_16`]).
//!
//! The answer is the same as the naive reference's: every position where
//! some pattern occurs.
//!
//! Given the patterns' order ([`HashedLiterals::rank`]), it also finds
//! leftmost-first matches as a regex alternation of the patterns would: the
//! patterns occurring at a position are the longest one and its chain of
//! parents, and the earliest listed among them wins.

use std::cmp::Ordering;

use super::LiteralSet;

/// From this many patterns of an exact literal set, CPU searches find lines
/// with [`HashedLiterals`] rather than the regex's Aho-Corasick automaton.
pub const HASHED_MIN_PATTERNS: usize = 100;

const NONE: u32 = u32::MAX;
const MUL: u32 = 0x9E37_79B1;
const MUL64: u64 = 0x9E37_79B9_7F4A_7C15;
/// The multipliers of [`Sampler::bit8`]'s two halves.
const MUL8A: u32 = 0x85EB_CA77;
const MUL8B: u32 = 0xC2B2_AE3D;

/// The loop of [`HashedLiterals::sample_avx512`] and its sixteen-lane
/// sibling around their `probe` (a block's hit mask, one bit per sample):
/// blocks `step` bytes apart while `reach` bytes are left from the block,
/// the next block's look-ups sent out before this block's hits are
/// branched on (a hit is a branch the CPU cannot predict, and its
/// misprediction then does not also wait for them). Evaluates to the
/// first match and where it was, or where the scalar loop goes on.
#[cfg(target_arch = "x86_64")]
macro_rules! sampling_loop {
    ($self:ident, $hay:ident, $at:ident, $s:ident, $step:expr, $reach:expr, $probe:ident) => {{
        let mut i = $at;
        if i + $reach > $hay.len() {
            return (i, None);
        }
        let mut hits = $probe!(i);
        loop {
            let next = i + $step;
            let more = next + $reach <= $hay.len();
            let next_hits = if more { $probe!(next) } else { 0 };
            while hits != 0 {
                let si = i + hits.trailing_zeros() as usize * $s;
                if let Some(found) = $self.after_sample($hay, $at, si, $s) {
                    return (si, Some(found));
                }
                hits &= hits - 1;
            }
            if !more {
                return (next, None);
            }
            i = next;
            hits = next_hits;
        }
    }};
}

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
    /// The sampled pre-filter, when the shortest pattern is long enough.
    sampler: Option<Sampler>,
    /// Step 1's second look, when `q < 8`: see [`Prefixes`].
    prefixes: Option<Prefixes>,
    /// Sorted bytewise (lower-cased under `fold_ascii`), distinct.
    pats: Vec<Vec<u8>>,
    /// Each pattern's first 8 bytes, big-endian, zero-padded: ordered as
    /// the patterns are (a tie leaves the order to the full comparison).
    keys: Vec<u64>,
    /// Index of each pattern's longest proper prefix in `pats`, or NONE.
    parent: Vec<u32>,
    /// Open addressing: (first `q` bytes, start, end) of each run of
    /// patterns sharing them; `end == 0` marks an empty entry.
    table: Vec<(u32, u32, u32)>,
    table_shift: u32,
    /// The earliest listed pattern equal to each of `pats` (see `rank`).
    rank: Option<Vec<u32>>,
}

impl HashedLiterals {
    /// `None` for an empty set or one holding the empty pattern.
    pub fn new(set: &LiteralSet) -> Option<HashedLiterals> {
        let min_len = set.min_len();
        if set.patterns.is_empty() || min_len == 0 || set.patterns.len() >= NONE as usize {
            return None;
        }
        let q = min_len.min(8);
        let (mask, fold_or) = key_mask(q, set.fold_ascii);
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

        let sampler = Sampler::new(&pats, min_len, set.fold_ascii, avx512());
        let prefixes = Prefixes::new(&pats, q, set.fold_ascii);

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
            sampler,
            prefixes,
            keys: pats.iter().map(|p| prefix_key(p)).collect(),
            pats,
            parent,
            table,
            table_shift,
            rank: None,
        })
    }

    /// Records the order the patterns were listed in, for [`Self::find_match`]:
    /// `listed` yields `(rank, pattern)` with every pattern of the set
    /// (lower-cased under `fold_ascii`) at least once; a pattern listed
    /// several times keeps its smallest rank. Returns false, recording
    /// nothing, when some listed pattern is not in the set.
    pub fn rank<'p>(&mut self, listed: impl IntoIterator<Item = (u32, &'p [u8])>) -> bool {
        // A hash map, not a binary search of the sorted list: 100,000
        // patterns would cost a pointer chase per step.
        let index: std::collections::HashMap<&[u8], usize> = self
            .pats
            .iter()
            .enumerate()
            .map(|(j, p)| (p.as_slice(), j))
            .collect();
        let mut rank = vec![NONE; self.pats.len()];
        for (r, p) in listed {
            match index.get(p) {
                Some(&j) => rank[j] = rank[j].min(r),
                None => return false,
            }
        }
        if rank.contains(&NONE) {
            return false;
        }
        self.rank = Some(rank);
        true
    }

    /// Turns the AVX-512 sampling loop on (where the CPU has its
    /// instructions) or off, whatever the CPU's maker: the tests run both.
    #[cfg(test)]
    fn set_avx512(&mut self, on: bool) {
        if self.sampler.is_some() {
            // The 8-byte grams' hash depends on the loop.
            self.sampler = Sampler::new(&self.pats, self.min_len, self.fold, on && avx512());
        }
    }

    /// Whether [`Self::find_match`] is available.
    pub fn ranked(&self) -> bool {
        self.rank.is_some()
    }

    /// The leftmost-first match at or after `at`, as `(start, end)`: the
    /// first position where some pattern occurs and, of the patterns
    /// occurring there, the earliest listed. `None` also when the set was
    /// not ranked.
    pub fn find_match(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        let rank = self.rank.as_ref()?;
        let (i, mut a) = self.find_longest(hay, at)?;
        let mut best = a;
        while a != NONE {
            if rank[a as usize] < rank[best as usize] {
                best = a;
            }
            a = self.parent[a as usize];
        }
        Some((i, i + self.pats[best as usize].len()))
    }

    /// The first position at or after `at` where some pattern occurs.
    pub fn find(&self, hay: &[u8], at: usize) -> Option<usize> {
        self.find_longest(hay, at).map(|(i, _)| i)
    }

    /// The first position at or after `at` where some pattern occurs, and
    /// the longest pattern occurring there.
    fn find_longest(&self, hay: &[u8], at: usize) -> Option<(usize, u32)> {
        let n = hay.len();
        if at >= n {
            return None;
        }
        let Some(sm) = &self.sampler else {
            return self.find_dense(hay, at);
        };
        // Sample `i` stands for the candidates `i - stride + 1 ..= i`, so
        // samples taken in order see the candidates in order, each once.
        let stride = sm.stride;
        let mut i = at;
        #[cfg(target_arch = "x86_64")]
        if sm.avx512 {
            // SAFETY: `Sampler::new` found the CPU features it enables.
            let (next, found) = unsafe {
                if sm.narrow {
                    self.sample_avx512_16(sm, hay, at)
                } else {
                    self.sample_avx512(sm, hay, at)
                }
            };
            if found.is_some() {
                return found;
            }
            i = next;
        }
        // One loop per kind of gram, with their look-ups known at compile
        // time.
        let (next, found) = match (sm.narrow, sm.long_or.is_some()) {
            (true, true) => self.sample_scalar::<true, true>(sm, hay, at, i),
            (true, false) => self.sample_scalar::<true, false>(sm, hay, at, i),
            (false, true) => self.sample_scalar::<false, true>(sm, hay, at, i),
            (false, false) => self.sample_scalar::<false, false>(sm, hay, at, i),
        };
        if found.is_some() {
            return found;
        }
        let i = next;
        // The candidates no sample stood for: the last few positions.
        self.find_dense(hay, (i + 1).saturating_sub(stride).max(at))
    }

    /// The sampling loop of [`Self::find_longest`] one sample at a time,
    /// from sample `i` while 8 bytes are left there: `NARROW` is the
    /// sampler's field of that name, and `LONG` whether it has `long_or`,
    /// where the second bit of a long pattern's 8 bytes is tested too.
    /// Returns the first match found, or where the last few positions begin.
    fn sample_scalar<const NARROW: bool, const LONG: bool>(
        &self,
        sm: &Sampler,
        hay: &[u8],
        at: usize,
        mut i: usize,
    ) -> (usize, Option<(usize, u32)>) {
        // Fields in locals: the loop is short and would reload them.
        let (stride, bits, bits32) = (sm.stride, &sm.bits[..], sm.words32());
        let or8 = sm.long_or.unwrap_or(0);
        while i + 8 <= hay.len() {
            let w = load8(hay, i);
            let h = gram_slot::<NARROW>(w, sm.fold_or, sm.mask, sm.shift);
            let word = if NARROW {
                u64::from(bits32[h >> 5])
            } else {
                bits[h >> 6]
            };
            let mut t = word >> (h & if NARROW { 31 } else { 63 });
            if LONG {
                t |= word >> gram_bit8::<NARROW>(w, or8);
            }
            if t & 1 != 0
                && let Some(found) = self.after_sample(hay, at, i, stride)
            {
                return (i, Some(found));
            }
            i += stride;
        }
        (i, None)
    }

    /// The sampling loop of [`Self::find_longest`], eight samples at a
    /// time, while 64 bytes are left from the first: one 64-byte load, the
    /// eight 8-byte grams cut out of it by a byte permutation, hashed in
    /// 64-bit lanes, their bit-set words gathered (one gather: the 8-byte
    /// grams' bits are in their short grams' words). Returns the first match
    /// found, or where the scalar loop goes on. For grams of more than 4
    /// bytes; [`Self::sample_avx512_16`] takes 4-byte grams.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vbmi")]
    fn sample_avx512(&self, sm: &Sampler, hay: &[u8], at: usize) -> (usize, Option<(usize, u32)>) {
        use std::arch::x86_64::*;
        let s = sm.stride;
        // SAFETY: an unaligned load of the 64 bytes of `lanes`.
        let order = unsafe { _mm512_loadu_si512(sm.lanes.as_ptr().cast()) };
        let or = _mm512_set1_epi64(sm.fold_or as i64);
        let mask = _mm512_set1_epi64(sm.mask as i64);
        let or8 = _mm512_set1_epi64(sm.long_or.unwrap_or(0) as i64);
        let mul = _mm512_set1_epi64(MUL64 as i64);
        let shift = _mm_set_epi64x(0, i64::from(sm.shift));
        let (low6, one) = (_mm512_set1_epi64(63), _mm512_set1_epi64(1));
        let bits = sm.bits.as_ptr().cast::<i64>();
        // The hit mask of the eight samples of the block at `i`.
        macro_rules! probe {
            ($i:expr) => {{
                // SAFETY: `$i + 64 <= hay.len()`, checked by every caller.
                let block = unsafe { _mm512_loadu_si512(hay.as_ptr().add($i).cast()) };
                let w = _mm512_permutexvar_epi8(order, block);
                let key = _mm512_and_si512(_mm512_or_si512(w, or), mask);
                let h = _mm512_srl_epi64(_mm512_mullo_epi64(key, mul), shift);
                // SAFETY: every `h` is below `1 << (64 - shift)`, the bit
                // set's size in bits, so `h >> 6` indexes one of its words.
                let words = unsafe { _mm512_i64gather_epi64::<8>(_mm512_srli_epi64::<6>(h), bits) };
                let mut t = _mm512_srlv_epi64(words, _mm512_and_si512(h, low6));
                if sm.long_or.is_some() {
                    // `Sampler::bit8` on each lane's 8 bytes.
                    let b8 =
                        _mm512_srli_epi64::<58>(_mm512_mullo_epi64(_mm512_or_si512(w, or8), mul));
                    t = _mm512_or_si512(t, _mm512_srlv_epi64(words, b8));
                }
                u32::from(_mm512_test_epi64_mask(t, one))
            }};
        }
        sampling_loop!(self, hay, at, s, 8 * s, 64, probe)
    }

    /// [`Self::sample_avx512`] for 4-byte grams, sixteen samples at a time
    /// in 32-bit lanes: half the multiplications per sample, and one gather
    /// of sixteen words for two of eight. The 8-byte grams' second halves
    /// come from a second load, 4 bytes on.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vbmi")]
    fn sample_avx512_16(
        &self,
        sm: &Sampler,
        hay: &[u8],
        at: usize,
    ) -> (usize, Option<(usize, u32)>) {
        use std::arch::x86_64::*;
        let s = sm.stride;
        // SAFETY: an unaligned load of the 64 bytes of `lanes`.
        let order = unsafe { _mm512_loadu_si512(sm.lanes.as_ptr().cast()) };
        let or = _mm512_set1_epi32(sm.fold_or as i32);
        let or8 = _mm512_set1_epi32(sm.long_or.unwrap_or(0) as i32);
        let mul = _mm512_set1_epi32(MUL as i32);
        let (mul8a, mul8b) = (
            _mm512_set1_epi32(MUL8A as i32),
            _mm512_set1_epi32(MUL8B as i32),
        );
        let shift = _mm_set_epi64x(0, i64::from(sm.shift));
        let (low5, one) = (_mm512_set1_epi32(31), _mm512_set1_epi32(1));
        let bits = sm.words32().as_ptr().cast::<i32>();
        // The hit mask of the sixteen samples of the block at `i`.
        macro_rules! probe {
            ($i:expr) => {{
                // SAFETY: `$i + 68 <= hay.len()`, checked by every caller.
                let block = unsafe { _mm512_loadu_si512(hay.as_ptr().add($i).cast()) };
                let w = _mm512_permutexvar_epi8(order, block);
                let h = _mm512_srl_epi32(_mm512_mullo_epi32(_mm512_or_si512(w, or), mul), shift);
                // SAFETY: every `h` is below `1 << (32 - shift)`, the bit
                // set's size in bits, so `h >> 5` indexes one of its words.
                let words = unsafe { _mm512_i32gather_epi32::<4>(_mm512_srli_epi32::<5>(h), bits) };
                let mut t = _mm512_srlv_epi32(words, _mm512_and_si512(h, low5));
                if sm.long_or.is_some() {
                    // SAFETY: as above, 4 bytes on.
                    let next = unsafe { _mm512_loadu_si512(hay.as_ptr().add($i + 4).cast()) };
                    let hi = _mm512_permutexvar_epi8(order, next);
                    let b8 = _mm512_srli_epi32::<27>(_mm512_add_epi32(
                        _mm512_mullo_epi32(_mm512_or_si512(w, or8), mul8a),
                        _mm512_mullo_epi32(_mm512_or_si512(hi, or8), mul8b),
                    ));
                    t = _mm512_or_si512(t, _mm512_srlv_epi32(words, b8));
                }
                u32::from(_mm512_test_epi32_mask(t, one))
            }};
        }
        sampling_loop!(self, hay, at, s, 16 * s, 68, probe)
    }

    /// Steps 1 and 2 at the candidates of sample `i`, which hit.
    #[inline(always)]
    fn after_sample(&self, hay: &[u8], at: usize, i: usize, stride: usize) -> Option<(usize, u32)> {
        for p in (i + 1).saturating_sub(stride).max(at)..=i {
            let word = load8(hay, p);
            if self.filter_hit(word)
                && let Some(j) = self.longest_at(hay, p, word)
            {
                return Some((p, j));
            }
        }
        None
    }

    /// Whether step 1's filter admits the position whose 8 bytes are `word`
    /// (and, when there is one, the filter of whole prefixes too).
    #[inline(always)]
    fn filter_hit(&self, word: u64) -> bool {
        let k = (word | self.fold_or) & self.mask;
        let h = (k.wrapping_mul(MUL64) >> self.shift) as usize;
        self.filter[h >> 6] & (1 << (h & 63)) != 0
            && self.prefixes.as_ref().is_none_or(|f| f.admits(word))
    }

    /// [`Self::find_longest`] looking at every position from `at`.
    fn find_dense(&self, hay: &[u8], at: usize) -> Option<(usize, u32)> {
        let n = hay.len();
        if at >= n {
            return None;
        }
        let mut found = None;
        // Positions with 8 bytes to load; the last few are done one by one.
        if n - at >= 8 {
            let hit = hay[at..].windows(8).enumerate().position(|(i, w)| {
                let w: [u8; 8] = w.try_into().expect("a window of 8");
                let word = u64::from_le_bytes(w);
                if !self.filter_hit(word) {
                    return false;
                }
                found = self.longest_at(hay, at + i, word);
                found.is_some()
            });
            if let Some(i) = hit {
                return found.map(|j| (at + i, j));
            }
        }
        let from = at.max(n.saturating_sub(7));
        (from..n).find_map(|i| {
            let mut w = [0u8; 8];
            let tail = &hay[i..];
            w[..tail.len()].copy_from_slice(tail);
            self.longest_at(hay, i, u64::from_le_bytes(w))
                .map(|j| (i, j))
        })
    }

    /// Calls `f` with every position where some pattern occurs, in order.
    pub fn for_each(&self, hay: &[u8], mut f: impl FnMut(usize)) {
        let mut at = 0;
        while let Some(i) = self.find(hay, at) {
            f(i);
            at = i + 1;
        }
    }

    /// The longest pattern occurring at `hay[i..]`, if any; `word` holds
    /// the (up to) 8 bytes there, little-endian, zero past the end.
    fn longest_at(&self, hay: &[u8], i: usize, word: u64) -> Option<u32> {
        let t = &hay[i..];
        if t.len() < self.min_len {
            return None;
        }
        let key = if self.fold {
            key_of_folded(t, self.q.min(4))
        } else {
            key_of(t, self.q.min(4))
        };
        let (s, e) = self.run_of(key)?;
        // Compare the 8-byte prefixes first, the pattern lists only on ties:
        // a run can hold thousands of patterns (identifiers sharing their
        // first bytes), and each list entry is a pointer away.
        let tk = if self.fold { lower8(word) } else { word }.swap_bytes();
        let (mut lo, mut hi) = (s, e);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let not_above = match self.keys[mid].cmp(&tk) {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => self.cmp(&self.pats[mid], t) != Ordering::Greater,
            };
            if not_above {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == s {
            return None;
        }
        let j = lo - 1;
        let p = &self.pats[j];
        let l = self.common_prefix(p, t);
        if l == p.len() {
            return Some(j as u32);
        }
        // The longest pattern that is a prefix of `t` is the longest
        // ancestor of `p` no longer than their common prefix.
        let mut a = self.parent[j];
        while a != NONE && self.pats[a as usize].len() > l {
            a = self.parent[a as usize];
        }
        (a != NONE).then_some(a)
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

/// The sampled pre-filter of [`HashedLiterals`] (see the module
/// documentation): a bit set of the hashed `g`-byte grams at offsets
/// `0..stride` of every pattern.
struct Sampler {
    stride: usize,
    /// `0x20` in each of the `g` bytes under `fold_ascii`, else 0.
    fold_or: u64,
    /// The low `g` bytes of a little-endian load.
    mask: u64,
    /// 4-byte grams where the sixteen-lane loop runs: hashed in 32-bit
    /// arithmetic (`shift` from 32), `bits` read as 32-bit words (see
    /// [`Self::words32`]) and the 8-byte grams hashed by their 32-bit
    /// halves, as that loop needs. Otherwise everything in 64 bits, which
    /// the other loops do with fewer instructions.
    narrow: bool,
    shift: u32,
    bits: Vec<u64>,
    /// When the patterns with room for 8-byte grams (`stride + 7` bytes
    /// and more) put those, not their short grams, in `bits` (a bit chosen
    /// by the 8 bytes' hash, in the word of their first `g` bytes): the
    /// `0x20` bits of case folding for 8 bytes (0 without folding).
    long_or: Option<u64>,
    /// Whether [`HashedLiterals::sample_avx512`] or its sixteen-lane
    /// sibling runs (see [`avx512`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    avx512: bool,
    /// For those loops: lane `j`'s byte `b` is byte `j * stride + b` of a
    /// 64-byte block: eight lanes of 8 bytes (at most 7 * 8 + 7 = 63:
    /// `MAX_STRIDE` is 8), or with `narrow` sixteen of 4 (at most 15 * 4 +
    /// 3: 4-byte grams come with strides up to 4).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    lanes: [u8; 64],
}

impl Sampler {
    /// Longest stride tried: the grams' bit set grows with it, and a hit
    /// costs `stride` look-ups in step 1.
    const MAX_STRIDE: usize = 8;
    /// Shortest gram: 3-byte grams of identifiers hit about one sample in
    /// five in source text, 4-byte grams one in twenty-five.
    const MIN_GRAM: usize = 4;

    /// `None` when the shortest pattern (`min_len` bytes) leaves no stride
    /// above 1 with grams of [`Self::MIN_GRAM`] bytes, or when the set is
    /// so large that its grams hit too often.
    fn new(pats: &[Vec<u8>], min_len: usize, fold: bool, avx512: bool) -> Option<Sampler> {
        // Measured on Linux source with its own identifiers (6 bytes and
        // more, one core): 100 words 1.0 -> 2.2 GB/s (stride 3), 1,000
        // words 0.96 -> 1.47 GB/s (stride 3; 1.29 at 2), 3,000 words
        // 0.84 -> 1.02 GB/s (stride 2; 0.95 at 3), 10,000 words 0.61 ->
        // 0.64 GB/s at stride 2 and 0.53 at 3 (their 4-byte grams hit
        // one sample in six).
        let most = match pats.len() {
            0..=2_000 => 4,
            2_001..=20_000 => 2,
            _ => return None,
        };
        // Up to `most` with short grams; longer patterns take 8-byte grams
        // and whatever stride is left.
        let mut stride = (min_len + 1).checked_sub(Self::MIN_GRAM)?.min(most);
        if min_len + 1 - stride > 8 {
            stride = (min_len + 1 - 8).min(Self::MAX_STRIDE.min(2 * most));
        }
        if stride < 2 {
            return None;
        }
        let g = (min_len + 1 - stride).min(8);
        let (mask, fold_or) = key_mask(g, fold);
        let grams = pats.len() * stride;
        // About 256 bits per gram: fewer false hits than 64 (a sample that
        // hits costs `stride` look-ups in step 1) for a bit set that
        // outgrows L1 (128 KiB for 1,000 patterns at stride 3). One core
        // of the GPU machine's Xeon (AVX-512 loop), 64 -> 256 bits: 1,000
        // Python identifiers 0.87 -> 0.97 GB/s, 10,000 0.22 -> 0.33, 1,000
        // Linux identifiers 1.27 -> 1.57; AMD EPYC (scalar): 0.99 -> 1.07
        // and 1.29 -> 1.41 (128: between; 512: no better, 1,024: worse).
        let nbits = (usize::BITS - (grams * 256 - 1).leading_zeros()).clamp(12, 24);
        // Long patterns' 8-byte grams hit far less often in source text
        // than their short ones (`self`, `_get`, `ment` in long Python
        // identifiers): 1,000 Python identifiers of 6 bytes and more at
        // stride 3 hit 10% of the samples with 4-byte grams only, 2.8%
        // with 8-byte grams for the patterns of 10 bytes and more. One
        // core, Python text: 0.81 -> 0.99 GB/s (AMD EPYC), 0.41 -> 0.75
        // (the GPU machine's Xeon, with AVX-512); Linux text 1.49 -> 1.28
        // (EPYC: its short grams rarely hit, so the second bit buys
        // little) and 0.64 -> 1.04 (Xeon).
        let split = g < 8 && pats.iter().any(|p| p.len() >= stride + 7);
        let narrow = g == 4 && avx512;
        let width = if narrow { 4 } else { 8 };
        let mut sm = Sampler {
            stride,
            fold_or,
            mask,
            narrow,
            shift: if narrow { 32 } else { 64 } - nbits,
            bits: vec![0u64; (1usize << nbits) / 64],
            long_or: split.then_some(key_mask(8, fold).1),
            avx512,
            lanes: std::array::from_fn(|k| ((k / width) * stride + k % width) as u8),
        };
        for p in pats {
            let long = split && p.len() >= stride + 7;
            for d in 0..stride {
                // The word of the `g`-byte gram; in it the gram's bit, or
                // for a long pattern the 8-byte gram's.
                let h = sm.slot(key8(&p[d..], g));
                let bit = if long {
                    sm.bit8(key8(&p[d..], 8))
                } else {
                    h as u32 & if narrow { 31 } else { 63 }
                };
                if narrow {
                    sm.words32_mut()[h >> 5] |= 1 << bit;
                } else {
                    sm.bits[h >> 6] |= 1 << bit;
                }
            }
        }
        Some(sm)
    }

    /// The bit index of the `g`-byte gram at the start of `word`.
    fn slot(&self, word: u64) -> usize {
        if self.narrow {
            gram_slot::<true>(word, self.fold_or, self.mask, self.shift)
        } else {
            gram_slot::<false>(word, self.fold_or, self.mask, self.shift)
        }
    }

    /// The bit of a whole 8-byte gram (`long_or` set) in the word of its
    /// first `g` bytes.
    fn bit8(&self, word: u64) -> u32 {
        let or = self.long_or.unwrap_or(0);
        if self.narrow {
            gram_bit8::<true>(word, or)
        } else {
            gram_bit8::<false>(word, or)
        }
    }

    /// `bits` as 32-bit words, as `narrow` samplers read and write them.
    fn words32(&self) -> &[u32] {
        // SAFETY: the `u64`s' memory read as twice as many `u32`s: their
        // alignment divides that of `u64`, every bit pattern is a `u32`,
        // and the borrow of `self.bits` covers the slice's life.
        unsafe { std::slice::from_raw_parts(self.bits.as_ptr().cast(), self.bits.len() * 2) }
    }

    fn words32_mut(&mut self) -> &mut [u32] {
        // SAFETY: as in `words32`, the borrow unique as that of `self.bits`.
        unsafe {
            std::slice::from_raw_parts_mut(self.bits.as_mut_ptr().cast(), self.bits.len() * 2)
        }
    }
}

/// [`Sampler::slot`]: the gram's bytes of `word` (with `or` and `mask`)
/// hashed in 32-bit arithmetic when `NARROW` (4-byte grams), else 64-bit.
#[inline(always)]
fn gram_slot<const NARROW: bool>(word: u64, or: u64, mask: u64, shift: u32) -> usize {
    let key = (word | or) & mask;
    if NARROW {
        ((key as u32).wrapping_mul(MUL) >> shift) as usize
    } else {
        (key.wrapping_mul(MUL64) >> shift) as usize
    }
}

/// [`Sampler::bit8`]: the 8 bytes (with `or`) hashed to a bit of a word:
/// with `NARROW` to 5 bits, their two halves in 32-bit arithmetic as the
/// sixteen-lane loop hashes them, else to 6 bits.
#[inline(always)]
fn gram_bit8<const NARROW: bool>(word: u64, or: u64) -> u32 {
    let w = word | or;
    if NARROW {
        let (lo, hi) = (w as u32, (w >> 32) as u32);
        lo.wrapping_mul(MUL8A).wrapping_add(hi.wrapping_mul(MUL8B)) >> 27
    } else {
        (w.wrapping_mul(MUL64) >> 58) as u32
    }
}

/// A second filter behind step 1's when its key is shorter than 8 bytes
/// (`q < 8`): each pattern's first `min(len, 8)` bytes, hashed with that
/// length, so a position passes only when, for some length class, its
/// bytes equal a whole pattern or the 8-byte prefix of a longer one. In
/// source text the shortest patterns' `q`-byte prefixes are common words
/// (`return`, `self._`): for 1,000 Python identifiers of 6 bytes and more,
/// 0.97% of positions start such a prefix and 0.30% pass this filter, and
/// each position that passes costs a binary search.
struct Prefixes {
    /// Per length class (`q..=8` bytes, those some pattern has): the low
    /// bytes' mask and the `0x20` bits of case folding.
    classes: Vec<(u64, u64)>,
    shift: u32,
    bits: Vec<u64>,
}

impl Prefixes {
    /// Length classes beyond which the filter is left out (each costs a
    /// look-up at every position step 1 admits).
    const MAX_CLASSES: usize = 3;

    fn new(pats: &[Vec<u8>], q: usize, fold: bool) -> Option<Prefixes> {
        if q >= 8 {
            return None;
        }
        let mut lens: Vec<usize> = pats.iter().map(|p| p.len().min(8)).collect();
        lens.sort_unstable();
        lens.dedup();
        if lens.len() > Self::MAX_CLASSES {
            return None;
        }
        let nbits = (usize::BITS - (pats.len() * 32 - 1).leading_zeros()).clamp(12, 24);
        let mut f = Prefixes {
            classes: lens.iter().map(|&l| key_mask(l, fold)).collect(),
            shift: 64 - nbits,
            bits: vec![0u64; (1usize << nbits) / 64],
        };
        for p in pats {
            let len = p.len().min(8);
            let h = f.slot(key8(p, len), key_mask(len, fold));
            f.bits[h >> 6] |= 1 << (h & 63);
        }
        Some(f)
    }

    /// The bit of `word` in a length class: the class's mask is part of
    /// the hashed value, so that classes do not share keys.
    #[inline(always)]
    fn slot(&self, word: u64, (mask, or): (u64, u64)) -> usize {
        let k = ((word | or) & mask) ^ mask.rotate_left(7);
        (k.wrapping_mul(MUL64) >> self.shift) as usize
    }

    /// Whether some class admits the position whose 8 bytes are `word`.
    #[inline(always)]
    fn admits(&self, word: u64) -> bool {
        self.classes.iter().any(|&c| {
            let h = self.slot(word, c);
            self.bits[h >> 6] & (1 << (h & 63)) != 0
        })
    }
}

/// Whether the CPU has what the AVX-512 sampling loops need; they run
/// wherever it does. One core, 1,000 Python identifiers in Python text (the
/// sixteen-lane loop): the GPU machine's Xeon 0.44 GB/s scalar, 0.97-0.99
/// AVX-512; an AMD EPYC (Zen 4) 1.10 scalar, 1.76 AVX-512 (the eight-lane
/// loop before it: 1.25). Identifiers of 9 bytes and more (the eight-lane
/// loop), on the EPYC: 1.75 scalar, 1.89 AVX-512.
fn avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The mask of a little-endian load's low `len` (1..=8) bytes, and the
/// `0x20` bits of those bytes that ASCII case folding ORs in (0 without
/// `fold`).
fn key_mask(len: usize, fold: bool) -> (u64, u64) {
    let mask = if len == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * len)) - 1
    };
    (
        mask,
        if fold {
            0x2020_2020_2020_2020 & mask
        } else {
            0
        },
    )
}

/// The 8 bytes at `hay[i..]`, little-endian (`i + 8 <= hay.len()`).
#[inline(always)]
fn load8(hay: &[u8], i: usize) -> u64 {
    let w: [u8; 8] = hay[i..i + 8].try_into().expect("8 bytes");
    u64::from_le_bytes(w)
}

/// Up to 8 first bytes, zero-padded, as a big-endian number: comparing
/// two such keys orders the strings as far as their first 8 bytes do.
fn prefix_key(p: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = p.len().min(8);
    w[..n].copy_from_slice(&p[..n]);
    u64::from_be_bytes(w)
}

/// ASCII upper-case letters of the 8 bytes in `x` lowered (SWAR: a byte's
/// high bit says whether it lies in `A..=Z`; no carry crosses bytes).
fn lower8(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    let low7 = x & !HIGH;
    let from_a = low7 + ONES * (0x80 - b'A' as u64);
    let past_z = low7 + ONES * (0x80 - b'Z' as u64 - 1);
    let upper = from_a & !past_z & !x & HIGH;
    x | (upper >> 2)
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

    /// Whether `p` occurs at `hay[i..]` (ASCII case folded with `fold`).
    fn occurs(hay: &[u8], i: usize, p: &[u8], fold: bool) -> bool {
        hay.len() - i >= p.len()
            && if fold {
                hay[i..i + p.len()].eq_ignore_ascii_case(p)
            } else {
                &hay[i..i + p.len()] == p
            }
    }

    fn naive(set: &LiteralSet, hay: &[u8]) -> Vec<usize> {
        (0..hay.len())
            .filter(|&i| {
                set.patterns
                    .iter()
                    .any(|p| occurs(hay, i, p, set.fold_ascii))
            })
            .collect()
    }

    fn found(h: &HashedLiterals, hay: &[u8]) -> Vec<usize> {
        let mut v = Vec::new();
        h.for_each(hay, |i| v.push(i));
        v
    }

    /// Leftmost-first matches of the patterns in their listed order, one
    /// after another as a regex alternation finds them.
    fn naive_leftmost_first(listed: &[Vec<u8>], fold: bool, hay: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < hay.len() {
            match listed.iter().find(|p| occurs(hay, i, p, fold)) {
                Some(p) => {
                    out.push((i, i + p.len()));
                    i += p.len();
                }
                None => i += 1,
            }
        }
        out
    }

    fn ranked(listed: &[Vec<u8>], fold: bool) -> HashedLiterals {
        let set = LiteralSet::new(listed.to_vec(), fold);
        let mut h = HashedLiterals::new(&set).unwrap();
        let lowered: Vec<Vec<u8>> = listed.iter().map(|p| LiteralSet::folded(p, fold)).collect();
        assert!(
            h.rank(
                lowered
                    .iter()
                    .enumerate()
                    .map(|(r, p)| (r as u32, p.as_slice()))
            )
        );
        h
    }

    fn matches(h: &HashedLiterals, hay: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        while let Some((s, e)) = h.find_match(hay, at) {
            out.push((s, e));
            at = e;
        }
        out
    }

    /// The finder of `pats`, and `hay` with the first patterns planted in
    /// it: at its start, at its end and in between.
    fn planted(
        pats: Vec<Vec<u8>>,
        mut hay: Vec<u8>,
        fold: bool,
    ) -> (LiteralSet, HashedLiterals, Vec<u8>) {
        for (k, p) in pats.iter().enumerate().take(4) {
            let at = match k {
                0 => 0,
                1 => hay.len(),
                _ => hay.len() * k / 4,
            };
            hay.splice(at..at, p.iter().copied());
        }
        let set = LiteralSet::new(pats, fold);
        let h = HashedLiterals::new(&set).unwrap();
        (set, h, hay)
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

    /// A case: `count` patterns of `len` bytes (none holding a newline,
    /// at least one), a haystack of up to `hay` bytes, and folding or not.
    fn case(
        len: std::ops::Range<usize>,
        count: std::ops::Range<usize>,
        hay: usize,
    ) -> impl Strategy<Value = (Vec<Vec<u8>>, Vec<u8>, bool)> {
        let pats = proptest::collection::vec(proptest::collection::vec(byte(), len), count)
            .prop_map(|pats| pats.into_iter().filter(|p| !p.contains(&b'\n')).collect())
            .prop_filter("no pattern left", |pats: &Vec<Vec<u8>>| !pats.is_empty());
        (
            pats,
            proptest::collection::vec(byte(), 0..hay),
            any::<bool>(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn equals_the_naive_reference(
            (pats, hay, fold) in case(1..9, 1..60, 600),
        ) {
            let set = LiteralSet::new(pats, fold);
            let h = HashedLiterals::new(&set).unwrap();
            prop_assert_eq!(found(&h, &hay), naive(&set, &hay));
        }

        /// Sets whose shortest pattern allows the sampled pre-filter
        /// (strides 2 to 8, grams of 4 to 8 bytes).
        #[test]
        fn sampled_equals_the_naive_reference(
            (pats, hay, fold) in case(5..20, 1..60, 700),
        ) {
            let (set, mut h, hay) = planted(pats, hay, fold);
            let want = naive(&set, &hay);
            for simd in [false, true] {
                h.set_avx512(simd);
                prop_assert_eq!(&found(&h, &hay), &want, "avx512 {}", simd);
            }
        }

        /// Lengths 6 to 10: step 1 keys on 6 bytes and the whole-prefix
        /// filter has the classes 6, 7 and 8.
        #[test]
        fn prefix_filter_equals_the_naive_reference(
            (pats, hay, fold) in case(6..11, 1..40, 500),
        ) {
            let (set, h, hay) = planted(pats, hay, fold);
            prop_assert_eq!(h.prefixes.is_some(), set.min_len() < 8);
            prop_assert_eq!(found(&h, &hay), naive(&set, &hay));
        }

        #[test]
        fn leftmost_first_equals_the_naive_reference(
            (listed, hay, fold) in case(1..7, 1..40, 400),
        ) {
            let h = ranked(&listed, fold);
            prop_assert_eq!(matches(&h, &hay), naive_leftmost_first(&listed, fold, &hay));
        }
    }

    #[test]
    fn leftmost_first_prefers_the_earlier_listed() {
        let listed: Vec<Vec<u8>> = [&b"ab"[..], b"abcd", b"abc", b"b", b"AB"]
            .iter()
            .map(|p| p.to_vec())
            .collect();
        for fold in [false, true] {
            let h = ranked(&listed, fold);
            for hay in [&b"abcd"[..], b"xabcabd", b"ABCD", b"bab", b""] {
                assert_eq!(
                    matches(&h, hay),
                    naive_leftmost_first(&listed, fold, hay),
                    "{hay:?} fold {fold}"
                );
            }
        }
        let set = LiteralSet::new(listed.clone(), false);
        let mut h = HashedLiterals::new(&set).unwrap();
        assert!(!h.rank([(0, &b"zz"[..])]), "a pattern outside the set");
        assert!(!h.rank([(0, &b"ab"[..])]), "patterns left unranked");
        assert!(!h.ranked());
    }

    #[test]
    fn lower8_lowers_exactly_ascii_capitals() {
        for b in 0..=255u8 {
            let x = u64::from_le_bytes([b, b'Z', 0xC1, b'@', b'[', b'a', 0xDA, b'A']);
            let want = u64::from_le_bytes(
                [b, b'Z', 0xC1, b'@', b'[', b'a', 0xDA, b'A'].map(|c| c.to_ascii_lowercase()),
            );
            assert_eq!(lower8(x), want, "{b:#x}");
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
    fn sampler_strides_and_grams() {
        let of = |n: usize, len: usize| {
            let pats: Vec<Vec<u8>> = (0..n).map(|i| format!("{i:0len$}").into_bytes()).collect();
            Sampler::new(&pats, len, false, false).map(|s| (s.stride, s.mask.count_ones() / 8))
        };
        assert_eq!(of(10, 4), None);
        assert_eq!(of(10, 5), Some((2, 4)));
        assert_eq!(of(1000, 6), Some((3, 4)));
        assert_eq!(of(1000, 7), Some((4, 4)));
        assert_eq!(of(1000, 9), Some((4, 6)));
        assert_eq!(of(1000, 12), Some((5, 8)));
        assert_eq!(of(1000, 40), Some((8, 8)));
        assert_eq!(of(5000, 6), Some((2, 5)));
        assert_eq!(of(5000, 12), Some((4, 8)));
        assert_eq!(of(30_000, 12), None);
    }

    /// Short and long patterns (the sampler's two kinds of grams) at every
    /// offset of the 64-byte blocks the AVX-512 loop loads, and at the ends.
    #[test]
    fn split_sampler_at_every_offset() {
        for fold in [false, true] {
            let pats: Vec<Vec<u8>> = [
                &b"spam_6"[..],
                b"eggs_and_ham_12",
                b"Parrot_9",
                b"dead_parrot_sketch",
            ]
            .iter()
            .map(|p| p.to_vec())
            .collect();
            let set = LiteralSet::new(pats.clone(), fold);
            let mut h = HashedLiterals::new(&set).unwrap();
            assert!(h.sampler.as_ref().is_some_and(|s| s.long_or.is_some()));
            for p in &pats {
                for at in 0..140 {
                    let mut hay = b"self._spam_ eggs_and_ parrot ".repeat(7);
                    hay.truncate(at + 20);
                    hay.splice(at..at, p.iter().copied());
                    if fold {
                        hay[at..at + p.len()].make_ascii_uppercase();
                    }
                    let want = naive(&set, &hay);
                    assert!(want.contains(&at));
                    for simd in [false, true] {
                        h.set_avx512(simd);
                        assert_eq!(found(&h, &hay), want, "{p:?} at {at}, avx512 {simd}");
                    }
                }
            }
        }
    }

    #[test]
    fn sampled_with_thousands_of_patterns() {
        for (n, fold) in [(1500, false), (5000, true)] {
            let pats: Vec<Vec<u8>> = (0..n)
                .map(|i| format!("get_{:05}", i * 7919 % 100_003).into_bytes())
                .collect();
            let set = LiteralSet::new(pats.clone(), fold);
            let mut h = HashedLiterals::new(&set).unwrap();
            assert!(h.sampler.is_some());
            let mut hay = b"x = GET_0001 + get_07919 - get_ + Get_15838get_00000\n".repeat(5);
            for p in pats.iter().step_by(97) {
                hay.extend_from_slice(p);
                hay.extend_from_slice(b" \xC3\xA9 ");
            }
            hay.extend_from_slice(&pats[n - 1]);
            for simd in [false, true] {
                h.set_avx512(simd);
                assert_eq!(found(&h, &hay), naive(&set, &hay), "{n} patterns");
                for cut in 0..12 {
                    assert_eq!(found(&h, &hay[cut..]), naive(&set, &hay[cut..]));
                }
            }
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
