//! `--sorted`: the command-line side of sorted-file lookups (the search
//! itself is in `sorted`). `gsearch --sorted KEY FILE` and
//! `gsearch --sorted -f KEYS FILE` print the lines that begin with a key,
//! once each, in file order; `-c` counts them; `-i` expects `sort -f`
//! order.

use std::io::Write;
use std::time::Instant;

use anyhow::bail;

use crate::cli::EngineArg;
use crate::cli::config::{Config, OutputMode};
use crate::sorted::{self, DeviceChoice, SortedError, SortedOptions};

/// Runs a lookup and returns grep's exit status.
pub fn run(cfg: &Config) -> anyhow::Result<u8> {
    if cfg.paths.len() != 1 || cfg.paths[0].as_os_str() == "-" || cfg.implicit_path {
        bail!("--sorted needs exactly one FILE (a bytewise-sorted file, not standard input)");
    }
    if cfg.input.needs_searcher() {
        bail!("--sorted searches its FILE's raw bytes: -U, -E, -z and --pre do not apply to it");
    }
    if cfg.out.pcre2 {
        bail!("--sorted looks its keys up as literal line prefixes: -P does not apply to it");
    }
    let path = &cfg.paths[0];
    let keys = &cfg.patterns;
    let opts = SortedOptions {
        fold_case: cfg.case_insensitive_flag(),
        count: cfg.mode == OutputMode::Count,
        use_device: match cfg.engine {
            EngineArg::Cpu => DeviceChoice::Cpu,
            EngineArg::Opencl => DeviceChoice::Device(cfg.opencl_device.clone()),
            EngineArg::Auto | EngineArg::Default | EngineArg::Pcre2 => DeviceChoice::Auto,
        },
        ..SortedOptions::default()
    };
    let started = Instant::now();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let report = match sorted::run_with_report(path, keys, &opts, &mut out) {
        Ok(r) => r,
        Err(SortedError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            return Ok(0);
        }
        Err(e) => {
            let _ = out.flush();
            crate::err_message!("{e}");
            return Ok(2);
        }
    };
    for w in &report.warnings {
        crate::sys::messages::eprint_locked(format_args!("warning: {w}"));
    }
    if cfg.stats {
        writeln!(
            out,
            "\n{} matched lines\n{}\nengine: {}\nmethod: {}\nphases: {}\n{:0.6} seconds total",
            report.lines,
            crate::sys::count_of(keys.len(), "key"),
            report.engine,
            report.method,
            report
                .phases
                .iter()
                .map(|(what, t)| format!("{what} {:0.6} s", t.as_secs_f64()))
                .collect::<Vec<_>>()
                .join(", "),
            started.elapsed().as_secs_f64()
        )?;
    }
    match out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(0),
        r => r?,
    }
    Ok(report.exit_code() as u8)
}
