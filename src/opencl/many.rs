//! Host side of `kernels/many_literals.cl`: hundreds to hundreds of
//! thousands of literal patterns on the device.
//!
//! Design (the trade-offs are written up in `kernels/README.md`, "Many
//! literals"):
//! - Patterns of length 1 and 2 go to exact direct tables (256 and 65,536
//!   bits), so a set mixing 1-byte and 20-byte patterns keeps a sharp
//!   filter for the long ones.
//! - Patterns of length >= 3 go to "hashed classes": one class per distinct
//!   prefix length k = min(length, 8) (at most 6 classes: k = 3..=8). The key
//!   of a class at a text position is the k-byte window there.
//! - Every class shares one LOCAL filter (a bitmap of 2^10..2^18 bits, hashed
//!   with `hash1`, copied into local memory by each work-group), one larger
//!   GLOBAL filter (2^10..2^27 bits, `hash2`, read through the caches) and
//!   one hash table of whole patterns (bucket = `hash2 & tmask`; each bucket
//!   sorted bytewise with "parent" links to the longest proper prefix in the
//!   same bucket, so a bucket of any size is decided by one binary search
//!   plus a walk up a prefix chain).
//! - Output: the match-offset protocol of the other kernels (count may
//!   exceed cap; the caller re-runs with a bigger buffer).
//!
//! Entry points: [`ManyTables`] (pure host tables + [`ManyTables::simulate`],
//! a host mirror of the kernel used by unit tests), [`ManyArgs`] (device
//! buffers) and [`launch`] (sets every argument, enqueues), used by the
//! engine's batch path; [`ManySearcher`], a self-contained device searcher
//! for tests; [`bench`] for `gsearch-bench-many`.

use std::sync::Arc;
use std::time::Duration;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::error_codes::ClError;
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{CL_BLOCKING, cl_event};

use crate::engine::LiteralSet;

use super::cache::ProgramCache;
use super::device::{DeviceSelector, select};
use super::error::cl;
use super::host::{
    Arg, MatchOut, alloc, enqueue_1d, make_queue, prev_pow2, set_args, shared_context, span,
    time_copies, upload,
};

/// The kernel source (embedded).
pub const MANY_SRC: &str = include_str!("../../kernels/many_literals.cl");
/// Start positions one work-item tests per step (the kernel's `POS`).
pub const POS_PER_ITEM: usize = 16;
/// Bytes the kernel may read past `n` (it needs 24 - 1; the engine pads 64).
pub const MIN_PAD: usize = 32;
/// Words of the direct tables (length 1: 8 words, length 2: 2048 words).
const DIRECT_WORDS: usize = 8 + 2048;
const NONE: u32 = u32::MAX;
/// The longest local filter (32 KiB = 2^18 bits).
const MAX_LBITS: u32 = 18;
const MIN_LBITS: u32 = 10;
const MAX_GBITS: u32 = 27;
/// Local filter bits per distinct key (before rounding up to a power of 2).
const LBITS_PER_KEY: usize = 32;
/// Global filter bits per distinct key.
const GBITS_PER_KEY: usize = 64;

/// The kernel's first hash (local filter). Must equal `hash1` in the kernel.
pub fn hash1(lo: u32, hi: u32, c: u32) -> u32 {
    let mut x = lo.wrapping_mul(0x9E37_79B1)
        ^ hi.wrapping_mul(0x85EB_CA77)
        ^ (c + 1).wrapping_mul(0x27D4_EB2F);
    x ^= x >> 15;
    x.wrapping_mul(0x2C1B_3C6D)
}

/// The kernel's second hash (global filter, bucket). Must equal `hash2`.
pub fn hash2(lo: u32, hi: u32, c: u32) -> u32 {
    let mut y = lo
        ^ hi.wrapping_mul(0x1B87_3593)
            .wrapping_add((c + 1).wrapping_mul(0x1656_67B1));
    y ^= y >> 16;
    y = y.wrapping_mul(0x85EB_CA6B);
    y ^= y >> 13;
    y = y.wrapping_mul(0xC2B2_AE35);
    y ^ (y >> 16)
}

/// The first `k` (<= 8) bytes of `b` as the kernel's (lo, hi) key words
/// (little-endian, zero beyond k).
fn key_of(b: &[u8], k: usize) -> (u32, u32) {
    let mut w = [0u8; 8];
    w[..k].copy_from_slice(&b[..k]);
    (
        u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
        u32::from_le_bytes([w[4], w[5], w[6], w[7]]),
    )
}

fn ceil_log2(x: usize) -> u32 {
    if x <= 1 {
        0
    } else {
        usize::BITS - (x - 1).leading_zeros()
    }
}

fn set_bit(v: &mut [u32], i: u32) {
    v[(i >> 5) as usize] |= 1 << (i & 31);
}

fn get_bit(v: &[u32], i: u32) -> bool {
    v[(i >> 5) as usize] >> (i & 31) & 1 == 1
}

