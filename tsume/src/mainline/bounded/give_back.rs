//! The futility test's give-back positions (see [`crate::mainline::futile`]): whether the
//! defender, given the interposed piece back, is still mated, from the tables' verdicts or
//! a df-pn search with a small budget.

use super::tables::Spot;
use super::{Bounded, Kind, Node, Val, NEVER};
use crate::mainline::solver::Hint;
use kanju_engine::Position;

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
    pub(super) fn give_back_known(&self, q: &Position) -> Option<bool> {
        self.mate_search?;
        match self.hints.hint(q) {
            Hint::Mated(_) => Some(true),
            Hint::NoMate => Some(false),
            Hint::Unknown if self.proven_len(q).is_some() => Some(true),
            Hint::Unknown if self.disproven_bound(q) >= NEVER => Some(false),
            Hint::Unknown => None,
        }
    }

    /// Whether `q` is mated at any length, by a df-pn search with a node budget; `None`
    /// when it stays undecided (counted in `undecided_futility`).
    pub(super) fn give_back_searched(&mut self, q: &Position) -> Option<bool> {
        let key = q.key();
        let known = self.give_back.get(&key);
        if let Some(&v) = known.or_else(|| self.base.and_then(|b| b.give_back.get(&key))) {
            return v;
        }
        let ahead = self.ahead.and_then(|a| a.verdict(key));
        let v = ahead.unwrap_or_else(|| {
            let t = std::time::Instant::now();
            let v = self
                .mate_search
                .and_then(|f| f(q, self.deadline, GIVE_BACK_NODES));
            self.give_back_searches += 1;
            self.give_back_time += t.elapsed();
            v
        });
        if v.is_none() {
            self.undecided_futility += 1;
        }
        log::trace!("give-back {} mated: {v:?}", q.to_sfen());
        if self.give_back.len() >= self.give_back_cap {
            self.give_back.clear();
        }
        self.give_back.insert(key, v);
        v
    }

    /// Whether a futility test whose bound is `m` (the length against the other replies)
    /// accepts a mate at any length. Not where every reply is a drop (`m` = 0): the check
    /// would be mate but for them, so a mate that goes on after the capture is no mate
    /// here, and the capture must mate again at once.
    pub(super) fn any_length(&self, m: i32) -> bool {
        self.mate_search.is_some() && m > 0
    }

    /// A futility test's node valued by the tables' verdicts alone, if they have one.
    pub(super) fn give_back_initial(&self, q: &Position, s: &Spot) -> Option<Val> {
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
    pub(super) fn give_back_settled(&mut self, q: &Position, s: &Spot, v: Val) -> Val {
        if v.dn != 0 || self.aborted || v.len >= NEVER || !self.any_length(s.n) {
            return v;
        }
        match self.give_back_searched(q) {
            Some(true) => Val::proven(0, s.hand),
            _ => v,
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
