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
pub const MAX_DEFAULT: usize = 256 << 10;
/// The first segment's size (or [`max`], when smaller): about what ripgrep
/// writes first (its 8 KiB buffer), and within a pipe's 64 KiB, so that
/// `| head -1` has its line before a write waits on the reader.
pub const FIRST: usize = 8 << 10;

/// Segments [`in_order`]'s calling thread searches and emits alone before
/// the other threads start, at least.
const SOLO: usize = 2;

/// Output [`in_order`]'s calling thread writes alone, if its first
/// [`SOLO_INPUT`] bytes give that much: a pipe's capacity. A reader that
/// stopped reading (`| head -1`) has then closed the pipe, or the last
/// write waits for it to (16 cores, 1.26 GB, `-v struct | head -1`: the
/// other threads started after the second write, and the process ended
/// 5.3 ms after its start, against 2.8 ms for one thread alone).
const SOLO_OUTPUT: u64 = 64 << 10;

/// Bytes of the input the calling thread searches alone at most while its
/// output is below [`SOLO_OUTPUT`].
const SOLO_INPUT: usize = 256 << 10;

/// The largest segment for a rule set: its matcher, not the reading, bounds
/// the search, and small segments keep the threads waiting on each other
/// (H200 machine, 16 cores, 965 MB, 1,000 rules: 1.63 s with 256 KiB
/// segments, 1.11-1.23 s with 4 MiB, 1.04 s with 32 MiB).
pub const MAX_RULES: usize = 4 << 20;

/// The largest segment: [`MAX_DEFAULT`] ([`MAX_RULES`] for a rule set, with
/// `rules`), or `GSEARCH_SEGMENT` bytes (tests use tiny segments so that
/// lines and matches cross many boundaries).
pub fn max(rules: bool) -> usize {
    static M: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let set = *M.get_or_init(|| crate::sys::env_count("GSEARCH_SEGMENT"));
    set.unwrap_or(if rules { MAX_RULES } else { MAX_DEFAULT })
}

/// One segment: `data[start..end]`, whole lines.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub index: usize,
    pub start: usize,
    pub end: usize,
}

/// Where the next segment starts; claims are serialised by the caller.
struct Cursor<'a> {
    data: &'a [u8],
    max: usize,
    /// The threads claiming: near the end, segments shrink so that they
    /// finish together (one 32 MiB segment left to one of two threads
    /// would leave the other idle for its whole time).
    threads: usize,
    at: usize,
    claimed: usize,
}

impl Cursor<'_> {
    /// The next segment, or `None` at the end of the data.
    fn claim(&mut self) -> Option<(usize, usize, usize)> {
        if self.at >= self.data.len() {
            return None;
        }
        let ramp = (FIRST.min(self.max) << self.claimed.min(24)).min(self.max);
        let share = (self.data.len() - self.at) / (2 * self.threads.max(1));
        let size = ramp.min(share.max(FIRST.min(self.max)));
        let end = next_line_start(self.data, self.at.saturating_add(size).min(self.data.len()));
        let seg = (self.claimed, self.at, end);
        self.at = end;
        self.claimed += 1;
        Some(seg)
    }
}

/// Runs `work` on every segment of `data` with `threads` threads (the
/// calling thread one of them), in no particular order; returns the
/// results in segment order.
pub fn each<T: Send>(
    data: &[u8],
    threads: usize,
    max: usize,
    work: impl Fn(&Segment) -> T + Sync,
) -> Vec<T> {
    let cursor = Mutex::new(Cursor {
        data,
        max: max.max(1),
        threads,
        at: 0,
        claimed: 0,
    });
    let take = || {
        let mut mine = Vec::new();
        loop {
            // The claim's own statement: the lock is dropped before the
            // work (in a `while let` scrutinee it would be held through the
            // body, and the threads would take turns).
            let next = lock(&cursor).claim();
            let Some((index, start, end)) = next else {
                break;
            };
            mine.push((index, work(&Segment { index, start, end })));
        }
        mine
    };
    // The calling thread is one of the `threads`.
    let mut parts: Vec<(usize, T)> = std::thread::scope(|s| {
        let hs: Vec<_> = (1..threads.max(1)).map(|_| s.spawn(take)).collect();
        let mut all = take();
        for h in hs {
            all.extend(h.join().expect("segment thread"));
        }
        all
    });
    parts.sort_by_key(|p| p.0);
    parts.into_iter().map(|p| p.1).collect()
}

