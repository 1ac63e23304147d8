//! Flags whose meaning depends on where they stand among other flags, as
//! in ripgrep, where the last flag given wins:
//!
//! - `-p/--pretty`, ripgrep's alias for `--color always --heading
//!   --line-number`, wins over those flags (and their negations) given
//!   before it and loses to those given after it;
//! - `-P`, `--no-pcre2`, `--auto-hybrid-regex` and its negation against
//!   `--engine` (whose value may also come from `GSEARCH_ENGINE`).

use clap::ArgMatches;
use clap::parser::ValueSource;

use crate::cli::{Cli, ColorArg, EngineArg};

/// Resolves the flags above by position.
pub fn apply(cli: &mut Cli, matches: &ArgMatches) {
    apply_pretty(cli, matches);
    apply_engine(cli, matches);
}

fn apply_pretty(cli: &mut Cli, matches: &ArgMatches) {
    let Some(at) = cli.pretty.then(|| index(matches, "pretty")).flatten() else {
        return;
    };
    let later = |ids: &[&str]| ids.iter().any(|id| index(matches, id) > Some(at));
    if !later(&["color"]) {
        cli.color = Some(ColorArg::Always);
    }
    if !later(&["heading", "no_heading"]) {
        (cli.heading, cli.no_heading) = (true, false);
    }
    if !later(&["line_number", "no_line_number"]) {
        (cli.line_number, cli.no_line_number) = (true, false);
    }
}

/// The last of the engine flags wins; ripgrep's `--engine auto` on the
/// command line is `--auto-hybrid-regex`.
fn apply_engine(cli: &mut Cli, matches: &ArgMatches) {
    let flags = [
        "pcre2",
        "no_pcre2",
        "auto_hybrid_regex",
        "no_auto_hybrid_regex",
    ];
    let flag_at = flags.iter().filter_map(|id| index(matches, id)).max();
    let engine_at = index(matches, "engine");
    if engine_at.is_some() && engine_at > flag_at {
        cli.pcre2 = false;
        cli.auto_hybrid_regex = cli.engine == Some(EngineArg::Auto);
    } else if flag_at.is_some() && engine_at.is_some() {
        // A later flag replaces ripgrep's engine names; gsearch's own
        // (`cpu`, `opencl`) still say where the search runs.
        if matches!(
            cli.engine,
            Some(EngineArg::Pcre2 | EngineArg::Default | EngineArg::Auto)
        ) {
            cli.engine = None;
        }
    }
}

/// Where the flag `id` was last given, if on the command line.
fn index(matches: &ArgMatches, id: &str) -> Option<usize> {
    let from_argv = matches.value_source(id) == Some(ValueSource::CommandLine);
    from_argv.then(|| matches.indices_of(id)?.max()).flatten()
}
