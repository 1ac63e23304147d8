//! Flags whose meaning depends on the order they were given in, which
//! clap's typed fields lose, as in ripgrep, where the last flag wins:
//!
//! - the file type changes (`-t`, `-T`, `--type-add`, `--type-clear` apply
//!   one after another) and the `-u` levels against the flags that undo
//!   them (`-u --ignore` respects ignore files again, `--ignore -u` does
//!   not);
//! - `-p/--pretty`, ripgrep's alias for `--color always --heading
//!   --line-number`, wins over those flags (and their negations) given
//!   before it and loses to those given after it;
//! - `-P`, `--no-pcre2`, `--auto-hybrid-regex` and its negation against
//!   `--engine` (whose value may also come from `GSEARCH_ENGINE`).

use clap::ArgMatches;
use clap::parser::ValueSource;

use crate::cli::{Cli, ColorArg, EngineArg};

/// One change to the file type matcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeChange {
    Select(String),
    Negate(String),
    Add(String),
    Clear(String),
}

type MakeChange = fn(String) -> TypeChange;

/// The order-sensitive flags of one command line.
#[derive(Clone, Debug, Default)]
pub struct WalkOrder {
    pub type_changes: Vec<TypeChange>,
    /// The index of the last occurrence of each flag that `-u` interacts
    /// with (ids as in [`ORDERED`]).
    last: Vec<(&'static str, usize)>,
    /// The last flag given that picks what the run does (ids as in
    /// [`MODES`]): in ripgrep the last one wins, so `--files -c` counts.
    pub last_mode: Option<&'static str>,
}

/// Flags that set ripgrep's mode: listing files, listing types,
/// generating, or one of the search modes.
const MODES: [&str; 8] = [
    "files",
    "type_list",
    "generate",
    "count",
    "count_matches",
    "files_with_matches",
    "files_without_match",
    "json",
];

/// Flags whose last position is kept.
const ORDERED: [&str; 9] = [
    "unrestricted",
    "no_ignore",
    "ignore_on",
    "hidden",
    "no_hidden",
    "binary",
    "no_binary",
    "text",
    "no_text",
];

impl WalkOrder {
    /// Reads the positions out of parsed matches.
    pub fn from_matches(m: &ArgMatches) -> WalkOrder {
        let mut changes: Vec<(usize, TypeChange)> = Vec::new();
        let kinds: [(&str, MakeChange); 4] = [
            ("type_", TypeChange::Select),
            ("type_not", TypeChange::Negate),
            ("type_add", TypeChange::Add),
            ("type_clear", TypeChange::Clear),
        ];
        for (id, make) in kinds {
            let (Some(idx), Some(vals)) = (m.indices_of(id), m.get_many::<String>(id)) else {
                continue;
            };
            changes.extend(idx.zip(vals).map(|(i, v)| (i, make(v.clone()))));
        }
        changes.sort_by_key(|(i, _)| *i);
        let last = ORDERED
            .iter()
            .filter_map(|id| Some((*id, last_index(m, id)?)))
            .collect();
        WalkOrder {
            type_changes: changes.into_iter().map(|(_, c)| c).collect(),
            last,
            last_mode: last_given(m, &MODES),
        }
    }

    /// Settles the mode flags as ripgrep does: the last given wins, so the
    /// other modes' flags are cleared.
    pub fn settle_mode(&self, cli: &mut crate::cli::Cli) {
        let Some(mode) = self.last_mode else { return };
        if mode != "files" {
            cli.files = false;
        }
        if mode != "type_list" {
            cli.type_list = false;
        }
        if mode != "generate" {
            cli.generate = None;
        }
    }

    /// Whether flag `a` was given after every occurrence of flag `b` (and
    /// `a` was given at all).
    pub fn after(&self, a: &str, b: &str) -> bool {
        let pos = |id: &str| self.last.iter().find(|(k, _)| *k == id).map(|(_, i)| *i);
        match (pos(a), pos(b)) {
            (Some(a), Some(b)) => a > b,
            (Some(_), None) => true,
            _ => false,
        }
    }
}

/// Resolves `-p` and the engine flags by position (see the module docs).
pub fn apply(cli: &mut Cli, matches: &ArgMatches) {
    apply_pretty(cli, matches);
    apply_engine(cli, matches);
}

fn apply_pretty(cli: &mut Cli, matches: &ArgMatches) {
    let Some(at) = cli.pretty.then(|| last_index(matches, "pretty")).flatten() else {
        return;
    };
    let later = |ids: &[&str]| ids.iter().any(|id| last_index(matches, id) > Some(at));
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
    let flag_at = flags.iter().filter_map(|id| last_index(matches, id)).max();
    let engine_at = last_index(matches, "engine");
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

/// Where flag `id` was last given on the command line.
fn last_index(m: &ArgMatches, id: &str) -> Option<usize> {
    if m.value_source(id) != Some(ValueSource::CommandLine) {
        return None;
    }
    m.indices_of(id)?.max()
}

/// Which of `ids` was given last.
fn last_given(m: &ArgMatches, ids: &[&'static str]) -> Option<&'static str> {
    ids.iter()
        .filter_map(|id| Some((*id, last_index(m, id)?)))
        .max_by_key(|(_, i)| *i)
        .map(|(id, _)| id)
}
