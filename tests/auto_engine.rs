//! `--engine auto` on inputs that pass its size threshold (lowered with the
//! test-only `GSEARCH_AUTO_MIN_BYTES`; `GSEARCH_DEVICE_STARTUP_MS=0` starts
//! the device however soon the CPU would finish): the hybrid path (CPU threads and a
//! device sharing one chunk queue) must print exactly what the CPU engine
//! prints. The device is PoCL here (`GSEARCH_OPENCL_DEVICE=0` lets `auto`
//! use a CPU-type device); without any OpenCL device the CPU does it all,
//! which must give the same answers too.

use std::process::Command;

mod common;

fn corpus() -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut f = tempfile::NamedTempFile::new().unwrap();
    let mut x: u64 = 7;
    // (A line may open with a UTF-8 continuation byte, whose answer can
    // depend on the line before it.)
    let words: [&[u8]; 10] = [
        b"alpha ",
        b"Needle ",
        b"needle",
        b"\n",
        b"beta gamma ",
        b"NEEDLE\n",
        b"x\n",
        b"\n\n",
        "é needle ".as_bytes(),
        b"\xa9needle ",
    ];
    for _ in 0..400_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        f.write_all(words[(x >> 33) as usize % words.len()])
            .unwrap();
    }
    f.write_all(b"needle at the very end").unwrap();
    f
}

/// A copy of `f` with a line holding a NUL after the line at its middle.
fn with_nul_midway(f: &tempfile::NamedTempFile) -> tempfile::NamedTempFile {
    use std::io::Write;
    let mut data = std::fs::read(f.path()).unwrap();
    let at = data.len() / 2;
    let at = at + data[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    data.splice(at..at, b"a needle \x00 here\n".iter().copied());
    let mut g = tempfile::NamedTempFile::new().unwrap();
    g.write_all(&data).unwrap();
    g
}

/// `auto` with the device (PoCL here) taken for any input size, plus `extra`.
fn auto_env<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut env = vec![
        ("GSEARCH_ENGINE", "auto"),
        ("GSEARCH_AUTO_MIN_BYTES", "1"),
        ("GSEARCH_OPENCL_DEVICE", "0"),
        // Start the device at once, however soon the CPU would finish.
        ("GSEARCH_DEVICE_STARTUP_MS", "0"),
    ];
    env.extend_from_slice(extra);
    env
}

fn run(args: &[&str], path: &str, env: &[(&str, &str)]) -> (Vec<u8>, i32) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gsearch"));
    c.args(args).arg(path);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (o.stdout, o.status.code().unwrap_or(-1))
}

/// Each of `cases` prints the same and exits the same under `env` as on
/// the CPU engine.
fn same_as_cpu(cases: &[&[&str]], path: &str, env: &[(&str, &str)]) {
    let cpu = [("GSEARCH_ENGINE", "cpu")];
    for args in cases {
        assert_eq!(
            run(args, path, env),
            run(args, path, &cpu),
            "{args:?} {env:?}"
        );
    }
}

#[test]
fn auto_hybrid_equals_cpu() {
    check(&[]);
}

/// A NUL midway through the file: the lines printed as they stream, then,
/// from the chunk holding it, ripgrep's searcher on its own (which stops
/// at a NUL in a line it prints), as the CPU engine prints them.
#[test]
fn auto_hybrid_nul_midway() {
    let g = with_nul_midway(&corpus());
    let path = g.path().to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["needle"],
        &["-o", "-b", "needle"],
        &["-C1", "NEEDLE"],
        &["-a", "-o", "needle"],
    ];
    for chunk in ["4099", "65536"] {
        same_as_cpu(&cases, path, &auto_env(&[("GSEARCH_HYBRID_CHUNK", chunk)]));
    }
    let first = [
        ("GSEARCH_HYBRID_CHUNK", "65536"),
        ("GSEARCH_HYBRID_FIRST", "777"),
    ];
    same_as_cpu(&cases, path, &auto_env(&first));
}

