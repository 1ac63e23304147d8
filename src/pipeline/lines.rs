//! Line arithmetic shared by the paths that cut a file among threads:
//! where the next line starts, how to cut a range into line-aligned
//! pieces, and which lines of a piece a matcher matches.

use grep_matcher::Matcher;

use crate::matcher::lines::{line_is_match, line_is_match_in, reads_before};

use crate::pipeline::literal::Literal;
use crate::pipeline::readahead::ReadAhead;
use crate::sys::guard::{GuardedMap, RELEASE_STEP};

/// The first line start at or after `at` (or the end of `data`) where a
/// search may begin afresh: one whose line does not
/// [`reads_before`], within
/// [`CUT_REACH`]. The paths that cut a file among threads cut there, so
/// each piece answers what one search of the whole file answers.
pub fn next_line_start(data: &[u8], at: usize) -> usize {
    let mut s = if at == 0 || at >= data.len() || data[at - 1] == b'\n' {
        at.min(data.len())
    } else {
        line_end(data, at)
    };
    let first = s;
    while s < data.len() && reads_before(data, s) && s - first < CUT_REACH {
        s = line_end(data, s);
    }
    s
}

/// The start of the line holding `at`, moved back over lines that
/// [`reads_before`] (within
/// [`CUT_REACH`]): where a search that must see that line may begin.
pub fn prev_line_start(data: &[u8], at: usize) -> usize {
    let mut s = memchr::memrchr(b'\n', &data[..at]).map_or(0, |k| k + 1);
    let first = s;
    while reads_before(data, s) && first - s < CUT_REACH {
        s = memchr::memrchr(b'\n', &data[..s - 1]).map_or(0, |k| k + 1);
    }
    s
}

/// How far a cut moves over lines that open with a continuation byte: in
/// a file made of such lines (`-a` on binary data, Latin-1 text) the
/// pieces stay bounded, and only a run of them this long could answer
/// differently from one search of the file.
pub const CUT_REACH: usize = 1 << 20;

/// Where the line holding offset `s` ends (after its `\n`, or the end of
/// `data`).
pub fn line_end(data: &[u8], s: usize) -> usize {
    memchr::memchr(b'\n', &data[s..]).map_or(data.len(), |i| s + i + 1)
}

/// About `n` ranges covering `[a, b)` of `data`, each starting at a line
/// start, so no line spans two ranges. Returns the boundaries, `a` first
/// and `b` last, strictly increasing.
pub fn split(data: &[u8], a: usize, b: usize, n: usize) -> Vec<usize> {
    let step = (b - a).div_ceil(n.max(1)).max(1);
    let mut v = vec![a];
    let mut at = a + step;
    while at < b {
        let cut = next_line_start(&data[..b], at);
        if cut > *v.last().unwrap() && cut < b {
            v.push(cut);
        }
        at = cut.max(at) + step;
    }
    v.push(b);
    v
}

/// Lines longer than this are not decided by [`confirm`] (kept): its work
/// stays bounded on text with few newlines.
pub const CONFIRM_MAX_LINE: usize = 1 << 20;

/// Which of the lines at `offsets` (sorted offsets into `data`, each
/// inside its line) `matcher` matches, decided on `threads` threads in
/// pieces (`done` gets each piece's bytes once decided, for releasing
/// them): true for a matching line, and for a line this does not decide:
/// one `data` does not hold whole (running in from before it, unless
/// `starts`, or past its end, unless `ends`) or one longer than
/// [`CONFIRM_MAX_LINE`]. The DFA kernels answer candidate lines; this
/// confirms them on every core rather than one after another where they
/// are printed in order.
pub fn confirm<M: Matcher>(
    data: &[u8],
    offsets: &[u64],
    (starts, ends): (bool, bool),
    threads: usize,
    (matcher, done): (
        &(dyn Fn() -> M + Sync),
        &(dyn Fn(std::ops::Range<usize>) + Sync),
    ),
) -> Vec<bool> {
    let piece = offsets.len().div_ceil(threads.max(1) * 4).max(256);
    let pieces: Vec<&[u64]> = offsets.chunks(piece).collect();
    let line = |o: usize| {
        let lo = o.saturating_sub(CONFIRM_MAX_LINE);
        let hi = (o + CONFIRM_MAX_LINE).min(data.len());
        let start = match memchr::memrchr(b'\n', &data[lo..o]) {
            Some(i) => lo + i + 1,
            None if lo == 0 && starts => 0,
            None => return None,
        };
        let end = match memchr::memchr(b'\n', &data[o..hi]) {
            Some(i) => o + i + 1,
            None if hi == data.len() && ends => hi,
            None => return None,
        };
        Some(start..end)
    };
    let parts = crate::sys::par_map(&pieces, threads, |p| {
        let m = matcher();
        let (mut lo, mut hi) = (usize::MAX, 0);
        let keep: Vec<bool> = p
            .iter()
            .map(|&o| match line(o as usize) {
                Some(r) => {
                    (lo, hi) = (lo.min(r.start), hi.max(r.end));
                    // Whether the line before was examined is not known
                    // here: kept if either search matches (the printer
                    // decides in order).
                    line_is_match_in(&m, data, r, false)
                }
                None => true,
            })
            .collect();
        if lo < hi {
            done(lo..hi);
        }
        keep
    });
    parts.concat()
}

