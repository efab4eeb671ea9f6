//! A node's children as the search holds them, and how their numbers combine.
//!
//! Children live in a per-thread arena for as long as their parent is on the path, so the
//! parent re-reads only the child it just searched, not the table.

use crate::busy::busy_cost;
use crate::entry::{INF, PN_MAX, SNDA_MOVES};
use kanju_engine::{Hand, Move};

/// The child is an interposition drop waiting for a cheaper drop on its square to be proven.
pub(crate) const HIDDEN: u8 = 1;
/// The child (an attacker node) was already tested for a mate in one.
pub(crate) const MATE1_TESTED: u8 = 2;
/// The child had no table entry when expanded: searching it expands a leaf.
pub(crate) const NEW: u8 = 4;
/// The child, a new check, has not been estimated yet: its estimate could not have lowered
/// its parent's proof number (see `Searcher::expand`). Its proof number is the floor every
/// estimate is at or above, and it gets its estimate before the parent searches a child.
pub(crate) const PENDING: u8 = 8;

/// No dependency on the path: the result holds wherever the position is reached.
pub(crate) const NO_DEP: u16 = u16::MAX;
/// No next drop in an interposition chain.
pub(crate) const NO_NEXT: u16 = u16::MAX;

/// One child of a node on the path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Child {
    /// Table key of the child's board.
    pub key: u64,
    /// The move leading to it.
    pub mv: Move,
    /// Next interposition drop on the same square (index among the siblings).
    pub next: u16,
    /// The attacker's actual hand in the child.
    pub hand: Hand,
    /// Proof or disproof hand once terminal.
    pub res_hand: Hand,
    /// Proof number.
    pub pn: u32,
    /// Disproof number.
    pub dn: u32,
    /// Effort stored for the child.
    pub amount: u32,
    /// Mate length once proven.
    pub len: u16,
    /// Minimal distance stored for the child.
    pub md: u16,
    /// For a disproof that holds only on this path (repetition, length limit): the
    /// shallowest depth of the path it relies on. `NO_DEP` otherwise.
    pub rep_dep: u16,
    /// `HIDDEN`, `MATE1_TESTED`, `NEW`.
    pub flags: u8,
    /// SNDA moves the table holds for the child.
    pub snda: [u16; SNDA_MOVES],
}

impl Child {
    /// A child not yet looked up: unit numbers, no length, no path dependency.
    #[inline(always)]
    pub fn new(key: u64, mv: Move, hand: Hand) -> Child {
        Child {
            key,
            mv,
            next: NO_NEXT,
            hand,
            res_hand: hand,
            pn: 1,
            dn: 1,
            amount: 0,
            len: 0,
            md: u16::MAX,
            rep_dep: NO_DEP,
            flags: 0,
            snda: [0; SNDA_MOVES],
        }
    }

    /// True once proven or disproven.
    #[inline(always)]
    pub fn is_terminal(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// A node's numbers, recomputed from its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Proof number.
    pub pn: u32,
    /// Disproof number.
    pub dn: u32,
    /// The child to search next (index into the slice).
    pub best: usize,
    /// The runner-up's number (pn at an attacker node, dn at a defender node), `INF` if none.
    pub second: u32,
    /// Some unproven child was first seen closer to the root than this node (TCA).
    pub old_child: bool,
}

/// The smallest of the numbers offered, whose it was, and the runner-up: the child df-pn
/// searches next and the number its threshold is cut to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pick {
    /// The smallest number taken.
    pub min: u32,
    /// Where it was offered.
    pub best: usize,
    /// The smallest of the others.
    pub second: u32,
}

impl Pick {
    /// Nothing offered yet; `none` is the search's infinity.
    #[inline(always)]
    pub const fn new(none: u32) -> Pick {
        Pick {
            min: none,
            best: 0,
            second: none,
        }
    }

    /// Offers number `v` of child `i`.
    #[inline(always)]
    pub fn offer(&mut self, i: usize, v: u32) {
        self.offer_if(i, v, true);
    }

    /// Offers number `v` of child `i`, which may only become the runner-up unless
    /// `eligible`.
    #[inline(always)]
    pub fn offer_if(&mut self, i: usize, v: u32, eligible: bool) {
        if v < self.min && eligible {
            self.second = self.min;
            self.min = v;
            self.best = i;
        } else if v < self.second {
            self.second = v;
        }
    }
}

#[inline(always)]
fn sat_add(a: u32, b: u32) -> u32 {
    a.saturating_add(b).min(PN_MAX)
}