/// A file that opens with a UTF-8 byte-order mark, which ripgrep's searcher
/// strips: the numbered lines go to its printer (they printed the mark,
/// found by the fuzzer, seed 73546), the other forms as usual.
#[test]
fn auto_hybrid_byte_order_mark() {
    use std::io::Write;
    let f = corpus();
    let mut g = tempfile::NamedTempFile::new().unwrap();
    g.write_all(b"\xEF\xBB\xBFneedle on the first line\n")
        .unwrap();
    g.write_all(&std::fs::read(f.path()).unwrap()).unwrap();
    let path = g.path().to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["-n", "needle"],
        &["needle"],
        &["-c", "needle"],
        &["-o", "-n", "needle"],
    ];
    let env = auto_env(&[("GSEARCH_HYBRID_CHUNK", "65536")]);
    same_as_cpu(&cases, path, &env);
    same_as_cpu(
        &cases,
        path,
        &[env.as_slice(), &[("GSEARCH_BIGFILE_MIN_BYTES", "1")]].concat(),
    );
}

/// A candidate line longer than the confirmation's bound (1 MiB), which
/// `-x` makes a candidate without matching: printed as streamed output
/// only if the searcher decides it matches.
#[test]
fn auto_hybrid_long_candidate_line() {
    use std::io::Write;
    let mut g = tempfile::NamedTempFile::new().unwrap();
    g.write_all(b"a needle here\n").unwrap();
    g.write_all(&b"xneedlex ".repeat(250_000)).unwrap();
    g.write_all(b"\nneedle\nneedles\n").unwrap();
    let path = g.path().to_str().unwrap();
    let cases: [&[&str]; 3] = [
        &["-x", "needle"],
        &["-o", "-b", "-x", "needle"],
        &["-x", "-e", "need(le)", "-e", "zzz"],
    ];
    for chunk in ["65536", "33554432"] {
        same_as_cpu(&cases, path, &auto_env(&[("GSEARCH_HYBRID_CHUNK", chunk)]));
    }
}

/// A rule set with no device to open (an index past the list, as a
/// machine without a GPU has none for `auto`): the CPU searches, alone
/// (the listing came first) or in the queue's chunks (the listing came
/// while they were searched), with `--engine cpu`'s answers, and
/// `--stats` says why no device was used.
#[test]
fn auto_rule_set_without_a_device_searches_as_the_cpu() {
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let mut rules = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut rules, b"n[e]+dle\\b\nbeta\\s+gam\n^x$\n").unwrap();
    let r = rules.path().to_str().unwrap();
    let none = auto_env(&[("GSEARCH_OPENCL_DEVICE", "99")]);
    same_as_cpu(
        &[&["-f", r], &["-n", "-f", r], &["-c", "-f", r]],
        path,
        &none,
    );
    let (out, code) = run(&["--stats", "-c", "-f", r], path, &none);
    assert_eq!(code, 0);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("device: not used"), "{text}");
    assert!(
        !text.contains("chunks:") || text.contains(", 0 on the device"),
        "{text}"
    );
}

/// A listing that finds no GPU and no accelerator is remembered (in the
/// program cache's directory): the next `auto` search does not list the
/// devices again, gives the same answer, and `--stats` says why. Where a
/// GPU is found, nothing is remembered. A device named is always looked for.
#[test]
fn auto_remembers_a_machine_without_a_gpu() {
    // Without OpenCL nothing is listed, so nothing is remembered.
    if !common::have_device() {
        return;
    }
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut rules = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(&mut rules, b"n[e]+dle\\b\nbeta\\s+gam\n").unwrap();
    let r = rules.path().to_str().unwrap();
    let stats = |named: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gsearch"));
        c.args(["--stats", "-c", "-f", r, path])
            .env("XDG_CACHE_HOME", cache.path())
            .env("GSEARCH_ENGINE", "auto")
            .env("GSEARCH_AUTO_MIN_BYTES", "1")
            .env("GSEARCH_DEVICE_STARTUP_MS", "0")
            .env_remove("GSEARCH_OPENCL_DEVICE");
        if let Some(n) = named {
            c.env("GSEARCH_OPENCL_DEVICE", n);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8(o.stdout).unwrap()
    };
    let count = |text: &str| text.lines().next().unwrap().to_string();
    let first = stats(None);
    let second = stats(None);
    assert_eq!(count(&first), count(&second));
    let memo = "device: not looked for (no GPU or accelerator at the last listing";
    assert!(!first.contains(memo), "{first}");
    if first.contains("no OpenCL device matches auto (no GPU or accelerator)") {
        assert!(second.contains(memo), "{second}");
        assert!(second.contains("engine: cpu"), "{second}");
        let named = stats(Some("99"));
        assert!(!named.contains(memo), "{named}");
        assert_eq!(count(&first), count(&named));
    } else {
        assert!(!second.contains(memo), "{second}");
    }
}

