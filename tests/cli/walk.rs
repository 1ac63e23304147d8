//! Recursive search: ignore files, hidden files, globs, types, symlinks,
//! depth, -u, threads, and how paths are displayed.

use crate::util::{Dir, TestCommand, prog, sort_lines};

// No path and stdin not readable (null): search ./ and print paths without
// a "./" prefix.
gstest!(implicit_cwd_no_dot_prefix, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.args(["--sort", "path", "fox"]);
    eqnice!("a.txt:fox\nsub/b.txt:fox\n", cmd.stdout());
});

// An explicit "." keeps the "./" prefix.
gstest!(explicit_dot_prefix, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.args(["--sort", "path", "fox", "."]);
    eqnice!("./a.txt:fox\n./sub/b.txt:fox\n", cmd.stdout());
});

// "./" (with slash) is kept as given, no doubled slash.
gstest!(explicit_dot_slash_prefix, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["fox", "./"]);
    eqnice!("./a.txt:fox\n", cmd.stdout());
});

gstest!(explicit_subdir_prefix, |dir: Dir, cmd: TestCommand| {
    dir.create("sub/deeper/b.txt", "fox\n");
    cmd.args(["fox", "sub"]);
    eqnice!("sub/deeper/b.txt:fox\n", cmd.stdout());
});

// A trailing slash on the directory is kept.
gstest!(
    explicit_subdir_trailing_slash,
    |dir: Dir, cmd: TestCommand| {
        dir.create("sub/b.txt", "fox\n");
        cmd.args(["fox", "sub/"]);
        eqnice!("sub/b.txt:fox\n", cmd.stdout());
    }
);

// An absolute path is printed absolute.
gstest!(absolute_path, |dir: Dir, cmd: TestCommand| {
    dir.create("sub/b.txt", "fox\n");
    let abs = dir.path().join("sub");
    cmd.arg("fox").arg(&abs);
    let expected = format!("{}/b.txt:fox\n", abs.display());
    eqnice!(expected, cmd.stdout());
});

// A directory and a file given together.
gstest!(file_and_directory, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.args(["-j1", "fox", "a.txt", "sub"]);
    eqnice!("a.txt:fox\nsub/b.txt:fox\n", cmd.stdout());
});

// .gitignore is honoured inside a git repository.
gstest!(gitignore, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "ignored.txt\n*.log\nbuild/\n");
    dir.create("kept.txt", "fox\n");
    dir.create("ignored.txt", "fox\n");
    dir.create("x.log", "fox\n");
    dir.create("build/out.txt", "fox\n");
    dir.create("sub/build", "fox\n");
    cmd.args(["--sort", "path", "fox"]);
    eqnice!("kept.txt:fox\nsub/build:fox\n", cmd.stdout());
});

// Outside a git repository .gitignore is not honoured.
gstest!(gitignore_needs_git_repo, |dir: Dir, cmd: TestCommand| {
    dir.create(".gitignore", "ignored.txt\n");
    dir.create("kept.txt", "fox\n");
    dir.create("ignored.txt", "fox\n");
    cmd.args(["--sort", "path", "fox"]);
    eqnice!("ignored.txt:fox\nkept.txt:fox\n", cmd.stdout());
});

gstest!(gitignore_no_require_git, |dir: Dir, cmd: TestCommand| {
    dir.create(".gitignore", "ignored.txt\n");
    dir.create("kept.txt", "fox\n");
    dir.create("ignored.txt", "fox\n");
    cmd.args(["--no-require-git", "fox"]);
    eqnice!("kept.txt:fox\n", cmd.stdout());
});

// Negation and anchoring in .gitignore.
gstest!(gitignore_negation_anchored, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "*.txt\n!keep.txt\n/top.md\n");
    dir.create("a.txt", "fox\n");
    dir.create("keep.txt", "fox\n");
    dir.create("top.md", "fox\n");
    dir.create("sub/top.md", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.args(["--sort", "path", "fox"]);
    eqnice!("keep.txt:fox\nsub/top.md:fox\n", cmd.stdout());
});

