//! Cases that pin edges where a batched or GPU engine could go wrong:
//! matches at file and batch edges, files packed together, literals that
//! need verification (case folding, -w, -x), many patterns.

use crate::util::{Dir, TestCommand};

// Files packed into one batch must not let a match span two files: "ab"
// at the end of one file and "cd" at the start of the next.
gstest!(
    no_match_across_packed_files,
    |dir: Dir, cmd: TestCommand| {
        for i in 0..50 {
            dir.create(format!("f{i:02}.txt"), "xx ab");
            dir.create(format!("g{i:02}.txt"), "cd yy");
        }
        cmd.small_batches().args(["abcd"]).assert_no_match();
        let mut cmd = dir.command();
        cmd.small_batches().args(["ab\\s*cd"]).assert_no_match();
    }
);

// A match at the very start and very end of each of many files.
gstest!(match_at_file_edges, |dir: Dir, cmd: TestCommand| {
    let mut expected = String::new();
    for i in 0..60 {
        let name = format!("f{i:02}.txt");
        dir.create(&name, "edge middle\nmiddle edge");
        expected.push_str(&format!("{name}:0:edge\n{name}:19:edge\n"));
    }
    cmd.small_batches()
        .args(["-b", "-o", "--sort", "path", "edge"]);
    eqnice!(expected, cmd.stdout());
});

// Empty files between non-empty ones in a batch.
gstest!(empty_files_in_batch, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "");
    dir.create("b.txt", "fox");
    dir.create("c.txt", "");
    dir.create("d.txt", "\n");
    dir.create("e.txt", "fox\n");
    cmd.small_batches()
        .args(["-c", "--include-zero", "--sort", "path", "fox"]);
    eqnice!(
        "a.txt:0\nb.txt:1\nc.txt:0\nd.txt:0\ne.txt:1\n",
        cmd.stdout()
    );
});

// Line numbers stay right across batch boundaries in a large file.
gstest!(line_numbers_across_batches, |dir: Dir, cmd: TestCommand| {
    let mut text = String::new();
    let mut expected = String::new();
    for i in 1..=3000 {
        if i % 499 == 0 {
            text.push_str("needle\n");
            expected.push_str(&format!("{i}:needle\n"));
        } else {
            text.push_str(&format!("{}\n", "z".repeat(i % 37)));
        }
    }
    dir.create("big.txt", &text);
    cmd.small_batches().args(["-n", "needle", "big.txt"]);
    eqnice!(expected, cmd.stdout());
});

// Candidates that fail verification: "-w fox" finds "fox" inside "foxes"
// many times before the one standalone occurrence.
gstest!(word_candidates_rejected, |dir: Dir, cmd: TestCommand| {
    let mut text = "foxes ".repeat(2000);
    text.push_str("\nfoxy\n");
    text.push_str(&"afox ".repeat(1000));
    text.push_str("\nthe fox\n");
    dir.create("big.txt", &text);
    cmd.small_batches().args(["-n", "-w", "fox", "big.txt"]);
    eqnice!("4:the fox\n", cmd.stdout());
});

// Non-ASCII case folding through the literal path: -F -i on Cyrillic and
// Greek literals.
gstest!(
    fixed_strings_unicode_ignore_case,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "ДОМ\nдом\nДом\nΣΟΦΟΣ\nσοφος\nσοφοσ\n");
        cmd.small_batches()
            .args(["-F", "-i", "-c", "-e", "дом", "-e", "σοφος", "a.txt"]);
        eqnice!("6\n", cmd.stdout());
    }
);

// Case folding where the folded forms differ in byte length: K (Kelvin
// sign, 3 bytes) vs k; ſ (2 bytes) vs s.
gstest!(
    ignore_case_byte_length_change,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "\u{212A}\u{212A}\nKk\nſs\nSS\n");
        cmd.args(["-i", "-o", "-e", "kk", "-e", "ss", "a.txt"]);
        eqnice!("\u{212A}\u{212A}\nKk\nſs\nSS\n", cmd.stdout());
    }
);

