//! Which kernel serves which pattern set, how patterns are packed into the
//! kernels' argument buffers, and one small launch function per kernel
//! family (opencl3's `ExecuteKernel` panics on a missing argument; these
//! functions set every argument and return errors instead).

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::error_codes::ClError;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, ClMem};
use opencl3::types::{cl_event, cl_mem};

use super::host::{Arg, enqueue_1d, set_args, upload};
pub use super::host::{Launched, MatchOut};
use super::program::{CHAR16_SRC, NAIVE_SRC, THREE_PHASE_SRC};

/// Bytes the host pads after the data in every text buffer (>= 16, for the
/// kernels' vload16 past the last start position). Padding is `\n`, which
/// no pattern contains, and the kernels bound-check lengths anyway.
pub const PAD: usize = 64;

/// The most patterns / the longest pattern the char16 kernel takes.
pub const CHAR16_MAX_PATTERNS: usize = 16;
pub const CHAR16_MAX_LEN: usize = 16;

/// The kernel families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// `literal_naive.cl`: any set (the baseline / fallback).
    Naive,
    /// `literal_3phase.cl`: exactly one pattern, any length.
    ThreePhase,
    /// `multi_char16.cl`: 1..=16 patterns of 1..=16 bytes.
    Char16,
    /// `many_literals.cl`: any set, built for hundreds to hundreds of
    /// thousands of patterns (hashed filters + verification; see `many.rs`).
    Many,
    /// `dfa.cl`: candidate lines of regex patterns (dense DFAs of their
    /// over-approximations, `dfa.rs`); never chosen for a literal set.
    Dfa,
}

impl KernelKind {
    pub const ALL: [KernelKind; 4] = [
        KernelKind::Naive,
        KernelKind::ThreePhase,
        KernelKind::Char16,
        KernelKind::Many,
    ];

    /// `naive`, `3phase` (or `three-phase`), `char16`, `many`.
    pub fn parse(s: &str) -> Option<KernelKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "naive" => Some(KernelKind::Naive),
            "3phase" | "three-phase" | "threephase" => Some(KernelKind::ThreePhase),
            "char16" => Some(KernelKind::Char16),
            "many" | "many-literals" => Some(KernelKind::Many),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Naive => "naive",
            KernelKind::ThreePhase => "3phase",
            KernelKind::Char16 => "char16",
            KernelKind::Many => "many",
            KernelKind::Dfa => "dfa",
        }
    }

    /// Whether this kernel can search for `pats` (all non-empty).
    pub fn can_handle(self, pats: &[Vec<u8>]) -> bool {
        match self {
            KernelKind::Naive => true,
            KernelKind::ThreePhase => pats.len() == 1,
            KernelKind::Char16 => {
                !pats.is_empty()
                    && pats.len() <= CHAR16_MAX_PATTERNS
                    && pats.iter().all(|p| p.len() <= CHAR16_MAX_LEN)
            }
            KernelKind::Many => super::many::can_handle(pats),
            KernelKind::Dfa => false,
        }
    }

    /// The kernel for a pattern shape: one pattern → three-phase; 2..=16
    /// patterns of 1..=16 bytes → char16 (pair filter + local queue, see
    /// the char16 section of `kernels/README.md` for the reasoning); more
    /// than 16, or several with one longer than 16 bytes → many (naive only
    /// when forced or as a last resort).
    pub fn choose(pats: &[Vec<u8>]) -> KernelKind {
        if KernelKind::ThreePhase.can_handle(pats) {
            KernelKind::ThreePhase
        } else if KernelKind::Char16.can_handle(pats) {
            KernelKind::Char16
        } else if KernelKind::Many.can_handle(pats) {
            KernelKind::Many
        } else {
            KernelKind::Naive
        }
    }

    pub fn source(self) -> &'static str {
        match self {
            KernelKind::Naive => NAIVE_SRC,
            KernelKind::ThreePhase => THREE_PHASE_SRC,
            KernelKind::Char16 => CHAR16_SRC,
            KernelKind::Many => super::many::MANY_SRC,
            KernelKind::Dfa => super::dfa::DFA_SRC,
        }
    }

    /// The match-mode kernel function.
    pub fn function(self, fold: bool) -> &'static str {
        match (self, fold) {
            (KernelKind::Naive, false) => "literal_naive",
            (KernelKind::Naive, true) => "literal_naive_fold",
            (KernelKind::ThreePhase, false) => "literal_3phase",
            (KernelKind::ThreePhase, true) => "literal_3phase_fold",
            (KernelKind::Char16, false) => "multi_char16",
            (KernelKind::Char16, true) => "multi_char16_fold",
            (KernelKind::Many, fold) => super::many::function(fold),
            (KernelKind::Dfa, _) => super::dfa::FUNCTION,
        }
    }

    /// The count-mode kernel function, where there is one.
    pub fn count_function(self, fold: bool) -> Option<&'static str> {
        match (self, fold) {
            (KernelKind::Char16, false) => Some("multi_char16_count"),
            (KernelKind::Char16, true) => Some("multi_char16_count_fold"),
            _ => None,
        }
    }
}

