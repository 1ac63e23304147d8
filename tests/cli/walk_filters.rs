//! Walking and filtering flags beyond the basics: --sort/--sortr keys,
//! --type-add/--type-clear, --iglob, --glob-case-insensitive,
//! --max-filesize, --one-file-system, --ignore-file, each --no-ignore-*
//! flag and its negation, -. (--hidden), coloured --files, and the
//! negations of the flags `-u` sets.

use std::fs::{File, FileTimes};
use std::time::{Duration, SystemTime};

use crate::util::{Dir, TestCommand};

/// Sets a file's modification and access times to `secs` after the epoch.
fn set_times(dir: &Dir, name: &str, modified: u64, accessed: u64) {
    let at = |s| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
    let times = FileTimes::new()
        .set_modified(at(modified))
        .set_accessed(at(accessed));
    File::options()
        .write(true)
        .open(dir.path().join(name))
        .unwrap()
        .set_times(times)
        .unwrap();
}

/// Three files whose modification times run opposite to their names,
/// and whose access times run in a third order.
fn timed_tree(dir: &Dir) {
    dir.create("a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    dir.create("sub/deep/c.txt", "fox\n");
    set_times(dir, "a.txt", 3_000_000, 2_000_000);
    set_times(dir, "sub/b.txt", 2_000_000, 1_000_000);
    set_times(dir, "sub/deep/c.txt", 1_000_000, 3_000_000);
}

gstest!(sort_modified, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--sort", "modified", "fox"]);
    eqnice!(
        "sub/deep/c.txt:fox\nsub/b.txt:fox\na.txt:fox\n",
        cmd.stdout()
    );
});

gstest!(sortr_modified, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--sortr", "modified", "fox"]);
    eqnice!(
        "a.txt:fox\nsub/b.txt:fox\nsub/deep/c.txt:fox\n",
        cmd.stdout()
    );
});

gstest!(sort_accessed_files, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--files", "--sort", "accessed"]);
    eqnice!("sub/b.txt\na.txt\nsub/deep/c.txt\n", cmd.stdout());
});

// Creation times cannot be set: one file shows the key is accepted.
gstest!(sort_created, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--sortr", "created", "fox"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

gstest!(sortr_path, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--sortr", "path", "fox"]);
    eqnice!(
        "sub/deep/c.txt:fox\nsub/b.txt:fox\na.txt:fox\n",
        cmd.stdout()
    );
});

gstest!(sortr_path_files_null, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--files", "--sortr", "path", "--null"]);
    eqnice!("sub/deep/c.txt\0sub/b.txt\0a.txt\0", cmd.stdout());
});

// The last of --sort, --sortr and --sort-files wins.
gstest!(sort_last_wins, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--sortr", "modified", "--sort-files", "fox"]);
    eqnice!(
        "a.txt:fox\nsub/b.txt:fox\nsub/deep/c.txt:fox\n",
        cmd.stdout()
    );
});

gstest!(sort_then_sortr, |dir: Dir, cmd: TestCommand| {
    timed_tree(&dir);
    cmd.args(["--sort", "path", "--sortr", "path", "--files"]);
    eqnice!("sub/deep/c.txt\nsub/b.txt\na.txt\n", cmd.stdout());
});

fn typed_tree(dir: &Dir) {
    dir.create("a.rs", "fox\n");
    dir.create("b.foo", "fox\n");
    dir.create("c.txt", "fox\n");
}

gstest!(type_add_select, |dir: Dir, cmd: TestCommand| {
    typed_tree(&dir);
    cmd.args(["--type-add", "foo:*.foo", "-tfoo", "--files"]);
    eqnice!("b.foo\n", cmd.stdout());
});

gstest!(type_add_include, |dir: Dir, cmd: TestCommand| {
    typed_tree(&dir);
    cmd.args([
        "--type-add",
        "foo:*.foo",
        "--type-add",
        "both:include:foo,rust",
    ]);
    cmd.args(["-tboth", "--sort", "path", "--files"]);
    eqnice!("a.rs\nb.foo\n", cmd.stdout());
});

