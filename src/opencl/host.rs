//! The host layer every kernel family uses: the shared context of a
//! device, profiling queues, buffer creation, kernel arguments and 1-D
//! launches, and event timings. Each is written once here.
//!
//! Launches set every argument themselves through [`set_args`] (opencl3's
//! `ExecuteKernel` panics on a missing argument; a failed `clSetKernelArg`
//! is an error here).

use std::ffi::c_void;
use std::ptr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use opencl3::command_queue::{CL_QUEUE_PROFILING_ENABLE, CommandQueue};
use opencl3::context::Context;
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_event, cl_mem, cl_mem_flags};

use super::device::DeviceInfo;
use super::error::cl;

/// One context per device for the whole process (creating one costs about
/// 0.36 s on an H100; engines, tests and benchmarks share it). Contexts are
/// never released: the process ends first.
pub(crate) fn shared_context(info: &DeviceInfo) -> Result<Arc<Context>, ClError> {
    type Table = Mutex<Vec<(usize, Arc<Context>)>>;
    static CONTEXTS: OnceLock<Table> = OnceLock::new();
    let key = info.device.id() as usize;
    let mut v = CONTEXTS
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = v.iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(c));
    }
    let c = Arc::new(crate::sys::guard::around_foreign(|| {
        Context::from_device(&info.device)
    })?);
    v.push((key, Arc::clone(&c)));
    Ok(c)
}

/// An in-order, profiling-enabled queue on the context's device
/// (`clCreateCommandQueueWithProperties`, or on OpenCL 1.2 drivers, which
/// lack it, `clCreateCommandQueue`).
pub(crate) fn make_queue(ctx: &Context) -> Result<CommandQueue, ClError> {
    CommandQueue::create_default_with_properties(ctx, CL_QUEUE_PROFILING_ENABLE, 0)
        .or_else(|_| CommandQueue::create_default(ctx, CL_QUEUE_PROFILING_ENABLE))
}

/// The largest power of two <= `x` (1 for 0): work-group sizes.
pub(crate) fn prev_pow2(x: usize) -> usize {
    if x == 0 {
        1
    } else {
        1 << (usize::BITS - 1 - x.leading_zeros())
    }
}

/// Device time of a finished command (0 when profiling is unavailable).
pub(crate) fn span(e: &Event) -> Duration {
    span_between(e, e)
}

/// Device time from `first`'s start to `last`'s end (0 without profiling).
pub(crate) fn span_between(first: &Event, last: &Event) -> Duration {
    match (
        first.profiling_command_start(),
        last.profiling_command_end(),
    ) {
        (Ok(s), Ok(t)) if t >= s => Duration::from_nanos(t - s),
        _ => Duration::ZERO,
    }
}

/// A device buffer of `len` elements with `flags` and no host pointer
/// (contents undefined).
pub(crate) fn alloc<T>(
    ctx: &Context,
    flags: cl_mem_flags,
    len: usize,
) -> Result<Buffer<T>, ClError> {
    // SAFETY: no host pointer is passed (null), so the driver keeps nothing
    // of ours; a zero length is an OpenCL error, not undefined behaviour.
    unsafe { Buffer::<T>::create(ctx, flags, len, ptr::null_mut()) }
}

/// A device buffer with `flags` holding a copy of `data` (the driver copies
/// during the call: `CL_MEM_COPY_HOST_PTR` is added to `flags`).
pub(crate) fn upload<T: Copy>(
    ctx: &Context,
    flags: cl_mem_flags,
    data: &[T],
) -> Result<Buffer<T>, ClError> {
    // SAFETY: COPY_HOST_PTR copies `data.len()` elements from a live slice
    // during the call; the pointer is not kept and the memory not written.
    unsafe {
        Buffer::<T>::create(
            ctx,
            flags | CL_MEM_COPY_HOST_PTR,
            data.len(),
            data.as_ptr() as *mut c_void,
        )
    }
}

/// A device copy of `data` followed by `pad` newlines.
pub(crate) fn upload_padded(
    ctx: &Context,
    flags: cl_mem_flags,
    data: &[u8],
    pad: usize,
) -> Result<Buffer<u8>, ClError> {
    let mut padded = Vec::with_capacity(data.len() + pad);
    padded.extend_from_slice(data);
    padded.resize(data.len() + pad, b'\n');
    upload(ctx, flags, &padded)
}

/// One kernel argument: a `uint`, a buffer, or `__local` memory by size.
#[derive(Clone, Copy)]
pub(crate) enum Arg {
    U32(u32),
    Mem(cl_mem),
    Local(usize),
}

/// Where a match-mode launch writes, the last arguments but local memory
/// of every match kernel (`kernels/README.md`, "Output protocol"): `out`
/// (offsets, capacity `cap`) and `count` (zeroed by the host; it may end
/// above `cap`).
pub struct MatchOut<'a> {
    pub out: &'a Buffer<u32>,
    pub cap: u32,
    pub count: &'a Buffer<u32>,
    /// Scratch of the launches that need it (`PatternArgs::scratch_entries`).
    pub scratch: Option<&'a Scratch>,
}

