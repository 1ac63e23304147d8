//! Device-side state of one engine: context, the three in-order queues, the
//! built program and kernels, the pattern buffers, and the rotating batch
//! slots (pinned staging buffer mapped once + device text/result buffers).
//! It knows how to enqueue one batch and how to collect its results; the
//! pipeline policy lives in `stream.rs`, the failure policy in `engine.rs`.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{
    Buffer, CL_MAP_READ, CL_MAP_WRITE, CL_MEM_ALLOC_HOST_PTR, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE,
    ClMem,
};
use opencl3::program::Program;
use opencl3::types::{CL_BLOCKING, CL_NON_BLOCKING, cl_event, cl_mem};

use super::batch::StageStats;
use super::cache::ProgramCache;
use super::device::DeviceInfo;
use super::error::cl;
use super::fault::{Fault, FaultKind};
use super::host::Scratch;
use super::host::{alloc, make_queue, prev_pow2, shared_context, span, upload, upload_padded};
use super::kernels::{self, Geometry, KernelKind, Launched, MatchOut, Output, PAD, PatternArgs};
use super::lineindex::{self, BatchLines, Ends, LineBufs, LineEvents, LineProgram};
use super::program;

/// Offsets read back speculatively with every batch (one round trip covers
/// batches with at most this many matches).
pub const HEAD_ENTRIES: usize = 16 * 1024;

static ZERO: [u32; 1] = [0];

/// Time spent building the device side (reported by `--stats`).
#[derive(Clone, Copy, Debug, Default)]
pub struct InitStats {
    /// Context and queues.
    pub context: Duration,
    /// Program build (or cache load) and kernel creation.
    pub build: Duration,
    /// Whether the program binary came from the on-disk cache.
    pub program_from_cache: bool,
    /// Everything `OpenClEngine::new` took (discovery included).
    pub total: Duration,
}

/// A pointer into mapped pinned memory.
struct HostPtr(*mut u8);

// SAFETY: the pointer refers to pinned host memory owned by the slot's
// staging buffer, which moves with it; the thread holding the engine's
// state lock hands each slot's bytes to one thread at a time (the stream's
// filler, see `stream.rs`).
unsafe impl Send for HostPtr {}

/// One rotating batch slot (see [`new_slot`]).
pub(crate) struct Slot {
    staging: Buffer<u8>,
    host: HostPtr,
    /// Bytes of the mapping (batch capacity + PAD).
    host_len: usize,
    text: Buffer<u8>,
    out: Buffer<u32>,
    out_cap: usize,
    count: Buffer<u32>,
    count_host: Vec<u32>,
    head: Vec<u32>,
    /// Line mode (allocated by `ensure_lines`).
    lines: Option<SlotLines>,
    /// The launches' scratch, where they need one.
    scratch: Option<Scratch>,
}

/// A slot's line-mode buffers and the host memory its read-backs fill.
struct SlotLines {
    bufs: LineBufs,
    info_host: Vec<u32>,
    head_lines: Vec<u32>,
    head_first: Vec<u32>,
}

/// The line kernels and read-backs of one line-mode batch.
pub(crate) struct LineFlight {
    events: LineEvents,
    info_read: Event,
    lines_read: Event,
    first_read: Event,
    head_n: usize,
}

/// The events of one enqueued batch.
pub(crate) struct InFlight {
    write: Event,
    kernel: Option<Launched>,
    count_read: Event,
    /// The speculative read of the first offsets (not in line mode).
    head_read: Option<Event>,
    head_n: usize,
    n: usize,
    /// Line mode: `Some` once its kernels are enqueued (none for n = 0).
    lines: Option<LineFlight>,
    line_mode: bool,
}

pub(crate) struct Gpu {
    pub info: DeviceInfo,
    context: Arc<Context>,
    /// The line-index program, built on first use of line mode.
    line_prog: Option<LineProgram>,
    write_q: CommandQueue,
    exec_q: CommandQueue,
    /// Blocking read-backs of result tails (more results than the head
    /// read speculatively): on the exec queue such a read would wait behind
    /// the batches enqueued after this one.
    read_q: CommandQueue,
    /// Maps and unmaps the pinned staging slots, here and on the thread
    /// that pins further slots beside a stream ([`SlotMaker`]).
    map_q: Arc<CommandQueue>,
    _program: Program,
    kernel: Kernel,
    count_kernel: Option<Kernel>,
    args: PatternArgs,
    pub geo: Geometry,
    slots: Vec<Slot>,
    slot_bytes: usize,
    pub init: InitStats,
}

/// What `Gpu::new` needs besides the device and the patterns.
pub(crate) struct GpuConfig<'a> {
    pub cache: &'a ProgramCache,
    pub work_group: Option<usize>,
    pub iters: usize,
    pub fault: Option<Fault>,
    /// The DFA groups (kind `Dfa` only).
    pub dfa: Option<&'a crate::engine::dfa_table::DfaSet>,
}

