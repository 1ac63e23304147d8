//! How patterns are given and interpreted: -e, -f, -F, case, -w, -x, -v.

use crate::POEM;
use crate::util::{Dir, TestCommand, prog};

// A single explicit file: no file name prefix, no line numbers (not a tty).
gstest!(basic_literal, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["fox", "poem.txt"]);
    let expected = "\
Call the fox by name, and the fox will come.
foxglove grows where foxes hide;
The hunter waited; the fox did not.
fox
";
    eqnice!(expected, cmd.stdout());
});

gstest!(basic_regex, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", r"d[a-z]g\b", "poem.txt"]);
    let expected = "\
2:A grey dog sleeps beside the FOX den.
4:no dog, no Fox, no hound tonight.
";
    eqnice!(expected, cmd.stdout());
});

gstest!(no_match_exit_1, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["wolf", "poem.txt"]).assert_no_match();
});

// Several -e: a line matching any of them is printed once.
gstest!(multiple_e, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-e", "dog", "-e", "hunter", "-e", "grey", "poem.txt"]);
    let expected = "\
2:A grey dog sleeps beside the FOX den.
4:no dog, no Fox, no hound tonight.
5:The hunter waited; the fox did not.
";
    eqnice!(expected, cmd.stdout());
});

// -e lets a pattern start with a dash.
gstest!(e_pattern_with_dash, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a -v b\nnothing\n");
    cmd.args(["-e", "-v", "a.txt"]);
    eqnice!("a -v b\n", cmd.stdout());
});

// With -e, the first positional argument is a path, not a pattern.
gstest!(e_then_positional_is_path, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "dog\n");
    dir.create("dog", "a dog file\n");
    cmd.args(["-e", "dog", "dog"]);
    eqnice!("a dog file\n", cmd.stdout());
});

// -o with several patterns reports each match, leftmost first.
gstest!(multiple_e_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-o", "-e", "fox", "-e", "dog", "poem.txt"]);
    let expected = "fox\nfox\ndog\nfox\nfox\ndog\nfox\nfox\n";
    eqnice!(expected, cmd.stdout());
});

// Alternation prefers the leftmost match, then the first alternative.
gstest!(alternation_leftmost_first, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foxglove\n");
    cmd.args(["-o", "fox|foxglove", "a.txt"]);
    eqnice!("fox\n", cmd.stdout());
});

gstest!(pattern_file, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    dir.create("pats", "hound\ngrey\n");
    cmd.args(["-n", "-f", "pats", "poem.txt"]);
    let expected = "\
2:A grey dog sleeps beside the FOX den.
4:no dog, no Fox, no hound tonight.
";
    eqnice!(expected, cmd.stdout());
});

// A pattern file without a trailing newline, with CRLF line ends: the \r
// is stripped (ripgrep reads pattern files line by line).
gstest!(
    pattern_file_crlf_no_trailing_newline,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        dir.create("pats", "hound\r\ngrey");
        cmd.args(["-n", "-f", "pats", "poem.txt"]);
        let expected = "\
2:A grey dog sleeps beside the FOX den.
4:no dog, no Fox, no hound tonight.
";
        eqnice!(expected, cmd.stdout());
    }
);

// An empty pattern file holds no pattern: nothing can match.
gstest!(pattern_file_empty, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    dir.create("pats", "");
    cmd.args(["-f", "pats", "poem.txt"]).assert_no_match();
});

// A blank line in a pattern file is the empty pattern: it matches every
// line.
gstest!(
    pattern_file_blank_line_matches_all,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "one\ntwo\n\nthree\n");
        dir.create("pats", "zzz\n\n");
        cmd.args(["-n", "-f", "pats", "a.txt"]);
        eqnice!("1:one\n2:two\n3:\n4:three\n", cmd.stdout());
    }
);

// -f - reads the patterns from stdin; the path is then searched.
gstest!(pattern_file_stdin, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-f", "-", "poem.txt"])
        .pipe("hunter\nhound\n");
    let expected = "\
4:no dog, no Fox, no hound tonight.
5:The hunter waited; the fox did not.
";
    eqnice!(expected, cmd.stdout());
});