/// Every table the kernel reads, built on the host from the patterns
/// (lower-cased already when folding).
#[derive(Clone, Debug)]
pub struct ManyTables {
    /// Bit 0: length-1 table used; bit 1: length-2 table used.
    pub flags: u32,
    /// Prefix length of each hashed class, ascending (at most 6).
    pub class_k: Vec<u32>,
    /// log2 of the local filter's bits.
    pub lbits: u32,
    pub lfilter: Vec<u32>,
    /// Length-1 bits (words 0..8), length-2 bits (words 8..2056).
    pub direct: Vec<u32>,
    /// log2 of the global filter's bits.
    pub gbits: u32,
    pub gfilter: Vec<u32>,
    /// log2 of the bucket count.
    pub tbits: u32,
    /// Bucket b = entries `bstart[b]..bstart[b+1]`.
    pub bstart: Vec<u32>,
    /// Per hashed pattern: offset in `pats`, length, parent entry (or
    /// u32::MAX), 0.
    pub ents: Vec<[u32; 4]>,
    pub pats: Vec<u8>,
    /// Distinct (class, key) pairs.
    pub keys: usize,
    /// Patterns in the set (after dropping empty ones and duplicates).
    pub npat: usize,
    pub max_len: usize,
}

impl ManyTables {
    /// Builds the tables with the hashed classes [`auto_classes`] picks
    /// (or at most `GSEARCH_MANY_CLASSES`, for tuning). `max_lbits` caps
    /// the local filter (what fits in the device's local memory next to the
    /// direct tables and result staging; see [`local_plan`]). Empty
    /// patterns are ignored.
    pub fn build(patterns: &[Vec<u8>], max_lbits: u32) -> Result<ManyTables, String> {
        Self::build_with(patterns, max_lbits, classes_override().unwrap_or(0))
    }

    /// [`ManyTables::build`] with at most `max_classes` (1..=6) hashed
    /// classes, 0 = [`auto_classes`]: when the patterns' lengths give more
    /// distinct prefix lengths k, the shortest k is kept (it must serve the
    /// shortest patterns) and then the longest ones; each pattern goes to
    /// the longest kept k <= its length. Fewer classes = fewer filter
    /// lookups per position, but a shorter key for some patterns (more
    /// true-prefix candidates).
    pub fn build_with(
        patterns: &[Vec<u8>],
        max_lbits: u32,
        max_classes: usize,
    ) -> Result<ManyTables, String> {
        let pats = distinct_patterns(patterns)?;
        let (direct, mut flags, ks) = direct_tables(&pats);
        let class_k: Vec<u32> = if max_classes == 0 {
            auto_classes(&ks)
        } else {
            let present: Vec<u32> = (3..=8u32).filter(|&k| ks[k as usize] > 0).collect();
            keep_classes(&present, max_classes.clamp(1, 6))
        };
        let mut hashed = hashed_keys(&pats, &class_k);
        let mut distinct: Vec<(u32, u32, u32)> =
            hashed.iter().map(|h| (h.class, h.lo, h.hi)).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let keys = distinct.len();
        let f = Filters::build(&distinct, class_k.len(), max_lbits);
        if f.batched_stage2 {
            flags |= 4;
        }
        let tbits = ceil_log2(keys.max(1));
        let (bstart, ents, bytes) = buckets(&mut hashed, &pats, tbits);
        Ok(ManyTables {
            flags,
            class_k,
            lbits: f.lbits,
            lfilter: f.lfilter,
            direct,
            gbits: f.gbits,
            gfilter: f.gfilter,
            tbits,
            bstart,
            ents,
            pats: bytes,
            keys,
            npat: pats.len(),
            max_len: pats.iter().map(|p| p.len()).max().unwrap_or(0),
        })
    }

    /// The kernel's `classes` argument: nibble i = k of class i.
    pub fn classes_arg(&self) -> u32 {
        self.class_k
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &k)| acc | k << (4 * i))
    }

    /// Bytes of local memory the kernel needs besides result staging.
    pub fn local_table_bytes(&self) -> usize {
        self.lfilter.len() * 4
            + if self.flags & 2 != 0 {
                DIRECT_WORDS * 4
            } else {
                32
            }
    }

    /// The kernel's algorithm on the host, position by position (unit tests
    /// check it against the naive reference; it must agree with the kernel).
    pub fn simulate(&self, hay: &[u8], fold: bool) -> Vec<u64> {
        let n = hay.len();
        let text: Vec<u8> = if fold {
            hay.iter().map(u8::to_ascii_lowercase).collect()
        } else {
            hay.to_vec()
        };
        let mut out = Vec::new();
        for p in 0..n {
            if self.matches_at(&text, p) {
                out.push(p as u64);
            }
        }
        out
    }

    fn matches_at(&self, text: &[u8], p: usize) -> bool {
        let n = text.len();
        let b0 = u32::from(text[p]);
        if self.flags & 1 != 0 && get_bit(&self.direct, b0) {
            return true;
        }
        if self.flags & 2 != 0 && p + 2 <= n {
            let x = b0 | u32::from(text[p + 1]) << 8;
            if get_bit(&self.direct, 256 + x) {
                return true;
            }
        }
        for (c, &k) in self.class_k.iter().enumerate() {
            let k = k as usize;
            if k > n - p {
                continue;
            }
            let (lo, hi) = key_of(&text[p..], k);
            let c = c as u32;
            if !get_bit(&self.lfilter, hash1(lo, hi, c) >> (32 - self.lbits)) {
                continue;
            }
            let h2 = hash2(lo, hi, c);
            if !get_bit(&self.gfilter, h2 >> (32 - self.gbits)) {
                continue;
            }
            if self.verify(&text[p..], (h2 & ((1 << self.tbits) - 1)) as usize) {
                return true;
            }
        }
        false
    }

    fn pat(&self, e: usize) -> &[u8] {
        let [off, len, ..] = self.ents[e];
        &self.pats[off as usize..(off + len) as usize]
    }

    /// Some pattern of bucket `b` is a prefix of `t` (binary search for the
    /// predecessor, then its parent chain; mirrors the kernel's `verify`).
    fn verify(&self, t: &[u8], b: usize) -> bool {
        let (s, e) = (self.bstart[b] as usize, self.bstart[b + 1] as usize);
        let idx = s + self.ents[s..e].partition_point(|en| {
            let p = &self.pats[en[0] as usize..(en[0] + en[1]) as usize];
            p <= t
        });
        if idx == s {
            return false;
        }
        let mut node = idx - 1;
        let p = self.pat(node);
        let l = p.iter().zip(t).take_while(|(a, b)| a == b).count();
        loop {
            if self.ents[node][1] as usize <= l {
                return true;
            }
            let parent = self.ents[node][2];
            if parent == NONE {
                return false;
            }
            node = parent as usize;
        }
    }
}

