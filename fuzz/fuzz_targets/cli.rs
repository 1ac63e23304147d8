//! Whole-CLI differential target: the `gsearch` binary with `--engine cpu`
//! against `--engine opencl` (random tiny `GSEARCH_BATCH_BYTES`, so files
//! are packed and chunked every way), byte for byte with exit status, and
//! plain `-F -c` runs against a naive line count. The binary is
//! `$GSEARCH_BIN`, or `../target/release/gsearch` (build it first).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../common/diff.rs"]
mod diff;

fn bin() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let p = std::env::var_os("GSEARCH_BIN").map(PathBuf::from).unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/gsearch")
        });
        assert!(p.exists(), "no gsearch binary at {} (set GSEARCH_BIN)", p.display());
        p
    })
}

fn opencl() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    *HAVE.get_or_init(|| {
        std::env::var_os("FUZZ_NO_OPENCL").is_none() && gsearch::opencl::has_any_device()
    })
}

fuzz_target!(|data: &[u8]| {
    let case = diff::Case::from_bytes(data);
    let dir = tempfile::tempdir().unwrap();
    if let Err(e) = diff::check_cli(&case, bin(), dir.path(), opencl()) {
        panic!("{e}\ncase: {case:?}");
    }
});
