//! One big file on every core (`search/bigfile.rs`): the streamed `-n` and
//! `-c` forms, and the collected forms, give what ripgrep's searcher gives
//! on the same map, byte for byte, with segments small enough that lines
//! and matches cross many of them. The reference is gsearch with the big
//! file path turned off (`GSEARCH_BIGFILE_MIN_BYTES` above the file's
//! size), i.e. grep-searcher over the same memory map, as ripgrep does for
//! one explicit file (and, with `GSEARCH_TEST_RG` naming a ripgrep binary,
//! ripgrep itself).

use std::io::Read;
use std::process::{ExitStatus, Stdio};

use crate::util::{Dir, Engine};

/// Lines of every kind: matching at the start, middle and end, empty
/// lines, long lines, words for `-w`, and no newline at the very end.
fn text(lines: usize) -> Vec<u8> {
    let mut v = Vec::new();
    let mut x = 12345u64;
    for i in 0..lines {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let line: String = match (x >> 33) % 9 {
            0 => "needle at the start".into(),
            1 => format!("{i} the needle in the middle {i}"),
            2 => String::new(),
            3 => format!("ends with a needle{}", "x".repeat(i % 7)),
            4 => "needles needle needled".into(),
            5 => "z".repeat(300 + i % 50),
            6 => format!("struct s{i} {{ int e; }};"),
            _ => format!("plain {i} text"),
        };
        v.extend_from_slice(line.as_bytes());
        v.push(b'\n');
    }
    v.extend_from_slice(b"last needle without newline");
    v
}