// Changes apply in order: a clear after an add empties the type, an add
// after a clear replaces it.
gstest!(type_clear_then_add, |dir: Dir, cmd: TestCommand| {
    typed_tree(&dir);
    cmd.args([
        "--type-clear",
        "rust",
        "--type-add",
        "rust:*.txt",
        "-trust",
        "--files",
    ]);
    eqnice!("c.txt\n", cmd.stdout());
});

gstest!(type_add_then_clear, |dir: Dir, cmd: TestCommand| {
    typed_tree(&dir);
    cmd.args([
        "--type-add",
        "rust:*.txt",
        "--type-clear",
        "rust",
        "-trust",
        "--files",
    ]);
    let out = cmd.expect(2, "");
    let msg = format!("{}: unrecognized file type: rust\n", crate::util::prog());
    eqnice!(msg, out.stderr);
});

gstest!(type_list_with_changes, |_dir: Dir, cmd: TestCommand| {
    cmd.args([
        "--type-clear",
        "rust",
        "--type-add",
        "rust:*.rs2",
        "--type-list",
    ]);
    let out = cmd.stdout();
    assert!(out.contains("\nrust: *.rs2\n"), "{out}");
});

fn cased_tree(dir: &Dir) {
    dir.create("a.txt", "fox\n");
    dir.create("B.TXT", "fox\n");
    dir.create("c.rs", "fox\n");
}

gstest!(glob_is_case_sensitive, |dir: Dir, cmd: TestCommand| {
    cased_tree(&dir);
    cmd.args(["-g", "*.txt", "--files"]);
    eqnice!("a.txt\n", cmd.stdout());
});

gstest!(iglob, |dir: Dir, cmd: TestCommand| {
    cased_tree(&dir);
    cmd.args(["--iglob", "*.txt", "--sort", "path", "--files"]);
    eqnice!("B.TXT\na.txt\n", cmd.stdout());
});

gstest!(glob_case_insensitive, |dir: Dir, cmd: TestCommand| {
    cased_tree(&dir);
    cmd.args([
        "-g",
        "*.TXT",
        "--glob-case-insensitive",
        "--sort",
        "path",
        "--files",
    ]);
    eqnice!("B.TXT\na.txt\n", cmd.stdout());
});

gstest!(no_glob_case_insensitive, |dir: Dir, cmd: TestCommand| {
    cased_tree(&dir);
    cmd.args([
        "-g",
        "*.TXT",
        "--glob-case-insensitive",
        "--no-glob-case-insensitive",
    ]);
    cmd.args(["--files"]);
    eqnice!("B.TXT\n", cmd.stdout());
});

fn sized_tree(dir: &Dir) {
    dir.create("small.txt", "fox\n");
    dir.create("mid.txt", &"fox\n".repeat(300));
    dir.create("big.txt", &"fox\n".repeat(300_000));
}

gstest!(max_filesize_bytes, |dir: Dir, cmd: TestCommand| {
    sized_tree(&dir);
    cmd.args(["--max-filesize", "100", "--files"]);
    eqnice!("small.txt\n", cmd.stdout());
});

gstest!(max_filesize_kilobytes, |dir: Dir, cmd: TestCommand| {
    sized_tree(&dir);
    cmd.args(["--max-filesize", "2K", "-c", "--sort", "path", "fox"]);
    eqnice!("mid.txt:300\nsmall.txt:1\n", cmd.stdout());
});

gstest!(max_filesize_megabytes, |dir: Dir, cmd: TestCommand| {
    sized_tree(&dir);
    cmd.args(["--max-filesize", "1M", "--sort", "path", "--files"]);
    eqnice!("mid.txt\nsmall.txt\n", cmd.stdout());
});

