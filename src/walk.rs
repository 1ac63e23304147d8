//! Which files are searched: the recursive walk (ignore rules, hidden files,
//! globs, types) and the rules that turn a directory entry into a haystack.

use std::path::{Path, PathBuf};

use ignore::{DirEntry, WalkBuilder};

use crate::cli::Cli;
use crate::cli::config::Config;
use crate::cli::walkcfg::WalkConfig;
use crate::ignore_message;

mod loops;
mod notes;
mod sort;

pub use loops::LoopCheck;
pub use notes::{Note, Notes};

/// Something to search: a file or standard input.
#[derive(Clone, Debug)]
pub struct Haystack {
    /// The path as printed.
    pub path: PathBuf,
    /// Given on the command line (not found by walking a directory).
    pub explicit: bool,
    pub stdin: bool,
}

/// Builds the walker, as ripgrep configures it.
pub fn walk_builder(cfg: &Config) -> anyhow::Result<WalkBuilder> {
    sort::check_supported(&cfg.walk)?;
    // The types and globs were built with the configuration, before the
    // walker reads the --ignore-files, as ripgrep orders them.
    let filters = &cfg.filters;
    let mut b = WalkBuilder::new(&cfg.paths[0]);
    for p in &cfg.paths[1..] {
        b.add(p);
    }
    let w = &cfg.walk;
    if !w.no_ignore_files {
        for path in &w.ignore_files {
            if let Some(err) = b.add_ignore(path) {
                ignore_message!("{err}");
            }
        }
    }
    b.max_depth(w.max_depth)
        .follow_links(w.follow)
        .max_filesize(w.max_filesize)
        .threads(cfg.threads)
        .same_file_system(w.one_file_system)
        .skip_stdout(true)
        .overrides(filters.overrides.clone())
        .hidden(!w.hidden)
        .parents(!w.no_ignore_parent)
        .ignore(!w.no_ignore_dot)
        .git_global(!w.no_ignore_vcs && !w.no_ignore_global)
        .git_ignore(!w.no_ignore_vcs)
        .git_exclude(!w.no_ignore_vcs && !w.no_ignore_exclude)
        .require_git(!w.no_require_git)
        .ignore_case_insensitive(w.ignore_file_case_insensitive);
    if !w.no_ignore_dot {
        b.add_custom_ignore_filename(".rgignore");
    }
    if cfg.sort_path {
        b.sort_by_file_name(|a, b| a.cmp(b));
    }
    if w.follow {
        b.filter_entry(loops::outside_loop);
    }
    if let Some(types) = &filters.types {
        b.types(types.clone());
    }
    Ok(b)
}

/// The haystacks of a one-thread walk, in `--sort`/`--sortr` order.
pub fn sequential(cfg: &Config) -> anyhow::Result<Box<dyn Iterator<Item = Haystack> + '_>> {
    Ok(ordered(cfg, &walk_builder(cfg)?))
}

/// [`sequential`] with the walker already built.
fn ordered<'a>(cfg: &'a Config, builder: &WalkBuilder) -> Box<dyn Iterator<Item = Haystack> + 'a> {
    if let Some(files) = regular_files(&cfg.paths) {
        return sort::sort(cfg, files.into_iter());
    }
    let haystacks = LoopCheck::of(cfg)
        .entries(builder.build())
        .filter_map(|r| haystack(r, cfg.implicit_path));
    sort::sort(cfg, haystacks)
}

/// When every path given is a regular file (after symbolic links), their
/// haystacks, as the walker would yield them: it never skips a path given
/// (ignore files, globs, types and size limits apply below them only).
/// Its build, which reads the git configuration for a global ignore file
/// and compiles that file's globs (0.45 ms of a one-file search's 3 ms),
/// is left out; [`walk_builder`] has still checked the flags and reported
/// unreadable `--ignore-file`s, as ripgrep does. `None` otherwise
/// (directories, standard input, devices, paths that cannot be read: the
/// walker's answers and messages for those).
fn regular_files(paths: &[PathBuf]) -> Option<Vec<Haystack>> {
    paths
        .iter()
        .map(|p| {
            let file = p != Path::new("-") && std::fs::metadata(p).is_ok_and(|m| m.is_file());
            file.then(|| Haystack {
                path: p.clone(),
                explicit: true,
                stdin: false,
            })
        })
        .collect()
}

/// Whether the walk would say nothing about explicit regular files: no
/// `--ignore-file` to read (and report) and a supported sort (its types
/// and globs built with the configuration). Only then may a driver search
/// such files without building the walk ([`walk_builder`] reports what
/// this leaves out).
pub fn silent_for_files(cfg: &Config) -> bool {
    let w = &cfg.walk;
    (w.ignore_files.is_empty() || w.no_ignore_files) && sort::check_supported(w).is_ok()
}

/// For drivers that walk on a thread of their own: the haystacks of
/// `builder` (from [`walk_builder`], which reported its ignore files'
/// problems once), already in order, when `--sort`/`--sortr` must see them
/// all before the first is searched (`None` otherwise).
pub fn presorted(cfg: &Config, builder: &WalkBuilder) -> Option<Vec<Haystack>> {
    if cfg.walk.sort.is_none() || cfg.sort_path {
        return None;
    }
    Some(ordered(cfg, builder).collect())
}

