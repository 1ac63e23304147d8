//! Device kernel tests: every kernel (forced) against the naive reference
//! and the CPU engine, the streaming pipeline across batch/chunk
//! boundaries, result-buffer overflow, fault injection, and the program
//! cache. Runs on whatever OpenCL device exists (PoCL in CI). Without a
//! device each test prints a skip line and passes, unless
//! `GSEARCH_REQUIRE_OPENCL=1`, which turns "no device" into a failure.

use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::engine::{LiteralSet, naive};
use gsearch::opencl::*;
use proptest::prelude::*;

mod common;
use common::{byte, have_device, pat_byte, search};

fn opts(kind: Option<KernelKind>) -> EngineOptions {
    EngineOptions {
        kernel: kind,
        batch_bytes: 4096,
        warn_on_stderr: false,
        ..EngineOptions::default()
    }
}

fn engine(set: &LiteralSet, o: EngineOptions) -> OpenClEngine {
    OpenClEngine::with_options(&DeviceSelector::Explicit, set, o).expect("engine")
}

/// Every kernel that can handle `set`, forced, with `geometry` tweaks,
/// against naive and the CPU engine.
fn check_all(hay: &[u8], set: &LiteralSet, small_geometry: bool) {
    let want = naive::find_all(hay, set);
    let cpu = CpuLiteralEngine::new(set).unwrap().find_all(hay);
    assert_eq!(cpu, want, "cpu engine disagrees with naive");
    let pats: Vec<Vec<u8>> = set
        .patterns
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect();
    for kind in KernelKind::ALL {
        if !kind.can_handle(&pats) && !pats.is_empty() {
            continue;
        }
        let mut o = opts(Some(kind));
        if pats.is_empty() {
            o.kernel = None;
        }
        if small_geometry {
            o.work_group = Some(32);
            o.iters = 2;
        }
        let e = engine(set, o);
        assert_eq!(e.device_failure(), None);
        let got = search(&e, hay);
        assert_eq!(
            got,
            want,
            "kernel {} fold={} pats={:?} hay={:?}",
            kind.name(),
            set.fold_ascii,
            set.patterns
                .iter()
                .map(|p| String::from_utf8_lossy(p))
                .collect::<Vec<_>>(),
            String::from_utf8_lossy(hay)
        );
    }
}

