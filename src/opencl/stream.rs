//! The streaming pipeline: pinned staging buffers, mapped once and reused,
//! filled by the caller straight in place; two batches or more in flight.
//!
//! With S slots (default 3) the loop keeps up to S batches enqueued. For
//! each batch: the caller's [`BatchSource::fill`] writes into the slot's
//! mapped pinned memory; the host-to-device copy goes on the write queue;
//! the counter reset, the kernel (waiting on the copy's event) and the
//! read-backs go on the kernel queue; both queues are flushed. The oldest
//! batch is then collected and handed to the sink, and its slot refilled.
//! So filling batch k+S overlaps the copy of k+1 and the kernel of k+2.
//! A stream whose device has fewer than S slots starts on the one pinned
//! first (pinning takes 15-25 ms per 64 MiB slot) while a thread pins the
//! rest; each joins the rotation as it comes.
//!
//! Failure: if any device step fails, the failed batch and every batch
//! still in flight are searched on the CPU from their staging bytes (which
//! the device only ever reads), one warning is printed, and the rest of the
//! stream runs on the CPU. No match is lost.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};

use crate::engine::MatchSet;

use super::batch::{BatchResult, BatchSink, BatchSource, LineSink, StageStats};
use super::engine::{OpenClEngine, State};
use super::gpu::{Gpu, InFlight, Slot, SlotMaker};
use super::kernels::PAD;
use super::lineindex::{Ends, host_lines};

/// A staged batch on its way through the device (or, with the device
/// gone, waiting for the CPU).
struct Pending<T> {
    batch: Filled<T>,
    inflight: Option<InFlight>,
    batch_no: u64,
}

/// A byte region the loop fills and reads: a mapped slot or the heap buffer.
fn region<'a>(ptr: *mut u8, len: usize) -> &'a mut [u8] {
    // SAFETY: callers pass a slot's mapped pinned region (valid while the
    // engine's state lock is held, which `stream` holds throughout) or the
    // heap buffer's pointer/length; no other reference to it is live.
    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
}

impl OpenClEngine {
    /// Runs the pipeline until `src` is exhausted or `sink` returns false.
    ///
    /// `sink(tag, bytes, matches)` gets each batch in fill order: its tag,
    /// the staged bytes (exactly what was searched) and its sorted match
    /// offsets, before the buffer is reused. Return false to stop early
    /// (e.g. `-q`); batches still in flight are then dropped.
    ///
    /// Holds the engine's lock throughout: do not call back into this
    /// engine from `fill` or `sink`.
    pub fn stream<S: BatchSource + Send>(
        &self,
        src: &mut S,
        sink: &mut BatchSink<'_, S::Tag>,
    ) -> StageStats {
        let mut wrapped = |tag, bytes: &[u8], r: BatchResult| match r {
            BatchResult::Offsets(m) => sink(tag, bytes, m),
            // Never produced without line mode; offsets of the lines' first
            // matches are the closest honest answer.
            BatchResult::Lines(l) => sink(
                tag,
                bytes,
                MatchSet {
                    offsets: l.first.iter().map(|&o| u64::from(o)).collect(),
                },
            ),
        };
        self.stream_impl(src, &mut wrapped, false)
    }

    /// Like [`OpenClEngine::stream`], but batches for which
    /// [`BatchSource::wants_lines`] says yes come back as their distinct
    /// matching lines ([`BatchResult::Lines`]), numbered on the device
    /// (`kernels/line_index.cl`) after the match kernel; only those lines
    /// are read back. A batch the device cannot number (more matches than
    /// its result buffer, lines shorter than 4 bytes on average) or one
    /// searched on the CPU after a failure is numbered on the host from its
    /// staged bytes, with the same result.
    pub fn stream_lines<S: BatchSource + Send>(
        &self,
        src: &mut S,
        sink: &mut LineSink<'_, S::Tag>,
    ) -> StageStats {
        self.stream_impl(src, sink, true)
    }

