//! --json: ripgrep's JSON Lines messages, byte for byte, once the timing
//! fields (`elapsed`, `elapsed_total`) are normalised to zero.
//!
//! Note what is pinned: key order (struct order in begin/match/context/end,
//! alphabetical in summary, as ripgrep serialises it), `bytes_printed`
//! (which counts the JSON bytes themselves, timing strings included: their
//! width is fixed, `{:.6}s`), and base64 `bytes` for non-UTF-8 text.

use crate::util::{Dir, TestCommand};

/// Replaces the time values of every `elapsed` object by zeros: `secs` and
/// `nanos` become 0, `human` becomes "0.000000s". Panics if a line is not
/// valid JSON.
pub(crate) fn normalize(out: &str) -> String {
    let mut norm = String::new();
    for line in out.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("invalid JSON line ({e}): {line}"));
        let line = zero_field(line, "\"secs\":", false);
        let line = zero_field(&line, "\"nanos\":", false);
        let line = zero_field(&line, "\"human\":", true);
        norm.push_str(&line);
        norm.push('\n');
    }
    norm
}

/// Replaces the value after each `key` (a number, or a string if `string`).
fn zero_field(line: &str, key: &str, string: bool) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        rest = &rest[i + key.len()..];
        if string {
            let end = rest[1..].find('"').unwrap() + 2;
            out.push_str("\"0.000000s\"");
            rest = &rest[end..];
        } else {
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap();
            out.push('0');
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

const E_END: &str = r#"{"secs":0,"nanos":0,"human":"0.000000s"}"#;
const E_SUM: &str = r#"{"human":"0.000000s","nanos":0,"secs":0}"#;

fn two_files(dir: &Dir) {
    dir.create("a.txt", "a fox\nno\nfox fox\n");
    dir.create("b.txt", "fox\n");
}

gstest!(json_single_file_context, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--json", "-C1", "fox", "a.txt"]);
    let expected = format!(
        r#"{{"type":"begin","data":{{"path":{{"text":"a.txt"}}}}}}
{{"type":"match","data":{{"path":{{"text":"a.txt"}},"lines":{{"text":"a fox\n"}},"line_number":1,"absolute_offset":0,"submatches":[{{"match":{{"text":"fox"}},"start":2,"end":5}}]}}}}
{{"type":"context","data":{{"path":{{"text":"a.txt"}},"lines":{{"text":"no\n"}},"line_number":2,"absolute_offset":6,"submatches":[]}}}}
{{"type":"match","data":{{"path":{{"text":"a.txt"}},"lines":{{"text":"fox fox\n"}},"line_number":3,"absolute_offset":9,"submatches":[{{"match":{{"text":"fox"}},"start":0,"end":3}},{{"match":{{"text":"fox"}},"start":4,"end":7}}]}}}}
{{"type":"end","data":{{"path":{{"text":"a.txt"}},"binary_offset":null,"stats":{{"elapsed":{E_END},"searches":1,"searches_with_match":1,"bytes_searched":17,"bytes_printed":565,"matched_lines":2,"matches":3}}}}}}
{{"data":{{"elapsed_total":{E_SUM},"stats":{{"bytes_printed":565,"bytes_searched":17,"elapsed":{E_SUM},"matched_lines":2,"matches":3,"searches":1,"searches_with_match":1}}}},"type":"summary"}}
"#
    );
    eqnice!(expected, normalize(&cmd.stdout()));
});

gstest!(json_directory, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--json", "--sort", "path", "fox"]);
    let expected = format!(
        r#"{{"type":"begin","data":{{"path":{{"text":"a.txt"}}}}}}
{{"type":"match","data":{{"path":{{"text":"a.txt"}},"lines":{{"text":"a fox\n"}},"line_number":1,"absolute_offset":0,"submatches":[{{"match":{{"text":"fox"}},"start":2,"end":5}}]}}}}
{{"type":"match","data":{{"path":{{"text":"a.txt"}},"lines":{{"text":"fox fox\n"}},"line_number":3,"absolute_offset":9,"submatches":[{{"match":{{"text":"fox"}},"start":0,"end":3}},{{"match":{{"text":"fox"}},"start":4,"end":7}}]}}}}
{{"type":"end","data":{{"path":{{"text":"a.txt"}},"binary_offset":null,"stats":{{"elapsed":{E_END},"searches":1,"searches_with_match":1,"bytes_searched":17,"bytes_printed":437,"matched_lines":2,"matches":3}}}}}}
{{"type":"begin","data":{{"path":{{"text":"b.txt"}}}}}}
{{"type":"match","data":{{"path":{{"text":"b.txt"}},"lines":{{"text":"fox\n"}},"line_number":1,"absolute_offset":0,"submatches":[{{"match":{{"text":"fox"}},"start":0,"end":3}}]}}}}
{{"type":"end","data":{{"path":{{"text":"b.txt"}},"binary_offset":null,"stats":{{"elapsed":{E_END},"searches":1,"searches_with_match":1,"bytes_searched":4,"bytes_printed":219,"matched_lines":1,"matches":1}}}}}}
{{"data":{{"elapsed_total":{E_SUM},"stats":{{"bytes_printed":656,"bytes_searched":21,"elapsed":{E_SUM},"matched_lines":3,"matches":4,"searches":2,"searches_with_match":2}}}},"type":"summary"}}
"#
    );
    eqnice!(expected, normalize(&cmd.stdout()));
});

