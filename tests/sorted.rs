//! Tests of the sorted-search kernels (every variant against
//! `slice::partition_point`, on every OpenCL device found) and of
//! `--sorted` (`gsearch::sorted::run`) against a naive reference and look(1).
//!
//! Devices: all devices the loader lists, or only the one named by
//! `GSEARCH_OPENCL_DEVICE` (index or name substring). With no device the
//! kernel tests print "skip" and pass, unless `GSEARCH_REQUIRE_OPENCL=1`.
//! `GSEARCH_REQUIRE_DEVICE_ENQUEUE=1` fails unless a device-enqueue device
//! is among them and the device-enqueue kernel ran on it. For Intel's CPU
//! runtime next to PoCL:
//!   source scripts/intel-opencl-env.sh
//!   GSEARCH_REQUIRE_OPENCL=1 GSEARCH_REQUIRE_DEVICE_ENQUEUE=1 cargo test --test sorted

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use gsearch::opencl::sorted::{DeviceSearch, Method, SearchKey, eytzinger_rank, keys_sorted};
use gsearch::opencl::{self as device, ClDevice, DeviceInfo};
use gsearch::sorted::{DeviceChoice, SortedError, SortedOptions, run, run_with_report};

// ---------------------------------------------------------------------------
// helpers

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).map(|v| v == "1").unwrap_or(false)
}

/// The devices under test, opened once per test process.
fn devices() -> &'static [(DeviceInfo, Arc<ClDevice>)] {
    static DEVS: OnceLock<Vec<(DeviceInfo, Arc<ClDevice>)>> = OnceLock::new();
    DEVS.get_or_init(|| {
        let all = device::all_devices();
        let chosen: Vec<DeviceInfo> = match std::env::var(device::DEVICE_ENV) {
            Ok(sel) if !sel.trim().is_empty() => match device::select_device(&all, Some(&sel)) {
                Ok(d) => vec![d.clone()],
                Err(e) => panic!("{}={sel}: {e}", device::DEVICE_ENV),
            },
            _ => all,
        };
        let mut out = Vec::new();
        for info in chosen {
            match ClDevice::open(&info) {
                Ok(d) => out.push((info, Arc::new(d))),
                Err(e) => panic!("cannot open {}: {e}", info.label()),
            }
        }
        if out.is_empty() {
            assert!(
                !env_flag("GSEARCH_REQUIRE_OPENCL"),
                "GSEARCH_REQUIRE_OPENCL=1 but no OpenCL device was found"
            );
        }
        if env_flag("GSEARCH_REQUIRE_DEVICE_ENQUEUE") {
            assert!(
                out.iter().any(|(i, _)| i.device_enqueue),
                "GSEARCH_REQUIRE_DEVICE_ENQUEUE=1 but no device supports device-side enqueue: {:?}",
                out.iter().map(|(i, _)| i.label()).collect::<Vec<_>>()
            );
        }
        out
    })
}

fn no_devices(test: &str) -> bool {
    if devices().is_empty() {
        eprintln!("skip {test}: no OpenCL device");
        return true;
    }
    false
}

const SEGS: &[u32] = &[2, 3, 4, 8, 16, 32];

const SIZES: &[usize] = &[
    0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 100, 255, 256, 257, 1000, 4097,
];

/// Check every supported method of `ds` on sorted arrays of every size in
/// SIZES, built by `make` from random u64s; returns the methods that ran.
fn check_all_methods<T: SearchKey + Ord>(
    ds: &DeviceSearch<T>,
    make: impl Fn(u64) -> T,
    rng: &mut Rng,
) -> Vec<Method> {
    let methods = ds.methods(SEGS);
    for &n in SIZES {
        // Few distinct values -> many duplicates; plenty of absent keys.
        let spread = (n as u64 / 3).max(2);
        let mut hay: Vec<T> = (0..n).map(|_| make(rng.below(spread) * 2)).collect();
        hay.sort();
        let mut keys: Vec<T> = (0..(n * 2 + 5))
            .map(|_| make(rng.below(spread * 2 + 4)))
            .collect();
        keys.extend(hay.iter().copied());
        keys.push(make(0));
        keys.push(make(u64::MAX));
        if let (Some(&lo), Some(&hi)) = (hay.first(), hay.last()) {
            keys.push(lo);
            keys.push(hi);
        }
        let want: Vec<u32> = keys
            .iter()
            .map(|k| hay.partition_point(|x| x < k) as u32)
            .collect();
        for &m in &methods {
            let got = ds
                .lower_bound(m, &hay, &keys)
                .unwrap_or_else(|e| panic!("{} n={n}: {e}", m.name()));
            if got != want {
                let i = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
                panic!(
                    "{} on {}: n={n} key {:?}: got {} want {} (hay {:?})",
                    m.name(),
                    ds.device().describe(),
                    keys[i],
                    got[i],
                    want[i],
                    if n < 40 {
                        format!("{hay:?}")
                    } else {
                        "...".into()
                    }
                );
            }
        }
        // Keys empty.
        assert!(
            ds.lower_bound(Method::Binary, &hay, &[])
                .unwrap()
                .is_empty()
        );
    }
    methods
}

