//! Initial proof numbers for new defender nodes (df-pn+ style).
//!
//! A leaf's numbers steer which moves are tried first. A new check is estimated by the
//! defender's replies to it, counted once the check is made; every other new child starts
//! at (1, 1). No static guess is made before the move: the count or the table always
//! replaced it (docs/performance.md, session 45).

use kanju_engine::Replies;

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
    use kanju_engine::Position;

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
