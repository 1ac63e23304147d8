//! Helpers shared by the integration test crates (each crate uses a subset).
#![allow(dead_code)]

use std::sync::OnceLock;

use proptest::prelude::*;

/// Whether an OpenCL device is present. Without one the caller skips (and
/// says so), unless `GSEARCH_REQUIRE_OPENCL=1`, which makes it a failure.
pub fn have_device() -> bool {
    static HAVE: OnceLock<bool> = OnceLock::new();
    let have = *HAVE.get_or_init(gsearch::opencl::has_any_device);
    if !have {
        if std::env::var("GSEARCH_REQUIRE_OPENCL").as_deref() == Ok("1") {
            panic!(
                "GSEARCH_REQUIRE_OPENCL=1 but no OpenCL device:\n{}",
                gsearch::opencl::list_devices_text()
            );
        }
        eprintln!("skipping: no OpenCL device (set GSEARCH_REQUIRE_OPENCL=1 to fail instead)");
    }
    have
}

/// Text bytes: mostly a few letters (so patterns match and overlap), line
/// ends, a UTF-8 lead byte, non-ASCII and arbitrary bytes.
pub fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => Just(b'a'),
        3 => Just(b'b'),
        2 => Just(b'A'),
        1 => Just(b'B'),
        1 => Just(b'\n'),
        1 => Just(0xC3u8),
        1 => 0x80u8..=0xFF,
        2 => any::<u8>(),
    ]
}

/// Pattern bytes: like [`byte`] but never a line end (patterns hold none).
pub fn pat_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => Just(b'a'),
        3 => Just(b'b'),
        1 => Just(b'A'),
        1 => Just(0xC3u8),
        1 => any::<u8>().prop_filter("no newline", |&b| b != b'\n'),
    ]
}

/// The offsets an engine finds in `hay`, searched as one batch.
pub fn search(e: &gsearch::opencl::OpenClEngine, hay: &[u8]) -> Vec<u64> {
    use gsearch::engine::BatchEngine;
    e.search(&gsearch::engine::Batch {
        data: hay,
        spans: &[],
    })
    .expect("search")
    .offsets
}
