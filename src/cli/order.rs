//! Flags whose meaning depends on the order they were given in, which
//! clap's typed fields lose, as in ripgrep, where the last flag wins:
//!
//! - the file type changes (`-t`, `-T`, `--type-add`, `--type-clear` apply
//!   one after another);
//! - the ignore, hidden and binary flags, each of which sets part of one
//!   state (`--no-ignore` turns off every kind of ignore file, `--ignore`
//!   turns them all back on, `--no-ignore-vcs` only git's, `-u` one level
//!   more each time), so `--no-ignore-vcs --ignore` respects git's ignore
//!   files and `--ignore --no-ignore-vcs` does not ([`Filters`]);
//! - `-p/--pretty`, ripgrep's alias for `--color always --heading
//!   --line-number`, wins over those flags (and their negations) given
//!   before it and loses to those given after it;
//! - `-P`, `--no-pcre2`, `--auto-hybrid-regex` and its negation against
//!   `--engine` (whose value may also come from `GSEARCH_ENGINE`);
//! - `-e` against `-f`: the patterns keep their flags' order.

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
    /// The ignore, hidden and binary flags applied in order.
    pub filters: Filters,
    /// The last flag given that picks what the run does (ids as in
    /// [`MODES`]): in ripgrep the last one wins, so `--files -c` counts.
    pub last_mode: Option<&'static str>,
    /// Where each pattern flag came from, in command-line order: `-e`
    /// (true) or `-f` (false). ripgrep keeps its patterns in that order,
    /// which decides which pattern's match wins at one start (`-o`,
    /// `--count-matches`, `-r`).
    pub pattern_flags: Vec<bool>,
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

/// How files that look binary are treated, as the last of `--binary`,
/// `--no-binary`, `-a`, `--no-text` and `-uuu` left it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BinaryFlag {
    #[default]
    Auto,
    SearchAndSuppress,
    AsText,
}

/// The state the ignore, hidden and binary flags build up, one flag after
/// another, as in ripgrep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    pub no_ignore_dot: bool,
    pub no_ignore_exclude: bool,
    pub no_ignore_global: bool,
    pub no_ignore_parent: bool,
    pub no_ignore_vcs: bool,
    pub hidden: bool,
    pub binary: BinaryFlag,
    /// How many `-u` were applied.
    unrestricted: u8,
}

/// The flags [`Filters`] is built from (clap ids).
const FILTER_FLAGS: [&str; 19] = [
    "unrestricted",
    "no_ignore",
    "ignore_on",
    "no_ignore_dot",
    "ignore_dot",
    "no_ignore_exclude",
    "ignore_exclude",
    "no_ignore_global",
    "ignore_global",
    "no_ignore_parent",
    "ignore_parent",
    "no_ignore_vcs",
    "ignore_vcs",
    "hidden",
    "no_hidden",
    "binary",
    "no_binary",
    "text",
    "no_text",
];

impl Filters {
    /// Applies the flags of `m` in the order they were given.
    fn from_matches(m: &ArgMatches) -> Filters {
        let mut given: Vec<(usize, &str)> = FILTER_FLAGS
            .iter()
            .flat_map(|id| all_indices(m, id).into_iter().map(move |i| (i, *id)))
            .collect();
        given.sort_unstable();
        let mut filters = Filters::default();
        for (_, id) in given {
            filters.apply(id);
        }
        filters
    }

    /// One flag's change (`id` as in [`FILTER_FLAGS`]).
    fn apply(&mut self, id: &str) {
        match id {
            "unrestricted" => self.unrestrict(),
            "no_ignore" => self.set_ignore_all(true),
            "ignore_on" => self.set_ignore_all(false),
            "hidden" => self.hidden = true,
            "no_hidden" => self.hidden = false,
            "binary" => self.binary = BinaryFlag::SearchAndSuppress,
            "text" => self.binary = BinaryFlag::AsText,
            "no_binary" | "no_text" => self.binary = BinaryFlag::Auto,
            _ => self.set_ignore_kind(id),
        }
    }

    /// `--no-ignore-KIND` or `--ignore-KIND` (dot, exclude, global, parent,
    /// vcs).
    fn set_ignore_kind(&mut self, id: &str) {
        let off = id.starts_with("no_");
        let kind = id.trim_start_matches("no_").trim_start_matches("ignore_");
        let field = match kind {
            "dot" => &mut self.no_ignore_dot,
            "exclude" => &mut self.no_ignore_exclude,
            "global" => &mut self.no_ignore_global,
            "parent" => &mut self.no_ignore_parent,
            _ => &mut self.no_ignore_vcs,
        };
        *field = off;
    }

    /// `-u`: ignore files off, then hidden files on, then binary files
    /// searched.
    fn unrestrict(&mut self) {
        self.unrestricted = self.unrestricted.saturating_add(1);
        match self.unrestricted {
            1 => self.set_ignore_all(true),
            2 => self.hidden = true,
            _ => self.binary = BinaryFlag::SearchAndSuppress,
        }
    }

    /// `--no-ignore` (true) or `--ignore` (false).
    fn set_ignore_all(&mut self, off: bool) {
        self.no_ignore_dot = off;
        self.no_ignore_exclude = off;
        self.no_ignore_global = off;
        self.no_ignore_parent = off;
        self.no_ignore_vcs = off;
    }
}

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
        WalkOrder {
            type_changes: changes.into_iter().map(|(_, c)| c).collect(),
            filters: Filters::from_matches(m),
            last_mode: last_given(m, &MODES),
            pattern_flags: pattern_flags(m),
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

/// Every place flag `id` was given on the command line.
fn all_indices(m: &ArgMatches, id: &str) -> Vec<usize> {
    if m.value_source(id) != Some(ValueSource::CommandLine) {
        return Vec::new();
    }
    m.indices_of(id).map(Iterator::collect).unwrap_or_default()
}

/// `-e` (true) and `-f` (false), in the order they were given.
fn pattern_flags(m: &ArgMatches) -> Vec<bool> {
    let mut at: Vec<(usize, bool)> = (all_indices(m, "regexp").into_iter().map(|i| (i, true)))
        .chain(all_indices(m, "file").into_iter().map(|i| (i, false)))
        .collect();
    at.sort_unstable();
    at.into_iter().map(|(_, e)| e).collect()
}

/// Which of `ids` was given last.
fn last_given(m: &ArgMatches, ids: &[&'static str]) -> Option<&'static str> {
    ids.iter()
        .filter_map(|id| Some((*id, last_index(m, id)?)))
        .max_by_key(|(_, i)| *i)
        .map(|(id, _)| id)
}