/// `GSEARCH_MANY_CLASSES=1..6`: at most that many hashed classes (tuning).
pub fn classes_override() -> Option<usize> {
    std::env::var("GSEARCH_MANY_CLASSES")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&c| (1..=6).contains(&c))
}

/// At most `max` of the `present` prefix lengths (ascending): the shortest
/// and then the longest ones.
fn keep_classes(present: &[u32], max: usize) -> Vec<u32> {
    if present.len() <= max {
        return present.to_vec();
    }
    let mut v = vec![present[0]];
    v.extend_from_slice(&present[present.len() - (max - 1)..]);
    v
}

/// The hashed classes for a set, from `count[k]` = patterns whose prefix
/// length min(len, 8) is k. Short keys (3, 4) are kept as they are (they
/// only serve patterns that short: giving longer patterns a 3- or 4-byte
/// key makes every common short prefix in the text a candidate: 1,000
/// words plus "foo" ran at 202 GB/s with classes {3, 8} against 307
/// without "foo"). Among k >= 5: one class up to 4,000 such patterns, two
/// (the shortest and 8) above. Measured on an H200 with identifier lists
/// (6+ letters) against code: 1,000 words: 277 GB/s with 1 class, 230 with
/// 2, 167 with 3; 10,000: 143 with 2, 130 with 1, 120 with 3; 100,000: 69
/// with 2, 56 with 1, 63 with 3.
pub fn auto_classes(count: &[usize; 9]) -> Vec<u32> {
    let mut v: Vec<u32> = (3..=4u32).filter(|&k| count[k as usize] > 0).collect();
    let long: Vec<u32> = (5..=8u32).filter(|&k| count[k as usize] > 0).collect();
    let nlong: usize = count[5..].iter().sum();
    v.extend(keep_classes(&long, if nlong <= 4000 { 1 } else { 2 }));
    v
}

/// Local-filter crowding above which the kernel tests the global filter for
/// all 16 windows of a step at once (flag 4): classes x keys / bits. At 10k
/// words (0.07-0.1) one candidate at a time was faster, at 35k (0.2-0.3) the
/// batched test (H200: 84 vs 71 GB/s; 100k: 63 vs 40).
const BATCHED_STAGE2_AT: f64 = 0.15;

/// The largest local filter (log2 of its bits) that fits a device's local
/// memory (`local_mem` bytes) next to the direct tables and >= 1 KiB of
/// result staging.
pub fn local_plan(local_mem: u64, pats: &[Vec<u8>]) -> u32 {
    let local = usize::try_from(local_mem)
        .unwrap_or(usize::MAX)
        .min(1 << 20);
    let has2 = pats.iter().any(|p| p.len() == 2);
    let direct = if has2 { DIRECT_WORDS * 4 } else { 32 };
    // keep >= 1 KiB for result staging and 512 bytes of slack
    let avail = local.saturating_sub(direct + 1024 + 512);
    let mut lbits = MAX_LBITS;
    while lbits > 5 && (1usize << (lbits - 3)) > avail {
        lbits -= 1;
    }
    lbits
}

/// Result staging entries for the local memory left after the tables.
fn rcap_for(local_mem: u64, table_bytes: usize) -> u32 {
    let local = usize::try_from(local_mem)
        .unwrap_or(usize::MAX)
        .min(1 << 20);
    let left = local.saturating_sub(table_bytes + 512) / 4;
    left.clamp(2, 4096) as u32
}

/// Device-side tables plus the scalar arguments of one pattern set.
pub struct ManyArgs {
    pub tables_info: ManyInfo,
    flags: u32,
    classes: u32,
    lshift: u32,
    lwords: u32,
    lfilter: Buffer<u32>,
    direct: Buffer<u32>,
    gshift: u32,
    gfilter: Buffer<u32>,
    tmask: u32,
    bstart: Buffer<u32>,
    ents: Buffer<u32>,
    pats: Buffer<u8>,
    direct_local_words: usize,
    rcap: u32,
    /// Work-groups launched at most (a few per compute unit; each loads the
    /// local tables once and then walks blocks grid-stride).
    pub max_groups: usize,
}

/// What the tables look like (for `--stats`, benchmarks, tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ManyInfo {
    pub patterns: usize,
    pub keys: usize,
    pub classes: usize,
    pub local_filter_bytes: usize,
    pub global_filter_bytes: usize,
    pub buckets: usize,
    pub result_staging: u32,
}

