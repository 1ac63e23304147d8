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

/// The message of a config file that cannot be read because it is missing.
fn missing_config(path: &std::path::Path) -> String {
    format!(
        "{}: failed to read the file specified in {}: {}: No such file or directory (os error 2)\n",
        prog(),
        config_env(),
        path.display()
    )
}

// A missing file is reported, and the search goes on (exit 0).
gstest!(config_file_missing, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let path = dir.path().join("nope");
    with_config(&mut cmd, &path).args(["fox", "a.txt"]);
    let out = cmd.expect(0, "fox\n");
    eqnice!(missing_config(&path), out.stderr);
});

// The command line's --no-messages hides the missing file's message (its
// --no-ignore-messages does not). Found by the walk fuzzer:
// `RIPGREP_CONFIG_PATH=rgcfg rg --no-messages fo+ .` with no rgcfg.
gstest!(
    config_file_missing_no_messages,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "fox\n");
        let path = dir.path().join("nope");
        with_config(&mut cmd, &path).args(["--no-messages", "fox", "a.txt"]);
        let out = cmd.expect(0, "fox\n");
        eqnice!("", out.stderr);
        let mut cmd = dir.command();
        with_config(&mut cmd, &path).args(["--no-ignore-messages", "fox", "a.txt"]);
        let out = cmd.expect(0, "fox\n");
        eqnice!(missing_config(&path), out.stderr);
    }
);

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