// Many literals (hundreds) from a pattern file, searched in many files.
gstest!(many_literals_many_files, |dir: Dir, cmd: TestCommand| {
    let pats: String = (0..500).map(|i| format!("id-{i:04}\n")).collect();
    dir.create("pats", &pats);
    let mut expected = String::new();
    for f in 0..20 {
        let mut text = String::new();
        for l in 0..50 {
            let n = f * 50 + l;
            text.push_str(&format!("row {n} id-{n:04} end\n"));
            if n < 500 {
                expected.push_str(&format!("f{f:02}.txt:{}\n", l + 1));
            }
        }
        dir.create(format!("d/f{f:02}.txt"), &text);
    }
    cmd.small_batches()
        .args(["-F", "-f", "pats", "-n", "-o", "--sort", "path", "d"]);
    let expected: String = expected
        .lines()
        .map(|l| {
            let (file, line) = l.split_once(':').unwrap();
            let n: usize =
                file[1..3].parse::<usize>().unwrap() * 50 + line.parse::<usize>().unwrap() - 1;
            format!("d/{file}:{line}:id-{n:04}\n")
        })
        .collect();
    eqnice!(expected, cmd.stdout());
});

// A pattern that is a prefix of another, both in the set: each line is
// reported once.
gstest!(prefix_patterns_line_once, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foobar\nfoo\nbar\n");
    cmd.args(["-n", "-F", "-e", "foo", "-e", "foobar", "a.txt"]);
    eqnice!("1:foobar\n2:foo\n", cmd.stdout());
});

// A regex with a required literal whose candidates mostly fail the full
// regex.
gstest!(
    regex_with_literal_candidates,
    |dir: Dir, cmd: TestCommand| {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!(
                "key=value{}\n",
                if i == 1234 { "42" } else { "x" }
            ));
        }
        dir.create("big.txt", &text);
        cmd.small_batches()
            .args(["-n", r"key=value\d+$", "big.txt"]);
        eqnice!("1235:key=value42\n", cmd.stdout());
    }
);

// A regex with no usable literal at all.
gstest!(regex_without_literal, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "abc 123\nxyz\n4\n");
    cmd.small_batches().args(["-n", r"\d+", "a.txt"]);
    eqnice!("1:abc 123\n3:4\n", cmd.stdout());
});

// A file that does not end in a newline, followed (in the same batch) by
// another: the last line of the first must not run into the second.
gstest!(
    last_line_without_newline_then_file,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "one\nfox");
        dir.create("b.txt", "es\nfoxes\n");
        cmd.small_batches()
            .args(["-x", "-n", "--sort", "path", "fox|foxes"]);
        eqnice!("a.txt:2:fox\nb.txt:2:foxes\n", cmd.stdout());
    }
);

// -c with a file whose matches all sit on one huge line.
gstest!(many_matches_one_line, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", &("ab".repeat(10000) + "\n"));
    cmd.small_batches().args(["-c", "ab", "a.txt"]);
    eqnice!("1\n", cmd.stdout());
    let mut cmd = dir.command();
    cmd.small_batches().args(["--count-matches", "ab", "a.txt"]);
    eqnice!("10000\n", cmd.stdout());
});

/// Lines for [`word_after_a_line_not_reported`]: the `i`-th line, and
/// whether `-w '(?i)[ab]'` matches it given whether the line before it
/// matched (`None` for the first line).
fn mid_character_line(i: usize, prev: Option<bool>) -> (&'static [u8], bool) {
    // Context (the `\n` before) makes a word start after continuation
    // bytes; ripgrep's searcher sees it only after a line it did not
    // report.
    let context = prev == Some(false);
    match (i * 7 + i / 5) % 6 {
        0 => (b"zz b\n", true),
        1 => (b"\xa5a$\n", context),
        2 => (b"xyz qq\n", false),
        3 => (b"\xa5\xa5a end\n", context),
        4 => (b"\xa5 b\n", true),
        _ => (b"q\xc3\n", false),
    }
}