/// Small chunks: lines, matches and the device's overlap cross chunk
/// boundaries many times; CPU threads read through the map.
#[test]
fn auto_hybrid_small_chunks_map() {
    check(&[
        ("GSEARCH_HYBRID_CHUNK", "4099"),
        ("GSEARCH_BATCH_BYTES", "8192"),
    ]);
}

/// A first chunk smaller than the others (which a CPU thread searches
/// while a regex's device starts): its boundary is crossed as the others'.
#[test]
fn auto_hybrid_small_first_chunk() {
    check(&[
        ("GSEARCH_HYBRID_CHUNK", "8192"),
        ("GSEARCH_HYBRID_FIRST", "1001"),
        ("GSEARCH_BATCH_BYTES", "16384"),
    ]);
}

/// The same with CPU threads reading by `pread` into small buffers.
#[test]
fn auto_hybrid_small_chunks_pread() {
    check(&[
        ("GSEARCH_HYBRID_CHUNK", "4099"),
        ("GSEARCH_BATCH_BYTES", "8192"),
        ("GSEARCH_HYBRID_READ", "pread"),
    ]);
}

/// A device still starting when the CPU has searched every chunk is not
/// waited for: same answers, same exit status, and `--stats` says so.
#[test]
fn auto_does_not_wait_for_a_slow_device() {
    if !common::have_device() {
        return;
    }
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let auto = auto_env(&[("GSEARCH_FAULT", "slowstart")]);
    same_as_cpu(&[&["-c", "needle"], &["-n", "zzz_absent"]], path, &auto);
    let (out, code) = run(&["--stats", "-c", "needle"], path, &auto);
    assert_eq!(code, 0);
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("not waited for"), "{text}");
}

/// The cost model: with the device's usual start-up (not the tests' 0), a
/// file the CPU finishes in milliseconds never starts the device, and
/// `--stats` says why.
#[test]
fn auto_leaves_the_device_off_when_the_cpu_finishes_first() {
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let auto = auto_env(&[
        ("GSEARCH_DEVICE_STARTUP_MS", "400"),
        ("GSEARCH_HYBRID_CHUNK", "65536"),
    ]);
    same_as_cpu(&[&["-c", "needle"], &["-n", "very end"]], path, &auto);
    let (out, code) = run(&["--stats", "-c", "needle"], path, &auto);
    assert_eq!(code, 0);
    let text = String::from_utf8_lossy(&out);
    // The CPU engine alone searched it, as `--engine cpu` does.
    assert!(text.contains("engine: cpu"), "{text}");
    if common::have_device() {
        assert!(text.contains("device: not started"), "{text}");
    }
}

/// A big literal set (which the device searches alone, not with the
/// hybrid): with the device's usual start-up the CPU's measured pace wins
/// on a file it finishes in milliseconds, and `--stats` says why; with a
/// start-up of 0 the device searches. Same answers either way.
#[test]
fn auto_weighs_a_big_literal_set_on_the_cpu_pace() {
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let words = dir.path().join("words.txt");
    let mut list: Vec<String> = (0..150).map(|i| format!("zz{i:03}qq")).collect();
    list.extend(["needle", "gamma"].map(String::from));
    std::fs::write(&words, list.join("\n")).unwrap();
    let words = words.to_str().unwrap();
    for (startup, engine) in [("400", "engine: cpu"), ("0", "engine: opencl")] {
        let auto = auto_env(&[("GSEARCH_DEVICE_STARTUP_MS", startup)]);
        same_as_cpu(
            &[&["-c", "-F", "-f", words], &["-n", "-F", "-f", words]],
            path,
            &auto,
        );
        let (out, code) = run(&["--stats", "-c", "-F", "-f", words], path, &auto);
        assert_eq!(code, 0);
        let text = String::from_utf8_lossy(&out);
        if !common::have_device() {
            continue;
        }
        assert!(text.contains(engine), "{startup}: {text}");
        if startup != "0" {
            assert!(text.contains("device: not used (the CPU's pace"), "{text}");
        }
    }
}

