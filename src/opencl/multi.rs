//! Several devices on one queue: each engine runs its own pipeline
//! ([`OpenClEngine::stream_lines`]) on its own thread, and every pipeline's
//! filler takes its next batch from the same source, so a faster device
//! simply takes more. Batches are numbered as the source gives them out.
//!
//! Nothing a device does waits for another device's batch: its filler
//! holds the queue's lock only to claim a batch ([`SplitSource::claim`])
//! and reads the bytes outside it; its sink prepares the batch at once
//! ([`SplitSink::prepare`], the work that needs the slot's bytes) and puts
//! the result in a reorder buffer keyed by batch number, and whoever puts
//! the next number commits the consecutive ready ones, so the commit sees
//! the batches in the source's order and the output is the same as with
//! one device. The buffer holds at most [`REORDER_BOUND`] bytes beyond the
//! next batch: a device that ran that far ahead waits for its turn.
//!
//! A device that fails hands the batches it holds to the CPU (as one
//! engine does, see `stream`) and stops taking new ones while another
//! device is sound; the last device to fail goes on with the CPU fallback,
//! so the queue is always drained and no match is lost.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::batch::{BatchSource, SharedStats, SplitSink, SplitSource, StageStats};
use super::engine::OpenClEngine;

/// Bytes of prepared batches the reorder buffer holds, beyond the one
/// being committed, before a device that put a later batch waits.
pub const REORDER_BOUND: usize = 256 << 20;

/// A batch's tag with its place in the queue, and what the source said
/// about it when it was claimed (so no filler asks the shared source again).
pub struct Stamped<T> {
    seq: u64,
    lines: bool,
    count: bool,
    tag: T,
}

/// The shared source and the next batch number.
struct Queue<'s, S> {
    src: Mutex<(&'s mut S, u64)>,
    /// Devices not yet seen to fail (see [`Feed::leaves`]).
    sound: AtomicUsize,
    /// The source gave out its last batch: a device still starting then
    /// has nothing to join (see [`joins`]).
    drained: AtomicBool,
}

/// One device's view of the queue.
struct Feed<'q, 's, S> {
    queue: &'q Queue<'s, S>,
    engine: &'q OpenClEngine,
    stopped: &'q AtomicBool,
    /// This device's failure was counted; `left`: it takes no more batches.
    noted: bool,
    left: bool,
    /// Batch numbers this device claimed (see [`Reorder::abandon`]).
    claimed: Vec<u64>,
    stats: SharedStats,
}

impl<S> Feed<'_, '_, S> {
    /// Whether this device stops taking batches: it failed while another
    /// device is still sound (that one drains the queue).
    fn leaves(&mut self) -> bool {
        if !self.noted && self.engine.is_degraded() {
            self.noted = true;
            self.left = self.queue.sound.fetch_sub(1, Ordering::AcqRel) > 1;
        }
        self.left
    }
}

impl<S: SplitSource + Send> BatchSource for Feed<'_, '_, S> {
    type Tag = Stamped<S::Tag>;

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, Stamped<S::Tag>)> {
        if self.leaves() || self.stopped.load(Ordering::Acquire) {
            return None;
        }
        let t = Instant::now();
        let mut q = lock(&self.queue.src);
        let locked = t.elapsed();
        let claim = q.0.claim(buf.len());
        let (seq, (lines, count)) = (q.1, claim.as_ref().map_or((false, false), |c| q.0.modes(c)));
        q.1 += u64::from(claim.is_some());
        drop(q);
        if claim.is_none() {
            self.queue.drained.store(true, Ordering::Release);
        }
        self.stats.lock_wait += locked;
        self.stats.claim += t.elapsed();
        let (n, tag) = S::read(claim?, buf);
        self.claimed.push(seq);
        Some((
            n,
            Stamped {
                seq,
                lines,
                count,
                tag,
            },
        ))
    }

    fn wants_lines(&self, tag: &Stamped<S::Tag>) -> bool {
        tag.lines
    }

    fn counts_only(&self, tag: &Stamped<S::Tag>) -> bool {
        tag.count
    }
}

/// Prepared batches waiting for their turn to be committed.
struct Order<R> {
    /// The next batch number to commit.
    next: u64,
    /// Batches put and not yet committed: `None` for one never delivered
    /// (see [`Reorder::abandon`]), with its weight.
    ready: BTreeMap<u64, (Option<R>, usize)>,
    held: usize,
    /// A thread is committing (outside the lock).
    draining: bool,
}

