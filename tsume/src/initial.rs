//! Initial proof and disproof numbers for new leaves (df-pn+ style).
//!
//! A leaf's numbers steer which moves are tried first. The estimate must be cheap: it is
//! computed for every child of every expanded node, before the move is made.

use kanju_engine::{step_attacks, Move, Piece, PieceKind, Position, Replies};

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

/// The proof-number estimate of a defender node from its replies to the check: one per
/// board move, and one for all interposition drops together (they are counted by their
/// maximum, see [`crate::node::summarize`]).
#[inline]
pub(crate) fn evasion_estimate(replies: Replies) -> u32 {
    (replies.board_moves + u32::from(replies.drop)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rook checks the king along the last rank from afar: two king moves and seven
    /// squares for the two silvers in hand, counted as one.
    #[test]
    fn interposition_drops_count_once() {
        let replies = |sfen: &str| Position::from_sfen(sfen).unwrap().count_evasions();
        let distant = replies("4K4/9/9/9/9/9/9/9/R7k w 2s 1");
        assert_eq!((distant.board_moves, distant.drop), (2, true));
        assert_eq!(evasion_estimate(distant), 3);
        assert_eq!(evasion_estimate(replies("4K4/9/9/9/9/9/9/9/R7k w - 1")), 2);
        let only_drops = Replies {
            board_moves: 0,
            drop: true,
        };
        assert_eq!(evasion_estimate(only_drops), 1);
    }
}
