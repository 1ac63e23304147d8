//! Host wrappers for the batched sorted-search kernels in
//! `kernels/search.cl` and `kernels/search_enqueue.cl`.
//!
//! Every method computes, for each key, the lower bound in a sorted array:
//! the first index whose element is `>= key`, or `n` (Rust's
//! `hay.partition_point(|x| *x < key)`), as `u32`.
//!
//! One [`DeviceSearch`] per (device, key type) builds the 1.2 program once
//! (and the 2.0 device-enqueue program on first use, on capable devices).
//! Each launch is wrapped in one small function that sets every argument
//! explicitly, so a missing argument is an error, not a panic.

use std::marker::PhantomData;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, ClMem};
use opencl3::program::Program;
use opencl3::types::{CL_BLOCKING, cl_mem};

use super::error::{DeviceError, cl_err};
use super::host::{self, Arg, enqueue_1d, prev_pow2, set_args};
use super::open::ClDevice;

/// Source of the OpenCL C 1.2 kernels.
pub const SEARCH_CL: &str = include_str!("../../kernels/search.cl");
/// Source of the OpenCL C 2.0 device-enqueue kernel (built after SEARCH_CL).
pub const SEARCH_ENQUEUE_CL: &str = include_str!("../../kernels/search_enqueue.cl");

/// Largest array the kernels accept (indices are `uint`, and the Eytzinger
/// descent computes `2 * node + 1` for nodes up to `n`).
pub const MAX_LEN: usize = (1 << 31) - 2;

/// Keys per work-item of the blocked kernels (`-DBLOCKED_KPT`): a block is
/// `local size * BLOCKED_KPT` consecutive keys. Overridable for tuning with
/// `GSEARCH_SORTED_KPT` (1..=16), read when a [`DeviceSearch`] is built.
pub const BLOCKED_KPT: u32 = 4;

/// Element/key types the kernels are built for.
pub trait SearchKey: Copy + Default + PartialOrd + Send + Sync + std::fmt::Debug + 'static {
    /// The OpenCL C type passed as `-DKEY_T=`.
    const CL_TYPE: &'static str;
}

impl SearchKey for i32 {
    const CL_TYPE: &'static str = "int";
}
impl SearchKey for u32 {
    const CL_TYPE: &'static str = "uint";
}
impl SearchKey for i64 {
    const CL_TYPE: &'static str = "long";
}
impl SearchKey for u64 {
    const CL_TYPE: &'static str = "ulong";
}

/// A search algorithm (and, for N-ary, its segment count N >= 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// One work-item per key, classic halving.
    Binary,
    /// Layout rebuilt on the device in BFS (Eytzinger) order, then one
    /// work-item per key descends it.
    Eytzinger,
    /// N-ary search, one kernel launch per pass enqueued by the host.
    NaryHost { segs: u32 },
    /// N-ary search in one launch; work-groups loop over the passes with the
    /// keys' ranges in local memory.
    NaryLocal { segs: u32 },
    /// N-ary search whose passes are enqueued by the device itself
    /// (OpenCL 2.0 `enqueue_kernel`), one host launch.
    NaryDeviceEnqueue { segs: u32 },
    /// Blocked search, two launches: the lower bounds of each key block's
    /// first and last key, then per work-group the array range between
    /// them is loaded coalesced into local memory and searched there. Near
    /// copy bandwidth for sorted, dense keys; correct (by falling back to a
    /// global binary search per undecided key) for keys in any order.
    Blocked,
    /// [`Method::Blocked`] in one launch: each work-group finds its range
    /// with a cooperative (WG/2-ary) search.
    BlockedFused,
}

impl Method {
    /// N of an N-ary method, 1 for the others.
    pub fn segs(&self) -> u32 {
        match self {
            Method::NaryHost { segs }
            | Method::NaryLocal { segs }
            | Method::NaryDeviceEnqueue { segs } => *segs,
            _ => 1,
        }
    }

    /// Short name for `--stats` and the benchmark table.
    pub fn name(&self) -> String {
        match self {
            Method::Binary => "binary".into(),
            Method::Eytzinger => "eytzinger".into(),
            Method::NaryHost { segs } => format!("nary-host:{segs}"),
            Method::NaryLocal { segs } => format!("nary-local:{segs}"),
            Method::NaryDeviceEnqueue { segs } => format!("nary-enqueue:{segs}"),
            Method::Blocked => "blocked".into(),
            Method::BlockedFused => "blocked-fused".into(),
        }
    }

    /// Parse a [`Method::name`] (segment count optional, default 8).
    pub fn parse(s: &str) -> Option<Method> {
        let s = s.trim().to_ascii_lowercase();
        let (base, segs) = match s.split_once(':') {
            Some((b, n)) => (b.to_string(), Some(n.parse::<u32>().ok()?)),
            None => (s.clone(), None),
        };
        let segs = segs.unwrap_or(8);
        if segs < 2 {
            return None;
        }
        Some(match base.as_str() {
            "binary" => Method::Binary,
            "eytzinger" => Method::Eytzinger,
            "blocked" => Method::Blocked,
            "blocked-fused" => Method::BlockedFused,
            "nary-host" => Method::NaryHost { segs },
            "nary-local" => Method::NaryLocal { segs },
            "nary-enqueue" => Method::NaryDeviceEnqueue { segs },
            _ => return None,
        })
    }
}

