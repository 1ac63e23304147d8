//! The engine-related command line: `--list-devices`, `--engine` with and
//! without an OpenCL driver, `--verify`, `--stats`, and `--sorted` end to
//! end through the binary.

use std::process::{Command, Output};

mod common;

fn gsearch(args: &[&str], env: &[(&str, &str)], dir: &std::path::Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gsearch"));
    c.args(args).current_dir(dir);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Environment in which the OpenCL loader finds no driver at all.
fn no_opencl(empty: &std::path::Path) -> Vec<(&'static str, String)> {
    vec![
        ("OCL_ICD_VENDORS", empty.display().to_string()),
        ("OCL_ICD_FILENAMES", String::new()),
    ]
}

fn with<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.txt"), "alpha\nneedle one\nbeta\n").unwrap();
    std::fs::write(d.path().join("b.txt"), "needle two\nNeedle three\n").unwrap();
    d
}

#[test]
fn without_opencl_auto_searches_on_the_cpu_and_opencl_fails_clearly() {
    let d = tree();
    let empty = tempfile::tempdir().unwrap();
    let env = no_opencl(empty.path());
    let auto = gsearch(&["-c", "needle", "a.txt"], &with(&env), d.path());
    assert_eq!(auto.status.code(), Some(0));
    assert_eq!(auto.stdout, b"1\n");
    assert!(auto.stderr.is_empty());
    let ocl = gsearch(
        &["--engine", "opencl", "needle", "a.txt"],
        &with(&env),
        d.path(),
    );
    assert_eq!(ocl.status.code(), Some(2));
    let err = String::from_utf8_lossy(&ocl.stderr);
    assert!(err.contains("OpenCL engine is not available"), "{err}");
    let list = gsearch(&["--list-devices"], &with(&env), d.path());
    assert_eq!(list.status.code(), Some(0));
    assert!(!list.stdout.is_empty());
}

#[test]
fn list_devices_names_the_device() {
    if !common::have_device() {
        return;
    }
    let d = tree();
    let out = gsearch(&["--list-devices"], &[], d.path());
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("compute units"), "{text}");
    assert!(text.contains("device-side enqueue"), "{text}");
}

#[test]
fn verify_agrees_and_stats_name_the_engine() {
    if !common::have_device() {
        return;
    }
    let d = tree();
    let args = ["--sort", "path", "-n", "-i", "needle"];
    let cpu = gsearch(&args, &[("GSEARCH_ENGINE", "cpu")], d.path());
    let mut v = vec!["--engine", "opencl", "--verify"];
    v.extend_from_slice(&args);
    let dev = gsearch(&v, &[], d.path());
    assert_eq!(dev.status.code(), Some(0));
    assert_eq!(dev.stdout, cpu.stdout);
    assert!(
        dev.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&dev.stderr)
    );

    let stats = gsearch(&["--engine", "opencl", "--stats", "needle"], &[], d.path());
    let text = String::from_utf8_lossy(&stats.stdout);
    assert!(text.contains("engine: opencl on "), "{text}");
    assert!(text.contains("kernel: 3phase"), "{text}");
    assert!(text.contains("opencl stream:"), "{text}");
    let stats = gsearch(&["--engine", "cpu", "--stats", "needle"], &[], d.path());
    assert!(String::from_utf8_lossy(&stats.stdout).contains("engine: cpu"));
}

/// `--verify --json`: the two printers' `end` messages differ in their
/// timings only, which is no disagreement (it reported one on nearly every
/// file).
#[test]
fn verify_with_json_compares_all_but_the_timings() {
    if !common::have_device() {
        return;
    }
    let d = tree();
    let args = [
        "--engine", "opencl", "--verify", "--json", "--sort", "path", "needle",
    ];
    for _ in 0..3 {
        let dev = gsearch(&args, &[], d.path());
        assert!(
            dev.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&dev.stderr)
        );
        assert_eq!(dev.status.code(), Some(0));
        let text = String::from_utf8_lossy(&dev.stdout);
        assert_eq!(text.matches("\"type\":\"match\"").count(), 2, "{text}");
    }
}

