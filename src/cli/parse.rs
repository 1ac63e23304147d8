//! Reading the command line as ripgrep does: the configuration file's
//! arguments go before the command line's (unless `--no-config`), and a
//! bad flag gets ripgrep's short message instead of clap's.

use std::collections::BTreeSet;
use std::ffi::OsString;

use anyhow::bail;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};

use crate::cli::Cli;
use crate::cli::args::BadValue;
use crate::cli::names::RIPGREP_LONG_NAMES;
use crate::cli::order::WalkOrder;

/// What the command line asks for.
pub enum Parsed {
    /// A run with these flags.
    Run(Box<Cli>),
    /// Help or the short version was printed: exit with this status.
    Exit(u8),
    /// `--version`: the long version ([`crate::cli::version::long`], then
    /// the OpenCL devices), exit status 0.
    VersionLong,
}

/// Parses the process's arguments, with the configuration file's first.
/// An error is the message to print (exit status 2).
pub fn from_env() -> anyhow::Result<Parsed> {
    let given: Vec<OsString> = std::env::args_os().skip(1).collect();
    let first = parse(&given)?;
    let Parsed::Run(cli) = &first else {
        return Ok(first);
    };
    // The command line's --debug/--trace show the config file's reading,
    // and its --no-messages hides a config file that cannot be read.
    crate::sys::logger::set_level(cli.debug, cli.trace);
    crate::sys::messages::configure(!cli.no_messages, !cli.no_ignore_messages);
    if cli.no_config {
        log::debug!("not reading config files because --no-config is present");
        return Ok(first);
    }
    let mut args = crate::cli::rcfile::args();
    if args.is_empty() {
        log::debug!("no extra arguments found from configuration file");
        return Ok(first);
    }
    args.extend(given);
    let last = parse(&args)?;
    if let Parsed::Run(cli) = &last {
        crate::sys::logger::set_level(cli.debug, cli.trace);
    }
    Ok(last)
}

/// Parses `args` (without the program name).
pub fn parse(args: &[OsString]) -> anyhow::Result<Parsed> {
    let argv = std::iter::once(OsString::from("gsearch")).chain(args.iter().cloned());
    let matches = match command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => bail!("{}", message(&e, args)),
    };
    let mut cli = Cli::from_arg_matches(&matches)?;
    crate::cli::order::apply(&mut cli, &matches);
    if cli.unrestricted.len() > 3 {
        let flag = typed_flag(args, &["unrestricted"], Some('u'));
        bail!("error parsing flag {flag}: flag can only be repeated up to 3 times");
    }
    if let Some(special) = special(&matches, args) {
        return Ok(special);
    }
    let order = WalkOrder::from_matches(&matches);
    order.settle_mode(&mut cli);
    cli.walk_order = order;
    Ok(Parsed::Run(Box::new(cli)))
}

