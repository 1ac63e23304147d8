//! [`FedMatcher`]: ripgrep's searcher printing the matching lines of one
//! big file while other threads are still finding them.
//!
//! Where one big file is split over the cores (`search::bigfile`), threads
//! find the matching lines of its segments and hand each segment's line
//! starts over in file order, through a bounded channel. ripgrep's searcher
//! runs on the calling thread over the whole map: its `find_candidate_line`
//! hook is answered from the starts received so far, and waits for the
//! next segment's only when none is left ahead of the searcher. So the
//! first lines leave as soon as the first segment is searched, the memory
//! held for order is bounded by the channel and the threads' lead, and a
//! search that stops early (a closed pipe, binary data) drops the matcher
//! and with it the channel, which stops the threads.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::mpsc::Receiver;

use grep_matcher::{ByteSet, LineMatchKind, Matcher, NoError};

use crate::matcher::wrap::{Wrapped, Wrapper};
use crate::sys::guard::{GuardedMap, RELEASE_STEP, Releaser};

/// Confirmed line starts of `map`, fed in file order while the searcher runs.
pub type FedMatcher<'a, M> = Wrapped<Fed<'a, M>>;

/// What [`FedMatcher`] keeps beside its inner matcher.
pub struct Fed<'a, M> {
    inner: M,
    map: &'a GuardedMap,
    feed: RefCell<Feed<'a>>,
}

/// The line starts received and not yet passed, and where more come from.
struct Feed<'a> {
    starts: VecDeque<u64>,
    /// `None` once every segment has been received.
    from: Option<Receiver<Vec<u64>>>,
    /// The pages the searcher has left behind go (context lines before
    /// the next match are read back from the page cache).
    released: Releaser<'a>,
}

impl<'a, M: Matcher<Error = NoError>> FedMatcher<'a, M> {
    /// `inner` decides everything but where the next matching line is;
    /// `from` sends, in file order, the starts of exactly the lines of
    /// `map` that `inner` matches, each segment's in one vector.
    pub fn new(inner: M, map: &'a GuardedMap, from: Receiver<Vec<u64>>) -> Self {
        Wrapped(Fed {
            inner,
            map,
            feed: RefCell::new(Feed {
                starts: VecDeque::new(),
                from: Some(from),
                released: Releaser::new(Some(map), 0),
            }),
        })
    }
}

impl Feed<'_> {
    /// The first start at or after `pos`, waiting for the segments that
    /// decide it; `None` past the last.
    fn next_from(&mut self, pos: u64) -> Option<u64> {
        loop {
            while self.starts.front().is_some_and(|&s| s < pos) {
                self.starts.pop_front();
            }
            if let Some(&s) = self.starts.front() {
                return Some(s);
            }
            match self.from.as_ref()?.recv() {
                Ok(more) => self.starts.extend(more),
                Err(_) => self.from = None,
            }
        }
    }
}

impl<M: Matcher<Error = NoError>> Wrapper for Fed<'_, M> {
    type Inner = M;

    fn inner(&self) -> &M {
        &self.inner
    }

    /// Not the inner matcher's set: this matcher answers with the
    /// [`Matcher`] default.
    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        None
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        let map = self.map.as_ptr_range();
        let hay = haystack.as_ptr_range();
        // The searcher hands over tails of the map; anything else (never
        // expected) is searched exactly.
        if hay.start < map.start || hay.end != map.end {
            return self.inner.find_candidate_line(haystack);
        }
        let pos = hay.start as usize - map.start as usize;
        let mut feed = self.feed.borrow_mut();
        feed.released.passed(pos.saturating_sub(RELEASE_STEP));
        let next = feed.next_from(pos as u64);
        Ok(next.map(|s| LineMatchKind::Confirmed(s as usize - pos)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grep_searcher::{Searcher, sinks::UTF8};
    use std::io::Write;

    /// Lines printed from starts fed in pieces, as they are fed.
    #[test]
    fn fed_starts_print_in_order_whatever_the_pieces() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut text = Vec::new();
        for i in 0..2000 {
            writeln!(text, "{}", if i % 3 == 0 { "foo" } else { "bar" }).unwrap();
        }
        f.write_all(&text).unwrap();
        f.flush().unwrap();
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        let m = crate::matcher::testing::line_matcher("foo");
        let starts: Vec<u64> = (0..2000u64).filter(|i| i % 3 == 0).map(|i| i * 4).collect();
        for piece in [1, 7, 1000, 5000] {
            let (tx, rx) = std::sync::mpsc::sync_channel(2);
            let chunks: Vec<Vec<u64>> = starts.chunks(piece).map(<[u64]>::to_vec).collect();
            let feeder = std::thread::spawn(move || {
                for c in chunks {
                    if tx.send(c).is_err() {
                        break;
                    }
                }
            });
            let fed = FedMatcher::new(&m, &map, rx);
            let mut lines = Vec::new();
            Searcher::new()
                .search_slice(
                    &fed,
                    &map,
                    UTF8(|n, l| {
                        lines.push((n, l.to_string()));
                        Ok(true)
                    }),
                )
                .unwrap();
            drop(fed);
            feeder.join().unwrap();
            assert_eq!(lines.len(), starts.len(), "piece {piece}");
            assert!(lines.iter().all(|(_, l)| l == "foo\n"));
            assert_eq!(lines[1].0, 4);
        }
    }
}
