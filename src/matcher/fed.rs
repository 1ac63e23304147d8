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
//!
//! Where the printer writes to standard output, it can be told what to do
//! while it waits ([`FedMatcher::idling`]): flush what is buffered, and
//! end the feed once nobody reads (a closed pipe).
//!
//! A segment the threads could not decide (a PCRE2 match error, read by
//! them as no match) ends the feed: from its start on, each line is
//! decided here by the inner matcher, as grep-searcher's line-by-line
//! search decides it, so the error is reported at the line where ripgrep
//! reports it, after the lines before it were printed.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Matcher};

use crate::matcher::behind::Trail;
use crate::matcher::lines::first_line_where;
use crate::matcher::wrap::{Wrapped, Wrapper};
use crate::sys::guard::GuardedMap;

/// Confirmed line starts of `map`, fed in file order while the searcher runs.
pub type FedMatcher<'a, M> = Wrapped<Fed<'a, M>>;

/// What [`FedMatcher`] keeps beside its inner matcher.
pub struct Fed<'a, M> {
    inner: M,
    /// How far the searcher has come; the pages it left behind go.
    trail: Trail<'a>,
    /// The line terminator the segments were decided with, if the
    /// searcher is to ask where the next matching line is (without one it
    /// decides each line itself).
    line_term: Option<LineTerminator>,
    /// Whether the starts fed are matching lines (else candidates, which
    /// the searcher decides with the inner matcher).
    confirmed: bool,
    /// Called before the searcher waits for the next segment, and every
    /// [`IDLE_TICK`] while it waits; false ends the feed (the output has
    /// gone).
    idle: Option<&'a dyn Fn() -> bool>,
    feed: RefCell<Feed>,
}

/// How often a waiting searcher calls its `idle` hook again.
const IDLE_TICK: Duration = Duration::from_millis(10);

/// One segment's answer, sent in file order.
pub enum Piece {
    /// The starts of the segment's matching lines (offsets in the map).
    Starts(Vec<u64>),
    /// The segment starting at this offset was not decided: from here on,
    /// each line is decided by the inner matcher.
    Undecided(u64),
}

/// The line starts received and not yet passed, and where more come from.
struct Feed {
    starts: VecDeque<u64>,
    /// `None` once every segment has been received.
    from: Option<Receiver<Piece>>,
    /// Where the lines no segment decided begin.
    undecided: Option<u64>,
}

impl<'a, M: Matcher> FedMatcher<'a, M> {
    /// `inner` decides everything but where the next matching line is;
    /// `from` sends, in file order, each segment's [`Piece`]: the starts of
    /// exactly the lines of `map` that `inner` matches, each line decided
    /// alone without its terminator `line_term`.
    pub fn new(
        inner: M,
        map: &'a GuardedMap,
        line_term: Option<LineTerminator>,
        from: Receiver<Piece>,
    ) -> Self {
        Wrapped(Fed {
            inner,
            trail: Trail::new(map),
            line_term,
            confirmed: true,
            idle: None,
            feed: RefCell::new(Feed {
                starts: VecDeque::new(),
                from: Some(from),
                undecided: None,
            }),
        })
    }
}

impl<'a, M> FedMatcher<'a, M> {
    /// The starts fed are candidate lines, which may not match (each is
    /// decided alone by the searcher, with the inner matcher): lines whose
    /// confirmation elsewhere was left undecided (too long) stay right.
    pub fn candidates(self) -> Self {
        Wrapped(Fed {
            confirmed: false,
            ..self.0
        })
    }

    /// `idle` is called where the searcher would wait for the next
    /// segment, and again every [`IDLE_TICK`] while it waits; once it
    /// returns false no more segments are taken, so the search ends there
    /// (the output has gone).
    pub fn idling(self, idle: &'a dyn Fn() -> bool) -> Self {
        Wrapped(Fed {
            idle: Some(idle),
            ..self.0
        })
    }
}

/// Where the next matching line is, as far as the feed knows.
enum Next {
    Start(u64),
    /// None before the lines no segment decided, which begin here.
    DecideFrom(u64),
    None,
}

