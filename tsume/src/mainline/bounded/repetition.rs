//! Positions met again on the line being searched.
//!
//! A shortest mate never passes the same position twice: from the second time the
//! attacker could have played on as from the first, and mated sooner. So while the
//! bounded search asks for a mate within `n` from a position, a line that comes back to it
//! (the same board, side to move and attacker's hand, with fewer plies left) can be
//! counted as no mate. Without that, a line that goes round a cycle is searched again at
//! every bound below the first, each a search of nearly the whole subtree: on Shogi Zuko
//! 100 (611 plies) 86 % of the nodes of "mate within 609" lay under such a return.
//!
//! The verdict holds for the path, not for the position (the graph-history interaction):
//! a node whose disproof rests on a return to an ancestor is not mated *given* that
//! ancestor above it, and may be mated when reached another way. So such a value carries
//! the depth of the ancestor it rests on ([`Dep`]), is never stored as a disproof, and
//! becomes an ordinary disproof at that ancestor, which it is about: the ancestor itself
//! has no mate within its bound but through itself, which is no mate.
//!
//! Why this holds under tsume rules: with futile drops decided by a mate at any length
//! (the `AnyLength` rule), which drops count is a property of the position, so the
//! problem is a game with a fixed move set, and in it an attacker strategy that mates in
//! the fewest plies from every node it reaches passes no position twice on any line:
//! the fewest plies left fall by at least one with every ply. Under `SameLength` the
//! drops that count depend on the lengths of the other replies, and a return counted as
//! no mate makes a reply's length look longer than it is, which may call a drop futile
//! that is not; so there the search makes no such cut.
//!
//! A futility test's give-back position is not on the line (no move reached it), so a
//! return inside its search counts only against positions since that test.
//!
//! The df-pn's path set (`crate::path::PathSet`) is not used here: it needs every
//! position on the path to be unique, and this path may hold one twice (above a
//! give-back position and inside its line, or anywhere where returns are not cut), and it
//! probes a 256 KiB array where most nodes here find their slot of a small filter empty.

use kanju_engine::Hand;

/// The depth, on the searched path, of the ancestor a value rests on.
pub(super) type Dep = u16;

/// A value that rests on no ancestor: it holds whatever the path.
pub(super) const FREE: Dep = Dep::MAX;

/// Slots of the filter in front of the path: a position whose slot counts nothing is on
/// no line, which is most of them, and costs no scan.
const FILTER_BITS: u32 = 12;

/// The positions on the searched path, each with its depth.
#[derive(Default)]
pub(super) struct Path {
    /// Board key and attacker's hand of each node on the path, `None` for a node no
    /// return is looked for (a futility test's node, whose question is not the line's).
    nodes: Vec<Option<(u64, Hand)>>,
    /// Where the current line starts: a futility test's give-back position.
    floors: Vec<usize>,
    /// How many nodes on the path fall in each slot.
    filter: Vec<u16>,
}

fn slot(board_key: u64) -> usize {
    (board_key >> (64 - FILTER_BITS)) as usize
}

impl Path {
    /// Depth of the next node pushed.
    pub(super) fn depth(&self) -> usize {
        self.nodes.len()
    }

    /// Enters a node: `Some((board key, hand))` for one whose returns count, and
    /// `starts_line` for a give-back position, which starts a line of its own.
    pub(super) fn push(&mut self, node: Option<(u64, Hand)>, starts_line: bool) {
        if self.filter.is_empty() {
            self.filter = vec![0; 1 << FILTER_BITS];
        }
        if starts_line {
            self.floors.push(self.nodes.len());
        }
        if let Some((key, _)) = node {
            self.filter[slot(key)] += 1;
        }
        self.nodes.push(node);
    }

    /// Leaves the node last entered.
    pub(super) fn pop(&mut self) {
        if let Some(Some((key, _))) = self.nodes.pop() {
            self.filter[slot(key)] -= 1;
        }
        if self.floors.last() == Some(&self.nodes.len()) {
            self.floors.pop();
        }
    }

    /// Leaves every node deeper than `depth`.
    pub(super) fn truncate(&mut self, depth: usize) {
        while self.nodes.len() > depth {
            self.pop();
        }
    }

    /// The depth of the node on the current line that the position (`board_key`,
    /// attacker's `hand`) returns to, if any.
    pub(super) fn return_to(&self, board_key: u64, hand: Hand) -> Option<Dep> {
        if self.filter.is_empty() || self.filter[slot(board_key)] == 0 {
            return None;
        }
        let floor = self.floors.last().copied().unwrap_or(0);
        (floor..self.nodes.len())
            .find(|&d| self.nodes[d] == Some((board_key, hand)))
            .map(|d| d as Dep)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Bounded, Node};
    use super::*;
    use crate::mainline::solver::MateSearch;
    use crate::mainline::solver::Mated;
    use crate::mainline::test_data::{no_hints, published};
    use kanju_engine::{GenMode, Position};
    use std::collections::HashMap;
    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;
    use std::time::Instant;

