//! A big file's candidate lines confirmed while its later chunks stream.
//!
//! The DFA kernels answer candidate lines, which the host confirms with the
//! exact matcher when the file's last chunk arrives (`device::Finisher`).
//! With the devices done by then, that confirmation followed the stream:
//! on 32.3 GB with 1,000 rules, 0.2-0.3 s on two H200s. Here every run of
//! [`CANDIDATES`] new candidates goes to a thread of the finisher's scope,
//! which confirms them in the file's map (the file the first chunk was read
//! from) while the devices go on; the finish then drops those whose lines
//! did not match and confirms only the rest. The offsets stay a superset
//! of the matching lines (a line this cannot decide is kept, see
//! `pipeline::lines::confirm`), so the finish's answer is unchanged.

use std::fs::File;
use std::ops::Range;
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use crate::matcher::plan::Plan;
use crate::sys::guard::GuardedMap;

/// Candidates handed to one thread at a time, at least.
const CANDIDATES: usize = 4096;

/// The confirmations of one big file's candidates so far, on threads of
/// the finisher's scope.
pub struct Early<'a, 's> {
    scope: &'s Scope<'s, 'a>,
    plan: &'a Plan,
    map: Arc<GuardedMap>,
    /// Candidates handed out so far (a prefix of the file's offsets).
    handed: usize,
    jobs: Vec<(Range<usize>, ScopedJoinHandle<'s, Vec<bool>>)>,
}

impl<'a, 's> Early<'a, 's> {
    /// Maps `file` to confirm its candidates in, on threads of `scope`;
    /// `None` when it cannot be mapped (the finish then confirms them all,
    /// as before).
    pub fn start(scope: &'s Scope<'s, 'a>, plan: &'a Plan, file: &File) -> Option<Self> {
        let map = GuardedMap::map(file).ok().flatten()?;
        Some(Early {
            scope,
            plan,
            map: Arc::new(map),
            handed: 0,
            jobs: Vec::new(),
        })
    }

    /// Hands the candidates after those handed so far (`offsets`: the
    /// file's, sorted) to a thread, once there are enough.
    pub fn hand(&mut self, offsets: &[u64]) {
        if offsets.len() < self.handed + CANDIDATES {
            return;
        }
        let range = self.handed..offsets.len();
        let mine = offsets[range.clone()].to_vec();
        let (map, plan) = (Arc::clone(&self.map), self.plan);
        let job = self.scope.spawn(move || {
            // A share of the cores: the fill threads feed the devices.
            let _share = crate::sys::CoreShare::take();
            let threads = (crate::sys::core_share() / 4).max(1);
            confirm_in(&map, &mine, plan, threads)
        });
        self.handed = range.end;
        self.jobs.push((range, job));
    }

    /// Waits for the confirmations and drops the candidates they rejected
    /// from `offsets`, and from `numbers` where it runs beside them (else
    /// `numbers`, incomplete and unused, is emptied); answers how many
    /// candidates were confirmed early. Nothing is dropped (and 0 answered)
    /// when the map faulted (the file shrank: the finish sees it too) or a
    /// thread failed.
    pub fn apply(self, offsets: &mut Vec<u64>, numbers: &mut Vec<u64>) -> u64 {
        let mut keep = vec![true; offsets.len()];
        for (range, job) in self.jobs {
            match job.join() {
                Ok(k) if k.len() == range.len() && range.end <= keep.len() => {
                    keep[range].copy_from_slice(&k);
                }
                _ => return 0,
            }
        }
        if self.map.faulted() {
            return 0;
        }
        if numbers.len() == offsets.len() {
            let mut k = keep.iter();
            numbers.retain(|_| *k.next().unwrap_or(&true));
        } else {
            numbers.clear();
        }
        let mut k = keep.iter();
        offsets.retain(|_| *k.next().unwrap_or(&true));
        self.handed as u64
    }
}

/// Which of the candidate lines at `offsets` (sorted) the plan's matcher
/// matches in `map`, on `threads` threads (`pipeline::lines::confirm`: a
/// line it cannot decide counts as matching); each piece's pages leave
/// the RSS once decided (candidates lie every few tens of KB, so they
/// would map in most of the file).
pub fn confirm_in(map: &GuardedMap, offsets: &[u64], plan: &Plan, threads: usize) -> Vec<bool> {
    let matcher = || plan.line_matcher();
    let release = |r: Range<usize>| map.release(r);
    crate::pipeline::lines::confirm(map, offsets, (true, true), threads, (&matcher, &release))
}
