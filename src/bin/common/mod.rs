//! Sizes on the command line: `1G`, `64M`, `512K`, `1000` (shared by
//! gsearch-bench-kernels and gsearch-bench-many).

/// Parses sizes like `1G`, `64M`, `512K`, `1000`.
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()?.to_ascii_uppercase() {
        'G' => (&s[..s.len() - 1], 1usize << 30),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'K' => (&s[..s.len() - 1], 1 << 10),
        _ => (s, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("64m"), Some(64 << 20));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("x"), None);
    }
}