/// How [`in_order`] runs.
#[derive(Clone, Copy, Debug)]
pub struct Order {
    /// Threads in all, the calling thread included.
    pub threads: usize,
    /// Most segments claimed and not yet emitted.
    pub ahead: usize,
    /// The largest segment.
    pub max: usize,
}

/// The two halves of a segment's work in [`in_order`]: `search` returns
/// the segment's line terminators and what it found; `finish` turns that
/// into the result once the lines before the segment are known.
pub struct Work<S, F> {
    pub search: S,
    pub finish: F,
}

/// The shared state of [`in_order`], under one lock.
struct State<'a, T> {
    cursor: Cursor<'a>,
    /// Segments handed to `emit` so far.
    emitted: usize,
    /// Line terminators before segment `emitted`.
    lines_emitted: u64,
    /// Per segment from `emitted` on: its line terminators, once searched.
    counts: VecDeque<Option<u64>>,
    /// Per segment from `emitted` on: its result, once finished.
    results: VecDeque<Option<T>>,
    stop: bool,
}

impl<T> State<'_, T> {
    /// Lines before segment `k`, once every segment before it is searched.
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

    /// The next segment if fewer than `ahead` wait to be emitted.
    fn claim(&mut self, ahead: usize) -> Option<Segment> {
        if self.stop || self.cursor.claimed >= self.emitted + ahead {
            return None;
        }
        let (index, start, end) = self.cursor.claim()?;
        self.counts.push_back(None);
        self.results.push_back(None);
        Some(Segment { index, start, end })
    }

    /// The next result in order, if done.
    fn pop(&mut self) -> Option<T> {
        if !self.results.front().is_some_and(Option::is_some) {
            return None;
        }
        self.lines_emitted += self.counts.pop_front().flatten().unwrap_or(0);
        self.emitted += 1;
        self.results.pop_front().flatten()
    }
}

struct Shared<'a, T> {
    state: Mutex<State<'a, T>>,
    changed: Condvar,
}