// A nested .gitignore applies to its own directory only.
gstest!(gitignore_nested, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create("sub/.gitignore", "a.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create("sub/a.txt", "fox\n");
    dir.create("sub/b.txt", "fox\n");
    cmd.args(["--sort", "path", "fox"]);
    eqnice!("a.txt:fox\nsub/b.txt:fox\n", cmd.stdout());
});

// An explicitly given file is searched even when ignored.
gstest!(
    gitignore_explicit_file_searched,
    |dir: Dir, cmd: TestCommand| {
        dir.git_init("");
        dir.create(".gitignore", "ignored.txt\n");
        dir.create("ignored.txt", "fox\n");
        cmd.args(["fox", "ignored.txt"]);
        eqnice!("fox\n", cmd.stdout());
    }
);

// .git/info/exclude is honoured like .gitignore.
gstest!(git_info_exclude, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".git/info/exclude", "excluded.txt\n");
    dir.create("excluded.txt", "fox\n");
    dir.create("kept.txt", "fox\n");
    cmd.args(["fox"]);
    eqnice!("kept.txt:fox\n", cmd.stdout());
});

// .ignore needs no git repository.
gstest!(dot_ignore, |dir: Dir, cmd: TestCommand| {
    dir.create(".ignore", "ignored.txt\n");
    dir.create("kept.txt", "fox\n");
    dir.create("ignored.txt", "fox\n");
    cmd.args(["fox"]);
    eqnice!("kept.txt:fox\n", cmd.stdout());
});

// .ignore has precedence over .gitignore: it can re-include a file.
gstest!(
    dot_ignore_overrides_gitignore,
    |dir: Dir, cmd: TestCommand| {
        dir.git_init("");
        dir.create(".gitignore", "*.txt\n");
        dir.create(".ignore", "!special.txt\n");
        dir.create("a.txt", "fox\n");
        dir.create("special.txt", "fox\n");
        cmd.args(["fox"]);
        eqnice!("special.txt:fox\n", cmd.stdout());
    }
);

gstest!(dot_rgignore, |dir: Dir, cmd: TestCommand| {
    dir.create(".rgignore", "ignored.txt\n");
    dir.create("kept.txt", "fox\n");
    dir.create("ignored.txt", "fox\n");
    cmd.args(["fox"]);
    eqnice!("kept.txt:fox\n", cmd.stdout());
});

// .rgignore has precedence over .ignore.
gstest!(
    dot_rgignore_overrides_ignore,
    |dir: Dir, cmd: TestCommand| {
        dir.create(".ignore", "*.txt\n");
        dir.create(".rgignore", "!special.txt\n");
        dir.create("a.txt", "fox\n");
        dir.create("special.txt", "fox\n");
        cmd.args(["fox"]);
        eqnice!("special.txt:fox\n", cmd.stdout());
    }
);

// Ignore files in a parent directory of the searched one apply too.
gstest!(ignore_file_in_parent, |dir: Dir, cmd: TestCommand| {
    dir.create(".ignore", "skip.txt\n");
    dir.create("sub/skip.txt", "fox\n");
    dir.create("sub/keep.txt", "fox\n");
    cmd.current_dir(dir.path().join("sub")).args(["fox"]);
    eqnice!("keep.txt:fox\n", cmd.stdout());
});

gstest!(no_ignore, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "a.txt\n");
    dir.create(".ignore", "b.txt\n");
    dir.create(".rgignore", "c.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create("b.txt", "fox\n");
    dir.create("c.txt", "fox\n");
    cmd.args(["--no-ignore", "--sort", "path", "fox"]);
    eqnice!("a.txt:fox\nb.txt:fox\nc.txt:fox\n", cmd.stdout());
});

