//! How long the OpenCL driver takes to make several GPUs ready to stream,
//! and whether one context for all of them starts sooner than one context
//! per GPU (what the device engine makes, `opencl::engine::start_gpus`).
//!
//! Usage: `gsearch-bench-start MODE [SLOTS] [SLOT_MIB]`, one process per
//! run (the driver starts once per process). MODE:
//! - `serial`: one context per GPU, made one after the other;
//! - `threads`: one context per GPU, each made on its own thread;
//! - `locked`: as `threads`, the contexts made one at a time (under a
//!   lock, as `opencl::host::shared_context` makes them in a search);
//! - `gated`: as `locked`, and the pinned slots allocated one GPU at a
//!   time too;
//! - `shared`: one context holding every GPU, a queue per GPU.
//!
//! Then each GPU gets SLOTS pinned staging buffers of SLOT_MIB MiB (8 of 32
//! by default, `CL_MEM_ALLOC_HOST_PTR` mapped once, as `opencl::gpu`
//! makes them) and one 32 MiB host-to-device copy from them. Prints each
//! milestone in ms since the process started.

use std::ptr;
use std::time::Instant;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_GPU, Device};
use opencl3::memory::{
    Buffer, CL_MAP_READ, CL_MAP_WRITE, CL_MEM_ALLOC_HOST_PTR, CL_MEM_READ_WRITE,
};
use opencl3::platform::get_platforms;
use opencl3::types::{CL_BLOCKING, cl_device_id, cl_mem};

fn main() {
    let t0 = Instant::now();
    let ms = move || t0.elapsed().as_secs_f64() * 1e3;
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("serial", String::as_str).to_string();
    let slots: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(8);
    let mib: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(32);
    let platforms = get_platforms().expect("clGetPlatformIDs");
    println!("{:8.1} ms  platforms listed ({})", ms(), platforms.len());
    // The first platform's GPUs (one context can hold devices of one
    // platform only), or, without GPUs, its devices of any kind.
    let of = |kind| {
        platforms
            .iter()
            .map(|p| p.get_devices(kind).unwrap_or_default())
            .find(|d| !d.is_empty())
            .unwrap_or_default()
    };
    let mut ids: Vec<cl_device_id> = of(CL_DEVICE_TYPE_GPU);
    if ids.is_empty() {
        ids = of(CL_DEVICE_TYPE_ALL);
    }
    println!("{:8.1} ms  {} devices listed", ms(), ids.len());
    // Each GPU's queue and slots live until the process ends, as in a
    // search (freeing them would add to the next GPU's start).
    let ready = |i: usize, ctx: &Context, id: cl_device_id| -> Kept {
        // SAFETY: a plain in-order queue on `id`, a device of `ctx`.
        let q = unsafe { CommandQueue::create_with_properties(ctx, id, 0, 0) }
            .expect("clCreateCommandQueue");
        println!("{:8.1} ms  gpu {i}: queue", ms());
        let bufs = {
            let _turn = (mode == "gated").then(|| GATE.lock().unwrap_or_else(|e| e.into_inner()));
            pinned(ctx, &q, slots, mib << 20)
        };
        println!(
            "{:8.1} ms  gpu {i}: {slots} pinned slots of {mib} MiB",
            ms()
        );
        copy_once(ctx, &q, &bufs[0], mib << 20);
        println!("{:8.1} ms  gpu {i}: first copy done", ms());
        (q, bufs)
    };
    let own = |i: usize, id: cl_device_id| {
        let ctx = {
            let _turn = (mode != "threads").then(|| GATE.lock().unwrap_or_else(|e| e.into_inner()));
            Context::from_device(&Device::new(id)).expect("clCreateContext")
        };
        println!("{:8.1} ms  gpu {i}: context", ms());
        let kept = ready(i, &ctx, id);
        (ctx, kept)
    };
    // Kept to the end with what each GPU made.
    let (mut owned, mut kept, mut shared) = (Vec::new(), Vec::new(), None);
    match mode.as_str() {
        "shared" => {
            let ctx =
                Context::from_devices(&ids, &[], None, ptr::null_mut()).expect("clCreateContext");
            println!("{:8.1} ms  one context for {} GPUs", ms(), ids.len());
            kept = on_threads(&ids, |i, id| ready(i, &ctx, id));
            shared = Some(ctx);
        }
        "threads" | "locked" | "gated" => owned = on_threads(&ids, own),
        _ => owned = ids.iter().enumerate().map(|(i, &id)| own(i, id)).collect(),
    }
    println!("{:8.1} ms  all ready", ms());
    // The driver's teardown is not timed.
    std::mem::forget((owned, kept, shared));
}

/// `f(i, id)` for each device on a thread of its own, all at once; the
/// answers in device order.
fn on_threads<T: Send>(
    ids: &[cl_device_id],
    f: impl Fn(usize, cl_device_id) -> T + Sync,
) -> Vec<T> {
    // Device ids are plain handles the driver accepts from any thread; as
    // integers they cross to one.
    let ids: Vec<usize> = ids.iter().map(|&id| id as usize).collect();
    std::thread::scope(|s| {
        let started: Vec<_> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| {
                let f = &f;
                s.spawn(move || f(i, id as cl_device_id))
            })
            .collect();
        started.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

/// Taken by `locked` and `gated` around the driver's steps (see the
/// module documentation).
static GATE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A GPU's queue and pinned slots.
type Kept = (CommandQueue, Vec<Buffer<u8>>);

/// `n` pinned staging buffers of `len` bytes, each mapped once (kept
/// mapped until the process ends).
fn pinned(ctx: &Context, q: &CommandQueue, n: usize, len: usize) -> Vec<Buffer<u8>> {
    (0..n)
        .map(|_| {
            // SAFETY: no host pointer is given; the size is non-zero.
            let b = unsafe {
                Buffer::<u8>::create(
                    ctx,
                    CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                    len,
                    ptr::null_mut(),
                )
            }
            .expect("clCreateBuffer (pinned)");
            let mut p: cl_mem = ptr::null_mut();
            // SAFETY: a blocking map of the whole buffer; the pointer is not
            // used after the buffer is gone (it is never used at all here).
            unsafe {
                q.enqueue_map_buffer(
                    &b,
                    CL_BLOCKING,
                    CL_MAP_READ | CL_MAP_WRITE,
                    0,
                    len,
                    &mut p,
                    &[],
                )
            }
            .expect("clEnqueueMapBuffer");
            b
        })
        .collect()
}

/// One copy of `len` bytes from the host through `src` to a new device
/// buffer, waited for.
fn copy_once(ctx: &Context, q: &CommandQueue, src: &Buffer<u8>, len: usize) {
    // SAFETY: no host pointer is given; the size is non-zero.
    let mut dst = unsafe { Buffer::<u8>::create(ctx, CL_MEM_READ_WRITE, len, ptr::null_mut()) }
        .expect("clCreateBuffer");
    // SAFETY: both buffers hold `len` bytes and outlive the blocking finish.
    unsafe { q.enqueue_copy_buffer(src, &mut dst, 0, 0, len, &[]) }.expect("clEnqueueCopyBuffer");
    q.finish().expect("clFinish");
}