/// A text plus patterns, some cut out of the text (so they match, also at
/// offset 0 and at the very end), some random.
fn text_and_patterns(
    max_text: usize,
    npat: std::ops::RangeInclusive<usize>,
    max_len: usize,
) -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
    (
        proptest::collection::vec(byte(), 0..max_text),
        proptest::collection::vec(
            (
                0u8..4,
                any::<prop::sample::Index>(),
                1..=max_len,
                proptest::collection::vec(pat_byte(), 1..=max_len),
            ),
            npat,
        ),
    )
        .prop_map(move |(text, specs)| {
            let pats = specs
                .into_iter()
                .map(|(how, idx, len, random)| {
                    let len = len.min(text.len());
                    let cut = |start: usize| -> Option<Vec<u8>> {
                        let p = text[start..start + len].to_vec();
                        (!p.is_empty() && !p.contains(&b'\n')).then_some(p)
                    };
                    let from_text = match how {
                        0 if len > 0 => cut(0),
                        1 if len > 0 => cut(text.len() - len),
                        2 if len > 0 => cut(idx.index(text.len() - len + 1)),
                        _ => None,
                    };
                    from_text.unwrap_or(random)
                })
                .collect();
            (text, pats)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn one_pattern_every_kernel((hay, pats) in text_and_patterns(400, 1..=1, 40),
                                fold in any::<bool>(), small in any::<bool>()) {
        if have_device() {
            check_all(&hay, &LiteralSet::new(pats, fold), small);
        }
    }

    #[test]
    fn few_short_patterns_every_kernel((hay, pats) in text_and_patterns(400, 2..=16, 16),
                                       fold in any::<bool>(), small in any::<bool>()) {
        if have_device() {
            check_all(&hay, &LiteralSet::new(pats, fold), small);
        }
    }

    #[test]
    fn mixed_lengths_naive((hay, pats) in text_and_patterns(300, 1..=20, 24),
                           fold in any::<bool>()) {
        if have_device() {
            check_all(&hay, &LiteralSet::new(pats, fold), false);
        }
    }

    /// Small batch capacity: `search` chunks the text with overlap, so
    /// matches straddle chunk (staging buffer) boundaries.
    #[test]
    fn across_chunk_boundaries((hay, pats) in text_and_patterns(700, 1..=4, 20),
                               fold in any::<bool>(), cap in 20usize..90, slots in 1usize..5) {
        if have_device() {
            let set = LiteralSet::new(pats, fold);
            let want = naive::find_all(&hay, &set);
            let mut o = opts(None);
            o.batch_bytes = cap;
            o.slots = slots;
            let e = engine(&set, o);
            prop_assert_eq!(search(&e, &hay), want);
        }
    }
}

/// Edge positions: offset 0, last byte, text shorter than / equal to the
/// pattern, empty text, for every kernel and both case modes.
#[test]
fn edges_every_kernel() {
    if !have_device() {
        return;
    }
    let long: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
    let mut hays: Vec<Vec<u8>> = vec![
        vec![],
        b"a".to_vec(),
        b"ab".to_vec(),
        b"abXab".to_vec(),
        b"ABxab".to_vec(),
        long.clone(),
    ];
    let mut l2 = long.clone();
    l2.extend_from_slice(b"--");
    l2.extend_from_slice(&long);
    hays.push(l2);
    let sets: Vec<Vec<Vec<u8>>> = vec![
        vec![b"a".to_vec()],
        vec![b"b".to_vec()],
        vec![b"ab".to_vec()],
        vec![long.clone()],
        vec![long[..16].to_vec()],
        vec![long[..17].to_vec()],
        vec![long[24..].to_vec()],
        vec![b"ab".to_vec(), b"b".to_vec(), b"x".to_vec()],
        vec![long[..16].to_vec(), b"n".to_vec()],
    ];
    for hay in &hays {
        for pats in &sets {
            for fold in [false, true] {
                check_all(hay, &LiteralSet::new(pats.clone(), fold), false);
            }
        }
    }
}

/// Case folding where letters meet non-letters inside the filtered pair
/// (the kernels fold letters only): every pair of a letter, a digit, `_`,
/// `@` (0x40, one bit from `` ` ``) and `[` (0x5b, 0x7b is `{`), in both
/// orders and cases, at every offset of a 16-byte load.
#[test]
fn folding_pairs_of_letters_and_non_letters() {
    if !have_device() {
        return;
    }
    let alphabet: &[u8] = b"aZ9_@[`{";
    let mut hay = Vec::new();
    for &x in alphabet {
        for &y in alphabet {
            for pad in 0..17 {
                hay.extend(std::iter::repeat_n(b'.', pad));
                hay.extend([x, y, x.to_ascii_uppercase(), y.to_ascii_lowercase()]);
            }
        }
    }
    for &x in alphabet {
        for &y in alphabet {
            let pats = vec![vec![x, y], vec![x.to_ascii_lowercase(), y, b'.']];
            for fold in [false, true] {
                for p in &pats {
                    check_all(&hay, &LiteralSet::new(vec![p.clone()], fold), false);
                }
            }
        }
    }
}

/// Dense candidates: every position passes phase 1 and 2; long patterns go
/// through phase 3; local queues and result lists fill and flush many times.
#[test]
fn dense_matches_and_queue_flushes() {
    if !have_device() {
        return;
    }
    let mut hay = vec![b'a'; 70_000];
    hay[1234] = b'b';
    hay[50_000] = b'A';
    for pats in [
        vec![b"a".to_vec()],
        vec![b"aaaa".to_vec()],
        vec![vec![b'a'; 16]],
        vec![vec![b'a'; 17]],
        vec![vec![b'a'; 40]],
        vec![b"aa".to_vec(), b"ab".to_vec(), b"ba".to_vec()],
    ] {
        for fold in [false, true] {
            check_all(&hay, &LiteralSet::new(pats.clone(), fold), false);
            check_all(&hay[..3000], &LiteralSet::new(pats.clone(), fold), true);
        }
    }
}

fn lcg_text(n: usize, seed: u64) -> Vec<u8> {
    let words: [&[u8]; 12] = [
        b"the ",
        b"quick ",
        b"brown ",
        b"fox ",
        b"jumps ",
        b"over ",
        b"lazy ",
        b"dog ",
        b"Needle ",
        b"needle\n",
        b"\xC3\xA9t\xC3\xA9 ",
        b"haystack ",
    ];
    let mut x = seed;
    let mut v = Vec::with_capacity(n + 16);
    while v.len() < n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.extend_from_slice(words[(x >> 33) as usize % words.len()]);
    }
    v.truncate(n);
    v
}

/// Many work-groups with the default geometry, default batch size.
#[test]
fn larger_text_default_geometry() {
    if !have_device() {
        return;
    }
    let hay = lcg_text(300_000, 7);
    for pats in [
        vec![b"needle".to_vec()],
        vec![b"needle haystack the".to_vec()],
        vec![b"fox".to_vec(), b"dog".to_vec(), b"\xC3\xA9".to_vec()],
        vec![
            b"needle".to_vec(),
            b"a very long pattern not in text".to_vec(),
        ],
    ] {
        for fold in [false, true] {
            check_all(&hay, &LiteralSet::new(pats.clone(), fold), false);
        }
    }
}

/// The default kernel choice by shape.
#[test]
fn kernel_choice() {
    if !have_device() {
        return;
    }
    let e = engine(&LiteralSet::new(vec![b"x".to_vec()], false), opts(None));
    assert_eq!(e.kernel_name(), "3phase");
    let e = engine(
        &LiteralSet::new(vec![b"x".to_vec(), b"yz".to_vec()], false),
        opts(None),
    );
    assert_eq!(e.kernel_name(), "char16");
    let e = engine(
        &LiteralSet::new(vec![b"x".to_vec(), vec![b'y'; 17]], false),
        opts(None),
    );
    assert_eq!(e.kernel_name(), "many");
    assert!(!e.device_name().is_empty());
    // A forced kernel that cannot handle the set is refused.
    assert!(
        OpenClEngine::with_options(
            &DeviceSelector::Explicit,
            &LiteralSet::new(vec![b"x".to_vec(), b"y".to_vec()], false),
            opts(Some(KernelKind::ThreePhase))
        )
        .is_err()
    );
}

