//! `--stats`: ripgrep's summary block (or JSON `summary` message), followed
//! in text mode by what gsearch adds: which engine and device ran, and how
//! long each stage of the device pipeline took.

use std::io::{self, Write};
use std::time::Instant;

use grep_printer::Stats;

use crate::cli::config::{Config, OutputMode};
use crate::err_message;

/// Prints the statistics block.
pub fn print<W: Write>(
    cfg: &Config,
    stats: &Stats,
    started: Instant,
    engine: &[String],
    mut wtr: W,
) -> io::Result<()> {
    let elapsed = started.elapsed();
    if cfg.mode == OutputMode::Json {
        let msg = serde_json::json!({
            "type": "summary",
            "data": {
                "stats": stats,
                "elapsed_total": {
                    "secs": elapsed.as_secs(),
                    "nanos": elapsed.subsec_nanos(),
                    "human": format!("{:0.6}s", elapsed.as_secs_f64()),
                },
            }
        });
        serde_json::to_writer(&mut wtr, &msg)?;
        return writeln!(wtr);
    }
    write!(
        wtr,
        "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n{} bytes printed\n{} bytes searched\n{:0.6} seconds spent searching\n{:0.6} seconds total\n",
        stats.matches(),
        stats.matched_lines(),
        stats.searches_with_match(),
        stats.searches(),
        stats.bytes_printed(),
        stats.bytes_searched(),
        stats.elapsed().as_secs_f64(),
        elapsed.as_secs_f64(),
    )?;
    for line in engine {
        writeln!(wtr, "{line}")?;
    }
    Ok(())
}

/// Whether statistics are kept (`--stats`, and always for `--json`).
pub fn keeps_stats(cfg: &Config) -> bool {
    cfg.stats || cfg.mode == OutputMode::Json
}

/// End-of-run duties: the "nothing searched" warning and `--stats`.
pub fn finish<W: io::Write>(
    cfg: &Config,
    searched: bool,
    stats: Option<&Stats>,
    started: Instant,
    wtr: &mut W,
    engine: &[String],
) -> io::Result<()> {
    if cfg.implicit_path && !searched {
        err_message!(
            "No files were searched, which means gsearch probably applied a filter you didn't expect.\nRunning with --debug will show why files are being skipped."
        );
    }
    if let Some(stats) = stats {
        let _ = print(cfg, stats, started, engine, wtr);
    }
    Ok(())
}
