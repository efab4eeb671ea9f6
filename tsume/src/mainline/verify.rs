//! The last word before a line leaves the solver: replay it move by move.

use super::bounded::{Bounded, Kind, Node};
use super::futile::{interposition_line, is_interposing_drop};
use kanju_engine::{GenMode, Move, MoveList, Position};

/// True if `line` from `root` is a mate under tsume rules: every move legal, every
/// attacker move a check, every defender move an answer to check, and at the end the
/// defender to move with no reply but futile drops (none at all, usually).
pub(crate) fn verify(b: &mut Bounded, root: &Position, line: &[Move]) -> bool {
    let mut pos = root.clone();
    for &m in line {
        if !pos.is_legal(m) {
            return false;
        }
        if pos.side_to_move() == b.attacker {
            if !pos.gives_check(m) {
                return false;
            }
        } else if !pos.in_check() {
            return false;
        }
        pos = pos.play(m);
    }
    if pos.side_to_move() == b.attacker || !pos.in_check() {
        return false;
    }
    if !pos.has_legal_move() {
        return true;
    }
    // Only interposing drops may remain, and each must be futile with nothing left to play.
    let mut list = MoveList::new();
    pos.evasions(GenMode::All, &mut list);
    let line_sq = interposition_line(&pos);
    if !list
        .as_slice()
        .iter()
        .all(|&m| is_interposing_drop(m, line_sq))
    {
        return false;
    }
    b.prove(&Node::new(pos, Kind::And, 0)) == Some(true)
}
