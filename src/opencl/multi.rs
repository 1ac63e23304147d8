//! Several devices on one queue: each engine runs its own pipeline
//! ([`OpenClEngine::stream_lines`]) on its own thread, and every pipeline's
//! filler takes its next batch from the same source, so a faster device
//! simply takes more. Batches are numbered as the source gives them out;
//! the sink sees them in that order, whichever device searched them, so the
//! output is the same as with one device.
//!
//! A device that fails hands the batches it holds to the CPU (as one
//! engine does, see `stream`) and stops taking new ones while another
//! device is sound; the last device to fail goes on with the CPU fallback,
//! so the queue is always drained and no match is lost.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::batch::{BatchResult, BatchSource, StageStats};
use super::engine::OpenClEngine;

/// A batch's tag with its place in the queue, and what the source said
/// about it while it was filled (so no filler asks the shared source again).
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
}

/// One device's view of the queue.
struct Feed<'q, 's, S> {
    queue: &'q Queue<'s, S>,
    engine: &'q OpenClEngine,
    /// This device's failure was counted; `left`: it takes no more batches.
    noted: bool,
    left: bool,
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

impl<S: BatchSource + Send> BatchSource for Feed<'_, '_, S> {
    type Tag = Stamped<S::Tag>;

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, Stamped<S::Tag>)> {
        if self.leaves() {
            return None;
        }
        let mut q = lock(&self.queue.src);
        let (n, tag) = q.0.fill(buf)?;
        let stamped = Stamped {
            seq: q.1,
            lines: q.0.wants_lines(&tag),
            count: q.0.counts_only(&tag),
            tag,
        };
        q.1 += 1;
        Some((n, stamped))
    }

    fn wants_lines(&self, tag: &Stamped<S::Tag>) -> bool {
        tag.lines
    }

    fn counts_only(&self, tag: &Stamped<S::Tag>) -> bool {
        tag.count
    }
}

/// Whose batch the sink takes next; `stopped` once the sink said stop.
struct Turns {
    state: Mutex<(u64, bool)>,
    turn: Condvar,
}

impl Turns {
    /// Waits until batch `seq` is next; false when the search stopped.
    fn wait(&self, seq: u64) -> bool {
        let mut s = lock(&self.state);
        while s.0 != seq && !s.1 {
            s = self.turn.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        !s.1
    }

    /// The batch whose turn it was is done; `go_on` false stops them all.
    fn pass(&self, go_on: bool) {
        let mut s = lock(&self.state);
        s.0 += 1;
        s.1 |= !go_on;
        self.turn.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl OpenClEngine {
    /// [`OpenClEngine::stream_lines`] on every engine of `engines` at once,
    /// all drawing from `src`; `sink` gets each batch in the order `src`
    /// filled them. Returns each engine's stages, in `engines`' order. With
    /// one engine, exactly its `stream_lines`.
    pub fn stream_lines_all<S, F>(
        engines: &[OpenClEngine],
        src: &mut S,
        mut sink: F,
    ) -> Vec<StageStats>
    where
        S: BatchSource + Send,
        F: FnMut(S::Tag, &[u8], BatchResult) -> bool + Send,
    {
        if let [one] = engines {
            return vec![one.stream_lines(src, &mut sink)];
        }
        let queue = Queue {
            src: Mutex::new((src, 0)),
            sound: AtomicUsize::new(engines.len()),
        };
        let turns = Turns {
            state: Mutex::new((0, false)),
            turn: Condvar::new(),
        };
        let sink = Mutex::new(sink);
        std::thread::scope(|s| {
            let (queue, turns, sink) = (&queue, &turns, &sink);
            let handles: Vec<_> = engines
                .iter()
                .map(|engine| {
                    s.spawn(move || {
                        let mut feed = Feed {
                            queue,
                            engine,
                            noted: false,
                            left: false,
                        };
                        engine.stream_lines(&mut feed, &mut |st: Stamped<S::Tag>, bytes, r| {
                            if !turns.wait(st.seq) {
                                return false;
                            }
                            let go_on = (lock(sink))(st.tag, bytes, r);
                            turns.pass(go_on);
                            go_on
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        })
    }
}
