//! A proven brinkmate turned into what is reported: the main line, every reply to its
//! last move with the mate that answers it, and the root's threatmates.
//!
//! Nothing is reported on the search's word alone. The whole proof tree is walked again:
//! at each attacker node a proven move, at each defender node every legal reply, down to
//! tsume leaves whose mate lines are rebuilt and replayed. A tree with a leaf that does
//! not replay is not a brinkmate.

use super::nodes::Numbers;
use super::oracle::Verdict;
use super::search::{Search, THREAT_NODES};
use super::{BrinkmateOutcome, ReplyMate};
use crate::{pv, UnknownReason};
use kanju_engine::{GenMode, Move, MoveList, Position};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Extra time and nodes for rebuilding and replaying lines once the search has ended,
/// so that a brinkmate found at the deadline is still reported.
const GRACE: Duration = Duration::from_secs(1);
const GRACE_NODES: u64 = 2_000_000;

/// The outcome of a root the search proved, with the replies to the brinkmate.
pub(super) fn proven(
    s: &mut Search,
    root: &Position,
    left: u32,
) -> (BrinkmateOutcome, Vec<ReplyMate>) {
    s.oracle.extend(Instant::now() + GRACE, GRACE_NODES);
    let mut v = Verifier::new(s);
    if v.s.oracle.known(root) == Some(Verdict::Mate) {
        return match v.s.oracle.mate_line(root) {
            Some(line) => (BrinkmateOutcome::Mate(line), Vec::new()),
            None => unverified(v.s),
        };
    }
    if !v.tree(root, left) {
        return unverified(v.s);
    }
    // The main line: a proven move, then a reply that needs more than a mate by checks
    // (the defender's longest resistance the proof shows), until every reply is mated.
    let mut line = Vec::new();
    let mut pos = root.clone();
    let mut left = left;
    loop {
        let m = v
            .proven_move(&pos, left)
            .expect("a verified attacker node has a proven move");
        line.push(m);
        pos = pos.play(m);
        left -= 1;
        let replies = legal_moves(&pos);
        let deeper = replies
            .iter()
            .copied()
            .find(|&r| v.s.oracle.known(&pos.play(r)) != Some(Verdict::Mate));
        match deeper {
            Some(r) => {
                line.push(r);
                pos = pos.play(r);
            }
            None => {
                let mates = replies
                    .into_iter()
                    .map(|r| {
                        let after = pos.play(r);
                        ReplyMate {
                            reply: r,
                            mate: shortened(&after, &v.lines[&after.key()]),
                        }
                    })
                    .collect();
                return (BrinkmateOutcome::Brinkmate(line), mates);
            }
        }
    }
}

/// The root's quiet moves that threaten mate, each threat proven and its mate replayed.
pub(super) fn threatmates(s: &mut Search, root: &Position) -> Vec<Move> {
    if s.oracle.known(root) == Some(Verdict::Mate) {
        return Vec::new();
    }
    s.oracle.extend(Instant::now() + GRACE, GRACE_NODES);
    let mut out = Vec::new();
    for m in legal_moves(root) {
        let child = root.play(m);
        let Some(passed) = child.pass() else { continue };
        if s.oracle.mate(&passed, THREAT_NODES) == Verdict::Mate
            && s.oracle.mate_line(&passed).is_some()
        {
            out.push(m);
        }
    }
    out
}

/// A reply's mate as reported: df-pn's line is a mate but not always the shortest, so a
/// mate in one replaces it where there is one. Longer mates are left as df-pn found them.
fn shortened(pos: &Position, line: &[Move]) -> Vec<Move> {
    match pos.mate_in_1() {
        Some(m) if line.len() > 1 && pv::verify(pos, pos.side_to_move(), &[m]) => vec![m],
        _ => line.to_vec(),
    }
}

fn unverified(s: &Search) -> (BrinkmateOutcome, Vec<ReplyMate>) {
    log::warn!("brinkmate: a proven tree did not replay within the limits");
    let reason = s.cut.or(s.oracle.cut).unwrap_or(if s.stopped() {
        UnknownReason::Stopped
    } else {
        UnknownReason::Nodes
    });
    (BrinkmateOutcome::Unknown(reason), Vec::new())
}

/// The legal moves, promotions first: where a piece wins promoted or not, the line
/// shows the promotion.
pub(super) fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut moves = MoveList::new();
    pos.legal_moves_with(GenMode::All, &mut moves);
    let mut moves = moves.as_slice().to_vec();
    moves.sort_by_key(|m| !m.is_promotion());
    moves
}

/// Walks a proof tree again, replaying its mates.
pub(super) struct Verifier<'s, 'a> {
    s: &'s mut Search<'a>,
    /// The replayed mate of each tsume leaf, by position key.
    lines: HashMap<u64, Vec<Move>>,
    /// Nodes already verified, by position key and moves left.
    done: HashSet<(u64, u32)>,
}

impl<'s, 'a> Verifier<'s, 'a> {
    pub fn new(s: &'s mut Search<'a>) -> Verifier<'s, 'a> {
        Verifier {
            s,
            lines: HashMap::new(),
            done: HashSet::new(),
        }
    }

    /// Whether every legal reply in the defender node `pos` leads to a verified win
    /// with `left` attacker moves left.
    pub fn defence(&mut self, pos: &Position, left: u32) -> bool {
        legal_moves(pos)
            .into_iter()
            .all(|r| self.tree(&pos.play(r), left))
    }

    /// A proven attacker move at `pos`, by the tree's numbers.
    fn proven_move(&self, pos: &Position, left: u32) -> Option<Move> {
        if left == 0 {
            return None;
        }
        legal_moves(pos)
            .into_iter()
            .find(|&m| self.s.numbers(&pos.play(m), left - 1) == Numbers::PROVEN)
    }

    /// Whether the attacker node `pos` with `left` moves left is a verified win: a
    /// replayed mate by checks, or a proven move whose every reply is one in turn.
    fn tree(&mut self, pos: &Position, left: u32) -> bool {
        if !self.done.insert((pos.key(), left)) {
            return true;
        }
        if self.s.oracle.known(pos) == Some(Verdict::Mate) {
            if self.lines.contains_key(&pos.key()) {
                return true;
            }
            return match self.s.oracle.mate_line(pos) {
                Some(line) => {
                    self.lines.insert(pos.key(), line);
                    true
                }
                None => false,
            };
        }
        let Some(m) = self.proven_move(pos, left) else {
            return false;
        };
        self.defence(&pos.play(m), left - 1)
    }
}
