//! The DFA kernel (`kernels/dfa.cl`) on whatever OpenCL device exists
//! (PoCL in CI): its candidate lines equal the host reference
//! (`DfaSet::candidate_lines`) and are a superset of the lines the exact
//! regex matches; several groups, global-memory groups, result-buffer
//! overflow and injected device faults lose nothing; and the command line
//! answers as the CPU engine does.

use std::process::Command;

use gsearch::engine::EngineError;
use gsearch::engine::dfa_table::{DfaLimits, DfaSet, DfaSpec};
use gsearch::opencl::*;
use proptest::prelude::*;
use regex_automata::meta::Regex;
use regex_automata::util::syntax;

mod common;
use common::{byte, have_device, search};

fn spec(patterns: &[String], ci: bool) -> DfaSpec {
    DfaSpec {
        patterns: patterns.to_vec(),
        fixed_strings: false,
        case_insensitive: ci,
        factors: patterns
            .iter()
            .map(|p| gsearch::matcher::plan::pattern_factors(p, ci))
            .collect(),
    }
}

fn opts(batch: usize) -> EngineOptions {
    EngineOptions {
        batch_bytes: batch,
        warn_on_stderr: false,
        ..EngineOptions::default()
    }
}

fn engine(s: &DfaSpec, o: EngineOptions) -> OpenClEngine {
    OpenClEngine::dfa_with_options(&DeviceSelector::Explicit, s, o).expect("dfa engine")
}

/// Start offsets of the lines the exact regex matches (line by line, as
/// ripgrep decides them).
fn exact_lines(patterns: &[String], ci: bool, hay: &[u8]) -> Vec<u64> {
    let re = Regex::builder()
        .syntax(
            syntax::Config::new()
                .utf8(false)
                .unicode(true)
                .multi_line(true)
                .case_insensitive(ci),
        )
        .configure(Regex::config().utf8_empty(false))
        .build_many(patterns)
        .expect("regex");
    let mut out = Vec::new();
    let mut start = 0;
    for line in hay.split(|&b| b == b'\n') {
        if start < hay.len() && re.is_match(line) {
            out.push(start as u64);
        }
        start += line.len() + 1;
    }
    out
}

fn is_superset(big: &[u64], small: &[u64]) -> bool {
    small.iter().all(|x| big.binary_search(x).is_ok())
}

fn check(patterns: &[String], ci: bool, hay: &[u8]) {
    let s = spec(patterns, ci);
    // Tables that would accept the empty string (every line a candidate)
    // are refused: such searches stay on the CPU.
    let first = OpenClEngine::dfa_with_options(&DeviceSelector::Explicit, &s, opts(1 << 16));
    if let Err(EngineError::Unsupported(why)) = &first
        && why.contains("empty string")
    {
        return;
    }
    let e = first.expect("dfa engine");
    let host = e.dfa_set().expect("tables").candidate_lines(hay);
    let exact = exact_lines(patterns, ci, hay);
    assert!(is_superset(&host, &exact), "host {host:?} exact {exact:?}");
    // One batch: exactly the host reference of the device's tables.
    assert_eq!(search(&e, hay), host, "{patterns:?}");
    // Chunks of 97 bytes: still a superset.
    let e = engine(&s, opts(97));
    let small = search(&e, hay);
    assert!(
        is_superset(&small, &exact),
        "{patterns:?}: {small:?} vs {exact:?}"
    );
}

