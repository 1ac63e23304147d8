/*
 * many_literals.cl -- hundreds to hundreds of thousands of literals at once
 * (OpenCL C 1.2). Host side: src/opencl/many.rs, which builds every table
 * below and documents the design; see also "Many literals" in README.md.
 *
 * Patterns are split by length:
 *   length 1    exact 256-bit table (direct[0..8])
 *   length 2    exact 65,536-bit table (direct[8..2056])
 *   length >= 3 "hashed classes": a class has a prefix length k (3..8) and
 *               holds patterns whose length L has k <= L (the host puts
 *               each pattern in the class with the largest k <= L). A
 *               class's key at a text position is its k-byte window.
 * A position p is a candidate for class c when the bit of hash1(key, c) is
 * set in the LOCAL filter (a bitmap copied to local memory per work-group).
 * Candidates then test hash2(key, c) in a larger GLOBAL filter (L2), then
 * probe bucket hash2 & tmask of a hash table of whole patterns: a bucket's
 * patterns are sorted bytewise; a binary search finds the predecessor of
 * the text at p and a walk up its "parent" chain (longest pattern in the
 * same bucket that is a proper prefix) decides whether any pattern of the
 * bucket is a prefix of the text at p. Patterns have any length.
 *
 * Each work-item owns 16 consecutive start positions per step: one aligned
 * 16-byte load + one 8-byte load (coalesced across the group), ASCII folding
 * of the 24 bytes at once for the _fold kernel, then every class tests the
 * 16 windows from registers. A work-group loads the local tables once, then
 * walks blocks of `block` positions (grid-stride), 16*WG positions a step.
 *
 * Kernels: many_literals (exact bytes), many_literals_fold (text bytes
 * 'A'..'Z' folded; patterns arrive lower-cased).
 *
 * Argument layout:
 *   0  __global const uchar *text   the batch, 16-byte aligned, readable up
 *                                   to n + PAD - 1 (PAD >= 32, the host pads)
 *   1  uint n                       real bytes in text
 *   2  uint block                   start positions per block (a multiple
 *                                   of 16 * WG); work-group g takes blocks
 *                                   g, g + G, g + 2G, ... (G groups), so the
 *                                   tables are loaded once per group
 *   3  uint flags                   bit 0: length-1 table used;
 *                                   bit 1: length-2 table used;
 *                                   bit 2: test the global filter for all
 *                                   16 windows at once (crowded local filter)
 *                                   instead of one candidate at a time
 *   4  uint classes                 nibble i (from the low end) = k of hashed
 *                                   class i, 3..8; the list ends at a 0 nibble
 *                                   (at most 6 classes)
 *   5  uint lshift                  32 - log2(local filter bits)
 *   6  uint lwords                  local filter size in uints (a power of 2)
 *   7  __global const uint *lfilt   the local filter's image (lwords)
 *   8  __global const uint *direct  2056 uints (length-1 bits, then
 *                                   length-2 bits; index = b0 | b1 << 8)
 *   9  uint gshift                  32 - log2(global filter bits)
 *  10  __global const uint *gfilt   the global filter
 *  11  uint tmask                   hash-table buckets - 1 (a power of 2 - 1)
 *  12  __global const uint *bstart  tmask + 2 entries; bucket b holds the
 *                                   entries bstart[b] .. bstart[b+1] - 1
 *  13  __global const uint4 *ents   per pattern (.x offset in pats, .y
 *                                   length, .z parent entry or 0xFFFFFFFF)
 *  14  __global const uchar *pats   pattern bytes
 *  15  __global uint *out           match start offsets, in no order
 *  16  uint cap                     capacity of out (entries)
 *  17  __global uint *count         0 from the host; ends as the number of
 *                                   matching positions (may exceed cap: the
 *                                   host re-runs with a bigger out)
 *  18  __local uint *lf             lwords uints
 *  19  __local uint *ld             2056 uints if flags & 2, else 8
 *  20  __local uint *res            rcap uints (result staging)
 *  21  uint rcap                    >= 2 (a power of 2 not required)
 *
 * NDRange: 1-D, local size WG (-D WG=..., required), any number of groups
 * (the host launches min(ceil(n / block), a few per compute unit)). Every matching position is reported exactly once.
 * Output: per step a work-item reserves room for its matches with one local
 * atomic; what does not fit in res goes straight to out with one global
 * atomic; res is flushed with ONE global atomic per group when half full
 * and at the end.
 */

#ifndef WG
#define WG 256
#endif
#define POS 16
#define NONE 0xFFFFFFFFu

uchar mfold_byte(uchar c)
{
    return ((uchar)(c - (uchar)'A') < (uchar)26) ? (uchar)(c | (uchar)0x20) : c;
}

/* ASCII lower-casing of 4 bytes at once (bytes >= 0x80 are kept). */
uint fold32(uint x)
{
    uint h = x & 0x7F7F7F7Fu;
    uint ge_a = h + 0x3F3F3F3Fu;  /* high bit: low 7 bits >= 'A' */
    uint gt_z = h + 0x25252525u;  /* high bit: low 7 bits >  'Z' */
    uint up = ge_a & ~gt_z & ~x & 0x80808080u;
    return x | (up >> 2);
}

