//! What gets printed and how: line numbers, file names, headings, offsets,
//! columns, -o, counts, file lists, -q, -m, color, -0, --vimgrep, --stats.

use crate::POEM;
use crate::util::{Dir, TestCommand, sort_lines};

/// Two files used by the multi-file cases.
fn two_files(dir: &Dir) {
    dir.create("a.txt", "a fox\nno\nfox fox\n");
    dir.create("b.txt", "fox\n");
    dir.create("c.txt", "nothing here\n");
}

gstest!(line_number, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--line-number", "hound", "poem.txt"]);
    eqnice!("4:no dog, no Fox, no hound tonight.\n", cmd.stdout());
});

// -N after -n turns line numbers off.
gstest!(no_line_number, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-N", "hound", "poem.txt"]);
    eqnice!("no dog, no Fox, no hound tonight.\n", cmd.stdout());
});

// Searching a directory prefixes each line with its path.
gstest!(directory_prefixes_path, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--sort", "path", "fox", "."]);
    let expected = "\
./a.txt:a fox
./a.txt:fox fox
./b.txt:fox
";
    eqnice!(expected, cmd.stdout());
});

// Two explicit files: both prefixed.
gstest!(
    two_explicit_files_prefix_path,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        cmd.args(["fox", "b.txt", "a.txt"]);
        // Explicit paths are searched in the order given with one thread.
        cmd.arg("-j1");
        eqnice!("b.txt:fox\na.txt:a fox\na.txt:fox fox\n", cmd.stdout());
    }
);

gstest!(with_filename_single_file, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-H", "-n", "fox", "b.txt"]);
    eqnice!("b.txt:1:fox\n", cmd.stdout());
});

gstest!(with_filename_long, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--with-filename", "fox", "b.txt"]);
    eqnice!("b.txt:fox\n", cmd.stdout());
});

gstest!(no_filename_directory, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-I", "--sort", "path", "fox", "."]);
    eqnice!("a fox\nfox fox\nfox\n", cmd.stdout());
});

// -H and -I override each other; the last one wins.
gstest!(
    no_filename_then_with_filename,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        cmd.args(["--no-filename", "-H", "fox", "b.txt"]);
        eqnice!("b.txt:fox\n", cmd.stdout());
    }
);

gstest!(heading, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--heading", "-n", "--sort", "path", "fox"]);
    let expected = "\
a.txt
1:a fox
3:fox fox

b.txt
1:fox
";
    eqnice!(expected, cmd.stdout());
});

// --heading has no effect on a single file (no file name is shown).
gstest!(heading_single_file, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--heading", "fox", "a.txt"]);
    eqnice!("a fox\nfox fox\n", cmd.stdout());
});

gstest!(
    no_heading_overrides_heading,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        cmd.args(["--heading", "--no-heading", "--sort", "path", "fox"]);
        eqnice!("a.txt:a fox\na.txt:fox fox\nb.txt:fox\n", cmd.stdout());
    }
);

gstest!(byte_offset, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-b", "dog", "poem.txt"]);
    let expected = "\
45:A grey dog sleeps beside the FOX den.
116:no dog, no Fox, no hound tonight.
";
    eqnice!(expected, cmd.stdout());
});

// With -o, the offset is that of each match, not of its line.
gstest!(byte_offset_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--byte-offset", "-o", "-n", "fox", "poem.txt"]);
    let expected = "\
1:9:fox
1:30:fox
3:83:fox
3:104:fox
5:173:fox
6:186:fox
";
    eqnice!(expected, cmd.stdout());
});

gstest!(column, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--column", "fox", "poem.txt"]);
    let expected = "\
1:10:Call the fox by name, and the fox will come.
3:1:foxglove grows where foxes hide;
5:24:The hunter waited; the fox did not.
6:1:fox
";
    eqnice!(expected, cmd.stdout());
});

// Columns count bytes, not characters.
gstest!(column_counts_bytes, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "ééé fox\n");
    cmd.args(["--column", "-o", "fox", "a.txt"]);
    eqnice!("1:8:fox\n", cmd.stdout());
});

// --column with -N still prints the column.
gstest!(column_no_line_number, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--column", "-N", "hound", "poem.txt"]);
    eqnice!("20:no dog, no Fox, no hound tonight.\n", cmd.stdout());
});

