//! The engine interface: a back end receives a batch of bytes (many small
//! files packed together, or one chunk of a large file) and returns the
//! sorted offsets where a match starts.
//!
//! The contract for a [`LiteralSet`]: the offsets are exactly every position
//! where any pattern occurs (overlapping occurrences included), as the naive
//! reference in [`naive`] computes them. Used as a prefilter, that means
//! every matching line holds at least one offset; the finisher (see
//! `crate::search`) then runs the exact CPU matcher on those lines only,
//! which is what makes the output ripgrep's, byte for byte, whatever engine
//! found the offsets (`-w`, `-x`, Unicode case folding are decided there).
//!
//! Patterns never contain a line terminator (ripgrep splits them on `\n`),
//! so a match never spans a `\n`. The batcher exploits that: files packed
//! into one batch are separated by a single `\n`, so no match can cross
//! from one file into the next and kernels need no file table.

pub mod cpu;
pub mod dfa_bytes;
pub mod dfa_table;
pub mod hashed;
pub mod naive;
pub mod radix;

use std::fmt;

/// One file's bytes inside a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileSpan {
    /// The caller's identifier for the file (an index into its own table).
    pub file: u32,
    /// Offset of the file's first byte in the batch.
    pub start: u64,
    /// Number of the file's bytes in the batch.
    pub len: u64,
}

/// Bytes to search plus the table saying which file owns which range.
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    pub data: &'a [u8],
    pub spans: &'a [FileSpan],
}

impl<'a> Batch<'a> {
    /// The index into `spans` of the span holding batch offset `off`, if any
    /// (offsets in separators belong to no span).
    pub fn span_of(&self, off: u64) -> Option<usize> {
        let i = self.spans.partition_point(|s| s.start <= off);
        let i = i.checked_sub(1)?;
        let s = &self.spans[i];
        (off < s.start + s.len).then_some(i)
    }
}

/// What an engine found in a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchSet {
    /// Batch-relative offsets where a match starts, sorted ascending, no
    /// duplicates.
    pub offsets: Vec<u64>,
}

impl MatchSet {
    /// Splits the offsets by span: `result[i]` holds the offsets inside
    /// `spans[i]`, made relative to the span's start.
    pub fn split_by_span(&self, spans: &[FileSpan]) -> Vec<Vec<u64>> {
        let mut out = vec![Vec::new(); spans.len()];
        let mut i = 0;
        for &off in &self.offsets {
            while i < spans.len() && spans[i].start + spans[i].len <= off {
                i += 1;
            }
            if i == spans.len() {
                break;
            }
            if off >= spans[i].start {
                out[i].push(off - spans[i].start);
            }
        }
        out
    }
}

/// A literal pattern set, the shape device kernels accept.
///
/// `fold_ascii` means ASCII letters compare without regard to case; patterns
/// are stored already lower-cased when it is set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiteralSet {
    pub patterns: Vec<Vec<u8>>,
    pub fold_ascii: bool,
}

impl LiteralSet {
    /// Builds a set, lower-casing ASCII letters when `fold_ascii` is set and
    /// dropping duplicates (they cannot change which lines match).
    pub fn new(mut patterns: Vec<Vec<u8>>, fold_ascii: bool) -> LiteralSet {
        if fold_ascii {
            patterns.iter_mut().for_each(|p| p.make_ascii_lowercase());
        }
        patterns.sort();
        patterns.dedup();
        LiteralSet {
            patterns,
            fold_ascii,
        }
    }

    /// `p` as a set folding ASCII (`fold_ascii`) or not stores it.
    pub fn folded(p: &[u8], fold_ascii: bool) -> Vec<u8> {
        if fold_ascii {
            p.to_ascii_lowercase()
        } else {
            p.to_vec()
        }
    }

    pub fn min_len(&self) -> usize {
        self.patterns.iter().map(Vec::len).min().unwrap_or(0)
    }

    pub fn max_len(&self) -> usize {
        self.patterns.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// Why an engine could not finish a batch. The caller hands the batch to
/// the CPU engine; no match is lost.
#[derive(Debug)]
pub enum EngineError {
    /// The engine cannot run this pattern set at all (wrong shape).
    Unsupported(String),
    /// The device failed (build, allocation, enqueue, read-back, lost).
    Device(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Unsupported(m) => write!(f, "unsupported: {m}"),
            EngineError::Device(m) => write!(f, "device error: {m}"),
        }
    }
}

impl std::error::Error for EngineError {}

/// A back end that finds match starts in batches.
pub trait BatchEngine: Send + Sync {
    /// A short human-readable name (shown by `--stats`).
    fn name(&self) -> String;
    /// Searches a batch; offsets are batch-relative.
    fn search(&self, batch: &Batch<'_>) -> Result<MatchSet, EngineError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_span_of() {
        let spans = [
            FileSpan {
                file: 0,
                start: 0,
                len: 3,
            },
            FileSpan {
                file: 1,
                start: 4,
                len: 2,
            },
        ];
        let data = b"abc\nde";
        let b = Batch {
            data,
            spans: &spans,
        };
        assert_eq!(b.span_of(0), Some(0));
        assert_eq!(b.span_of(3), None);
        assert_eq!(b.span_of(5), Some(1));
        let m = MatchSet {
            offsets: vec![0, 2, 4, 5],
        };
        assert_eq!(m.split_by_span(&spans), vec![vec![0, 2], vec![0, 1]]);
    }
}
