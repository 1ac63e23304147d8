//! `--json` for one big file, written by every core.
//!
//! ripgrep's JSON printer serializes each message through serde on the one
//! thread that searches the file: `--json e` over 100 MB of C (1.7 million
//! matching lines) took ripgrep 3.2 s on the 2-core machine. Here the
//! threads that found a segment's lines (`search::bigfile`) also write its
//! `match` messages, and the `begin` and `end` messages frame them. The
//! bytes are grep-printer's (0.3): the same fields in the same order,
//! strings escaped by `serde_json` as it escapes them, text that is not
//! UTF-8 in base64 (`{"bytes":...}`), and each line's submatches found as
//! its printer finds them (the matcher run over the map up to the line's
//! end, without its terminator, from the line's start). Only `match`
//! messages are written here ([`form`]: no context, replacement, `-v` or
//! `-m`); the rest is ripgrep's printer. Tests compare the two byte for
//! byte.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use grep_matcher::Matcher;
use grep_printer::Stats;

use crate::cli::config::{Config, OutputMode};
use crate::pipeline::lines::Numbered;

/// Whether the output is `--json`'s `match` messages alone: no context
/// lines, replacements, `-v`, `-m` or `-q`.
pub fn form(cfg: &Config) -> bool {
    cfg.mode == OutputMode::Json
        && cfg.before == 0
        && cfg.after == 0
        && cfg.replace.is_none()
        && !cfg.invert
        && cfg.max_count.is_none()
        && !cfg.quiet
}

/// The matcher failed on a line (not the default regex engine's way):
/// ripgrep's printer, which meets the same failure, reports it.
#[derive(Debug)]
pub struct MatcherFailed;

/// The messages of one file: the bytes it is searched in (the whole map,
/// which the matcher sees before each line as ripgrep's printer lets it),
/// and what the `end` message counts.
pub struct Messages<'a, M> {
    /// The path's JSON value.
    path: Vec<u8>,
    data: &'a [u8],
    matcher: M,
    numbers: bool,
    lines: AtomicU64,
    matches: AtomicU64,
}