// -f and -e combine.
gstest!(pattern_file_and_e, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    dir.create("pats", "hound\n");
    cmd.args(["-n", "-f", "pats", "-e", "Call", "poem.txt"]);
    let expected = "\
1:Call the fox by name, and the fox will come.
4:no dog, no Fox, no hound tonight.
";
    eqnice!(expected, cmd.stdout());
});

gstest!(pattern_file_missing, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-f", "nope", "poem.txt"]);
    let out = cmd.assert_error(&["nope", "No such file or directory"]);
    eqnice!("", out.stdout);
});

// The empty pattern matches every line, including empty ones.
gstest!(empty_pattern_matches_all, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "one\n\ntwo\n");
    cmd.args(["-n", "", "a.txt"]);
    eqnice!("1:one\n2:\n3:two\n", cmd.stdout());
});

// A literal \n inside a -e pattern is an error without -U (ripgrep does not
// split -e patterns on newlines; only -f files are read line by line).
gstest!(
    newline_in_e_pattern_is_error,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "foo\nbaz\n");
        cmd.args(["-e", "foo\nbaz", "a.txt"]);
        let out = cmd.assert_error(&[r#"the literal "\n" is not allowed in a regex"#]);
        eqnice!("", out.stdout);
    }
);

gstest!(fixed_strings, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a.c\nabc\n(x+y)*2\nx+y\n");
    cmd.args(["-F", "-e", "a.c", "-e", "(x+y)", "a.txt"]);
    eqnice!("a.c\n(x+y)*2\n", cmd.stdout());
});

// -F makes an otherwise invalid regex a plain literal.
gstest!(
    fixed_strings_invalid_regex_ok,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "f(x\nfx\n");
        cmd.args(["-F", "f(", "a.txt"]);
        eqnice!("f(x\n", cmd.stdout());
    }
);

// Many literals: the set is big enough to take a multi-pattern path.
gstest!(fixed_strings_many, |dir: Dir, cmd: TestCommand| {
    let pats: String = (0..200).map(|i| format!("word{i:03}x\n")).collect();
    dir.create("pats", &pats);
    dir.create("a.txt", "word007x\nword7x\nzzz word199x zzz\nword200x\n");
    cmd.args(["-F", "-f", "pats", "a.txt"]);
    eqnice!("word007x\nzzz word199x zzz\n", cmd.stdout());
});

gstest!(ignore_case, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-i", "fox ", "poem.txt"]);
    let expected = "\
1:Call the fox by name, and the fox will come.
2:A grey dog sleeps beside the FOX den.
5:The hunter waited; the fox did not.
";
    eqnice!(expected, cmd.stdout());
});

gstest!(ignore_case_fixed_strings, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-c", "-i", "-F", "FOX", "poem.txt"]);
    eqnice!("6\n", cmd.stdout());
});

// Smart case: all lower case -> insensitive.
gstest!(smart_case_lower, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-S", "fox,", "poem.txt"]);
    eqnice!("4:no dog, no Fox, no hound tonight.\n", cmd.stdout());
});

// Smart case: an upper-case letter -> sensitive.
gstest!(smart_case_upper, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "--smart-case", "Fox", "poem.txt"]);
    eqnice!("4:no dog, no Fox, no hound tonight.\n", cmd.stdout());
});

// Smart case ignores escapes and classes: \W has an upper-case letter
// but is not a literal, so the pattern stays case insensitive.
gstest!(
    smart_case_escape_not_literal,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "FOX.\nfox!\nfoxy\n");
        cmd.args(["-S", r"fox\W", "a.txt"]);
        eqnice!("FOX.\nfox!\n", cmd.stdout());
    }
);

// -s overrides an earlier -i (the last flag wins).
gstest!(
    case_sensitive_overrides_ignore_case,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["-c", "-i", "-s", "fox", "poem.txt"]);
        eqnice!("4\n", cmd.stdout());
    }
);

// ... and -i after -s wins too.
gstest!(
    ignore_case_overrides_case_sensitive,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["-c", "-s", "-i", "fox", "poem.txt"]);
        eqnice!("6\n", cmd.stdout());
    }
);

