//! A deterministic generator of secret-scanner style rule sets and of a
//! text that holds some of their matches.

/// The first rules, as a secret scanner writes them.
const BASE: [&str; 15] = [
    r"AKIA[0-9A-Z]{16}",
    r"(?i)password\s*[:=]\s*\S{8,}",
    r"\b[0-9a-f]{40}\b",
    r"\b[0-9a-f]{64}\b",
    r"\b(?:[0-9]{1,3}\.){3}[0-9]{1,3}\b",
    r"ghp_[A-Za-z0-9]{36}",
    r"xox[baprs]-[0-9A-Za-z-]{10,48}",
    r#"(?i)api[_-]?key\s*[:=]\s*['"]?[A-Za-z0-9]{16,}"#,
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    r"sk_live_[0-9a-zA-Z]{24}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"(?i)secret\s*[:=]\s*\S{8,}",
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    r"\bWORD[0-9]+\b",
    r"(?i)bearer\s+[A-Za-z0-9._~+/-]{20,}",
];

/// A name for rule `i` (upper-case letters, distinct per i).
fn name(i: usize) -> String {
    let mut s = String::new();
    let mut x = i + 26 * 26;
    while x > 0 {
        s.push((b'A' + (x % 26) as u8) as char);
        x /= 26;
    }
    s
}

/// `n` rules: the base rules, then generated ones in four shapes.
pub fn rules(n: usize) -> Vec<String> {
    let mut v: Vec<String> = BASE.iter().take(n).map(|s| s.to_string()).collect();
    let mut i = 0;
    while v.len() < n {
        let w = name(i);
        v.push(match i % 4 {
            0 => format!(r"\b{w}[0-9]+\b"),
            1 => format!(r"{w}_[0-9a-f]{{32}}"),
            2 => format!(r"(?i){}\s*[:=]\s*\S{{8,}}", w.to_ascii_lowercase()),
            _ => format!(r"\b{w}[A-Z0-9]{{12}}\b"),
        });
        i += 1;
    }
    v
}

/// A line that rule `i` (of a generated set) matches.
fn secret_line(i: usize, x: u64) -> String {
    match i % 6 {
        0 => format!("aws key AKIA{:016X} in config", x & 0xFFFF_FFFF_FFFF),
        1 => format!("password = hunter{x:x}"),
        2 => format!("commit {:040x}", u128::from(x) * 0x1_0000_0001),
        3 => format!(
            "host 10.{}.{}.{} up",
            x % 256,
            (x >> 8) % 256,
            (x >> 16) % 256
        ),
        4 => format!("WORD{} seen", x % 1000),
        _ => format!("{}_{:032x}", name(1), u128::from(x)),
    }
}

/// `text` with one line in `every` replaced by a matching line.
pub fn plant(mut text: Vec<u8>, every: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for (k, line) in text.split(|&b| b == b'\n').enumerate() {
        if k > 0 {
            out.push(b'\n');
        }
        if k % every == every / 2 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.extend_from_slice(secret_line(k / every, x).as_bytes());
        } else {
            out.extend_from_slice(line);
        }
    }
    let n = text.len();
    out.truncate(n);
    text.clear();
    out
}