/// One staging slot: a pinned staging buffer mapped once on `queue`, the
/// device's text buffer, a result buffer of `out_cap` entries and a counter.
fn new_slot(
    context: &Context,
    queue: &CommandQueue,
    len: usize,
    (out_cap, scratch): (usize, usize),
) -> Result<Slot, String> {
    // The sizes are non-zero and checked against the device's limit by the
    // caller.
    let staging = alloc::<u8>(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, len)
        .map_err(cl("allocating a pinned staging buffer"))?;
    let text =
        alloc::<u8>(context, CL_MEM_READ_ONLY, len).map_err(cl("allocating a device buffer"))?;
    let out = alloc::<u32>(context, CL_MEM_READ_WRITE, out_cap)
        .map_err(cl("allocating a result buffer"))?;
    let count = alloc::<u32>(context, CL_MEM_READ_WRITE, 1).map_err(cl("allocating a counter"))?;
    let mut p: cl_mem = ptr::null_mut();
    // SAFETY: a blocking map of the whole staging buffer; `p` receives the
    // host address, valid until the buffer is unmapped (in `release_slots`,
    // before the buffer is released).
    unsafe {
        queue
            .enqueue_map_buffer(
                &staging,
                CL_BLOCKING,
                CL_MAP_READ | CL_MAP_WRITE,
                0,
                len,
                &mut p,
                &[],
            )
            .map_err(cl("mapping a pinned staging buffer"))?;
    }
    if p.is_null() {
        return Err("mapping a pinned staging buffer returned null".into());
    }
    Ok(Slot {
        staging,
        host: HostPtr(p as *mut u8),
        host_len: len,
        text,
        out,
        out_cap,
        count,
        count_host: vec![0],
        head: vec![0; HEAD_ENTRIES.min(out_cap)],
        lines: None,
        scratch: scratch_of(context, scratch)?,
    })
}

/// Pins staging slots for one device off the stream's thread: the
/// pipeline starts on its first slot and takes the others as they come.
/// Pinning host memory is the slow part of a slot: 0.25-0.35 ms per MiB on
/// the H200 and H100 hosts, whether the slots are made one after the other
/// or side by side (measured), 15-25 ms for a batch of 64 MiB.
pub(crate) struct SlotMaker {
    context: Arc<Context>,
    queue: Arc<CommandQueue>,
    /// Bytes of each mapping (batch capacity + PAD).
    len: usize,
    out_cap: usize,
    scratch: usize,
}

impl SlotMaker {
    /// One more slot.
    pub fn make(&self) -> Result<Slot, String> {
        new_slot(
            &self.context,
            &self.queue,
            self.len,
            (self.out_cap, self.scratch),
        )
    }
}

/// What `Gpu::build_search` makes: the program, the match and count
/// kernels, the work-group size, the pattern tables.
type Built = (program::Built, Kernel, Option<Kernel>, usize, PatternArgs);

impl Gpu {
    /// Context, queues, program (through the cache), kernels and pattern
    /// buffers for `kind` on `info`. `pats` are non-empty.
    pub fn new(
        info: &DeviceInfo,
        kind: KernelKind,
        pats: &[Vec<u8>],
        fold: bool,
        cfg: &GpuConfig<'_>,
    ) -> Result<Gpu, String> {
        let t0 = Instant::now();
        let context = shared_context(info).map_err(cl("creating the context"))?;
        let write_q = make_queue(&context).map_err(cl("creating a command queue"))?;
        let exec_q = make_queue(&context).map_err(cl("creating a command queue"))?;
        let read_q = make_queue(&context).map_err(cl("creating a command queue"))?;
        let map_q = Arc::new(make_queue(&context).map_err(cl("creating a command queue"))?);
        let t_ctx = t0.elapsed();
        crate::sys::trace::mark("context and queues");

        let t1 = Instant::now();
        let wg = prev_pow2(
            cfg.work_group
                .unwrap_or(256)
                .min(info.max_work_group)
                .max(1),
        );
        let inject = Fault::hits_any_batch(cfg.fault, FaultKind::Build);
        // The line-numbering program (needed by every chunked file) is
        // built beside the search program: on a machine's first run both
        // are compiled, 0.9 s and 1.3 s on the H100, and side by side they
        // take the longer of the two. From the cache it is a few ms. Should
        // it fail here, `ensure_lines` builds it again and reports why.
        let line_wg = wg.max(64);
        // NVIDIA's compiler takes inline PTX: the char16 kernel's nibble
        // filter then uses its byte permute (`GSEARCH_CHAR16_PRMT=0` turns
        // that off, `=1` tries it on any device: tests use it to see the
        // fallback). Should such a build fail, the set is built again with
        // the portable filters.
        let prmt = match std::env::var("GSEARCH_CHAR16_PRMT").as_deref() {
            Ok("0") => false,
            Ok("1") => true,
            _ => info.platform.to_ascii_lowercase().contains("nvidia"),
        };
        let (searched, line_prog) = std::thread::scope(|s| {
            let lines = (!inject)
                .then(|| s.spawn(|| LineProgram::build(&context, info, cfg.cache, line_wg).ok()));
            let mut searched = Self::build_search(&context, info, kind, pats, fold, cfg, wg, prmt);
            if prmt && kind == KernelKind::Char16 && searched.is_err() && !inject {
                searched = Self::build_search(&context, info, kind, pats, fold, cfg, wg, false);
            }
            let line_prog = lines.and_then(|h| h.join().ok().flatten());
            (searched, line_prog)
        });
        let (built, kernel, count_kernel, wg, args) = searched?;
        crate::sys::trace::mark("program built, pattern tables uploaded");
        let init = InitStats {
            context: t_ctx,
            build: t1.elapsed(),
            program_from_cache: built.from_cache,
            total: Duration::ZERO,
        };
        Ok(Gpu {
            info: info.clone(),
            context,
            line_prog,
            write_q,
            exec_q,
            read_q,
            map_q,
            _program: built.program,
            kernel,
            count_kernel,
            args,
            geo: Geometry {
                wg,
                iters: cfg.iters.max(1),
            },
            slots: Vec::new(),
            slot_bytes: 0,
            init,
        })
    }

