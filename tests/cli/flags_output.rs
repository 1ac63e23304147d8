//! The flags-output group: line terminators and line handling (`--crlf`,
//! `--null-data`, `--passthru`, `--trim`, `-M`, `--stop-on-nonmatch`),
//! printer options (`--colors`, separators, hyperlinks, buffering,
//! `--pretty`), messages and regex options (size limits, `--no-unicode`).
//! PCRE2's are in `pcre2.rs`. Expected outputs are ripgrep 15.2's.

use crate::util::{Dir, TestCommand, prog};

const LINES: &str = "one\nfoo two\nthree\nfoo four\n   foo indented\nfive\n";
const LONG: &str = "a very long line with foo in the middle of it and more text after\n";

gstest!(crlf_dollar_before_cr, |dir: Dir, cmd: TestCommand| {
    dir.create("c.txt", "foo bar\r\nbaz\r\nfoo\r\n");
    cmd.args(["--crlf", "-n", "foo$", "c.txt"]);
    eqnice!("3:foo\r\n", cmd.stdout());
});

gstest!(no_crlf_dollar_misses, |dir: Dir, cmd: TestCommand| {
    dir.create("c.txt", "foo bar\r\nbaz\r\nfoo\r\n");
    cmd.args(["--crlf", "--no-crlf", "foo$", "c.txt"]);
    cmd.assert_no_match();
});

gstest!(null_data_lines_end_at_nul, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("n.bin", b"a foo\0b\0foo c\0");
    cmd.args(["--null-data", "-n", "foo", "n.bin"]);
    eqnice!(b"1:a foo\x003:foo c\x00".as_slice(), cmd.output().stdout);
});

// A multiline regex has no line terminator (as in ripgrep): `-U --crlf`
// may match `\r\n`, and `-U --null-data` a NUL.
gstest!(multiline_crlf_matches_cr, |dir: Dir, cmd: TestCommand| {
    dir.create("c.txt", "aaa\r\nbbb\r\nccc\r\n");
    cmd.args(["-U", "--crlf", "-n", "aaa\\r\\nbbb", "c.txt"]);
    eqnice!("1:aaa\r\n2:bbb\r\n", cmd.stdout());
});

gstest!(
    multiline_null_data_matches_nul,
    |dir: Dir, cmd: TestCommand| {
        dir.create_bytes("n.bin", b"foo\0bar\0baz\0");
        cmd.args(["-U", "--null-data", "-o", "r\\x00b", "n.bin"]);
        eqnice!(b"r\x00b\x00".as_slice(), cmd.output().stdout);
    }
);

// `--crlf` after `--null-data` wins, and `--no-crlf` then leaves `\n`.
gstest!(crlf_overrides_null_data, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("n.bin", b"a foo\0b\0foo c\0");
    cmd.args(["--null-data", "--crlf", "--no-crlf", "-a", "foo", "n.bin"]);
    eqnice!(b"a foo\x00b\x00foo c\x00\n".as_slice(), cmd.output().stdout);
});

gstest!(passthru_numbers, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--passthru", "-n", "foo", "p.txt"]);
    let expected = "1-one\n2:foo two\n3-three\n4:foo four\n5:   foo indented\n6-five\n";
    eqnice!(expected, cmd.stdout());
});

gstest!(passthru_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--passthrough", "-o", "foo", "p.txt"]);
    eqnice!("one\nfoo\nthree\nfoo\nfoo\nfive\n", cmd.stdout());
});

// The last of `--passthru` and `-A/-B/-C` wins.
gstest!(passthru_then_context, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--passthru", "-B1", "foo", "p.txt"]);
    eqnice!(
        "one\nfoo two\nthree\nfoo four\n   foo indented\n",
        cmd.stdout()
    );
});

gstest!(context_then_passthru, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["-A1", "--passthru", "foo", "p.txt"]);
    eqnice!(LINES, cmd.stdout());
});

gstest!(trim_leading_space, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--trim", "foo", "p.txt"]);
    eqnice!("foo two\nfoo four\nfoo indented\n", cmd.stdout());
});

gstest!(no_trim_after_trim, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--trim", "--no-trim", "indented", "p.txt"]);
    eqnice!("   foo indented\n", cmd.stdout());
});

gstest!(max_columns_omits, |dir: Dir, cmd: TestCommand| {
    dir.create("long.txt", LONG);
    dir.create("p.txt", LINES);
    cmd.args(["-j1", "-M", "10", "-n", "foo", "long.txt", "p.txt"]);
    let expected = "long.txt:1:[Omitted long matching line]\np.txt:2:foo two\np.txt:4:foo four\np.txt:5:[Omitted long matching line]\n";
    eqnice!(expected, cmd.stdout());
});

