//! Lines of a sorted file: comparison rules and the CPU search over byte
//! offsets.
//!
//! Order: bytewise, as `LC_ALL=C sort` (shorter line first when one is a
//! prefix of the other; the `\n` is not part of a line). With `fold`, bytes
//! `a`..=`z` compare as `A`..=`Z`, as `LC_ALL=C sort -f` does (GNU sort
//! folds to UPPER case, so `_` (0x5F) sorts after `Z` and before `a`..`z`).

use std::cmp::Ordering;

/// ASCII upper-case folding of one byte (GNU `sort -f` in the C locale).
#[inline]
pub fn fold_byte(b: u8) -> u8 {
    b.to_ascii_uppercase()
}

/// Compare two lines (or a line and a key) in the file's order.
#[inline]
pub fn cmp_text(a: &[u8], b: &[u8], fold: bool) -> Ordering {
    if !fold {
        // Most comparisons of distinct lines are decided by the first 8
        // bytes: compare them as big-endian words before calling memcmp.
        if let (Some(x), Some(y)) = (a.first_chunk::<8>(), b.first_chunk::<8>()) {
            let (x, y) = (u64::from_be_bytes(*x), u64::from_be_bytes(*y));
            if x != y {
                return x.cmp(&y);
            }
            return a[8..].cmp(&b[8..]);
        }
        return a.cmp(b);
    }
    let n = a.len().min(b.len());
    for i in 0..n {
        let (x, y) = (fold_byte(a[i]), fold_byte(b[i]));
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

/// Whether `line` begins with `key` under the file's order.
#[inline]
pub fn starts_with(line: &[u8], key: &[u8], fold: bool) -> bool {
    if !fold {
        return line.starts_with(key);
    }
    line.len() >= key.len() && line[..key.len()].eq_ignore_ascii_case(key)
}

/// The first 8 bytes of `s` (folded when asked), zero-padded, as a
/// big-endian u64: `a <= b` implies `prefix_key(a) <= prefix_key(b)`, so a
/// lower bound over these keys is at or before the true lower bound, and
/// every element in between has the same prefix key (ties the host
/// resolves with [`cmp_text`]).
#[inline]
pub fn prefix_key(s: &[u8], fold: bool) -> u64 {
    let mut b = [0u8; 8];
    let n = s.len().min(8);
    b[..n].copy_from_slice(&s[..n]);
    if fold {
        for x in &mut b {
            *x = fold_byte(*x);
        }
    }
    u64::from_be_bytes(b)
}

/// A file's bytes seen as lines.
#[derive(Clone, Copy)]
pub struct Text<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Text<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Text { bytes }
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Start of the line holding byte `pos`, not before `floor` (a line
    /// start): scans back to the previous `\n`.
    #[inline]
    pub fn line_start_back(&self, pos: usize, floor: usize) -> usize {
        match memchr::memrchr(b'\n', &self.bytes[floor..pos]) {
            Some(i) => floor + i + 1,
            None => floor,
        }
    }

    /// The line starting at `start` (without `\n`) and the start of the
    /// next line (the file length at the end).
    #[inline]
    pub fn line_at(&self, start: usize) -> (&'a [u8], usize) {
        let rest = &self.bytes[start..];
        match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], start + i + 1),
            None => (rest, self.bytes.len()),
        }
    }

    /// 1-based line number of the line starting at `start`.
    pub fn line_number(&self, start: usize) -> u64 {
        memchr::memchr_iter(b'\n', &self.bytes[..start]).count() as u64 + 1
    }
}

/// Where order was found broken: the offsets of two line starts, `first`
/// before `second` in the file, `first` sorting after `second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disorder {
    pub first: usize,
    pub second: usize,
}

