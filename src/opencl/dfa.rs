//! Host side of `kernels/dfa.cl`: the DFA groups' tables on the device
//! ([`DfaArgs`]) and the launch of `dfa_lines` (argument layout: the
//! kernel file's header and ARCHITECTURE.md's kernel table).
//!
//! The tables come from `engine::dfa_table` (grouped there to fit the
//! device's local memory), through [`tables`]: a set built once is kept in
//! the program cache's directory (`opencl::cache`, keyed by the patterns,
//! the limits and `dfa_table::BUILDER_VERSION`), so the next run with the
//! same rules reads it instead of building it. The kernel records the start offset of every
//! candidate line (once per group); the slot's collect sorts and dedupes
//! them (`engine::radix::sorted_distinct`) and grows the result buffer and
//! runs the batch again on overflow, as for the literal kernels.

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY};
use opencl3::types::cl_event;

use std::time::Instant;

use crate::engine::dfa_bytes;
use crate::engine::dfa_table::{BUILDER_VERSION, DfaLimits, DfaSet, DfaSpec};

use super::cache::{Hash128, ProgramCache};

use super::host::{Arg, MatchOut, enqueue_2d, set_args, upload};

pub const DFA_SRC: &str = include_str!("../../kernels/dfa.cl");

/// The kernel's name.
pub const FUNCTION: &str = "dfa_lines";

/// Bytes per work-item (`GSEARCH_DFA_SEG`, default 1 KiB; PoCL only checks
/// correctness, the GPU value is tuned with `gsearch-bench-dfa`).
pub fn segment_bytes() -> u32 {
    crate::sys::env_count("GSEARCH_DFA_SEG")
        .map(|v| v.clamp(1, 1 << 24) as u32)
        .unwrap_or(1024)
}

/// Bytes a work-item may step past its segment's end to finish its last
/// line (`GSEARCH_DFA_SPAN`, default 1 KiB): a line still undecided there is
/// a candidate for the CPU to decide. Without the bound one line of
/// megabytes held its work-item, and the launch, for all of it (H100,
/// 1.93 GB of site-packages text with lines up to 286 KB: the kernel took
/// 348 ms, and 84 ms on the same text cut to lines of 2,000 bytes). On
/// 8.68 GB of that text with 15 rules, spans of 1, 4 and 16 KiB took 369,
/// 462 and 623 ms of kernel time and left 73k, 64k and 63k candidate lines.
pub fn span_bytes() -> u32 {
    crate::sys::env_count("GSEARCH_DFA_SPAN")
        .map(|v| v.clamp(1, 1 << 30) as u32)
        .unwrap_or(1024)
}

/// The cache key of `spec`'s tables under `limits`.
pub fn tables_key(spec: &DfaSpec, limits: &DfaLimits) -> [u8; 16] {
    let mut h = Hash128::new();
    h.field(b"gsearch dfa tables")
        .field(&BUILDER_VERSION.to_le_bytes())
        .field(&[
            u8::from(spec.fixed_strings),
            u8::from(spec.case_insensitive),
        ]);
    for n in [
        limits.local_bytes,
        limits.group_bytes,
        limits.max_table_bytes,
    ] {
        h.field(&(n as u64).to_le_bytes());
    }
    h.field(&(spec.patterns.len() as u64).to_le_bytes());
    for p in &spec.patterns {
        h.field(p.as_bytes());
    }
    h.finish()
}

/// `spec`'s tables: from `cache` when an intact entry for them exists,
/// else built (on every core) and stored there. A corrupt or foreign entry
/// is ignored and overwritten.
pub fn tables(spec: &DfaSpec, limits: DfaLimits, cache: &ProgramCache) -> Result<DfaSet, String> {
    let t0 = Instant::now();
    let key = tables_key(spec, &limits);
    let cached = cache
        .load(&key)
        .and_then(|b| dfa_bytes::from_bytes(&b, spec.patterns.len()));
    if let Some(mut set) = cached {
        set.info.from_cache = true;
        set.info.threads = 1;
        set.info.group = t0.elapsed();
        return Ok(set);
    }
    let set = DfaSet::build(spec, limits)?;
    if !set.groups.is_empty() {
        cache.store(&key, &dfa_bytes::to_bytes(&set));
    }
    Ok(set)
}

/// The groups' tables on the device.
pub struct DfaArgs {
    groups: Buffer<u32>,
    classes: Buffer<u8>,
    t16: Buffer<u16>,
    t32: Buffer<u32>,
    ngroups: u32,
    /// Entries of the largest local table (the `ltab` local argument).
    local_entries: usize,
    seg: u32,
    span: u32,
}

impl DfaArgs {
    /// Uploads `set`'s tables (at least one group).
    pub fn new(ctx: &Context, set: &DfaSet) -> Result<DfaArgs, ClError> {
        let mut desc = Vec::with_capacity(set.groups.len() * 4);
        let mut classes = Vec::with_capacity(set.groups.len() * 256);
        let (mut t16, mut t32) = (Vec::<u16>::new(), Vec::<u32>::new());
        let mut local_entries = 1;
        for g in &set.groups {
            let off = if g.local {
                let o = t16.len();
                t16.extend(g.table.iter().map(|&e| e as u16));
                local_entries = local_entries.max(g.table.len());
                o
            } else {
                let o = t32.len();
                t32.extend_from_slice(&g.table);
                o
            };
            desc.extend_from_slice(&[
                off as u32,
                g.start,
                u32::from(g.local),
                g.table.len() as u32,
            ]);
            classes.extend_from_slice(&g.classes);
        }
        // OpenCL buffers cannot be empty.
        t16.push(0);
        t32.push(0);
        Ok(DfaArgs {
            groups: upload(ctx, CL_MEM_READ_ONLY, &desc)?,
            classes: upload(ctx, CL_MEM_READ_ONLY, &classes)?,
            t16: upload(ctx, CL_MEM_READ_ONLY, &t16)?,
            t32: upload(ctx, CL_MEM_READ_ONLY, &t32)?,
            ngroups: set.groups.len() as u32,
            local_entries,
            seg: segment_bytes(),
            span: span_bytes(),
        })
    }
}

/// Enqueues `dfa_lines` over `text[..n]` (n > 0) in work-groups of `wg`.
///
/// # Safety
/// `kernel` must be `dfa_lines` built with `-D WG=wg`; the buffers must
/// outlive the launch.
pub unsafe fn launch(
    q: &CommandQueue,
    kernel: &Kernel,
    a: &DfaArgs,
    wg: usize,
    (text, n): (&Buffer<u8>, u32),
    o: &MatchOut<'_>,
    wait: &[cl_event],
) -> Result<Event, ClError> {
    let [out, cap, count] = o.args();
    let args = [
        Arg::from(text),
        Arg::U32(n),
        Arg::U32(a.seg),
        Arg::from(&a.groups),
        Arg::from(&a.classes),
        Arg::from(&a.t16),
        Arg::from(&a.t32),
        out,
        cap,
        count,
        Arg::Local(a.local_entries * 2),
        Arg::Local(256),
        Arg::U32(a.span),
    ];
    let items = (n as usize).div_ceil(a.seg as usize);
    let global = items.div_ceil(wg) * wg;
    // SAFETY: the layout of dfa.cl's header, every argument set; the
    // caller's contract for the kernel and buffers.
    unsafe {
        set_args(kernel, 0, &args)?;
        enqueue_2d(q, kernel, [global, a.ngroups as usize], [wg, 1], wait)
    }
}
