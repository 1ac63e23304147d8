/*
 * literal_3phase.cl -- load-balanced search for ONE literal (OpenCL C 1.2),
 * after the three-phase scheme of AMD's StringSearch sample.
 *
 * A work-group owns a block of start positions and walks it WG positions at
 * a time (work-item lid tests base + lid, so reads are coalesced):
 *   phase 1  keep positions whose 2 anchor bytes (pat[a], pat[a+1], the
 *            pair the host estimates to be rarest) match; push them on a
 *            local queue q1;
 *   phase 2  once q1 holds >= WG candidates (enough for every work-item) or
 *            the block ends: each work-item takes candidates from q1 and
 *            compares the first min(m, 16) bytes with ONE vload16 and a
 *            masked vector compare; survivors go to q2 (m > 16) or straight
 *            to the result list (m <= 16: nothing is left to compare);
 *   phase 3  once q2 holds >= WG candidates or the block ends: compare bytes
 *            16..m-1 in 16-byte vector steps; matches go to the result list.
 * Because work is taken from queues, every work-item has a candidate to
 * check in phases 2 and 3 and the group diverges little, whatever the
 * density of partial matches.
 * The result list lives in local memory and is flushed to `out` with ONE
 * global atomic_add per flush (normally once per group, at the end).
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
 * Local memory: (2 + 3 + 4) * WG + 4 uints.
 */

#ifndef WG
#define WG 256
#endif
#define Q1CAP (2 * WG)
#define Q2CAP (3 * WG)
#define RCAP (4 * WG)

uchar fold_byte(uchar c)
{
    return ((uchar)(c - (uchar)'A') < (uchar)26) ? (uchar)(c | (uchar)0x20) : c;
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

void push_local(__local uint *q, __local uint *qn, uint v)
{
    uint k = atomic_inc(qn);
    q[k] = v;
}

void three_phase(__global const uchar *text, uint n,
                 __global const uchar *pat, uint m, uint anchor, uint block,
                 __global uint *out, uint cap, __global uint *count, int fold,
                 __local uint *q1, __local uint *q2, __local uint *res,
                 __local uint *ctr)
{
    /* ctr[0] = q1 size, ctr[1] = q2 size, ctr[2] = results, ctr[3] = flush base */
    const uint lid = (uint)get_local_id(0);
    const uint npos = (n >= m) ? n - m + 1 : 0;
    const uint start = (uint)get_group_id(0) * block;
    const uint end = min(start + block, npos);
    const uchar a0 = pat[anchor];
    const uchar a1 = pat[anchor + (m > 1 ? 1 : 0)];

    if (lid == 0) {
        ctr[0] = 0;
        ctr[1] = 0;
        ctr[2] = 0;
        ctr[3] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (start >= end) /* the same for the whole group */
        return;

    for (uint base = start; base < end; base += WG) {
        const int last = (base + WG >= end);
        const uint p = base + lid;

        /* phase 1: two anchor bytes */
        if (p < end) {
            uchar c0 = text[p + anchor];
            if (fold)
                c0 = fold_byte(c0);
            int ok = (c0 == a0);
            if (ok && m > 1) {
                uchar c1 = text[p + anchor + 1];
                if (fold)
                    c1 = fold_byte(c1);
                ok = (c1 == a1);
            }
            if (ok)
                push_local(q1, &ctr[0], p);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        const uint n1 = ctr[0];
        if (n1 >= WG || last) {
            /* phase 2: first min(m, 16) bytes, one vector compare */
            for (uint j = lid; j < n1; j += WG) {
                const uint q = q1[j];
                if (eq16(text + q, pat, m, fold)) {
                    if (m <= 16)
                        push_local(res, &ctr[2], q);
                    else
                        push_local(q2, &ctr[1], q);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0)
                ctr[0] = 0;

            /* phase 3: the rest, 16 bytes at a time */
            const uint n2 = ctr[1];
            if (n2 >= WG || (last && n2 > 0)) {
                for (uint j = lid; j < n2; j += WG) {
                    const uint q = q2[j];
                    int ok = 1;
                    for (uint k = 16; ok && k < m; k += 16)
                        ok = eq16(text + q + k, pat + k, m - k, fold);
                    if (ok)
                        push_local(res, &ctr[2], q);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
                if (lid == 0)
                    ctr[1] = 0;
            }

            /* flush the result list when another round could overflow it */
            const uint nr = ctr[2];
            if (nr > 0 && (nr > RCAP - Q2CAP || last)) {
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