/// Binary search over byte offsets for a sequence of keys given in
/// non-decreasing order (each search starts where the previous ended).
///
/// Order check: every line the search reads is compared with the nearest
/// lines already read before and after it in the file (the lower bracket
/// `lo_line`, and the stack `above` of lines read beyond `lo`), so the set
/// of lines read, across all keys, is verified to be in order. A violation
/// is returned as [`Disorder`].
pub struct OffsetSearch<'t> {
    text: Text<'t>,
    fold: bool,
    /// Every line before `lo` sorts below the current key.
    lo: usize,
    /// The last line read below `lo` (the lower bracket): start and bytes.
    lo_line: Option<Read<'t>>,
    /// Lines read at offsets >= `lo`, strictly decreasing from bottom to
    /// top (the top is the nearest to `lo`), verified in order.
    above: Vec<Read<'t>>,
}

/// A line read: its start and its bytes (kept, so that checks against it
/// need not find its end again).
#[derive(Clone, Copy)]
struct Read<'t> {
    start: usize,
    line: &'t [u8],
}

impl<'t> OffsetSearch<'t> {
    pub fn new(text: Text<'t>, fold: bool) -> Self {
        OffsetSearch {
            text,
            fold,
            lo: 0,
            lo_line: None,
            above: Vec::new(),
        }
    }

