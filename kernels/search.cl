/*
 * search.cl -- batched search of many keys in one sorted array (OpenCL C 1.2).
 *
 * Every kernel answers the same question for each key: the LOWER BOUND, i.e.
 * the first index j in the sorted array `hay` (n elements) with
 * hay[j] >= key, or n when every element is smaller.  That is Rust's
 * `hay.partition_point(|x| *x < key)`.
 *
 * Build options (the host passes them):
 *   -DKEY_T=int     (or ulong, uint, long): the element and key type; the
 *                   comparison is KEY_T's own `<` (signed for int/long).
 * Limits (checked by the host): n <= 2^31 - 2, nkeys * segs < 2^32.
 * Indices are `uint` throughout.
 *
 * ---------------------------------------------------------------------------
 * Kernels and argument layouts
 * ---------------------------------------------------------------------------
 * lower_bound_binary(hay, n, keys, nkeys, out)
 *   0 const global KEY_T *hay   sorted ascending, n elements
 *   1 uint n
 *   2 const global KEY_T *keys  nkeys keys, any order
 *   3 uint nkeys
 *   4 global uint *out          out[k] = lower bound of keys[k]
 *   NDRange: 1-D, global >= nkeys (extra work-items exit), any local size.
 *
 * nary_pass(hay, n, keys, nkeys, lo_in, hi_in, lo_out, hi_out, segs)
 *   One pass of N-ary search, N = segs, host-enqueued (OpenCL 1.2 form).
 *   0-3  as above
 *   4 const global uint *lo_in   5 const global uint *hi_in
 *   6 global uint *lo_out        7 global uint *hi_out
 *   8 uint segs                  number of segments N per pass, >= 2
 *   State: the lower bound of key k lies in [lo[k], hi[k]] (inclusive);
 *   before the first pass lo = 0, hi = n.  A pass cuts the hi-lo unknown
 *   elements into N segments of ceil(len/N), work-item (k, s) tests segment
 *   s by reading the segment's last element (and the one before the
 *   segment), and the one work-item whose segment holds the bound writes
 *   the narrowed range.  The length goes from len to at most
 *   ceil(len/N)-1, so after nary_passes(n, N) passes (see the host) lo==hi
 *   is the answer.  The state is double-buffered (in -> out) because
 *   work-items of one key may run in different work-groups.
 *   NDRange: 1-D, global >= nkeys*segs, work-item g is key g/segs,
 *   segment g%segs.
 *
 * nary_local(hay, n, keys, nkeys, out, segs, passes, keys_per_group,
 *            l_key, l_lo, l_hi, l_flag)
 *   N-ary search in ONE launch: a work-group takes keys_per_group keys at a
 *   time (segs work-items per key), keeps their ranges in local memory and
 *   loops over all the passes with barriers; it then takes the next chunk
 *   of keys (groups stride over the key chunks).
 *   0-3 as above, 4 global uint *out (out[k] = lower bound),
 *   5 uint segs, 6 uint passes (= nary_passes(n, segs)),
 *   7 uint keys_per_group (K),
 *   8 local KEY_T *l_key [K], 9 local uint *l_lo [K], 10 local uint *l_hi [K],
 *   11 local uchar *l_flag [K*segs]
 *   NDRange: 1-D, local size = K*segs exactly, global = a multiple of it.
 *
 * eytzinger_build(sorted, n, eyt)
 *   0 const global KEY_T *sorted  1 uint n  2 global KEY_T *eyt
 *   eyt[i] = sorted[eytzinger_rank(i+1, n)]: the array in BFS order of the
 *   complete binary search tree (node k's children are 2k and 2k+1, 1-based).
 *   Works for any n (not only 2^h - 1): see eytzinger_rank.
 *   NDRange: 1-D, global >= n.
 *
 * lower_bound_eytzinger(eyt, n, keys, nkeys, out)
 *   0 const global KEY_T *eyt (from eytzinger_build)  1 uint n
 *   2-3 keys, nkeys  4 global uint *out: the lower bound as an index into
 *   the SORTED array (n when none), so the answers equal the other kernels'.
 *   NDRange: 1-D, global >= nkeys.
 *
 * blocked_bounds(hay, n, keys, nkeys, bounds)
 *   First launch of the two-launch BLOCKED search.  Keys are cut into
 *   blocks of B = get_local_size(search) * BLOCKED_KPT consecutive keys
 *   (BLOCKED_KPT: build option, default 4; the host passes the same B).
 *   Work-item g computes, by plain binary search, the lower bound of the
 *   block's first key (g even) or last key (g odd) of block g/2.
 *   0-3 as above, 4 uint block_keys (B),
 *   5 global uint *bounds  [2 * nblocks]: (L, H) per block
 *   NDRange: 1-D, global >= 2 * nblocks.
 *
 * lower_bound_blocked(hay, n, keys, nkeys, out, bounds, cap, l_hay)
 *   Second launch: one work-group per block of B keys (work-item t owns
 *   keys b0 + t + j*WG, j < BLOCKED_KPT: coalesced key loads and stores).
 *   The group loads hay[L .. L + min(H - L, cap)) coalesced into local
 *   memory and every key is binary-searched there.  Correct for keys in
 *   ANY order: each key's answer is narrowed to [glo, ghi] from
 *   (key >= first key -> >= L), (key <= last key -> <= H) and the window
 *   search; keys the window does not decide (unsorted blocks, or a window
 *   capped at `cap` for sparse keys) finish with a global binary search
 *   over hay[glo .. ghi).  For a sorted block whose range fits, no key
 *   touches global memory except its own load and store.
 *   0-4 as lower_bound_binary, 5 const global uint *bounds (from
 *   blocked_bounds), 6 uint cap (window capacity, elements),
 *   7 local KEY_T *l_hay [cap]
 *   NDRange: 1-D, local size WG <= BLOCKED_MAX_WG (256), global =
 *   nblocks * WG; block = work-group id.
 *
 * lower_bound_blocked_fused(hay, n, keys, nkeys, out, cap, l_hay)
 *   The same in ONE launch: each work-group finds its own (L, H) with a
 *   cooperative search (half of the group probes WG/2 evenly spaced
 *   elements per round for the first key, the other half for the last
 *   key; ~log_{WG/2}(n) rounds instead of log2(n) dependent loads).
 *   Arguments as lower_bound_blocked without `bounds`:
 *   0-4 as lower_bound_binary, 5 uint cap, 6 local KEY_T *l_hay [cap]
 *   NDRange: as lower_bound_blocked, WG >= 2.
 *
 * search_enqueue.cl (OpenCL C 2.0, device-side enqueue) is compiled
 * together with this file and reuses nary_step().
 */