    /// The pattern tables, and the search program and its kernels with the
    /// work-group size they allow (at most `wg`); `prmt` as for
    /// `kernels::char16_filter`.
    #[allow(clippy::too_many_arguments)]
    fn build_search(
        context: &Context,
        info: &DeviceInfo,
        kind: KernelKind,
        pats: &[Vec<u8>],
        fold: bool,
        cfg: &GpuConfig<'_>,
        mut wg: usize,
        prmt: bool,
    ) -> Result<Built, String> {
        let inject = Fault::hits_any_batch(cfg.fault, FaultKind::Build);
        let mut args = PatternArgs::new(context, kind, pats, fold, prmt, cfg.dfa)
            .map_err(cl("uploading the patterns"))?;
        loop {
            // GSEARCH_KERNEL_OPTS: extra build options (kernel variants,
            // for tuning with the benchmark).
            let extra = std::env::var("GSEARCH_KERNEL_OPTS").unwrap_or_default();
            let options = format!("-cl-std=CL1.2 -D WG={wg} {} {extra}", args.defines(prmt));
            let built = program::build(context, info, kind.source(), &options, cfg.cache, inject)?;
            let kernel = Kernel::create(&built.program, kind.function(fold))
                .map_err(cl("creating the kernel"))?;
            args.attach(&built.program)
                .map_err(cl("creating the kernel"))?;
            let count_kernel = match kind.count_function(fold) {
                Some(f) => {
                    Some(Kernel::create(&built.program, f).map_err(cl("creating the kernel"))?)
                }
                None => None,
            };
            // The kernel may allow less than the device maximum (registers,
            // local memory): rebuild once for what it allows.
            let allowed = kernel
                .get_work_group_size(info.device.id())
                .unwrap_or(wg)
                .min(
                    count_kernel
                        .as_ref()
                        .and_then(|k| k.get_work_group_size(info.device.id()).ok())
                        .unwrap_or(wg),
                );
            if allowed >= wg || wg == 1 {
                return Ok((built, kernel, count_kernel, wg, args));
            }
            wg = prev_pow2(allowed);
        }
    }

