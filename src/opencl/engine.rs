//! [`OpenClEngine`]: picks a device and a kernel for a literal set, builds
//! the device side, and owns the failure policy (a failed device never loses
//! a match: the batch is searched on the CPU, one warning is printed, and
//! the engine stays on the CPU from then on).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

use std::sync::Arc;

use crate::engine::cpu::CpuLiteralEngine;
use crate::engine::dfa_table::{DfaLimits, DfaSet, DfaSpec};

/// The grouping limits for a device with `local_mem` bytes of local
/// memory. `GSEARCH_DFA_LOCAL_BYTES` (tests, tuning) replaces the local
/// memory size (0: every group in global memory); `GSEARCH_DFA_GROUP_BYTES`
/// lets a group's table grow past it into global memory (fewer, bigger
/// groups).
pub fn dfa_limits(local_mem: u64) -> DfaLimits {
    let mut limits = DfaLimits::for_local_mem(local_mem);
    if let Ok(v) = std::env::var("GSEARCH_DFA_LOCAL_BYTES")
        && let Ok(b) = v.trim().parse::<usize>()
    {
        limits.local_bytes = b.min(limits.local_bytes);
        limits.group_bytes = limits.local_bytes;
    }
    if let Some(b) = crate::sys::env_count("GSEARCH_DFA_GROUP_BYTES") {
        limits.group_bytes = b.min(limits.max_table_bytes);
    }
    limits
}
use crate::engine::{Batch, BatchEngine, EngineError, LiteralSet, MatchSet};

use super::batch::BatchSource;
use super::cache::ProgramCache;
use super::device::{DeviceInfo, DeviceSelector, select, select_all};
use super::fault::Fault;
use super::gpu::{Gpu, GpuConfig, InitStats};
use super::kernels::KernelKind;

/// Default batch (staging buffer) size. Pinned memory costs about 0.35 ms
/// per MiB to allocate on an H100 host (and as much again to free), while
/// batches of 32 MiB stream as fast as 64 MiB ones (H100, 8 GiB file).
/// More fill threads take bigger batches: see [`default_batch_bytes`].
pub const DEFAULT_BATCH_BYTES: usize = 32 << 20;

/// The batch size: [`DEFAULT_BATCH_BYTES`], or a piece for each fill
/// thread where there are more (`sys::fill_threads`: 64 MiB on 32 cores).
pub fn default_batch_bytes() -> usize {
    DEFAULT_BATCH_BYTES.max(crate::sys::fill_threads() * crate::sys::FILL_PIECE)
}
/// Default number of rotating staging slots (>= 3 keeps two batches in
/// flight while one is filled).
pub const DEFAULT_SLOTS: usize = 3;

/// Knobs of an engine. [`EngineOptions::from_env`] reads the environment;
/// tests set fields directly (no process-wide env races).
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Force a kernel (`GSEARCH_KERNEL=naive|3phase|char16`).
    pub kernel: Option<KernelKind>,
    /// Batch capacity in bytes (`GSEARCH_BATCH_BYTES`), clamped to what the
    /// device can allocate.
    pub batch_bytes: usize,
    /// Staging slots (at least 1; 3 or more for overlap).
    pub slots: usize,
    /// TEST ONLY: inject a device failure (`GSEARCH_FAULT`).
    pub fault: Option<Fault>,
    /// Program binary cache.
    pub cache: ProgramCache,
    /// Work-group size cap (default 256; lowered to what the device allows).
    pub work_group: Option<usize>,
    /// Start positions per work-item per work-group block.
    pub iters: usize,
    /// Initial capacity (entries) of each result buffer (tests shrink it to
    /// exercise the overflow re-run). Default: batch_bytes / 16, at least
    /// 16 Ki, at most 4 Mi.
    pub initial_out_entries: Option<usize>,
    /// Print the device-failure warning to stderr (once per process).
    pub warn_on_stderr: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            kernel: None,
            batch_bytes: default_batch_bytes(),
            slots: DEFAULT_SLOTS,
            fault: None,
            cache: ProgramCache::default_location(),
            work_group: None,
            iters: 64,
            initial_out_entries: None,
            warn_on_stderr: true,
        }
    }
}