/// stdout and exit code of gsearch (or `bin`) on `args` in `dir`, with
/// `env`; stderr must be empty.
fn run(
    dir: &Dir,
    bin: Option<&str>,
    env: &[(&str, &str)],
    args: &[&str],
) -> (Vec<u8>, Option<i32>) {
    let out = output(dir, bin, env, args);
    assert!(
        out.stderr.is_empty(),
        "{args:?} {env:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.stdout, out.status.code())
}

/// The whole output of gsearch (or `bin`) on `args` in `dir`, with `env`.
fn output(
    dir: &Dir,
    bin: Option<&str>,
    env: &[(&str, &str)],
    args: &[&str],
) -> std::process::Output {
    if let Some(b) = bin {
        std::process::Command::new(b)
            .current_dir(dir.path())
            .env_remove("RIPGREP_CONFIG_PATH")
            .args(args)
            .output()
            .unwrap()
    } else {
        let mut cmd = dir.command();
        for (k, v) in env {
            cmd.raw().env(k, v);
        }
        cmd.args(args).output()
    }
}

const REFERENCE: &[(&str, &str)] = &[("GSEARCH_BIGFILE_MIN_BYTES", "1000000000000")];

/// [`run`], with `--json`'s timings masked.
fn run_masked(
    dir: &Dir,
    bin: Option<&str>,
    env: &[(&str, &str)],
    args: &[&str],
) -> (Vec<u8>, Option<i32>) {
    let (out, code) = run(dir, bin, env, args);
    if !args.contains(&"--json") {
        return (out, code);
    }
    let text = String::from_utf8(out).expect("JSON output");
    (crate::json::normalize(&text).into_bytes(), code)
}

/// Every case against the reference, for several segment sizes.
fn same_as_searcher(dir: &Dir, file: &str, cases: &[&[&str]]) {
    let rg = std::env::var("GSEARCH_TEST_RG").ok();
    for args in cases {
        let mut args = args.to_vec();
        args.push(file);
        let want = run_masked(dir, None, REFERENCE, &args);
        if let Some(rg) = rg.as_deref() {
            assert_eq!(
                run_masked(dir, Some(rg), &[], &args),
                want,
                "ripgrep: {args:?}"
            );
        }
        for seg in ["1", "97", "4096", "100000"] {
            let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1"), ("GSEARCH_SEGMENT", seg)];
            let got = run_masked(dir, None, &env, &args);
            crate::util::assert_eq_nice(&want.0, &got.0, &format!("{args:?} segment {seg}"));
            assert_eq!(want.1, got.1, "{args:?} segment {seg}: exit");
        }
    }
}

#[test]
fn streamed_and_collected_forms_equal_the_searcher() {
    let dir = Dir::new("bigfile_forms", Engine::Cpu);
    dir.create_bytes("big.txt", &text(6000));
    same_as_searcher(
        &dir,
        "big.txt",
        &[
            &["-n", "needle"],
            &["-n", "-H", "e"],
            &["-n", "--null", "-H", "needle"],
            &["-n", "-w", "needle"],
            &["-n", "-i", "NEEDLE$"],
            &["-n", "^$"],
            &["-n", "absent"],
            &["-c", "needle"],
            &["-c", "-H", "e"],
            &["--count-matches", "needle"],
            // The empty match at the end of a last line without a
            // terminator is not counted.
            &["--count-matches", ""],
            &["--count-matches", "\\b"],
            &["-c", "--include-zero", "absent"],
            &["-n", "-C2", "needle"],
            &["-n", "-A1", "struct"],
            &["-n", "-m", "7", "needle"],
            &["-n", "-o", "needle\\w*"],
            &["-n", "--column", "needle"],
            // `-v`'s lines, written by the threads (`plain::write_inverted`).
            &["-v", "needle"],
            &["-v", "-n", "-H", "e"],
            &["-v", "-n", "^$"],
            &["-v", "-w", "-i", "needle|the"],
            &["-v", ""],
            // `-o`, `-b` and `--column`, written by the threads (`plain::Fields`).
            &["-o", "-n", "-b", "--column", "e\\w*"],
            &["-o", "-H", "x*"],
            &["-o", "-w", "-i", "needle|the"],
            &["-b", "needle"],
            &["-b", "-n", "-H", "e"],
            &["--column", "-H", "-i", "NEEDLE"],
            &["--column", "-N", "needle\\w*"],
            &["--column", "-b", "--null", "-H", "-w", "needle"],
            &["--column", ""],
            &["--column", "\\b"],
            &["--column", "$"],
            &["--column", "-b", "^$"],
            &["-v", "-c", "e"],
            &["-v", "--count-matches", "needle"],
            &["-v", "-c", "-H", "^$"],
            // Printed by ripgrep's searcher as the lines arrive.
            &["needle"],
            &["-H", "e"],
            &["-o", "needle\\w*"],
            &["-b", "-o", "ne+dle"],
            &["--vimgrep", "needle"],
            &["--json", "-C1", "needle"],
            &["--json", "-r", "x", "needle"],
            &["-C1", "needle$"],
            &["-B3", "struct"],
            &["--color", "always", "-n", "needle"],
            &["--heading", "-n", "-H", "needle"],
            &["-r", "[$0]", "needle"],
            &["-n", "-A2", "-m", "5", "^$"],
            // `--json`'s match messages, written by every core.
            &["--json", "needle"],
            &["--json", "e"],
            &["--json", "-N", "needle"],
            &["--json", "-w", "needle"],
            &["--json", "--stats", "needle\\w*"],
            &["--json", "absent"],
            &["--json", ""],
            &["--json", "\\b"],
            &["--json", "(?-m)^needle"],
        ],
    );
}

/// `-m`, `-q`, `-l` and `-L`, which need only the first matching lines:
/// a pattern matching rarely in the file's first 32 KiB is printed by
/// ripgrep's searcher fed by every core (`bigfile::found_early`), one that
/// matches often there by the searcher alone; both give its answer.
#[test]
fn first_lines_only_equal_the_searcher() {
    let dir = Dir::new("bigfile_first_lines", Engine::Cpu);
    dir.create_bytes("big.txt", &text(6000));
    // `struct s5...` lines lie past the first 32 KiB.
    let late = "struct s5\\d{3} ";
    let cases: &[&[&str]] = &[
        &["-m", "3", "-n", late],
        &["-m", "40", "-c", "struct s[45]\\d{3} "],
        &["-m", "2", "-A2", "-n", late],
        &["-m", "2", "-B1", "-b", late],
        &["--json", "-m", "2", late],
        &["-m", "1", "--color=always", late],
        &["-q", late],
        &["-q", "absent"],
        &["-l", late],
        &["-L", late],
        &["-l", "absent"],
        &["-L", "absent"],
        &["-m", "5000", "-n", "needle"],
        &["-m", "5", "-n", "needle"],
        &["-m", "0", "needle"],
    ];
    same_as_searcher(&dir, "big.txt", cases);
    let split = |args: &[&str]| {
        let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1")];
        let (out, _) = run(
            &dir,
            None,
            &env,
            &[&["--stats"], args, &["big.txt"]].concat(),
        );
        String::from_utf8_lossy(&out).contains("1 big file (")
    };
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(split(&["-m", "3", late]));
        assert!(split(&["-l", late]));
        assert!(!split(&["-m", "5", "needle"]));
    }
}

/// `-m`, `-l` and `-q` with PCRE2 failing on a line, within the first
/// 32 KiB (the probe of `bigfile::found_early` meets it: the usual search
/// reports it) or past them (every core searches, then the searcher meets
/// it): ripgrep's answer and error either way.
#[test]
fn first_lines_only_meet_a_pcre2_match_error() {
    let dir = Dir::new("bigfile_first_lines_pcre2", Engine::Cpu);
    let body = text(6000);
    for at in [1_000, 150_000] {
        let cut = body[at..].iter().position(|&b| b == b'\n').unwrap() + at + 1;
        let mut data = body[..cut].to_vec();
        // Backtracking on this line exceeds PCRE2's match limit.
        data.extend_from_slice(&[b'a'; 3_000]);
        data.push(b'\n');
        data.extend_from_slice(&body[cut..]);
        dir.create_bytes("big.txt", &data);
        let pattern = "(?:a|aa)*b|struct s5\\d{3} ";
        let cases: &[&[&str]] = &[&["-m", "3", "-n"], &["-l"], &["-q"], &["-m", "2", "-c"]];
        for form in cases {
            let args: Vec<&str> = [form, &["-P", pattern, "big.txt"][..]].concat();
            let want = output(&dir, None, REFERENCE, &args);
            if let Some(rg) = std::env::var("GSEARCH_TEST_RG").ok().as_deref() {
                let got = output(&dir, Some(rg), &[], &args);
                assert_eq!(got.stdout, want.stdout, "{args:?}");
                assert_eq!(got.status.code(), want.status.code(), "{args:?}");
            }
            for seg in ["1", "4096"] {
                let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1"), ("GSEARCH_SEGMENT", seg)];
                let got = output(&dir, None, &env, &args);
                let what = format!("{args:?} at {at}, segment {seg}");
                crate::util::assert_eq_nice(&want.stdout, &got.stdout, &what);
                assert_eq!(want.stderr, got.stderr, "{what}");
                assert_eq!(want.status.code(), got.status.code(), "{what}");
            }
        }
    }
}