/// Bad and missing values of ripgrep's value-taking flags, with ripgrep
/// 15.2's message for each (generated by running it; `gsearch` stands for
/// the program's name), all exit status 2 with nothing on stdout.
const VALUE_ERRORS: &[(&[&str], &str)] = &[
    (
        &["--engine", "xyz", "foo"],
        "gsearch: error parsing flag --engine: unrecognized regex engine 'xyz'\n",
    ),
    (
        &["--engine"],
        "gsearch: missing value for flag --engine: missing argument for option '--engine'\n",
    ),
    (
        &["foo", "-M"],
        "gsearch: missing value for flag -M: missing argument for option '-M'\n",
    ),
    (
        &["-M", "x", "foo"],
        "gsearch: error parsing flag -M: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-M", "-1", "foo"],
        "gsearch: error parsing flag -M: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--max-columns=abc", "foo"],
        "gsearch: error parsing flag --max-columns: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--sort", "bogus", "foo"],
        "gsearch: error parsing flag --sort: choice 'bogus' is unrecognized\n",
    ),
    (
        &["--sort"],
        "gsearch: missing value for flag --sort: missing argument for option '--sort'\n",
    ),
    (
        &["--sortr", "bogus", "foo"],
        "gsearch: error parsing flag --sortr: choice 'bogus' is unrecognized\n",
    ),
    (
        &["--color", "bogus", "foo"],
        "gsearch: error parsing flag --color: choice 'bogus' is unrecognized\n",
    ),
    (
        &["--color"],
        "gsearch: missing value for flag --color: missing argument for option '--color'\n",
    ),
    (
        &["-A", "x", "foo"],
        "gsearch: error parsing flag -A: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-A", "-1", "foo"],
        "gsearch: error parsing flag -A: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-A"],
        "gsearch: missing value for flag -A: missing argument for option '-A'\n",
    ),
    (
        &["-B", "x", "foo"],
        "gsearch: error parsing flag -B: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-C", "x", "foo"],
        "gsearch: error parsing flag -C: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-C"],
        "gsearch: missing value for flag -C: missing argument for option '-C'\n",
    ),
    (
        &["--max-count", "-1", "foo"],
        "gsearch: error parsing flag --max-count: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-m", "x", "foo"],
        "gsearch: error parsing flag -m: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--threads", "x", "foo"],
        "gsearch: error parsing flag --threads: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-j", "-1", "foo"],
        "gsearch: error parsing flag -j: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-j"],
        "gsearch: missing value for flag -j: missing argument for option '-j'\n",
    ),
    (
        &["-E", "bogus", "foo"],
        "gsearch: error parsing flag -E: grep config error: unknown encoding: bogus\n",
    ),
    (
        &["-E"],
        "gsearch: missing value for flag -E: missing argument for option '-E'\n",
    ),
    (
        &["--encoding=bogus", "foo"],
        "gsearch: error parsing flag --encoding: grep config error: unknown encoding: bogus\n",
    ),
    (
        &["--colors", "bad:spec", "foo"],
        "gsearch: error parsing flag --colors: unrecognized output type 'bad'. Choose from: path, line, column, match, highlight.\n",
    ),
    (
        &["--colors", "path:fg:blorp", "foo"],
        "gsearch: error parsing flag --colors: unrecognized color name 'blorp'. Choose from: black, blue, green, red, cyan, magenta, yellow, white\n",
    ),
    (
        &["--colors", "path:bg:blue:x", "foo"],
        "gsearch: error parsing flag --colors: invalid color spec format: 'path:bg:blue:x'. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'.\n",
    ),
    (
        &["--colors", "foo:fg:blue", "foo"],
        "gsearch: error parsing flag --colors: unrecognized output type 'foo'. Choose from: path, line, column, match, highlight.\n",
    ),
    (
        &["--colors", "path:style:bogus", "foo"],
        "gsearch: error parsing flag --colors: unrecognized style attribute 'bogus'. Choose from: nobold, bold, nointense, intense, nounderline, underline, noitalic, italic.\n",
    ),
    (
        &["--colors", "path:fg", "foo"],
        "gsearch: error parsing flag --colors: invalid color spec format: 'path:fg'. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'.\n",
    ),
    (
        &["--colors", "path", "foo"],
        "gsearch: error parsing flag --colors: invalid color spec format: 'path'. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'.\n",
    ),
    (
        &["--colors"],
        "gsearch: missing value for flag --colors: missing argument for option '--colors'\n",
    ),
    (
        &["--type-add", "foo", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", "foo:", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", ":*.x", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", "foo:include:", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", "foo:include:nope", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add"],
        "gsearch: missing value for flag --type-add: missing argument for option '--type-add'\n",
    ),
    (
        &["--type-clear"],
        "gsearch: missing value for flag --type-clear: missing argument for option '--type-clear'\n",
    ),
    (
        &["-t", "nope", "foo"],
        "gsearch: unrecognized file type: nope\n",
    ),
    (
        &["-T", "nope", "foo"],
        "gsearch: unrecognized file type: nope\n",
    ),
    (
        &["-t"],
        "gsearch: missing value for flag -t: missing argument for option '-t'\n",
    ),
    (
        &["--max-filesize", "1Q", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size '1Q', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--max-filesize", "x", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size 'x', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--max-filesize", "99999999999999999999", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid integer found in size '99999999999999999999': number too large to fit in target type\n",
    ),
    (
        &["--max-filesize"],
        "gsearch: missing value for flag --max-filesize: missing argument for option '--max-filesize'\n",
    ),
    (
        &["--dfa-size-limit", "x", "foo"],
        "gsearch: error parsing flag --dfa-size-limit: invalid size: invalid format for size 'x', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--dfa-size-limit", "1Q", "foo"],
        "gsearch: error parsing flag --dfa-size-limit: invalid size: invalid format for size '1Q', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--dfa-size-limit"],
        "gsearch: missing value for flag --dfa-size-limit: missing argument for option '--dfa-size-limit'\n",
    ),
    (
        &["--regex-size-limit", "x", "foo"],
        "gsearch: error parsing flag --regex-size-limit: invalid size: invalid format for size 'x', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--regex-size-limit"],
        "gsearch: missing value for flag --regex-size-limit: missing argument for option '--regex-size-limit'\n",
    ),
    (
        &["-d", "x", "foo"],
        "gsearch: error parsing flag -d: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-d", "-1", "foo"],
        "gsearch: error parsing flag -d: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--max-depth"],
        "gsearch: missing value for flag --max-depth: missing argument for option '--max-depth'\n",
    ),
    (
        &["--maxdepth", "x", "foo"],
        "gsearch: error parsing flag --maxdepth: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--generate", "bogus"],
        "gsearch: error parsing flag --generate: choice 'bogus' is unrecognized\n",
    ),
    (
        &["--generate"],
        "gsearch: missing value for flag --generate: missing argument for option '--generate'\n",
    ),
    (
        &["--hyperlink-format", "bogus", "foo"],
        "gsearch: error parsing flag --hyperlink-format: invalid hyperlink format: at least a {path} variable is required in a hyperlink format, or otherwise use a valid alias: default, none, cursor, file, grep+, kitty, macvim, textmate, vscode, vscode-insiders, vscodium\n",
    ),
    (
        &["--hyperlink-format", "{bogus}", "foo"],
        "gsearch: error parsing flag --hyperlink-format: invalid hyperlink format: invalid hyperlink format variable: 'bogus', choose from: path, line, column, host, wslprefix\n",
    ),
    (
        &["--hyperlink-format"],
        "gsearch: missing value for flag --hyperlink-format: missing argument for option '--hyperlink-format'\n",
    ),
    (
        &["--hostname-bin"],
        "gsearch: missing value for flag --hostname-bin: missing argument for option '--hostname-bin'\n",
    ),
    (
        &["--path-separator", "xx", "foo"],
        "gsearch: error parsing flag --path-separator: A path separator must be exactly one byte, but the given separator is 2 bytes: xx\nIn some shells on Windows '/' is automatically expanded. Use '//' instead.\n",
    ),
    (
        &["--path-separator"],
        "gsearch: missing value for flag --path-separator: missing argument for option '--path-separator'\n",
    ),
    (
        &["--context-separator"],
        "gsearch: missing value for flag --context-separator: missing argument for option '--context-separator'\n",
    ),
    (
        &["--field-match-separator"],
        "gsearch: missing value for flag --field-match-separator: missing argument for option '--field-match-separator'\n",
    ),
    (
        &["--field-context-separator"],
        "gsearch: missing value for flag --field-context-separator: missing argument for option '--field-context-separator'\n",
    ),
    (
        &["-r"],
        "gsearch: missing value for flag -r: missing argument for option '-r'\n",
    ),
    (
        &["--replace"],
        "gsearch: missing value for flag --replace: missing argument for option '--replace'\n",
    ),
    (
        &["--pre-glob"],
        "gsearch: missing value for flag --pre-glob: missing argument for option '--pre-glob'\n",
    ),
    (
        &["-g"],
        "gsearch: missing value for flag -g: missing argument for option '-g'\n",
    ),
    (
        &["--glob"],
        "gsearch: missing value for flag --glob: missing argument for option '--glob'\n",
    ),
    (
        &["--iglob"],
        "gsearch: missing value for flag --iglob: missing argument for option '--iglob'\n",
    ),
    (
        &["-e"],
        "gsearch: missing value for flag -e: missing argument for option '-e'\n",
    ),
    (
        &["-g", "[", "foo"],
        "gsearch: error parsing glob '[': unclosed character class; missing ']'\n",
    ),
    (
        &["--iglob", "{", "foo"],
        "gsearch: error parsing glob '{': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)\n",
    ),
    (
        &["-m", "99999999999999999999999", "foo"],
        "gsearch: error parsing flag -m: value is not a valid number: number too large to fit in target type\n",
    ),
    (
        &["-A", "99999999999999999999999", "foo"],
        "gsearch: error parsing flag -A: value is not a valid number: number too large to fit in target type\n",
    ),
    (
        &["--colors=match:fg:256", "foo"],
        "gsearch: error parsing flag --colors: unrecognized ansi256 color number, should be '[0-255]' (or a hex number), but is '256'\n",
    ),
    (
        &["--colors=match:fg:1,2", "foo"],
        "gsearch: error parsing flag --colors: unrecognized RGB color triple, should be '[0-255],[0-255],[0-255]' (or a hex triple), but is '1,2'\n",
    ),
    (
        &["--colors=match:fg:1,2,300", "foo"],
        "gsearch: error parsing flag --colors: unrecognized RGB color triple, should be '[0-255],[0-255],[0-255]' (or a hex triple), but is '1,2,300'\n",
    ),
    (
        &["--engine=", "foo"],
        "gsearch: error parsing flag --engine: unrecognized regex engine ''\n",
    ),
    (
        &["--color=", "foo"],
        "gsearch: error parsing flag --color: choice '' is unrecognized\n",
    ),
    (
        &["--sort=", "foo"],
        "gsearch: error parsing flag --sort: choice '' is unrecognized\n",
    ),
    (
        &["-Mx", "foo"],
        "gsearch: error parsing flag -M: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["-nAx", "foo"],
        "gsearch: error parsing flag -A: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--max-count=", "foo"],
        "gsearch: error parsing flag --max-count: value is not a valid number: cannot parse integer from empty string\n",
    ),
    (
        &["-j=", "foo"],
        "gsearch: error parsing flag -j: value is not a valid number: cannot parse integer from empty string\n",
    ),
    (
        &["--threads=", "foo"],
        "gsearch: error parsing flag --threads: value is not a valid number: cannot parse integer from empty string\n",
    ),
    (
        &["-E=", "foo"],
        "gsearch: error parsing flag -E: grep config error: unknown encoding: \n",
    ),
    (
        &["-E", "", "foo"],
        "gsearch: error parsing flag -E: grep config error: unknown encoding: \n",
    ),
    (
        &["--encoding", "", "foo"],
        "gsearch: error parsing flag --encoding: grep config error: unknown encoding: \n",
    ),
    (
        &["--max-filesize", "", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size '', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--max-filesize", "1k", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size '1k', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--max-filesize", "-1", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size '-1', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--max-filesize", "1.5M", "foo"],
        "gsearch: error parsing flag --max-filesize: invalid size: invalid format for size '1.5M', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--dfa-size-limit", "", "foo"],
        "gsearch: error parsing flag --dfa-size-limit: invalid size: invalid format for size '', which should be a non-empty sequence of digits followed by an optional 'K', 'M' or 'G' suffix\n",
    ),
    (
        &["--colors", "", "foo"],
        "gsearch: error parsing flag --colors: invalid color spec format: ''. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'.\n",
    ),
    (
        &["--colors", ":", "foo"],
        "gsearch: error parsing flag --colors: unrecognized output type ''. Choose from: path, line, column, match, highlight.\n",
    ),
    (
        &["--type-add", "", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (&["-t", "", "foo"], "gsearch: unrecognized file type: \n"),
    (
        &["--sort", "", "foo"],
        "gsearch: error parsing flag --sort: choice '' is unrecognized\n",
    ),
    (
        &["--generate", "man", "--generate", "bogus"],
        "gsearch: error parsing flag --generate: choice 'bogus' is unrecognized\n",
    ),
    (
        &["-A", "1", "-A", "x", "foo"],
        "gsearch: error parsing flag -A: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--color", "never", "--color=bogus", "foo"],
        "gsearch: error parsing flag --color: choice 'bogus' is unrecognized\n",
    ),
    (
        &["--no-ignore=x", "foo"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--no-ignore': \"x\"\n",
    ),
    (
        &["--hidden=yes", "foo"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--hidden': \"yes\"\n",
    ),
    (
        &["-n=3", "foo"],
        "gsearch: invalid CLI arguments: unexpected argument for option '-n': \"3\"\n",
    ),
    (
        &["--json=1", "foo"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--json': \"1\"\n",
    ),
    (
        &["--unrestricted=2", "foo"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--unrestricted': \"2\"\n",
    ),
    (
        &["-uuuu", "foo"],
        "gsearch: error parsing flag -u: flag can only be repeated up to 3 times\n",
    ),
    (
        &["-u", "-u", "-u", "-u", "foo"],
        "gsearch: error parsing flag -u: flag can only be repeated up to 3 times\n",
    ),
    (
        &["--version=x"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--version': \"x\"\n",
    ),
    (
        &["--help=x"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--help': \"x\"\n",
    ),
    (
        &["--threads", "1000000000000000000000", "foo"],
        "gsearch: error parsing flag --threads: value is not a valid number: number too large to fit in target type\n",
    ),
    (
        &["--maxdepth"],
        "gsearch: missing value for flag --maxdepth: missing argument for option '--maxdepth'\n",
    ),
    (
        &["--passthrough=1", "foo"],
        "gsearch: invalid CLI arguments: unexpected argument for option '--passthrough': \"1\"\n",
    ),
    (
        &["--type-add", "x:include:nope", "-tx", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", "x:include:", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", "x:bogus:txt", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-add", "x", "foo"],
        "gsearch: invalid definition (format is type:glob, e.g., html:*.html)\n",
    ),
    (
        &["--type-clear", "txt", "-ttxt", "foo"],
        "gsearch: unrecognized file type: txt\n",
    ),
    (
        &[
            "--colors",
            "match:style:dimmed",
            "--color",
            "always",
            "foo",
            "a.txt",
        ],
        "gsearch: error parsing flag --colors: unrecognized style attribute 'dimmed'. Choose from: nobold, bold, nointense, intense, nounderline, underline, noitalic, italic.\n",
    ),
    (
        &[
            "--colors",
            "match:bg:0xff,0x00",
            "--color",
            "always",
            "foo",
            "a.txt",
        ],
        "gsearch: error parsing flag --colors: unrecognized RGB color triple, should be '[0-255],[0-255],[0-255]' (or a hex triple), but is '0xff,0x00'\n",
    ),
    (
        &["--colors", "match:bg:", "--color", "always", "foo", "a.txt"],
        "gsearch: error parsing flag --colors: unrecognized ansi256 color number, should be '[0-255]' (or a hex number), but is ''\n",
    ),
    (
        &["--colors", "match:", "--color", "always", "foo", "a.txt"],
        "gsearch: error parsing flag --colors: unrecognized spec type ''. Choose from: fg, bg, style, none.\n",
    ),
    (
        &["--colors", "match:fg:red:x", "foo", "a.txt"],
        "gsearch: error parsing flag --colors: invalid color spec format: 'match:fg:red:x'. Valid format is '(path|line|column|match|highlight):(fg|bg|style):(value)'.\n",
    ),
    (
        &["--hyperlink-format", "{path", "foo", "a.txt"],
        "gsearch: error parsing flag --hyperlink-format: invalid hyperlink format: unclosed variable: found '{' without a corresponding '}' following it\n",
    ),
    (
        &["--hyperlink-format", "x{path}", "foo", "a.txt"],
        "gsearch: error parsing flag --hyperlink-format: invalid hyperlink format: the hyperlink format must start with a valid URL scheme, i.e., [0-9A-Za-z+-.]+:\n",
    ),
    (
        &[
            "--hyperlink-format",
            "file://{host}{path}{bogus}",
            "foo",
            "a.txt",
        ],
        "gsearch: error parsing flag --hyperlink-format: invalid hyperlink format: invalid hyperlink format variable: 'bogus', choose from: path, line, column, host, wslprefix\n",
    ),
    (
        &["--path-separator", "ab", "foo"],
        "gsearch: error parsing flag --path-separator: A path separator must be exactly one byte, but the given separator is 2 bytes: ab\nIn some shells on Windows '/' is automatically expanded. Use '//' instead.\n",
    ),
    (
        &["-E", "utf-32", "foo", "a.txt"],
        "gsearch: error parsing flag -E: grep config error: unknown encoding: utf-32\n",
    ),
    (
        &["-E", "replacement", "foo", "a.txt"],
        "gsearch: error parsing flag -E: grep config error: unknown encoding: replacement\n",
    ),
    (
        &["--regex-size-limit", "1", "a{1000}", "a.txt"],
        "gsearch: compiled regex exceeds size limit of 1\n",
    ),
    (
        &["--regex-size-limit", "99999999999G", "foo", "a.txt"],
        "gsearch: error parsing flag --regex-size-limit: invalid size: size too big in '99999999999G'\n",
    ),
    (
        &["--max-filesize", "99999999999G", "foo", "a.txt"],
        "gsearch: error parsing flag --max-filesize: invalid size: size too big in '99999999999G'\n",
    ),
    (
        &["--threads=-0", "foo", "a.txt"],
        "gsearch: error parsing flag --threads: value is not a valid number: invalid digit found in string\n",
    ),
    (
        &["--sort=PATH", "foo"],
        "gsearch: error parsing flag --sort: choice 'PATH' is unrecognized\n",
    ),
    (
        &["--color=ALWAYS", "foo"],
        "gsearch: error parsing flag --color: choice 'ALWAYS' is unrecognized\n",
    ),
    (
        &["--engine=AUTO", "foo"],
        "gsearch: error parsing flag --engine: unrecognized regex engine 'AUTO'\n",
    ),
    (
        &["--generate=MAN"],
        "gsearch: error parsing flag --generate: choice 'MAN' is unrecognized\n",
    ),
];

gstest!(value_errors_as_ripgrep, |dir: Dir, _cmd: TestCommand| {
    for (args, stderr) in VALUE_ERRORS {
        let out = dir.command().args(*args).output();
        let got = String::from_utf8_lossy(&out.stderr);
        let got = match got.strip_prefix(&prog()) {
            Some(rest) => format!("gsearch{rest}"),
            None => got.into_owned(),
        };
        assert_eq!(
            (out.status.code(), got.as_str(), out.stdout.is_empty()),
            (Some(2), *stderr, true),
            "args: {args:?}"
        );
    }
});

// An empty path is a path like any other: ripgrep reports it when it
// opens it (a pattern file is fatal, an ignore file is not).
gstest!(empty_pattern_file, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["-f", "", "foo"]);
    expect_error(
        &mut cmd,
        "gsearch: : No such file or directory (os error 2)\n",
    );
});

gstest!(empty_ignore_file, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    cmd.args(["--ignore-file", "", "--hostname-bin", "", "foo"]);
    let out = cmd.expect(0, "a.txt:foo\n");
    eqnice!(
        format!("{}: : No such file or directory (os error 2)\n", prog()),
        out.stderr
    );
});

/// The name and version `-V` prints for the binary tested.
fn short_version() -> String {
    if prog() == "rg" {
        "ripgrep 15.2.0\n".to_string()
    } else {
        format!("gsearch {}\n", env!("CARGO_PKG_VERSION"))
    }
}

gstest!(version_short, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["-nV"]);
    eqnice!(short_version(), cmd.stdout());
});

// --version: the short version, a blank line, the features and SIMD lines,
// a blank line and the PCRE2 line, as ripgrep; gsearch adds the OpenCL
// devices it sees.
gstest!(version_long, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--version"]);
    let out = cmd.stdout();
    let lines: Vec<&str> = out.lines().collect();
    eqnice!(short_version(), format!("{}\n", lines[0]));
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], "features:+pcre2");
    assert!(lines[3].starts_with("simd(compile):"), "{out}");
    assert!(lines[4].starts_with("simd(runtime):"), "{out}");
    assert_eq!(lines[5], "");
    assert!(lines[6].starts_with("PCRE2 10."), "{out}");
    assert!(
        lines[6].ends_with(" is available (JIT is available)"),
        "{out}"
    );
    if prog() != "rg" {
        assert!(lines[7].starts_with("OpenCL: "), "{out}");
        assert_eq!(lines.len(), 8, "{out}");
    }
});

