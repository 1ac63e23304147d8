//! Why binary search beats the Eytzinger layout on the H100 when the seed
//! found the reverse on an RTX 2080 Ti (issue 20, item 6): the same two
//! kernels timed over array sizes, key orders and work-group sizes.
//!
//! The seed's table compares binary search over keys that are the sorted
//! array itself with Eytzinger search over keys in Eytzinger order. Two
//! things differ between those rows besides the layout: the key order
//! (neighbouring work-items searching neighbouring keys walk the same path,
//! so a warp's loads coalesce) and, for binary search only, the keys living
//! in the very buffer being searched (the last levels of each search land in
//! the cache lines the key was loaded from). The study separates them:
//! every method meets every key order, the sorted keys also come from a
//! separate copy of the array, and the array sizes run from one that fits
//! the L2 cache to one 40 times its size.

use gsearch::opencl::DeviceError;
use gsearch::opencl::sorted::{DeviceSearch, Method, eytzinger_rank};
use opencl3::memory::Buffer;

use crate::time_runs;

/// Key orders of the study.
#[derive(Clone, Copy)]
enum Keys {
    /// The searched array's own buffer (the seed's binary-search row).
    SameBuffer,
    /// Sorted, from a separate copy of the array.
    Sorted,
    /// The array in Eytzinger (BFS) order (the seed's Eytzinger row).
    EytzingerOrder,
    /// A random permutation of the array.
    Random,
}

impl Keys {
    const ALL: [Keys; 4] = [
        Keys::SameBuffer,
        Keys::Sorted,
        Keys::EytzingerOrder,
        Keys::Random,
    ];

    fn label(self) -> &'static str {
        match self {
            Keys::SameBuffer => "sorted, the searched buffer itself",
            Keys::Sorted => "sorted, a separate copy",
            Keys::EytzingerOrder => "Eytzinger order",
            Keys::Random => "random order",
        }
    }
}

/// One array size's buffers.
struct Data {
    n: usize,
    hay: Buffer<i32>,
    eyt: Buffer<i32>,
    keys: [Buffer<i32>; 3],
    /// The right answer for each key value (its first index in the array).
    first: Vec<u32>,
    /// Host copies of the key orders, for checking.
    orders: [Vec<i32>; 3],
}

/// xorshift64*, as the main table uses.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn make_data(ds: &DeviceSearch<i32>, n: usize, seed: u64) -> Result<Data, DeviceError> {
    let mut next = rng(seed);
    let mut hay: Vec<i32> = (0..n).map(|_| (next() % n as u64) as i32).collect();
    hay.sort_unstable();
    let mut first = vec![u32::MAX; n];
    for (i, &v) in hay.iter().enumerate().rev() {
        first[v as usize] = i as u32;
    }
    let eyt_order: Vec<i32> = (1..=n as u32)
        .map(|node| hay[eytzinger_rank(node, n as u32) as usize])
        .collect();
    let mut random = hay.clone();
    for i in (1..n).rev() {
        random.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    let hay_buf = ds.upload(&hay)?;
    let mut eyt = ds.alloc::<i32>(n)?;
    ds.build_eytzinger(&hay_buf, n, &mut eyt)?;
    let keys = [
        ds.upload(&hay)?,
        ds.upload(&eyt_order)?,
        ds.upload(&random)?,
    ];
    Ok(Data {
        n,
        hay: hay_buf,
        eyt,
        keys,
        first,
        orders: [hay, eyt_order, random],
    })
}

impl Data {
    /// The key buffer and host keys of an order.
    fn keys(&self, k: Keys) -> (&Buffer<i32>, &[i32]) {
        let i = match k {
            Keys::SameBuffer => return (&self.hay, &self.orders[0]),
            Keys::Sorted => 0,
            Keys::EytzingerOrder => 1,
            Keys::Random => 2,
        };
        (&self.keys[i], &self.orders[i])
    }

    fn correct(&self, keys: &[i32], got: &[u32]) -> bool {
        keys.iter()
            .zip(got)
            .all(|(&k, &g)| self.first[k as usize] == g)
    }
}

/// One timed cell: median µs of `method` over `keys`, and whether every
/// answer was right.
fn cell(
    ds: &DeviceSearch<i32>,
    d: &Data,
    method: Method,
    keys: Keys,
    runs: usize,
    out: &mut Buffer<u32>,
) -> Result<(f64, bool), String> {
    let e = |x: DeviceError| x.to_string();
    let (kbuf, khost) = d.keys(keys);
    let tree = if matches!(method, Method::Eytzinger) {
        &d.eyt
    } else {
        &d.hay
    };
    let (med, _) = time_runs(runs, || {
        ds.run_buffers(method, tree, d.n, kbuf, d.n, out).map_err(e)
    })?;
    let got = ds.download(out, d.n).map_err(e)?;
    Ok((med, d.correct(khost, &got)))
}

/// Prints the study's table: for each size and work-group cap, the copy
/// time and each (method, key order) as µs and ratio to the copy.
pub fn run(
    ds: &DeviceSearch<i32>,
    sizes: &[usize],
    wgs: &[usize],
    runs: usize,
    seed: u64,
) -> Result<bool, String> {
    let e = |x: DeviceError| x.to_string();
    println!();
    println!("Study: binary vs Eytzinger by array size, key order and work-group size");
    println!("(µs, median of {runs}; in brackets the ratio to a copy of the array)");
    println!();
    println!("| n | MiB | WG | keys | copy µs | binary | Eytzinger | Eytzinger / binary |");
    println!("|---:|---:|---:|---|---:|---:|---:|---:|");
    let mut all_ok = true;
    for &n in sizes {
        let d = make_data(ds, n, seed).map_err(e)?;
        let mut dst = ds.alloc::<i32>(n).map_err(e)?;
        let mut out = ds.alloc::<u32>(n).map_err(e)?;
        for &wg in wgs {
            ds.set_max_work_group(wg);
            let (copy, _) = time_runs(runs, || ds.copy(&d.hay, &mut dst, n).map_err(e))?;
            for keys in Keys::ALL {
                let (b, okb) = cell(ds, &d, Method::Binary, keys, runs, &mut out)?;
                let (y, oky) = cell(ds, &d, Method::Eytzinger, keys, runs, &mut out)?;
                all_ok &= okb && oky;
                let flag = if okb && oky { "" } else { " WRONG" };
                println!(
                    "| {n} | {:.1} | {wg} | {} | {copy:.1} | {b:.1} ({:.2}) | {y:.1} ({:.2}) | {:.2}{flag} |",
                    (n * 4) as f64 / (1 << 20) as f64,
                    keys.label(),
                    b / copy,
                    y / copy,
                    y / b,
                );
            }
        }
    }
    ds.set_max_work_group(256);
    Ok(all_ok)
}
