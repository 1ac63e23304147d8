//! The plan's exact matcher (grep-regex, configured as ripgrep configures
//! it), compiled on its own thread while the rest of the run starts.

use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use grep_regex::RegexMatcher;
use thread_local::ThreadLocal;

/// The plan's regex, compiled on its own thread. Searches wait for it
/// only where they use it: a big literal set that the hashed finder answers
/// by itself (every pattern its own literal, case-sensitive) needs it for
/// captures and `--verify` alone, and its automaton of 100,000 words takes
/// most of a second to build.
///
/// Each thread searches with its own clone ([`Regex::get`]): a clone has
/// its own pool of search caches, which the thread then owns. Shared, one
/// thread owned the pool and every other took its caches from the pool's
/// locked stacks on each call (ripgrep gives each thread its own matcher
/// the same way).
pub struct Regex {
    cell: OnceLock<RegexMatcher>,
    pending: Mutex<Option<Background<anyhow::Result<RegexMatcher>>>>,
    clones: ThreadLocal<RegexMatcher>,
}

/// A value being built on its own thread (or already built on the calling
/// thread, when no thread could be started).
pub(super) enum Background<T> {
    Thread(JoinHandle<T>),
    Done(T),
}

impl<T: Send + 'static> Background<T> {
    /// `work` on a thread named `name`; `inline` on this thread if no
    /// thread can be started (it computes the same from borrowed inputs,
    /// since `work` is gone with the failed spawn).
    pub(super) fn spawn(
        name: &str,
        work: impl FnOnce() -> T + Send + 'static,
        inline: impl FnOnce() -> T,
    ) -> Background<T> {
        match std::thread::Builder::new().name(name.into()).spawn(work) {
            Ok(h) => Background::Thread(h),
            Err(_) => Background::Done(inline()),
        }
    }

    pub(super) fn join(self) -> anyhow::Result<T> {
        match self {
            Background::Done(v) => Ok(v),
            Background::Thread(h) => h
                .join()
                .map_err(|_| anyhow::anyhow!("a plan-building thread failed")),
        }
    }
}

impl Regex {
    pub(super) fn new(c: Background<anyhow::Result<RegexMatcher>>) -> Regex {
        Regex {
            cell: OnceLock::new(),
            pending: Mutex::new(Some(c)),
            clones: ThreadLocal::new(),
        }
    }

    /// Waits for the compiler thread; its error, if compiling failed.
    pub(super) fn wait(&self) -> anyhow::Result<()> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(pending) = pending else {
            return Ok(());
        };
        let m = pending.join()??;
        let _ = self.cell.set(m);
        Ok(())
    }

    /// The matcher, waiting for it if need be. A regex left compiling past
    /// [`PendingPlan::finish`](super::plan::PendingPlan::finish) is an alternation of plain case-sensitive
    /// literals, which regex-automata builds as a literal searcher without
    /// the size-limited automata, so it cannot fail; were it to, the error
    /// is reported and the process ends with status 2, as for a bad
    /// pattern.
    pub fn get(&self) -> &RegexMatcher {
        self.clones.get_or(|| self.compiled().clone())
    }

    /// The compiled matcher (see [`Regex::get`]).
    fn compiled(&self) -> &RegexMatcher {
        if let Some(m) = self.cell.get() {
            return m;
        }
        if let Err(e) = self.wait() {
            crate::err_message!("{e}");
            std::process::exit(2);
        }
        match self.cell.get() {
            Some(m) => m,
            // Its compile failed before (and was reported then).
            None => std::process::exit(2),
        }
    }

    /// Whether the regex is compiled already (nothing left to wait for).
    pub fn is_compiled(&self) -> bool {
        self.cell.get().is_some()
    }
}
