// dfa.cl: candidate lines of regex patterns, decided by dense DFAs built on
// the host (src/engine/dfa_table.rs, over-approximations of the patterns:
// every line the exact regex matches is a candidate; the CPU confirms).
//
// Kernel `dfa_lines` runs the full groups over the whole text; `dfa_near`
// (at the end, under `-D DFA_NEAR`) runs the near groups only on the lines
// where many_literals.cl's `many_literals_fold` found one of their factors.
//
// Kernel `dfa_lines` (build `-D WG=`; 2-D NDRange: dimension 0 covers the
// text in segments of `seg` bytes, one per work-item, in work-groups of WG;
// dimension 1 is the (full) DFA group, local size 1):
//
//   #  argument
//   0  global const uchar  *text     n bytes (+ padding)
//   1  uint                 n
//   2  uint                 seg       bytes per work-item
//   3  global const uint4  *groups    per group: x = table offset (entries,
//                                     into t16 or t32), y = premultiplied
//                                     start state, z = 1: u16 table copied
//                                     to local memory, 0: u32 table read
//                                     from global memory, w = entries
//   4  global const uchar  *classes   256 byte classes per group
//   5  global const ushort *t16       the local groups' tables
//   6  global const uint   *t32       the global groups' tables
//   7  global uint         *out       start offsets of candidate lines
//   8  uint                 cap       entries of out
//   9  global uint         *count     lines found (may exceed cap: the host
//                                     then runs the batch again, bigger)
//  10  local ushort        *ltab      max local entries
//  11  local uchar         *lcls      256
//  12  uint                 span      bytes a work-item may step past its
//                                     segment's end to finish its last line
//
// Table entry t[s + class(b)]: the next state's premultiplied index (state
// x classes), its top bit (0x8000 in u16, 0x80000000 in u32) set when that
// state is a match state (a match ended before byte b). Work-item i takes
// the lines that start in [i x seg, (i + 1) x seg) (line starts: 0 and
// after each '\n'), runs each from its start state byte by byte until a
// match flag (records the line start, skips to the next line) or the '\n'
// ending it (fed to the DFA, which flags a match ending just before it),
// past the segment end when the line goes on, but at most `span` bytes past
// it: a line still undecided there is recorded as a candidate (the CPU
// decides it), so one very long line never keeps a single work-item, and
// with it the whole launch, stepping through megabytes alone. After a hit
// the rest of the line is skipped only up to the segment end (no later line
// of this segment starts before it). The end of the text counts as a '\n'. The line starting at 0 and an unterminated last line are always
// recorded: a batch may be a chunk of a bigger file, cut inside a line.
// A line is recorded at most once per group (the host sorts and dedupes
// the groups' results).

#ifndef WG
#define WG 64
#endif

// Text bytes come from 16-byte aligned vector loads kept in registers (one
// global load per 16 bytes of a work-item's walk); `-D DFA_BYTE_LOADS`
// loads byte by byte instead (for comparison). The text buffer holds at
// least 16 bytes of padding after n, so the last vector is in bounds.
#if !defined(__ENDIAN_LITTLE__) && !defined(DFA_BYTE_LOADS)
#define DFA_BYTE_LOADS
#endif
#ifdef DFA_BYTE_LOADS
#define TEXT_AT(i) text[i]
#else
#define TEXT_AT(i) text_at(text, (i), &cw, &cv)
inline uchar text_at(global const uchar *text, uint i, uint *cw, uint4 *cv)
{
    uint w = i >> 4;
    if (w != *cw) {
        *cw = w;
        *cv = ((global const uint4 *)text)[w];
    }
    uint4 v = *cv;
    uint k = (i >> 2) & 3;
    uint x = k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
    return (uchar)(x >> ((i & 3) * 8));
}
#endif

// One line through the DFA T from p (a line start), state `start`: `hit`
// becomes 1 at a match flag or when the walk reaches `lim` undecided, 0 at
// the '\n' ending the line (the text's end counts as one); p is left at the
// deciding byte.
#define DFA_LINE(T, FLAG)                                                     \
    {                                                                         \
        uint s = start;                                                       \
        hit = 0;                                                              \
        for (;;) {                                                            \
            if (p >= lim) {                                                   \
                hit = 1;                                                      \
                break;                                                        \
            }                                                                 \
            uchar b = p < n ? TEXT_AT(p) : (uchar)'\n';                       \
            uint x = T[s + cls[b]];                                           \
            if (x & FLAG) {                                                   \
                hit = 1;                                                      \
                break;                                                        \
            }                                                                 \
            if (b == '\n')                                                    \
                break;                                                        \
            s = x;                                                            \
            p++;                                                              \
        }                                                                     \
    }

#define DFA_SCAN(T, FLAG)                                                     \
    while (p < e) {                                                           \
        uint ls = p;                                                          \
        uint hit;                                                             \
        DFA_LINE(T, FLAG)                                                     \
        while (p < e && TEXT_AT(p) != '\n')                                   \
            p++;                                                              \
        if (p >= n && (n == 0 || TEXT_AT(n - 1) != '\n'))                     \
            hit = 1;                                                          \
        if (hit) {                                                            \
            uint k = atomic_inc(count);                                       \
            if (k < cap)                                                      \
                out[k] = ls;                                                  \
        }                                                                     \
        p++;                                                                  \
    }