/// The starts (within `lines`, which begins at a line start) of the lines
/// `matcher` matches, in order, each once.
pub fn matching_line_starts<M: Matcher>(lines: &[u8], matcher: &M) -> Vec<usize> {
    let mut out = Vec::new();
    for_each_matching_line(lines, matcher, |start, _| out.push(start));
    out
}

/// Calls `f(start, end)` for every line of `lines` (which begins at a line
/// start) that `matcher` matches, in order, each once; `end` is past the
/// line's terminator (or the end of `lines`).
pub fn for_each_matching_line<M: Matcher>(
    lines: &[u8],
    matcher: &M,
    mut f: impl FnMut(usize, usize),
) {
    use grep_matcher::LineMatchKind;
    // `p` is always a line start.
    let mut p = 0;
    while p < lines.len() {
        let Ok(Some(kind)) = matcher.find_candidate_line(&lines[p..]) else {
            break;
        };
        let (at, confirmed) = match kind {
            LineMatchKind::Confirmed(i) => (p + i, true),
            LineMatchKind::Candidate(i) => (p + i, false),
        };
        // Matchers report a position in the line or the match's end (grep-
        // regex's `shortest_match`), which is `lines.len()` for a match
        // ending the input: on the last line when that has no terminator;
        // after a final terminator it is an empty match past every line.
        if at > lines.len() || (at == lines.len() && lines.ends_with(b"\n")) {
            break;
        }
        let at = at.min(lines.len() - 1);
        let start = memchr::memrchr(b'\n', &lines[p..at]).map_or(p, |k| p + k + 1);
        let end = memchr::memchr(b'\n', &lines[at..]).map_or(lines.len(), |k| at + k + 1);
        if confirmed || line_is_match(matcher, &lines[start..end]) {
            f(start, end);
        }
        p = end;
    }
}

/// The line terminators (`\n`) in `bytes` (memchr's vector search: on
/// this machine's 100 MB of C, 2.5 M lines, 17 ms against 29 ms for a
/// plain counting loop; `scripts/make-bigfile`).
pub fn count_lines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Bytes counted on one thread at least by [`line_numbers`].
const NUMBERS_PIECE: usize = 4 << 20;

/// The 1-based numbers of the lines holding `offsets` (sorted, none before
/// `pos`), where the line holding `pos` is number `line`: the newlines
/// before each offset counted on up to `threads` threads, each over a
/// piece of at least [`NUMBERS_PIECE`] bytes, whose pages leave the
/// resident set of `map` (if `data` is one) as they are counted.
pub fn line_numbers(
    (data, map): (&[u8], Option<&GuardedMap>),
    (pos, line): (usize, u64),
    offsets: &[u64],
    threads: usize,
) -> Vec<u64> {
    let end = offsets
        .last()
        .map_or(pos, |&o| (o as usize).clamp(pos, data.len()));
    let pieces = ((end - pos) / NUMBERS_PIECE).clamp(1, threads.max(1));
    let step = (end - pos).div_ceil(pieces).max(1);
    let bounds: Vec<(usize, usize)> = (0..pieces)
        .map(|i| (pos + i * step, (pos + (i + 1) * step).min(end)))
        .collect();
    let counted = crate::sys::par_map(&bounds, pieces, |&(a, b)| {
        let lo = match a == pos {
            true => 0,
            false => offsets.partition_point(|&o| (o as usize) < a),
        };
        let hi = offsets.partition_point(|&o| (o as usize) < b);
        newlines_before((data, map), (a, b), &offsets[lo..hi])
    });
    let mut numbers = Vec::with_capacity(offsets.len());
    let mut base = line;
    for (before, total) in counted {
        numbers.extend(before.iter().map(|n| base + n));
        base += total;
    }
    // Offsets at or past `end` (the last one, and any equal to it).
    numbers.resize(offsets.len(), base);
    numbers
}

