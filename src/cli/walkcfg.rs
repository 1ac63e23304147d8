//! The walking and filtering settings of [`Config`](crate::cli::config::Config)
//! that ripgrep 15 has beyond the basics: sorting, type changes, more
//! globs, size and file system limits, and each kind of ignore file.

use std::path::PathBuf;

use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};

use crate::cli::order::TypeChange;
use crate::cli::{Cli, SortArg};

/// How the files searched are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub key: SortArg,
    pub reverse: bool,
}

/// How much `--debug` / `--trace` print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Off,
    Debug,
    Trace,
}

/// Walk settings decided from the flags.
#[derive(Clone, Debug)]
pub struct WalkConfig {
    /// `--hidden` (or `-uu`), as the flags applied in order left it.
    pub hidden: bool,
    pub no_require_git: bool,
    /// `-g` globs.
    pub globs: Vec<String>,
    pub follow: bool,
    pub max_depth: Option<usize>,
    pub sort: Option<Sort>,
    pub type_changes: Vec<TypeChange>,
    pub iglobs: Vec<String>,
    pub glob_case_insensitive: bool,
    pub max_filesize: Option<u64>,
    pub one_file_system: bool,
    pub ignore_files: Vec<PathBuf>,
    pub ignore_file_case_insensitive: bool,
    pub no_ignore_dot: bool,
    pub no_ignore_exclude: bool,
    pub no_ignore_files: bool,
    pub no_ignore_global: bool,
    pub no_ignore_parent: bool,
    pub no_ignore_vcs: bool,
    pub log: LogLevel,
}

impl WalkConfig {
    /// Reads the walk flags (the ignore flags as `cli::order::Filters`
    /// applied them in order).
    pub fn from_cli(cli: &mut Cli) -> anyhow::Result<WalkConfig> {
        let filters = cli.walk_order.filters;
        Ok(WalkConfig {
            hidden: filters.hidden,
            no_require_git: cli.no_require_git,
            globs: std::mem::take(&mut cli.glob),
            follow: cli.follow,
            max_depth: cli.max_depth,
            sort: sort(cli),
            type_changes: std::mem::take(&mut cli.walk_order.type_changes),
            iglobs: std::mem::take(&mut cli.iglob),
            glob_case_insensitive: cli.glob_case_insensitive,
            max_filesize: max_filesize(cli.max_filesize.as_deref())?,
            one_file_system: cli.one_file_system,
            ignore_files: std::mem::take(&mut cli.ignore_file),
            ignore_file_case_insensitive: cli.ignore_file_case_insensitive,
            no_ignore_dot: filters.no_ignore_dot,
            no_ignore_exclude: filters.no_ignore_exclude,
            no_ignore_files: cli.no_ignore_files,
            no_ignore_global: filters.no_ignore_global,
            no_ignore_parent: filters.no_ignore_parent,
            no_ignore_vcs: filters.no_ignore_vcs,
            log: if cli.trace {
                LogLevel::Trace
            } else if cli.debug {
                LogLevel::Debug
            } else {
                LogLevel::Off
            },
        })
    }

    /// Sorting by path, ascending: the walk itself sorts each directory.
    pub fn sort_path(&self) -> bool {
        self.sort
            == Some(Sort {
                key: SortArg::Path,
                reverse: false,
            })
    }

    /// The types and globs the walk filters with, built once (see
    /// [`Filters`]). Without -t, -T or --type-* no type is selected, and the
    /// walker's types match nothing: building the defaults' globs (0.25 ms)
    /// is left out.
    pub fn filters(&self) -> anyhow::Result<Filters> {
        let types = (!self.type_changes.is_empty())
            .then(|| self.types())
            .transpose()?;
        Ok(Filters {
            types,
            overrides: self.overrides()?,
        })
    }

    /// `-g` globs (case-insensitive with `--glob-case-insensitive`), then
    /// `--iglob` globs, always case-insensitive.
    pub fn overrides(&self) -> anyhow::Result<Override> {
        if self.globs.is_empty() && self.iglobs.is_empty() {
            return Ok(Override::empty());
        }
        let mut b = OverrideBuilder::new(std::env::current_dir()?);
        b.case_insensitive(self.glob_case_insensitive)?;
        for g in &self.globs {
            b.add(g)?;
        }
        b.case_insensitive(true)?;
        for g in &self.iglobs {
            b.add(g)?;
        }
        Ok(b.build()?)
    }

    /// The file type matcher: ripgrep's default types, then `-t`, `-T`,
    /// `--type-add` and `--type-clear` in the order given.
    pub fn types(&self) -> anyhow::Result<Types> {
        let mut b = TypesBuilder::new();
        b.add_defaults();
        for change in &self.type_changes {
            match change {
                TypeChange::Select(t) => {
                    b.select(t);
                }
                TypeChange::Negate(t) => {
                    b.negate(t);
                }
                TypeChange::Clear(t) => {
                    b.clear(t);
                }
                TypeChange::Add(def) => b.add_def(def)?,
            }
        }
        Ok(b.build()?)
    }
}

/// The walk's file types (`None`: no type changes) and `-g`/`--iglob`
/// globs. ripgrep builds them before the `--pre-glob` globs and before it
/// compiles the patterns, so `Config::from_cli` builds them, and a bad one
/// is the error reported; the walkers take these.
#[derive(Clone, Debug)]
pub struct Filters {
    pub types: Option<Types>,
    pub overrides: Override,
}

/// `--sort`, `--sortr` and the deprecated `--sort-files` (the last given
/// wins, by clap's overrides); `none` means no sorting.
fn sort(cli: &Cli) -> Option<Sort> {
    let (key, reverse) = match (cli.sort, cli.sortr) {
        (Some(key), _) => (key, false),
        (None, Some(key)) => (key, true),
        (None, None) if cli.sort_files => (SortArg::Path, false),
        (None, None) => return None,
    };
    (key != SortArg::None).then_some(Sort { key, reverse })
}

/// `--max-filesize` with ripgrep's K, M and G suffixes.
fn max_filesize(value: Option<&str>) -> anyhow::Result<Option<u64>> {
    crate::cli::output_opts::human_size("--max-filesize", value)
}