impl EngineOptions {
    /// [`EngineOptions::from_env`] with batches of at least `min_batch`
    /// bytes (a caller whose pieces must each fit one batch).
    pub fn from_env_min_batch(min_batch: usize) -> EngineOptions {
        let mut opts = EngineOptions::from_env();
        opts.batch_bytes = opts.batch_bytes.max(min_batch);
        opts
    }

    /// Defaults plus `GSEARCH_KERNEL`, `GSEARCH_BATCH_BYTES`,
    /// `GSEARCH_SLOTS` and (tests only) `GSEARCH_FAULT`.
    pub fn from_env() -> EngineOptions {
        let mut o = EngineOptions::default();
        if let Ok(k) = std::env::var("GSEARCH_KERNEL") {
            o.kernel = KernelKind::parse(&k);
        }
        if let Some(b) = crate::sys::env_count("GSEARCH_BATCH_BYTES") {
            o.batch_bytes = b;
        }
        if let Some(n) = crate::sys::env_count("GSEARCH_SLOTS") {
            o.slots = n;
        }
        o.fault = Fault::from_env();
        o
    }

    /// The options of the `index`-th engine of a search on several devices
    /// (a fault aimed at another device removed).
    fn for_device(&self, index: usize) -> EngineOptions {
        let mut o = self.clone();
        o.fault = Fault::for_device(self.fault, index);
        o
    }
}

/// A forced kernel when it can search `patterns`, else the one their shape
/// picks.
fn literal_kind(patterns: &[Vec<u8>], opts: &EngineOptions) -> Result<KernelKind, EngineError> {
    match opts.kernel {
        Some(k) if !k.can_handle(patterns) => Err(EngineError::Unsupported(format!(
            "kernel {} cannot search this pattern set",
            k.name()
        ))),
        Some(k) => Ok(k),
        None => Ok(KernelKind::choose(patterns)),
    }
}

/// What starting one device gave: its engine side (none: CPU only), its
/// start-up times, and why it failed, if it did.
type Started = (Option<Gpu>, InitStats, Option<String>);

/// What the engines of one search share; each device adds its own.
struct Recipe {
    patterns: Arc<Vec<Vec<u8>>>,
    fold: bool,
    max_len: usize,
    dfa: Option<Arc<DfaSet>>,
    cpu: Arc<CpuLiteralEngine>,
    kind: KernelKind,
}

impl Recipe {
    /// One engine per device of `infos`, from what [`start_gpus`] gave.
    fn engines(
        self,
        infos: Vec<DeviceInfo>,
        gpus: Vec<Start>,
        opts: &EngineOptions,
    ) -> Vec<OpenClEngine> {
        let engines = infos.into_iter().zip(gpus).enumerate();
        engines
            .map(|(i, (info, start))| OpenClEngine {
                patterns: Arc::clone(&self.patterns),
                fold: self.fold,
                max_len: self.max_len,
                dfa: self.dfa.clone(),
                cpu: Arc::clone(&self.cpu),
                kind: self.kind,
                info,
                opts: opts.for_device(i),
                state: State::new(start),
                failure: Mutex::new(None),
            })
            .map(OpenClEngine::settle_start)
            .collect()
    }
}

/// A device's start, going on its thread (see [`start_gpus`]; the
/// engine's lock takes it when it is needed), or the reason that thread
/// could not be started.
enum Start {
    Going(JoinHandle<Started>),
    Failed(String),
}

impl Start {
    /// What the start gave, waiting for it if need be.
    fn finish(self) -> Started {
        match self {
            Start::Failed(e) => (None, InitStats::default(), Some(e)),
            Start::Going(h) => h.join().unwrap_or_else(|_| {
                let e = "the device's start-up failed".to_string();
                (None, InitStats::default(), Some(e))
            }),
        }
    }
}

