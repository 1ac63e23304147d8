//! Line numbers of a batch's matches, computed on the device
//! (`kernels/line_index.cl`): a newline index built by block counts, a scan
//! and a compaction, a lower-bound search of every match offset in it, and
//! a per-line dedupe, so that only the distinct matching lines come back
//! (line number within the batch, first match offset), with the batch's
//! newline count. The host reference [`host_lines`] gives the same answer
//! from the staged bytes (CPU fallback, and the tests' reference).
//!
//! One small launch function per kernel (kernels 5 and 7, which share their
//! grid and line table, one between them; opencl3's `ExecuteKernel` panics
//! on a missing argument; these set every argument and return errors).

use std::time::Duration;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE, ClMem};
use opencl3::program::Program;
use opencl3::types::{CL_BLOCKING, cl_event, cl_mem};

use super::cache::ProgramCache;
use super::device::DeviceInfo;
use super::error::cl;
use super::host::{
    Arg, alloc, enqueue_1d, make_queue, prev_pow2, set_args, shared_context, span_between, upload,
};
use super::program;

pub const LINE_INDEX_SRC: &str = include_str!("../../kernels/line_index.cl");

/// Text bytes per work-item / line entries per work-item (the kernel's `IB`
/// and `LB`).
const IB: usize = 64;
const LB: usize = 16;
/// A line slot with no match (the kernel's `EMPTY`).
const EMPTY: u32 = u32::MAX;

/// The distinct matching lines of one batch, sorted by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchLines {
    /// Newlines in the batch's bytes (all of them, overlap included).
    pub newlines: u64,
    /// Line number within the batch (newlines before the line) of each
    /// distinct line holding a match, ascending.
    pub lines: Vec<u32>,
    /// The first match offset on each of those lines.
    pub first: Vec<u32>,
    /// Whether the device computed these (else the host did).
    pub from_device: bool,
    /// Lines not read back (a batch collected for its count): `omitted`
    /// lines sit between `lines[..omitted_at]` and `lines[omitted_at..]`.
    /// Only the first lines and the last few (which the chunk overlap may
    /// cover) were read; see [`Ends`].
    pub omitted: usize,
    pub omitted_at: usize,
}

impl BatchLines {
    /// All distinct matching lines of the batch, read back or not.
    pub fn distinct(&self) -> usize {
        self.lines.len() + self.omitted
    }
}

/// How much of a batch's line results to read back: all of them, or only
/// the head (read with every batch anyway) and the last `tail` lines - what
/// counting needs when at most `tail - 1` lines can start in the chunk's
/// overlap (a batch whose overlap is `tail - 1` bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ends {
    All,
    Tail(usize),
}

/// The host's answer for `bytes` and its sorted match offsets: the CPU
/// fallback's line info, equal to what the device returns.
pub fn host_lines(bytes: &[u8], offsets: &[u64]) -> BatchLines {
    let mut out = BatchLines {
        newlines: memchr::memchr_iter(b'\n', bytes).count() as u64,
        ..BatchLines::default()
    };
    let (mut pos, mut line) = (0usize, 0u32);
    for &o in offsets {
        let o = (o as usize).min(bytes.len());
        if o < pos {
            continue;
        }
        line += memchr::memchr_iter(b'\n', &bytes[pos..o]).count() as u32;
        pos = o;
        if out.lines.last() != Some(&line) {
            out.lines.push(line);
            out.first.push(o as u32);
        }
    }
    out
}

/// The built line-index program and its kernels.
pub(crate) struct LineProgram {
    _program: Program,
    nl_counts: Kernel,
    scan: Kernel,
    nl_compact: Kernel,
    mark: Kernel,
    line_counts: Kernel,
    compact: Kernel,
    pub wg: usize,
}

impl LineProgram {
    /// The launch shape of the per-text-block kernels for `n` bytes: one
    /// work-group per block.
    fn text_grid(&self, n: u32) -> (usize, usize) {
        (self.text_blocks(n as usize), self.wg)
    }

