//! One literal that decides lines by itself (`Plan::single_literal`: one
//! case-sensitive pattern, no `-w`/`-x`, no `\n` in it). Its matching
//! lines and matches are found with `memchr` alone: no regex call and no
//! look back for the line start per matching line, which is what a
//! frequent literal (`e` in C: 2 of 3 lines) spends its time on otherwise.
//!
//! The counts equal ripgrep's: a match never holds a line terminator, so
//! the non-overlapping occurrences of the whole text are those of each
//! line searched on its own (`--count-matches`), and a line matches when
//! it holds one (`-c`).

use memchr::memmem;

/// See the module's text.
pub struct Literal<'p> {
    finder: memmem::Finder<'p>,
    /// The literal when it is one byte (counted by `memchr`'s vector count).
    byte: Option<u8>,
}

impl<'p> Literal<'p> {
    /// `None` for the empty literal or one holding `\n`.
    pub fn new(needle: &'p [u8]) -> Option<Literal<'p>> {
        if needle.is_empty() || needle.contains(&b'\n') {
            return None;
        }
        Some(Literal {
            finder: memmem::Finder::new(needle),
            byte: (needle.len() == 1).then(|| needle[0]),
        })
    }

    /// The first occurrence at or after `at` in `hay`.
    fn find(&self, hay: &[u8], at: usize) -> Option<usize> {
        match self.byte {
            Some(b) => memchr::memchr(b, &hay[at..]),
            None => self.finder.find(&hay[at..]),
        }
        .map(|i| at + i)
    }

    /// Calls `f(start, end)` for every line of `lines` (which begins at a
    /// line start) holding the literal, in order; `end` is past the line's
    /// terminator (or the end of `lines`). The start is the previous
    /// line's end, or found by one `memrchr` back from the occurrence.
    pub fn for_each_line(&self, lines: &[u8], mut f: impl FnMut(usize, usize)) {
        let mut p = 0;
        while let Some(at) = self.find(lines, p) {
            let start = memchr::memrchr(b'\n', &lines[p..at]).map_or(p, |k| p + k + 1);
            let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |k| at + k + 1);
            f(start, end);
            p = end;
        }
    }

    /// The lines of `lines` (which begins at a line start) holding the
    /// literal: a search for it, then for the line's end, and on.
    pub fn count_lines(&self, lines: &[u8]) -> u64 {
        let (mut n, mut p) = (0u64, 0usize);
        while let Some(at) = self.find(lines, p) {
            n += 1;
            match memchr::memchr(b'\n', &lines[at..]) {
                Some(k) => p = at + k + 1,
                None => break,
            }
        }
        n
    }

    /// The non-overlapping occurrences in `hay`.
    pub fn count_matches(&self, hay: &[u8]) -> u64 {
        match self.byte {
            Some(b) => memchr::memchr_iter(b, hay).count() as u64,
            None => self.finder.find_iter(hay).count() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line by line, as ripgrep's printers count.
    fn reference(data: &[u8], needle: &[u8]) -> (u64, u64, Vec<(usize, usize)>) {
        let (mut lines, mut matches, mut at, mut spans) = (0, 0, 0, Vec::new());
        for line in data.split_inclusive(|&b| b == b'\n') {
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            let n = memmem::find_iter(body, needle).count() as u64;
            if n > 0 {
                lines += 1;
                matches += n;
                spans.push((at, at + line.len()));
            }
            at += line.len();
        }
        (lines, matches, spans)
    }

    #[test]
    fn counts_and_lines_equal_a_line_by_line_scan() {
        let texts: [&[u8]; 8] = [
            b"",
            b"e",
            b"\n",
            b"eee\nabc\n\ne\n",
            b"xx\r\neee\r\nno\r\ne",
            b"aaaa\naaa\naa\na\n",
            b"struct a; struct b;\nnone\nstructstruct",
            b"\n\nab\nba\naba\nbab",
        ];
        for data in texts {
            for needle in [&b"e"[..], b"aa", b"struct", b"ab", b"a"] {
                let lit = Literal::new(needle).unwrap();
                let (lines, matches, spans) = reference(data, needle);
                assert_eq!(lit.count_lines(data), lines, "{data:?} {needle:?}");
                assert_eq!(lit.count_matches(data), matches, "{data:?} {needle:?}");
                let mut got = Vec::new();
                lit.for_each_line(data, |s, e| got.push((s, e)));
                assert_eq!(got, spans, "{data:?} {needle:?}");
            }
        }
        assert!(Literal::new(b"").is_none());
        assert!(Literal::new(b"a\nb").is_none());
    }
}
