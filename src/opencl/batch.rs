//! The batch contract between the streaming pipeline and its callers:
//! [`BatchSource`] (where batches come from), the sinks that take each
//! batch's matches or lines, and [`StageStats`] (where the time went).
//! Below `gpu`, `engine` and `stream`, which all use it.

use std::time::Duration;

use crate::engine::MatchSet;
use crate::sys::count_of;

use super::lineindex::BatchLines;

/// Where batches come from. `fill` writes up to `buf.len()` bytes (the
/// engine's [`OpenClEngine::batch_capacity`](super::engine::OpenClEngine::batch_capacity)) at the start of `buf` - e.g.
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

/// What [`OpenClEngine::stream_lines`](super::engine::OpenClEngine::stream_lines) hands over for one batch.
#[derive(Debug)]
pub enum BatchResult {
    /// Sorted match offsets (a batch the source did not want lines for).
    Offsets(MatchSet),
    /// The distinct matching lines (see [`BatchLines`]).
    Lines(BatchLines),
}

/// The consumer of [`OpenClEngine::stream_lines`](super::engine::OpenClEngine::stream_lines).
pub type LineSink<'a, T> = dyn FnMut(T, &[u8], BatchResult) -> bool + 'a;

pub trait BatchSource {
    type Tag: Send;
    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, Self::Tag)>;

    /// Whether the batch just filled should come back as distinct matching
    /// lines instead of offsets ([`OpenClEngine::stream_lines`](super::engine::OpenClEngine::stream_lines) only).
    fn wants_lines(&self, _tag: &Self::Tag) -> bool {
        false
    }

    /// Whether, of those lines, only their number and the first and last
    /// few are needed (counting a chunked file): the rest is not read back
    /// ([`BatchLines::omitted`]).
    fn counts_only(&self, _tag: &Self::Tag) -> bool {
        false
    }
}

/// A source whose `fill` splits in two, for several devices on one source:
/// [`SplitSource::claim`] decides the next batch (which files, which range
/// of a big file: cheap, under the queue's lock) and [`SplitSource::read`]
/// puts its bytes into the device's own slot (outside the lock, so devices
/// read at once). `fill` must be `claim` then `read`.
pub trait SplitSource: BatchSource {
    type Claim: Send;
    /// The next batch of at most `cap` bytes; `None` ends the stream.
    fn claim(&mut self, cap: usize) -> Option<Self::Claim>;
    /// `(wants_lines, counts_only)` of the batch `claim` will read into.
    fn modes(&self, claim: &Self::Claim) -> (bool, bool);
    /// Reads a claimed batch into `buf` (`cap` bytes, as claimed).
    fn read(claim: Self::Claim, buf: &mut [u8]) -> (usize, Self::Tag);
}

/// A sink split in two, for several devices on one source: `prepare` does
/// a batch's work that needs its bytes, in the thread of the device that
/// searched it, as soon as it is collected (the slot is reused after);
/// the caller's commit then takes the prepared batches one at a time in
/// the order the source gave them out.
pub trait SplitSink<T>: Sync {
    /// Per-thread state of `prepare` (printers, scratch).
    type Local;
    /// What `prepare` hands to the commit.
    type Ready: Send;
    /// A thread's state; `shared`: several devices (the commit does not
    /// see the batch's bytes, so `prepare` keeps what it needs of them).
    fn local(&self, shared: bool) -> Self::Local;
    fn prepare(&self, local: &mut Self::Local, tag: T, bytes: &[u8], r: BatchResult)
    -> Self::Ready;
    /// Bytes `ready` holds (the reorder buffer's bound counts them).
    fn weight(ready: &Self::Ready) -> usize;
}

/// How a device shared the queue with others (`--stats`, several devices).
#[derive(Clone, Debug, Default)]
pub struct SharedStats {
    /// Claiming batches, waiting for the queue's lock included.
    pub claim: Duration,
    /// Of that, waiting for the lock.
    pub lock_wait: Duration,
    /// Preparing batches in this device's thread.
    pub prepare: Duration,
    /// Waiting for room in the reorder buffer (its turn: the batches
    /// before its own held it full).
    pub turn_wait: Duration,
    /// Committing batches (this thread's and others', in order).
    pub commit: Duration,
    pub commits: u64,
}

/// Where the time went (`--stats`). Device times come from OpenCL profiling
/// events (summed over batches; they overlap each other and host work).
#[derive(Clone, Debug, Default)]
pub struct StageStats {
    /// Context + queues (from the engine's set-up).
    pub init_context: Duration,
    /// Program build or cache load.
    pub init_build: Duration,
    /// All of the engine's start-up (device discovery, context, program,
    /// pattern tables, the CPU fallback).
    pub init_total: Duration,
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
    /// Match offsets delivered (found, for batches returned as lines).
    pub matches: u64,
    /// Line-index kernels (device time, first start to last end).
    pub line_kernel: Duration,
    /// Batches returned as lines numbered on the device / on the host.
    pub line_batches_device: u64,
    pub line_batches_host: u64,
    /// Distinct matching lines numbered on the device.
    pub lines: u64,
    /// Of those, lines counted without being read back (`-c`).
    pub lines_not_read: u64,
    /// Set when the device failed (the reason).
    pub device_failure: Option<String>,
    /// With several devices: how this one shared the queue.
    pub shared: Option<SharedStats>,
}

impl StageStats {
    /// One line per stage, for `--stats`.
    pub fn summary(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mut s = format!(
            "opencl init: context {:.1} ms, program {:.1} ms ({}), {:.1} ms in all\n",
            ms(self.init_context),
            ms(self.init_build),
            if self.program_from_cache {
                "from cache"
            } else {
                "compiled"
            },
            ms(self.init_total)
        );
        s += &format!(
            "opencl stream: {} in {} ({} on CPU), {}, wall {:.1} ms\n",
            count_of(self.bytes, "byte"),
            count_of(self.batches, "batch"),
            self.cpu_batches,
            count_of(self.matches, "match"),
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
        if self.line_batches_device + self.line_batches_host > 0 {
            s += &format!(
                "  line numbers: {} on the device ({}, {} counted \
                 without reading them back, line kernels {:.1} ms), {} on the host\n",
                count_of(self.line_batches_device, "batch"),
                count_of(self.lines, "matching line"),
                self.lines_not_read,
                ms(self.line_kernel),
                self.line_batches_host
            );
        }
        if let Some(q) = &self.shared {
            s += &format!(
                "  shared queue: claim {:.1} ms (lock wait {:.1} ms) | prepare {:.1} ms | \
                 waiting for its turn {:.1} ms | commit {:.1} ms ({}, in order)\n",
                ms(q.claim),
                ms(q.lock_wait),
                ms(q.prepare),
                ms(q.turn_wait),
                ms(q.commit),
                count_of(q.commits, "batch")
            );
        }
        if let Some(f) = &self.device_failure {
            s += &format!("  device failed: {f}\n");
        }
        s
    }
}