/// `--json` over lines that its printer writes as escaped text, as base64
/// (not UTF-8) or with carriage returns, and a file of one line without a
/// terminator, whose empty match at the end is dropped.
#[test]
fn json_messages_equal_the_searcher() {
    let cases: &[&[&str]] = &[
        &["--json", "needle"],
        &["--json", "e"],
        &["--json", "x*"],
        &["--json", "(?-u:\\xff)"],
        &["--json", "\\w+"],
        &["--json", "$"],
        &["--json", "-i", "NEEDLE"],
    ];
    mixed_and_one_line_as_the_searcher("bigfile_json", cases);
}

/// `-o`, `--vimgrep`, `-b`, `--column` and `-r` over the same lines, and a
/// file of one line without a terminator, where ripgrep's printer finds no
/// match at its end (it then writes the whole line, without a column).
#[test]
fn columns_and_offsets_equal_the_searcher() {
    let cases: &[&[&str]] = &[
        &["--column", "needle"],
        &["--column", "-b", "e"],
        &["--column", "x*"],
        &["--column", "(?-u:\\xff)"],
        &["-b", "-H", "\\w+"],
        &["--column", "$"],
        &["--column", "e$"],
        &["--column", "-i", "NEEDLE"],
        &["-o", "x*"],
        &["-o", "-n", "--column", "$"],
        &["-o", "-b", "(?-u:\\xff)|needle"],
        &["--vimgrep", "x*"],
        &["--vimgrep", "-b", "$"],
        &["-r", "<$0>", "x*"],
        &["-o", "-n", "-r", "$1", "(e)\\w"],
        &["--column", "-b", "-r", "", "e"],
        &["-o", "--column", "-r", "${1}!", "(?-u:(\\xff))|(needle)"],
    ];
    mixed_and_one_line_as_the_searcher("bigfile_columns", cases);
}

/// Colors (`output::style`): the threads' escapes are the printer's, for
/// the plain lines, the fields, `-o`, `--vimgrep`, `-r`, `-v` and counts, with
/// ripgrep's colors and others (a highlight color, no match color), empty
/// matches and adjacent ones, and a heading that prints nothing.
#[test]
fn colors_equal_the_searcher() {
    let cases: &[&[&str]] = &[
        &["--color=always", "needle"],
        &["--color=always", "-n", "-H", "e"],
        &["--color=always", "-n", "x*"],
        &["--color=always", "-n", "--null", "-H", "ne|ed|le"],
        &["--color=always", "-o", "-b", "--column", "e\\w*|x*"],
        &["--color=always", "--vimgrep", "needle"],
        &["--color=always", "-r", "<$0>", "-n", "(?-u:\\xff)|\\w+"],
        &["--color=always", "-v", "-n", "needle"],
        &["--color=always", "--heading", "-n", "needle"],
        &["--color=ansi", "--colors", "match:none", "-n", "needle"],
        &[
            "--color=always",
            "--colors",
            "highlight:bg:yellow",
            "-n",
            "e|$",
        ],
        &[
            "--color=always",
            "--colors",
            "path:none",
            "--colors",
            "line:style:bold",
            "-H",
            "-n",
            "needle",
        ],
        &[
            "--color=always",
            "--colors",
            "column:fg:red",
            "--colors",
            "match:bg:0x4,0x5,0x6",
            "--column",
            "needle",
        ],
        // A heading with the path, before the first line.
        &["--heading", "-H", "-n", "needle"],
        &["--heading", "-H", "--color=always", "-o", "e\\w*"],
        &["--heading", "-H", "--null", "-v", "needle"],
        &["--heading", "-H", "--color=always", "-n", "-C1", "bytes"],
        // Counts: the path in its color.
        &["--color=always", "-c", "needle"],
        &["--color=always", "-c", "-H", "-v", "needle"],
        &[
            "--color=always",
            "--colors",
            "path:bg:blue",
            "--count-matches",
            "--null",
            "-H",
            "e",
        ],
    ];
    mixed_and_one_line_as_the_searcher("bigfile_colors", cases);
}