/// The reorder buffer: whoever puts the next batch commits the run of
/// consecutive ready ones; `stopped` once a commit said stop.
struct Reorder<R, C> {
    order: Mutex<Order<R>>,
    room: Condvar,
    commit: Mutex<C>,
    stopped: AtomicBool,
}

impl<R, C: FnMut(R) -> bool> Reorder<R, C> {
    /// Nothing put yet; `commit` takes the batches in order.
    fn new(commit: C) -> Self {
        Reorder {
            order: Mutex::new(Order {
                next: 0,
                ready: BTreeMap::new(),
                held: 0,
                draining: false,
            }),
            room: Condvar::new(),
            commit: Mutex::new(commit),
            stopped: AtomicBool::new(false),
        }
    }

    /// Puts batch `seq`, commits what is next, and waits while the buffer
    /// holds more than its bound (the batch before is elsewhere). Returns
    /// false once the search stopped.
    fn put(&self, seq: u64, item: Option<R>, weight: usize, st: &mut SharedStats) -> bool {
        let mut o = lock(&self.order);
        o.ready.insert(seq, (item, weight));
        o.held += weight;
        o = self.drain(o, st);
        let t = Instant::now();
        while o.held > REORDER_BOUND && !self.stopped.load(Ordering::Acquire) {
            o = self.room.wait(o).unwrap_or_else(PoisonError::into_inner);
        }
        st.turn_wait += t.elapsed();
        !self.stopped.load(Ordering::Acquire)
    }