/// The events of one launch: its last kernel, which later commands wait
/// for, and its first where it is several (the DFA's near groups).
pub struct Launched {
    first: Option<Event>,
    pub last: Event,
}

impl Launched {
    pub fn one(last: Event) -> Launched {
        Launched { first: None, last }
    }

    pub fn from(first: Option<Event>, last: Event) -> Launched {
        Launched { first, last }
    }

    /// Device time from the first kernel's start to the last one's end.
    pub fn span(&self) -> std::time::Duration {
        span_between(self.first.as_ref().unwrap_or(&self.last), &self.last)
    }
}

/// Per-slot device scratch: the DFA's factor positions and their count.
pub struct Scratch {
    pub hits: Buffer<u32>,
    pub cap: u32,
    pub count: Buffer<u32>,
}

impl Scratch {
    /// Scratch of `entries` (> 0) positions.
    pub(crate) fn new(ctx: &Context, entries: usize) -> Result<Scratch, ClError> {
        Ok(Scratch {
            hits: alloc::<u32>(ctx, CL_MEM_READ_WRITE, entries)?,
            cap: entries as u32,
            count: alloc::<u32>(ctx, CL_MEM_READ_WRITE, 1)?,
        })
    }

    /// The positions as a result buffer (for the factor search).
    pub fn as_out(&self) -> MatchOut<'_> {
        MatchOut {
            out: &self.hits,
            cap: self.cap,
            count: &self.count,
            scratch: None,
        }
    }
}

impl MatchOut<'_> {
    /// `global uint *out, uint cap, global uint *count`.
    pub(crate) fn args(&self) -> [Arg; 3] {
        [
            Arg::from(self.out),
            Arg::U32(self.cap),
            Arg::from(self.count),
        ]
    }
}

impl<T> From<&Buffer<T>> for Arg {
    fn from(b: &Buffer<T>) -> Arg {
        use opencl3::memory::ClMem;
        Arg::Mem(b.get())
    }
}

/// Sets arguments `first`, `first + 1`, ... of `k` to `args`.
///
/// # Safety
/// Each argument must have the kind (`uint`, buffer, `__local`) of the
/// kernel's parameter at that index, and each buffer must outlive the
/// launches that use it.
pub(crate) unsafe fn set_args(k: &Kernel, first: u32, args: &[Arg]) -> Result<(), ClError> {
    for (i, a) in (first..).zip(args) {
        // SAFETY: the caller's contract: the value's size and kind match
        // the kernel's parameter `i`.
        unsafe {
            match a {
                Arg::U32(v) => k.set_arg(i, v)?,
                Arg::Mem(m) => k.set_arg(i, m)?,
                Arg::Local(bytes) => k.set_arg_local_buffer(i, *bytes)?,
            }
        }
    }
    Ok(())
}

/// Enqueues `k` over `global` work-items (a multiple of `local`) in groups
/// of `local`, after `wait`.
///
/// # Safety
/// Every argument of `k` must be set (see [`set_args`]).
pub(crate) unsafe fn enqueue_1d(
    q: &CommandQueue,
    k: &Kernel,
    global: usize,
    local: usize,
    wait: &[cl_event],
) -> Result<Event, ClError> {
    let g = [global];
    let l = [local];
    // SAFETY: one-dimensional sizes from live arrays; the arguments are the
    // caller's contract.
    unsafe { q.enqueue_nd_range_kernel(k.get(), 1, ptr::null(), g.as_ptr(), l.as_ptr(), wait) }
}

/// Enqueues `k` over a 2-D range `global` (each a multiple of `local`).
///
/// # Safety
/// Every argument of `k` must be set (see [`set_args`]).
pub(crate) unsafe fn enqueue_2d(
    q: &CommandQueue,
    k: &Kernel,
    global: [usize; 2],
    local: [usize; 2],
    wait: &[cl_event],
) -> Result<Event, ClError> {
    // SAFETY: two-dimensional sizes from live arrays; the arguments are the
    // caller's contract.
    unsafe {
        q.enqueue_nd_range_kernel(
            k.get(),
            2,
            ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            wait,
        )
    }
}

/// Device times of `runs` copies of `n` bytes of `src` into a fresh buffer
/// (after one warm-up copy that is not timed): the benchmarks' measure of
/// the device's memory bandwidth.
pub fn time_copies(
    ctx: &Context,
    q: &CommandQueue,
    src: &Buffer<u8>,
    n: usize,
    runs: usize,
) -> Result<Vec<Duration>, String> {
    let mut dst =
        alloc::<u8>(ctx, CL_MEM_READ_WRITE, n.max(1)).map_err(cl("allocating the copy target"))?;
    let mut times = Vec::new();
    for i in 0..=runs {
        // SAFETY: both buffers hold at least n bytes.
        let ev =
            unsafe { q.enqueue_copy_buffer(src, &mut dst, 0, 0, n, &[]) }.map_err(cl("copying"))?;
        ev.wait().map_err(cl("copying"))?;
        if i > 0 {
            times.push(span(&ev));
        }
    }
    Ok(times)
}
