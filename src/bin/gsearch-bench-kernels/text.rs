//! The benchmark's texts: realistic ASCII and a worst case for prefix
//! filters.

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "fn",
    "let",
    "mut",
    "self",
    "return",
    "struct",
    "impl",
    "match",
    "Some",
    "None",
    "Ok(())",
    "Err(e)",
    "error:",
    "warning:",
    "INFO",
    "2026-11-22T10:15:00Z",
    "request_id=7f3a",
    "GET",
    "/api/v1",
    "200",
    "404",
    "{",
    "}",
    "();",
    "=>",
    "//",
    "0x1f",
    "Vec<u8>",
    "String",
    "println!",
    "config",
    "value",
    "result",
    "buffer",
    "offset",
    "length",
    "search",
    "pattern",
    "device",
    "kernel",
    "memory",
    "needle",
];

/// Realistic ASCII: words (English and code/log tokens) separated by spaces
/// and punctuation, lines of 40-100 bytes. "needle" is about 1 word in 100.
pub fn realistic_text(n: usize, seed: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + 128);
    let mut x = seed | 1;
    let mut line = 0usize;
    let mut target = 60;
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let w = WORDS[(x % WORDS.len() as u64) as usize];
        v.extend_from_slice(w.as_bytes());
        line += w.len() + 1;
        if line >= target {
            v.push(b'\n');
            line = 0;
            target = 40 + ((x >> 20) % 60) as usize;
        } else {
            v.push(if (x >> 40).is_multiple_of(13) {
                b','
            } else {
                b' '
            });
        }
    }
    v.truncate(n);
    v
}

/// A worst case for prefix filters: `pat` without its last byte, repeated
/// (every position near a match; phases 1-2 pass, phase 3 fails), with a
/// real match every 4096 copies.
pub fn partial_text(n: usize, pat: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(n + pat.len());
    let prefix = &pat[..pat.len().saturating_sub(1)];
    let mut i = 0u64;
    while v.len() < n {
        if i % 4096 == 4095 {
            v.extend_from_slice(pat);
        } else {
            v.extend_from_slice(prefix);
        }
        v.push(b' ');
        i += 1;
    }
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators() {
        let t = realistic_text(10_000, 1);
        assert_eq!(t.len(), 10_000);
        assert!(t.is_ascii());
        assert!(t.windows(6).any(|w| w == b"needle"));
        let p = partial_text(200_000, b"abcdef");
        assert!(p.windows(6).any(|w| w == b"abcdef"));
    }
}
