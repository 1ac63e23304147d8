//! `-L` links to directories above a root, in the one-thread walk. The
//! `ignore` crate's parallel walk reports a link to any ancestor of its
//! root as a loop; its one-thread walk leaves loops to `walkdir`, which
//! knows only the directories inside the walk, and so follows such a link
//! once, walking everything above the root. ripgrep 15's one-thread walk
//! reports them as its parallel walk does: in the link's place in the walk,
//! whether or not ignore rules skip the link, and without entering it.
//! Here a filter keeps the walk out of such links ([`outside_loop`]), and
//! each directory the walk enters is listed for them, to report each one
//! between the entries it falls between ([`LoopCheck`]).

use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ignore::{DirEntry, Walk};

use crate::cli::config::Config;

type Entry = Result<DirEntry, ignore::Error>;

/// The walk's filter: false for a link, `depth` below its root, to a
/// directory above that root.
pub fn outside_loop(dent: &DirEntry) -> bool {
    !(dent.depth() > 0
        && dent.path_is_symlink()
        && root_ancestor(dent.path(), dent.depth()).is_some())
}

/// The directory above the walk's root that `link`, `depth` below that
/// root, leads to (as ripgrep names it: absolute, links resolved).
fn root_ancestor(link: &Path, depth: usize) -> Option<PathBuf> {
    let target = std::fs::metadata(link).ok().filter(|m| m.is_dir())?;
    let root = link.ancestors().nth(depth)?.canonicalize().ok()?;
    let same = |dir: &&Path| {
        std::fs::metadata(dir).is_ok_and(|m| (m.dev(), m.ino()) == (target.dev(), target.ino()))
    };
    root.ancestors().skip(1).find(same).map(Path::to_path_buf)
}

/// What the one-thread walk needs to report those links as ripgrep does.
#[derive(Clone, Copy, Debug)]
pub struct LoopCheck {
    follow: bool,
    max_depth: Option<usize>,
    one_file_system: bool,
    sorted: bool,
}

impl LoopCheck {
    pub fn of(cfg: &Config) -> LoopCheck {
        LoopCheck {
            follow: cfg.walk.follow,
            max_depth: cfg.walk.max_depth,
            one_file_system: cfg.walk.one_file_system,
            sorted: cfg.sort_path,
        }
    }

    /// The entries of `walk` (built with [`outside_loop`] as its filter),
    /// with those links reported in their places.
    pub fn entries(self, walk: Walk) -> Box<dyn Iterator<Item = Entry> + Send> {
        if !self.follow {
            return Box::new(walk);
        }
        Box::new(Reported {
            walk,
            check: self,
            open: Vec::new(),
            ready: VecDeque::new(),
            held: None,
        })
    }

    /// Whether the walk lists the directory `dent`.
    fn enters(self, dent: &DirEntry) -> bool {
        dent.file_type().is_some_and(|t| t.is_dir())
            && self.max_depth.is_none_or(|max| dent.depth() < max)
            && (!self.one_file_system || on_root_device(dent.path(), dent.depth()))
    }
}

/// Whether `dir`, `depth` below the walk's root, is on the root's file
/// system (`--one-file-system` enters no other).
fn on_root_device(dir: &Path, depth: usize) -> bool {
    let dev = |p: &Path| std::fs::metadata(p).map(|m| m.dev()).ok();
    depth == 0
        || dir
            .ancestors()
            .nth(depth)
            .is_some_and(|root| dev(root) == dev(dir))
}

/// A directory the walk is in that holds such links.
struct OpenDir {
    path: PathBuf,
    /// Its entries' names, in the walk's order.
    names: Vec<OsString>,
    /// The links, by their place in `names`, not yet reported.
    loops: VecDeque<(usize, ignore::Error)>,
}

/// The walk, with the loops of [`OpenDir`]s reported before the first
/// entry that comes after them.
struct Reported {
    walk: Walk,
    check: LoopCheck,
    /// Innermost last.
    open: Vec<OpenDir>,
    ready: VecDeque<ignore::Error>,
    /// An entry of the walk that waits for `ready`.
    held: Option<Entry>,
}

impl Iterator for Reported {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        if let Some(err) = self.ready.pop_front() {
            return Some(Err(err));
        }
        let entry = match self.held.take() {
            Some(entry) => entry,
            None => {
                let Some(entry) = self.walk.next() else {
                    self.release_all();
                    return self.ready.pop_front().map(Err);
                };
                self.release_before(entry_path(&entry));
                if !self.ready.is_empty() {
                    self.held = Some(entry);
                    return self.ready.pop_front().map(Err);
                }
                entry
            }
        };
        if let Ok(dent) = &entry {
            self.enter(dent);
        }
        Some(entry)
    }
}

impl Reported {
    /// Lists `dent` for links above the root when the walk will list it.
    fn enter(&mut self, dent: &DirEntry) {
        if !self.check.enters(dent) {
            return;
        }
        if let Some(dir) = open_dir(dent.path(), dent.depth() + 1, self.check.sorted) {
            self.open.push(dir);
        }
    }

    /// Readies the loops that come before `path` in the walk.
    fn release_before(&mut self, path: Option<&Path>) {
        let Some(path) = path else { return };
        while let Some(dir) = self.open.last_mut() {
            let child = path.strip_prefix(&dir.path).ok();
            let Some(name) = child.and_then(|c| c.components().next()) else {
                // The walk has left it.
                let dir = self.open.pop().expect("a last directory");
                self.ready.extend(dir.loops.into_iter().map(|(_, err)| err));
                continue;
            };
            let at = dir.names.iter().position(|n| n == name.as_os_str());
            let at = at.unwrap_or(0);
            while dir.loops.front().is_some_and(|(i, _)| *i < at) {
                let (_, err) = dir.loops.pop_front().expect("a front");
                self.ready.push_back(err);
            }
            return;
        }
    }

    fn release_all(&mut self) {
        while let Some(dir) = self.open.pop() {
            self.ready.extend(dir.loops.into_iter().map(|(_, err)| err));
        }
    }
}

/// `dir`'s entries and its links above the root (`depth` is theirs), when
/// it has any.
fn open_dir(dir: &Path, depth: usize, sorted: bool) -> Option<OpenDir> {
    let mut entries: Vec<(OsString, bool)> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_symlink())))
        .collect();
    if sorted {
        entries.sort();
    }
    let loops: VecDeque<(usize, ignore::Error)> = entries
        .iter()
        .enumerate()
        .filter(|(_, (_, link))| *link)
        .filter_map(|(i, (name, _))| {
            let child = dir.join(name);
            let ancestor = root_ancestor(&child, depth)?;
            let err = Box::new(ignore::Error::Loop { ancestor, child });
            Some((i, ignore::Error::WithDepth { depth, err }))
        })
        .collect();
    if loops.is_empty() {
        return None;
    }
    let names = entries.into_iter().map(|(name, _)| name).collect();
    Some(OpenDir {
        path: dir.to_path_buf(),
        names,
        loops,
    })
}

/// The path an entry or error of the walk is about, where it names one.
fn entry_path(entry: &Entry) -> Option<&Path> {
    match entry {
        Ok(dent) => Some(dent.path()),
        Err(err) => error_path(err),
    }
}

fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}
