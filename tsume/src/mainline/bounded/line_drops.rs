//! The drops a main line counts as effective on the strength of an undecided futility
//! test, looked at again before the line's length is called exact.
//!
//! Under the any-length rule a give-back search that runs out of its few thousand nodes
//! counts the drop as a defence (`docs/rules.md`). Where that search ended near a mate,
//! [`Bounded::settle_near_mates`] searches it again; where it did not, the disproof of a
//! shorter mate may rest on a drop that is futile after all, and the length it shows
//! exact is too long. `5k3/9/5B3/3+R5/4g+r3/3+B5/9/9/9 b g 1` (classical rules) printed
//! 13 plies, exact: G*4d at ply 6 counted as effective, while from three plies in the
//! same position printed 8, exact, having found that drop futile. Its give-back position
//! after 5e4d is mated in 32 plies, which an empty table proves in 96 000 nodes; the
//! first search stopped at 3 000, far from the mate by its numbers.
//!
//! The drops of the printed line are few, so each whose test is undecided gets a search
//! as large as a step down's. One found mated now is kept so, and the walk of the
//! disproof then finds it under the drop and voids the disproof over it.

use super::{Bounded, Recheck};
use crate::mainline::futile::{give_backs, interposition_line, is_interposing_drop};
use crate::mainline::solver::Mated;
use kanju_engine::{GenMode, Move, MoveList, Position};

/// Nodes for each undecided test on the line. Like a step down's budget: the line's
/// drops are few, and a wrong one costs the exactness of the length.
pub(crate) const LINE_DROP_NODES: u64 = 2_000_000;

/// How many times an undecided test on the line is searched, while each search stops
/// open ([`Bounded::decide_line_drop`]).
const LINE_DROP_TRIES: usize = 3;

/// The most tests on one line searched again (Microcosmos' 1525 plies must not spend
/// its time here).
const LINE_DROP_CAP: usize = 8;

/// Searches [`Bounded::recheck_line_defences`] may make in one round.
const LINE_DEFENCE_SEARCHES: usize = 64;

/// Nodes the walks of the line's defences' disproofs may visit in one round, about half
/// a second.
const LINE_DEFENCE_WALK: usize = 1 << 18;

/// What [`Bounded::recheck_line_drops`] found.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct LineDrops {
    /// Undecided tests searched again.
    pub searched: usize,
    /// Of those, found mated now: their drops are futile.
    pub futile: usize,
}

