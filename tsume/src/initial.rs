//! Initial proof and disproof numbers for new leaves (df-pn+ style).
//!
//! A leaf's numbers steer which moves are tried first. The estimate must be cheap: it is
//! computed for every child of every expanded node, before the move is made.

use kanju_engine::{step_attacks, Move, Piece, PieceKind, Position};

/// Estimated (pn, dn) of the child of `pos` reached by `m`. `from_or` is true when `m` is
/// the attacker's check (so the child is a defender node).
#[inline]
pub(crate) fn estimate(pos: &Position, m: Move, from_or: bool) -> (u32, u32) {
    if from_or {
        // The more room the king has, the harder the check is to follow up. A drop next
        // to the king takes a square away; a distant drop is often answered by a capture
        // or an interposition.
        let defender = pos.side_to_move().flip();
        let Some(king) = pos.king_square(defender) else {
            return (1, 1);
        };
        let around = step_attacks(Piece::new(defender, PieceKind::King), king);
        let free = around.and_not(pos.pieces(defender)).count();
        let pn = 1 + free / 3 + u32::from(m.is_drop() && !around.contains(m.to()));
        (pn, 1)
    } else {
        (1, 1)
    }
}

/// The proof-number estimate of a defender node from its evasions: one per board move, and
/// one for all interposition drops together (they are counted by their maximum, see
/// [`crate::node::summarize`]).
#[inline]
pub(crate) fn evasion_estimate(evasions: &[Move]) -> u32 {
    let drops = evasions.iter().filter(|m| m.is_drop()).count() as u32;
    let board = evasions.len() as u32 - drops;
    (board + u32::from(drops > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kanju_engine::{PieceKind, Square};

    #[test]
    fn interposition_drops_count_once() {
        let sq = |i| Square::from_index(i).unwrap();
        let board = Move::normal(sq(10), sq(11), false);
        let drops = [
            Move::drop(PieceKind::Pawn, sq(20)),
            Move::drop(PieceKind::Gold, sq(20)),
            Move::drop(PieceKind::Pawn, sq(29)),
        ];
        assert_eq!(evasion_estimate(&[]), 1);
        assert_eq!(evasion_estimate(&[board]), 1);
        assert_eq!(evasion_estimate(&drops), 1);
        assert_eq!(evasion_estimate(&[board, drops[0], drops[1], drops[2]]), 2);
    }
}
