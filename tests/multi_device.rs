//! Two OpenCL devices on one queue (`POCL_DEVICES="pthread pthread"` makes
//! PoCL show two): a tree and a big file give the CPU engine's output byte
//! for byte, both devices take batches, and a fault on one device loses no
//! match.

use std::process::Command;
use std::sync::OnceLock;

/// Both PoCL devices, as `--opencl-device` lists them.
const TWO: &str = "pocl,pocl";

fn gsearch(args: &[&str], env: &[(&str, &str)], dir: &std::path::Path) -> (Vec<u8>, String, i32) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gsearch"));
    c.args(args)
        .current_dir(dir)
        .env("POCL_DEVICES", "pthread pthread")
        .env_remove("GSEARCH_FAULT")
        .env_remove("GSEARCH_CONFIG_PATH")
        .env_remove("RIPGREP_CONFIG_PATH");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    (o.stdout, err, o.status.code().unwrap_or(-1))
}

/// Whether PoCL shows two devices here. When it cannot, the tests skip
/// with a message, unless `GSEARCH_REQUIRE_OPENCL=1` (then they fail).
fn two_devices() -> bool {
    static TWO_SEEN: OnceLock<bool> = OnceLock::new();
    let seen = *TWO_SEEN.get_or_init(|| {
        let (out, _, _) = gsearch(&["--list-devices"], &[], std::path::Path::new("."));
        let text = String::from_utf8_lossy(&out);
        let pocl = text
            .lines()
            .filter(|l| l.contains("Portable Computing Language /"))
            .count();
        pocl >= 2
    });
    if !seen {
        if std::env::var("GSEARCH_REQUIRE_OPENCL").as_deref() == Ok("1") {
            panic!("GSEARCH_REQUIRE_OPENCL=1 but PoCL does not show two devices");
        }
        eprintln!("skipping: PoCL shows fewer than two devices (POCL_DEVICES=\"pthread pthread\")");
    }
    seen
}

/// A tree of many small files (several per batch), files near the batch
/// size and one file cut into many chunks.
fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let line = |i: usize| match i % 7 {
        0 => format!("needle {i} here\n"),
        1 => format!("Needle twice needle {i}\n"),
        3 => format!("hay {i} alpha-beta\n"),
        _ => format!("plain line {i} of hay\n"),
    };
    for f in 0..60 {
        let text: String = (0..f * 13).map(|i| line(i + f)).collect();
        std::fs::write(d.path().join(format!("f{f:02}.txt")), text).unwrap();
    }
    let big: String = (0..40_000).map(line).collect();
    std::fs::write(d.path().join("big.txt"), big).unwrap();
    d
}

/// Small batches, so that files are packed, cut in chunks, and both
/// devices get many batches.
fn two(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut env = vec![
        ("GSEARCH_ENGINE", "opencl"),
        ("GSEARCH_OPENCL_DEVICE", TWO),
        ("GSEARCH_BATCH_BYTES", "8192"),
    ];
    env.extend_from_slice(extra);
    env
}

const CASES: [&[&str]; 8] = [
    &["-n", "needle"],
    &["-c", "needle"],
    &["-i", "--count-matches", "needle"],
    &["-l", "alpha"],
    &["-n", "-C1", "alpha"],
    &["-n", "-e", "ne+dle [0-9]+ here", "-e", "hay 1[0-9]"],
    &["-o", "-w", "twice"],
    &["-b", "-H", "needle"],
];

/// Every case, sorted (one thread) and as the parallel walk prints it.
fn same_as_cpu(dir: &std::path::Path, paths: &[&str], env: &[(&str, &str)]) {
    for case in CASES {
        for sort in [true, false] {
            let mut args: Vec<&str> = case.to_vec();
            if sort {
                args.extend(["--sort", "path"]);
            }
            args.extend_from_slice(paths);
            let (cpu, _, cpu_rc) = gsearch(&args, &[("GSEARCH_ENGINE", "cpu")], dir);
            let (dev, err, rc) = gsearch(&args, env, dir);
            let (mut cpu, mut dev) = (cpu, dev);
            if !sort {
                // The parallel walk's order is not fixed: compare lines.
                cpu = sorted_lines(&cpu);
                dev = sorted_lines(&dev);
            }
            assert_eq!(rc, cpu_rc, "{args:?} {env:?}: {err}");
            assert!(
                cpu == dev,
                "{args:?} {env:?}: {err}\n--- cpu\n{}\n--- two devices\n{}",
                String::from_utf8_lossy(&cpu),
                String::from_utf8_lossy(&dev)
            );
        }
    }
}

