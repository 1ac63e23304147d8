/*
 * multi_char16.cl -- a few short literals at once (OpenCL C 1.2): up to 16
 * patterns of up to 16 bytes, each packed in a uchar16 with a char16 mask,
 * after the classic "four patterns in a char16" tutorial, organised like
 * literal_3phase.cl (filter from one aligned load, local queue, balanced
 * verification).
 *
 * Every pattern is held in its own uchar16 (lane j = byte j) with a mask
 * (lane j = -1 when j >= its length, "don't care"). A work-group owns a
 * block of start positions and walks it STEP = 16 * WG positions at a time:
 *
 *   stage    each work-item loads ONE aligned 16-byte block of text (its 16
 *            positions), folds it for the _fold kernels, and stores it in a
 *            local copy of the step's text (plus the 16 bytes after it);
 *   phase 1  each work-item forms the 16 two-byte pairs starting in its
 *            block (the 17th byte comes from its neighbour's staged block)
 *            and tests them against the patterns' KEYS: the distinct first
 *            two bytes of the patterns of length >= 2, and the bytes of the
 *            1-byte patterns. Two ways, chosen by the host (flag `bitmap`):
 *              direct  (few keys) SWAR compares on 32-bit words: per pair
 *                      key 8 words x (xor, sub, and-not), two positions per
 *                      word; per byte key 4 words, four positions per word;
 *              bitmap  (more keys) one lookup per position in a 65,536-bit
 *                      local bitmap of pairs (8 KiB, built once per group):
 *                      a pair key sets one bit, a byte key b sets the 256
 *                      bits of the pairs (b, x), so one lookup serves both.
 *            Positions that pass (a 16-bit mask) go to a local queue: ONE
 *            local atomic_add(popcount) per work-item reserves the slots;
 *   phase 2  the whole group takes the queue, one candidate per work-item
 *            at a time: the 16-byte window at the candidate is rebuilt from
 *            the staged text (5 local loads, funnel shifts: no unaligned
 *            global loads), the first 4 bytes of every pattern are tested
 *            (one masked compare per pattern), and the patterns that pass
 *            get the full char16 masked compare and all() (evaluated four
 *            byte lanes at a time: as_uint4 of the uchar16 / char16 mask)
 *            plus the bound check p + len <= n.
 *
 * A candidate that finds the queue full (only when nearly every position
 * passes phase 1) is verified in place by the work-item that found it.
 * Match mode (multi_char16, multi_char16_fold): matching positions are
 * gathered in a local list and written to `out` with ONE global atomic_add
 * per flush (when the list holds >= WG, and at the end of the block); a
 * match that finds the list full is written with its own global atomic.
 * Count mode (multi_char16_count, multi_char16_count_fold): per-pattern
 * occurrence counts, local atomic_inc counters added to the global
 * counters once per group (atomic_add).
 *
 * Argument layout, match mode:
 *   0  __global const uchar *text    the batch; readable up to n + PAD - 1,
 *                                    PAD >= 32 (the host pads with 64)
 *   1  uint n                        number of real bytes in text
 *   2  __constant uchar16 *pats      npat patterns, lane j = byte j (lanes
 *                                    past the length are 0); lower-cased for
 *                                    the _fold kernels
 *   3  __constant char16 *masks      per pattern, lane j = -1 if j >= length
 *   4  __constant uint *lens         per pattern, its length (1..16)
 *   5  uint npat                     1..16
 *   6  uint block                    start positions per work-group
 *   7  __constant uint *keys         nk2 pair keys (b0 | b1 << 8, distinct),
 *                                    then nk1 byte keys (distinct)
 *   8  uint nk2
 *   9  uint nk1                      nk2 + nk1 >= 1
 *  10  uint bitmap                   1: bitmap filter, 0: direct compares
 *  11  __global uint *out            match start offsets, in no order
 *  12  uint cap                      capacity of out (entries)
 *  13  __global uint *count          set to 0 by the host; ends as the number
 *                                    of matching positions (may exceed cap:
 *                                    the host re-runs with a bigger out)
 * Count mode: arguments 0..10 as above, then
 *  11  __global uint *counts         npat counters, set to 0 by the host
 *
 * NDRange: 1-D, local size WG (build option -D WG=..., required, <= 4096),
 * global size = ceil(n / block) * WG. The text buffer must be 16-byte
 * aligned (any clCreateBuffer buffer is). The SWAR code assumes a
 * little-endian device (every GPU and CPU OpenCL runtime in use).
 * Local memory: 8 KiB bitmap + 16 * (WG + 1) bytes of text + 8 * WG ushort
 * queue + 2 * WG uint results + the patterns (576 bytes, copied from
 * constant memory once per group) + a few counters (19 KiB at WG = 256).
 */