// Group d's class map, and its u16 table when it has one, into local
// memory (every work-item of the group takes part; a barrier follows).
inline void load_group(uint4 d, global const uchar *gc, global const ushort *t16,
                       local ushort *ltab, local uchar *lcls)
{
    uint lid = get_local_id(0);
    for (uint i = lid; i < 256; i += WG)
        lcls[i] = gc[i];
    if (d.z) {
        global const ushort *src = t16 + d.x;
        for (uint i = lid; i < d.w; i += WG)
            ltab[i] = src[i];
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
dfa_lines(global const uchar *text, uint n, uint seg, global const uint4 *groups,
          global const uchar *classes, global const ushort *t16,
          global const uint *t32, global uint *out, uint cap,
          global uint *count, local ushort *ltab, local uchar *lcls,
          uint span)
{
    uint g = get_global_id(1);
    uint4 d = groups[g];
    load_group(d, classes + (size_t)g * 256, t16, ltab, lcls);
    barrier(CLK_LOCAL_MEM_FENCE);

    local const uchar *cls = lcls;
    uint gi = get_global_id(0);
    uint s0 = gi * seg;
    if (s0 >= n || seg == 0)
        return;
    uint e = s0 + seg < n ? s0 + seg : n;
    // Where an undecided line is given up (the text's end counts as a
    // '\n' at n, which the walk must still reach).
    uint lim = n - e > span ? e + span : n + 1;
    if (gi == 0 && g == 0) {
        // Offset 0 may continue a line of the previous chunk.
        uint k = atomic_inc(count);
        if (k < cap)
            out[k] = 0;
    }
    // The first line start at or after s0.
    uint cw = 0xffffffffu;
    uint4 cv = (uint4)(0);
    uint p = s0;
    if (p > 0)
        while (p < e && TEXT_AT(p - 1) != '\n')
            p++;
    uint start = d.y;
    if (d.z) {
        local const ushort *T = ltab;
        DFA_SCAN(T, 0x8000u)
    } else {
        global const uint *T = t32 + d.x;
        DFA_SCAN(T, 0x80000000u)
    }
}

#ifdef DFA_NEAR
// Kernel `dfa_near` (built with `-D DFA_NEAR`, beside `many_literals_fold`
// from many_literals.cl, which finds the factors): the near groups on the
// lines holding a factor. 2-D NDRange: dimension 0 any multiple of WG
// (work-items take the hits grid-stride), dimension 1 the near groups
// (local size 1).
//
//   #  argument
//   0  global const uchar  *text     as dfa_lines
//   1  uint                 n
//   2  global const uint   *hits     factor positions (many_literals_fold's
//                                    out, in no order)
//   3  global const uint   *hcount   positions found (may exceed hcap)
//   4  uint                 hcap     entries of hits
//   5  global const uint4  *groups   as dfa_lines
//   6  global const uchar  *classes
//   7  global const ushort *t16
//   8  global const uint   *t32
//   9  global uint         *out      as dfa_lines
//  10  uint                 cap
//  11  global uint         *count
//  12  local ushort        *ltab
//  13  local uchar         *lcls
//  14  uint                 span
//  15  uint                 first    index of the first near group
//
// For a factor at o: the walk back to its line's start goes at most `span`
// bytes (further, o itself is recorded: the host maps every offset to its
// line's start); from the start the line runs through the group's DFA as
// in dfa_lines, up to o + span (a line still undecided there is a
// candidate). A line with several factors may be recorded several times.
// A batch that ends inside a line records its last byte, as dfa_lines
// does: that line belongs to this chunk, and a factor the batch end cuts
// is found only in the next chunk, which does not own the line.
// More hits than hcap: the count becomes 0xFFFFFFFF, which no result
// buffer holds, and the host searches the batch on the CPU.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
dfa_near(global const uchar *text, uint n, global const uint *hits,
         global const uint *hcount, uint hcap, global const uint4 *groups,
         global const uchar *classes, global const ushort *t16,
         global const uint *t32, global uint *out, uint cap,
         global uint *count, local ushort *ltab, local uchar *lcls,
         uint span, uint first)
{
    uint found = *hcount;
    if (found > hcap) {
        if (get_global_id(0) == 0 && get_global_id(1) == 0)
            atomic_xchg(count, 0xffffffffu);
        return;
    }
    uint g = first + get_global_id(1);
    uint4 d = groups[g];
    load_group(d, classes + (size_t)g * 256, t16, ltab, lcls);
    barrier(CLK_LOCAL_MEM_FENCE);
    local const uchar *cls = lcls;
    global const uint *T32 = t32 + d.x;
    uint start = d.y;
    uint cw = 0xffffffffu;
    uint4 cv = (uint4)(0);
    if (get_global_id(0) == 0 && get_global_id(1) == 0 && n > 0 &&
        TEXT_AT(n - 1) != '\n') {
        uint k = atomic_inc(count);
        if (k < cap)
            out[k] = n - 1;
    }
    for (uint i = get_global_id(0); i < found; i += get_global_size(0)) {
        uint o = hits[i];
        uint back = o > span ? o - span : 0;
        uint ls = o;
        while (ls > back && TEXT_AT(ls - 1) != '\n')
            ls--;
        uint hit = 1;
        uint rec = o;
        if (ls == 0 || TEXT_AT(ls - 1) == '\n') {
            rec = ls;
            uint p = ls;
            uint lim = n - o > span ? o + span : n + 1;
            if (d.z) {
                local const ushort *T = ltab;
                DFA_LINE(T, 0x8000u)
            } else {
                DFA_LINE(T32, 0x80000000u)
            }
        }
        if (hit) {
            uint k = atomic_inc(count);
            if (k < cap)
                out[k] = rec;
        }
    }
}
#endif