// Inline flags work inside the pattern.
gstest!(
    inline_flag_case_insensitive,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["-n", "(?i)fox den", "poem.txt"]);
        eqnice!("2:A grey dog sleeps beside the FOX den.\n", cmd.stdout());
    }
);

// (?-i) turns case folding off again for part of a pattern under -i.
gstest!(inline_flag_off_under_i, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "Fox Den\nFox den\nfox den\n");
    cmd.args(["-i", "fox (?-i)den", "a.txt"]);
    eqnice!("Fox den\nfox den\n", cmd.stdout());
});

// Simple Unicode case folding: ſ (long s) folds to s, K (Kelvin) to k.
gstest!(
    unicode_case_fold_long_s_kelvin,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "maſt\nmast\nMAST\n\u{212A}ing\nking\n");
        cmd.args(["-i", "-e", "mast", "-e", "king", "a.txt"]);
        eqnice!("maſt\nmast\nMAST\n\u{212A}ing\nking\n", cmd.stdout());
    }
);

// Σ, σ and ς are one case class.
gstest!(unicode_case_fold_sigma, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "ΣΟΦΟΣ\nσοφος\nσοφοσ\nσοφ\n");
    cmd.args(["-i", "σοφος", "a.txt"]);
    eqnice!("ΣΟΦΟΣ\nσοφος\nσοφοσ\n", cmd.stdout());
});

// ß has no simple upper-case mapping; ẞ (U+1E9E) folds to it, "SS" does not.
gstest!(unicode_case_fold_sharp_s, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "straße\nSTRAẞE\nSTRASSE\n");
    cmd.args(["-i", "straße", "a.txt"]);
    eqnice!("straße\nSTRAẞE\n", cmd.stdout());
});

gstest!(unicode_case_fold_cyrillic, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "Привет, МИР\nпривет, мир\nпока\n");
    cmd.args(["-n", "-i", "мир", "a.txt"]);
    eqnice!("1:Привет, МИР\n2:привет, мир\n", cmd.stdout());
});

// Smart case sees the upper-case Cyrillic letter.
gstest!(smart_case_cyrillic_upper, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "Привет, МИР\nпривет, мир\n");
    cmd.args(["-S", "Привет", "a.txt"]);
    eqnice!("Привет, МИР\n", cmd.stdout());
});

// -o with -i reports the text as it is in the file.
gstest!(
    ignore_case_only_matching_keeps_case,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["-o", "-i", "fox\\b", "poem.txt"]);
        eqnice!("fox\nfox\nFOX\nFox\nfox\nfox\n", cmd.stdout());
    }
);

gstest!(word_regexp, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-w", "fox", "poem.txt"]);
    let expected = "\
1:Call the fox by name, and the fox will come.
5:The hunter waited; the fox did not.
6:fox
";
    eqnice!(expected, cmd.stdout());
});

// -w with a pattern whose ends are not word characters.
gstest!(word_regexp_non_word_ends, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "x -- y\nx--y\n--\n");
    cmd.args(["-n", "-w", "--", "--", "a.txt"]);
    eqnice!("1:x -- y\n3:--\n", cmd.stdout());
});

// -w -o: a line where the first candidate is inside a word but a later one
// stands alone.
gstest!(
    word_regexp_later_occurrence,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "foxes fox\nfoxes\n");
        cmd.args(["-o", "-b", "-w", "fox", "a.txt"]);
        eqnice!("6:fox\n", cmd.stdout());
    }
);

gstest!(line_regexp, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-x", "fox", "poem.txt"]);
    eqnice!("6:fox\n", cmd.stdout());
});

gstest!(line_regexp_alternation, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "ab\nabc\nc\nxc\n");
    cmd.args(["-x", "ab|c", "a.txt"]);
    eqnice!("ab\nc\n", cmd.stdout());
});

// -x then -w: the later -w overrides -x (they are mutually overriding).
gstest!(line_regexp_and_word_regexp, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\nthe fox\n");
    cmd.args(["-x", "-w", "fox", "a.txt"]);
    eqnice!("fox\nthe fox\n", cmd.stdout());
});

