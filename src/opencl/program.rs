//! Kernel sources (embedded) and program builds through the binary cache.

use opencl3::context::Context;
use opencl3::program::Program;

use super::cache::ProgramCache;
use super::device::DeviceInfo;
use crate::sys::guard::around_foreign;

pub const NAIVE_SRC: &str = include_str!("../../kernels/literal_naive.cl");
pub const THREE_PHASE_SRC: &str = include_str!("../../kernels/literal_3phase.cl");
pub const CHAR16_SRC: &str = include_str!("../../kernels/multi_char16.cl");

/// A built program and how it was obtained.
pub struct Built {
    pub program: Program,
    pub from_cache: bool,
}

/// Builds `source` for the context's device: from the cache when an intact
/// entry loads and builds, otherwise from source (then stores the binary).
/// A failed source build returns the build log.
pub fn build(
    ctx: &Context,
    dev: &DeviceInfo,
    source: &str,
    options: &str,
    cache: &ProgramCache,
    inject_failure: bool,
) -> Result<Built, String> {
    if inject_failure {
        return Err("program build failed (injected fault GSEARCH_FAULT=build)".into());
    }
    let key = ProgramCache::key(
        &dev.name,
        &dev.driver_version,
        &dev.platform_version,
        source,
        options,
    );
    if let Some(bin) = cache.load(&key)
        && let Ok(program) =
            around_foreign(|| Program::create_and_build_from_binary(ctx, &[&bin], options))
    {
        return Ok(Built {
            program,
            from_cache: true,
        });
    }
    // `-w`: some compilers (PoCL's clang) write their warnings straight to
    // stderr ("2 warnings generated."); only a trace (`GSEARCH_TRACE`) shows
    // them. The binary is the same, so the cache key keeps `options`.
    let quiet = if crate::sys::trace::enabled() {
        options.to_string()
    } else {
        format!("{options} -w")
    };
    let program =
        around_foreign(|| Program::create_and_build_from_source(ctx, source, quiet.trim_start()))
            .map_err(|log| format!("OpenCL program build failed: {log}"))?;
    if let Some(b) = program
        .get_binaries()
        .ok()
        .and_then(|v| v.into_iter().next())
        && !b.is_empty()
    {
        cache.store(&key, &b);
    }
    Ok(Built {
        program,
        from_cache: false,
    })
}