/// Small regexes over the text alphabet of `common::byte`, with classes,
/// repetitions, anchors, word boundaries and Unicode classes.
fn regex() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("A".to_string()),
        Just("é".to_string()),
        Just("[ab]".to_string()),
        Just("[^a]".to_string()),
        Just(r"\w".to_string()),
        Just(r"\W".to_string()),
        Just(r"\s".to_string()),
        Just(r"\S".to_string()),
        Just(r"\d".to_string()),
        Just(".".to_string()),
        Just(r"\b".to_string()),
        Just("^".to_string()),
        Just("$".to_string()),
        Just(r"\p{L}".to_string()),
    ];
    let rep = (atom, 0..6usize).prop_map(|(a, r)| match r {
        0 => format!("(?:{a})*"),
        1 => format!("(?:{a})+"),
        2 => format!("(?:{a}){{2,3}}"),
        3 => format!("(?:{a})?"),
        _ => a,
    });
    proptest::collection::vec(rep, 1..5).prop_flat_map(|parts| {
        let joined = parts.concat();
        prop_oneof![
            Just(joined.clone()),
            Just(format!("(?i){joined}")),
            Just(format!("{joined}|ab")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn device_lines_are_the_reference_and_a_superset(
        pats in proptest::collection::vec(regex(), 1..4),
        ci in any::<bool>(),
        hay in proptest::collection::vec(byte(), 0..500),
    ) {
        if have_device() {
            check(&pats, ci, &hay);
        }
    }
}

fn lcg_text(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    let alphabet = b"abcdefghij 0123456789ABCDEF=:\n\n";
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            alphabet[(x >> 33) as usize % alphabet.len()]
        })
        .collect()
}

#[test]
fn many_groups_local_and_global() {
    if !have_device() {
        return;
    }
    let pats: Vec<String> = (0..150)
        .map(|i| {
            format!(
                r"\b{}[0-9A-F]{{{}}}\b",
                (b'a' + (i % 10) as u8) as char,
                2 + i % 5
            )
        })
        .chain([r"(?i)key\s*[:=]\s*\S{3,}".to_string()])
        .collect();
    let hay = lcg_text(60_000, 3);
    let s = spec(&pats, false);
    // The grouping for an H100's 48 KiB of local memory.
    let set = DfaSet::build(&s, DfaLimits::for_local_mem(48 << 10)).unwrap();
    assert!(set.groups.len() > 1, "{}", set.describe());
    assert!(
        set.groups
            .iter()
            .all(|g| g.local && g.table_bytes() <= 47 << 10)
    );
    let e = engine(&s, opts(1 << 20));
    let set = e.dfa_set().unwrap();
    assert!(set.groups.len() > 1, "{}", set.describe());
    let host = set.candidate_lines(&hay);
    let exact = exact_lines(&pats, false, &hay);
    assert!(is_superset(&host, &exact));
    assert_eq!(search(&e, &hay), host);
    // Result-buffer overflow: the batch runs again with a bigger buffer.
    let mut o = opts(1 << 20);
    o.initial_out_entries = Some(4);
    let e = engine(&s, o);
    assert_eq!(search(&e, &hay), host);
}

#[test]
fn global_memory_groups() {
    if !have_device() {
        return;
    }
    let pats: Vec<String> = vec![r"[a-f]{3}\d".into(), r"(?i)E=\w+".into()];
    let hay = lcg_text(20_000, 5);
    let s = spec(&pats, false);
    let exact = exact_lines(&pats, false, &hay);
    // SAFETY of the test: env is read when the engine is built; no other
    // test in this crate reads this variable.
    unsafe { std::env::set_var("GSEARCH_DFA_LOCAL_BYTES", "0") };
    let e = engine(&s, opts(1 << 20));
    unsafe { std::env::remove_var("GSEARCH_DFA_LOCAL_BYTES") };
    let d = e.dfa_set().unwrap();
    assert_eq!(d.local_groups(), 0, "{}", d.describe());
    let host = d.candidate_lines(&hay);
    assert!(is_superset(&host, &exact));
    assert_eq!(search(&e, &hay), host);
}

#[test]
fn faults_lose_nothing() {
    if !have_device() {
        return;
    }
    let pats: Vec<String> = vec![r"\d{2}[A-F]".into()];
    let hay = lcg_text(20_000, 9);
    let s = spec(&pats, false);
    let exact = exact_lines(&pats, false, &hay);
    for f in ["build", "alloc", "enqueue", "enqueue@3", "lost", "lost@2"] {
        let mut o = opts(700);
        o.fault = Fault::parse(f);
        let e = engine(&s, o);
        let got = search(&e, &hay);
        assert!(is_superset(&got, &exact), "{f}");
        assert!(e.is_degraded(), "{f}");
    }
}

/// The command line with `--engine opencl` answers as `--engine cpu`.
fn gsearch(engine: &str, args: &[&str], dir: &std::path::Path) -> Vec<u8> {
    gsearch_env(engine, args, dir, &[])
}

/// [`gsearch`] with more environment variables.
fn gsearch_env(
    engine: &str,
    args: &[&str],
    dir: &std::path::Path,
    env: &[(&str, &str)],
) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_gsearch"))
        .current_dir(dir)
        .env("GSEARCH_ENGINE", engine)
        .env("GSEARCH_BATCH_BYTES", "256")
        .envs(env.iter().copied())
        .args(args)
        .output()
        .expect("run gsearch");
    let mut v = out.stdout;
    v.extend_from_slice(format!("exit {:?}", out.status.code()).as_bytes());
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn command_line_equals_cpu(
        pat in regex(),
        hay in proptest::collection::vec(byte(), 0..1500),
        flags in 0..4usize,
    ) {
        if have_device() {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("t.txt"), &hay).unwrap();
            let flag = ["-n", "-c", "-o", "-w"][flags];
            let args = ["-a", flag, "-e", pat.as_str(), "t.txt"];
            let cpu = gsearch("cpu", &args, dir.path());
            let dev = gsearch("opencl", &args, dir.path());
            prop_assert_eq!(String::from_utf8_lossy(&dev), String::from_utf8_lossy(&cpu));
        }
    }
}

