//! Host side of `kernels/dfa.cl`: the DFA groups' tables on the device
//! ([`DfaArgs`]) and the launch of `dfa_lines` over the full groups, then,
//! for near groups, of `many_literals_fold` (their factors' positions, into
//! the slot's scratch) and `dfa_near` (argument layouts: the kernel files'
//! headers and ARCHITECTURE.md's kernel table).
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
use opencl3::error_codes::CL_INVALID_VALUE;
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, ClMem};
use opencl3::program::Program;
use opencl3::types::cl_event;

use std::time::Instant;

use crate::engine::dfa_bytes;
use crate::engine::dfa_table::{BUILDER_VERSION, DfaLimits, DfaSet, DfaSpec, NearMode};

use super::cache::{Hash128, ProgramCache};

use super::host::{Arg, Launched, MatchOut, enqueue_2d, set_args, upload};

/// The program: dfa.cl, after many_literals.cl (its `many_literals_fold`
/// finds the near groups' factors), which only a `-D DFA_NEAR` build
/// compiles.
pub const DFA_SRC: &str = concat!(
    "#ifdef DFA_NEAR\n",
    include_str!("../../kernels/many_literals.cl"),
    "\n#endif\n",
    include_str!("../../kernels/dfa.cl")
);

/// The kernel's name.
pub const FUNCTION: &str = "dfa_lines";

/// Work-items of `dfa_near`'s first dimension (grid-stride over the factor
/// positions; each work-group loads its group's table once).
const NEAR_ITEMS: usize = 8192;

/// Bytes per work-item (`GSEARCH_DFA_SEG`, default 128). With near groups
/// a rule set has one or two full groups, so the launch needs many
/// work-items to fill the GPU: H200, 8.68 GB of site-packages text, the
/// kernel took 143 / 279 / 756 ms for 15 / 200 / 1,000 rules at 128 bytes,
/// 342 / 478 / 951 ms at 1 KiB (64 bytes: within 3% of 128); auto took
/// 0.59-0.82 s for 15 rules against 0.84-0.88 s.
pub fn segment_bytes() -> u32 {
    crate::sys::env_count("GSEARCH_DFA_SEG")
        .map(|v| v.clamp(1, 1 << 24) as u32)
        .unwrap_or(128)
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
            NearMode::from_env() as u8,
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
    for f in &spec.factors {
        let lits = f.as_deref().unwrap_or_default();
        h.field(&(lits.len() as u64).to_le_bytes());
        lits.iter().for_each(|l| {
            h.field(l);
        });
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
    /// The groups run over the whole text (the first ones).
    full: u32,
    /// Entries of the largest local table (the `ltab` local argument).
    local_entries: usize,
    seg: u32,
    span: u32,
    near: Option<Near>,
}

/// The near groups: their factors' tables and kernels.
struct Near {
    many: super::many::ManyArgs,
    count: u32,
    /// `many_literals_fold` and `dfa_near`, once the program is built.
    kernels: Option<(Kernel, Kernel)>,
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
        let near = match set.near_groups() {
            0 => None,
            count => Some(Near {
                many: super::many::ManyArgs::new(ctx, &set.factors)?,
                count: count as u32,
                kernels: None,
            }),
        };
        Ok(DfaArgs {
            groups: upload(ctx, CL_MEM_READ_ONLY, &desc)?,
            classes: upload(ctx, CL_MEM_READ_ONLY, &classes)?,
            t16: upload(ctx, CL_MEM_READ_ONLY, &t16)?,
            t32: upload(ctx, CL_MEM_READ_ONLY, &t32)?,
            full: set.full_groups() as u32,
            local_entries,
            seg: segment_bytes(),
            span: span_bytes(),
            near,
        })
    }

    /// Build options: the near groups need many_literals.cl's kernels.
    pub fn defines(&self) -> &'static str {
        if self.near.is_some() {
            "-D DFA_NEAR"
        } else {
            ""
        }
    }

    /// Creates the near groups' kernels from the built program.
    pub fn attach(&mut self, program: &Program) -> Result<(), ClError> {
        if let Some(near) = &mut self.near {
            let many = Kernel::create(program, super::many::function(true))?;
            near.kernels = Some((many, Kernel::create(program, "dfa_near")?));
        }
        Ok(())
    }

    /// Factor positions a batch of `bytes` may hold before the device
    /// gives it to the CPU (one in 16 bytes; prose has one in thousands).
    pub fn scratch_entries(&self, bytes: usize) -> usize {
        if self.near.is_some() {
            (bytes / 16).max(4096)
        } else {
            0
        }
    }

    /// The arguments both kernels take in a row: the tables, the results
    /// and the local memory, and the span (`dfa_lines` 3-12, `dfa_near`
    /// 5-14).
    fn tables_to_span(&self, o: &MatchOut<'_>) -> [Arg; 10] {
        let [out, cap, count] = o.args();
        [
            Arg::from(&self.groups),
            Arg::from(&self.classes),
            Arg::from(&self.t16),
            Arg::from(&self.t32),
            out,
            cap,
            count,
            Arg::Local(self.local_entries * 2),
            Arg::Local(256),
            Arg::U32(self.span),
        ]
    }

    /// Whether the results are offsets inside lines as well as line
    /// starts (see [`line_starts`]).
    pub fn has_near(&self) -> bool {
        self.near.is_some()
    }
}

