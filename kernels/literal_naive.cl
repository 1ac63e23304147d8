/*
 * literal_naive.cl -- gsearch's reference literal kernel (OpenCL C 1.2).
 *
 * One work-item per start position; every pattern is compared byte by byte.
 * It is the baseline the other kernels are measured against, and the kernel
 * used for pattern sets no specialised kernel handles yet.
 *
 * Kernels (same arguments):
 *   literal_naive        exact bytes
 *   literal_naive_fold   ASCII case-insensitive: text bytes 'A'..'Z' are
 *                        folded in-kernel; patterns arrive lower-cased
 *
 * Argument layout:
 *   0  __global const uchar *text   the batch; readable up to n + PAD - 1
 *                                   (the host pads; padding is never matched)
 *   1  uint n                       number of real bytes in text
 *   2  __global const uchar *pats   all patterns, concatenated
 *   3  __global const uint2 *pinfo  per pattern: (.x offset in pats, .y length);
 *                                   every length >= 1
 *   4  uint npat                    number of patterns (>= 1)
 *   5  __global uint *out           match start offsets, in no particular order
 *   6  uint cap                     capacity of out (entries)
 *   7  __global uint *count         set to 0 by the host; ends as the number of
 *                                   matching positions, which may exceed cap
 *                                   (then the host re-runs with a bigger out)
 *
 * NDRange: 1-D, global size >= n (any multiple of any local size); work-item
 * i tests start position i. Each matching position is reported once, however
 * many patterns match there.
 */

uchar fold_byte(uchar c)
{
    return ((uchar)(c - (uchar)'A') < (uchar)26) ? (uchar)(c | (uchar)0x20) : c;
}

int naive_match_at(__global const uchar *text, uint n, uint i,
                   __global const uchar *p, uint m, int fold)
{
    if (m > n - i)
        return 0;
    for (uint k = 0; k < m; k++) {
        uchar c = text[i + k];
        if (fold)
            c = fold_byte(c);
        if (c != p[k])
            return 0;
    }
    return 1;
}

void naive_body(__global const uchar *text, uint n,
                __global const uchar *pats, __global const uint2 *pinfo,
                uint npat, __global uint *out, uint cap,
                __global uint *count, int fold)
{
    uint i = (uint)get_global_id(0);
    if (i >= n)
        return;
    for (uint j = 0; j < npat; j++) {
        uint2 pi = pinfo[j];
        if (naive_match_at(text, n, i, pats + pi.x, pi.y, fold)) {
            uint k = atomic_inc(count);
            if (k < cap)
                out[k] = i;
            return;
        }
    }
}

__kernel void literal_naive(__global const uchar *text, uint n,
                            __global const uchar *pats,
                            __global const uint2 *pinfo, uint npat,
                            __global uint *out, uint cap,
                            __global uint *count)
{
    naive_body(text, n, pats, pinfo, npat, out, cap, count, 0);
}

__kernel void literal_naive_fold(__global const uchar *text, uint n,
                                 __global const uchar *pats,
                                 __global const uint2 *pinfo, uint npat,
                                 __global uint *out, uint cap,
                                 __global uint *count)
{
    naive_body(text, n, pats, pinfo, npat, out, cap, count, 1);
}
