//! The line-index kernels (`kernels/line_index.cl`) against the host
//! reference (`host_lines`) on random texts and offsets, with small
//! work-groups so that texts cross many blocks; and `stream_lines` through
//! the engine (match kernel + line kernels) across batch boundaries, with
//! and without a device failure. Without a device each test prints a skip
//! line and passes, unless `GSEARCH_REQUIRE_OPENCL=1`.

use std::sync::{Mutex, OnceLock};

use gsearch::engine::LiteralSet;
use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::opencl::*;
use proptest::prelude::*;

mod common;
use common::{byte, have_device};

/// The device: `GSEARCH_OPENCL_DEVICE` when set (e.g. `intel`), else any.
fn selector() -> DeviceSelector {
    std::env::var("GSEARCH_OPENCL_DEVICE")
        .map(|s| DeviceSelector::parse(&s))
        .unwrap_or(DeviceSelector::Explicit)
}

/// One indexer per work-group size for the whole test process (PoCL builds
/// cost ~0.5 s).
fn indexer(wg: usize) -> &'static Mutex<LineIndexer> {
    static SMALL: OnceLock<Mutex<LineIndexer>> = OnceLock::new();
    static BIG: OnceLock<Mutex<LineIndexer>> = OnceLock::new();
    let cell = if wg <= 8 { &SMALL } else { &BIG };
    cell.get_or_init(|| {
        let cache = ProgramCache::default_location();
        Mutex::new(LineIndexer::new(&selector(), wg, &cache).expect("indexer"))
    })
}

/// Runs the kernels on `text` and `offsets` (sorted, distinct), handed
/// over in a scrambled order, and compares with the host reference.
fn check(wg: usize, text: &[u8], offsets: &[u64]) {
    let want = host_lines(text, offsets);
    let mut scrambled: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
    scrambled.reverse();
    let half = scrambled.len() / 2;
    scrambled[..half].rotate_left(half / 3);
    let mut ix = indexer(wg).lock().unwrap_or_else(|e| e.into_inner());
    match ix.run(text, &scrambled).expect("device run") {
        Some(g) => {
            assert!(g.from_device);
            assert_eq!(
                (g.newlines, &g.lines, &g.first),
                (want.newlines, &want.lines, &want.first),
                "wg {wg} text {:?} offsets {offsets:?}",
                String::from_utf8_lossy(text)
            );
        }
        None => assert!(
            want.newlines as usize > newline_capacity(text.len()),
            "the device gave up on a batch that fits"
        ),
    }
}

fn every(text: &[u8], step: usize) -> Vec<u64> {
    (0..text.len() as u64).step_by(step.max(1)).collect()
}

#[test]
fn edge_cases_against_the_host() {
    if !have_device() {
        return;
    }
    for wg in [4, 256] {
        let block = indexer(wg)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .work_group()
            * 64;
        check(wg, b"", &[]);
        check(wg, b"abc", &[0, 1, 2]);
        check(wg, b"abc", &[]);
        check(wg, b"\nab\n", &[1, 2]);
        check(wg, b"\nab\n", &[0, 3]);
        check(wg, b"x\n\n\ny", &[0, 4]);
        // No newline at all, several blocks long.
        let t = vec![b'a'; 3 * block + 5];
        check(wg, &t, &every(&t, 7));
        // Many matches per line, lines at block boundaries, first and last
        // line matching.
        for len in [block - 1, block, block + 1, 2 * block, 5 * block + 63] {
            let t: Vec<u8> = (0..len)
                .map(|i| if i % 61 == 60 { b'\n' } else { b'a' })
                .collect();
            check(wg, &t, &every(&t, 3));
            check(wg, &t, &[0, len as u64 - 1]);
            let mut t2 = t.clone();
            t2[len - 1] = b'\n';
            t2[0] = b'\n';
            check(wg, &t2, &every(&t2, 1));
        }
    }
}

#[test]
fn a_batch_of_newlines_is_given_back_and_the_table_stays_clean() {
    if !have_device() {
        return;
    }
    let t = vec![b'\n'; 1000];
    let mut ix = indexer(4).lock().unwrap_or_else(|e| e.into_inner());
    assert_eq!(ix.run(&t, &[3, 500]).expect("run"), None);
    drop(ix);
    // The same buffers serve the next batch correctly.
    let mut t2 = vec![b'a'; 1000];
    t2[10] = b'\n';
    check(4, &t2, &[0, 5, 11, 999]);
    check(4, &t2, &[12]);
}

