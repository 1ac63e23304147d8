//! `--build-only`: the table build alone (no device, no text), for each rule
//! set, group size and thread count: groups, states, bytes, the two stages'
//! times, CPU time, and a cache round trip (the bytes written and read back).

use std::time::Instant;

use gsearch::engine::dfa_bytes;
use gsearch::engine::dfa_table::{DfaLimits, DfaSet, DfaSpec};

/// CPU time (user + system) of this process so far, in seconds.
pub fn cpu_seconds() -> f64 {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a rusage into the pointer it is given, which
    // points at one zeroed rusage.
    let ru = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr());
        ru.assume_init()
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// One row of the build table.
pub fn row(
    name: &str,
    spec: &DfaSpec,
    limits: DfaLimits,
    threads: usize,
) -> Result<String, String> {
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    let set = DfaSet::build_on(spec, limits, threads)?;
    let wall = t.elapsed();
    let cpu = cpu_seconds() - cpu0;
    let t = Instant::now();
    let bytes = dfa_bytes::to_bytes(&set);
    let back = dfa_bytes::from_bytes(&bytes, spec.patterns.len()).ok_or("cache round trip")?;
    let cache = t.elapsed();
    if back.groups.len() != set.groups.len() {
        return Err("cache round trip changed the groups".into());
    }
    let states: u64 = set.groups.iter().map(|g| u64::from(g.states)).sum();
    let largest = set
        .groups
        .iter()
        .map(|g| g.table_bytes())
        .max()
        .unwrap_or(0);
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    Ok(format!(
        "| {name} | {} | {} | {threads} | {} ({}) | {states} | {} ({largest}) | {:.0} | {:.0} | \
         {:.0} | {:.0} | {:.1} |\n",
        spec.patterns.len(),
        limits.group_bytes,
        set.groups.len(),
        set.local_groups(),
        bytes.len(),
        ms(wall),
        ms(set.info.relax),
        ms(set.info.group),
        cpu * 1e3,
        ms(cache),
    ))
}

/// The header of the build table.
pub const HEADER: &str = "| rules | patterns | group bytes | threads | groups (local) | states \
     | cache bytes (largest table) | build ms | relax ms | groups ms | CPU ms | cache round trip ms |\n\
     |---|---|---|---|---|---|---|---|---|---|---|---|\n";