// ---------------------------------------------------------------------------
// kernels

#[test]
fn kernels_i32_match_partition_point() {
    if no_devices("kernels_i32_match_partition_point") {
        return;
    }
    for (info, dev) in devices() {
        let ds = DeviceSearch::<i32>::new(dev.clone()).expect("build search.cl");
        let mut rng = Rng(0x1234_5678 + info.index as u64);
        // Map onto the whole i32 range, negatives included; make(u64::MAX)
        // and make(0) hit the extremes.
        let make = |v: u64| -> i32 {
            if v == u64::MAX {
                i32::MAX
            } else {
                (v as i64 - 40).clamp(i32::MIN as i64, i32::MAX as i64) as i32
            }
        };
        let methods = check_all_methods(&ds, make, &mut rng);
        // Also extremes in the haystack.
        let hay = vec![i32::MIN, i32::MIN, -1, 0, 0, 7, i32::MAX, i32::MAX];
        let keys = vec![i32::MIN, -5, -1, 0, 1, 7, 8, i32::MAX - 1, i32::MAX];
        let want: Vec<u32> = keys
            .iter()
            .map(|k| hay.partition_point(|x| x < k) as u32)
            .collect();
        for &m in &methods {
            assert_eq!(
                ds.lower_bound(m, &hay, &keys).unwrap(),
                want,
                "{}",
                m.name()
            );
        }
        eprintln!(
            "{}: i32 ok for {}",
            info.label(),
            methods
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(methods.contains(&Method::NaryHost { segs: 2 }));
        assert!(methods.contains(&Method::NaryLocal { segs: 8 }));
        if info.device_enqueue {
            assert!(
                methods.contains(&Method::NaryDeviceEnqueue { segs: 8 }),
                "{} reports device enqueue but the 2.0 kernel did not build",
                info.label()
            );
        }
    }
}

#[test]
fn kernels_u64_match_partition_point() {
    if no_devices("kernels_u64_match_partition_point") {
        return;
    }
    for (info, dev) in devices() {
        let ds = DeviceSearch::<u64>::new(dev.clone()).expect("build search.cl");
        let mut rng = Rng(0xfeed + info.index as u64);
        // High values exercise the unsigned comparison.
        let make = |v: u64| -> u64 {
            if v == u64::MAX {
                u64::MAX
            } else {
                (u64::MAX / 2).wrapping_add(v.wrapping_mul(0x0101_0101_0101))
            }
        };
        let methods = check_all_methods(&ds, make, &mut rng);
        eprintln!(
            "{}: u64 ok for {}",
            info.label(),
            methods
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

#[test]
fn device_enqueue_runs_where_supported() {
    if no_devices("device_enqueue_runs_where_supported") {
        return;
    }
    let mut ran = 0;
    for (info, dev) in devices() {
        let ds = DeviceSearch::<i32>::new(dev.clone()).unwrap();
        let m = Method::NaryDeviceEnqueue { segs: 4 };
        if !info.device_enqueue {
            assert!(!ds.supports(m), "{} claims enqueue", info.label());
            continue;
        }
        // Many passes (log4 of 100k ~ 9), many keys: the chain of children
        // must really run.
        let n = 100_003usize;
        let hay: Vec<i32> = (0..n as i32).map(|i| i * 3 - 1000).collect();
        let keys: Vec<i32> = (0..20_000).map(|i| i * 17 - 1500).collect();
        let want: Vec<u32> = keys
            .iter()
            .map(|k| hay.partition_point(|x| x < k) as u32)
            .collect();
        let (got, t) = ds
            .lower_bound_timed(m, &hay, &keys)
            .unwrap_or_else(|e| panic!("{}: {e}", info.label()));
        assert_eq!(got, want, "device enqueue on {}", info.label());
        eprintln!("{}: device enqueue ran, {:.0} us", info.label(), t.micros());
        ran += 1;
    }
    if env_flag("GSEARCH_REQUIRE_DEVICE_ENQUEUE") {
        assert!(ran > 0, "device-enqueue kernel ran on no device");
    }
}

/// The blocked methods on one (hay, keys) pair against partition_point.
fn check_blocked<T: SearchKey + Ord>(ds: &DeviceSearch<T>, hay: &[T], keys: &[T], what: &str) {
    let want: Vec<u32> = keys
        .iter()
        .map(|k| hay.partition_point(|x| x < k) as u32)
        .collect();
    for m in [Method::Blocked, Method::BlockedFused] {
        assert!(ds.supports(m), "{} unsupported", m.name());
        let got = ds
            .lower_bound(m, hay, keys)
            .unwrap_or_else(|e| panic!("{} {what}: {e}", m.name()));
        if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
            panic!(
                "{} on {} ({what}): n={} nkeys={} key #{i} {:?}: got {} want {}",
                m.name(),
                ds.device().describe(),
                hay.len(),
                keys.len(),
                keys[i],
                got[i],
                want[i]
            );
        }
    }
}

/// Key batches for one sorted `hay`: sorted ones (every element, random
/// with absent keys and keys beyond both ends, all equal, sparse) and
/// unsorted ones (reversed, shuffled, sorted but for one swap).
fn blocked_cases<T: SearchKey + Ord>(
    ds: &DeviceSearch<T>,
    hay: &[T],
    make: &impl Fn(u64) -> T,
    spread: u64,
    rng: &mut Rng,
) {
    let n = hay.len();
    let mut random: Vec<T> = (0..(n + 37))
        .map(|_| make(rng.below(spread * 2 + 4)))
        .collect();
    random.push(make(0));
    random.push(make(u64::MAX));
    random.sort();
    let mut sparse: Vec<T> = (0..(n / 40 + 3))
        .map(|_| make(rng.below(spread * 2 + 4)))
        .collect();
    sparse.sort();
    let equal = vec![hay.get(n / 2).copied().unwrap_or(make(3)); 3000];
    let sorted_cases: [(&str, Vec<T>); 5] = [
        ("every element", hay.to_vec()),
        ("sorted random", random.clone()),
        ("sorted sparse", sparse),
        ("all equal", equal),
        ("one key", vec![make(spread)]),
    ];
    for (what, keys) in &sorted_cases {
        assert!(keys_sorted(keys));
        check_blocked(ds, hay, keys, what);
    }
    let mut reversed = random.clone();
    reversed.reverse();
    let mut shuffled = random.clone();
    for i in (1..shuffled.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        shuffled.swap(i, j);
    }
    let mut one_swap = random.clone();
    let len = one_swap.len();
    one_swap.swap(len / 3, 2 * len / 3);
    let mut halves = random[len / 2..].to_vec();
    halves.extend_from_slice(&random[..len / 2]);
    for (what, keys) in [
        ("reversed", reversed),
        ("shuffled", shuffled),
        ("one swap", one_swap),
        ("upper half first", halves),
    ] {
        check_blocked(ds, hay, &keys, what);
    }
}

#[test]
fn blocked_matches_partition_point() {
    if no_devices("blocked_matches_partition_point") {
        return;
    }
    let sizes: Vec<usize> = SIZES
        .iter()
        .copied()
        .chain([1023, 1024, 1025, 5000, 65_537, 300_007])
        .collect();
    for (info, dev) in devices() {
        let ds = DeviceSearch::<i32>::new(dev.clone()).expect("build search.cl");
        let mut rng = Rng(0xb10c + info.index as u64);
        let make = |v: u64| -> i32 {
            if v == u64::MAX {
                i32::MAX
            } else {
                (v as i64 - 40).clamp(i32::MIN as i64, i32::MAX as i64) as i32
            }
        };
        for &n in &sizes {
            // Few distinct values (many duplicates), and (for the large
            // sizes) nearly distinct ones: dense and sparse key ranges.
            for spread in [(n as u64 / 3).max(2), (n as u64 * 4).max(2)] {
                let mut hay: Vec<i32> = (0..n).map(|_| make(rng.below(spread) * 2)).collect();
                hay.sort();
                blocked_cases(&ds, &hay, &make, spread, &mut rng);
            }
        }
        // Extremes of the type in the haystack and the keys.
        let hay = vec![i32::MIN, i32::MIN, -1, 0, 0, 7, i32::MAX, i32::MAX];
        let keys = vec![i32::MIN, -5, -1, 0, 1, 7, 8, i32::MAX - 1, i32::MAX];
        check_blocked(&ds, &hay, &keys, "extremes");
        let rev: Vec<i32> = keys.iter().rev().copied().collect();
        check_blocked(&ds, &hay, &rev, "extremes reversed");
        // No keys.
        for m in [Method::Blocked, Method::BlockedFused] {
            assert!(ds.lower_bound(m, &hay, &[]).unwrap().is_empty());
        }

        // u64: the unsigned comparison, near the top of the range.
        let ds64 = DeviceSearch::<u64>::new(dev.clone()).expect("build search.cl");
        let make64 = |v: u64| -> u64 {
            if v == u64::MAX {
                u64::MAX
            } else {
                (u64::MAX / 2).wrapping_add(v.wrapping_mul(0x0101_0101_0101))
            }
        };
        for n in [0usize, 1, 2, 100, 4097, 20_011] {
            let spread = (n as u64 / 2).max(2);
            let mut hay: Vec<u64> = (0..n).map(|_| make64(rng.below(spread) * 2)).collect();
            hay.sort();
            blocked_cases(&ds64, &hay, &make64, spread, &mut rng);
        }
        eprintln!("{}: blocked and blocked-fused ok", info.label());
    }
}

#[test]
fn pick_prefers_blocked_for_sorted_keys() {
    if no_devices("pick_prefers_blocked_for_sorted_keys") {
        return;
    }
    if std::env::var_os("GSEARCH_SORTED_METHOD").is_some() {
        eprintln!("skip pick_prefers_blocked_for_sorted_keys: GSEARCH_SORTED_METHOD is set");
        return;
    }
    for (_, dev) in devices() {
        let ds = DeviceSearch::<u64>::new(dev.clone()).unwrap();
        assert!(ds.methods(&[]).contains(&Method::Blocked));
        assert!(ds.methods(&[]).contains(&Method::BlockedFused));
        assert_eq!(ds.pick_for(1000, &[1, 2, 2, 9]), Method::Blocked);
        assert_eq!(ds.pick_for(1000, &[]), Method::Blocked);
        assert_eq!(ds.pick_for(1000, &[3, 2]), Method::Binary);
        assert_eq!(ds.pick(1000, 4), Method::Binary);
    }
}

#[test]
fn eytzinger_layout_built_on_device() {
    if no_devices("eytzinger_layout_built_on_device") {
        return;
    }
    for (_, dev) in devices() {
        let ds = DeviceSearch::<i32>::new(dev.clone()).unwrap();
        for n in [1usize, 2, 3, 6, 7, 8, 15, 100, 1023, 1024, 1025] {
            let sorted: Vec<i32> = (0..n as i32).map(|i| i * 2).collect();
            let src = ds.upload(&sorted).unwrap();
            let mut eyt = ds.alloc::<i32>(n).unwrap();
            ds.build_eytzinger(&src, n, &mut eyt).unwrap();
            let got = ds.download(&eyt, n).unwrap();
            let want: Vec<i32> = (1..=n as u32)
                .map(|node| sorted[eytzinger_rank(node, n as u32) as usize])
                .collect();
            assert_eq!(got, want, "n={n}");
            // BFS order of a search tree: each node > its left child, < its
            // right child.
            for k in 1..=n {
                if 2 * k <= n {
                    assert!(got[2 * k - 1] < got[k - 1]);
                }
                if 2 * k < n {
                    assert!(got[2 * k] > got[k - 1]);
                }
            }
        }
    }
}

#[test]
fn copy_and_timing() {
    if no_devices("copy_and_timing") {
        return;
    }
    for (_, dev) in devices() {
        let ds = DeviceSearch::<i32>::new(dev.clone()).unwrap();
        let data: Vec<i32> = (0..5000).collect();
        let src = ds.upload(&data).unwrap();
        let mut dst = ds.alloc::<i32>(data.len()).unwrap();
        let t = ds.copy(&src, &mut dst, data.len()).unwrap();
        assert_eq!(t.commands, 1);
        assert_eq!(ds.download(&dst, data.len()).unwrap(), data);
    }
}

// ---------------------------------------------------------------------------
// --sorted

fn write_file(dir: &Path, name: &str, data: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::File::create(&p).unwrap().write_all(data).unwrap();
    p
}

/// Naive reference: scan every line.
fn naive(data: &[u8], keys: &[Vec<u8>], fold: bool, count: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0;
    if !data.is_empty() {
        let body = data.strip_suffix(b"\n").unwrap_or(data);
        for line in body.split(|&b| b == b'\n') {
            let hit = keys.iter().any(|k| {
                line.len() >= k.len()
                    && if fold {
                        line[..k.len()].eq_ignore_ascii_case(k)
                    } else {
                        &line[..k.len()] == k.as_slice()
                    }
            });
            if hit {
                n += 1;
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
    }
    if count {
        format!("{n}\n").into_bytes()
    } else {
        out
    }
}

fn run_to_vec(
    path: &Path,
    keys: &[Vec<u8>],
    opts: &SortedOptions,
) -> Result<(Vec<u8>, u64), SortedError> {
    let mut out = Vec::new();
    let n = run(path, keys, opts, &mut out)?;
    Ok((out, n))
}

/// The engines to test --sorted with: CPU, plus each device (by index).
fn engines() -> Vec<DeviceChoice> {
    let mut v = vec![DeviceChoice::Cpu];
    for (info, _) in devices() {
        v.push(DeviceChoice::Device(Some(info.index.to_string())));
    }
    v
}

fn opts(engine: &DeviceChoice, fold: bool, count: bool) -> SortedOptions {
    SortedOptions {
        fold_case: fold,
        count,
        use_device: engine.clone(),
        ..SortedOptions::default()
    }
}

/// Random sorted file over a small alphabet, so keys share prefixes.
fn random_sorted(rng: &mut Rng, lines: usize, fold: bool, trailing_nl: bool) -> Vec<u8> {
    const ALPHA: &[u8] = b"aAbB_z \x7f\xc3";
    let mut v: Vec<Vec<u8>> = (0..lines)
        .map(|_| {
            let len = rng.below(14) as usize;
            (0..len)
                .map(|_| ALPHA[rng.below(ALPHA.len() as u64) as usize])
                .collect()
        })
        .collect();
    if fold {
        v.sort_by_key(|l| l.to_ascii_uppercase());
    } else {
        v.sort();
    }
    let mut data = v.join(&b'\n');
    if trailing_nl && !v.is_empty() {
        data.push(b'\n');
    }
    data
}

fn random_keys(rng: &mut Rng, data: &[u8], n: usize) -> Vec<Vec<u8>> {
    const ALPHA: &[u8] = b"aAbB_z";
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    (0..n)
        .map(|i| {
            if i % 2 == 0 && !lines.is_empty() {
                // a prefix of a real line (possibly the whole line)
                let l = lines[rng.below(lines.len() as u64) as usize];
                l[..rng.below(l.len() as u64 + 1) as usize].to_vec()
            } else {
                let len = rng.below(5) as usize;
                (0..len)
                    .map(|_| ALPHA[rng.below(ALPHA.len() as u64) as usize])
                    .collect()
            }
        })
        .collect()
}

#[test]
fn sorted_matches_naive_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(42);
    let engines = engines();
    for round in 0..60 {
        let fold = round % 3 == 0;
        let lines = [0, 1, 2, 5, 40, 300, 2000][round % 7];
        let data = random_sorted(&mut rng, lines, fold, round % 4 != 1);
        let path = write_file(dir.path(), &format!("f{round}"), &data);
        let nkeys = [1, 2, 7, 50][round % 4];
        let mut keys = random_keys(&mut rng, &data, nkeys);
        if round % 5 == 0 {
            keys.push(keys[0].clone()); // duplicate key
        }
        for engine in &engines {
            for count in [false, true] {
                let want = naive(&data, &keys, fold, count);
                let (got, n) = run_to_vec(&path, &keys, &opts(engine, fold, count))
                    .unwrap_or_else(|e| panic!("round {round} {engine:?}: {e}"));
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "round {round} {engine:?} fold={fold} count={count} keys={keys:?}"
                );
                let want_n = naive(&data, &keys, fold, true);
                assert_eq!(format!("{n}\n").into_bytes(), want_n);
            }
        }
    }
}

#[test]
fn sorted_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    let k = |s: &str| s.as_bytes().to_vec();
    for engine in &engines() {
        let o = opts(engine, false, false);
        // empty file
        let p = write_file(dir.path(), "empty", b"");
        assert_eq!(run_to_vec(&p, &[k("a")], &o).unwrap(), (vec![], 0));
        assert_eq!(run_to_vec(&p, &[k("")], &o).unwrap(), (vec![], 0));
        // no trailing newline: the last line is printed with one
        let p = write_file(dir.path(), "nonl", b"a\nab\nabc");
        assert_eq!(
            run_to_vec(&p, &[k("ab")], &o).unwrap(),
            (b"ab\nabc\n".to_vec(), 2)
        );
        // keys that are prefixes of each other, and duplicates: once each
        let p = write_file(dir.path(), "pre", b"a\nab\nabc\nabd\nb\n");
        assert_eq!(
            run_to_vec(&p, &[k("abc"), k("a"), k("ab"), k("a"), k("b")], &o).unwrap(),
            (b"a\nab\nabc\nabd\nb\n".to_vec(), 5)
        );
        // empty key: every line
        assert_eq!(run_to_vec(&p, &[k("")], &o).unwrap().1, 5);
        // no keys, absent keys, keys past the end or before the start
        assert_eq!(run_to_vec(&p, &[], &o).unwrap().1, 0);
        assert_eq!(
            run_to_vec(&p, &[k("0"), k("aa"), k("c"), k("abcd")], &o).unwrap(),
            (vec![], 0)
        );
        // blank lines sort first
        let p = write_file(dir.path(), "blank", b"\n\nx\n");
        assert_eq!(
            run_to_vec(&p, &[k("")], &o).unwrap(),
            (b"\n\nx\n".to_vec(), 3)
        );
        // -c prints only the count
        let p = write_file(dir.path(), "cnt", b"a\nb\nb\nbc\n");
        let oc = opts(engine, false, true);
        assert_eq!(
            run_to_vec(&p, &[k("b")], &oc).unwrap(),
            (b"3\n".to_vec(), 3)
        );
        assert_eq!(
            run_to_vec(&p, &[k("z")], &oc).unwrap(),
            (b"0\n".to_vec(), 0)
        );
        // long common prefixes (> 8 bytes: the device resolves ties on the host)
        let p = write_file(
            dir.path(),
            "long",
            b"https://a.example/1\nhttps://a.example/2\nhttps://b.example/\nhttps://b.example/x\n",
        );
        assert_eq!(
            run_to_vec(&p, &[k("https://b"), k("https://a.example/2")], &o).unwrap(),
            (
                b"https://a.example/2\nhttps://b.example/\nhttps://b.example/x\n".to_vec(),
                3
            )
        );
        // a missing file is an I/O error naming the path
        let e = run_to_vec(&dir.path().join("nope"), &[k("a")], &o).unwrap_err();
        assert!(matches!(e, SortedError::Io { .. }));
        assert!(e.to_string().contains("nope"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }
}

#[test]
fn sorted_fold_case_like_sort_f() {
    // `LC_ALL=C sort -f` output (upper-case folding: `[` and `_` after `Z`).
    let data = b"Apple\napple\nAPPLE pie\nbanana\nZed\nzed\n[z\n_x\n";
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "f", data);
    let k = |s: &str| s.as_bytes().to_vec();
    for engine in &engines() {
        let o = opts(engine, true, false);
        assert_eq!(
            run_to_vec(&p, &[k("ap")], &o).unwrap().0,
            b"Apple\napple\nAPPLE pie\n"
        );
        assert_eq!(run_to_vec(&p, &[k("Z")], &o).unwrap().0, b"Zed\nzed\n");
        // look -f folds to lower case and misses these two; sort -f order
        // puts them here and we find them.
        assert_eq!(run_to_vec(&p, &[k("_")], &o).unwrap().0, b"_x\n");
        assert_eq!(run_to_vec(&p, &[k("[")], &o).unwrap().0, b"[z\n");
        // Without -i this file is out of order ("apple" > "APPLE pie").
        // The device engine samples every line of a small file (so checks
        // the whole file): an error.
        // The CPU engine reads O(log n) lines and reports disorder among
        // the lines it reads; it never prints a line that does not match,
        // but where the disorder lies in lines it did not read (key "a":
        // "apple" on line 2 is never read; key "b": "banana") it can miss
        // a line.
        for key in ["_", "a", "A", "Z", "b"] {
            match run_to_vec(&p, &[k(key)], &opts(engine, false, false)) {
                Err(e) => assert!(matches!(e, SortedError::NotSorted { .. })),
                Ok((out, _)) => {
                    assert_eq!(*engine, DeviceChoice::Cpu, "device accepted unsorted file");
                    let want = naive(data, &[k(key)], false, false);
                    for line in out.split_inclusive(|&b| b == b'\n') {
                        assert!(want.windows(line.len()).any(|w| w == line));
                    }
                }
            }
        }
    }
}

#[test]
fn sorted_reports_unsorted_files() {
    let dir = tempfile::tempdir().unwrap();
    let k = |s: &str| s.as_bytes().to_vec();
    let cases: &[(&[u8], &str)] = &[
        (b"b\na\n", "a"),
        (b"a\nc\nb\nd\n", "b"),
        (b"a\nb\nb\na\nc\n", "b"),
        (b"x\ny\nya\ny\nz\n", "y"),
    ];
    for engine in &engines() {
        for (i, (data, key)) in cases.iter().enumerate() {
            let p = write_file(dir.path(), &format!("u{i}"), data);
            let e = run_to_vec(&p, &[k(key)], &opts(engine, false, false))
                .expect_err(&format!("case {i} {engine:?}: unsorted file accepted"));
            let msg = e.to_string();
            assert!(msg.contains("not sorted"), "{msg}");
            assert!(msg.contains(&format!("u{i}")), "{msg}");
            assert!(matches!(e, SortedError::NotSorted { .. }));
            assert_eq!(e.exit_code(), 2);
        }
        // Line numbers name the offending pair.
        let p = write_file(dir.path(), "ln", b"a\nb\nd\nc\ne\n");
        match run_to_vec(&p, &[k("c"), k("d")], &opts(engine, false, false)) {
            Err(SortedError::NotSorted {
                line, earlier_line, ..
            }) => {
                assert_eq!((line, earlier_line), (4, 3), "{engine:?}");
            }
            other => panic!("{engine:?}: {other:?}"),
        }
    }
}

#[test]
fn sorted_agrees_with_look() {
    // Hard-coded outputs of util-linux look(1) 2.38 (`LC_ALL=C look KEY F`).
    let data = b"a\nab\nabc\nabd\nb\nba\nbad\nbb\n";
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "w", data);
    let cases: &[(&str, &[u8])] = &[
        ("ab", b"ab\nabc\nabd\n"),
        ("b", b"b\nba\nbad\nbb\n"),
        ("bad", b"bad\n"),
        ("c", b""),
        ("0", b""),
    ];
    for (key, want) in cases {
        let (got, _) =
            run_to_vec(&p, &[key.as_bytes().to_vec()], &SortedOptions::default()).unwrap();
        assert_eq!(&got, want, "key {key}");
    }
    // And against the installed look, when there is one, on random files.
    let look = std::process::Command::new("look").arg("--version").output();
    if look.is_err() {
        eprintln!("look(1) not installed: compared with hard-coded outputs only");
        return;
    }
    let mut rng = Rng(7);
    for round in 0..20 {
        let data = random_sorted(&mut rng, 200, false, true);
        let p = write_file(dir.path(), &format!("r{round}"), &data);
        for key in random_keys(&mut rng, &data, 6) {
            // look cannot take an empty key or one with a space.
            if key.is_empty() || key.contains(&b' ') || key.contains(&0x7f) {
                continue;
            }
            let look_out = std::process::Command::new("look")
                .env("LC_ALL", "C")
                .arg(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&key))
                .arg(&p)
                .output()
                .unwrap();
            let (got, _) =
                run_to_vec(&p, std::slice::from_ref(&key), &SortedOptions::default()).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&look_out.stdout),
                "key {:?}",
                String::from_utf8_lossy(&key)
            );
        }
    }
}

