//! The many-literal kernel (`kernels/many_literals.cl`) against the CPU
//! engine (aho-corasick) and the naive reference: random pattern sets of 1
//! to 50,000 patterns, lengths 1..40, shared prefixes, patterns that are
//! prefixes of others, duplicates, ASCII case folding, random and non-ASCII
//! text, matches at offset 0 and ending at the last byte, tiny result
//! buffers (the overflow re-run), small work-groups, and the engine's
//! streaming path across batch boundaries.
//!
//! Without an OpenCL device each test prints a skip line and passes, unless
//! `GSEARCH_REQUIRE_OPENCL=1`, which turns "no device" into a failure.

use gsearch::engine::cpu::CpuLiteralEngine;
use gsearch::engine::{Batch, BatchEngine, LiteralSet, naive};
use gsearch::opencl::DeviceSelector;
use gsearch::opencl::many::{ManySearcher, vocab_text, vocabulary};
use proptest::prelude::*;

mod common;
use common::{byte, have_device, pat_byte};

fn searcher(set: &LiteralSet, wg: Option<usize>, iters: usize) -> ManySearcher {
    ManySearcher::new(&DeviceSelector::Explicit, set, wg, iters).expect("many-literal searcher")
}

/// Device offsets == naive (when small) == CPU engine.
fn check(hay: &[u8], set: &LiteralSet, wg: Option<usize>, iters: usize, cap: usize) {
    let cpu = CpuLiteralEngine::new(set).unwrap().find_all(hay);
    if hay.len() * set.patterns.len() <= 200_000 {
        assert_eq!(
            cpu,
            naive::find_all(hay, set),
            "cpu engine disagrees with naive"
        );
    }
    let s = searcher(set, wg, iters);
    let got = s.find_all_with_cap(hay, cap).expect("device search");
    if got != cpu {
        let first = got
            .iter()
            .zip(&cpu)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(cpu.len()));
        panic!(
            "device {} offsets, cpu {}; first difference at index {first} (device {:?}, cpu {:?}); \
             fold={} npat={} pats(first 20)={:?}",
            got.len(),
            cpu.len(),
            got.get(first),
            cpu.get(first),
            set.fold_ascii,
            set.patterns.len(),
            set.patterns
                .iter()
                .take(20)
                .map(|p| String::from_utf8_lossy(p))
                .collect::<Vec<_>>()
        );
    }
}

