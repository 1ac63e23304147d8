//! Helpers for the unit tests of this folder and the ones above it.

#![cfg(test)]

use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};

/// `pat` as ripgrep's line-oriented matcher (`\n` ends a line).
pub fn line_matcher(pat: &str) -> RegexMatcher {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pat)
        .unwrap()
}

/// Writes `{prefix}0x` .. `{prefix}{n-1}x`, one a line, to `dir/words` and
/// returns that path (for `-f`).
pub fn word_list(dir: &Path, prefix: &str, n: usize) -> String {
    let words: Vec<String> = (0..n).map(|i| format!("{prefix}{i}x")).collect();
    let list = dir.join("words");
    std::fs::write(&list, words.join("\n")).unwrap();
    list.to_str().unwrap().to_string()
}