/// Combines the children of a node. At an attacker (OR) node pn is the minimum and dn the
/// sum; at a defender (AND) node the reverse. Two kinds of children are counted by their
/// maximum instead of their sum:
/// - SNDA: children reached by a move in `snda` share a descendant;
/// - interposition drops at a defender node. They are nearly always answered alike (take
///   the piece and check again, often with the captured piece in hand proving the next by
///   dominance), so the sum made a distant slider check look as dear as that many separate
///   defences, and the search starved the long sacrifices that compose well-known problems.
pub(crate) fn summarize(
    children: &[Child],
    or_node: bool,
    md: u16,
    snda: &[u16; SNDA_MOVES],
) -> Summary {
    let use_snda = snda[0] != 0 && snda[1] != 0;
    let mut pick = Pick::new(INF);
    let mut sum = 0u32;
    let mut shared_max = 0u32;
    let mut drop_max = 0u32;
    let mut any_sum_inf = false;
    let mut old_child = false;
    for (i, c) in children.iter().enumerate() {
        if c.flags & HIDDEN != 0 {
            continue;
        }
        let (sel, add) = if or_node { (c.pn, c.dn) } else { (c.dn, c.pn) };
        pick.offer(i, sel);
        if add == INF {
            any_sum_inf = true;
        } else if !or_node && c.mv.is_drop() {
            drop_max = drop_max.max(add);
        } else if use_snda && snda.contains(&c.mv.bits()) {
            shared_max = shared_max.max(add);
        } else {
            sum = sat_add(sum, add);
        }
        if !c.is_terminal() && c.md <= md {
            old_child = true;
        }
    }
    let total = if any_sum_inf {
        INF
    } else {
        sat_add(sat_add(sum, shared_max), drop_max)
    };
    // A node whose every child is hidden cannot occur: the cheapest drop is always visible.
    let (pn, dn) = if or_node {
        (pick.min, total)
    } else {
        (total, pick.min)
    };
    // Terminal states are exact: pn == 0 forces dn == INF and vice versa.
    let (pn, dn) = if pn == 0 {
        (0, INF)
    } else if dn == 0 {
        (INF, 0)
    } else {
        (pn, dn)
    };
    Summary {
        pn,
        dn,
        best: pick.best,
        second: pick.second,
        old_child,
    }
}

