//! Reading the command line: the configuration file (GSEARCH_CONFIG_PATH,
//! read as ripgrep reads RIPGREP_CONFIG_PATH), `--no-config`, and
//! ripgrep's messages for flags it cannot parse.

use crate::util::{Dir, TestCommand, prog};

/// The environment variable naming the config file of the binary tested.
fn config_env() -> &'static str {
    if prog() == "rg" {
        "RIPGREP_CONFIG_PATH"
    } else {
        "GSEARCH_CONFIG_PATH"
    }
}

/// Runs `cmd` expecting exit status 2, nothing on stdout and exactly
/// `stderr` (with `gsearch` standing for the program's name).
fn expect_error(cmd: &mut TestCommand, stderr: &str) {
    let out = cmd.expect(2, "");
    eqnice!(stderr.replace("gsearch", &prog()), out.stderr);
}

fn with_config(cmd: &mut TestCommand, path: impl AsRef<std::ffi::OsStr>) -> &mut TestCommand {
    cmd.raw().env(config_env(), path);
    cmd
}

// The file's arguments come before the command line's: blank lines and
// `#` comment lines are skipped, whitespace around an argument trimmed.
gstest!(config_file_args, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("sub/b.rs", "fox\n");
    dir.create(
        "rc",
        "# defaults\n\n  --sort=path  \n-n\n   # -i\n--glob\n!*.rs\n",
    );
    with_config(&mut cmd, dir.path().join("rc")).arg("fox");
    eqnice!("a.txt:1:fox\n", cmd.stdout());
});

// The command line's flags come later, so they win.
gstest!(config_file_overridden, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("rc", "-n\n--color=always\n");
    with_config(&mut cmd, dir.path().join("rc")).args(["-N", "--color=never", "fox", "a.txt"]);
    eqnice!("fox\n", cmd.stdout());
});

gstest!(config_file_no_config, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("rc", "--bogus\n");
    with_config(&mut cmd, dir.path().join("rc")).args(["--no-config", "fox", "a.txt"]);
    eqnice!("fox\n", cmd.stdout());
});

// With GSEARCH_CONFIG_PATH unset, ripgrep's RIPGREP_CONFIG_PATH is read,
// so a ripgrep user's settings carry over; when both are set gsearch's
// own wins.
gstest!(
    config_file_ripgrep_variable,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "fox\n");
        dir.create("rg-rc", "-n\n");
        dir.create("gs-rc", "-c\n");
        cmd.raw()
            .env("RIPGREP_CONFIG_PATH", dir.path().join("rg-rc"));
        cmd.args(["fox", "a.txt"]);
        eqnice!("1:fox\n", cmd.stdout());
        if prog() != "rg" {
            let mut both = dir.command();
            both.raw()
                .env("RIPGREP_CONFIG_PATH", dir.path().join("rg-rc"))
                .env("GSEARCH_CONFIG_PATH", dir.path().join("gs-rc"));
            both.args(["fox", "a.txt"]);
            eqnice!("1\n", both.stdout());
        }
    }
);

// A bad flag in the file is reported as one on the command line.
gstest!(config_file_bad_flag, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("rc", "--colr\n");
    with_config(&mut cmd, dir.path().join("rc")).args(["fox", "a.txt"]);
    expect_error(&mut cmd, "gsearch: unrecognized flag --colr\n");
});

// --version and --help are answered before the file is read.
gstest!(config_file_version_first, |dir: Dir, cmd: TestCommand| {
    dir.create("rc", "--colr\n");
    with_config(&mut cmd, dir.path().join("rc")).arg("--version");
    cmd.expect_code(0);
});

// A missing file is reported, and the search goes on (exit 0).
gstest!(config_file_missing, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let path = dir.path().join("nope");
    with_config(&mut cmd, &path).args(["fox", "a.txt"]);
    let out = cmd.expect(0, "fox\n");
    let msg = format!(
        "{}: failed to read the file specified in {}: {}: No such file or directory (os error 2)\n",
        prog(),
        config_env(),
        path.display()
    );
    eqnice!(msg, out.stderr);
});

