//! Reading ahead of the searching threads on a file that is not in the
//! page cache.
//!
//! A map searched by page faults is read by the kernel's own readahead, a
//! window of `read_ahead_kb` per stream of faults; every thread then waits
//! on the disk with a shallow queue, and threads spread over the file make
//! the disk jump between them (the GPU machine, 7.67 GB cold: gsearch's
//! 16 segments 5.70 s, ripgrep's one stream 5.33 s). On a cold file the
//! threads instead take their pieces in file order (one front moving
//! forward), and [`ReadAhead::reached`] keeps the kernel reading a window
//! of [`window`] bytes past that front (`MADV_WILLNEED`: the reads are
//! queued, not waited for). The disk sees one sequential stream with many
//! requests in flight: a deep queue for an SSD, an ordered one for a
//! rotating disk. So the device's rotational flag is not asked: one front
//! in file order suits both kinds (and a virtual disk, such as the 2-core
//! development machine's virtio disk, calls itself rotational whatever is
//! behind it).
//! `bench/cold-reads.py` measures the ways of reading a cold file on a
//! machine; `bench/cold-compare.py` gsearch against ripgrep.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::sys::guard::GuardedMap;

/// The window past the front, unless `GSEARCH_READAHEAD_MIB` says otherwise.
pub const WINDOW_DEFAULT: usize = 128 << 20;
/// Hints smaller than this are not worth a system call (the last one of
/// the file may be).
const STEP: usize = 8 << 20;
/// Pages sampled to decide whether a file is in the page cache.
const PROBES: usize = 64;
/// A file with at least this share of its sampled pages in the page cache
/// is searched as it is, without read-ahead.
const WARM: f64 = 0.9;

/// The read-ahead window in bytes: [`WINDOW_DEFAULT`], or
/// `GSEARCH_READAHEAD_MIB` MiB, where 0 turns read-ahead off (benchmarks).
pub fn window() -> usize {
    static W: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *W.get_or_init(|| {
        std::env::var("GSEARCH_READAHEAD_MIB")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .map_or(WINDOW_DEFAULT, |m| m << 20)
    })
}

/// What the hints go to: the map being searched (`MADV_WILLNEED`), or the
/// file being read with `pread` (`POSIX_FADV_WILLNEED`, on a descriptor of
/// its own so that the hints can outlive the caller's borrow).
enum Target<'a> {
    Map(&'a GuardedMap),
    File(File),
}

/// Keeps the kernel reading ahead of one front of searching threads (see
/// the module's text).
pub struct ReadAhead<'a> {
    target: Target<'a>,
    len: usize,
    window: usize,
    /// How far the hints reach (bytes of the file).
    hinted: AtomicUsize,
}

impl<'a> ReadAhead<'a> {
    /// Read-ahead for a search through `map` when its file is cold (see
    /// [`is_cold`]); `None` for a warm file, or when read-ahead is off.
    pub fn cold(map: &'a GuardedMap) -> Option<ReadAhead<'a>> {
        is_cold(map).then(|| ReadAhead::new(Target::Map(map), map.len()))
    }

    fn new(target: Target<'a>, len: usize) -> ReadAhead<'a> {
        crate::sys::trace::mark("read-ahead: the file is not in the page cache");
        ReadAhead {
            target,
            len,
            window: window(),
            hinted: AtomicUsize::new(0),
        }
    }

    /// A searching thread is about to read from `at` on: hints the bytes up
    /// to `at + window` that no hint has covered yet, once they make at
    /// least a step (or reach the end). Threads may call this in any order.
    pub fn reached(&self, at: usize) {
        let target = at.saturating_add(self.window).min(self.len);
        let prev = self.hinted.load(Ordering::Relaxed);
        if target < self.len && target < prev + STEP {
            return;
        }
        let prev = self.hinted.fetch_max(target, Ordering::Relaxed);
        if target > prev {
            self.hint(prev.max(at)..target);
        }
    }

    fn hint(&self, range: std::ops::Range<usize>) {
        match &self.target {
            Target::Map(m) => m.will_need(range),
            // SAFETY: posix_fadvise only reads its integer arguments; the
            // descriptor is our own, open for as long as `self`. Errors
            // are ignored (only a hint).
            Target::File(f) => unsafe {
                libc::posix_fadvise(
                    f.as_raw_fd(),
                    range.start as libc::off_t,
                    range.len() as libc::off_t,
                    libc::POSIX_FADV_WILLNEED,
                );
            },
        }
    }
}

#[cfg(test)]
impl<'a> ReadAhead<'a> {
    /// Read-ahead on `map` whether its file is cold or not (tests of the
    /// cold paths on files that the page cache holds).
    pub(crate) fn forced(map: &'a GuardedMap) -> ReadAhead<'a> {
        ReadAhead::new(Target::Map(map), map.len())
    }
}

impl ReadAhead<'static> {
    /// Read-ahead for reads of `file` (its first `len` bytes) with `pread`,
    /// when it is cold; `None` for a warm file, when read-ahead is off, or
    /// when the file cannot be mapped to look (or its descriptor copied).
    pub fn cold_file(file: &File, len: usize) -> Option<ReadAhead<'static>> {
        let map = GuardedMap::map(file).ok().flatten()?;
        if !is_cold(&map) {
            return None;
        }
        let own = file.try_clone().ok()?;
        Some(ReadAhead::new(Target::File(own), len.min(map.len())))
    }
}

/// Whether read-ahead is on and `map`'s file is cold: big enough, and
/// fewer than 90% of 64 sampled pages in the page cache (`mincore`, a few
/// microseconds).
fn is_cold(map: &GuardedMap) -> bool {
    window() > 0 && map.len() >= 2 * STEP && map.resident_share(PROBES).is_some_and(|r| r < WARM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A freshly written file's pages are cached: no read-ahead. Hints
    /// reach the window past the front and never go back.
    #[test]
    fn warm_files_need_none_and_hints_only_advance() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![b'a'; 3 * STEP]).unwrap();
        f.flush().unwrap();
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        let _ = map.iter().map(|&b| b as u64).sum::<u64>();
        assert!(ReadAhead::cold(&map).is_none());
        assert!(ReadAhead::cold_file(f.as_file(), map.len()).is_none());
        let ra = ReadAhead {
            target: Target::Map(&map),
            len: map.len(),
            window: STEP,
            hinted: AtomicUsize::new(0),
        };
        ra.reached(0);
        assert_eq!(ra.hinted.load(Ordering::Relaxed), STEP);
        ra.reached(STEP / 2);
        assert_eq!(ra.hinted.load(Ordering::Relaxed), STEP);
        ra.reached(2 * STEP + 5);
        assert_eq!(ra.hinted.load(Ordering::Relaxed), 3 * STEP);
        ra.reached(0);
        assert_eq!(ra.hinted.load(Ordering::Relaxed), 3 * STEP);
    }
}