/// The result buffer starts tiny: counts beyond the read-back head and
/// beyond capacity force the second read and the re-run.
#[test]
fn result_buffer_overflow() {
    if !have_device() {
        return;
    }
    let hay = lcg_text(20_000, 3);
    for kind in KernelKind::ALL {
        let set = LiteralSet::new(vec![b"e".to_vec()], false);
        let mut o = opts(Some(kind));
        o.initial_out_entries = Some(3);
        o.batch_bytes = 5000;
        let e = engine(&set, o);
        assert_eq!(search(&e, &hay), naive::find_all(&hay, &set), "{kind:?}");
        assert_eq!(
            search(&e, &hay),
            naive::find_all(&hay, &set),
            "{kind:?} again"
        );
    }
}

/// Count mode of the char16 kernel against per-pattern CPU counts.
#[test]
fn char16_count_mode() {
    if !have_device() {
        return;
    }
    let hay = lcg_text(100_000, 11);
    for fold in [false, true] {
        let pats = vec![
            b"the".to_vec(),
            b"needle".to_vec(),
            b"e".to_vec(),
            b"\xC3\xA9t".to_vec(),
            b"not there".to_vec(),
        ];
        let set = LiteralSet::new(pats, fold);
        let e = engine(&set, opts(Some(KernelKind::Char16)));
        let got = e.count_occurrences(&hay).unwrap();
        let want: Vec<u64> = set
            .patterns
            .iter()
            .map(|p| naive::find_all(&hay, &LiteralSet::new(vec![p.clone()], fold)).len() as u64)
            .collect();
        assert_eq!(got, want);
    }
}

/// Packs "files" into batches separated by `\n` and cuts files larger than
/// the capacity into chunks overlapping by max_len - 1: what the lead's
/// batcher does. Tags record (file, offset of chunk in file, owned bytes,
/// offset of the chunk in the batch).
struct FilesSource<'a> {
    files: &'a [Vec<u8>],
    file: usize,
    pos: usize,
    overlap: usize,
    batches: usize,
}

type Piece = (usize, usize, usize, usize, usize); // file, file_off, owned, batch_off, len

impl<'a> FilesSource<'a> {
    /// `files` from their start, consecutive batches overlapping by `overlap`.
    fn new(files: &'a [Vec<u8>], overlap: usize) -> Self {
        FilesSource {
            files,
            file: 0,
            pos: 0,
            overlap,
            batches: 0,
        }
    }
}

impl BatchSource for FilesSource<'_> {
    type Tag = Vec<Piece>;

    fn fill(&mut self, buf: &mut [u8]) -> Option<(usize, Vec<Piece>)> {
        let cap = buf.len();
        let mut used = 0;
        let mut tag = Vec::new();
        while self.file < self.files.len() {
            let f = &self.files[self.file];
            let sep = usize::from(used > 0);
            if used + sep >= cap {
                break;
            }
            let room = cap - used - sep;
            let rest = f.len() - self.pos;
            if rest > room && (room <= self.overlap || !tag.is_empty()) {
                break; // start a new batch for this chunk
            }
            used += sep;
            if sep == 1 {
                buf[used - 1] = b'\n';
            }
            let take = rest.min(room);
            buf[used..used + take].copy_from_slice(&f[self.pos..self.pos + take]);
            let last = take == rest;
            let owned = if last { take } else { take - self.overlap };
            tag.push((self.file, self.pos, owned, used, take));
            used += take;
            if last {
                self.file += 1;
                self.pos = 0;
            } else {
                self.pos += owned;
                break;
            }
        }
        if tag.is_empty() {
            return None;
        }
        self.batches += 1;
        Some((used, tag))
    }
}

fn run_files(e: &OpenClEngine, files: &[Vec<u8>]) -> (Vec<Vec<u64>>, StageStats) {
    let mut src = FilesSource::new(files, e.max_pattern_len().saturating_sub(1));
    let mut found = vec![Vec::new(); files.len()];
    let stats = e.stream(&mut src, &mut |tag, bytes, m| {
        // the staged bytes are the files' bytes
        for &(file, foff, owned, boff, len) in &tag {
            assert_eq!(&bytes[boff..boff + len], &files[file][foff..foff + len]);
            for &o in &m.offsets {
                let o = o as usize;
                if o >= boff && o < boff + owned {
                    found[file].push((foff + o - boff) as u64);
                }
            }
        }
        true
    });
    (found, stats)
}

fn files_fixture() -> Vec<Vec<u8>> {
    let mut files = vec![
        b"needle at start and needle".to_vec(),
        Vec::new(),
        b"x".to_vec(),
        lcg_text(5000, 1),
        b"needleneedle".to_vec(),
    ];
    for i in 0..30 {
        files.push(lcg_text(37 + i * 13, i as u64));
    }
    files.push(lcg_text(9000, 99));
    files
}

#[test]
fn stream_files_small_batches() {
    if !have_device() {
        return;
    }
    let files = files_fixture();
    for (pats, fold) in [
        (vec![b"needle".to_vec()], false),
        (vec![b"Needle".to_vec(), b"fox".to_vec()], true),
        (vec![b"e".to_vec()], false),
    ] {
        let set = LiteralSet::new(pats, fold);
        for cap in [64usize, 200, 1000, 1 << 20] {
            for slots in [1usize, 3, 4] {
                let mut o = opts(None);
                o.batch_bytes = cap;
                o.slots = slots;
                let e = engine(&set, o);
                let (found, stats) = run_files(&e, &files);
                for (i, f) in files.iter().enumerate() {
                    assert_eq!(found[i], naive::find_all(f, &set), "file {i} cap {cap}");
                }
                assert_eq!(stats.cpu_batches, 0);
                assert!(stats.batches >= 1);
                assert_eq!(stats.device_failure, None);
            }
        }
    }
}