gstest!(only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-o", "-n", r"fox\w*", "poem.txt"]);
    let expected = "\
1:fox
1:fox
3:foxglove
3:foxes
5:fox
6:fox
";
    eqnice!(expected, cmd.stdout());
});

// -o with a pattern that can match the empty string: every empty match is
// printed as an empty line ("ab": "a" then the empty match at 2; "": one;
// "b": at 0 and at 1).
gstest!(only_matching_empty_matches, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "ab\n\nb\n");
    cmd.args(["-o", "a*", "a.txt"]);
    eqnice!("a\n\n\n\n\n", cmd.stdout());
});

gstest!(count, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-c", "fox", "poem.txt"]);
    eqnice!("4\n", cmd.stdout());
});

gstest!(count_directory, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-c", "--sort", "path", "fox"]);
    eqnice!("a.txt:2\nb.txt:1\n", cmd.stdout());
});

gstest!(count_matches, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--count-matches", "--sort", "path", "fox"]);
    eqnice!("a.txt:3\nb.txt:1\n", cmd.stdout());
});

// --count-matches with -v counts inverted lines.
gstest!(count_matches_invert, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--count-matches", "-v", "fox", "poem.txt"]);
    eqnice!("2\n", cmd.stdout());
});

// -c with -o counts matches, like --count-matches.
gstest!(count_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-c", "-o", "fox", "poem.txt"]);
    eqnice!("6\n", cmd.stdout());
});

gstest!(count_include_zero, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-c", "--include-zero", "--sort", "path", "fox"]);
    eqnice!("a.txt:2\nb.txt:1\nc.txt:0\n", cmd.stdout());
});

// --include-zero alone still exits 1 when nothing matched.
gstest!(count_include_zero_no_match, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-c", "--include-zero", "wolf", "c.txt"]);
    cmd.expect(1, "0\n");
});

gstest!(count_no_match, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-c", "wolf"]).assert_no_match();
});

// -c with -H on a single file prints the path.
gstest!(count_with_filename, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-c", "-H", "fox", "a.txt"]);
    eqnice!("a.txt:2\n", cmd.stdout());
});

gstest!(files_with_matches, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-l", "--sort", "path", "fox"]);
    eqnice!("a.txt\nb.txt\n", cmd.stdout());
});

// -l on one explicit file still prints its path.
gstest!(
    files_with_matches_single_file,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        cmd.args(["--files-with-matches", "fox", "a.txt"]);
        eqnice!("a.txt\n", cmd.stdout());
    }
);

gstest!(files_without_match, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--files-without-match", "--sort", "path", "no"]);
    eqnice!("b.txt\n", cmd.stdout());
});

// --files-without-match exits 0 when it printed a path, 1 otherwise.
gstest!(files_without_match_none, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--files-without-match", "o"]).assert_no_match();
});

// Files left at binary data (walked, so the search quits at the NUL) are
// listed neither with nor without a match, and get no count line, even
// with --include-zero; ripgrep 15.2 prints exactly this. Paths go before
// counts, and after -l, with -0 too.
gstest!(
    summaries_skip_files_left_at_binary_data,
    |dir: Dir, _cmd: TestCommand| {
        dir.create("a.txt", "hello\n");
        dir.create("c.txt", "nothing\n");
        dir.create_bytes("bin.dat", b"abc\0def\n");
        dir.create_bytes("binmatch.dat", b"hello\0x\n");
        let run = |args: &[&str]| {
            dir.command()
                .args(args)
                .args(["--sort", "path", "hello"])
                .stdout()
        };
        eqnice!("a.txt\n", run(&["-l"]));
        eqnice!("c.txt\n", run(&["--files-without-match"]));
        eqnice!("a.txt:1\nc.txt:0\n", run(&["-c", "--include-zero"]));
        eqnice!("a.txt:1\n", run(&["--count-matches"]));
        eqnice!("a.txt\0", run(&["-l", "-0"]));
        eqnice!(
            "a.txt\x001\nc.txt\x000\n",
            run(&["-c", "-0", "--include-zero"])
        );
    }
);

gstest!(files_with_matches_null, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-l", "-0", "--sort", "path", "fox"]);
    eqnice!("a.txt\0b.txt\0", cmd.stdout());
});