fn ro_buffer<T: Copy>(ctx: &Context, data: &[T]) -> Result<Buffer<T>, ClError> {
    upload(ctx, CL_MEM_READ_ONLY, data)
}

fn context_device(ctx: &Context) -> Option<Device> {
    ctx.devices().first().map(|&d| Device::new(d))
}

/// Work-groups per compute unit (`GSEARCH_MANY_GROUPS_PER_CU` overrides,
/// for tuning).
fn groups_per_cu() -> usize {
    std::env::var("GSEARCH_MANY_GROUPS_PER_CU")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&g| g > 0)
        .unwrap_or(32)
}

/// Whether the kernel takes this set (non-empty, < 2 GiB of patterns).
pub fn can_handle(pats: &[Vec<u8>]) -> bool {
    let total: usize = pats.iter().map(Vec::len).sum();
    !pats.is_empty() && total < (1 << 31) && pats.len() < (1 << 31)
}

impl ManyArgs {
    /// Builds the tables for `pats` (lower-cased already when folding) and
    /// uploads them; local memory and the group count are sized for the
    /// context's first device. A set [`can_handle`] rejects is
    /// `CL_INVALID_VALUE`.
    pub fn new(ctx: &Context, pats: &[Vec<u8>]) -> Result<ManyArgs, ClError> {
        let dev = context_device(ctx);
        let local = dev
            .as_ref()
            .and_then(|d| d.local_mem_size().ok())
            .unwrap_or(32 * 1024);
        let cus = dev
            .as_ref()
            .and_then(|d| d.max_compute_units().ok())
            .unwrap_or(16) as usize;
        let max_lbits = local_plan(local, pats);
        let t = ManyTables::build(pats, max_lbits)
            .map_err(|_| ClError(opencl3::error_codes::CL_INVALID_VALUE))?;
        let mut a = Self::upload(ctx, &t, local)?;
        a.max_groups = cus.max(1) * groups_per_cu();
        Ok(a)
    }

    /// Uploads prepared tables.
    pub fn upload(ctx: &Context, t: &ManyTables, local_mem: u64) -> Result<ManyArgs, ClError> {
        let ents: Vec<u32> = t.ents.iter().flatten().copied().collect();
        let rcap = rcap_for(local_mem, t.local_table_bytes());
        Ok(ManyArgs {
            tables_info: ManyInfo {
                patterns: t.npat,
                keys: t.keys,
                classes: t.class_k.len(),
                local_filter_bytes: t.lfilter.len() * 4,
                global_filter_bytes: t.gfilter.len() * 4,
                buckets: t.bstart.len() - 1,
                result_staging: rcap,
            },
            flags: t.flags,
            classes: t.classes_arg(),
            lshift: 32 - t.lbits,
            lwords: t.lfilter.len() as u32,
            lfilter: ro_buffer(ctx, &t.lfilter)?,
            direct: ro_buffer(ctx, &t.direct)?,
            gshift: 32 - t.gbits,
            gfilter: ro_buffer(ctx, &t.gfilter)?,
            tmask: (t.bstart.len() - 2) as u32,
            bstart: ro_buffer(ctx, &t.bstart)?,
            ents: ro_buffer(ctx, &ents)?,
            pats: ro_buffer(ctx, &t.pats)?,
            direct_local_words: if t.flags & 2 != 0 { DIRECT_WORDS } else { 8 },
            rcap,
            max_groups: 1024,
        })
    }
}

/// The kernel function for a case mode.
pub fn function(fold: bool) -> &'static str {
    if fold {
        "many_literals_fold"
    } else {
        "many_literals"
    }
}

/// Start positions per block for `wg` work-items: `iters` steps of
/// 16 * wg positions, at most 4 (small blocks balance the load; the tables
/// are loaded once per group anyway).
pub fn block(wg: usize, iters: usize) -> usize {
    wg * POS_PER_ITEM * iters.clamp(1, 4)
}

/// Enqueues the kernel over `text[..n]` (the buffer holds at least
/// n + [`MIN_PAD`] bytes and is 16-byte aligned). `kernel` must come from a
/// program built from [`MANY_SRC`] with `-D WG=wg`; `iters` sets the block
/// (see [`block`]). Returns `None` when there is nothing to search.
pub fn launch(
    q: &CommandQueue,
    kernel: &Kernel,
    a: &ManyArgs,
    (wg, iters): (usize, usize),
    (text, n): (&Buffer<u8>, u32),
    o: &MatchOut<'_>,
    wait: &[cl_event],
) -> Result<Option<Event>, ClError> {
    if n == 0 {
        return Ok(None);
    }
    let blk = block(wg, iters).min(1 << 30);
    let blk32 = blk as u32;
    let [out, cap, count] = o.args();
    let args = [
        Arg::from(text),
        Arg::U32(n),
        Arg::U32(blk32),
        Arg::U32(a.flags),
        Arg::U32(a.classes),
        Arg::U32(a.lshift),
        Arg::U32(a.lwords),
        Arg::from(&a.lfilter),
        Arg::from(&a.direct),
        Arg::U32(a.gshift),
        Arg::from(&a.gfilter),
        Arg::U32(a.tmask),
        Arg::from(&a.bstart),
        Arg::from(&a.ents),
        Arg::from(&a.pats),
        out,
        cap,
        count,
        Arg::Local(a.lwords as usize * 4),
        Arg::Local(a.direct_local_words * 4),
        Arg::Local(a.rcap as usize * 4),
        Arg::U32(a.rcap),
    ];
    let groups = (n as usize).div_ceil(blk).min(a.max_groups.max(1));
    // SAFETY: indices and kinds follow the argument layout documented at
    // the top of kernels/many_literals.cl (buffers as cl_mem, `uint` as
    // u32, `__local` arguments by size); every argument is set before the
    // launch.
    unsafe {
        set_args(kernel, 0, &args)?;
        enqueue_1d(q, kernel, groups * wg, wg, wait).map(Some)
    }
}

