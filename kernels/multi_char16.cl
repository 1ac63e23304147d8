/*
 * multi_char16.cl -- a few short literals at once with char16 vector
 * compares (OpenCL C 1.2), after the classic "four patterns in a char16"
 * tutorial, generalised to up to 16 patterns of up to 16 bytes each.
 *
 * Every pattern is held in its own uchar16 (lane j = byte j) with a mask
 * (lane j = -1 when j >= its length, "don't care"). For a start position
 * a work-item does ONE vload16 of text (folded for the _fold kernels) and,
 * per pattern, one vector compare OR'ed with the mask and an all().
 * Prefilter (measured: without it the per-position unaligned vload16 ran at
 * 49 GB/s on an H200, below the naive kernel): each work-item takes 16
 * consecutive positions with ONE aligned 16-byte load plus the next byte,
 * and per pattern two vector compares find the positions where the
 * pattern's first two bytes occur; only those get the full compare above.
 * A work-group owns a block of start positions and walks it 16 * WG
 * positions at a time (the 16-byte loads of a work-group are contiguous).
 *
 * Match mode (multi_char16, multi_char16_fold): matching positions are
 * gathered in a local list and written to `out` with ONE global atomic_add
 * per flush (normally once per group).
 * Count mode (multi_char16_count, multi_char16_count_fold): per-pattern
 * occurrence counts, local atomic_inc counters added to the global
 * counters once per group (atomic_add).
 *
 * Argument layout, match mode:
 *   0  __global const uchar *text    the batch; readable up to n + PAD - 1,
 *                                    PAD >= 16 (the host pads)
 *   1  uint n                        number of real bytes in text
 *   2  __constant uchar16 *pats      npat patterns, lane j = byte j (lanes
 *                                    past the length are 0); lower-cased for
 *                                    the _fold kernels
 *   3  __constant char16 *masks      per pattern, lane j = -1 if j >= length
 *   4  __constant uint *lens         per pattern, its length (1..16)
 *   5  uint npat                     1..16
 *   6  uint block                    start positions per work-group (a
 *                                    multiple of WG)
 *   7  __global uint *out            match start offsets, in no order
 *   8  uint cap                      capacity of out (entries)
 *   9  __global uint *count          set to 0 by the host; ends as the number
 *                                    of matching positions (may exceed cap:
 *                                    the host re-runs with a bigger out)
 * Count mode: arguments 0..6 as above, then
 *   7  __global uint *counts         npat counters, set to 0 by the host
 *
 * NDRange: 1-D, local size WG (build option -D WG=..., required), global
 * size = ceil(n / block) * WG. The text buffer must be 16-byte aligned.
 */

#ifndef WG
#define WG 256
#endif
#define RCAP (2 * WG)
#define MAXPAT 16

uchar fold_byte(uchar c)
{
    return ((uchar)(c - (uchar)'A') < (uchar)26) ? (uchar)(c | (uchar)0x20) : c;
}

uchar16 fold16(uchar16 t)
{
    return t | (as_uchar16((uchar16)(t - (uchar16)'A') < (uchar16)26) & (uchar16)0x20);
}

/* Bit k set when pattern k occurs at p: one vload16, one masked vector
 * compare and all() per pattern. */
uint match_bits(__global const uchar *text, uint n, uint p,
                __constant uchar16 *pats, __constant char16 *masks,
                __constant uint *lens, uint npat, int fold)
{
    uchar16 t = vload16(0, text + p);
    if (fold)
        t = fold16(t);
    uint bits = 0;
    for (uint k = 0; k < npat; k++) {
        if (all((t == pats[k]) | masks[k]) && lens[k] <= n - p)
            bits |= 1u << k;
    }
    return bits;
}

/* Lanes k of the 16 positions c..c+15 where some pattern's first two
 * bytes (first byte for 1-byte patterns) occur. c is a multiple of 16. */
char16 prefilter16(__global const uchar *text, uint c,
                   __constant uchar16 *pats, __constant uint *lens,
                   uint npat, int fold)
{
    uchar16 v = as_uchar16(*(__global const uint4 *)(text + c));
    uchar nx = text[c + 16];
    if (fold) {
        v = fold16(v);
        nx = fold_byte(nx);
    }
    const uchar16 v1 = (uchar16)(v.s1234, v.s5678, v.s9abc, v.sdef, nx);
    char16 hit = (char16)0;
    for (uint k = 0; k < npat; k++) {
        const uchar16 pk = pats[k];
        const char16 second = (lens[k] > 1) ? (char16)0 : (char16)(-1);
        hit |= (v == (uchar16)pk.s0) & ((v1 == (uchar16)pk.s1) | second);
    }
    return hit;
}