/// `-h`, `--help`, `-V` or `--version`, whichever was given last, as
/// ripgrep answers them: after the whole command line parsed without error
/// and before anything else (the configuration file included).
fn special(matches: &clap::ArgMatches, args: &[OsString]) -> Option<Parsed> {
    let at = |id| {
        (matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
            .then(|| matches.indices_of(id)?.max())
            .flatten()
    };
    let (help, version) = (at("help"), at("version"));
    if help.is_none() && version.is_none() {
        return None;
    }
    let text = if help > version {
        let mut cmd = command();
        if typed_flag(args, &["help"], Some('h')) == "-h" {
            cmd.render_help()
        } else {
            cmd.render_long_help()
        }
        .to_string()
    } else if typed_flag(args, &["version"], Some('V')) == "-V" {
        format!("{}\n", crate::cli::version::short())
    } else {
        return Some(Parsed::VersionLong);
    };
    print!("{text}");
    Some(Parsed::Exit(0))
}

/// The clap command, with every flag that takes a value taking the next
/// argument whatever it looks like (`-A -1` is a bad number, not an
/// unknown flag `-1`), as ripgrep's parser does.
fn command() -> clap::Command {
    Cli::command().mut_args(|a| {
        let no_value = a.get_num_args().is_some_and(|n| n.max_values() == 0);
        let takes_value = a.get_action().takes_values() && !a.is_positional() && !no_value;
        if takes_value {
            a.allow_hyphen_values(true)
        } else {
            a
        }
    })
}

/// ripgrep's message for a clap error.
fn message(err: &clap::Error, args: &[OsString]) -> String {
    let context = |kind| match err.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    let arg = context(ContextKind::InvalidArg);
    match err.kind() {
        ErrorKind::UnknownArgument if arg.starts_with("-=") => switch_with_value(args),
        ErrorKind::UnknownArgument => unrecognized(arg.split('=').next().unwrap_or(&arg)),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => value_message(
            err,
            &typed(args, &arg),
            &context(ContextKind::InvalidValue),
            args,
        ),
        ErrorKind::TooManyValues => {
            let (flag, value) = (typed(args, &arg), context(ContextKind::InvalidValue));
            format!("invalid CLI arguments: unexpected argument for option '{flag}': {value:?}")
        }
        _ => {
            let text = err.render().to_string();
            let line = text.lines().next().unwrap_or_default();
            format!(
                "invalid CLI arguments: {}",
                line.trim_start_matches("error: ")
            )
        }
    }
}

/// ripgrep's message for a bad or missing value of `flag`.
fn value_message(err: &clap::Error, flag: &str, value: &str, args: &[OsString]) -> String {
    let bad = std::error::Error::source(err).and_then(|e| e.downcast_ref::<BadValue>());
    if let Some(bad) = bad {
        format!("error parsing flag {flag}: {bad}")
    } else if err.kind() == ErrorKind::ValueValidation {
        let why = std::error::Error::source(err).map(|e| e.to_string());
        let why = why.unwrap_or_default();
        format!("error parsing flag {flag}: value is not a valid number: {why}")
    } else if value.is_empty() && ends_with_flag(args, flag) {
        format!("missing value for flag {flag}: missing argument for option '{flag}'")
    } else if flag == "--engine" {
        format!("error parsing flag --engine: unrecognized regex engine '{value}'")
    } else {
        format!("error parsing flag {flag}: choice '{value}' is unrecognized")
    }
}

/// The flag clap names as `arg`, as the user spelled it.
fn typed(args: &[OsString], arg: &str) -> String {
    let (longs, short) = flag_names(arg);
    let longs: Vec<&str> = longs.iter().map(String::as_str).collect();
    typed_flag(args, &longs, short)
}

/// `-n=3`: a value given to a short switch.
fn switch_with_value(args: &[OsString]) -> String {
    let given = args.iter().map(|a| a.to_string_lossy()).find_map(|a| {
        let cluster = a.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
        let (flags, value) = cluster.split_once('=')?;
        Some((flags.chars().last()?, value.to_string()))
    });
    match given {
        Some((c, value)) => {
            format!("invalid CLI arguments: unexpected argument for option '-{c}': {value:?}")
        }
        None => unrecognized("-="),
    }
}

/// `unrecognized flag --x`, with ripgrep's list of similar long names.
fn unrecognized(flag: &str) -> String {
    let mut msg = format!("unrecognized flag {flag}");
    if let Some(name) = flag.strip_prefix("--") {
        let similar = similar_names(name);
        if !similar.is_empty() {
            msg.push_str("\n\nsimilar flags that are available: ");
            msg.push_str(&similar.join(", "));
        }
    }
    msg
}

/// Long names whose 3-grams overlap `name`'s by at least 40% (the Jaccard
/// index ripgrep uses), as `--name`.
fn similar_names(name: &str) -> Vec<String> {
    let given = ngrams(name);
    let own: Vec<String> = Cli::command()
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .filter(|l| !RIPGREP_LONG_NAMES.contains(&l.as_str()))
        .collect();
    let all = RIPGREP_LONG_NAMES
        .iter()
        .copied()
        .chain(own.iter().map(String::as_str));
    all.filter(|cand| {
        let theirs = ngrams(cand);
        let inter = given.intersection(&theirs).count() as f64;
        let union = given.union(&theirs).count() as f64;
        inter / union >= 0.4
    })
    .map(|cand| format!("--{cand}"))
    .collect()
}

/// The 3-grams of a name, padded with `!` when shorter than three bytes.
fn ngrams(name: &str) -> BTreeSet<Vec<u8>> {
    let b = name.as_bytes();
    if b.len() < 3 {
        let mut padded = b.to_vec();
        padded.resize(3, b'!');
        return BTreeSet::from([padded]);
    }
    b.windows(3).map(<[u8]>::to_vec).collect()
}

/// The long names (the first, then its aliases) and the short name of the
/// flag clap names as `arg` (such as `--max-count <NUM>` or `-m <NUM>`).
fn flag_names(arg: &str) -> (Vec<String>, Option<char>) {
    let first = arg.split([' ', '=']).next().unwrap_or_default();
    let first = first.trim_end_matches("...");
    let cmd = Cli::command();
    let found = if let Some(long) = first.strip_prefix("--") {
        cmd.get_arguments().find(|a| a.get_long() == Some(long))
    } else {
        let short = first.strip_prefix('-').and_then(|s| s.chars().next());
        cmd.get_arguments()
            .find(|a| short.is_some() && a.get_short() == short)
    };
    match found {
        Some(a) => {
            let aliases = a.get_all_aliases().unwrap_or_default();
            let longs = a.get_long().into_iter().chain(aliases);
            (longs.map(str::to_string).collect(), a.get_short())
        }
        None => (
            first
                .strip_prefix("--")
                .map(str::to_string)
                .into_iter()
                .collect(),
            None,
        ),
    }
}

/// The flag as the user last spelled it (`-m`, `--max-count`, or an alias
/// such as `--maxdepth`); `longs` are its long names, the first the main one.
fn typed_flag(args: &[OsString], longs: &[&str], short: Option<char>) -> String {
    let mut typed = longs.first().map_or_else(
        || format!("-{}", short.unwrap_or('?')),
        |l| format!("--{l}"),
    );
    for arg in args.iter().map(|a| a.to_string_lossy()) {
        if arg == "--" {
            break;
        }
        if let Some(rest) = arg.strip_prefix("--") {
            let name = rest.split('=').next().unwrap_or_default();
            if longs.contains(&name) {
                typed = format!("--{name}");
            }
        } else if let (Some(cluster), Some(c)) = (arg.strip_prefix('-'), short)
            && cluster.contains(c)
        {
            typed = format!("-{c}");
        }
    }
    typed
}

/// Whether the last argument is `flag` itself, with no value attached
/// (`-e` or `-ne`, not `-e=`).
fn ends_with_flag(args: &[OsString], flag: &str) -> bool {
    let Some(last) = args.last().map(|a| a.to_string_lossy()) else {
        return false;
    };
    match flag.strip_prefix("--") {
        Some(_) => last == flag,
        None => last.starts_with('-') && !last.starts_with("--") && last.ends_with(&flag[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_follow_ripgrep_order() {
        assert_eq!(similar_names("colo"), ["--color", "--colors"]);
        assert!(similar_names("heding").is_empty());
    }
}
