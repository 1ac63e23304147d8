/*
 * search_enqueue.cl -- N-ary search with device-side enqueue (OpenCL C 2.0).
 *
 * Built only for devices that report device-side enqueue (OpenCL 2.x, or
 * 3.0 with the __opencl_c_device_enqueue feature), with
 *   -cl-std=CL2.0 -DKEY_T=<type>
 * and compiled TOGETHER with search.cl (the host passes both sources, this
 * one second), whose nary_step() does the work of one pass.  The host must
 * create the device's default on-device queue (CL_QUEUE_ON_DEVICE |
 * CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
 * before launching.
 *
 * nary_enqueue(hay, n, keys, nkeys, lo_a, hi_a, lo_b, hi_b, segs, passes,
 *              status)
 *   0 const global KEY_T *hay   sorted ascending, n elements
 *   1 uint n
 *   2 const global KEY_T *keys  3 uint nkeys
 *   4 global uint *lo_a  5 global uint *hi_a   state read by pass 0, 2, 4...
 *   6 global uint *lo_b  7 global uint *hi_b   state read by pass 1, 3, 5...
 *   8 uint segs     N segments per pass (>= 2)
 *   9 uint passes   total passes (the host's nary_passes(n, segs), >= 1)
 *  10 global int *status   status[0] = 0 before the launch; set to the
 *                   enqueue_kernel error code if a child launch fails, in
 *                   which case the host must not trust the results.
 *   Before the launch lo_a = 0, hi_a = n (the whole array for every key).
 *   Pass p reads (lo, hi) from the a or b pair by parity and writes the
 *   other; the result (the lower bound of keys[k], as in search.cl) is
 *   lo_a[k] when `passes` is even and lo_b[k] when it is odd.
 *   NDRange of the host launch: ONE work-item (global = local = 1).
 *
 * How it runs: the host launches one work-item, which enqueues every pass
 * on the default device queue as a child kernel of nkeys * segs
 * work-items, each child waiting on the previous one's clk_event_t, so a
 * pass starts only once the whole grid of the previous pass has finished
 * (the pass boundary is the barrier).  The host sees a single launch: its
 * event completes when the last pass does (a parent is complete only when
 * all of its children are).
 *
 * (Not a self-chaining form where each pass enqueues the next from a block
 * calling the same kernel: that is recursion in the call graph, which
 * OpenCL C does not allow.)
 */

__kernel void nary_enqueue(const __global KEY_T *hay, uint n,
                           const __global KEY_T *keys, uint nkeys,
                           __global uint *lo_a, __global uint *hi_a,
                           __global uint *lo_b, __global uint *hi_b,
                           uint segs, uint passes, __global int *status)
{
    if (get_global_id(0) != 0)
        return;
    queue_t q = get_default_queue();
    ndrange_t range = ndrange_1D((size_t)nkeys * segs);
    clk_event_t prev;
    for (uint p = 0; p < passes; ++p) {
        clk_event_t done;
        int err;
        if ((p & 1) == 0) {
            void (^pass_ab)(void) = ^{
                nary_step(hay, n, keys, nkeys, lo_a, hi_a, lo_b, hi_b, segs,
                          (uint)get_global_id(0));
            };
            err = p == 0
                ? enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, range, 0, NULL,
                                 &done, pass_ab)
                : enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, range, 1, &prev,
                                 &done, pass_ab);
        } else {
            void (^pass_ba)(void) = ^{
                nary_step(hay, n, keys, nkeys, lo_b, hi_b, lo_a, hi_a, segs,
                          (uint)get_global_id(0));
            };
            err = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, range, 1, &prev,
                                 &done, pass_ba);
        }
        if (p > 0)
            release_event(prev);
        if (err != CLK_SUCCESS) {
            status[0] = err;
            return;
        }
        prev = done;
    }
    if (passes > 0)
        release_event(prev);
}
