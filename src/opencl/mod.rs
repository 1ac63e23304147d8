//! The OpenCL back end: device discovery, the literal kernels in
//! `kernels/`, a program binary cache, and [`OpenClEngine`] with its
//! streaming pipeline.
//!
//! Modules, one job each:
//! - `device`: platforms/devices, [`DeviceSelector`], `--list-devices` text
//! - `cache`: on-disk program binary cache ([`ProgramCache`])
//! - `program`: embedded kernel sources, builds through the cache
//! - `kernels`: kernel choice ([`KernelKind`]), pattern packing, launches
//! - `gpu`: context, queues, buffers, one batch's enqueue/collect
//! - `engine`: [`OpenClEngine`], options, failure policy, `BatchEngine`
//! - `lineindex`: line numbers of matches on the device (newline index,
//!   batched lower-bound search, per-line dedupe) and the host reference
//! - `stream`: [`BatchSource`], [`StageStats`], the pipelined `stream`
//! - `fault`: test-only fault injection (`GSEARCH_FAULT`)
//! - `bench`: the kernel benchmark behind `gsearch-bench-kernels`
//!
//! Environment: `GSEARCH_KERNEL=naive|3phase|char16` (force a kernel),
//! `GSEARCH_BATCH_BYTES=N` (batch capacity), `GSEARCH_FAULT=...` (tests
//! only). The CLI maps `GSEARCH_OPENCL_DEVICE` with [`DeviceSelector::parse`].
//! Nothing here panics or aborts when there is no OpenCL library or driver:
//! discovery reports it and the engine constructor returns an error.

mod batch;
mod cache;
mod device;
mod engine;
mod error;
mod fault;
mod gpu;
mod host;
mod kernels;
mod lineindex;
pub mod many;
mod open;
mod program;
pub mod sorted;
mod stream;
mod timer;

pub use batch::{BatchResult, BatchSink, BatchSource, LineSink, StageStats};
pub use cache::{Hash128, ProgramCache, hash128};
pub use device::{
    DeviceInfo, DeviceSelector, DiscoveryError, driver_loaded, has_any_device, list_devices,
    list_devices_text, pick, runtime_available, select,
};
pub use engine::{DEFAULT_BATCH_BYTES, DEFAULT_SLOTS, EngineOptions, OpenClEngine};
pub use error::{DEVICE_ENV, DeviceError};
pub use fault::{Fault, FaultKind};
pub use gpu::InitStats;
pub use kernels::{
    CHAR16_MAX_LEN, CHAR16_MAX_PATTERNS, Char16Anchor, KernelKind, PAD, anchor_for, char16_anchors,
};
pub use lineindex::{BatchLines, LineIndexer, host_lines, newline_capacity};
pub use open::{ClDevice, all_devices, open_device, select_device};
pub use timer::{DeviceText, KernelTimer};
