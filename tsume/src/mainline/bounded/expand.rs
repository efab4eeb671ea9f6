//! A node's children in the bounded search, and what a node is worth once they settle
//! it: the length or bound, and the proof or disproof pieces.

use super::tables::Spot;
use super::{rounded, Bounded, Kind, Node, Val, NEVER};
use crate::mainline::futile::{
    give_back, interposition_line, is_interposing_drop, takes_interposition,
};
use crate::proof_hand::{
    and_disproof, and_proof_drop_rule, captured_kind, disproof_ceiling, or_disproof, or_proof,
};
use kanju_engine::{Color, GenMode, Hand, Move, MoveList, Position};

/// A child in its parent's list. Its position is made only when the search goes into
/// it: most children are only looked up, and a position is over half a kilobyte to make
/// and to copy (making and moving every child's took a sixth of the search's time).
pub(super) struct Kid {
    pub(super) spot: Spot,
    pub(super) mv: Move,
    /// A futility test's position: the interposed piece captured by `mv` and given back
    /// to the defender, which no move from the parent makes.
    pub(super) given_back: Option<Box<Position>>,
}

impl Kid {
    /// The child reached by `m` from `parent`, asking `kind` within `n`.
    pub(super) fn after(parent: &Position, m: Move, kind: Kind, n: i32, attacker: Color) -> Kid {
        Kid {
            spot: Spot {
                kind,
                n: rounded(kind, n),
                board_key: parent.board_key_after(m),
                hand: parent.hand_after(attacker, m),
            },
            mv: m,
            given_back: None,
        }
    }

    /// The futility test of capturing the interposed piece by `c` and giving it back,
    /// which leaves `q`; the other replies are mated within `m`.
    pub(super) fn giving_back(q: Position, c: Move, m: i32, attacker: Color) -> Kid {
        Kid {
            spot: Spot {
                kind: Kind::And,
                n: rounded(Kind::And, m),
                board_key: q.board_key(),
                hand: q.hand(attacker),
            },
            mv: c,
            given_back: Some(Box::new(q)),
        }
    }

    /// Whether this is a futility test.
    pub(super) fn gives_back(&self) -> bool {
        self.given_back.is_some()
    }

    /// The child as a node to search, its position made from `parent`'s.
    pub(super) fn node(&self, parent: &Position) -> Node {
        let pos = match &self.given_back {
            Some(q) => (**q).clone(),
            None => parent.play(self.mv),
        };
        Node {
            pos,
            kind: self.spot.kind,
            n: self.spot.n,
        }
    }
}

/// A node's children and their values, kept from one node to the next: three vectors
/// allocated and freed at every node cost the search a few per cent.
#[derive(Default)]
pub(super) struct KidLists {
    pub(super) kids: Vec<Kid>,
    /// A child's value from the df-pn table, looked up once per expansion.
    pub(super) initial: Vec<Option<Val>>,
    pub(super) vals: Vec<Val>,
    /// The ancestor each child's value rests on (see `repetition`).
    pub(super) deps: Vec<super::Dep>,
    /// The interposing drops held back (see `drop_chains`).
    pub(super) chains: super::drop_chains::DropChains,
}

impl KidLists {
    pub(super) fn clear(&mut self) {
        self.kids.clear();
        self.initial.clear();
        self.vals.clear();
        self.deps.clear();
        self.chains.clear();
    }
}