// A line opening with UTF-8 continuation bytes: `-w`'s Unicode half word
// boundary sees a word start after them only when ripgrep's searcher has
// the `\n` before the line in view, i.e. after a line it did not report.
// Every engine must answer so, however batches, chunks and segments cut
// the file (the device path confirmed such lines alone and lost them).
gstest!(
    word_after_a_line_not_reported,
    |dir: Dir, _cmd: TestCommand| {
        words_after_lines_not_reported(&dir, &["-w", "(?i)[ab]"]);
    }
);

// The same with a rule set whose alternation has no inner literals for
// grep-regex's fast line regex (`[a-z]+\d`): ripgrep's searcher then
// searches on from the last line it examined, as for one regex, so the
// rule set decides such lines with the `\n` before them in view too (it
// decided each line alone, and lost them).
gstest!(
    rule_set_word_after_a_line_not_reported,
    |dir: Dir, _cmd: TestCommand| {
        let rules = ["-w", "-e", "(?i)[ab]", "-e", "[a-z]+\\d", "-e", "q[0-9]+x"];
        words_after_lines_not_reported(&dir, &rules);
    }
);

// A rule set whose alternation has a fast line regex (every rule holds a
// literal): ripgrep confirms each candidate line alone, and so does the
// rule set. With `[a-z]+\d` in place of `foo\d` it sees the `\n`.
gstest!(
    rule_set_lines_alone_with_a_fast_line_regex,
    |dir: Dir, cmd: TestCommand| {
        dir.create_bytes("w.txt", b"zzz\n\x80walking\n");
        let rules =
            |r: &str| ["-w", "-e", "walking", "-e", r, "-e", "q[0-9]+x", "w.txt"].map(String::from);
        let mut cmd = cmd;
        cmd.small_batches().args(rules("foo\\d"));
        cmd.expect_code(1);
        let mut seen = dir.command();
        seen.small_batches().args(rules("[a-z]+\\d"));
        assert_eq!(seen.expect_code(0).stdout, b"\x80walking\n");
    }
);

// A rule whose unit answers `Candidate` (its own fast line regex) must not
// make the search start again after a line it did not report: ripgrep's
// alternation answers `Confirmed` and searches on, so the next line keeps
// the `\n` before it in view. Found by random runs against ripgrep 15.
gstest!(
    rule_set_searches_on_past_a_candidate_line,
    |dir: Dir, cmd: TestCommand| {
        dir.create_bytes("f", b"\n\xa3x\n");
        dir.create_bytes("g", b"\x80a\n\x8afoo\n");
        dir.create("p1", "x\ny\n(foo|bar)\n");
        dir.create("p2", "foo\n\\[\nb\na\n");
        let mut cmd = cmd;
        cmd.small_batches().args(["-w", "-f", "p1", "f"]);
        assert_eq!(cmd.expect_code(0).stdout, b"\xa3x\n");
        for (flag, want) in [
            ("-n", &b"2:\x8afoo\n"[..]),
            ("-o", b"foo\n"),
            ("-c", b"1\n"),
        ] {
            let mut c = dir.command();
            c.small_batches().args(["-w", flag, "-f", "p2", "g"]);
            assert_eq!(c.expect_code(0).stdout, want, "{flag}");
        }
    }
);

// Patterns keep the order of their flags across `-e` and `-f`, as in
// ripgrep: at one start the first pattern's match wins (`-o`). gsearch put
// every `-e` pattern first.
gstest!(
    patterns_keep_the_order_of_e_and_f,
    |dir: Dir, cmd: TestCommand| {
        dir.create("t", "ab\n");
        dir.create("a", "a\n");
        dir.create("ab", "ab\n");
        let cases: [(&[&str], &str); 4] = [
            (&["-f", "a", "-e", "ab"], "a\n"),
            (&["-e", "ab", "-f", "a"], "ab\n"),
            (&["-f", "ab", "-e", "a", "-f", "a"], "ab\n"),
            (&["-e", "a", "-f", "ab"], "a\n"),
        ];
        drop(cmd);
        for (args, want) in cases {
            let mut c = dir.command();
            c.small_batches().arg("-o").args(args).arg("t");
            eqnice!(want, c.stdout(), "{args:?}");
        }
    }
);

