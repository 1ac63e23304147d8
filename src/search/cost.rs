//! `auto`'s cost model: the CPU's pace measured on the file's first MiB,
//! set against the device's start-up and (for big literal sets, which the
//! device searches alone) its pace. Used by the hybrid ([`super::hybrid`])
//! and by the choice of engines ([`super::choose`]).

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use crate::matcher::plan::Plan;

/// The device's start-up (loading the driver, context, program from the
/// cache, staging buffers) until it takes its first chunk: 0.2-0.6 s on the
/// H100/H200 machine (bench/results/2026-11-26-h200-device-pipeline.md).
/// `GSEARCH_DEVICE_STARTUP_MS` overrides it (tests: 0 starts the device at
/// once, whatever the CPU's pace).
pub fn device_startup() -> std::time::Duration {
    let ms = std::env::var("GSEARCH_DEVICE_STARTUP_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(400);
    std::time::Duration::from_millis(ms)
}

/// Bytes of the file's start on which the cost model times the CPU.
pub const PROBE_BYTES: usize = 1 << 20;

/// The CPU's pace on this search, measured: seconds per byte for one core
/// running the plan's line matcher over the file's first MiB (whole
/// lines; read in first, so a file not yet in the page cache times the
/// matcher, not the disk). About 0.2 ms for a literal, 5 ms for a rule
/// set of 15 regexes. Searched in place: a copy cost 0.8 ms in page
/// faults, half of a literal's `| head -1` on a 1.1 GB file (2-core
/// machine: 4.3 ms against 2.5 ms for the CPU engine alone).
pub fn cpu_pace(data: &[u8], plan: &Plan) -> f64 {
    let n = data.len().min(PROBE_BYTES);
    let end = memchr::memrchr(b'\n', &data[..n]).map_or(n, |k| k + 1);
    let sample = &data[..end];
    read_in(sample);
    let t = Instant::now();
    let hits = crate::pipeline::lines::matching_line_starts(sample, &plan.line_matcher());
    std::hint::black_box(hits);
    t.elapsed().as_secs_f64() / sample.len().max(1) as f64
}

/// Reads one byte of each page of `bytes`: a map's pages are then in the
/// page cache and mapped (for a cached file a fault maps 16 pages at a
/// time) before a clock starts.
pub fn read_in(bytes: &[u8]) {
    let pages = bytes.iter().step_by(4096).fold(0u8, |a, &b| a ^ b);
    std::hint::black_box(pages);
}

/// The cost model of `auto` on one big file: whether starting the device
/// can pay. The CPU's time for the whole file on `threads` cores is
/// projected from its measured pace ([`cpu_pace`]); the device is started
/// only if that is more than twice its start-up: otherwise the CPU is done
/// before the device could take a share worth the cores its start-up and
/// its staging copies take (on the H200 machine, `-c` of one literal over
/// 8.7 GB: CPU 0.21 s alone, 0.25 s with the device starting beside it).
/// Measuring on a sample rather than on the first chunks lets a device
/// that pays start at once (a rule set's first chunks take the CPU 0.2 s).
/// `Err` says why not.
pub fn device_pays(size: usize, pace: f64, threads: usize) -> Result<(), String> {
    let startup = device_startup();
    if startup.is_zero() {
        return Ok(());
    }
    let projected = std::time::Duration::from_secs_f64(size as f64 * pace / threads as f64);
    if projected > 2 * startup {
        return Ok(());
    }
    Err(format!(
        "the CPU's pace leaves {:.0} ms of work, less than twice the device's {:.0} ms start-up",
        projected.as_secs_f64() * 1e3,
        startup.as_secs_f64() * 1e3
    ))
}

/// The device engine's pace on a big literal set over page-cached text,
/// start-up aside: its stream is bound by the host's copy into pinned
/// staging, 23-28 GB/s on one H100 or H200 (1,000 and 100,000 words over
/// 8.68 GB: bench/results/2026-11-26-h200x2-scale-traced.md); taken lower,
/// as a run's ends are slower than its middle.
const DEVICE_LITERAL_RATE: f64 = 20e9;

/// The device engine's pace on a few regexes (its DFA kernel), start-up
/// aside: the stream of 1.26 GB took 0.21-0.46 s on one H200 (three
/// regexes without a literal; 0.10-0.35 s of it the host confirming the
/// candidate lines), 2.7-6 GB/s.
const DEVICE_DFA_RATE: f64 = 4e9;

/// Whether the device engine would search `size` bytes of a literal set
/// (or regexes: [`DEVICE_DFA_RATE`]) sooner than the CPU engine on `threads` threads, whose pace is measured
/// on the first MiB of `path` (twice: the difference is what the CPU pays
/// once, such as waiting for the plan's regex): the device's time is its
/// start-up plus the bytes at [`DEVICE_LITERAL_RATE`]. Over 8.68 GB on two
/// H200s and 32 cores, 1,000 words took the CPU 0.28 s and the devices
/// 0.71 s (estimated: 0.23 and 0.83 s); 100,000 words 2.39 s and 1.03 s
/// (estimated: 2.04 and 0.83 s). Says why, either way.
pub fn device_beats_cpu(
    path: &Path,
    size: u64,
    plan: &Plan,
    threads: usize,
) -> Result<String, String> {
    if device_startup().is_zero() {
        return Ok("a start-up of 0 assumed".into());
    }
    let mut sample = Vec::with_capacity(PROBE_BYTES);
    File::open(path)
        .and_then(|f| f.take(PROBE_BYTES as u64).read_to_end(&mut sample))
        .map_err(|e| format!("the file's start could not be read: {e}"))?;
    // The first pass pays what is paid once (a regex compiled on its own
    // thread and waited for, lazy automata, first touches); the second
    // times the bytes.
    let first = cpu_pace(&sample, plan);
    let pace = cpu_pace(&sample, plan);
    let once = (first - pace).max(0.0) * sample.len() as f64;
    let cpu = once + size as f64 * pace / threads.max(1) as f64;
    let rate = match plan.literals {
        Some(_) => DEVICE_LITERAL_RATE,
        None => DEVICE_DFA_RATE,
    };
    let device = device_startup().as_secs_f64() + size as f64 / rate;
    let why = format!(
        "the CPU's pace leaves {:.0} ms of work on {threads} threads ({:.0} ms of it paid \
         once); the device would take about {:.0} ms with its start-up",
        cpu * 1e3,
        once * 1e3,
        device * 1e3
    );
    if cpu > device { Ok(why) } else { Err(why) }
}

/// What each GPU the NVIDIA driver starts adds to the start of a process,
/// before any device can work: 0.21 s on the host of four H200s (the
/// driver's platform listing took 0.21, 0.42 and 0.90-0.96 s with 1, 2 and
/// 4 of its GPUs visible; bench/results/2026-11-26-h200x4-gpus-started.md).
const GPU_START_SECS: f64 = 0.21;

/// The host's copy into pinned staging with every device filling: 30-46
/// GB/s on the H200 hosts, so two devices already take what it gives.
const HOST_FILL_RATE: f64 = 40e9;

/// The most GPUs [`gpus_worth_starting`] weighs.
const MAX_GPUS: usize = 16;

/// How many GPUs are worth starting for `bytes` of input: the count with
/// the least start-up ([`GPU_START_SECS`] each) plus stream (each device at
/// [`DEVICE_LITERAL_RATE`], all together at most [`HOST_FILL_RATE`]), the
/// fewer on a tie. 1 up to 8.4 GB, then 2: on four H200s one GPU searched
/// a 200-rule set over 4 GB in 0.73 s and two in 0.83 s; over 32.3 GB one
/// took 2.31 s, two 1.76 s, three 1.89 s and four 2.14 s.
pub fn gpus_worth_starting(bytes: u64) -> usize {
    let time = |n: usize| {
        let rate = (n as f64 * DEVICE_LITERAL_RATE).min(HOST_FILL_RATE);
        n as f64 * GPU_START_SECS + bytes as f64 / rate
    };
    (2..=MAX_GPUS).fold(1, |best, n| if time(n) < time(best) { n } else { best })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpus_worth_starting_grow_with_the_input_until_the_host_copy_binds() {
        assert_eq!(gpus_worth_starting(0), 1);
        assert_eq!(gpus_worth_starting(4_000_000_000), 1);
        assert_eq!(gpus_worth_starting(8_000_000_000), 1);
        assert_eq!(gpus_worth_starting(9_000_000_000), 2);
        assert_eq!(gpus_worth_starting(32_300_000_000), 2);
        // Past two devices the host's copy, not the GPUs, sets the pace.
        assert_eq!(gpus_worth_starting(1 << 50), 2);
    }
}