fn text_and_offsets() -> impl Strategy<Value = (Vec<u8>, Vec<u64>)> {
    (proptest::collection::vec(byte(), 0..4000), any::<u64>()).prop_map(|(text, seed)| {
        let mut x = seed | 1;
        let density = 1 + (seed % 40);
        let offs = (0..text.len() as u64)
            .filter(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % density == 0
            })
            .collect();
        (text, offs)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_texts_match_the_host((text, offs) in text_and_offsets()) {
        if !have_device() {
            return Ok(());
        }
        check(4, &text, &offs);
        check(256, &text, &offs);
    }
}

/// Chunks of one text, overlapping by the longest pattern - 1; every batch
/// wants lines except, with `mixed`, every third.
struct Chunks<'a> {
    data: &'a [u8],
    pos: usize,
    overlap: usize,
    mixed: bool,
}

impl BatchSource for Chunks<'_> {
    type Tag = (usize, bool);

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, (usize, bool))> {
        if self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        let n = buf.len().min(self.data.len() - start);
        buf[..n].copy_from_slice(&self.data[start..start + n]);
        self.pos = if start + n == self.data.len() {
            start + n
        } else {
            start + n - self.overlap
        };
        Some((n, (start, !self.mixed || !(start / 7).is_multiple_of(3))))
    }

    fn wants_lines(&self, tag: &(usize, bool)) -> bool {
        tag.1
    }
}

fn corpus(len: usize) -> Vec<u8> {
    let words: [&[u8]; 7] = [
        b"needle",
        b"hay ",
        b"\n",
        b"need",
        b"le\n",
        b"x",
        b"needle needle",
    ];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut v = Vec::new();
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(words[(x % 7) as usize]);
        if x.is_multiple_of(97) {
            // a long line crossing several batches
            v.extend(std::iter::repeat_n(b'z', 9000));
            v.extend_from_slice(b"needle");
        }
    }
    v
}

fn stream_check(fault: Option<Fault>, mixed: bool) -> StageStats {
    let set = LiteralSet {
        patterns: vec![b"needle".to_vec(), b"le".to_vec()],
        fold_ascii: false,
    };
    let e = OpenClEngine::with_options(
        &selector(),
        &set,
        EngineOptions {
            batch_bytes: 4096,
            fault,
            warn_on_stderr: false,
            initial_out_entries: Some(16 * 1024),
            ..EngineOptions::default()
        },
    )
    .expect("engine");
    let cpu = CpuLiteralEngine::new(&set).expect("cpu engine");
    let data = corpus(120_000);
    let mut src = Chunks {
        data: &data,
        pos: 0,
        overlap: e.max_pattern_len() - 1,
        mixed,
    };
    let mut batches = 0;
    let stats = e.stream_lines(&mut src, &mut |(start, wants), bytes, r| {
        assert_eq!(bytes, &data[start..start + bytes.len()]);
        let offs = cpu.find_all(bytes);
        match r {
            BatchResult::Lines(l) => {
                assert!(wants);
                let want = host_lines(bytes, &offs);
                assert_eq!(
                    (l.newlines, &l.lines, &l.first),
                    (want.newlines, &want.lines, &want.first)
                );
            }
            BatchResult::Offsets(m) => {
                assert!(!wants);
                assert_eq!(m.offsets, offs);
            }
        }
        batches += 1;
        true
    });
    assert!(batches > 25, "{batches}");
    stats
}

#[test]
fn stream_lines_numbers_every_batch_like_the_host() {
    if !have_device() {
        return;
    }
    let s = stream_check(None, false);
    assert!(s.device_failure.is_none());
    assert_eq!(s.line_batches_host, 0, "{}", s.summary());
    assert!(s.line_batches_device > 25);
    assert!(s.summary().contains("line numbers:"));
    let s = stream_check(None, true);
    assert!(s.line_batches_device > 10 && s.line_batches_device < s.batches);
}

#[test]
fn after_a_device_failure_the_host_numbers_the_same_lines() {
    if !have_device() {
        return;
    }
    for kind in [FaultKind::Lost, FaultKind::Enqueue] {
        let s = stream_check(
            Some(Fault {
                kind,
                at_batch: 3,
                device: None,
            }),
            false,
        );
        assert!(s.device_failure.is_some());
        assert!(s.line_batches_host > 15, "{}", s.summary());
    }
    let s = stream_check(Some(Fault::new(FaultKind::Alloc)), true);
    assert_eq!(s.line_batches_device, 0);
}

// ---- the command line: -n and -c on files read in chunks ----

/// Runs gsearch in `dir`, checks it did not fail, returns its output.
fn gsearch_output(
    dir: &std::path::Path,
    engine: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_gsearch"));
    c.current_dir(dir)
        .args(["--engine", engine])
        .args(args)
        .env_remove("GSEARCH_BATCH_BYTES")
        .env_remove("GSEARCH_FAULT");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run gsearch");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {out:?}"
    );
    out
}

