//! Property tests of rule sets: random rules (classes, counted
//! repetitions, alternations, anchors, `\b`, `(?i)`, captures) over random
//! text with non-ASCII bytes, under `-i`, `-S`, `-w`, `-x`, answer as the
//! single alternation of the same patterns does: the same lines, the same
//! matches (`-o`, colors, `--count-matches`) and the same captures.

#![cfg(test)]

use grep_matcher::{Captures, Matcher};
use proptest::prelude::*;

use crate::cli::config::Config;
use crate::matcher::plan::{Plan, joined_regex};
use crate::pipeline::lines::matching_line_starts;

fn atom() -> impl Strategy<Value = String> {
    let fixed = [
        "[a-c]",
        r"\d",
        r"\w",
        ".",
        "é",
        "K",
        r"\b",
        "^",
        "$",
        "[0-9a-f]{2}",
        "(?:ab|b)",
        "(?i)ab",
        "a{1,3}",
        r"\s+",
        "x+?",
        "(c)",
        "(?P<n>k|K)",
        "[^a ]",
        "ſ",
        r"\B",
    ];
    prop_oneof![
        "[abcfk]{1,4}",
        prop::sample::select(fixed.to_vec()).prop_map(String::from),
    ]
}

fn rule() -> impl Strategy<Value = String> {
    prop::collection::vec(atom(), 1..4).prop_map(|v| v.concat())
}

fn text() -> impl Strategy<Value = String> {
    let pieces = [
        "a", "b", "c", "ab", "abc", "K", "k", "é", "É", "ſ", "0", "1", "f", "x", " ", "-", "_",
        "\n", "\n", "kab",
    ];
    prop::collection::vec(prop::sample::select(pieces.to_vec()), 0..80).prop_map(|v| v.concat())
}

fn config(flag: &str, rules: &[String]) -> Config {
    let mut argv = vec!["gsearch".to_string()];
    argv.extend((!flag.is_empty()).then(|| flag.to_string()));
    for r in rules {
        argv.extend(["-e".to_string(), r.clone()]);
    }
    argv.push("f".into());
    Config::from_cli(<crate::cli::Cli as clap::Parser>::parse_from(argv)).unwrap()
}

/// Every match of `m` in `line`, with its captures.
fn matches<M: Matcher<Error = grep_matcher::NoError>>(
    m: &M,
    line: &[u8],
) -> Vec<Vec<Option<(usize, usize)>>> {
    let mut out = Vec::new();
    let mut caps = m.new_captures().unwrap();
    let _ = m.captures_iter(line, &mut caps, |c| {
        out.push(
            (0..c.len())
                .map(|i| c.get(i).map(|x| (x.start(), x.end())))
                .collect(),
        );
        true
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn rule_sets_answer_as_the_alternation(
        rules in prop::collection::vec(rule(), 3..10),
        text in text(),
        flag in prop::sample::select(vec!["", "-i", "-S", "-w", "-x"]),
    ) {
        let cfg = config(flag, &rules);
        let Ok(joined) = joined_regex(&cfg) else { return Ok(()) };
        let plan = Plan::new(&cfg).unwrap();
        prop_assume!(plan.rules.is_some());
        let set = plan.line_matcher();
        prop_assert_eq!(set.capture_count(), joined.capture_count());
        prop_assert_eq!(set.capture_index("n"), joined.capture_index("n"));
        let text = text.as_bytes();
        prop_assert_eq!(
            matching_line_starts(text, &set),
            matching_line_starts(text, &joined)
        );
        for line in text.split(|&b| b == b'\n') {
            prop_assert_eq!(set.is_match(line).unwrap(), joined.is_match(line).unwrap());
            prop_assert_eq!(matches(&set, line), matches(&joined, line), "{:?}", String::from_utf8_lossy(line));
        }
        // The iteration (which remembers between its searches) finds what
        // the alternation finds, over the whole text and from inside it.
        for at in [0, text.len() / 3] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let _ = set.find_iter_at(text, at, |m| { a.push(m); true });
            let _ = joined.find_iter_at(text, at, |m| { b.push(m); true });
            prop_assert_eq!(a, b);
        }
    }
}