// A directory opens but cannot be read: the message names no path.
gstest!(config_file_directory, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    with_config(&mut cmd, dir.path()).args(["fox", "a.txt"]);
    let out = cmd.expect(0, "fox\n");
    let msg = format!(
        "{}: failed to read the file specified in {}: Is a directory (os error 21)\n",
        prog(),
        config_env()
    );
    eqnice!(msg, out.stderr);
});

// An empty variable means no file.
gstest!(config_file_empty_variable, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    with_config(&mut cmd, "").args(["fox", "a.txt"]);
    let out = cmd.expect(0, "fox\n");
    eqnice!("", out.stderr);
});

gstest!(unknown_long_flag, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--bogus", "fox"]);
    expect_error(&mut cmd, "gsearch: unrecognized flag --bogus\n");
});

gstest!(
    unknown_long_flag_with_value,
    |_dir: Dir, cmd: TestCommand| {
        cmd.args(["--bogus=3", "fox"]);
        expect_error(&mut cmd, "gsearch: unrecognized flag --bogus\n");
    }
);

gstest!(unknown_flag_suggestions, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--colo", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: unrecognized flag --colo\n\nsimilar flags that are available: --color, --colors\n",
    );
});

gstest!(
    unknown_flag_many_suggestions,
    |_dir: Dir, cmd: TestCommand| {
        cmd.args(["--no-ignor", "fox"]);
        expect_error(
            &mut cmd,
            "gsearch: unrecognized flag --no-ignor\n\nsimilar flags that are available: --no-ignore, \
         --ignore, --no-ignore-dot, --no-ignore-exclude, --no-ignore-files, --no-ignore-global, \
         --no-ignore-parent, --no-ignore-vcs\n",
        );
    }
);

gstest!(
    unknown_short_flag_in_cluster,
    |_dir: Dir, cmd: TestCommand| {
        cmd.args(["-ny", "fox"]);
        expect_error(&mut cmd, "gsearch: unrecognized flag -y\n");
    }
);

gstest!(missing_value_short, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["fox", "a.txt", "-ne"]);
    expect_error(
        &mut cmd,
        "gsearch: missing value for flag -e: missing argument for option '-e'\n",
    );
});

gstest!(missing_value_long, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["fox", "a.txt", "--max-count"]);
    expect_error(
        &mut cmd,
        "gsearch: missing value for flag --max-count: missing argument for option '--max-count'\n",
    );
});

gstest!(bad_number_short, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["-m", "abc", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag -m: value is not a valid number: invalid digit found in string\n",
    );
});

gstest!(empty_number_long, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--max-count=", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag --max-count: value is not a valid number: cannot parse integer from empty string\n",
    );
});

gstest!(bad_choice, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--sort=x", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag --sort: choice 'x' is unrecognized\n",
    );
});

gstest!(switch_with_value, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--no-context-separator=x", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: invalid CLI arguments: unexpected argument for option '--no-context-separator': \"x\"\n",
    );
});

gstest!(unrestricted_four_times, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["-uuu", "-u", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag -u: flag can only be repeated up to 3 times\n",
    );
});

gstest!(bad_max_filesize, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--max-filesize", "1Q", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size '1Q', \
         which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    );
});

gstest!(bad_type_definition, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--type-add", "foo", "--files"]);
    expect_error(
        &mut cmd,
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    );
});

// --debug and --trace print on stderr only.
gstest!(debug_keeps_stdout, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--debug", "fox", "a.txt"]);
    let out = cmd.expect(0, "fox\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("DEBUG|"));
});

gstest!(trace_keeps_stdout, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--trace", "-c", "fox", "a.txt"]);
    cmd.expect(0, "1\n");
});

gstest!(short_switch_with_value, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["-in=3", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: invalid CLI arguments: unexpected argument for option '-n': \"3\"\n",
    );
});

gstest!(bad_engine, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--engine=x", "fox"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag --engine: unrecognized regex engine 'x'\n",
    );
});

// A flag that takes a value takes the next argument, even one starting
// with '-'.
gstest!(value_starting_with_dash, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["fox", "-A", "-1"]);
    expect_error(
        &mut cmd,
        "gsearch: error parsing flag -A: value is not a valid number: invalid digit found in string\n",
    );
});
