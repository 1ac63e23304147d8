/*
 * multi_char16.cl -- a few short literals at once (OpenCL C 1.2): up to 16
 * patterns of up to 16 bytes, each packed in a uchar16 with a char16 mask,
 * after the classic "four patterns in a char16" tutorial, organised like
 * literal_3phase.cl (filter on rare anchor pairs from one aligned load,
 * local queue, balanced verification).
 *
 * Every pattern is held in its own uchar16 (lane j = byte j) with a mask
 * (lane j = -1 when j >= its length, "don't care"), and has an ANCHOR
 * chosen by the host: the rarest-looking byte pair of the pattern at
 * offset d (0 <= d <= len - 2), or one byte (1-byte patterns, and patterns
 * holding a byte that is itself a 1-byte pattern). A match of pattern k at
 * p puts its anchor at q = p + d_k. A work-group owns the start positions
 * [start, end) of its block; it scans the ANCHOR positions q in
 * [start + dmin, min(end + dmax, n)) (dmin/dmax over the patterns) and
 * walks them STEP = 16 * WG positions at a time:
 *
 *   phase 1  each work-item loads ONE aligned 16-byte block of text
 *            straight from global memory (its 16 anchor positions) plus the
 *            word after it, folds them for the _fold kernels (not for the
 *            nibble filters, whose tables admit both cases of a letter:
 *            host nibble_roles), and tests the
 *            16 two-byte pairs against the KEYS: the distinct anchor pairs,
 *            then the distinct anchor bytes (a pair whose first byte is a
 *            byte key is left out: that key admits it). Four ways, chosen by
 *            the host (argument `filter`):
 *              direct  (few keys) SWAR compares on 32-bit words: per pair
 *                      key 8 words x (xor, sub, and-not), two positions per
 *                      word; per byte key 4 words, four positions per word;
 *              bitmap  (more keys) one lookup per position in a 65,536-bit
 *                      local bitmap of pairs (8 KiB, built once per group):
 *                      a pair key sets one bit, a byte key b sets the 256
 *                      bits of the pairs (b, x), so one lookup serves both;
 *              nibble  (Teddy-style, cost independent of the keys) the keys
 *                      go to 8 buckets (one bit each); per anchor byte j
 *                      two 16-entry byte tables LO[j][low nibble] and
 *                      HI[j][high nibble] give the buckets having a byte
 *                      with that nibble at anchor byte j; position q passes
 *                      when LO0 & HI0 (byte q) & LO1 & HI1 (byte q+1) != 0.
 *                      The 16 lookups of a table at once: shuffle() on
 *                      uchar16 (the index uses the low 4 bits);
 *              nibble2 the same idea with 32-bit byte permutes (PTX prmt
 *                      with -D CHAR16_PRMT_PTX, else a portable emulation):
 *                      3 buckets, one 8-byte table per anchor byte holding
 *                      both roles (bits 0-2: low-nibble buckets, bits 4-6:
 *                      high-nibble buckets, bits 3/7: "entry v + 8 is not
 *                      empty"), indexed by the raw text bytes: one permute
 *                      looks up both nibbles of two text bytes (a nibble
 *                      >= 8 selects the sign of entry v - 8: all buckets or
 *                      none, a superset).
 *            Bucket collisions only add candidates (phase 2 checks every
 *            pattern's anchor at q).
 *            Positions that pass (a 16-bit mask) go to a local queue of
 *            anchor positions: ONE local atomic_add(popcount) per work-item
 *            reserves the slots. The queue is kept across steps;
 *   phase 2  once the queue holds >= WG candidates (work for every
 *            work-item) or the scan ends, the whole group takes it, one
 *            candidate q per work-item at a time: the (folded) pair at q
 *            is compared with every pattern's anchor; for each pattern k
 *            whose anchor is there, p = q - d_k must be a start the group
 *            owns (start <= p < end: so each start is checked by exactly
 *            one group, whatever the overlap of the groups' anchor ranges)
 *            and the 16 text bytes at p (five aligned word loads from
 *            global memory, funnel shifts, folded) get the char16 masked
 *            compare with all() (four byte lanes at a time: as_uint4 of
 *            the uchar16 / char16 mask) plus the bound check p + len <= n.
 *
 * Each (pattern, start) pair is found from exactly one queued anchor
 * position. Match mode reports a start once however many patterns match
 * there: only patterns flagged REPORT by the host are written (a pattern
 * with a proper prefix, or an identical copy of lower index, in the set is
 * not: wherever it matches, that shorter or earlier pattern matches too,
 * and exactly one flagged pattern matches at any matching start).
 *
 * A candidate that finds the queue full (only when nearly every position
 * passes phase 1) is verified in place by the work-item that found it,
 * its matches written with their own global atomic. Match mode
 * (multi_char16, multi_char16_fold): matching starts are gathered in a
 * local list and written to `out` with ONE global atomic_add per flush
 * (when the list holds >= WG after a phase 2, and at the end of the
 * block); a match that finds the list full is written with its own global
 * atomic. Count mode (multi_char16_count, multi_char16_count_fold):
 * per-pattern occurrence counts (every pattern, flagged or not), local
 * atomic_inc counters added to the global counters once per group.
 *
 * Barriers: one per step (after phase 1), plus one after a phase 2 and two
 * per result flush. The queue's fill counter rotates over three slots, so
 * that a step's count is read by every work-item before anyone can change
 * it, without a barrier at the end of the step.
 *
 * Argument layout, match mode:
 *   0  __global const uchar *text    the batch; readable up to n + PAD - 1,
 *                                    PAD >= 32 (the host pads with 64)
 *   1  uint n                        number of real bytes in text
 *   2  __constant uchar16 *pats      npat patterns, lane j = byte j (lanes
 *                                    past the length are 0); lower-cased for
 *                                    the _fold kernels
 *   3  __constant char16 *masks      per pattern, lane j = -1 if j >= length
 *   4  __constant uint4 *pinfo       per pattern: x = length (1..16),
 *                                    y = anchor offset d (<= length - 1;
 *                                    <= length - 2 for a pair),
 *                                    z = anchor bytes (b0 | b1 << 8),
 *                                    w = anchor mask (0xFF one byte,
 *                                    0xFFFF a pair) | 0x10000 when the
 *                                    pattern REPORTs its matches (above)
 *   5  uint npat                     1..16
 *   6  uint block                    start positions per work-group
 *   7  __constant uint *keys         nk2 pair keys (b0 | b1 << 8, distinct),
 *                                    then nk1 byte keys (distinct): every
 *                                    anchor is a key or admitted by one
 *   8  uint nk2
 *   9  uint nk1                      nk2 + nk1 >= 1
 *  10  uint filter                   phase 1: 0 direct compares, 1 bitmap,
 *                                    2 nibble (shuffle), 3 nibble2 (permute)
 *  11  __constant uint4 *nib         the nibble tables (5 x 16 bytes):
 *                                    [0..3] LO0, HI0, LO1, HI1 (byte v of
 *                                    each = bucket bits of nibble v, 8
 *                                    buckets); [4] nibble2: x, y = entries
 *                                    0-7 of anchor byte 0, z, w = of anchor
 *                                    byte 1 (see above). Read in modes 2, 3.
 *  12  __global uint *out            match start offsets, in no order
 *  13  uint cap                      capacity of out (entries)
 *  14  __global uint *count          set to 0 by the host; ends as the number
 *                                    of matching positions (may exceed cap:
 *                                    the host re-runs with a bigger out)
 * Count mode: arguments 0..11 as above, then
 *  12  __global uint *counts         npat counters, set to 0 by the host
 *
 * Build options: -D WG=... (required, <= 4096), -D CHAR16_FILTERS=mask
 * (the filters compiled in, bit f = filter f; default all), optional
 * -D CHAR16_PRMT_PTX (nibble2 on NVIDIA: inline PTX prmt).
 * NDRange: 1-D, local size WG,
 * global size = ceil(n / block) * WG. The text buffer must be 16-byte
 * aligned (any clCreateBuffer buffer is). The SWAR code assumes a
 * little-endian device (every GPU and CPU OpenCL runtime in use).
 * Local memory: 8 KiB bitmap + 4 * WG uint queue + 2 * WG uint results +
 * the patterns (768 bytes, copied from constant memory once per group) + a
 * few counters (14.8 KiB at WG = 256).
 */