/// Number of N-ary passes after which every range [lo, hi] has lo == hi:
/// a pass takes an unknown length `len` to at most `ceil(len / segs) - 1`.
pub fn nary_passes(n: usize, segs: u32) -> u32 {
    let segs = segs.max(2) as usize;
    let mut len = n;
    let mut passes = 0;
    while len > 0 {
        len = len.div_ceil(segs) - 1;
        passes += 1;
    }
    passes
}

/// Device time of a sequence of commands, from OpenCL profiling events:
/// start of the first to end (completion, children included) of the last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    pub device_ns: u64,
    /// Kernel launches and commands the host enqueued.
    pub commands: u32,
}

impl Timing {
    pub fn micros(&self) -> f64 {
        self.device_ns as f64 / 1000.0
    }

    fn from_events(events: &[Event]) -> Result<Timing, DeviceError> {
        let (Some(first), Some(last)) = (events.first(), events.last()) else {
            return Ok(Timing::default());
        };
        last.wait().map_err(cl_err("clWaitForEvents"))?;
        let start = first
            .profiling_command_start()
            .map_err(cl_err("CL_PROFILING_COMMAND_START"))?;
        let end = last
            .profiling_command_end()
            .map_err(cl_err("CL_PROFILING_COMMAND_END"))?;
        // A parent kernel with device-enqueued children completes after its
        // own END; COMPLETE (OpenCL 2.0) covers the children.
        let complete = last.profiling_command_complete().unwrap_or(0);
        let end = end.max(complete);
        Ok(Timing {
            device_ns: end.saturating_sub(start),
            commands: events.len() as u32,
        })
    }
}

/// The kernels of `search.cl` (and `search_enqueue.cl`) built for one device
/// and one key type.
pub struct DeviceSearch<T: SearchKey> {
    dev: Arc<ClDevice>,
    program: Program,
    enqueue_program: OnceLock<Result<Program, String>>,
    /// Keys per work-item of the blocked kernels (the `-DBLOCKED_KPT` built).
    kpt: u32,
    /// Largest work-group a launch uses (a power of two; 256 unless
    /// [`DeviceSearch::set_max_work_group`] changed it, for the benchmark).
    max_wg: AtomicUsize,
    /// The blocked search's per-block bounds, kept between calls (held for
    /// the whole of a call, which waits for its kernels).
    bounds_scratch: Mutex<Option<(usize, Buffer<u32>)>>,
    _t: PhantomData<T>,
}

/// The range buffers of an N-ary search besides `out` (see
/// [`DeviceSearch::nary_scratch`]).
struct NaryScratch {
    hi_a: Buffer<u32>,
    lo_b: Buffer<u32>,
    hi_b: Buffer<u32>,
}

fn build_program(dev: &ClDevice, sources: &[&str], options: &str) -> Result<Program, String> {
    // One string: cl3 0.13's create_program_with_source passes a `&[&str]`
    // as if it were an array of C pointers (each &str is pointer + length),
    // so with two or more sources the driver reads a length as a pointer
    // (SIGSEGV in Intel's runtime).
    let source = sources.join("\n");
    let mut program = Program::create_from_source(&dev.context, &source)
        .map_err(|e| format!("clCreateProgramWithSource: {e}"))?;
    if let Err(e) = crate::sys::guard::around_foreign(|| program.build(&[dev.info.id()], options)) {
        let log = program.get_build_log(dev.info.id()).unwrap_or_default();
        return Err(format!("build failed ({e}) with {options:?}:\n{log}"));
    }
    Ok(program)
}

/// Round `global` up to a multiple of `local`.
fn round_up(global: usize, local: usize) -> usize {
    global.div_ceil(local).max(1) * local
}

/// One search's device buffers: `out[k]` gets the lower bound of `keys[k]`
/// (`nkeys` of them) in `hay` (`n` elements).
struct Job<'a, T> {
    hay: &'a Buffer<T>,
    n: usize,
    keys: &'a Buffer<T>,
    nkeys: usize,
    out: &'a mut Buffer<u32>,
}

impl<T> Job<'_, T> {
    /// The arguments every search kernel starts with (`const global KEY_T
    /// *hay, uint n, const global KEY_T *keys, uint nkeys`), then `rest`.
    fn args(&self, rest: &[Arg]) -> Vec<Arg> {
        let head = [
            self.hay.into(),
            Arg::U32(self.n as u32),
            self.keys.into(),
            Arg::U32(self.nkeys as u32),
        ];
        head.into_iter().chain(rest.iter().cloned()).collect()
    }
}

