//! Messages on stderr, prefixed with `gsearch: `, and the flag that records
//! that some error happened (it decides exit status 2 at the end).

use std::sync::atomic::{AtomicBool, Ordering};

static ERRORED: AtomicBool = AtomicBool::new(false);
/// Error messages are shown (`--no-messages` turns them off).
static MESSAGES: AtomicBool = AtomicBool::new(true);
/// Ignore-file messages are shown (`--no-ignore-messages` too).
static IGNORE_MESSAGES: AtomicBool = AtomicBool::new(true);

/// Sets which messages are shown (`--no-messages`, `--no-ignore-messages`).
pub fn configure(messages: bool, ignore_messages: bool) {
    MESSAGES.store(messages, Ordering::Relaxed);
    IGNORE_MESSAGES.store(ignore_messages, Ordering::Relaxed);
}

/// Whether error messages are shown.
pub fn messages() -> bool {
    MESSAGES.load(Ordering::Relaxed)
}

/// Whether messages about ignore files are shown.
pub fn ignore_messages() -> bool {
    messages() && IGNORE_MESSAGES.load(Ordering::Relaxed)
}

/// Whether any error message was printed.
pub fn errored() -> bool {
    ERRORED.load(Ordering::Relaxed)
}

/// Records that an error happened.
pub fn set_errored() {
    ERRORED.store(true, Ordering::Relaxed);
}

/// Writes one `gsearch: ` line to stderr, holding stdout's lock so lines of
/// the two streams do not interleave. A closed stderr ends the process
/// (quietly for a broken pipe), as in ripgrep.
pub fn eprint_locked(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    if let Err(err) = writeln!(stderr, "gsearch: {args}") {
        let code = if err.kind() == std::io::ErrorKind::BrokenPipe {
            0
        } else {
            2
        };
        std::process::exit(code);
    }
    drop(stdout);
}

/// Prints an error message and records the error.
#[macro_export]
macro_rules! err_message {
    ($($tt:tt)*) => {{
        $crate::sys::messages::set_errored();
        if $crate::sys::messages::messages() {
            $crate::sys::messages::eprint_locked(format_args!($($tt)*));
        }
    }};
}

/// Prints a message that does not change the exit status, unless
/// `--no-messages` (e.g. the configuration file cannot be read).
#[macro_export]
macro_rules! message {
    ($($tt:tt)*) => {{
        if $crate::sys::messages::messages() {
            $crate::sys::messages::eprint_locked(format_args!($($tt)*));
        }
    }};
}

/// Prints a message about an ignore file, which does not change the exit
/// status (`--no-messages` and `--no-ignore-messages` turn it off).
#[macro_export]
macro_rules! ignore_message {
    ($($tt:tt)*) => {{
        if $crate::sys::messages::ignore_messages() {
            $crate::sys::messages::eprint_locked(format_args!($($tt)*));
        }
    }};
}
