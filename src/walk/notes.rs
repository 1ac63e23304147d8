//! The walk's messages held back for a search that takes the walk's files
//! in order some time after the walk found them (the device path, whose
//! walk runs ahead on its own thread). ripgrep prints a message when its
//! walk reaches the entry, after the files before it were searched: here
//! each is printed before the first file found after it, and the ones found
//! after the file that ended the search (`-q` once it matched, a closed
//! pipe) are dropped, as ripgrep's walk stops there.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::ignore_message;

/// One message of the walk.
pub struct Note {
    text: String,
    /// An error (`gsearch: ...`, exit status 2), else a message of the
    /// ignore rules (`--no-ignore-messages` silences those).
    error: bool,
}

impl Note {
    pub fn error(err: &dyn std::fmt::Display) -> Note {
        Note {
            text: err.to_string(),
            error: true,
        }
    }

    pub fn ignore(err: &dyn std::fmt::Display) -> Note {
        Note {
            text: err.to_string(),
            error: false,
        }
    }

    /// Prints the message now.
    pub fn say(self) {
        if self.error {
            crate::err_message!("{}", self.text);
        } else {
            ignore_message!("{}", self.text);
        }
    }
}

/// The messages waiting, each with the number of files the walk had sent
/// before it.
#[derive(Default)]
pub struct Notes {
    sent: AtomicU64,
    waiting: Mutex<VecDeque<(u64, Note)>>,
    /// How many wait: the search side takes no lock per file while none
    /// does (a message is counted before the file after it is sent).
    held: AtomicUsize,
}

impl Notes {
    /// The walk side: a message, after the files sent so far.
    pub fn hold(&self, note: Note) {
        let after = self.sent.load(Ordering::SeqCst);
        self.lock().push_back((after, note));
        self.held.fetch_add(1, Ordering::SeqCst);
    }

    /// The walk side: one more file sent.
    pub fn sent(&self) {
        self.sent.fetch_add(1, Ordering::SeqCst);
    }

    /// The search side, about to take file number `next` (from 0), or
    /// (`u64::MAX`) at the end: prints the messages found before it.
    pub fn before(&self, next: u64) {
        if self.held.load(Ordering::SeqCst) == 0 {
            return;
        }
        loop {
            let note = {
                let mut waiting = self.lock();
                match waiting.front() {
                    Some(&(after, _)) if after <= next => {
                        self.held.fetch_sub(1, Ordering::SeqCst);
                        waiting.pop_front()
                    }
                    _ => None,
                }
            };
            match note {
                Some((_, note)) => note.say(),
                None => return,
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, Note)>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}