/// Starts `start` on every device of `infos` side by side (each its own
/// context and program), with that device's fault, and returns when the
/// first is ready: the search starts on it, and each other device joins
/// the shared queue when its own start ends (`Start::Going`). Waiting for
/// all held every device back: the NVIDIA driver creates contexts one at
/// a time (two H200s: the second 126 ms after the first), so with 8 GPUs
/// the first would have waited for the seven others.
fn start_gpus<F>(infos: &[DeviceInfo], opts: &EngineOptions, t0: Instant, start: F) -> Vec<Start>
where
    F: Fn(&DeviceInfo, &GpuConfig<'_>) -> Result<Option<Gpu>, String> + Send + Sync + 'static,
{
    let start = Arc::new(start);
    let (done, first) = std::sync::mpsc::channel::<()>();
    let spawned: Vec<_> = infos
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let (start, done, info, opts) =
                (Arc::clone(&start), done.clone(), info.clone(), opts.clone());
            std::thread::Builder::new()
                .name("gsearch-device-start".into())
                .spawn(move || {
                    let started = start_one(&*start, &info, &opts, i, t0);
                    let _ = done.send(());
                    started
                })
        })
        .collect();
    drop(done);
    // Every sender gone (no thread started) also ends the wait.
    let _ = first.recv();
    spawned
        .into_iter()
        .map(|h| match h {
            Ok(h) => Start::Going(h),
            Err(e) => Start::Failed(format!("starting the device's thread: {e}")),
        })
        .collect()
}