    fn read(&self, start: usize) -> Read<'t> {
        Read {
            start,
            line: self.text.line_at(start).0,
        }
    }

    /// A search whose brackets were read (and checked in order) by another
    /// search: every line before `lo` sorts below the first key, `lo_line`
    /// is the line just before `lo`, and `above` holds line starts `>= lo`
    /// sorting at or above the keys, strictly decreasing (the nearest last).
    /// Lines this search reads are checked against them, so that the lines
    /// read by both searches stay verified in order.
    pub fn bracketed(
        text: Text<'t>,
        fold: bool,
        lo: usize,
        lo_line: Option<usize>,
        above: Vec<usize>,
    ) -> Self {
        let mut s = OffsetSearch::new(text, fold);
        s.lo = lo;
        s.lo_line = lo_line.map(|l| s.read(l));
        s.above = above.into_iter().map(|a| s.read(a)).collect();
        s
    }

    /// The line just before `lo` (start and bytes), when one was read: the
    /// line before the last answer.
    pub fn line_before(&self) -> Option<(usize, &'t [u8])> {
        self.lo_line.map(|r| (r.start, r.line))
    }

    /// Where the search stands: `lo` (every line before it sorts below the
    /// last key) and the line just before it, when one was read.
    pub fn position(&self) -> (usize, Option<usize>) {
        (self.lo, self.lo_line.map(|r| r.start))
    }

    /// Narrow the search for the next key to a bracket read and checked by
    /// another pass (a sample index): the line at `below` sorts below the
    /// key, the line at `above` (`None`: the end of the file) at or above
    /// it. A bracket behind what this search knows already changes nothing.
    pub fn narrow(&mut self, below: Option<usize>, above: Option<usize>) {
        if let Some(b) = below {
            let (line, next) = self.text.line_at(b);
            if next > self.lo {
                self.lo = next;
                self.lo_line = Some(Read { start: b, line });
                self.above.clear();
            }
        }
        if let Some(a) = above
            && a >= self.lo
            && self.above.last().is_none_or(|t| a < t.start)
        {
            let r = self.read(a);
            self.above.push(r);
        }
    }

    /// Error unless line `a` sorts at or below line `b` (`a` before `b` in
    /// the file).
    #[inline]
    fn check(&self, a: Read<'_>, b: Read<'_>) -> Result<(), Disorder> {
        if cmp_text(a.line, b.line, self.fold) == Ordering::Greater {
            return Err(Disorder {
                first: a.start,
                second: b.start,
            });
        }
        Ok(())
    }

    /// Offset of the first line that sorts `>= key` (the file length if
    /// none). Keys must come in non-decreasing order.
    pub fn lower_bound(&mut self, key: &[u8]) -> Result<usize, Disorder> {
        let text = self.text;
        // Lines read for earlier keys that sort below this key move the
        // lower bracket up.
        while let Some(&top) = self.above.last() {
            if cmp_text(top.line, key, self.fold) != Ordering::Less {
                break;
            }
            self.above.pop();
            // The line's end plus its `\n` (the last line may have none).
            self.lo = (top.start + top.line.len() + 1).min(text.len());
            self.lo_line = Some(top);
        }
        let mut hi = self.above.last().map_or(text.len(), |t| t.start);
        while self.lo < hi {
            let mid = self.lo + (hi - self.lo) / 2;
            let start = text.line_start_back(mid, self.lo);
            let (line, next) = text.line_at(start);
            let probe = Read { start, line };
            if let Some(l) = self.lo_line {
                self.check(l, probe)?;
            }
            if let Some(&h) = self.above.last() {
                self.check(probe, h)?;
            }
            if cmp_text(line, key, self.fold) == Ordering::Less {
                self.lo = next;
                self.lo_line = Some(probe);
            } else {
                hi = start;
                self.above.push(probe);
            }
        }
        Ok(self.lo)
    }

    /// Tell the search that the caller read every line from the last
    /// answer up to the line starting at `pos` (each checked against the
    /// one before it), so that `pos` joins the lines read.
    pub fn scanned_to(&mut self, pos: usize) -> Result<(), Disorder> {
        while self.above.last().is_some_and(|t| t.start <= pos) {
            self.above.pop();
        }
        if pos < self.text.len() {
            let r = self.read(pos);
            if let Some(&top) = self.above.last() {
                self.check(r, top)?;
            }
            self.above.push(r);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_matches_sort_f() {
        // LC_ALL=C sort -f puts "_x" after "Zed" and "zed" (upper folding).
        assert_eq!(cmp_text(b"zed", b"_x", true), Ordering::Less);
        assert_eq!(cmp_text(b"Zed", b"[z", true), Ordering::Less);
        assert_eq!(cmp_text(b"apple", b"APPLE", true), Ordering::Equal);
        assert_eq!(cmp_text(b"apple", b"APPLE pie", true), Ordering::Less);
        assert_eq!(cmp_text(b"_x", b"zed", false), Ordering::Less);
        assert!(starts_with(b"APPLE pie", b"apple", true));
        assert!(!starts_with(b"APPLE pie", b"apple", false));
        assert!(starts_with(b"x", b"", false));
    }

    #[test]
    fn prefix_keys_are_monotone() {
        let mut words: Vec<&[u8]> = vec![
            b"",
            b"a",
            b"a\0",
            b"a\0\0",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"abcdefgz",
            b"b",
            b"\xff",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        words.sort();
        for w in words.windows(2) {
            assert!(prefix_key(w[0], false) <= prefix_key(w[1], false));
        }
        assert_eq!(prefix_key(b"abc", true), prefix_key(b"ABC", false));
    }

    fn lb(data: &[u8], key: &[u8]) -> usize {
        OffsetSearch::new(Text::new(data), false)
            .lower_bound(key)
            .unwrap()
    }

    #[test]
    fn offsets_search() {
        let data = b"a\nb\nb\nc\nd";
        assert_eq!(lb(data, b"b"), 2);
        assert_eq!(lb(data, b""), 0);
        assert_eq!(lb(data, b"bb"), 6);
        assert_eq!(lb(data, b"d"), 8);
        assert_eq!(lb(data, b"e"), 9);
        assert_eq!(lb(b"", b"x"), 0);
        assert_eq!(Text::new(data).line_number(6), 4);
        // successive keys reuse what was read
        let mut s = OffsetSearch::new(Text::new(data), false);
        let got: Vec<usize> = [&b"a"[..], b"b", b"c", b"cc", b"z"]
            .iter()
            .map(|k| s.lower_bound(k).unwrap())
            .collect();
        assert_eq!(got, vec![0, 2, 6, 8, 9]);
    }
}