gstest!(one_file_system, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args([
        "--one-file-system",
        "--no-one-file-system",
        "--one-file-system",
        "fox",
    ]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

fn ignored_tree(dir: &Dir) {
    dir.create("a.txt", "fox\n");
    dir.create("B.TXT", "fox\n");
    dir.create("big.txt", "fox\n");
    dir.create("sub/c.rs", "fox\n");
    dir.create(".ignore", "sub/\n");
    dir.create(".rgignore", "big.txt\n");
    dir.create("../extra-ignore", "b.txt\n");
}

gstest!(ignore_file, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    dir.create("rules", "B.TXT\n");
    cmd.args(["--ignore-file", "rules", "--sort", "path", "--files"]);
    eqnice!("a.txt\nrules\n", cmd.stdout());
});

gstest!(
    ignore_file_case_insensitive,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "fox\n");
        dir.create("B.TXT", "fox\n");
        dir.create("C.TXT", "fox\n");
        dir.create(".ignore", "b.txt\n");
        dir.create("rules", "c.txt\nrules\n");
        cmd.args(["--ignore-file", "rules", "--ignore-file-case-insensitive"]);
        cmd.args(["--sort", "path", "--files"]);
        eqnice!("C.TXT\na.txt\n", cmd.stdout());
    }
);

// Case-insensitive rules apply to the ignore files found while walking,
// not to --ignore-file (read before the flag is applied, as in ripgrep).
gstest!(
    ignore_file_case_sensitive_again,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "fox\n");
        dir.create("B.TXT", "fox\n");
        dir.create(".ignore", "b.txt\n");
        cmd.args([
            "--ignore-file-case-insensitive",
            "--no-ignore-file-case-insensitive",
        ]);
        cmd.args(["--sort", "path", "--files"]);
        eqnice!("B.TXT\na.txt\n", cmd.stdout());
    }
);

gstest!(ignore_file_missing, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--ignore-file", "nope", "--files"]);
    let out = cmd.expect(0, "a.txt\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope: No such file or directory"), "{err}");
});

// --no-ignore leaves --ignore-file alone; --no-ignore-files does not.
gstest!(no_ignore_keeps_ignore_file, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    dir.create("rules", "B.TXT\nrules\n");
    cmd.args([
        "--ignore-file",
        "rules",
        "--no-ignore",
        "--sort",
        "path",
        "--files",
    ]);
    eqnice!("a.txt\nbig.txt\nsub/c.rs\n", cmd.stdout());
});

gstest!(no_ignore_files, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    dir.create("rules", "B.TXT\nrules\n");
    cmd.args(["--ignore-file", "rules", "--no-ignore-files"]);
    cmd.args(["--sort", "path", "--files"]);
    eqnice!("B.TXT\na.txt\nrules\n", cmd.stdout());
});

gstest!(no_ignore_dot, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    cmd.args(["--no-ignore-dot", "--sort", "path", "--files"]);
    eqnice!("B.TXT\na.txt\nbig.txt\nsub/c.rs\n", cmd.stdout());
});

gstest!(ignore_dot_negation, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    cmd.args([
        "--no-ignore-dot",
        "--ignore-dot",
        "--sort",
        "path",
        "--files",
    ]);
    eqnice!("B.TXT\na.txt\n", cmd.stdout());
});

fn git_tree(dir: &Dir) {
    dir.git_init("");
    dir.create(".gitignore", "a.txt\n");
    dir.create(".git/info/exclude", "b.txt\n");
    dir.create(".ignore", "c.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create("b.txt", "fox\n");
    dir.create("c.txt", "fox\n");
    dir.create("d.txt", "fox\n");
}

gstest!(no_ignore_vcs, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore-vcs", "--sort", "path", "--files"]);
    eqnice!("a.txt\nb.txt\nd.txt\n", cmd.stdout());
});

gstest!(ignore_vcs_negation, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore-vcs", "--ignore-vcs", "--files"]);
    eqnice!("d.txt\n", cmd.stdout());
});

// Each ignore flag sets part of one state and the last one given wins:
// --ignore turns every kind back on, --no-ignore-vcs only git's.
gstest!(no_ignore_vcs_then_ignore, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore-vcs", "--ignore", "--files"]);
    eqnice!("d.txt\n", cmd.stdout());
});

gstest!(ignore_then_no_ignore_vcs, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--ignore", "--no-ignore-vcs", "--sort", "path", "--files"]);
    eqnice!("a.txt\nb.txt\nd.txt\n", cmd.stdout());
});