impl Bounded<'_> {
    /// The children of `node`, or its value when it is decided without them.
    pub(super) fn expand(&self, node: &Node, kids: &mut Vec<Kid>) -> Result<(), Val> {
        let mut list = MoveList::new();
        let pos = &node.pos;
        let n = node.n;
        let actual = pos.hand(self.attacker);
        match node.kind {
            Kind::Or => {
                if n < 1 {
                    return Err(Val::disproven(n, Hand::full()));
                }
                if n == 1 {
                    return self.expand_last_check(pos, kids);
                }
                // One generation serves the mate in one and the children: a mate among
                // the checks of either mode is found whenever one exists.
                pos.checks(self.check_mode, &mut list);
                if let Some(m) = pos.mating_check(list.as_slice()) {
                    let mated = and_proof_drop_rule(&pos.play(m), self.attacker, Hand::EMPTY);
                    return Err(Val::proven(1, or_proof(mated, m, captured_kind(pos, m))));
                }
                if list.is_empty() {
                    // More of the kinds already held adds no check.
                    return Err(Val::disproven(NEVER, disproof_ceiling(actual)));
                }
                kids.extend(
                    list.as_slice()
                        .iter()
                        .map(|&m| Kid::after(pos, m, Kind::And, n - 1, self.attacker)),
                );
                Ok(())
            }
            Kind::And => {
                if n < 0 {
                    return Err(Val::disproven(n, Hand::full()));
                }
                pos.evasions(GenMode::All, &mut list);
                if list.is_empty() {
                    let p = and_proof_drop_rule(pos, self.attacker, Hand::EMPTY);
                    return Err(Val::proven(0, p));
                }
                let line = interposition_line(pos);
                for &m in list.as_slice() {
                    if is_interposing_drop(m, line) {
                        let checker = line.expect("an interposition has a line").0;
                        let kind = Kind::Interpose {
                            s: m.to(),
                            checker,
                            m: n,
                        };
                        kids.push(Kid::after(pos, m, kind, n, self.attacker));
                    } else {
                        if n < 2 {
                            // A real defence (a king move or a capture, there whatever
                            // the attacker holds) and no plies left for the attacker.
                            return Err(Val::disproven(n, Hand::full()));
                        }
                        kids.push(Kid::after(pos, m, Kind::Or, n - 1, self.attacker));
                    }
                }
                // Real defences first: their lengths set the futility bound.
                kids.sort_by_key(|k| matches!(k.spot.kind, Kind::Interpose { .. }));
                Ok(())
            }
            Kind::Interpose { s, checker, m } => {
                pos.checks(self.check_mode, &mut list);
                for &c in list.as_slice() {
                    let after = pos.play(c);
                    if takes_interposition(c, s, checker, &after) {
                        let kind = pos.piece_on(s).expect("the dropped piece").kind();
                        if let Some(q) = give_back(&after, kind) {
                            if let Some(a) = self.ahead {
                                a.post(&q);
                            }
                            kids.push(Kid::giving_back(q, c, m, self.attacker));
                        }
                    }
                    if n >= 2 {
                        kids.push(Kid::after(pos, c, Kind::And, n - 2, self.attacker));
                    }
                }
                if kids.is_empty() {
                    return Err(Val::disproven(n, actual));
                }
                Ok(())
            }
        }
    }

    /// The children of an attacker node one ply from its bound, or its value. Only a check
    /// that leaves the king no move of its own can mate here: at once (the mate in one,
    /// found first in the same order as [`Position::mate_in_1`]), or by tsume rules behind
    /// futile drops, which needs a lone checker from a distance. Any other check is refuted
    /// by a reply that no hand changes, so it is not made a child (on Zuko 77 those children
    /// were half the search's nodes), and more of the kinds held would add no check. One
    /// pass serves both tests, so each candidate is made once.
    pub(super) fn expand_last_check(&self, pos: &Position, kids: &mut Vec<Kid>) -> Result<(), Val> {
        let mut list = MoveList::new();
        pos.checks_leaving_no_flight(GenMode::All, &mut list);
        for &m in list.as_slice() {
            let after = pos.play(m);
            if !after.has_legal_move() {
                kids.clear();
                let mated = and_proof_drop_rule(&after, self.attacker, Hand::EMPTY);
                return Err(Val::proven(1, or_proof(mated, m, captured_kind(pos, m))));
            }
            if interposition_line(&after).is_some() {
                kids.push(Kid::after(pos, m, Kind::And, 0, self.attacker));
            }
        }
        if self.check_mode != GenMode::All && !kids.is_empty() {
            // The mate in one counts every check; the search only those of its mode.
            let mut standard = MoveList::new();
            pos.checks(self.check_mode, &mut standard);
            kids.retain(|k| standard.as_slice().contains(&k.mv));
        }
        if kids.is_empty() {
            return Err(Val::disproven(1, disproof_ceiling(pos.hand(self.attacker))));
        }
        Ok(())
    }

    /// How much a proven child adds to its parent's length.
    pub(super) fn contribution(parent: Kind, child: &Kid, len: i32) -> i32 {
        match parent {
            Kind::Or => len + 1,
            Kind::And => match child.spot.kind {
                Kind::Interpose { .. } => len,
                _ => len + 1,
            },
            // A futile drop costs nothing; a real capture line costs the drop and the
            // capture (`len` counts from after the capture).
            Kind::Interpose { .. } => {
                if child.gives_back() {
                    0
                } else {
                    len + 2
                }
            }
        }
    }

    /// The value of `node` once its children `vals` settle it: the length (or bound) and
    /// the proof (or disproof) pieces. At a defender node `best` is a refuting child
    /// when there is one.
    pub(super) fn resolved(&self, node: &Node, kids: &[Kid], vals: &[Val], best: usize) -> Val {
        let pos = &node.pos;
        let actual = pos.hand(self.attacker);
        let or_like = !matches!(node.kind, Kind::And);
        if vals.iter().all(|v| v.pn == 0) || (or_like && vals.iter().any(|v| v.pn == 0)) {
            if or_like {
                // The shortest proven child.
                let (i, len) = (0..kids.len())
                    .filter(|&i| vals[i].pn == 0)
                    .map(|i| (i, Self::contribution(node.kind, &kids[i], vals[i].len)))
                    .min_by_key(|&(_, c)| c)
                    .expect("a proven child");
                let m = kids[i].mv;
                let hand = if kids[i].gives_back() {
                    vals[i].hand
                } else {
                    or_proof(vals[i].hand, m, captured_kind(pos, m))
                };
                return Val::proven(len, hand);
            }
            let mut len = 0;
            let mut hand = Hand::EMPTY;
            for (i, v) in vals.iter().enumerate() {
                len = len.max(Self::contribution(node.kind, &kids[i], v.len));
                hand = hand.max(v.hand);
            }
            return Val::proven(len, and_proof_drop_rule(pos, self.attacker, hand));
        }
        if or_like {
            let mut hand = disproof_ceiling(actual);
            for (i, v) in vals.iter().enumerate() {
                let m = kids[i].mv;
                hand = if kids[i].gives_back() {
                    hand.min(v.hand)
                } else {
                    or_disproof(hand, v.hand, m, captured_kind(pos, m))
                };
            }
            // The children's bounds carry over to the parent only when they are all its
            // checks. One ply from its bound an attacker node keeps just the checks that
            // could mate at once (`expand_last_check`): a deeper disproof of those says
            // nothing of the others, which may mate in three.
            let len = if node.kind == Kind::Or && node.n > 1 {
                let d = vals.iter().map(|v| v.len).min().unwrap_or(NEVER);
                if d >= NEVER {
                    NEVER
                } else {
                    (d + 1).max(node.n)
                }
            } else {
                node.n
            };
            return Val::disproven(len, hand);
        }
        let m = kids[best].mv;
        Val::disproven(node.n, and_disproof(vals[best].hand, m, actual))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Bounded;
    use crate::mainline::futile::interposition_line;
    use crate::mainline::test_data::no_hints;
    use kanju_engine::{GenMode, MoveList, Position};
    use std::sync::atomic::AtomicBool;

    /// One ply from its bound an attacker node keeps only the checks that could mate at
    /// once, so its disproof there holds for that bound alone, however far its children
    /// are known not to be mated. Here the king on 3b is mated in three (2d2c 3b4a N*3c),
    /// and no check mates at once. The checks that leave the king no flight and could be
    /// met by a drop are first shown not mated within 4; the node's disproof at one ply
    /// must not then read as "no mate within 5". A sparse chase found this: taken so, it
    /// disproved a mate within 9 of the position 4 plies above, and the walk printed 15
    /// plies where that part of the line needed 2 fewer.
    #[test]
    fn a_disproof_one_ply_from_the_bound_holds_for_that_bound() {
        let stop = AtomicBool::new(false);
        let pos = Position::from_sfen("6g1g/6k2/4+R4/7+R1/9/9/9/9/9 b N 1").unwrap();
        let mut b = Bounded::new(pos.side_to_move(), GenMode::All, &stop, &no_hints, 8 << 20);
        let mut list = MoveList::new();
        pos.checks_leaving_no_flight(GenMode::All, &mut list);
        let mut shown = 0;
        for &m in list.as_slice() {
            let after = pos.play(m);
            if interposition_line(&after).is_some() {
                assert_eq!(b.within(&after, 4), Some(false), "{}", m.to_usi());
                shown += 1;
            }
        }
        assert!(shown > 0, "no check of the kind the last ply keeps");
        assert_eq!(b.within(&pos, 1), Some(false));
        assert_eq!(b.within(&pos, 3), Some(true));
        assert_eq!(b.proven_len(&pos), Some(3));
    }
}
