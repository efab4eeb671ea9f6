//! Initial proof and disproof numbers for new leaves (df-pn+ style).
//!
//! A leaf's numbers steer which moves are tried first. The estimate must be cheap: it is
//! computed for every child of every expanded node.

use kanju_engine::{step_attacks, Move, Piece, PieceKind, Position};

/// Estimated (pn, dn) of `child`, reached by `m`. `from_or` is true when `m` is the
/// attacker's check (so `child` is a defender node).
#[inline]
pub(crate) fn estimate(child: &Position, m: Move, from_or: bool) -> (u32, u32) {
    if from_or {
        // The more room the king has, the harder the check is to follow up.
        let defender = child.side_to_move();
        let Some(king) = child.king_square(defender) else {
            return (1, 1);
        };
        let around = step_attacks(Piece::new(defender, PieceKind::King), king);
        let free = around.and_not(child.pieces(defender)).count();
        let pn = 1 + free / 3 + u32::from(m.is_drop());
        (pn, 1)
    } else {
        // Defences that capture or move the king tend to be the strong ones.
        (1, 1)
    }
}