/// A self-contained device searcher for one literal set (its own context,
/// queue and program): tests and the benchmark use it; the engine uses
/// [`ManyArgs`] and [`launch`] on its own context instead.
pub struct ManySearcher {
    context: Arc<Context>,
    queue: CommandQueue,
    _program: Program,
    kernel: Kernel,
    args: ManyArgs,
    wg: usize,
    iters: usize,
    max_len: usize,
    /// The device's name.
    pub device: String,
}

impl ManySearcher {
    /// `wg`: work-group size cap (None: 256); `iters`: steps per group.
    pub fn new(
        sel: &DeviceSelector,
        set: &LiteralSet,
        wg: Option<usize>,
        iters: usize,
    ) -> Result<ManySearcher, String> {
        let info = select(sel).map_err(|e| e.to_string())?;
        let context = shared_context(&info).map_err(cl("creating the context"))?;
        let queue = make_queue(&context).map_err(cl("creating a command queue"))?;
        let mut wg = prev_pow2(wg.unwrap_or(256).min(info.max_work_group).max(1));
        let cache = ProgramCache::default_location();
        let (program, kernel) = loop {
            // GSEARCH_MANY_OPTS: extra build options (kernel variants, for
            // tuning with the benchmark)
            let extra = std::env::var("GSEARCH_MANY_OPTS").unwrap_or_default();
            let options = format!("-cl-std=CL1.2 -D WG={wg} {extra}");
            let built = super::program::build(&context, &info, MANY_SRC, &options, &cache, false)?;
            let kernel = Kernel::create(&built.program, function(set.fold_ascii))
                .map_err(cl("creating the kernel"))?;
            let allowed = kernel.get_work_group_size(info.device.id()).unwrap_or(wg);
            if allowed >= wg || wg == 1 {
                break (built.program, kernel);
            }
            wg = prev_pow2(allowed);
        };
        let args =
            ManyArgs::new(&context, &set.patterns).map_err(cl("uploading the pattern tables"))?;
        Ok(ManySearcher {
            context,
            queue,
            _program: program,
            kernel,
            args,
            wg,
            iters: iters.max(1),
            max_len: set.max_len(),
            device: info.name,
        })
    }

    pub fn info(&self) -> ManyInfo {
        self.args.tables_info
    }

    pub fn work_group(&self) -> usize {
        self.wg
    }

    /// Uploads `hay` (padded) to a device buffer of `hay.len() + 64` bytes.
    pub fn upload(&self, hay: &[u8]) -> Result<Buffer<u8>, String> {
        let mut padded = Vec::with_capacity(hay.len() + 64);
        padded.extend_from_slice(hay);
        padded.resize(hay.len() + 64, b'\n');
        ro_buffer(&self.context, &padded).map_err(cl("uploading the text"))
    }

    /// One run over device-resident text: (kernel time, matching positions,
    /// the offsets if they fit in `cap`).
    pub fn run_resident(
        &self,
        text: &Buffer<u8>,
        n: usize,
        cap: usize,
    ) -> Result<(Duration, u64, Option<Vec<u64>>), String> {
        let cap = cap.max(1);
        let out = alloc::<u32>(&self.context, CL_MEM_READ_WRITE, cap)
            .map_err(cl("allocating the result buffer"))?;
        let mut count = alloc::<u32>(&self.context, CL_MEM_READ_WRITE, 1)
            .map_err(cl("allocating the counter"))?;
        let zero = [0u32];
        // SAFETY: blocking write from live memory.
        unsafe {
            self.queue
                .enqueue_write_buffer(&mut count, CL_BLOCKING, 0, &zero, &[])
                .map_err(cl("resetting the counter"))?;
        }
        let o = MatchOut {
            out: &out,
            cap: cap as u32,
            count: &count,
            scratch: None,
        };
        let (q, k, a) = (&self.queue, &self.kernel, &self.args);
        let ev = launch(q, k, a, (self.wg, self.iters), (text, n as u32), &o, &[])
            .map_err(cl("enqueueing the kernel"))?;
        let mut c = [0u32];
        // SAFETY: blocking read into live memory.
        unsafe {
            self.queue
                .enqueue_read_buffer(&count, CL_BLOCKING, 0, &mut c, &[])
                .map_err(cl("reading the count"))?;
        }
        let c = c[0] as usize;
        let d = ev.as_ref().map(span).unwrap_or_default();
        if c > cap {
            return Ok((d, c as u64, None));
        }
        let mut v = vec![0u32; c];
        if c > 0 {
            // SAFETY: blocking read of c <= cap entries into a live vector.
            unsafe {
                self.queue
                    .enqueue_read_buffer(&out, CL_BLOCKING, 0, &mut v, &[])
                    .map_err(cl("reading the offsets"))?;
            }
        }
        let mut o: Vec<u64> = v.into_iter().map(u64::from).collect();
        o.sort_unstable();
        o.dedup();
        Ok((d, c as u64, Some(o)))
    }

