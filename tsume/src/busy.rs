//! Virtual-loss marks: which positions the search threads are inside right now.
//!
//! Threads share one table, so two threads at the same node read the same numbers and
//! pick the same child. Each then proves the same subtree, and the second one's work is
//! wasted (on Zuko 8 two threads sometimes searched 58 M nodes where one thread needs 25 M).
//! A thread marks the positions it is inside; a thread choosing a child that is marked
//! sees it as dearer than it is ([`busy_cost`]) and turns to a sibling that is nearly as
//! good, as in parallel MCTS's virtual loss and Pawlewicz & Hayward's parallel df-pn.
//!
//! Only defender nodes choose this way. There every child must be proven for a mate, so
//! a thread that proves a sibling of the other thread's child does work the proof needs.
//! At an attacker node the sibling is another check, which a proof by the first one never
//! uses: turning away there made Zuko 8 cost 38 to 44 M nodes on two threads, against
//! 26 to 28 M without marks. At defender nodes only, Zuko 8 took 29 to 45 s against 34
//! to 61 s without (six runs each, two threads, side by side), and Microcosmos 25 to 28 s
//! against 18 to 38 s (three runs each). The slow runs are not gone, though: two later
//! runs of Zuko 8 took 57 and 86 s. So only a defender node's children, attacker
//! positions, are marked: no one asks about the rest.
//!
//! The marks are counters in a small array indexed by a hash of the position: a false
//! mark (two positions on one counter) only makes one choice a little less greedy, and
//! never changes a proof or a disproof.

use kanju_engine::Hand;
use std::sync::atomic::{AtomicU16, Ordering};

/// Counters: 256 KiB, small enough to stay in cache, large enough that paths of a
/// thousand plies rarely share one.
const SLOTS: usize = 1 << 17;

/// The marks of every thread of one search.
pub(crate) struct Busy {
    marks: Box<[AtomicU16]>,
}

impl Busy {
    /// No position marked.
    pub fn new() -> Busy {
        Busy {
            marks: (0..SLOTS).map(|_| AtomicU16::new(0)).collect(),
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64, hand: Hand) -> &AtomicU16 {
        let h = (key ^ (hand.bits() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_mul(0xff51_afd7_ed55_8ccd);
        &self.marks[(h >> (64 - SLOTS.trailing_zeros())) as usize]
    }

    /// A thread goes into the position.
    #[inline]
    pub fn enter(&self, key: u64, hand: Hand) {
        self.slot(key, hand).fetch_add(1, Ordering::Relaxed);
    }

    /// The thread is back out of it.
    #[inline]
    pub fn leave(&self, key: u64, hand: Hand) {
        self.slot(key, hand).fetch_sub(1, Ordering::Relaxed);
    }

    /// True if some thread is inside the position (or one sharing its counter).
    #[inline]
    pub fn is_busy(&self, key: u64, hand: Hand) -> bool {
        self.slot(key, hand).load(Ordering::Relaxed) != 0
    }

    /// True if no position is marked: every thread has left all it entered.
    #[cfg(test)]
    pub fn is_clear(&self) -> bool {
        self.marks.iter().all(|m| m.load(Ordering::Relaxed) == 0)
    }
}

/// How dear a child another thread is searching looks when choosing where to go: one and a
/// half times its number, plus one. A sibling within that factor is taken instead; one much
/// worse is not, since following the other thread there beats wandering off the proof.
/// Twice the number turned away more often than pays: on ten Edo problems (two threads,
/// two rounds of six) the sums of medians were 7.76 and 7.58 s against 8.74 and 7.92 s,
/// and Zuko 8's proof took 16.9 to 20.7 s in four runs against 17.5 to 38.5 s. Four times
/// the number was slower than twice (9.25 s against 8.74 s).
#[inline]
pub(crate) fn busy_cost(n: u32) -> u32 {
    n.saturating_add(n / 2).saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_count_threads_in_and_out() {
        let b = Busy::new();
        let h = Hand::EMPTY;
        assert!(!b.is_busy(42, h));
        b.enter(42, h);
        b.enter(42, h);
        b.leave(42, h);
        assert!(b.is_busy(42, h));
        b.leave(42, h);
        assert!(!b.is_busy(42, h));
    }
}