gstest!(max_columns_preview, |dir: Dir, cmd: TestCommand| {
    dir.create("long.txt", LONG);
    cmd.args(["-M10", "--max-columns-preview", "foo", "long.txt"]);
    eqnice!("a very lon [... omitted end of long line]\n", cmd.stdout());
});

gstest!(max_columns_preview_color, |dir: Dir, cmd: TestCommand| {
    dir.create("long.txt", LONG);
    cmd.args(["-M10", "--max-columns-preview", "--color", "always"]);
    cmd.args(["foo", "long.txt"]);
    eqnice!("a very lon [... 1 more match]\n", cmd.stdout());
});

gstest!(max_columns_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("long.txt", LONG);
    cmd.args(["-M", "10", "-o", "foo", "long.txt"]);
    eqnice!("foo\n", cmd.stdout());
});

gstest!(
    max_columns_zero_is_no_limit,
    |dir: Dir, cmd: TestCommand| {
        dir.create("long.txt", LONG);
        cmd.args(["-M", "10", "-M", "0", "foo", "long.txt"]);
        eqnice!(LONG, cmd.stdout());
    }
);

gstest!(max_columns_bad_number, |dir: Dir, cmd: TestCommand| {
    dir.create("long.txt", LONG);
    cmd.args(["--max-columns", "abc", "foo", "long.txt"]);
    cmd.assert_error(&[
        "error parsing flag --max-columns: value is not a valid number: invalid digit found in string",
    ]);
});

gstest!(stop_on_nonmatch, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--stop-on-nonmatch", "-n", "o", "p.txt"]);
    eqnice!("1:one\n2:foo two\n", cmd.stdout());
});

gstest!(colors_custom_match, |dir: Dir, cmd: TestCommand| {
    dir.create("d/e/f.txt", "xfoo\n");
    cmd.args(["--color", "always", "--colors", "match:fg:green"]);
    cmd.args(["--colors", "match:style:nobold", "-H", "foo", "d/e/f.txt"]);
    let expected = "\x1b[0m\x1b[35md/e/f.txt\x1b[0m:x\x1b[0m\x1b[32mfoo\x1b[0m\n";
    eqnice!(expected, cmd.stdout());
});

gstest!(colors_none_clears, |dir: Dir, cmd: TestCommand| {
    dir.create("f.txt", "xfoo\n");
    cmd.args([
        "--color",
        "always",
        "--colors",
        "match:none",
        "foo",
        "f.txt",
    ]);
    eqnice!("xfoo\n", cmd.stdout());
});

gstest!(colors_bad_type, |dir: Dir, cmd: TestCommand| {
    dir.create("f.txt", "xfoo\n");
    cmd.args(["--colors", "bad:fg:red", "foo", "f.txt"]);
    let out = cmd.expect_code(2);
    let expected = format!(
        "{}: error parsing flag --colors: unrecognized output type 'bad'. Choose from: path, line, column, match, highlight.\n",
        prog()
    );
    eqnice!(expected, out.stderr);
});

gstest!(colors_bad_format, |dir: Dir, cmd: TestCommand| {
    dir.create("f.txt", "xfoo\n");
    cmd.args(["--colors", "path", "foo", "f.txt"]);
    cmd.assert_error(&[
        "error parsing flag --colors: invalid color spec format: 'path'. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'.",
    ]);
});

gstest!(colors_bad_color_name, |dir: Dir, cmd: TestCommand| {
    dir.create("f.txt", "xfoo\n");
    cmd.args(["--colors", "path:fg:blurple", "foo", "f.txt"]);
    cmd.assert_error(&["error parsing flag --colors: unrecognized color name 'blurple'."]);
});

gstest!(field_separators, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args([
        "--field-context-separator",
        "!!",
        "--field-match-separator",
        r"\t",
    ]);
    cmd.args(["-n", "-A1", "foo", "p.txt"]);
    let expected = "2\tfoo two\n3!!three\n4\tfoo four\n5\t   foo indented\n6!!five\n";
    eqnice!(expected, cmd.stdout());
});