#ifndef KEY_T
#error "build with -DKEY_T=<type>"
#endif

/* One work-item's share of an N-ary pass: key k, segment s.  Reads the
 * key's range from (lo_in, hi_in) and, when its segment holds the bound,
 * writes the narrowed range to (lo_out, hi_out).  Keys already converged
 * are copied by segment 0. */
inline void nary_step(const __global KEY_T *hay, uint n,
                      const __global KEY_T *keys, uint nkeys,
                      const __global uint *lo_in, const __global uint *hi_in,
                      __global uint *lo_out, __global uint *hi_out,
                      uint segs, uint gid)
{
    uint k = gid / segs;
    uint s = gid - k * segs;
    if (k >= nkeys)
        return;
    uint lo = lo_in[k];
    uint hi = hi_in[k];
    if (lo >= hi) {
        if (s == 0) {
            lo_out[k] = lo;
            hi_out[k] = hi;
        }
        return;
    }
    uint len = hi - lo;
    uint seg = (len - 1) / segs + 1;
    uint start = lo + s * seg;
    if (start >= hi)
        return;
    uint end = min(start + seg, hi);
    KEY_T key = keys[k];
    bool end_below = hay[end - 1] < key;
    bool before_below = (s == 0) ? true : (hay[start - 1] < key);
    if (before_below && !end_below) {
        /* bound in [start, end-1]: hay[end-1] >= key, hay[start-1] < key */
        lo_out[k] = start;
        hi_out[k] = end - 1;
    } else if (end_below && end == hi) {
        /* every probed element is below the key: the bound is hi */
        lo_out[k] = hi;
        hi_out[k] = hi;
    }
}