/// [`word_after_a_line_not_reported`] with the patterns `pats` (which must
/// match as `-w '(?i)[ab]'` does on [`mid_character_line`]'s lines).
fn words_after_lines_not_reported(dir: &Dir, pats: &[&str]) {
    let (mut text, mut want_n, mut prev) = (Vec::new(), Vec::new(), None);
    for i in 0..6000 {
        let (line, matched) = mid_character_line(i, prev);
        text.extend_from_slice(line);
        if matched {
            want_n.extend_from_slice(format!("{}:", i + 1).as_bytes());
            want_n.extend_from_slice(line);
        }
        prev = Some(matched);
    }
    dir.create_bytes("t.txt", &text);
    let count = want_n.iter().filter(|&&b| b == b'\n').count();
    let hybrid = [
        ("GSEARCH_ENGINE", "auto"),
        ("GSEARCH_AUTO_MIN_BYTES", "1"),
        ("GSEARCH_DEVICE_STARTUP_MS", "0"),
        ("GSEARCH_HYBRID_CHUNK", "4096"),
        ("GSEARCH_BIGFILE_MIN_BYTES", "1"),
    ];
    let mut runs: Vec<Vec<(&str, &str)>> = vec![
        vec![],
        vec![
            ("GSEARCH_BIGFILE_MIN_BYTES", "1"),
            ("GSEARCH_SEGMENT", "97"),
        ],
    ];
    if dir.engine() == crate::util::Engine::OpenCl {
        runs.push(hybrid.to_vec());
    }
    for env in runs {
        for (flag, want) in [
            ("-n", want_n.clone()),
            ("-c", format!("{count}\n").into_bytes()),
        ] {
            let mut c = dir.command();
            let args: Vec<&str> = [flag]
                .iter()
                .chain(pats)
                .chain(&["t.txt"])
                .copied()
                .collect();
            c.small_batches().args(&args);
            for (k, v) in &env {
                c.raw().env(k, v);
            }
            let got = c.expect_code(0).stdout;
            crate::util::assert_eq_nice(&want, &got, &format!("{args:?} {env:?}"));
        }
    }
}

// Found by random runs against ripgrep 15 (each was wrong on every engine).

// A rule set whose units each search the window: an empty match after
// the last line terminator of a window cut at an earlier unit's line
// (`^$`) took that line's place (16 one-letter rules fill a unit).
gstest!(
    rule_units_empty_match_past_the_window,
    |dir: Dir, cmd: TestCommand| {
        let letters: String = ('a'..='p').map(|c| format!("{c}\n")).collect();
        dir.create("pats", &format!("{letters}^$\n"));
        dir.create("f.txt", "a\n\nb\np\n");
        cmd.small_batches().args(["-n", "-f", "pats", "f.txt"]);
        eqnice!("1:a\n2:\n3:b\n4:p\n", cmd.stdout());
        dir.create(
            "w",
            "q0\nq1\nq2\nq3\nq4\nq5\nq6\n.\nq8\nq9\nQ\nj\n}\nw\n()+\n^\n",
        );
        dir.create("l.txt", "l\n");
        let mut cmd = dir.command();
        cmd.small_batches().args(["-w", "-f", "w", "l.txt"]);
        eqnice!("l\n", cmd.stdout());
    }
);