// With -0 on normal output, the path is followed by NUL instead of ':'.
gstest!(null_normal_output, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--null", "-n", "--sort", "path", "fox"]);
    eqnice!(
        "a.txt\u{0}1:a fox\na.txt\u{0}3:fox fox\nb.txt\u{0}1:fox\n",
        cmd.stdout()
    );
});

gstest!(null_count, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-0", "-c", "--sort", "path", "fox"]);
    eqnice!("a.txt\u{0}2\nb.txt\u{0}1\n", cmd.stdout());
});

gstest!(null_heading, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["-0", "--heading", "--sort", "path", "fox"]);
    eqnice!("a.txt\u{0}a fox\nfox fox\n\nb.txt\u{0}fox\n", cmd.stdout());
});

gstest!(quiet_match, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    let out = cmd.args(["-q", "fox", "poem.txt"]).expect(0, "");
    eqnice!("", out.stderr);
});

gstest!(quiet_no_match, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--quiet", "wolf", "poem.txt"]).assert_no_match();
});

gstest!(max_count, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-m", "2", "fox", "poem.txt"]);
    let expected = "\
1:Call the fox by name, and the fox will come.
3:foxglove grows where foxes hide;
";
    eqnice!(expected, cmd.stdout());
});

// -m applies per file.
gstest!(max_count_per_file, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--max-count", "1", "--sort", "path", "fox"]);
    eqnice!("a.txt:a fox\nb.txt:fox\n", cmd.stdout());
});

// -m 0 searches nothing: exit 1.
gstest!(max_count_zero, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-m", "0", "fox", "poem.txt"]).assert_no_match();
});

gstest!(max_count_invert, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-m1", "-v", "fox", "poem.txt"]);
    eqnice!("2:A grey dog sleeps beside the FOX den.\n", cmd.stdout());
});

// -m with -c counts at most NUM lines.
gstest!(max_count_count, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-c", "-m", "3", "fox", "poem.txt"]);
    eqnice!("3\n", cmd.stdout());
});

// -m limits lines, not matches: -o prints every match of those lines.
gstest!(max_count_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-o", "-m", "1", "fox", "poem.txt"]);
    eqnice!("fox\nfox\n", cmd.stdout());
});

gstest!(vimgrep, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--vimgrep", "--sort", "path", "fox"]);
    let expected = "\
a.txt:1:3:a fox
a.txt:3:1:fox fox
a.txt:3:5:fox fox
b.txt:1:1:fox
";
    eqnice!(expected, cmd.stdout());
});

gstest!(
    vimgrep_single_file_has_path,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["--vimgrep", "hound", "poem.txt"]);
        eqnice!(
            "poem.txt:4:20:no dog, no Fox, no hound tonight.\n",
            cmd.stdout()
        );
    }
);

gstest!(vimgrep_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--vimgrep", "-o", "fox", "poem.txt"]);
    let expected = "\
poem.txt:1:10:fox
poem.txt:1:31:fox
poem.txt:3:1:fox
poem.txt:3:22:fox
poem.txt:5:24:fox
poem.txt:6:1:fox
";
    eqnice!(expected, cmd.stdout());
});

// Piped stdout: --color auto means no color.
gstest!(color_auto_piped_is_plain, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--color", "auto", "-n", "fox", "b.txt"]);
    eqnice!("1:fox\n", cmd.stdout());
});

gstest!(color_never, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--color=never", "-H", "-n", "fox", "b.txt"]);
    eqnice!("b.txt:1:fox\n", cmd.stdout());
});