/// Rules with literal factors, and one without (a full group).
const NEAR_RULES: &str = "(?i)key=[A-J]{10}\ntok_[0-9]{5}\n\\bpasswd:\\s*\\S{6,}\nabc[0-9]\n\
                          \\b[0-9a-f]{12}\\b\nZq[a-z]+é\n";

/// Text for the near groups: factors (in either case) at the start and end
/// of lines, in lines longer than the span (near their start, past the
/// span, far from it), non-ASCII bytes, and a stretch dense with factors
/// (more positions than a batch's scratch holds: the CPU takes it).
fn near_text(seed: u64) -> Vec<u8> {
    let pieces: [&[u8]; 12] = [
        b"key=ABCDEFGHIJ",
        b"KEY=abcdefghij",
        b"tok_12345",
        b"TOK_12345",
        b"passwd: hunter22",
        b"passwd:x",
        b"abc7",
        b"0123456789ab",
        b"zqxyz\xc3\xa9",
        b"Zqabc\xc3\xa9",
        b"\xc3\xa9t\xc3\xa9",
        b"\n",
    ];
    let mut hay = b"tok_54321 first\n".to_vec();
    let filler = lcg_text(40_000, seed);
    for (i, chunk) in filler.chunks(97).enumerate() {
        hay.extend_from_slice(chunk);
        hay.extend_from_slice(pieces[i % pieces.len()]);
        if i % 50 == 7 {
            // A long line with factors at its start, past the span, and
            // near its end.
            let long: Vec<u8> = lcg_text(3000, i as u64)
                .into_iter()
                .filter(|&b| b != b'\n')
                .collect();
            hay.extend_from_slice(b"\nkey=ABCDEFGHIJ");
            hay.extend_from_slice(&long[..1500]);
            hay.extend_from_slice(b"tok_99999");
            hay.extend_from_slice(&long[1500..]);
            hay.extend_from_slice(b"abc1\n");
        }
    }
    hay.extend(std::iter::repeat_n(b"abcabc".as_slice(), 20_000).flatten());
    hay.extend_from_slice(b"abc9\nlast tok_11111");
    hay
}