    /// Builds the program (through the cache) with the largest power-of-two
    /// work-group size up to `wg` that every kernel allows.
    pub fn build(
        ctx: &Context,
        info: &DeviceInfo,
        cache: &ProgramCache,
        wg: usize,
    ) -> Result<LineProgram, String> {
        let mut wg = prev_pow2(wg.min(info.max_work_group).max(1));
        loop {
            let options = format!("-cl-std=CL1.2 -D WG={wg}");
            let built = program::build(ctx, info, LINE_INDEX_SRC, &options, cache, false)?;
            let k = |name| Kernel::create(&built.program, name).map_err(cl("creating a kernel"));
            let p = LineProgram {
                nl_counts: k("nl_block_counts")?,
                scan: k("scan_counts")?,
                nl_compact: k("nl_compact")?,
                mark: k("line_mark")?,
                line_counts: k("line_block_counts")?,
                compact: k("line_compact")?,
                _program: built.program,
                wg,
            };
            let allowed = [
                &p.nl_counts,
                &p.scan,
                &p.nl_compact,
                &p.mark,
                &p.line_counts,
                &p.compact,
            ]
            .iter()
            .map(|k| k.get_work_group_size(info.device.id()).unwrap_or(wg))
            .min()
            .unwrap_or(wg);
            if allowed >= wg || wg == 1 {
                return Ok(p);
            }
            wg = prev_pow2(allowed);
        }
    }

    fn text_blocks(&self, n: usize) -> usize {
        n.div_ceil(self.wg * IB)
    }

    fn line_blocks(&self, lines: usize) -> usize {
        lines.div_ceil(self.wg * LB)
    }
}

/// Device buffers of one slot, allocated once for its batch capacity.
pub(crate) struct LineBufs {
    nl_counts: Buffer<u32>,
    nl_index: Buffer<u32>,
    /// `cap_nl + 1` entries, EMPTY between batches (line_compact resets).
    first: Buffer<u32>,
    line_counts: Buffer<u32>,
    pub out_lines: Buffer<u32>,
    pub out_first: Buffer<u32>,
    pub info: Buffer<u32>,
    pub cap_nl: usize,
    pub cap_out: usize,
}

fn rw_buffer(ctx: &Context, len: usize, what: &'static str) -> Result<Buffer<u32>, String> {
    alloc::<u32>(ctx, CL_MEM_READ_WRITE, len.max(1)).map_err(cl(what))
}

/// Newline index capacity for a batch of `bytes`: a quarter of the bytes
/// (lines shorter than 4 bytes on average make the host number the batch).
pub fn newline_capacity(bytes: usize) -> usize {
    bytes / 4 + 16
}

impl LineBufs {
    /// Buffers for batches of up to `bytes` bytes and `cap_out` distinct
    /// lines; `first` is filled with EMPTY (blocking).
    pub fn new(
        ctx: &Context,
        q: &CommandQueue,
        p: &LineProgram,
        bytes: usize,
        cap_out: usize,
    ) -> Result<LineBufs, String> {
        let cap_nl = newline_capacity(bytes);
        let mut first = rw_buffer(ctx, cap_nl + 1, "allocating the line table")?;
        // SAFETY: the pattern is a live one-element slice; the filled range
        // is the whole buffer; we wait for the fill before returning.
        unsafe {
            q.enqueue_fill_buffer(&mut first, &[EMPTY], 0, (cap_nl + 1) * 4, &[])
                .map_err(cl("clearing the line table"))?;
        }
        q.finish().map_err(cl("clearing the line table"))?;
        Ok(LineBufs {
            nl_counts: rw_buffer(ctx, p.text_blocks(bytes), "allocating block counts")?,
            nl_index: rw_buffer(ctx, cap_nl, "allocating the newline index")?,
            first,
            line_counts: rw_buffer(
                ctx,
                p.line_blocks(bytes.min(cap_nl) + 1),
                "allocating block counts",
            )?,
            out_lines: rw_buffer(ctx, cap_out, "allocating the line results")?,
            out_first: rw_buffer(ctx, cap_out, "allocating the line results")?,
            info: rw_buffer(ctx, 4, "allocating the line counters")?,
            cap_nl,
            cap_out,
        })
    }
}

/// Sets every argument of `k` and enqueues `groups` groups of `wg`.
///
/// # Safety
/// `args` must follow `k`'s parameter list in `line_index.cl`.
unsafe fn launch(
    q: &CommandQueue,
    k: &Kernel,
    args: &[Arg],
    (groups, wg): (usize, usize),
    wait: &[cl_event],
) -> Result<Event, ClError> {
    // SAFETY: the caller's contract covers the arguments; all are set
    // before the launch.
    unsafe {
        set_args(k, 0, args)?;
        enqueue_1d(q, k, groups * wg, wg, wait)
    }
}