/// The sink can stop the stream early.
#[test]
fn stream_stops_early() {
    if !have_device() {
        return;
    }
    let files = files_fixture();
    let set = LiteralSet::new(vec![b"needle".to_vec()], false);
    let mut o = opts(None);
    o.batch_bytes = 128;
    let e = engine(&set, o);
    let mut src = FilesSource::new(&files, 5);
    let mut calls = 0;
    e.stream(&mut src, &mut |_, _, _| {
        calls += 1;
        calls < 2
    });
    assert_eq!(calls, 2);
    // The engine is still usable afterwards.
    let hay = lcg_text(3000, 5);
    assert_eq!(search(&e, &hay), naive::find_all(&hay, &set));
}

/// A stream starts on one pinned slot and puts the others to work as they
/// are pinned beside it; a stream stopped at once leaves the slots it had
/// pinned to the next, which tops them up.
#[test]
fn slots_pinned_beside_a_stream_join_it() {
    if !have_device() {
        return;
    }
    let files = files_fixture();
    let set = LiteralSet::new(vec![b"needle".to_vec(), b"e".to_vec()], false);
    let mut o = opts(None);
    o.batch_bytes = 256;
    o.slots = 4;
    let e = engine(&set, o);
    assert_eq!(e.slots_pinned(), 0);
    let mut src = FilesSource::new(&files, 5);
    e.stream(&mut src, &mut |_, _, _| false);
    let after_stop = e.slots_pinned();
    // One slot before the stream, one at least beside it.
    assert!((2..=4).contains(&after_stop), "{after_stop} slots");
    for _ in 0..2 {
        let (found, stats) = run_files(&e, &files);
        for (i, f) in files.iter().enumerate() {
            assert_eq!(found[i], naive::find_all(f, &set), "file {i}");
        }
        assert_eq!(stats.cpu_batches, 0);
        assert_eq!(stats.device_failure, None);
    }
    assert_eq!(e.slots_pinned(), 4);
}

/// Every injected fault: complete results, a recorded failure, and the
/// stream continues on the CPU.
#[test]
fn faults_lose_nothing() {
    if !have_device() {
        return;
    }
    let files = files_fixture();
    let hay = lcg_text(20_000, 8);
    for spec in ["build", "alloc", "enqueue", "enqueue@3", "lost", "lost@2"] {
        for pats in [
            vec![b"needle".to_vec()],
            vec![b"fox".to_vec(), b"dog".to_vec()],
        ] {
            let set = LiteralSet::new(pats, true);
            let mut o = opts(None);
            o.batch_bytes = 300;
            o.fault = Fault::parse(spec);
            o.warn_on_stderr = true;
            let e = engine(&set, o.clone());
            let (found, stats) = run_files(&e, &files);
            for (i, f) in files.iter().enumerate() {
                assert_eq!(found[i], naive::find_all(f, &set), "{spec} file {i}");
            }
            let why = e
                .device_failure()
                .unwrap_or_else(|| panic!("{spec}: no failure recorded"));
            assert!(why.contains("injected"), "{why}");
            assert_eq!(stats.device_failure.as_deref(), Some(why.as_str()));
            assert!(stats.cpu_batches >= 1);
            assert!(e.is_degraded());
            // search() on the degraded engine is complete as well
            assert_eq!(search(&e, &hay), naive::find_all(&hay, &set), "{spec}");
            // a fresh engine faulting inside search()
            let e = engine(&set, o);
            assert_eq!(
                search(&e, &hay),
                naive::find_all(&hay, &set),
                "{spec} search"
            );
        }
    }
}

