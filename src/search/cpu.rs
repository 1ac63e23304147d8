//! The search loops: walk, search each haystack, print, and keep the
//! statistics. One thread when sorting or searching one file, a parallel
//! walk otherwise (each thread prints into its own buffer, written whole),
//! exactly as ripgrep schedules its work.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use grep_printer::Stats;
use grep_searcher::Searcher;
use ignore::WalkState;

use crate::cli::config::Config;
use crate::err_message;
use crate::matcher::plan::{Plan, Shape};
use crate::matcher::searcher::searcher;
use crate::output::printer::{Printer, SearchResult};
use crate::output::stats::{finish, keeps_stats};
use crate::output::writer::{buffer_writer, stdout};
use crate::search::haystack::{search_haystack, search_haystack_or};
use crate::walk;

/// Searches everything with the CPU engine. Returns whether any match was
/// found.
pub fn search_cpu(cfg: &Config, plan: &Plan) -> anyhow::Result<bool> {
    search_cpu_noted(cfg, plan, &[])
}

/// [`search_cpu`], with `notes` added to what `--stats` says (why `auto`
/// left the device off).
pub fn search_cpu_noted(cfg: &Config, plan: &Plan, notes: &[String]) -> anyhow::Result<bool> {
    if cfg.threads == 1 {
        search_sequential(cfg, plan, notes)
    } else if let Some(n) = widened_threads(cfg, plan) {
        search_parallel(
            &Config {
                threads: n,
                ..cfg.clone()
            },
            plan,
            notes,
        )
    } else {
        search_parallel(cfg, plan, notes)
    }
}

/// Every core, in place of ripgrep's default of at most 12 threads, when
/// the matcher rather than reading bounds the search: a large literal set
/// (the hashed finder), a regex without a literal, or a rule set. On the H100 machine's
/// 16 cores, the site-packages tree with 1,000 words took 240 ms on 12
/// threads and 195 ms on 16; with one literal, 106 and 103 ms.
fn widened_threads(cfg: &Config, plan: &Plan) -> Option<usize> {
    widened_to(cfg, plan, crate::sys::cores())
}

fn widened_to(cfg: &Config, plan: &Plan, cores: usize) -> Option<usize> {
    let heavy = plan.hashed.is_some() || plan.shape == Shape::Regex || plan.rules.is_some();
    (cfg.threads_default && heavy && cores > cfg.threads).then_some(cores)
}

/// One file: split over every core when it is big (`search::bigfile`),
/// else searched the usual way; and whether it was split. A file that is
/// read, not mapped, is offered after its first read, which says its size;
/// `rewind` drops what the split search wrote before it gave the file up
/// (a walker thread's buffer; without it, the split search writes nothing
/// it may have to take back).
fn search_file<W: termcolor::WriteColor>(
    cfg: &Config,
    plan: &Plan,
    (searcher, printer): (&mut Searcher, &mut Printer<W>),
    hay: &walk::Haystack,
    rewind: Option<fn(&mut W)>,
) -> (io::Result<SearchResult>, bool) {
    use crate::search::bigfile;
    let matcher = plan.search_matcher();
    if cfg.use_mmap {
        if let Some(r) = bigfile::search(cfg, searcher, printer, plan, hay, false) {
            return (r, true);
        }
        return (search_haystack(cfg, searcher, printer, matcher, hay), false);
    }
    let mut split = false;
    let mut big = |searcher: &mut Searcher, printer: &mut Printer<W>, size: u64| {
        if size < bigfile::split_from(plan) {
            return None;
        }
        let r = bigfile::search(cfg, searcher, printer, plan, hay, rewind.is_some());
        match (r, rewind) {
            (Some(r), _) => {
                split = true;
                Some(r)
            }
            (None, Some(rewind)) => {
                rewind(printer.get_mut());
                None
            }
            (None, None) => None,
        }
    };
    let r = search_haystack_or(cfg, (searcher, printer), matcher, hay, Some(&mut big));
    (r, split)
}

fn search_sequential(cfg: &Config, plan: &Plan, notes: &[String]) -> anyhow::Result<bool> {
    let started = Instant::now();
    let mut searcher = searcher(cfg);
    let mut printer = Printer::new(cfg, stdout(cfg));
    let mut stats = keeps_stats(cfg).then(Stats::new);
    let (mut matched, mut searched) = (false, false);
    let mut split_files = 0usize;
    for hay in walk::sequential(cfg)? {
        searched = true;
        let (result, split) = search_file(cfg, plan, (&mut searcher, &mut printer), &hay, None);
        split_files += usize::from(split);
        let result = match result {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break,
            Err(e) => {
                err_message!("{}: {}", hay.path.display(), e);
                continue;
            }
        };
        matched |= result.has_match;
        if let (Some(s), Some(r)) = (stats.as_mut(), result.stats.as_ref()) {
            *s += r;
        }
        if matched && cfg.quit_after_match {
            break;
        }
    }
    finish(
        cfg,
        searched,
        stats.as_ref(),
        started,
        printer.get_mut(),
        &[cpu_report(cfg, plan, split_files), notes.to_vec()].concat(),
    )?;
    Ok(matched)
}

