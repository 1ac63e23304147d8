//! Where input comes from (stdin vs the current directory) and how it is
//! decoded (BOMs).

use crate::util::{Dir, TestCommand};

// No path, stdin a pipe: stdin is searched, with no path prefix.
gstest!(stdin_pipe, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox in a file\n");
    cmd.args(["-n", "fox"]).pipe("one\nfox\nfox two\n");
    eqnice!("2:fox\n3:fox two\n", cmd.stdout());
});

// No path, stdin a regular file (redirected): stdin is searched too.
gstest!(stdin_regular_file, |dir: Dir, cmd: TestCommand| {
    dir.create("in.txt", "x\nfox\n");
    dir.create("sub/a.txt", "fox elsewhere\n");
    cmd.stdin_file(dir.path().join("in.txt"))
        .args(["-n", "fox"]);
    eqnice!("2:fox\n", cmd.stdout());
});

// No path, stdin null (/dev/null is not "readable"): ./ is searched.
gstest!(stdin_null_searches_cwd, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "fox\n");
    cmd.args(["fox"]);
    eqnice!("a.txt:fox\n", cmd.stdout());
});

gstest!(stdin_with_filename, |dir: Dir, cmd: TestCommand| {
    cmd.args(["-H", "fox"]).pipe("fox\n");
    eqnice!("<stdin>:fox\n", cmd.stdout());
});

// "-" names stdin explicitly, next to other paths.
gstest!(stdin_dash_with_file, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["-j1", "fox", "-", "a.txt"]).pipe("fox\n");
    eqnice!("<stdin>:fox\na.txt:a fox\n", cmd.stdout());
});

gstest!(stdin_files_with_matches, |dir: Dir, cmd: TestCommand| {
    cmd.args(["-l", "fox"]).pipe("fox\n");
    eqnice!("<stdin>\n", cmd.stdout());
});

gstest!(stdin_count, |dir: Dir, cmd: TestCommand| {
    cmd.args(["-c", "fox"]).pipe("fox\nno\nfox\n");
    eqnice!("2\n", cmd.stdout());
});

// An explicit path wins over piped stdin.
gstest!(stdin_ignored_with_path, |dir: Dir, cmd: TestCommand| {
    dir.create("a.txt", "a fox\n");
    cmd.args(["fox", "a.txt"]).pipe("fox from stdin\n");
    eqnice!("a fox\n", cmd.stdout());
});

gstest!(stdin_empty, |dir: Dir, cmd: TestCommand| {
    cmd.args(["fox"]).pipe("");
    cmd.assert_no_match();
});

// A large stdin crossing many buffers and batches.
gstest!(stdin_large, |dir: Dir, cmd: TestCommand| {
    let mut text = String::new();
    for i in 0..20000 {
        text.push_str(if i % 1000 == 999 {
            "the fox\n"
        } else {
            "the dog\n"
        });
    }
    cmd.small_batches().args(["-c", "fox"]).pipe(text);
    eqnice!("20\n", cmd.stdout());
});

// A UTF-8 BOM is stripped: ^ matches after it, and it is not printed.
gstest!(utf8_bom_stripped, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("bom.txt", b"\xEF\xBB\xBFfox\nbar\n");
    cmd.args(["-n", "^fox", "bom.txt"]);
    eqnice!("1:fox\n", cmd.stdout());
});

// Byte offsets are counted after the BOM was removed.
gstest!(utf8_bom_byte_offset, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("bom.txt", b"\xEF\xBB\xBFfox\nbar\n");
    cmd.args(["-b", "bar", "bom.txt"]);
    eqnice!("4:bar\n", cmd.stdout());
});

// A UTF-16LE file with a BOM is transcoded to UTF-8.
gstest!(utf16_bom_transcoded, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("u16.txt", b"\xFF\xFEf\x00o\x00x\x00\n\x00");
    cmd.args(["fox", "u16.txt"]);
    eqnice!("fox\n", cmd.stdout());
});

// UTF-16 without a BOM is not detected: NULs make it binary.
gstest!(utf16_without_bom_is_binary, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("u16.txt", b"f\x00o\x00x\x00\n\x00");
    cmd.args(["fox", "u16.txt"]).assert_no_match();
});

// An empty file matches nothing, not even the empty pattern.
gstest!(empty_file, |dir: Dir, cmd: TestCommand| {
    dir.create("e.txt", "");
    cmd.args(["", "e.txt"]).assert_no_match();
});

// A file of one newline has one empty line.
gstest!(single_newline_file, |dir: Dir, cmd: TestCommand| {
    dir.create("n.txt", "\n");
    cmd.args(["-c", "", "n.txt"]);
    eqnice!("1\n", cmd.stdout());
});
