//! PCRE2 (`-P`, `--engine pcre2`, and `--engine auto` for patterns the
//! default engine cannot compile): look-around, backreferences, the
//! matching flags, line terminators, invalid UTF-8, errors and the flags'
//! order. Expected outputs are those of ripgrep 15.2 built with PCRE2
//! (`cargo install ripgrep --features pcre2`).

use crate::util::{Dir, TestCommand, prog};

const WORDS: &str = "foo bar\nfoobar\nbarfoo\nfoo baz\nBAR foo\n";
const PAIRS: &str = "aa bb cd\nxyz\nhello hello world\n";

gstest!(look_behind_and_ahead, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", WORDS);
    cmd.args(["-P", "-n", "(?<=foo)bar", "a.txt"]);
    eqnice!("2:foobar\n", cmd.stdout());
    let mut ahead = dir.command();
    ahead.args(["-P", "-n", "foo(?!bar)", "a.txt"]);
    eqnice!(
        "1:foo bar\n3:barfoo\n4:foo baz\n5:BAR foo\n",
        ahead.stdout()
    );
});

gstest!(backreferences, |dir: Dir, cmd: TestCommand| {
    dir.create("b.txt", PAIRS);
    cmd.args(["-P", "-o", r"(\w)\1", "b.txt"]);
    eqnice!("aa\nbb\nll\nll\n", cmd.stdout());
    let mut words = dir.command();
    words.args(["-P", "-o", r"\b(\w+) \1\b", "b.txt"]);
    eqnice!("hello hello\n", words.stdout());
});

// A file found by the walk is read, not mapped: ripgrep's first read takes
// 3 bytes (its byte-order-mark sniff), so here line 2 begins its buffer and
// the printer's look-behind (`-o`, `-r`, colors) cannot see the `\n` before
// it; a file named on the command line is mapped and can.
gstest!(
    look_behind_where_a_read_begins,
    |dir: Dir, cmd: TestCommand| {
        dir.create("d/x.txt", "  \nstring\nab cd\n");
        cmd.args(["-P", "-n", "-o", r"(?<=\s)\S+|[a-z]{3}", "d"]);
        eqnice!(
            "d/x.txt:2:str\nd/x.txt:2:ing\nd/x.txt:3:ab\nd/x.txt:3:cd\n",
            cmd.stdout()
        );
        let mut named = dir.command();
        named.args(["-P", "-n", "-o", r"(?<=\s)\S+|[a-z]{3}", "d/x.txt"]);
        eqnice!("2:string\n3:ab\n3:cd\n", named.stdout());
    }
);

gstest!(case_word_and_line_flags, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", WORDS);
    cmd.args(["-P", "-i", "-c", "BAR$", "a.txt"]);
    eqnice!("2\n", cmd.stdout());
    let mut smart = dir.command();
    smart.args(["-P", "-S", "-c", "BAR", "a.txt"]);
    eqnice!("1\n", smart.stdout());
    let mut word = dir.command();
    word.args(["-P", "-w", "-n", "foo", "a.txt"]);
    eqnice!("1:foo bar\n4:foo baz\n5:BAR foo\n", word.stdout());
    let mut line = dir.command();
    line.args(["-P", "-x", "foobar", "a.txt"]);
    eqnice!("foobar\n", line.stdout());
});

gstest!(multiline, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", WORDS);
    cmd.args(["-P", "-U", "-n", r"bar\nbar", "a.txt"]);
    eqnice!("2:foobar\n3:barfoo\n", cmd.stdout());
    let mut dotall = dir.command();
    dotall.args(["-P", "-U", "--multiline-dotall", "-c", "bar.bar", "a.txt"]);
    eqnice!("1\n", dotall.stdout());
});

gstest!(
    named_groups_in_replacements,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", WORDS);
        cmd.args(["-P", "-r", "<$w>", "(?<w>o+)(?=b)", "a.txt"]);
        eqnice!("f<oo>bar\n", cmd.stdout());
    }
);

gstest!(crlf_and_null_data, |dir: Dir, cmd: TestCommand| {
    dir.create("c.txt", "one\r\nfoo\r\nbar\r\n");
    cmd.args(["-P", "--crlf", "-n", "foo$", "c.txt"]);
    eqnice!("2:foo\r\n", cmd.stdout());
    dir.create_bytes("n.bin", b"a foo\0b\0foo c\0");
    let mut nul = dir.command();
    nul.args(["-P", "--null-data", "-n", "foo", "n.bin"]);
    eqnice!(b"1:a foo\x003:foo c\x00".as_slice(), nul.output().stdout);
});

// Unicode classes, invalid UTF-8 skipped over, and `--no-unicode` (whose
// deprecated PCRE2 spelling turns Unicode off for every engine).
gstest!(unicode_and_invalid_utf8, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("u.txt", b"h\xe9llo caf\xc3\xa9 \xff\xfe abc\n");
    cmd.args(["-P", "-o", r"\w+", "u.txt"]);
    eqnice!(
        b"h\nllo\ncaf\xc3\xa9\nabc\n".as_slice(),
        cmd.output().stdout
    );
    let mut ascii = dir.command();
    ascii.args(["-P", "--no-unicode", "-o", r"\w+", "u.txt"]);
    eqnice!("h\nllo\ncaf\nabc\n", ascii.stdout());
    let mut old = dir.command();
    old.args(["--no-pcre2-unicode", "-c", r"caf\w", "u.txt"]);
    old.assert_no_match();
    let mut back = dir.command();
    back.args(["--no-pcre2-unicode", "--unicode", "-c", r"caf\w", "u.txt"]);
    eqnice!("1\n", back.stdout());
});

