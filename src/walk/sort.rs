//! `--sort` and `--sortr` beyond ascending path order (which the walk does
//! itself, directory by directory): the haystacks are collected and sorted,
//! by path descending or by a timestamp. Files whose timestamp cannot be
//! read come last (first when reversed); ties keep the walk's order.

use std::cmp::Ordering;
use std::fs::Metadata;
use std::time::SystemTime;

use crate::cli::SortArg;
use crate::cli::config::Config;
use crate::cli::walkcfg::WalkConfig;
use crate::walk::Haystack;

type Stamp = fn(&Metadata) -> std::io::Result<SystemTime>;

/// `haystacks` in the order `--sort`/`--sortr` ask for.
pub fn sort<'a>(
    cfg: &Config,
    haystacks: impl Iterator<Item = Haystack> + 'a,
) -> Box<dyn Iterator<Item = Haystack> + 'a> {
    let Some(sort) = cfg.walk.sort.filter(|_| !cfg.sort_path) else {
        return Box::new(haystacks);
    };
    let stamp: Stamp = match sort.key {
        SortArg::Path => {
            let mut all: Vec<Haystack> = haystacks.collect();
            all.sort_by(|a, b| b.path.cmp(&a.path));
            return Box::new(all.into_iter());
        }
        SortArg::Modified => Metadata::modified,
        SortArg::Accessed => Metadata::accessed,
        SortArg::Created => Metadata::created,
        SortArg::None => return Box::new(haystacks),
    };
    let mut stamped: Vec<(Haystack, Option<SystemTime>)> = haystacks
        .map(|h| {
            let t = h.path.metadata().and_then(|m| stamp(&m)).ok();
            (h, t)
        })
        .collect();
    stamped.sort_by(|(_, a), (_, b)| {
        let ord = compare(*a, *b);
        if sort.reverse { ord.reverse() } else { ord }
    });
    Box::new(stamped.into_iter().map(|(h, _)| h))
}

/// Known times in order, unknown ones after them.
fn compare(a: Option<SystemTime>, b: Option<SystemTime>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// ripgrep refuses a sort its platform cannot do, naming why.
pub fn check_supported(walk: &WalkConfig) -> anyhow::Result<()> {
    let Some(sort) = walk.sort else {
        return Ok(());
    };
    let (stamp, what): (Stamp, &str) = match sort.key {
        SortArg::Modified => (Metadata::modified, "last modified"),
        SortArg::Accessed => (Metadata::accessed, "last accessed"),
        SortArg::Created => (Metadata::created, "creation time"),
        SortArg::Path | SortArg::None => return Ok(()),
    };
    let got = std::env::current_exe()
        .and_then(|p| p.metadata())
        .and_then(|m| stamp(&m));
    match got {
        Ok(_) => Ok(()),
        Err(err) => anyhow::bail!("sorting by {what} isn't supported: {err}"),
    }
}