uint kmask_lo(uint k)
{
    return k >= 4 ? 0xFFFFFFFFu : ((1u << (8 * k)) - 1u);
}

uint kmask_hi(uint k)
{
    return k >= 8 ? 0xFFFFFFFFu : (k > 4 ? ((1u << (8 * (k - 4))) - 1u) : 0u);
}

/* The two hashes; must equal many.rs's hash1 / hash2. */
uint hash1(uint lo, uint hi, uint c)
{
    uint x = (lo * 0x9E3779B1u) ^ (hi * 0x85EBCA77u) ^ ((c + 1u) * 0x27D4EB2Fu);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    return x;
}

uint hash2(uint lo, uint hi, uint c)
{
    uint y = lo ^ (hi * 0x1B873593u + (c + 1u) * 0x165667B1u);
    y ^= y >> 16;
    y *= 0x85EBCA6Bu;
    y ^= y >> 13;
    y *= 0xC2B2AE35u;
    y ^= y >> 16;
    return y;
}

/*
 * Compares pattern e with the text at p (rem = n - p bytes, folded if
 * asked). Returns the length of the common prefix; *le = 1 when the
 * pattern sorts at or before the text (bytewise; a prefix sorts first).
 */
uint cmp_pat(__global const uchar *text, uint p, uint rem,
             __global const uchar *pats, uint4 e, int fold, int *le)
{
    uint m = min(e.y, rem);
    for (uint i = 0; i < m; i++) {
        uchar t = text[p + i];
        if (fold)
            t = mfold_byte(t);
        uchar c = pats[e.x + i];
        if (c != t) {
            *le = c < t;
            return i;
        }
    }
    *le = e.y <= rem;
    return m;
}

/* 1 when some pattern of bucket b occurs at p. */
int verify(__global const uchar *text, uint n, uint p, uint b,
           __global const uint *bstart, __global const uint4 *ents,
           __global const uchar *pats, int fold)
{
    uint s = bstart[b];
    uint e = bstart[b + 1];
    uint rem = n - p;
    uint lo = s, hi = e;
    /* first entry that sorts after the text */
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        int le;
        cmp_pat(text, p, rem, pats, ents[mid], fold, &le);
        if (le)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == s)
        return 0;
    uint node = lo - 1;
    int le;
    uint4 en = ents[node];
    uint l = cmp_pat(text, p, rem, pats, en, fold, &le);
    for (;;) {
        if (en.y <= l)
            return 1;
        node = en.z;
        if (node == NONE)
            return 0;
        en = ents[node];
    }
}

