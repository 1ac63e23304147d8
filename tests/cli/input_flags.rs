//! The input group of flags: multiline search (`-U`,
//! `--multiline-dotall`), encodings (`-E`, BOM sniffing), compressed files
//! (`-z`) and preprocessors (`--pre`, `--pre-glob`). Expected outputs are
//! ripgrep 15.2's.

use crate::util::{Dir, TestCommand, prog};

const LINES: &str = "foo\nbar\nbaz\nfoo bar\nqux\n";

const GZIP: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03K\xcb\xcfW\xa8\xca,(HM\xe1\xca\xcb/H\xe5\x02\x00\x9d\x0bd\xb5\x10\x00\x00\x00";

const BZIP2: &[u8] = b"BZh91AY&SY\xca}\xc9\xa3\x00\x00\x01\xd1\x80\x00\x10@\x00\x11\x00\x80\x10 \x000\xc0\x08a\xa0H\xc3\x0b\xb9\"\x9c(He>\xe4\xd1\x80";

const UTF16LE_BOM: &[u8] = b"\xff\xfef\x00o\x00o\x00\n\x00b\x00a\x00r\x00\n\x00";

gstest!(multiline_line_numbers, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "-n", r"foo\nbar", "a.txt"]);
    eqnice!("1:foo\n2:bar\n", cmd.stdout());
});

gstest!(multiline_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "-o", r"o\nb", "a.txt"]);
    eqnice!("o\nb\n", cmd.stdout());
});

gstest!(multiline_vimgrep, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "--vimgrep", r"o\nb", "a.txt"]);
    eqnice!("a.txt:1:3:foo\n", cmd.stdout());
});

gstest!(multiline_count_lines, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "-c", r"o\nb|qux", "a.txt"]);
    eqnice!("2\n", cmd.stdout());
});

gstest!(multiline_count_matches, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "--count-matches", r"o\nb|a", "a.txt"]);
    eqnice!("4\n", cmd.stdout());
});

// Patterns that cannot match a line terminator are searched line by
// line even with -U: -c counts lines, not matches.
gstest!(
    multiline_count_single_line_pattern,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", LINES);
        cmd.args(["-U", "-c", "x*", "a.txt"]);
        eqnice!("5\n", cmd.stdout());
    }
);

gstest!(multiline_invert, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "-v", r"foo\nbar", "a.txt"]);
    eqnice!("baz\nfoo bar\nqux\n", cmd.stdout());
});

gstest!(multiline_replace, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "-r", "X", r"foo\nbar", "a.txt"]);
    eqnice!("X\n", cmd.stdout());
});

gstest!(
    multiline_dot_stops_at_newline,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", LINES);
        cmd.args(["-U", "foo.bar", "a.txt"]);
        eqnice!("foo bar\n", cmd.stdout());
    }
);

gstest!(multiline_dotall, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "--multiline-dotall", "-n", "foo.bar", "a.txt"]);
    eqnice!("1:foo\n2:bar\n4:foo bar\n", cmd.stdout());
});

gstest!(multiline_context, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "-C1", r"bar\nbaz", "a.txt"]);
    eqnice!("foo\nbar\nbaz\nfoo bar\n", cmd.stdout());
});

gstest!(multiline_stdin, |dir: Dir, cmd: TestCommand| {
    cmd.args(["-U", r"a\nb"]).pipe("a\nb\nc\n");
    eqnice!("a\nb\n", cmd.stdout());
});

gstest!(multiline_json, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "--json", r"bar\nbaz", "a.txt"]);
    let out = cmd.stdout();
    let want = r#"{"type":"match","data":{"path":{"text":"a.txt"},"lines":{"text":"bar\nbaz\n"},"line_number":2,"absolute_offset":4,"submatches":[{"match":{"text":"bar\nbaz"},"start":0,"end":7}]}}"#;
    assert!(out.lines().any(|l| l == want), "{out}");
});

// Without -U (or after --no-multiline), a newline in a pattern is an
// error with ripgrep's hint.
gstest!(newline_needs_multiline, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["-U", "--no-multiline", r"foo\nbar", "a.txt"]);
    let out = cmd.expect_code(2);
    eqnice!(
        format!(
            "{}: the literal \"\\n\" is not allowed in a regex\n\nConsider enabling multiline mode with the --multiline flag (or -U for short).\nWhen multiline mode is enabled, new line characters can be matched.\n",
            prog()
        ),
        String::from_utf8(out.stderr).unwrap()
    );
});

gstest!(utf16_bom_sniffed, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("u.txt", UTF16LE_BOM);
    cmd.args(["-n", "bar", "u.txt"]);
    eqnice!("2:bar\n", cmd.stdout());
});

gstest!(encoding_none_keeps_bytes, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("u.txt", UTF16LE_BOM);
    cmd.args(["-E", "none", "-c", "foo", "u.txt"])
        .assert_no_match();
});

gstest!(encoding_none_then_auto, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("u.txt", UTF16LE_BOM);
    cmd.args(["-E", "none", "--no-encoding", "foo", "u.txt"]);
    eqnice!("foo\n", cmd.stdout());
});

gstest!(
    encoding_utf16le_without_bom,
    |dir: Dir, cmd: TestCommand| {
        dir.create_bytes("u.txt", b"f\x00o\x00o\x00\n\x00x\x00\n\x00");
        cmd.args(["-E", "utf-16le", "-n", "x", "u.txt"]);
        eqnice!("2:x\n", cmd.stdout());
    }
);

gstest!(encoding_shift_jis, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("s.txt", b"\x83\x65\x83\x58\x83\x67\nfoo\n");
    cmd.args(["-E", "sjis", "テスト", "s.txt"]);
    eqnice!("テスト\n", cmd.stdout());
});