/// Kernel 1: newlines per text block of `text[..n]` into `counts`.
pub fn launch_nl_block_counts(
    q: &CommandQueue,
    p: &LineProgram,
    text: cl_mem,
    n: u32,
    counts: cl_mem,
    wait: &[cl_event],
) -> Result<Event, ClError> {
    let args = [Arg::Mem(text), Arg::U32(n), Arg::Mem(counts)];
    // SAFETY: layout of nl_block_counts (line_index.cl): cl_mem, uint, cl_mem.
    unsafe { launch(q, &p.nl_counts, &args, p.text_grid(n), wait) }
}

/// Kernels 2 and 6: exclusive scan of `counts[..nblocks]` in place, the
/// sum into `info[slot]`.
pub fn launch_scan(
    q: &CommandQueue,
    p: &LineProgram,
    counts: cl_mem,
    nblocks: u32,
    info: cl_mem,
    slot: u32,
    wait: &[cl_event],
) -> Result<Event, ClError> {
    let args = [
        Arg::Mem(counts),
        Arg::U32(nblocks),
        Arg::Mem(info),
        Arg::U32(slot),
    ];
    // SAFETY: layout of scan_counts: cl_mem, uint, cl_mem, uint.
    unsafe { launch(q, &p.scan, &args, (1, p.wg), wait) }
}

/// Kernel 3: newline positions of `text[..n]` into `nl_index` (in order).
pub fn launch_nl_compact(
    q: &CommandQueue,
    p: &LineProgram,
    text: cl_mem,
    n: u32,
    b: &LineBufs,
    wait: &[cl_event],
) -> Result<Event, ClError> {
    let cap = b.cap_nl as u32;
    let args = [
        Arg::Mem(text),
        Arg::U32(n),
        Arg::from(&b.nl_counts),
        Arg::from(&b.nl_index),
        Arg::U32(cap),
    ];
    // SAFETY: layout of nl_compact: cl_mem, uint, cl_mem, cl_mem, uint.
    unsafe { launch(q, &p.nl_compact, &args, p.text_grid(n), wait) }
}

/// The match offsets a line-mode batch starts from: `offs` (unordered,
/// `cap` stored) and the device counter of matches found.
pub struct Offsets {
    pub offs: cl_mem,
    pub count: cl_mem,
    pub cap: u32,
}

/// Kernel 4: marks each offset's line with the smallest offset on it.
pub fn launch_line_mark(
    q: &CommandQueue,
    p: &LineProgram,
    b: &LineBufs,
    o: &Offsets,
    wait: &[cl_event],
) -> Result<Event, ClError> {
    let cap_nl = b.cap_nl as u32;
    // Grid-stride: enough groups for the stored offsets, at most 4096.
    let groups = (o.cap as usize).div_ceil(p.wg).clamp(1, 4096);
    let args = [
        Arg::from(&b.nl_index),
        Arg::from(&b.info),
        Arg::U32(cap_nl),
        Arg::Mem(o.offs),
        Arg::Mem(o.count),
        Arg::U32(o.cap),
        Arg::from(&b.first),
    ];
    // SAFETY: layout of line_mark: cl_mem, cl_mem, uint, cl_mem, cl_mem,
    // uint, cl_mem.
    unsafe { launch(q, &p.mark, &args, (groups, p.wg), wait) }
}

/// Kernels 5 and 7, which share their grid (`groups` line blocks, enough
/// for every line a batch of that size can have) and their first four
/// arguments, the line table: first offsets per line, the batch info, the
/// newline capacity, the per-block counts. Kernel 5 counts the marked lines
/// per block; kernel 7 writes them, in order, into `out_lines`/`out_first`
/// (resetting the line table for the next batch), its `tail` arguments.
///
/// # Safety
/// `tail` must follow `k`'s parameters after the line table in
/// `line_index.cl`.
unsafe fn launch_line_pass(
    q: &CommandQueue,
    p: &LineProgram,
    (k, b): (&Kernel, &LineBufs),
    groups: usize,
    tail: &[Arg],
) -> Result<Event, ClError> {
    let mut args = vec![
        Arg::from(&b.first),
        Arg::from(&b.info),
        Arg::U32(b.cap_nl as u32),
        Arg::from(&b.line_counts),
    ];
    args.extend_from_slice(tail);
    // SAFETY: the line table is the first four parameters of both
    // kernels; the caller's contract covers the rest.
    unsafe { launch(q, k, &args, (groups, p.wg), &[]) }
}

