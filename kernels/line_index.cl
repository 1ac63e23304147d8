/* line_index.cl -- line numbers of match offsets, computed where the text
 * already is (OpenCL C 1.2).
 *
 * After a literal kernel has written a batch's match offsets (unordered,
 * distinct) into `offs`, these kernels turn them into one entry per
 * DISTINCT matching line, sorted by line: (line number within the batch,
 * first match offset on that line), plus the batch's newline count. The
 * host never scans the batch to number lines; only these entries come back.
 *
 *   1. nl_block_counts   newlines per text block (BB = WG * IB bytes)
 *   2. scan_counts       exclusive scan of the block counts (one group)
 *   3. nl_compact        newline positions, in order -> nl_index
 *   4. line_mark         per offset: line = lower bound in nl_index;
 *                        first[line] = atomic_min(first[line], offset)
 *   5. line_block_counts marked lines per line block (LBB = WG * LB lines)
 *   6. scan_counts       again, over the line block counts
 *   7. line_compact      marked lines, in order -> (out_lines, out_first);
 *                        each visited first[] entry is reset to EMPTY, so the
 *                        array is clean for the next batch without a fill
 *
 * Build options: -cl-std=CL1.2 -D WG=<work-group size, a power of two>.
 * Every kernel requires local size WG. The text buffer holds n bytes
 * followed by padding (the host's PAD); bytes at or past n are never read as
 * text (padding is '\n' and must not count).
 *
 * `info` (global uint[4]) collects the scalars:
 *   info[0] newline count of text[0..n)   (written by scan 2)
 *   info[1] distinct matching lines       (written by scan 6)
 * When info[0] > cap_nl the newline index did not fit: kernels 4-7 do
 * nothing (first[] stays clean) and the host numbers the batch itself.
 *
 * nl_block_counts(text, n, counts)
 *   0 const global uchar *text   1 uint n   2 global uint *counts
 *   NDRange: global = ceil(n / BB) * WG.  counts[g] = newlines in block g.
 *
 * scan_counts(counts, nblocks, info, slot)
 *   0 global uint *counts (in place)   1 uint nblocks
 *   2 global uint *info                3 uint slot (info index for the sum)
 *   NDRange: global = local = WG (one group walks all blocks, SP per item
 *   per round, carrying the running sum).
 *
 * nl_compact(text, n, counts, nl_index, cap_nl)
 *   0 text  1 uint n  2 const global uint *counts (scanned)
 *   3 global uint *nl_index   4 uint cap_nl (positions past it are dropped)
 *   NDRange: as nl_block_counts.
 *
 * line_mark(nl_index, info, cap_nl, offs, count, cap, first)
 *   0 const global uint *nl_index   1 const global uint *info   2 uint cap_nl
 *   3 const global uint *offs   4 const global uint *count (matches found;
 *   may exceed cap)   5 uint cap (offsets stored)   6 global uint *first
 *   (cap_nl + 1 entries, EMPTY except where marked)
 *   NDRange: any multiple of WG; grid-stride over min(count, cap) offsets.
 *
 * line_block_counts(first, info, cap_nl, counts)
 *   0 const global uint *first   1 const global uint *info   2 uint cap_nl
 *   3 global uint *counts
 *   NDRange: global = nblocks * WG with nblocks * LBB >= lines of the batch
 *   (at most min(n, cap_nl) + 1); blocks past the last line write 0.
 *   (No kernel here returns before a barrier: PoCL hangs on that.)
 *
 * line_compact(first, info, cap_nl, counts, out_lines, out_first, cap_out)
 *   0 global uint *first   1 info   2 uint cap_nl   3 const global uint
 *   *counts (scanned)   4 global uint *out_lines   5 global uint *out_first
 *   6 uint cap_out (entries past it are dropped; the host sees info[1])
 *   NDRange: as line_block_counts.
 */

#ifndef WG
#define WG 256
#endif

#define IB 64u            /* text bytes per work-item */
#define BB (WG * IB)      /* text bytes per block */
#define LB 16u            /* line entries per work-item */
#define LBB (WG * LB)     /* line entries per block */
#define SP 4u             /* counts per work-item per scan round */
#define EMPTY 0xFFFFFFFFu

/* Exclusive scan of x over the work-group; *total receives the sum.
 * tmp: WG uints of local memory. Every work-item must call it. */