#[test]
fn program_cache_roundtrip_corrupt_and_unwritable() {
    if !have_device() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let set = LiteralSet::new(vec![b"cache".to_vec()], false);
    let hay = b"a cache test: cache".to_vec();
    let with_cache = |c: ProgramCache| {
        let mut o = opts(Some(KernelKind::ThreePhase));
        o.cache = c;
        let e = engine(&set, o);
        assert_eq!(e.device_failure(), None);
        assert_eq!(search(&e, &hay), vec![2, 14]);
        e.init_stats().program_from_cache
    };
    let c = ProgramCache::at(dir.path().join("gsearch"));
    assert!(!with_cache(c.clone()), "first build compiles");
    assert!(with_cache(c.clone()), "second build loads from the cache");
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("gsearch"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // The search program and the line-numbering program built beside it.
    assert_eq!(entries.len(), 2, "{entries:?}");
    let full: Vec<Vec<u8>> = entries.iter().map(|e| std::fs::read(e).unwrap()).collect();
    // truncate the entries: rebuilt, then cached again
    for (e, bytes) in entries.iter().zip(&full) {
        std::fs::write(e, &bytes[..bytes.len() / 2]).unwrap();
    }
    assert!(!with_cache(c.clone()), "truncated entry rebuilt");
    assert!(with_cache(c.clone()), "rewritten entry loads");
    // garbage with a valid-looking size
    for (e, bytes) in entries.iter().zip(&full) {
        std::fs::write(e, vec![0x5Au8; bytes.len()]).unwrap();
    }
    assert!(!with_cache(c.clone()), "garbage entry rebuilt");
    // unwritable location (a path below a regular file)
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    assert!(!with_cache(ProgramCache::at(file.join("sub"))));
    assert!(!with_cache(ProgramCache::disabled()));
}

#[test]
fn empty_sets_and_empty_text() {
    if !have_device() {
        return;
    }
    let set = LiteralSet::new(vec![Vec::new()], false);
    let e = engine(&set, opts(None));
    assert_eq!(search(&e, b"abc"), Vec::<u64>::new());
    let set = LiteralSet::new(vec![b"a".to_vec()], false);
    let e = engine(&set, opts(None));
    assert_eq!(search(&e, b""), Vec::<u64>::new());
}

#[test]
fn selectors() {
    if !have_device() {
        return;
    }
    let devs = list_devices().unwrap();
    let set = LiteralSet::new(vec![b"a".to_vec()], false);
    let e = OpenClEngine::with_options(&DeviceSelector::Index(0), &set, opts(None)).unwrap();
    assert_eq!(e.device_name(), devs[0].name);
    let frag = devs[0]
        .name
        .chars()
        .take(4)
        .collect::<String>()
        .to_uppercase();
    let e = OpenClEngine::with_options(&DeviceSelector::Name(frag), &set, opts(None)).unwrap();
    assert_eq!(e.device_name(), devs[0].name);
    assert!(
        OpenClEngine::with_options(&DeviceSelector::Index(devs.len()), &set, opts(None)).is_err()
    );
    assert!(
        OpenClEngine::with_options(
            &DeviceSelector::Name("no such device xyz".into()),
            &set,
            opts(None)
        )
        .is_err()
    );
    // Auto never picks a CPU-type device.
    if devs.iter().all(|d| !d.is_gpu() && !d.is_accelerator()) {
        assert!(OpenClEngine::with_options(&DeviceSelector::Auto, &set, opts(None)).is_err());
    }
    assert!(list_devices_text().contains(&devs[0].name));
}

// ---- char16 kernel (forced): phase-1 filter, queue, verification ----

/// Geometries for the char16 tests: (work-group cap, iters). (8, 3) gives
/// blocks of 24 positions, so group blocks start off 16-byte alignment.
const CHAR16_GEOMETRIES: [(Option<usize>, usize); 4] =
    [(None, 64), (Some(32), 2), (Some(16), 1), (Some(8), 3)];

/// The char16 kernel, forced, in match mode (and count mode when `count`)
/// against naive and the CPU engine, over each haystack (one engine).
fn check_char16_many(hays: &[Vec<u8>], set: &LiteralSet, geometry: usize, count: bool) {
    let mut o = opts(Some(KernelKind::Char16));
    o.batch_bytes = 1 << 16;
    (o.work_group, o.iters) = CHAR16_GEOMETRIES[geometry % CHAR16_GEOMETRIES.len()];
    let e = engine(set, o);
    assert_eq!(e.kernel_name(), "char16");
    for hay in hays {
        let want = naive::find_all(hay, set);
        let cpu = CpuLiteralEngine::new(set).unwrap().find_all(hay);
        assert_eq!(cpu, want, "cpu engine disagrees with naive");
        let show = || {
            format!(
                "fold={} geometry={:?} filter={:?} pats={:?} hay={:?}",
                set.fold_ascii,
                CHAR16_GEOMETRIES[geometry % CHAR16_GEOMETRIES.len()],
                std::env::var("GSEARCH_CHAR16_FILTER").ok(),
                set.patterns
                    .iter()
                    .map(|p| String::from_utf8_lossy(p))
                    .collect::<Vec<_>>(),
                String::from_utf8_lossy(hay)
            )
        };
        assert_eq!(search(&e, hay), want, "{}", show());
        // the kernel itself writes each matching start once (one launch
        // over the first batch's worth of the text)
        let head = &hay[..hay.len().min(e.batch_capacity())];
        let (n, mut raw) = e.raw_matches(head).expect("raw matches");
        raw.sort_unstable();
        let want32: Vec<u32> = naive::find_all(head, set)
            .iter()
            .map(|&p| p as u32)
            .collect();
        assert_eq!(
            (n, raw),
            (want32.len() as u64, want32),
            "raw output: {}",
            show()
        );
        if count {
            let got = e.count_occurrences(hay).unwrap();
            let per: Vec<u64> = set
                .patterns
                .iter()
                .map(|p| {
                    naive::find_all(hay, &LiteralSet::new(vec![p.clone()], set.fold_ascii)).len()
                        as u64
                })
                .collect();
            assert_eq!(got, per, "count mode: {}", show());
        }
    }
    assert_eq!(e.device_failure(), None);
}

fn check_char16(hay: &[u8], set: &LiteralSet, geometry: usize, count: bool) {
    check_char16_many(&[hay.to_vec()], set, geometry, count);
}

fn c16_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => Just(b'a'),
        3 => Just(b'b'),
        2 => Just(b'A'),
        1 => Just(b'B'),
        1 => Just(b'c'),
        1 => Just(b'\n'),
        1 => Just(0xC3u8),
        1 => Just(0xE1u8), // 0xE1 folds to nothing ('A' | 0x80 must not fold)
        2 => any::<u8>(),
    ]
}