// Hidden files and directories are skipped by default.
gstest!(hidden_skipped, |dir: Dir, cmd: TestCommand| {
    dir.create(".hidden.txt", "fox\n");
    dir.create(".dir/a.txt", "fox\n");
    dir.create("shown.txt", "fox\n");
    cmd.args(["fox"]);
    eqnice!("shown.txt:fox\n", cmd.stdout());
});

gstest!(hidden, |dir: Dir, cmd: TestCommand| {
    dir.create(".hidden.txt", "fox\n");
    dir.create(".dir/a.txt", "fox\n");
    dir.create("shown.txt", "fox\n");
    cmd.args(["--hidden", "--sort", "path", "fox"]);
    eqnice!(
        ".dir/a.txt:fox\n.hidden.txt:fox\nshown.txt:fox\n",
        cmd.stdout()
    );
});

// --hidden descends into .git too: ripgrep does not skip it specially.
gstest!(hidden_includes_git_dir, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".git/config", "fox\n");
    dir.create(".hidden.txt", "fox\n");
    cmd.args(["--hidden", "--sort", "path", "fox"]);
    eqnice!(".git/config:fox\n.hidden.txt:fox\n", cmd.stdout());
});

// A hidden file given explicitly is searched.
gstest!(hidden_explicit_file, |dir: Dir, cmd: TestCommand| {
    dir.create(".hidden.txt", "fox\n");
    cmd.args(["fox", ".hidden.txt"]);
    eqnice!("fox\n", cmd.stdout());
});