void push_result(__local uint *res, __local uint *ctr, __global uint *out,
                 uint cap, __global uint *count, uint p)
{
    uint k = atomic_inc(&ctr[0]);
    if (k < RCAP) {
        res[k] = p;
    } else {
        uint g = atomic_inc(count);
        if (g < cap)
            out[g] = p;
    }
}

void char16_match(__global const uchar *text, uint n,
                  __constant uchar16 *pats, __constant char16 *masks,
                  __constant uint *lens, uint npat, uint block,
                  __global uint *out, uint cap, __global uint *count,
                  int fold, __local uint *res, __local uint *ctr)
{
    const uint lid = (uint)get_local_id(0);
    const uint start = (uint)get_group_id(0) * block;
    const uint end = min(start + block, n);

    if (lid == 0) {
        ctr[0] = 0;
        ctr[1] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (start >= end)
        return;

    for (uint base = start & ~15u; base < end; base += 16 * WG) {
        const int last = (base + 16 * WG >= end);
        const uint c = base + 16 * lid;
        if (c < end) {
            const char16 hit = prefilter16(text, c, pats, lens, npat, fold);
            if (any(hit)) {
                char h[16];
                vstore16(hit, 0, h);
                for (uint k = 0; k < 16; k++) {
                    const uint p = c + k;
                    if (h[k] && p >= start && p < end &&
                        match_bits(text, n, p, pats, masks, lens, npat, fold))
                        push_result(res, ctr, out, cap, count, p);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* ctr[0] may run past RCAP: those matches went straight to out */
        const uint nr = min(ctr[0], (uint)RCAP);
        if (nr > 0 && (nr >= WG || last)) {
            if (lid == 0)
                ctr[1] = atomic_add(count, nr);
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint gbase = ctr[1];
            for (uint j = lid; j < nr; j += WG) {
                if (gbase + j < cap)
                    out[gbase + j] = res[j];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0)
                ctr[0] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

void char16_count(__global const uchar *text, uint n,
                  __constant uchar16 *pats, __constant char16 *masks,
                  __constant uint *lens, uint npat, uint block,
                  __global uint *counts, int fold, __local uint *lc)
{
    const uint lid = (uint)get_local_id(0);
    const uint start = (uint)get_group_id(0) * block;
    const uint end = min(start + block, n);

    for (uint k = lid; k < MAXPAT; k += WG)
        lc[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = (start & ~15u) + 16 * lid; c < end; c += 16 * WG) {
        const char16 hit = prefilter16(text, c, pats, lens, npat, fold);
        if (any(hit)) {
            char h[16];
            vstore16(hit, 0, h);
            for (uint k = 0; k < 16; k++) {
                const uint p = c + k;
                if (!h[k] || p < start || p >= end)
                    continue;
                uint bits = match_bits(text, n, p, pats, masks, lens, npat, fold);
                while (bits) {
                    uint j = 31 - clz(bits);
                    atomic_inc(&lc[j]);
                    bits &= ~(1u << j);
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = lid; k < npat; k += WG) {
        if (lc[k] > 0)
            atomic_add(&counts[k], lc[k]);
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void multi_char16(__global const uchar *text, uint n,
                  __constant uchar16 *pats, __constant char16 *masks,
                  __constant uint *lens, uint npat, uint block,
                  __global uint *out, uint cap, __global uint *count)
{
    __local uint res[RCAP];
    __local uint ctr[2];
    char16_match(text, n, pats, masks, lens, npat, block, out, cap, count, 0,
                 res, ctr);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void multi_char16_fold(__global const uchar *text, uint n,
                       __constant uchar16 *pats, __constant char16 *masks,
                       __constant uint *lens, uint npat, uint block,
                       __global uint *out, uint cap, __global uint *count)
{
    __local uint res[RCAP];
    __local uint ctr[2];
    char16_match(text, n, pats, masks, lens, npat, block, out, cap, count, 1,
                 res, ctr);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void multi_char16_count(__global const uchar *text, uint n,
                        __constant uchar16 *pats, __constant char16 *masks,
                        __constant uint *lens, uint npat, uint block,
                        __global uint *counts)
{
    __local uint lc[MAXPAT];
    char16_count(text, n, pats, masks, lens, npat, block, counts, 0, lc);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void multi_char16_count_fold(__global const uchar *text, uint n,
                             __constant uchar16 *pats, __constant char16 *masks,
                             __constant uint *lens, uint npat, uint block,
                             __global uint *counts)
{
    __local uint lc[MAXPAT];
    char16_count(text, n, pats, masks, lens, npat, block, counts, 1, lc);
}
