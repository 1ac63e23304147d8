//! Rule sets (`-f rules.txt` with many regexes, see `matcher::rules`):
//! every flag gives ripgrep 15's bytes (the expected outputs below are
//! ripgrep's on the same files), bad rules are named with their file and
//! line, and an empty rule file matches nothing.

use crate::util::{Dir, Engine, TestCommand};

const RULES: &str = r"AKQZ[0-9A-Z]{8}
(?i)passw(?:or)?d\s*[:=]\s*\S{6,}
\b[0-9a-f]{12}\b
\b(?:\d{1,3}\.){3}\d{1,3}\b
tok_(live|test)_[a-z0-9]{6}
(?P<user>[a-z]+)://[^:@\s]+:[^@\s]+@host
Straße|STRASSE
\w+ḱey
fox
^#\s*todo
";

const TEXT: &str = "config: key = AKQZ12345678 and AKQZ9
PassWord: hunter2hunter
password=short
commit deadbeef0123 is 0123456789ab? no: deadbeef01234
host 10.0.0.1 and 256.1.2.3.4
tok_live_abc123 tok_test_zzzzzz tok_prod_abc123
url https://admin:s3cret@host/x
Die Straße und die STRASSE und strasse
ſecret Kelvin: ḱey keyḱey
the fox and the Fox
# todo: rotate keys
  # todo not at start
";

