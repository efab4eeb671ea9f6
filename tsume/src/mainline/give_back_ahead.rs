//! A second core for the futility tests: the give-back searches run ahead on a helper
//! thread.
//!
//! Under [`crate::FutileRule::AnyLength`] a drop is futile when the position with the
//! dropped piece taken and given back is mated at any length, which a df-pn search with
//! a node budget decides ([`super::bounded`]'s `give_back_searched`). Those searches took
//! a quarter to a third of the main line's time on Zuko 77 and Muso 31, most of it on
//! positions that stay undecided within the budget. Each give-back position is known as
//! soon as the bounded search makes the futility test's node, before it asks the
//! question, and the main line otherwise runs on one thread. So the main search posts
//! each position when it makes the node, a helper thread searches it on the solver's
//! shared table, and the main search takes the helper's verdict when it gets there, or
//! searches the position itself if the helper has not yet.
//!
//! The helper takes the newest position first: the main search asks about a futility
//! test soon after making it, and one posted long ago may never be asked about. A verdict
//! does not depend on the thread that reached it, only on what the shared table already
//! knew, as with any two searches of one problem; so the rules and the lines are the same
//! as without the helper.
//!
//! Measured, the verdict itself is seldom ready when asked for (Muso 31: 180 of 4,291
//! tests; Zuko 77: 67 of 2,322). The gain comes through the shared table, and so the
//! helper runs under [`crate::FutileRule::SameLength`] too, where no test asks for a
//! verdict at any length. The helper's searches leave proofs and disproofs of the
//! give-back positions and of what lies below them, and the main search reads that table
//! twice: a give-back position it already decides needs no search (Muso 98: 2,070 searched tests where one thread searches
//! 5,715), and a node of the bounded search that it shows not mated at any length is
//! settled as soon as it is made (Muso 98's bounded search took 3.7 M nodes instead of
//! 8.0 M). Posting other positions as well, the children of the bounded search's nodes
//! with five plies left or more, made it slower: they crowd out the give-back positions
//! (Muso 98, Zuko 77 and Muso 31 each took 25 to 70 % longer). Under the default rules
//! (Strict, SameLength) the same sixteen Edo problems as in `docs/performance.md`, two
//! threads, took 85.6 s with the helper against 117.8 s without (medians of two runs).

use super::bounded::KeyHasher;
use super::solver::{MateSearch, Mated};
use kanju_engine::Position;
use parking_lot::{Condvar, Mutex};
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Positions waiting at most: the oldest go first.
const QUEUE: usize = 1024;

/// Verdicts kept at most (a few MiB); past it the record starts again. A whole Edo
/// problem's main line makes some thousands of futility tests.
const VERDICTS: usize = 1 << 16;

/// How long an idle helper sleeps before it looks at its stop flag and deadline again.
const IDLE: Duration = Duration::from_millis(5);

type Verdicts = HashMap<u64, Mated, BuildHasherDefault<KeyHasher>>;

/// What the main search and the helper share.
#[derive(Default)]
pub(crate) struct GiveBackAhead {
    queue: Mutex<VecDeque<Position>>,
    posted: Condvar,
    /// By the position's full key.
    verdicts: Mutex<Verdicts>,
    quit: AtomicBool,
}

impl GiveBackAhead {
    /// Queues the give-back position `q` for the helper, unless it has a verdict or has
    /// been stopped (its verdicts can still be read).
    pub fn post(&self, q: &Position) {
        if self.quit.load(Ordering::Relaxed) || self.verdicts.lock().contains_key(&q.key()) {
            return;
        }
        let mut queue = self.queue.lock();
        if queue.len() >= QUEUE {
            queue.pop_front();
        }
        queue.push_back(q.clone());
        self.posted.notify_one();
    }

    /// The helper's verdict on the position with full key `key`, if it has searched it.
    pub fn verdict(&self, key: u64) -> Option<Mated> {
        self.verdicts.lock().get(&key).copied()
    }

    /// Tells the helper to return.
    pub fn stop(&self) {
        self.quit.store(true, Ordering::Relaxed);
        let _queue = self.queue.lock();
        self.posted.notify_all();
    }

    /// The helper thread's loop: searches each posted position with `search` and `nodes`
    /// until [`Self::stop`] or `deadline`.
    pub fn serve(&self, search: MateSearch, nodes: u64, deadline: Option<Instant>) {
        let over =
            || self.quit.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d);
        while !over() {
            let q = {
                let mut queue = self.queue.lock();
                if queue.is_empty() && !self.quit.load(Ordering::Relaxed) {
                    self.posted.wait_for(&mut queue, IDLE);
                }
                queue.pop_back()
            };
            let Some(q) = q else { continue };
            let key = q.key();
            if self.verdicts.lock().contains_key(&key) {
                continue;
            }
            let v = search(&q, deadline, nodes);
            // A search cut short by the deadline or a stop says nothing of the position.
            if over() {
                break;
            }
            let mut verdicts = self.verdicts.lock();
            if verdicts.len() >= VERDICTS {
                verdicts.clear();
            }
            verdicts.insert(key, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    fn pos(sfen: &str) -> Position {
        Position::from_sfen(sfen).unwrap()
    }

    #[test]
    fn the_helper_answers_what_was_posted_and_searches_it_once() {
        let ahead = GiveBackAhead::default();
        let calls = AtomicU32::new(0);
        // Mated exactly when White holds no pawn: a stand-in for a df-pn verdict.
        let search = |p: &Position, _: Option<Instant>, _: u64| {
            calls.fetch_add(1, Ordering::Relaxed);
            if p.to_sfen().ends_with("b G 1") {
                Mated::Yes
            } else {
                Mated::No
            }
        };
        let mated = pos("4k4/9/4P4/9/9/9/9/9/9 b G 1");
        let not_mated = pos("4k4/9/4P4/9/9/9/9/9/9 b Gp 1");
        std::thread::scope(|scope| {
            scope.spawn(|| ahead.serve(&search, 3_000, None));
            ahead.post(&mated);
            ahead.post(&not_mated);
            let start = Instant::now();
            while ahead.verdict(mated.key()).is_none() || ahead.verdict(not_mated.key()).is_none() {
                assert!(start.elapsed() < Duration::from_secs(10), "no verdict");
                std::thread::yield_now();
            }
            // A position with a verdict is not searched again.
            ahead.post(&mated);
            ahead.stop();
        });
        assert_eq!(ahead.verdict(mated.key()), Some(Mated::Yes));
        assert_eq!(ahead.verdict(not_mated.key()), Some(Mated::No));
        assert_eq!(calls.load(Ordering::Relaxed), 2);
        assert_eq!(ahead.verdict(pos("4k4/9/9/9/9/9/9/9/9 b G 1").key()), None);
    }

    #[test]
    fn a_stopped_helper_returns_at_once_and_keeps_no_verdict_it_was_cut_on() {
        let ahead = GiveBackAhead::default();
        let q = pos("4k4/9/4P4/9/9/9/9/9/9 b G 1");
        // The search is cut: the stop comes while it runs.
        let search = |_: &Position, _: Option<Instant>, _: u64| {
            ahead.stop();
            Mated::Open
        };
        ahead.post(&q);
        let start = Instant::now();
        ahead.serve(&search, 3_000, None);
        assert!(start.elapsed() < Duration::from_secs(1));
        assert_eq!(ahead.verdict(q.key()), None);
        // A stopped helper with nothing to do returns too, and takes no more positions.
        let idle = GiveBackAhead::default();
        idle.stop();
        idle.serve(&search, 3_000, None);
        idle.post(&q);
        assert!(idle.queue.lock().is_empty());
    }
}
