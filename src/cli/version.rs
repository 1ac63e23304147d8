//! `-V` and `--version` as ripgrep prints them: the version, then (long
//! form) the build's features, the SIMD it was compiled for and finds at
//! run time, and PCRE2's version. The binary adds the OpenCL
//! devices (`opencl::device::version_line`), which this layer cannot see.

use std::fmt::Write;

/// `gsearch 0.1.0`.
pub fn short() -> String {
    format!("gsearch {}", env!("CARGO_PKG_VERSION"))
}

/// The short version, a blank line, `features:`, `simd(compile):` and
/// `simd(runtime):` lines, a blank line and the PCRE2 line ([`pcre2`]).
pub fn long() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", short());
    let _ = writeln!(out, "features:+pcre2");
    let (compile, runtime) = simd();
    if !compile.is_empty() {
        let _ = writeln!(out, "simd(compile):{}", compile.join(","));
    }
    if !runtime.is_empty() {
        let _ = writeln!(out, "simd(runtime):{}", runtime.join(","));
    }
    let _ = writeln!(out, "\n{}", pcre2());
    out
}

/// What `--pcre2-version` prints: the version of the PCRE2 built in
/// (`-P`) and whether its JIT compiler runs on this machine.
pub fn pcre2() -> String {
    let (major, minor) = grep_pcre2::version();
    let jit = if cfg!(target_pointer_width = "64") && grep_pcre2::is_jit_available() {
        "available"
    } else {
        "unavailable"
    };
    format!("PCRE2 {major}.{minor} is available (JIT is {jit})")
}

/// `+NAME` or `-NAME`.
fn flag(on: bool, name: &str) -> String {
    format!("{}{name}", if on { '+' } else { '-' })
}

/// The SIMD extensions the searchers use, as compiled in and as this CPU
/// has them.
#[cfg(target_arch = "x86_64")]
fn simd() -> (Vec<String>, Vec<String>) {
    let compile = vec![
        flag(cfg!(target_feature = "sse2"), "SSE2"),
        flag(cfg!(target_feature = "ssse3"), "SSSE3"),
        flag(cfg!(target_feature = "avx2"), "AVX2"),
    ];
    let runtime = vec![
        flag(std::arch::is_x86_feature_detected!("sse2"), "SSE2"),
        flag(std::arch::is_x86_feature_detected!("ssse3"), "SSSE3"),
        flag(std::arch::is_x86_feature_detected!("avx2"), "AVX2"),
    ];
    (compile, runtime)
}

/// NEON, compiled in (and so present) or not.
#[cfg(target_arch = "aarch64")]
fn simd() -> (Vec<String>, Vec<String>) {
    let neon = vec![flag(cfg!(target_feature = "neon"), "NEON")];
    (neon.clone(), neon)
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn simd() -> (Vec<String>, Vec<String>) {
    (Vec::new(), Vec::new())
}
