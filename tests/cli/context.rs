//! Context lines: -A, -B, -C, separators, and their interplay with -m, -v.

use crate::util::{Dir, TestCommand};

/// Ten numbered lines; "match" on lines 3, 4 and 9.
const TEN: &str = "\
one
two
three match
four match
five
six
seven
eight
nine match
ten
";

gstest!(after_context, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-A", "1", "match", "ten.txt"]);
    let expected = "\
3:three match
4:four match
5-five
--
9:nine match
10-ten
";
    eqnice!(expected, cmd.stdout());
});

gstest!(before_context, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-B", "2", "match", "ten.txt"]);
    let expected = "\
1-one
2-two
3:three match
4:four match
--
7-seven
8-eight
9:nine match
";
    eqnice!(expected, cmd.stdout());
});

gstest!(context, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-C", "1", "match", "ten.txt"]);
    let expected = "\
2-two
3:three match
4:four match
5-five
--
8-eight
9:nine match
10-ten
";
    eqnice!(expected, cmd.stdout());
});

// Context windows that touch are merged: no separator.
gstest!(context_merges_adjacent, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-C", "2", "match", "ten.txt"]);
    let expected = "\
one
two
three match
four match
five
six
seven
eight
nine match
ten
";
    eqnice!(expected, cmd.stdout());
});

// -A and -B override the corresponding side of -C, whatever the order.
gstest!(context_overridden_by_after, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-A", "0", "-C", "1", "nine", "ten.txt"]);
    eqnice!("8-eight\n9:nine match\n", cmd.stdout());
});

gstest!(context_separator_custom, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-A1", "--context-separator", "XX", "match", "ten.txt"]);
    eqnice!(
        "three match\nfour match\nfive\nXX\nnine match\nten\n",
        cmd.stdout()
    );
});

// The separator understands escapes.
gstest!(context_separator_escape, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-A1", r"--context-separator=\x7e\t", "match", "ten.txt"]);
    eqnice!(
        "three match\nfour match\nfive\n~\t\nnine match\nten\n",
        cmd.stdout()
    );
});

gstest!(no_context_separator, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-A1", "--no-context-separator", "match", "ten.txt"]);
    eqnice!(
        "three match\nfour match\nfive\nnine match\nten\n",
        cmd.stdout()
    );
});

// An empty separator prints an empty line.
gstest!(context_separator_empty, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-A1", "--context-separator", "", "match", "ten.txt"]);
    eqnice!(
        "three match\nfour match\nfive\n\nnine match\nten\n",
        cmd.stdout()
    );
});

// Files are separated by "--" too when context is on and there is no
// heading.
gstest!(context_between_files, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "x\nmatch\ny\n");
    dir.create("b.txt", "match\nz\n");
    cmd.args(["-C1", "--sort", "path", "match"]);
    let expected = "\
a.txt-x
a.txt:match
a.txt-y
--
b.txt:match
b.txt-z
";
    eqnice!(expected, cmd.stdout());
});

gstest!(context_heading, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "x\nmatch\ny\n");
    dir.create("b.txt", "match\nz\n");
    cmd.args(["-n", "-A1", "--heading", "--sort", "path", "match"]);
    let expected = "\
a.txt
2:match
3-y

b.txt
1:match
2-z
";
    eqnice!(expected, cmd.stdout());
});

// -m stops after NUM matches but still prints the after-context of the
// last one; a matching line in that context is still shown as a match.
gstest!(
    max_count_with_after_context,
    |dir: Dir, cmd: TestCommand| {
        dir.create("ten.txt", TEN);
        cmd.args(["-n", "-m1", "-A2", "match", "ten.txt"]);
        eqnice!("3:three match\n4:four match\n5-five\n", cmd.stdout());
    }
);

gstest!(max_count_with_context_two, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-m2", "-C1", "match", "ten.txt"]);
    eqnice!("2-two\n3:three match\n4:four match\n5-five\n", cmd.stdout());
});