impl<'a, M: Matcher> Messages<'a, M> {
    /// Messages for `path`, whose bytes are `data`, matched with `matcher`
    /// (the one ripgrep's printer would take), with line numbers when
    /// `numbers`.
    pub fn new(path: &Path, data: &'a [u8], matcher: M, numbers: bool) -> Messages<'a, M> {
        let mut p = Vec::new();
        push_data(&mut p, path.as_os_str().as_encoded_bytes());
        Messages {
            path: p,
            data,
            matcher,
            numbers,
            lines: AtomicU64::new(0),
            matches: AtomicU64::new(0),
        }
    }

    /// The `begin` message, written before the first `match`.
    pub fn begin(&self) -> Vec<u8> {
        let mut out = b"{\"type\":\"begin\",\"data\":{\"path\":".to_vec();
        out.extend_from_slice(&self.path);
        out.extend_from_slice(b"}}\n");
        out
    }

    /// Appends a `match` message for each of `found`, lines of the bytes
    /// from `at` on numbered from `first` (see
    /// `pipeline::lines::numbered_matching_lines`). `Err` when the matcher
    /// fails: ripgrep's printer then reports it.
    pub fn matches(
        &self,
        at: usize,
        found: &[Numbered],
        first: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), MatcherFailed> {
        let mut subs = Vec::new();
        let mut num = itoa::Buffer::new();
        let mut found_matches = 0;
        for f in found {
            let (start, end) = (at + f.start, at + f.end);
            self.submatches(start, end, &mut subs)?;
            found_matches += subs.len() as u64;
            let line = &self.data[start..end];
            out.extend_from_slice(b"{\"type\":\"match\",\"data\":{\"path\":");
            out.extend_from_slice(&self.path);
            out.extend_from_slice(b",\"lines\":");
            push_data(out, line);
            out.extend_from_slice(b",\"line_number\":");
            match self.numbers {
                true => out.extend_from_slice(num.format(first + f.line).as_bytes()),
                false => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"absolute_offset\":");
            out.extend_from_slice(num.format(start).as_bytes());
            out.extend_from_slice(b",\"submatches\":[");
            for (k, &(s, e)) in subs.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"match\":");
                push_data(out, &line[s..e]);
                out.extend_from_slice(b",\"start\":");
                out.extend_from_slice(num.format(s).as_bytes());
                out.extend_from_slice(b",\"end\":");
                out.extend_from_slice(num.format(e).as_bytes());
                out.push(b'}');
            }
            out.extend_from_slice(b"]}}\n");
        }
        self.lines.fetch_add(found.len() as u64, Ordering::Relaxed);
        self.matches.fetch_add(found_matches, Ordering::Relaxed);
        Ok(())
    }

    /// The matches in the line `data[start..end]`, relative to its start,
    /// as grep-printer finds them (`find_iter_at_in_context`, then
    /// `record_matches`): the matcher runs over the map up to the line's
    /// end without its terminator, from the line's start, and an empty
    /// match last is dropped when it lies at or past the end of the whole
    /// map (which, for a line's relative offset, only a file of one line
    /// without a terminator reaches).
    fn submatches(
        &self,
        start: usize,
        end: usize,
        subs: &mut Vec<(usize, usize)>,
    ) -> Result<(), MatcherFailed> {
        subs.clear();
        let trimmed = if end > start && self.data[end - 1] == b'\n' {
            end - 1
        } else {
            end
        };
        self.matcher
            .find_iter_at(&self.data[..trimmed], start, |m| {
                if m.start() >= end {
                    return false;
                }
                subs.push((m.start() - start, m.end() - start));
                true
            })
            .map_err(|_| MatcherFailed)?;
        if subs
            .last()
            .is_some_and(|&(s, e)| s == e && s >= self.data.len())
        {
            subs.pop();
        }
        Ok(())
    }

    /// The search's statistics as the JSON printer keeps them for one
    /// file, `printed` being the bytes of its `begin` and `match`
    /// messages, and (when it printed any) the `end` message.
    pub fn end(&self, elapsed: Duration, printed: u64) -> (Stats, Vec<u8>) {
        let mut stats = Stats::new();
        stats.add_elapsed(elapsed);
        stats.add_searches(1);
        stats.add_searches_with_match(u64::from(printed > 0));
        stats.add_bytes_searched(self.data.len() as u64);
        stats.add_bytes_printed(printed);
        stats.add_matched_lines(self.lines.load(Ordering::Relaxed));
        stats.add_matches(self.matches.load(Ordering::Relaxed));
        let mut out = Vec::new();
        if printed > 0 {
            out.extend_from_slice(b"{\"type\":\"end\",\"data\":{\"path\":");
            out.extend_from_slice(&self.path);
            out.extend_from_slice(b",\"binary_offset\":null,\"stats\":");
            // (Writing to a Vec cannot fail.)
            let _ = serde_json::to_writer(&mut out, &stats);
            out.extend_from_slice(b"}}\n");
        }
        (stats, out)
    }
}

/// A JSON value for bytes of the input, as grep-printer writes one:
/// `{"text":"..."}` when they are UTF-8, else `{"bytes":"BASE64"}`.
fn push_data(out: &mut Vec<u8>, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            out.extend_from_slice(b"{\"text\":");
            // (Writing to a Vec cannot fail.)
            let _ = serde_json::to_writer(&mut *out, text);
        }
        Err(_) => {
            out.extend_from_slice(b"{\"bytes\":\"");
            push_base64(out, bytes);
            out.push(b'"');
        }
    }
    out.push(b'}');
}

/// Standard base64 with padding.
fn push_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let group = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(group >> (18 - 6 * k)) as usize & 63]);
            } else {
                out.push(b'=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &[u8]) -> String {
        let mut out = Vec::new();
        push_base64(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn base64_pads_as_the_standard_says() {
        assert_eq!(b64(b""), "");
        assert_eq!(b64(b"f"), "Zg==");
        assert_eq!(b64(b"fo"), "Zm8=");
        assert_eq!(b64(b"foo"), "Zm9v");
        assert_eq!(b64(b"foob"), "Zm9vYg==");
        assert_eq!(b64(b"fooba"), "Zm9vYmE=");
        assert_eq!(b64(b"\xff\xfe\x00"), "//4A");
    }

    #[test]
    fn data_is_text_when_utf8_else_base64() {
        let mut out = Vec::new();
        push_data(&mut out, "a\"\\\t\u{1}é\n".as_bytes());
        assert_eq!(out, b"{\"text\":\"a\\\"\\\\\\t\\u0001\xc3\xa9\\n\"}");
        out.clear();
        push_data(&mut out, b"a\xffb");
        assert_eq!(out, b"{\"bytes\":\"Yf9i\"}");
    }
}
