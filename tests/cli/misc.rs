//! gsearch-only flags (--engine) and flag syntax (bundled short flags,
//! attached values, `=` forms).

use crate::POEM;
use crate::util::{Dir, Engine, TestCommand};

gstest!(engine_cpu, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--engine", "cpu", "-c", "fox", "poem.txt"]);
    eqnice!("4\n", cmd.stdout());
});

gstest!(engine_auto, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--engine=auto", "-c", "fox", "poem.txt"]);
    eqnice!("4\n", cmd.stdout());
});

// --engine opencl is only checked where a device exists (the opencl
// variant): without one, what it does is the engine's business.
gstest!(engine_opencl, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    if dir.engine() == Engine::OpenCl {
        cmd.args(["--engine", "opencl", "-n", "-w", "fox", "poem.txt"]);
        let expected = "\
1:Call the fox by name, and the fox will come.
5:The hunter waited; the fox did not.
6:fox
";
        eqnice!(expected, cmd.stdout());
    }
});

// The flag wins over the environment variable.
gstest!(engine_flag_over_env, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--engine", "cpu", "-c", "-i", "fox", "poem.txt"]);
    eqnice!("6\n", cmd.stdout());
});

gstest!(engine_bogus, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    let out = cmd
        .args(["--engine", "bogus", "fox", "poem.txt"])
        .expect_code(2);
    eqnice!("", out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bogus"), "{err}");
    assert!(err.contains("--engine"), "{err}");
});

// Bundled short flags.
gstest!(bundled_short_flags, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-inH", "hound", "poem.txt"]);
    eqnice!(
        "poem.txt:4:no dog, no Fox, no hound tonight.\n",
        cmd.stdout()
    );
});

// Values attached to short flags and given with `=` to long ones.
gstest!(attached_values, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["-m1", "-A1", "--context-separator=%%", "-efox", "poem.txt"]);
    eqnice!(
        "Call the fox by name, and the fox will come.\nA grey dog sleeps beside the FOX den.\n",
        cmd.stdout()
    );
});

gstest!(long_flags_with_equals, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args([
        "--max-count=1",
        "--regexp=hound",
        "--after-context=1",
        "poem.txt",
    ]);
    eqnice!(
        "no dog, no Fox, no hound tonight.\nThe hunter waited; the fox did not.\n",
        cmd.stdout()
    );
});

// Long names of the short flags.
gstest!(long_names, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args([
        "--ignore-case",
        "--word-regexp",
        "--invert-match",
        "--line-number",
        "--fixed-strings",
        "fox",
        "poem.txt",
    ]);
    eqnice!("3:foxglove grows where foxes hide;\n", cmd.stdout());
});

gstest!(long_names_output, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args([
        "--only-matching",
        "--line-regexp",
        "--count",
        "fox",
        "poem.txt",
    ]);
    eqnice!("1\n", cmd.stdout());
});

// Repeated patterns behave like one.
gstest!(duplicate_patterns, |dir: Dir, cmd: TestCommand| {
    dir.create("poem.txt", POEM);
    cmd.args(["--count-matches", "-e", "fox", "-e", "fox", "poem.txt"]);
    eqnice!("6\n", cmd.stdout());
});

// Overlapping literals: -o reports non-overlapping, leftmost-first matches.
gstest!(
    overlapping_literals_only_matching,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "abcd\naaaa\n");
        cmd.args(["-o", "-e", "ab", "-e", "abc", "-e", "aa", "a.txt"]);
        eqnice!("ab\naa\naa\n", cmd.stdout());
    }
);

gstest!(
    overlapping_literal_count_matches,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "aaaaa\n");
        cmd.args(["--count-matches", "-F", "aa", "a.txt"]);
        eqnice!("2\n", cmd.stdout());
    }
);

// A pattern longer than the line never matches; a pattern equal to the
// whole file does.
gstest!(pattern_is_whole_file, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "abc");
    cmd.args(["-b", "-o", "abc", "a.txt"]);
    eqnice!("0:abc\n", cmd.stdout());
});