#ifndef WG
#define WG 256
#endif
#define STEP (16 * WG)
#define QCAP (4 * WG)
#define RCAP (2 * WG)
#define MAXPAT 16
#define BM_WORDS 2048
#define REPORT 0x10000u

/* phase-1 filters (argument `filter`) */
#define F_DIRECT 0
#define F_BITMAP 1
#define F_NIBBLE 2
#define F_NIBBLE2 3
/* The filters compiled in (bit f = filter f): the host builds with only
 * those it may select, because the code of the others costs registers
 * (and occupancy) even in launches that skip it. A launch asking for a
 * filter that is not compiled in flags every position (slow, correct). */
#ifndef CHAR16_FILTERS
#define CHAR16_FILTERS 0xF
#endif
#define HAS_FILTER(f) ((CHAR16_FILTERS >> (f)) & 1)

/* ctr[] slots */
#define C_Q 0  /* three rotating queue fill counters: C_Q .. C_Q + 2 */
#define C_R 3  /* local results (may pass RCAP) */
#define C_G 4  /* global base of a flush */
#define NCTR 5

/* ASCII A-Z -> a-z in the four bytes of w (SWAR, bytes >= 0x80 kept). */
uint fold4(uint w)
{
    const uint h = w & 0x7F7F7F7Fu;
    const uint ge_a = h + 0x3F3F3F3Fu;  /* bit 7: low 7 bits >= 'A' */
    const uint gt_z = h + 0x25252525u;  /* bit 7: low 7 bits >  'Z' */
    const uint up = ge_a & ~gt_z & ~w & 0x80808080u;
    return w | (up >> 2);
}