#ifndef WG
#define WG 256
#endif
#define STEP (16 * WG)
#define QCAP (8 * WG)
#define RCAP (2 * WG)
#define MAXPAT 16
#define BM_WORDS 2048

/* ctr[] slots */
#define C_Q 0  /* queued candidates this step (may pass QCAP) */
#define C_R 1  /* local results (may pass RCAP) */
#define C_G 2  /* global base of a flush */

/* ASCII A-Z -> a-z in the four bytes of w (SWAR, bytes >= 0x80 kept). */
uint fold4(uint w)
{
    const uint h = w & 0x7F7F7F7Fu;
    const uint ge_a = h + 0x3F3F3F3Fu;  /* bit 7: low 7 bits >= 'A' */
    const uint gt_z = h + 0x25252525u;  /* bit 7: low 7 bits >  'Z' */
    const uint up = ge_a & ~gt_z & ~w & 0x80808080u;
    return w | (up >> 2);
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

/* The 16 (folded) text bytes at step offset r, from the staged words. */
uint4 window(__local const uint *sw, uint r)
{
    const uint i = r >> 2, s = (r & 3u) * 8;
    const uint s0 = sw[i], s1 = sw[i + 1], s2 = sw[i + 2], s3 = sw[i + 3];
    const uint s4 = sw[i + 4];
    return (uint4)(fsh(s0, s1, s), fsh(s1, s2, s), fsh(s2, s3, s), fsh(s3, s4, s));
}

/* The patterns as the work-group keeps them in local memory (copied once
 * per group: work-items index them divergently, which constant memory
 * serialises): pattern k's bytes and its mask complemented (lane bits set
 * where the pattern has a byte), as uint4, and its length. */
typedef struct {
    uint4 pat[MAXPAT];
    uint4 care[MAXPAT];
    uint len[MAXPAT];
} Pats;

/* Bit k set when pattern k occurs at p (t = the 16 bytes at p). First a
 * masked compare of every pattern's first 4 bytes, then the full 16-byte
 * masked compare for those that pass. */
uint match_bits(uint4 t, uint p, uint n, __local const Pats *ps, uint npat)
{
    uint cand = 0;
    for (uint k = 0; k < npat; k++) {
        if (((t.x ^ ps->pat[k].x) & ps->care[k].x) == 0)
            cand |= 1u << k;
    }
    uint bits = 0;
    while (cand) {
        const uint k = 31 - clz(cand & (0u - cand));
        cand &= cand - 1;
        const uint4 diff = (t ^ ps->pat[k]) & ps->care[k];
        if ((diff.x | diff.y | diff.z | diff.w) == 0 && ps->len[k] <= n - p)
            bits |= 1u << k;
    }
    return bits;
}

void push_result(__local uint *res, __local uint *ctr, __global uint *out,
                 uint cap, __global uint *count, uint p)
{
    const uint k = atomic_inc(&ctr[C_R]);
    if (k < RCAP) {
        res[k] = p;
    } else {
        const uint g = atomic_inc(count);
        if (g < cap)
            out[g] = p;
    }
}

/* Verify the candidate at step offset r; record what matches. */
void verify(__local const uint *sw, uint base, uint r, uint n,
            __local const Pats *ps, uint npat, int count_mode,
            __local uint *res, __local uint *ctr, __global uint *out,
            uint cap, __global uint *count, __local uint *lc)
{
    const uint p = base + r;
    uint bits = match_bits(window(sw, r), p, n, ps, npat);
    if (!bits)
        return;
    if (!count_mode) {
        push_result(res, ctr, out, cap, count, p);
    } else {
        do {
            const uint k = 31 - clz(bits & (0u - bits));
            bits &= bits - 1;
            atomic_inc(&lc[k]);
        } while (bits);
    }
}

/* The whole kernel; count_mode and fold are literals at every call site. */
void char16_search(__global const uchar *text, uint n,
                   __constant uchar16 *pats, __constant char16 *masks,
                   __constant uint *lens, uint npat, uint block,
                   __constant uint *keys, uint nk2, uint nk1, uint use_bitmap,
                   int count_mode, int fold,
                   __global uint *out, uint cap, __global uint *count,
                   __global uint *counts,
                   __local uint *bm, __local uint4 *stage, __local ushort *q,
                   __local uint *res, __local uint *ctr, __local uint *lc,
                   __local Pats *ps)
{
    const uint lid = (uint)get_local_id(0);
    const uint start = (uint)get_group_id(0) * block;
    const uint end = min(start + block, n);
    __local const uint *sw = (__local const uint *)stage;

    if (start >= end) /* the same for the whole group */
        return;
    for (uint k = lid; k < 3; k += WG)
        ctr[k] = 0;
    for (uint k = lid; k < npat; k += WG) {
        ps->pat[k] = as_uint4(pats[k]);
        ps->care[k] = ~as_uint4(masks[k]);
        ps->len[k] = lens[k];
    }
    if (count_mode) {
        for (uint k = lid; k < MAXPAT; k += WG)
            lc[k] = 0;
    }
    if (use_bitmap) {
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

    for (uint base = start & ~15u; base < end; base += STEP) {
        const int last = (base + STEP >= end);
        const uint c = base + 16 * lid;

        /* stage: this block (needed while a valid position's window can
         * reach it: c < end + 16) and, for the last work-item, the 16
         * bytes after the step */
        uint4 w = (uint4)0;
        if (c < end + 16)
            w = *(__global const uint4 *)(text + c);
        if (fold)
            w = (uint4)(fold4(w.x), fold4(w.y), fold4(w.z), fold4(w.w));
        stage[lid] = w;
        if (lid == WG - 1) {
            uint4 t = (uint4)0;
            if (c < end)
                t = *(__global const uint4 *)(text + c + 16);
            if (fold)
                t = (uint4)(fold4(t.x), fold4(t.y), fold4(t.z), fold4(t.w));
            stage[WG] = t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* phase 1 */
        if (c < end) {
            const uint w4 = sw[4 * lid + 4];
            uint h = use_bitmap ? filter_bitmap(w, w4, bm)
                                : filter_direct(w, w4, keys, nk2, nk1);
            if (c < start) /* first step of a block not 16-aligned */
                h &= 0xFFFFu << (start - c);
            if (end - c < 16)
                h &= (1u << (end - c)) - 1;
            if (h) {
                uint slot = atomic_add(&ctr[C_Q], (uint)popcount(h));
                do {
                    const uint k = 31 - clz(h & (0u - h));
                    h &= h - 1;
                    const uint r = c - base + k;
                    if (slot < QCAP)
                        q[slot] = (ushort)r;
                    else /* queue full: verify in place */
                        verify(sw, base, r, n, ps, npat, count_mode, res, ctr,
                               out, cap, count, lc);
                    slot++;
                } while (h);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* phase 2: the queue, spread over the group */
        const uint nq = min(ctr[C_Q], (uint)QCAP);
        for (uint j = lid; j < nq; j += WG)
            verify(sw, base, q[j], n, ps, npat, count_mode, res, ctr, out,
                   cap, count, lc);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0)
            ctr[C_Q] = 0; /* next used after the next step's first barrier */

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
                    ctr[C_R] = 0;
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
              __constant uint *lens, uint npat, uint block,                     \
              __constant uint *keys, uint nk2, uint nk1, uint use_bitmap,       \
              __global uint *out, uint cap, __global uint *count)               \
    {                                                                           \
        __local uint bm[BM_WORDS];                                              \
        __local uint4 stage[WG + 1];                                            \
        __local ushort q[QCAP];                                                 \
        __local uint res[RCAP];                                                 \
        __local uint ctr[3];                                                    \
        __local Pats ps;                                                        \
        char16_search(text, n, pats, masks, lens, npat, block, keys, nk2, nk1,  \
                      use_bitmap, 0, fold, out, cap, count, count, bm, stage,   \
                      q, res, ctr, ctr, &ps);                                   \
    }

#define COUNT_KERNEL(name, fold)                                                \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))                   \
    void name(__global const uchar *text, uint n,                               \
              __constant uchar16 *pats, __constant char16 *masks,               \
              __constant uint *lens, uint npat, uint block,                     \
              __constant uint *keys, uint nk2, uint nk1, uint use_bitmap,       \
              __global uint *counts)                                            \
    {                                                                           \
        __local uint bm[BM_WORDS];                                              \
        __local uint4 stage[WG + 1];                                            \
        __local ushort q[QCAP];                                                 \
        __local uint ctr[3];                                                    \
        __local uint lc[MAXPAT];                                                \
        __local Pats ps;                                                        \
        char16_search(text, n, pats, masks, lens, npat, block, keys, nk2, nk1,  \
                      use_bitmap, 1, fold, counts, 0, counts, counts, bm,       \
                      stage, q, ctr, ctr, lc, &ps);                             \
    }

MATCH_KERNEL(multi_char16, 0)
MATCH_KERNEL(multi_char16_fold, 1)
COUNT_KERNEL(multi_char16_count, 0)
COUNT_KERNEL(multi_char16_count_fold, 1)