/// The newlines in `data[a..]` before each of `offsets` (sorted, inside
/// `a..b`, or before `a`: none), and in all of `a..b`; the pages counted
/// leave the resident set of `map` every [`RELEASE_STEP`] bytes.
fn newlines_before(
    (data, map): (&[u8], Option<&GuardedMap>),
    (a, b): (usize, usize),
    offsets: &[u64],
) -> (Vec<u64>, u64) {
    let mut release = crate::sys::guard::Releaser::new(map, a);
    let mut count = |from: usize, to: usize| {
        let mut n = 0;
        for block in (from..to).step_by(RELEASE_STEP) {
            let block_end = (block + RELEASE_STEP).min(to);
            n += count_lines(&data[block..block_end]);
            release.passed(block_end);
        }
        n
    };
    let (mut at, mut n) = (a, 0);
    let mut before = Vec::with_capacity(offsets.len());
    for &o in offsets {
        let o = (o as usize).max(at);
        n += count(at, o);
        at = o;
        before.push(n);
    }
    n += count(at, b);
    release.finish(b);
    (before, n)
}

/// A matching line found by [`matching_lines_until`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbered {
    /// Where the line starts, and ends (past its terminator).
    pub start: usize,
    pub end: usize,
    /// Line terminators before `start`.
    pub line: u64,
}

impl Numbered {
    /// The line `data[range]` alone, the first of its own (numbered 0).
    pub fn alone(range: std::ops::Range<usize>) -> Numbered {
        Numbered {
            start: range.start,
            end: range.end,
            line: 0,
        }
    }
}

/// Appends the lines of `lines` (which begins at a line start) that
/// `matcher` matches to `found`, each moved by `at` and, with `numbers`,
/// with the count of line terminators before it plus `before` (else 0):
/// one pass that numbers while it searches. With `literal` (the plan's
/// single literal, which decides lines alone) the lines are found by it
/// instead of the matcher. Returns the line terminators of `lines` (0
/// without `numbers`).
fn push_matching_lines<M: Matcher>(
    lines: &[u8],
    (matcher, literal): (&M, Option<&Literal<'_>>),
    numbers: bool,
    (at, before): (usize, u64),
    found: &mut Vec<Numbered>,
) -> u64 {
    let (mut pos, mut line) = (0usize, 0u64);
    for_each_line_of(lines, matcher, literal, |start, end| {
        if numbers {
            line += count_lines(&lines[pos..start]);
            pos = start;
        }
        found.push(Numbered {
            start: at + start,
            end: at + end,
            line: if numbers { before + line } else { 0 },
        });
    });
    match numbers {
        true => line + count_lines(&lines[pos..]),
        false => 0,
    }
}

/// Bytes searched between two looks at whether to stop
/// ([`matching_lines_until`]): 32 KiB, a few hundred microseconds of the
/// slowest matchers (a rule set's), a few of a literal's.
pub const STOP_BLOCK: usize = 32 << 10;

/// `data[a..b]` (whole lines) in blocks of whole lines of about `size`
/// bytes, cut where a search may begin afresh ([`next_line_start`]).
pub fn blocks(
    data: &[u8],
    a: usize,
    b: usize,
    size: usize,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = a;
    std::iter::from_fn(move || {
        if at >= b {
            return None;
        }
        let end = next_line_start(&data[..b], at.saturating_add(size).min(b));
        let block = (at, end);
        at = end;
        Some(block)
    })
}

/// The lines of `data[a..b]` (whole lines) that `matcher` (or `literal`,
/// as in [`push_matching_lines`]) matches, and with `numbers` the count of
/// its line terminators, each line numbered by those before it (else
/// unnumbered: 0 and 0), searched in blocks of [`STOP_BLOCK`] with `stop`
/// asked before each: `None` once it says so. Offsets and numbers are from
/// `a`, as for one search of the whole piece.
pub fn matching_lines_until<M: Matcher>(
    data: &[u8],
    (a, b): (usize, usize),
    matcher: &M,
    literal: Option<&Literal<'_>>,
    numbers: bool,
    stop: &dyn Fn() -> bool,
) -> Option<(u64, Vec<Numbered>)> {
    let (mut lines, mut found) = (0u64, Vec::new());
    for (x, y) in blocks(data, a, b, STOP_BLOCK) {
        if stop() {
            return None;
        }
        let each = (x - a, lines);
        lines += push_matching_lines(&data[x..y], (matcher, literal), numbers, each, &mut found);
    }
    Some((lines, found))
}

/// [`for_each_matching_line`], or the literal's own line search when the
/// plan's single literal decides lines alone.
fn for_each_line_of<M: Matcher>(
    lines: &[u8],
    matcher: &M,
    literal: Option<&Literal<'_>>,
    each: impl FnMut(usize, usize),
) {
    match literal {
        Some(l) => l.for_each_line(lines, each),
        None => for_each_matching_line(lines, matcher, each),
    }
}

/// Bytes a thread searches before releasing their pages.
pub const PIECE: usize = 32 << 20;

/// What the threads found.
pub struct Lines {
    /// Start offsets of the matching lines, ascending.
    pub starts: Vec<u64>,
    /// A NUL byte was seen (binary detection must then run as usual).
    pub has_nul: bool,
}

/// Finds the start of every line of `data` that `matcher` matches, with
/// `threads` threads. With `map` (the map `data` is), each thread releases
/// the pages it has searched every [`PIECE`] bytes (see
/// [`GuardedMap::release`]), so the resident set stays near
/// `threads * PIECE` however big the file; and when the map's file is not
/// in the page cache, the threads take [`COLD_PIECE`]s in file order with
/// the kernel reading ahead of them ([`ReadAhead`]).
pub fn matching_lines<M: grep_matcher::Matcher + Sync>(
    data: &[u8],
    matcher: &M,
    threads: usize,
    map: Option<&GuardedMap>,
) -> Lines {
    if let Some((map, ahead)) = map.and_then(|m| Some((m, ReadAhead::cold(m)?))) {
        return in_file_order(data, matcher, threads, map, &ahead);
    }
    let bounds = split(data, 0, data.len(), threads);
    let parts: Vec<(Vec<u64>, bool)> = std::thread::scope(|s| {
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0], w[1]);
                s.spawn(move || {
                    let (mut starts, mut nul) = (Vec::new(), false);
                    let mut from = a;
                    while from < b {
                        let to = next_line_start(data, (from + PIECE).min(b)).min(b);
                        let (found, z) = search_piece(data, from..to, matcher, map);
                        starts.extend(found);
                        nul |= z;
                        from = to;
                    }
                    (starts, nul)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("search thread"))
            .collect()
    });
    merge(parts)
}