impl<'a, T> Shared<'a, T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, State<'a, T>> {
        lock(&self.state)
    }

    fn wait<'g>(
        &self,
        g: std::sync::MutexGuard<'g, State<'a, T>>,
    ) -> std::sync::MutexGuard<'g, State<'a, T>> {
        self.changed.wait(g).unwrap_or_else(|e| e.into_inner())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `work` on every segment of `data` with `order.threads` threads and
/// hands the results to `emit` in segment order (see the module's text);
/// `emit` says how many bytes it wrote (0 where it writes nothing itself).
/// The calling thread searches the first [`SOLO`] segments alone and emits
/// them, and more while its output stays below [`SOLO_OUTPUT`] in the first
/// [`SOLO_INPUT`] bytes, then works with the others, emitting whatever is
/// ready between its segments.
/// After emitting, when nothing more is ready and the calling thread is
/// about to search or wait, it calls `emit(None)` once: a block-buffered
/// writer flushes then, so that the lines found so far leave (`| head -1`
/// has its line) rather than waiting for 8 KiB more. Stops at `emit`'s
/// first error and returns it.
pub fn in_order<P, T: Send, E>(
    data: &[u8],
    order: Order,
    work: Work<impl Fn(&Segment) -> (u64, P) + Sync, impl Fn(P, u64) -> T + Sync>,
    mut emit: impl FnMut(Option<T>) -> Result<u64, E>,
) -> Result<(), E> {
    let shared = Shared {
        state: Mutex::new(State {
            cursor: Cursor {
                data,
                max: order.max.max(1),
                threads: order.threads,
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
    let ahead = order.ahead.max(1);
    // The first segments alone, before any other thread starts: their
    // lines leave as soon as one thread can find them, and a reader that
    // wanted only those (`| head -1`) has closed the pipe by a later
    // write (at the latest the one past a pipe's capacity, which waits
    // for the reader), which then ends the search before a thread was
    // started.
    let (mut solo, mut written) = (0, 0);
    loop {
        let next = {
            let mut st = shared.lock();
            let alone = solo < SOLO || (written < SOLO_OUTPUT && st.cursor.at < SOLO_INPUT);
            alone.then(|| st.claim(ahead)).flatten()
        };
        let Some(seg) = next else {
            break;
        };
        run(&shared, &work, &seg);
        let done = shared.lock().pop();
        if let Some(r) = done {
            written += emit(Some(r))?;
            written += emit(None)?;
        }
        solo += 1;
    }
    std::thread::scope(|s| {
        for _ in 1..order.threads.max(1) {
            let (shared, work) = (&shared, &work);
            s.spawn(move || worker(shared, ahead, work));
        }
        let result = drive(&shared, ahead, &work, &mut emit);
        if result.is_err() {
            shared.lock().stop = true;
            shared.changed.notify_all();
        }
        result
    })
}

/// What the calling thread does next.
enum Next<T> {
    Emit(T),
    /// Nothing is ready after something was emitted: `emit(None)`.
    Idle,
    Work(Segment),
    Done,
}

/// The calling thread: emits what is ready, else works, else waits.
fn drive<P, T, E>(
    shared: &Shared<'_, T>,
    ahead: usize,
    work: &Work<impl Fn(&Segment) -> (u64, P), impl Fn(P, u64) -> T>,
    emit: &mut impl FnMut(Option<T>) -> Result<u64, E>,
) -> Result<(), E> {
    let mut emitted = false;
    loop {
        let next = {
            let mut st = shared.lock();
            loop {
                if let Some(r) = st.pop() {
                    shared.changed.notify_all();
                    break Next::Emit(r);
                }
                // (`stop` here: a worker panicked; the scope passes it on.)
                if st.finished() || st.stop {
                    break Next::Done;
                }
                if emitted {
                    break Next::Idle;
                }
                if let Some(seg) = st.claim(ahead) {
                    break Next::Work(seg);
                }
                st = shared.wait(st);
            }
        };
        emitted = matches!(next, Next::Emit(_));
        match next {
            Next::Emit(r) => _ = emit(Some(r))?,
            Next::Idle => _ = emit(None)?,
            Next::Work(seg) => run(shared, work, &seg),
            Next::Done => return Ok(()),
        }
    }
}

/// One more thread: claims and works until the end or a stop.
fn worker<P, T>(
    shared: &Shared<'_, T>,
    ahead: usize,
    work: &Work<impl Fn(&Segment) -> (u64, P), impl Fn(P, u64) -> T>,
) {
    loop {
        let seg = {
            let mut st = shared.lock();
            loop {
                if let Some(seg) = st.claim(ahead) {
                    break seg;
                }
                if st.stop || st.cursor.at >= st.cursor.data.len() {
                    return;
                }
                st = shared.wait(st);
            }
        };
        run(shared, work, &seg);
    }
}

/// One segment: search, publish its line count, wait for the lines before
/// it, finish, hand the result over. Gives up at a stop.
fn run<P, T>(
    shared: &Shared<'_, T>,
    work: &Work<impl Fn(&Segment) -> (u64, P), impl Fn(P, u64) -> T>,
    seg: &Segment,
) {
    let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let (lines, found) = (work.search)(seg);
        let before = {
            let mut st = shared.lock();
            let i = seg.index - st.emitted;
            st.counts[i] = Some(lines);
            shared.changed.notify_all();
            loop {
                if st.stop {
                    return None;
                }
                if let Some(n) = st.lines_before(seg.index) {
                    break n;
                }
                st = shared.wait(st);
            }
        };
        Some((work.finish)(found, before))
    }));
    match guarded {
        Ok(Some(result)) => {
            let mut st = shared.lock();
            let i = seg.index - st.emitted;
            st.results[i] = Some(result);
            shared.changed.notify_all();
        }
        Ok(None) => {}
        Err(panic) => {
            // Others would wait for this segment forever.
            shared.lock().stop = true;
            shared.changed.notify_all();
            std::panic::resume_unwind(panic);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::lines::count_lines;

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
            };
            let mut out = Vec::new();
            let work = Work {
                search: |s: &Segment| (count_lines(&data[s.start..s.end]), (s.start, s.end)),
                finish: |(a, b), n| (a, b, n),
            };
            let r: Result<(), ()> = in_order(&data, order, work, |r| {
                out.extend(r);
                Ok(0)
            });
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
        };
        let worked = std::sync::atomic::AtomicUsize::new(0);
        let mut emitted = 0;
        let work = Work {
            search: |_: &Segment| (1, worked.fetch_add(1, std::sync::atomic::Ordering::Relaxed)),
            finish: |w, _| w,
        };
        let r = in_order(&data, order, work, |r| {
            emitted += usize::from(r.is_some());
            if emitted == 3 { Err("closed") } else { Ok(0) }
        });
        assert_eq!(r, Err("closed"));
        // At most `ahead` more than emitted, plus one each in flight.
        assert!(worked.into_inner() <= 3 + 2 + 2);
    }

    /// `emit(None)` (a writer's flush) follows emitted results, once,
    /// before the calling thread searches or waits: never first, never
    /// twice in a row.
    #[test]
    fn idle_follows_what_was_emitted() {
        let data = text(50_000);
        for threads in [1, 2, 4] {
            let order = Order {
                threads,
                ahead: 3,
                max: 512,
            };
            let work = Work {
                search: |s: &Segment| (0, s.start),
                finish: |a, _| a,
            };
            let mut seen: Vec<Option<usize>> = Vec::new();
            let r: Result<(), ()> = in_order(&data, order, work, |r| {
                seen.push(r);
                Ok(0)
            });
            r.unwrap();
            assert!(seen[0].is_some());
            assert!(seen.windows(2).all(|w| w[0].is_some() || w[1].is_some()));
            assert!(seen.iter().filter(|r| r.is_none()).count() >= 2);
            let starts: Vec<usize> = seen.iter().flatten().copied().collect();
            assert!(starts.windows(2).all(|w| w[0] < w[1]));
        }
    }

    /// The calling thread searches alone, before any other thread starts,
    /// every segment from the start until its output reaches a pipe's
    /// capacity (dense output: `-v`), or the first [`SOLO_INPUT`] bytes
    /// when the output stays small.
    #[test]
    fn the_calling_thread_alone_until_a_pipe_is_full() {
        let data = text(100_000);
        let order = Order {
            threads: 4,
            ahead: 8,
            max: 1 << 20,
        };
        let me = std::thread::current().id();
        for (bytes_out, alone_before) in [(true, SOLO_OUTPUT as usize), (false, SOLO_INPUT)] {
            // (A millisecond a segment: once started, the other threads
            // claim the segments the calling thread is not searching.)
            let work = Work {
                search: |s: &Segment| {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    (0, (s.start, s.end, std::thread::current().id()))
                },
                finish: |w, _| w,
            };
            let mut seen = Vec::new();
            let r: Result<(), ()> = in_order(&data, order, work, |r| {
                let n = r.map_or(0, |(a, b, _)| if bytes_out { (b - a) as u64 } else { 0 });
                seen.extend(r);
                Ok(n)
            });
            r.unwrap();
            let alone: Vec<_> = seen.iter().filter(|(a, _, _)| *a < alone_before).collect();
            assert!(alone.len() > SOLO, "{bytes_out}: {}", alone.len());
            assert!(alone.iter().all(|(_, _, t)| *t == me), "{bytes_out}");
        }
    }

    /// Near the end, segments shrink to a share of what is left, so that
    /// no thread is left alone with a whole largest segment.
    #[test]
    fn segments_shrink_at_the_end() {
        let data = text(200_000);
        let max = data.len() / 3;
        let parts = each(&data, 2, max, |s| (s.start, s.end));
        for &(a, b) in &parts {
            let left = data.len() - a;
            assert!(
                b - a <= (left / 4).max(FIRST) + 64,
                "{a}..{b} of {}",
                data.len()
            );
        }
        assert_eq!(parts.last().unwrap().1, data.len());
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