void many_body(__global const uchar *text, uint n, uint block, uint flags,
               uint classes, uint lshift, uint lwords,
               __global const uint *lfilt, __global const uint *direct,
               uint gshift, __global const uint *gfilt, uint tmask,
               __global const uint *bstart, __global const uint4 *ents,
               __global const uchar *pats, __global uint *out, uint cap,
               __global uint *count, __local uint *lf, __local uint *ld,
               __local uint *res, uint rcap, __local uint *ctr, int fold)
{
    const uint lid = (uint)get_local_id(0);
    const uint gid = (uint)get_group_id(0);
    const uint ngroups = (uint)get_num_groups(0);
    if ((ulong)gid * block >= n)
        return;

    for (uint i = lid; i < lwords; i += WG)
        lf[i] = lfilt[i];
    const uint dwords = (flags & 2u) ? 2056u : 8u;
    for (uint i = lid; i < dwords; i += WG)
        ld[i] = direct[i];
    if (lid == 0) {
        ctr[0] = 0;
        ctr[1] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint blk = gid; (ulong)blk * block < n; blk += ngroups) {
    const uint start = blk * block;
    const uint end = min(start + block, n);
    const int last_block = (ulong)(blk + ngroups) * block >= n;
    for (uint base = start; base < end; base += WG * POS) {
        const uint cs = base + lid * POS;
        uint matched = 0;
        if (cs < end) {
            const uint cnt = min((uint)POS, end - cs);
            const uint vmask = (cnt >= 32u) ? 0xFFFFFFFFu : ((1u << cnt) - 1u);
            __global const uint *tw = (__global const uint *)(text + cs);
            uint4 a = vload4(0, tw);
            uint2 b = vload2(0, tw + 4);
            uint w[6];
            w[0] = a.x; w[1] = a.y; w[2] = a.z; w[3] = a.w; w[4] = b.x; w[5] = b.y;
            if (fold) {
#pragma unroll
                for (int q = 0; q < 6; q++)
                    w[q] = fold32(w[q]);
            }
            /* L[j] = the 4 bytes starting at cs + j */
            uint L[POS + 4];
#pragma unroll
            for (int j = 0; j < POS + 4; j++) {
                const int q = j >> 2, r = (j & 3) * 8;
                L[j] = r ? ((w[q] >> r) | (w[q + 1] << (32 - r))) : w[q];
            }
            if (flags & 1u) {
#pragma unroll
                for (int j = 0; j < POS; j++) {
                    uint x = L[j] & 0xFFu;
                    matched |= ((ld[x >> 5] >> (x & 31u)) & 1u) << j;
                }
            }
            if (flags & 2u) {
                /* both bytes must lie before n */
                uint m2 = (cs + POS < n) ? 0xFFFFu : ((n - cs > 1u) ? ((1u << (n - cs - 1u)) - 1u) : 0u);
                uint hit = 0;
#pragma unroll
                for (int j = 0; j < POS; j++) {
                    uint x = L[j] & 0xFFFFu;
                    hit |= ((ld[8u + (x >> 5)] >> (x & 31u)) & 1u) << j;
                }
                matched |= hit & m2;
            }
            matched &= vmask;
            uint cl = classes;
            for (uint c = 0; (cl & 15u) != 0u; c++, cl >>= 4) {
                const uint k = cl & 15u;
                const uint mlo = kmask_lo(k), mhi = kmask_hi(k);
                uint cand = 0;
#pragma unroll
                for (int j = 0; j < POS; j++) {
                    uint h = hash1(L[j] & mlo, L[j + 4] & mhi, c) >> lshift;
                    cand |= ((lf[h >> 5] >> (h & 31u)) & 1u) << j;
                }
                cand &= vmask & ~matched;
                /* stage 2 from registers (flag 4, set by the host for crowded
                 * local filters): the global-filter loads of all candidates
                 * are independent, so they overlap */
                if ((flags & 4u) && cand != 0u) {
                    uint c2 = 0;
#pragma unroll
                    for (int j = 0; j < POS; j++) {
                        if ((cand >> j) & 1u) {
                            const uint g = hash2(L[j] & mlo, L[j + 4] & mhi, c) >> gshift;
                            c2 |= ((gfilt[g >> 5] >> (g & 31u)) & 1u) << j;
                        }
                    }
                    cand = c2;
                }
                while (cand != 0u) {
                    const uint j = 31u - clz(cand & (0u - cand));
                    cand &= cand - 1u;
                    const uint p = cs + j;
                    if (k > n - p)
                        continue;
                    uint2 kw = as_uint2(vload8(0, text + p));
                    if (fold) {
                        kw.x = fold32(kw.x);
                        kw.y = fold32(kw.y);
                    }
                    const uint h2 = hash2(kw.x & mlo, kw.y & mhi, c);
                    if ((flags & 4u) == 0u) {
                        const uint g = h2 >> gshift;
                        if (((gfilt[g >> 5] >> (g & 31u)) & 1u) == 0u)
                            continue;
                    }
                    if (verify(text, n, p, h2 & tmask, bstart, ents, pats, fold))
                        matched |= 1u << j;
                }
            }
        }

        /* stage this step's matches */
        const uint nm = popcount(matched);
        if (nm != 0u) {
            uint k = atomic_add(&ctr[0], nm);
            uint over = (k + nm > rcap) ? (k + nm - max(k, rcap)) : 0u;
            uint gb = 0;
            if (over != 0u)
                gb = atomic_add(count, over);
            uint mm = matched;
            uint i = 0;
            while (mm != 0u) {
                const uint j = 31u - clz(mm & (0u - mm));
                mm &= mm - 1u;
                const uint slot = k + i;
                if (slot < rcap) {
                    res[slot] = cs + j;
                } else {
                    const uint g = gb + (slot - max(k, rcap));
                    if (g < cap)
                        out[g] = cs + j;
                }
                i++;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint nr = min(ctr[0], rcap);
        const int last = last_block && base + WG * POS >= end;
        if (nr > 0u && (last || nr >= rcap / 2u)) {
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
}

__kernel void many_literals(__global const uchar *text, uint n, uint block,
                            uint flags, uint classes, uint lshift,
                            uint lwords, __global const uint *lfilt,
                            __global const uint *direct, uint gshift,
                            __global const uint *gfilt, uint tmask,
                            __global const uint *bstart,
                            __global const uint4 *ents,
                            __global const uchar *pats, __global uint *out,
                            uint cap, __global uint *count, __local uint *lf,
                            __local uint *ld, __local uint *res, uint rcap)
{
    __local uint ctr[2];
    many_body(text, n, block, flags, classes, lshift, lwords, lfilt, direct,
              gshift, gfilt, tmask, bstart, ents, pats, out, cap, count, lf,
              ld, res, rcap, ctr, 0);
}

__kernel void many_literals_fold(__global const uchar *text, uint n,
                                 uint block, uint flags, uint classes,
                                 uint lshift, uint lwords,
                                 __global const uint *lfilt,
                                 __global const uint *direct, uint gshift,
                                 __global const uint *gfilt, uint tmask,
                                 __global const uint *bstart,
                                 __global const uint4 *ents,
                                 __global const uchar *pats,
                                 __global uint *out, uint cap,
                                 __global uint *count, __local uint *lf,
                                 __local uint *ld, __local uint *res,
                                 uint rcap)
{
    __local uint ctr[2];
    many_body(text, n, block, flags, classes, lshift, lwords, lfilt, direct,
              gshift, gfilt, tmask, bstart, ents, pats, out, cap, count, lf,
              ld, res, rcap, ctr, 1);
}