uint fold_if(uint w, int fold)
{
    return fold ? fold4(w) : w;
}

/* The 32 bits of (hi:lo) starting at bit s (0 <= s < 32). */
uint fsh(uint lo, uint hi, uint s)
{
    return (uint)(upsample(hi, lo) >> s);
}

/* Lane flags (bit 8j+7 = byte lane j) -> 4-bit mask (bit j = lane j). */
uint lanes4(uint f)
{
    return (((f >> 7) & 0x01010101u) * 0x10204080u) >> 28;
}

/* Phase 1, direct: bit k of the result set when a key may occur at position
 * k of the block (w = its 16 bytes, w4 = the next 4). Exact for keys at the
 * flagged positions except rare extra flags (a borrow out of a matching
 * lane), which phase 2 rejects. */
uint filter_direct(uint4 w, uint w4, __constant uint *keys, uint nk2,
                   uint nk1)
{
    /* odd words: bytes 1..4 of each word (pairs at positions 4i+1, 4i+3) */
    const uint o0 = fsh(w.x, w.y, 8), o1 = fsh(w.y, w.z, 8);
    const uint o2 = fsh(w.z, w.w, 8), o3 = fsh(w.w, w4, 8);
    uint e0 = 0, e1 = 0, e2 = 0, e3 = 0; /* pairs at 4i, 4i+2 */
    uint d0 = 0, d1 = 0, d2 = 0, d3 = 0; /* pairs at 4i+1, 4i+3 */
    uint b0 = 0, b1 = 0, b2 = 0, b3 = 0; /* bytes at 4i..4i+3 */
#define HZ(x, acc, rep, one)                \
    {                                       \
        const uint t_ = (x) ^ (rep);        \
        acc |= (t_ - (one)) & ~t_;          \
    }
    for (uint k = 0; k < nk2; k++) {
        const uint r = keys[k] * 0x00010001u;
        HZ(w.x, e0, r, 0x00010001u);
        HZ(w.y, e1, r, 0x00010001u);
        HZ(w.z, e2, r, 0x00010001u);
        HZ(w.w, e3, r, 0x00010001u);
        HZ(o0, d0, r, 0x00010001u);
        HZ(o1, d1, r, 0x00010001u);
        HZ(o2, d2, r, 0x00010001u);
        HZ(o3, d3, r, 0x00010001u);
    }
    for (uint k = 0; k < nk1; k++) {
        const uint r = keys[nk2 + k] * 0x01010101u;
        HZ(w.x, b0, r, 0x01010101u);
        HZ(w.y, b1, r, 0x01010101u);
        HZ(w.z, b2, r, 0x01010101u);
        HZ(w.w, b3, r, 0x01010101u);
    }
#undef HZ
    /* pair flags at bits 15/31 -> byte lanes 0/2 (even) and 1/3 (odd) */
#define LANES(e, d, b) \
    lanes4((((e) & 0x80008000u) >> 8) | ((d) & 0x80008000u) | ((b) & 0x80808080u))
    return LANES(e0, d0, b0) | (LANES(e1, d1, b1) << 4) |
           (LANES(e2, d2, b2) << 8) | (LANES(e3, d3, b3) << 12);
#undef LANES
}

