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
//!
//! A thread turns away only near where the other threads are: within [`SPLIT_WINDOW`]
//! plies of the deepest of them. Higher up it follows them into the marked child. A
//! thread that turned away at the first shared defender node, usually a few plies below
//! the root, went to a sibling far from where the proof was being built: often one that
//! a single thread would reach only much later, or never, once its parent's check was
//! refuted. Its expansions there also raised that shallow node's proof number, and on
//! Zuko 8 this pushed both threads off the mating first move, P\*4c, for other checks
//! (a run that left it after 34 M nodes and came back 5 M later). Near the frontier a
//! sibling is where the search goes next anyway. Zuko 8, two threads, 4 GiB, proof
//! only, six runs each, alternating: 21.4 to 29.6 s (median 22.4 s) against 25.2 to
//! 69.5 s (median 40.3 s) when turning away at any depth; one thread takes 47.7 s in the
//! same hour. The other hard problems and ten Edo problems were level (see
//! docs/performance.md, session 51).
//!
//! Thread 0 leads: it never turns away, so it runs the search one thread alone runs, with
//! the others' proofs and numbers in the table, and only the others split off near it.
//! When both threads turned away, either could leave the proof's line, and on Zuko 8 and
//! Microcosmos one two-thread run in three or so took twice one thread's nodes. Two
//! threads, 4 GiB, proof only, five runs each, alternating (session 52): Microcosmos
//! 22.4 to 24.8 M nodes, median 15.9 s, against 31.0 to 43.6 M and 26.4 s; Zuko 8 19.1
//! to 27.6 M, median 19.7 s, against 25.9 to 53.7 M and 25.3 s. One thread takes 22.0 M
//! and 22.4 M there. The five long problems of the thread benchmark were level.

use kanju_engine::Hand;
use std::sync::atomic::{AtomicU16, Ordering};

/// How far above the deepest other thread a thread still turns away from a marked child.
pub(crate) const SPLIT_WINDOW: u16 = 8;

/// The thread that never turns away: it searches as one thread alone would.
const LEADER: usize = 0;

/// Counters: 256 KiB, small enough to stay in cache, large enough that paths of a
/// thousand plies rarely share one.
const SLOTS: usize = 1 << 17;

/// The marks of every thread of one search.
pub(crate) struct Busy {
    marks: Box<[AtomicU16]>,
    /// Each thread's depth at its latest node, a cache line each: every node writes its
    /// own, and another thread reads it only when it meets a marked child.
    depths: Box<[Depth]>,
}

#[repr(align(64))]
struct Depth(AtomicU16);

impl Busy {
    /// No position marked, for `threads` threads numbered from 0.
    pub fn new(threads: usize) -> Busy {
        Busy {
            marks: (0..SLOTS).map(|_| AtomicU16::new(0)).collect(),
            depths: (0..threads).map(|_| Depth(AtomicU16::new(0))).collect(),
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

    /// Thread `thread` is at a node `depth` plies from the root.
    #[inline]
    pub fn set_depth(&self, thread: usize, depth: u16) {
        if let Some(d) = self.depths.get(thread) {
            d.0.store(depth, Ordering::Relaxed);
        }
    }

    /// Whether thread `thread`, at a defender node `depth` plies from the root, turns
    /// away from its child `(key, hand)`: never for thread 0, which leads (see the
    /// module's documentation), and for the others only from a marked child within
    /// [`SPLIT_WINDOW`] plies of the deepest other thread. The leader reads no mark: the
    /// others write them, so each read could fetch a line from their core.
    #[inline]
    pub fn turns_away(&self, thread: usize, depth: u16, key: u64, hand: Hand) -> bool {
        thread != LEADER && self.is_busy(key, hand) && self.splits_at(thread, depth)
    }

    /// Whether thread `thread`, not the leader, at a defender node `depth` plies from the
    /// root is within [`SPLIT_WINDOW`] plies of the deepest other thread.
    #[inline]
    fn splits_at(&self, thread: usize, depth: u16) -> bool {
        let deepest = self
            .depths
            .iter()
            .enumerate()
            .filter(|&(t, _)| t != thread)
            .map(|(_, d)| d.0.load(Ordering::Relaxed))
            .max()
            .unwrap_or(0);
        depth.saturating_add(SPLIT_WINDOW) >= deepest
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
        let b = Busy::new(2);
        let h = Hand::EMPTY;
        assert!(!b.is_busy(42, h));
        b.enter(42, h);
        b.enter(42, h);
        b.leave(42, h);
        assert!(b.is_busy(42, h));
        b.leave(42, h);
        assert!(!b.is_busy(42, h));
    }

    /// Thread 1 at a defender node turns away from a marked child only within
    /// `SPLIT_WINDOW` plies of thread 0, the deepest other thread; its own depth does not
    /// count. Thread 2 likewise, near thread 1.
    #[test]
    fn threads_split_only_near_the_deepest_other_thread() {
        let b = Busy::new(3);
        b.set_depth(0, 30);
        b.set_depth(1, 200);
        b.set_depth(2, 12);
        assert!(!b.splits_at(1, 30 - SPLIT_WINDOW - 1));
        assert!(b.splits_at(1, 30 - SPLIT_WINDOW));
        assert!(b.splits_at(1, 29));
        assert!(b.splits_at(2, 200 - SPLIT_WINDOW));
        assert!(!b.splits_at(2, 100));
        // A thread number beyond those counted is not tracked and never blocks a split.
        b.set_depth(7, 500);
        assert!(b.splits_at(2, 200 - SPLIT_WINDOW));
    }

    /// Thread 0 leads: it follows its own choices into any child, however near the other
    /// threads it is, while the others turn away from a marked child near it.
    #[test]
    fn the_leading_thread_never_turns_away() {
        let b = Busy::new(2);
        let h = Hand::EMPTY;
        b.enter(42, h);
        b.set_depth(1, 40);
        for depth in [1, 32, 40, 41, 300] {
            assert!(!b.turns_away(0, depth, 42, h), "{depth}");
        }
        b.set_depth(0, 40);
        assert!(b.turns_away(1, 40, 42, h));
        assert!(!b.turns_away(1, 40, 43, h), "an unmarked child");
    }
}