/// (flags before `-f rules.txt text.txt`, ripgrep's output; for `--json`
/// only the match messages, the rest holds timings).
const CASES: &[(&[&str], &str)] = &[
    (
        &["-n"],
        "1:config: key = AKQZ12345678 and AKQZ9\n2:PassWord: hunter2hunter\n4:commit deadbeef0123 is 0123456789ab? no: deadbeef01234\n5:host 10.0.0.1 and 256.1.2.3.4\n6:tok_live_abc123 tok_test_zzzzzz tok_prod_abc123\n7:url https://admin:s3cret@host/x\n8:Die Straße und die STRASSE und strasse\n9:ſecret Kelvin: ḱey keyḱey\n10:the fox and the Fox\n11:# todo: rotate keys\n",
    ),
    (
        &["-i", "-n"],
        "1:config: key = AKQZ12345678 and AKQZ9\n2:PassWord: hunter2hunter\n4:commit deadbeef0123 is 0123456789ab? no: deadbeef01234\n5:host 10.0.0.1 and 256.1.2.3.4\n6:tok_live_abc123 tok_test_zzzzzz tok_prod_abc123\n7:url https://admin:s3cret@host/x\n8:Die Straße und die STRASSE und strasse\n9:ſecret Kelvin: ḱey keyḱey\n10:the fox and the Fox\n11:# todo: rotate keys\n",
    ),
    (&["-S", "-c"], "10\n"),
    (
        &["-w", "-o"],
        "AKQZ12345678\nPassWord: hunter2hunter\ndeadbeef0123\n0123456789ab\n10.0.0.1\n256.1.2.3\ntok_live_abc123\ntok_test_zzzzzz\nhttps://admin:s3cret@host\nStraße\nSTRASSE\nkeyḱey\nfox\n# todo\n",
    ),
    (&["-x"], "PassWord: hunter2hunter\n"),
    (
        &["-v", "-n"],
        "3:password=short\n12:  # todo not at start\n",
    ),
    (
        &["-o", "-n", "--column"],
        "1:15:AKQZ12345678\n2:1:PassWord: hunter2hunter\n4:8:deadbeef0123\n4:24:0123456789ab\n5:6:10.0.0.1\n5:19:256.1.2.3\n6:1:tok_live_abc123\n6:17:tok_test_zzzzzz\n7:5:https://admin:s3cret@host\n8:5:Straße\n8:21:STRASSE\n9:23:keyḱey\n10:5:fox\n11:1:# todo\n",
    ),
    (&["--count-matches"], "14\n"),
    (&["-l"], "text.txt\n"),
    (
        &["-r", "[$0]"],
        "config: key = [AKQZ12345678] and AKQZ9\n[PassWord: hunter2hunter]\ncommit [deadbeef0123] is [0123456789ab]? no: deadbeef01234\nhost [10.0.0.1] and [256.1.2.3].4\n[tok_live_abc123] [tok_test_zzzzzz] tok_prod_abc123\nurl [https://admin:s3cret@host]/x\nDie [Straße] und die [STRASSE] und strasse\nſecret Kelvin: ḱey [keyḱey]\nthe [fox] and the Fox\n[# todo]: rotate keys\n",
    ),
    (
        &["-r", "<$1>", "-o"],
        "<>\n<>\n<>\n<>\n<>\n<>\n<live>\n<test>\n<>\n<>\n<>\n<>\n<>\n<>\n",
    ),
    (&["-r", "$user", "-o"], "\n\n\n\n\n\n\n\nhttps\n\n\n\n\n\n"),
    (
        &["-C1", "-n"],
        "1:config: key = AKQZ12345678 and AKQZ9\n2:PassWord: hunter2hunter\n3-password=short\n4:commit deadbeef0123 is 0123456789ab? no: deadbeef01234\n5:host 10.0.0.1 and 256.1.2.3.4\n6:tok_live_abc123 tok_test_zzzzzz tok_prod_abc123\n7:url https://admin:s3cret@host/x\n8:Die Straße und die STRASSE und strasse\n9:ſecret Kelvin: ḱey keyḱey\n10:the fox and the Fox\n11:# todo: rotate keys\n12-  # todo not at start\n",
    ),
    (
        &["--json"],
        "{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"config: key = AKQZ12345678 and AKQZ9\\n\"},\"line_number\":1,\"absolute_offset\":0,\"submatches\":[{\"match\":{\"text\":\"AKQZ12345678\"},\"start\":14,\"end\":26}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"PassWord: hunter2hunter\\n\"},\"line_number\":2,\"absolute_offset\":37,\"submatches\":[{\"match\":{\"text\":\"PassWord: hunter2hunter\"},\"start\":0,\"end\":23}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"commit deadbeef0123 is 0123456789ab? no: deadbeef01234\\n\"},\"line_number\":4,\"absolute_offset\":76,\"submatches\":[{\"match\":{\"text\":\"deadbeef0123\"},\"start\":7,\"end\":19},{\"match\":{\"text\":\"0123456789ab\"},\"start\":23,\"end\":35}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"host 10.0.0.1 and 256.1.2.3.4\\n\"},\"line_number\":5,\"absolute_offset\":131,\"submatches\":[{\"match\":{\"text\":\"10.0.0.1\"},\"start\":5,\"end\":13},{\"match\":{\"text\":\"256.1.2.3\"},\"start\":18,\"end\":27}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"tok_live_abc123 tok_test_zzzzzz tok_prod_abc123\\n\"},\"line_number\":6,\"absolute_offset\":161,\"submatches\":[{\"match\":{\"text\":\"tok_live_abc123\"},\"start\":0,\"end\":15},{\"match\":{\"text\":\"tok_test_zzzzzz\"},\"start\":16,\"end\":31}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"url https://admin:s3cret@host/x\\n\"},\"line_number\":7,\"absolute_offset\":209,\"submatches\":[{\"match\":{\"text\":\"https://admin:s3cret@host\"},\"start\":4,\"end\":29}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"Die Straße und die STRASSE und strasse\\n\"},\"line_number\":8,\"absolute_offset\":241,\"submatches\":[{\"match\":{\"text\":\"Straße\"},\"start\":4,\"end\":11},{\"match\":{\"text\":\"STRASSE\"},\"start\":20,\"end\":27}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"ſecret Kelvin: ḱey keyḱey\\n\"},\"line_number\":9,\"absolute_offset\":281,\"submatches\":[{\"match\":{\"text\":\"keyḱey\"},\"start\":22,\"end\":30}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"the fox and the Fox\\n\"},\"line_number\":10,\"absolute_offset\":312,\"submatches\":[{\"match\":{\"text\":\"fox\"},\"start\":4,\"end\":7}]}}\n{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"text.txt\"},\"lines\":{\"text\":\"# todo: rotate keys\\n\"},\"line_number\":11,\"absolute_offset\":332,\"submatches\":[{\"match\":{\"text\":\"# todo\"},\"start\":0,\"end\":6}]}}\n",
    ),
    (
        &["-i", "-w", "-o"],
        "AKQZ12345678\nPassWord: hunter2hunter\ndeadbeef0123\n0123456789ab\n10.0.0.1\n256.1.2.3\ntok_live_abc123\ntok_test_zzzzzz\nhttps://admin:s3cret@host\nStraße\nSTRASSE\nstrasse\nkeyḱey\nfox\nFox\n# todo\n",
    ),
    (
        &["--color", "always", "-n"],
        "\x1b[0m\x1b[32m1\x1b[0m:config: key = \x1b[0m\x1b[1m\x1b[31mAKQZ12345678\x1b[0m and AKQZ9\n\x1b[0m\x1b[32m2\x1b[0m:\x1b[0m\x1b[1m\x1b[31mPassWord: hunter2hunter\x1b[0m\n\x1b[0m\x1b[32m4\x1b[0m:commit \x1b[0m\x1b[1m\x1b[31mdeadbeef0123\x1b[0m is \x1b[0m\x1b[1m\x1b[31m0123456789ab\x1b[0m? no: deadbeef01234\n\x1b[0m\x1b[32m5\x1b[0m:host \x1b[0m\x1b[1m\x1b[31m10.0.0.1\x1b[0m and \x1b[0m\x1b[1m\x1b[31m256.1.2.3\x1b[0m.4\n\x1b[0m\x1b[32m6\x1b[0m:\x1b[0m\x1b[1m\x1b[31mtok_live_abc123\x1b[0m \x1b[0m\x1b[1m\x1b[31mtok_test_zzzzzz\x1b[0m tok_prod_abc123\n\x1b[0m\x1b[32m7\x1b[0m:url \x1b[0m\x1b[1m\x1b[31mhttps://admin:s3cret@host\x1b[0m/x\n\x1b[0m\x1b[32m8\x1b[0m:Die \x1b[0m\x1b[1m\x1b[31mStraße\x1b[0m und die \x1b[0m\x1b[1m\x1b[31mSTRASSE\x1b[0m und strasse\n\x1b[0m\x1b[32m9\x1b[0m:ſecret Kelvin: ḱey \x1b[0m\x1b[1m\x1b[31mkeyḱey\x1b[0m\n\x1b[0m\x1b[32m10\x1b[0m:the \x1b[0m\x1b[1m\x1b[31mfox\x1b[0m and the Fox\n\x1b[0m\x1b[32m11\x1b[0m:\x1b[0m\x1b[1m\x1b[31m# todo\x1b[0m: rotate keys\n",
    ),
    (
        &["-o", "-e", "AKQZ1", "-e", "tok_", "-e", "key", "-e", "\\d+"],
        "key\nAKQZ1\n2345678\n9\nPassWord: hunter2hunter\ndeadbeef0123\n0123456789\n01234\n10\n0\n0\n1\n256\n1\n2\n3\n4\ntok_\n123\ntok_\ntok_\n123\nhttps://admin:s3cret@host\nStraße\nSTRASSE\nkey\nfox\n# todo\nkey\n",
    ),
];