/* Phase 1, bitmap: the pair K = t[p] | t[p+1] << 8 is bit K >> 11 of word
 * K & 0x7FF (the first byte picks the bank: fewer bank conflicts than
 * K >> 5 on ASCII text). */
#define BMBIT(K) ((bm[(K) & 0x7FFu] >> ((K) >> 11)) & 1u)
uint filter_bitmap(uint4 w, uint w4, __local const uint *bm)
{
    const uint o0 = fsh(w.x, w.y, 8), o1 = fsh(w.y, w.z, 8);
    const uint o2 = fsh(w.z, w.w, 8), o3 = fsh(w.w, w4, 8);
    const uint ew[4] = {w.x, w.y, w.z, w.w};
    const uint ow[4] = {o0, o1, o2, o3};
    uint h = 0;
#pragma unroll
    for (uint i = 0; i < 4; i++) {
        const uint e = ew[i], o = ow[i];
        h |= (BMBIT(e & 0xFFFFu) | (BMBIT(o & 0xFFFFu) << 1) |
              (BMBIT(e >> 16) << 2) | (BMBIT(o >> 16) << 3)) << (4 * i);
    }
    return h;
}
#undef BMBIT

/* Phase 1, nibble: lo0/hi0/lo1/hi1 are the 16-entry bucket tables (byte v
 * = the buckets having nibble v at that anchor byte). shuffle() reads the
 * low 4 bits of each index byte: the text bytes index LO as they are, and
 * a 32-bit shift by 4 puts each byte's high nibble in its low 4 bits. */
uint filter_nibble(uint4 w, uint w4, uint4 lo0, uint4 hi0, uint4 lo1,
                   uint4 hi1)
{
    /* bytes 1..16 of the block: the second byte of each pair */
    const uint4 o = (uint4)(fsh(w.x, w.y, 8), fsh(w.y, w.z, 8),
                            fsh(w.z, w.w, 8), fsh(w.w, w4, 8));
    const uchar16 m = shuffle(as_uchar16(lo0), as_uchar16(w)) &
                      shuffle(as_uchar16(hi0), as_uchar16(w >> 4)) &
                      shuffle(as_uchar16(lo1), as_uchar16(o)) &
                      shuffle(as_uchar16(hi1), as_uchar16(o >> 4));
    const uint4 f = as_uint4(m != (uchar16)0); /* 0xFF per passing lane */
    return lanes4(f.x) | (lanes4(f.y) << 4) | (lanes4(f.z) << 8) |
           (lanes4(f.w) << 12);
}

