//! Exit status (0 match, 1 none, 2 error) and error reporting.

use std::process::Stdio;

use crate::util::{Dir, TestCommand, prog, read_line};

gstest!(exit_match, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["fox", "a.txt"]).expect(0, "fox\n");
});

gstest!(exit_no_match, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["dog", "a.txt"]).assert_no_match();
});

// A missing path: error message on stderr, the other path is still
// searched and printed, and the exit status is 2 although something
// matched.
gstest!(
    missing_path_with_match_elsewhere,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "a fox\n");
        cmd.args(["fox", "nope", "a.txt"]);
        let out = cmd.expect(2, "a.txt:a fox\n");
        let err = String::from_utf8(out.stderr).unwrap();
        eqnice!(
            format!("{}: nope: No such file or directory (os error 2)\n", prog()),
            err
        );
    }
);

gstest!(missing_path_no_match, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["wolf", "nope", "a.txt"]);
    cmd.assert_error(&["nope: No such file or directory (os error 2)"]);
});

// With -j1 the error message may be worded differently; only the OS error
// is pinned.
gstest!(missing_path_single_thread, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["-j1", "fox", "nope", "a.txt"]);
    let out = cmd.assert_error(&["nope", "No such file or directory (os error 2)"]);
    eqnice!("a.txt:a fox\n", out.stdout);
});

// -q with a match and an error: the match wins, exit 0 (the error is
// still reported).
gstest!(quiet_match_and_error, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["-q", "fox", "nope", "a.txt"]);
    let out = cmd.expect(0, "");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("nope: No such file or directory (os error 2)"),
        "{err}"
    );
});

// -q with an error and no match: 2.
gstest!(quiet_no_match_and_error, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["-q", "wolf", "nope", "a.txt"])
        .assert_error(&["nope"]);
});

// -l with an error: the list is printed and the status is 2.
gstest!(
    files_with_matches_and_error,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "a fox\n");
        cmd.args(["-l", "fox", "nope", "a.txt"]);
        let out = cmd.assert_error(&["nope"]);
        eqnice!("a.txt\n", out.stdout);
    }
);

// -c with an error.
gstest!(count_and_error, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\nfox\n");
    cmd.args(["-c", "fox", "nope", "a.txt"]);
    let out = cmd.assert_error(&["nope"]);
    eqnice!("a.txt:2\n", out.stdout);
});

// A directory given as a file-ish path with a trailing component that does
// not exist.
gstest!(missing_nested_path, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["fox", "sub/nope.txt"]);
    let out = cmd.assert_error(&["sub/nope.txt: No such file or directory (os error 2)"]);
    eqnice!("", out.stdout);
});

// An unknown flag is a usage error.
gstest!(unknown_flag, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let out = cmd.args(["--no-such-flag", "fox", "a.txt"]).expect_code(2);
    eqnice!("", out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--no-such-flag"), "{err}");
});

// A flag value that is not a number.
gstest!(invalid_number, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let out = cmd.args(["-m", "many", "fox", "a.txt"]).expect_code(2);
    eqnice!("", out.stdout);
    assert!(!out.stderr.is_empty());
});

// Reading stops early (stdout closed): no "Broken pipe" message. Pins
// ripgrep's status for a single file: the search of that file ends in a
// broken pipe, so it is not counted as matched and the status is 1.
gstest!(closed_pipe_quiet, |dir: Dir, cmd: TestCommand| {
    dir.create("big.txt", &"fox line\n".repeat(300_000));
    let mut child = cmd
        .args(["fox", "big.txt"])
        .raw()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    eqnice!("fox line\n", read_line(&mut stdout));
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    eqnice!("", out.stderr, "stderr after the pipe closed");
    assert_eq!(
        Some(1),
        out.status.code(),
        "exit status after the pipe closed"
    );
});

// A directory search cut short by a closed pipe: quiet too (the status
// depends on timing, so only stderr and the absence of a signal death are
// checked).
gstest!(closed_pipe_directory_quiet, |dir: Dir, cmd: TestCommand| {
    for i in 0..8 {
        dir.create(format!("d/f{i}.txt"), &"fox line\n".repeat(40_000));
    }
    let mut child = cmd
        .args(["fox", "d"])
        .raw()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    assert!(read_line(&mut stdout).ends_with(b"fox line\n"));
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    eqnice!("", out.stderr, "stderr after the pipe closed");
    let code = out.status.code();
    assert!(matches!(code, Some(0) | Some(1)), "exit status {code:?}");
});
