//! An upper bound from the df-pn proof: walk the proof tree the solver's table holds and
//! measure it under tsume rules.
//!
//! The walk takes, at each attacker node, a check the table proves (shortest stored proof
//! first), and at each defender node every reply, interposing drops included. Counting
//! every drop as a real defence can only lengthen the mate (the defender gets more
//! choices, and a drop that is answered costs the drop and the capture either way), so the
//! length of the walked tree bounds the length under tsume rules from above. Each node's
//! length is recorded in the bounded search's table as a proof, so the searches that
//! follow start from the whole tree instead of rebuilding it.

use super::bounded::Bounded;
use super::path_failures::{PathFailures, NO_HIT};
use super::solver::{Hint, Reprove};
use kanju_engine::{GenMode, Move, MoveList, Position};
use std::collections::HashSet;
use std::time::Instant;

/// Where the table holds no proven check, a bounded search for a mate this short...
const SHORT_MATE: i32 = 9;
/// ...with this many nodes.
const SHORT_SEARCH_NODES: u64 = 20_000;
/// Nodes the df-pn may spend proving again a position whose proof the table lost.
const REPROVE_NODES: u64 = 200_000;
/// A bound no mate the walk meets reaches: "mate within it" is "mate".
const ANY_LENGTH: i32 = 4095;
/// Nodes for all the walk's searches apart from the df-pn table.
const APART_NODES: u64 = 2_000_000;

/// The walk's state: nodes on the current path (a cycle is no proof) and nodes that
/// failed.
struct Walk<'w, 'a> {
    b: &'w mut Bounded<'a>,
    reprove: Reprove<'a>,
    path: PathFailures,
    /// The shallowest path position the failures below the current node ran into
    /// ([`NO_HIT`] if none).
    hit: usize,
    /// Attacker positions where the searches beyond the df-pn table's proofs failed
    /// ([`Walk::beyond_table`]).
    beyond_failed: HashSet<u64>,
    deadline: Option<Instant>,
    nodes: u64,
    node_limit: u64,
    /// What is left of [`APART_NODES`].
    apart_nodes: u64,
}

/// The length of the df-pn proof of `root` under tsume rules, or `None` if the table lost
/// part of it or the limits ran out.
pub(crate) fn upper_bound<'a>(
    b: &mut Bounded<'a>,
    reprove: Reprove<'a>,
    root: &Position,
    deadline: Option<Instant>,
    node_limit: u64,
) -> Option<i32> {
    let mut w = Walk {
        b,
        reprove,
        path: PathFailures::default(),
        hit: NO_HIT,
        beyond_failed: HashSet::new(),
        deadline,
        nodes: 0,
        node_limit,
        apart_nodes: APART_NODES,
    };
    let r = w.walk(root);
    log::debug!(
        "mainline: proof walk {r:?} after {} nodes, {} failed",
        w.nodes,
        w.path.len()
    );
    r
}

/// The line along the tree [`upper_bound`] measured, read off the lengths it recorded in
/// `b`: at each attacker node the check with the shortest recorded mate, at each defender
/// node the reply with the longest, every drop counted as a real defence as the walk
/// counted it. Where the recorded lengths agree with one another its length is the
/// measure, an upper bound on the problem's, so it does not end short of the problem as a
/// line whose defences were picked by loose bounds can (Zuko 65: the measure's 43 plies,
/// where the df-pn line had 11 to 15). They need not agree: the walk took lengths the
/// tables already held, and the shortest recorded mate at an attacker node may be one the
/// walk did not measure (Muso 98, measured 73: a line of 15). So the caller takes it only
/// where it reaches a proven bound. Read it before other proofs tighten those lengths.
/// `None` where the tables break off or the line would loop.
pub(crate) fn measured_line(b: &Bounded, root: &Position) -> Option<Vec<Move>> {
    let mut line = Vec::new();
    let mut pos = root.clone();
    let mut seen = HashSet::new();
    let mut list = MoveList::new();
    let mut r = b.proven_len(root)?;
    while r > 0 {
        if !seen.insert(pos.key()) || line.len() > MAX_MEASURED {
            return None;
        }
        if let Some(m) = b.line_moves(&pos, &mut list) {
            line.push(m);
            return Some(line);
        }
        let attacker = pos.side_to_move() == b.attacker;
        let lens = list
            .as_slice()
            .iter()
            .filter_map(|&m| Some((m, b.proven_len(&pos.play(m))?)));
        let (m, l) = if attacker {
            lens.min_by_key(|&(_, l)| l)?
        } else {
            lens.max_by_key(|&(_, l)| l)?
        };
        line.push(m);
        pos = pos.play(m);
        r = l;
    }
    Some(line)
}

/// No measured line is followed past this many plies (Microcosmos is 1525).
const MAX_MEASURED: usize = 4096;

