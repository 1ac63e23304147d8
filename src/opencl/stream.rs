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
//!
//! Failure: if any device step fails, the failed batch and every batch
//! still in flight are searched on the CPU from their staging bytes (which
//! the device only ever reads), one warning is printed, and the rest of the
//! stream runs on the CPU. No match is lost.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::engine::MatchSet;

use super::engine::{OpenClEngine, State};
use super::gpu::InFlight;
use super::kernels::PAD;

/// Where batches come from. `fill` writes up to `buf.len()` bytes (the
/// engine's [`OpenClEngine::batch_capacity`]) at the start of `buf` - e.g.
/// `read(2)`/`pread(2)` straight into it, or a copy from a memory map - and
/// returns how many it wrote plus a tag describing them (a file table,
/// chunk offsets...). `None` ends the stream.
///
/// Rules the source must keep: files packed into one batch are separated by
/// one `\n`; a file cut into chunks overlaps consecutive chunks by
/// `max_pattern_len() - 1` bytes and keeps, for each chunk, only the matches
/// that start in the part it owns.
/// The consumer of a stream: `(tag, staged bytes, matches) -> keep going?`.
pub type BatchSink<'a, T> = dyn FnMut(T, &[u8], MatchSet) -> bool + 'a;

pub trait BatchSource {
    type Tag: Send;
    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, Self::Tag)>;
}

/// Where the time went (`--stats`). Device times come from OpenCL profiling
/// events (summed over batches; they overlap each other and host work).
#[derive(Clone, Debug, Default)]
pub struct StageStats {
    /// Context + queues (from the engine's set-up).
    pub init_context: Duration,
    /// Program build or cache load.
    pub init_build: Duration,
    /// The program binary came from the on-disk cache.
    pub program_from_cache: bool,
    /// Time in `BatchSource::fill`.
    pub fill: Duration,
    /// Host-to-device copies (device time).
    pub host_to_device: Duration,
    /// Kernels (device time).
    pub kernel: Duration,
    /// Device-to-host read-backs (device time).
    pub device_to_host: Duration,
    /// Host blocked waiting for the device.
    pub wait: Duration,
    /// Host sorting/converting offsets.
    pub collect: Duration,
    /// Host finishing: time in the sink.
    pub finish: Duration,
    /// CPU searches (fallback after a failure, or no device).
    pub cpu_search: Duration,
    /// Whole `stream` call.
    pub wall: Duration,
    /// Bytes searched.
    pub bytes: u64,
    /// Batches searched (device + CPU).
    pub batches: u64,
    /// Of those, searched on the CPU.
    pub cpu_batches: u64,
    /// Kernel re-runs because the result buffer overflowed.
    pub overflow_reruns: u64,
    /// Match offsets delivered.
    pub matches: u64,
    /// Set when the device failed (the reason).
    pub device_failure: Option<String>,
}

impl StageStats {
    /// One line per stage, for `--stats`.
    pub fn summary(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mut s = format!(
            "opencl init: context {:.1} ms, program {:.1} ms ({})\n",
            ms(self.init_context),
            ms(self.init_build),
            if self.program_from_cache {
                "from cache"
            } else {
                "compiled"
            }
        );
        s += &format!(
            "opencl stream: {} bytes in {} batches ({} on CPU), {} matches, wall {:.1} ms\n",
            self.bytes,
            self.batches,
            self.cpu_batches,
            self.matches,
            ms(self.wall)
        );
        s += &format!(
            "  fill {:.1} ms | host-to-device {:.1} ms | kernel {:.1} ms | device-to-host {:.1} ms \
             | wait {:.1} ms | collect {:.1} ms | finish {:.1} ms | cpu {:.1} ms\n",
            ms(self.fill),
            ms(self.host_to_device),
            ms(self.kernel),
            ms(self.device_to_host),
            ms(self.wait),
            ms(self.collect),
            ms(self.finish),
            ms(self.cpu_search)
        );
        if let Some(f) = &self.device_failure {
            s += &format!("  device failed: {f}\n");
        }
        s
    }
}

