//! Which files are searched: the recursive walk (ignore rules, hidden files,
//! globs, types) and the rules that turn a directory entry into a haystack.

use std::path::PathBuf;

use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::{DirEntry, WalkBuilder};

use crate::cli::config::Config;
use crate::ignore_message;

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
    let mut b = WalkBuilder::new(&cfg.paths[0]);
    for p in &cfg.paths[1..] {
        b.add(p);
    }
    let on = !cfg.no_ignore;
    b.max_depth(cfg.max_depth)
        .follow_links(cfg.follow)
        .threads(cfg.threads)
        .skip_stdout(true)
        .overrides(overrides(cfg)?)
        .types(types(cfg)?)
        .hidden(!cfg.hidden)
        .parents(on)
        .ignore(on)
        .git_global(on)
        .git_ignore(on)
        .git_exclude(on)
        .require_git(!cfg.no_require_git);
    if on {
        b.add_custom_ignore_filename(".rgignore");
    }
    if cfg.sort_path {
        b.sort_by_file_name(|a, b| a.cmp(b));
    }
    Ok(b)
}

fn overrides(cfg: &Config) -> anyhow::Result<ignore::overrides::Override> {
    if cfg.globs.is_empty() {
        return Ok(ignore::overrides::Override::empty());
    }
    let mut b = OverrideBuilder::new(std::env::current_dir()?);
    for g in &cfg.globs {
        b.add(g)?;
    }
    Ok(b.build()?)
}

/// The file type matcher: ripgrep's default types plus `-t`/`-T`.
pub fn types(cfg: &Config) -> anyhow::Result<ignore::types::Types> {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    for t in &cfg.types {
        b.select(t);
    }
    for t in &cfg.types_not {
        b.negate(t);
    }
    Ok(b.build()?)
}

/// Prints `--type-list`: every type with its globs.
pub fn type_list(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    for def in b.definitions() {
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
    let dent = match result {
        Ok(d) => d,
        Err(err) => {
            crate::err_message!("{err}");
            return None;
        }
    };
    if let Some(err) = dent.error() {
        ignore_message!("{err}");
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
    let paths = walk_builder(cfg)?
        .build()
        .filter_map(|r| haystack(r, cfg.implicit_path))
        .map(|hay| hay.path);
    Ok(print_paths(cfg, paths)?)
}

/// Prints `paths` as `--files` does; a closed pipe ends it without error.
/// Returns whether any path came.
fn print_paths(cfg: &Config, paths: impl IntoIterator<Item = PathBuf>) -> std::io::Result<bool> {
    let mut printer = grep_printer::PathPrinterBuilder::new()
        .terminator(if cfg.null { b'\x00' } else { b'\n' })
        .color_specs(cfg.out.colors.clone())
        .hyperlink(cfg.out.hyperlink.clone())
        .separator(cfg.out.path_separator)
        .build(crate::output::writer::stdout(cfg));
    let mut any = false;
    for path in paths {
        any = true;
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