/// The events of one batch's line kernels (first and last, for timing).
pub(crate) struct LineEvents {
    pub first: Event,
    pub last: Event,
}

impl LineEvents {
    /// Device time from the first kernel's start to the last one's end.
    pub fn span(&self) -> Duration {
        span_between(&self.first, &self.last)
    }
}

/// Enqueues kernels 1-7 for `text[..n]` (n > 0) after `wait`, all on `q`.
pub(crate) fn enqueue_all(
    q: &CommandQueue,
    p: &LineProgram,
    b: &LineBufs,
    text: cl_mem,
    n: u32,
    o: &Offsets,
    wait: &[cl_event],
) -> Result<LineEvents, ClError> {
    let nb = p.text_blocks(n as usize) as u32;
    let info = b.info.get();
    let first = launch_nl_block_counts(q, p, text, n, b.nl_counts.get(), wait)?;
    launch_scan(q, p, b.nl_counts.get(), nb, info, 0, &[])?;
    launch_nl_compact(q, p, text, n, b, &[])?;
    launch_line_mark(q, p, b, o, &[])?;
    let groups = p.line_blocks((n as usize).min(b.cap_nl) + 1);
    // SAFETY: line_block_counts takes the line table alone.
    unsafe { launch_line_pass(q, p, (&p.line_counts, b), groups, &[]) }?;
    launch_scan(q, p, b.line_counts.get(), groups as u32, info, 1, &[])?;
    let out = [
        Arg::from(&b.out_lines),
        Arg::from(&b.out_first),
        Arg::U32(b.cap_out as u32),
    ];
    // SAFETY: line_compact's parameters after the line table: cl_mem
    // out_lines, cl_mem out_first, uint cap_out.
    let last = unsafe { launch_line_pass(q, p, (&p.compact, b), groups, &out) }?;
    Ok(LineEvents { first, last })
}

/// Reads `len` entries of the line results (blocking) starting at `from`,
/// once `after` (the last line kernel) has completed.
pub(crate) fn read_results(
    q: &CommandQueue,
    after: &[cl_event],
    b: &LineBufs,
    from: usize,
    lines: &mut [u32],
    first: &mut [u32],
) -> Result<(), String> {
    if lines.is_empty() {
        return Ok(());
    }
    // SAFETY: blocking reads into live slices of the requested length,
    // within the buffers' capacity (checked by the caller).
    unsafe {
        q.enqueue_read_buffer(&b.out_lines, CL_BLOCKING, from * 4, lines, after)
            .map_err(cl("reading the line results"))?;
        q.enqueue_read_buffer(&b.out_first, CL_BLOCKING, from * 4, first, after)
            .map_err(cl("reading the line results"))?;
    }
    Ok(())
}

/// Turns a line-mode batch's read-backs into its lines: `info` (the
/// kernel's info[0..2]), the speculatively read head of the results, and
/// (matches found, offsets stored). `None` when something did not fit (the
/// host numbers the batch instead). The rest of the results (with
/// [`Ends::Tail`], only the last lines) is read on `q` (a queue of its own,
/// so the read does not wait behind later batches) after `last`, the
/// batch's last line kernel.
#[allow(clippy::too_many_arguments)]
pub(crate) fn collect(
    q: &CommandQueue,
    last: &Event,
    b: &LineBufs,
    info: &[u32],
    head: (&[u32], &[u32]),
    (found, stored): (u32, u32),
    ends: Ends,
) -> Result<Option<BatchLines>, String> {
    let (nl, distinct) = (info[0] as usize, info[1] as usize);
    if found > stored || nl > b.cap_nl || distinct > b.cap_out {
        return Ok(None);
    }
    let h = head.0.len().min(head.1.len()).min(distinct);
    let (omitted, from) = match ends {
        Ends::Tail(t) if distinct > h + t => (distinct - h - t, distinct - t),
        _ => (0, h),
    };
    let kept = distinct - omitted;
    let mut lines = vec![0u32; kept];
    let mut first = vec![0u32; kept];
    lines[..h].copy_from_slice(&head.0[..h]);
    first[..h].copy_from_slice(&head.1[..h]);
    read_results(q, &[last.get()], b, from, &mut lines[h..], &mut first[h..])?;
    Ok(Some(BatchLines {
        newlines: nl as u64,
        lines,
        first,
        from_device: true,
        omitted,
        omitted_at: h,
    }))
}