    /// Every match start in `hay` (< 2 GiB), sorted: uploads, runs with a
    /// result buffer of `initial_cap` entries and re-runs once with the
    /// exact size when it overflowed (the protocol the engine uses).
    pub fn find_all_with_cap(&self, hay: &[u8], initial_cap: usize) -> Result<Vec<u64>, String> {
        if hay.is_empty() || self.max_len == 0 {
            return Ok(Vec::new());
        }
        if hay.len() >= 1 << 31 {
            return Err("text too large for one launch".into());
        }
        let text = self.upload(hay)?;
        let (_, c, got) = self.run_resident(&text, hay.len(), initial_cap)?;
        if let Some(v) = got {
            return Ok(v);
        }
        let (_, c2, got) = self.run_resident(&text, hay.len(), c as usize)?;
        got.ok_or_else(|| format!("match count changed on re-run ({c} then {c2})"))
    }

    /// Device times of `runs` device-to-device copies of `n` bytes of
    /// `text` (after one warm-up copy): the benchmark's bandwidth baseline.
    pub fn time_copies(
        &self,
        text: &Buffer<u8>,
        n: usize,
        runs: usize,
    ) -> Result<Vec<Duration>, String> {
        time_copies(&self.context, &self.queue, text, n, runs)
    }

    pub fn find_all(&self, hay: &[u8]) -> Result<Vec<u64>, String> {
        self.find_all_with_cap(hay, 1 << 16)
    }
}

// ---------------------------------------------------------------------------
// Test and benchmark data

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A vocabulary of `n` distinct identifier-like words (3..=16 bytes).
pub fn vocabulary(n: usize, seed: u64) -> Vec<Vec<u8>> {
    const SYL: &[&str] = &[
        "get", "set", "data", "con", "fig", "pro", "cess", "re", "quest", "han", "dle", "buf",
        "fer", "lo", "ad", "sto", "re", "ma", "na", "ger", "to", "ken", "in", "it", "pa", "th",
        "fi", "le", "ne", "two", "rk", "ser", "ver", "cli", "ent", "_", "id", "x", "err", "or",
    ];
    let mut r = Rng(seed | 1);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let parts = 1 + (r.next() % 5) as usize;
        let mut w = Vec::new();
        for _ in 0..parts {
            w.extend_from_slice(SYL[(r.next() % SYL.len() as u64) as usize].as_bytes());
        }
        if r.next().is_multiple_of(4) {
            w.extend_from_slice((r.next() % 1000).to_string().as_bytes());
        }
        w.truncate(16);
        if w.len() >= 3 && seen.insert(w.clone()) {
            out.push(w);
        }
    }
    out
}

/// Text of `size` bytes: words of `vocab` (Zipf-like: low indices common)
/// separated by spaces, punctuation and newlines.
pub fn vocab_text(size: usize, vocab: &[Vec<u8>], seed: u64) -> Vec<u8> {
    let mut r = Rng(seed | 1);
    let mut v = Vec::with_capacity(size + 32);
    let mut line = 0;
    while v.len() < size {
        // skew: index = vocab.len() ^ u, u uniform in (0,1]: heavy head
        let u = (r.next() >> 11) as f64 / (1u64 << 53) as f64;
        let i = ((vocab.len() as f64).powf(u) as usize).saturating_sub(1);
        v.extend_from_slice(&vocab[i.min(vocab.len() - 1)]);
        line += 1;
        let x = r.next() % 16;
        v.push(match x {
            0 => b'\n',
            1 => b'.',
            2 => b'(',
            3 => b'=',
            _ => b' ',
        });
        if line > 12 && x > 12 {
            v.push(b'\n');
            line = 0;
        }
    }
    v.truncate(size);
    v
}

/// The distinct non-empty patterns, sorted; an error when the set is too
/// large for the kernel's 32-bit offsets.
fn distinct_patterns(patterns: &[Vec<u8>]) -> Result<Vec<&[u8]>, String> {
    let mut pats: Vec<&[u8]> = patterns
        .iter()
        .filter(|p| !p.is_empty())
        .map(Vec::as_slice)
        .collect();
    pats.sort_unstable();
    pats.dedup();
    let total: usize = pats.iter().map(|p| p.len()).sum();
    if total >= u32::MAX as usize / 2 || pats.len() >= u32::MAX as usize / 2 {
        return Err("pattern set too large for the many-literal kernel".into());
    }
    Ok(pats)
}

/// The exact tables of 1- and 2-byte patterns, the flags saying which are
/// used, and how many patterns of each length from 3 (8 = 8 or more).
fn direct_tables(pats: &[&[u8]]) -> (Vec<u32>, u32, [usize; 9]) {
    let mut direct = vec![0u32; DIRECT_WORDS];
    let mut flags = 0u32;
    let mut ks = [0usize; 9];
    for p in pats {
        match p.len() {
            1 => {
                flags |= 1;
                set_bit(&mut direct, u32::from(p[0]));
            }
            2 => {
                flags |= 2;
                set_bit(&mut direct, 256 + (u32::from(p[0]) | u32::from(p[1]) << 8));
            }
            l => ks[l.min(8)] += 1,
        }
    }
    (direct, flags, ks)
}

/// A hashed pattern: its index in the sorted set, its class, its key
/// (`lo`, `hi`) and the bucket hash.
struct Hashed {
    idx: usize,
    class: u32,
    lo: u32,
    hi: u32,
    h2: u32,
}

