//! One big file searched by every core. ripgrep gives a file one thread;
//! here a large file is cut at line boundaries into segments, each thread
//! finds the matching lines of its segment with the exact matcher, and the
//! host prints through ripgrep's searcher, which jumps from one matching
//! line to the next (`OffsetMatcher` in confirmed mode).
//!
//! Matches never span a line terminator, so cutting at line starts changes
//! nothing: `^`, `$` and `\b` see a line start where a segment starts.

use std::io;

use grep_searcher::Searcher;
use termcolor::WriteColor;

use crate::cli::config::Config;
use crate::matcher::offsets::OffsetMatcher;
use crate::matcher::plan::Plan;
use crate::matcher::searcher::binary_detection;
use crate::output::printer::{Input, Printer, SearchResult};
use crate::pipeline::lines::matching_lines;
use crate::walk::Haystack;

/// Files from this size up are split across threads.
pub const MIN_BYTES: u64 = 32 << 20;
/// The same for a rule set, whose matcher, not reading, bounds the search
/// (hundreds of regexes: 24 MB took 0.3 s on one core).
pub const RULES_MIN_BYTES: u64 = 4 << 20;

/// Searches `hay` with every core when it is a big regular file and the
/// output needs the whole file; `None` means "search it the usual way".
pub fn search<W: WriteColor>(
    cfg: &Config,
    searcher: &mut Searcher,
    printer: &mut Printer<W>,
    plan: &Plan,
    hay: &Haystack,
) -> Option<io::Result<SearchResult>> {
    let threads = crate::sys::cores();
    let first_match_is_enough = cfg.quiet || cfg.max_count.is_some() || cfg.lists_files();
    // The map decides first: a tree is searched without maps, and its
    // files are then spared a `stat` each.
    if hay.stdin
        || threads < 2
        || first_match_is_enough
        || !cfg.use_mmap
        || cfg.needs_cpu_searcher()
    {
        return None;
    }
    let meta = std::fs::metadata(&hay.path).ok()?;
    let min = if plan.rules.is_some() {
        RULES_MIN_BYTES
    } else {
        MIN_BYTES
    };
    if !meta.is_file() || meta.len() < min {
        return None;
    }
    let file = std::fs::File::open(&hay.path).ok()?;
    // Mapped under the SIGBUS guard: a file that shrinks now is reported.
    let map = crate::sys::guard::GuardedMap::map(&file).ok().flatten()?;
    let lines = matching_lines(&map, &plan.line_matcher(), threads, Some(&map));
    if lines.has_nul {
        return None;
    }
    let text = crate::output::plain::Text {
        data: &map,
        map: Some(&map),
        matcher: plan.line_matcher(),
        confirm: false,
    };
    let fast =
        crate::output::plain::try_print(cfg, &hay.path, text, &lines.starts, printer.get_mut());
    let result = if let Some(r) = fast {
        r
    } else {
        searcher.set_binary_detection(binary_detection(cfg, hay.explicit));
        let m = OffsetMatcher::confirmed(plan.line_matcher(), &map, &lines.starts);
        printer.search(searcher, m, &hay.path, Input::Slice(&map))
    };
    if map.faulted() {
        return Some(Err(crate::sys::guard::shrank_error()));
    }
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::lines::PIECE;
    use crate::sys::guard::GuardedMap;
    use grep_matcher::Matcher;

    fn reference(data: &[u8], m: &grep_regex::RegexMatcher) -> Vec<u64> {
        let mut out = Vec::new();
        let mut start = 0;
        for line in data.split_inclusive(|&b| b == b'\n') {
            if m.is_match(line).unwrap() {
                out.push(start as u64);
            }
            start += line.len();
        }
        out
    }

    /// Released pages read back the same: a mapped file bigger than a few
    /// pieces gives the same lines, and the same count, with and without
    /// releasing.
    #[test]
    fn releasing_searched_pages_changes_nothing() {
        use std::io::Write;
        let m = grep_regex::RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build("needle")
            .unwrap();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut block = Vec::new();
        for i in 0..100_000u32 {
            let word = if i % 37 == 0 { "needle" } else { "hay" };
            writeln!(block, "{i} some {word} text").unwrap();
        }
        while f.as_file().metadata().unwrap().len() < 3 * PIECE as u64 + 12345 {
            f.write_all(&block).unwrap();
        }
        f.flush().unwrap();
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        let kept = matching_lines(&map, &m, 2, None);
        let released = matching_lines(&map, &m, 2, Some(&map));
        assert_eq!(kept.starts, released.starts);
        assert!(!kept.starts.is_empty());
        let cli = <crate::cli::Cli as clap::Parser>::parse_from(["gsearch", "-c", "needle", "f"]);
        let cfg = crate::cli::config::Config::from_cli(cli).unwrap();
        let path = std::path::Path::new("f");
        let plan = crate::matcher::plan::Plan::new(&cfg).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let plain = crate::output::plain::Text {
            data: &map,
            map: None,
            matcher: plan.line_matcher(),
            confirm: false,
        };
        let releasing = crate::output::plain::Text {
            map: Some(&map),
            ..plain
        };
        crate::output::plain::print_count(&cfg, path, plain, &kept.starts, &mut a).unwrap();
        crate::output::plain::print_count(&cfg, path, releasing, &kept.starts, &mut b).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, format!("{}\n", kept.starts.len()).into_bytes());
    }

    #[test]
    fn segments_agree_with_a_line_by_line_scan() {
        let m = grep_regex::RegexMatcherBuilder::new()
            .multi_line(true)
            .line_terminator(Some(b'\n'))
            .build(r"^fo+\b|bar$")
            .unwrap();
        let mut data = Vec::new();
        for i in 0..5000 {
            let line: &[u8] = match i % 7 {
                0 => b"foo x\n",
                1 => b"xbar\n",
                2 => b"\n",
                3 => b"foox\n",
                4 => b"bar baz\n",
                _ => b"nothing here\n",
            };
            data.extend_from_slice(line);
        }
        data.extend_from_slice(b"last foo bar");
        for threads in [1, 2, 3, 8, 64] {
            let got = matching_lines(&data, &m, threads, None);
            assert_eq!(got.starts, reference(&data, &m), "threads {threads}");
            assert!(!got.has_nul);
        }
    }
}
