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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mainline::test_data::no_hints;
    use kanju_engine::Color;
    use std::sync::atomic::AtomicBool;

    fn verifies(sfen: &str, line: &[&str]) -> bool {
        let root = Position::from_sfen(sfen).expect("a legal position");
        let line: Vec<Move> = line.iter().map(|s| Move::from_usi(s).unwrap()).collect();
        let stop = AtomicBool::new(false);
        let mut b = Bounded::new(Color::Black, GenMode::All, &stop, &no_hints, 1 << 20);
        verify(&mut b, &root, &line)
    }

    /// R*9a checks the king on 1a along the first rank. The gold on 2c guards 1b and 2b
    /// and the silver on 3b guards 2a, so the defender can only drop a piece between.
    /// Each such drop is futile: the rook takes it, still checking, and it ends next to
    /// the king on 2a, guarded by the silver. So the line is a tsume mate.
    #[test]
    fn a_line_ending_in_futile_drops_is_a_mate() {
        assert!(verifies(
            "8k/6S2/7G1/9/9/9/9/9/9 b Rr2b3g3s4n4l18p 1",
            &["R*9a"]
        ));
    }

    /// Without the silver the rook that takes on 2a is taken by the king: the drop there
    /// holds, so the same check is no mate.
    #[test]
    fn a_line_ending_where_a_drop_holds_is_refused() {
        assert!(!verifies(
            "8k/9/7G1/9/9/9/9/9/9 b Rr2b3g4s4n4l18p 1",
            &["R*9a"]
        ));
    }

    #[test]
    fn a_line_with_a_move_that_is_not_a_check_is_refused() {
        assert!(!verifies(
            "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
            &["G*9a"]
        ));
        assert!(verifies(
            "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
            &["G*5b"]
        ));
    }
}