gstest!(json_submatches, |dir: Dir, cmd: TestCommand| {
    dir.create("b.txt", PAIRS);
    cmd.args(["-P", "--json", "-m1", r"(?<=a)\w", "b.txt"]);
    let out = cmd.stdout();
    let want = r#"{"type":"match","data":{"path":{"text":"b.txt"},"lines":{"text":"aa bb cd\n"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"a"},"start":1,"end":2}]}}"#;
    assert_eq!(out.lines().nth(1), Some(want), "{out}");
});

// A tree, searched in parallel: counts, file lists, context, inversion.
gstest!(
    tree_counts_lists_and_context,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", WORDS);
        dir.create("b.txt", PAIRS);
        dir.create("sub/c.txt", "xx\nfoobar\nyy\n");
        cmd.args(["-P", "--sort", "path", "-c", r"(?<=foo)bar|(\w)\1"]);
        eqnice!("a.txt:5\nb.txt:2\nsub/c.txt:3\n", cmd.stdout());
        let mut list = dir.command();
        list.args(["-P", "-l", "--sort", "path", r"(?<=foo)bar"]);
        eqnice!("a.txt\nsub/c.txt\n", list.stdout());
        let mut context = dir.command();
        context.args(["-P", "-A1", "(?<=foo)bar", "sub/c.txt"]);
        eqnice!("foobar\nyy\n", context.stdout());
        let mut inverted = dir.command();
        inverted.args(["-P", "-v", "-c", r"(\w)\1(?!\w)", "sub/c.txt"]);
        eqnice!("1\n", inverted.stdout());
    }
);

gstest!(bad_pattern, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", WORDS);
    cmd.args(["-P", "(", "a.txt"]);
    let out = cmd.expect_code(2);
    let want = format!(
        "{}: PCRE2: error compiling pattern at offset 5: missing closing parenthesis\n",
        prog()
    );
    eqnice!(want, String::from_utf8_lossy(&out.stderr).into_owned());
});

gstest!(
    default_engine_suggests_pcre2,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", WORDS);
        cmd.args(["(?<=a)b", "a.txt"]);
        cmd.assert_error(&[
            "error: look-around, including look-ahead and look-behind, is not supported\n\n\
         Consider enabling PCRE2 with the --pcre2 flag, which can handle backreferences\n\
         and look-around.\n",
        ]);
    }
);

gstest!(
    engine_auto_takes_pcre2_when_needed,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", WORDS);
        cmd.args(["--engine", "auto", "-n", "(?<=foo)bar", "a.txt"]);
        eqnice!("2:foobar\n", cmd.stdout());
        let mut hybrid = dir.command();
        hybrid.args(["--auto-hybrid-regex", "-c", r"(\w)\1", "a.txt"]);
        eqnice!("5\n", hybrid.stdout());
    }
);

// The default engine parses the pattern but exceeds its size limit: PCRE2
// takes it.
gstest!(
    engine_auto_falls_back_past_a_size_limit,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", WORDS);
        cmd.args([
            "--engine",
            "auto",
            "--regex-size-limit",
            "10",
            "o{30}|bar",
            "a.txt",
        ]);
        eqnice!("foo bar\nfoobar\nbarfoo\n", cmd.stdout());
    }
);

gstest!(engine_auto_bad_pattern, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["--auto-hybrid-regex", "foo(", "a.txt"]);
    cmd.assert_error(&[
        "regex could not be compiled with either the default regex engine or with PCRE2.\n\ndefault regex engine error:\n",
        "error: unclosed group\n",
        "PCRE2 regex engine error:\nPCRE2: error compiling pattern at offset 8: missing closing parenthesis\n",
    ]);
});

gstest!(engine_default_then_pcre2, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", WORDS);
    cmd.args(["--engine", "default", "-P", "-c", r"(\w)\1", "a.txt"]);
    eqnice!("5\n", cmd.stdout());
});

gstest!(pcre2_version, |dir: Dir, cmd: TestCommand| {
    cmd.args(["--pcre2-version"]);
    let out = cmd.stdout();
    assert!(out.starts_with("PCRE2 10."), "{out}");
    assert!(out.ends_with(" is available (JIT is available)\n"), "{out}");
    let _ = dir;
});

// gsearch's own: PCRE2 runs on the CPU whatever `--engine` says, and
// `--stats` says so; `--sorted` looks up literal keys and refuses `-P`.
gstest!(pcre2_runs_on_the_cpu, |dir: Dir, cmd: TestCommand| {
    if prog() == "rg" {
        return;
    }
    dir.create("a.txt", WORDS);
    cmd.args([
        "--engine",
        "opencl",
        "--stats",
        "-c",
        "-P",
        "(?<=foo)bar",
        "a.txt",
    ]);
    let out = cmd.stdout();
    assert!(out.starts_with("1\n"), "{out}");
    assert!(
        out.contains("\npatterns: PCRE2 regex, searched on the CPU\n"),
        "{out}"
    );
    assert!(
        out.contains("\nPCRE2 runs on the CPU only: the CPU engine ran\n"),
        "{out}"
    );
    let mut sorted = dir.command();
    sorted.args(["--sorted", "-P", "foo", "a.txt"]);
    sorted.assert_error(&["-P does not apply"]);
});

// Found by the fuzzer: `--engine auto` with several patterns holding
// capture groups panicked while deciding whether PCRE2 was needed
// (regex-syntax's parser was used for a second pattern).
gstest!(
    engine_auto_several_patterns_with_groups,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", WORDS);
        cmd.args([
            "--engine", "auto", "-c", "-e", "(foo)", "-e", "(baz)", "-e", r"(\w)\1", "a.txt",
        ]);
        eqnice!("5\n", cmd.stdout());
    }
);
