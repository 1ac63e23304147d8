//! One big file cut into segments that every core searches, for answers
//! that either need no order (counts: [`each`]) or must come out in file
//! order as soon as they can ([`in_order`]: numbered lines).
//!
//! Segments are whole lines, claimed in file order from one cursor, small
//! at first ([`FIRST`], doubling up to [`max`]) so that the first lines
//! of output leave after a few milliseconds. In [`in_order`], the calling
//! thread hands each segment's result to `emit` as soon as it and every
//! segment before it are done, and a worker may claim segment `k` only
//! while `k < emitted + ahead`: at most `ahead` results wait in memory,
//! whatever the file's size. An error from `emit` (a closed pipe) stops
//! every worker before its next claim.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

use crate::pipeline::lines::next_line_start;

/// The largest segment unless `GSEARCH_SEGMENT` says otherwise.
pub const MAX_DEFAULT: usize = 1 << 20;
/// The first segment's size (or [`max`], when smaller).
pub const FIRST: usize = 64 << 10;

/// The largest segment: [`MAX_DEFAULT`], or `GSEARCH_SEGMENT` bytes (tests
/// use tiny segments so that lines and matches cross many boundaries).
pub fn max() -> usize {
    static M: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *M.get_or_init(|| crate::sys::env_count("GSEARCH_SEGMENT").unwrap_or(MAX_DEFAULT))
}

/// One segment: `data[start..end]`, whole lines.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub index: usize,
    pub start: usize,
    pub end: usize,
    /// Line terminators before `start` (only from [`in_order`] with
    /// `count_lines`; else 0).
    pub lines_before: u64,
}

/// Where the next segment starts; claims are serialised by the caller.
struct Cursor<'a> {
    data: &'a [u8],
    max: usize,
    at: usize,
    claimed: usize,
}

impl Cursor<'_> {
    /// The next segment, or `None` at the end of the data.
    fn claim(&mut self) -> Option<(usize, usize, usize)> {
        if self.at >= self.data.len() {
            return None;
        }
        let size = (FIRST.min(self.max) << self.claimed.min(24)).min(self.max);
        let end = next_line_start(self.data, self.at.saturating_add(size).min(self.data.len()));
        let seg = (self.claimed, self.at, end);
        self.at = end;
        self.claimed += 1;
        Some(seg)
    }
}

/// Runs `work` on every segment of `data` with `threads` threads, in no
/// particular order; returns the results in segment order.
pub fn each<T: Send>(
    data: &[u8],
    threads: usize,
    max: usize,
    work: impl Fn(&Segment) -> T + Sync,
) -> Vec<T> {
    let cursor = Mutex::new(Cursor {
        data,
        max: max.max(1),
        at: 0,
        claimed: 0,
    });
    let mut parts: Vec<(usize, T)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads.max(1))
            .map(|_| {
                let (cursor, work) = (&cursor, &work);
                s.spawn(move || {
                    let mut mine = Vec::new();
                    while let Some((index, start, end)) = lock(cursor).claim() {
                        let seg = Segment {
                            index,
                            start,
                            end,
                            lines_before: 0,
                        };
                        mine.push((index, work(&seg)));
                    }
                    mine
                })
            })
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().expect("segment thread"))
            .collect()
    });
    parts.sort_by_key(|p| p.0);
    parts.into_iter().map(|p| p.1).collect()
}

/// How [`in_order`] runs.
#[derive(Clone, Copy, Debug)]
pub struct Order {
    pub threads: usize,
    /// Most segments claimed and not yet emitted.
    pub ahead: usize,
    /// The largest segment.
    pub max: usize,
    /// Count each segment's line terminators first, so that
    /// [`Segment::lines_before`] is known before `work` runs.
    pub count_lines: bool,
}

/// The shared state of [`in_order`], under one lock.
struct State<'a, T> {
    cursor: Cursor<'a>,
    /// Segments handed to `emit` so far.
    emitted: usize,
    /// Line terminators before segment `emitted`.
    lines_emitted: u64,
    /// Per segment from `emitted` on: its line terminators, once counted.
    counts: VecDeque<Option<u64>>,
    /// Per segment from `emitted` on: its result, once done.
    results: VecDeque<Option<T>>,
    stop: bool,
}

impl<T> State<'_, T> {
    /// Lines before segment `k`, once every segment before it is counted.
    fn lines_before(&self, k: usize) -> Option<u64> {
        let mut n = self.lines_emitted;
        for c in self.counts.iter().take(k - self.emitted) {
            n += (*c)?;
        }
        Some(n)
    }

    fn finished(&self) -> bool {
        self.cursor.at >= self.cursor.data.len() && self.results.is_empty()
    }
}

struct Shared<'a, T> {
    state: Mutex<State<'a, T>>,
    changed: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `work` on every segment of `data` with `order.threads` threads and
/// hands the results to `emit`, on the calling thread, in segment order
/// (see the module's text). Stops at `emit`'s first error and returns it.
pub fn in_order<T: Send, E>(
    data: &[u8],
    order: Order,
    work: impl Fn(&Segment) -> T + Sync,
    mut emit: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    let shared = Shared {
        state: Mutex::new(State {
            cursor: Cursor {
                data,
                max: order.max.max(1),
                at: 0,
                claimed: 0,
            },
            emitted: 0,
            lines_emitted: 0,
            counts: VecDeque::new(),
            results: VecDeque::new(),
            stop: false,
        }),
        changed: Condvar::new(),
    };
    std::thread::scope(|s| {
        for _ in 0..order.threads.max(1) {
            let (shared, work) = (&shared, &work);
            s.spawn(move || worker(shared, data, order, work));
        }
        let result = emit_all(&shared, &mut emit);
        if result.is_err() {
            lock(&shared.state).stop = true;
            shared.changed.notify_all();
        }
        result
    })
}