/* Byte permute (PTX prmt, generic mode): byte k of the result is byte
 * s_k & 7 of the 8 bytes (b:a), s_k = bits 4k..4k+3 of s; when s_k & 8,
 * that byte's sign bit replicated (0x00 or 0xFF). */
uint perm(uint a, uint b, uint s)
{
#ifdef CHAR16_PRMT_PTX
    uint r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
    return r;
#else
    const ulong src = upsample(b, a);
    uint r = 0;
    for (uint k = 0; k < 4; k++) {
        const uint sk = (s >> (4 * k)) & 15u;
        uint v = (uint)(src >> (8 * (sk & 7u))) & 0xFFu;
        if (sk & 8u)
            v = (v & 0x80u) ? 0xFFu : 0u;
        r |= v << (8 * k);
    }
    return r;
#endif
}

/* Phase 1, nibble2: (a0, a1) and (b0, b1) are the 8-entry tables of anchor
 * bytes 0 and 1 (entry v: bits 0-2 the buckets with low nibble v, bits 4-6
 * with high nibble v, bits 3 and 7 set when nibble v + 8 is in some bucket
 * in either role). perm(table, x) indexes with the four nibbles of x's low
 * 16 bits: low, high nibble of byte 0, then of byte 1, so result byte 0
 * bits 0-2 & byte 1 bits 4-6 = the buckets of text byte 0 (same for byte
 * 1 in bytes 2, 3). Each word yields its 4 pass flags at bits 3, 19
 * (positions 0, 1) and 7, 23 (positions 2, 3), gathered by one multiply. */
uint filter_nibble2(uint4 w, uint w4, uint a0, uint a1, uint b0, uint b1)
{
    const uint ew[4] = {w.x, w.y, w.z, w.w};
    const uint ow[4] = {fsh(w.x, w.y, 8), fsh(w.y, w.z, 8), fsh(w.z, w.w, 8),
                        fsh(w.w, w4, 8)};
    uint h = 0;
#pragma unroll
    for (uint i = 0; i < 4; i++) {
        const uint x = ew[i], y = ow[i];
        const uint vl = perm(a0, a1, x) & perm(b0, b1, y);
        const uint vh = perm(a0, a1, x >> 16) & perm(b0, b1, y >> 16);
        const uint ul = vl & (vl >> 12) & 0x00070007u;
        const uint uh = vh & (vh >> 12) & 0x00070007u;
        /* bit 3: position 0, 7: 2, 19: 1, 23: 3 (nibbles <= 7: no carry) */
        const uint f = ((ul | (uh << 4)) + 0x00770077u) & 0x00880088u;
        /* 3 -> 28, 19 -> 29, 7 -> 30, 23 -> 31 (x 2^25, 2^10, 2^23, 2^8;
         * no other product lands in bits 28-31, none coincide: no carry) */
        h |= ((f * 0x02800500u) >> 28) << (4 * i);
    }
    return h;
}

/* The 32 (folded) text bits at byte p: the low 16 are the pair at p. */
uint word_at(__global const uchar *text, uint p, int fold)
{
    __global const uint *tw = (__global const uint *)(text + (p & ~3u));
    return fold_if(fsh(tw[0], tw[1], (p & 3u) * 8), fold);
}

/* The 16 (folded) text bytes at p, from five aligned word loads (an
 * unaligned vload16 becomes 16 byte loads on some GPUs). */
uint4 window_at(__global const uchar *text, uint p, int fold)
{
    __global const uint *tw = (__global const uint *)(text + (p & ~3u));
    const uint s = (p & 3u) * 8;
    const uint s0 = tw[0], s1 = tw[1], s2 = tw[2], s3 = tw[3], s4 = tw[4];
    return (uint4)(fold_if(fsh(s0, s1, s), fold), fold_if(fsh(s1, s2, s), fold),
                   fold_if(fsh(s2, s3, s), fold), fold_if(fsh(s3, s4, s), fold));
}

