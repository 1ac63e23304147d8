//! `--debug` and `--trace`: the `log` records of gsearch and of the crates
//! it uses (the `ignore` crate says why each file or directory is skipped)
//! on stderr, one `gsearch: LEVEL|target|file:line: message` line each, as
//! ripgrep prints them. Without either flag only warnings would show, and
//! nothing logs at that level.

use log::{LevelFilter, Log, Metadata, Record};

struct Stderr;

static LOGGER: Stderr = Stderr;

impl Log for Stderr {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        // `log::max_level` filters before a record gets here.
        true
    }

    fn log(&self, record: &Record<'_>) {
        let (level, target) = (record.level(), record.target());
        match (record.file(), record.line()) {
            (Some(file), Some(line)) => crate::sys::messages::eprint_locked(format_args!(
                "{level}|{target}|{file}:{line}: {}",
                record.args()
            )),
            (Some(file), None) => crate::sys::messages::eprint_locked(format_args!(
                "{level}|{target}|{file}: {}",
                record.args()
            )),
            _ => crate::sys::messages::eprint_locked(format_args!(
                "{level}|{target}: {}",
                record.args()
            )),
        }
    }

    fn flush(&self) {}
}

/// Installs the logger (once) and sets how much it prints: `debug` for
/// `--debug`, `trace` for `--trace`, else warnings only.
pub fn set_level(debug: bool, trace: bool) {
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(if trace {
        LevelFilter::Trace
    } else if debug {
        LevelFilter::Debug
    } else {
        LevelFilter::Warn
    });
}