/// Bytes a thread claims at a time on a cold file.
pub const COLD_PIECE: usize = 8 << 20;

/// [`matching_lines`] on a file that is not in the page cache: pieces of
/// [`COLD_PIECE`] bytes (whole lines) claimed in file order from one
/// counter, so the threads read the file as one front that `ahead` keeps
/// the disk busy ahead of.
fn in_file_order<M: grep_matcher::Matcher + Sync>(
    data: &[u8],
    matcher: &M,
    threads: usize,
    map: &GuardedMap,
    ahead: &ReadAhead,
) -> Lines {
    let pieces = data.len().div_ceil(COLD_PIECE);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let claim = || {
        let mut mine = Vec::new();
        loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if k >= pieces {
                return mine;
            }
            ahead.reached(k * COLD_PIECE);
            let from = next_line_start(data, k * COLD_PIECE);
            let to = next_line_start(data, ((k + 1) * COLD_PIECE).min(data.len()));
            if from < to {
                mine.push((k, search_piece(data, from..to, matcher, Some(map))));
            }
        }
    };
    let mut parts: Vec<(usize, (Vec<u64>, bool))> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1)).map(|_| s.spawn(claim)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("search thread"))
            .collect()
    });
    parts.sort_unstable_by_key(|p| p.0);
    merge(parts.into_iter().map(|p| p.1).collect())
}

/// The matching lines of `data[range]` (whole lines), as offsets in
/// `data`, and whether it holds a NUL; with `map`, its pages are released
/// afterwards.
fn search_piece<M: Matcher>(
    data: &[u8],
    range: std::ops::Range<usize>,
    matcher: &M,
    map: Option<&GuardedMap>,
) -> (Vec<u64>, bool) {
    let seg = &data[range.clone()];
    let nul = memchr::memchr(0, seg).is_some();
    let starts = matching_line_starts(seg, matcher)
        .into_iter()
        .map(|o| (range.start + o) as u64)
        .collect();
    if let Some(m) = map {
        m.release(range);
    }
    (starts, nul)
}