fn search_parallel(cfg: &Config, plan: &Plan, notes: &[String]) -> anyhow::Result<bool> {
    let started = Instant::now();
    let bufwtr = buffer_writer(cfg);
    let stats = keeps_stats(cfg).then(|| Mutex::new(Stats::new()));
    let matched = AtomicBool::new(false);
    let searched = AtomicBool::new(false);
    let split_files = AtomicUsize::new(0);
    walk::walk_builder(cfg)?.build_parallel().run(|| {
        let (bufwtr, stats, matched, searched) = (&bufwtr, &stats, &matched, &searched);
        let split_files = &split_files;
        let mut searcher = searcher(cfg);
        let mut printer = Printer::new(cfg, bufwtr.buffer());
        Box::new(move |result| {
            let Some(hay) = walk::haystack(result, cfg.implicit_path) else {
                return WalkState::Continue;
            };
            // Here, about to open a file, the walker holds nothing open for
            // this thread (see `fdtable`).
            crate::sys::fdtable::own_table();
            searched.store(true, Ordering::SeqCst);
            printer.get_mut().clear();
            // A big file: every core on it, its output gathered in this
            // thread's buffer like any other's.
            let clear = Some(termcolor::Buffer::clear as fn(&mut termcolor::Buffer));
            let (result, split) =
                search_file(cfg, plan, (&mut searcher, &mut printer), &hay, clear);
            split_files.fetch_add(usize::from(split), Ordering::Relaxed);
            let result = match result {
                Ok(r) => r,
                // (A big file's threads saw the reader gone.)
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return WalkState::Quit,
                Err(e) => {
                    err_message!("{}: {}", hay.path.display(), e);
                    return WalkState::Continue;
                }
            };
            if result.has_match {
                matched.store(true, Ordering::SeqCst);
            }
            if let (Some(s), Some(r)) = (stats.as_ref(), result.stats.as_ref()) {
                *s.lock().unwrap() += r;
            }
            if let Err(e) = bufwtr.print(printer.get_mut()) {
                if e.kind() == io::ErrorKind::BrokenPipe {
                    return WalkState::Quit;
                }
                err_message!("{}: {}", hay.path.display(), e);
            }
            if matched.load(Ordering::SeqCst) && cfg.quit_after_match {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    let stats = stats.map(|s| s.into_inner().unwrap());
    let mut buf = bufwtr.buffer();
    finish(
        cfg,
        searched.load(Ordering::SeqCst),
        stats.as_ref(),
        started,
        &mut buf,
        &[
            cpu_report(cfg, plan, split_files.into_inner()),
            notes.to_vec(),
        ]
        .concat(),
    )?;
    let _ = bufwtr.print(&buf);
    Ok(matched.load(Ordering::SeqCst))
}

/// What `--stats` says about a CPU search.
fn cpu_report(cfg: &Config, plan: &Plan, split_files: usize) -> Vec<String> {
    let mut v = vec![
        format!(
            "engine: cpu, files searched by {}",
            crate::sys::count_of(cfg.threads, "thread")
        ),
        format!("patterns: {}", plan.describe()),
    ];
    if split_files > 0 {
        let cores = crate::sys::cores();
        v.push(format!(
            "{} ({} MiB or more) searched by {cores} threads, cut at line boundaries",
            crate::sys::count_of(split_files, "big file"),
            crate::search::bigfile::min_bytes(plan) >> 20
        ));
    }
    if cfg.engine == crate::cli::EngineArg::Opencl && cfg.input.needs_searcher() {
        v.push("-U, -E, -z or --pre: the CPU engine read and searched the input".into());
    } else if cfg.engine == crate::cli::EngineArg::Opencl && plan.pcre2.is_some() {
        v.push("PCRE2 runs on the CPU only: the CPU engine ran".into());
    } else if cfg.engine == crate::cli::EngineArg::Opencl && cfg.out.needs_cpu_searcher() {
        v.push("an option given (line endings, --passthru, --no-unicode, size limits...) is the CPU searcher's: the CPU engine ran".into());
    } else if cfg.engine == crate::cli::EngineArg::Opencl && plan.literals.is_none() {
        v.push("no literal for a device kernel: the CPU engine ran the regex".into());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(args: &[&str]) -> (Config, Plan) {
        let argv = std::iter::once("gsearch").chain(args.iter().copied());
        let cfg = Config::from_cli(<crate::cli::Cli as clap::Parser>::parse_from(argv)).unwrap();
        let plan = Plan::new(&cfg).unwrap();
        (cfg, plan)
    }

    #[test]
    fn cpu_bound_matchers_take_every_core_unless_told() {
        let dir = tempfile::tempdir().unwrap();
        let list = &crate::matcher::testing::word_list(dir.path(), "word", 300);
        let tree = dir.path().to_str().unwrap();
        let widened = |args: &[&str]| {
            let (cfg, plan) = setup(args);
            widened_to(&cfg, &plan, 16).map(|n| (cfg.threads, n))
        };
        assert_eq!(widened(&["-F", "-f", list, tree]).map(|w| w.1), Some(16));
        assert_eq!(widened(&[r"\w{5}\s+\w{5}", tree]).map(|w| w.1), Some(16));
        assert_eq!(widened(&["needle", tree]), None, "one literal");
        assert_eq!(widened(&["-j3", "-F", "-f", list, tree]), None, "-j given");
        assert_eq!(widened(&["-F", "-f", list, list]), None, "one file");
        assert_eq!(widened(&["--sort", "path", "-F", "-f", list, tree]), None);
    }
}