/// One literal, or a regex without one (the DFA engine's), over several
/// big files, no device named: the cost model weighs the device (which
/// returns every occurrence of a dense literal) as it does for big sets,
/// and the CPU's pace wins on files it finishes in milliseconds. (Without
/// a GPU, `auto` never looks for one.)
#[test]
fn auto_weighs_one_literal_or_regex_over_several_files() {
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let auto = auto_env(&[
        ("GSEARCH_DEVICE_STARTUP_MS", "400"),
        ("GSEARCH_OPENCL_DEVICE", ""),
    ]);
    let regex = "[a-z]+[A-Z]";
    same_as_cpu(
        &[
            &["-c", "e", path],
            &["-n", "needle", path],
            &["-c", regex, path],
        ],
        path,
        &auto,
    );
    for pattern in ["e", regex] {
        let (out, code) = run(&["--stats", "-c", pattern, path], path, &auto);
        assert_eq!(code, 0);
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("engine: cpu"), "{text}");
    }
}

/// Searches that stop at a file's first matching lines (`-l`, `-q`, `-m`)
/// stay on the CPU under `auto`, which stops reading where ripgrep does.
#[test]
fn auto_keeps_early_stopping_searches_on_the_cpu() {
    // Without a device every search is on the CPU: nothing to tell apart.
    if !common::have_device() {
        return;
    }
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let auto = auto_env(&[]);
    // The same input and settings without an early stop do use the device.
    let (out, _) = run(&["--stats", "-c", "needle"], path, &auto);
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("engine: cpu"), "{text}");
    for args in [
        &["--stats", "-l", "needle"][..],
        &["--stats", "--files-without-match", "needle"],
        &["--stats", "-m", "2", "needle"],
    ] {
        let (out, _) = run(args, path, &auto);
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("engine: cpu"), "{args:?}: {text}");
    }
}

fn check(extra: &[(&str, &str)]) {
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let cases: [&[&str]; 8] = [
        &["-n", "needle"],
        &["-H", "needle"],
        &["-c", "-i", "needle"],
        &["-o", "-b", "-w", "needle"],
        &["-C1", "NEEDLE"],
        &["--count-matches", "-e", "alpha", "-e", "gamma"],
        &["-v", "-c", "needle"],
        &["-n", "zzz_absent"],
    ];
    same_as_cpu(&cases, path, &auto_env(extra));
    // A rule set: the devices run its DFA tables on their chunks and the
    // exact matcher confirms their candidate lines.
    let mut rules = tempfile::NamedTempFile::new().unwrap();
    std::io::Write::write_all(
        &mut rules,
        b"n[e]+dle\\b\n\\bbeta\\s+gam\n(?i)\xc3\xa9\\s\\w+\n^x$\n[A-Z]{4,}\n",
    )
    .unwrap();
    let r = rules.path().to_str().unwrap();
    let rule_cases: [&[&str]; 6] = [
        &["-n", "-f", r],
        &["-c", "-f", r],
        &["-o", "-b", "-f", r],
        &["-C1", "-f", r],
        &["--count-matches", "-f", r],
        &["-v", "-c", "-f", r],
    ];
    same_as_cpu(&rule_cases, path, &auto_env(extra));
}

/// `-c` on a file read in chunks is counted while the chunks stream by:
/// lines longer than a chunk, with matches in several chunks, count once.
#[test]
fn opencl_streamed_count_of_long_lines() {
    use std::io::Write;
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for i in 0..40 {
        let long = "x needle ".repeat(2000 + i * 37);
        writeln!(f, "short needle {i}\n{long}\nnothing here\n\nneedle").unwrap();
    }
    f.write_all(b"tail without newline needle").unwrap();
    let path = f.path().to_str().unwrap();
    let dev = [
        ("GSEARCH_ENGINE", "opencl"),
        ("GSEARCH_BATCH_BYTES", "4096"),
    ];
    if !common::have_device() {
        return;
    }
    let cases: [&[&str]; 3] = [
        &["-c", "needle"],
        &["-c", "-i", "NEEDLE"],
        &["-n", "needle"],
    ];
    same_as_cpu(&cases, path, &dev);
}