/// Prints `--type-list`: every type with its globs, after any
/// `--type-add` and `--type-clear`. ripgrep checks the sort, then builds
/// the types, the globs and the `--pre-glob` globs before it chooses what
/// to run: the first that fails is reported and nothing is printed.
pub fn type_list(cli: &mut Cli, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    let walk = WalkConfig::from_cli(cli)?;
    sort::check_supported(&walk)?;
    let types = walk.types()?;
    walk.overrides()?;
    crate::cli::input::pre_globs(&cli.pre_glob)?;
    for def in types.definitions() {
        writeln!(out, "{}: {}", def.name(), def.globs().join(", "))?;
    }
    Ok(())
}

/// Turns a walk result into a haystack, reporting errors, and skipping
/// directories and (when found by walking) anything that is not a file.
pub fn haystack(
    result: Result<DirEntry, ignore::Error>,
    strip_dot_prefix: bool,
) -> Option<Haystack> {
    haystack_noting(result, strip_dot_prefix, &mut Note::say)
}

/// [`haystack`], its messages handed to `note` (see [`Notes`]).
pub fn haystack_noting(
    result: Result<DirEntry, ignore::Error>,
    strip_dot_prefix: bool,
    note: &mut dyn FnMut(Note),
) -> Option<Haystack> {
    let dent = match result {
        Ok(d) => d,
        Err(err) => {
            note(Note::error(&err));
            return None;
        }
    };
    if let Some(err) = dent.error() {
        note(Note::ignore(err));
    }
    let is_dir = dent.file_type().is_some_and(|t| t.is_dir())
        || (dent.path_is_symlink() && dent.path().is_dir());
    let explicit = dent.is_stdin() || (dent.depth() == 0 && !is_dir);
    let is_file = dent.file_type().is_some_and(|t| t.is_file());
    if !explicit && !is_file {
        return None;
    }
    let path = if strip_dot_prefix && dent.path().starts_with("./") {
        dent.path().strip_prefix("./").unwrap_or(dent.path())
    } else {
        dent.path()
    };
    Some(Haystack {
        path: path.to_path_buf(),
        explicit,
        stdin: dent.is_stdin(),
    })
}

/// `--files`: prints every path that would be searched. Returns whether
/// any was printed.
pub fn list_files(cfg: &Config) -> anyhow::Result<bool> {
    if cfg.threads > 1 {
        return list_files_parallel(cfg);
    }
    let paths = sequential(cfg)?.map(|hay| hay.path);
    Ok(print_paths(cfg, paths)?)
}

/// Prints `paths` as `--files` does; a closed pipe ends it without error.
/// Returns whether any path came.
fn print_paths(cfg: &Config, paths: impl IntoIterator<Item = PathBuf>) -> std::io::Result<bool> {
    // ripgrep's default colours: the paths in magenta.
    let colors = grep_printer::ColorSpecs::new(&grep_printer::default_color_specs());
    let mut printer = grep_printer::PathPrinterBuilder::new()
        .color_specs(colors)
        .terminator(if cfg.null { b'\x00' } else { b'\n' })
        .color_specs(cfg.out.colors.clone())
        .hyperlink(cfg.out.hyperlink.clone())
        .separator(cfg.out.path_separator)
        .build(crate::output::writer::stdout(cfg));
    let mut any = false;
    for path in paths {
        any = true;
        if cfg.quit_after_match {
            // `-q`: the first path settles the exit status; none is printed.
            break;
        }
        match printer.write(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            r => r?,
        }
    }
    Ok(any)
}

/// [`list_files`] on several threads, as ripgrep lists files: the walk's
/// threads send paths to one printing thread (so the order varies from run
/// to run, as ripgrep's does; `--sort path` walks on one thread).
fn list_files_parallel(cfg: &Config) -> anyhow::Result<bool> {
    let (tx, rx) = crossbeam_channel::bounded::<PathBuf>(1024);
    let walker = walk_builder(cfg)?.build_parallel();
    std::thread::scope(|s| {
        // On an error the printer returns, its end of the channel goes, and
        // the walk's next send fails and stops it.
        let print = s.spawn(move || print_paths(cfg, rx));
        walker.run(|| {
            let tx = tx.clone();
            Box::new(
                move |r| match haystack(r, cfg.implicit_path).map(|hay| tx.send(hay.path)) {
                    Some(Err(_)) => ignore::WalkState::Quit,
                    _ => ignore::WalkState::Continue,
                },
            )
        });
        drop(tx);
        Ok(print.join().expect("the path printer does not panic")?)
    })
}

/// The total size of the paths given when every one is a regular file
/// (`None` otherwise): the input size `auto` weighs.
pub fn explicit_bytes(paths: &[PathBuf]) -> Option<u64> {
    let mut total = 0;
    for p in paths {
        let m = std::fs::metadata(p).ok()?;
        if !m.is_file() {
            return None;
        }
        total += m.len();
    }
    Some(total)
}