impl<T: SearchKey> DeviceSearch<T> {
    /// Build the OpenCL 1.2 kernels for `dev`.
    pub fn new(dev: Arc<ClDevice>) -> Result<Self, DeviceError> {
        let kpt = std::env::var("GSEARCH_SORTED_KPT")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|k| (1..=16).contains(k))
            .unwrap_or(BLOCKED_KPT);
        let options = format!("-DKEY_T={} -DBLOCKED_KPT={kpt}", T::CL_TYPE);
        let program =
            build_program(&dev, &[SEARCH_CL], &options).map_err(|log| DeviceError::Cl {
                what: format!("building search.cl: {log}"),
                code: -11,
            })?;
        Ok(DeviceSearch {
            dev,
            program,
            enqueue_program: OnceLock::new(),
            kpt,
            max_wg: AtomicUsize::new(256),
            bounds_scratch: Mutex::new(None),
            _t: PhantomData,
        })
    }

    pub fn device(&self) -> &ClDevice {
        &self.dev
    }

    /// The device-enqueue program, built on first use. Err when the device
    /// does not support device-side enqueue or the build fails (the message
    /// holds the build log).
    fn enqueue_program(&self) -> Result<&Program, DeviceError> {
        self.dev.ensure_device_queue()?;
        self.enqueue_program
            .get_or_init(|| {
                let options = format!(
                    "-cl-std=CL2.0 -DKEY_T={} -DBLOCKED_KPT={}",
                    T::CL_TYPE,
                    self.kpt
                );
                build_program(&self.dev, &[SEARCH_CL, SEARCH_ENQUEUE_CL], &options)
            })
            .as_ref()
            .map_err(|log| DeviceError::Cl {
                what: format!("building search_enqueue.cl: {log}"),
                code: -11,
            })
    }

    /// Whether `m` can run here (device-side enqueue needs a capable device
    /// and a successful 2.0 build; N-ary needs N work-items in a group).
    pub fn supports(&self, m: Method) -> bool {
        match m {
            Method::Binary | Method::Eytzinger => true,
            Method::NaryHost { segs } => segs >= 2,
            Method::NaryLocal { segs } => self.local_shape(segs).is_ok(),
            Method::NaryDeviceEnqueue { segs } => segs >= 2 && self.enqueue_program().is_ok(),
            Method::Blocked => self.blocked_shape(false).is_ok(),
            Method::BlockedFused => self.blocked_shape(true).is_ok(),
        }
    }

    /// Every method this device runs, N-ary with the given segment counts.
    pub fn methods(&self, segs: &[u32]) -> Vec<Method> {
        let mut out = vec![
            Method::Binary,
            Method::Eytzinger,
            Method::Blocked,
            Method::BlockedFused,
        ];
        for &s in segs {
            out.push(Method::NaryHost { segs: s });
        }
        for &s in segs {
            out.push(Method::NaryLocal { segs: s });
        }
        for &s in segs {
            out.push(Method::NaryDeviceEnqueue { segs: s });
        }
        out.retain(|m| self.supports(*m));
        out
    }

    /// The method for a one-shot search of `nkeys` keys in unknown order in
    /// `n` elements: `GSEARCH_SORTED_METHOD` (a [`Method::name`]) if set
    /// and supported; otherwise binary search. With the key order held
    /// equal, Eytzinger search is faster on an H200 (0.63x binary for random
    /// keys, 0.87-0.97x for others; bench/results/2026-11-26-h200-sorted-
    /// study.md), but it needs its layout built first (about 3x a copy of
    /// the array), which eats that gain at the four samples per key that
    /// `--sorted` searches. Callers that have the keys should use
    /// [`Self::pick_for`].
    pub fn pick(&self, _n: usize, _nkeys: usize) -> Method {
        Self::env_method()
            .filter(|m| self.supports(*m))
            .unwrap_or(Method::Binary)
    }

    /// [`Self::pick`] knowing the keys: `GSEARCH_SORTED_METHOD` if set and
    /// supported; otherwise [`Method::Blocked`] when `keys` are sorted
    /// (ascending, ties allowed; one O(nkeys) pass here) and the device
    /// runs it, else binary search. The blocked search answers keys in any
    /// order, but only sorted batches make it faster than binary.
    pub fn pick_for(&self, n: usize, keys: &[T]) -> Method {
        if let Some(m) = Self::env_method().filter(|m| self.supports(*m)) {
            return m;
        }
        if keys_sorted(keys) && self.supports(Method::Blocked) {
            Method::Blocked
        } else {
            self.pick(n, keys.len())
        }
    }

    fn env_method() -> Option<Method> {
        std::env::var("GSEARCH_SORTED_METHOD")
            .ok()
            .and_then(|s| Method::parse(&s))
    }

    /// A device buffer holding a copy of `data` (at least one element, as
    /// OpenCL forbids empty buffers).
    pub fn upload<U: Copy + Default>(&self, data: &[U]) -> Result<Buffer<U>, DeviceError> {
        if data.is_empty() {
            return self.alloc::<U>(1);
        }
        host::upload(&self.dev.context, CL_MEM_READ_ONLY, data)
            .map_err(cl_err("clCreateBuffer(copy)"))
    }

    /// An uninitialised read-write device buffer of `len` (>= 1) elements.
    pub fn alloc<U>(&self, len: usize) -> Result<Buffer<U>, DeviceError> {
        host::alloc(&self.dev.context, CL_MEM_READ_WRITE, len.max(1))
            .map_err(cl_err("clCreateBuffer"))
    }

    /// Read `len` elements of `buf` into a Vec (blocking).
    pub fn download<U: Copy + Default>(
        &self,
        buf: &Buffer<U>,
        len: usize,
    ) -> Result<Vec<U>, DeviceError> {
        let mut out = vec![U::default(); len];
        if len == 0 {
            return Ok(out);
        }
        // SAFETY: blocking read into `out`, which holds exactly `len`
        // elements and lives past the call; `buf` holds at least `len`.
        unsafe {
            self.dev
                .queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[])
        }
        .map_err(cl_err("clEnqueueReadBuffer"))?;
        Ok(out)
    }

    fn kernel(&self, program: &Program, name: &str) -> Result<Kernel, DeviceError> {
        Kernel::create(program, name).map_err(cl_err(format!("clCreateKernel({name})")))
    }

    /// A launch size: min(256 or the set cap, the kernel's limit), as a
    /// power of two.
    fn local_size(&self, kernel: &Kernel) -> usize {
        let lim = kernel
            .get_work_group_size(self.dev.info.id())
            .unwrap_or(64)
            .min(self.dev.max_work_group_size)
            .clamp(1, self.max_wg.load(Ordering::Relaxed).max(1));
        prev_pow2(lim)
    }

    /// Caps the work-group size of later launches (the benchmark's
    /// work-group study; the search itself keeps 256).
    pub fn set_max_work_group(&self, wg: usize) {
        self.max_wg.store(wg.max(1), Ordering::Relaxed);
    }

    fn launch(
        &self,
        kernel: &Kernel,
        global: usize,
        local: usize,
        name: &str,
    ) -> Result<Event, DeviceError> {
        let global = round_up(global, local);
        // SAFETY: the caller set every argument of `kernel`.
        unsafe { enqueue_1d(&self.dev.queue, kernel, global, local, &[]) }
            .map_err(cl_err(format!("clEnqueueNDRangeKernel({name})")))
    }

    fn check_sizes(n: usize, nkeys: usize, segs: u32) -> Result<(), DeviceError> {
        let too_big =
            n > MAX_LEN || (nkeys as u64).saturating_mul(segs.max(1) as u64) >= u32::MAX as u64;
        if too_big {
            return Err(DeviceError::Cl {
                what: format!("search of {nkeys} keys in {n} elements exceeds the kernels' limits"),
                code: -30, // CL_INVALID_VALUE
            });
        }
        Ok(())
    }

    /// Enqueue a fill of `len` elements of `buf` with `value`.
    fn fill(&self, buf: &mut Buffer<u32>, value: u32, len: usize) -> Result<Event, DeviceError> {
        // SAFETY: fills `len` (<= buffer length) u32 elements; the pattern
        // array is copied during the call.
        unsafe {
            self.dev
                .queue
                .enqueue_fill_buffer(buf, &[value], 0, len.max(1) * 4, &[])
        }
        .map_err(cl_err("clEnqueueFillBuffer"))
    }

    /// Device copy of `len` elements from `src` to `dst` (the benchmark's
    /// baseline).
    pub fn copy<U>(
        &self,
        src: &Buffer<U>,
        dst: &mut Buffer<U>,
        len: usize,
    ) -> Result<Timing, DeviceError> {
        if len == 0 {
            return Ok(Timing::default());
        }
        // SAFETY: both buffers hold at least `len` elements.
        let ev = unsafe {
            self.dev
                .queue
                .enqueue_copy_buffer(src, dst, 0, 0, len * std::mem::size_of::<U>(), &[])
        }
        .map_err(cl_err("clEnqueueCopyBuffer"))?;
        Timing::from_events(&[ev])
    }

    /// Lay out `n` sorted elements in Eytzinger order: `eyt` (>= n elements).
    pub fn build_eytzinger(
        &self,
        sorted: &Buffer<T>,
        n: usize,
        eyt: &mut Buffer<T>,
    ) -> Result<Timing, DeviceError> {
        Self::check_sizes(n, 0, 1)?;
        if n == 0 {
            return Ok(Timing::default());
        }
        let k = self.kernel(&self.program, "eytzinger_build")?;
        let args = [
            Arg::Mem(sorted.get()),
            Arg::U32(n as u32),
            Arg::Mem(eyt.get()),
        ];
        // SAFETY: argument types match eytzinger_build(const global KEY_T*,
        // uint, global KEY_T*); the buffers outlive the launch (we wait).
        unsafe { set_args(&k, 0, &args) }.map_err(cl_err("arg"))?;
        let ev = self.launch(&k, n, self.local_size(&k), "eytzinger_build")?;
        Timing::from_events(&[ev])
    }

    /// Run `method` on device buffers: `out[k]` = lower bound of `keys[k]`
    /// in `hay` (n elements; for [`Method::Eytzinger`], `hay` must be the
    /// layout from [`Self::build_eytzinger`]). Waits for completion and
    /// returns the profiled device time.
    pub fn run_buffers(
        &self,
        method: Method,
        hay: &Buffer<T>,
        n: usize,
        keys: &Buffer<T>,
        nkeys: usize,
        out: &mut Buffer<u32>,
    ) -> Result<Timing, DeviceError> {
        Self::check_sizes(n, nkeys, method.segs())?;
        if nkeys == 0 {
            return Ok(Timing::default());
        }
        if n == 0 {
            let ev = self.fill(out, 0, nkeys)?;
            return Timing::from_events(&[ev]);
        }
        let j = Job {
            hay,
            n,
            keys,
            nkeys,
            out,
        };
        match method {
            Method::Binary => self.run_simple("lower_bound_binary", j),
            Method::Eytzinger => self.run_simple("lower_bound_eytzinger", j),
            Method::NaryHost { segs } => self.run_nary_host(segs, j),
            Method::NaryLocal { segs } => self.run_nary_local(segs, j),
            Method::NaryDeviceEnqueue { segs } => self.run_nary_enqueue(segs, j),
            Method::Blocked => self.run_blocked(false, j),
            Method::BlockedFused => self.run_blocked(true, j),
        }
    }

    /// Launch shape of the blocked kernels: (work-group size WG, keys per
    /// block WG * kpt, window capacity in elements). The window holds up to
    /// 4 blocks' worth of elements (the range of a block of sorted keys is
    /// about `block * n / nkeys` elements), within the device's local
    /// memory less 1 KiB for the kernels' own.
    fn blocked_shape(&self, fused: bool) -> Result<(usize, usize, usize), DeviceError> {
        let name = if fused {
            "lower_bound_blocked_fused"
        } else {
            "lower_bound_blocked"
        };
        let k = self.kernel(&self.program, name)?;
        let wg = self.local_size(&k);
        let block = wg * self.kpt as usize;
        let local = self.dev.local_mem_size as usize;
        let cap = (4 * block).min(local.saturating_sub(1024) / std::mem::size_of::<T>());
        if (fused && wg < 2) || cap < wg {
            return Err(DeviceError::Cl {
                what: format!(
                    "{name}: work-group of {wg} with {local} bytes of local memory is too small"
                ),
                code: -54, // CL_INVALID_WORK_GROUP_SIZE
            });
        }
        Ok((wg, block, cap))
    }

    fn run_blocked(&self, fused: bool, j: Job<'_, T>) -> Result<Timing, DeviceError> {
        let (wg, block, cap) = self.blocked_shape(fused)?;
        if j.nkeys + block > u32::MAX as usize {
            return Err(DeviceError::Cl {
                what: format!(
                    "blocked search of {} keys exceeds the kernels' limits",
                    j.nkeys
                ),
                code: -30,
            });
        }
        let nblocks = j.nkeys.div_ceil(block);
        let local_bytes = cap * std::mem::size_of::<T>();
        if fused {
            let name = "lower_bound_blocked_fused";
            let k = self.kernel(&self.program, name)?;
            let args = j.args(&[
                Arg::Mem(j.out.get()),
                Arg::U32(cap as u32),
                Arg::Local(local_bytes),
            ]);
            // SAFETY: argument types match lower_bound_blocked_fused(const
            // global KEY_T*, uint, const global KEY_T*, uint, global uint*,
            // uint, local KEY_T*[cap]); the buffers outlive the wait.
            unsafe { set_args(&k, 0, &args) }.map_err(cl_err("arg"))?;
            let ev = self.launch(&k, nblocks * wg, wg, name)?;
            return Timing::from_events(&[ev]);
        }
        let mut scratch = self
            .bounds_scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if scratch.as_ref().is_none_or(|(len, _)| *len < 2 * nblocks) {
            *scratch = None; // free the old one first
            let len = (2 * nblocks).next_power_of_two();
            *scratch = Some((len, self.alloc::<u32>(len)?));
        }
        let bounds = &scratch.as_ref().expect("allocated above").1;
        let kb = self.kernel(&self.program, "blocked_bounds")?;
        let k = self.kernel(&self.program, "lower_bound_blocked")?;
        let bounds_args = j.args(&[Arg::U32(block as u32), bounds.into()]);
        let search_args = j.args(&[
            (&*j.out).into(),
            bounds.into(),
            Arg::U32(cap as u32),
            Arg::Local(local_bytes),
        ]);
        // SAFETY: argument types match blocked_bounds(const global KEY_T*,
        // uint, const global KEY_T*, uint, uint, global uint*[2 * nblocks])
        // and lower_bound_blocked(const global KEY_T*, uint, const global
        // KEY_T*, uint, global uint*, const global uint*, uint,
        // local KEY_T*[cap]); the buffers (and the scratch lock) outlive the
        // wait in Timing::from_events, and the in-order queue runs the
        // bounds before the search.
        unsafe { set_args(&kb, 0, &bounds_args).and_then(|()| set_args(&k, 0, &search_args)) }
            .map_err(cl_err("arg"))?;
        let e1 = self.launch(&kb, 2 * nblocks, self.local_size(&kb), "blocked_bounds")?;
        let e2 = self.launch(&k, nblocks * wg, wg, "lower_bound_blocked")?;
        Timing::from_events(&[e1, e2])
    }

    fn run_simple(&self, name: &str, j: Job<'_, T>) -> Result<Timing, DeviceError> {
        let k = self.kernel(&self.program, name)?;
        let args = j.args(&[Arg::Mem(j.out.get())]);
        // SAFETY: argument types match (const global KEY_T*, uint,
        // const global KEY_T*, uint, global uint*); buffers outlive the wait.
        unsafe { set_args(&k, 0, &args) }.map_err(cl_err("arg"))?;
        let ev = self.launch(&k, j.nkeys, self.local_size(&k), name)?;
        Timing::from_events(&[ev])
    }

    fn run_nary_host(&self, segs: u32, j: Job<'_, T>) -> Result<Timing, DeviceError> {
        let (NaryScratch { hi_a, lo_b, hi_b }, mut events) =
            self.nary_scratch(segs, j.n, j.nkeys, j.out)?;
        let k = self.kernel(&self.program, "nary_pass")?;
        let local = self.local_size(&k);
        let passes = nary_passes(j.n, segs);
        let first = j.args(&[]);
        // SAFETY (this and the per-pass `set_args` below): argument types
        // match nary_pass(const global KEY_T*, uint, const global KEY_T*,
        // uint, 4x global uint*, uint); every buffer outlives the final wait.
        unsafe { set_args(&k, 0, &first).and_then(|()| set_args(&k, 8, &[Arg::U32(segs)])) }
            .map_err(cl_err("arg"))?;
        let a: [cl_mem; 2] = [j.out.get(), hi_a.get()];
        let b: [cl_mem; 2] = [lo_b.get(), hi_b.get()];
        for p in 0..passes {
            let (src, dst) = if p % 2 == 0 { (a, b) } else { (b, a) };
            let args = [
                Arg::Mem(src[0]),
                Arg::Mem(src[1]),
                Arg::Mem(dst[0]),
                Arg::Mem(dst[1]),
            ];
            // SAFETY: see above; clSetKernelArg copies the handle values,
            // and the in-order queue keeps the passes in sequence.
            unsafe { set_args(&k, 4, &args) }.map_err(cl_err("arg"))?;
            events.push(self.launch(&k, j.nkeys * segs as usize, local, "nary_pass")?);
        }
        if passes % 2 == 1 {
            events.push(self.copy_u32(&lo_b, j.out, j.nkeys)?);
        }
        Timing::from_events(&events)
    }

    /// The ping-pong range buffers of an N-ary search (pass inputs `out` /
    /// `hi_a`, outputs `lo_b` / `hi_b`, then the other way round) and the
    /// fills that start every key's range at [0, n].
    fn nary_scratch(
        &self,
        segs: u32,
        n: usize,
        nkeys: usize,
        out: &mut Buffer<u32>,
    ) -> Result<(NaryScratch, Vec<Event>), DeviceError> {
        if segs < 2 {
            return Err(DeviceError::Cl {
                what: "N-ary search needs N >= 2".into(),
                code: -30,
            });
        }
        let mut hi_a = self.alloc::<u32>(nkeys)?;
        let lo_b = self.alloc::<u32>(nkeys)?;
        let hi_b = self.alloc::<u32>(nkeys)?;
        let events = vec![
            self.fill(out, 0, nkeys)?,
            self.fill(&mut hi_a, n as u32, nkeys)?,
        ];
        Ok((NaryScratch { hi_a, lo_b, hi_b }, events))
    }

    /// Enqueues a device copy of `len` u32 from `src` to `dst`.
    fn copy_u32(
        &self,
        src: &Buffer<u32>,
        dst: &mut Buffer<u32>,
        len: usize,
    ) -> Result<Event, DeviceError> {
        // SAFETY: both buffers hold at least `len` u32.
        unsafe {
            self.dev
                .queue
                .enqueue_copy_buffer(src, dst, 0, 0, len * 4, &[])
        }
        .map_err(cl_err("clEnqueueCopyBuffer"))
    }

    /// (keys per group K, local size K * segs) for nary_local.
    fn local_shape(&self, segs: u32) -> Result<(usize, usize), DeviceError> {
        let segs = segs as usize;
        let k = self.kernel(&self.program, "nary_local")?;
        let max = k
            .get_work_group_size(self.dev.info.id())
            .unwrap_or(64)
            .min(self.dev.max_work_group_size);
        if segs < 2 || segs > max {
            return Err(DeviceError::Cl {
                what: format!("N-ary local search with N={segs}: a work-group holds at most {max}"),
                code: -54, // CL_INVALID_WORK_GROUP_SIZE
            });
        }
        let per_key = std::mem::size_of::<T>() + 8 + segs;
        let by_mem = (self.dev.local_mem_size as usize / 2 / per_key).max(1);
        let keys_per_group = (max.min(256) / segs).clamp(1, by_mem);
        Ok((keys_per_group, keys_per_group * segs))
    }

    fn run_nary_local(&self, segs: u32, j: Job<'_, T>) -> Result<Timing, DeviceError> {
        let (kpg, local) = self.local_shape(segs)?;
        let k = self.kernel(&self.program, "nary_local")?;
        let passes = nary_passes(j.n, segs);
        let groups = j.nkeys.div_ceil(kpg).clamp(1, 1 << 16);
        let args = j.args(&[
            Arg::Mem(j.out.get()),
            Arg::U32(segs),
            Arg::U32(passes),
            Arg::U32(kpg as u32),
            Arg::Local(kpg * std::mem::size_of::<T>()),
            Arg::Local(kpg * 4),
            Arg::Local(kpg * 4),
            Arg::Local(kpg * segs as usize),
        ]);
        // SAFETY: argument types match nary_local(const global KEY_T*, uint,
        // const global KEY_T*, uint, global uint*, uint, uint, uint,
        // local KEY_T*[K], local uint*[K], local uint*[K], local uchar*[K*N]);
        // buffers outlive the wait.
        unsafe { set_args(&k, 0, &args) }.map_err(cl_err("arg"))?;
        let ev = self.launch(&k, groups * local, local, "nary_local")?;
        Timing::from_events(&[ev])
    }

    fn run_nary_enqueue(&self, segs: u32, j: Job<'_, T>) -> Result<Timing, DeviceError> {
        if segs < 2 {
            return Err(DeviceError::Cl {
                what: "N-ary search needs N >= 2".into(),
                code: -30,
            });
        }
        let program = self.enqueue_program()?;
        let k = self.kernel(program, "nary_enqueue")?;
        let (NaryScratch { hi_a, lo_b, hi_b }, mut events) =
            self.nary_scratch(segs, j.n, j.nkeys, j.out)?;
        let mut status = self.alloc::<u32>(1)?;
        let passes = nary_passes(j.n, segs);
        events.push(self.fill(&mut status, 0, 1)?);
        let args = j.args(&[
            Arg::Mem(j.out.get()),
            Arg::Mem(hi_a.get()),
            Arg::Mem(lo_b.get()),
            Arg::Mem(hi_b.get()),
            Arg::U32(segs),
            Arg::U32(passes),
            Arg::Mem(status.get()),
        ]);
        // SAFETY: argument types match nary_enqueue(const global KEY_T*,
        // uint, const global KEY_T*, uint, 4x global uint*, uint, uint,
        // global int*); the buffers outlive the final wait, which covers
        // the device-enqueued children too.
        unsafe { set_args(&k, 0, &args) }.map_err(cl_err("arg"))?;
        events.push(self.launch(&k, 1, 1, "nary_enqueue")?);
        let timing = Timing::from_events(&events)?;
        self.dev.queue.finish().map_err(cl_err("clFinish"))?;
        let st = self.download(&status, 1)?[0];
        if st != 0 {
            return Err(DeviceError::Cl {
                what: "enqueue_kernel on the device".into(),
                code: st as i32,
            });
        }
        if passes % 2 == 1 {
            self.copy_u32(&lo_b, j.out, j.nkeys)?
                .wait()
                .map_err(cl_err("clWaitForEvents"))?;
        }
        Ok(timing)
    }

    /// Convenience: lower bounds of `keys` in the sorted `hay` with
    /// `method` (uploads, builds the Eytzinger layout when needed, reads the
    /// answers back).
    pub fn lower_bound(
        &self,
        method: Method,
        hay: &[T],
        keys: &[T],
    ) -> Result<Vec<u32>, DeviceError> {
        Ok(self.lower_bound_timed(method, hay, keys)?.0)
    }

    /// [`Self::lower_bound`] plus the device time of the search kernels
    /// (the Eytzinger build included).
    pub fn lower_bound_timed(
        &self,
        method: Method,
        hay: &[T],
        keys: &[T],
    ) -> Result<(Vec<u32>, Timing), DeviceError> {
        let (n, nkeys) = (hay.len(), keys.len());
        Self::check_sizes(n, nkeys, method.segs())?;
        if nkeys == 0 {
            return Ok((Vec::new(), Timing::default()));
        }
        if n == 0 {
            return Ok((vec![0; nkeys], Timing::default()));
        }
        let hay_buf = self.upload(hay)?;
        let keys_buf = self.upload(keys)?;
        let mut out = self.alloc::<u32>(nkeys)?;
        let timing = if method == Method::Eytzinger {
            let mut eyt = self.alloc::<T>(n)?;
            let build = self.build_eytzinger(&hay_buf, n, &mut eyt)?;
            let search = self.run_buffers(method, &eyt, n, &keys_buf, nkeys, &mut out)?;
            Timing {
                device_ns: build.device_ns + search.device_ns,
                commands: build.commands + search.commands,
            }
        } else {
            self.run_buffers(method, &hay_buf, n, &keys_buf, nkeys, &mut out)?
        };
        Ok((self.download(&out, nkeys)?, timing))
    }
}