/// `--engine opencl` with `-l`, `--files-without-match` or `-q` stops
/// reading a big file once a chunk matched (the rest is answered from the
/// file by the CPU, which stops at the first match): same output and exit
/// status as the CPU engine, and only the first chunks are streamed.
#[test]
fn opencl_early_stopping_reads_little_of_a_big_file() {
    if !common::have_device() {
        return;
    }
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let size = f.as_file().metadata().unwrap().len();
    let dev = [
        ("GSEARCH_ENGINE", "opencl"),
        ("GSEARCH_BATCH_BYTES", "8192"),
    ];
    let cases: [&[&str]; 6] = [
        &["-l", "needle"],
        &["--files-without-match", "needle"],
        &["-q", "needle"],
        &["-l", "zzz_absent"],
        &["--files-without-match", "zzz_absent"],
        &["-l", "-F", "-e", "very end", "-e", "zzz"],
    ];
    same_as_cpu(&cases, path, &dev);
    let (out, _) = run(&["--stats", "-l", "needle"], path, &dev);
    let text = String::from_utf8_lossy(&out);
    let streamed: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("opencl stream: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(streamed < size / 4, "{streamed} of {size} bytes streamed");
}

/// `--engine opencl` on one big file in a form ripgrep's printer writes:
/// its lines are printed as its chunks are committed (with a NUL, the
/// searcher decides the rest; a DFA's candidates are decided by the
/// searcher), the same as the CPU engine prints them.
#[test]
fn opencl_one_big_file_prints_as_it_streams() {
    if !common::have_device() {
        return;
    }
    let f = corpus();
    let nul = with_nul_midway(&f);
    let cases: [&[&str]; 11] = [
        &["needle"],
        &["-o", "-b", "needle"],
        &["-C1", "NEEDLE"],
        &["-H", "--column", "-i", "needle"],
        &["-x", "-e", "needle", "-e", "x"],
        &["-a", "-o", "needle"],
        // Numbered by the device, chunk by chunk.
        &["-n", "needle"],
        &["-n", "-H", "-x", "-e", "needle", "-e", "x"],
        &["-n", "-a", "-i", "needle"],
        // Not streamed: reads cut a line at a NUL; a listing.
        &["--no-mmap", "-C1", "needle"],
        &["-l", "-A3", "needle"],
    ];
    for batch in ["4096", "65536"] {
        let dev = [("GSEARCH_ENGINE", "opencl"), ("GSEARCH_BATCH_BYTES", batch)];
        for path in [f.path(), nul.path()] {
            same_as_cpu(&cases, path.to_str().unwrap(), &dev);
        }
    }
}

/// A NUL in a file's first 64 KiB, past the first chunks: ripgrep's
/// searcher sees it before it prints any line (binary detection looks at
/// a map's first 64 KiB first), so the streams print nothing before it
/// either, on the device engine alone and in `auto`'s hybrid queue.
#[test]
fn a_nul_in_the_first_64_kib_is_seen_before_any_line_streams() {
    use std::io::Write;
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for i in 0..400 {
        writeln!(f, "line {i} with a needle in it").unwrap();
        if i == 300 {
            f.write_all(b"a needle \x00 here\n").unwrap();
        }
    }
    let path = f.path().to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["-n", "needle"],
        &["needle"],
        &["-o", "-e", "ne+dle", "-e", "x{3}", "-e", "zz"],
        &["-C1", "-e", "ne+dle", "-e", "x{3}", "-e", "zz"],
    ];
    if common::have_device() {
        let dev = [("GSEARCH_ENGINE", "opencl"), ("GSEARCH_BATCH_BYTES", "256")];
        same_as_cpu(&cases, path, &dev);
    }
    let first = [
        ("GSEARCH_HYBRID_CHUNK", "4096"),
        ("GSEARCH_HYBRID_FIRST", "1000"),
    ];
    same_as_cpu(&cases, path, &auto_env(&first));
}

/// A closed pipe stops the device's stream of one big file: a reader of
/// the first line (`| head -1`) leaves most of the file unread, with
/// ripgrep's printer or numbered lines.
#[test]
fn opencl_one_big_file_stops_at_a_closed_pipe() {
    if !common::have_device() {
        return;
    }
    let f = corpus();
    for args in [&["needle"][..], &["-n", "needle"]] {
        stops_at_a_closed_pipe(&f, args);
    }
}