/* The patterns as the work-group keeps them in local memory (copied once
 * per group: work-items index them divergently, which constant memory
 * serialises): pattern k's bytes and its mask complemented (lane bits set
 * where the pattern has a byte), as uint4, and its pinfo entry. */
typedef struct {
    uint4 pat[MAXPAT];
    uint4 care[MAXPAT];
    uint4 info[MAXPAT];
} Pats;

/* Where a verified match goes. */
typedef struct {
    __local uint *res;
    __local uint *ctr;
    __local uint *lc;
    __global uint *out;
    __global uint *count;
    uint cap;
} Sink;

void write_global(Sink *s, uint p)
{
    const uint g = atomic_inc(s->count);
    if (g < s->cap)
        s->out[g] = p;
}

/* A match of pattern k at p. `direct` (the in-place path of a full queue)
 * bypasses the local result list, whose counter other work-items may be
 * reading at that time. */
void record(Sink *s, uint k, uint p, int count_mode, int direct)
{
    if (count_mode) {
        atomic_inc(&s->lc[k]);
    } else if (direct) {
        write_global(s, p);
    } else {
        const uint r = atomic_inc(&s->ctr[C_R]);
        if (r < RCAP)
            s->res[r] = p;
        else
            write_global(s, p);
    }
}

/* Bit k set when pattern k's anchor is at q (pair = the text bytes at q)
 * and, with need = REPORT, the pattern reports its matches. */
uint anchor_hits(uint pair, __local const Pats *ps, uint npat, uint need)
{
    uint bits = 0;
    for (uint k = 0; k < npat; k++) {
        const uint w = ps->info[k].w, z = ps->info[k].z;
        if (((pair ^ z) & w & 0xFFFFu) == 0 && (w & need) == need)
            bits |= 1u << k;
    }
    return bits;
}

/* Phase 2 for the anchor position q: every pattern whose anchor is at q,
 * checked at its start p = q - d if the group owns p. */
void verify(__global const uchar *text, uint n, uint q, uint start, uint end,
            __local const Pats *ps, uint npat, int count_mode, int fold,
            Sink *s, int direct)
{
    uint bits = anchor_hits(word_at(text, q, fold), ps, npat,
                            count_mode ? 0u : REPORT);
    uint tp = 0xFFFFFFFFu; /* where t was loaded (patterns sharing d) */
    uint4 t = (uint4)0;
    while (bits) {
        const uint k = 31 - clz(bits & (0u - bits));
        bits &= bits - 1;
        const uint d = ps->info[k].y;
        if (q < start + d || q - d >= end)
            continue; /* another group's start, or before the text */
        const uint p = q - d;
        if (p != tp) {
            t = window_at(text, p, fold);
            tp = p;
        }
        if (all(((t ^ ps->pat[k]) & ps->care[k]) == (uint4)0) &&
            ps->info[k].x <= n - p)
            record(s, k, p, count_mode, direct);
    }
}

