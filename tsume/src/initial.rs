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

/// The proof-number estimate of a defender node from its evasions: one per board move,
/// one per square the defender can drop on (drops on one square are tried cheapest first,
/// so together they cost about one).
#[inline]
pub(crate) fn evasion_estimate(evasions: &[Move]) -> u32 {
    let mut squares = 0u128;
    let mut n = 0u32;
    for &m in evasions {
        if m.is_drop() {
            let bit = 1u128 << m.to().index();
            if squares & bit == 0 {
                squares |= bit;
                n += 1;
            }
        } else {
            n += 1;
        }
    }
    n.max(1)
}