/// Context lines (`output::context`): each segment prints the lines of
/// its own that the matches of its neighbours reach, and the separator
/// before its first line only after earlier output; dense and sparse
/// matches, contexts longer than a segment, separators, paths, colors.
#[test]
fn context_equals_the_searcher() {
    let cases: &[&[&str]] = &[
        &["-n", "-C1", "needle"],
        &["-A2", "struct s\\d*7 "],
        &["-B3", "-n", "struct s\\d*7 "],
        &["-n", "-A1", "-B4", "^z"],
        &["-C40", "-n", "struct s1\\d\\d "],
        &["-n", "-A200", "struct s4\\d\\d "],
        // Past `context::CONTEXT_MAX`: ripgrep's printer.
        &["-n", "-B201", "struct s4\\d\\d "],
        &["-C1", "x*"],
        &["-C2", "absent"],
        &["-n", "-C1", "-H", "--null", "^$"],
        &["--no-context-separator", "-B1", "struct"],
        &["--context-separator", "~~", "-n", "-A1", "struct s\\d*3 "],
        &["--color=always", "-n", "-C1", "-H", "struct s\\d*[05] "],
        &[
            "--color=always",
            "--colors",
            "line:fg:blue",
            "-B2",
            "needle$",
        ],
        &["--heading", "-n", "-C1", "struct s\\d*9 "],
        // `--json`'s `context` messages among its `match` ones.
        &["--json", "-C1", "needle"],
        &["--json", "-B3", "struct s\\d*7 "],
        &["--json", "-N", "-A2", "^z"],
        &["--json", "--stats", "-C40", "struct s1\\d\\d "],
        &["--json", "-C1", "x*"],
        &["--json", "-C2", "absent"],
        &["--json", "-n", "-A200", "struct s4\\d\\d "],
    ];
    let dir = Dir::new("bigfile_context", Engine::Cpu);
    dir.create_bytes("big.txt", &text(6000));
    same_as_searcher(&dir, "big.txt", cases);
    mixed_and_one_line_as_the_searcher("bigfile_context_mixed", cases);
    // Several files on one thread: ripgrep's printer writes the separator
    // between them, so they go through it.
    dir.create_bytes("other.txt", &text(2000));
    let files: &[&[&str]] = &[
        &["--sort", "path", "-n", "-C1", "struct", "other.txt"],
        &["-j1", "-A1", "struct", "other.txt"],
        &["--sort", "path", "-B1", "needle$", "."],
    ];
    same_as_searcher(&dir, "big.txt", files);
}

/// A match on a line opening with continuation bytes, which `-w` sees only
/// with the `\n` before it in view (`regression::mid_character_line`):
/// the after-context look back from the next segment decides it as the
/// whole file's search does (it searched from that line and lost the
/// match, so a separator went between its context and the next match).
#[test]
fn context_after_a_line_opening_with_continuation_bytes() {
    let dir = Dir::new("bigfile_context_mid", Engine::Cpu);
    let block: &[u8] = b"xyz qq\n\xa5a$\nxyz qq\nzz b\nq\xc3\nxyz\n";
    dir.create_bytes("mid.txt", &block.repeat(50));
    let cases: &[&[&str]] = &[
        &["-A1", "-w", "(?i)[ab]"],
        &["-n", "-A2", "-w", "(?i)[ab]"],
        &["-n", "-B1", "-A1", "-w", "(?i)[ab]"],
    ];
    same_as_searcher(&dir, "mid.txt", cases);
}

/// A file that starts with a byte-order mark, which ripgrep's searcher
/// strips: searched the usual way (PCRE2's lines, fed at the map's
/// offsets, once gave `--json` a line that does not match).
#[test]
fn a_byte_order_mark_gives_ripgreps_answer() {
    let dir = Dir::new("bigfile_bom", Engine::Cpu);
    let mut data = b"\xEF\xBB\xBF\nlet x\n\tindented needle\n".to_vec();
    data.extend_from_slice(&text(3000));
    dir.create_bytes("bom.txt", &data);
    let cases: &[&[&str]] = &[
        &["-P", "--json", "^\\s+"],
        &["-P", "-n", "^\\s+"],
        &["-n", "needle"],
        &["-c", "needle"],
        &["-o", "-b", "needle"],
    ];
    same_as_searcher(&dir, "bom.txt", cases);
}

/// Several big files given by name, searched in parallel: each by every
/// core, its output gathered in its walker thread's buffer (the files come
/// in either order, so their lines are compared sorted), and `--stats`
/// says so.
#[test]
fn big_files_searched_in_parallel_equal_the_searcher() {
    let dir = Dir::new("bigfile_parallel", Engine::Cpu);
    dir.create_bytes("a.txt", &text(4000));
    dir.create_bytes("b.txt", &mixed_lines());
    let cases: &[&[&str]] = &[
        &["-n", "needle"],
        &["-c", "e"],
        &["-C1", "struct"],
        &["--color=always", "--heading", "-n", "needle\\w*"],
    ];
    let env = [
        ("GSEARCH_BIGFILE_MIN_BYTES", "1"),
        ("GSEARCH_SEGMENT", "97"),
    ];
    let sorted = |out: Vec<u8>| crate::util::sort_lines(&String::from_utf8_lossy(&out));
    for args in cases {
        let args = [args, &["a.txt", "b.txt"][..]].concat();
        let (want, got) = (
            run(&dir, None, REFERENCE, &args),
            run(&dir, None, &env, &args),
        );
        assert_eq!(sorted(want.0), sorted(got.0), "{args:?}");
        assert_eq!(want.1, got.1, "{args:?}: exit");
    }
    let (stats, _) = run(&dir, None, &env, &["--stats", "-c", "e", "a.txt", "b.txt"]);
    let stats = String::from_utf8_lossy(&stats);
    assert!(stats.contains("2 big files"), "{stats}");
}

