//! Where output goes: standard output, line-buffered on a terminal and
//! block-buffered otherwise (as ripgrep does; `--line-buffered` and
//! `--block-buffered` decide instead), and the buffer writer of
//! parallel searches, whose per-file buffers are written whole.

use crate::cli::config::Config;

/// The standard output stream, line-buffered on a terminal.
pub fn stdout(cfg: &Config) -> grep_cli::StandardStream {
    if cfg.out.line_buffered.unwrap_or(cfg.is_terminal_stdout) {
        grep_cli::stdout_buffered_line(cfg.color)
    } else {
        grep_cli::stdout_buffered_block(cfg.color)
    }
}

/// The writer used by parallel searches: whole per-file buffers, separated
/// as ripgrep separates files (blank line with headings, `--` with context).
pub fn buffer_writer(cfg: &Config) -> termcolor::BufferWriter {
    let mut w = termcolor::BufferWriter::stdout(cfg.color);
    w.separator(cfg.file_separator.clone());
    w
}