impl Feed {
    /// The first start at or after `pos`, waiting for the segments that
    /// decide it.
    fn next_from(&mut self, pos: u64, idle: Option<&dyn Fn() -> bool>) -> Next {
        loop {
            while self.starts.front().is_some_and(|&s| s < pos) {
                self.starts.pop_front();
            }
            if let Some(&s) = self.starts.front() {
                return Next::Start(s);
            }
            if let Some(at) = self.undecided {
                return Next::DecideFrom(at.max(pos));
            }
            let Some(from) = self.from.as_ref() else {
                return Next::None;
            };
            match receive(from, idle) {
                Some(Piece::Starts(more)) => self.starts.extend(more),
                Some(Piece::Undecided(at)) => {
                    // No more from the threads: dropping the channel stops them.
                    (self.undecided, self.from) = (Some(at), None);
                }
                None => self.from = None,
            }
        }
    }
}

/// The next piece from `from`: at once where one is there, else waited for
/// with `idle` called first and every [`IDLE_TICK`]; `None` once the
/// channel is closed or `idle` returns false.
fn receive(from: &Receiver<Piece>, idle: Option<&dyn Fn() -> bool>) -> Option<Piece> {
    let Some(idle) = idle else {
        return from.recv().ok();
    };
    if let Ok(piece) = from.try_recv() {
        return Some(piece);
    }
    while idle() {
        match from.recv_timeout(IDLE_TICK) {
            Ok(piece) => return Some(piece),
            Err(RecvTimeoutError::Disconnected) => return None,
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
    None
}

impl<M: Matcher> Fed<'_, M> {
    /// The first line of `lines` (whole lines from the map) that the inner
    /// matcher matches without its terminator, as grep-searcher's
    /// line-by-line search decides lines: an error is returned where that
    /// search would meet it.
    fn decide(&self, lines: &[u8]) -> Result<Option<usize>, M::Error> {
        let term = self.line_term.map_or(b'\n', |t| t.as_byte());
        first_line_where(lines, term, |line| {
            Ok(self.inner.shortest_match(line)?.is_some())
        })
    }
}

impl<M: Matcher> Wrapper for Fed<'_, M> {
    type Inner = M;

    fn inner(&self) -> &M {
        &self.inner
    }

    /// Not the inner matcher's set: this matcher answers with the
    /// [`Matcher`] default.
    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        None
    }

    /// The segments' line terminator, so that grep-searcher asks
    /// [`Wrapper::find_candidate_line`] (PCRE2's matcher names none).
    fn line_terminator(&self) -> Option<LineTerminator> {
        self.line_term
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, M::Error> {
        // The searcher hands over tails of the map; anything else (never
        // expected) is searched exactly.
        let Some(pos) = self.trail.reached(haystack) else {
            return self.inner.find_candidate_line(haystack);
        };
        match self.feed.borrow_mut().next_from(pos as u64, self.idle) {
            Next::Start(s) if self.confirmed => {
                Ok(Some(LineMatchKind::Confirmed(s as usize - pos)))
            }
            Next::Start(s) => Ok(Some(LineMatchKind::Candidate(s as usize - pos))),
            Next::DecideFrom(at) => {
                let skip = at as usize - pos;
                let found = self.decide(&haystack[skip..])?;
                Ok(found.map(|i| LineMatchKind::Confirmed(skip + i)))
            }
            Next::None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grep_searcher::{Searcher, sinks::UTF8};
    use std::io::Write;
    use std::sync::mpsc::{Receiver, sync_channel};

    /// `text` in a mapped temporary file (kept alive beside the map).
    fn mapped(text: &[u8]) -> (tempfile::NamedTempFile, GuardedMap) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text).unwrap();
        f.flush().unwrap();
        let map = GuardedMap::map(f.as_file()).unwrap().unwrap();
        (f, map)
    }

    /// The lines (number, text) ripgrep's searcher reports for "foo" in
    /// `map`, fed from `rx`.
    fn search(map: &GuardedMap, rx: Receiver<Piece>) -> Vec<(u64, String)> {
        let m = crate::matcher::testing::line_matcher("foo");
        let fed = FedMatcher::new(&m, map, Some(LineTerminator::byte(b'\n')), rx);
        let mut lines = Vec::new();
        let sink = UTF8(|n, l| {
            lines.push((n, l.to_string()));
            Ok(true)
        });
        Searcher::new().search_slice(&fed, map, sink).unwrap();
        lines
    }

    /// Lines printed from starts fed in pieces, as they are fed.
    #[test]
    fn fed_starts_print_in_order_whatever_the_pieces() {
        let mut text = Vec::new();
        for i in 0..2000 {
            writeln!(text, "{}", if i % 3 == 0 { "foo" } else { "bar" }).unwrap();
        }
        let (_file, map) = mapped(&text);
        let starts: Vec<u64> = (0..2000u64).filter(|i| i % 3 == 0).map(|i| i * 4).collect();
        for piece in [1, 7, 1000, 5000] {
            let (tx, rx) = sync_channel(2);
            let chunks: Vec<Vec<u64>> = starts.chunks(piece).map(<[u64]>::to_vec).collect();
            let feeder = std::thread::spawn(move || {
                for c in chunks {
                    if tx.send(Piece::Starts(c)).is_err() {
                        break;
                    }
                }
            });
            let lines = search(&map, rx);
            feeder.join().unwrap();
            assert_eq!(lines.len(), starts.len(), "piece {piece}");
            assert!(lines.iter().all(|(_, l)| l == "foo\n"));
            assert_eq!(lines[1].0, 4);
        }
    }

    /// Candidate starts: only those whose lines match are reported.
    #[test]
    fn candidates_are_decided_by_the_searcher() {
        let (_file, map) = mapped(b"foo 1\nbar\nfoo 2\nbaz\n");
        let (tx, rx) = sync_channel(4);
        tx.send(Piece::Starts(vec![0, 6, 10, 16])).unwrap();
        drop(tx);
        let m = crate::matcher::testing::line_matcher("foo");
        let fed = FedMatcher::new(&m, &map, Some(LineTerminator::byte(b'\n')), rx).candidates();
        let mut numbers = Vec::new();
        let sink = UTF8(|n, _| {
            numbers.push(n);
            Ok(true)
        });
        Searcher::new().search_slice(&fed, &map, sink).unwrap();
        assert_eq!(numbers, [1, 3]);
    }

    /// Lines after an undecided segment are decided here, line by line.
    #[test]
    fn lines_after_an_undecided_segment_are_decided_here() {
        let (_file, map) = mapped(b"foo 1\nbar\nfoo 2\nbar foo\nfoo");
        let (tx, rx) = sync_channel(4);
        tx.send(Piece::Starts(vec![0])).unwrap();
        tx.send(Piece::Undecided(6)).unwrap();
        let numbers: Vec<u64> = search(&map, rx).iter().map(|l| l.0).collect();
        assert_eq!(numbers, [1, 3, 4, 5]);
    }

    /// The idle hook runs where the searcher waits, and false ends the
    /// feed: the lines fed before are reported, none after.
    #[test]
    fn the_idle_hook_runs_while_waiting_and_can_end_the_feed() {
        let (_file, map) = mapped(b"foo 1\nbar\nfoo 2\nfoo 3\n");
        // (A rendezvous: each send returns once the searcher has the piece.)
        let (tx, rx) = sync_channel(0);
        let (waited_tx, waited) = std::sync::mpsc::channel();
        let open = std::sync::atomic::AtomicBool::new(true);
        let idle = || {
            let _ = waited_tx.send(());
            open.load(std::sync::atomic::Ordering::SeqCst)
        };
        let m = crate::matcher::testing::line_matcher("foo");
        let fed = FedMatcher::new(&m, &map, Some(LineTerminator::byte(b'\n')), rx).idling(&idle);
        let mut numbers = Vec::new();
        let sink = UTF8(|n, _| {
            numbers.push(n);
            Ok(true)
        });
        std::thread::scope(|s| {
            let open = &open;
            s.spawn(move || {
                tx.send(Piece::Starts(vec![0])).unwrap();
                // The second piece once the searcher has waited for it;
                // then the output "goes", with line 4 never fed.
                // (Not called at all: this fails rather than hangs.)
                let ten = std::time::Duration::from_secs(10);
                waited.recv_timeout(ten).expect("the idle hook was called");
                tx.send(Piece::Starts(vec![10])).unwrap();
                open.store(false, std::sync::atomic::Ordering::SeqCst);
            });
            Searcher::new().search_slice(&fed, &map, sink).unwrap();
        });
        assert_eq!(numbers, [1, 3]);
    }
}