impl Bounded<'_> {
    /// Searches again, with [`LINE_DROP_NODES`] each, the undecided futility tests of the
    /// interposing drops the defender plays on `line` from `root`, but for those whose
    /// give-back positions' keys are in `done`, to which it adds the ones it searches: a
    /// later round on a line that shares them would only repeat the search.
    pub fn recheck_line_drops(
        &mut self,
        root: &Position,
        line: &[Move],
        done: &mut Vec<u64>,
    ) -> LineDrops {
        let mut found = LineDrops::default();
        if self.mate_search.is_none() {
            return found;
        }
        let mut pos = root.clone();
        for (i, &m) in line.iter().enumerate() {
            let after = pos.play(m);
            if pos.side_to_move() != self.attacker {
                for q in self.undecided_give_backs(&pos, m, &after) {
                    if done.contains(&q.key()) {
                        continue;
                    }
                    // The rest count as effective, as their first tests left them.
                    if found.searched >= LINE_DROP_CAP || self.past_deadline() {
                        return found;
                    }
                    found.searched += 1;
                    done.push(q.key());
                    let v = self.decide_line_drop(&q);
                    log::debug!("mainline: the drop at ply {} rechecked: {v:?}", i + 1);
                    if v == Mated::Yes {
                        found.futile += 1;
                    }
                }
            }
            pos = after;
        }
        found
    }

    /// The futility test of a drop on the line, whose give-back position is `q`, searched
    /// with [`LINE_DROP_NODES`] up to [`LINE_DROP_TRIES`] times. The give-back search goes
    /// past the first third of its nodes only while it leans to a mate, since most tests
    /// need only find the futile drops; but a drop on the line is worth deciding either
    /// way, as the answer names those it counts on undecided tests. So a search that
    /// stops open is asked again, and goes on from what its first tries left in the df-pn
    /// table. (Zuko 74's P*6h at ply 8: its give-back position is not mated, which a
    /// fresh two-thread search proves in 894 000 nodes, past the first third of 2 million.)
    fn decide_line_drop(&mut self, q: &Position) -> Mated {
        let mut v = Mated::Open;
        for _ in 0..LINE_DROP_TRIES {
            v = self.search_near_mate(q.key(), q, LINE_DROP_NODES);
            if v != Mated::Open || self.past_deadline() {
                break;
            }
        }
        v
    }

    /// The disproofs that make the line's defences longest, checked
    /// ([`Bounded::settle_undecided`]): at each defender node of `line` from `root`, `r`
    /// plies from its end, the defence played is longest because it is shown not mated
    /// within `r - 3`. That disproof may rest on a drop counted effective whose give-back
    /// position is mated, or on a disproof voided since, and the walk then took a
    /// defence that is not longest. From the end of the line up, as the disproofs there
    /// are small, until [`LINE_DEFENCE_SEARCHES`] searches or [`LINE_DEFENCE_WALK`]
    /// walked nodes are spent. Last the root's own disproof of a mate two plies shorter
    /// than the line, the one that shows its length exact, within what is left: a
    /// defence the only reply has no disproof of its own to check, and the attacker's
    /// shorter mates below it are refuted only there. Returns how many were voided.
    /// `done` holds the give-back positions' keys searched already, and takes the ones
    /// searched here.
    pub fn recheck_line_defences(
        &mut self,
        root: &Position,
        line: &[Move],
        done: &mut Vec<u64>,
    ) -> usize {
        let mut voided = 0;
        if self.mate_search.is_none() {
            return voided;
        }
        let mut budget = Recheck {
            searches: LINE_DEFENCE_SEARCHES,
            walk_nodes: LINE_DEFENCE_WALK,
        };
        let positions = crate::mainline::replay(root, line);
        for i in (0..line.len()).rev() {
            let (pos, after) = (&positions[i], &positions[i + 1]);
            let n = (line.len() - i) as i32 - 3;
            if pos.side_to_move() == self.attacker || n < 1 || self.disproven_bound(after) < n {
                continue;
            }
            if !budget.left() || self.past_deadline() {
                break;
            }
            if self.settle_undecided(after, n, done, &mut budget) {
                log::debug!(
                    "mainline: the defence at ply {} was not shown longest",
                    i + 1
                );
                voided += 1;
            }
        }
        // Session 78: `2+R1+Rlg2/9/3kg1N1+B/9/9/9/9/9/9 b GSNs 1` (classical rules) was
        // printed 9 plies, exact. After 5a6b the only reply 6c5d is mated in 5 by 7a7d,
        // whose interposition S*6d, taken by 6b6d and given back, is mated in 32; that
        // test stopped undecided far from a mate, and the disproof of a mate within 7
        // stood on it.
        let n = line.len() as i32 - 2;
        if voided == 0
            && n >= 1
            && self.disproven_bound(root) >= n
            && budget.left()
            && !self.past_deadline()
            && self.settle_undecided(root, n, done, &mut budget)
        {
            log::debug!("mainline: the root's disproof within {n} did not stand");
            voided += 1;
        }
        voided
    }

    /// The plies (from 0) of `line` from `root` whose interposing drop is played as a
    /// defence only because its futility test is undecided: a search with more nodes may
    /// find it futile, and then the line leaves it out. The length shown, exact or not,
    /// takes each of them as effective (`docs/rules.md`).
    pub fn undecided_line_drops(&mut self, root: &Position, line: &[Move]) -> Vec<usize> {
        if self.mate_search.is_none() {
            return Vec::new();
        }
        let positions = crate::mainline::replay(root, line);
        (0..line.len())
            .filter(|&i| {
                let (pos, after) = (&positions[i], &positions[i + 1]);
                pos.side_to_move() != self.attacker
                    && !self.undecided_give_backs(pos, line[i], after).is_empty()
            })
            .collect()
    }

    /// The give-back positions of the defender's drop `m` from `pos` (leaving `after`)
    /// whose futility tests are undecided: none unless `m` interposes and the test asks
    /// for a mate at any length, which needs a real defence beside the drops.
    fn undecided_give_backs(&mut self, pos: &Position, m: Move, after: &Position) -> Vec<Position> {
        let line = interposition_line(pos);
        if !is_interposing_drop(m, line) {
            return Vec::new();
        }
        let mut replies = MoveList::new();
        pos.evasions(GenMode::All, &mut replies);
        if replies
            .as_slice()
            .iter()
            .all(|&r| is_interposing_drop(r, line))
        {
            return Vec::new();
        }
        let checker = line.expect("an interposition has a line").0;
        let mut undecided = Vec::new();
        for q in give_backs(after, m, checker, self.check_mode) {
            let decided = match self.kept_give_back(q.key()) {
                Some(kept) => kept.is_some(),
                None => self.give_back_known(&q).is_some(),
            };
            if !decided {
                undecided.push(q);
            }
        }
        undecided
    }
}