// The whole command line is parsed first: a bad flag after --version is
// still an error.
gstest!(version_then_bad_flag, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--version", "--bogus"]);
    expect_error(&mut cmd, "gsearch: unrecognized flag --bogus\n");
});

gstest!(version_then_missing_value, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--version", "-A"]);
    expect_error(
        &mut cmd,
        "gsearch: missing value for flag -A: missing argument for option '-A'\n",
    );
});

// The last of -h, --help, -V and --version wins.
gstest!(help_then_version, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["-h", "--files", "-V"]);
    eqnice!(short_version(), cmd.stdout());
});

gstest!(version_then_help, |dir: Dir, cmd: TestCommand| {
    cmd.args(["-V", "-h"]);
    let help = cmd.stdout();
    assert!(help.contains("--max-count"), "{help}");
    let mut long = dir.command();
    long.args(["--version", "--help"]);
    let long_help = long.stdout();
    assert!(long_help.contains("--max-count"), "{long_help}");
    assert_ne!(long_help, help);
});

// ripgrep checks these values as it parses each flag, so a bad one fails
// the run even where a later flag overrides it. Found by the walk fuzzer:
// `--encoding utf16 --no-encoding` searched (exit 0), rg exits 2.
gstest!(bad_value_overridden_later, |dir: Dir, _cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let size = "invalid size: invalid format for size 'abc', which should be a non-empty \
                sequence of digits followed by an optional 'K', 'M' or 'G' suffix";
    for (flags, why) in [
        (
            ["-E", "bogus", "-E", "utf-8"],
            "-E: grep config error: unknown encoding: bogus".to_string(),
        ),
        (
            ["--encoding", "utf16", "--no-encoding", "--no-encoding"],
            "--encoding: grep config error: unknown encoding: utf16".to_string(),
        ),
        (
            ["--max-filesize", "abc", "--max-filesize", "1K"],
            format!("--max-filesize: {size}"),
        ),
        (
            ["--dfa-size-limit", "abc", "--dfa-size-limit", "1M"],
            format!("--dfa-size-limit: {size}"),
        ),
        (
            ["--path-separator", "ab", "--path-separator", "/"],
            "--path-separator: A path separator must be exactly one byte, but the given \
             separator is 2 bytes: ab\nIn some shells on Windows '/' is automatically \
             expanded. Use '//' instead."
                .to_string(),
        ),
    ] {
        let mut cmd = dir.command();
        cmd.args(flags).args(["fox", "a.txt"]);
        expect_error(&mut cmd, &format!("gsearch: error parsing flag {why}\n"));
    }
});