gstest!(path_separator_standard, |dir: Dir, cmd: TestCommand| {
    dir.create("d/e/f.txt", "xfoo\n");
    cmd.args(["--path-separator", r"\", "foo", "d"]);
    eqnice!("d\\e\\f.txt:xfoo\n", cmd.stdout());
});

gstest!(path_separator_count, |dir: Dir, cmd: TestCommand| {
    dir.create("d/e/f.txt", "xfoo\n");
    cmd.args(["--path-separator", r"\", "-c", "foo", "d"]);
    eqnice!("d\\e\\f.txt:1\n", cmd.stdout());
});

gstest!(path_separator_files, |dir: Dir, cmd: TestCommand| {
    dir.create("d/e/f.txt", "xfoo\n");
    cmd.args(["--path-separator", "#", "--files", "d"]);
    eqnice!("d#e#f.txt\n", cmd.stdout());
});

gstest!(path_separator_two_bytes, |dir: Dir, cmd: TestCommand| {
    dir.create("d/e/f.txt", "xfoo\n");
    cmd.args(["--path-separator", "ab", "foo", "d"]);
    cmd.assert_error(&[
        "error parsing flag --path-separator: A path separator must be exactly one byte, but the given separator is 2 bytes: ab",
    ]);
});

gstest!(hyperlink_file_path, |dir: Dir, cmd: TestCommand| {
    dir.create("d/e/f.txt", "xfoo\n");
    cmd.args([
        "--color",
        "always",
        "--hyperlink-format",
        "file://{host}{path}",
    ]);
    cmd.args(["-l", "foo", "d"]);
    let out = cmd.stdout();
    assert!(out.starts_with("\x1b]8;;file://"), "{out:?}");
    assert!(out.contains("/d/e/f.txt\x1b\\"), "{out:?}");
    assert!(out.ends_with("d/e/f.txt\x1b[0m\x1b]8;;\x1b\\\n"), "{out:?}");
});

gstest!(hyperlink_bad_variable, |dir: Dir, cmd: TestCommand| {
    dir.create("f.txt", "xfoo\n");
    cmd.args(["--hyperlink-format", "{bad}", "foo", "f.txt"]);
    cmd.assert_error(&[
        "error parsing flag --hyperlink-format: invalid hyperlink format: invalid hyperlink format variable: 'bad', choose from: path, line, column, host, wslprefix",
    ]);
});

gstest!(buffering_flags, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--line-buffered", "--block-buffered", "two", "p.txt"]);
    eqnice!("foo two\n", cmd.stdout());
});

gstest!(pretty, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["-p", "foo", "a.txt"]);
    eqnice!(
        "\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfoo\x1b[0m\n",
        cmd.stdout()
    );
});

// Flags after `-p` win over it.
gstest!(pretty_then_negations, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["-p", "-N", "--no-heading", "--color", "never", "foo", "."]);
    eqnice!("./a.txt:foo\n", cmd.stdout());
});

gstest!(no_messages_keeps_status, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["--no-messages", "foo", "nope", "a.txt"]);
    let out = cmd.expect(2, "a.txt:foo\n");
    eqnice!("", out.stderr);
});

gstest!(ignore_file_messages, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    dir.create(".ignore", "{a\n");
    cmd.args(["--no-ignore-messages", "foo"]);
    let out = cmd.expect(0, "a.txt:foo\n");
    eqnice!("", out.stderr);
    let mut again = dir.command();
    let out = again.args(["foo"]).expect(0, "a.txt:foo\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error parsing glob '{a'"), "{err}");
});

gstest!(pcre2_then_no_pcre2, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["--engine", "pcre2", "--no-pcre2", "foo", "a.txt"]);
    eqnice!("foo\n", cmd.stdout());
});

gstest!(regex_size_limit_exceeded, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["--regex-size-limit", "10", r"foo\w+", "a.txt"]);
    cmd.assert_error(&["compiled regex exceeds size limit of 10"]);
});

gstest!(size_limit_suffixes, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args([
        "--regex-size-limit",
        "1M",
        "--dfa-size-limit",
        "2G",
        "foo",
        "a.txt",
    ]);
    eqnice!("foo\n", cmd.stdout());
});

gstest!(size_limit_bad, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["--dfa-size-limit", "5k", "foo", "a.txt"]);
    cmd.assert_error(&[
        "error parsing flag --dfa-size-limit: invalid size: invalid format for size '5k', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix",
    ]);
});

gstest!(no_unicode_word, |dir: Dir, cmd: TestCommand| {
    dir.create("u.txt", "caf\u{e9} x\n");
    cmd.args(["--no-unicode", "-o", r"\w+", "u.txt"]);
    eqnice!("caf\nx\n", cmd.stdout());
});

gstest!(unicode_after_no_unicode, |dir: Dir, cmd: TestCommand| {
    dir.create("u.txt", "caf\u{e9} x\n");
    cmd.args(["--no-unicode", "--unicode", "-o", r"\w+", "u.txt"]);
    eqnice!("caf\u{e9}\nx\n", cmd.stdout());
});

gstest!(
    max_columns_short_name_in_error,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "foo\n");
        cmd.args(["-M", "-1", "foo", "a.txt"]);
        cmd.assert_error(&[
            "error parsing flag -M: value is not a valid number: invalid digit found in string",
        ]);
    }
);