fn sorted_lines(b: &[u8]) -> Vec<u8> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    v.sort_unstable();
    v.join(&b'\n')
}

/// Each device's batches, from `--stats`' `device N (...): B batches`.
fn shares(stats: &str) -> Vec<u64> {
    stats
        .lines()
        .filter(|l| l.starts_with("device "))
        .filter_map(|l| l.split("): ").nth(1))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect()
}

#[test]
fn two_devices_search_a_tree_as_the_cpu_does() {
    if !two_devices() {
        return;
    }
    let d = tree();
    same_as_cpu(d.path(), &["."], &two(&[]));
}

#[test]
fn two_devices_search_a_big_file_in_small_chunks() {
    if !two_devices() {
        return;
    }
    let d = tree();
    same_as_cpu(
        d.path(),
        &["big.txt"],
        &two(&[("GSEARCH_BATCH_BYTES", "4096")]),
    );
}

#[test]
fn both_devices_take_batches() {
    if !two_devices() {
        return;
    }
    let d = tree();
    for path in [".", "big.txt"] {
        let (out, err, rc) = gsearch(&["--stats", "-c", "needle", path], &two(&[]), d.path());
        let text = String::from_utf8_lossy(&out);
        assert_eq!(rc, 0, "{err}");
        assert!(text.contains("engine: opencl on 2 devices"), "{text}");
        let batches = shares(&text);
        assert_eq!(batches.len(), 2, "{text}");
        assert!(batches.iter().all(|&b| b > 0), "{text}");
    }
}

#[test]
fn a_fault_on_one_device_loses_no_match() {
    if !two_devices() {
        return;
    }
    let d = tree();
    for fault in ["lost@2:1", "enqueue@1:0", "build:1", "alloc:0", "lost@3"] {
        let env = two(&[("GSEARCH_FAULT", fault)]);
        same_as_cpu(d.path(), &["."], &env);
        let (out, err, _) = gsearch(&["--stats", "-c", "needle", "."], &env, d.path());
        assert!(err.contains("OpenCL device failed"), "{fault}: {err}");
        let text = String::from_utf8_lossy(&out);
        assert_eq!(shares(&text).len(), 2, "{fault}: {text}");
    }
}

/// A device whose start takes 3 s longer (`slowstart:1`) does not hold
/// the other back: the search starts on the first device ready, the late
/// one joins the queue when its start ends (here: after most or all of the
/// batches went to the other), and the answer is the CPU's.
#[test]
fn a_device_that_starts_late_does_not_hold_the_other_back() {
    if !two_devices() {
        return;
    }
    let d = tree();
    let env = two(&[("GSEARCH_FAULT", "slowstart:1")]);
    let args = ["-n", "--sort", "path", "needle", "."];
    let (cpu, _, _) = gsearch(&args, &[("GSEARCH_ENGINE", "cpu")], d.path());
    let (dev, err, rc) = gsearch(&args, &env, d.path());
    assert_eq!(rc, 0, "{err}");
    assert!(cpu == dev, "{err}");
    let (out, err, _) = gsearch(&["--stats", "-c", "needle", "."], &env, d.path());
    let text = String::from_utf8_lossy(&out);
    let batches = shares(&text);
    assert_eq!(batches.len(), 2, "{err}{text}");
    assert!(batches[1] * 4 < batches[0], "{text}");
}