/// Near groups (`GSEARCH_DFA_NEAR=1`): the rules with factors run only on
/// the lines holding one; the answers are the CPU engine's, whatever the
/// span, the batch and the case mode.
#[test]
fn near_groups_answer_as_the_cpu() {
    if !have_device() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.txt"), near_text(5)).unwrap();
    std::fs::write(dir.path().join("rules.txt"), NEAR_RULES).unwrap();
    for (span, batch) in [("64", "65536"), ("1024", "300000")] {
        let env = [
            ("GSEARCH_DFA_NEAR", "1"),
            ("GSEARCH_DFA_SPAN", span),
            ("GSEARCH_BATCH_BYTES", batch),
        ];
        let stats = gsearch_env(
            "opencl",
            &["--stats", "-c", "-f", "rules.txt", "t.txt"],
            dir.path(),
            &env,
        );
        let stats = String::from_utf8_lossy(&stats);
        assert!(
            stats.contains("near groups run only on lines holding"),
            "{stats}"
        );
        for flags in [&["-n"][..], &["-c"], &["-o"], &["-c", "-i"], &["-n", "-w"]] {
            let mut args = vec!["-a"];
            args.extend_from_slice(flags);
            args.extend_from_slice(&["-f", "rules.txt", "t.txt"]);
            let cpu = gsearch("cpu", &args, dir.path());
            let dev = gsearch_env("opencl", &args, dir.path(), &env);
            assert_eq!(
                String::from_utf8_lossy(&dev),
                String::from_utf8_lossy(&cpu),
                "span {span} batch {batch} {flags:?}"
            );
        }
    }
    // A device that fails mid-run hands its batches to the CPU.
    let args = ["-a", "-n", "-f", "rules.txt", "t.txt"];
    let cpu = gsearch("cpu", &args, dir.path());
    for fault in ["enqueue@2", "lost@3", "build"] {
        let env = [
            ("GSEARCH_DFA_NEAR", "1"),
            ("GSEARCH_BATCH_BYTES", "65536"),
            ("GSEARCH_FAULT", fault),
        ];
        let dev = gsearch_env("opencl", &args, dir.path(), &env);
        assert_eq!(
            String::from_utf8_lossy(&dev),
            String::from_utf8_lossy(&cpu),
            "{fault}"
        );
    }
}

/// A rule with a literal factor (a prefix, an inner word, a case-folded
/// one, alternatives) or without one.
fn near_rule() -> impl Strategy<Value = String> {
    let templates = [
        "key=[A-J]{2,4}",
        "(?i)tok_[0-9]+",
        r"\bpass(?:wd|word):\s*\S{2,}",
        "[a-c]+abc[0-9]",
        "(?:zqx|qqz)[a-j]*é",
        r"\b[0-9a-f]{6}\b",
        "x[yz]{3}",
    ];
    prop::sample::select(templates.to_vec()).prop_map(String::from)
}