// Inverted matches with context: context lines are the matching ones; the
// windows touch, so there is no separator.
gstest!(invert_with_context, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-v", "-A1", "e", "ten.txt"]);
    let expected = "\
2:two
3-three match
4:four match
5-five
6:six
7-seven
";
    eqnice!(expected, cmd.stdout());
});

gstest!(invert_max_count_context, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-v", "-m2", "-B1", "match", "ten.txt"]);
    eqnice!("1:one\n2:two\n", cmd.stdout());
});

// Context with -o: context lines are still printed whole?  ripgrep prints
// only the matches and no context lines with -o.
gstest!(context_only_matching, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-o", "-C1", "nine", "ten.txt"]);
    eqnice!("8-eight\n9:nine\n10-ten\n", cmd.stdout());
});

// Context with -c is ignored.
gstest!(context_count_ignored, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-c", "-C5", "match", "ten.txt"]);
    eqnice!("3\n", cmd.stdout());
});

// Context lines get byte offsets with '-' separators too; the order is
// line:column:offset.
gstest!(context_byte_offset_column, |dir: Dir, cmd: TestCommand| {
    dir.create("ten.txt", TEN);
    cmd.args(["-n", "-b", "--column", "-B1", "nine", "ten.txt"]);
    eqnice!("8-46-eight\n9:1:52:nine match\n", cmd.stdout());
});

// Before-context at the start of the file and after-context at the end
// are clipped.
gstest!(
    context_clipped_at_file_ends,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "first\nmid\nlast");
        cmd.args(["-C5", "-e", "first", "-e", "last", "a.txt"]);
        eqnice!("first\nmid\nlast\n", cmd.stdout());
    }
);

// Context across the OpenCL batch boundary.
gstest!(context_across_batches, |dir: Dir, cmd: TestCommand| {
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(&format!("filler line number {i:04}\n"));
    }
    // Line 200 sits around the 4 KiB mark (each line is 24 bytes).
    text = text.replace("filler line number 0170\n", "needle line number 0170\n");
    dir.create("big.txt", &text);
    cmd.small_batches().args(["-n", "-C1", "needle", "big.txt"]);
    let expected = "\
170-filler line number 0169
171:needle line number 0170
172-filler line number 0171
";
    eqnice!(expected, cmd.stdout());
});

// Context of a file read in chunks (its lines numbered on the device and
// printed from the matches' numbers on the OpenCL engine) equals the CPU
// engine's: groups that touch, overlap or stand apart, separators, paths.
gstest!(context_of_a_chunked_file, |dir: Dir, cmd: TestCommand| {
    let words = [
        "alpha",
        "needle",
        "beta",
        "needle needle",
        "",
        "x",
        "NEEDLE",
    ];
    let mut text = String::new();
    let mut seed = 7u64;
    for _ in 0..2500 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = (seed >> 33) % 4;
        let line: Vec<&str> = (0..n)
            .map(|i| words[((seed >> (8 * i + 3)) % words.len() as u64) as usize])
            .collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text.push_str("last needle without newline");
    dir.create("t.txt", &text);
    for flags in [
        &["-A1"][..],
        &["-B2"],
        &["-n", "-C1"],
        &["-n", "-A1", "-B4"],
        &["-H", "-n", "-C2"],
        &["-n", "-C1", "--context-separator=XX"],
        &["-n", "-C1", "--no-context-separator"],
        &["-H", "-n", "--null", "-C1"],
        &["-n", "-C6"],
    ] {
        let mut want = dir.command();
        want.args(["--engine", "cpu"])
            .args(flags)
            .args(["needle", "t.txt"]);
        let mut got = dir.command();
        got.small_batches().args(flags).args(["needle", "t.txt"]);
        eqnice!(want.stdout(), got.stdout());
    }
    cmd.args(["-c", "needle", "t.txt"]);
    assert!(cmd.stdout().trim().parse::<u64>().unwrap() > 500);
});
