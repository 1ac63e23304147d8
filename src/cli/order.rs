//! Flags whose meaning depends on the order they were given in, which
//! clap's typed fields lose: the file type changes (`-t`, `-T`,
//! `--type-add`, `--type-clear` apply one after another, as in ripgrep) and
//! the `-u` levels against the flags that undo them (`-u --ignore` respects
//! ignore files again, `--ignore -u` does not).

use clap::ArgMatches;
use clap::parser::ValueSource;

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
}

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
            .filter(|id| m.value_source(id) == Some(ValueSource::CommandLine))
            .filter_map(|id| Some((*id, m.indices_of(id)?.max()?)))
            .collect();
        WalkOrder {
            type_changes: changes.into_iter().map(|(_, c)| c).collect(),
            last,
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