/// Rough frequency of a byte in text and code (higher = more common), used
/// to put the three-phase kernel's 2-byte anchor on the rarest pair.
fn byte_rank(b: u8, fold: bool) -> u32 {
    let r = match b {
        b' ' => 200,
        b'e' => 120,
        b't' | b'a' | b'o' | b'i' | b'n' => 95,
        b's' | b'r' | b'h' | b'l' => 75,
        b'd' | b'c' | b'u' | b'm' | b'f' | b'p' | b'g' => 45,
        b'a'..=b'z' => 22,
        b'0'..=b'9' => 22,
        b'A'..=b'Z' => 12,
        b'.' | b',' | b'_' | b'(' | b')' | b';' | b'=' | b'"' | b'\'' | b'/' | b'-' | b':' => 25,
        b'\t' => 25,
        0x21..=0x7e => 8,
        0x80..=0xff => 4,
        _ => 2,
    };
    if fold && b.is_ascii_lowercase() {
        r + byte_rank(b.to_ascii_uppercase(), false)
    } else {
        r
    }
}

/// The phase-1 anchor: the start of the rarest-looking byte pair (0 for a
/// one-byte pattern).
pub fn anchor_for(pat: &[u8], fold: bool) -> usize {
    if pat.len() < 2 {
        return 0;
    }
    (0..pat.len() - 1)
        .min_by_key(|&i| byte_rank(pat[i], fold) * byte_rank(pat[i + 1], fold))
        .unwrap_or(0)
}

/// Host-side argument data of the naive kernel: concatenated patterns and
/// (offset, length) pairs.
pub fn pack_naive(pats: &[Vec<u8>]) -> (Vec<u8>, Vec<u32>) {
    let mut bytes = Vec::new();
    let mut info = Vec::new();
    for p in pats {
        info.push(bytes.len() as u32);
        info.push(p.len() as u32);
        bytes.extend_from_slice(p);
    }
    if bytes.is_empty() {
        bytes.push(0);
    }
    (bytes, info)
}

/// The three-phase kernel's pattern buffer: zero-padded to a multiple of 16
/// plus 16 bytes.
pub fn pack_3phase(pat: &[u8]) -> Vec<u8> {
    let mut v = pat.to_vec();
    v.resize(pat.len().div_ceil(16) * 16 + 16, 0);
    v
}

/// The char16 kernel's pattern buffers: patterns (16 bytes each) and masks
/// (16 bytes each, 0xFF = don't care).
pub fn pack_char16(pats: &[Vec<u8>]) -> (Vec<u8>, Vec<u8>) {
    let mut p = vec![0u8; pats.len() * 16];
    let mut m = vec![0u8; pats.len() * 16];
    for (k, pat) in pats.iter().enumerate() {
        p[k * 16..k * 16 + pat.len()].copy_from_slice(pat);
        for j in pat.len()..16 {
            m[k * 16 + j] = 0xFF;
        }
    }
    (p, m)
}

/// Where the char16 kernel's phase 1 looks for one pattern: `len` bytes
/// (1 or 2) at offset `d` of the pattern. A match at p puts them at p + d.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Char16Anchor {
    pub d: usize,
    pub len: usize,
}

impl Char16Anchor {
    /// The anchor bytes of `pat` as the kernel compares them:
    /// `b0 | b1 << 8` (b1 = 0 for a one-byte anchor).
    pub fn bytes(self, pat: &[u8]) -> u32 {
        let b1 = if self.len == 2 { pat[self.d + 1] } else { 0 };
        u32::from(pat[self.d]) | u32::from(b1) << 8
    }
}

/// The char16 anchors: a 1-byte pattern is its own (byte) anchor; a longer
/// pattern holding the byte of a 1-byte pattern is anchored on that byte
/// (the byte key admits it anyway: no extra key, no extra candidates);
/// any other pattern on its rarest-looking pair (`anchor_for`), so that
/// frequent first pairs (`ke`rnel, `er`ror:, `ne`edle) do not flood phase 2
/// with candidates.
pub fn char16_anchors(pats: &[Vec<u8>], fold: bool) -> Vec<Char16Anchor> {
    let singles: Vec<u8> = pats.iter().filter(|p| p.len() == 1).map(|p| p[0]).collect();
    pats.iter()
        .map(|p| match p.iter().position(|b| singles.contains(b)) {
            Some(d) => Char16Anchor { d, len: 1 },
            None => Char16Anchor {
                d: anchor_for(p, fold),
                len: 2,
            },
        })
        .collect()
}