/// Text of short and long lines with the rules' factors, in either case.
fn near_hay() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&[u8]> = vec![
        b"key=ABC",
        b"KEY=abcd",
        b"tok_12",
        b"TOK_9",
        b"password: xy",
        b"passwd:",
        b"aabc1",
        b"zqxab\xc3\xa9",
        b"qqz\xc3\xa9",
        b"deadbe",
        b"xyzz",
        b" ",
        b"-",
        b"\n",
        b"\n",
        b"0123456789",
        b"\xc3\xa9",
        b"abc",
    ];
    let long = prop::collection::vec(prop::sample::select(pieces.clone()), 0..120);
    let short = prop::collection::vec(prop::sample::select(pieces), 0..40);
    (short, long, 0..3usize).prop_map(|(s, l, k)| {
        let mut v: Vec<u8> = s.concat();
        // A long line: the factors far from its start.
        v.extend(l.concat().into_iter().filter(|&b| b != b'\n'));
        v.extend(std::iter::repeat_n(b'q', 50 * k));
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random rule sets in near groups (`GSEARCH_DFA_NEAR=1`, a span of
    /// 16 bytes) answer as the CPU engine, in one batch or in chunks of a
    /// few hundred bytes (a factor cut by a batch's end, its line owned by
    /// the chunk before).
    #[test]
    fn near_groups_random(
        rules in proptest::collection::vec(near_rule(), 1..6),
        hay in near_hay(),
        flags in 0..4usize,
        batch in prop::sample::select(vec!["33554432", "256", "600"]),
    ) {
        if have_device() {
            let dir = tempfile::tempdir().unwrap();
            // Repeated, so that small batches cut it in many places.
            std::fs::write(dir.path().join("t.txt"), hay.repeat(12)).unwrap();
            std::fs::write(dir.path().join("r.txt"), rules.join("\n")).unwrap();
            let flag = ["-n", "-c", "-o", "-i"][flags];
            let args = ["-a", flag, "-f", "r.txt", "t.txt"];
            let env = [
                ("GSEARCH_DFA_NEAR", "1"),
                ("GSEARCH_DFA_SPAN", "16"),
                ("GSEARCH_BATCH_BYTES", batch),
            ];
            let cpu = gsearch("cpu", &args, dir.path());
            let dev = gsearch_env("opencl", &args, dir.path(), &env);
            prop_assert_eq!(String::from_utf8_lossy(&dev), String::from_utf8_lossy(&cpu));
        }
    }
}

/// Lines far longer than a work-item's segment and its span
/// (`GSEARCH_DFA_SEG=16`, `GSEARCH_DFA_SPAN=8`): the kernel gives such a
/// line up as a candidate and the CPU decides it, so the answers are the
/// CPU engine's, with matches early, late and nowhere in long lines, and
/// a long unterminated last line.
#[test]
fn long_lines_past_the_span() {
    if !have_device() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut hay = Vec::new();
    for (i, len) in [3usize, 40, 300, 17, 1000, 64, 999, 2, 500]
        .iter()
        .enumerate()
    {
        let mut line = lcg_text(*len, i as u64 + 7);
        line.retain(|&b| b != b'\n');
        let key = b"key=ABCDEFGHIJ";
        match i % 3 {
            0 => line.splice(0..0, key.iter().copied()).for_each(drop),
            1 => line.extend_from_slice(key),
            _ => {}
        }
        hay.extend_from_slice(&line);
        hay.push(b'\n');
    }
    hay.extend_from_slice(
        &lcg_text(700, 99)
            .into_iter()
            .filter(|&b| b != b'\n')
            .collect::<Vec<_>>(),
    );
    hay.extend_from_slice(b"key=ABCDEFGHIJ");
    std::fs::write(dir.path().join("t.txt"), &hay).unwrap();
    let env = [
        ("GSEARCH_DFA_SEG", "16"),
        ("GSEARCH_DFA_SPAN", "8"),
        ("GSEARCH_BATCH_BYTES", "65536"),
    ];
    // Pattern sets without literal factors: the DFA kernel runs them.
    for pats in [["[A-J]{10}", r"^\d\d"], [r"[a-j]{3}\s[0-9]{3}", r"^\d"]] {
        let stats = gsearch_env(
            "opencl",
            &["--stats", "-c", "-e", pats[0], "-e", pats[1], "t.txt"],
            dir.path(),
            &env,
        );
        assert!(String::from_utf8_lossy(&stats).contains("kernel: dfa"));
        for flag in ["-n", "-c", "-o"] {
            let args = ["-a", flag, "-e", pats[0], "-e", pats[1], "t.txt"];
            let cpu = gsearch("cpu", &args, dir.path());
            let dev = gsearch_env("opencl", &args, dir.path(), &env);
            assert_eq!(
                String::from_utf8_lossy(&dev),
                String::from_utf8_lossy(&cpu),
                "{pats:?} {flag}"
            );
        }
    }
}

/// The tables go through the on-disk cache: a second engine with the same
/// rules reads them (and answers the same); a truncated entry is rebuilt.
#[test]
fn tables_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ProgramCache::at(dir.path());
    let pats: Vec<String> = (0..40)
        .map(|i| format!(r"(?i)\bkey{i}\s*[:=]\s*\S{{6,}}"))
        .chain([r"\b[0-9a-f]{12}\b".to_string()])
        .collect();
    let s = spec(&pats, false);
    let lim = DfaLimits::for_local_mem(48 << 10);
    let first = dfa_tables(&s, lim, &cache).unwrap();
    assert!(!first.info.from_cache);
    let path = cache.path(&dfa_tables_key(&s, &lim)).unwrap();
    assert!(path.exists());
    let second = dfa_tables(&s, lim, &cache).unwrap();
    assert!(second.info.from_cache, "{}", second.info.describe());
    let hay = lcg_text(30_000, 11);
    assert_eq!(second.candidate_lines(&hay), first.candidate_lines(&hay));
    // Other rules, or other limits, are another entry.
    let mut other = s.clone();
    other.patterns.pop();
    assert_ne!(dfa_tables_key(&other, &lim), dfa_tables_key(&s, &lim));
    let lim2 = DfaLimits::for_local_mem(32 << 10);
    assert_ne!(dfa_tables_key(&s, &lim2), dfa_tables_key(&s, &lim));
    // A truncated entry is a miss: built again and stored whole.
    let full = std::fs::read(&path).unwrap();
    std::fs::write(&path, &full[..full.len() / 2]).unwrap();
    let third = dfa_tables(&s, lim, &cache).unwrap();
    assert!(!third.info.from_cache);
    assert_eq!(third.candidate_lines(&hay), first.candidate_lines(&hay));
    assert_eq!(std::fs::read(&path).unwrap(), full);
    // Through the engine, from the cache, the device answers the same.
    if have_device() {
        let run = || {
            let mut o = opts(1 << 16);
            o.cache = cache.clone();
            let e = engine(&s, o);
            let lines = search(&e, &hay);
            (e.dfa_set().unwrap().info.from_cache, lines)
        };
        let (cached, a) = run();
        assert!(!cached, "the device's limits are another entry");
        let (cached, b) = run();
        assert!(cached);
        assert_eq!(a, b);
        assert!(is_superset(&b, &exact_lines(&pats, false, &hay)));
    }
}

/// `-w` regexes run on the device (the kernel without the word boundaries:
/// its lines are candidates), and the CPU decides them in order as
/// ripgrep's searcher does: lines opening with a continuation byte after a
/// line not reported see its `\n`, so they can match where the same line
/// alone does not. A rule set with and without a fast line regex (the
/// latter has patterns too short for inner literals), in small batches.
#[test]
fn word_regexes_run_on_the_device_and_decide_lines_in_order() {
    if !have_device() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut hay = Vec::new();
    for i in 0..400u32 {
        let line: &[u8] = match i % 6 {
            0 => b"alpha_id = beta(x)",
            1 => b"no match on this line",
            // ripgrep 15 reports this line after the line above with the
            // slow set, not when it stands alone.
            2 => b"\x80b is here",
            3 => b"\xa9a and id",
            4 => b"\xc3\xa9t\xc3\xa9 gamma9",
            _ => b"\xbf",
        };
        hay.extend_from_slice(line);
        hay.push(b'\n');
    }
    std::fs::write(dir.path().join("t.txt"), &hay).unwrap();
    std::fs::write(dir.path().join("slow.txt"), "(?i)[ab]\n\\w+_id\ngamma\\d\n").unwrap();
    std::fs::write(dir.path().join("fast.txt"), "beta\\(x\\)\ngamma9\nhere\n").unwrap();
    let env = [("GSEARCH_BATCH_BYTES", "1024")];
    for rules in ["slow.txt", "fast.txt"] {
        let stats = gsearch_env(
            "opencl",
            &["--stats", "-c", "-w", "-f", rules, "t.txt"],
            dir.path(),
            &env,
        );
        let stats = String::from_utf8_lossy(&stats);
        assert!(stats.contains("kernel: dfa"), "{rules}: {stats}");
        for flag in ["-n", "-c", "-o", "--count-matches"] {
            let args = ["-w", flag, "-f", rules, "t.txt"];
            let cpu = gsearch("cpu", &args, dir.path());
            let dev = gsearch_env("opencl", &args, dir.path(), &env);
            assert_eq!(
                String::from_utf8_lossy(&dev),
                String::from_utf8_lossy(&cpu),
                "{rules} {flag}"
            );
        }
    }
}