fn gsearch(dir: &std::path::Path, engine: &str, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    gsearch_output(dir, engine, args, env).stdout
}

/// Files many batches long: short lines, empty lines, lines crossing
/// every chunk boundary and lines longer than several chunks, with and
/// without a final newline.
fn chunked_files() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tempdir");
    let mut data = corpus(200_000);
    std::fs::write(d.path().join("a.txt"), &data).expect("write");
    data.push(b'\n');
    data.splice(0..0, b"needle on the first line\n".iter().copied());
    data.extend_from_slice(b"\n\nle last\nneedle");
    std::fs::write(d.path().join("b.txt"), &data).expect("write");
    d
}

#[test]
fn numbered_and_counted_lines_equal_the_cpu_engine() {
    if !have_device() {
        return;
    }
    let d = chunked_files();
    let small = [("GSEARCH_BATCH_BYTES", "4096")];
    let cases: [&[&str]; 10] = [
        &["-n", "needle", "a.txt"],
        &["-c", "needle", "a.txt"],
        &["-n", "-e", "needle", "-e", "le", "b.txt"],
        &["-c", "-e", "needle", "-e", "le", "b.txt"],
        &["-n", "-H", "z", "b.txt"],
        &["-c", "--sort", "path", "z", "a.txt", "b.txt"],
        &["-n", "ne+dle", "b.txt"],
        &["-c", "-w", "le", "b.txt"],
        &["-n", "-i", "NEEDLE", "a.txt"],
        &["-c", "--include-zero", "absent", "a.txt"],
    ];
    for args in cases {
        let want = gsearch(d.path(), "cpu", args, &[]);
        assert!(!want.is_empty() || args.contains(&"absent"));
        let got = gsearch(d.path(), "opencl", args, &small);
        assert!(got == want, "{args:?} differs on the device");
        // A device lost mid-stream: the host numbers the rest the same way.
        let lost = [small[0], ("GSEARCH_FAULT", "lost@5")];
        let got = gsearch(d.path(), "opencl", args, &lost);
        assert!(got == want, "{args:?} differs after a device failure");
    }
}

#[test]
fn stats_say_the_lines_came_from_the_device() {
    if !have_device() {
        return;
    }
    let d = chunked_files();
    let small = [("GSEARCH_BATCH_BYTES", "4096")];
    let out = gsearch(
        d.path(),
        "opencl",
        &["--stats", "-n", "needle", "a.txt"],
        &small,
    );
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("line numbers:"), "{text}");
    assert!(text.contains("batches on the device"), "{text}");
}

/// `-c` of a chunked file takes from the device only each chunk's number
/// of matching lines with its first and last few lines: chunks of 1 MiB
/// holding far more matching lines than the head read with every batch,
/// lines crossing chunk boundaries, and matches in the chunks' overlaps.
#[test]
fn counts_of_chunks_with_many_lines_equal_the_cpu_engine() {
    if !have_device() {
        return;
    }
    let d = tempfile::tempdir().expect("tempdir");
    let mut data = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    // Short lines, with a line of 1.2 MiB (across a chunk boundary) after
    // 1.5 MiB and one of 2.5 MiB (longer than a chunk) after 3.5 MiB.
    let mut long = [(1_500_000, 1_200_000), (3_500_000, 2_500_000)]
        .into_iter()
        .peekable();
    while data.len() < 6 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if long.peek().is_some_and(|&(at, _)| data.len() >= at) {
            let (_, len) = long.next().unwrap_or_default();
            data.extend(std::iter::repeat_n(b'n', len));
        }
        match x % 100 {
            0..=9 => data.extend_from_slice(b"plain words"),
            10..=19 => data.extend_from_slice(b"needle needle"),
            _ => data.extend_from_slice(b"a needle"),
        }
        data.push(b'\n');
    }
    data.extend_from_slice(b"needle");
    std::fs::write(d.path().join("many.txt"), &data).expect("write");
    let env = [("GSEARCH_BATCH_BYTES", "1048576"), ("GSEARCH_TRACE", "1")];
    for args in [
        &["-c", "needle", "many.txt"][..],
        &["-c", "-e", "needle", "-e", "words", "many.txt"],
        &["-c", "-F", "-e", "eedle", "-e", "needle needle", "many.txt"],
    ] {
        let want = gsearch(d.path(), "cpu", args, &[]);
        let out = gsearch_output(d.path(), "opencl", args, &env);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&want),
            "{args:?}"
        );
        let trace = String::from_utf8_lossy(&out.stderr);
        let not_read = trace
            .split("lines, ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok());
        assert!(not_read.is_some_and(|n| n > 0), "{args:?}: {trace}");
    }
}