gstest!(no_ignore_then_ignore_vcs, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore", "--ignore-vcs", "--sort", "path", "--files"]);
    eqnice!("b.txt\nc.txt\nd.txt\n", cmd.stdout());
});

gstest!(no_ignore_then_ignore_dot, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore", "--ignore-dot", "--sort", "path", "--files"]);
    eqnice!("a.txt\nb.txt\nd.txt\n", cmd.stdout());
});

gstest!(no_ignore_dot_then_ignore, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore-dot", "--ignore", "--files"]);
    eqnice!("d.txt\n", cmd.stdout());
});

gstest!(
    unrestricted_then_ignore_vcs,
    |dir: Dir, cmd: TestCommand| {
        git_tree(&dir);
        cmd.args(["-u", "--ignore-vcs", "--sort", "path", "--files"]);
        eqnice!("b.txt\nc.txt\nd.txt\n", cmd.stdout());
    }
);

// Each -u takes the next level, wherever it stands: -u --ignore -u
// respects ignore files and shows hidden ones.
gstest!(
    unrestricted_split_by_ignore,
    |dir: Dir, cmd: TestCommand| {
        git_tree(&dir);
        dir.create(".h.txt", "fox\n");
        cmd.args([
            "-u",
            "--ignore",
            "-u",
            "--sort",
            "path",
            "--files",
            "-g",
            "!.git",
            "-g",
            "!.*ignore",
        ]);
        eqnice!(".h.txt\nd.txt\n", cmd.stdout());
    }
);

gstest!(uu_then_ignore, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    dir.create(".h.txt", "fox\n");
    cmd.args([
        "-uu",
        "--ignore",
        "--sort",
        "path",
        "--files",
        "-g",
        "!.git",
        "-g",
        "!.*ignore",
    ]);
    eqnice!(".h.txt\nd.txt\n", cmd.stdout());
});

gstest!(no_ignore_exclude, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args(["--no-ignore-exclude", "--sort", "path", "--files"]);
    eqnice!("b.txt\nd.txt\n", cmd.stdout());
});

gstest!(no_ignore_global, |dir: Dir, cmd: TestCommand| {
    git_tree(&dir);
    cmd.args([
        "--no-ignore-global",
        "--ignore-global",
        "--no-ignore-global",
        "--files",
    ]);
    eqnice!("d.txt\n", cmd.stdout());
});

gstest!(no_ignore_parent, |dir: Dir, cmd: TestCommand| {
    dir.create(".ignore", "a.txt\n");
    dir.create("sub/a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.current_dir(dir.path().join("sub"));
    cmd.args(["--sort", "path", "--files"]);
    eqnice!("b.txt\n", cmd.stdout());
});

gstest!(no_ignore_parent_given, |dir: Dir, cmd: TestCommand| {
    dir.create(".ignore", "a.txt\n");
    dir.create("sub/a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.current_dir(dir.path().join("sub"));
    cmd.args(["--no-ignore-parent", "--sort", "path", "--files"]);
    eqnice!("a.txt\nb.txt\n", cmd.stdout());
});

// --ignore after -u respects ignore files again; before it, it does not.
gstest!(ignore_after_unrestricted, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    cmd.args(["-u", "--ignore", "--sort", "path", "--files"]);
    eqnice!("B.TXT\na.txt\n", cmd.stdout());
});

gstest!(ignore_before_unrestricted, |dir: Dir, cmd: TestCommand| {
    ignored_tree(&dir);
    cmd.args(["--ignore", "-u", "--sort", "path", "--files"]);
    eqnice!("B.TXT\na.txt\nbig.txt\nsub/c.rs\n", cmd.stdout());
});

gstest!(no_hidden_after_uu, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create(".h.txt", "fox\n");
    cmd.args(["-uu", "--no-hidden", "--files"]);
    eqnice!("a.txt\n", cmd.stdout());
});

