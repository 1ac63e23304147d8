//! The OpenCL back end: one host layer, one host file per kernel family on
//! top of it, then the literal engine's slots, stream and engine.
//!
//! Layers, each importing only from those above it in this list:
//! - host layer: `error` ([`DeviceError`], the `cl()`/`cl_err()` mappers),
//!   `cache` (on-disk program binaries, [`ProgramCache`]), `absent` (the
//!   memo of a listing that found no GPU or accelerator, which spares
//!   `auto` the next listings), `device` (platforms/devices,
//!   [`DeviceSelector`], `--list-devices` text), `program` (embedded sources, builds through the cache), `host`
//!   (shared context, profiling queues, buffers, kernel arguments, 1-D
//!   launches, event timings), `open` ([`ClDevice`]: an opened device for
//!   the sorted search, [`select_device`], [`open_device`])
//! - kernel families: `dfa` (`dfa.cl`: regex candidate lines from dense
//!   DFA tables, [`dfa::DfaArgs`]), `many` (`many_literals.cl`: tables, launch,
//!   [`many::ManySearcher`]), `kernels` (`literal_naive.cl`,
//!   `literal_3phase.cl`, `multi_char16.cl`: [`KernelKind`], pattern
//!   packing, launches), `lineindex` (`line_index.cl`: line numbers of
//!   matches on the device, [`LineIndexer`], the host reference), `sorted`
//!   (`search.cl`, `search_enqueue.cl`: [`sorted::DeviceSearch`], batched
//!   lower bounds for `--sorted`)
//! - `fault`: test-only fault injection (`GSEARCH_FAULT`)
//! - `batch`: the stream contract ([`BatchSource`], sinks, [`StageStats`])
//! - `gpu`: one engine's queues, program and rotating batch slots, one
//!   batch's enqueue/collect
//! - `timer`: [`KernelTimer`], a literal kernel timed on device-resident
//!   text (the public API of `gsearch-bench-kernels`)
//! - `engine`: [`OpenClEngine`], options, failure policy, `BatchEngine`
//! - `stream`: the pipelined `stream`/`stream_lines` of [`OpenClEngine`]
//! - `multi`: [`OpenClEngine::stream_lines_all`], several devices' pipelines
//!   claiming from one source and reading outside its lock, each batch
//!   prepared in its device's thread and committed in the source's order
//!   through a bounded reorder buffer
//!
//! Environment: `GSEARCH_KERNEL=naive|3phase|char16` (force a kernel),
//! `GSEARCH_BATCH_BYTES=N` (batch capacity), `GSEARCH_FAULT=...` (tests
//! only). The CLI maps `GSEARCH_OPENCL_DEVICE` with [`DeviceSelector::parse_list`].
//! Nothing here panics or aborts when there is no OpenCL library or driver:
//! discovery reports it and the engine constructor returns an error.

mod absent;
mod batch;
mod cache;
mod device;
mod dfa;
mod engine;
mod error;
mod fault;
mod gpu;
mod host;
mod kernels;
mod lineindex;
pub mod many;
mod multi;
mod open;
mod program;
pub mod sorted;
mod stream;
mod timer;

pub use absent::{note as absent_note, remembered as no_gpu_remembered};
pub use batch::{
    BatchResult, BatchSink, BatchSource, LineSink, SharedStats, SplitSink, SplitSource, StageStats,
};
pub use cache::{Hash128, ProgramCache, hash128};
pub use device::{
    DeviceInfo, DeviceSelector, DiscoveryError, driver_loaded, driver_loading, has_any_device,
    list_devices, list_devices_text, pick, pick_all, runtime_available, select, select_all,
    start_only_gpus, version_line,
};
pub use dfa::{tables as dfa_tables, tables_key as dfa_tables_key};
pub use engine::{DEFAULT_BATCH_BYTES, DEFAULT_SLOTS, EngineOptions, OpenClEngine, dfa_limits};
pub use error::{DEVICE_ENV, DeviceError};
pub use fault::{Fault, FaultKind};
pub use gpu::InitStats;
pub use kernels::{
    CHAR16_MAX_LEN, CHAR16_MAX_PATTERNS, Char16Anchor, KernelKind, PAD, anchor_for, char16_anchors,
};
pub use lineindex::{BatchLines, LineIndexer, host_lines, newline_capacity};
pub use open::{ClDevice, all_devices, open_device, select_device};
pub use timer::{DeviceText, KernelTimer};