/// Every pattern of 3 bytes or more with its class: the longest kept
/// prefix length `k` no longer than the pattern.
fn hashed_keys(pats: &[&[u8]], class_k: &[u32]) -> Vec<Hashed> {
    let class_of = |len: usize| -> Option<(u32, usize)> {
        class_k
            .iter()
            .enumerate()
            .rev()
            .find(|&(_, &k)| k as usize <= len)
            .map(|(c, &k)| (c as u32, k as usize))
    };
    let mut hashed = Vec::new();
    for (idx, p) in pats.iter().enumerate() {
        if p.len() < 3 {
            continue;
        }
        let Some((class, k)) = class_of(p.len()) else {
            continue;
        };
        let (lo, hi) = key_of(p, k);
        let h2 = hash2(lo, hi, class);
        hashed.push(Hashed {
            idx,
            class,
            lo,
            hi,
            h2,
        });
    }
    hashed
}

/// The local and global filters of the hashed keys.
struct Filters {
    lbits: u32,
    lfilter: Vec<u32>,
    gbits: u32,
    gfilter: Vec<u32>,
    /// The local filter is crowded enough for the batched second stage
    /// (or `GSEARCH_MANY_STAGE2` says so).
    batched_stage2: bool,
}

impl Filters {
    /// Filters sized for the `distinct` keys (class, lo, hi) of `classes`
    /// classes, the local one at most `2^max_lbits` bits.
    fn build(distinct: &[(u32, u32, u32)], classes: usize, max_lbits: u32) -> Filters {
        let keys = distinct.len();
        let max_lbits = max_lbits.clamp(5, MAX_LBITS);
        let (lbits, gbits) = if keys == 0 {
            (5, 5)
        } else {
            (
                ceil_log2(keys * LBITS_PER_KEY).clamp(MIN_LBITS.min(max_lbits), max_lbits),
                ceil_log2(keys * GBITS_PER_KEY).clamp(MIN_LBITS, MAX_GBITS),
            )
        };
        let crowding = classes as f64 * keys as f64 / (1u64 << lbits) as f64;
        let batched_stage2 = std::env::var("GSEARCH_MANY_STAGE2")
            .map_or(crowding >= BATCHED_STAGE2_AT, |v| v.trim() == "batched");
        let mut lfilter = vec![0u32; 1 << (lbits - 5)];
        let mut gfilter = vec![0u32; 1 << (gbits - 5)];
        for &(c, lo, hi) in distinct {
            set_bit(&mut lfilter, hash1(lo, hi, c) >> (32 - lbits));
            set_bit(&mut gfilter, hash2(lo, hi, c) >> (32 - gbits));
        }
        Filters {
            lbits,
            lfilter,
            gbits,
            gfilter,
            batched_stage2,
        }
    }
}