struct Pending<T> {
    slot: usize,
    n: usize,
    tag: T,
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
    pub fn stream<S: BatchSource>(
        &self,
        src: &mut S,
        sink: &mut BatchSink<'_, S::Tag>,
    ) -> StageStats {
        let t_wall = Instant::now();
        let mut st = self.lock();
        let init = self.init_stats();
        let mut stats = StageStats {
            init_context: init.context,
            init_build: init.build,
            program_from_cache: init.program_from_cache,
            ..StageStats::default()
        };
        let cap = self.batch_capacity_of(&st);
        let nslots = self.opts.slots.max(1);

        if self.device_ok(&st) {
            let initial_out = self
                .opts
                .initial_out_entries
                .unwrap_or((cap / 16).clamp(16 * 1024, 4 << 20));
            let fault = self.opts.fault;
            let r = st
                .gpu
                .as_mut()
                .map(|g| g.ensure_slots(nslots, cap, initial_out, fault))
                .unwrap_or(Ok(()));
            if let Err(e) = r {
                self.fail(&mut st, e);
            }
        }

        self.run(&mut st, cap, nslots, src, sink, &mut stats);
        stats.device_failure = self.device_failure();
        stats.wall = t_wall.elapsed();
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
        let v = if self.patterns.is_empty() {
            Vec::new()
        } else {
            self.cpu.find_all(data)
        };
        stats.cpu_search += t.elapsed();
        stats.cpu_batches += 1;
        v
    }

    fn deliver<T>(
        &self,
        sink: &mut BatchSink<'_, T>,
        tag: T,
        data: &[u8],
        offsets: Vec<u64>,
        stats: &mut StageStats,
    ) -> bool {
        stats.matches += offsets.len() as u64;
        let t = Instant::now();
        let go_on = sink(tag, data, MatchSet { offsets });
        stats.finish += t.elapsed();
        go_on
    }

    fn run<S: BatchSource>(
        &self,
        st: &mut State,
        cap: usize,
        nslots: usize,
        src: &mut S,
        sink: &mut BatchSink<'_, S::Tag>,
        stats: &mut StageStats,
    ) {
        let fault = self.opts.fault;
        let mut pending: VecDeque<Pending<S::Tag>> = VecDeque::new();
        let mut free: VecDeque<usize> = VecDeque::new();
        if self.device_ok(st) {
            let n = st.gpu.as_ref().map(|g| g.slot_count()).unwrap_or(0);
            free.extend(0..n.min(nslots));
        }
        let mut done = false;
        loop {
            // Keep the device busy: fill and enqueue while slots are free.
            while !done && self.device_ok(st) && !free.is_empty() {
                let slot = free.pop_front().unwrap_or(0);
                let Some(gpu) = st.gpu.as_mut() else { break };
                let (ptr, len) = gpu.host_region(slot);
                let buf = region(ptr, len);
                let t = Instant::now();
                let r = src.fill(&mut buf[..cap]);
                stats.fill += t.elapsed();
                let Some((n, tag)) = r else {
                    done = true;
                    free.push_front(slot);
                    break;
                };
                let n = n.min(cap);
                buf[n..n + PAD].fill(b'\n');
                stats.bytes += n as u64;
                stats.batches += 1;
                let batch_no = st.batch_no;
                st.batch_no += 1;
                let inflight = match gpu.enqueue(slot, n, batch_no, fault) {
                    Ok(f) => Some(f),
                    Err(e) => {
                        self.fail(st, e);
                        None
                    }
                };
                pending.push_back(Pending {
                    slot,
                    n,
                    tag,
                    inflight,
                    batch_no,
                });
            }

            if let Some(p) = pending.pop_front() {
                let offsets = match (p.inflight, self.device_ok(st)) {
                    (Some(f), true) => {
                        let r = match st.gpu.as_mut() {
                            Some(g) => g.complete(p.slot, f, p.batch_no, fault, stats),
                            None => Err("no device".into()),
                        };
                        match r {
                            Ok(Some(v)) => Some(v),
                            Ok(None) => None,
                            Err(e) => {
                                self.fail(st, e);
                                None
                            }
                        }
                    }
                    _ => None,
                };
                let Some(gpu) = st.gpu.as_ref() else { break };
                let (ptr, _) = gpu.host_region(p.slot);
                let data: &[u8] = region(ptr, p.n);
                let offsets = match offsets {
                    Some(v) => v,
                    None => self.cpu_offsets(data, stats),
                };
                let go_on = self.deliver(sink, p.tag, data, offsets, stats);
                free.push_back(p.slot);
                if !go_on {
                    // Stop: let the device finish what it has (its reads
                    // target slot memory), then drop the rest.
                    if let Some(g) = st.gpu.as_ref() {
                        g.quiesce();
                    }
                    pending.clear();
                    return;
                }
                continue;
            }

            if done {
                return;
            }
            // No device (never had one, or it failed): CPU, one batch at a
            // time in a heap buffer.
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
            let heap = std::mem::take(&mut st.heap);
            let offsets = self.cpu_offsets(&heap[..n], stats);
            let go_on = self.deliver(sink, tag, &heap[..n], offsets, stats);
            st.heap = heap;
            if !go_on {
                return;
            }
        }
    }
}