// Default colors: path magenta (35), line number green (32), match bold
// red (1;31), each span reset with \x1b[0m, and a reset before each span.
gstest!(color_always, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args([
        "--color", "always", "-n", "--column", "--sort", "path", "fox",
    ]);
    let expected = "\
\x1b[0m\x1b[35ma.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m3\x1b[0m:a \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
\x1b[0m\x1b[35ma.txt\x1b[0m:\x1b[0m\x1b[32m3\x1b[0m:\x1b[0m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
\x1b[0m\x1b[35mb.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
";
    eqnice!(expected, cmd.stdout());
});

gstest!(
    color_always_heading_context,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        cmd.args([
            "--color",
            "always",
            "--heading",
            "-n",
            "-b",
            "-C1",
            "--sort",
            "path",
            "fox",
        ]);
        let expected = "\
\x1b[0m\x1b[35ma.txt\x1b[0m
\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m0\x1b[0m:a \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
\x1b[0m\x1b[32m2\x1b[0m-\x1b[0m6\x1b[0m-no
\x1b[0m\x1b[32m3\x1b[0m:\x1b[0m9\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m

\x1b[0m\x1b[35mb.txt\x1b[0m
\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m0\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
";
        eqnice!(expected, cmd.stdout());
    }
);

gstest!(
    color_always_count_and_files,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        cmd.args(["--color", "always", "-c", "--sort", "path", "fox"]);
        eqnice!(
            "\x1b[0m\x1b[35ma.txt\x1b[0m:2\n\x1b[0m\x1b[35mb.txt\x1b[0m:1\n",
            cmd.stdout()
        );
        let mut cmd = dir.command();
        cmd.args(["--color", "always", "-l", "--sort", "path", "fox"]);
        eqnice!(
            "\x1b[0m\x1b[35ma.txt\x1b[0m\n\x1b[0m\x1b[35mb.txt\x1b[0m\n",
            cmd.stdout()
        );
    }
);

// -o with color: only the match, colored.
gstest!(color_always_only_matching, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--color", "always", "-o", "fox", "b.txt"]);
    eqnice!("\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m\n", cmd.stdout());
});

// Inverted lines have nothing to highlight.
gstest!(color_always_invert, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--color", "always", "-v", "fox", "a.txt"]);
    eqnice!("no\n", cmd.stdout());
});

// Context separator and context line numbers under color: the separator
// is plain.
gstest!(
    color_always_context_separator,
    |dir: Dir, cmd: TestCommand| {
        cmd.args(["--color", "always", "-n", "-C1", "fox"])
            .pipe("x\nfox\ny\nz\n\n\nfox\n");
        let expected = "\
\x1b[0m\x1b[32m1\x1b[0m-x
\x1b[0m\x1b[32m2\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
\x1b[0m\x1b[32m3\x1b[0m-y
--
\x1b[0m\x1b[32m6\x1b[0m-
\x1b[0m\x1b[32m7\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
";
        eqnice!(expected, cmd.stdout());
    }
);

gstest!(color_always_vimgrep, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--color", "always", "--vimgrep", "fox", "a.txt"]);
    let expected = "\
\x1b[0m\x1b[35ma.txt\x1b[0m:\x1b[0m\x1b[32m1\x1b[0m:\x1b[0m3\x1b[0m:a \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
\x1b[0m\x1b[35ma.txt\x1b[0m:\x1b[0m\x1b[32m3\x1b[0m:\x1b[0m1\x1b[0m:\x1b[0m\x1b[1m\x1b[31mfox\x1b[0m fox
\x1b[0m\x1b[35ma.txt\x1b[0m:\x1b[0m\x1b[32m3\x1b[0m:\x1b[0m5\x1b[0m:fox \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m
";
    eqnice!(expected, cmd.stdout());
});

// Unsorted output (--sort none, the default) holds the same lines.
gstest!(sort_none, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    dir.create("sub/d.txt", "fox\n");
    cmd.args(["--sort", "none", "fox"]);
    let expected = "a.txt:a fox\na.txt:fox fox\nb.txt:fox\nsub/d.txt:fox\n";
    eqnice!(expected, sort_lines(&cmd.stdout()));
});

// --sort path orders by path component-wise: a/ entries before a.txt?
// No: "sub/d.txt" sorts by its components, after "b.txt" and before "z.txt".
gstest!(sort_path_nested, |dir: Dir, cmd: TestCommand| {
    dir.create("z.txt", "fox\n");
    dir.create("sub/d.txt", "fox\n");
    dir.create("sub/a/e.txt", "fox\n");
    dir.create("a.txt", "fox\n");
    dir.create("sub-x.txt", "fox\n");
    cmd.args(["--sort", "path", "-l", "fox"]);
    eqnice!(
        "a.txt\nsub/a/e.txt\nsub/d.txt\nsub-x.txt\nz.txt\n",
        cmd.stdout()
    );
});

// --stats: the counting lines that do not depend on time.
gstest!(stats, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--stats", "--sort", "path", "fox"]);
    let out = cmd.stdout();
    let expected_prefix = "a.txt:a fox\na.txt:fox fox\nb.txt:fox\n\n";
    assert!(out.starts_with(expected_prefix), "got:\n{out}");
    for line in [
        "\n4 matches\n",
        "\n3 matched lines\n",
        "\n2 files contained matches\n",
        "\n3 files searched\n",
        "\n36 bytes printed\n",
        "\n34 bytes searched\n",
    ] {
        assert!(out.contains(line), "stats lack {line:?}:\n{out}");
    }
    assert!(out.contains(" seconds spent searching\n"), "{out}");
});

// --stats with -q prints only the stats.
gstest!(stats_quiet, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--stats", "-q", "fox", "b.txt"]);
    let out = cmd.stdout();
    assert!(
        out.starts_with("\n1 matches\n1 matched lines\n1 files contained matches\n"),
        "{out}"
    );
});

// A file without a trailing newline: the printed line gets one.
gstest!(no_trailing_newline, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "one\nfox two");
    cmd.args(["-n", "fox", "a.txt"]);
    eqnice!("2:fox two\n", cmd.stdout());
});

// CRLF files: the \r stays part of the line (no --crlf).
gstest!(crlf_kept, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\r\nno\r\n");
    cmd.args(["fox", "a.txt"]);
    eqnice!("fox\r\n", cmd.stdout());
});

// $ does not match before \r without --crlf.
gstest!(crlf_dollar, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\r\nfox\n");
    cmd.args(["-n", "fox$", "a.txt"]);
    eqnice!("2:fox\n", cmd.stdout());
});

// Long lines and many matches across a large file, with batch boundaries
// crossed on the OpenCL engine.
gstest!(large_file_counts, |dir: Dir, cmd: TestCommand| {
    let mut text = String::new();
    for i in 0..5000 {
        if i % 7 == 0 {
            text.push_str(&format!("line {i} has the needle here\n"));
        } else {
            text.push_str(&format!("line {i} is just filler text, nothing to see\n"));
        }
    }
    dir.create("big.txt", &text);
    cmd.small_batches().args(["-c", "needle", "big.txt"]);
    eqnice!("715\n", cmd.stdout());
    let mut cmd = dir.command();
    cmd.small_batches()
        .args(["-n", "-m", "3", "needle", "big.txt"]);
    eqnice!(
        "1:line 0 has the needle here\n8:line 7 has the needle here\n15:line 14 has the needle here\n",
        cmd.stdout()
    );
});

// Matches right at the end of a file, at the end of batches and in the
// last line without a newline.
gstest!(large_file_tail_match, |dir: Dir, cmd: TestCommand| {
    let mut text = "x".repeat(4095);
    text.push('\n');
    text.push_str(&"y".repeat(10000));
    text.push_str("\nzzz needle");
    dir.create("big.txt", &text);
    cmd.small_batches().args(["-n", "-b", "needle", "big.txt"]);
    eqnice!("3:14097:zzz needle\n", cmd.stdout());
});

// A needle split across the 4 KiB boundary must still be found.
gstest!(match_across_batch_boundary, |dir: Dir, cmd: TestCommand| {
    let mut text = "a".repeat(4094);
    text.push_str("needle\n");
    text.push_str(&"b".repeat(100));
    text.push('\n');
    dir.create("big.txt", &text);
    cmd.small_batches().args(["-o", "-b", "needle", "big.txt"]);
    eqnice!("4094:needle\n", cmd.stdout());
});

// Many small files packed into batches: each match stays with its file.
gstest!(many_small_files, |dir: Dir, cmd: TestCommand| {
    let mut expected = String::new();
    for i in 0..300 {
        let name = format!("f{i:03}.txt");
        if i % 3 == 0 {
            dir.create(&name, &format!("head\nneedle {i}\ntail\n"));
            expected.push_str(&format!("{name}:2:needle {i}\n"));
        } else {
            dir.create(&name, "head\nneedl\needle\n");
        }
    }
    cmd.small_batches().args(["-n", "--sort", "path", "needle"]);
    eqnice!(expected, cmd.stdout());
});
