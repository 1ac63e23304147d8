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

/// Lower bound of `key` over the line starts in `[lo, len]`, by binary
/// search on byte offsets. `lo` must be a line start such that every line
/// before it sorts below `key`; `below` is the line just before `lo`, if
/// known (for the order check). Every probed line is checked against the
/// lines that bracket it; a violation is returned as [`Disorder`].
///
/// Returns the offset of the first line that sorts `>= key` (the file
/// length if none) and the line start of the last probed line below it.
pub fn lower_bound_offsets(
    text: &Text<'_>,
    key: &[u8],
    fold: bool,
    lo: usize,
    below: Option<usize>,
) -> Result<(usize, Option<usize>), Disorder> {
    let mut lo = lo;
    let mut hi = text.len();
    // Offsets of the bracketing lines read so far: all lines at `lo_line`
    // and before sort below the key; `hi_line` sorts at or above it.
    let mut lo_line = below;
    let mut hi_line: Option<usize> = None;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let s = text.line_start_back(mid, lo);
        let (line, next) = text.line_at(s);
        if let Some(l) = lo_line {
            if cmp_text(text.line_at(l).0, line, fold) == Ordering::Greater {
                return Err(Disorder {
                    first: l,
                    second: s,
                });
            }
        }
        if let Some(h) = hi_line {
            if cmp_text(line, text.line_at(h).0, fold) == Ordering::Greater {
                return Err(Disorder {
                    first: s,
                    second: h,
                });
            }
        }
        if cmp_text(line, key, fold) == Ordering::Less {
            lo = next;
            lo_line = Some(s);
        } else {
            hi = s;
            hi_line = Some(s);
        }
    }
    Ok((lo, lo_line))
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
            b"", b"a", b"a\0", b"a\0\0", b"ab", b"abcdefgh", b"abcdefgh\0", b"abcdefghi",
            b"abcdefgz", b"b", b"\xff", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        words.sort();
        for w in words.windows(2) {
            assert!(prefix_key(w[0], false) <= prefix_key(w[1], false));
        }
        assert_eq!(prefix_key(b"abc", true), prefix_key(b"ABC", false));
    }

    #[test]
    fn offsets_search() {
        let data = b"a\nb\nb\nc\nd";
        let t = Text::new(data);
        assert_eq!(lower_bound_offsets(&t, b"b", false, 0, None).unwrap().0, 2);
        assert_eq!(lower_bound_offsets(&t, b"", false, 0, None).unwrap().0, 0);
        assert_eq!(lower_bound_offsets(&t, b"bb", false, 0, None).unwrap().0, 6);
        assert_eq!(lower_bound_offsets(&t, b"d", false, 0, None).unwrap().0, 8);
        assert_eq!(lower_bound_offsets(&t, b"e", false, 0, None).unwrap().0, 9);
        let empty = Text::new(b"");
        assert_eq!(lower_bound_offsets(&empty, b"x", false, 0, None).unwrap().0, 0);
        assert_eq!(t.line_number(6), 4);
    }
}
