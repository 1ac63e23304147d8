//! Many keys on many threads: the sorted keys are split into consecutive
//! chunks, each chunk is searched by one thread over the shared file map,
//! and the matching lines come back as byte ranges that [`merge`] walks in
//! file order, each line once.
//!
//! Order checks across threads. A chunk's search only reads lines between
//! brackets that a single pass read and checked in order before the
//! threads start: [`cpu_ranges`] first finds the lower bound of every
//! chunk's first key with one [`OffsetSearch`] (a few probes per chunk) and
//! hands each chunk the lines it stopped at; [`sampled_ranges`] cuts chunks
//! only between sample intervals of the (checked) sample index. Each line a
//! chunk reads is checked against those brackets, so the lines read by all
//! threads are checked in order as one search would check them.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::text::{Disorder, OffsetSearch, Text, cmp_text, starts_with};

/// Matching lines of one chunk: byte ranges `[start, end)` of whole lines
/// (`end` is the start of the line after the last match, or the file
/// length), increasing and disjoint. Ranges of different chunks may
/// overlap (a key that is a prefix of the next chunk's keys).
pub type Ranges = Vec<(usize, usize)>;

/// What one search looks up: the file's lines, the keys (sorted,
/// deduplicated) and whether ASCII case is folded (`-i`).
#[derive(Clone, Copy)]
pub struct Lookup<'t, 'k> {
    pub text: Text<'t>,
    pub keys: &'k [&'k [u8]],
    pub fold: bool,
}

/// How the keys are split among threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// Threads to run (1: everything on the calling thread).
    pub threads: usize,
    /// Fewest keys per chunk: below `2 * min_chunk` keys there is one chunk.
    pub min_chunk: usize,
}

impl Split {
    /// Chunks for `nkeys` keys: up to four per thread (so that a thread
    /// that drew a slow chunk does not hold up the others), one when
    /// threads or keys are few.
    pub fn chunks(&self, nkeys: usize) -> usize {
        if self.threads <= 1 {
            return 1;
        }
        (nkeys / self.min_chunk.max(1)).clamp(1, self.threads * 4)
    }
}

/// `f(0..n)` on up to `threads` threads (each taking the next index when it
/// is done with one), results in index order. A panic in `f` is re-raised.
pub fn par_map<R: Send>(n: usize, threads: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    if n <= 1 || threads <= 1 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return mine;
            }
            mine.push((i, f(i)));
        }
    };
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(n)).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut slots: Vec<Option<R>> = (0..n).map(|_| None).collect();
    for (i, r) in parts.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

/// Key index where each of `nchunks` chunks starts, plus `nkeys` at the
/// end; with `same(i)` true, a cut before key `i` moves forward (keys that
/// must stay with the key before them).
fn cuts(nkeys: usize, nchunks: usize, same: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut v = vec![0];
    for c in 1..nchunks {
        let mut i = (c * nkeys / nchunks).max(*v.last().unwrap_or(&0));
        while i < nkeys && i > 0 && same(i) {
            i += 1;
        }
        if i > *v.last().unwrap_or(&0) && i < nkeys {
            v.push(i);
        }
    }
    v.push(nkeys);
    v
}

/// The CPU engine: lower bound of every key (sorted, deduplicated) by
/// binary search over byte offsets from the previous key's answer, on
/// `split.threads` threads; see the module docs for the order checks.
pub fn cpu_ranges(l: &Lookup<'_, '_>, split: Split) -> Result<Vec<Ranges>, Disorder> {
    let Lookup { text, keys, fold } = *l;
    let cut = cuts(keys.len(), split.chunks(keys.len()), |_| false);
    let nchunks = cut.len() - 1;
    // Where each chunk starts, read by one search: (lo, line before lo).
    let mut marks = Vec::with_capacity(nchunks);
    let mut search = OffsetSearch::new(text, fold);
    for &first in &cut[..nchunks] {
        if first > 0 {
            search.lower_bound(keys[first])?;
        }
        marks.push(search.position());
    }
    let results = par_map(nchunks, split.threads, |c| {
        let (lo, lo_line) = marks[c];
        let mut above = Vec::new();
        if let Some(&(next_lo, next_line)) = marks.get(c + 1) {
            if next_lo < text.len() {
                above.push(next_lo);
            }
            above.extend(next_line.filter(|&l| l >= lo));
        }
        let mut s = OffsetSearch::bracketed(text, fold, lo, lo_line, above);
        scan_keys(&text, &keys[cut[c]..cut[c + 1]], fold, &mut s, |_, _| {})
    });
    results.into_iter().collect()
}

/// The device path's finish: each key's lower bound lies after sample
/// `slots[k] - 1` and at or before sample `slots[k]` (`starts`: the sample
/// index's line starts, checked in order; `slots`: per key, the first
/// sample that sorts at or above it); a binary search inside that interval
/// per key, on `split.threads` threads. Chunks are cut only where the slot
/// changes, so no two threads read lines of the same interval.
pub fn sampled_ranges(
    l: &Lookup<'_, '_>,
    starts: &[usize],
    slots: &[usize],
    split: Split,
) -> Result<Vec<Ranges>, Disorder> {
    let Lookup { text, keys, fold } = *l;
    let cut = cuts(keys.len(), split.chunks(keys.len()), |i| {
        slots[i] == slots[i - 1]
    });
    let results = par_map(cut.len() - 1, split.threads, |c| {
        let (first, last) = (cut[c], cut[c + 1]);
        let mut s = OffsetSearch::new(text, fold);
        scan_keys(&text, &keys[first..last], fold, &mut s, |s, i| {
            let slot = slots[first + i];
            let below = slot.checked_sub(1).map(|j| starts[j]);
            s.narrow(below, starts.get(slot).copied());
        })
    });
    results.into_iter().collect()
}