/// The char16 kernel's phase-1 keys: the distinct anchor pairs
/// (`b0 | b1 << 8`), then the distinct anchor bytes; a pair whose first
/// byte is also a byte key is left out (that byte key already admits it).
/// Returns (keys, nk2, nk1).
pub fn char16_keys(pats: &[Vec<u8>], anchors: &[Char16Anchor]) -> (Vec<u32>, u32, u32) {
    let keyed = || pats.iter().zip(anchors);
    let mut bytes: Vec<u32> = keyed()
        .filter(|(_, a)| a.len == 1)
        .map(|(p, a)| a.bytes(p))
        .collect();
    bytes.sort_unstable();
    bytes.dedup();
    let mut pairs: Vec<u32> = keyed()
        .filter(|(_, a)| a.len == 2)
        .map(|(p, a)| a.bytes(p))
        .filter(|k| !bytes.contains(&(k & 0xFF)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let (nk2, nk1) = (pairs.len() as u32, bytes.len() as u32);
    pairs.extend(bytes);
    (pairs, nk2, nk1)
}

/// Whether pattern `i` reports its matches in the char16 match mode: not
/// when another pattern is a proper prefix of it, or an identical copy of
/// lower index. At a matching start, exactly the shortest matching pattern
/// of lowest index reports, so each start is written once.
pub fn char16_reports(pats: &[Vec<u8>], i: usize) -> bool {
    let p = &pats[i];
    !pats
        .iter()
        .enumerate()
        .any(|(j, o)| j != i && p.starts_with(o) && (o.len() < p.len() || j < i))
}

/// Flag in a char16 `pinfo` entry: the pattern reports its matches.
pub const CHAR16_REPORT: u32 = 0x1_0000;

/// The char16 kernel's `pinfo` (a `uint4` per pattern): length, anchor
/// offset, anchor bytes, anchor mask (0xFF or 0xFFFF) | `CHAR16_REPORT`.
pub fn char16_pinfo(pats: &[Vec<u8>], anchors: &[Char16Anchor]) -> Vec<u32> {
    let mut v = Vec::with_capacity(4 * pats.len());
    for (i, (p, a)) in pats.iter().zip(anchors).enumerate() {
        let mask = if a.len == 2 { 0xFFFF } else { 0xFF };
        let report = if char16_reports(pats, i) {
            CHAR16_REPORT
        } else {
            0
        };
        v.extend([p.len() as u32, a.d as u32, a.bytes(p), mask | report]);
    }
    v
}

/// Phase-1 cost budget of the char16 kernel's direct compares, in byte-key
/// units (a pair key costs 2: 8 words to test instead of 4). Above it the
/// kernel uses its local pair bitmap (~constant cost per position).
pub const CHAR16_DIRECT_BUDGET: u32 = 8;

/// The char16 kernel's phase-1 filters (its `filter` argument): direct
/// SWAR compares per key, the local pair bitmap, and the two Teddy-style
/// nibble-table filters (`shuffle` on uchar16 with 8 buckets; 32-bit byte
/// permutes with 3 buckets).
pub const CHAR16_DIRECT: u32 = 0;
pub const CHAR16_BITMAP: u32 = 1;
pub const CHAR16_NIBBLE: u32 = 2;
pub const CHAR16_NIBBLE2: u32 = 3;

/// Up to this many phase-1 keys the char16 kernel uses `nibble2` where the
/// device has a byte-permute instruction (H100, 4 patterns: 1,606 GB/s vs
/// 1,137 direct; with 16 patterns its three buckets pass too much: 292 vs
/// 699 GB/s for the bitmap).
pub const CHAR16_NIBBLE2_MAX_KEYS: u32 = 4;

/// The char16 kernel's phase-1 filter: `nibble2` for a few keys when
/// `prmt` (the device runs NVIDIA's PTX `prmt`: see `CHAR16_PRMT_PTX` in
/// the kernel), else direct compares up to `CHAR16_DIRECT_BUDGET`, else the
/// bitmap; or forced with `GSEARCH_CHAR16_FILTER=direct|bitmap|nibble|
/// nibble2` (tuning, benchmarks and tests). The `shuffle` version
/// (`nibble`) is never chosen: 173 GB/s on the H100.
pub fn char16_filter(nk2: u32, nk1: u32, prmt: bool) -> u32 {
    match char16_forced_filter() {
        Some(f) => f,
        None if prmt && nk2 + nk1 <= CHAR16_NIBBLE2_MAX_KEYS => CHAR16_NIBBLE2,
        None if 2 * nk2 + nk1 > CHAR16_DIRECT_BUDGET => CHAR16_BITMAP,
        None => CHAR16_DIRECT,
    }
}

/// The filter forced with `GSEARCH_CHAR16_FILTER`, if any.
fn char16_forced_filter() -> Option<u32> {
    match std::env::var("GSEARCH_CHAR16_FILTER").as_deref() {
        Ok("bitmap") => Some(CHAR16_BITMAP),
        Ok("direct") => Some(CHAR16_DIRECT),
        Ok("nibble") => Some(CHAR16_NIBBLE),
        Ok("nibble2") => Some(CHAR16_NIBBLE2),
        _ => None,
    }
}

/// The nibble sets of a phase-1 key, one 16-bit set per role: low and high
/// nibble of anchor byte 0, then of anchor byte 1 (every nibble for a byte
/// key: its second byte is free). With `fold` (keys lower-cased) the high
/// nibble of a lower-case letter's upper-case form is in the set too, so
/// the nibble filters read the text unfolded (`A`-`Z` are `a`-`z` less
/// 0x20: the same low nibble, the high nibble less 2).
fn nibble_roles(key: u32, pair: bool, fold: bool) -> [u16; 4] {
    let (b0, b1) = (key & 0xFF, (key >> 8) & 0xFF);
    let low = |b: u32| 1u16 << (b & 15);
    let high = |b: u32| {
        let upper = fold && (u32::from(b'a')..=u32::from(b'z')).contains(&b);
        (1u16 << (b >> 4)) | if upper { 1u16 << ((b - 0x20) >> 4) } else { 0 }
    };
    if pair {
        [low(b0), high(b0), low(b1), high(b1)]
    } else {
        [low(b0), high(b0), 0xFFFF, 0xFFFF]
    }
}

/// Puts the keys into at most `nb` buckets (per bucket, the union of its
/// keys' nibble sets): one bucket per key while there are buckets left,
/// then each key where it adds the fewest nibbles (keys sharing anchor
/// bytes end up together).
pub fn char16_buckets(keys: &[u32], nk2: u32, nb: usize, fold: bool) -> Vec<[u16; 4]> {
    let mut b: Vec<[u16; 4]> = Vec::with_capacity(nb);
    for (i, &k) in keys.iter().enumerate() {
        let r = nibble_roles(k, i < nk2 as usize, fold);
        if b.len() < nb {
            b.push(r);
            continue;
        }
        let added = |s: &[u16; 4]| -> u32 {
            (0..4)
                .map(|j| (s[j] | r[j]).count_ones() - s[j].count_ones())
                .sum()
        };
        let best = (0..b.len()).min_by_key(|&j| added(&b[j])).unwrap_or(0);
        for j in 0..4 {
            b[best][j] |= r[j];
        }
    }
    b
}

/// The char16 kernel's `nib` buffer (20 words, little-endian bytes):
/// words 0..16 the `nibble` tables LO0, HI0, LO1, HI1 (16 bytes each; byte
/// v = the bits of the 8 buckets having nibble v in that role); words
/// 16..20 the `nibble2` tables: 8 entries for anchor byte 0, then 8 for
/// anchor byte 1 (entry v: bits 0-2 the 3 buckets with low nibble v, bits
/// 4-6 those with high nibble v, bits 3 and 7 when nibble v + 8 is in any
/// bucket in either role).
pub fn char16_nibble_tables(keys: &[u32], nk2: u32, fold: bool) -> Vec<u32> {
    let mut bytes = [0u8; 80];
    for (bit, set) in char16_buckets(keys, nk2, 8, fold).iter().enumerate() {
        for (role, s) in set.iter().enumerate() {
            for v in 0..16 {
                if s >> v & 1 == 1 {
                    bytes[16 * role + v] |= 1 << bit;
                }
            }
        }
    }
    let b3 = char16_buckets(keys, nk2, 3, fold);
    for j in 0..2 {
        let any_hi: u16 = b3.iter().fold(0, |a, s| a | s[2 * j] | s[2 * j + 1]) >> 8;
        for v in 0..8 {
            let mut e = if any_hi >> v & 1 == 1 { 0x88u8 } else { 0 };
            for (bit, s) in b3.iter().enumerate() {
                if s[2 * j] >> v & 1 == 1 {
                    e |= 1 << bit;
                }
                if s[2 * j + 1] >> v & 1 == 1 {
                    e |= 0x10 << bit;
                }
            }
            bytes[64 + 8 * j + v] = e;
        }
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Launch geometry shared by the kernels.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Work-group size (`-D WG`, required by the 3phase/char16 kernels).
    pub wg: usize,
    /// Start positions each work-item walks per group (block = wg * iters).
    pub iters: usize,
}

impl Geometry {
    pub fn block(&self) -> usize {
        self.wg * self.iters
    }
}

/// Device-side pattern arguments, one variant per kernel family.
pub enum PatternArgs {
    Naive {
        pats: Buffer<u8>,
        info: Buffer<u32>,
        npat: u32,
    },
    ThreePhase {
        pat: Buffer<u8>,
        m: u32,
        anchor: u32,
    },
    Char16 {
        pats: Buffer<u8>,
        masks: Buffer<u8>,
        pinfo: Buffer<u32>,
        npat: u32,
        keys: Buffer<u32>,
        nk2: u32,
        nk1: u32,
        filter: u32,
        nib: Buffer<u32>,
    },
    Many(Box<super::many::ManyArgs>),
    Dfa(Box<super::dfa::DfaArgs>),
}

fn ro_buffer<T: Copy>(ctx: &Context, data: &[T]) -> Result<Buffer<T>, ClError> {
    upload(ctx, CL_MEM_READ_ONLY, data)
}

impl PatternArgs {
    /// Build options beyond `-D WG` (char16: only the phase-1 filter this
    /// set uses is compiled in, since the code of a filter costs registers
    /// even where a launch does not take it: on the H100 all four compiled
    /// in halved the direct filter's rate, 1,134 -> 583 GB/s; and `nibble2`
    /// uses PTX's `prmt` when `prmt`).
    pub fn defines(&self, prmt: bool) -> String {
        match self {
            PatternArgs::Char16 { filter, .. } => {
                let ptx = if *filter == CHAR16_NIBBLE2 && prmt {
                    " -D CHAR16_PRMT_PTX"
                } else {
                    ""
                };
                format!("-D CHAR16_FILTERS={}{ptx}", 1u32 << filter)
            }
            PatternArgs::Dfa(a) => a.defines().to_string(),
            _ => String::new(),
        }
    }

    /// Uploads the patterns (non-empty, already lower-cased when folding)
    /// for `kind`; `prmt` as for [`char16_filter`].
    pub fn new(
        ctx: &Context,
        kind: KernelKind,
        pats: &[Vec<u8>],
        fold: bool,
        prmt: bool,
        dfa: Option<&crate::engine::dfa_table::DfaSet>,
    ) -> Result<PatternArgs, ClError> {
        Ok(match kind {
            KernelKind::Dfa => {
                let Some(set) = dfa.filter(|s| !s.groups.is_empty()) else {
                    return Err(ClError(opencl3::error_codes::CL_INVALID_VALUE));
                };
                PatternArgs::Dfa(Box::new(super::dfa::DfaArgs::new(ctx, set)?))
            }
            KernelKind::Naive => {
                let (bytes, info) = pack_naive(pats);
                PatternArgs::Naive {
                    pats: ro_buffer(ctx, &bytes)?,
                    info: ro_buffer(ctx, &info)?,
                    npat: pats.len() as u32,
                }
            }
            KernelKind::ThreePhase => {
                let p = &pats[0];
                PatternArgs::ThreePhase {
                    pat: ro_buffer(ctx, &pack_3phase(p))?,
                    m: p.len() as u32,
                    anchor: anchor_for(p, fold) as u32,
                }
            }
            KernelKind::Char16 => {
                let (p, m) = pack_char16(pats);
                let anchors = char16_anchors(pats, fold);
                let (keys, nk2, nk1) = char16_keys(pats, &anchors);
                PatternArgs::Char16 {
                    pats: ro_buffer(ctx, &p)?,
                    masks: ro_buffer(ctx, &m)?,
                    pinfo: ro_buffer(ctx, &char16_pinfo(pats, &anchors))?,
                    npat: pats.len() as u32,
                    nib: ro_buffer(ctx, &char16_nibble_tables(&keys, nk2, fold))?,
                    keys: ro_buffer(ctx, &keys)?,
                    nk2,
                    nk1,
                    filter: char16_filter(nk2, nk1, prmt),
                }
            }
            KernelKind::Many => PatternArgs::Many(Box::new(super::many::ManyArgs::new(ctx, pats)?)),
        })
    }
}

impl PatternArgs {
    /// Creates the kernels beyond the main one that the arguments need
    /// (the DFA's near groups) from the built `program`.
    pub fn attach(&mut self, program: &opencl3::program::Program) -> Result<(), ClError> {
        match self {
            PatternArgs::Dfa(a) => a.attach(program),
            _ => Ok(()),
        }
    }

    /// `u32` entries of per-slot scratch a batch of `bytes` needs (the
    /// DFA's factor positions), 0 for none.
    pub fn scratch_entries(&self, bytes: usize) -> usize {
        match self {
            PatternArgs::Dfa(a) => a.scratch_entries(bytes),
            _ => 0,
        }
    }
}

/// Arguments 0..=11 of the char16 kernels (match and count mode alike).
///
/// # Safety
/// `kernel` must be one of `multi_char16.cl`'s kernels.
unsafe fn char16_common_args(
    kernel: &Kernel,
    args: &PatternArgs,
    geo: Geometry,
    text: cl_mem,
    n: u32,
) -> Result<(), ClError> {
    let PatternArgs::Char16 {
        pats,
        masks,
        pinfo,
        npat,
        keys,
        nk2,
        nk1,
        filter,
        nib,
    } = args
    else {
        return Err(ClError(opencl3::error_codes::CL_INVALID_KERNEL));
    };
    let block = geo.block() as u32;
    let common = [
        Arg::Mem(text),
        Arg::U32(n),
        pats.into(),
        masks.into(),
        pinfo.into(),
        Arg::U32(*npat),
        Arg::U32(block),
        keys.into(),
        Arg::U32(*nk2),
        Arg::U32(*nk1),
        Arg::U32(*filter),
        nib.into(),
    ];
    // SAFETY: indices and kinds follow multi_char16.cl's argument layout.
    unsafe { set_args(kernel, 0, &common) }
}

/// What a launch writes: matches, or (char16 only) per-pattern occurrence
/// counts added into `npat` u32 the host zeroed.
pub enum Output<'a> {
    Matches(&'a MatchOut<'a>),
    Counts(&'a Buffer<u32>),
}

/// Enqueues `kernel`, built for `args`, over `text[..n]` (the buffer holds
/// n + PAD bytes). Returns `None` when there is nothing to search (then
/// the output stays as the host set it: zeros). Counts need the char16
/// count-mode kernel.
#[allow(clippy::too_many_arguments)]
pub fn launch(
    q: &CommandQueue,
    kernel: &Kernel,
    args: &PatternArgs,
    geo: Geometry,
    text: &Buffer<u8>,
    n: u32,
    output: Output<'_>,
    wait: &[cl_event],
) -> Result<Option<Launched>, ClError> {
    let o = match output {
        Output::Matches(o) => o,
        Output::Counts(counts) => {
            return launch_count(q, kernel, args, geo, (text, n), counts, wait);
        }
    };
    if n == 0 {
        return Ok(None);
    }
    let t = text.get();
    let [out, cap, count] = o.args();
    let wg = geo.wg;
    // SAFETY (every `set_args` and `enqueue_1d` below): the argument
    // indices and kinds follow the layout documented at the top of each
    // kernel file (buffers as cl_mem, `uint` as u32), and every argument of
    // the kernel is set before its launch.
    unsafe {
        match args {
            PatternArgs::Naive { pats, info, npat } => {
                let a = [
                    Arg::Mem(t),
                    Arg::U32(n),
                    pats.into(),
                    info.into(),
                    Arg::U32(*npat),
                    out,
                    cap,
                    count,
                ];
                set_args(kernel, 0, &a)?;
                let global = (n as usize).div_ceil(wg) * wg;
                enqueue_1d(q, kernel, global, wg, wait).map(|e| Some(Launched::one(e)))
            }
            PatternArgs::ThreePhase { pat, m, anchor } => {
                if n < *m {
                    return Ok(None);
                }
                let npos = (n - m + 1) as usize;
                let block = geo.block() as u32;
                let a = [
                    Arg::Mem(t),
                    Arg::U32(n),
                    pat.into(),
                    Arg::U32(*m),
                    Arg::U32(*anchor),
                    Arg::U32(block),
                    out,
                    cap,
                    count,
                ];
                set_args(kernel, 0, &a)?;
                let global = npos.div_ceil(geo.block()) * wg;
                enqueue_1d(q, kernel, global, wg, wait).map(|e| Some(Launched::one(e)))
            }
            PatternArgs::Char16 { .. } => {
                char16_common_args(kernel, args, geo, t, n)?;
                set_args(kernel, 12, &[out, cap, count])?;
                let global = (n as usize).div_ceil(geo.block()) * wg;
                enqueue_1d(q, kernel, global, wg, wait).map(|e| Some(Launched::one(e)))
            }
            PatternArgs::Many(a) => {
                super::many::launch(q, kernel, a, (geo.wg, geo.iters), (text, n), o, wait)
                    .map(|e| e.map(Launched::one))
            }
            PatternArgs::Dfa(a) => {
                super::dfa::launch(q, kernel, a, wg, (text, n), o, wait).map(Some)
            }
        }
    }
}

/// The char16 count-mode kernel: per-pattern occurrence counts added into
/// `counts`.
fn launch_count(
    q: &CommandQueue,
    kernel: &Kernel,
    args: &PatternArgs,
    geo: Geometry,
    (text, n): (&Buffer<u8>, u32),
    counts: &Buffer<u32>,
    wait: &[cl_event],
) -> Result<Option<Launched>, ClError> {
    if !matches!(args, PatternArgs::Char16 { .. }) {
        return Err(ClError(opencl3::error_codes::CL_INVALID_KERNEL));
    }
    if n == 0 {
        return Ok(None);
    }
    let global = (n as usize).div_ceil(geo.block()) * geo.wg;
    // SAFETY: argument layout of multi_char16_count (see multi_char16.cl),
    // every argument set before the launch.
    unsafe {
        char16_common_args(kernel, args, geo, text.get(), n)?;
        set_args(kernel, 12, &[counts.into()])?;
        enqueue_1d(q, kernel, global, geo.wg, wait).map(|e| Some(Launched::one(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::LiteralSet;

    #[test]
    fn choose_by_shape() {
        let one = vec![b"hello".to_vec()];
        let few = vec![b"ab".to_vec(), b"cd".to_vec()];
        let long = vec![b"ab".to_vec(), vec![b'x'; 17]];
        assert_eq!(KernelKind::choose(&one), KernelKind::ThreePhase);
        assert_eq!(KernelKind::choose(&few), KernelKind::Char16);
        assert_eq!(KernelKind::choose(&long), KernelKind::Many);
        let many: Vec<Vec<u8>> = (0..17).map(|i| vec![b'a' + i as u8]).collect();
        assert_eq!(KernelKind::choose(&many), KernelKind::Many);
        assert!(!KernelKind::ThreePhase.can_handle(&few));
        assert!(KernelKind::Char16.can_handle(&one));
    }

    #[test]
    fn packing() {
        let (p, m) = pack_char16(&[b"ab".to_vec(), vec![7u8; 16]]);
        assert_eq!(&p[..3], b"ab\0");
        assert_eq!(m[1], 0);
        assert_eq!(m[2], 0xFF);
        assert!(m[16..].iter().all(|&x| x == 0));
        assert_eq!(pack_3phase(b"x").len(), 32);
        assert_eq!(pack_3phase(&[1u8; 16]).len(), 32);
        assert_eq!(pack_3phase(&[1u8; 17]).len(), 48);
        let (b, i) = pack_naive(&[b"ab".to_vec(), b"c".to_vec()]);
        assert_eq!(b, b"abc");
        assert_eq!(i, vec![0, 2, 2, 1]);
    }

    fn pats(v: &[&[u8]]) -> Vec<Vec<u8>> {
        v.iter().map(|p| p.to_vec()).collect()
    }

    fn pair(s: &[u8]) -> u32 {
        u32::from(s[0]) | u32::from(s[1]) << 8
    }

    #[test]
    fn char16_anchors_on_rare_pairs() {
        // the benchmark's four patterns
        let p = pats(&[b"needle", b"kernel", b"error:", b"0x1f"]);
        let a = char16_anchors(&p, false);
        let got: Vec<(usize, u32)> = p.iter().zip(&a).map(|(p, a)| (a.d, a.bytes(p))).collect();
        assert_eq!(
            got,
            vec![
                (3, pair(b"dl")),
                (0, pair(b"ke")),
                (4, pair(b"r:")),
                (0, pair(b"0x"))
            ]
        );
        assert!(a.iter().all(|a| a.len == 2));
        let (keys, nk2, nk1) = char16_keys(&p, &a);
        assert_eq!((nk2, nk1), (4, 0));
        assert_eq!(keys.len(), 4);
        let info = char16_pinfo(&p, &a);
        assert_eq!(&info[..4], &[6, 3, pair(b"dl"), 0xFFFF | CHAR16_REPORT]);
    }

    #[test]
    fn char16_keys_dedup_and_subsume() {
        let p = pats(&[b"abc", b"xbd", b"a", b"Qxy", b"xyz", b"q", b"q", b"cd"]);
        let a = char16_anchors(&p, false);
        // patterns holding 'a' or 'q' are anchored on that byte
        assert_eq!(a[0], Char16Anchor { d: 0, len: 1 });
        assert_eq!(a[2], Char16Anchor { d: 0, len: 1 });
        assert_eq!(a[5], Char16Anchor { d: 0, len: 1 });
        assert_eq!(a[1].len, 2);
        let (keys, nk2, nk1) = char16_keys(&p, &a);
        let bytes = [u32::from(b'a'), u32::from(b'q')];
        assert_eq!(nk1, 2);
        assert_eq!(&keys[nk2 as usize..], &bytes);
        // xbd, Qxy, xyz, cd: distinct anchor pairs, sorted
        let mut want: Vec<u32> = [1, 3, 4, 7].iter().map(|&i| a[i].bytes(&p[i])).collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(&keys[..nk2 as usize], &want[..]);
        assert!(
            char16_filter(4, 0, false) == CHAR16_DIRECT
                || std::env::var("GSEARCH_CHAR16_FILTER").is_ok()
        );
        assert!(
            char16_filter(4, 0, true) == CHAR16_NIBBLE2
                || std::env::var("GSEARCH_CHAR16_FILTER").is_ok()
        );
        assert!(
            char16_filter(5, 0, true) == CHAR16_BITMAP
                || std::env::var("GSEARCH_CHAR16_FILTER").is_ok()
        );
    }

    /// The nibble filters as the kernel evaluates them, for the text pair
    /// (t0, t1): `nibble` (uchar16 shuffle) and `nibble2` (byte permute,
    /// sign-replicated entries for nibbles >= 8).
    fn nibble_pass(tab: &[u32], t0: u32, t1: u32) -> (bool, bool) {
        let byte = |i: usize| (tab[i / 4] >> (8 * (i % 4))) & 0xFF;
        let m2 = byte(t0 as usize & 15)
            & byte(16 + (t0 as usize >> 4))
            & byte(32 + (t1 as usize & 15))
            & byte(48 + (t1 as usize >> 4));
        let entry = |j: usize, v: u32| {
            let e = byte(64 + 8 * j + (v as usize & 7));
            if v < 8 {
                e
            } else if e & 0x80 != 0 {
                0xFF
            } else {
                0
            }
        };
        let m3 = entry(0, t0 & 15)
            & (entry(0, t0 >> 4) >> 4)
            & entry(1, t1 & 15)
            & (entry(1, t1 >> 4) >> 4)
            & 7;
        (m2 != 0, m3 != 0)
    }

    #[test]
    fn char16_nibble_tables_admit_every_key() {
        let sets: [&[&[u8]]; 4] = [
            &[b"needle", b"kernel", b"error:", b"0x1f"],
            &[
                b"needle",
                b"kernel",
                b"error:",
                b"0x1f",
                b"struct",
                b"memory",
                b"device",
                b"warning:",
                b"request_id",
                b"Vec<u8>",
                b"println!",
                b"search",
                b"offset",
                b"buffer",
                b"2026-11",
                b"zzz",
            ],
            &[b"a", b"\xff\x80", b"\x88\x08", b"zq"],
            &[
                b"\x00",
                b"\xff",
                b"\x7f\x80",
                b"\x80\x7f",
                b"ab",
                b"cd",
                b"ef",
                b"gh",
                b"ij",
            ],
        ];
        // ASCII folding as the kernel's fold4 does it (A-Z only).
        let lower = |b: u32| u32::from((b as u8).to_ascii_lowercase());
        for (set, fold) in sets.iter().flat_map(|s| [(s, false), (s, true)]) {
            let p: Vec<Vec<u8>> = set.iter().map(|s| LiteralSet::folded(s, fold)).collect();
            let a = char16_anchors(&p, fold);
            let (keys, nk2, nk1) = char16_keys(&p, &a);
            let tab = char16_nibble_tables(&keys, nk2, fold);
            assert_eq!(tab.len(), 20);
            let (mut pass2, mut pass3) = (0, 0);
            for t0 in 0..256u32 {
                for t1 in 0..256u32 {
                    // Under -i the filters see the text unfolded.
                    let (f0, f1) = if fold {
                        (lower(t0), lower(t1))
                    } else {
                        (t0, t1)
                    };
                    let want = keys[..nk2 as usize].contains(&(f0 | f1 << 8))
                        || keys[nk2 as usize..].contains(&f0);
                    let (n2, n3) = nibble_pass(&tab, t0, t1);
                    assert!(!want || (n2 && n3), "{set:?}: pair {t0:#x} {t1:#x}");
                    pass2 += u32::from(n2);
                    pass3 += u32::from(n3);
                }
            }
            // at most 8 keys: one bucket each, so `nibble` is exact
            if nk2 + nk1 <= 8 && !fold {
                assert!(pass2 <= nk2 + 256 * nk1, "{set:?}: {pass2}");
            }
            assert!(pass3 < 65536 / 4, "{set:?}: {pass3}");
        }
    }

    #[test]
    fn char16_reports_once_per_start() {
        let p = pats(&[b"abc", b"ab", b"abc", b"b", b"xy", b"ab"]);
        let r: Vec<bool> = (0..p.len()).map(|i| char16_reports(&p, i)).collect();
        // "abc" has the prefix "ab"; the second "ab" is a copy of the first
        assert_eq!(r, vec![false, true, false, true, true, false]);
    }

    #[test]
    fn anchor_prefers_rare_pairs() {
        assert_eq!(anchor_for(b"the Qz", false), 4);
        assert_eq!(anchor_for(b"a", false), 0);
        let a = anchor_for(b"hello world", true);
        assert!(a < 10);
    }
}