gstest!(invert_match, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-v", "fox", "poem.txt"]);
    let expected = "\
2:A grey dog sleeps beside the FOX den.
4:no dog, no Fox, no hound tonight.
";
    eqnice!(expected, cmd.stdout());
});

gstest!(
    invert_match_ignore_case_none_left,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["-v", "-i", "fox", "poem.txt"]).assert_no_match();
    }
);

gstest!(
    invert_match_multiple_patterns,
    |dir: Dir, cmd: TestCommand| {
        dir.create("poem.txt", POEM);
        cmd.args(["-v", "-e", "dog", "-e", "fox", "poem.txt"]);
        eqnice!("", cmd.expect(1, "").stderr);
    }
);

gstest!(invert_match_count, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-c", "-v", "dog", "poem.txt"]);
    eqnice!("4\n", cmd.stdout());
});

// Anchors apply per line.
gstest!(anchors_per_line, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-n", "-e", "^no", "-e", "not\\.$", "poem.txt"]);
    let expected = "\
4:no dog, no Fox, no hound tonight.
5:The hunter waited; the fox did not.
";
    eqnice!(expected, cmd.stdout());
});

// \s does not cross a line: the line terminator is never matched.
gstest!(
    whitespace_class_does_not_cross_lines,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "end\nstart\n");
        cmd.args([r"end\s+start", "a.txt"]).assert_no_match();
    }
);

// A negated class does not match the line terminator either.
gstest!(negated_class_stays_in_line, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a\nb\n");
    cmd.args(["-c", "a[^x]b", "a.txt"]).assert_no_match();
});

gstest!(unicode_class, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "abc\nαβγ\n123\nЖ\n");
    cmd.args(["-n", r"^\p{Greek}+$|^\p{Cyrillic}$", "a.txt"]);
    eqnice!("2:αβγ\n4:Ж\n", cmd.stdout());
});

// \w is Unicode-aware by default.
gstest!(unicode_word_class, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "naïve\n");
    cmd.args(["-o", r"\w+", "a.txt"]);
    eqnice!("naïve\n", cmd.stdout());
});

// A pattern with invalid regex syntax: exit 2 and the parse error, with a
// caret under the offending position.
gstest!(invalid_regex, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["foo[bar", "a.txt"]);
    let out = cmd.assert_error(&[
        &format!("{}: regex parse error:", prog()),
        "foo[bar",
        "\n          ^\n",
        "error: unclosed character class",
    ]);
    eqnice!("", out.stdout);
});

gstest!(invalid_regex_repetition, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["x{2,1}", "a.txt"]);
    cmd.assert_error(&[
        "regex parse error:",
        "\n        ^^^^^\n",
        "error: invalid repetition count range, the start must be <= the end",
    ]);
});

gstest!(
    invalid_regex_unclosed_group,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "foo\n");
        cmd.args(["-e", "ok", "-e", "a(", "a.txt"]);
        cmd.assert_error(&["regex parse error:", "error: unclosed group"]);
    }
);

// An invalid pattern in a pattern file is an error too.
gstest!(
    invalid_regex_in_pattern_file,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "foo\n");
        dir.create("pats", "foo\n\\p{Nope}\n");
        cmd.args(["-f", "pats", "a.txt"]);
        cmd.assert_error(&["regex parse error:", "error: Unicode property not found"]);
    }
);

// A pattern given after `--` may start with a dash.
gstest!(double_dash_pattern, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "x -n y\n");
    cmd.args(["--", "-n", "a.txt"]);
    eqnice!("x -n y\n", cmd.stdout());
});

// No pattern at all is a usage error.
gstest!(no_pattern_is_error, |dir: Dir, cmd: TestCommand| {
    let out = cmd.expect_code(2);
    eqnice!("", out.stdout);
    assert!(!out.stderr.is_empty());
});

// Invalid UTF-8 in the haystack: a pattern still matches the valid parts,
// and the line is printed as is.
gstest!(invalid_utf8_haystack, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("a.txt", b"caf\xE9 fox\nplain\n");
    cmd.args(["fox", "a.txt"]);
    eqnice!(b"caf\xE9 fox\n", cmd.expect(0, b"caf\xE9 fox\n").stdout);
});