impl Walk<'_, '_> {
    fn out_of_limits(&self) -> bool {
        self.nodes >= self.node_limit
            || (self.nodes & 255 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d))
    }

    fn walk(&mut self, pos: &Position) -> Option<i32> {
        if let Some(l) = self.b.proven_len(pos) {
            return Some(l);
        }
        let key = pos.key();
        if let Some(depth) = self.path.refused(key) {
            self.hit = self.hit.min(depth);
            return None;
        }
        self.nodes += 1;
        if self.out_of_limits() {
            return None;
        }
        let depth = self.path.enter(key);
        let outer = std::mem::replace(&mut self.hit, NO_HIT);
        let len = if pos.side_to_move() == self.b.attacker {
            self.attacker_node(pos)
        } else {
            self.defender_node(pos)
        };
        if len.is_none() && self.path.is_empty() {
            log::debug!("seed: first failure at {}", pos.to_sfen());
        }
        let hit = self.path.leave(key, depth, len.is_none(), self.hit);
        self.hit = outer.min(hit);
        if let Some(l) = len {
            self.b.remember_proof(pos, l);
        }
        len
    }

    fn attacker_node(&mut self, pos: &Position) -> Option<i32> {
        if pos.mate_in_1().is_some() {
            return Some(1);
        }
        if let Some(l) = self.proven_checks(pos) {
            return Some(l);
        }
        if self.out_of_limits() {
            return None;
        }
        // These searches depend on the position alone: a position walked again after they
        // failed (its failure rested on the path) would repeat them to the same end.
        let key = pos.key();
        if self.beyond_failed.contains(&key) {
            return None;
        }
        let len = self.beyond_table(pos);
        if len.is_none() {
            self.beyond_failed.insert(key);
        }
        len
    }

    /// The length of `pos`'s mate where the df-pn table proves none of its checks in a way
    /// the walk can follow.
    fn beyond_table(&mut self, pos: &Position) -> Option<i32> {
        // Df-pn settles short mates near the leaves from its initial estimates without
        // storing them: a small bounded search finds them again.
        self.b.set_limits(self.deadline, Some(SHORT_SEARCH_NODES));
        if self.b.within(pos, SHORT_MATE) == Some(true) {
            return self.b.proven_len(pos);
        }
        // Otherwise the table lost this part of the proof (an entry replaced, or the
        // threads raced on it). One lost node would cost the whole bound, and the
        // main line then rebuilds from nothing what df-pn had: df-pn proves the node
        // again, and the walk goes on through the new proof.
        if !(self.reprove)(pos, self.deadline, REPROVE_NODES) {
            return None;
        }
        log::debug!("seed: proved again {}", pos.to_sfen());
        if let Some(l) = self.proven_checks(pos) {
            return Some(l);
        }
        // The table proves the node, but every proof it holds leads back onto the walk's
        // own path: a true fact (the node is mated) read as a cycle, which a re-proof on
        // the same table only confirms. Two threads left Zuko 100 so, about 155 plies in,
        // where the stored proofs led back to the start of the line and cost the whole
        // bound. The bounded search proves the node on its own, taking the df-pn table's
        // verdicts only as move order, so its proof does not loop. Its length counts
        // futile drops out, so it is still an upper bound under tsume rules. Its nodes
        // come from one budget for the walk: where it fails, every node above fails the
        // same way, and each would try again.
        let nodes = REPROVE_NODES.min(self.apart_nodes);
        if nodes == 0 || self.out_of_limits() {
            return None;
        }
        let before = self.b.nodes;
        self.b.set_limits(self.deadline, Some(nodes));
        let proved = self.b.within(pos, ANY_LENGTH) == Some(true);
        self.apart_nodes = self
            .apart_nodes
            .saturating_sub(self.b.nodes.saturating_sub(before));
        if !proved {
            return None;
        }
        log::debug!("seed: proved apart from the table {}", pos.to_sfen());
        self.b.proven_len(pos)
    }

    /// The length through the first check the df-pn table proves, shortest stored proof
    /// first, whose proof the walk can measure.
    fn proven_checks(&mut self, pos: &Position) -> Option<i32> {
        let mut list = MoveList::new();
        pos.checks(self.b.check_mode, &mut list);
        let mut proven: Vec<(u16, Position)> = list
            .as_slice()
            .iter()
            .filter_map(|&m| {
                let child = pos.play(m);
                match self.b.hint(&child) {
                    Hint::Mated(l) => Some((l, child)),
                    _ => None,
                }
            })
            .collect();
        proven.sort_by_key(|(l, _)| *l);
        for (_, child) in proven {
            if let Some(l) = self.walk(&child) {
                return Some(l + 1);
            }
            if self.out_of_limits() {
                return None;
            }
        }
        None
    }

    fn defender_node(&mut self, pos: &Position) -> Option<i32> {
        let mut list = MoveList::new();
        pos.evasions(GenMode::All, &mut list);
        let mut len = 0;
        for &m in list.as_slice() {
            len = len.max(self.walk(&pos.play(m))? + 1);
        }
        Some(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::Color;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Shogi Muso 77: mate in 11, beyond the walk's own short search.
    const MUSO_77: &str = "9/9/9/1+P1+B5/1p2S4/+pn7/1k2G4/s8/+l1L+p1+B3 b 3G2r2s3n2l14p 1";

    /// The length of `pos`'s mate by a fresh bounded search: what a df-pn table holding
    /// the whole proof would say.
    fn mated(pos: &Position, stop: &AtomicBool) -> Hint {
        let no_hints = |_: &Position| Hint::Unknown;
        let mut b = Bounded::new(Color::Black, GenMode::All, stop, &no_hints, 1 << 20);
        match b.within(pos, 31) {
            Some(true) => Hint::Mated(b.proven_len(pos).expect("proven") as u16),
            _ => Hint::Unknown,
        }
    }

    /// What re-proving the root does to the df-pn table in a test.
    #[derive(Clone, Copy)]
    enum Reproof {
        /// Proves the root and stores the whole proof again.
        Restores,
        /// Proves the root, but what it stores leads nowhere the walk can follow (in a
        /// real table: proofs that lead back onto the walk's path).
        ConfirmsOnly,
        /// Fails.
        Fails,
    }

    /// Walks Muso 77 over a df-pn table that has lost the whole proof; `reproof` says what
    /// proving it again does.
    fn walk_lost_proof(reproof: Reproof) -> (Option<i32>, usize) {
        let root = Position::from_sfen(MUSO_77).unwrap();
        let stop = AtomicBool::new(false);
        let proved_again = AtomicBool::new(false);
        let calls = AtomicUsize::new(0);
        let hints = |p: &Position| {
            if proved_again.load(Ordering::Relaxed) {
                mated(p, &stop)
            } else {
                Hint::Unknown
            }
        };
        let reprove = |_: &Position, _: Option<Instant>, _: u64| {
            calls.fetch_add(1, Ordering::Relaxed);
            let restores = matches!(reproof, Reproof::Restores);
            proved_again.store(restores, Ordering::Relaxed);
            !matches!(reproof, Reproof::Fails)
        };
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &hints, 1 << 24);
        let len = upper_bound(&mut b, &reprove, &root, None, 1_000_000);
        if let Some(l) = len {
            assert_eq!(
                b.proven_len(&root),
                Some(l),
                "the walk records what it measured"
            );
        }
        (len, calls.load(Ordering::Relaxed))
    }

    /// The measured tree's line is as long as the measure and a mate: every attacker move
    /// a legal check, every reply legal, and the end mate. A line that stands in for the
    /// main line must not claim a shorter mate than the proof bounds.
    #[test]
    fn the_measured_line_is_as_long_as_the_measure() {
        let root = Position::from_sfen(MUSO_77).unwrap();
        let stop = AtomicBool::new(false);
        let hints = |p: &Position| mated(p, &stop);
        let reprove = |_: &Position, _: Option<Instant>, _: u64| false;
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &hints, 1 << 24);
        let u = upper_bound(&mut b, &reprove, &root, None, 1_000_000).expect("measured");
        assert!(u >= 11, "{u}");
        let line = measured_line(&b, &root).expect("the tree is in the tables");
        assert_eq!(line.len() as i32, u);
        let end = line.iter().enumerate().fold(root.clone(), |p, (i, &m)| {
            assert!(p.is_legal(m), "ply {i}: {m:?}");
            assert!(i % 2 == 1 || p.gives_check(m), "ply {i}: {m:?} is no check");
            p.play(m)
        });
        assert!(end.in_check() && !end.has_legal_move());
    }

    #[test]
    fn a_proof_the_table_lost_is_proved_again() {
        // Counting every drop as a defence can only lengthen the mate: 11 or more.
        let (len, calls) = walk_lost_proof(Reproof::Restores);
        assert!(len.is_some_and(|l| l >= 11 && l % 2 == 1), "{len:?}");
        assert_eq!(
            calls, 1,
            "one re-proof at the root restores the whole proof"
        );
    }

    #[test]
    fn a_proof_the_table_only_confirms_is_found_apart_from_it() {
        let (len, calls) = walk_lost_proof(Reproof::ConfirmsOnly);
        // The walk's own search proves mate in 11 under tsume rules: a bound as good as
        // any, and no shorter mate exists.
        assert!(len.is_some_and(|l| l >= 11 && l % 2 == 1), "{len:?}");
        assert_eq!(calls, 1, "the walk's own search needs no second re-proof");
    }

    #[test]
    fn a_proof_lost_for_good_gives_no_bound() {
        let (len, calls) = walk_lost_proof(Reproof::Fails);
        assert_eq!(len, None);
        assert_eq!(calls, 1);
    }
}