/// A text plus patterns: some cut from the text (at offset 0, at the end,
/// anywhere), some random, some extended from an earlier pattern (so
/// patterns share prefixes and are prefixes of others), some duplicated.
fn text_and_patterns(
    max_text: usize,
    npat: std::ops::RangeInclusive<usize>,
    max_len: usize,
) -> impl Strategy<Value = (Vec<u8>, Vec<Vec<u8>>)> {
    (
        proptest::collection::vec(byte(), 0..max_text),
        proptest::collection::vec(
            (
                0u8..6,
                any::<prop::sample::Index>(),
                1..=max_len,
                proptest::collection::vec(pat_byte(), 1..=max_len),
            ),
            npat,
        ),
    )
        .prop_map(move |(text, specs)| {
            let mut pats: Vec<Vec<u8>> = Vec::new();
            for (how, idx, len, random) in specs {
                let l = len.min(text.len());
                let cut = |start: usize| -> Option<Vec<u8>> {
                    let p = text[start..start + l].to_vec();
                    (!p.is_empty() && !p.contains(&b'\n')).then_some(p)
                };
                let p = match how {
                    0 if l > 0 => cut(0),
                    1 if l > 0 => cut(text.len() - l),
                    2 if l > 0 => cut(idx.index(text.len() - l + 1)),
                    3 if !pats.is_empty() => {
                        let mut p = pats[idx.index(pats.len())].clone();
                        p.extend_from_slice(&random[..random.len().min(len)]);
                        Some(p)
                    }
                    4 if !pats.is_empty() => Some(pats[idx.index(pats.len())].clone()),
                    _ => None,
                };
                pats.push(p.unwrap_or(random));
            }
            (text, pats)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn small_sets((hay, pats) in text_and_patterns(500, 1..=40, 40),
                  fold in any::<bool>(), small in any::<bool>(), tiny_cap in any::<bool>()) {
        if have_device() {
            let set = LiteralSet::new(pats, fold);
            let (wg, iters) = if small { (Some(16), 1) } else { (None, 4) };
            check(&hay, &set, wg, iters, if tiny_cap { 1 } else { 1 << 16 });
        }
    }

    #[test]
    fn short_patterns_mixed_with_long((hay, pats) in text_and_patterns(400, 2..=30, 3),
                                      (_h2, long) in text_and_patterns(400, 1..=10, 40),
                                      fold in any::<bool>()) {
        if have_device() {
            let mut pats = pats;
            pats.extend(long);
            check(&hay, &LiteralSet::new(pats, fold), Some(32), 2, 1 << 16);
        }
    }
}

/// Random sets of a few hundred to 50,000 patterns over a text built from
/// the patterns themselves plus noise (dense matches, shared prefixes).
#[test]
fn large_sets() {
    if !have_device() {
        return;
    }
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for &(npat, fold, text_len) in &[
        (300usize, false, 50_000usize),
        (5_000, true, 200_000),
        (50_000, false, 300_000),
    ] {
        let mut pats: Vec<Vec<u8>> = Vec::with_capacity(npat);
        for i in 0..npat {
            let len = 1 + (next() % 40) as usize;
            let mut p: Vec<u8> = match i % 5 {
                0 => b"https://www.example.org/".to_vec(),
                1 if i > 5 => pats[(next() % i as u64) as usize % pats.len()].clone(),
                _ => Vec::new(),
            };
            while p.len() < len {
                p.push(b"abcxyzABC_0\xc3\xa9"[(next() % 13) as usize]);
            }
            p.truncate(len.max(if i % 5 == 1 { p.len() } else { 0 }));
            pats.push(p);
        }
        let mut hay = Vec::with_capacity(text_len + 64);
        while hay.len() < text_len {
            if next() % 3 == 0 {
                hay.extend_from_slice(&pats[(next() % npat as u64) as usize]);
            } else {
                hay.push(b"abcxyzABC_0\xc3\xa9 \n"[(next() % 15) as usize]);
            }
        }
        let set = LiteralSet::new(pats, fold);
        check(&hay, &set, None, 8, 1 << 12);
    }
}

/// Identifier-like words (the benchmark's generator) at realistic sizes.
#[test]
fn word_lists() {
    if !have_device() {
        return;
    }
    let vocab = vocabulary(8_000, 3);
    let text = vocab_text(1 << 20, &vocab, 5);
    for (n, fold) in [(1_000usize, false), (2_000, true)] {
        let set = LiteralSet::new(vocab.iter().step_by(4).take(n).cloned().collect(), fold);
        check(&text, &set, None, 64, 1 << 16);
    }
}

/// Offset 0, the last byte, texts shorter than the patterns, every length
/// class at once, both case modes.
#[test]
fn edges() {
    if !have_device() {
        return;
    }
    let pats: Vec<Vec<u8>> = [
        "q",
        "Zz",
        "abc",
        "abcd",
        "abcde",
        "abcdef",
        "abcdefg",
        "abcdefgh",
        "abcdefghi",
        "bcdefghijklmnopqrstuvwxyz0123456789",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let long = b"abcdefghijklmnopqrstuvwxyz0123456789".to_vec();
    let hays: Vec<Vec<u8>> = vec![
        vec![],
        b"q".to_vec(),
        b"z".to_vec(),
        b"zz".to_vec(),
        b"ab".to_vec(),
        b"abc".to_vec(),
        long.clone(),
        long.to_ascii_uppercase(),
        [b"x".repeat(31), long.clone()].concat(),
        [b"x".repeat(15), b"abcdefgh".to_vec()].concat(),
        [b"x".repeat(16), b"abcdefgh".to_vec()].concat(),
        [b"x".repeat(17), b"Zz".to_vec()].concat(),
        [b"x".repeat(4095), b"q".to_vec()].concat(),
    ];
    for fold in [false, true] {
        let set = LiteralSet::new(pats.clone(), fold);
        for hay in &hays {
            check(hay, &set, Some(16), 1, 1 << 10);
            check(hay, &set, None, 64, 1);
        }
    }
}

/// Through the engine (KernelKind chosen automatically for > 16 patterns),
/// chunked across batch boundaries by a small batch capacity.
#[test]
fn engine_streaming_across_batches() {
    if !have_device() {
        return;
    }
    use gsearch::opencl::{EngineOptions, KernelKind, OpenClEngine};
    let vocab = vocabulary(400, 9);
    let text = vocab_text(60_000, &vocab, 1);
    let mut pats: Vec<Vec<u8>> = vocab.iter().step_by(3).cloned().collect();
    pats.push(b"e".to_vec());
    pats.push(b"xx".to_vec());
    pats.push(text[..30].iter().copied().filter(|&b| b != b'\n').collect());
    for fold in [false, true] {
        let set = LiteralSet::new(pats.clone(), fold);
        for (batch, slots) in [(4096usize, 3usize), (777, 2), (60_000, 1)] {
            let o = EngineOptions {
                batch_bytes: batch,
                slots,
                warn_on_stderr: false,
                initial_out_entries: Some(64),
                ..EngineOptions::default()
            };
            let e = OpenClEngine::with_options(&DeviceSelector::Explicit, &set, o).expect("engine");
            assert_eq!(e.kernel_kind(), KernelKind::Many);
            assert_eq!(e.device_failure(), None);
            let got = e
                .search(&Batch {
                    data: &text,
                    spans: &[],
                })
                .expect("search")
                .offsets;
            let want = CpuLiteralEngine::new(&set).unwrap().find_all(&text);
            assert_eq!(got.len(), want.len(), "batch {batch} fold {fold}");
            assert_eq!(got, want, "batch {batch} fold {fold}");
        }
    }
}