/* The whole kernel; count_mode and fold are literals at every call site. */
void char16_search(__global const uchar *text, uint n,
                   __constant uchar16 *pats, __constant char16 *masks,
                   __constant uint4 *pinfo, uint npat, uint block,
                   __constant uint *keys, uint nk2, uint nk1, uint filter,
                   __constant uint4 *nib, int count_mode, int fold,
                   __global uint *out, uint cap, __global uint *count,
                   __global uint *counts,
                   __local uint *bm, __local uint *q, __local uint *res,
                   __local uint *ctr, __local uint *lc, __local Pats *ps)
{
    const uint lid = (uint)get_local_id(0);
    const uint start = (uint)get_group_id(0) * block;
    const uint end = min(start + block, n);
    Sink sink = {res, ctr, lc, out, count, cap};

    if (start >= end) /* the same for the whole group */
        return;
    for (uint k = lid; k < NCTR; k += WG)
        ctr[k] = 0;
    for (uint k = lid; k < npat; k += WG) {
        ps->pat[k] = as_uint4(pats[k]);
        ps->care[k] = ~as_uint4(masks[k]);
        ps->info[k] = pinfo[k];
    }
    if (count_mode) {
        for (uint k = lid; k < MAXPAT; k += WG)
            lc[k] = 0;
    }
    /* the anchor positions to scan: [qlo, qhi) */
    uint dmin = 15, dmax = 0;
    for (uint k = 0; k < npat; k++) {
        dmin = min(dmin, pinfo[k].y);
        dmax = max(dmax, pinfo[k].y);
    }
    const uint qlo = start + dmin;
    const uint qhi = min(end + dmax, n);
    if (HAS_FILTER(F_BITMAP) && filter == F_BITMAP) {
        for (uint i = lid; i < BM_WORDS; i += WG)
            bm[i] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = lid; k < nk2; k += WG) {
            const uint key = keys[k];
            atomic_or(&bm[key & 0x7FFu], 1u << (key >> 11));
        }
        /* byte key b: the pairs (b, x), x = 0..255: 8 whole words */
        for (uint i = lid; i < nk1 * 8; i += WG)
            atomic_or(&bm[keys[nk2 + i / 8] | ((i % 8) << 8)], 0xFFFFFFFFu);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* the nibble tables (uniform loads; unused by the other filters) */
    uint4 lo0 = (uint4)0, hi0 = (uint4)0, lo1 = (uint4)0, hi1 = (uint4)0;
    uint4 n2 = (uint4)0;
    if (HAS_FILTER(F_NIBBLE) && filter == F_NIBBLE) {
        lo0 = nib[0];
        hi0 = nib[1];
        lo1 = nib[2];
        hi1 = nib[3];
    } else if (HAS_FILTER(F_NIBBLE2) && filter == F_NIBBLE2) {
        n2 = nib[4];
    }

    uint queued = 0; /* candidates queued in earlier steps (uniform) */
    uint slot3 = 0;  /* this step's fill counter: ctr[C_Q + slot3] */
    for (uint base = qlo & ~15u; base < qhi; base += STEP) {
        const int last = (base + STEP >= qhi);
        const uint c = base + 16 * lid;
        const uint next3 = (slot3 == 2) ? 0 : slot3 + 1;

        /* phase 1: the 16 anchor positions c..c+15 (c is a multiple of 16
         * and the buffer is aligned) */
        if (c < qhi) {
            const uint4 raw = *(__global const uint4 *)(text + c);
            /* The nibble tables admit both cases of a letter (host:
             * nibble_roles), so those filters read the text unfolded. */
            const int fold1 =
                fold && !((HAS_FILTER(F_NIBBLE) && filter == F_NIBBLE) ||
                          (HAS_FILTER(F_NIBBLE2) && filter == F_NIBBLE2));
            const uint4 w = (uint4)(fold_if(raw.x, fold1), fold_if(raw.y, fold1),
                                    fold_if(raw.z, fold1), fold_if(raw.w, fold1));
            const uint w4 = fold_if(*(__global const uint *)(text + c + 16), fold1);
            uint h = 0xFFFFu;
            if (HAS_FILTER(F_NIBBLE) && filter == F_NIBBLE)
                h = filter_nibble(w, w4, lo0, hi0, lo1, hi1);
            else if (HAS_FILTER(F_NIBBLE2) && filter == F_NIBBLE2)
                h = filter_nibble2(w, w4, n2.x, n2.y, n2.z, n2.w);
            else if (HAS_FILTER(F_BITMAP) && filter == F_BITMAP)
                h = filter_bitmap(w, w4, bm);
            else if (HAS_FILTER(F_DIRECT) && filter == F_DIRECT)
                h = filter_direct(w, w4, keys, nk2, nk1);
            if (c < qlo)
                h &= 0xFFFFu << (qlo - c);
            if (qhi - c < 16)
                h &= (1u << (qhi - c)) - 1;
            if (h) {
                uint slot = queued + atomic_add(&ctr[C_Q + slot3], (uint)popcount(h));
                do {
                    const uint k = 31 - clz(h & (0u - h));
                    h &= h - 1;
                    if (slot < QCAP)
                        q[slot] = c + k;
                    else /* queue full: verify in place */
                        verify(text, n, c + k, start, end, ps, npat, count_mode,
                               fold, &sink, 1);
                    slot++;
                } while (h);
            }
        }
        /* The next step's counter was last read two steps ago, before the
         * previous barrier; it is next written after the barrier below. */
        if (lid == 0)
            ctr[C_Q + next3] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint nq = queued + ctr[C_Q + slot3];
        slot3 = next3;
        queued = nq;
        if (nq < WG && !last)
            continue;

        /* phase 2: the queue, spread over the group */
        const uint nv = min(nq, (uint)QCAP);
        for (uint j = lid; j < nv; j += WG)
            verify(text, n, q[j], start, end, ps, npat, count_mode, fold,
                   &sink, 0);
        queued = 0;
        barrier(CLK_LOCAL_MEM_FENCE);

        if (!count_mode) {
            /* flush the local results with one global atomic */
            const uint nr = min(ctr[C_R], (uint)RCAP);
            if (nr > 0 && (nr >= WG || last)) {
                if (lid == 0)
                    ctr[C_G] = atomic_add(count, nr);
                barrier(CLK_LOCAL_MEM_FENCE);
                const uint gbase = ctr[C_G];
                for (uint j = lid; j < nr; j += WG) {
                    if (gbase + j < cap)
                        out[gbase + j] = res[j];
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid == 0)
                    ctr[C_R] = 0; /* next used after the next barrier */
            }
        }
    }

    if (count_mode) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = lid; k < npat; k += WG) {
            if (lc[k] > 0)
                atomic_add(&counts[k], lc[k]);
        }
    }
}