// `--json -q` searches everything and prints the summary message.
gstest!(json_quiet_summary, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--json", "-q", "foo", "p.txt"]);
    let out = cmd.stdout();
    assert!(out.starts_with("{\"data\":{\"elapsed_total\":"), "{out}");
    let stats = "\"stats\":{\"bytes_printed\":0,\"bytes_searched\":48,";
    assert!(out.contains(stats), "{out}");
    assert!(out.contains("\"matched_lines\":3,\"matches\":3,\"searches\":1,\"searches_with_match\":1}},\"type\":\"summary\"}\n"), "{out}");
    assert_eq!(out.lines().count(), 1, "{out}");
});

// gsearch's own `--stats` lines read as English.
gstest!(stats_engine_lines, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--stats", "foo", "p.txt"]);
    let out = cmd.stdout();
    assert!(
        out.contains("\npatterns: 1 literal, 3 bytes long\n"),
        "{out}"
    );
    assert!(!out.contains("(s)") && !out.contains("..="), "{out}");
});

// The host name comes from `--hostname-bin`'s output, trimmed.
gstest!(hostname_bin, |dir: Dir, cmd: TestCommand| {
    use std::os::unix::fs::PermissionsExt;
    dir.create("h.sh", "#!/bin/sh\necho ' myhost '\n");
    let script = dir.path().join("h.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.create("d/f.txt", "xfoo\n");
    cmd.args([
        "--color",
        "always",
        "--hyperlink-format",
        "x://{host}/{path}",
    ]);
    cmd.arg("--hostname-bin").arg(&script);
    cmd.args(["-H", "foo", "d/f.txt"]);
    let out = cmd.stdout();
    assert!(out.starts_with("\x1b]8;;x://myhost//"), "{out:?}");
});

// Options only ripgrep's searcher honours (here `--no-unicode`) keep the
// search on the CPU engine whatever engine was asked for; a printer's
// option beside them (`--trim`) is printed as ever.
gstest!(line_options_run_on_cpu, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--stats", "--trim", "--no-unicode", "indented", "p.txt"]);
    let out = cmd.stdout();
    assert!(out.starts_with("foo indented\n"), "{out}");
    assert!(
        out.contains("\nengine: cpu, files searched by 1 thread\n"),
        "{out}"
    );
});

// The negations of output flags: the last one wins.
gstest!(output_negations, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args([
        "--json",
        "--no-json",
        "-b",
        "--no-byte-offset",
        "--stats",
        "--no-stats",
    ]);
    cmd.args(["-c", "--include-zero", "--no-include-zero", "two", "p.txt"]);
    eqnice!("1\n", cmd.stdout());
});

// `--stats` says why an `--engine opencl` search ran on the CPU.
gstest!(stats_say_cpu_kept, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", LINES);
    cmd.args(["--engine", "opencl", "--stats", "--crlf", "two", "p.txt"]);
    let out = cmd.stdout();
    assert!(
        out.contains("is the CPU searcher's: the CPU engine ran\n"),
        "{out}"
    );
});

/// Whether gsearch's `--stats` lines (from `engine:` on; ripgrep's own
/// summary above them keeps its "1 matches") read as plain English: no
/// "(s)", no Rust range syntax, no plural after a count of one.
fn plain_english(out: &str) {
    let ours = out.lines().skip_while(|l| !l.starts_with("engine:"));
    for line in ours {
        assert!(!line.contains("(s)") && !line.contains("..="), "{line:?}");
        for word in ["batches", "matches", "threads", "bytes", "regexes", "lines"] {
            let one = format!(" 1 {word}");
            assert!(!line.contains(&one), "{line:?} in {out}");
        }
    }
}

// One file, one match: the engine lines say "1 batch", "1 match".
gstest!(stats_one_of_each, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", "foo\n");
    cmd.args(["--stats", "foo", "p.txt"]);
    let out = cmd.stdout();
    plain_english(&out);
    if dir.engine() == crate::util::Engine::OpenCl {
        assert!(
            out.contains("opencl stream: 4 bytes in 1 batch (0 on CPU), 1 match, wall"),
            "{out}"
        );
    }
});

gstest!(stats_rule_set, |dir: Dir, cmd: TestCommand| {
    dir.create("p.txt", "foo1\nbar22\n");
    cmd.args([
        "--stats",
        "-e",
        "foo[0-9]",
        "-e",
        "bar[0-9]+",
        "-e",
        "b?az",
        "p.txt",
    ]);
    let out = cmd.stdout();
    plain_english(&out);
    assert!(out.contains("patterns: rule set of 3 regexes in "), "{out}");
});