gstest!(hidden_short_dot, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create(".h/b.txt", "fox\n");
    cmd.args(["-.", "--sort", "path", "--files"]);
    eqnice!(".h/b.txt\na.txt\n", cmd.stdout());
});

gstest!(require_git_negation, |dir: Dir, cmd: TestCommand| {
    dir.create(".gitignore", "a.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create("b.txt", "fox\n");
    cmd.args([
        "--no-require-git",
        "--require-git",
        "--sort",
        "path",
        "--files",
    ]);
    eqnice!("a.txt\nb.txt\n", cmd.stdout());
});

gstest!(files_color_always, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.args(["--files", "--sort", "path", "--color", "always"]);
    eqnice!(
        "\x1b[0m\x1b[35ma.txt\x1b[0m\n\x1b[0m\x1b[35msub/b.txt\x1b[0m\n",
        cmd.stdout()
    );
});

gstest!(files_color_always_null, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--files", "--null", "--color", "always"]);
    eqnice!("\x1b[0m\x1b[35ma.txt\x1b[0m\0", cmd.stdout());
});

// Everything ignored, no path given: ripgrep's warning, exit 2.
gstest!(nothing_searched, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "*\n");
    dir.create("a.txt", "fox\n");
    cmd.arg("fox");
    let out = cmd.expect(2, "");
    let msg = format!(
        "{}: No files were searched, which means {} probably applied a filter you didn't \
         expect.\nRunning with --debug will show why files are being skipped.\n",
        crate::util::prog(),
        if crate::util::prog() == "rg" {
            "ripgrep"
        } else {
            "gsearch"
        }
    );
    eqnice!(msg, out.stderr);
});

fn binary_tree(dir: &Dir) {
    dir.create_bytes("bin.dat", b"foo\x00bar\nfoo\n");
}

gstest!(no_binary_after_uuu, |dir: Dir, cmd: TestCommand| {
    binary_tree(&dir);
    cmd.args(["-uuu", "--no-binary", "foo"]);
    cmd.expect(1, "");
});

gstest!(uuu_after_text, |dir: Dir, cmd: TestCommand| {
    binary_tree(&dir);
    cmd.args(["-a", "-uuu", "-c", "foo"]);
    eqnice!("bin.dat:2\n", cmd.stdout());
});

gstest!(no_binary_before_uuu, |dir: Dir, cmd: TestCommand| {
    binary_tree(&dir);
    cmd.args(["--no-binary", "-uuu", "foo"]);
    eqnice!(
        "bin.dat: binary file matches (found \"\\0\" byte around offset 3)\n",
        cmd.stdout()
    );
});

gstest!(uuu_no_binary_then_text, |dir: Dir, cmd: TestCommand| {
    binary_tree(&dir);
    cmd.args(["-uuu", "--no-binary", "-a", "-c", "foo"]);
    eqnice!("bin.dat:2\n", cmd.stdout());
});

// Found by walking, a binary file stops at its NUL (nothing counted).
gstest!(binary_walked_skipped, |dir: Dir, cmd: TestCommand| {
    binary_tree(&dir);
    cmd.args(["-c", "foo"]);
    cmd.expect(1, "");
});

gstest!(no_text, |dir: Dir, cmd: TestCommand| {
    binary_tree(&dir);
    cmd.args(["-a", "--no-text", "foo"]);
    cmd.expect(1, "");
});

gstest!(simple_negations, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\nbar\n");
    cmd.args([
        "-b",
        "--no-byte-offset",
        "-v",
        "--no-invert-match",
        "--json",
        "--no-json",
    ]);
    cmd.args(["--stats", "--no-stats", "foo", "a.txt"]);
    eqnice!("foo\n", cmd.stdout());
});

gstest!(no_include_zero, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "foo\n");
    dir.create("b.txt", "bar\n");
    cmd.args(["-c", "--include-zero", "--no-include-zero", "foo"]);
    eqnice!("a.txt:1\n", cmd.stdout());
});

// `--files -q` prints nothing; a file found is exit status 0.
gstest!(files_quiet, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--files", "-q"]);
    cmd.expect(0, "");
});