// -u = --no-ignore.
gstest!(unrestricted_once, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "a.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create(".h.txt", "fox\n");
    dir.create_bytes("bin.dat", b"fox\x00\n");
    cmd.args(["-u", "--sort", "path", "fox"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

// -uu = --no-ignore --hidden.
gstest!(unrestricted_twice, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "a.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create(".h.txt", "fox\n");
    dir.create_bytes("bin.dat", b"fox\x00\n");
    cmd.args(["-uu", "--sort", "path", "fox"]);
    eqnice!(".h.txt:fox\na.txt:fox\n", cmd.stdout());
});

// -uuu = --no-ignore --hidden --binary: the binary file matches too, and
// is reported as such.
gstest!(unrestricted_thrice, |dir: Dir, cmd: TestCommand| {
    dir.git_init("");
    dir.create(".gitignore", "a.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create(".h.txt", "fox\n");
    dir.create_bytes("bin.dat", b"fox\x00\n");
    cmd.args(["-uuu", "--sort", "path", "fox"]);
    let expected = "\
.h.txt:fox
a.txt:fox
bin.dat: binary file matches (found \"\\0\" byte around offset 3)
";
    eqnice!(expected, cmd.stdout());
});

gstest!(glob, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("b.md", "fox\n");
    dir.create("sub/c.txt", "fox\n");
    cmd.args(["-g", "*.txt", "--sort", "path", "fox"]);
    eqnice!("a.txt:fox\nsub/c.txt:fox\n", cmd.stdout());
});

gstest!(glob_negated, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("b.md", "fox\n");
    dir.create("sub/c.txt", "fox\n");
    cmd.args(["--glob", "!*.txt", "fox"]);
    eqnice!("b.md:fox\n", cmd.stdout());
});

// A negated directory glob prunes the whole directory.
gstest!(glob_negated_directory, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("sub/c.txt", "fox\n");
    dir.create("sub/deep/d.txt", "fox\n");
    cmd.args(["-g", "!sub", "fox"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

// Several globs: a file is searched if any positive glob matches, unless
// a later negated one excludes it.
gstest!(glob_several, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("b.md", "fox\n");
    dir.create("c.rs", "fox\n");
    dir.create("skip.md", "fox\n");
    cmd.args([
        "-g", "*.txt", "-g", "*.md", "-g", "!skip*", "--sort", "path", "fox",
    ]);
    eqnice!("a.txt:fox\nb.md:fox\n", cmd.stdout());
});

// A glob with a slash matches against the path relative to the search
// root.
gstest!(glob_with_slash, |dir: Dir, cmd: TestCommand| {
    dir.create("sub/a.txt", "fox\n");
    dir.create("other/a.txt", "fox\n");
    cmd.args(["-g", "sub/*.txt", "fox"]);
    eqnice!("sub/a.txt:fox\n", cmd.stdout());
});

// -g globs take precedence over ignore files: a positive glob selects a
// file that .ignore excludes.
gstest!(glob_overrides_ignore, |dir: Dir, cmd: TestCommand| {
    dir.create(".ignore", "a.txt\n");
    dir.create("a.txt", "fox\n");
    dir.create("b.txt", "fox\n");
    cmd.args(["-g", "a.txt", "fox"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

// Globs are case sensitive unless --iglob.
gstest!(glob_case_sensitive, |dir: Dir, cmd: TestCommand| {
    dir.create("A.TXT", "fox\n");
    dir.create("b.txt", "fox\n");
    cmd.args(["-g", "*.txt", "fox"]);
    eqnice!("b.txt:fox\n", cmd.stdout());
});

// A glob does not filter explicitly given files.
gstest!(
    glob_explicit_file_not_filtered,
    |dir: Dir, cmd: TestCommand| {
        dir.create("a.md", "fox\n");
        cmd.args(["-g", "*.txt", "fox", "a.md"]);
        eqnice!("fox\n", cmd.stdout());
    }
);

gstest!(type_select, |dir: Dir, cmd: TestCommand| {
    dir.create("main.rs", "fn fox() {}\n");
    dir.create("lib.py", "def fox(): pass\n");
    dir.create("notes.txt", "fox\n");
    cmd.args(["-t", "rust", "fox"]);
    eqnice!("main.rs:fn fox() {}\n", cmd.stdout());
});

gstest!(type_several, |dir: Dir, cmd: TestCommand| {
    dir.create("main.rs", "fn fox() {}\n");
    dir.create("lib.py", "def fox(): pass\n");
    dir.create("notes.txt", "fox\n");
    cmd.args(["--type", "rust", "-t", "py", "--sort", "path", "fox"]);
    eqnice!(
        "lib.py:def fox(): pass\nmain.rs:fn fox() {}\n",
        cmd.stdout()
    );
});

gstest!(type_not, |dir: Dir, cmd: TestCommand| {
    dir.create("main.rs", "fn fox() {}\n");
    dir.create("lib.py", "def fox(): pass\n");
    dir.create("notes.txt", "fox\n");
    cmd.args(["-T", "rust", "--sort", "path", "fox"]);
    eqnice!("lib.py:def fox(): pass\nnotes.txt:fox\n", cmd.stdout());
});

// Types match file names too, e.g. Makefile for "make".
gstest!(type_by_name, |dir: Dir, cmd: TestCommand| {
    dir.create("Makefile", "fox:\n");
    dir.create("a.c", "fox\n");
    cmd.args(["-tmake", "fox"]);
    eqnice!("Makefile:fox:\n", cmd.stdout());
});

gstest!(type_unknown_is_error, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    let out = cmd
        .args(["-t", "nope", "fox"])
        .assert_error(&["unrecognized file type: nope"]);
    eqnice!("", out.stdout);
});

// ripgrep 15's type table (the `ignore` crate's, with c3, ninja,
// powershell/pwsh, rego, scheme and toit).
gstest!(type_list, |dir: Dir, cmd: TestCommand| {
    let out = cmd.arg("--type-list").stdout();
    for line in [
        "rust: *.rs\n",
        "py: *.py, *.pyi\n",
        "c: *.[chH], *.[chH].in, *.cats\n",
        "c3: *.c3, *.c3i, *.c3t\n",
        "lisp: *.el, *.jl, *.lisp, *.lsp\n",
        "ninja: *.ninja\n",
        "ps: *.cdxml, *.ps1, *.ps1xml, *.psc1, *.psd1, *.psm1, *.psr, *.psrc, *.pssc, *.psxml\n",
        "pwsh: *.cdxml, *.ps1, *.ps1xml, *.psc1, *.psd1, *.psm1, *.psr, *.psrc, *.pssc, *.psxml\n",
        "scheme: *.sc, *.scm, *.sld, *.ss\n",
        "toit: *.toit\n",
    ] {
        assert!(out.contains(line), "--type-list lacks {line:?}");
    }
    let names: Vec<&str> = out.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert!(names.is_sorted(), "--type-list is sorted by name");
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(names, unique, "--type-list has no duplicates");
    assert_eq!(names.len(), 231);
});

// Symlinks are not followed by default while walking.
#[cfg(unix)]
gstest!(symlink_not_followed, |dir: Dir, cmd: TestCommand| {
    dir.create("real/a.txt", "fox\n");
    dir.create("target.txt", "fox\n");
    dir.create_dir("walk");
    dir.symlink("../real", "walk/linkdir");
    dir.symlink("../target.txt", "walk/link.txt");
    cmd.args(["fox", "walk"]).assert_no_match();
});

#[cfg(unix)]
gstest!(symlink_follow, |dir: Dir, cmd: TestCommand| {
    dir.create("real/a.txt", "fox\n");
    dir.create("target.txt", "fox\n");
    dir.create_dir("walk");
    dir.symlink("../real", "walk/linkdir");
    dir.symlink("../target.txt", "walk/link.txt");
    cmd.args(["-L", "--sort", "path", "fox", "walk"]);
    eqnice!("walk/link.txt:fox\nwalk/linkdir/a.txt:fox\n", cmd.stdout());
});

// An explicitly given symlink is followed even without -L.
#[cfg(unix)]
gstest!(symlink_explicit, |dir: Dir, cmd: TestCommand| {
    dir.create("target.txt", "fox\n");
    dir.symlink("target.txt", "link.txt");
    cmd.args(["fox", "link.txt"]);
    eqnice!("fox\n", cmd.stdout());
});

// A symlink loop under -L is reported when the walk comes to a link to an
// ancestor of the root (here the test's directory, above d), without going
// through it; the rest is still searched.
#[cfg(unix)]
gstest!(symlink_loop, |dir: Dir, cmd: TestCommand| {
    dir.create("d/a.txt", "fox\n");
    dir.symlink("..", "d/up");
    cmd.args(["--follow", "--sort", "path", "fox", "d"]);
    let out = cmd.expect(2, "d/a.txt:fox\n");
    let err = String::from_utf8_lossy(&out.stderr);
    let root = dir.path().canonicalize().unwrap();
    let want = format!(
        "File system loop found: d/up points to an ancestor {}",
        root.display()
    );
    assert!(err.contains(&want), "{err}");
});

// A link to a directory above the root is a loop at once, in the one-thread
// walk (--sort path, --sortr path, -j1) as in the parallel one: reported in
// its place (ignored or not), with the ancestor's absolute path, and not
// entered.
#[cfg(unix)]
gstest!(symlink_loop_above_root, |dir: Dir, cmd: TestCommand| {
    dir.create("d/a.txt", "fox\n");
    dir.create("d/b/c.txt", "fox\n");
    dir.create("d/b/.ignore", "zup\n");
    dir.symlink("..", "d/b/up");
    dir.symlink("../..", "d/b/zup");
    dir.symlink("nowhere", "d/b/gone");
    let above = |name: &str| dir.path().join(name).canonicalize().unwrap();
    let p = prog();
    let err = format!(
        "{p}: d/b/gone: IO error for operation on d/b/gone: No such file or directory (os error 2)\n\
         {p}: File system loop found: d/b/up points to an ancestor {}\n\
         {p}: File system loop found: d/b/zup points to an ancestor {}\n",
        above("d").display(),
        above(".").display(),
    );
    let mut files = dir.command();
    files.args(["-L", "--files", "--sort", "path", "d/b"]);
    eqnice!(&err, files.expect(2, "d/b/c.txt\n").stderr);
    // Given through the link, the root is the directory it leads to.
    let mut up = dir.command();
    up.args(["-L", "--sort", "path", "fox", "d/b/up"]);
    let out = up.expect(2, "d/b/up/a.txt:fox\nd/b/up/b/c.txt:fox\n");
    let err_up = format!(
        "{p}: d/b/up/b/gone: IO error for operation on d/b/up/b/gone: No such file or directory (os error 2)\n\
         {p}: File system loop found: d/b/up/b/up points to an ancestor d/b/up\n\
         {p}: File system loop found: d/b/up/b/zup points to an ancestor {}\n",
        above(".").display(),
    );
    eqnice!(err_up, out.stderr);
    cmd.args(["--follow", "--sort", "path", "fox", "d/b"]);
    eqnice!(err, cmd.expect(2, "d/b/c.txt:fox\n").stderr);
    for flags in [["--sortr", "path"], ["-j1", "--no-ignore"]] {
        let mut one = dir.command();
        one.args(["-L", "fox", "d/b"]).args(flags);
        let out = one.expect(2, "d/b/c.txt:fox\n");
        assert_eq!(3, out.stderr.split(|&b| b == b'\n').count() - 1);
    }
});

// -q ends the walk at the first match: a loop the walk would come to after
// it is never reported, one before it is (the match still wins, status 0).
// The device path's walk runs ahead of the search: its messages wait for
// their place among the files.
#[cfg(unix)]
gstest!(
    quiet_stops_before_later_loop,
    |dir: Dir, cmd: TestCommand| {
        dir.create("d/a.txt", "fox\n");
        dir.create("d/b/e.txt", "ant\n");
        dir.create("d/c.txt", "dog\n");
        dir.symlink("..", "d/b/up");
        cmd.args(["-q", "-L", "--sort", "path", "fox", "d"]);
        eqnice!("", cmd.expect(0, "").stderr);
        let mut late = dir.command();
        late.args(["-q", "-L", "--sort", "path", "dog", "d"]);
        let err = String::from_utf8_lossy(&late.expect(0, "").stderr).into_owned();
        assert!(err.contains("File system loop found: d/b/up"), "{err}");
    }
);

// A broken symlink under -L is an error on that entry only.
#[cfg(unix)]
gstest!(symlink_broken_follow, |dir: Dir, cmd: TestCommand| {
    dir.create("d/a.txt", "fox\n");
    dir.symlink("nowhere", "d/broken");
    cmd.args(["-L", "fox", "d"]);
    let out = cmd.expect(2, "d/a.txt:fox\n");
    assert!(!out.stderr.is_empty());
});

// Without -L a broken symlink is silently skipped.
#[cfg(unix)]
gstest!(symlink_broken_no_follow, |dir: Dir, cmd: TestCommand| {
    dir.create("d/a.txt", "fox\n");
    dir.symlink("nowhere", "d/broken");
    let out = cmd.args(["fox", "d"]).expect(0, "d/a.txt:fox\n");
    eqnice!("", out.stderr);
});

gstest!(max_depth, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("one/b.txt", "fox\n");
    dir.create("one/two/c.txt", "fox\n");
    cmd.args(["--max-depth", "2", "--sort", "path", "fox"]);
    eqnice!("a.txt:fox\none/b.txt:fox\n", cmd.stdout());
});

gstest!(max_depth_one, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("one/b.txt", "fox\n");
    cmd.args(["--max-depth", "1", "fox"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

// --max-depth 0 searches only explicitly given files.
gstest!(max_depth_zero, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    dir.create("one/b.txt", "fox\n");
    cmd.args(["--max-depth", "0", "fox", "a.txt", "one"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

// Any number of threads gives the same (sorted) results.
gstest!(threads, |dir: Dir, cmd: TestCommand| {
    let mut expected = String::new();
    for i in 0..40 {
        dir.create(format!("d{}/f{i:02}.txt", i % 4), "x\nfox\n");
        expected.push_str(&format!("d{}/f{i:02}.txt:2:fox\n", i % 4));
    }
    let expected = sort_lines(&expected);
    for j in ["1", "2", "8"] {
        let mut cmd = dir.command();
        cmd.args(["-n", "-j", j, "fox"]);
        eqnice!(&expected, sort_lines(&cmd.stdout()), "with -j {j}");
    }
    cmd.args(["--threads", "3", "-c", "--sort", "path", "fox", "d0"]);
    let out = cmd.stdout();
    eqnice!(
        "d0/f00.txt:1\n",
        out.lines().next().unwrap().to_string() + "\n"
    );
});

// --files lists what a search would look at, on any number of threads
// (in the walk's order with one thread or --sort path; in any order, as
// ripgrep's, with several), with --null, and under ignore rules and globs.
gstest!(files_on_threads, |dir: Dir, cmd: TestCommand| {
    let mut expected = String::new();
    for i in 0..60 {
        dir.create(format!("d{}/f{i:02}.txt", i % 5), "x\n");
        expected.push_str(&format!("d{}/f{i:02}.txt\n", i % 5));
    }
    dir.create(".ignore", "skipped/\n*.log\n");
    dir.create("skipped/a.txt", "x\n");
    dir.create("d0/x.log", "x\n");
    dir.create(".hidden/a.txt", "x\n");
    let expected = sort_lines(&expected);
    for j in ["1", "2", "8"] {
        let mut cmd = dir.command();
        cmd.args(["--files", "-j", j]);
        eqnice!(&expected, sort_lines(&cmd.stdout()), "with -j {j}");
    }
    let mut sorted = dir.command();
    sorted.args(["--files", "--sort", "path"]);
    eqnice!(&expected, sorted.stdout());
    let mut null = dir.command();
    null.args(["--files", "-0", "-j4", "d1"]);
    let mut listed: Vec<String> = null
        .stdout()
        .split_terminator('\0')
        .map(str::to_string)
        .collect();
    listed.sort();
    let d1: Vec<String> = (0..60)
        .filter(|i| i % 5 == 1)
        .map(|i| format!("d1/f{i:02}.txt"))
        .collect();
    assert_eq!(d1, listed);
    cmd.args(["--files", "-j4", "-g", "*3.txt"]);
    eqnice!(
        "d3/f03.txt\nd3/f13.txt\nd3/f23.txt\nd3/f33.txt\nd3/f43.txt\nd3/f53.txt\n",
        sort_lines(&cmd.stdout())
    );
});

// A missing path given to --files: ripgrep's message and exit code 2,
// the other paths still listed.
gstest!(files_missing_path, |dir: Dir, cmd: TestCommand| {
    dir.create("a/b.txt", "x\n");
    cmd.args(["--files", "-j4", "a", "nope"]);
    let out = cmd.output();
    assert_eq!(out.status.code(), Some(2));
    eqnice!("a/b.txt\n", out.stdout);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("gsearch: nope: "));
});

gstest!(mmap_and_no_mmap, |dir: Dir, cmd: TestCommand| {
    let text = "filler\n".repeat(2000) + "fox\n";
    dir.create("a.txt", &text);
    cmd.small_batches().args(["--mmap", "-n", "fox", "a.txt"]);
    eqnice!("2001:fox\n", cmd.stdout());
    let mut cmd = dir.command();
    cmd.small_batches()
        .args(["--no-mmap", "-n", "fox", "a.txt"]);
    eqnice!("2001:fox\n", cmd.stdout());
});

// An empty directory: nothing to search, exit 1.
gstest!(empty_directory, |dir: Dir, cmd: TestCommand| {
    dir.create_dir("empty");
    cmd.args(["fox", "empty"]).assert_no_match();
});