gstest!(encoding_unknown, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["--encoding", "bogus", "foo", "a.txt"]);
    cmd.assert_error(&[
        "error parsing flag --encoding: grep config error: unknown encoding: bogus",
    ]);
});

gstest!(search_zip_gzip_bzip2, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("z.txt.gz", GZIP);
    dir.create_bytes("z.bz2", BZIP2);
    cmd.args(["-j1", "-z", "-c", "foo", "z.txt.gz", "z.bz2"]);
    eqnice!("z.txt.gz:1\nz.bz2:1\n", cmd.stdout());
});

gstest!(search_zip_off_by_default, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("z.txt.gz", GZIP);
    cmd.args(["-c", "foo", "z.txt.gz"]).assert_no_match();
});

gstest!(search_zip_negated, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("z.txt.gz", GZIP);
    cmd.args(["-z", "--no-search-zip", "foo", "z.txt.gz"])
        .assert_no_match();
});

gstest!(search_zip_bad_data, |dir: Dir, cmd: TestCommand| {
    dir.create("bad.gz", "not gzip\n");
    cmd.args(["-z", "not", "bad.gz"]);
    cmd.assert_error(&["bad.gz: \n---", "gzip: bad.gz: not in gzip format"]);
});

/// A preprocessor that upper-cases its file.
fn upper(dir: &Dir) {
    use std::os::unix::fs::PermissionsExt;
    dir.create("up.sh", "#!/bin/sh\ntr a-z A-Z < \"$1\"\n");
    let p = dir.path().join("up.sh");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

gstest!(pre_command, |dir: Dir, cmd: TestCommand| {
    upper(&dir);
    dir.create("a.txt", LINES);
    cmd.args(["--pre", "./up.sh", "FOO", "a.txt"]);
    eqnice!("FOO\nFOO BAR\n", cmd.stdout());
});

gstest!(pre_glob_limits, |dir: Dir, cmd: TestCommand| {
    upper(&dir);
    dir.create("a.txt", "foo\n");
    dir.create("b.md", "foo\n");
    cmd.args([
        "--pre",
        "./up.sh",
        "--pre-glob",
        "*.txt",
        "--sort",
        "path",
        "-i",
        "FOO",
    ]);
    eqnice!("a.txt:FOO\nb.md:foo\n", cmd.stdout());
});

gstest!(no_pre, |dir: Dir, cmd: TestCommand| {
    upper(&dir);
    dir.create("a.txt", LINES);
    cmd.args(["--pre", "./up.sh", "--no-pre", "FOO", "a.txt"])
        .assert_no_match();
});

gstest!(pre_missing_command, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args(["--pre", "./nonexist", "foo", "a.txt"]);
    cmd.assert_error(&[
        "a.txt: preprocessor command could not start: '\"./nonexist\" \"a.txt\"': No such file or directory (os error 2)",
    ]);
});

// --pre and -z override each other, the last one winning.
gstest!(pre_then_search_zip, |dir: Dir, cmd: TestCommand| {
    upper(&dir);
    dir.create_bytes("z.txt.gz", GZIP);
    cmd.args(["--pre", "./up.sh", "-z", "foo", "z.txt.gz"]);
    eqnice!("foo zipped\n", cmd.stdout());
});

// Next to the multiline hint, ripgrep's hint for a NUL in a pattern.
gstest!(nul_needs_text, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", LINES);
    cmd.args([r"\x00", "a.txt"]);
    let out = cmd.expect_code(2);
    eqnice!(
        format!(
            "{}: pattern contains \"\\0\" but it is impossible to match\n\nConsider enabling text mode with the --text flag (or -a for short). Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible.\n",
            prog()
        ),
        String::from_utf8(out.stderr).unwrap()
    );
});

/// 20,000 numbered rows and a last line holding "needle", in UTF-16LE
/// (about 250 KB: past the first read of a file found by walking).
fn utf16_rows(bom: bool) -> Vec<u8> {
    let mut text = String::new();
    for i in 0..20000 {
        text.push_str(&format!("row {i}\n"));
    }
    text.push_str("needle end\n");
    let mut out = if bom { vec![0xFF, 0xFE] } else { Vec::new() };
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

// The NULs of UTF-16 are not binary data: a file found by walking is
// decoded to its end.
gstest!(
    walked_utf16_searched_to_the_end,
    |dir: Dir, cmd: TestCommand| {
        dir.create_bytes("d/bom.txt", &utf16_rows(true));
        dir.create_bytes("d/x.bin", &utf16_rows(true));
        dir.create_bytes("d/nobom.txt", &utf16_rows(false));
        cmd.args(["--sort", "path", "-c", "row|needle", "d"]);
        eqnice!("d/bom.txt:20001\nd/x.bin:20001\n", cmd.stdout());
    }
);

gstest!(walked_encoding_utf16le, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("d/bom.txt", &utf16_rows(true));
    dir.create_bytes("d/nobom.txt", &utf16_rows(false));
    cmd.args(["--sort", "path", "-E", "utf-16le", "needle", "d"]);
    eqnice!(
        "d/bom.txt:needle end\nd/nobom.txt:needle end\n",
        cmd.stdout()
    );
});

// `--sorted` reads raw bytes: the input flags are refused, not ignored.
gstest!(sorted_refuses_input_flags, |dir: Dir, cmd: TestCommand| {
    dir.create("s.txt", "apple\nbanana\n");
    cmd.args(["--sorted", "-z", "app", "s.txt"]);
    cmd.assert_error(&["--sorted searches its FILE's raw bytes"]);
});