gstest!(
    rule_set_answers_as_ripgrep,
    |dir: Dir, _cmd: TestCommand| {
        dir.create("rules.txt", RULES);
        dir.create("text.txt", TEXT);
        for (flags, expected) in CASES {
            let mut cmd = dir.command();
            cmd.args(*flags).args(["-f", "rules.txt", "text.txt"]);
            let mut got = cmd.output().stdout;
            if flags.contains(&"--json") {
                let text = String::from_utf8(got).unwrap();
                let matches = text
                    .lines()
                    .filter(|l| l.starts_with("{\"type\":\"match\""));
                got = matches
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
                    .into_bytes();
            }
            crate::util::assert_eq_nice(expected.as_bytes(), &got, &format!("{flags:?}"));
        }
    }
);

// A bad rule is reported alone, with its file and line; nothing is searched.
gstest!(
    bad_rule_names_file_and_line,
    |dir: Dir, cmd: TestCommand| {
        dir.create("rules.txt", "foo\\d+\nbar[0-9]\nbaz(\nqux\n");
        dir.create("text.txt", "foo1\n");
        let out = cmd.args(["-f", "rules.txt", "text.txt"]).expect_code(2);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(err.contains("rules.txt:3: regex parse error:"), "{err}");
        assert!(err.contains("(?:baz()"), "{err}");
        assert!(!err.contains("bar[0-9]"), "{err}");
        assert!(out.stdout.is_empty());
    }
);