    /// The largest batch this device can take in one buffer.
    pub fn max_batch(&self) -> usize {
        let alloc = usize::try_from(self.info.max_alloc).unwrap_or(usize::MAX);
        alloc.saturating_sub(PAD).min(1 << 31)
    }

    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Makes sure `n` slots of `bytes` capacity or more exist (kept for
    /// reuse; slots too small are freed first). A stream asks for one and
    /// pins the rest beside its first batches ([`Gpu::slot_maker`]).
    pub fn ensure_slots(
        &mut self,
        n: usize,
        bytes: usize,
        initial_out: usize,
        fault: Option<Fault>,
    ) -> Result<(), String> {
        if self.slot_bytes < bytes {
            self.release_slots();
        }
        if self.slots.len() >= n {
            return Ok(());
        }
        if Fault::hits_any_batch(fault, FaultKind::Alloc) {
            return Err("buffer allocation failed (injected fault GSEARCH_FAULT=alloc)".into());
        }
        self.slot_bytes = self.slot_bytes.max(bytes);
        let maker = self.slot_maker(initial_out);
        while self.slots.len() < n {
            // Slots made are kept when a later one fails, so that
            // `release_slots` (on the next call or on drop) unmaps them.
            let slot = maker.make()?;
            self.slots.push(slot);
        }
        crate::sys::trace::mark("pinned staging slots allocated");
        Ok(())
    }

    /// What pins further slots like the ones there are, on another thread.
    pub fn slot_maker(&self, initial_out: usize) -> SlotMaker {
        SlotMaker {
            context: Arc::clone(&self.context),
            queue: Arc::clone(&self.map_q),
            len: self.slot_bytes + PAD,
            out_cap: initial_out.max(1),
            scratch: self.args.scratch_entries(self.slot_bytes),
        }
    }

    /// Takes a slot a [`SlotMaker`] of this device pinned; its index.
    pub fn adopt_slot(&mut self, slot: Slot) -> usize {
        self.slots.push(slot);
        self.slots.len() - 1
    }

    /// Unmaps and frees every slot (waits for the queues first).
    fn release_slots(&mut self) {
        self.quiesce();
        for s in self.slots.drain(..) {
            // SAFETY: `host` is the pointer this buffer's mapping returned;
            // nothing uses it after this (the slot is being dropped).
            let r = unsafe {
                self.map_q
                    .enqueue_unmap_mem_object(s.staging.get(), s.host.0 as *mut c_void, &[])
            };
            if r.is_ok() {
                let _ = self.map_q.finish();
            }
        }
        self.slot_bytes = 0;
    }

    /// The mapped staging memory of `slot`: (pointer, length incl. PAD).
    pub fn host_region(&self, slot: usize) -> (*mut u8, usize) {
        let s = &self.slots[slot];
        (s.host.0, s.host_len)
    }

    /// Waits for everything enqueued (errors ignored: used on failure paths
    /// and before reusing host memory).
    pub fn quiesce(&self) {
        let _ = self.write_q.finish();
        let _ = self.exec_q.finish();
        let _ = self.read_q.finish();
    }

    /// Enqueues batch `n` bytes of `slot`'s staging memory (already padded):
    /// host-to-device write on the write queue; counter reset, kernel and
    /// read-backs on the exec queue, the kernel waiting for the write.
    /// With `line_mode` (and `ensure_lines` done), the line kernels follow
    /// the match kernel and only the line results are read back.
    pub fn enqueue(
        &mut self,
        slot: usize,
        n: usize,
        batch_no: u64,
        fault: Option<Fault>,
        line_mode: bool,
    ) -> Result<InFlight, String> {
        let s = &mut self.slots[slot];
        let line_mode = line_mode && s.lines.is_some() && self.line_prog.is_some();
        let write = upload_batch(&self.write_q, &self.exec_q, s, n)?;
        if Fault::hits(fault, FaultKind::Enqueue, batch_no) {
            let _ = self.write_q.flush();
            return Err("kernel enqueue failed (injected fault GSEARCH_FAULT=enqueue)".into());
        }
        let out = MatchOut {
            out: &s.out,
            cap: s.out_cap as u32,
            count: &s.count,
            scratch: s.scratch.as_ref(),
        };
        let kernel = kernels::launch(
            &self.exec_q,
            &self.kernel,
            &self.args,
            self.geo,
            &s.text,
            n as u32,
            Output::Matches(&out),
            &[write.get()],
        )
        .map_err(cl("enqueueing the kernel"))?;
        let lines = match (
            line_mode && n > 0,
            s.lines.as_mut(),
            self.line_prog.as_ref(),
        ) {
            (true, Some(sl), Some(p)) => {
                let o = lineindex::Offsets {
                    offs: s.out.get(),
                    count: s.count.get(),
                    cap: s.out_cap as u32,
                };
                let text = (s.text.get(), n as u32);
                Some(enqueue_lines(&self.exec_q, p, sl, text, &o, &write)?)
            }
            _ => None,
        };
        let (count_read, head_read, head_n) = read_matches(&self.exec_q, s, line_mode)?;
        self.write_q
            .flush()
            .map_err(cl("flushing the write queue"))?;
        self.exec_q
            .flush()
            .map_err(cl("flushing the kernel queue"))?;
        Ok(InFlight {
            write,
            kernel,
            count_read,
            head_read,
            head_n,
            n,
            lines,
            line_mode,
        })
    }

    /// Builds the line-index program (once) and gives every slot its line
    /// buffers (once per slot allocation). Call after `ensure_slots`.
    pub fn ensure_lines(&mut self, cache: &ProgramCache) -> Result<(), String> {
        if self.line_prog.is_none() {
            let p = LineProgram::build(&self.context, &self.info, cache, self.geo.wg.max(64))?;
            self.line_prog = Some(p);
        }
        let Some(p) = self.line_prog.as_ref() else {
            return Ok(());
        };
        for s in self.slots.iter_mut().filter(|s| s.lines.is_none()) {
            let bufs = LineBufs::new(&self.context, &self.exec_q, p, self.slot_bytes, s.out_cap)?;
            let head = HEAD_ENTRIES.min(bufs.cap_out);
            s.lines = Some(SlotLines {
                bufs,
                info_host: vec![0; 4],
                head_lines: vec![0; head],
                head_first: vec![0; head],
            });
        }
        Ok(())
    }

    /// Whether a batch was enqueued in line mode.
    pub fn is_line_mode(f: &InFlight) -> bool {
        f.line_mode
    }

    /// Whether the batch's last command has ended (an error counts: the
    /// collect that follows reports it), so collecting it will not block.
    pub fn is_complete(f: &InFlight) -> bool {
        let last = f.head_read.as_ref().unwrap_or(&f.count_read);
        // CL_COMPLETE is 0; errors are negative.
        last.command_execution_status().map_or(true, |s| s.0 <= 0)
    }

    /// Waits for a line-mode batch and returns its distinct matching lines
    /// (as many as `ends` asks for); `Ok(None)` when they did not fit the
    /// device buffers (more matches than the result buffer holds, a newline
    /// index or line table too small): the caller numbers that batch on the
    /// host.
    pub fn complete_lines(
        &mut self,
        slot: usize,
        f: InFlight,
        (batch_no, ends): (u64, Ends),
        fault: Option<Fault>,
        st: &mut StageStats,
    ) -> Result<Option<BatchLines>, String> {
        let t = Instant::now();
        f.count_read.wait().map_err(cl("waiting for the results"))?;
        if let Some(l) = &f.lines {
            for e in [&l.info_read, &l.lines_read, &l.first_read] {
                e.wait().map_err(cl("waiting for the line results"))?;
            }
        }
        st.wait += t.elapsed();
        if Fault::hits(fault, FaultKind::Lost, batch_no) {
            return Err(
                "reading results failed: device lost (injected fault GSEARCH_FAULT=lost)".into(),
            );
        }
        st.host_to_device += span(&f.write);
        if let Some(k) = &f.kernel {
            st.kernel += k.span();
        }
        st.device_to_host += span(&f.count_read);
        let s = &mut self.slots[slot];
        let matches = s.count_host[0];
        let (Some(l), Some(sl)) = (f.lines, s.lines.as_ref()) else {
            // Nothing was searched (an empty batch).
            return Ok(Some(BatchLines {
                from_device: true,
                ..BatchLines::default()
            }));
        };
        st.line_kernel += l.events.span();
        st.device_to_host += span(&l.info_read) + span(&l.lines_read) + span(&l.first_read);
        let t = Instant::now();
        let r = lineindex::collect(
            &self.read_q,
            &l.events.last,
            &sl.bufs,
            &sl.info_host,
            (&sl.head_lines[..l.head_n], &sl.head_first[..l.head_n]),
            (matches, s.out_cap as u32),
            ends,
        );
        st.collect += t.elapsed();
        if let Ok(Some(b)) = &r {
            st.matches += u64::from(matches);
            st.line_batches_device += 1;
            st.lines += b.distinct() as u64;
            st.lines_not_read += b.omitted as u64;
        }
        r
    }

    /// Waits for a batch and returns its sorted match offsets; `Ok(None)`
    /// when the result does not fit any device buffer (the caller searches
    /// that batch on the CPU; the device is fine).
    pub fn complete(
        &mut self,
        slot: usize,
        f: InFlight,
        batch_no: u64,
        fault: Option<Fault>,
        st: &mut StageStats,
    ) -> Result<Option<Vec<u64>>, String> {
        await_matches(&f, Fault::hits(fault, FaultKind::Lost, batch_no), st)?;
        let s = &self.slots[slot];
        let c = s.count_host[0] as usize;
        let raw: Vec<u32> = if c <= f.head_n {
            s.head[..c].to_vec()
        } else if c <= s.out_cap {
            self.read_all(slot, &f, c, st)?
        } else {
            match self.rerun_larger(slot, &f, c, st)? {
                Some(v) => v,
                None => return Ok(None),
            }
        };
        let t = Instant::now();
        let mut offs = crate::engine::radix::sorted_distinct(raw);
        if let PatternArgs::Dfa(a) = &self.args
            && a.has_near()
        {
            let host = self.slots[slot].host.0 as *const u8;
            // SAFETY: the slot's staging memory holds this batch's `n`
            // bytes until the pipeline refills it, after this collect.
            let text = unsafe { std::slice::from_raw_parts(host, f.n) };
            offs = super::dfa::line_starts(&offs, text);
        }
        st.collect += t.elapsed();
        Ok(Some(offs))
    }

    /// All `c` offsets of a batch whose head was read already: the head
    /// plus the rest, read after the kernel.
    fn read_all(
        &self,
        slot: usize,
        f: &InFlight,
        c: usize,
        st: &mut StageStats,
    ) -> Result<Vec<u32>, String> {
        let s = &self.slots[slot];
        let mut v = vec![0u32; c];
        v[..f.head_n].copy_from_slice(&s.head[..f.head_n]);
        let t = Instant::now();
        let after: Vec<_> = f.kernel.iter().map(|k| k.last.get()).collect();
        read_now(
            &self.read_q,
            &s.out,
            f.head_n,
            &mut v[f.head_n..],
            &after,
            "reading the results",
        )?;
        st.device_to_host += t.elapsed();
        Ok(v)
    }

    /// Overflow: the batch had `c` matches, more than the result buffer
    /// holds. Grows the buffer and runs the kernel again on the same text;
    /// `None` when a big enough buffer cannot be allocated.
    fn rerun_larger(
        &mut self,
        slot: usize,
        f: &InFlight,
        c: usize,
        st: &mut StageStats,
    ) -> Result<Option<Vec<u32>>, String> {
        let new_cap = c + c / 8 + 1024;
        if (new_cap as u64) * 4 > self.info.max_alloc {
            return Ok(None);
        }
        st.overflow_reruns += 1;
        let s = &mut self.slots[slot];
        s.out = alloc::<u32>(&self.context, CL_MEM_READ_WRITE, new_cap)
            .map_err(cl("allocating a larger result buffer"))?;
        s.out_cap = new_cap;
        let t = Instant::now();
        // SAFETY: a blocking write from a static; the text buffer still
        // holds this batch (the slot was not refilled).
        unsafe {
            self.exec_q
                .enqueue_write_buffer(&mut s.count, CL_BLOCKING, 0, &ZERO, &[])
                .map_err(cl("resetting the counter"))?;
        }
        let out = MatchOut {
            out: &s.out,
            cap: new_cap as u32,
            count: &s.count,
            scratch: s.scratch.as_ref(),
        };
        let (q, text) = (&self.exec_q, &s.text);
        kernels::launch(
            &self.exec_q,
            &self.kernel,
            &self.args,
            self.geo,
            text,
            f.n as u32,
            Output::Matches(&out),
            &[],
        )
        .map_err(cl("enqueueing the kernel"))?;
        let mut cnt = [0u32; 1];
        read_now(q, &s.count, 0, &mut cnt, &[], "reading the results")?;
        let c2 = cnt[0] as usize;
        if c2 > new_cap {
            return Err(format!("match count changed on re-run ({c} then {c2})"));
        }
        let mut v = vec![0u32; c2];
        read_now(q, &s.out, 0, &mut v, &[], "reading the results")?;
        st.kernel += t.elapsed();
        Ok(Some(v))
    }

    /// Enqueues this engine's kernel (`k`: the count-mode one for counts)
    /// over `text[..n]` on the execution queue after `wait` (`None`:
    /// nothing to search).
    fn launch(
        &self,
        k: &Kernel,
        (text, n): (&Buffer<u8>, u32),
        output: Output<'_>,
        wait: &[cl_event],
    ) -> Result<Option<Launched>, String> {
        kernels::launch(&self.exec_q, k, &self.args, self.geo, text, n, output, wait)
            .map_err(cl("enqueueing the kernel"))
    }

    /// A device copy of `data` followed by `PAD` newlines.
    fn padded_text(&self, data: &[u8]) -> Result<Buffer<u8>, String> {
        upload_padded(&self.context, CL_MEM_READ_ONLY, data, PAD)
            .map_err(cl("allocating a device buffer"))
    }

    /// A zeroed device array of `n` counters.
    fn zeroed_u32(&self, n: usize) -> Result<Buffer<u32>, String> {
        upload(&self.context, CL_MEM_READ_WRITE, &vec![0u32; n]).map_err(cl("allocating counters"))
    }

    /// One match-mode launch over `data`: the kernel's count and the
    /// offsets it wrote, as written (unsorted, duplicates kept; at most
    /// `data.len()` of them are read back). For tests of the kernels'
    /// "each start once" contract, which `complete`'s dedupe would hide.
    pub fn raw_matches(&mut self, data: &[u8]) -> Result<(u64, Vec<u32>), String> {
        let text = self.padded_text(data)?;
        let cap = data.len().max(1);
        let out = self.zeroed_u32(cap)?;
        let count = self.zeroed_u32(1)?;
        let scratch = scratch_of(&self.context, self.args.scratch_entries(data.len()))?;
        let o = MatchOut {
            out: &out,
            cap: cap as u32,
            count: &count,
            scratch: scratch.as_ref(),
        };
        self.launch(
            &self.kernel,
            (&text, data.len() as u32),
            Output::Matches(&o),
            &[],
        )?;
        let mut c = [0u32; 1];
        let mut v = vec![0u32; cap];
        read_now(&self.exec_q, &count, 0, &mut c, &[], "reading the count")?;
        read_now(&self.exec_q, &out, 0, &mut v, &[], "reading the results")?;
        v.truncate((c[0] as usize).min(cap));
        Ok((u64::from(c[0]), v))
    }

    /// Char16 count mode over `data`: per-pattern occurrence counts.
    pub fn count_occurrences(&mut self, data: &[u8], npat: usize) -> Result<Vec<u64>, String> {
        let Some(k) = &self.count_kernel else {
            return Err("this kernel has no count mode".into());
        };
        let text = self.padded_text(data)?;
        let counts = self.zeroed_u32(npat)?;
        self.launch(k, (&text, data.len() as u32), Output::Counts(&counts), &[])?;
        let mut out = vec![0u32; npat];
        read_now(
            &self.exec_q,
            &counts,
            0,
            &mut out,
            &[],
            "reading the counts",
        )?;
        Ok(out.into_iter().map(u64::from).collect())
    }

    // ---- device-resident runs, for the kernel benchmark ----

    pub(crate) fn context(&self) -> &Context {
        &self.context
    }

    pub(crate) fn exec_queue(&self) -> &CommandQueue {
        &self.exec_q
    }

    /// One match-mode run over a device-resident buffer (n + PAD bytes):
    /// returns (kernel device time, match count). Results beyond `out`'s
    /// capacity are counted, not stored.
    pub(crate) fn run_resident(
        &self,
        text: &Buffer<u8>,
        n: usize,
        out: &Buffer<u32>,
        cap: usize,
        count: &mut Buffer<u32>,
    ) -> Result<(Duration, u64), String> {
        // SAFETY: blocking write from a static.
        unsafe {
            self.exec_q
                .enqueue_write_buffer(count, CL_BLOCKING, 0, &ZERO, &[])
                .map_err(cl("resetting the counter"))?;
        }
        let scratch = scratch_of(&self.context, self.args.scratch_entries(n))?;
        let o = MatchOut {
            out,
            cap: cap as u32,
            count,
            scratch: scratch.as_ref(),
        };
        let ev = self.launch(&self.kernel, (text, n as u32), Output::Matches(&o), &[])?;
        let mut c = [0u32; 1];
        read_now(&self.exec_q, count, 0, &mut c, &[], "reading the count")?;
        Ok((
            ev.as_ref().map(Launched::span).unwrap_or_default(),
            c[0] as u64,
        ))
    }

    /// One count-mode run over a device-resident buffer (char16 only).
    pub(crate) fn run_resident_count(
        &self,
        text: &Buffer<u8>,
        n: usize,
        counts: &mut Buffer<u32>,
        npat: usize,
    ) -> Result<(Duration, Vec<u64>), String> {
        let Some(k) = &self.count_kernel else {
            return Err("this kernel has no count mode".into());
        };
        let zeros = vec![0u32; npat];
        // SAFETY: blocking write from a live vector.
        unsafe {
            self.exec_q
                .enqueue_write_buffer(counts, CL_BLOCKING, 0, &zeros, &[])
                .map_err(cl("resetting the counters"))?;
        }
        let ev = self.launch(k, (text, n as u32), Output::Counts(counts), &[])?;
        let mut c = vec![0u32; npat];
        read_now(&self.exec_q, counts, 0, &mut c, &[], "reading the counts")?;
        Ok((
            ev.as_ref().map(Launched::span).unwrap_or_default(),
            c.into_iter().map(u64::from).collect(),
        ))
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        self.release_slots();
    }
}

/// Waits for a batch's count and head read-backs and adds its stage times;
/// `lost` is the injected device-lost fault.
fn await_matches(f: &InFlight, lost: bool, st: &mut StageStats) -> Result<(), String> {
    let t = Instant::now();
    f.count_read.wait().map_err(cl("waiting for the results"))?;
    if let Some(h) = &f.head_read {
        h.wait().map_err(cl("waiting for the results"))?;
    }
    st.wait += t.elapsed();
    if lost {
        return Err(
            "reading results failed: device lost (injected fault GSEARCH_FAULT=lost)".into(),
        );
    }
    st.host_to_device += span(&f.write);
    if let Some(k) = &f.kernel {
        st.kernel += k.span();
    }
    st.device_to_host += span(&f.count_read) + f.head_read.as_ref().map(span).unwrap_or_default();
    Ok(())
}

/// A blocking read of `buf`, from element `from`, into `dst`, after `wait`;
/// `what` names the step in the error.
fn read_now<T>(
    q: &CommandQueue,
    buf: &Buffer<T>,
    from: usize,
    dst: &mut [T],
    wait: &[cl_event],
    what: &'static str,
) -> Result<(), String> {
    // SAFETY: the read blocks, so `dst`, borrowed for the call, outlives it.
    unsafe {
        q.enqueue_read_buffer(buf, CL_BLOCKING, from * std::mem::size_of::<T>(), dst, wait)
            .map_err(cl(what))?;
    }
    Ok(())
}

/// A non-blocking read of `buf` into `dst` on `q`.
///
/// # Safety
/// `dst` must be neither touched nor reallocated until the returned event
/// has completed.
unsafe fn read_into<T>(q: &CommandQueue, buf: &Buffer<T>, dst: &mut [T]) -> Result<Event, String> {
    // SAFETY: the caller keeps `dst` alive and untouched until the read
    // completes.
    unsafe {
        q.enqueue_read_buffer(buf, CL_NON_BLOCKING, 0, dst, &[])
            .map_err(cl("enqueueing the read-back"))
    }
}

/// The host-to-device copy of a slot's `n` staged bytes (plus padding) on
/// `write_q`, and the match counter's reset on `exec_q`.
fn upload_batch(
    write_q: &CommandQueue,
    exec_q: &CommandQueue,
    s: &mut Slot,
    n: usize,
) -> Result<Event, String> {
    debug_assert!(n + PAD <= s.host_len);
    // SAFETY: `host` maps `host_len >= n + PAD` bytes of pinned memory that
    // stay mapped and unmodified until this batch has completed (the
    // pipeline refills a slot only after collecting its batch).
    let src = unsafe { std::slice::from_raw_parts(s.host.0 as *const u8, n + PAD) };
    // SAFETY: non-blocking write from memory kept alive and untouched
    // until `write` completes (see above).
    let write = unsafe {
        write_q
            .enqueue_write_buffer(&mut s.text, CL_NON_BLOCKING, 0, src, &[])
            .map_err(cl("enqueueing the host-to-device copy"))?
    };
    // SAFETY: ZERO is a static, alive for the whole program.
    unsafe {
        exec_q
            .enqueue_write_buffer(&mut s.count, CL_NON_BLOCKING, 0, &ZERO, &[])
            .map_err(cl("enqueueing the counter reset"))?;
    }
    Ok(write)
}

/// Scratch of `entries` positions, or none for 0.
fn scratch_of(context: &Context, entries: usize) -> Result<Option<Scratch>, String> {
    if entries == 0 {
        return Ok(None);
    }
    Scratch::new(context, entries)
        .map(Some)
        .map_err(cl("allocating a scratch buffer"))
}

/// The line kernels of a line-mode batch (after the match kernel, waiting
/// for the text's `write`) and the read-backs of their results.
fn enqueue_lines(
    q: &CommandQueue,
    p: &LineProgram,
    sl: &mut SlotLines,
    (text, n): (cl_mem, u32),
    offsets: &lineindex::Offsets,
    write: &Event,
) -> Result<LineFlight, String> {
    let events = lineindex::enqueue_all(q, p, &sl.bufs, text, n, offsets, &[write.get()])
        .map_err(cl("enqueueing the line kernels"))?;
    let head_n = sl.head_lines.len();
    // SAFETY: the slot's own vectors, neither touched nor reallocated
    // until `complete_lines` waited for these reads.
    let (info_read, lines_read, first_read) = unsafe {
        (
            read_into(q, &sl.bufs.info, &mut sl.info_host)?,
            read_into(q, &sl.bufs.out_lines, &mut sl.head_lines)?,
            read_into(q, &sl.bufs.out_first, &mut sl.head_first)?,
        )
    };
    Ok(LineFlight {
        events,
        info_read,
        lines_read,
        first_read,
        head_n,
    })
}

/// The read-backs of a batch's match count and, unless in line mode, the
/// head of its offsets: (count read, head read, head entries).
fn read_matches(
    q: &CommandQueue,
    s: &mut Slot,
    line_mode: bool,
) -> Result<(Event, Option<Event>, usize), String> {
    let head_n = if line_mode {
        0
    } else {
        s.head.len().min(s.out_cap)
    };
    // SAFETY: the slot's own vectors, neither touched nor reallocated until
    // `complete` waited for these reads.
    let count_read = unsafe { read_into(q, &s.count, &mut s.count_host)? };
    let head_read = if line_mode {
        None
    } else {
        // SAFETY: as above.
        Some(unsafe { read_into(q, &s.out, &mut s.head[..head_n])? })
    };
    Ok((count_read, head_read, head_n))
}