    /// Counting a return to the line as no mate changes no verdict. At every position of
    /// three Edo problems' published lines, whose searches meet returns, "mate within n"
    /// for the plies left and two fewer comes out the same with returns cut and without,
    /// every search decided. And every disproof the tables keep over a cut return holds
    /// without the cut, for the disproof pieces kept with it (a sample of them): one that
    /// rested on a return to an ancestor would hold on that path alone. The futility
    /// tests ask a fixed oracle (a mate within 15 plies, found without the rule under
    /// test), so every search plays the same game.
    #[test]
    fn a_return_counted_as_no_mate_changes_no_verdict() {
        let stop = AtomicBool::new(false);
        let verdicts = Mutex::new(HashMap::new());
        let oracle = |q: &Position, _: Option<Instant>, _: u64| {
            let known = verdicts.lock().unwrap().get(&q.key()).copied();
            let mated = known.unwrap_or_else(|| {
                let attacker = q.side_to_move().flip();
                let mut b = Bounded::new(attacker, GenMode::All, &stop, &no_hints, 16 << 20);
                let mated = b.within(q, 15) == Some(true);
                verdicts.lock().unwrap().insert(q.key(), mated);
                mated
            });
            if mated {
                Mated::Yes
            } else {
                Mated::Open
            }
        };
        let mut cuts = 0;
        let mut checked = 0;
        for name in ["zukou-002", "zukou-018", "zukou-022"] {
            let (start, line) = published("tsume_edo_zukou_musou.jsonl", name);
            let attacker = start.side_to_move();
            let searcher = |cut: bool| {
                let mut b = Bounded::new(attacker, GenMode::All, &stop, &no_hints, 64 << 20);
                b.set_mate_search(&oracle as MateSearch);
                b.returns_may_cut = cut;
                b
            };
            let mut root = start.clone();
            for i in 0..=line.len() {
                if i > 0 {
                    root = root.play(line[i - 1]);
                }
                let left = (line.len() - i) as i32;
                for n in [left, left - 2].into_iter().filter(|&n| n >= 0) {
                    let mut b = searcher(true);
                    let with_cuts = b.within(&root, n);
                    let cut = b.returns_cut;
                    let without = searcher(false).within(&root, n);
                    let kept = &b.disproofs_over_returns;
                    for (node, hand) in kept.iter().step_by(kept.len() / 8 + 1) {
                        let widened = node.pos.with_hand_toward(attacker, *hand);
                        for pos in [&node.pos, &widened] {
                            let alone = searcher(false).prove(&Node {
                                pos: pos.clone(),
                                ..node.clone()
                            });
                            assert_eq!(alone, Some(false), "{name} within {n}: {}", pos.to_sfen());
                            checked += 1;
                        }
                    }
                    assert!(with_cuts.is_some(), "{name} within {n}");
                    assert_eq!(with_cuts, without, "{name} within {n}");
                    cuts += cut;
                }
            }
        }
        assert!(
            cuts > 100 && checked > 50,
            "{cuts} returns cut, {checked} disproofs checked"
        );
    }

    /// A disproof that rests on a return to the line holds on that line alone, and the
    /// tables do not keep it for other paths. Two dragons and a gold chase the king round
    /// a cycle: searching "mate within 11" from the root meets the position below (the
    /// king on 3a, dragons on 4c and 3d) below the line it came by, and every mate it has
    /// within 6 goes back to a position on that line, so on that path it is no mate.
    /// Asked next, with the same tables, from the position itself (as the walk asks its
    /// next question), it is mated within 6, as a search with nothing before it finds. Storing that path's
    /// verdict as the position's own answers no mate there, and the last assertion shows
    /// this test would see it.
    #[test]
    fn a_disproof_over_a_return_is_kept_for_its_path_alone() {
        let stop = AtomicBool::new(false);
        let never_futile = |_: &Position, _: Option<Instant>, _: u64| Mated::Open;
        let root = Position::from_sfen("5g3/9/8k/6+R2/5+RG2/9/9/9/9 b - 1").unwrap();
        let below = Position::from_sfen("5gk2/9/5+R3/6+R2/6G2/9/9/9/9 w - 1").unwrap();
        let attacker = root.side_to_move();
        let searcher = |fault: bool| {
            let mut b = Bounded::new(attacker, GenMode::All, &stop, &no_hints, 8 << 20);
            // Returns are cut only where a futility search is set (see `cuts_returns`);
            // neither position leaves the defender a piece to drop.
            b.set_mate_search(&never_futile as MateSearch);
            b.stores_path_disproofs = fault;
            b
        };
        assert_eq!(searcher(false).within(&below, 6), Some(true));
        let mut b = searcher(false);
        assert_eq!(b.within(&root, 11), Some(true));
        assert!(b.returns_cut > 0, "the root's search met no return");
        assert_eq!(b.within(&below, 6), Some(true));
        let mut faulty = searcher(true);
        assert_eq!(faulty.within(&root, 11), Some(true));
        assert_eq!(
            faulty.within(&below, 6),
            Some(false),
            "the fault went unseen"
        );
    }

    #[test]
    fn a_return_is_found_on_its_own_line_only() {
        let h = Hand::EMPTY;
        let mut p = Path::default();
        p.push(Some((1, h)), false);
        p.push(Some((2, h)), false);
        assert_eq!(p.return_to(1, h), Some(0));
        assert_eq!(p.return_to(2, h), Some(1));
        assert_eq!(p.return_to(3, h), None);
        // Another hand is another position.
        let more = Hand::EMPTY.add(kanju_engine::PieceKind::Pawn);
        assert_eq!(p.return_to(1, more), None);
        // A give-back position starts a line: the nodes above it are not on it.
        p.push(None, false);
        p.push(Some((5, h)), true);
        assert_eq!(p.return_to(1, h), None);
        assert_eq!(p.return_to(5, h), Some(3));
        p.pop();
        assert_eq!(p.return_to(1, h), Some(0));
        p.pop();
        p.pop();
        assert_eq!(p.return_to(2, h), None);
        assert_eq!(p.depth(), 1);
    }
}
