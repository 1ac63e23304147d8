//! The device path's sparse sample index: the first line starting at or
//! after every `block`-th byte of the file, with its 8-byte prefix key
//! ([`prefix_key`]), read straight from the map by all threads. No full
//! line index: a 5 GB file with 1M keys gets ~4M samples (one per ~1.2 KB)
//! instead of 130M line starts.
//!
//! The sampled lines are checked in order; a small file (under 64K
//! samples' worth of bytes) is sampled at every line, so it is checked
//! whole.

use super::chunks::par_map;
use super::text::{Disorder, Text, cmp_text, prefix_key};

/// Sampled lines, in file order: line starts and their prefix keys.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Samples {
    pub starts: Vec<usize>,
    pub prefixes: Vec<u64>,
}

/// Fewest samples an index aims at (a file smaller than this many bytes is
/// sampled at every line).
pub const MIN_SAMPLES: usize = 1 << 16;

/// Environment variable that overrides [`block_size`] (bytes), for tuning.
pub const BLOCK_ENV: &str = "GSEARCH_SORTED_BLOCK";

/// Bytes per block for a file of `len` bytes and `nkeys` keys: about four
/// samples per key (so a key's interval holds a few dozen lines of a file
/// like the hex-digest one), at least [`MIN_SAMPLES`]; or
/// `GSEARCH_SORTED_BLOCK` when set.
pub fn block_size(len: usize, nkeys: usize) -> usize {
    let env = std::env::var(BLOCK_ENV)
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    env.unwrap_or_else(|| len / nkeys.saturating_mul(4).max(MIN_SAMPLES))
        .max(1)
}

/// Build the index over `text` with blocks of `block` bytes on `threads`
/// threads, checking the sampled lines in order.
pub fn build(
    text: &Text<'_>,
    fold: bool,
    block: usize,
    threads: usize,
) -> Result<Samples, Disorder> {
    let block = block.max(1);
    let nblocks = text.len().div_ceil(block);
    // Small files are not worth a thread.
    let parts = if text.len() < (1 << 20) {
        1
    } else {
        (threads * 4).min(nblocks)
    };
    let parts = par_map(parts, threads, |t| {
        let (b0, b1) = (t * nblocks / parts, (t + 1) * nblocks / parts);
        sample_blocks(text, fold, block, b0, b1)
    });
    let mut all = Samples::default();
    for part in parts {
        let part = part?;
        let mut skip = 0;
        if let (Some(&last), Some(&first)) = (all.starts.last(), part.starts.first()) {
            // A line longer than a block can start the next part too.
            if first == last {
                skip = 1;
            } else {
                in_order(
                    text,
                    fold,
                    (last, all.prefixes[all.prefixes.len() - 1]),
                    (first, part.prefixes[0]),
                )?;
            }
        }
        all.starts.extend_from_slice(&part.starts[skip..]);
        all.prefixes.extend_from_slice(&part.prefixes[skip..]);
    }
    Ok(all)
}

/// Samples of blocks `b0..b1`, checked in order.
fn sample_blocks(
    text: &Text<'_>,
    fold: bool,
    block: usize,
    b0: usize,
    b1: usize,
) -> Result<Samples, Disorder> {
    let bytes = text.bytes;
    let end = b1.saturating_mul(block).min(bytes.len());
    let mut out = Samples::default();
    let mut p = b0 * block;
    while p < end {
        // The first line starting at or after p.
        let s = if p == 0 {
            0
        } else {
            match memchr::memchr(b'\n', &bytes[p - 1..]) {
                Some(i) => p + i,
                None => break,
            }
        };
        if s >= bytes.len() {
            break;
        }
        let pfx = prefix_key(text.line_at(s).0, fold);
        if let (Some(&ls), Some(&lp)) = (out.starts.last(), out.prefixes.last()) {
            in_order(text, fold, (ls, lp), (s, pfx))?;
        }
        out.starts.push(s);
        out.prefixes.push(pfx);
        p = (s / block + 1) * block;
    }
    Ok(out)
}

/// Error unless line `a` (start, prefix key) sorts at or below line `b`.
fn in_order(text: &Text<'_>, fold: bool, a: (usize, u64), b: (usize, u64)) -> Result<(), Disorder> {
    let bad = a.1 > b.1
        || (a.1 == b.1
            && cmp_text(text.line_at(a.0).0, text.line_at(b.0).0, fold)
                == std::cmp::Ordering::Greater);
    if bad {
        return Err(Disorder {
            first: a.0,
            second: b.0,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(data: &[u8], block: usize, threads: usize) -> Vec<usize> {
        build(&Text::new(data), false, block, threads)
            .unwrap()
            .starts
    }

    #[test]
    fn block_one_samples_every_line() {
        assert_eq!(starts(b"a\nb\nc", 1, 1), vec![0, 2, 4]);
        assert_eq!(starts(b"a\nb\nc\n", 1, 1), vec![0, 2, 4]);
        assert_eq!(starts(b"", 1, 1), Vec::<usize>::new());
        assert_eq!(starts(b"\n\n", 1, 1), vec![0, 1]);
    }

    #[test]
    fn blocks_take_the_next_line_start() {
        // lines start at 0, 4, 8, 16
        let data = b"aaa\nbbb\nccccccc\nd\n";
        assert_eq!(starts(data, 5, 1), vec![0, 8, 16]);
        assert_eq!(starts(data, 100, 1), vec![0]);
    }

    #[test]
    fn parts_agree_with_one_pass() {
        let mut data = Vec::new();
        for i in 0..200_000u32 {
            data.extend_from_slice(format!("{i:08}{}\n", "x".repeat((i % 37) as usize)).as_bytes());
        }
        for block in [1, 7, 64, 5000] {
            let one = build(&Text::new(&data), false, block, 1).unwrap();
            let many = build(&Text::new(&data), false, block, 3).unwrap();
            assert_eq!(one, many, "block {block}");
        }
    }

    #[test]
    fn disorder_among_samples_is_found() {
        let data = b"a\nb\nd\nc\ne\n";
        let e = build(&Text::new(data), false, 1, 1).unwrap_err();
        assert_eq!(
            e,
            Disorder {
                first: 4,
                second: 6
            }
        );
        assert_eq!(block_size(10, 1), 1);
        assert_eq!(block_size(1 << 30, 1_000_000), (1 << 30) / 4_000_000);
    }
}