/// The calling thread's side: each result, in order, to `emit`.
fn emit_all<T, E>(
    shared: &Shared<'_, T>,
    emit: &mut impl FnMut(T) -> Result<(), E>,
) -> Result<(), E> {
    loop {
        let next = {
            let mut st = lock(&shared.state);
            loop {
                // (`stop` here: a worker panicked; the scope passes it on.)
                if st.finished() || st.stop {
                    return Ok(());
                }
                if st.results.front().is_some_and(Option::is_some) {
                    break;
                }
                st = shared.changed.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            let result = st.results.pop_front().flatten();
            st.lines_emitted += st.counts.pop_front().flatten().unwrap_or(0);
            st.emitted += 1;
            shared.changed.notify_all();
            result
        };
        if let Some(r) = next {
            emit(r)?;
        }
    }
}

/// One worker: claim, count, wait for the lines before, work, hand over.
fn worker<T>(
    shared: &Shared<'_, T>,
    data: &[u8],
    order: Order,
    work: &(impl Fn(&Segment) -> T + Sync),
) {
    while let Some(mut seg) = claim_bounded(shared, order.ahead.max(1)) {
        if order.count_lines {
            let n = crate::pipeline::lines::count_lines(&data[seg.start..seg.end]);
            let mut st = lock(&shared.state);
            let i = seg.index - st.emitted;
            st.counts[i] = Some(n);
            shared.changed.notify_all();
            loop {
                if st.stop {
                    return;
                }
                if let Some(n) = st.lines_before(seg.index) {
                    seg.lines_before = n;
                    break;
                }
                st = shared.changed.wait(st).unwrap_or_else(|e| e.into_inner());
            }
        }
        let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&seg))) {
            Ok(r) => r,
            Err(panic) => {
                // The emitting thread would wait for this result forever.
                lock(&shared.state).stop = true;
                shared.changed.notify_all();
                std::panic::resume_unwind(panic);
            }
        };
        let mut st = lock(&shared.state);
        let i = seg.index - st.emitted;
        st.results[i] = Some(result);
        shared.changed.notify_all();
    }
}

/// The next segment, once fewer than `ahead` wait to be emitted; `None`
/// at the end or after a stop.
fn claim_bounded<T>(shared: &Shared<'_, T>, ahead: usize) -> Option<Segment> {
    let mut st = lock(&shared.state);
    while !st.stop && st.cursor.claimed >= st.emitted + ahead {
        st = shared.changed.wait(st).unwrap_or_else(|e| e.into_inner());
    }
    if st.stop {
        return None;
    }
    let (index, start, end) = st.cursor.claim()?;
    st.counts.push_back(None);
    st.results.push_back(None);
    Some(Segment {
        index,
        start,
        end,
        lines_before: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Vec<u8> {
        let mut v = Vec::new();
        for i in 0..n {
            v.extend_from_slice(format!("line {i}{}\n", "x".repeat(i % 13)).as_bytes());
        }
        v
    }

    #[test]
    fn in_order_sees_every_line_once_in_order_with_its_number() {
        let data = text(5000);
        for (threads, ahead, max) in [(1, 1, 1), (2, 2, 7), (3, 4, 100), (8, 3, 1 << 20)] {
            let order = Order {
                threads,
                ahead,
                max,
                count_lines: true,
            };
            let mut out = Vec::new();
            let r: Result<(), ()> = in_order(
                &data,
                order,
                |s| (s.start, s.end, s.lines_before),
                |(a, b, n)| {
                    out.push((a, b, n));
                    Ok(())
                },
            );
            r.unwrap();
            assert_eq!(out.first().unwrap().0, 0);
            assert_eq!(out.last().unwrap().1, data.len());
            for w in out.windows(2) {
                assert_eq!(w[0].1, w[1].0);
                let nl = data[..w[1].0].iter().filter(|&&b| b == b'\n').count();
                assert_eq!(w[1].2, nl as u64);
                assert_eq!(data[w[1].0 - 1], b'\n');
            }
        }
    }

    #[test]
    fn an_emit_error_stops_the_workers() {
        let data = text(20_000);
        let order = Order {
            threads: 2,
            ahead: 2,
            max: 64,
            count_lines: true,
        };
        let worked = std::sync::atomic::AtomicUsize::new(0);
        let mut emitted = 0;
        let r = in_order(
            &data,
            order,
            |_| worked.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            |_| {
                emitted += 1;
                if emitted == 3 { Err("closed") } else { Ok(()) }
            },
        );
        assert_eq!(r, Err("closed"));
        // At most `ahead` more than emitted, plus one each in flight.
        assert!(worked.into_inner() <= 3 + 2 + 2);
    }

    #[test]
    fn each_covers_everything() {
        let data = text(3000);
        for threads in [1, 2, 5] {
            let parts = each(&data, threads, 50, |s| (s.start, s.end));
            assert_eq!(parts.first().unwrap().0, 0);
            assert_eq!(parts.last().unwrap().1, data.len());
            assert!(parts.windows(2).all(|w| w[0].1 == w[1].0));
        }
        assert!(each(b"", 2, 50, |s| s.start).is_empty());
    }
}
