//! `-V` and `--version` as ripgrep prints them: the version, then (long
//! form) the build's features, the SIMD it was compiled for and finds at
//! run time, and whether PCRE2 is there. The binary adds the OpenCL
//! devices (`opencl::device::version_line`), which this layer cannot see.

use std::fmt::Write;

/// What `-P`, `--engine pcre2` and `--pcre2-version` say: gsearch is built
/// without PCRE2.
pub const NO_PCRE2: &str = "PCRE2 is not available in this build of gsearch";

/// `gsearch 0.1.0`.
pub fn short() -> String {
    format!("gsearch {}", env!("CARGO_PKG_VERSION"))
}

/// The short version, a blank line, `features:`, `simd(compile):` and
/// `simd(runtime):` lines, a blank line and the PCRE2 line.
pub fn long() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", short());
    let _ = writeln!(out, "features:-pcre2");
    let (compile, runtime) = simd();
    if !compile.is_empty() {
        let _ = writeln!(out, "simd(compile):{}", compile.join(","));
    }
    if !runtime.is_empty() {
        let _ = writeln!(out, "simd(runtime):{}", runtime.join(","));
    }
    let _ = writeln!(out, "\n{}.", NO_PCRE2);
    out
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