    /// Commits the consecutive ready batches, unless another thread is at
    /// it (that one sees what was put meanwhile before it lets go).
    fn drain<'a>(
        &'a self,
        mut o: MutexGuard<'a, Order<R>>,
        st: &mut SharedStats,
    ) -> MutexGuard<'a, Order<R>> {
        while !o.draining {
            let next = o.next;
            let Some((item, weight)) = o.ready.remove(&next) else {
                break;
            };
            o.draining = true;
            drop(o);
            let t = Instant::now();
            let go_on = match item {
                Some(r) if !self.stopped.load(Ordering::Acquire) => {
                    st.commits += 1;
                    (lock(&self.commit))(r)
                }
                _ => true,
            };
            st.commit += t.elapsed();
            o = lock(&self.order);
            o.draining = false;
            o.next += 1;
            o.held -= weight;
            if !go_on {
                self.stopped.store(true, Ordering::Release);
            }
            self.room.notify_all();
        }
        o
    }

    /// A device's stream ended: batches it claimed and never delivered
    /// (dropped after a stop) are skipped, so no one waits for them.
    fn abandon(&self, claimed: &[u64], st: &mut SharedStats) {
        let mut o = lock(&self.order);
        for &seq in claimed {
            if seq >= o.next && !o.ready.contains_key(&seq) {
                o.ready.insert(seq, (None, 0));
            }
        }
        drop(self.drain(o, st));
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl OpenClEngine {
    /// [`OpenClEngine::stream_lines`] on every engine of `engines` at once,
    /// all drawing from `src`: each batch is prepared by `sink` in the
    /// thread of the device that searched it, and `commit(ready, bytes)`
    /// gets the prepared batches in the order `src` gave them out (`bytes`:
    /// the batch's bytes with one engine, where commit follows prepare at
    /// once; empty with several). Returns each engine's stages, in
    /// `engines`' order. With one engine, exactly its `stream_lines`.
    pub fn stream_lines_all<S, P, C>(
        engines: &[OpenClEngine],
        src: &mut S,
        sink: &P,
        mut commit: C,
    ) -> Vec<StageStats>
    where
        S: SplitSource + Send,
        P: SplitSink<S::Tag>,
        C: FnMut(P::Ready, &[u8]) -> bool + Send,
    {
        if let [one] = engines {
            let mut local = sink.local(false);
            let mut one_sink = |tag, bytes: &[u8], r| {
                let ready = sink.prepare(&mut local, tag, bytes, r);
                commit(ready, bytes)
            };
            return vec![one.stream_lines(src, &mut one_sink)];
        }
        let queue = Queue {
            src: Mutex::new((src, 0)),
            sound: AtomicUsize::new(engines.len()),
            drained: AtomicBool::new(false),
        };
        let reorder = Reorder::new(move |r| commit(r, &[]));
        std::thread::scope(|s| {
            let (queue, reorder) = (&queue, &reorder);
            let handles: Vec<_> = engines
                .iter()
                .map(|engine| s.spawn(move || device_thread(engine, queue, reorder, sink)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        })
    }
}

/// One device's pipeline on the shared queue, preparing its batches and
/// putting them in the reorder buffer; its stages, with how it shared.
fn device_thread<S, P, C>(
    engine: &OpenClEngine,
    queue: &Queue<'_, S>,
    reorder: &Reorder<P::Ready, C>,
    sink: &P,
) -> StageStats
where
    S: SplitSource + Send,
    P: SplitSink<S::Tag>,
    C: FnMut(P::Ready) -> bool,
{
    if !joins(engine, queue, &reorder.stopped) {
        return StageStats::default();
    }
    let mut feed = Feed {
        queue,
        engine,
        stopped: &reorder.stopped,
        noted: false,
        left: false,
        claimed: Vec::new(),
        stats: SharedStats::default(),
    };
    let mut local = sink.local(true);
    let mut shared = SharedStats::default();
    let mut stages = engine.stream_lines(&mut feed, &mut |st: Stamped<S::Tag>, bytes, r| {
        if reorder.stopped.load(Ordering::Acquire) {
            return false;
        }
        let t = Instant::now();
        let ready = sink.prepare(&mut local, st.tag, bytes, r);
        shared.prepare += t.elapsed();
        let weight = P::weight(&ready);
        reorder.put(st.seq, Some(ready), weight, &mut shared)
    });
    reorder.abandon(&feed.claimed, &mut shared);
    shared.claim = feed.stats.claim;
    shared.lock_wait = feed.stats.lock_wait;
    stages.shared = Some(shared);
    stages
}

/// Waits while `engine`'s device is starting; false when the queue ran
/// dry (or the search stopped) first: the device then takes no batch, and
/// its start is left to end with the process (`main` forgets its engines
/// and leaves the driver's teardown to a child) instead of holding up the
/// end of a search the other devices finished.
fn joins<S>(engine: &OpenClEngine, queue: &Queue<'_, S>, stopped: &AtomicBool) -> bool {
    while engine.is_starting() {
        if queue.drained.load(Ordering::Acquire) || stopped.load(Ordering::Acquire) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reorder<C: FnMut(u64) -> bool>(commit: C) -> Reorder<u64, C> {
        Reorder::new(commit)
    }

    #[test]
    fn threads_putting_out_of_order_commit_in_order() {
        let seen = Mutex::new(Vec::new());
        let r = reorder(|s| {
            lock(&seen).push(s);
            true
        });
        std::thread::scope(|sc| {
            for t in 0..4u64 {
                let r = &r;
                sc.spawn(move || {
                    let mut st = SharedStats::default();
                    for k in 0..50u64 {
                        let seq = k * 4 + (3 - t);
                        std::thread::sleep(std::time::Duration::from_micros((seq * 37) % 200));
                        assert!(r.put(seq, Some(seq), 1, &mut st));
                    }
                });
            }
        });
        assert_eq!(*lock(&seen), (0..200).collect::<Vec<u64>>());
    }

    #[test]
    fn an_abandoned_batch_is_skipped_and_a_stop_stops_the_rest() {
        let seen = Mutex::new(Vec::new());
        let r = reorder(|s| {
            lock(&seen).push(s);
            s != 3
        });
        let mut st = SharedStats::default();
        assert!(r.put(2, Some(2), 1, &mut st));
        assert!(r.put(0, Some(0), 1, &mut st));
        r.abandon(&[1], &mut st);
        assert!(!r.put(3, Some(3), 1, &mut st));
        assert!(!r.put(4, Some(4), 1, &mut st));
        assert_eq!(*lock(&seen), vec![0, 2, 3]);
    }

    #[test]
    fn a_batch_past_the_bound_waits_for_the_one_before() {
        let r = reorder(|_| true);
        let done = AtomicBool::new(false);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                let mut st = SharedStats::default();
                assert!(r.put(1, Some(1), REORDER_BOUND + 1, &mut st));
                done.store(true, Ordering::Release);
                assert!(st.turn_wait > std::time::Duration::ZERO);
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!done.load(Ordering::Acquire));
            let mut st = SharedStats::default();
            assert!(r.put(0, Some(0), 1, &mut st));
        });
        assert!(done.load(Ordering::Acquire));
        assert_eq!(lock(&r.order).held, 0);
    }
}