    fn stream_impl<S: BatchSource + Send>(
        &self,
        src: &mut S,
        sink: &mut LineSink<'_, S::Tag>,
        line_mode: bool,
    ) -> StageStats {
        let t_wall = Instant::now();
        let mut st = self.lock();
        let init = st.init;
        let mut stats = StageStats {
            init_context: init.context,
            init_build: init.build,
            init_total: init.total,
            program_from_cache: init.program_from_cache,
            ..StageStats::default()
        };
        let cap = self.batch_capacity_of(&st);
        let nslots = self.opts.slots.max(1);

        let initial_out = self
            .opts
            .initial_out_entries
            .unwrap_or((cap / 16).clamp(16 * 1024, 4 << 20));
        if self.device_ok(&st) {
            let fault = self.opts.fault;
            let r = st
                .gpu
                .as_mut()
                .map(|g| g.ensure_slots(1, cap, initial_out, fault))
                .unwrap_or(Ok(()));
            if let Err(e) = r {
                self.fail(&mut st, e);
            }
        }
        crate::sys::trace::mark("stream: first slot ready");
        if line_mode && self.device_ok(&st) {
            let cache = &self.opts.cache;
            let r = st
                .gpu
                .as_mut()
                .map(|g| g.ensure_lines(cache))
                .unwrap_or(Ok(()));
            if let Err(e) = r {
                self.fail(&mut st, e);
            }
        }

        crate::sys::trace::mark("stream: line program ready");
        let more = st
            .gpu
            .as_ref()
            .filter(|g| g.slot_count() < nslots && self.device_ok(&st))
            .map(|g| (g.slot_maker(initial_out), nslots - g.slot_count()));
        self.run(
            &mut st,
            (cap, nslots),
            src,
            sink,
            (line_mode, more),
            &mut stats,
        );
        stats.device_failure = self.device_failure();
        stats.wall = t_wall.elapsed();
        crate::sys::trace::mark("stream done");
        stats
    }

    fn batch_capacity_of(&self, st: &State) -> usize {
        let max = st
            .gpu
            .as_ref()
            .map(super::gpu::Gpu::max_batch)
            .unwrap_or(1 << 31);
        self.opts.batch_bytes.clamp(1, max.max(1))
    }

    fn cpu_offsets(&self, data: &[u8], stats: &mut StageStats) -> Vec<u64> {
        let t = Instant::now();
        let v = if self.is_empty_set() {
            Vec::new()
        } else {
            self.cpu.find_all(data)
        };
        stats.cpu_search += t.elapsed();
        stats.cpu_batches += 1;
        v
    }

    /// Hands a batch searched on the host (or whose device results were
    /// offsets) to the sink, numbering its lines here when it wants lines.
    #[allow(clippy::too_many_arguments)]
    fn deliver<T>(
        &self,
        sink: &mut LineSink<'_, T>,
        tag: T,
        data: &[u8],
        offsets: Vec<u64>,
        lines: bool,
        stats: &mut StageStats,
    ) -> bool {
        stats.matches += offsets.len() as u64;
        let r = if lines {
            let t = Instant::now();
            let l = host_lines(data, &offsets);
            stats.collect += t.elapsed();
            stats.line_batches_host += 1;
            BatchResult::Lines(l)
        } else {
            BatchResult::Offsets(MatchSet { offsets })
        };
        self.deliver_result(sink, tag, data, r, stats)
    }

    fn deliver_result<T>(
        &self,
        sink: &mut LineSink<'_, T>,
        tag: T,
        data: &[u8],
        r: BatchResult,
        stats: &mut StageStats,
    ) -> bool {
        let t = Instant::now();
        let go_on = sink(tag, data, r);
        stats.finish += t.elapsed();
        go_on
    }