#[test]
fn auto_hybrid_with_two_devices_equals_cpu() {
    if !two_devices() {
        return;
    }
    let d = tree();
    let env = [
        ("GSEARCH_ENGINE", "auto"),
        ("GSEARCH_OPENCL_DEVICE", TWO),
        ("GSEARCH_AUTO_MIN_BYTES", "1"),
        ("GSEARCH_HYBRID_CHUNK", "4096"),
        // Start the devices however soon the CPU would finish.
        ("GSEARCH_DEVICE_STARTUP_MS", "0"),
    ];
    for args in [&["-n", "needle"][..], &["-c", "-i", "needle"], &["alpha"]] {
        let mut args = args.to_vec();
        args.push("big.txt");
        let (cpu, _, _) = gsearch(&args, &[("GSEARCH_ENGINE", "cpu")], d.path());
        let (dev, err, _) = gsearch(&args, &env, d.path());
        assert!(cpu == dev, "{args:?}: {err}");
    }
}

#[test]
fn a_list_naming_a_missing_device_fails_clearly() {
    if !two_devices() {
        return;
    }
    let d = tree();
    let (_, err, rc) = gsearch(
        &[
            "--engine",
            "opencl",
            "--opencl-device",
            // (Index 2 exists where another runtime, e.g. Intel's CPU
            // one as in CI, shows a device beside PoCL's two.)
            "0,1,99",
            "needle",
            ".",
        ],
        &[],
        d.path(),
    );
    assert_eq!(rc, 2);
    assert!(err.contains("no OpenCL device matches index 99"), "{err}");
    let (out, err, rc) = gsearch(
        &[
            "--engine",
            "opencl",
            "--opencl-device",
            "1,0",
            "--stats",
            "-c",
            "needle",
            ".",
        ],
        &[("GSEARCH_BATCH_BYTES", "8192")],
        d.path(),
    );
    assert_eq!(rc, 0, "{err}");
    assert!(String::from_utf8_lossy(&out).contains("on 2 devices"));
}

/// Whether each path's lines of `-n` output (`path:n:text`) come in one
/// block, in line order: a file's output is printed whole, never split by
/// another file's.
fn whole_and_in_order(out: &[u8]) -> Result<(), String> {
    let (mut done, mut current): (Vec<String>, Option<(String, u64)>) = (Vec::new(), None);
    for line in String::from_utf8_lossy(out).lines() {
        let mut f = line.splitn(3, ':');
        let (path, n) = (f.next().unwrap_or("").to_string(), f.next().unwrap_or(""));
        let n: u64 = n.parse().map_err(|_| format!("not path:n:text: {line}"))?;
        match &mut current {
            Some((p, last)) if *p == path && n > *last => *last = n,
            Some((p, _)) if *p == path => return Err(format!("{path}: {n} out of order")),
            _ => {
                if done.contains(&path) {
                    return Err(format!("{path}: printed in two blocks"));
                }
                if let Some((p, _)) = current.take() {
                    done.push(p);
                }
                current = Some((path, n));
            }
        }
    }
    Ok(())
}

/// Several big files whose candidate lines are confirmed on the host (a
/// regex the DFA kernel decides candidates for) are finished beside the
/// stream, one at a time: each file's output is whole, in order, and the
/// answer is the CPU's, on one device and on two.
#[test]
fn big_files_finished_beside_the_stream_print_whole() {
    if !two_devices() {
        return;
    }
    let d = tree();
    let big = std::fs::read(d.path().join("big.txt")).unwrap();
    for i in 0..4 {
        std::fs::write(d.path().join(format!("big{i}.txt")), &big[i * 1000..]).unwrap();
    }
    let args = ["-n", "-e", "ne+dle [0-9]+ here", "-e", "hay 1[0-9]", "."];
    let (cpu, _, _) = gsearch(&args, &[("GSEARCH_ENGINE", "cpu")], d.path());
    for devices in ["pocl", TWO] {
        let env = two(&[("GSEARCH_OPENCL_DEVICE", devices)]);
        let (dev, err, rc) = gsearch(&args, &env, d.path());
        assert_eq!(rc, 0, "{devices}: {err}");
        assert!(sorted_lines(&cpu) == sorted_lines(&dev), "{devices}: {err}");
        whole_and_in_order(&dev).unwrap_or_else(|e| panic!("{devices}: {e}"));
    }
}
