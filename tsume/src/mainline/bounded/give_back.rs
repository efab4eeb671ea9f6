//! The futility test's give-back positions (see [`crate::mainline::futile`]): whether the
//! defender, given the interposed piece back, is still mated, from the tables' verdicts or
//! a df-pn search with a small budget.

use super::tables::Spot;
use super::{Bounded, Kind, Node, Val, NEVER};
use crate::mainline::solver::{Hint, Mated};
use kanju_engine::Position;
use std::time::Instant;

/// Nodes the df-pn may spend on one give-back position. Most tests that run out are
/// positions that are not mated, which df-pn cannot disprove in a few thousand nodes, and
/// a problem can meet thousands of them, so the budget is time. The Zuko 69 variation of
/// `a_drop_is_futile_when_the_give_back_position_is_mated_at_any_length`, a 10-ply mate
/// on an empty table, needs 2,000. A search that does not lean towards a mate after a
/// third of them stops there (`solve::LEAN_PN`).
pub(crate) const GIVE_BACK_NODES: u64 = 3_000;

impl Bounded<'_> {
    /// Whether the tables already say that the give-back position `q` of a futility test
    /// is mated at some length: the df-pn table's verdict, or a proof in this search's.
    /// Always `None` under the same-length rule.
    ///
    /// A verdict of mated is kept with the searched ones, and a kept one is answered
    /// first: the tables that gave it may lose it to garbage collection, and a search
    /// with a node budget may not find the mate again. A proof of the bounded search that
    /// rests on a futile drop must stay a proof, or the walk that follows it finds no
    /// mate where the search proved one: Muso 31 at 32 MiB (with a variant of the
    /// give-back searches that stopped some of them early) proved "mate within 17", and
    /// the walk then found every check disproven within 16 and printed the df-pn line's
    /// 37 plies.
    pub(super) fn give_back_known(&mut self, q: &Position) -> Option<bool> {
        self.mate_search?;
        let key = q.key();
        if self.kept_give_back(key) == Some(Some(true)) {
            return Some(true);
        }
        let v = match self.hints.hint(q) {
            Hint::Mated(_) => Some(true),
            Hint::NoMate => Some(false),
            Hint::Unknown if self.proven_len(q).is_some() => Some(true),
            Hint::Unknown if self.disproven_bound(q) >= NEVER => Some(false),
            Hint::Unknown => None,
        };
        if v == Some(true) {
            self.keep_give_back(key, v);
        }
        v
    }

    /// The verdict kept for the give-back position with full key `key`, in this search's
    /// record or its base's.
    pub(super) fn kept_give_back(&self, key: u64) -> Option<Option<bool>> {
        let known = self.give_back.get(&key);
        known
            .or_else(|| self.base.and_then(|b| b.give_back.get(&key)))
            .copied()
    }

    /// Keeps a verdict. Past the cap the record starts again, but for the mated verdicts
    /// (see [`Self::give_back_known`]) while they fill no more than half of it.
    pub(super) fn keep_give_back(&mut self, key: u64, v: Option<bool>) {
        if self.give_back.len() >= self.give_back_cap {
            self.give_back.retain(|_, v| *v == Some(true));
            if self.give_back.len() >= self.give_back_cap / 2 {
                self.give_back.clear();
            }
        }
        self.give_back.insert(key, v);
    }

    /// Whether `q` is mated at any length, by a df-pn search with a node budget; `None`
    /// when it stays undecided (counted in `undecided_futility`).
    pub(super) fn give_back_searched(&mut self, q: &Position) -> Option<bool> {
        let key = q.key();
        if let Some(v) = self.kept_give_back(key) {
            return v;
        }
        let ahead = self.ahead.and_then(|a| a.verdict(key));
        let v = ahead.unwrap_or_else(|| self.search_give_back(q, GIVE_BACK_NODES));
        if v == Mated::Near {
            self.keep_near_mate(q);
        }
        let v = v.decided();
        if v.is_none() {
            self.undecided_futility += 1;
        }
        log::trace!("give-back {} mated: {v:?}", q.to_sfen());
        self.keep_give_back(key, v);
        v
    }

    /// The mate search on the give-back position `q` with `nodes`, timed for the log.
    pub(super) fn search_give_back(&mut self, q: &Position, nodes: u64) -> Mated {
        let Some(search) = self.mate_search else {
            return Mated::Open;
        };
        let t = Instant::now();
        let v = search(q, self.deadline, nodes);
        self.give_back_searches += 1;
        self.give_back_time += t.elapsed();
        v
    }

    /// Whether a futility test whose bound is `m` (the length against the other replies)
    /// accepts a mate at any length. Not where every reply is a drop (`m` = 0): the check
    /// would be mate but for them, so a mate that goes on after the capture is no mate
    /// here, and the capture must mate again at once.
    pub(crate) fn any_length(&self, m: i32) -> bool {
        self.mate_search.is_some() && m > 0
    }

    /// A futility test's node valued by the tables' verdicts alone, if they have one.
    pub(super) fn give_back_initial(&mut self, q: &Position, s: &Spot) -> Option<Val> {
        if !self.any_length(s.n) {
            return None;
        }
        let hand = s.hand;
        match self.give_back_known(q)? {
            true => Some(Val::proven(0, hand)),
            false => Some(Val::disproven(NEVER, hand)),
        }
    }

    /// A futility test's node after the bounded search disproved it within its horizon:
    /// the df-pn may still find the give-back position mated at a greater length.
    ///
    /// Left standing, the disproof holds for this hand alone, not for its disproof
    /// pieces: the verdict at any length (or its absence, which counts the drop as a
    /// defence) was reached for `q`, and with more pieces the attacker may mate it. A
    /// disproof carried past that to bigger hands rested on tests nobody made, where the
    /// walk of [`Self::settle_near_mates`] cannot find them.
    ///
    /// A search that is aborting makes no test: the verdict kept from an earlier one
    /// settles the node, and without one it stays open. Returned as it came, the
    /// disproof would rest on a test nobody made, and it would be stored with its parents
    /// for the next search on these tables to reuse.
    pub(super) fn give_back_settled(&mut self, q: &Position, s: &Spot, v: Val) -> Val {
        if v.dn != 0 || v.len >= NEVER || !self.any_length(s.n) {
            return v;
        }
        let verdict = if self.aborted {
            match self.kept_give_back(q.key()) {
                Some(kept) => kept,
                None => return Val::open(1, 1),
            }
        } else {
            self.give_back_searched(q)
        };
        match verdict {
            Some(true) => Val::proven(0, s.hand),
            _ => Val::disproven(v.len, s.hand),
        }
    }

    /// The futility test on the give-back position `q`, whose sibling defences are mated
    /// within `m`: see [`super::futile`].
    pub fn give_back_test(&mut self, q: Position, m: i32) -> Option<bool> {
        if let Some(v) = self
            .any_length(m)
            .then(|| self.give_back_known(&q))
            .flatten()
        {
            return Some(v);
        }
        match self.prove(&Node::new(q.clone(), Kind::And, m))? {
            true => Some(true),
            false => Some(self.any_length(m) && self.give_back_searched(&q) == Some(true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::solver::MateSearch;
    use kanju_engine::{Color, GenMode};
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    /// A verdict of mated outlives the table that gave it, and the record's cap: the
    /// df-pn table says the give-back position is mated, then loses it, and a search
    /// with a budget no longer finds the mate. The drop must stay futile for the proofs
    /// that counted it so.
    #[test]
    fn a_mated_give_back_position_stays_mated() {
        let q = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1").unwrap();
        let forgotten = AtomicBool::new(false);
        let hints = |p: &Position| {
            if p.key() == q.key() && !forgotten.load(Ordering::Relaxed) {
                Hint::Mated(3)
            } else {
                Hint::Unknown
            }
        };
        let searches = AtomicU32::new(0);
        let search = |_: &Position, _: Option<Instant>, _: u64| {
            searches.fetch_add(1, Ordering::Relaxed);
            Mated::Open
        };
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &hints, 1 << 20);
        b.set_mate_search(&search as MateSearch);
        assert_eq!(b.give_back_known(&q), Some(true));
        forgotten.store(true, Ordering::Relaxed);
        assert_eq!(b.give_back_known(&q), Some(true));
        assert_eq!(b.give_back_searched(&q), Some(true));
        assert_eq!(searches.load(Ordering::Relaxed), 0);
        // A full record keeps it too, and drops the rest.
        b.give_back_cap = 4;
        for i in 0..4u64 {
            b.keep_give_back(i + 1, None);
        }
        assert_eq!(b.give_back_known(&q), Some(true));
        assert_eq!(b.kept_give_back(1), None);
    }

    /// The spot of a futility test on give-back position `q`, four plies from its bound.
    fn test_spot(q: &Position) -> Spot {
        Spot {
            kind: Kind::And,
            n: 4,
            board_key: q.board_key(),
            hand: q.hand(Color::Black),
        }
    }

    /// A futility test's disproof within its horizon, left standing because its give-back
    /// position is not known mated at any length, holds for the test's hand alone: with
    /// more pieces the attacker might mate that position, and the drop be futile.
    #[test]
    fn a_standing_test_disproof_keeps_to_its_hand() {
        let q = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1").unwrap();
        let hints = |_: &Position| Hint::Unknown;
        let search = |_: &Position, _: Option<Instant>, _: u64| Mated::Open;
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &hints, 1 << 20);
        b.set_mate_search(&search as MateSearch);
        let hand = q.hand(Color::Black);
        let s = test_spot(&q);
        let wider = crate::proof_hand::disproof_ceiling(hand);
        assert_ne!(wider, hand);
        let v = b.give_back_settled(&q, &s, Val::disproven(4, wider));
        assert_eq!((v.dn, v.len, v.hand), (0, 4, hand));
    }

    /// An aborting search makes no futility test. The test's disproof within its horizon
    /// then stands only on a verdict kept from an earlier test; without one it is open,
    /// because the drop may be futile and its parent mated.
    #[test]
    fn an_aborting_search_leaves_an_untested_disproof_open() {
        let q = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 w G2r2b3g4s4n4l17p 1").unwrap();
        let hints = |_: &Position| Hint::Unknown;
        let searches = AtomicU32::new(0);
        let search = |_: &Position, _: Option<Instant>, _: u64| {
            searches.fetch_add(1, Ordering::Relaxed);
            Mated::Yes
        };
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &hints, 1 << 20);
        b.set_mate_search(&search as MateSearch);
        let hand = q.hand(Color::Black);
        let s = test_spot(&q);
        b.aborted = true;
        let v = b.give_back_settled(&q, &s, Val::disproven(4, hand));
        assert!(
            v.pn != 0 && v.dn != 0,
            "settled without a test: {:?}",
            (v.pn, v.dn)
        );
        assert_eq!(searches.load(Ordering::Relaxed), 0);
        // A kept verdict still settles it, without a search.
        b.keep_give_back(q.key(), Some(true));
        let v = b.give_back_settled(&q, &s, Val::disproven(4, hand));
        assert_eq!(v.pn, 0);
        b.keep_give_back(q.key(), None);
        let v = b.give_back_settled(&q, &s, Val::disproven(4, hand));
        assert_eq!((v.dn, v.hand), (0, hand));
        assert_eq!(searches.load(Ordering::Relaxed), 0);
    }
}
