//! ripgrep's colors on the lines gsearch formats itself (a big file's
//! matching lines, [`super::plain::Fields`]): the escapes grep-printer's
//! standard printer writes around a path, a number and each match of a
//! matching line, made by the same `termcolor` writer from the same color
//! specifications (`--colors`), so the bytes are its bytes.

use std::io::Write;

use grep_printer::ColorSpecs;
use termcolor::{Ansi, ColorSpec, WriteColor};

/// How a matching line's fields and text are written: plain, or in the
/// colors of a [`ColorSpecs`] (only where the output writer takes colors:
/// `--color=always`, or a terminal that has them).
#[derive(Clone, Copy)]
pub struct Style<'a>(Option<&'a ColorSpecs>);

/// Which color a number is written in.
#[derive(Clone, Copy)]
pub enum Number {
    /// A line number (`line:`).
    Line,
    /// A column or a byte offset (`column:`).
    Column,
}

impl<'a> Style<'a> {
    /// Colors from `specs`, or none.
    pub fn new(specs: Option<&'a ColorSpecs>) -> Style<'a> {
        Style(specs)
    }

    /// Whether the matches of a line are colored, so every match of it is
    /// needed (not only the first, for its column).
    pub fn colors_matches(&self) -> bool {
        self.0.is_some_and(|s| !s.matched().is_none())
    }

    /// Appends a path (its `path:` color).
    pub fn path(&self, out: &mut Vec<u8>, path: &[u8]) {
        self.spec(out, self.0.map(ColorSpecs::path), path);
    }

    /// Appends the number `n` (in `kind`'s color).
    pub fn number(&self, out: &mut Vec<u8>, n: u64, kind: Number) {
        let spec = self.0.map(|s| match kind {
            Number::Line => s.line(),
            Number::Column => s.column(),
        });
        self.spec(out, spec, itoa::Buffer::new().format(n).as_bytes());
    }

    /// Appends `bytes` as grep-printer's `write_spec` and `write_path` do:
    /// the color set, the bytes and a reset, whatever the color (an empty
    /// one still writes its reset); the bytes alone without colors.
    fn spec(&self, out: &mut Vec<u8>, spec: Option<&ColorSpec>, bytes: &[u8]) {
        let Some(spec) = spec else {
            out.extend_from_slice(bytes);
            return;
        };
        let mut w = Ansi::new(out);
        // (Writes to a Vec: they cannot fail.)
        w.set_color(spec).ok();
        w.write_all(bytes).ok();
        w.reset().ok();
    }

    /// Appends a matching line's text (`bytes`, terminator included where
    /// it has one) and a `\n`, its `matches` (ordered spans of `bytes`)
    /// colored as grep-printer's `write_colored_line` colors them: each run
    /// of matches in the `match:` color, the line in the `highlight:` color
    /// when one is set; without colors, or without matches (the printer's
    /// `sink_fast`), the line as it is.
    pub fn text(&self, out: &mut Vec<u8>, bytes: &[u8], matches: &[(usize, usize)]) {
        match self.0 {
            Some(specs) if !specs.matched().is_none() && !matches.is_empty() => {
                let lf = grep_matcher::LineTerminator::byte(b'\n');
                let end = super::matches::unterminated(bytes, bytes.len(), lf);
                Painter::new(specs, out).line(&bytes[..end], matches);
                out.push(b'\n');
            }
            _ => {
                out.extend_from_slice(bytes);
                if !bytes.ends_with(b"\n") {
                    out.push(b'\n');
                }
            }
        }
    }
}

/// grep-printer's `write_colored_matches` over one line: whether a match's
/// color is on, so a run of adjacent matches gets one escape.
struct Painter<'a> {
    specs: &'a ColorSpecs,
    w: Ansi<&'a mut Vec<u8>>,
    in_match: bool,
    highlight: bool,
}

impl<'a> Painter<'a> {
    fn new(specs: &'a ColorSpecs, out: &'a mut Vec<u8>) -> Painter<'a> {
        Painter {
            specs,
            w: Ansi::new(out),
            in_match: false,
            highlight: !specs.highlight().is_none(),
        }
    }

    /// `line` (without its terminator), the parts in `matches` colored; a
    /// match past the line's end is cut at it.
    fn line(mut self, line: &[u8], matches: &[(usize, usize)]) {
        if self.highlight {
            self.set(self.specs.highlight());
        }
        let (mut at, mut i) = (0, 0);
        while at < line.len() {
            let (s, e) = matches[i];
            if e <= at {
                if i + 1 < matches.len() {
                    i += 1;
                    continue;
                }
                self.end_match();
                self.write(&line[at..]);
                break;
            }
            let upto = if at < s {
                self.end_match();
                s.min(line.len())
            } else {
                self.start_match();
                e.min(line.len())
            };
            self.write(&line[at..upto]);
            at = upto;
        }
        self.end_match();
        if self.highlight {
            self.w.reset().ok();
        }
    }

    fn start_match(&mut self) {
        if !self.in_match {
            self.set(self.specs.matched());
            self.in_match = true;
        }
    }

    fn end_match(&mut self) {
        if !self.in_match {
            return;
        }
        if self.highlight {
            self.set(self.specs.highlight());
        } else {
            self.w.reset().ok();
        }
        self.in_match = false;
    }

    // (Writes to a Vec: they cannot fail.)
    fn set(&mut self, spec: &ColorSpec) {
        self.w.set_color(spec).ok();
    }

    fn write(&mut self, bytes: &[u8]) {
        self.w.write_all(bytes).ok();
    }
}