/// Chooses the child of a defender node to search again when other threads are inside
/// some children (`busy`): for the choice those count at [`busy_cost`] of their disproof
/// numbers, so that a thread arriving where another already works takes a sibling nearly
/// as good. Only the choice (`best`, `second`) changes; the node's numbers stay the true
/// ones. Attacker nodes do not turn away (see [`crate::busy`]).
///
/// A sibling is only taken if its disproof number is below `th_dn`, the node's threshold.
/// One at or above it would return at once, and the node would choose it again and again
/// until the other thread left.
pub(crate) fn avoid_busy(
    children: &[Child],
    th_dn: u32,
    s: &mut Summary,
    busy: impl Fn(&Child) -> bool,
) {
    let mut pick = Pick::new(INF);
    pick.best = s.best;
    for (i, c) in children.iter().enumerate() {
        if c.flags & HIDDEN != 0 {
            continue;
        }
        let eff = if c.dn != INF && busy(c) {
            busy_cost(c.dn).min(PN_MAX)
        } else {
            c.dn
        };
        pick.offer_if(i, eff, c.dn < th_dn || i == s.best);
    }
    if pick.best != s.best {
        s.best = pick.best;
        s.second = pick.second;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::{PieceKind, Square};

    /// A child reached by a board move (distinct for each `i`).
    pub(crate) fn child(i: usize, pn: u32, dn: u32) -> Child {
        let sq = |i| Square::from_index(i % 81).unwrap();
        let mv = Move::normal(sq(i), sq(i + 1), false);
        Child {
            pn,
            dn,
            ..Child::new(i as u64 + 1, mv, Hand::EMPTY)
        }
    }

    #[test]
    fn a_pick_keeps_the_first_smallest_and_the_runner_up() {
        let mut p = Pick::new(INF);
        for (i, v) in [5, 3, 7, 3, 4].into_iter().enumerate() {
            p.offer(i, v);
        }
        assert_eq!((p.min, p.best, p.second), (3, 1, 3));
        // A number that may not be taken still bounds the runner-up.
        let mut p = Pick::new(INF);
        p.offer(0, 6);
        p.offer_if(1, 2, false);
        assert_eq!((p.min, p.best, p.second), (6, 0, 2));
        let p = Pick::new(100);
        assert_eq!((p.min, p.best, p.second), (100, 0, 100));
    }

    #[test]
    fn or_node_takes_min_pn_and_sum_dn() {
        let cs = [child(0, 3, 2), child(1, 1, 5), child(2, 2, 1)];
        let s = summarize(&cs, true, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.pn, s.dn, s.best, s.second), (1, 8, 1, 2));
        let s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.pn, s.dn, s.best, s.second), (6, 1, 2, 2));
    }

    #[test]
    fn terminal_children_decide() {
        let cs = [child(0, 0, INF), child(1, 4, 4)];
        let s = summarize(&cs, true, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.pn, s.dn), (0, INF));
        let s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.pn, s.dn), (4, 4));
        let cs = [child(0, INF, 0), child(1, 4, 4)];
        let s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.pn, s.dn), (INF, 0));
    }

    /// SNDA on a DAG: two moves of an AND node reach the same grandchild, so the proof
    /// number counts the shared part once (max) instead of twice (sum).
    #[test]
    fn snda_counts_a_shared_descendant_once() {
        // Children 0 and 1 both lead to a node of pn 10; child 2 is independent (pn 3).
        let cs = [child(0, 10, 1), child(1, 10, 1), child(2, 3, 1)];
        let plain = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        assert_eq!(plain.pn, 23, "df-pn double counts the shared node");
        let snda = [cs[0].mv.bits(), cs[1].mv.bits(), 0];
        let s = summarize(&cs, false, 0, &snda);
        assert_eq!(
            s.pn, 13,
            "max over the shared moves plus the sum over the rest"
        );
        // Same at an OR node for disproof numbers.
        let cs = [child(0, 1, 7), child(1, 1, 9), child(2, 1, 2)];
        let s = summarize(&cs, true, 0, &[cs[0].mv.bits(), cs[1].mv.bits(), 0]);
        assert_eq!(s.dn, 11);
    }

    /// At a defender node interposition drops count by their maximum; board moves still add.
    #[test]
    fn interposition_drops_count_by_their_maximum() {
        let drop = |sq: usize, pn: u32, dn: u32| Child {
            pn,
            dn,
            ..Child::new(
                sq as u64,
                Move::drop(PieceKind::Gold, Square::from_index(sq).unwrap()),
                Hand::EMPTY,
            )
        };
        let cs = [drop(3, 4, 1), drop(7, 6, 1), child(40, 5, 2)];
        let s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.pn, s.dn), (6 + 5, 1));
        // At an attacker node drops are checks and their disproof numbers still add.
        let s = summarize(&cs, true, 0, &[0; SNDA_MOVES]);
        assert_eq!(s.dn, 4);
    }

    #[test]
    fn hidden_children_are_skipped_and_old_children_flagged() {
        let mut cs = [child(0, 1, 1), child(1, 1, 1)];
        cs[1].flags = HIDDEN;
        let s = summarize(&cs, false, 5, &[0; SNDA_MOVES]);
        assert_eq!(s.pn, 1);
        assert!(!s.old_child);
        cs[0].md = 3;
        assert!(summarize(&cs, false, 5, &[0; SNDA_MOVES]).old_child);
    }

    /// A child another thread is in counts one and a half times, plus one, for the choice
    /// only.
    #[test]
    fn a_busy_child_gives_way_to_a_sibling_nearly_as_good() {
        let cs = [child(0, 9, 3), child(1, 9, 4), child(2, 9, 20)];
        let mut s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        assert_eq!((s.best, s.second), (0, 4));
        avoid_busy(&cs, INF, &mut s, |c| c.key == cs[0].key);
        assert_eq!((s.pn, s.dn, s.best, s.second), (27, 3, 1, 5));
        // A runner-up dearer than that is not worth leaving the other thread for.
        let cs = [child(0, 9, 3), child(1, 9, 6)];
        let mut s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        avoid_busy(&cs, INF, &mut s, |c| c.key == cs[0].key);
        assert_eq!((s.best, s.second), (0, 6));
        // A sibling at or past the node's threshold would return at once: stay.
        let cs = [child(0, 9, 3), child(1, 9, 5)];
        let mut s = summarize(&cs, false, 0, &[0; SNDA_MOVES]);
        avoid_busy(&cs, 5, &mut s, |c| c.key == cs[0].key);
        assert_eq!((s.best, s.second), (0, 5));
    }
}
