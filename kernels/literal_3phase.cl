/*
 * literal_3phase.cl -- load-balanced search for ONE literal (OpenCL C 1.2),
 * after the three-phase scheme of AMD's StringSearch sample.
 *
 * A work-group owns a block of start positions and walks it 16 * WG
 * positions at a time:
 *   phase 1  each work-item takes 16 consecutive positions: ONE aligned
 *            16-byte load (plus the word after it) and word-parallel
 *            compares (16-bit lanes of 32-bit words, `pair_mask`) give the
 *            16-bit mask of the positions whose 2 anchor bytes (pat[a],
 *            pat[a+1], the pair the host estimates to be rarest) match;
 *            ONE local atomic_add(popcount) reserves their places on a
 *            local queue q1;
 *   phase 2  once q1 holds >= WG candidates (enough for every work-item) or
 *            the block ends: each work-item takes candidates from q1 and
 *            compares the first min(m, 16) bytes with one vload16 and a
 *            masked vector compare; survivors go to q2 (m > 16) or straight
 *            to the result list (m <= 16: nothing is left to compare);
 *   phase 3  once q2 holds >= WG candidates or the block ends: compare bytes
 *            16..m-1 in 16-byte vector steps; matches go to the result list.
 * Because work is taken from queues, every work-item has a candidate to
 * check in phases 2 and 3 and the group diverges little, whatever the
 * density of partial matches. Queues are bounded: a candidate that finds
 * its queue full is finished in place by the work-item that found it (only
 * text where nearly every position is a candidate gets there).
 * The result list lives in local memory and is flushed to `out` with ONE
 * global atomic_add per flush (normally once per group, at the end); a
 * match that finds the list full is written with its own global atomic.
 * A pattern of length 1 works too: phase 1 then tests one byte.
 *
 * Kernels (same arguments):
 *   literal_3phase       exact bytes
 *   literal_3phase_fold  ASCII case-insensitive (text folded in-kernel,
 *                        the pattern arrives lower-cased)
 *
 * Argument layout:
 *   0  __global const uchar *text  the batch; readable up to n + PAD - 1
 *                                  with PAD >= 16 (the host pads)
 *   1  uint n                      number of real bytes in text
 *   2  __global const uchar *pat   the pattern, zero-padded so that
 *                                  ceil(m/16)*16 + 16 bytes are readable
 *   3  uint m                      pattern length, >= 1
 *   4  uint anchor                 phase-1 anchor a, 0 <= a <= max(m-2, 0)
 *   5  uint block                  start positions per work-group (a
 *                                  multiple of WG)
 *   6  __global uint *out          match start offsets, in no particular order
 *   7  uint cap                    capacity of out (entries)
 *   8  __global uint *count        set to 0 by the host; ends as the number
 *                                  of matches (may exceed cap: re-run bigger)
 *
 * NDRange: 1-D, local size WG (a build option, -D WG=...; the kernel
 * requires it), global size = ceil((n - m + 1) / block) * WG.
 * Local memory: (4 + 5 + 2) * WG + 4 uints (11 KiB at WG = 256).
 * The text buffer must be 16-byte aligned (any clCreateBuffer buffer is).
 */

#ifndef WG
#define WG 256
#endif
#define Q1CAP (4 * WG)
#define Q2CAP (5 * WG)
#define RCAP (2 * WG)

/* Bit 15 of each 16-bit lane of the result is set iff that lane of x is
 * zero (exact: no carry crosses a lane). */
uint4 zero_lanes16(uint4 x)
{
    return ~(((x & 0x7fff7fffu) + 0x7fff7fffu) | x | 0x7fff7fffu);
}

/* Bit 7 of each byte of the result is set iff that byte of x is zero. */
uint4 zero_lanes8(uint4 x)
{
    return ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
}

/* Four 4-bit masks (word i: positions 4i..4i+3) as one 16-bit mask. */
uint nibbles(uint4 m)
{
    return m.s0 | (m.s1 << 4) | (m.s2 << 8) | (m.s3 << 12);
}