/// Every case over [`mixed_lines`] and over a file of one line without a
/// terminator, against the reference.
fn mixed_and_one_line_as_the_searcher(name: &str, cases: &[&[&str]]) {
    let dir = Dir::new(name, Engine::Cpu);
    dir.create_bytes("mixed.txt", &mixed_lines());
    dir.create_bytes("one.txt", b"one needle");
    same_as_searcher(&dir, "mixed.txt", cases);
    same_as_searcher(&dir, "one.txt", cases);
}

/// Lines that ripgrep's printers write as escaped text or base64 (not
/// UTF-8), with carriage returns, control bytes and empty lines, the last
/// without a terminator.
fn mixed_lines() -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..3000 {
        data.extend_from_slice(match i % 7 {
            0 => "caf\u{e9} needle \"quoted\" back\\slash\ttab\n".as_bytes(),
            1 => b"bad \xff\xfe needle bytes\n",
            2 => b"\n",
            3 => b"needle needle\x01ctrl\x1b\n",
            4 => b"crlf needle\r\n",
            5 => "\u{2603} needle \u{1F600}\n".as_bytes(),
            _ => b"plain\n",
        });
    }
    data.extend_from_slice(b"last needle without newline");
    data
}

/// PCRE2 (`-P`): each line decided alone, without its terminator, as
/// ripgrep's searcher decides with a matcher that names none, so
/// look-behind never sees the line before (`(?<=\n)`, `(?<=^)`), and
/// match bounds from the whole map as ripgrep's printer takes them.
#[test]
fn pcre2_lines_equal_the_searcher() {
    let dir = Dir::new("bigfile_pcre2", Engine::Cpu);
    dir.create_bytes("big.txt", &text(6000));
    same_as_searcher(
        &dir,
        "big.txt",
        &[
            &["-P", "-n", "(?<=the )needle"],
            &["-P", "-c", r"(\w)\1"],
            &["-P", "-n", "-o", r"(?<=s)(\d)\d*"],
            &["-P", "--count-matches", "needle(?!s)"],
            &["-P", "-c", r"(?<=\n)needle"],
            &["-P", "-n", "^(?!.*e).*$"],
            &["-P", "-n", "-w", "-C1", "needle(?=d)"],
            &["-P", "-v", "-c", "z(?=z)"],
            &["-P", "-n", "--column", "-r", "<$1>", r"(e)(?=\s)"],
            // Colors, `-o`, columns, `--json` and context: the matches in
            // a line found with the lines before it in view, as ripgrep's
            // printer finds them in the map.
            &["-P", "--color=always", "-n", "(?<=the )needle"],
            &["-P", "-o", "-b", r"(?<=\s)needle\w*"],
            &["-P", "-o", r"(?<=\n)\w+|needle"],
            &["-P", "--column", "--color=always", r"(?<=\n)\w|needles"],
            &["-P", "--json", "(?<=the )needle"],
            &["-P", "--json", "-C1", "needle(?=d)"],
            &["-P", "-n", "-C2", r"(\w)\1"],
            &["-P", "-n", "-B1", "--color=always", r"(?<![a-z])needle"],
        ],
    );
    // The split path ran (it hands a file back to the searcher, the
    // reference, on a match error).
    let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1")];
    let (out, _) = run(
        &dir,
        None,
        &env,
        &["--stats", "-P", "-c", "needle(?!s)", "big.txt"],
    );
    let out = String::from_utf8_lossy(&out);
    assert!(
        out.contains("1 big file (4 MiB or more) searched by"),
        "{out}"
    );
}

/// A PCRE2 match error in the middle of a big file: the lines before it,
/// ripgrep's message and exit code 2, as the searcher gives them, whether
/// the streamed output had written some lines (`-n`), none (`-c`), ripgrep's
/// searcher met the error while printing (`-o`, `-H`, `-B2`...) or the
/// collected path ran (`-C1`).
#[test]
fn a_pcre2_match_error_midway_gives_ripgreps_answer() {
    let dir = Dir::new("bigfile_pcre2_error", Engine::Cpu);
    let body = text(6000);
    let cut = body[150_000..].iter().position(|&b| b == b'\n').unwrap() + 150_001;
    let mut data = body[..cut].to_vec();
    // Backtracking on this line exceeds PCRE2's match limit.
    data.extend_from_slice(&[b'a'; 200_000]);
    data.push(b'\n');
    data.extend_from_slice(&body[cut..]);
    dir.create_bytes("big.txt", &data);
    let pattern = "(?:a|aa)*b|needle";
    let rg = std::env::var("GSEARCH_TEST_RG").ok();
    let forms: [&[&str]; 10] = [
        &["-n"],
        &["-c"],
        &["--count-matches"],
        &["-n", "-C1"],
        &["-o"],
        &["-H"],
        &["-B2", "--column"],
        &["--color", "always", "-b"],
        &["--json"],
        &["--json", "-A1"],
    ];
    for form in forms {
        let args: Vec<&str> = [form, &["-P", pattern, "big.txt"]].concat();
        let want = output(&dir, None, REFERENCE, &args);
        let message = "big.txt: PCRE2: error matching: match limit exceeded\n";
        assert!(
            String::from_utf8_lossy(&want.stderr).ends_with(message),
            "{want:?}"
        );
        assert_eq!(want.status.code(), Some(2));
        let masked = |out: &[u8]| match form.contains(&"--json") {
            true => crate::json::normalize(&String::from_utf8_lossy(out)).into_bytes(),
            false => out.to_vec(),
        };
        let want_out = masked(&want.stdout);
        if let Some(rg) = rg.as_deref() {
            let got = output(&dir, Some(rg), &[], &args);
            assert_eq!(masked(&got.stdout), want_out, "{args:?}");
        }
        for seg in ["1", "4096", "100000"] {
            let env = [
                ("GSEARCH_BIGFILE_MIN_BYTES", "1"),
                ("GSEARCH_SEGMENT", seg),
                ("GSEARCH_TRACE", "1"),
            ];
            let got = output(&dir, None, &env, &args);
            let what = format!("{args:?} segment {seg}");
            crate::util::assert_eq_nice(&want_out, &masked(&got.stdout), &what);
            assert_eq!(want.status.code(), got.status.code(), "{what}");
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(err.contains(message), "{what}: {err}");
            if form == ["-n"] {
                // Streamed up to the error, not searched again from the top.
                assert!(
                    err.contains("big file: first output written"),
                    "{what}: {err}"
                );
            }
        }
    }
}