#define MATCH_KERNEL(name, fold)                                                \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))                   \
    void name(__global const uchar *text, uint n,                               \
              __constant uchar16 *pats, __constant char16 *masks,               \
              __constant uint4 *pinfo, uint npat, uint block,                   \
              __constant uint *keys, uint nk2, uint nk1, uint filter,           \
              __constant uint4 *nib,                                            \
              __global uint *out, uint cap, __global uint *count)               \
    {                                                                           \
        __local uint bm[BM_WORDS];                                              \
        __local uint q[QCAP];                                                   \
        __local uint res[RCAP];                                                 \
        __local uint ctr[NCTR];                                                 \
        __local Pats ps;                                                        \
        char16_search(text, n, pats, masks, pinfo, npat, block, keys, nk2, nk1, \
                      filter, nib, 0, fold, out, cap, count, count, bm, q, res, \
                      ctr, ctr, &ps);                                           \
    }

#define COUNT_KERNEL(name, fold)                                                \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))                   \
    void name(__global const uchar *text, uint n,                               \
              __constant uchar16 *pats, __constant char16 *masks,               \
              __constant uint4 *pinfo, uint npat, uint block,                   \
              __constant uint *keys, uint nk2, uint nk1, uint filter,           \
              __constant uint4 *nib,                                            \
              __global uint *counts)                                            \
    {                                                                           \
        __local uint bm[BM_WORDS];                                              \
        __local uint q[QCAP];                                                   \
        __local uint ctr[NCTR];                                                 \
        __local uint lc[MAXPAT];                                                \
        __local Pats ps;                                                        \
        char16_search(text, n, pats, masks, pinfo, npat, block, keys, nk2, nk1, \
                      filter, nib, 1, fold, counts, 0, counts, counts, bm, q,   \
                      ctr, ctr, lc, &ps);                                       \
    }

MATCH_KERNEL(multi_char16, 0)
MATCH_KERNEL(multi_char16_fold, 1)
COUNT_KERNEL(multi_char16_count, 0)
COUNT_KERNEL(multi_char16_count_fold, 1)
