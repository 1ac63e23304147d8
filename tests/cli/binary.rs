//! Binary files (a NUL byte): explicit files vs files found by walking,
//! -a/--text and --binary.
//!
//! ripgrep's rules: a file found while walking is searched in "quit" mode
//! (stop at the first NUL; if something matched before, say that output was
//! cut short), an explicitly given file in "convert" mode (keep searching,
//! but print "binary file matches" instead of lines). --binary makes walked
//! files behave like explicit ones; -a searches everything as text.

use crate::util::{Dir, TestCommand};

/// A small file with a NUL on its second line; "fox" on lines 1 and 3.
const BIN: &[u8] = b"fox\nabc\x00def\nfox again\n";

fn setup(dir: &Dir) {
    dir.create_bytes("bin.dat", BIN);
    dir.create("t.txt", "fox\n");
}

// A walked binary file whose NUL is in the first buffer is skipped
// silently.
gstest!(walked_binary_skipped, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["fox"]);
    eqnice!("t.txt:fox\n", cmd.stdout());
});

// An explicit binary file: one "binary file matches" line, with the offset
// of the first NUL.
gstest!(explicit_binary_matches, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["fox", "bin.dat"]);
    eqnice!(
        "binary file matches (found \"\\0\" byte around offset 7)\n",
        cmd.stdout()
    );
});

// The message does not depend on where the match is: here it is after the
// NUL.
gstest!(
    explicit_binary_match_after_nul,
    |dir: Dir, cmd: TestCommand| {
        dir.create_bytes("z.dat", b"no\x00fox\n");
        cmd.args(["-n", "fox", "z.dat"]);
        eqnice!(
            "binary file matches (found \"\\0\" byte around offset 2)\n",
            cmd.stdout()
        );
    }
);

gstest!(explicit_binary_no_match, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["wolf", "bin.dat"]).assert_no_match();
});

// Two explicit files: the binary message carries the path.
gstest!(explicit_binary_with_path, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["-j1", "fox", "bin.dat", "t.txt"]);
    eqnice!(
        "bin.dat: binary file matches (found \"\\0\" byte around offset 7)\nt.txt:fox\n",
        cmd.stdout()
    );
});

// -o on an explicit binary file: same message.
gstest!(
    explicit_binary_only_matching,
    |dir: Dir, cmd: TestCommand| {
        setup(&dir);
        cmd.args(["-o", "fox", "bin.dat"]);
        eqnice!(
            "binary file matches (found \"\\0\" byte around offset 7)\n",
            cmd.stdout()
        );
    }
);

// -c counts every matching line of an explicit binary file.
gstest!(explicit_binary_count, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["-c", "fox", "bin.dat"]);
    eqnice!("2\n", cmd.stdout());
});

// -q: a match in an explicit binary file is a match.
gstest!(explicit_binary_quiet, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["-q", "fox", "bin.dat"]).expect(0, "");
});

// A walked binary file counts for nothing with -c.
gstest!(walked_binary_count, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["-c", "fox"]);
    eqnice!("t.txt:1\n", cmd.stdout());
});

// -l skips a walked binary file whose NUL is seen before any match is
// reported (the whole small file is one buffer, checked before searching).
gstest!(
    walked_binary_files_with_matches,
    |dir: Dir, cmd: TestCommand| {
        setup(&dir);
        cmd.args(["-l", "--sort", "path", "fox"]);
        eqnice!("t.txt\n", cmd.stdout());
    }
);

// ... and not when the only match is after the NUL.
gstest!(
    walked_binary_files_with_matches_after_nul,
    |dir: Dir, cmd: TestCommand| {
        setup(&dir);
        cmd.args(["-l", "--sort", "path", "again"])
            .assert_no_match();
    }
);

gstest!(text_flag, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["-a", "-n", "--sort", "path", "fox"]);
    eqnice!(
        "bin.dat:1:fox\nbin.dat:3:fox again\nt.txt:1:fox\n",
        cmd.stdout()
    );
});

// -a prints the NUL bytes as they are.
gstest!(text_flag_prints_nul, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["--text", "def", "bin.dat"]);
    eqnice!("abc\0def\n", cmd.stdout());
});

gstest!(text_flag_count, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["-a", "-c", "--sort", "path", "fox"]);
    eqnice!("bin.dat:2\nt.txt:1\n", cmd.stdout());
});

// --binary: walked binary files are searched like explicit ones.
gstest!(binary_flag, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["--binary", "--sort", "path", "fox"]);
    let expected = "\
bin.dat: binary file matches (found \"\\0\" byte around offset 7)
t.txt:fox
";
    eqnice!(expected, cmd.stdout());
});

gstest!(binary_flag_count, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["--binary", "-c", "--sort", "path", "fox"]);
    eqnice!("bin.dat:2\nt.txt:1\n", cmd.stdout());
});

// --count-matches on a walked binary file: nothing for it.
gstest!(walked_binary_count_matches, |dir: Dir, cmd: TestCommand| {
    setup(&dir);
    cmd.args(["--count-matches", "fox"]);
    eqnice!("t.txt:1\n", cmd.stdout());
});

// JSON output reports the matching lines of an explicit binary file (no
// "binary file matches" message in JSON).
gstest!(
    explicit_binary_json_matches,
    |dir: Dir, cmd: TestCommand| {
        setup(&dir);
        cmd.args(["--json", "fox", "bin.dat"]);
        let out = cmd.stdout();
        let lines: Vec<&str> = out.lines().collect();
        eqnice!(
            r#"{"type":"begin","data":{"path":{"text":"bin.dat"}}}"#,
            lines[0]
        );
        eqnice!(
            r#"{"type":"match","data":{"path":{"text":"bin.dat"},"lines":{"text":"fox\n"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"fox"},"start":0,"end":3}]}}"#,
            lines[1]
        );
    }
);