    /// Collects a device batch: `Ok(Some)` with its result, `Ok(None)` when
    /// the host must search it (results too big for the device buffers).
    fn collect(
        gpu: &mut Gpu,
        slot: usize,
        f: InFlight,
        (batch_no, ends): (u64, Ends),
        fault: Option<super::fault::Fault>,
        stats: &mut StageStats,
    ) -> Result<Option<BatchResult>, String> {
        if Gpu::is_line_mode(&f) {
            Ok(gpu
                .complete_lines(slot, f, (batch_no, ends), fault, stats)?
                .map(BatchResult::Lines))
        } else {
            let r = gpu.complete(slot, f, batch_no, fault, stats)?;
            if let Some(v) = &r {
                stats.matches += v.len() as u64;
            }
            Ok(r.map(|offsets| BatchResult::Offsets(MatchSet { offsets })))
        }
    }

    /// Enqueues a batch the filler has staged (or, with the device gone,
    /// remembers it for the CPU).
    fn launch<T>(&self, st: &mut State, batch: Filled<T>, stats: &mut StageStats) -> Pending<T> {
        stats.fill += batch.fill;
        stats.bytes += batch.n as u64;
        stats.batches += 1;
        let batch_no = st.batch_no;
        st.batch_no += 1;
        let mut inflight = None;
        if self.device_ok(st) {
            let r = match st.gpu.as_mut() {
                Some(g) => g.enqueue(batch.slot, batch.n, batch_no, self.opts.fault, batch.lines),
                None => Err("no device".into()),
            };
            match r {
                Ok(fl) => inflight = Some(fl),
                Err(e) => self.fail(st, e),
            }
        }
        Pending {
            batch,
            inflight,
            batch_no,
        }
    }

    /// Collects the oldest batch (on the CPU if the device failed or could
    /// not hold its results) and hands it to the sink.
    fn finish_batch<T>(
        &self,
        st: &mut State,
        p: Pending<T>,
        sink: &mut LineSink<'_, T>,
        stats: &mut StageStats,
    ) -> bool {
        let fault = self.opts.fault;
        let b = p.batch;
        let result = match (p.inflight, self.device_ok(st)) {
            (Some(f), true) => {
                let r = match st.gpu.as_mut() {
                    Some(g) => Self::collect(g, b.slot, f, (p.batch_no, b.ends), fault, stats),
                    None => Err("no device".into()),
                };
                match r {
                    Ok(v) => v,
                    Err(e) => {
                        self.fail(st, e);
                        None
                    }
                }
            }
            _ => None,
        };
        let Some(gpu) = st.gpu.as_ref() else {
            return false;
        };
        let (ptr, _) = gpu.host_region(b.slot);
        let data: &[u8] = region(ptr, b.n);
        match result {
            Some(r) => self.deliver_result(sink, b.tag, data, r, stats),
            None => {
                let offsets = self.cpu_offsets(data, stats);
                self.deliver(sink, b.tag, data, offsets, b.lines, stats)
            }
        }
    }