/// The line kernels on their own, for tests and benchmarks: one queue on
/// the shared context, buffers kept between runs of the same size.
pub struct LineIndexer {
    context: std::sync::Arc<Context>,
    queue: CommandQueue,
    prog: LineProgram,
    bufs: Option<(usize, usize, LineBufs)>,
}

impl LineIndexer {
    /// Builds the program for the device `sel` picks, with work-groups of at
    /// most `wg` (small values make tests cross block boundaries).
    pub fn new(
        sel: &super::DeviceSelector,
        wg: usize,
        cache: &ProgramCache,
    ) -> Result<LineIndexer, String> {
        let info = super::select(sel).map_err(|e| e.to_string())?;
        let context = shared_context(&info).map_err(cl("creating the context"))?;
        let queue = make_queue(&context).map_err(cl("creating a command queue"))?;
        let prog = LineProgram::build(&context, &info, cache, wg)?;
        Ok(LineIndexer {
            context,
            queue,
            prog,
            bufs: None,
        })
    }

    /// The work-group size the program was built for.
    pub fn work_group(&self) -> usize {
        self.prog.wg
    }

    /// Lines of `text` holding `offsets` (distinct, any order, each <
    /// `text.len()`). `Ok(None)`: the batch did not fit the buffers (the
    /// newline index holds `newline_capacity(text.len())` entries).
    pub fn run(&mut self, text: &[u8], offsets: &[u32]) -> Result<Option<BatchLines>, String> {
        if text.is_empty() {
            return Ok(Some(BatchLines {
                from_device: true,
                ..BatchLines::default()
            }));
        }
        let key = (text.len(), offsets.len().max(1));
        if self.bufs.as_ref().map(|b| (b.0, b.1)) != Some(key) {
            let b = LineBufs::new(&self.context, &self.queue, &self.prog, key.0, key.1)?;
            self.bufs = Some((key.0, key.1, b));
        }
        let Some((_, _, b)) = self.bufs.as_ref() else {
            return Err("no line buffers".into());
        };
        let mut padded = text.to_vec();
        padded.resize(text.len() + super::PAD, b'\n');
        let mut offs = offsets.to_vec();
        if offs.is_empty() {
            offs.push(0);
        }
        let tbuf = upload(&self.context, CL_MEM_READ_WRITE, &padded).map_err(cl("uploading"))?;
        let obuf = upload(&self.context, CL_MEM_READ_WRITE, &offs).map_err(cl("uploading"))?;
        let cbuf = upload(&self.context, CL_MEM_READ_WRITE, &[offsets.len() as u32])
            .map_err(cl("uploading"))?;
        let o = Offsets {
            offs: obuf.get(),
            count: cbuf.get(),
            cap: offsets.len() as u32,
        };
        let events = enqueue_all(
            &self.queue,
            &self.prog,
            b,
            tbuf.get(),
            text.len() as u32,
            &o,
            &[],
        )
        .map_err(cl("enqueueing the line kernels"))?;
        let mut info = [0u32; 4];
        // SAFETY: blocking read into a live local array.
        unsafe {
            self.queue
                .enqueue_read_buffer(&b.info, CL_BLOCKING, 0, &mut info, &[])
                .map_err(cl("reading the line counters"))?;
        }
        let n = offsets.len() as u32;
        collect(
            &self.queue,
            &events.last,
            b,
            &info,
            (&[], &[]),
            (n, n),
            Ends::All,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_reference() {
        let t = b"ab\ncd ab\n\nab";
        let l = host_lines(t, &[0, 6, 11]);
        assert_eq!(l.newlines, 3);
        assert_eq!(l.lines, vec![0, 1, 3]);
        assert_eq!(l.first, vec![0, 6, 11]);
        let l = host_lines(t, &[3, 6]);
        assert_eq!((l.lines, l.first), (vec![1], vec![3]));
        assert_eq!(host_lines(b"", &[]), BatchLines::default());
    }
}