/// Text plus 1..=16 patterns of 1..=16 bytes: cut from the text at offset
/// 0, at the end, at 16-byte block boundaries (start at 16k-1..16k+1, end at
/// 16k), anywhere; random; or a shared 2-byte prefix plus a random tail.
fn char16_case() -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
    (
        proptest::collection::vec(c16_byte(), 0..700),
        proptest::collection::vec(c16_byte(), 2),
        proptest::collection::vec(
            (
                0u8..7,
                any::<prop::sample::Index>(),
                1usize..=16,
                proptest::collection::vec(c16_byte(), 1..=16),
            ),
            1..=16,
        ),
    )
        .prop_map(|(text, prefix, specs)| {
            let prefix: Vec<u8> = prefix
                .into_iter()
                .map(|b| if b == b'\n' { b'a' } else { b })
                .collect();
            let pats = specs
                .into_iter()
                .map(|(how, idx, len, random)| {
                    let n = text.len();
                    let len = len.min(n);
                    let cut = |s: usize| -> Option<Vec<u8>> {
                        (len > 0 && s + len <= n)
                            .then(|| text[s..s + len].to_vec())
                            .filter(|p| !p.contains(&b'\n'))
                    };
                    let blocks = n / 16 + 1;
                    let b16 = 16 * idx.index(blocks);
                    let from_text = match how {
                        0 => cut(0),
                        1 => cut(n.saturating_sub(len)),
                        2 => cut((b16 + idx.index(3)).saturating_sub(1)),
                        3 => cut(b16.saturating_sub(len)),
                        4 if len > 0 => cut(idx.index(n - len + 1)),
                        _ => None,
                    };
                    let mut p = from_text.unwrap_or_else(|| {
                        random
                            .into_iter()
                            .map(|b| if b == b'\n' { b'b' } else { b })
                            .collect()
                    });
                    if how == 5 {
                        // shared first two bytes (different tails)
                        p.splice(..p.len().min(2), prefix.iter().copied());
                        p.truncate(16);
                    }
                    p
                })
                .collect();
            (text, pats)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn char16_prop_against_naive_and_cpu((hay, pats) in char16_case(),
                                         fold in any::<bool>(), geometry in 0usize..4,
                                         count in any::<bool>()) {
        if have_device() {
            check_char16(&hay, &LiteralSet::new(pats, fold), geometry, count);
        }
    }

    /// Patterns anchored inside (see `char16_anchor_case`).
    #[test]
    fn char16_prop_anchors_inside_patterns((hay, pats) in char16_anchor_case(),
                                           fold in any::<bool>(), geometry in 0usize..4,
                                           count in any::<bool>()) {
        if have_device() {
            check_char16(&hay, &LiteralSet::new(pats, fold), geometry, count);
        }
    }

    /// Sets with few distinct keys (direct compares by default): patterns
    /// that all start with one of two pairs, or 1-byte patterns.
    #[test]
    fn char16_prop_shared_prefixes(hay in proptest::collection::vec(c16_byte(), 0..700),
                                   tails in proptest::collection::vec(
                                       (0usize..3, proptest::collection::vec(c16_byte(), 0..=14)),
                                       1..=16),
                                   fold in any::<bool>(), geometry in 0usize..4) {
        if have_device() {
            let heads: [&[u8]; 3] = [b"ab", b"Ba", b"a"];
            let pats: Vec<Vec<u8>> = tails
                .into_iter()
                .map(|(h, t)| {
                    let mut p = heads[h].to_vec();
                    p.extend(t.into_iter().filter(|&b| b != b'\n'));
                    p
                })
                .collect();
            check_char16(&hay, &LiteralSet::new(pats, fold), geometry, true);
        }
    }
}

/// Matches at offset 0, ending at the last byte, and starting / ending at
/// every position around 16-byte block boundaries, for every pattern
/// length 1..=16, alone and in a 16-pattern set; every geometry, both case
/// modes.
#[test]
fn char16_block_boundaries() {
    if !have_device() {
        return;
    }
    let pat_for = |len: usize| -> Vec<u8> { (0..len).map(|i| b'K' + (i % 7) as u8).collect() };
    let mut all_hays = Vec::new();
    for len in 1..=16usize {
        let p = pat_for(len);
        let mut hays = Vec::new();
        for n in [16usize, 17, 31, 32, 33, 64, 100] {
            if n < len {
                continue;
            }
            let mut hay = vec![b'.'; n];
            let mut at: Vec<usize> = vec![0, n - len];
            for b in (16..n).step_by(16) {
                at.extend([b - 1, b, b + 1]);
                at.extend(b.checked_sub(len));
            }
            for &s in &at {
                if s + len <= n {
                    hay[s..s + len].copy_from_slice(&p);
                }
            }
            hays.push(hay.to_ascii_lowercase());
            hays.push(hay);
        }
        for fold in [false, true] {
            for g in 0..CHAR16_GEOMETRIES.len() {
                let set = LiteralSet::new(vec![p.clone(), b"zz".to_vec()], fold);
                check_char16_many(&hays, &set, g, true);
            }
        }
        all_hays.extend(hays);
    }
    let all16: Vec<Vec<u8>> = (1..=16).map(pat_for).collect();
    for fold in [false, true] {
        for g in 0..CHAR16_GEOMETRIES.len() {
            check_char16_many(&all_hays, &LiteralSet::new(all16.clone(), fold), g, true);
        }
    }
}

/// Every position a candidate (all-'a' text, 16 patterns): the local queue
/// overflows (verification in place) and the result list overflows
/// (direct global writes) at small and default geometry.
#[test]
fn char16_dense_queue_overflow() {
    if !have_device() {
        return;
    }
    let mut hay = vec![b'a'; 40_000];
    hay[777] = b'b';
    hay[20_001] = b'A';
    hay[39_999] = b'b';
    let runs: Vec<Vec<u8>> = (1..=16).map(|l| vec![b'a'; l]).collect();
    let pairs: Vec<Vec<u8>> = (1..=16)
        .map(|l| {
            let mut p = vec![b'a'; l];
            p[l - 1] = b'b';
            p
        })
        .collect();
    for pats in [runs, pairs] {
        for fold in [false, true] {
            for g in 0..CHAR16_GEOMETRIES.len() {
                let hays = [hay.clone(), hay[..1000].to_vec()];
                check_char16_many(&hays, &LiteralSet::new(pats.clone(), fold), g, true);
            }
        }
    }
}

/// A realistic mix at default geometry over many work-groups: 2, 4 and 16
/// patterns (direct and bitmap filters by default), exact and folded.
#[test]
fn char16_larger_text() {
    if !have_device() {
        return;
    }
    let hay = lcg_text(200_000, 5);
    let sets: [&[&str]; 4] = [
        &["needle", "fox"],
        &["needle", "haystack", "dog ", "\u{e9}t"],
        &[
            "the",
            "quick",
            "brown",
            "fox",
            "jumps",
            "over",
            "lazy",
            "dog",
            "Needle",
            "e",
            "t\u{e9}",
            "stack ",
            "y d",
            "ox j",
            "zz",
            "haystack the qui",
        ],
        &["o", "e", " ", "needle\nthe"],
    ];
    for pats in sets {
        let pats: Vec<Vec<u8>> = pats.iter().map(|p| p.as_bytes().to_vec()).collect();
        for fold in [false, true] {
            check_char16(&hay, &LiteralSet::new(pats.clone(), fold), 0, true);
        }
    }
}

// ---- char16 anchors: phase 1 on a rare pair inside each pattern ----

/// Rare bytes (byte_rank 8) that make the anchor pair of the patterns
/// below, and the common filler around them (ranks 95..200: never chosen).
const RARE: [u8; 3] = [b'#', b'~', b'@'];

/// `head` filler bytes, the pair, `tail` filler bytes.
fn anchored(head: usize, pair: [u8; 2], tail: usize) -> Vec<u8> {
    let fill = |i: usize| [b'e', b'a', b' ', b'E', b'o'][i % 5];
    let mut p: Vec<u8> = (0..head).map(fill).collect();
    p.extend(pair);
    p.extend((0..tail).map(|i| fill(i + head + 3)));
    p
}

/// The anchor the host picks for each pattern of `set` is the pair at the
/// offset the test meant (so a change of the ranking cannot quietly turn
/// these into tests of offset-0 anchors).
fn assert_anchors(set: &LiteralSet, want: impl Fn(&[u8]) -> Option<usize>) {
    let a = char16_anchors(&set.patterns, set.fold_ascii);
    for (p, a) in set.patterns.iter().zip(a) {
        if let Some(d) = want(p) {
            assert_eq!(
                (a.d, a.len),
                (d, 2),
                "anchor of {:?}",
                String::from_utf8_lossy(p)
            );
        }
    }
}

/// Where `RARE[0] RARE[1]` starts in `p`.
fn pair_at(p: &[u8]) -> Option<usize> {
    p.windows(2).position(|w| w == [RARE[0], RARE[1]])
}

/// Patterns sharing one anchor pair at offsets 0..=14, alone (with an
/// unrelated pattern) and together; matches planted at offset 0, ending
/// at the last byte, and so that the start and the anchor fall on either
/// side of every 8-byte boundary (group blocks of the test geometries are
/// 16, 24, 64 and 16 Ki positions): every geometry, exact and folded,
/// match and count mode, raw kernel output checked for duplicates.
#[test]
fn char16_anchor_offsets_at_boundaries() {
    if !have_device() {
        return;
    }
    let pair = [RARE[0], RARE[1]];
    let shapes = [
        (0, 0),
        (1, 0),
        (1, 3),
        (3, 2),
        (5, 9),
        (7, 1),
        (9, 5),
        (14, 0),
        (13, 1),
    ];
    let pats: Vec<Vec<u8>> = shapes.iter().map(|&(h, t)| anchored(h, pair, t)).collect();
    let mut all_hays = Vec::new();
    for (p, &(d, _)) in pats.iter().zip(&shapes) {
        let len = p.len();
        let mut hays = Vec::new();
        for n in [len, 16, 17, 24, 31, 33, 48, 64, 100] {
            if n < len {
                continue;
            }
            let mut hay: Vec<u8> = (0..n).map(|i| b".ea"[i % 3]).collect();
            let mut at = vec![0, n - len];
            for b in (8..n).step_by(8) {
                for s in [b - 1, b, b + 1] {
                    at.push(s);
                    at.extend(s.checked_sub(d)); // the anchor at s
                    at.extend(s.checked_sub(len)); // the end at s
                }
            }
            for (i, &s) in at.iter().enumerate() {
                if s + len <= n && i % 3 != 2 {
                    hay[s..s + len].copy_from_slice(p);
                }
            }
            hays.push(hay.to_ascii_uppercase());
            hays.push(hay);
        }
        for fold in [false, true] {
            let set = LiteralSet::new(vec![p.clone(), b"zz".to_vec()], fold);
            assert_anchors(&set, pair_at);
            for g in 0..CHAR16_GEOMETRIES.len() {
                check_char16_many(&hays, &set, g, true);
            }
        }
        all_hays.extend(hays);
    }
    for fold in [false, true] {
        let set = LiteralSet::new(pats.clone(), fold);
        assert_anchors(&set, pair_at);
        for g in 0..CHAR16_GEOMETRIES.len() {
            check_char16_many(&all_hays, &set, g, true);
        }
    }
}

/// Overlapping matches of patterns anchored on the same pair at different
/// offsets, patterns that are prefixes of others (a start matched by
/// several patterns is written once in match mode, counted for each in
/// count mode), a 1-byte pattern whose byte anchors the longer ones, and
/// text that is one long run of candidates.
#[test]
fn char16_overlapping_anchored_matches() {
    if !have_device() {
        return;
    }
    let sets: [&[&[u8]]; 4] = [
        &[b"#~#~", b"~#~#", b"a#~#~", b"#~", b"e#~"],
        &[b"#~#~#~#~#~#~#~#~", b"#~#~#~#~", b"ea#~#", b"~#~"],
        &[b"#", b"a#~", b"ee#~", b"~e", b"#~#~"],
        &[b"@#~", b"#~@", b"~@#", b"e@#~@"],
    ];
    let mut hays = Vec::new();
    for unit in [&b"#~"[..], b"#~@", b"a#~#~e", b"eA#~#~#~@#"] {
        for n in [1usize, 15, 16, 17, 100, 333] {
            hays.push(unit.iter().copied().cycle().take(n).collect::<Vec<u8>>());
        }
    }
    hays.push(
        lcg_text(3000, 9)
            .iter()
            .map(|&b| if b == b'o' { b'#' } else { b })
            .collect(),
    );
    for pats in sets {
        let pats: Vec<Vec<u8>> = pats.iter().map(|p| p.to_vec()).collect();
        for fold in [false, true] {
            for g in 0..CHAR16_GEOMETRIES.len() {
                check_char16_many(&hays, &LiteralSet::new(pats.clone(), fold), g, true);
            }
        }
    }
}

/// Text of filler and rare bytes; 1..=15 patterns, each filler + one of
/// two rare pairs + filler (anchors at offsets 0..=14, some shared with
/// other patterns at other offsets), sometimes a 1-byte pattern; copies of
/// the patterns planted at offset 0, at the end, at random places
/// (overlapping each other), some with their letters' case flipped.
fn char16_anchor_case() -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
    let filler = prop_oneof![
        4 => Just(b'e'),
        3 => Just(b'a'),
        2 => Just(b' '),
        1 => Just(b'E'),
        1 => Just(b'#'),
        1 => Just(b'~'),
        1 => Just(0xC3u8),
    ];
    (
        proptest::collection::vec(filler, 0..600),
        proptest::collection::vec((0usize..=14, 0usize..=14, 0usize..3, any::<bool>()), 1..=15),
        proptest::option::weighted(0.2, prop_oneof![Just(b'#'), Just(b'a'), Just(b'@')]),
        proptest::collection::vec(
            (
                any::<prop::sample::Index>(),
                0u8..4,
                any::<prop::sample::Index>(),
            ),
            0..40,
        ),
    )
        .prop_map(|(mut text, shapes, single, plants)| {
            let pairs = [[RARE[0], RARE[1]], [RARE[1], RARE[2]], [RARE[2], RARE[0]]];
            let mut pats: Vec<Vec<u8>> = shapes
                .into_iter()
                .map(|(h, t, which, flip)| {
                    let h = h.min(14);
                    let mut p = anchored(h, pairs[which], t.min(14 - h));
                    if flip {
                        p.make_ascii_uppercase();
                    }
                    p
                })
                .collect();
            pats.extend(single.map(|b| vec![b]));
            let n = text.len();
            for (pi, how, at) in plants {
                let p = &pats[pi.index(pats.len())];
                if p.len() > n {
                    continue;
                }
                let s = match how {
                    0 => 0,
                    1 => n - p.len(),
                    _ => at.index(n - p.len() + 1),
                };
                text[s..s + p.len()].copy_from_slice(p);
                if how == 3 {
                    text[s..s + p.len()].make_ascii_lowercase();
                }
            }
            (text, pats)
        })
}

/// Runs the char16 tests again in child processes with the phase-1 filter
/// forced each way (`GSEARCH_CHAR16_FILTER`), so every filter is covered
/// whatever the default choice for each set. One test thread: on the GPU
/// machine, PoCL 5 (loaded beside NVIDIA's driver) aborts in its program
/// cache (`pocl_release_dlhandle_cache`) when the child runs tests on two
/// threads.
#[test]
fn char16_both_filters() {
    if std::env::var_os("GSEARCH_CHAR16_FILTER").is_some() || !have_device() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    for mode in ["direct", "bitmap", "nibble", "nibble2"] {
        let out = std::process::Command::new(&exe)
            .args([
                "char16_",
                "--skip",
                "char16_both_filters",
                "--test-threads",
                "1",
            ])
            .env("GSEARCH_CHAR16_FILTER", mode)
            .output()
            .expect("running the test binary");
        assert!(
            out.status.success(),
            "char16 tests with GSEARCH_CHAR16_FILTER={mode} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