__kernel void lower_bound_binary(const __global KEY_T *hay, uint n,
                                 const __global KEY_T *keys, uint nkeys,
                                 __global uint *out)
{
    uint k = get_global_id(0);
    if (k >= nkeys)
        return;
    KEY_T key = keys[k];
    /* Binary lifting: lo counts the elements known to be < key; try to add
     * each power of two from the highest one <= n down.  Every work-item
     * runs the same number of steps (floor(log2 n) + 1): no divergence. */
    uint lo = 0;
    if (n > 0) {
        for (uint step = 1u << (31 - clz(n)); step > 0; step >>= 1) {
            uint probe = lo + step;
            if (probe <= n && hay[probe - 1] < key)
                lo = probe;
        }
    }
    out[k] = lo;
}

__kernel void nary_pass(const __global KEY_T *hay, uint n,
                        const __global KEY_T *keys, uint nkeys,
                        const __global uint *lo_in, const __global uint *hi_in,
                        __global uint *lo_out, __global uint *hi_out,
                        uint segs)
{
    nary_step(hay, n, keys, nkeys, lo_in, hi_in, lo_out, hi_out, segs,
              (uint)get_global_id(0));
}

__kernel void nary_local(const __global KEY_T *hay, uint n,
                         const __global KEY_T *keys, uint nkeys,
                         __global uint *out, uint segs, uint passes,
                         uint keys_per_group,
                         __local KEY_T *l_key, __local uint *l_lo,
                         __local uint *l_hi, __local uchar *l_flag)
{
    uint lid = get_local_id(0);
    uint kl = lid / segs;          /* key slot in this group */
    uint s = lid - kl * segs;      /* segment of this work-item */
    uint chunk = keys_per_group;
    uint stride = get_num_groups(0) * chunk;
    /* The loop bounds are the same for the whole group, so every work-item
     * reaches every barrier. */
    for (uint base = get_group_id(0) * chunk; base < nkeys; base += stride) {
        uint k = base + kl;
        if (s == 0) {
            bool live = k < nkeys;
            l_key[kl] = live ? keys[k] : (KEY_T)0;
            l_lo[kl] = 0;
            l_hi[kl] = live ? n : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint p = 0; p < passes; ++p) {
            uint lo = l_lo[kl];
            uint hi = l_hi[kl];
            uint start = hi, end = hi;
            if (lo < hi) {
                uint len = hi - lo;
                uint seg = (len - 1) / segs + 1;
                start = lo + s * seg;
                if (start < hi) {
                    end = min(start + seg, hi);
                    l_flag[lid] = hay[end - 1] < l_key[kl];
                } else {
                    start = hi;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (start < hi) {
                bool end_below = l_flag[lid];
                bool before_below = (s == 0) ? true : l_flag[lid - 1];
                if (before_below && !end_below) {
                    l_lo[kl] = start;
                    l_hi[kl] = end - 1;
                } else if (end_below && end == hi) {
                    l_lo[kl] = hi;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (s == 0 && k < nkeys)
            out[k] = l_lo[kl];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Rank in the sorted array of Eytzinger node `node` (1-based) in a complete
 * tree of n nodes.  In the perfect tree of height H = floor(log2 n), node
 * `node` at depth d, position p within its level, has in-order rank
 * (2p+1)*2^(H-d) - 1.  The last level holds only m = n - (2^H - 1) nodes,
 * the leftmost ones; its missing nodes j >= m would have had ranks 2j, so
 * subtract the number of missing nodes ranked before r: max(0, ceil(r/2)-m). */
inline uint eytzinger_rank(uint node, uint n)
{
    uint h = 31 - clz(n);
    uint d = 31 - clz(node);
    uint p = node - (1u << d);
    uint r = ((2 * p + 1) << (h - d)) - 1;
    uint m = n - ((1u << h) - 1);
    uint half_len = (r + 1) >> 1;
    return half_len > m ? r - (half_len - m) : r;
}

__kernel void eytzinger_build(const __global KEY_T *sorted, uint n,
                              __global KEY_T *eyt)
{
    uint i = get_global_id(0);
    if (i >= n)
        return;
    eyt[i] = sorted[eytzinger_rank(i + 1, n)];
}

__kernel void lower_bound_eytzinger(const __global KEY_T *eyt, uint n,
                                    const __global KEY_T *keys, uint nkeys,
                                    __global uint *out)
{
    uint k = get_global_id(0);
    if (k >= nkeys)
        return;
    KEY_T key = keys[k];
    uint node = 1;
    while (node <= n)
        node = 2 * node + (eyt[node - 1] < key ? 1u : 0u);
    /* Undo the trailing right turns and the last left turn: the node where
     * the search last went left is the lower bound (0: none). */
    node >>= popcount(node ^ (node + 1));
    out[k] = node == 0 ? n : eytzinger_rank(node, n);
}

/* ---------------------------------------------------------------------------
 * Blocked search (batches of keys, fast when the batch is sorted)
 * ------------------------------------------------------------------------- */

#ifndef BLOCKED_KPT
#define BLOCKED_KPT 4
#endif
#define BLOCKED_MAX_WG 256

/* Lower bound of key in hay[lo .. lo + len), given that the answer lies in
 * [lo, lo + len]: lo + the number of elements there below key. */
inline uint lift_global(const __global KEY_T *hay, uint lo, uint len,
                        KEY_T key)
{
    uint r = 0;
    if (len > 0) {
        for (uint step = 1u << (31 - clz(len)); step > 0; step >>= 1) {
            uint p = r + step;
            if (p <= len && hay[lo + p - 1] < key)
                r = p;
        }
    }
    return lo + r;
}

/* The same over local memory. */
inline uint lift_local(const __local KEY_T *w, uint len, KEY_T key)
{
    uint r = 0;
    if (len > 0) {
        for (uint step = 1u << (31 - clz(len)); step > 0; step >>= 1) {
            uint p = r + step;
            if (p <= len && w[p - 1] < key)
                r = p;
        }
    }
    return r;
}

__kernel void blocked_bounds(const __global KEY_T *hay, uint n,
                             const __global KEY_T *keys, uint nkeys,
                             uint block_keys, __global uint *bounds)
{
    uint g = get_global_id(0);
    uint b = g >> 1;
    /* host: nkeys + block_keys <= UINT_MAX, so neither line overflows */
    if (b >= (nkeys + block_keys - 1) / block_keys)
        return;
    uint b0 = b * block_keys;
    uint idx = (g & 1) ? min(nkeys - b0, block_keys) - 1 + b0 : b0;
    bounds[g] = lift_global(hay, 0, n, keys[idx]);
}

/* Shared tail of both blocked kernels: the group's answers lie in [L, H]
 * for keys within [key0, keyl]; kv holds this work-item's keys. */
inline void blocked_finish(const __global KEY_T *hay, uint n,
                           const __global KEY_T *keys, uint b0, uint bend,
                           __global uint *out, uint L, uint H, uint cap,
                           __local KEY_T *l_hay, KEY_T *kv)
{
    uint lid = get_local_id(0);
    uint wg = get_local_size(0);
    /* H < L only for an unsorted block (first key > last key). */
    uint wl = H > L ? min(H - L, cap) : 0;
    for (uint i = lid; i < wl; i += wg)
        l_hay[i] = hay[L + i];
    KEY_T key0 = keys[b0];
    KEY_T keyl = keys[bend - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < BLOCKED_KPT; ++j) {
        uint i = b0 + lid + j * wg;
        if (i >= bend)
            break;
        KEY_T k = kv[j];
        uint glo = k >= key0 ? L : 0;
        uint ghi = k <= keyl ? H : n;
        uint r = lift_local(l_hay, wl, k);
        /* window = hay[L .. L + wl): r > 0 means hay[L+r-1] < k,
         * r < wl means hay[L+r] >= k. */
        if (r > 0)
            glo = max(glo, L + r);
        if (r < wl)
            ghi = min(ghi, L + r);
        if (glo < ghi)
            glo = lift_global(hay, glo, ghi - glo, k);
        out[i] = glo;
    }
}

inline void blocked_load_keys(const __global KEY_T *keys, uint b0, uint bend,
                              KEY_T *kv)
{
    uint lid = get_local_id(0);
    uint wg = get_local_size(0);
    for (uint j = 0; j < BLOCKED_KPT; ++j) {
        uint i = b0 + lid + j * wg;
        kv[j] = i < bend ? keys[i] : (KEY_T)0;
    }
}

__kernel void lower_bound_blocked(const __global KEY_T *hay, uint n,
                                  const __global KEY_T *keys, uint nkeys,
                                  __global uint *out,
                                  const __global uint *bounds, uint cap,
                                  __local KEY_T *l_hay)
{
    uint grp = get_group_id(0);
    uint bk = get_local_size(0) * BLOCKED_KPT;
    uint b0 = grp * bk;
    if (b0 >= nkeys)
        return;                 /* whole group: no barrier is skipped */
    uint bend = min(nkeys - b0, bk) + b0;
    KEY_T kv[BLOCKED_KPT];
    blocked_load_keys(keys, b0, bend, kv);
    uint L = bounds[2 * grp];
    uint H = bounds[2 * grp + 1];
    blocked_finish(hay, n, keys, b0, bend, out, L, H, cap, l_hay, kv);
}

__kernel void lower_bound_blocked_fused(const __global KEY_T *hay, uint n,
                                        const __global KEY_T *keys,
                                        uint nkeys, __global uint *out,
                                        uint cap, __local KEY_T *l_hay)
{
    __local uint l_range[4];    /* lo0, hi0, lo1, hi1 */
    __local uchar l_flag[BLOCKED_MAX_WG];
    uint lid = get_local_id(0);
    uint wg = get_local_size(0);
    uint grp = get_group_id(0);
    uint bk = wg * BLOCKED_KPT;
    uint b0 = grp * bk;
    if (b0 >= nkeys)
        return;                 /* whole group */
    uint bend = min(nkeys - b0, bk) + b0;
    KEY_T kv[BLOCKED_KPT];
    blocked_load_keys(keys, b0, bend, kv);

    /* Cooperative search: searcher s (0: first key, 1: last key) uses the
     * P = wg/2 work-items s*P .. s*P+P-1.  The bound lies in [lo, hi];
     * a round probes q_t = lo + (t+1)*seg - 1 (seg = ceil(len/P)), the
     * flags hay[q_t] < key are monotone, and the last true flag (or t = 0
     * with a false one) writes the new range: length <= seg - 1. */
    uint P = wg >> 1;
    uint s = lid >= P ? 1u : 0u;
    uint t = lid - s * P;
    KEY_T skey = keys[s ? bend - 1 : b0];
    if (lid == 0) {
        l_range[0] = 0;
        l_range[1] = n;
        l_range[2] = 0;
        l_range[3] = n;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (;;) {
        uint lo = l_range[2 * s], hi = l_range[2 * s + 1];
        /* Uniform exit: every work-item reads the same four values. */
        bool done = l_range[0] == l_range[1] && l_range[2] == l_range[3];
        if (done)
            break;
        uint seg = 0, q = hi;
        if (lo < hi) {
            seg = (hi - lo - 1) / P + 1;
            q = lo + (t + 1) * seg - 1;   /* < hi + P: no overflow */
        }
        l_flag[lid] = (q < hi && hay[q] < skey) ? 1 : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lo < hi) {
            bool f = l_flag[lid];
            bool fn = t + 1 < P ? l_flag[lid + 1] : false;
            if ((t == 0 && !f) || (f && !fn)) {
                uint c = f ? t + 1 : 0;
                l_range[2 * s] = lo + c * seg;
                l_range[2 * s + 1] = min(lo + (c + 1) * seg - 1, hi);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    blocked_finish(hay, n, keys, b0, bend, out, l_range[0], l_range[2], cap,
                   l_hay, kv);
}