// \xE9 as a byte-escape needs (?-u); in Unicode mode it is the character é.
gstest!(unicode_escape_matches_char, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "café\n");
    cmd.args([r"caf\xE9", "a.txt"]);
    eqnice!("café\n", cmd.stdout());
});

gstest!(byte_escape_non_unicode, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("a.txt", b"caf\xE9\ncaf\xC3\xA9\n");
    cmd.args(["-c", r"(?-u)caf\xE9", "a.txt"]);
    eqnice!("1\n", cmd.stdout());
});

// A big word list (100+ patterns: the hashed finder) gives the regex's
// leftmost-first matches for -o and --count-matches: earlier listed
// patterns win at one position, prefixes and duplicates included, and
// under -i the Kelvin sign and long s count as k and s.
gstest!(word_list_leftmost_first, |dir: Dir, cmd: TestCommand| {
    let mut words: Vec<String> = vec!["ab", "abcd", "abc", "b", "ka", "sk", "w1", "ab", "KA"]
        .into_iter()
        .map(String::from)
        .collect();
    words.extend((0..200).map(|i| format!("w{}", i * 7 % 201)));
    words.push("w10x".to_string());
    dir.create("words", &(words.join("\n") + "\n"));
    let text = "abcd w10 w1 KA \u{17F}k \u{212A}a w199x\nxx abcab w10x\nnothing here\nw14w140\n";
    dir.create("a.txt", text);
    let alternation = words.join("|");
    for flags in [
        &["-o"][..],
        &["--count-matches"],
        &["-o", "-i"],
        &["-c", "-i"],
        &["-o", "-b"],
    ] {
        let mut want = dir.command();
        want.args(flags).args(["-e", &alternation, "a.txt"]);
        let mut got = dir.command();
        got.args(flags).args(["-F", "-f", "words", "a.txt"]);
        eqnice!(want.stdout(), got.stdout());
    }
    cmd.args(["-o", "-F", "-f", "words", "a.txt"]);
    eqnice!("ab\nw1\nw1\nKA\nw1\nab\nab\nw1\nw1\nw1\n", cmd.stdout());
});

// --count-matches and --stats over a file read in chunks (the parallel
// counters on the OpenCL engine) equal ripgrep's printer on the CPU:
// matches per line, matched lines, bytes searched.
gstest!(
    word_list_match_counts_and_stats,
    |dir: Dir, cmd: TestCommand| {
        let words: Vec<String> = (0..150).map(|i| format!("id{}", i * 13 % 151)).collect();
        dir.create("words", &(words.join("\n") + "\n"));
        let mut text = String::new();
        for i in 0..3000 {
            match i % 5 {
                0 => text.push_str(&format!("id{} and id{}id{} x\n", i % 151, i % 7, i % 150)),
                1 => text.push_str("nothing at all on this line\n"),
                2 => text.push_str(&format!(
                    "id1{} id1 id id15 {}\n",
                    i % 9,
                    "z".repeat(i % 40)
                )),
                _ => text.push_str(&format!("line {i} without\n")),
            }
        }
        dir.create("a.txt", &text);
        let stable = |out: String| -> String {
            out.lines()
                .take_while(|l| !l.starts_with("engine:"))
                .filter(|l| !l.contains("seconds"))
                .map(|l| format!("{l}\n"))
                .collect()
        };
        for flags in [
            &["--count-matches"][..],
            &["-c", "--stats"],
            &["--count-matches", "--stats"],
            &["-c", "-i", "--stats"],
        ] {
            let mut want = dir.command();
            want.args(["--engine", "cpu"])
                .args(flags)
                .args(["-F", "-f", "words", "a.txt"]);
            let mut got = dir.command();
            got.small_batches()
                .args(flags)
                .args(["-F", "-f", "words", "a.txt"]);
            eqnice!(stable(want.stdout()), stable(got.stdout()));
        }
        cmd.args(["--count-matches", "-F", "-f", "words", "a.txt"]);
        assert!(cmd.stdout().trim().parse::<u64>().unwrap() > 2000);
    }
);