    /// The pipeline. A filler thread owns the source and fills free slots
    /// (reading files straight into pinned memory) while this thread
    /// enqueues filled batches, collects finished ones in order and runs
    /// the sink: filling, transfers, kernels and finishing all overlap.
    /// `more`: the slots still to pin and their maker; a thread pins them
    /// while the first batches go through the slots there are, and the
    /// loop puts each one to work as it comes.
    fn run<S: BatchSource + Send>(
        &self,
        st: &mut State,
        (cap, nslots): (usize, usize),
        src: &mut S,
        sink: &mut LineSink<'_, S::Tag>,
        (line_mode, more): (bool, Option<(SlotMaker, usize)>),
        stats: &mut StageStats,
    ) {
        let regions: Vec<SlotRegion> = match st.gpu.as_ref() {
            Some(g) if self.device_ok(st) => (0..g.slot_count().min(nslots))
                .map(|i| SlotRegion(g.host_region(i)))
                .collect(),
            _ => Vec::new(),
        };
        if regions.is_empty() {
            return self.run_on_cpu(st, cap, src, sink, line_mode, stats);
        }
        let (free_tx, free_rx) = crossbeam_channel::unbounded::<(usize, SlotRegion)>();
        let (full_tx, full_rx) = crossbeam_channel::unbounded::<Option<Filled<S::Tag>>>();
        let (pinned_tx, pinned_rx) = crossbeam_channel::unbounded::<Slot>();
        let stop_pinning = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let tail = Ends::Tail(self.max_len.max(1));
            let modes = (line_mode, tail);
            scope.spawn(move || fill_slots(src, cap, modes, &free_rx, &full_tx));
            if let Some((maker, n)) = more {
                let stop = &stop_pinning;
                scope.spawn(move || pin_slots(&maker, n, &pinned_tx, stop));
            }
            for (i, r) in regions.iter().enumerate() {
                let _ = free_tx.send((i, *r));
            }
            let mut pending: VecDeque<Pending<S::Tag>> = VecDeque::new();
            let mut done = false;
            loop {
                self.adopt_pinned(st, &pinned_rx, &free_tx, line_mode);
                if !done {
                    done = self.launch_staged(st, &full_rx, &mut pending, stats);
                }
                let Some(oldest) = pending.front() else { break };
                // While the oldest batch is still on the device, keep
                // handing it newly staged ones instead of blocking.
                let busy = oldest
                    .inflight
                    .as_ref()
                    .is_some_and(|f| !Gpu::is_complete(f));
                if busy && !done {
                    let t = Instant::now();
                    match full_rx.recv_timeout(Duration::from_micros(200)) {
                        Ok(Some(f)) => {
                            let p = self.launch(st, f, stats);
                            pending.push_back(p);
                        }
                        Ok(None) | Err(RecvTimeoutError::Disconnected) => done = true,
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    stats.wait += t.elapsed();
                    continue;
                }
                let Some(p) = pending.pop_front() else { break };
                let slot = p.batch.slot;
                if !self.finish_batch(st, p, sink, stats) {
                    // Stop: let the device finish what it has (its reads
                    // target slot memory), then drop the rest.
                    if let Some(g) = st.gpu.as_ref() {
                        g.quiesce();
                    }
                    pending.clear();
                    break;
                }
                if let Some(g) = st.gpu.as_ref() {
                    let _ = free_tx.send((slot, SlotRegion(g.host_region(slot))));
                }
            }
            // Ends the filler (it may be filling one last slot) and the
            // pinning (after the slot in hand).
            drop(free_tx);
            stop_pinning.store(true, Ordering::Relaxed);
        });
        // Slots pinned too late for this stream serve the next one.
        if let Some(g) = st.gpu.as_mut() {
            for slot in pinned_rx.try_iter() {
                g.adopt_slot(slot);
            }
        }
    }

    /// Enqueues whatever the filler has staged; with nothing in flight,
    /// waits for it. True when the source is exhausted.
    fn launch_staged<T>(
        &self,
        st: &mut State,
        full: &Receiver<Option<Filled<T>>>,
        pending: &mut VecDeque<Pending<T>>,
        stats: &mut StageStats,
    ) -> bool {
        loop {
            let msg = if pending.is_empty() {
                full.recv().unwrap_or(None)
            } else {
                match full.try_recv() {
                    Ok(m) => m,
                    Err(TryRecvError::Empty) => return false,
                    Err(TryRecvError::Disconnected) => None,
                }
            };
            let Some(f) = msg else { return true };
            let p = self.launch(st, f, stats);
            pending.push_back(p);
        }
    }

    /// Puts the slots pinned so far to work: each joins the device's slots
    /// (with its line buffers in line mode) and goes to the filler.
    fn adopt_pinned(
        &self,
        st: &mut State,
        pinned: &Receiver<Slot>,
        free: &Sender<(usize, SlotRegion)>,
        line_mode: bool,
    ) {
        for slot in pinned.try_iter() {
            let Some(g) = st.gpu.as_mut() else { return };
            let i = g.adopt_slot(slot);
            crate::sys::trace::mark("stream: one more slot at work");
            let lines = if line_mode {
                g.ensure_lines(&self.opts.cache)
            } else {
                Ok(())
            };
            let region = SlotRegion(g.host_region(i));
            match lines {
                Ok(()) => {
                    let _ = free.send((i, region));
                }
                Err(e) => self.fail(st, e),
            }
        }
    }

    /// No device slots (never had a device, or it failed first): the CPU,
    /// one batch at a time in a heap buffer.
    fn run_on_cpu<S: BatchSource>(
        &self,
        st: &mut State,
        cap: usize,
        src: &mut S,
        sink: &mut LineSink<'_, S::Tag>,
        line_mode: bool,
        stats: &mut StageStats,
    ) {
        loop {
            if st.heap.len() < cap + PAD {
                st.heap = vec![0u8; cap + PAD];
            }
            let t = Instant::now();
            let r = src.fill(&mut st.heap[..cap]);
            stats.fill += t.elapsed();
            let Some((n, tag)) = r else { return };
            let n = n.min(cap);
            stats.bytes += n as u64;
            stats.batches += 1;
            let lines = line_mode && src.wants_lines(&tag);
            let heap = std::mem::take(&mut st.heap);
            let offsets = self.cpu_offsets(&heap[..n], stats);
            let go_on = self.deliver(sink, tag, &heap[..n], offsets, lines, stats);
            st.heap = heap;
            if !go_on {
                return;
            }
        }
    }
}