/// The verification tables: `hashed` sorted by (bucket, bytes), each
/// bucket's start, and per pattern (offset in the pattern bytes, length,
/// parent: the longest earlier pattern of the bucket it extends, 0).
fn buckets(
    hashed: &mut [Hashed],
    pats: &[&[u8]],
    tbits: u32,
) -> (Vec<u32>, Vec<[u32; 4]>, Vec<u8>) {
    let tmask = (1u32 << tbits) - 1;
    hashed.sort_unstable_by(|a, b| (a.h2 & tmask, pats[a.idx]).cmp(&(b.h2 & tmask, pats[b.idx])));
    let nb = 1usize << tbits;
    let mut bstart = vec![0u32; nb + 1];
    for h in hashed.iter() {
        bstart[(h.h2 & tmask) as usize + 1] += 1;
    }
    for b in 0..nb {
        bstart[b + 1] += bstart[b];
    }
    let total: usize = hashed.iter().map(|h| pats[h.idx].len()).sum();
    let mut bytes = Vec::with_capacity(total);
    let mut ents = Vec::with_capacity(hashed.len());
    let mut stack: Vec<usize> = Vec::new();
    let mut prev_bucket = u32::MAX;
    for (e, h) in hashed.iter().enumerate() {
        let p = pats[h.idx];
        let b = h.h2 & tmask;
        if b != prev_bucket {
            stack.clear();
            prev_bucket = b;
        }
        while let Some(&top) = stack.last() {
            if p.starts_with(pats[hashed[top].idx]) {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().map_or(NONE, |&t| t as u32);
        stack.push(e);
        ents.push([bytes.len() as u32, p.len() as u32, parent, 0]);
        bytes.extend_from_slice(p);
    }
    if bytes.is_empty() {
        bytes.push(0);
    }
    if ents.is_empty() {
        ents.push([0, u32::MAX, NONE, 0]);
    }
    (bstart, ents, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cpu::CpuLiteralEngine;
    use crate::engine::naive;
    use proptest::prelude::*;

    fn check(hay: &[u8], pats: Vec<Vec<u8>>, fold: bool, max_lbits: u32) {
        check_with(hay, pats, fold, max_lbits, 6);
    }

    fn check_with(hay: &[u8], pats: Vec<Vec<u8>>, fold: bool, max_lbits: u32, classes: usize) {
        let set = LiteralSet::new(pats, fold);
        let t = ManyTables::build_with(&set.patterns, max_lbits, classes).unwrap();
        assert_eq!(
            t.simulate(hay, fold),
            naive::find_all(hay, &set),
            "pats={:?}",
            set.patterns
        );
    }

    #[test]
    fn hashes_are_fixed() {
        // The kernel repeats these functions; pin a few values.
        assert_eq!(hash1(0, 0, 0), hash1(0, 0, 0));
        assert_ne!(hash1(0x6161_6161, 0, 0), hash1(0x6161_6161, 0, 1));
        assert_ne!(hash2(1, 0, 0), hash2(0, 1, 0));
        assert_eq!(key_of(b"abcdefghij", 5), (0x6463_6261, 0x65));
        assert_eq!(key_of(b"abc", 3), (0x0063_6261, 0));
    }

    #[test]
    fn classes_and_direct_tables() {
        let pats: Vec<Vec<u8>> = vec![
            b"a".to_vec(),
            b"xy".to_vec(),
            b"abc".to_vec(),
            b"abcdefghijk".to_vec(),
            b"hello".to_vec(),
        ];
        assert_eq!(
            ManyTables::build_with(&pats, 18, 0).unwrap().class_k,
            vec![3, 5]
        );
        let mut count = [0usize; 9];
        count[6] = 5000;
        count[7] = 1;
        count[8] = 10;
        assert_eq!(auto_classes(&count), vec![6, 8]);
        count[6] = 50;
        assert_eq!(auto_classes(&count), vec![6]);
        count[3] = 1;
        assert_eq!(auto_classes(&count), vec![3, 6]);
        let t = ManyTables::build_with(&pats, 18, 6).unwrap();
        assert_eq!(t.flags, 3);
        assert_eq!(t.class_k, vec![3, 5, 8]);
        assert_eq!(t.classes_arg(), 3 | 5 << 4 | 8 << 8);
        assert!(get_bit(&t.direct, u32::from(b'a')));
        assert!(get_bit(
            &t.direct,
            256 + (u32::from(b'x') | u32::from(b'y') << 8)
        ));
        assert_eq!(t.npat, 5);
        assert_eq!(t.ents.len(), 3);
        assert_eq!(*t.bstart.last().unwrap(), 3);
        let t = ManyTables::build_with(&pats, 18, 2).unwrap();
        assert_eq!(t.class_k, vec![3, 8]);
        let t = ManyTables::build_with(&pats, 18, 1).unwrap();
        assert_eq!(t.class_k, vec![3]);
    }

    #[test]
    fn parent_chain_in_one_bucket() {
        // one bucket (1 key => 1 bucket): prefixes of each other
        let pats: Vec<Vec<u8>> = ["abcdefgh", "abcdefghij", "abcdefghijkl", "abcdefghik"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let t = ManyTables::build(&pats, 18).unwrap();
        assert_eq!(t.bstart.len(), 2);
        let parents: Vec<u32> = t.ents.iter().map(|e| e[2]).collect();
        // sorted: abcdefgh, abcdefghij, abcdefghijkl, abcdefghik
        assert_eq!(parents, vec![NONE, 0, 1, 0]);
        for hay in [
            &b"abcdefghijkx"[..],
            b"abcdefghiz",
            b"abcdefg",
            b"xxabcdefghik",
            b"abcdefghijkl",
        ] {
            check(hay, pats.clone(), false, 18);
        }
    }

    #[test]
    fn local_plan_fits() {
        let pats = vec![b"ab".to_vec(), b"abcd".to_vec()];
        let lb = local_plan(48 * 1024, &pats);
        assert_eq!(lb, 18);
        let t = ManyTables::build(&pats, lb).unwrap();
        assert!(t.local_table_bytes() + 1024 <= 48 * 1024);
        let lb = local_plan(16 * 1024, &pats);
        assert!((1usize << (lb - 3)) + DIRECT_WORDS * 4 + 1024 <= 16 * 1024);
        assert!(rcap_for(48 * 1024, 40 * 1024) >= 1024);
    }

    #[test]
    fn many_random_sets_simulated() {
        // large sets, host mirror only (fast): shared prefixes, all lengths
        let mut r = Rng(99);
        for (npat, fold, lbits) in [(50_000, false, 18), (5_000, true, 12), (20_000, true, 10)] {
            let mut pats = Vec::new();
            for i in 0..npat {
                let len = 1 + (r.next() % 40) as usize;
                let mut p: Vec<u8> = if i % 3 == 0 {
                    b"http://example.com/".to_vec()
                } else {
                    Vec::new()
                };
                while p.len() < len {
                    p.push(b"abcdAB \xc3"[(r.next() % 8) as usize]);
                }
                p.truncate(len);
                pats.push(p);
            }
            let mut hay = Vec::new();
            for _ in 0..3000 {
                let p = &pats[(r.next() % npat as u64) as usize];
                hay.extend_from_slice(p);
                hay.push(b"abx\nAB"[(r.next() % 6) as usize]);
            }
            let set = LiteralSet::new(pats, fold);
            let t = ManyTables::build(&set.patterns, lbits).unwrap();
            let want = CpuLiteralEngine::new(&set).unwrap().find_all(&hay);
            assert_eq!(t.simulate(&hay, fold), want);
        }
    }

    proptest! {
        #[test]
        fn simulate_equals_naive(
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'A'), Just(b'\n'), Just(0xC3u8), any::<u8>()], 0..300),
            pats in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'A'), Just(0xC3u8), any::<u8>()], 1..20), 1..60),
            fold in any::<bool>(),
            lbits in 5u32..19,
            classes in 0usize..7,
        ) {
            check_with(&hay, pats, fold, lbits, classes);
        }
    }
}