/*
 * The 16-bit mask (bit k: position c + k) of the positions in c..c+15 that
 * hold the anchor pair, from the 16 bytes at c (an aligned load) and the
 * word after them. `pair` is pat[a] | pat[a+1] << 8 in both 16-bit halves
 * (for a one-byte pattern: pat[0] in all four bytes); `fold` has 0x20 in
 * each byte of `pair` that is an ASCII letter under case folding (else 0),
 * so that text bytes ORed with it meet a lower-case anchor as 'A' or 'a'.
 * Pairs at even offsets are the 16-bit lanes of each word; pairs at odd
 * offsets the lanes of the word shifted by one byte. A few integer
 * operations per 4 bytes, where byte vectors cost one per byte on GPUs.
 */
uint pair_mask(__global const uchar *text, uint c, uint pair, uint fold, int one)
{
    const uint4 w = *(__global const uint4 *)(text + c);
    if (one) {
        const uint4 z = zero_lanes8((w | fold) ^ pair);
        return nibbles(((z >> 7) & 1u) | ((z >> 14) & 2u) | ((z >> 21) & 4u) | ((z >> 28) & 8u));
    }
    const uint w4 = *(__global const uint *)(text + c + 16);
    const uint4 next = (uint4)(w.s1, w.s2, w.s3, w4);
    const uint4 odd = (w >> 8) | (next << 24);
    const uint4 ze = zero_lanes16((w | fold) ^ pair);
    const uint4 zo = zero_lanes16((odd | fold) ^ pair);
    /* word i: offset 0 = bit 15 of ze, 1 = bit 15 of zo, 2 = bit 31 of ze,
     * 3 = bit 31 of zo */
    return nibbles(((ze >> 15) & 1u) | ((zo >> 14) & 2u) | ((ze >> 29) & 4u) | ((zo >> 28) & 8u));
}

uchar16 fold16(uchar16 t)
{
    return t | (as_uchar16((uchar16)(t - (uchar16)'A') < (uchar16)26) & (uchar16)0x20);
}