/// The parts' answers, in the parts' order, as one [`Lines`].
fn merge(parts: Vec<(Vec<u64>, bool)>) -> Lines {
    let mut lines = Lines {
        starts: Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum()),
        has_nul: false,
    };
    for (starts, nul) in parts {
        lines.starts.extend(starts);
        lines.has_nul |= nul;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line numbers over several pieces and threads, from an anchor inside
    /// the text, as a plain count gives them (offsets in one line, at a
    /// newline, at the end).
    #[test]
    fn line_numbers_agree_with_a_plain_count() {
        let mut data = Vec::new();
        let mut x = 7u64;
        while data.len() < 3 * NUMBERS_PIECE + 12345 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            data.push(if x >> 60 == 0 {
                b'\n'
            } else {
                b'a' + (x >> 59) as u8 % 26
            });
        }
        let number = |o: usize| 1 + count_lines(&data[..o]);
        let pos = next_line_start(&data, 1000) + 7;
        let mut offsets: Vec<u64> = (0..500).map(|i| (pos + i * 25_000) as u64).collect();
        offsets.push(offsets[3]);
        offsets.push(memchr::memchr(b'\n', &data[pos + 99..]).unwrap() as u64 + pos as u64 + 99);
        offsets.push(data.len() as u64 - 1);
        offsets.sort_unstable();
        let want: Vec<u64> = offsets.iter().map(|&o| number(o as usize)).collect();
        for threads in [1, 2, 3, 8] {
            let got = line_numbers((&data, None), (pos, number(pos)), &offsets, threads);
            assert_eq!(got, want, "{threads} threads");
        }
        assert!(line_numbers((&data, None), (pos, 5), &[], 4).is_empty());
    }

    #[test]
    fn confirm_decides_whole_lines_only() {
        let m = || grep_regex::RegexMatcher::new("b+").unwrap();
        let none = |_: std::ops::Range<usize>| {};
        let data = b"xa\nab\nc\nzzb";
        // Offsets inside lines too; the first line runs in from before
        // unless `starts`, the last past the end unless `ends`.
        let offs = [1, 3, 4, 6, 9];
        let got = confirm(data, &offs, (true, true), 2, (&m, &none));
        assert_eq!(got, vec![false, true, true, false, true]);
        let got = confirm(data, &offs, (false, false), 2, (&m, &none));
        assert_eq!(got, vec![true, true, true, false, true]);
        // A line longer than the bound is kept undecided.
        let mut long = vec![b'a'; CONFIRM_MAX_LINE + 10];
        long.push(b'\n');
        assert_eq!(
            confirm(&long, &[5], (true, true), 1, (&m, &none)),
            vec![true]
        );
        let many: Vec<u64> = (0..3000).map(|i| i * 3).collect();
        let text = b"ab\n".repeat(3000);
        assert!(
            confirm(&text, &many, (true, true), 4, (&m, &none))
                .iter()
                .all(|&k| k)
        );
    }

    /// A file of lines of many lengths (some crossing every piece
    /// boundary), matching lines here and there, no final newline.
    fn lines_file(bytes: usize) -> tempfile::NamedTempFile {
        use std::io::Write;
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut w = std::io::BufWriter::new(f.as_file_mut());
        let (mut n, mut i) = (0, 0u64);
        while n < bytes {
            let pad = "x".repeat((i * 7919 % 300) as usize);
            let word = if i % 13 == 0 { "needle" } else { "hay" };
            let line = format!("{i} {pad} {word}\n");
            w.write_all(line.as_bytes()).unwrap();
            n += line.len();
            i += 1;
        }
        w.write_all(b"last needle").unwrap();
        w.flush().unwrap();
        drop(w);
        f
    }

    fn needle() -> grep_regex::RegexMatcher {
        grep_regex::RegexMatcher::new_line_matcher("needle").unwrap()
    }

    /// The cold path (pieces in file order, read-ahead) finds exactly the
    /// lines the per-core segments find.
    #[test]
    fn cold_order_agrees_with_segments() {
        let f = lines_file(3 * COLD_PIECE + 4321);
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        let want = matching_lines(&map, &needle(), 3, None);
        let ahead = ReadAhead::forced(&map);
        for threads in [1, 2, 5] {
            let got = in_file_order(&map, &needle(), threads, &map, &ahead);
            assert_eq!(got.starts, want.starts, "threads {threads}");
            assert!(!got.has_nul);
        }
        assert!(!map.faulted());
        assert_eq!(*want.starts.last().unwrap() as usize, map.len() - 11);
    }

    /// A file that shrinks under the cold path: the pages past the new end
    /// read as zeros and the map reports the fault; nothing crashes, and
    /// the lines before the cut are all found.
    #[test]
    fn cold_order_on_a_file_that_shrinks_reports_it() {
        let _alone = crate::sys::guard::exclusive();
        let f = lines_file(3 * COLD_PIECE + 4321);
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        let cut = COLD_PIECE + 12345;
        let before: Vec<u64> = matching_line_starts(&map[..cut], &needle())
            .into_iter()
            .map(|o| o as u64)
            .filter(|&o| (o as usize) < cut - 400)
            .collect();
        f.as_file().set_len(cut as u64).unwrap();
        let got = in_file_order(&map, &needle(), 2, &map, &ReadAhead::forced(&map));
        assert!(map.faulted());
        assert_eq!(got.starts[..before.len()], before[..]);
    }

    #[test]
    fn split_covers_everything_once_at_line_starts() {
        let data = b"a\nbb\nccc\n\n\ndddd";
        for n in 1..10 {
            let b = split(data, 0, data.len(), n);
            assert_eq!(*b.first().unwrap(), 0);
            assert_eq!(*b.last().unwrap(), data.len());
            assert!(b.windows(2).all(|w| w[0] < w[1]));
            assert!(b[1..b.len() - 1].iter().all(|&i| data[i - 1] == b'\n'));
        }
    }

    #[test]
    fn count_lines_counts_newlines() {
        let mut data = b"a\nbb\n\nccc".repeat(1000);
        data.push(b'\n');
        for len in [0, 1, 2, 5, 4081, data.len()] {
            let want = data[..len].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(count_lines(&data[..len]), want, "len {len}");
        }
    }

    #[test]
    fn numbered_lines_count_what_precedes_them() {
        let m = crate::matcher::testing::line_matcher("x");
        let data = b"x\n\nax\nb\nc\nxx";
        let (total, found) = matching_lines_until(data, (0, data.len()), &m, None, true, &|| false)
            .expect("never stopped");
        assert_eq!(total, 5);
        let want = [(0, 2, 0), (3, 6, 2), (10, 12, 5)];
        let got: Vec<_> = found.iter().map(|f| (f.start, f.end, f.line)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn next_line_start_edges() {
        let data = b"ab\ncd";
        assert_eq!(next_line_start(data, 0), 0);
        assert_eq!(next_line_start(data, 1), 3);
        assert_eq!(next_line_start(data, 3), 3);
        assert_eq!(next_line_start(data, 4), 5);
        assert_eq!(next_line_start(data, 9), 5);
    }

    /// Cuts pass over lines that open with a UTF-8 continuation byte (their
    /// answer can need the line before), both ways, and never past the
    /// ends.
    #[test]
    fn cuts_skip_lines_opening_mid_character() {
        let data = b"ab\n\xa5x\n\xa5\xa5y\ncd\n\xa5";
        assert_eq!(next_line_start(data, 1), 10);
        assert_eq!(next_line_start(data, 3), 10);
        assert_eq!(next_line_start(data, 12), 14);
        assert_eq!(prev_line_start(data, 8), 0);
        assert_eq!(prev_line_start(data, 12), 10);
        assert_eq!(prev_line_start(data, 14), 10);
        assert_eq!(prev_line_start(b"\xa5a\n\xa5b", 5), 0);
    }

    /// A match that ends the input without a line terminator (grep-regex
    /// reports the match's end, the input's length) is on the last line;
    /// matches at the start and in the middle are found as well.
    #[test]
    fn matches_ending_the_input_are_found() {
        let m = grep_regex::RegexMatcher::new_line_matcher("very end").unwrap();
        for (text, want) in [
            (&b"abc\nxyz very end"[..], vec![4]),
            (b"very end", vec![0]),
            (b"very end\n", vec![0]),
            (b"a\nvery end\nb\nvery end", vec![2, 13]),
            (b"very en", vec![]),
        ] {
            assert_eq!(matching_line_starts(text, &m), want, "{text:?}");
        }
        // An empty match after the final terminator is on no line.
        let m = grep_regex::RegexMatcher::new_line_matcher("(?m)^$").unwrap();
        for (text, want) in [(&b"a\n"[..], vec![]), (b"a\n\nb\n", vec![2]), (b"", vec![])] {
            assert_eq!(matching_line_starts(text, &m), want, "{text:?}");
        }
    }
}