/// A NUL past the 64 KiB that ripgrep's searcher probes: in a matching
/// line (ripgrep stops there with its message), in a line that does not
/// match (nothing changes), and in the first 64 KiB.
#[test]
fn a_nul_anywhere_gives_ripgreps_answer() {
    let dir = Dir::new("bigfile_nul", Engine::Cpu);
    let body = text(5000);
    let cut = body[200_000..].iter().position(|&b| b == b'\n').unwrap() + 200_001;
    for (name, insert, at) in [
        ("late-match.txt", &b"a needle \x00 here\n"[..], cut),
        ("late-plain.txt", &b"nothing \x00 here\n"[..], cut),
        ("early.txt", &b"needle \x00\n"[..], 0),
    ] {
        let mut data = body[..at].to_vec();
        data.extend_from_slice(insert);
        data.extend_from_slice(&body[at..]);
        dir.create_bytes(name, &data);
        same_as_searcher(
            &dir,
            name,
            &[
                &["-n", "needle"],
                &["-c", "needle"],
                &["-c", "-v", "needle"],
                &["-v", "needle"],
                &["-v", "-n", "here"],
                &["-n", "e"],
                &["needle"],
                &["-o", "-b", "needle"],
                &["-C1", "e"],
                &["-n", "-C2", "needle"],
                &["-A3", "struct"],
                &["-B2", "-n", "struct"],
                &["--json", "needle"],
                &["--json", "-C1", "needle"],
                // Colors before the handover count in the bytes it skips
                // (`Skip`); after it, ripgrep's printer colors the lines.
                &["--color=always", "-n", "needle"],
                &["--color=always", "-v", "-n", "here"],
                &["--color=always", "-C1", "-b", "e"],
                &["--color=always", "-c", "-H", "needle"],
            ],
        );
    }
    // Files a walk finds (binary detection that quits), mapped with
    // `--mmap`: any NUL hands the search to ripgrep's searcher.
    same_as_searcher(
        &dir,
        ".",
        &[
            &["--mmap", "--sort", "path", "-n", "needle"],
            &["--mmap", "--sort", "path", "-c", "needle"],
            &["--mmap", "--sort", "path", "needle"],
            &["--mmap", "--sort", "path", "-v", "-n", "needle"],
            &["--mmap", "--sort", "path", "-o", "-C1", "needle"],
            &["--mmap", "--sort", "path", "--json", "needle"],
        ],
    );
}

/// `gsearch -n PATTERN BIG | head -1`, and the same printed by ripgrep's
/// searcher (no `-n`, `-o`), and `--json`: once the reader has gone, the
/// search stops (its threads at their next block, the writer before its
/// next write), quietly, with ripgrep's exit status.
#[test]
fn a_closed_pipe_ends_the_search_quietly() {
    let dir = Dir::new("bigfile_pipe", Engine::Cpu);
    let mut data = Vec::new();
    while data.len() < 8 << 20 {
        data.extend_from_slice(&text(3000));
        data.push(b'\n');
    }
    dir.create_bytes("big.txt", &data);
    let forms = [
        ("-n", &b"1:"[..]),
        ("-H", b"big.txt:"),
        ("-o", b"e\n"),
        ("--json", b"{\"type\":\"begin\""),
    ];
    for (form, first_line) in forms {
        let status = stops_at_a_closed_pipe(&dir, &[form, "e", "big.txt"], first_line);
        // ripgrep 15 exits with 1 here too (`rg -n e BIG | head -1`).
        assert_eq!(status.code(), Some(1), "{form}: {status:?}");
    }
    // Two big files, searched in parallel: quietly too (the exit status
    // depends on which file's output came first, as with ripgrep).
    dir.create_bytes("big2.txt", &data);
    let args = ["-H", "-n", "e", "big.txt", "big2.txt"];
    let status = stops_at_a_closed_pipe(&dir, &args, b"big");
    assert!(matches!(status.code(), Some(0 | 1)), "{status:?}");
}