inline uint wg_exclusive_scan(uint x, local uint *tmp, uint *total)
{
    uint lid = get_local_id(0);
    tmp[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        uint v = lid >= d ? tmp[lid - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint incl = tmp[lid];
    *total = tmp[WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - x;
}

/* The work-item's IB bytes starting at p into b (bytes at or past n read as
 * 0). p is a multiple of IB, so the vector loads are aligned. */
inline void load_item(global const uchar *text, uint n, uint p, uchar *b)
{
    if (p + IB <= n) {
        for (uint k = 0; k < IB / 16u; k++)
            vstore16(vload16(0, text + p + 16u * k), 0, b + 16u * k);
    } else {
        for (uint j = 0; j < IB; j++)
            b[j] = (p + j < n) ? text[p + j] : (uchar)0;
    }
}

/* Newlines among the IB bytes of b. */
inline uint count_nl(const uchar *b)
{
    uint c = 0;
    for (uint k = 0; k < IB / 16u; k++) {
        uchar16 v = vload16(0, b + 16u * k);
        uint4 w = as_uint4(as_uchar16(v == (uchar16)((uchar)'\n')) & (uchar16)((uchar)1));
        uint s = w.x + w.y + w.z + w.w;   /* each byte lane <= 4 */
        c += (s * 0x01010101u) >> 24;
    }
    return c;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void nl_block_counts(global const uchar *text, uint n, global uint *counts)
{
    local uint tmp[WG];
    uchar b[IB];
    uint p = get_group_id(0) * BB + get_local_id(0) * IB;
    load_item(text, n, p, b);
    uint total;
    wg_exclusive_scan(count_nl(b), tmp, &total);
    if (get_local_id(0) == 0)
        counts[get_group_id(0)] = total;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void scan_counts(global uint *counts, uint nblocks, global uint *info, uint slot)
{
    local uint tmp[WG];
    uint lid = get_local_id(0);
    uint carry = 0;
    for (uint base = 0; base < nblocks; base += WG * SP) {
        uint v[SP];
        uint sum = 0;
        for (uint k = 0; k < SP; k++) {
            uint i = base + lid * SP + k;
            v[k] = i < nblocks ? counts[i] : 0u;
            sum += v[k];
        }
        uint total;
        uint pre = carry + wg_exclusive_scan(sum, tmp, &total);
        for (uint k = 0; k < SP; k++) {
            uint i = base + lid * SP + k;
            if (i < nblocks)
                counts[i] = pre;
            pre += v[k];
        }
        carry += total;
    }
    if (lid == 0)
        info[slot] = carry;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void nl_compact(global const uchar *text, uint n, global const uint *counts,
                       global uint *nl_index, uint cap_nl)
{
    local uint tmp[WG];
    uchar b[IB];
    uint p = get_group_id(0) * BB + get_local_id(0) * IB;
    load_item(text, n, p, b);
    uint c = count_nl(b);
    uint total;
    uint at = counts[get_group_id(0)] + wg_exclusive_scan(c, tmp, &total);
    if (c == 0)
        return;
    for (uint j = 0; j < IB; j++) {
        if (b[j] == (uchar)'\n' && p + j < n) {
            if (at < cap_nl)
                nl_index[at] = p + j;
            at++;
        }
    }
}

/* Number of elements of a[0..len) that are < key (a sorted ascending). */
inline uint lower_bound_u32(global const uint *a, uint len, uint key)
{
    uint lo = 0;
    while (len > 0) {
        uint h = len >> 1;
        if (a[lo + h] < key) {
            lo += h + 1;
            len -= h + 1;
        } else {
            len = h;
        }
    }
    return lo;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void line_mark(global const uint *nl_index, global const uint *info, uint cap_nl,
                      global const uint *offs, global const uint *count, uint cap,
                      global uint *first)
{
    uint nl = info[0];
    if (nl > cap_nl)
        return;
    uint m = min(count[0], cap);
    for (uint i = get_global_id(0); i < m; i += get_global_size(0)) {
        uint off = offs[i];
        uint line = lower_bound_u32(nl_index, nl, off);
        atomic_min(&first[line], off);
    }
}

/* How many of the work-item's LB line entries are marked (lines < nlines). */
inline uint marked(global const uint *first, uint e0, uint nlines)
{
    uint c = 0;
    if (e0 >= nlines)
        return 0;
    for (uint k = 0; k < LB; k++) {
        uint e = e0 + k;
        c += (e < nlines && first[e] != EMPTY) ? 1u : 0u;
    }
    return c;
}

/* Lines of the batch, or 0 when the newline index overflowed. */
inline uint batch_lines(global const uint *info, uint cap_nl)
{
    uint nl = info[0];
    return nl > cap_nl ? 0u : nl + 1u;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void line_block_counts(global const uint *first, global const uint *info, uint cap_nl,
                              global uint *counts)
{
    local uint tmp[WG];
    uint nlines = batch_lines(info, cap_nl);
    uint g = get_group_id(0);
    /* No early return before the scan's barriers (PoCL hangs on one, even
     * when it is uniform per group); marked() is 0 past the last line. */
    uint c = marked(first, g * LBB + get_local_id(0) * LB, nlines);
    uint total;
    wg_exclusive_scan(c, tmp, &total);
    if (get_local_id(0) == 0)
        counts[g] = total;
}

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void line_compact(global uint *first, global const uint *info, uint cap_nl,
                         global const uint *counts, global uint *out_lines,
                         global uint *out_first, uint cap_out)
{
    local uint tmp[WG];
    uint nlines = batch_lines(info, cap_nl);
    uint g = get_group_id(0);
    uint e0 = g * LBB + get_local_id(0) * LB;
    uint c = marked(first, e0, nlines);
    uint total;
    uint at = counts[g] + wg_exclusive_scan(c, tmp, &total);
    if (c == 0)
        return;
    for (uint k = 0; k < LB; k++) {
        uint e = e0 + k;
        if (e >= nlines)
            break;
        uint f = first[e];
        if (f == EMPTY)
            continue;
        if (at < cap_out) {
            out_lines[at] = e;
            out_first[at] = f;
        }
        at++;
        first[e] = EMPTY;
    }
}