// Rule sets are line by line with `\n`: `--crlf`, `--null-data` and `-U`
// take the one regex, and a rule holding a literal `\n` is refused
// without `-U` (the rule set never compiled it: its factor never occurs).
gstest!(
    rule_sets_leave_other_terminators_to_the_regex,
    |dir: Dir, cmd: TestCommand| {
        dir.create("e.txt", "ab\r\nxo\r\n");
        let pats = ["-e", "a", "-e", "b", "-e", "c|d"];
        let mut cmd = cmd;
        cmd.args(["--crlf"]).args(pats).arg("e.txt");
        eqnice!("ab\r\n", cmd.stdout());
        let mut z = dir.command();
        z.args(["--null-data"]).args(pats).arg("e.txt");
        eqnice!("ab\r\nxo\r\n\0", z.stdout());
        dir.create("xy.txt", "x\ny\nq\n");
        let mut u = dir.command();
        u.args(["-U", "-e", r"x\ny", "-e", "a", "-e", "b", "xy.txt"]);
        eqnice!("x\ny\n", u.stdout());
        let mut nl = dir.command();
        nl.args(["-e", "()", "-e", r"o\nb", "-e", "", "xy.txt"]);
        let err = String::from_utf8(nl.expect_code(2).stderr).unwrap();
        assert!(err.contains(r#"the literal "\n" is not allowed"#), "{err}");
    }
);

// `-l` and `--files-without-match` end a path with the searcher's line
// terminator: `\r\n` with `--crlf`.
gstest!(crlf_paths_end_in_crlf, |dir: Dir, cmd: TestCommand| {
    dir.create("d.txt", "d\n");
    let mut cmd = cmd;
    cmd.args(["-l", "--crlf", "d", "d.txt"]);
    eqnice!("d.txt\r\n", cmd.stdout());
    let mut w = dir.command();
    w.args(["--files-without-match", "--crlf", "zzz", "d.txt"]);
    eqnice!("d.txt\r\n", w.stdout());
});

// `-m 0` searches nothing and compiles nothing: a bad pattern is no error.
gstest!(
    max_count_zero_compiles_nothing,
    |dir: Dir, cmd: TestCommand| {
        dir.create("f.txt", "x\n");
        let mut cmd = cmd;
        cmd.args(["-m", "0", "(", "f.txt"]);
        let out = cmd.expect_code(1);
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
    }
);

// `--stop-on-nonmatch` and `-U` override each other: the later wins.
gstest!(
    stop_on_nonmatch_and_multiline_override,
    |dir: Dir, cmd: TestCommand| {
        dir.create("s.txt", "a b\nc\nd e\n");
        let mut cmd = cmd;
        cmd.args(["-U", "--stop-on-nonmatch", r"\w\s\w", "s.txt"]);
        eqnice!("a b\n", cmd.stdout());
        let mut u = dir.command();
        u.args(["--stop-on-nonmatch", "-U", r"\w\s\w", "s.txt"]);
        eqnice!("a b\nc\nd e\n", u.stdout());
    }
);

// An inverted search that stops (`-m` with after context,
// `--stop-on-nonmatch`) answers differently when its file is read than
// when it is mapped; ripgrep reads the files a walk finds.
gstest!(
    inverted_stops_on_read_files,
    |dir: Dir, cmd: TestCommand| {
        dir.create_dir("d");
        dir.create("d/f.txt", "a\nt\nb\n");
        let mut cmd = cmd;
        cmd.args(["-n", "-v", "-A", "2", "-m", "1", "t", "d"]);
        eqnice!("d/f.txt:1:a\nd/f.txt:2:t\nd/f.txt:3:b\n", cmd.stdout());
        let mut m = dir.command();
        m.args(["-n", "-v", "-A", "2", "-m", "1", "t", "d/f.txt"]);
        eqnice!("1:a\n2-t\n3:b\n", m.stdout());
        dir.create("d/f.txt", "a\nx\nb\n");
        let mut s = dir.command();
        s.args(["-n", "-v", "--stop-on-nonmatch", "x", "d"]);
        eqnice!("d/f.txt:1:a\n", s.stdout());
    }
);

// ripgrep reads the files a walk finds (it maps only files named on the
// command line), and its first read is 3 bytes (the byte-order mark
// sniff): a buffer then begins with the line after `x\n`, so `-w` sees no
// word start after its continuation byte. Such a file is read here too.
gstest!(word_after_a_read_boundary, |dir: Dir, cmd: TestCommand| {
    dir.create_dir("d");
    dir.create_bytes("d/w.txt", b"x\n\x80a\n");
    let mut cmd = cmd;
    cmd.small_batches().args(["-w", "ab?c?", "d"]);
    cmd.expect_code(1);
    let mut named = dir.command();
    named.small_batches().args(["-w", "ab?c?", "d/w.txt"]);
    assert_eq!(named.expect_code(0).stdout, b"\x80a\n");
});