#[test]
fn sorted_device_report_names_the_engine() {
    if no_devices("sorted_device_report_names_the_engine") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "f", b"a\nb\nc\n");
    let (info, _) = &devices()[0];
    let mut out = Vec::new();
    let o = opts(
        &DeviceChoice::Device(Some(info.index.to_string())),
        false,
        false,
    );
    let rep = run_with_report(&p, &[b"b".to_vec()], &o, &mut out).unwrap();
    assert!(rep.engine.starts_with("opencl:"), "{}", rep.engine);
    assert!(rep.warnings.is_empty(), "{:?}", rep.warnings);
    assert_eq!(out, b"b\n");
    // A selector that matches nothing falls back to the CPU with a warning.
    let o = opts(
        &DeviceChoice::Device(Some("no such device".into())),
        false,
        false,
    );
    let rep = run_with_report(&p, &[b"b".to_vec()], &o, &mut out).unwrap();
    assert_eq!(rep.engine, "cpu");
    assert_eq!(rep.warnings.len(), 1);
}

/// Reference for many keys: a line matches when one of its prefixes is a
/// key (folded to upper case under `fold`); every line once, in order.
fn naive_many(data: &[u8], keys: &[Vec<u8>], fold: bool) -> (Vec<u8>, u64) {
    let norm = |s: &[u8]| {
        if fold {
            s.to_ascii_uppercase()
        } else {
            s.to_vec()
        }
    };
    let set: std::collections::HashSet<Vec<u8>> = keys.iter().map(|k| norm(k)).collect();
    let (mut out, mut n) = (Vec::new(), 0);
    if !data.is_empty() {
        let body = data.strip_suffix(b"\n").unwrap_or(data);
        for line in body.split(|&b| b == b'\n') {
            let line_n = norm(line);
            if (0..=line.len()).any(|i| set.contains(&line_n[..i])) {
                n += 1;
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
    }
    (out, n)
}

/// Thousands of keys: duplicates, absent keys, keys that are prefixes of
/// each other, keys below the first line and above the last.
fn many_keys(rng: &mut Rng, data: &[u8], n: usize) -> Vec<Vec<u8>> {
    let mut keys = random_keys(rng, data, n);
    for i in 0..n / 20 {
        keys.push(keys[i * 7 % keys.len()].clone());
    }
    keys.extend([
        b"\x00".to_vec(),
        b"\x00\x00zz".to_vec(),
        b"\xff".to_vec(),
        b"\xff\xff\xff".to_vec(),
        b"a".to_vec(),
        b"aA".to_vec(),
        b"aAb".to_vec(),
    ]);
    keys
}

/// Ways to split keys among threads: (threads, fewest keys per chunk).
const SPLITS: &[(usize, usize)] = &[(1, 2048), (2, 1), (3, 5), (4, 64), (0, 2048)];

fn split_opts(
    engine: &DeviceChoice,
    fold: bool,
    count: bool,
    split: (usize, usize),
) -> SortedOptions {
    SortedOptions {
        threads: split.0,
        min_chunk_keys: split.1,
        ..opts(engine, fold, count)
    }
}

#[test]
fn sorted_many_keys_match_reference_on_every_engine_and_split() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(99);
    let engines = engines();
    for round in 0..6 {
        let fold = round % 2 == 1;
        let lines = [3000, 40_000, 250_000][round / 2];
        let data = random_sorted(&mut rng, lines, fold, round != 2);
        let path = write_file(dir.path(), &format!("m{round}"), &data);
        let keys = many_keys(&mut rng, &data, [500, 3000, 6000][round / 2]);
        let (want, want_n) = naive_many(&data, &keys, fold);
        for engine in &engines {
            for &split in SPLITS {
                for count in [false, true] {
                    let o = split_opts(engine, fold, count, split);
                    let mut out = Vec::new();
                    let rep = run_with_report(&path, &keys, &o, &mut out)
                        .unwrap_or_else(|e| panic!("round {round} {engine:?} {split:?}: {e}"));
                    assert!(rep.warnings.is_empty(), "{:?}", rep.warnings);
                    let what = format!("round {round} {engine:?} split {split:?} count {count}");
                    assert_eq!(rep.lines, want_n, "{what}");
                    if count {
                        assert_eq!(out, format!("{want_n}\n").into_bytes(), "{what}");
                    } else if out != want {
                        panic!("{what}: output differs from the reference");
                    }
                    let device = !matches!(engine, DeviceChoice::Cpu);
                    assert_eq!(rep.engine.starts_with("opencl:"), device, "{}", rep.engine);
                    let method = if device {
                        "sample index"
                    } else {
                        "binary search"
                    };
                    assert!(rep.method.contains(method), "{}", rep.method);
                }
            }
        }
    }
}

#[test]
fn sorted_many_keys_hex_digests() {
    // The shape of the benchmark: fixed-width hex lines, half the keys
    // present (whole lines or prefixes), half absent.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(5);
    let mut lines: Vec<String> = (0..60_000)
        .map(|_| format!("{:016x}{:08x}", rng.next(), rng.next() as u32))
        .collect();
    lines.sort();
    let data = (lines.join("\n") + "\n").into_bytes();
    let path = write_file(dir.path(), "hex", &data);
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for i in 0..8000 {
        let l = lines[rng.below(lines.len() as u64) as usize].as_bytes();
        keys.push(match i % 4 {
            0 => l.to_vec(),
            1 => l[..(4 + i % 9)].to_vec(),
            2 => format!("{:016x}", rng.next()).into_bytes(),
            _ => format!("{:x}", rng.next() >> 40).into_bytes(),
        });
    }
    let (want, want_n) = naive_many(&data, &keys, false);
    for engine in &engines() {
        for &split in SPLITS {
            let (got, n) = run_to_vec(&path, &keys, &split_opts(engine, false, false, split))
                .unwrap_or_else(|e| panic!("{engine:?} {split:?}: {e}"));
            assert_eq!(n, want_n, "{engine:?} {split:?}");
            assert!(got == want, "{engine:?} {split:?}: output differs");
        }
    }
}

#[test]
fn sorted_many_keys_report_disorder_they_read() {
    // A sorted file with one adjacent pair swapped; among thousands of keys
    // one is a prefix of both lines, so every engine and split reads them.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(11);
    let mut lines: Vec<String> = (0..30_000)
        .map(|i| format!("{:05}-{:x}", i / 3, rng.next() % 4096))
        .collect();
    lines.sort();
    lines.dedup();
    let i = lines.len() / 2;
    let prefix = lines[i][..5].to_string();
    let j = (i + 1..lines.len())
        .find(|&j| lines[j].starts_with(&prefix))
        .unwrap_or(i + 1);
    let j = if lines[j].starts_with(&prefix) {
        j
    } else {
        i - 1
    };
    lines.swap(i.min(j), i.max(j));
    let data = (lines.join("\n") + "\n").into_bytes();
    let path = write_file(dir.path(), "swapped", &data);
    let mut keys: Vec<Vec<u8>> = (0..5000)
        .map(|k| format!("{:05}", k * 2).into_bytes())
        .collect();
    keys.push(prefix.clone().into_bytes());
    for engine in &engines() {
        for &split in SPLITS {
            let e = run_to_vec(&path, &keys, &split_opts(engine, false, false, split))
                .expect_err(&format!("{engine:?} {split:?}: unsorted file accepted"));
            assert!(matches!(e, SortedError::NotSorted { .. }), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
    }
}