/// The distinct starts of the lines holding the sorted `offsets` of
/// `text`, with offset 0 and the start of an unterminated last line (the
/// kernels record those; a batch may be cut inside a line). `dfa_near`
/// records a factor's own offset when its line starts more than the span
/// before it: most offsets are line starts, the rest are found by a
/// search back to the previous result.
pub fn line_starts(offsets: &[u64], text: &[u8]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::with_capacity(offsets.len() + 2);
    out.push(0);
    let last = (!text.ends_with(b"\n") && !text.is_empty()).then(|| text.len() as u64 - 1);
    for &o in offsets.iter().chain(last.iter()) {
        let i = o as usize;
        let prev = *out.last().unwrap_or(&0) as usize;
        if i <= prev {
            continue;
        }
        let start = if text[i - 1] == b'\n' {
            i
        } else {
            match memchr::memrchr(b'\n', &text[prev..i]) {
                Some(k) => prev + k + 1,
                None => continue,
            }
        };
        if start > prev {
            out.push(start as u64);
        }
    }
    out
}

/// Enqueues `dfa_lines` over `text[..n]` (n > 0) for the full groups, and
/// for the near groups `many_literals_fold` (the factors, into `o`'s
/// scratch) then `dfa_near`, in work-groups of `wg`, all on `q` (in order).
///
/// # Safety
/// `kernel` must be `dfa_lines` built with `-D WG=wg` (and `-D DFA_NEAR`
/// when the set has near groups, [`DfaArgs::attach`] done); the buffers
/// must outlive the launch.
pub unsafe fn launch(
    q: &CommandQueue,
    kernel: &Kernel,
    a: &DfaArgs,
    wg: usize,
    (text, n): (&Buffer<u8>, u32),
    o: &MatchOut<'_>,
    wait: &[cl_event],
) -> Result<Launched, ClError> {
    let shared = a.tables_to_span(o);
    let mut first = None;
    if a.full > 0 {
        let head = [Arg::from(text), Arg::U32(n), Arg::U32(a.seg)];
        let items = (n as usize).div_ceil(a.seg as usize);
        let global = items.div_ceil(wg) * wg;
        // SAFETY: the layout of dfa.cl's header (arguments 0-2, then 3-12
        // from `tables_to_span`), every argument set; the caller's
        // contract for the kernel and buffers.
        unsafe {
            set_args(kernel, 0, &head)?;
            set_args(kernel, 3, &shared)?;
            let full = a.full as usize;
            first = Some(enqueue_2d(q, kernel, [global, full], [wg, 1], wait)?);
        }
    }
    let Some(near) = &a.near else {
        return first.map(Launched::one).ok_or(ClError(CL_INVALID_VALUE));
    };
    let (Some(sc), Some((many_k, near_k))) = (o.scratch, &near.kernels) else {
        return Err(ClError(CL_INVALID_VALUE));
    };
    let zero = reset(q, &sc.count)?;
    let hits = sc.as_out();
    super::many::launch(q, many_k, &near.many, (wg, 4), (text, n), &hits, wait)?;
    let head = [
        Arg::from(text),
        Arg::U32(n),
        Arg::from(&sc.hits),
        Arg::from(&sc.count),
        Arg::U32(sc.cap),
    ];
    let global = NEAR_ITEMS.div_ceil(wg) * wg;
    // SAFETY: the layout of dfa_near in dfa.cl (arguments 0-4, 5-14 from
    // `tables_to_span`, 15), every argument set; the queue is in order, so
    // it runs after the factor search.
    let last = unsafe {
        set_args(near_k, 0, &head)?;
        set_args(near_k, 5, &shared)?;
        set_args(near_k, 15, &[Arg::U32(a.full)])?;
        enqueue_2d(q, near_k, [global, near.count as usize], [wg, 1], &[])?
    };
    // The first command of the launch: the full groups, else the reset.
    Ok(Launched::from(Some(first.unwrap_or(zero)), last))
}

/// Enqueues zeroing the counter `c` on `q`.
fn reset(q: &CommandQueue, c: &Buffer<u32>) -> Result<Event, ClError> {
    static ZERO: u32 = 0;
    // SAFETY: a fill of one `u32` of a live buffer; OpenCL copies the
    // pattern before the call returns.
    let e = unsafe {
        opencl3::command_queue::enqueue_fill_buffer(
            q.get(),
            c.get(),
            (&raw const ZERO).cast(),
            4,
            0,
            4,
            0,
            std::ptr::null(),
        )
    }
    .map_err(ClError)?;
    Ok(Event::new(e))
}

#[cfg(test)]
mod tests {
    use super::line_starts;

    #[test]
    fn offsets_become_their_lines_starts() {
        let text = b"ab\ncdef\n\nghij";
        // Line starts stay; offsets inside lines map back; 0 and the
        // unterminated last line are always there; each line once.
        assert_eq!(line_starts(&[], text), vec![0, 9]);
        assert_eq!(line_starts(&[3, 5, 6, 8], text), vec![0, 3, 8, 9]);
        assert_eq!(line_starts(&[1, 4, 11], text), vec![0, 3, 9]);
        assert_eq!(line_starts(&[4], b"ab\ncdef\n"), vec![0, 3]);
        assert_eq!(line_starts(&[], b""), vec![0]);
    }
}