/// `gsearch ARGS`, its first line read and its stdout closed: nothing on
/// stderr; the exit status.
fn stops_at_a_closed_pipe(dir: &Dir, args: &[&str], first_line: &[u8]) -> ExitStatus {
    let form = args.join(" ");
    let mut cmd = dir.command();
    cmd.raw()
        .env("GSEARCH_BIGFILE_MIN_BYTES", "1")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.raw().spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let first = crate::util::read_line(&mut stdout);
    assert!(
        first.starts_with(first_line),
        "{form}: {}",
        String::from_utf8_lossy(&first)
    );
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(stderr, "", "{form}");
    status
}

/// One literal that decides lines alone (`pipeline/literal.rs`: counted
/// and found with memchr, no regex): matches in the very first and last
/// bytes, no final newline, CRLF lines, repeated and overlapping
/// occurrences (`ee` in `eee`), lines and matches crossing segment
/// boundaries; `-v`, `-i`, `-w` and `--crlf` (which take the regex) beside
/// them.
#[test]
fn one_literal_counts_and_lines_equal_the_searcher() {
    let dir = Dir::new("bigfile_literal", Engine::Cpu);
    let mut lf = b"eee start\n".to_vec();
    lf.extend_from_slice(&text(4000));
    lf.extend_from_slice(b"\nstruct eee");
    let crlf: Vec<u8> = lf
        .split(|&b| b == b'\n')
        .collect::<Vec<_>>()
        .join(&b"\r\n"[..]);
    dir.create_bytes("lf.txt", &lf);
    dir.create_bytes("crlf.txt", &crlf);
    for file in ["lf.txt", "crlf.txt"] {
        same_as_searcher(
            &dir,
            file,
            &[
                &["-c", "e"],
                &["--count-matches", "e"],
                &["--count-matches", "ee"],
                &["-c", "ee"],
                &["-c", "struct"],
                &["--count-matches", "-H", "struct"],
                &["-n", "e"],
                &["-n", "ee"],
                &["-n", "eee"],
                &["-n", "struct"],
                &["-c", "-F", "e\r"],
                &["-v", "-c", "e"],
                &["-v", "-n", "struct"],
                &["-i", "-c", "E"],
                &["-i", "--count-matches", "E"],
                &["-w", "-c", "e"],
                &["--crlf", "-n", "eee$"],
                &["--count-matches", "absent"],
            ],
        );
    }
}

/// `-j1` keeps one big file on one thread, as ripgrep's `-j` bounds its
/// threads: the file is not split (no "big file mapped" in the trace),
/// and the answer is the same.
#[test]
fn one_thread_given_keeps_the_file_whole() {
    let dir = Dir::new("bigfile_j1", Engine::Cpu);
    dir.create_bytes("big.txt", &text(3000));
    let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1"), ("GSEARCH_TRACE", "1")];
    let args = ["-n", "needle", "big.txt"];
    let split = output(&dir, None, &env, &args);
    let one = output(&dir, None, &env, &[&["-j1"][..], &args].concat());
    assert_eq!(split.stdout, one.stdout);
    let mapped =
        |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).contains("big file mapped");
    assert!(!mapped(&one), "{}", String::from_utf8_lossy(&one.stderr));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 1 {
        assert!(mapped(&split), "{}", String::from_utf8_lossy(&split.stderr));
    }
}