/// Options of ripgrep's printers only (`-M`, `--trim`, `--colors`,
/// separators, `--path-separator`) leave the search on the device: its
/// lines reach ripgrep's printer through `OffsetMatcher`. The output is the
/// CPU engine's (whose equality to ripgrep's the CLI tests show).
#[test]
fn printer_options_keep_the_device() {
    if !common::have_device() {
        return;
    }
    let d = tree();
    let sets: [&[&str]; 5] = [
        &["-M", "8", "-n"],
        &["--trim", "-n"],
        &["--color", "always", "--colors", "match:fg:green", "-n"],
        &["--field-match-separator", "=", "--column"],
        &["--path-separator", "/", "-c"],
    ];
    for flags in sets {
        let mut args = vec!["--sort", "path"];
        args.extend_from_slice(flags);
        args.push("needle");
        let cpu = gsearch(&[&["--engine", "cpu"][..], &args].concat(), &[], d.path());
        let dev = gsearch(
            &[&["--engine", "opencl"][..], &args].concat(),
            &[],
            d.path(),
        );
        assert_eq!(dev.stdout, cpu.stdout, "{flags:?}");
        assert_eq!(dev.status.code(), Some(0), "{flags:?}");
        let stats = [&["--engine", "opencl", "--stats"][..], &args].concat();
        let text = String::from_utf8_lossy(&gsearch(&stats, &[], d.path()).stdout).into_owned();
        assert!(text.contains("engine: opencl on "), "{flags:?}: {text}");
    }
}

/// `--verify` also covers files read in chunks (the count and numbered-line
/// fast paths step aside so every file is checked against the CPU engine).
#[test]
fn verify_covers_chunked_files() {
    if !common::have_device() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let text: String = (0..3000)
        .map(|i| {
            if i % 7 == 0 {
                format!("line {i} needle\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    std::fs::write(d.path().join("big.txt"), text).unwrap();
    let small = [("GSEARCH_BATCH_BYTES", "4096")];
    for args in [
        &["-c", "needle", "big.txt"][..],
        &["-n", "needle", "big.txt"],
    ] {
        let cpu = gsearch(args, &[("GSEARCH_ENGINE", "cpu")], d.path());
        let mut v = vec!["--engine", "opencl", "--verify"];
        v.extend_from_slice(args);
        let dev = gsearch(&v, &small, d.path());
        assert_eq!(dev.status.code(), Some(0), "{args:?}");
        assert_eq!(dev.stdout, cpu.stdout, "{args:?}");
        assert!(
            dev.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&dev.stderr)
        );
    }
}

#[test]
fn sorted_lookups_through_the_binary() {
    let d = tempfile::tempdir().unwrap();
    let lines = ["a1", "abc", "abd", "b", "b", "ba", "c\u{e9}", "d"];
    std::fs::write(d.path().join("s.txt"), lines.join("\n") + "\n").unwrap();
    std::fs::write(d.path().join("keys"), "ab\nb\nzz\n").unwrap();
    std::fs::write(d.path().join("u.txt"), "b\na\n").unwrap();
    let one = gsearch(&["--sorted", "ab", "s.txt"], &[], d.path());
    assert_eq!(one.stdout, b"abc\nabd\n");
    assert_eq!(one.status.code(), Some(0));
    let many = gsearch(&["--sorted", "-f", "keys", "s.txt"], &[], d.path());
    assert_eq!(many.stdout, b"abc\nabd\nb\nb\nba\n");
    let count = gsearch(&["--sorted", "-c", "-f", "keys", "s.txt"], &[], d.path());
    assert_eq!(count.stdout, b"5\n");
    let none = gsearch(&["--sorted", "zz", "s.txt"], &[], d.path());
    assert_eq!((none.status.code(), none.stdout.len()), (Some(1), 0));
    let bad = gsearch(&["--sorted", "a", "u.txt"], &[], d.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not sorted"));
}

/// `--opencl-device nvidia,nvidia` has the NVIDIA driver start two GPUs
/// (`CUDA_VISIBLE_DEVICES=0,1`, shown by `GSEARCH_TRACE`), a small file
/// under the default selection one; a value the user set is left alone,
/// and the CPU engine sets nothing.
#[test]
fn the_driver_starts_only_the_gpus_a_search_can_use() {
    let d = tree();
    let set = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gsearch"));
        c.args(args).current_dir(d.path()).env("GSEARCH_TRACE", "1");
        c.env_remove("CUDA_VISIBLE_DEVICES")
            .env_remove("GSEARCH_ENGINE");
        c.envs(env.iter().copied());
        let o = c.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        err.lines()
            .find_map(|l| l.split("CUDA_VISIBLE_DEVICES=").nth(1))
            .map(str::to_string)
    };
    let two = ["--opencl-device", "nvidia,nvidia", "-c", "needle", "a.txt"];
    assert_eq!(set(&two, &[]).as_deref(), Some("0,1"));
    assert_eq!(set(&two, &[("CUDA_VISIBLE_DEVICES", "3")]), None);
    let default = ["--opencl-device", "auto", "-c", "needle", "a.txt"];
    assert_eq!(set(&default, &[]).as_deref(), Some("0"));
    assert_eq!(
        set(&["--engine", "cpu", "-c", "needle", "a.txt"], &[]),
        None
    );
}