/// One device's start (the `i`-th of the search), timed from `t0`.
fn start_one<F>(
    start: &F,
    info: &DeviceInfo,
    opts: &EngineOptions,
    i: usize,
    t0: Instant,
) -> Started
where
    F: Fn(&DeviceInfo, &GpuConfig<'_>) -> Result<Option<Gpu>, String>,
{
    let cfg = GpuConfig {
        cache: &opts.cache,
        work_group: opts.work_group,
        iters: opts.iters,
        fault: Fault::for_device(opts.fault, i),
        dfa: None,
    };
    if Fault::hits_any_batch(cfg.fault, super::fault::FaultKind::SlowStart) {
        std::thread::sleep(std::time::Duration::from_secs(3));
    }
    match start(info, &cfg) {
        Ok(g) => {
            let mut init = g.as_ref().map(|g| g.init).unwrap_or_default();
            init.total = t0.elapsed();
            (g, init, None)
        }
        Err(e) => (None, InitStats::default(), Some(e)),
    }
}

pub(crate) struct State {
    pub gpu: Option<Gpu>,
    /// The device's start, while it goes on (see [`start_gpus`]).
    start: Option<Start>,
    /// Context/program set-up times (once the start ended).
    pub init: InitStats,
    /// Host buffer for batches searched on the CPU when no slot exists.
    pub heap: Vec<u8>,
    /// Batches enqueued over the engine's life (fault injection counts them).
    pub batch_no: u64,
}

/// An engine dropped before its device's start ended waits for it, so
/// that no thread is left inside the driver (`main` forgets its engines
/// instead: the process ends without their teardown).
impl Drop for State {
    fn drop(&mut self) {
        if let Some(start) = self.start.take() {
            drop(start.finish());
        }
    }
}

impl State {
    /// The state of a new engine whose device is starting (or started).
    fn new(start: Start) -> Mutex<State> {
        Mutex::new(State {
            gpu: None,
            start: Some(start),
            init: InitStats::default(),
            heap: Vec::new(),
            batch_no: 0,
        })
    }
}

/// The OpenCL literal engine. `Send + Sync`; device work is serialised by an
/// internal lock (one `stream`/`search` at a time per engine).
pub struct OpenClEngine {
    /// The literals, shared by the engines of one search and the threads
    /// that start their devices.
    pub(crate) patterns: Arc<Vec<Vec<u8>>>,
    pub(crate) fold: bool,
    pub(crate) max_len: usize,
    /// The DFA groups of a regex set (kernel `dfa`; `patterns` is empty).
    pub(crate) dfa: Option<Arc<DfaSet>>,
    /// The CPU fallback, shared by the engines of one search.
    pub(crate) cpu: Arc<CpuLiteralEngine>,
    kind: KernelKind,
    info: DeviceInfo,
    pub(crate) opts: EngineOptions,
    pub(crate) state: Mutex<State>,
    failure: Mutex<Option<String>>,
}

static WARNED: AtomicBool = AtomicBool::new(false);

impl OpenClEngine {
    /// Picks a device with `sel` and a kernel for `set` (by shape, or as
    /// `GSEARCH_KERNEL` forces when that kernel can handle the set), and
    /// builds context, queues and program (through the binary cache).
    ///
    /// Errors only when no OpenCL runtime/device matches `sel`
    /// ([`EngineError::Device`]) or the set is unusable
    /// ([`EngineError::Unsupported`]). A device that fails later in set-up
    /// (context, build, upload) yields a degraded engine that searches on
    /// the CPU, after one warning: see [`OpenClEngine::device_failure`].
    /// Costs ~0.4 s on a GPU: call it on a background thread if need be.
    pub fn new(sel: &DeviceSelector, set: &LiteralSet) -> Result<OpenClEngine, EngineError> {
        Self::with_min_batch(sel, set, 0)
    }

    /// Like [`OpenClEngine::new`], with batches of at least `min_batch`
    /// bytes (a caller whose pieces must each fit one batch).
    pub fn with_min_batch(
        sel: &DeviceSelector,
        set: &LiteralSet,
        min_batch: usize,
    ) -> Result<OpenClEngine, EngineError> {
        Self::with_options(sel, set, Self::literal_options(set, min_batch))
    }

    /// One engine per device the list `sels` picks ([`select_all`]): each
    /// with its own context, program and pinned slots, started side by side;
    /// the CPU fallback is built once and shared. Batches of at least
    /// `min_batch` bytes; `GSEARCH_FAULT`'s `:D` picks the device it hits.
    pub fn open_all(
        sels: &[DeviceSelector],
        set: &LiteralSet,
        min_batch: usize,
    ) -> Result<Vec<OpenClEngine>, EngineError> {
        let opts = Self::literal_options(set, min_batch);
        let kind = literal_kind(&non_empty(set), &opts)?;
        let infos = select_all(sels).map_err(|e| EngineError::Device(e.to_string()))?;
        Self::literal_engines(infos, kind, set, opts)
    }

    /// [`OpenClEngine::open_all`] on devices already selected
    /// ([`select_all`]'s answer).
    pub fn open_selected(
        infos: Vec<DeviceInfo>,
        set: &LiteralSet,
        min_batch: usize,
    ) -> Result<Vec<OpenClEngine>, EngineError> {
        let opts = Self::literal_options(set, min_batch);
        let kind = literal_kind(&non_empty(set), &opts)?;
        Self::literal_engines(infos, kind, set, opts)
    }

    /// `GSEARCH_*`'s options, batches of at least `min_batch` bytes, and a
    /// forced kernel dropped when it cannot search `set`.
    fn literal_options(set: &LiteralSet, min_batch: usize) -> EngineOptions {
        let mut opts = EngineOptions::from_env_min_batch(min_batch);
        if let Some(k) = opts.kernel
            && !k.can_handle(&non_empty(set))
        {
            opts.kernel = None;
        }
        opts
    }

    /// Like [`OpenClEngine::new`] with explicit options; a forced kernel that
    /// cannot handle the set is an `Unsupported` error.
    pub fn with_options(
        sel: &DeviceSelector,
        set: &LiteralSet,
        opts: EngineOptions,
    ) -> Result<OpenClEngine, EngineError> {
        let kind = literal_kind(&non_empty(set), &opts)?;
        let info = select(sel).map_err(|e| EngineError::Device(e.to_string()))?;
        let mut v = Self::literal_engines(vec![info], kind, set, opts)?;
        v.pop()
            .ok_or_else(|| EngineError::Device("no OpenCL device".into()))
    }

    /// The literal engines of `infos` (see [`OpenClEngine::open_all`]).
    fn literal_engines(
        infos: Vec<DeviceInfo>,
        kind: KernelKind,
        set: &LiteralSet,
        opts: EngineOptions,
    ) -> Result<Vec<OpenClEngine>, EngineError> {
        let t0 = Instant::now();
        let patterns = Arc::new(non_empty(set));
        crate::sys::trace::mark("device selected");
        // The CPU fallback (for a big set, a hashed finder that takes a
        // while to sort) is built beside the devices' contexts and programs.
        let (pats, fold) = (Arc::clone(&patterns), set.fold_ascii);
        let (cpu, gpus) = std::thread::scope(|s| {
            let cpu = s.spawn(|| CpuLiteralEngine::fallback(set));
            let gpus = start_gpus(&infos, &opts, t0, move |info, cfg| {
                if pats.is_empty() {
                    return Ok(None);
                }
                Gpu::new(info, kind, &pats, fold, cfg).map(Some)
            });
            let cpu = cpu.join().unwrap_or_else(|_| {
                Err(EngineError::Unsupported("the CPU fallback failed".into()))
            });
            (cpu, gpus)
        });
        crate::sys::trace::mark("device engine ready (CPU fallback built)");
        let recipe = Recipe {
            max_len: patterns.iter().map(Vec::len).max().unwrap_or(0),
            patterns,
            fold,
            dfa: None,
            cpu: Arc::new(cpu?),
            kind,
        };
        Ok(recipe.engines(infos, gpus, &opts))
    }

    /// The DFA engine for regex patterns (`dfa.cl`): the patterns'
    /// over-approximations as dense DFAs grouped for the device's local
    /// memory (`engine::dfa_table`); the engine returns the start offsets of
    /// candidate lines, a superset of the matching lines, which the
    /// finisher confirms with the exact matcher. `Unsupported` when a
    /// pattern's DFA is too big (the caller searches on the CPU).
    pub fn new_dfa(sel: &DeviceSelector, spec: &DfaSpec) -> Result<OpenClEngine, EngineError> {
        Self::dfa_with_options(sel, spec, EngineOptions::from_env())
    }

    /// [`OpenClEngine::new_dfa`] on every device the list `sels` picks, as
    /// [`OpenClEngine::open_all`] does for literals (the tables are built
    /// once, for the smallest local memory among them), with batches of at
    /// least `min_batch` bytes.
    pub fn open_all_dfa(
        sels: &[DeviceSelector],
        spec: &DfaSpec,
        min_batch: usize,
    ) -> Result<Vec<OpenClEngine>, EngineError> {
        let infos = select_all(sels).map_err(|e| EngineError::Device(e.to_string()))?;
        Self::open_selected_dfa(infos, spec, min_batch)
    }

    /// [`OpenClEngine::open_all_dfa`] on devices already selected
    /// ([`select_all`]'s answer).
    pub fn open_selected_dfa(
        infos: Vec<DeviceInfo>,
        spec: &DfaSpec,
        min_batch: usize,
    ) -> Result<Vec<OpenClEngine>, EngineError> {
        Self::dfa_engines(infos, spec, EngineOptions::from_env_min_batch(min_batch))
    }

    /// [`OpenClEngine::new_dfa`] with explicit options (`kernel` is
    /// ignored; the tables go through `opts.cache`, see `opencl::dfa::tables`).
    pub fn dfa_with_options(
        sel: &DeviceSelector,
        spec: &DfaSpec,
        opts: EngineOptions,
    ) -> Result<OpenClEngine, EngineError> {
        let info = select(sel).map_err(|e| EngineError::Device(e.to_string()))?;
        let mut v = Self::dfa_engines(vec![info], spec, opts)?;
        v.pop()
            .ok_or_else(|| EngineError::Device("no OpenCL device".into()))
    }

    /// The DFA engines of `infos` (see [`OpenClEngine::open_all_dfa`]).
    fn dfa_engines(
        infos: Vec<DeviceInfo>,
        spec: &DfaSpec,
        opts: EngineOptions,
    ) -> Result<Vec<OpenClEngine>, EngineError> {
        let t0 = Instant::now();
        crate::sys::trace::mark("device selected");
        let local = infos.iter().map(|i| i.local_mem).min().unwrap_or(0);
        let limits = dfa_limits(local);
        // The driver makes the first device's context (0.14 s on an H200)
        // while the tables are built (50-90 ms for 200-1,000 rules); its
        // start then finds it made (`host::shared_context`).
        let set = std::thread::scope(|s| {
            if let Some(first) = infos.first() {
                s.spawn(move || drop(super::host::shared_context(first)));
            }
            super::dfa::tables(spec, limits, &opts.cache)
        })
        .map_err(EngineError::Unsupported)?;
        if set.groups.is_empty() {
            return Err(EngineError::Unsupported("no pattern".into()));
        }
        crate::sys::trace::mark("DFA tables built");
        let set = Arc::new(set);
        let tables = Arc::clone(&set);
        let gpus = start_gpus(&infos, &opts, t0, move |info, cfg| {
            let cfg = GpuConfig {
                dfa: Some(&tables),
                ..*cfg
            };
            Gpu::new(info, KernelKind::Dfa, &[], false, &cfg).map(Some)
        });
        let recipe = Recipe {
            patterns: Arc::default(),
            fold: false,
            max_len: 1,
            cpu: Arc::new(CpuLiteralEngine::dfa_lines(Arc::clone(&set))),
            dfa: Some(set),
            kind: KernelKind::Dfa,
        };
        Ok(recipe.engines(infos, gpus, &opts))
    }

    /// The DFA groups, for a DFA engine.
    pub fn dfa_set(&self) -> Option<&DfaSet> {
        self.dfa.as_deref()
    }

    /// Nothing to search for (no literal, no DFA group).
    pub(crate) fn is_empty_set(&self) -> bool {
        self.patterns.is_empty() && self.dfa.is_none()
    }

    /// The kernel family in use: "naive", "3phase" or "char16".
    pub fn kernel_name(&self) -> &'static str {
        self.kind.name()
    }

    pub fn kernel_kind(&self) -> KernelKind {
        self.kind
    }

    /// The selected device's name.
    pub fn device_name(&self) -> &str {
        &self.info.name
    }

    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The staging slots pinned so far: a stream pins its first slot, then
    /// the others beside its first batches (waits for the device's start).
    pub fn slots_pinned(&self) -> usize {
        self.lock().gpu.as_ref().map_or(0, Gpu::slot_count)
    }

    /// Context/program set-up times and whether the program came from the
    /// cache (waits for the device's start).
    pub fn init_stats(&self) -> InitStats {
        self.lock().init
    }

    pub fn options(&self) -> &EngineOptions {
        &self.opts
    }

    /// Bytes a [`BatchSource`] may put in one batch (`stream` hands it a
    /// buffer of exactly this length).
    pub fn batch_capacity(&self) -> usize {
        let max = self
            .lock()
            .gpu
            .as_ref()
            .map(Gpu::max_batch)
            .unwrap_or(1 << 31);
        self.opts.batch_bytes.clamp(1, max.max(1))
    }

    /// The longest pattern: a source that cuts a file into chunks must
    /// overlap them by `max_pattern_len() - 1` bytes (a match belongs to the
    /// chunk where it starts).
    pub fn max_pattern_len(&self) -> usize {
        self.max_len
    }

    /// Why the device was abandoned, if it was (the engine then searches on
    /// the CPU; results stay complete).
    pub fn device_failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn is_degraded(&self) -> bool {
        self.device_failure().is_some()
    }

    /// The engine's state, its device's start ended (waited for if it
    /// still goes on: a device that joins a search late waits here, in its
    /// own stream).
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(start) = st.start.take() {
            let (gpu, init, failure) = start.finish();
            (st.gpu, st.init) = (gpu, init);
            // A device failure met while starting: the engine then runs on
            // the CPU.
            if let Some(e) = failure {
                self.record_failure(e);
            }
        }
        st
    }

    /// Whether the device's start still goes on (see [`start_gpus`]).
    pub(crate) fn is_starting(&self) -> bool {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        matches!(&st.start, Some(Start::Going(h)) if !h.is_finished())
    }

    /// A new engine: its start taken at once when it already ended, so
    /// that a device that failed to start is known as failed.
    fn settle_start(self) -> OpenClEngine {
        if !self.is_starting() {
            drop(self.lock());
        }
        self
    }

    fn record_failure(&self, msg: String) {
        let mut f = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_some() {
            return;
        }
        if self.opts.warn_on_stderr && !WARNED.swap(true, Ordering::SeqCst) {
            eprintln!("gsearch: warning: OpenCL device failed ({msg}); searching on the CPU");
        }
        *f = Some(msg);
    }

    /// Marks the device failed (warning once) and waits for whatever it
    /// still has in flight, so host memory can be reused safely.
    pub(crate) fn fail(&self, st: &mut State, msg: String) {
        if let Some(g) = &st.gpu {
            g.quiesce();
        }
        self.record_failure(msg);
    }

    /// True while the device is usable.
    pub(crate) fn device_ok(&self, st: &State) -> bool {
        st.gpu.is_some() && !self.is_empty_set() && !self.is_degraded()
    }

    /// Per-pattern occurrence counts (char16 count mode; others answer
    /// `Unsupported`). Falls back to the CPU if the device fails.
    pub fn count_occurrences(&self, data: &[u8]) -> Result<Vec<u64>, EngineError> {
        if self.kind != KernelKind::Char16 {
            return Err(EngineError::Unsupported(
                "count mode exists for the char16 kernel only".into(),
            ));
        }
        let mut st = self.lock();
        if self.device_ok(&st) && data.len() <= self.batch_capacity_locked(&st) {
            let npat = self.patterns.len();
            let r = st
                .gpu
                .as_mut()
                .map(|g| g.count_occurrences(data, npat))
                .unwrap_or_else(|| Err("no device".into()));
            match r {
                Ok(v) => return Ok(v),
                Err(e) => self.fail(&mut st, e),
            }
        }
        drop(st);
        Ok(self
            .patterns
            .iter()
            .map(|p| {
                CpuLiteralEngine::new(&LiteralSet {
                    patterns: vec![p.clone()],
                    fold_ascii: self.fold,
                })
                .map(|e| e.find_all(data).len() as u64)
                .unwrap_or(0)
            })
            .collect())
    }

    /// The match kernel's raw output for `data` (at most one batch): its
    /// count and the offsets it wrote, unsorted and not deduplicated. For
    /// tests of the kernels' "each start once" contract (the search path
    /// sorts and dedupes, which would hide a start written twice).
    #[doc(hidden)]
    pub fn raw_matches(&self, data: &[u8]) -> Result<(u64, Vec<u32>), EngineError> {
        let mut st = self.lock();
        if !self.device_ok(&st) || data.len() > self.batch_capacity_locked(&st) {
            return Err(EngineError::Unsupported(
                "no device, or more than one batch".into(),
            ));
        }
        st.gpu
            .as_mut()
            .map(|g| g.raw_matches(data))
            .unwrap_or_else(|| Err("no device".into()))
            .map_err(EngineError::Device)
    }

    fn batch_capacity_locked(&self, st: &State) -> usize {
        let max = st.gpu.as_ref().map(Gpu::max_batch).unwrap_or(1 << 31);
        self.opts.batch_bytes.clamp(1, max.max(1))
    }
}

