//! `GSEARCH_TRACE=1`: one stderr line per start-up and pipeline milestone,
//! with the milliseconds since `main` began. For finding where a run's
//! fixed costs go (device discovery, context, program, staging buffers)
//! on machines where no profiler is at hand; silent otherwise.

use std::sync::OnceLock;
use std::time::Instant;

struct Clock {
    start: Instant,
    on: bool,
}

fn clock() -> &'static Clock {
    static CLOCK: OnceLock<Clock> = OnceLock::new();
    CLOCK.get_or_init(|| Clock {
        start: Instant::now(),
        on: std::env::var_os("GSEARCH_TRACE").is_some_and(|v| !v.is_empty() && v != "0"),
    })
}

/// Starts the clock (call first thing in `main`). When tracing, one more
/// line comes from the C library's exit handlers: registered before any
/// OpenCL driver is loaded, ours runs after the drivers' own, so it shows
/// how long their teardown took.
pub fn start() {
    if clock().on {
        // SAFETY: registers a plain `extern "C"` function without arguments,
        // as `atexit` requires; it only reads the clock and writes stderr.
        unsafe { libc::atexit(at_exit) };
    }
}

extern "C" fn at_exit() {
    mark("exit handlers done");
}

/// Prints `what` with the time since [`start`] when tracing is on.
pub fn mark(what: &str) {
    let c = clock();
    if c.on {
        let ms = c.start.elapsed().as_secs_f64() * 1e3;
        eprintln!("gsearch trace: {ms:9.1} ms  {what}");
    }
}

/// Prints each of `lines` (what `--stats` would add, e.g. a device
/// search's stages) when tracing is on, so a timed run can show where its
/// time went without `--stats`, which changes the work (it counts every
/// match).
pub fn lines(lines: &[String]) {
    if clock().on {
        for l in lines {
            eprintln!("gsearch trace: {l}");
        }
    }
}

/// Whether `GSEARCH_TRACE` is on (for callers with more to print).
pub fn enabled() -> bool {
    clock().on
}