gstest!(files_quiet_none, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--files", "-q", "-g", "*.rs"]);
    cmd.expect(1, "");
});

// The last of the mode flags wins: -l after --files searches.
gstest!(files_then_list_matches, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("b.txt", "dog\n");
    cmd.args(["--files", "-l", "fox"]);
    eqnice!("a.txt\n", cmd.stdout());
});

gstest!(list_matches_then_files, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("b.txt", "dog\n");
    cmd.args(["-l", "--files", "--sort", "path"]);
    eqnice!("a.txt\nb.txt\n", cmd.stdout());
});

gstest!(
    files_then_count_needs_pattern,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "fox\n");
        cmd.args(["--files", "-c"]);
        let out = cmd.expect(2, "");
        let prog = crate::util::prog();
        let name = if prog == "rg" { "ripgrep" } else { "gsearch" };
        let msg = format!("{prog}: {name} requires at least one pattern to execute a search\n");
        eqnice!(msg, out.stderr);
    }
);

gstest!(type_list_then_files, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["--type-list", "--files"]);
    eqnice!("a.txt\n", cmd.stdout());
});

gstest!(type_list_bad_type, |_dir: Dir, cmd: TestCommand| {
    cmd.args(["--type-list", "-tnope"]);
    let out = cmd.expect(2, "");
    let msg = format!("{}: unrecognized file type: nope\n", crate::util::prog());
    eqnice!(msg, out.stderr);
});

// ripgrep builds the types, the globs and the --pre-glob globs (in that
// order) before it chooses what to run, and checks --colors and
// --hyperlink-format as it reads them (in order with the other flags'
// values): with --type-list a bad one is an error too, and nothing is
// printed. Found by the walk
// fuzzer: `--type-list -g '['` printed the list and exited 0.
gstest!(type_list_bad_flags, |dir: Dir, _cmd: TestCommand| {
    let glob = "error parsing glob '[': unclosed character class; missing ']'";
    let colors = "error parsing flag --colors: invalid color spec format: 'bad'. Valid format \
                  is '(path|line|column|match|highlight):(fg|bg|style):(value)'.";
    let link = "error parsing flag --hyperlink-format: invalid hyperlink format: unclosed \
                variable: found '{' without a corresponding '}' following it";
    let cases: [(&[&str], &str); 12] = [
        (&["--type-list", "-g", "["], glob),
        (&["--type-list", "--iglob", "["], glob),
        (&["--type-list", "--pre-glob", "["], glob),
        (&["--type-list", "--hyperlink-format", "bad{"], link),
        (&["--type-list", "--colors", "bad"], colors),
        (&["--type-list", "-g", "[", "--colors", "bad"], colors),
        (
            &["--type-list", "-tnope", "-g", "["],
            "unrecognized file type: nope",
        ),
        (
            &[
                "--type-list",
                "--colors",
                "bad",
                "--hyperlink-format",
                "bad{",
            ],
            colors,
        ),
        (
            &["--hyperlink-format", "bad{", "--colors", "bad", "fox"],
            link,
        ),
        (&["--colors", "bad", "--max-filesize", "1Q", "fox"], colors),
        (
            &["--pre-glob", "[", "-tnope", "fox"],
            "unrecognized file type: nope",
        ),
        (&["--pre-glob", "{", "-g", "[", "fox"], glob),
    ];
    for (flags, msg) in cases {
        let mut c = dir.command();
        let out = c.args(flags).expect(2, "");
        eqnice!(format!("{}: {msg}\n", crate::util::prog()), out.stderr);
    }
    let mut good = dir.command();
    good.args(["--type-list", "--type-add", "foo:*.foo", "-g", "*.rs"]);
    good.args(["--colors", "match:fg:red", "--hyperlink-format", "vscode"]);
    let out = good.args(["--pre-glob", "*.gz"]).stdout();
    assert!(out.contains("\nfoo: *.foo\n"), "{out}");
});