/// Whether `keys` are in ascending order (ties allowed): the case the
/// blocked search is made for.
pub fn keys_sorted<T: PartialOrd>(keys: &[T]) -> bool {
    keys.windows(2).all(|w| w[0] <= w[1])
}

/// Host model of `eytzinger_rank` in search.cl: the sorted index of
/// Eytzinger node `node` (1-based) in a complete tree of `n` nodes.
pub fn eytzinger_rank(node: u32, n: u32) -> u32 {
    let h = 31 - n.leading_zeros();
    let d = 31 - node.leading_zeros();
    let p = node - (1 << d);
    let r = ((2 * p + 1) << (h - d)) - 1;
    let m = n - ((1 << h) - 1);
    let half = (r + 1) >> 1;
    if half > m { r - (half - m) } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Host model of one nary_step pass for one key (all segments).
    fn model_pass(hay: &[i32], key: i32, lo: u32, hi: u32, segs: u32) -> (u32, u32) {
        if lo >= hi {
            return (lo, hi);
        }
        let len = hi - lo;
        let seg = (len - 1) / segs + 1;
        let mut writes = Vec::new();
        for s in 0..segs {
            let start = lo + s * seg;
            if start >= hi {
                continue;
            }
            let end = (start + seg).min(hi);
            let end_below = hay[end as usize - 1] < key;
            let before_below = s == 0 || hay[start as usize - 1] < key;
            if before_below && !end_below {
                writes.push((start, end - 1));
            } else if end_below && end == hi {
                writes.push((hi, hi));
            }
        }
        assert_eq!(writes.len(), 1, "exactly one writer per pass");
        writes[0]
    }

    #[test]
    fn nary_model_converges_in_the_counted_passes() {
        assert_eq!(nary_passes(0, 4), 0);
        assert_eq!(nary_passes(1, 2), 1);
        assert_eq!(nary_passes(3, 2), 2);
        for n in 0..70usize {
            let hay: Vec<i32> = (0..n as i32).map(|i| i / 3 * 2).collect();
            for segs in 2..7u32 {
                for key in -1..(n as i32 + 2) {
                    let (mut lo, mut hi) = (0u32, n as u32);
                    for _ in 0..nary_passes(n, segs) {
                        (lo, hi) = model_pass(&hay, key, lo, hi, segs);
                    }
                    assert_eq!(lo, hi);
                    assert_eq!(lo as usize, hay.partition_point(|x| *x < key));
                }
            }
        }
    }

    #[test]
    fn eytzinger_rank_is_the_in_order_rank() {
        fn in_order(node: u32, n: u32, out: &mut Vec<u32>) {
            if node > n {
                return;
            }
            in_order(2 * node, n, out);
            out.push(node);
            in_order(2 * node + 1, n, out);
        }
        for n in 1..600u32 {
            let mut nodes = Vec::new();
            in_order(1, n, &mut nodes);
            for (rank, node) in nodes.into_iter().enumerate() {
                assert_eq!(eytzinger_rank(node, n), rank as u32, "n={n} node={node}");
            }
        }
        // the largest size the kernels accept
        let n = MAX_LEN as u32;
        assert_eq!(eytzinger_rank(1 << 30, n), 0);
        assert_eq!(eytzinger_rank((1 << 30) - 1, n), n - 1); // rightmost node
        assert_eq!(eytzinger_rank(n, n), n - 2); // last leaf: 2 * (m - 1), m = 2^30 - 1
    }

    #[test]
    fn method_names_round_trip() {
        for m in [
            Method::Binary,
            Method::Eytzinger,
            Method::NaryHost { segs: 4 },
            Method::NaryLocal { segs: 16 },
            Method::NaryDeviceEnqueue { segs: 32 },
            Method::Blocked,
            Method::BlockedFused,
        ] {
            assert_eq!(Method::parse(&m.name()), Some(m));
        }
        assert_eq!(
            Method::parse("nary-host"),
            Some(Method::NaryHost { segs: 8 })
        );
        assert_eq!(Method::parse("nary-host:1"), None);
        assert_eq!(Method::parse("bogus"), None);
    }
}