// No pattern at all (`-f` of an empty file): ripgrep does not search, so
// not even the summary is printed; exit 1. Inverted, every line matches.
gstest!(
    json_no_pattern_prints_nothing,
    |dir: Dir, cmd: TestCommand| {
        two_files(&dir);
        dir.create("empty", "");
        cmd.args(["--json", "-f", "empty", "a.txt"]);
        let out = cmd.expect_code(1);
        eqnice!("", String::from_utf8(out.stdout).unwrap());
        let mut cmd = dir.command();
        cmd.args(["--files-without-match", "-f", "empty", "a.txt"]);
        let out = cmd.expect_code(1);
        eqnice!("", String::from_utf8(out.stdout).unwrap());
        let mut cmd = dir.command();
        cmd.args(["-c", "-v", "-f", "empty", "a.txt"]);
        eqnice!("3\n", cmd.stdout());
    }
);

// No match: only the summary, exit 1.
gstest!(json_no_match, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--json", "wolf", "a.txt"]);
    let out = cmd.expect_code(1);
    let expected = format!(
        r#"{{"data":{{"elapsed_total":{E_SUM},"stats":{{"bytes_printed":0,"bytes_searched":17,"elapsed":{E_SUM},"matched_lines":0,"matches":0,"searches":1,"searches_with_match":0}}}},"type":"summary"}}
"#
    );
    eqnice!(expected, normalize(&String::from_utf8(out.stdout).unwrap()));
});

// Lines that are not valid UTF-8 are sent as base64 "bytes".
gstest!(json_invalid_utf8_bytes, |dir: Dir, cmd: TestCommand| {
    dir.create_bytes("c.txt", b"caf\xE9 fox\n");
    cmd.args(["--json", "fox", "c.txt"]);
    let out = normalize(&cmd.stdout());
    let second = out.lines().nth(1).unwrap();
    eqnice!(
        r#"{"type":"match","data":{"path":{"text":"c.txt"},"lines":{"bytes":"Y2Fm6SBmb3gK"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"fox"},"start":5,"end":8}]}}"#,
        second
    );
});

// Stdin has an empty path object? No: ripgrep names it "<stdin>".
gstest!(json_stdin, |dir: Dir, cmd: TestCommand| {
    cmd.args(["--json", "fox"]).pipe("fox\n");
    let out = normalize(&cmd.stdout());
    let first_two: Vec<&str> = out.lines().take(2).collect();
    eqnice!(
        r#"{"type":"begin","data":{"path":{"text":"<stdin>"}}}
{"type":"match","data":{"path":{"text":"<stdin>"},"lines":{"text":"fox\n"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"fox"},"start":0,"end":3}]}}"#,
        first_two.join("\n")
    );
});

// Special characters are escaped in JSON strings.
gstest!(json_escapes, |dir: Dir, cmd: TestCommand| {
    dir.create("e.txt", "say \"fox\"\tnow\\\n");
    cmd.args(["--json", "fox", "e.txt"]);
    let out = normalize(&cmd.stdout());
    let second = out.lines().nth(1).unwrap();
    eqnice!(
        r#"{"type":"match","data":{"path":{"text":"e.txt"},"lines":{"text":"say \"fox\"\tnow\\\n"},"line_number":1,"absolute_offset":0,"submatches":[{"match":{"text":"fox"},"start":5,"end":8}]}}"#,
        second
    );
});

// -v with --json: inverted lines are matches without submatches.
gstest!(json_invert, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--json", "-v", "fox", "a.txt"]);
    let out = normalize(&cmd.stdout());
    let second = out.lines().nth(1).unwrap();
    eqnice!(
        r#"{"type":"match","data":{"path":{"text":"a.txt"},"lines":{"text":"no\n"},"line_number":2,"absolute_offset":6,"submatches":[]}}"#,
        second
    );
});

// A file found by walking is read, as ripgrep reads it: after `-m`'s last
// match, the after-context lines it went on to count in the bytes searched
// (here the line after the match, not the unterminated last one), which a
// search of the file's bytes as one slice does not count (ripgrep 15.2.0:
// 8; found by scripts/fuzz-rg.py, seed 64000).
gstest!(
    json_max_count_after_context_bytes_searched,
    |dir: Dir, cmd: TestCommand| {
        dir.create_dir("d");
        dir.create("d/f", "x\nfoo\nb\nc");
        cmd.args(["--json", "-m1", "-A2", "foo", "d"]);
        let out = cmd.stdout();
        let end = out.lines().find(|l| l.contains(r#""type":"end""#)).unwrap();
        let v: serde_json::Value = serde_json::from_str(end).unwrap();
        eqnice!("8", v["data"]["stats"]["bytes_searched"].to_string());
    }
);

// -m with --json stops after NUM lines.
gstest!(json_max_count, |dir: Dir, cmd: TestCommand| {
    two_files(&dir);
    cmd.args(["--json", "-m1", "fox", "a.txt"]);
    let out = normalize(&cmd.stdout());
    let types: Vec<String> = out
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["type"].as_str().unwrap().to_string()
        })
        .collect();
    eqnice!("begin match end summary", types.join(" "));
});
