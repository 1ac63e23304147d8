//! In-process differential target: the CPU literal engine against the naive
//! reference, and the OpenCL engine (PoCL or any device) against the CPU
//! engine, on random haystacks and literal sets. See `fuzz/common/diff.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../common/diff.rs"]
mod diff;

fuzz_target!(|data: &[u8]| {
    let case = diff::Case::from_bytes(data);
    if let Err(e) = diff::check_cpu_engine(&case) {
        panic!("{e}\ncase: {case:?}");
    }
    if std::env::var_os("FUZZ_NO_OPENCL").is_none() {
        if let Err(e) = diff::check_opencl_engine(&case) {
            panic!("{e}\ncase: {case:?}");
        }
    }
});