// A big file with the NUL far into it (past the first 64 KiB buffer).
// Pins ripgrep's buffer-size-dependent behaviour: a single explicit file is
// memory-mapped and only its first 64 KiB are checked for NUL, so every
// match is printed.
fn big_binary(dir: &Dir) {
    let mut s = b"fox first\n".to_vec();
    s.extend(b"filler\n".repeat(20000));
    s.extend(b"fox before nul\na\x00b\nfox after\n");
    dir.create_bytes("big.dat", &s);
    dir.create("t.txt", "fox\n");
}

gstest!(big_binary_explicit_mmap, |dir: Dir, cmd: TestCommand| {
    big_binary(&dir);
    cmd.small_batches().args(["-n", "fox", "big.dat"]);
    eqnice!(
        "1:fox first\n20002:fox before nul\n20004:fox after\n",
        cmd.stdout()
    );
});

// Without mmap, the file is read in 64 KiB buffers: lines before the
// buffer holding the NUL are printed, then the binary message.
gstest!(big_binary_explicit_no_mmap, |dir: Dir, cmd: TestCommand| {
    big_binary(&dir);
    cmd.small_batches()
        .args(["-n", "--no-mmap", "fox", "big.dat"]);
    let expected = "\
1:fox first
binary file matches (found \"\\0\" byte around offset 140026)
";
    eqnice!(expected, cmd.stdout());
});

// A walked file that matched before its (late) NUL: the lines printed so
// far stay, then a warning that the search stopped.
gstest!(big_binary_walked_warning, |dir: Dir, cmd: TestCommand| {
    big_binary(&dir);
    cmd.small_batches().args(["-n", "--sort", "path", "fox"]);
    let expected = "\
big.dat:1:fox first
big.dat: WARNING: stopped searching binary file after match (found \"\\0\" byte around offset 140026)
t.txt:1:fox
";
    eqnice!(expected, cmd.stdout());
});

// -c on that walked file: binary files found by walking report no count.
gstest!(big_binary_walked_count, |dir: Dir, cmd: TestCommand| {
    big_binary(&dir);
    cmd.small_batches().args(["-c", "--sort", "path", "fox"]);
    eqnice!("t.txt:1\n", cmd.stdout());
});

// -l on that walked file: it matched before the NUL was seen, so it is
// listed.
gstest!(
    big_binary_walked_files_with_matches,
    |dir: Dir, cmd: TestCommand| {
        big_binary(&dir);
        cmd.small_batches().args(["-l", "--sort", "path", "fox"]);
        eqnice!("big.dat\nt.txt\n", cmd.stdout());
    }
);

// Binary detection also applies to stdin (convert mode, like an explicit
// file).
gstest!(stdin_binary, |dir: Dir, cmd: TestCommand| {
    cmd.args(["fox"]).pipe(BIN);
    eqnice!(
        "binary file matches (found \"\\0\" byte around offset 7)\n",
        cmd.stdout()
    );
});

// Files whose names say they are binary (`.pyc`, `.so`, `.so.1`) are read
// with a small first read; the answers are those of any other name: a
// `.pyc` that is text is searched to its end, a NUL early or late in a
// `.so` cuts the search where ripgrep cuts it.
fn binary_names(dir: &Dir) {
    let mut text = b"fox 1\n".to_vec();
    text.extend(b"filler\n".repeat(400));
    text.extend(b"fox 2\n");
    dir.create_bytes("text.pyc", &text);
    let mut early = b"fox 1\n".to_vec();
    early.extend(b"filler\n".repeat(300));
    early.extend(b"a\x00b\nfox after\n");
    dir.create_bytes("early.so", &early);
    dir.create_bytes("first.so", b"fox\n\x00fox\n");
    let mut late = b"fox first\n".to_vec();
    late.extend(b"filler\n".repeat(20000));
    late.extend(b"fox before nul\na\x00b\nfox after\n");
    dir.create_bytes("late.so.1", &late);
}

gstest!(binary_names_count, |dir: Dir, cmd: TestCommand| {
    binary_names(&dir);
    cmd.args(["-c", "--sort", "path", "fox"]);
    eqnice!("text.pyc:2\n", cmd.stdout());
});

gstest!(binary_names_list, |dir: Dir, cmd: TestCommand| {
    binary_names(&dir);
    cmd.args(["-l", "--sort", "path", "fox"]);
    eqnice!("late.so.1\ntext.pyc\n", cmd.stdout());
});

gstest!(binary_names_lines, |dir: Dir, cmd: TestCommand| {
    binary_names(&dir);
    cmd.args(["-n", "--sort", "path", "fox"]);
    let expected = "\
late.so.1:1:fox first
late.so.1: WARNING: stopped searching binary file after match (found \"\\0\" byte around offset 140026)
text.pyc:1:fox 1
text.pyc:402:fox 2
";
    eqnice!(expected, cmd.stdout());
});

// --stats counts the bytes searched up to each file's NUL.
gstest!(binary_names_stats, |dir: Dir, cmd: TestCommand| {
    binary_names(&dir);
    cmd.args(["-c", "--stats", "fox"]);
    let out = cmd.stdout();
    assert!(out.contains("\n133876 bytes searched\n"), "{out}");
});