/// One chunk: for each key (sorted), `before` may narrow the search, then
/// its lower bound and a scan of the lines that begin with it.
fn scan_keys<'t>(
    text: &Text<'t>,
    keys: &[&[u8]],
    fold: bool,
    search: &mut OffsetSearch<'t>,
    mut before: impl FnMut(&mut OffsetSearch<'t>, usize),
) -> Result<Ranges, Disorder> {
    let mut ranges = Ranges::new();
    let mut printed_until = 0usize;
    for (i, &key) in keys.iter().enumerate() {
        before(search, i);
        let lb = search.lower_bound(key)?;
        // Lines in [lb, printed_until) matched an earlier key (a prefix of
        // this one) and are in a range already.
        let start = lb.max(printed_until);
        let end = scan_matches(text, start, key, fold)?;
        search.scanned_to(end)?;
        if end > start {
            match ranges.last_mut() {
                Some(r) if r.1 == start => r.1 = end,
                _ => ranges.push((start, end)),
            }
        }
        printed_until = printed_until.max(end);
    }
    Ok(ranges)
}

/// From the line start `pos`, the lines that begin with `key`, each checked
/// against the line before it; returns the start of the first line that
/// does not (or the file length).
fn scan_matches(
    text: &Text<'_>,
    mut pos: usize,
    key: &[u8],
    fold: bool,
) -> Result<usize, Disorder> {
    let mut prev = (pos > 0).then(|| text.line_start_back(pos - 1, 0));
    while pos < text.len() {
        let (line, next) = text.line_at(pos);
        if let Some(p) = prev
            && cmp_text(text.line_at(p).0, line, fold) == std::cmp::Ordering::Greater
        {
            return Err(Disorder {
                first: p,
                second: pos,
            });
        }
        if !starts_with(line, key, fold) {
            break;
        }
        prev = Some(pos);
        pos = next;
    }
    Ok(pos)
}

/// Walk the chunks' ranges in order, calling `emit` once for every byte
/// range of lines not emitted yet (so each line once, in file order).
pub fn merge<E>(
    chunks: &[Ranges],
    mut emit: impl FnMut(usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    let mut done = 0usize;
    for &(start, end) in chunks.iter().flatten() {
        let start = start.max(done);
        if start < end {
            emit(start, end)?;
        }
        done = done.max(end);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn par_map_keeps_order() {
        for threads in [1, 2, 5] {
            let v = par_map(37, threads, |i| i * i);
            assert_eq!(v, (0..37).map(|i| i * i).collect::<Vec<_>>());
        }
        assert!(par_map(0, 4, |i| i).is_empty());
    }

    #[test]
    fn cuts_keep_equal_slots_together() {
        assert_eq!(cuts(10, 1, |_| false), vec![0, 10]);
        assert_eq!(cuts(10, 3, |_| false), vec![0, 3, 6, 10]);
        assert_eq!(cuts(3, 8, |_| false), vec![0, 1, 2, 3]);
        let slots = [0, 0, 0, 0, 1, 1, 2, 2, 2, 2];
        assert_eq!(cuts(10, 3, |i| slots[i] == slots[i - 1]), vec![0, 4, 6, 10]);
        assert_eq!(cuts(10, 3, |_| true), vec![0, 10]);
    }

    #[test]
    fn merge_emits_each_byte_once() {
        let chunks = vec![vec![(0, 4), (8, 20)], vec![(10, 12), (12, 30)], vec![]];
        let mut got = Vec::new();
        merge::<()>(&chunks, |s, e| {
            got.push((s, e));
            Ok(())
        })
        .unwrap();
        assert_eq!(got, vec![(0, 4), (8, 20), (20, 30)]);
    }

    fn lines(data: &[u8], keys: &[&[u8]], split: Split) -> Vec<u8> {
        let lookup = Lookup {
            text: Text::new(data),
            keys,
            fold: false,
        };
        let ranges = cpu_ranges(&lookup, split).unwrap();
        let mut out = Vec::new();
        merge::<()>(&ranges, |s, e| {
            out.extend_from_slice(&data[s..e]);
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn chunked_search_equals_one_chunk() {
        let data = b"a\nab\nabc\nabd\nb\nba\nbad\nbb\nc\n";
        let keys: Vec<&[u8]> = vec![b"", b"a", b"ab", b"abd", b"b", b"bad", b"bz", b"c", b"d"];
        let one = lines(
            data,
            &keys[1..],
            Split {
                threads: 1,
                min_chunk: 1,
            },
        );
        assert_eq!(one, data);
        for threads in 2..6 {
            let split = Split {
                threads,
                min_chunk: 1,
            };
            for a in 0..keys.len() {
                for b in a..=keys.len() {
                    let k = &keys[a..b];
                    let want = lines(
                        data,
                        k,
                        Split {
                            threads: 1,
                            min_chunk: 1,
                        },
                    );
                    assert_eq!(
                        lines(data, k, split),
                        want,
                        "keys {a}..{b} threads {threads}"
                    );
                }
            }
        }
    }
}