/* Lanes j >= len are "don't care" (-1), the others 0. */
char16 tail_mask(uint len)
{
    const char16 lane = (char16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return lane >= (char16)((char)min(len, 16u));
}

int eq16(__global const uchar *t, __global const uchar *p, uint len, int fold)
{
    uchar16 tv = vload16(0, t);
    if (fold)
        tv = fold16(tv);
    return all((tv == vload16(0, p)) | tail_mask(len));
}

/* Bytes from..m-1 of the pattern occur at q (16 at a time). */
int rest_matches(__global const uchar *text, uint q, __global const uchar *pat,
                 uint m, uint from, int fold)
{
    for (uint k = from; k < m; k += 16) {
        if (!eq16(text + q + k, pat + k, m - k, fold))
            return 0;
    }
    return 1;
}

/* A match at q: into the local result list, or straight to the output
 * (one global atomic) when the list is full. */
void push_result(__local uint *res, __local uint *ctr, __global uint *out,
                 uint cap, __global uint *count, uint q)
{
    uint k = atomic_inc(&ctr[2]);
    if (k < RCAP) {
        res[k] = q;
    } else {
        uint g = atomic_inc(count);
        if (g < cap)
            out[g] = q;
    }
}

void three_phase(__global const uchar *text, uint n,
                 __global const uchar *pat, uint m, uint anchor, uint block,
                 __global uint *out, uint cap, __global uint *count, int fold,
                 __local uint *q1, __local uint *q2, __local uint *res,
                 __local uint *ctr)
{
    /* ctr[0] = q1 size, ctr[1] = q2 size, ctr[2] = results, ctr[3] = flush
     * base. A size may run past its queue's capacity: the entries past it
     * were handled in place (see below), so min(size, CAP) are queued. */
    const uint lid = (uint)get_local_id(0);
    const uint npos = (n >= m) ? n - m + 1 : 0;
    const uint start = (uint)get_group_id(0) * block;
    const uint end = min(start + block, npos);
    const uchar a0 = pat[anchor];
    const uchar a1 = pat[anchor + (m > 1 ? 1 : 0)];
    /* phase 1 works on anchor bytes b = p + anchor, p in [start, end) */
    const uint bstart = start + anchor;
    const uint bend = end + anchor;
    /* pair_mask's constants */
    const uint letter0 = (fold && (uchar)(a0 - (uchar)'a') < (uchar)26) ? 0x20u : 0u;
    const uint letter1 = (fold && (uchar)(a1 - (uchar)'a') < (uchar)26) ? 0x20u : 0u;
    const uint pair16 = (uint)a0 | ((uint)((m > 1) ? a1 : a0) << 8);
    const uint fold16m = letter0 | (((m > 1) ? letter1 : letter0) << 8);
    const uint wpair = pair16 | (pair16 << 16);
    const uint wfold = fold16m | (fold16m << 16);

    if (lid == 0) {
        ctr[0] = 0;
        ctr[1] = 0;
        ctr[2] = 0;
        ctr[3] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (start >= end) /* the same for the whole group */
        return;

    for (uint base = bstart & ~15u; base < bend; base += 16 * WG) {
        const int last = (base + 16 * WG >= bend);
        const uint c = base + 16 * lid;

        /* phase 1: the anchor pair at 16 consecutive positions, from one
         * aligned 16-byte load (c is a multiple of 16 and buffers are
         * aligned) plus the word after it */
        if (c < bend) {
            uint mask = pair_mask(text, c, wpair, wfold, m == 1);
            /* only anchor bytes b in [bstart, bend) */
            if (c < bstart)
                mask &= 0xffffu << (bstart - c);
            if (bend - c < 16)
                mask &= (1u << (bend - c)) - 1u;
            if (mask != 0) {
                const uint first = atomic_add(&ctr[0], (uint)popcount(mask));
                for (uint j = first; mask != 0; j++) {
                    const uint k = 31u - clz(mask & (0u - mask)); /* lowest set bit */
                    mask &= mask - 1u;
                    const uint p = c + k - anchor;
                    if (j < Q1CAP)
                        q1[j] = p;
                    else if (eq16(text + p, pat, m, fold) && rest_matches(text, p, pat, m, 16, fold))
                        push_result(res, ctr, out, cap, count, p); /* queue full: in place */
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        const uint n1 = min(ctr[0], (uint)Q1CAP);
        if (n1 >= WG || last) {
            /* phase 2: first min(m, 16) bytes, one vector compare */
            for (uint j = lid; j < n1; j += WG) {
                const uint q = q1[j];
                if (eq16(text + q, pat, m, fold)) {
                    if (m <= 16) {
                        push_result(res, ctr, out, cap, count, q);
                    } else {
                        const uint slot = atomic_inc(&ctr[1]);
                        if (slot < Q2CAP)
                            q2[slot] = q;
                        else if (rest_matches(text, q, pat, m, 16, fold))
                            push_result(res, ctr, out, cap, count, q);
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0)
                ctr[0] = 0;

            /* phase 3: the rest, 16 bytes at a time */
            const uint n2 = min(ctr[1], (uint)Q2CAP);
            if (n2 >= WG || (last && n2 > 0)) {
                for (uint j = lid; j < n2; j += WG) {
                    const uint q = q2[j];
                    if (rest_matches(text, q, pat, m, 16, fold))
                        push_result(res, ctr, out, cap, count, q);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid == 0)
                    ctr[1] = 0;
            }

            /* flush the local results with one global atomic */
            const uint nr = min(ctr[2], (uint)RCAP);
            if (nr > 0 && (nr >= WG || last)) {
                if (lid == 0)
                    ctr[3] = atomic_add(count, nr);
                barrier(CLK_LOCAL_MEM_FENCE);
                const uint gbase = ctr[3];
                for (uint j = lid; j < nr; j += WG) {
                    if (gbase + j < cap)
                        out[gbase + j] = res[j];
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid == 0)
                    ctr[2] = 0;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void literal_3phase(__global const uchar *text, uint n,
                    __global const uchar *pat, uint m, uint anchor,
                    uint block, __global uint *out, uint cap,
                    __global uint *count)
{
    __local uint q1[Q1CAP];
    __local uint q2[Q2CAP];
    __local uint res[RCAP];
    __local uint ctr[4];
    three_phase(text, n, pat, m, anchor, block, out, cap, count, 0,
                q1, q2, res, ctr);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void literal_3phase_fold(__global const uchar *text, uint n,
                         __global const uchar *pat, uint m, uint anchor,
                         uint block, __global uint *out, uint cap,
                         __global uint *count)
{
    __local uint q1[Q1CAP];
    __local uint q2[Q2CAP];
    __local uint res[RCAP];
    __local uint ctr[4];
    three_phase(text, n, pat, m, anchor, block, out, cap, count, 1,
                q1, q2, res, ctr);
}