/// A batch the filler staged in a slot.
struct Filled<T> {
    slot: usize,
    n: usize,
    tag: T,
    lines: bool,
    ends: Ends,
    fill: Duration,
}

/// A slot's mapped staging memory (pointer, length including PAD).
#[derive(Clone, Copy)]
struct SlotRegion((*mut u8, usize));

// SAFETY: the mapping stays valid for the whole `run` (the engine's state
// lock is held, and slots are neither unmapped nor reallocated meanwhile:
// slots pinned beside the stream are only added); the channels hand each
// slot to one thread at a time (the filler, then the pipeline until the
// batch is collected), so no two threads touch a slot's bytes at once.
unsafe impl Send for SlotRegion {}

/// The thread that pins `n` more slots with `maker` and sends each as it is
/// ready, until `stop` (the stream ended: at least one slot is pinned even
/// then, for the next stream) or a slot fails to pin (the stream goes on
/// with the slots it has).
fn pin_slots(maker: &SlotMaker, n: usize, pinned: &Sender<Slot>, stop: &AtomicBool) {
    for _ in 0..n {
        let Ok(slot) = maker.make() else { return };
        crate::sys::trace::mark("stream: one more slot pinned");
        if pinned.send(slot).is_err() || stop.load(Ordering::Relaxed) {
            return;
        }
    }
}

/// The filler thread: stages the next batch into each slot it is given,
/// padded for the kernels; sends `None` when the source is exhausted.
fn fill_slots<S: BatchSource>(
    src: &mut S,
    cap: usize,
    (line_mode, tail): (bool, Ends),
    free: &Receiver<(usize, SlotRegion)>,
    full: &Sender<Option<Filled<S::Tag>>>,
) {
    for (slot, SlotRegion((ptr, len))) in free.iter() {
        let buf = region(ptr, len);
        let t = Instant::now();
        let r = src.fill(&mut buf[..cap]);
        let fill = t.elapsed();
        let Some((n, tag)) = r else {
            let _ = full.send(None);
            return;
        };
        let n = n.min(cap);
        buf[n..n + PAD].fill(b'\n');
        let lines = line_mode && src.wants_lines(&tag);
        let ends = if lines && src.counts_only(&tag) {
            tail
        } else {
            Ends::All
        };
        let f = Filled {
            slot,
            n,
            tag,
            lines,
            ends,
            fill,
        };
        if full.send(Some(f)).is_err() {
            return;
        }
    }
}
