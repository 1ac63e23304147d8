//! Regexes without a literal set: on `--engine opencl` the DFA kernel
//! (`kernels/dfa.cl`) decides candidate lines and the CPU confirms them.
//! Unicode classes, look-around, case folding, anchors, counted
//! repetitions, alternations, non-ASCII text, long lines across segments
//! and batches, matches at the first and last byte.

use crate::util::{Dir, Engine, TestCommand};

const TEXT: &str = "\
Größe 42 straße
ΑΒΓ δέλτα 7
plain ascii 123
the word café costs 5€
id=deadbeef12 and 0xCAFE
KEY_ABCD9 value
x
";

fn search_text(dir: &Dir, cmd: &mut TestCommand, args: &[&str]) -> String {
    dir.create("t.txt", TEXT);
    cmd.args(args).arg("t.txt");
    cmd.stdout()
}

gstest!(dfa_unicode_word_class, |dir: Dir, cmd: TestCommand| {
    eqnice!(
        "1:Größe 42 straße\n",
        search_text(&dir, &mut cmd, &["-n", r"\w+ß"])
    );
});

gstest!(dfa_unicode_script_class, |dir: Dir, cmd: TestCommand| {
    eqnice!(
        "2:ΑΒΓ δέλτα 7\n",
        search_text(&dir, &mut cmd, &["-n", r"\p{Greek}{3}"])
    );
});

gstest!(dfa_word_boundary, |dir: Dir, cmd: TestCommand| {
    let expected = "2:ΑΒΓ δέλτα 7\n4:the word café costs 5€\n";
    eqnice!(expected, search_text(&dir, &mut cmd, &["-n", r"\b\d\b"]));
});

gstest!(dfa_word_flag, |dir: Dir, cmd: TestCommand| {
    let expected = "2:ΑΒΓ δέλτα 7\n4:the word café costs 5€\n";
    eqnice!(expected, search_text(&dir, &mut cmd, &["-n", "-w", r"\d"]));
});

gstest!(
    dfa_case_insensitive_non_ascii,
    |dir: Dir, cmd: TestCommand| {
        eqnice!(
            "2:ΑΒΓ δέλτα 7\n",
            search_text(&dir, &mut cmd, &["-n", r"(?i)αβγ\s+\w"])
        );
    }
);

gstest!(dfa_anchors, |dir: Dir, cmd: TestCommand| {
    eqnice!("7:x\n", search_text(&dir, &mut cmd, &["-n", r"^\w$"]));
});

gstest!(dfa_whole_line, |dir: Dir, cmd: TestCommand| {
    eqnice!("7:x\n", search_text(&dir, &mut cmd, &["-n", "-x", r"\w"]));
});

gstest!(dfa_counted_repetition, |dir: Dir, cmd: TestCommand| {
    eqnice!(
        "5:id=deadbeef12 and 0xCAFE\n",
        search_text(&dir, &mut cmd, &["-n", r"[a-f0-9]{8}"])
    );
});

gstest!(dfa_alternation_of_patterns, |dir: Dir, cmd: TestCommand| {
    let expected = "3:plain ascii 123\n6:KEY_ABCD9 value\n";
    eqnice!(
        expected,
        search_text(&dir, &mut cmd, &["-n", "-e", r"\d{3}", "-e", r"[A-Z]{4}\d"])
    );
});

gstest!(dfa_only_matching_non_ascii, |dir: Dir, cmd: TestCommand| {
    eqnice!(
        "café\n",
        search_text(&dir, &mut cmd, &["-o", r"[[:alpha:]]+é"])
    );
});

gstest!(dfa_count, |dir: Dir, cmd: TestCommand| {
    eqnice!("1\n", search_text(&dir, &mut cmd, &["-c", r"\S+€"]));
});

gstest!(dfa_every_line, |dir: Dir, cmd: TestCommand| {
    eqnice!("7\n", search_text(&dir, &mut cmd, &["-c", r"^\w*"]));
});

gstest!(
    dfa_simple_case_folding_only,
    |dir: Dir, cmd: TestCommand| {
        dir.create("t.txt", TEXT);
        cmd.args(["-i", "STRASSE", "t.txt"]).assert_no_match();
    }
);

/// A text whose lines are longer than a work-item's segment (1 KiB) and
/// than a batch (4 KiB with `small_batches`), with matches at the first
/// and the last byte of the file and around the batch boundaries.
fn long_text() -> (String, Vec<usize>) {
    let mut lines: Vec<String> = Vec::new();
    let mut want = Vec::new();
    lines.push("7z starts the file".into());
    want.push(0);
    lines.push("a".repeat(9000) + "12z");
    want.push(1);
    lines.push("b".repeat(9000) + "1y");
    lines.push("c".repeat(5000));
    for i in 0..40 {
        // Short lines: some straddle the 4 KiB batch boundaries.
        let l = if i % 7 == 3 {
            want.push(lines.len());
            format!("{}{}z", "d".repeat(97 + i), i)
        } else {
            format!("{}{}y", "d".repeat(97 + i), i)
        };
        lines.push(l);
    }
    lines.push("e".repeat(4095));
    // The file's last byte (no newline after it) ends a match.
    want.push(lines.len());
    lines.push("ends with 9z".into());
    (lines.join("\n"), want)
}

gstest!(
    dfa_long_lines_and_batch_edges,
    |dir: Dir, cmd: TestCommand| {
        let (text, want) = long_text();
        dir.create("long.txt", &text);
        let lines: Vec<&str> = text.split('\n').collect();
        let expected: String = want
            .iter()
            .map(|&i| format!("{}:{}\n", i + 1, lines[i]))
            .collect();
        cmd.small_batches().args(["-n", r"\d+z", "long.txt"]);
        eqnice!(expected, cmd.stdout());
    }
);

gstest!(dfa_long_lines_count, |dir: Dir, cmd: TestCommand| {
    let (text, want) = long_text();
    dir.create("long.txt", &text);
    cmd.small_batches().args(["-c", r"\d+z", "long.txt"]);
    eqnice!(format!("{}\n", want.len()), cmd.stdout());
});

gstest!(dfa_many_small_files, |dir: Dir, cmd: TestCommand| {
    for i in 0..30 {
        let body = if i % 4 == 0 {
            format!("head\nval {i}z\n")
        } else {
            format!("val {i}y\nnone")
        };
        dir.create(format!("f{i:02}.txt"), &body);
    }
    cmd.small_batches().args(["--sort", "path", "-n", r"\d+z"]);
    let expected: String = (0..30)
        .filter(|i| i % 4 == 0)
        .map(|i| format!("f{i:02}.txt:2:val {i}z\n"))
        .collect();
    eqnice!(expected, cmd.stdout());
});

// The device decided the candidate lines (the DFA kernel ran).
gstest!(dfa_stats_name_the_kernel, |dir: Dir, cmd: TestCommand| {
    dir.create("t.txt", TEXT);
    let out = cmd.args(["--stats", r"\d{3}", "t.txt"]).stdout();
    if dir.engine() == Engine::OpenCl {
        assert!(out.contains("kernel: dfa"), "{out}");
        assert!(
            out.contains("candidate lines confirmed on the CPU"),
            "{out}"
        );
    }
});
