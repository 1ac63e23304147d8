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
 * nary_enqueue(hay, n, keys, nkeys, lo_a, hi_a, lo_b, hi_b, segs, pass,
 *              passes, status)
 *   0 const global KEY_T *hay   sorted ascending, n elements
 *   1 uint n
 *   2 const global KEY_T *keys  3 uint nkeys
 *   4 global uint *lo_a  5 global uint *hi_a   state read by pass 0, 2, 4...
 *   6 global uint *lo_b  7 global uint *hi_b   state read by pass 1, 3, 5...
 *   8 uint segs     N segments per pass (>= 2)
 *   9 uint pass     the pass this launch runs (the host launches pass 0)
 *  10 uint passes   total passes (the host's nary_passes(n, segs), >= 1)
 *  11 global int *status   status[0] = 0 before the launch; set to the
 *                   enqueue_kernel error code if a child launch fails, in
 *                   which case the host must not trust the results.
 *   Before the launch lo_a = 0, hi_a = n (the whole array for every key).
 *   Pass p reads (lo, hi) from the a or b pair by parity and writes the
 *   other; the result (the lower bound of keys[k], as in search.cl) is
 *   lo_a[k] when `passes` is even and lo_b[k] when it is odd.
 *   NDRange: 1-D, global = nkeys * segs, any local size (non-uniform
 *   work-groups are allowed in OpenCL 2.0).
 *
 * How it runs: every pass is one kernel; work-item 0 of pass p enqueues
 * pass p+1 on the default device queue with CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
 * so the child starts only once the whole parent grid has finished (the
 * pass boundary is the barrier).  The host sees a single launch: its event
 * completes when the last pass does (a parent is complete only when all
 * of its children are).
 */

__kernel void nary_enqueue(const __global KEY_T *hay, uint n,
                           const __global KEY_T *keys, uint nkeys,
                           __global uint *lo_a, __global uint *hi_a,
                           __global uint *lo_b, __global uint *hi_b,
                           uint segs, uint pass, uint passes,
                           __global int *status)
{
    uint gid = (uint)get_global_id(0);
    if ((pass & 1) == 0)
        nary_step(hay, n, keys, nkeys, lo_a, hi_a, lo_b, hi_b, segs, gid);
    else
        nary_step(hay, n, keys, nkeys, lo_b, hi_b, lo_a, hi_a, segs, gid);

    if (gid == 0 && pass + 1 < passes) {
        uint next = pass + 1;
        ndrange_t range = ndrange_1D((size_t)nkeys * segs);
        int err = enqueue_kernel(get_default_queue(),
                                 CLK_ENQUEUE_FLAGS_WAIT_KERNEL, range,
                                 ^{
                                     nary_enqueue(hay, n, keys, nkeys, lo_a,
                                                  hi_a, lo_b, hi_b, segs,
                                                  next, passes, status);
                                 });
        if (err != CLK_SUCCESS)
            atomic_store((volatile __global atomic_int *)status, err);
    }
}