// Rules from -e name their position.
gstest!(
    bad_rule_from_e_names_position,
    |dir: Dir, cmd: TestCommand| {
        dir.create("text.txt", "a1\n");
        cmd.args(["-e", r"a\d", "-e", "b", "-e", "c{", "text.txt"]);
        cmd.assert_error(&["-e 3: regex parse error:"]);
    }
);

// A rule that can match NUL is refused, as ripgrep refuses it.
gstest!(rule_with_nul_is_refused, |dir: Dir, cmd: TestCommand| {
    dir.create("rules.txt", "a\\x00bcd\nc\\d\nddd\n");
    dir.create("text.txt", "c1\n");
    cmd.args(["-f", "rules.txt", "text.txt"]);
    cmd.assert_error(&["rules.txt:1:", "impossible to match"]);
});

gstest!(
    empty_rule_file_matches_nothing,
    |dir: Dir, cmd: TestCommand| {
        dir.create("rules.txt", "");
        dir.create("text.txt", "anything\n");
        cmd.args(["-f", "rules.txt", "text.txt"]).assert_no_match();
    }
);

// Hundreds of rules whose alternation exceeds the size limit (ripgrep
// fails: "compiled regex exceeds size limit") compile in units.
gstest!(big_rule_set_within_limits, |dir: Dir, cmd: TestCommand| {
    let rules: Vec<String> = (0..300)
        .map(|i| format!(r"(?i)\w{{2,40}}\s+rule{i}\s+\w{{3,50}}\s*[:=]\s*\S{{8,}}"))
        .collect();
    dir.create("rules.txt", &rules.join("\n"));
    dir.create(
        "text.txt",
        "x\nabc rule250 value = 12345678\nnothing here\n",
    );
    cmd.args(["-n", "-f", "rules.txt", "text.txt"]);
    eqnice!("2:abc rule250 value = 12345678\n", cmd.stdout());
});

// A big file's candidate lines are confirmed while its later chunks
// stream (`search::early`, 4,096 candidates at a time): the lines and their
// numbers are the CPU's, and `--stats` says how many were confirmed early.
gstest!(
    rule_candidates_confirmed_as_the_stream_goes,
    |dir: Dir, cmd: TestCommand| {
        let line = |i: usize| match i % 4 {
            0 => format!("key{i}=value{}q pad\n", i % 9),
            1 if i.is_multiple_of(3) => format!("tok_abcd end {i}\n"),
            1 => format!("tok_abcde end {i}\n"),
            2 if i.is_multiple_of(5) => format!("SECRET: xx {i}\n"),
            2 => format!("SECRET: xy {i}\n"),
            _ => format!("plain {i}\n"),
        };
        let matches = |i: usize| match i % 4 {
            0 => i % 9 == 7,
            1 => i.is_multiple_of(3),
            2 => i.is_multiple_of(5),
            _ => false,
        };
        let text: String = (0..40_000).map(line).collect();
        dir.create("big.txt", &text);
        dir.create(
            "rules.txt",
            "key\\d+=value7q\ntok_[a-f]{4}\\b\n(?i)secret:\\s*x{2}\n",
        );
        let want: String = (0..40_000)
            .filter(|&i| matches(i))
            .map(|i| format!("{}:{}", i + 1, line(i)))
            .collect();
        let mut cmd = cmd;
        cmd.small_batches()
            .args(["-n", "-f", "rules.txt", "big.txt"]);
        eqnice!(want.clone(), cmd.stdout());
        if dir.engine() == Engine::OpenCl {
            // Near groups (run where a factor occurs) too: a factor cut by
            // a batch's end must not lose its line.
            let mut near = dir.command();
            near.small_batches().raw().env("GSEARCH_DFA_NEAR", "1");
            near.args(["-n", "-f", "rules.txt", "big.txt"]);
            eqnice!(want, near.stdout());
            let mut stats = dir.command();
            stats.small_batches();
            stats.args(["--stats", "-c", "-f", "rules.txt", "big.txt"]);
            let out = stats.stdout();
            let early = out
                .split(" as the stream went")
                .next()
                .and_then(|s| s.rsplit('(').next())
                .and_then(|n| n.trim().parse::<u64>().ok());
            assert!(early.is_some_and(|n| n >= 4096), "{out}");
        }
    }
);