/// Big files a walk finds, which ripgrep reads rather than maps: split
/// over the cores where the reads answer as the map does, and searched the
/// usual way where they may not: a NUL anywhere (a read quits at the
/// buffer that holds it; a NUL in a matching line, in another line, in the
/// first bytes), a line opening with continuation bytes under `-w`. In a
/// parallel walk (each file's output in its thread's buffer, dropped when
/// the split search meets a NUL; lines compared sorted), with `--sort path`
/// (one walker thread writing to stdout: the file is scanned before its
/// first line is written), and more than ten files given by name. `-l`,
/// `-L`, `-q` and `-m` of a file a parallel walk finds alone: split where
/// no NUL comes before the line where the reads stop (`after-stop`), not
/// where one does (`nul-first`, `nul-in-match`).
#[test]
fn files_a_walk_finds_answer_as_ripgrep_reads_them() {
    let dir = Dir::new("bigfile_walked", Engine::Cpu);
    let body = text(4000);
    let cut = body[150_000..].iter().position(|&b| b == b'\n').unwrap() + 150_001;
    let with = |insert: &[u8], at: usize| [&body[..at], insert, &body[at..]].concat();
    // Each file in `t/`, and alone in a directory of its own (`one/NAME`):
    // a walk splits one file at a time, whichever comes first.
    let put = |name: &str, bytes: &[u8]| {
        dir.create_bytes(format!("t/{name}.txt"), bytes);
        dir.create_bytes(format!("one/{name}/{name}.txt"), bytes);
    };
    put("clean", &body);
    put("late-match", &with(b"a needle \x00 here\n", cut));
    put("late-plain", &with(b"nothing \x00 here\n", cut));
    put("early", &with(b"needle \x00\n", 0));
    put(
        "mid",
        &b"xyz qq\n\xa5a$\nxyz qq\nzz b\nq\xc3\nxyz\n".repeat(50),
    );
    // Reads that begin a buffer at such a line answer differently here.
    put("mid-read", &b"q\xc3\n\xa5a$\n".repeat(30_000));
    dir.create_bytes("t/small.txt", b"a needle\n");
    // A NUL after the first match: reads that stop there never meet it.
    let deep = body[100_000..].iter().position(|&b| b == b'\n').unwrap() + 100_001;
    // (`quokka`, unlike `needle`, is rare: the search of `-l`, `-q`, `-L`
    // and `-m` is not over within the file's first KiBs.)
    let after = [
        &body[..deep],
        b"one quokka\n",
        &body[deep..cut],
        b"x \x00\n",
        &body[cut..],
    ];
    put("after-stop", &after.concat());
    // A NUL before the first match: reads stop before they reach it.
    put(
        "nul-first",
        &[&with(b"x \x00\n", cut)[..], b"\none quokka\n"].concat(),
    );
    put("nul-in-match", &with(b"a quokka \x00 here\n", cut));
    let cases: &[&[&str]] = &[
        &["-n", "needle"],
        &["-c", "needle"],
        &["--count-matches", "e"],
        &["needle"],
        &["-v", "-n", "here"],
        &["-o", "-b", "needle"],
        &["-C1", "e"],
        &["--json", "needle"],
        &["--color=always", "-n", "needle"],
        &["-l", "needle"],
        &["-l", "quokka"],
        &["-L", "quokka"],
        &["-q", "quokka"],
        &["-c", "-m1", "quokka"],
        &["-m1", "-B1", "quokka"],
        &["-m1", "-A1", "quokka"],
        &["-w", "-l", "(?i)[ab]"],
        &["-m2", "-n", "needle"],
        &["-m2", "-n", "quokka"],
        &["-w", "-n", "(?i)[ab]"],
        &["-w", "-c", "(?i)[ab]"],
    ];
    let files: Vec<String> = (0..11).map(|i| format!("n/f{i}.txt")).collect();
    for (i, f) in files.iter().enumerate() {
        match i {
            3 => dir.create_bytes(f, &with(b"needle \x00\n", cut)),
            _ => dir.create_bytes(f, &body),
        }
    }
    let named: Vec<&str> = files.iter().map(String::as_str).collect();
    let sorted = |out: Vec<u8>| crate::util::sort_lines(&String::from_utf8_lossy(&out));
    let rg = std::env::var("GSEARCH_TEST_RG").ok();
    let solo = [
        "late-match",
        "mid-read",
        "after-stop",
        "nul-first",
        "nul-in-match",
    ];
    let solo = solo.map(|n| format!("one/{n}"));
    let mut walks: Vec<(&[&str], Vec<&str>)> = vec![
        (&[], vec!["t"]),
        (&["--sort", "path"], vec!["t"]),
        (&[], named),
    ];
    walks.extend(solo.iter().map(|d| (&[][..], vec![d.as_str()])));
    for args in cases {
        for (walk, paths) in &walks {
            let args = [walk, args, &paths[..]].concat();
            let want = run_masked(&dir, None, REFERENCE, &args);
            if let Some(rg) = rg.as_deref() {
                let theirs = run_masked(&dir, Some(rg), &[], &args);
                assert_eq!(
                    sorted(theirs.0),
                    sorted(want.0.clone()),
                    "ripgrep: {args:?}"
                );
            }
            for seg in ["97", "100000"] {
                let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1"), ("GSEARCH_SEGMENT", seg)];
                let got = run_masked(&dir, None, &env, &args);
                match walk.is_empty() {
                    true => assert_eq!(sorted(want.0.clone()), sorted(got.0), "{args:?} {seg}"),
                    false => crate::util::assert_eq_nice(&want.0, &got.0, &format!("{args:?}")),
                }
                assert_eq!(want.1, got.1, "{args:?} segment {seg}: exit");
            }
        }
    }
    // The four files that read as mapped were split (one walker thread: in
    // a parallel walk, one such file at a time is, whichever comes first);
    // none with --no-mmap.
    let env = [("GSEARCH_BIGFILE_MIN_BYTES", "1")];
    let stats = |extra: &[&str]| {
        let args = [
            &["--stats", "--sort", "path", "-c", "needle"][..],
            extra,
            &["t"],
        ]
        .concat();
        String::from_utf8(run(&dir, None, &env, &args).0).unwrap()
    };
    // `-l` of a file a walk found: split when no NUL comes before the
    // line where the reads stop.
    let listed = |d: &str| {
        let args = ["--stats", "-l", "quokka", d];
        String::from_utf8(run(&dir, None, &env, &args).0).unwrap()
    };
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(stats(&[]).contains("4 big files"), "{}", stats(&[]));
        let after = listed("one/after-stop");
        assert!(after.contains("1 big file "), "{after}");
    }
    let first = listed("one/nul-first");
    assert!(!first.contains("big file"), "{first}");
    assert!(
        !stats(&["--no-mmap"]).contains("big file"),
        "{}",
        stats(&["--no-mmap"])
    );
}