// A bad glob or type is reported before a bad pattern: ripgrep builds them
// before it compiles the patterns. Found by the walk fuzzer: `-g '[' '('`
// named the pattern.
gstest!(
    bad_glob_before_bad_pattern,
    |dir: Dir, _cmd: TestCommand| {
        dir.create("a.txt", "fox\n");
        let glob = "error parsing glob '[': unclosed character class; missing ']'";
        let cases: [(&[&str], &str); 3] = [
            (&["-g", "[", "(", "a.txt"], glob),
            (&["--iglob", "[", "-e", "(", "a.txt"], glob),
            (&["-tnope", "(", "a.txt"], "unrecognized file type: nope"),
        ];
        for (flags, msg) in cases {
            let out = dir.command().args(flags).expect(2, "");
            eqnice!(format!("{}: {msg}\n", crate::util::prog()), out.stderr);
        }
    }
);

// One regular file that `auto` would search with the device beside the CPU:
// a bad --type-add or glob still fails the run, and an --ignore-file that
// cannot be read is still reported (the hybrid skipped the walk that says
// so). Found by the walk fuzzer: `--engine auto --type-add bad '' q.md`
// exited 0.
gstest!(
    walk_errors_on_one_big_file,
    |dir: Dir, _cmd: TestCommand| {
        dir.create("a.txt", "foo\nbar\n");
        let auto = |c: &mut TestCommand| {
            c.raw()
                .env("GSEARCH_ENGINE", "auto")
                .env("GSEARCH_AUTO_MIN_BYTES", "1")
                .env("GSEARCH_DEVICE_STARTUP_MS", "0");
        };
        for (flags, needle) in [
            (
                ["--type-add", "bad"],
                "invalid definition (format is type:glob",
            ),
            (["-g", "["], "error parsing glob '['"),
        ] {
            let mut c = dir.command();
            auto(&mut c);
            c.args(flags).args(["foo", "a.txt"]);
            let out = c.assert_error(&[needle]);
            eqnice!("", out.stdout);
        }
        let mut c = dir.command();
        auto(&mut c);
        c.args(["--ignore-file", "nope.ign", "foo", "a.txt"]);
        let out = c.expect(0, "foo\n");
        let want = format!(
            "{}: nope.ign: No such file or directory (os error 2)\n",
            crate::util::prog()
        );
        eqnice!(want, out.stderr);
    }
);

// An --ignore-file that cannot be read is reported once when sorting by a
// timestamp (the device engine built the walker twice, once for the sorted
// list). Found by the walk fuzzer: `--engine opencl --ignore-file nope.ign
// -c --sort modified foo d`.
gstest!(
    missing_ignore_file_reported_once_sorted,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.txt", "foo\n");
        dir.create("sub/b.txt", "foo\n");
        cmd.args(["--ignore-file", "nope.ign", "-c", "--sortr", "path", "foo"]);
        let out = cmd.expect(0, "sub/b.txt:1\na.txt:1\n");
        let want = format!(
            "{}: nope.ign: No such file or directory (os error 2)\n",
            crate::util::prog()
        );
        eqnice!(want, out.stderr);
    }
);

// Of a bad --type-add, a bad glob and an unreadable --ignore-file, the type
// is reported (alone), then the glob, as ripgrep builds them in that order
// before the walker. Found by the walk fuzzer: `-g '{' --type-add foo: x d`
// named the glob.
gstest!(
    type_then_glob_errors_first,
    |dir: Dir, _cmd: TestCommand| {
        dir.create("a.txt", "foo\n");
        let prog = crate::util::prog();
        let glob = format!(
            "{prog}: error parsing glob '{{': unclosed alternate group; missing '}}' \
         (maybe escape '{{' with '[{{]'?)\n"
        );
        let types =
            format!("{prog}: invalid definition (format is type:glob, e.g., html:*.html)\n");
        for (args, want) in [
            (
                &["-g", "{", "--type-add", "foo:", "--ignore-file", "nope"][..],
                &types,
            ),
            (&["--ignore-file", "nope", "-g", "{"][..], &glob),
        ] {
            let mut cmd = dir.command();
            cmd.args(args).args(["foo", "."]);
            let out = cmd.expect(2, "");
            eqnice!(want, out.stderr);
        }
    }
);