impl Drop for OpenClEngine {
    fn drop(&mut self) {
        if self.is_degraded() {
            // A failed device may fail again while releasing its objects
            // (opencl3 panics on release errors): leak them instead.
            let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
            if let Some(g) = st.gpu.take() {
                std::mem::forget(g);
            }
        }
    }
}

fn non_empty(set: &LiteralSet) -> Vec<Vec<u8>> {
    set.patterns
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect()
}

/// Feeds one in-memory batch through the pipeline in chunks of at most the
/// batch capacity, overlapping by (longest pattern - 1) bytes.
struct ChunkSource<'a> {
    data: &'a [u8],
    pos: usize,
    cap: usize,
    step: usize,
}

/// (chunk start, offsets owned by this chunk are < this bound).
type ChunkTag = (usize, usize);

impl BatchSource for ChunkSource<'_> {
    type Tag = ChunkTag;

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, ChunkTag)> {
        if self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        let end = (start + self.cap).min(self.data.len());
        let n = end - start;
        buf[..n].copy_from_slice(&self.data[start..end]);
        let owned = if end == self.data.len() {
            self.pos = end;
            n
        } else {
            self.pos = start + self.step;
            self.step
        };
        Some((n, (start, owned)))
    }
}

impl BatchEngine for OpenClEngine {
    fn name(&self) -> String {
        if self.is_degraded() {
            format!("{} (OpenCL device failed)", self.cpu.name())
        } else {
            format!("opencl {} on {}", self.kind.name(), self.info.name)
        }
    }

    /// Copies the batch through the pinned staging buffers (in chunks when it
    /// exceeds [`OpenClEngine::batch_capacity`]) and searches it.
    fn search(&self, batch: &Batch<'_>) -> Result<MatchSet, EngineError> {
        let data = batch.data;
        let cap = self.batch_capacity();
        if data.is_empty() || self.is_empty_set() {
            return Ok(MatchSet::default());
        }
        if cap < self.max_len || self.is_degraded() {
            return self.cpu.search(batch);
        }
        let mut src = ChunkSource {
            data,
            pos: 0,
            cap,
            step: cap - (self.max_len - 1),
        };
        let mut offsets = Vec::new();
        self.stream(
            &mut src,
            &mut |(start, owned): ChunkTag, _bytes, m: MatchSet| {
                offsets.extend(
                    m.offsets
                        .into_iter()
                        .take_while(|&o| (o as usize) < owned)
                        .map(|o| o + start as u64),
                );
                true
            },
        );
        Ok(MatchSet { offsets })
    }
}