/// A closed pipe stops `auto`'s hybrid queue on one big file: CPU
/// threads and the device leave the chunks unclaimed (a rule set, whose
/// lines stream).
#[test]
fn auto_hybrid_stops_at_a_closed_pipe() {
    // (Without a device the CPU engine searches the rule set alone: no
    // queue to look at.)
    if !common::have_device() {
        return;
    }
    // The corpus 16 times (38 MB, 2,343 chunks): after the pipe closes, the
    // printer finds out at its next write or wait, by which time the CPU
    // threads have answered some dozens of chunks (6-107 in runs here: on
    // the corpus alone, 147 chunks, that was at times more than half).
    let f = tempfile::NamedTempFile::new().unwrap();
    let one = std::fs::read(corpus().path()).unwrap();
    for _ in 0..16 {
        std::io::Write::write_all(&mut f.as_file(), &one).unwrap();
    }
    let size = f.as_file().metadata().unwrap().len();
    let chunk = 16384;
    let env = auto_env(&[
        ("GSEARCH_HYBRID_CHUNK", "16384"),
        ("GSEARCH_HYBRID_FIRST", "0"),
    ]);
    let args = ["-e", "n[e]+dle", "-e", "NE+DLE", "-e", "Ne+dle"];
    let trace = first_line_then_close(&f, &args, &env);
    let chunks: Vec<u64> = trace
        .lines()
        .find_map(|l| l.split("chunks: ").nth(1))
        .map(|l| l.split(' ').filter_map(|w| w.parse().ok()).collect())
        .unwrap_or_else(|| panic!("{trace}"));
    let answered: u64 = chunks.iter().sum();
    assert!(
        answered < size.div_ceil(chunk) / 2,
        "{answered} of {} chunks answered: {trace}",
        size.div_ceil(chunk)
    );
}

fn stops_at_a_closed_pipe(f: &tempfile::NamedTempFile, args: &[&str]) {
    let size = f.as_file().metadata().unwrap().len();
    let env = [
        ("GSEARCH_ENGINE", "opencl"),
        ("GSEARCH_BATCH_BYTES", "8192"),
    ];
    let trace = first_line_then_close(f, args, &env);
    let streamed: u64 = trace
        .lines()
        .find_map(|l| l.split("opencl stream: ").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{trace}"));
    assert!(
        streamed < size / 2,
        "{args:?}: {streamed} of {size} bytes streamed"
    );
}

/// Runs gsearch on `f` under `env`, reads the first line of its output
/// (which must hold "needle"), closes the pipe and returns the trace.
fn first_line_then_close(
    f: &tempfile::NamedTempFile,
    args: &[&str],
    env: &[(&str, &str)],
) -> String {
    use std::io::{BufRead, Read};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gsearch"))
        .args(args)
        .arg(f.path())
        .envs(env.iter().copied())
        .env("GSEARCH_TRACE", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let mut trace = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut trace)
        .unwrap();
    child.wait().unwrap();
    assert!(first.contains("needle"), "{first:?}");
    trace
}

/// `GSEARCH_CHAR16_PRMT=1` builds char16's nibble filter with NVIDIA's
/// inline PTX on any device: where the compiler rejects it (PoCL, Intel)
/// the set is built again with the portable filters, so the answers are
/// the CPU engine's either way.
#[test]
fn opencl_char16_ptx_build_falls_back() {
    if !common::have_device() {
        return;
    }
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let dev = [
        ("GSEARCH_ENGINE", "opencl"),
        ("GSEARCH_CHAR16_PRMT", "1"),
        ("GSEARCH_BATCH_BYTES", "65536"),
    ];
    let cases: [&[&str]; 3] = [
        &["-c", "-e", "needle", "-e", "gamma", "-e", "x"],
        &["-o", "-b", "-i", "-e", "needle", "-e", "beta"],
        &["-n", "-F", "-e", "very end", "-e", "alpha "],
    ];
    same_as_cpu(&cases, path, &dev);
}

/// A device the user named that does not exist: `auto` says so once on
/// stderr and searches on the CPU. (One big file takes the hybrid path,
/// whose device thread says it too when it gets there before the CPU is
/// done; it is not waited for.)
#[test]
fn auto_warns_when_the_named_device_is_missing() {
    let f = corpus();
    let path = f.path().to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gsearch"))
        .args(["-c", "needle", path, path])
        .env("GSEARCH_ENGINE", "auto")
        .env("GSEARCH_AUTO_MIN_BYTES", "1")
        .env("GSEARCH_OPENCL_DEVICE", "999")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches("warning: the OpenCL device asked for is not used")
            .count(),
        1,
        "{err}"
    );
}
