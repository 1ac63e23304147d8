/*
 * multi_char16.cl -- a few short literals at once with char16 vector
 * compares (OpenCL C 1.2), after the classic "four patterns in a char16"
 * tutorial, generalised to up to 16 patterns of up to 16 bytes each.
 *
 * Every pattern is held in its own uchar16 (lane j = byte j) with a mask
 * (lane j = -1 when j >= its length, "don't care"). For each start position
 * a work-item does ONE vload16 of text (folded for the _fold kernels) and,
 * per pattern, one vector compare OR'ed with the mask and an all().
 * A work-group owns a block of start positions and walks it WG positions at
 * a time (work-item lid tests base + lid, so the loads are coalesced).
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
 * size = ceil(n / block) * WG.
 */

#ifndef WG
#define WG 256
#endif
#define RCAP (2 * WG)
#define MAXPAT 16

uchar16 fold16(uchar16 t)
{
    return t | (as_uchar16((uchar16)(t - (uchar16)'A') < (uchar16)26) & (uchar16)0x20);
}

/* Bit k set when pattern k occurs at p. */
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

    for (uint base = start; base < end; base += WG) {
        const int last = (base + WG >= end);
        const uint p = base + lid;
        if (p < end && match_bits(text, n, p, pats, masks, lens, npat, fold)) {
            uint k = atomic_inc(&ctr[0]);
            res[k] = p;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint nr = ctr[0];
        if (nr > 0 && (nr > RCAP - WG || last)) {
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
    for (uint p = start + lid; p < end; p += WG) {
        uint bits = match_bits(text, n, p, pats, masks, lens, npat, fold);
        while (bits) {
            uint k = 31 - clz(bits);
            atomic_inc(&lc[k]);
            bits &= ~(1u << k);
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
